2026-11-25T12:55:02.05464 I0000 00:00:1795611302.053768    3306 coordination_service.cc:502] Waiting for 1/3 tasks to connect.
2026-11-25T12:55:02.05465 I0000 00:00:1795611302.053797    3306 coordination_service.cc:505] Example stragglers:
2026-11-25T12:55:02.05465 /job:worker/replica:0/task:1
2026-11-25T12:55:15.96077 I0000 00:00:1795611315.960727    3306 coordination_service.h:529] /job:worker/replica:0/task:1 has connected to coordination service. Incarnation: 16170399343632752433
2026-11-25T12:55:15.96080 I0000 00:00:1795611315.960796    3306 coordination_service.cc:502] Waiting for 0/3 tasks to connect.
2026-11-25T12:55:15.98566 I0000 00:00:1795611315.985478    3306 coordination_service.cc:1472] Barrier(WaitForAllTasks::8591310197166257470::0) has passed with status: OK
2026-11-25T12:55:15.98663 2026-11-25 12:55:15,986 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25T12:55:16.03376 2026-11-25 12:55:16,022 - INFO - Using MirroredStrategy with devices ('/job:worker/task:0/device:CPU:0',)
2026-11-25T12:55:16.03377 2026-11-25 12:55:16,022 - INFO - Check health not enabled.
2026-11-25T12:55:16.03377 2026-11-25 12:55:16,022 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:39789', '127.0.0.1:42783', '127.0.0.1:51513']}, task_type = 'worker', task_id = 0, num_workers = 3, local_devices = ('/job:worker/task:0/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25T12:55:16.03378 2026-11-25 12:55:16,022 - INFO - MultiWorkerMirroredStrategy: worker 0 of 3 replicas in sync
2026-11-25T12:55:16.21545 I0000 00:00:1795611316.215386    3226 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25T12:55:16.22796 W0000 00:00:1795611316.227930    3226 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25T12:55:16.45606 2026-11-25 12:55:16,455 - INFO - Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:55:16.48219 2026-11-25 12:55:16,482 - INFO - Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:55:16.56199 2026-11-25 12:55:16,561 - INFO - step 1/60 loss 52.7001 (0.306 s)
2026-11-25T12:55:16.67013 2026-11-25 12:55:16,670 - INFO - step 2/60 loss 58.6609 (0.008 s)
2026-11-25T12:55:16.77881 2026-11-25 12:55:16,778 - INFO - step 3/60 loss 23.3343 (0.008 s)
2026-11-25T12:55:16.88736 2026-11-25 12:55:16,887 - INFO - step 4/60 loss 21.2365 (0.009 s)
2026-11-25T12:55:16.99532 2026-11-25 12:55:16,995 - INFO - step 5/60 loss 11.9479 (0.008 s)
2026-11-25T12:55:17.10341 2026-11-25 12:55:17,103 - INFO - step 6/60 loss 16.0345 (0.008 s)
2026-11-25T12:55:17.21242 2026-11-25 12:55:17,212 - INFO - step 7/60 loss 12.9141 (0.008 s)
