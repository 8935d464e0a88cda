2026-11-25_12:47:26.15595 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:54283", "127.0.0.1:46191", "127.0.0.1:39969"]}, "task": {"type": "worker", "index": 1}}
2026-11-25_12:47:26.15776 launching mwms_training.py on host vm pid 28310 python 3.11.7
2026-11-25_12:47:26.64981 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:47:26.64984 I0000 00:00:1795610846.647891   28310 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:47:26.65017 I0000 00:00:1795610846.650157   28310 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:47:26.75044 I0000 00:00:1795610846.750379   28310 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:47:26.75046 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:47:29.84976 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:47:29.84979 I0000 00:00:1795610849.845375   28310 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:47:29.85044 I0000 00:00:1795610849.850431   28310 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:47:31.85773 INFO:tensorflow:TensorFlow version: 2.21.0
2026-11-25_12:47:31.85781 tf.__version__ = 2.21.0
2026-11-25_12:47:31.85873 E0000 00:00:1795610851.858687   28310 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25_12:47:31.87374 I0000 00:00:1795610851.869547   28310 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:46191
2026-11-25_12:47:32.87791 I0000 00:00:1795610852.877813   28310 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25_12:47:33.02414 INFO:tensorflow:Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25_12:47:33.06277 INFO:tensorflow:Using MirroredStrategy with devices ('/job:worker/task:1/device:CPU:0',)
2026-11-25_12:47:33.06288 INFO:tensorflow:Check health not enabled.
2026-11-25_12:47:33.06294 INFO:tensorflow:MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:54283', '127.0.0.1:46191', '127.0.0.1:39969']}, task_type = 'worker', task_id = 1, num_workers = 3, local_devices = ('/job:worker/task:1/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25_12:47:33.06305 INFO:tensorflow:MultiWorkerMirroredStrategy: worker 1 of 3 replicas in sync
