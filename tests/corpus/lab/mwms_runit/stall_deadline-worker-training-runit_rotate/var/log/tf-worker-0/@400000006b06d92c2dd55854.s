2026-11-25T12:48:29.06575 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:54461", "127.0.0.1:49075", "127.0.0.1:45057"]}, "task": {"type": "worker", "index": 0}}
2026-11-25T12:48:29.06582 launching mwms_training.py on host vm pid 29995 python 3.11.7
2026-11-25T12:48:29.59145 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:48:29.59776 I0000 00:00:1795610909.591405   29995 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:48:29.59777 I0000 00:00:1795610909.591732   29995 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:48:29.67990 I0000 00:00:1795610909.676632   29995 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:48:29.67992 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:48:32.71774 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:48:32.71778 I0000 00:00:1795610912.712908   29995 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:48:32.71843 I0000 00:00:1795610912.718414   29995 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:48:34.68561 2026-11-25 12:48:34,685 - INFO - TensorFlow version: 2.21.0
2026-11-25T12:48:34.68565 tf.__version__ = 2.21.0
2026-11-25T12:48:34.68659 E0000 00:00:1795610914.686550   29995 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:48:34.69717 I0000 00:00:1795610914.697135   29995 coordination_service.cc:221] Initializing CoordinationService
2026-11-25T12:48:34.69924 I0000 00:00:1795610914.699190   29995 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:54461
2026-11-25T12:48:34.70521 I0000 00:00:1795610914.705180   30154 coordination_service.h:529] /job:worker/replica:0/task:0 has connected to coordination service. Incarnation: 16249856514442753497
2026-11-25T12:48:34.70523 I0000 00:00:1795610914.705226   30154 coordination_service.cc:502] Waiting for 2/3 tasks to connect.
2026-11-25T12:48:34.70525 I0000 00:00:1795610914.705243   30154 coordination_service.cc:505] Example stragglers:
2026-11-25T12:48:34.70525 /job:worker/replica:0/task:1
2026-11-25T12:48:34.70525 /job:worker/replica:0/task:2
2026-11-25T12:48:34.70539 I0000 00:00:1795610914.705380   29995 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25T12:48:34.76893 I0000 00:00:1795610914.768793   30153 coordination_service.h:529] /job:worker/replica:0/task:2 has connected to coordination service. Incarnation: 2524678971386139464
