2026-11-25_12:47:26.23376 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:54283", "127.0.0.1:46191", "127.0.0.1:39969"]}, "task": {"type": "worker", "index": 0}}
2026-11-25_12:47:26.24177 launching mwms_training.py on host vm pid 28312 python 3.11.7
2026-11-25_12:47:26.78745 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:47:26.78749 I0000 00:00:1795610846.787405   28312 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:47:26.78779 I0000 00:00:1795610846.787785   28312 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:47:26.87773 I0000 00:00:1795610846.873589   28312 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:47:26.87775 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:47:29.96976 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:47:29.96980 I0000 00:00:1795610849.967773   28312 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:47:29.97052 I0000 00:00:1795610849.970501   28312 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:47:31.99499 2026-11-25 12:47:31,994 - INFO - TensorFlow version: 2.21.0
2026-11-25_12:47:31.99508 tf.__version__ = 2.21.0
2026-11-25_12:47:31.99590 E0000 00:00:1795610851.995863   28312 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25_12:47:32.00439 I0000 00:00:1795610852.004355   28312 coordination_service.cc:221] Initializing CoordinationService
2026-11-25_12:47:32.00591 I0000 00:00:1795610852.005895   28312 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:54283
2026-11-25_12:47:32.05028 I0000 00:00:1795610852.050049   28543 coordination_service.h:529] /job:worker/replica:0/task:0 has connected to coordination service. Incarnation: 11066487144466049512
2026-11-25_12:47:32.05029 I0000 00:00:1795610852.050098   28543 coordination_service.cc:502] Waiting for 2/3 tasks to connect.
2026-11-25_12:47:32.05030 I0000 00:00:1795610852.050107   28543 coordination_service.cc:505] Example stragglers:
2026-11-25_12:47:32.05030 /job:worker/replica:0/task:2
2026-11-25_12:47:32.05030 /job:worker/replica:0/task:1
2026-11-25_12:47:32.05076 I0000 00:00:1795610852.050549   28312 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25_12:47:32.87745 I0000 00:00:1795610852.877352   28543 coordination_service.h:529] /job:worker/replica:0/task:1 has connected to coordination service. Incarnation: 12579533091538064623
