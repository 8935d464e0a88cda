2026-11-25T12:41:16.47385 I0000 00:00:1795610476.470335   23576 coordination_service.cc:502] Waiting for 1/3 tasks to connect.
2026-11-25T12:41:16.47387 I0000 00:00:1795610476.470344   23576 coordination_service.cc:505] Example stragglers:
2026-11-25T12:41:16.47387 /job:worker/replica:0/task:1
2026-11-25T12:41:16.52159 I0000 00:00:1795610476.521524   23576 coordination_service.h:529] /job:worker/replica:0/task:1 has connected to coordination service. Incarnation: 6557997038405966383
2026-11-25T12:41:16.52160 I0000 00:00:1795610476.521573   23576 coordination_service.cc:502] Waiting for 0/3 tasks to connect.
2026-11-25T12:41:16.52250 I0000 00:00:1795610476.522333   23576 coordination_service.cc:1472] Barrier(WaitForAllTasks::15121244683800943758::0) has passed with status: OK
2026-11-25T12:41:16.52345 2026-11-25 12:41:16,523 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25T12:41:16.58094 2026-11-25 12:41:16,580 - INFO - Using MirroredStrategy with devices ('/job:worker/task:0/device:CPU:0',)
2026-11-25T12:41:16.58101 2026-11-25 12:41:16,580 - INFO - Check health not enabled.
2026-11-25T12:41:16.58107 2026-11-25 12:41:16,581 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:52005', '127.0.0.1:47107', '127.0.0.1:34685']}, task_type = 'worker', task_id = 0, num_workers = 3, local_devices = ('/job:worker/task:0/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25T12:41:16.58118 2026-11-25 12:41:16,581 - INFO - MultiWorkerMirroredStrategy: worker 0 of 3 replicas in sync
2026-11-25T12:41:16.90575 I0000 00:00:1795610476.896704   23344 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25T12:41:16.92580 W0000 00:00:1795610476.922010   23344 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25T12:41:17.15092 2026-11-25 12:41:17,150 - INFO - Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:41:17.16927 2026-11-25 12:41:17,169 - INFO - Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:41:17.25836 2026-11-25 12:41:17,258 - INFO - step 1/60 loss 52.7001 (0.311 s)
2026-11-25T12:41:17.36933 2026-11-25 12:41:17,369 - INFO - step 2/60 loss 57.1494 (0.010 s)
2026-11-25T12:41:17.48014 2026-11-25 12:41:17,479 - INFO - step 3/60 loss 23.9036 (0.010 s)
2026-11-25T12:41:17.58965 2026-11-25 12:41:17,589 - INFO - step 4/60 loss 21.4393 (0.008 s)
2026-11-25T12:41:17.69915 2026-11-25 12:41:17,699 - INFO - step 5/60 loss 11.7566 (0.009 s)
2026-11-25T12:41:17.80876 2026-11-25 12:41:17,808 - INFO - step 6/60 loss 16.5902 (0.009 s)
2026-11-25T12:41:17.91907 2026-11-25 12:41:17,918 - INFO - step 7/60 loss 13.0771 (0.010 s)
