2026-11-25_12:55:45.57260 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:52701", "127.0.0.1:53799", "127.0.0.1:55289"]}, "task": {"type": "worker", "index": 0}}
2026-11-25_12:55:45.57693 launching mwms_training.py on host vm pid 4632 python 3.11.7
2026-11-25_12:55:46.10974 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:55:46.10978 I0000 00:00:1795611346.108036    4632 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:55:46.11011 I0000 00:00:1795611346.110105    4632 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:55:46.16728 I0000 00:00:1795611346.167221    4632 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:55:46.16730 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:55:49.24923 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:55:49.24927 I0000 00:00:1795611349.249181    4632 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:55:49.25178 I0000 00:00:1795611349.251756    4632 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:55:50.74296 2026-11-25 12:55:50,742 - INFO - TensorFlow version: 2.21.0
2026-11-25_12:55:50.74300 tf.__version__ = 2.21.0
2026-11-25_12:55:50.74378 E0000 00:00:1795611350.743741    4632 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25_12:55:50.75393 I0000 00:00:1795611350.753900    4632 coordination_service.cc:221] Initializing CoordinationService
2026-11-25_12:55:50.78144 I0000 00:00:1795611350.755884    4632 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:52701
2026-11-25_12:55:50.79267 I0000 00:00:1795611350.792502    4750 coordination_service.h:529] /job:worker/replica:0/task:0 has connected to coordination service. Incarnation: 5417360388022655394
2026-11-25_12:55:50.79268 I0000 00:00:1795611350.792542    4750 coordination_service.cc:502] Waiting for 2/3 tasks to connect.
2026-11-25_12:55:50.79269 I0000 00:00:1795611350.792551    4750 coordination_service.cc:505] Example stragglers:
2026-11-25_12:55:50.79269 /job:worker/replica:0/task:2
2026-11-25_12:55:50.79269 /job:worker/replica:0/task:1
2026-11-25_12:55:50.79321 I0000 00:00:1795611350.792903    4632 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25_12:55:51.02107 I0000 00:00:1795611351.020981    4749 coordination_service.h:529] /job:worker/replica:0/task:2 has connected to coordination service. Incarnation: 9178311464573877621
