2026-11-25_12:39:54.32974 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:57179", "127.0.0.1:60635", "127.0.0.1:51093"]}, "task": {"type": "worker", "index": 1}}
2026-11-25_12:39:54.33775 launching mwms_training.py on host vm pid 21488 python 3.11.7
2026-11-25_12:39:54.86176 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:39:54.86179 I0000 00:00:1795610394.859374   21488 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:39:54.86211 I0000 00:00:1795610394.862106   21488 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:39:54.94976 I0000 00:00:1795610394.947963   21488 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:39:54.94978 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:39:57.96974 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:39:57.96977 I0000 00:00:1795610397.966951   21488 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:39:57.97045 I0000 00:00:1795610397.970441   21488 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:39:59.97338 INFO:tensorflow:TensorFlow version: 2.21.0
2026-11-25_12:39:59.97342 tf.__version__ = 2.21.0
2026-11-25_12:39:59.97424 E0000 00:00:1795610399.974199   21488 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25_12:39:59.98653 I0000 00:00:1795610399.986160   21488 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:60635
2026-11-25_12:40:00.00506 I0000 00:00:1795610400.005038   21488 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25_12:40:00.03511 INFO:tensorflow:Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25_12:40:00.06937 INFO:tensorflow:Using MirroredStrategy with devices ('/job:worker/task:1/device:CPU:0',)
2026-11-25_12:40:00.06947 INFO:tensorflow:Check health not enabled.
2026-11-25_12:40:00.06952 INFO:tensorflow:MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:57179', '127.0.0.1:60635', '127.0.0.1:51093']}, task_type = 'worker', task_id = 1, num_workers = 3, local_devices = ('/job:worker/task:1/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25_12:40:00.06962 INFO:tensorflow:MultiWorkerMirroredStrategy: worker 1 of 3 replicas in sync
