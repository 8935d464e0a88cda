2026-11-25T12:41:08.79123 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:52005", "127.0.0.1:47107", "127.0.0.1:34685"]}, "task": {"type": "worker", "index": 1}}
2026-11-25T12:41:08.79776 launching mwms_training.py on host vm pid 23346 python 3.11.7
2026-11-25T12:41:09.30277 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:41:09.30280 I0000 00:00:1795610469.302728   23346 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:41:09.30572 I0000 00:00:1795610469.303095   23346 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:41:09.39374 I0000 00:00:1795610469.391135   23346 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:41:09.39375 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:41:13.04590 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:41:13.04593 I0000 00:00:1795610473.045854   23346 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:41:13.04652 I0000 00:00:1795610473.046515   23346 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:41:15.31027 INFO:tensorflow:TensorFlow version: 2.21.0
2026-11-25T12:41:15.31031 tf.__version__ = 2.21.0
2026-11-25T12:41:15.31373 E0000 00:00:1795610475.311107   23346 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:41:15.34382 I0000 00:00:1795610475.343342   23346 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:47107
2026-11-25T12:41:16.52211 I0000 00:00:1795610476.521860   23346 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25T12:41:16.53046 INFO:tensorflow:Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25T12:41:16.61037 INFO:tensorflow:Using MirroredStrategy with devices ('/job:worker/task:1/device:CPU:0',)
2026-11-25T12:41:16.61048 INFO:tensorflow:Check health not enabled.
2026-11-25T12:41:16.61054 INFO:tensorflow:MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:52005', '127.0.0.1:47107', '127.0.0.1:34685']}, task_type = 'worker', task_id = 1, num_workers = 3, local_devices = ('/job:worker/task:1/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25T12:41:16.61064 INFO:tensorflow:MultiWorkerMirroredStrategy: worker 1 of 3 replicas in sync
