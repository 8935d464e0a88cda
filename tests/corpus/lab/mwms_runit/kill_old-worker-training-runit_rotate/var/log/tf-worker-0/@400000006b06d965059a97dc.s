2026-11-25_12:49:28.70984 2026-11-25 12:49:28,705 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25_12:49:28.75081 2026-11-25 12:49:28,750 - INFO - Using MirroredStrategy with devices ('/job:worker/task:0/device:CPU:0',)
2026-11-25_12:49:28.75091 2026-11-25 12:49:28,750 - INFO - Check health not enabled.
2026-11-25_12:49:28.75097 2026-11-25 12:49:28,750 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:58133', '127.0.0.1:37853', '127.0.0.1:41367']}, task_type = 'worker', task_id = 0, num_workers = 3, local_devices = ('/job:worker/task:0/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25_12:49:28.75108 2026-11-25 12:49:28,751 - INFO - MultiWorkerMirroredStrategy: worker 0 of 3 replicas in sync
2026-11-25_12:49:28.95248 2026-11-25 12:49:28.952409: W tensorflow/core/framework/dataset.cc:959] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25_12:49:29.15373 2026-11-25 12:49:29,148 - INFO - Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:49:29.19775 2026-11-25 12:49:29,189 - INFO - Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:49:29.36540 2026-11-25 12:49:29,365 - INFO - step 1/60 loss 52.7001 (0.390 s)
2026-11-25_12:49:29.47363 2026-11-25 12:49:29,473 - INFO - step 2/60 loss 58.6609 (0.007 s)
2026-11-25_12:49:29.58233 2026-11-25 12:49:29,582 - INFO - step 3/60 loss 23.3343 (0.008 s)
2026-11-25_12:49:29.69014 2026-11-25 12:49:29,690 - INFO - step 4/60 loss 21.2365 (0.007 s)
2026-11-25_12:49:29.79696 2026-11-25 12:49:29,796 - INFO - step 5/60 loss 11.9479 (0.006 s)
2026-11-25_12:49:29.90491 2026-11-25 12:49:29,904 - INFO - step 6/60 loss 16.0345 (0.008 s)
2026-11-25_12:49:30.01191 2026-11-25 12:49:30,011 - INFO - step 7/60 loss 12.9141 (0.006 s)
2026-11-25_12:49:30.11920 2026-11-25 12:49:30,119 - INFO - step 8/60 loss 10.8206 (0.007 s)
2026-11-25_12:49:30.22750 2026-11-25 12:49:30,227 - INFO - step 9/60 loss 10.6945 (0.007 s)
2026-11-25_12:49:30.33468 2026-11-25 12:49:30,334 - INFO - step 10/60 loss 5.1843 (0.007 s)
2026-11-25_12:49:30.44282 2026-11-25 12:49:30,442 - INFO - step 11/60 loss 6.7593 (0.007 s)
2026-11-25_12:49:30.55016 2026-11-25 12:49:30,550 - INFO - step 12/60 loss 6.3736 (0.007 s)
2026-11-25_12:49:30.66521 2026-11-25 12:49:30,665 - INFO - step 13/60 loss 3.1740 (0.015 s)
2026-11-25_12:49:30.77244 2026-11-25 12:49:30,772 - INFO - step 14/60 loss 4.8259 (0.007 s)
2026-11-25_12:49:30.87988 2026-11-25 12:49:30,879 - INFO - step 15/60 loss 3.5726 (0.007 s)
2026-11-25_12:49:30.98731 2026-11-25 12:49:30,987 - INFO - step 16/60 loss 2.8224 (0.006 s)
2026-11-25_12:49:31.09400 2026-11-25 12:49:31,093 - INFO - step 17/60 loss 2.0806 (0.006 s)
