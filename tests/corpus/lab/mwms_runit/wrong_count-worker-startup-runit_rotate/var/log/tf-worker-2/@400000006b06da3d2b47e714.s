2026-11-25_12:53:02.31778 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:44129", "127.0.0.1:52691", "127.0.0.1:43087"]}, "task": {"type": "worker", "index": 2}}
2026-11-25_12:53:02.31787 launching mwms_training.py on host vm pid 1910 python 3.11.7
2026-11-25_12:53:02.73359 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:53:02.73360 I0000 00:00:1795611182.733534    1910 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:53:02.74174 I0000 00:00:1795611182.737861    1910 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:53:02.82235 I0000 00:00:1795611182.822285    1910 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:53:02.82236 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:53:05.68887 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:53:05.68889 I0000 00:00:1795611185.688808    1910 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:53:05.68945 I0000 00:00:1795611185.689418    1910 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:53:07.53298 2026-11-25 12:53:07,530 - INFO - TensorFlow version: 2.21.0
2026-11-25_12:53:07.53299 tf.__version__ = 2.21.0
2026-11-25_12:53:07.53299 E0000 00:00:1795611187.531083    1910 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25_12:53:07.55406 I0000 00:00:1795611187.550871    1910 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:43087
2026-11-25_12:53:07.60363 I0000 00:00:1795611187.603575    1910 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25_12:53:07.63214 2026-11-25 12:53:07,631 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:2/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0']
2026-11-25_12:53:07.72580 2026-11-25 12:53:07,712 - INFO - Using MirroredStrategy with devices ('/job:worker/task:2/device:CPU:0',)
2026-11-25_12:53:07.72605 2026-11-25 12:53:07,725 - INFO - Check health not enabled.
2026-11-25_12:53:07.72612 2026-11-25 12:53:07,726 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:44129', '127.0.0.1:52691', '127.0.0.1:43087']}, task_type = 'worker', task_id = 2, num_workers = 3, local_devices = ('/job:worker/task:2/device:CPU:0',), communication = CommunicationImplementation.AUTO
