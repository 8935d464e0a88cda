2026-11-25_12:39:54.33376 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:57179", "127.0.0.1:60635", "127.0.0.1:51093"]}, "task": {"type": "worker", "index": 2}}
2026-11-25_12:39:54.33382 launching mwms_training.py on host vm pid 21490 python 3.11.7
2026-11-25_12:39:54.86366 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:39:54.86367 I0000 00:00:1795610394.863593   21490 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:39:54.86394 I0000 00:00:1795610394.863906   21490 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:39:54.95712 I0000 00:00:1795610394.957023   21490 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:39:54.95713 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:39:57.94814 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:39:57.94816 I0000 00:00:1795610397.948056   21490 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:39:57.94871 I0000 00:00:1795610397.948682   21490 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:39:59.87518 2026-11-25 12:39:59,874 - INFO - TensorFlow version: 2.21.0
2026-11-25_12:39:59.87521 tf.__version__ = 2.21.0
2026-11-25_12:39:59.87650 E0000 00:00:1795610399.875924   21490 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25_12:39:59.88650 I0000 00:00:1795610399.885996   21490 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:51093
2026-11-25_12:39:59.89773 I0000 00:00:1795610399.894251   21490 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25_12:40:00.02041 2026-11-25 12:40:00,020 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:2/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0']
2026-11-25_12:40:00.06360 2026-11-25 12:40:00,063 - INFO - Using MirroredStrategy with devices ('/job:worker/task:2/device:CPU:0',)
2026-11-25_12:40:00.06366 2026-11-25 12:40:00,063 - INFO - Check health not enabled.
2026-11-25_12:40:00.06372 2026-11-25 12:40:00,063 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:57179', '127.0.0.1:60635', '127.0.0.1:51093']}, task_type = 'worker', task_id = 2, num_workers = 3, local_devices = ('/job:worker/task:2/device:CPU:0',), communication = CommunicationImplementation.AUTO
