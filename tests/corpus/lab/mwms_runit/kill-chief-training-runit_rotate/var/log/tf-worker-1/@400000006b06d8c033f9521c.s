2026-11-25T12:46:40.38552 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:46057", "127.0.0.1:41239", "127.0.0.1:56751"]}, "task": {"type": "worker", "index": 1}}
2026-11-25T12:46:40.39377 launching mwms_training.py on host vm pid 27044 python 3.11.7
2026-11-25T12:46:40.80974 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:46:40.80976 I0000 00:00:1795610800.805358   27044 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:46:40.81003 I0000 00:00:1795610800.810016   27044 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:46:40.89550 I0000 00:00:1795610800.895454   27044 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:46:40.89552 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:46:43.87385 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:46:43.87387 I0000 00:00:1795610803.873799   27044 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:46:43.87450 I0000 00:00:1795610803.874494   27044 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:46:45.79252 INFO:tensorflow:TensorFlow version: 2.21.0
2026-11-25T12:46:45.79256 tf.__version__ = 2.21.0
2026-11-25T12:46:45.79400 E0000 00:00:1795610805.793227   27044 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:46:45.80700 I0000 00:00:1795610805.806866   27044 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:41239
2026-11-25T12:46:46.80420 I0000 00:00:1795610806.804171   27044 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25T12:46:46.80683 INFO:tensorflow:Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25T12:46:46.87169 INFO:tensorflow:Using MirroredStrategy with devices ('/job:worker/task:1/device:CPU:0',)
2026-11-25T12:46:46.87180 INFO:tensorflow:Check health not enabled.
2026-11-25T12:46:46.87185 INFO:tensorflow:MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:46057', '127.0.0.1:41239', '127.0.0.1:56751']}, task_type = 'worker', task_id = 1, num_workers = 3, local_devices = ('/job:worker/task:1/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25T12:46:46.87197 INFO:tensorflow:MultiWorkerMirroredStrategy: worker 1 of 3 replicas in sync
