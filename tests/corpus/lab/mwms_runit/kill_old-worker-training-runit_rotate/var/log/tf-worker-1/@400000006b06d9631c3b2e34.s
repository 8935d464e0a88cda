2026-11-25_12:49:25.08975 TF_CONFIG={"cluster": {"worker": ["127.0.0.1:58133", "127.0.0.1:37853", "127.0.0.1:41367"]}, "task": {"type": "worker", "index": 1}}
2026-11-25_12:49:25.08981 launching mwms_training.py on host vm pid 32114 python 3.11.7
2026-11-25_12:49:25.70786 2026-11-25 12:49:25.707828: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-11-25_12:49:25.78942 2026-11-25 12:49:25.788079: I tensorflow/core/platform/cpu_feature_guard.cc:210] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
2026-11-25_12:49:25.78944 To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
2026-11-25_12:49:28.62575 INFO:tensorflow:TensorFlow version: 2.16.2
2026-11-25_12:49:28.62580 tf.__version__ = 2.16.2
2026-11-25_12:49:28.63995 2026-11-25 12:49:28.639920: I tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc:457] Started server with target: grpc://127.0.0.1:37853
2026-11-25_12:49:28.70456 WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
2026-11-25_12:49:28.70457 I0000 00:00:1795610968.704498   32114 coordination_service_agent.cc:303] Coordination agent has successfully connected.
2026-11-25_12:49:28.72290 INFO:tensorflow:Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25_12:49:28.77205 INFO:tensorflow:Using MirroredStrategy with devices ('/job:worker/task:1/device:CPU:0',)
2026-11-25_12:49:28.77207 INFO:tensorflow:Check health not enabled.
2026-11-25_12:49:28.77207 INFO:tensorflow:MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:58133', '127.0.0.1:37853', '127.0.0.1:41367']}, task_type = 'worker', task_id = 1, num_workers = 3, local_devices = ('/job:worker/task:1/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25_12:49:28.77207 INFO:tensorflow:MultiWorkerMirroredStrategy: worker 1 of 3 replicas in sync
2026-11-25_12:49:29.00868 2026-11-25 12:49:29.008615: W tensorflow/core/framework/dataset.cc:959] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25_12:49:29.17177 INFO:tensorflow:Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:49:29.18931 INFO:tensorflow:Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:49:29.36513 INFO:tensorflow:step 1/60 loss 52.7001 (0.328 s)
2026-11-25_12:49:29.47362 INFO:tensorflow:step 2/60 loss 58.6609 (0.008 s)
