2026-11-25_12:53:02.27775 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:44129", "127.0.0.1:52691", "127.0.0.1:43087", "127.0.0.1:50523"]}, "task": {"type": "worker", "index": 1}}
2026-11-25_12:53:02.27783 launching mwms_training.py on host vm pid 1909 python 3.11.7
2026-11-25_12:53:02.73333 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:53:02.73361 I0000 00:00:1795611182.733280    1909 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:53:02.73774 I0000 00:00:1795611182.733894    1909 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:53:02.81959 I0000 00:00:1795611182.819536    1909 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:53:02.81961 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:53:05.69623 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:53:05.69625 I0000 00:00:1795611185.696196    1909 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:53:05.69680 I0000 00:00:1795611185.696798    1909 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:53:07.53979 INFO:tensorflow:TensorFlow version: 2.21.0
2026-11-25_12:53:07.54063 tf.__version__ = 2.21.0
2026-11-25_12:53:07.54611 E0000 00:00:1795611187.546078    1909 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25_12:53:07.58151 I0000 00:00:1795611187.581454    1909 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:52691
2026-11-25_12:53:07.62739 I0000 00:00:1795611187.627332    1909 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25_12:53:07.62999 INFO:tensorflow:Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25_12:53:07.67886 INFO:tensorflow:Using MirroredStrategy with devices ('/job:worker/task:1/device:CPU:0',)
2026-11-25_12:53:07.67893 INFO:tensorflow:Check health not enabled.
2026-11-25_12:53:07.67898 INFO:tensorflow:MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:44129', '127.0.0.1:52691', '127.0.0.1:43087', '127.0.0.1:50523']}, task_type = 'worker', task_id = 1, num_workers = 4, local_devices = ('/job:worker/task:1/device:CPU:0',), communication = CommunicationImplementation.AUTO
