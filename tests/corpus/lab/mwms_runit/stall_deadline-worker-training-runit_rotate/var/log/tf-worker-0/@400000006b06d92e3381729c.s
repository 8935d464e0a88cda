2026-11-25T12:48:34.76956 I0000 00:00:1795610914.768832   30153 coordination_service.cc:502] Waiting for 1/3 tasks to connect.
2026-11-25T12:48:34.76957 I0000 00:00:1795610914.768841   30153 coordination_service.cc:505] Example stragglers:
2026-11-25T12:48:34.76957 /job:worker/replica:0/task:1
2026-11-25T12:48:35.54752 I0000 00:00:1795610915.547300   30153 coordination_service.h:529] /job:worker/replica:0/task:1 has connected to coordination service. Incarnation: 7975278082397182875
2026-11-25T12:48:35.54754 I0000 00:00:1795610915.547338   30153 coordination_service.cc:502] Waiting for 0/3 tasks to connect.
2026-11-25T12:48:35.54911 I0000 00:00:1795610915.548231   30153 coordination_service.cc:1472] Barrier(WaitForAllTasks::13397504469049193828::0) has passed with status: OK
2026-11-25T12:48:35.55187 2026-11-25 12:48:35,549 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25T12:48:35.60037 2026-11-25 12:48:35,599 - INFO - Using MirroredStrategy with devices ('/job:worker/task:0/device:CPU:0',)
2026-11-25T12:48:35.60047 2026-11-25 12:48:35,600 - INFO - Check health not enabled.
2026-11-25T12:48:35.60053 2026-11-25 12:48:35,600 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:54461', '127.0.0.1:49075', '127.0.0.1:45057']}, task_type = 'worker', task_id = 0, num_workers = 3, local_devices = ('/job:worker/task:0/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25T12:48:35.60064 2026-11-25 12:48:35,600 - INFO - MultiWorkerMirroredStrategy: worker 0 of 3 replicas in sync
2026-11-25T12:48:35.79578 I0000 00:00:1795610915.795703   29995 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25T12:48:35.80451 W0000 00:00:1795610915.804441   29995 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25T12:48:36.05914 2026-11-25 12:48:36,059 - INFO - Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:48:36.08329 2026-11-25 12:48:36,083 - INFO - Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:48:36.18599 2026-11-25 12:48:36,184 - INFO - step 1/60 loss 52.7001 (0.346 s)
2026-11-25T12:48:36.29715 2026-11-25 12:48:36,296 - INFO - step 2/60 loss 58.6609 (0.012 s)
2026-11-25T12:48:36.40824 2026-11-25 12:48:36,408 - INFO - step 3/60 loss 23.3343 (0.011 s)
2026-11-25T12:48:36.52702 2026-11-25 12:48:36,526 - INFO - step 4/60 loss 21.2365 (0.019 s)
2026-11-25T12:48:36.63840 2026-11-25 12:48:36,638 - INFO - step 5/60 loss 11.9479 (0.011 s)
2026-11-25T12:48:36.75017 2026-11-25 12:48:36,750 - INFO - step 6/60 loss 16.0345 (0.011 s)
2026-11-25T12:48:36.86411 2026-11-25 12:48:36,864 - INFO - step 7/60 loss 12.9141 (0.012 s)
