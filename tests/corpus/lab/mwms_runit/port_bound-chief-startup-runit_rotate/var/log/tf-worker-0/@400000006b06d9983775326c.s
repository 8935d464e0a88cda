2026-11-25T12:50:17.47374 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:60101", "127.0.0.1:34647", "127.0.0.1:46569"]}, "task": {"type": "worker", "index": 0}}
2026-11-25T12:50:17.47382 launching mwms_training.py on host vm pid 895 python 3.11.7
2026-11-25T12:50:17.97962 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:50:17.98574 I0000 00:00:1795611017.979583     895 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:50:17.98575 I0000 00:00:1795611017.979899     895 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:50:18.06466 I0000 00:00:1795611018.064599     895 cpu_feature_guard.cc:227] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25T12:50:18.06468 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25T12:50:21.03887 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25T12:50:21.03889 I0000 00:00:1795611021.037135     895 port.cc:153] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25T12:50:21.04173 I0000 00:00:1795611021.039410     895 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.
2026-11-25T12:50:22.91537 2026-11-25 12:50:22,912 - INFO - TensorFlow version: 2.21.0
2026-11-25T12:50:22.91542 tf.__version__ = 2.21.0
2026-11-25T12:50:22.91692 E0000 00:00:1795611022.916177     895 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)
2026-11-25T12:50:22.92488 E0000 00:00:1795611022.923433     895 add_port.cc:83] Failed to add port to server: No address added out of total 1 resolved for '0.0.0.0:60101'
2026-11-25T12:50:22.92833 E0000 00:00:1795611022.928308     895 grpc_server_lib.cc:618] UNKNOWN: Could not start gRPC server
2026-11-25T12:50:22.92880 E0000 00:00:1795611022.928784     895 context_distributed_manager.cc:1061] Could not start gRPC server
2026-11-25T12:50:22.92892 Traceback (most recent call last):
2026-11-25T12:50:22.92894   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 104, in <module>
2026-11-25T12:50:22.92904     main()
2026-11-25T12:50:22.92911   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 38, in main
2026-11-25T12:50:22.92915     strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=comm)
2026-11-25T12:50:22.92920                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
2026-11-25T12:50:22.93042   File "/work/main/.venv/lib/python3.11/site-packages/tensorflow/python/distribute/collective_all_reduce_strategy.py", line 187, in __init__
