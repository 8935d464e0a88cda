2026-11-25T12:46:40.38559 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:46057", "127.0.0.1:41239", "127.0.0.1:56751"]}, "task": {"type": "worker", "index": 2}}
2026-11-25T12:46:40.38979 launching mwms_training.py on host vm pid 27045 python 3.11.7
2026-11-25T12:46:40.80476 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:46:40.80479 I0000 00:00:1795610800.804728   27045 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:46:40.80538 I0000 00:00:1795610800.805087   27045 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:46:40.89774 I0000 00:00:1795610800.893325   27045 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:46:40.89775 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:46:43.88974 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:46:43.88977 I0000 00:00:1795610803.886826   27045 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:46:43.89040 I0000 00:00:1795610803.890388   27045 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:46:45.79166 2026-11-25 12:46:45,789 - INFO - TensorFlow version: 2.21.0
2026-11-25T12:46:45.79171 tf.__version__ = 2.21.0
2026-11-25T12:46:45.79325 E0000 00:00:1795610805.792472   27045 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:46:45.80770 I0000 00:00:1795610805.807676   27045 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:56751
2026-11-25T12:46:46.74242 I0000 00:00:1795610806.742375   27045 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25T12:46:46.80693 2026-11-25 12:46:46,806 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:2/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0']
2026-11-25T12:46:46.88026 2026-11-25 12:46:46,879 - INFO - Using MirroredStrategy with devices ('/job:worker/task:2/device:CPU:0',)
2026-11-25T12:46:46.88032 2026-11-25 12:46:46,880 - INFO - Check health not enabled.
2026-11-25T12:46:46.88041 2026-11-25 12:46:46,880 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:46057', '127.0.0.1:41239', '127.0.0.1:56751']}, task_type = 'worker', task_id = 2, num_workers = 3, local_devices = ('/job:worker/task:2/device:CPU:0',), communication = CommunicationImplementation.AUTO
