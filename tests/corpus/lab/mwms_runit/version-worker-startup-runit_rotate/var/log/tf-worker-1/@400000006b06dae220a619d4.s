2026-11-25_12:55:45.53703 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:52701", "127.0.0.1:53799", "127.0.0.1:55289"]}, "task": {"type": "worker", "index": 1}}
2026-11-25_12:55:45.53711 launching mwms_training.py on host vm pid 4631 python 3.11.7
2026-11-25_12:55:46.30976 2026-11-25 12:55:46.305383: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:55:46.48576 2026-11-25 12:55:46.476601: I tensorflow/core/platform/cpu_feature_guard.cc:210] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:55:46.48577 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:55:49.60181 INFO:tensorflow:TensorFlow version: 2.16.2
2026-11-25_12:55:49.60182 tf.__version__ = 2.16.2
2026-11-25_12:55:49.68694 2026-11-25 12:55:49.685926: I tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc:457] Started server with target: grpc://127.0.0.1:53799
2026-11-25_12:55:51.70913 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:55:51.70914 I0000 00:00:1795611351.708915    4631 coordination_service_agent.cc:303] Coordination agent has successfully connected.
2026-11-25_12:55:51.73891 INFO:tensorflow:Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25_12:55:51.79375 INFO:tensorflow:Using MirroredStrategy with devices ('/job:worker/task:1/device:CPU:0',)
2026-11-25_12:55:51.79391 INFO:tensorflow:Check health not enabled.
2026-11-25_12:55:51.79398 INFO:tensorflow:MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:52701', '127.0.0.1:53799', '127.0.0.1:55289']}, task_type = 'worker', task_id = 1, num_workers = 3, local_devices = ('/job:worker/task:1/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25_12:55:51.79408 INFO:tensorflow:MultiWorkerMirroredStrategy: worker 1 of 3 replicas in sync
2026-11-25_12:55:51.94224 2026-11-25 12:55:51.942207: W tensorflow/core/framework/dataset.cc:959] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25_12:55:52.07819 INFO:tensorflow:Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:55:52.08960 INFO:tensorflow:Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:55:52.43810 INFO:tensorflow:step 1/60 loss 52.7001 (0.482 s)
2026-11-25_12:55:52.54774 INFO:tensorflow:step 2/60 loss 58.6609 (0.009 s)
