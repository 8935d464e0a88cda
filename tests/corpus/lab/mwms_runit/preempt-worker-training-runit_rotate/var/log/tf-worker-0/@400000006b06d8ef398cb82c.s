2026-11-25_12:47:32.87801 I0000 00:00:1795610852.877419   28543 coordination_service.cc:502] Waiting for 1/3 tasks to connect.
2026-11-25_12:47:32.87803 I0000 00:00:1795610852.877426   28543 coordination_service.cc:505] Example stragglers:
2026-11-25_12:47:32.87803 /job:worker/replica:0/task:2
2026-11-25_12:47:33.02229 I0000 00:00:1795610853.022193   28543 coordination_service.h:529] /job:worker/replica:0/task:2 has connected to coordination service. Incarnation: 11935059734292389363
2026-11-25_12:47:33.02231 I0000 00:00:1795610853.022227   28543 coordination_service.cc:502] Waiting for 0/3 tasks to connect.
2026-11-25_12:47:33.02578 I0000 00:00:1795610853.023116   28543 coordination_service.cc:1472] Barrier(WaitForAllTasks::12136686861423672313::0) has passed with status: OK
2026-11-25_12:47:33.02974 2026-11-25 12:47:33,026 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25_12:47:33.07304 2026-11-25 12:47:33,072 - INFO - Using MirroredStrategy with devices ('/job:worker/task:0/device:CPU:0',)
2026-11-25_12:47:33.07311 2026-11-25 12:47:33,073 - INFO - Check health not enabled.
2026-11-25_12:47:33.07317 2026-11-25 12:47:33,073 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:54283', '127.0.0.1:46191', '127.0.0.1:39969']}, task_type = 'worker', task_id = 0, num_workers = 3, local_devices = ('/job:worker/task:0/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25_12:47:33.07328 2026-11-25 12:47:33,073 - INFO - MultiWorkerMirroredStrategy: worker 0 of 3 replicas in sync
2026-11-25_12:47:33.28555 I0000 00:00:1795610853.285504   28312 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25_12:47:33.29534 W0000 00:00:1795610853.292396   28312 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25_12:47:33.34505 2026-11-25 12:47:33,344 - INFO - Start watcher for peer's signal.
2026-11-25_12:47:33.35407 2026-11-25 12:47:33,353 - INFO - Start watcher for local signal.
2026-11-25_12:47:33.35417 2026-11-25 12:47:33,354 - INFO - PreemptionCheckpointHandler initialized or restored.
2026-11-25_12:47:33.52243 2026-11-25 12:47:33,522 - INFO - Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:47:33.54976 2026-11-25 12:47:33,547 - INFO - Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:47:33.62590 2026-11-25 12:47:33,625 - INFO - step 1/60 loss 52.7001 (0.271 s)
2026-11-25_12:47:33.73932 2026-11-25 12:47:33,739 - INFO - step 2/60 loss 58.6609 (0.013 s)
2026-11-25_12:47:33.85190 2026-11-25 12:47:33,851 - INFO - step 3/60 loss 23.3343 (0.012 s)
2026-11-25_12:47:33.96550 2026-11-25 12:47:33,965 - INFO - step 4/60 loss 21.2365 (0.013 s)
