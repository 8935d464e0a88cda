2026-11-25_12:47:33.08538 2026-11-25 12:47:33,084 - INFO - MultiWorkerMirroredStrategy: worker 2 of 3 replicas in sync
2026-11-25_12:47:33.29774 I0000 00:00:1795610853.295302   28311 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25_12:47:33.30363 W0000 00:00:1795610853.303543   28311 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25_12:47:33.32352 2026-11-25 12:47:33,323 - INFO - Start watcher for peer's signal.
2026-11-25_12:47:33.32381 2026-11-25 12:47:33,323 - INFO - Start watcher for local signal.
2026-11-25_12:47:33.32431 2026-11-25 12:47:33,324 - INFO - PreemptionCheckpointHandler initialized or restored.
2026-11-25_12:47:33.47198 2026-11-25 12:47:33,471 - INFO - Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:47:33.49656 2026-11-25 12:47:33,496 - INFO - Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:47:33.62625 2026-11-25 12:47:33,625 - INFO - step 1/60 loss 52.7001 (0.301 s)
2026-11-25_12:47:33.73854 2026-11-25 12:47:33,738 - INFO - step 2/60 loss 58.6609 (0.011 s)
2026-11-25_12:47:33.85117 2026-11-25 12:47:33,851 - INFO - step 3/60 loss 23.3343 (0.012 s)
2026-11-25_12:47:33.96505 2026-11-25 12:47:33,964 - INFO - step 4/60 loss 21.2365 (0.013 s)
2026-11-25_12:47:34.07829 2026-11-25 12:47:34,078 - INFO - step 5/60 loss 11.9479 (0.013 s)
2026-11-25_12:47:34.19337 2026-11-25 12:47:34,193 - INFO - step 6/60 loss 16.0345 (0.015 s)
2026-11-25_12:47:34.30714 2026-11-25 12:47:34,307 - INFO - step 7/60 loss 12.9141 (0.013 s)
2026-11-25_12:47:34.41930 2026-11-25 12:47:34,419 - INFO - step 8/60 loss 10.8206 (0.012 s)
2026-11-25_12:47:34.53131 2026-11-25 12:47:34,531 - INFO - step 9/60 loss 10.6945 (0.012 s)
2026-11-25_12:47:34.64448 2026-11-25 12:47:34,644 - INFO - step 10/60 loss 5.1843 (0.013 s)
2026-11-25_12:47:34.75819 2026-11-25 12:47:34,757 - INFO - step 11/60 loss 6.7593 (0.013 s)
2026-11-25_12:47:34.87380 2026-11-25 12:47:34,872 - INFO - step 12/60 loss 6.3736 (0.014 s)
2026-11-25_12:47:34.98822 2026-11-25 12:47:34,987 - INFO - step 13/60 loss 3.1740 (0.011 s)
2026-11-25_12:47:35.10317 2026-11-25 12:47:35,102 - INFO - step 14/60 loss 4.8259 (0.011 s)
2026-11-25_12:47:35.21764 2026-11-25 12:47:35,216 - INFO - step 15/60 loss 3.5726 (0.012 s)
2026-11-25_12:47:35.33201 2026-11-25 12:47:35,331 - INFO - step 16/60 loss 2.8224 (0.013 s)
2026-11-25_12:47:35.44636 2026-11-25 12:47:35,445 - INFO - step 17/60 loss 2.0806 (0.013 s)
2026-11-25_12:47:35.56600 2026-11-25 12:47:35,565 - INFO - step 18/60 loss 1.2254 (0.019 s)
2026-11-25_12:47:35.67933 2026-11-25 12:47:35,679 - INFO - step 19/60 loss 1.3053 (0.013 s)
2026-11-25_12:47:35.79287 2026-11-25 12:47:35,792 - INFO - step 20/60 loss 1.7721 (0.013 s)
2026-11-25_12:47:35.90344 2026-11-25 12:47:35,902 - INFO - PreemptionCheckpointHandler: RECEIVED_SIGNAL_RUN_TO_CHECKPOINT_2 set, preemption awareness acknowledged
