2026-11-25_12:49:25.06976 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:58133", "127.0.0.1:37853", "127.0.0.1:41367"]}, "task": {"type": "worker", "index": 2}}
2026-11-25_12:49:25.07778 launching mwms_training.py on host vm pid 32112 python 3.11.7
2026-11-25_12:49:25.70974 2026-11-25 12:49:25.707303: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:49:25.79551 2026-11-25 12:49:25.793438: I tensorflow/core/platform/cpu_feature_guard.cc:210] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:49:25.79551 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:49:28.60177 2026-11-25 12:49:28,599 - INFO - TensorFlow version: 2.16.2
2026-11-25_12:49:28.60181 tf.__version__ = 2.16.2
2026-11-25_12:49:28.61949 2026-11-25 12:49:28.619459: I tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc:457] Started server with target: grpc://127.0.0.1:41367
2026-11-25_12:49:28.70140 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:49:28.70141 I0000 00:00:1795610968.701145   32112 coordination_service_agent.cc:303] Coordination agent has successfully connected.
2026-11-25_12:49:28.70743 2026-11-25 12:49:28,706 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:2/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0']
2026-11-25_12:49:28.75458 2026-11-25 12:49:28,754 - INFO - Using MirroredStrategy with devices ('/job:worker/task:2/device:CPU:0',)
2026-11-25_12:49:28.75467 2026-11-25 12:49:28,754 - INFO - Check health not enabled.
2026-11-25_12:49:28.75473 2026-11-25 12:49:28,754 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:58133', '127.0.0.1:37853', '127.0.0.1:41367']}, task_type = 'worker', task_id = 2, num_workers = 3, local_devices = ('/job:worker/task:2/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25_12:49:28.75484 2026-11-25 12:49:28,754 - INFO - MultiWorkerMirroredStrategy: worker 2 of 3 replicas in sync
2026-11-25_12:49:29.01032 2026-11-25 12:49:29.010300: W tensorflow/core/framework/dataset.cc:959] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25_12:49:29.27745 2026-11-25 12:49:29,269 - INFO - Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:49:29.29111 2026-11-25 12:49:29,291 - INFO - Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
