2026-11-25_12:49:25.10174 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:58133", "127.0.0.1:37853", "127.0.0.1:41367"]}, "task": {"type": "worker", "index": 0}}
2026-11-25_12:49:25.10976 launching mwms_training.py on host vm pid 32113 python 3.11.7
2026-11-25_12:49:25.70807 2026-11-25 12:49:25.708042: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:49:25.79774 2026-11-25 12:49:25.795482: I tensorflow/core/platform/cpu_feature_guard.cc:210] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:49:25.79775 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:49:28.56975 2026-11-25 12:49:28,565 - INFO - TensorFlow version: 2.16.2
2026-11-25_12:49:28.56982 tf.__version__ = 2.16.2
2026-11-25_12:49:28.66274 2026-11-25 12:49:28.662168: I tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc:457] Started server with target: grpc://127.0.0.1:58133
2026-11-25_12:49:28.67175 2026-11-25 12:49:28.671651: I external/local_tsl/tsl/distributed_runtime/coordination/coordination_service.cc:577] /job:worker/replica:0/task:1 has connected to coordination service. Incarnation: 13636846829517121733
2026-11-25_12:49:28.67176 2026-11-25 12:49:28.671675: I external/local_tsl/tsl/distributed_runtime/coordination/coordination_service.cc:539] Waiting for 2/3 tasks to connect.
2026-11-25_12:49:28.67176 2026-11-25 12:49:28.671680: I external/local_tsl/tsl/distributed_runtime/coordination/coordination_service.cc:542] Example stragglers:
2026-11-25_12:49:28.67176 /job:worker/replica:0/task:2
2026-11-25_12:49:28.67176 /job:worker/replica:0/task:0
2026-11-25_12:49:28.69335 2026-11-25 12:49:28.693319: I external/local_tsl/tsl/distributed_runtime/coordination/coordination_service.cc:577] /job:worker/replica:0/task:0 has connected to coordination service. Incarnation: 5756370530614462235
2026-11-25_12:49:28.69339 2026-11-25 12:49:28.693385: I external/local_tsl/tsl/distributed_runtime/coordination/coordination_service.cc:539] Waiting for 1/3 tasks to connect.
2026-11-25_12:49:28.69340 2026-11-25 12:49:28.693401: I external/local_tsl/tsl/distributed_runtime/coordination/coordination_service.cc:542] Example stragglers:
2026-11-25_12:49:28.69340 /job:worker/replica:0/task:2
2026-11-25_12:49:28.69358 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:49:28.69359 I0000 00:00:1795610968.693539   32113 coordination_service_agent.cc:303] Coordination agent has successfully connected.
2026-11-25_12:49:28.69419 2026-11-25 12:49:28.694179: I external/local_tsl/tsl/distributed_runtime/coordination/coordination_service.cc:577] /job:worker/replica:0/task:2 has connected to coordination service. Incarnation: 4822386602453818127
2026-11-25_12:49:28.69421 2026-11-25 12:49:28.694204: I external/local_tsl/tsl/distributed_runtime/coordination/coordination_service.cc:539] Waiting for 0/3 tasks to connect.
