2026-11-25_12:44:31.33025 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:50463", "127.0.0.1:44083", "127.0.0.1:56379"]}, "task": {"type": "worker", "index": 0}}
2026-11-25_12:44:31.33030 launching mwms_training.py on host vm pid 25225 python 3.11.7
2026-11-25_12:44:31.71775 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:44:31.71776 I0000 00:00:1795610671.709598   25225 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:44:31.71776 I0000 00:00:1795610671.709860   25225 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:44:31.79484 I0000 00:00:1795610671.794789   25225 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:44:31.79486 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:44:34.58174 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:44:34.58177 I0000 00:00:1795610674.576583   25225 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:44:34.58236 I0000 00:00:1795610674.582353   25225 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:44:36.36174 2026-11-25 12:44:36,356 - INFO - TensorFlow version: 2.21.0
2026-11-25_12:44:36.36180 tf.__version__ = 2.21.0
2026-11-25_12:44:36.36257 E0000 00:00:1795610676.362535   25225 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25_12:44:36.37613 I0000 00:00:1795610676.376107   25225 coordination_service.cc:221] Initializing CoordinationService
2026-11-25_12:44:36.37783 I0000 00:00:1795610676.377814   25225 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:50463
2026-11-25_12:44:36.45493 I0000 00:00:1795610676.454812   25242 coordination_service.h:529] /job:worker/replica:0/task:0 has connected to coordination service. Incarnation: 8818799495672139216
2026-11-25_12:44:36.45495 I0000 00:00:1795610676.454844   25242 coordination_service.cc:502] Waiting for 2/3 tasks to connect.
2026-11-25_12:44:36.45495 I0000 00:00:1795610676.454851   25242 coordination_service.cc:505] Example stragglers:
2026-11-25_12:44:36.45495 /job:worker/replica:0/task:2
2026-11-25_12:44:36.45495 /job:worker/replica:0/task:1
2026-11-25_12:44:36.46500 I0000 00:00:1795610676.464986   25225 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25_12:44:36.46532 I0000 00:00:1795610676.465303   25242 coordination_service.h:529] /job:worker/replica:0/task:2 has connected to coordination service. Incarnation: 16354542327886193045
