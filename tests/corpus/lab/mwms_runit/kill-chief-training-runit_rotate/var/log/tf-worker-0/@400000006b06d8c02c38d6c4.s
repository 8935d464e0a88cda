2026-11-25T12:46:40.39375 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:46057", "127.0.0.1:41239", "127.0.0.1:56751"]}, "task": {"type": "worker", "index": 0}}
2026-11-25T12:46:40.39383 launching mwms_training.py on host vm pid 27043 python 3.11.7
2026-11-25T12:46:40.80965 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:46:40.80968 I0000 00:00:1795610800.804405   27043 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:46:40.80999 I0000 00:00:1795610800.809975   27043 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:46:40.89775 I0000 00:00:1795610800.893325   27043 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:46:40.89775 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:46:43.95775 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:46:43.95779 I0000 00:00:1795610803.955652   27043 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:46:43.96174 I0000 00:00:1795610803.958425   27043 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:46:45.87750 2026-11-25 12:46:45,877 - INFO - TensorFlow version: 2.21.0
2026-11-25T12:46:45.87754 tf.__version__ = 2.21.0
2026-11-25T12:46:45.87835 E0000 00:00:1795610805.878318   27043 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:46:45.88748 I0000 00:00:1795610805.887464   27043 coordination_service.cc:221] Initializing CoordinationService
2026-11-25T12:46:45.88802 I0000 00:00:1795610805.888000   27043 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:46057
2026-11-25T12:46:45.96269 I0000 00:00:1795610805.962337   27276 coordination_service.h:529] /job:worker/replica:0/task:0 has connected to coordination service. Incarnation: 8916398937676040487
2026-11-25T12:46:45.96270 I0000 00:00:1795610805.962382   27276 coordination_service.cc:502] Waiting for 2/3 tasks to connect.
2026-11-25T12:46:45.96270 I0000 00:00:1795610805.962391   27276 coordination_service.cc:505] Example stragglers:
2026-11-25T12:46:45.96270 /job:worker/replica:0/task:1
2026-11-25T12:46:45.96270 /job:worker/replica:0/task:2
2026-11-25T12:46:45.96984 I0000 00:00:1795610805.969817   27043 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25T12:46:46.74190 I0000 00:00:1795610806.741839   27276 coordination_service.h:529] /job:worker/replica:0/task:2 has connected to coordination service. Incarnation: 1783292162873640110
