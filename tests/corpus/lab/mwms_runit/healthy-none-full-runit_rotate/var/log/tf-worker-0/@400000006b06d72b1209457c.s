2026-11-25_12:39:59.88854 I0000 00:00:1795610399.887328   21566 coordination_service.cc:502] Waiting for 1/3 tasks to connect.
2026-11-25_12:39:59.88855 I0000 00:00:1795610399.887334   21566 coordination_service.cc:505] Example stragglers:
2026-11-25_12:39:59.88855 /job:worker/replica:0/task:1
2026-11-25_12:40:00.00473 I0000 00:00:1795610400.004643   21566 coordination_service.h:529] /job:worker/replica:0/task:1 has connected to coordination service. Incarnation: 5731944412261893633
2026-11-25_12:40:00.00475 I0000 00:00:1795610400.004697   21566 coordination_service.cc:502] Waiting for 0/3 tasks to connect.
2026-11-25_12:40:00.01935 I0000 00:00:1795610400.019272   21566 coordination_service.cc:1472] Barrier(WaitForAllTasks::1381300336279554698::0) has passed with status: OK
2026-11-25_12:40:00.02050 2026-11-25 12:40:00,020 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25_12:40:00.05474 2026-11-25 12:40:00,054 - INFO - Using MirroredStrategy with devices ('/job:worker/task:0/device:CPU:0',)
2026-11-25_12:40:00.05479 2026-11-25 12:40:00,054 - INFO - Check health not enabled.
2026-11-25_12:40:00.05485 2026-11-25 12:40:00,054 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:57179', '127.0.0.1:60635', '127.0.0.1:51093']}, task_type = 'worker', task_id = 0, num_workers = 3, local_devices = ('/job:worker/task:0/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25_12:40:00.05497 2026-11-25 12:40:00,054 - INFO - MultiWorkerMirroredStrategy: worker 0 of 3 replicas in sync
2026-11-25_12:40:00.27206 I0000 00:00:1795610400.272018   21489 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25_12:40:00.28513 W0000 00:00:1795610400.280603   21489 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25_12:40:00.51058 2026-11-25 12:40:00,510 - INFO - Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:40:00.52134 2026-11-25 12:40:00,521 - INFO - Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:40:00.62617 2026-11-25 12:40:00,626 - INFO - step 1/60 loss 52.7001 (0.331 s)
2026-11-25_12:40:00.73921 2026-11-25 12:40:00,739 - INFO - step 2/60 loss 58.6609 (0.013 s)
2026-11-25_12:40:00.85199 2026-11-25 12:40:00,851 - INFO - step 3/60 loss 23.3343 (0.012 s)
2026-11-25_12:40:00.96425 2026-11-25 12:40:00,964 - INFO - step 4/60 loss 21.2365 (0.011 s)
2026-11-25_12:40:01.07658 2026-11-25 12:40:01,076 - INFO - step 5/60 loss 11.9479 (0.010 s)
2026-11-25_12:40:01.18957 2026-11-25 12:40:01,189 - INFO - step 6/60 loss 16.0345 (0.012 s)
2026-11-25_12:40:01.30257 2026-11-25 12:40:01,302 - INFO - step 7/60 loss 12.9141 (0.013 s)
