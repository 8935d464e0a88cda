2026-11-25T12:41:08.76493 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:52005", "127.0.0.1:47107", "127.0.0.1:34685"]}, "task": {"type": "worker", "index": 0}}
2026-11-25T12:41:08.77774 launching mwms_training.py on host vm pid 23344 python 3.11.7
2026-11-25T12:41:09.40175 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:41:09.40178 I0000 00:00:1795610469.399162   23344 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:41:09.40208 I0000 00:00:1795610469.402067   23344 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:41:09.54576 I0000 00:00:1795610469.539256   23344 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:41:09.54577 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:41:13.35776 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:41:13.35778 I0000 00:00:1795610473.345507   23344 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:41:13.35778 I0000 00:00:1795610473.346163   23344 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:41:15.72575 2026-11-25 12:41:15,719 - INFO - TensorFlow version: 2.21.0
2026-11-25T12:41:15.72577 tf.__version__ = 2.21.0
2026-11-25T12:41:15.72577 E0000 00:00:1795610475.720634   23344 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:41:15.75754 I0000 00:00:1795610475.733483   23344 coordination_service.cc:221] Initializing CoordinationService
2026-11-25T12:41:15.75755 I0000 00:00:1795610475.734032   23344 grpc_server_lib.cc:467] Started server with target: grpc://127.0.0.1:52005
2026-11-25T12:41:15.75789 I0000 00:00:1795610475.757594   23577 coordination_service.h:529] /job:worker/replica:0/task:0 has connected to coordination service. Incarnation: 2072257647030791509
2026-11-25T12:41:15.75789 I0000 00:00:1795610475.757628   23577 coordination_service.cc:502] Waiting for 2/3 tasks to connect.
2026-11-25T12:41:15.75789 I0000 00:00:1795610475.757637   23577 coordination_service.cc:505] Example stragglers:
2026-11-25T12:41:15.75790 /job:worker/replica:0/task:2
2026-11-25T12:41:15.75790 /job:worker/replica:0/task:1
2026-11-25T12:41:15.75820 I0000 00:00:1795610475.758194   23344 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25T12:41:16.47039 I0000 00:00:1795610476.470295   23576 coordination_service.h:529] /job:worker/replica:0/task:2 has connected to coordination service. Incarnation: 12939302377758089786
