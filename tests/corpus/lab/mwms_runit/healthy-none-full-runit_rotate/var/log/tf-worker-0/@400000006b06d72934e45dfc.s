2026-11-25_12:39:54.24975 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:57179", "127.0.0.1:60635", "127.0.0.1:51093"]}, "task": {"type": "worker", "index": 0}}
2026-11-25_12:39:54.24982 launching mwms_training.py on host vm pid 21489 python 3.11.7
2026-11-25_12:39:54.69774 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:39:54.69777 I0000 00:00:1795610394.696052   21489 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:39:54.69808 I0000 00:00:1795610394.698078   21489 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:39:54.79165 I0000 00:00:1795610394.791590   21489 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:39:54.79167 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:39:57.77477 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:39:57.77480 I0000 00:00:1795610397.774720   21489 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:39:57.77774 I0000 00:00:1795610397.775448   21489 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:39:59.74174 2026-11-25 12:39:59,737 - INFO - TensorFlow version: 2.21.0
2026-11-25_12:39:59.74181 tf.__version__ = 2.21.0
2026-11-25_12:39:59.74573 E0000 00:00:1795610399.742614   21489 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25_12:39:59.75831 I0000 00:00:1795610399.758273   21489 coordination_service.cc:221] Initializing CoordinationService
2026-11-25_12:39:59.75907 I0000 00:00:1795610399.759055   21489 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:57179
2026-11-25_12:39:59.87682 I0000 00:00:1795610399.876485   21567 coordination_service.h:529] /job:worker/replica:0/task:0 has connected to coordination service. Incarnation: 15020982881071079799
2026-11-25_12:39:59.87684 I0000 00:00:1795610399.876515   21567 coordination_service.cc:502] Waiting for 2/3 tasks to connect.
2026-11-25_12:39:59.87684 I0000 00:00:1795610399.876523   21567 coordination_service.cc:505] Example stragglers:
2026-11-25_12:39:59.87684 /job:worker/replica:0/task:2
2026-11-25_12:39:59.87684 /job:worker/replica:0/task:1
2026-11-25_12:39:59.88611 I0000 00:00:1795610399.885797   21489 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25_12:39:59.88737 I0000 00:00:1795610399.887309   21566 coordination_service.h:529] /job:worker/replica:0/task:2 has connected to coordination service. Incarnation: 10733417392425999267
