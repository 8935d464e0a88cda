2026-11-25_12:55:45.53375 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:52701", "127.0.0.1:53799", "127.0.0.1:55289"]}, "task": {"type": "worker", "index": 2}}
2026-11-25_12:55:45.53387 launching mwms_training.py on host vm pid 4633 python 3.11.7
2026-11-25_12:55:46.10217 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:55:46.10221 I0000 00:00:1795611346.102124    4633 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:55:46.10253 I0000 00:00:1795611346.102526    4633 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:55:46.22574 I0000 00:00:1795611346.223246    4633 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:55:46.22576 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:55:49.35789 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:55:49.35791 I0000 00:00:1795611349.355335    4633 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:55:49.35791 I0000 00:00:1795611349.356013    4633 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:55:50.90133 2026-11-25 12:55:50,901 - INFO - TensorFlow version: 2.21.0
2026-11-25_12:55:50.90135 tf.__version__ = 2.21.0
2026-11-25_12:55:50.90622 E0000 00:00:1795611350.906151    4633 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25_12:55:51.01778 I0000 00:00:1795611351.012026    4633 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:55289
2026-11-25_12:55:51.02622 I0000 00:00:1795611351.026183    4633 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25_12:55:51.71036 2026-11-25 12:55:51,710 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:2/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0']
2026-11-25_12:55:51.78899 2026-11-25 12:55:51,786 - INFO - Using MirroredStrategy with devices ('/job:worker/task:2/device:CPU:0',)
2026-11-25_12:55:51.78900 2026-11-25 12:55:51,786 - INFO - Check health not enabled.
2026-11-25_12:55:51.78901 2026-11-25 12:55:51,786 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:52701', '127.0.0.1:53799', '127.0.0.1:55289']}, task_type = 'worker', task_id = 2, num_workers = 3, local_devices = ('/job:worker/task:2/device:CPU:0',), communication = CommunicationImplementation.AUTO
