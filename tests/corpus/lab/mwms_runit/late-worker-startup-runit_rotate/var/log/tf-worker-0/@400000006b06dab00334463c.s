2026-11-25T12:54:58.24460 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:39789", "127.0.0.1:42783", "127.0.0.1:51513"]}, "task": {"type": "worker", "index": 0}}
2026-11-25T12:54:58.24641 launching mwms_training.py on host vm pid 3226 python 3.11.7
2026-11-25T12:54:58.49026 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:54:58.49028 I0000 00:00:1795611298.490223    3226 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:54:58.49052 I0000 00:00:1795611298.490518    3226 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:54:58.54284 I0000 00:00:1795611298.542799    3226 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:54:58.54285 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:55:00.77074 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:55:00.77077 I0000 00:00:1795611300.770691    3226 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:55:00.77139 I0000 00:00:1795611300.771384    3226 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:55:01.98003 2026-11-25 12:55:01,979 - INFO - TensorFlow version: 2.21.0
2026-11-25T12:55:01.98006 tf.__version__ = 2.21.0
2026-11-25T12:55:01.98086 E0000 00:00:1795611301.980816    3226 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:55:01.99077 I0000 00:00:1795611301.990741    3226 coordination_service.cc:221] Initializing CoordinationService
2026-11-25T12:55:01.99545 I0000 00:00:1795611301.995050    3226 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:39789
2026-11-25T12:55:02.00388 I0000 00:00:1795611302.003752    3307 coordination_service.h:529] /job:worker/replica:0/task:0 has connected to coordination service. Incarnation: 6658885094197373022
2026-11-25T12:55:02.00389 I0000 00:00:1795611302.003778    3307 coordination_service.cc:502] Waiting for 2/3 tasks to connect.
2026-11-25T12:55:02.00389 I0000 00:00:1795611302.003786    3307 coordination_service.cc:505] Example stragglers:
2026-11-25T12:55:02.00389 /job:worker/replica:0/task:2
2026-11-25T12:55:02.00390 /job:worker/replica:0/task:1
2026-11-25T12:55:02.00618 I0000 00:00:1795611302.005909    3226 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25T12:55:02.05374 I0000 00:00:1795611302.052483    3306 coordination_service.h:529] /job:worker/replica:0/task:2 has connected to coordination service. Incarnation: 3537998333435963870
