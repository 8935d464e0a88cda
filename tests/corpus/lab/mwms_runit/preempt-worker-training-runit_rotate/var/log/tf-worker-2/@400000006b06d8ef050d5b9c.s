2026-11-25_12:47:26.19375 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:54283", "127.0.0.1:46191", "127.0.0.1:39969"]}, "task": {"type": "worker", "index": 2}}
2026-11-25_12:47:26.19780 launching mwms_training.py on host vm pid 28311 python 3.11.7
2026-11-25_12:47:26.72426 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:47:26.72573 I0000 00:00:1795610846.724209   28311 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:47:26.72603 I0000 00:00:1795610846.726023   28311 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:47:26.82623 I0000 00:00:1795610846.824190   28311 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:47:26.82624 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:47:29.92981 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:47:29.92984 I0000 00:00:1795610849.925643   28311 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:47:29.93051 I0000 00:00:1795610849.930498   28311 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:47:31.90437 2026-11-25 12:47:31,904 - INFO - TensorFlow version: 2.21.0
2026-11-25_12:47:31.90440 tf.__version__ = 2.21.0
2026-11-25_12:47:31.90524 E0000 00:00:1795610851.905202   28311 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25_12:47:31.91169 I0000 00:00:1795610851.911668   28311 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:39969
2026-11-25_12:47:33.02282 I0000 00:00:1795610853.022507   28311 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25_12:47:33.02686 2026-11-25 12:47:33,026 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:2/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0']
2026-11-25_12:47:33.08454 2026-11-25 12:47:33,083 - INFO - Using MirroredStrategy with devices ('/job:worker/task:2/device:CPU:0',)
2026-11-25_12:47:33.08468 2026-11-25 12:47:33,084 - INFO - Check health not enabled.
2026-11-25_12:47:33.08475 2026-11-25 12:47:33,084 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:54283', '127.0.0.1:46191', '127.0.0.1:39969']}, task_type = 'worker', task_id = 2, num_workers = 3, local_devices = ('/job:worker/task:2/device:CPU:0',), communication = CommunicationImplementation.AUTO
