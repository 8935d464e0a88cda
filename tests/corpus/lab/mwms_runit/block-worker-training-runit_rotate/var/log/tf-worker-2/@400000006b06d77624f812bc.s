2026-11-25T12:41:08.77540 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:52005", "127.0.0.1:47107", "127.0.0.1:34685"]}, "task": {"type": "worker", "index": 2}}
2026-11-25T12:41:08.77776 launching mwms_training.py on host vm pid 23345 python 3.11.7
2026-11-25T12:41:09.25774 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:41:09.25777 I0000 00:00:1795610469.254318   23345 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:41:09.25809 I0000 00:00:1795610469.258079   23345 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:41:09.39775 I0000 00:00:1795610469.391539   23345 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:41:09.39776 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:41:13.11719 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:41:13.11721 I0000 00:00:1795610473.113292   23345 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:41:13.11802 I0000 00:00:1795610473.117977   23345 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:41:15.62974 2026-11-25 12:41:15,624 - INFO - TensorFlow version: 2.21.0
2026-11-25T12:41:15.63124 tf.__version__ = 2.21.0
2026-11-25T12:41:15.63125 E0000 00:00:1795610475.630582   23345 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:41:15.64652 I0000 00:00:1795610475.646475   23345 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:34685
2026-11-25T12:41:16.47077 I0000 00:00:1795610476.470735   23345 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25T12:41:16.54595 2026-11-25 12:41:16,545 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:2/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0']
2026-11-25T12:41:16.62021 2026-11-25 12:41:16,616 - INFO - Using MirroredStrategy with devices ('/job:worker/task:2/device:CPU:0',)
2026-11-25T12:41:16.62023 2026-11-25 12:41:16,616 - INFO - Check health not enabled.
2026-11-25T12:41:16.62023 2026-11-25 12:41:16,616 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:52005', '127.0.0.1:47107', '127.0.0.1:34685']}, task_type = 'worker', task_id = 2, num_workers = 3, local_devices = ('/job:worker/task:2/device:CPU:0',), communication = CommunicationImplementation.AUTO
