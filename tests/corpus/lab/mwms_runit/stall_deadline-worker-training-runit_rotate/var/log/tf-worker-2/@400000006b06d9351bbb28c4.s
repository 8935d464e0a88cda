2026-11-25T12:48:35.60199 2026-11-25 12:48:35,594 - INFO - MultiWorkerMirroredStrategy: worker 2 of 3 replicas in sync
2026-11-25T12:48:35.82079 I0000 00:00:1795610915.820714   29993 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25T12:48:35.82963 W0000 00:00:1795610915.829571   29993 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25T12:48:35.98604 2026-11-25 12:48:35,985 - INFO - Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:48:36.00172 2026-11-25 12:48:36,001 - INFO - Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:48:36.18392 2026-11-25 12:48:36,183 - INFO - step 1/60 loss 52.7001 (0.337 s)
2026-11-25T12:48:36.29665 2026-11-25 12:48:36,296 - INFO - step 2/60 loss 58.6609 (0.012 s)
2026-11-25T12:48:36.40782 2026-11-25 12:48:36,407 - INFO - step 3/60 loss 23.3343 (0.011 s)
2026-11-25T12:48:36.52680 2026-11-25 12:48:36,526 - INFO - step 4/60 loss 21.2365 (0.019 s)
2026-11-25T12:48:36.63767 2026-11-25 12:48:36,637 - INFO - step 5/60 loss 11.9479 (0.011 s)
2026-11-25T12:48:36.74891 2026-11-25 12:48:36,748 - INFO - step 6/60 loss 16.0345 (0.011 s)
2026-11-25T12:48:36.86323 2026-11-25 12:48:36,863 - INFO - step 7/60 loss 12.9141 (0.014 s)
2026-11-25T12:48:36.97746 2026-11-25 12:48:36,977 - INFO - step 8/60 loss 10.8206 (0.014 s)
2026-11-25T12:48:37.09137 2026-11-25 12:48:37,091 - INFO - step 9/60 loss 10.6945 (0.014 s)
2026-11-25T12:48:37.20566 2026-11-25 12:48:37,205 - INFO - step 10/60 loss 5.1843 (0.014 s)
2026-11-25T12:48:37.32348 2026-11-25 12:48:37,323 - INFO - step 11/60 loss 6.7593 (0.018 s)
2026-11-25T12:48:37.43733 2026-11-25 12:48:37,437 - INFO - step 12/60 loss 6.3736 (0.014 s)
2026-11-25T12:48:37.55168 2026-11-25 12:48:37,551 - INFO - step 13/60 loss 3.1740 (0.014 s)
2026-11-25T12:48:37.66564 2026-11-25 12:48:37,665 - INFO - step 14/60 loss 4.8259 (0.014 s)
2026-11-25T12:48:37.77980 2026-11-25 12:48:37,779 - INFO - step 15/60 loss 3.5726 (0.014 s)
2026-11-25T12:48:37.89445 2026-11-25 12:48:37,894 - INFO - step 16/60 loss 2.8224 (0.014 s)
2026-11-25T12:48:38.00848 2026-11-25 12:48:38,008 - INFO - step 17/60 loss 2.0806 (0.014 s)
2026-11-25T12:48:38.12279 2026-11-25 12:48:38,122 - INFO - step 18/60 loss 1.2254 (0.014 s)
2026-11-25T12:48:38.23825 2026-11-25 12:48:38,238 - INFO - step 19/60 loss 1.3053 (0.015 s)
2026-11-25T12:48:38.35399 2026-11-25 12:48:38,353 - INFO - step 20/60 loss 1.7721 (0.014 s)
2026-11-25T12:48:43.46524 E0000 00:00:1795610923.461844   30687 base_collective_executor.cc:252] BaseCollectiveExecutor::StartAbort DEADLINE_EXCEEDED: Collective has timed out during execution.
2026-11-25T12:48:43.46524 W0000 00:00:1795610923.462106   30687 local_rendezvous.cc:412] Local rendezvous is aborting with status: DEADLINE_EXCEEDED: Collective has timed out during execution.
