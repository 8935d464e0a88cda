2026-11-25T12:48:29.08898 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:54461", "127.0.0.1:49075", "127.0.0.1:45057"]}, "task": {"type": "worker", "index": 2}}
2026-11-25T12:48:29.08905 launching mwms_training.py on host vm pid 29993 python 3.11.7
2026-11-25T12:48:29.60575 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:48:29.60576 I0000 00:00:1795610909.594433   29993 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:48:29.60576 I0000 00:00:1795610909.594675   29993 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:48:29.68035 I0000 00:00:1795610909.680302   29993 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:48:29.68036 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:48:32.68173 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:48:32.68177 I0000 00:00:1795610912.678700   29993 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:48:32.68241 I0000 00:00:1795610912.682402   29993 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:48:34.70154 2026-11-25 12:48:34,701 - INFO - TensorFlow version: 2.21.0
2026-11-25T12:48:34.70157 tf.__version__ = 2.21.0
2026-11-25T12:48:34.70241 E0000 00:00:1795610914.702382   29993 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:48:34.71308 I0000 00:00:1795610914.713052   29993 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:45057
2026-11-25T12:48:34.77546 I0000 00:00:1795610914.775430   29993 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25T12:48:35.55125 2026-11-25 12:48:35,550 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:2/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0']
2026-11-25T12:48:35.59377 2026-11-25 12:48:35,588 - INFO - Using MirroredStrategy with devices ('/job:worker/task:2/device:CPU:0',)
2026-11-25T12:48:35.59398 2026-11-25 12:48:35,593 - INFO - Check health not enabled.
2026-11-25T12:48:35.59405 2026-11-25 12:48:35,594 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:54461', '127.0.0.1:49075', '127.0.0.1:45057']}, task_type = 'worker', task_id = 2, num_workers = 3, local_devices = ('/job:worker/task:2/device:CPU:0',), communication = CommunicationImplementation.AUTO
