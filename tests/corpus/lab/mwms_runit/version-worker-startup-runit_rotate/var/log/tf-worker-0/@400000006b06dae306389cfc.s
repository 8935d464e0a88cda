2026-11-25_12:55:51.02583 I0000 00:00:1795611351.021023    4749 coordination_service.cc:502] Waiting for 1/3 tasks to connect.
2026-11-25_12:55:51.02585 I0000 00:00:1795611351.021032    4749 coordination_service.cc:505] Example stragglers:
2026-11-25_12:55:51.02585 /job:worker/replica:0/task:1
2026-11-25_12:55:51.70874 I0000 00:00:1795611351.708555    4749 coordination_service.h:529] /job:worker/replica:0/task:1 has connected to coordination service. Incarnation: 2856066923171207871
2026-11-25_12:55:51.70876 I0000 00:00:1795611351.708598    4749 coordination_service.cc:502] Waiting for 0/3 tasks to connect.
2026-11-25_12:55:51.71380 I0000 00:00:1795611351.709266    4749 coordination_service.cc:1472] Barrier(WaitForAllTasks::5530073426715143973::0) has passed with status: OK
2026-11-25_12:55:51.71774 2026-11-25 12:55:51,714 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25_12:55:51.76624 2026-11-25 12:55:51,765 - INFO - Using MirroredStrategy with devices ('/job:worker/task:0/device:CPU:0',)
2026-11-25_12:55:51.76636 2026-11-25 12:55:51,766 - INFO - Check health not enabled.
2026-11-25_12:55:51.76642 2026-11-25 12:55:51,766 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:52701', '127.0.0.1:53799', '127.0.0.1:55289']}, task_type = 'worker', task_id = 0, num_workers = 3, local_devices = ('/job:worker/task:0/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25_12:55:51.76653 2026-11-25 12:55:51,766 - INFO - MultiWorkerMirroredStrategy: worker 0 of 3 replicas in sync
2026-11-25_12:55:52.03614 I0000 00:00:1795611352.036056    4632 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25_12:55:52.04053 W0000 00:00:1795611352.040479    4632 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25_12:55:52.23847 2026-11-25 12:55:52,238 - INFO - Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:55:52.25122 2026-11-25 12:55:52,251 - INFO - Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:55:52.43762 2026-11-25 12:55:52,437 - INFO - step 1/60 loss 52.7001 (0.386 s)
2026-11-25_12:55:52.54790 2026-11-25 12:55:52,547 - INFO - step 2/60 loss 58.6609 (0.009 s)
2026-11-25_12:55:52.65779 2026-11-25 12:55:52,657 - INFO - step 3/60 loss 23.3343 (0.010 s)
2026-11-25_12:55:52.76945 2026-11-25 12:55:52,769 - INFO - step 4/60 loss 21.2365 (0.011 s)
2026-11-25_12:55:52.87975 2026-11-25 12:55:52,879 - INFO - step 5/60 loss 11.9479 (0.010 s)
2026-11-25_12:55:52.98966 2026-11-25 12:55:52,989 - INFO - step 6/60 loss 16.0345 (0.010 s)
2026-11-25_12:55:53.10436 2026-11-25 12:55:53,104 - INFO - step 7/60 loss 12.9141 (0.015 s)
