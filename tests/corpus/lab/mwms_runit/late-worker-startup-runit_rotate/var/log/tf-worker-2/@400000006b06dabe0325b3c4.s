2026-11-25T12:54:58.24332 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:39789", "127.0.0.1:42783", "127.0.0.1:51513"]}, "task": {"type": "worker", "index": 2}}
2026-11-25T12:54:58.24577 launching mwms_training.py on host vm pid 3227 python 3.11.7
2026-11-25T12:54:58.48906 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:54:58.48909 I0000 00:00:1795611298.489006    3227 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:54:58.48940 I0000 00:00:1795611298.489392    3227 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:54:58.54183 I0000 00:00:1795611298.541772    3227 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:54:58.54185 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:55:00.74183 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:55:00.74184 I0000 00:00:1795611300.733446    3227 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:55:00.74185 I0000 00:00:1795611300.734280    3227 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:55:02.00937 2026-11-25 12:55:02,009 - INFO - TensorFlow version: 2.21.0
2026-11-25T12:55:02.00974 tf.__version__ = 2.21.0
2026-11-25T12:55:02.01030 E0000 00:00:1795611302.010259    3227 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:55:02.02618 I0000 00:00:1795611302.019189    3227 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:51513
2026-11-25T12:55:02.05415 I0000 00:00:1795611302.054039    3227 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25T12:55:15.99450 2026-11-25 12:55:15,994 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:2/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0']
2026-11-25T12:55:16.05267 2026-11-25 12:55:16,052 - INFO - Using MirroredStrategy with devices ('/job:worker/task:2/device:CPU:0',)
2026-11-25T12:55:16.05274 2026-11-25 12:55:16,052 - INFO - Check health not enabled.
2026-11-25T12:55:16.05279 2026-11-25 12:55:16,052 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:39789', '127.0.0.1:42783', '127.0.0.1:51513']}, task_type = 'worker', task_id = 2, num_workers = 3, local_devices = ('/job:worker/task:2/device:CPU:0',), communication = CommunicationImplementation.AUTO
