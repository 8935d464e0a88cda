2026-11-25T12:55:13.24381 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:39789", "127.0.0.1:42783", "127.0.0.1:51513"]}, "task": {"type": "worker", "index": 1}}
2026-11-25T12:55:13.24388 launching mwms_training.py on host vm pid 3557 python 3.11.7
2026-11-25T12:55:13.47914 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:55:13.47916 I0000 00:00:1795611313.479033    3557 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:55:13.47942 I0000 00:00:1795611313.479365    3557 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:55:13.52196 I0000 00:00:1795611313.521838    3557 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:55:13.52198 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:55:14.99773 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:55:14.99775 I0000 00:00:1795611314.990252    3557 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:55:14.99776 I0000 00:00:1795611314.990857    3557 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:55:15.94415 INFO:tensorflow:TensorFlow version: 2.21.0
2026-11-25T12:55:15.94416 tf.__version__ = 2.21.0
2026-11-25T12:55:15.94490 E0000 00:00:1795611315.944841    3557 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:55:15.95660 I0000 00:00:1795611315.956542    3557 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:42783
2026-11-25T12:55:15.96111 I0000 00:00:1795611315.961063    3557 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25T12:55:16.00575 INFO:tensorflow:Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25T12:55:16.03774 INFO:tensorflow:Using MirroredStrategy with devices ('/job:worker/task:1/device:CPU:0',)
2026-11-25T12:55:16.03775 INFO:tensorflow:Check health not enabled.
2026-11-25T12:55:16.03775 INFO:tensorflow:MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:39789', '127.0.0.1:42783', '127.0.0.1:51513']}, task_type = 'worker', task_id = 1, num_workers = 3, local_devices = ('/job:worker/task:1/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25T12:55:16.03776 INFO:tensorflow:MultiWorkerMirroredStrategy: worker 1 of 3 replicas in sync
