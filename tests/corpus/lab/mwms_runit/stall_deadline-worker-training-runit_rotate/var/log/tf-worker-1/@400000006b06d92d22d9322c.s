2026-11-25T12:48:29.00343 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:54461", "127.0.0.1:49075", "127.0.0.1:45057"]}, "task": {"type": "worker", "index": 1}}
2026-11-25T12:48:29.00577 launching mwms_training.py on host vm pid 29992 python 3.11.7
2026-11-25T12:48:29.37837 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:48:29.37840 I0000 00:00:1795610909.378321   29992 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:48:29.37873 I0000 00:00:1795610909.378720   29992 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:48:29.46836 I0000 00:00:1795610909.468303   29992 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:48:29.46838 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:48:32.50175 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:48:32.50178 I0000 00:00:1795610912.501163   29992 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:48:32.50573 I0000 00:00:1795610912.502380   29992 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:48:34.53377 INFO:tensorflow:TensorFlow version: 2.21.0
2026-11-25T12:48:34.53385 tf.__version__ = 2.21.0
2026-11-25T12:48:34.53474 E0000 00:00:1795610914.534692   29992 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:48:34.55021 I0000 00:00:1795610914.550174   29992 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:49075
2026-11-25T12:48:35.54761 I0000 00:00:1795610915.547558   29992 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25T12:48:35.55058 INFO:tensorflow:Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25T12:48:35.58438 INFO:tensorflow:Using MirroredStrategy with devices ('/job:worker/task:1/device:CPU:0',)
2026-11-25T12:48:35.58449 INFO:tensorflow:Check health not enabled.
2026-11-25T12:48:35.58455 INFO:tensorflow:MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:54461', '127.0.0.1:49075', '127.0.0.1:45057']}, task_type = 'worker', task_id = 1, num_workers = 3, local_devices = ('/job:worker/task:1/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25T12:48:35.58465 INFO:tensorflow:MultiWorkerMirroredStrategy: worker 1 of 3 replicas in sync
