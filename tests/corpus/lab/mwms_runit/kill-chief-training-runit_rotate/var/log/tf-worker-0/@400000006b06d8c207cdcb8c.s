2026-11-25T12:46:46.74296 I0000 00:00:1795610806.742022   27276 coordination_service.cc:502] Waiting for 1/3 tasks to connect.
2026-11-25T12:46:46.74297 I0000 00:00:1795610806.742031   27276 coordination_service.cc:505] Example stragglers:
2026-11-25T12:46:46.74297 /job:worker/replica:0/task:1
2026-11-25T12:46:46.80409 I0000 00:00:1795610806.803871   27275 coordination_service.h:529] /job:worker/replica:0/task:1 has connected to coordination service. Incarnation: 16592168421932160827
2026-11-25T12:46:46.80410 I0000 00:00:1795610806.803909   27275 coordination_service.cc:502] Waiting for 0/3 tasks to connect.
2026-11-25T12:46:46.80501 I0000 00:00:1795610806.804718   27275 coordination_service.cc:1472] Barrier(WaitForAllTasks::6591888151705431879::0) has passed with status: OK
2026-11-25T12:46:46.80588 2026-11-25 12:46:46,805 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25T12:46:46.85375 2026-11-25 12:46:46,849 - INFO - Using MirroredStrategy with devices ('/job:worker/task:0/device:CPU:0',)
2026-11-25T12:46:46.85376 2026-11-25 12:46:46,850 - INFO - Check health not enabled.
2026-11-25T12:46:46.85377 2026-11-25 12:46:46,850 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:46057', '127.0.0.1:41239', '127.0.0.1:56751']}, task_type = 'worker', task_id = 0, num_workers = 3, local_devices = ('/job:worker/task:0/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25T12:46:46.85377 2026-11-25 12:46:46,850 - INFO - MultiWorkerMirroredStrategy: worker 0 of 3 replicas in sync
2026-11-25T12:46:47.18593 I0000 00:00:1795610807.128901   27043 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25T12:46:47.19187 W0000 00:00:1795610807.190446   27043 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25T12:46:47.34334 2026-11-25 12:46:47,343 - INFO - Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:46:47.35541 2026-11-25 12:46:47,354 - INFO - Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:46:47.45543 2026-11-25 12:46:47,455 - INFO - step 1/60 loss 52.7001 (0.254 s)
2026-11-25T12:46:47.56650 2026-11-25 12:46:47,566 - INFO - step 2/60 loss 58.6609 (0.011 s)
2026-11-25T12:46:47.67928 2026-11-25 12:46:47,679 - INFO - step 3/60 loss 23.3343 (0.012 s)
2026-11-25T12:46:47.79388 2026-11-25 12:46:47,793 - INFO - step 4/60 loss 21.2365 (0.013 s)
2026-11-25T12:46:47.90572 2026-11-25 12:46:47,905 - INFO - step 5/60 loss 11.9479 (0.010 s)
2026-11-25T12:46:48.01782 2026-11-25 12:46:48,017 - INFO - step 6/60 loss 16.0345 (0.011 s)
2026-11-25T12:46:48.13091 2026-11-25 12:46:48,130 - INFO - step 7/60 loss 12.9141 (0.013 s)
