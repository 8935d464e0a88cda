2026-11-25_12:53:02.30003 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:44129", "127.0.0.1:52691", "127.0.0.1:43087"]}, "task": {"type": "worker", "index": 0}}
2026-11-25_12:53:02.30178 launching mwms_training.py on host vm pid 1908 python 3.11.7
2026-11-25_12:53:02.73377 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:53:02.73379 I0000 00:00:1795611182.733738    1908 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:53:02.73402 I0000 00:00:1795611182.734015    1908 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:53:02.82004 I0000 00:00:1795611182.819999    1908 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:53:02.82004 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:53:05.68973 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:53:05.68975 I0000 00:00:1795611185.687767    1908 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:53:05.69031 I0000 00:00:1795611185.690299    1908 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25_12:53:07.53217 2026-11-25 12:53:07,531 - INFO - TensorFlow version: 2.21.0
2026-11-25_12:53:07.53221 tf.__version__ = 2.21.0
2026-11-25_12:53:07.53300 E0000 00:00:1795611187.532875    1908 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25_12:53:07.55002 I0000 00:00:1795611187.545649    1908 coordination_service.cc:221] Initializing CoordinationService
2026-11-25_12:53:07.55028 I0000 00:00:1795611187.550255    1908 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:44129
2026-11-25_12:53:07.60317 I0000 00:00:1795611187.603142    1943 coordination_service.h:529] /job:worker/replica:0/task:2 has connected to coordination service. Incarnation: 10286386548554000397
2026-11-25_12:53:07.60321 I0000 00:00:1795611187.603203    1943 coordination_service.cc:502] Waiting for 2/3 tasks to connect.
2026-11-25_12:53:07.60322 I0000 00:00:1795611187.603219    1943 coordination_service.cc:505] Example stragglers:
2026-11-25_12:53:07.60322 /job:worker/replica:0/task:0
2026-11-25_12:53:07.60322 /job:worker/replica:0/task:1
2026-11-25_12:53:07.62763 I0000 00:00:1795611187.625750    1943 coordination_service.h:529] /job:worker/replica:0/task:1 has connected to coordination service. Incarnation: 11605453401356068467
2026-11-25_12:53:07.62764 I0000 00:00:1795611187.625778    1943 coordination_service.cc:502] Waiting for 1/3 tasks to connect.
