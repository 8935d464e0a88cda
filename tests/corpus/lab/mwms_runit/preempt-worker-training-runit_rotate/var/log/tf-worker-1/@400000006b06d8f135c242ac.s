2026-11-25_12:47:33.18687 I0000 00:00:1795610853.186824   28310 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25_12:47:33.19093 W0000 00:00:1795610853.190907   28310 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25_12:47:33.27457 INFO:tensorflow:Start watcher for peer's signal.
2026-11-25_12:47:33.27815 INFO:tensorflow:Start watcher for local signal.
2026-11-25_12:47:33.27816 INFO:tensorflow:PreemptionCheckpointHandler initialized or restored.
2026-11-25_12:47:33.49917 INFO:tensorflow:Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:47:33.51427 INFO:tensorflow:Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25_12:47:33.62612 INFO:tensorflow:step 1/60 loss 52.7001 (0.348 s)
2026-11-25_12:47:33.73942 INFO:tensorflow:step 2/60 loss 58.6609 (0.013 s)
2026-11-25_12:47:33.85213 INFO:tensorflow:step 3/60 loss 23.3343 (0.012 s)
2026-11-25_12:47:33.96661 INFO:tensorflow:step 4/60 loss 21.2365 (0.014 s)
2026-11-25_12:47:34.07952 INFO:tensorflow:step 5/60 loss 11.9479 (0.012 s)
2026-11-25_12:47:34.19474 INFO:tensorflow:step 6/60 loss 16.0345 (0.014 s)
2026-11-25_12:47:34.30859 INFO:tensorflow:step 7/60 loss 12.9141 (0.012 s)
2026-11-25_12:47:34.42021 INFO:tensorflow:step 8/60 loss 10.8206 (0.010 s)
2026-11-25_12:47:34.53226 INFO:tensorflow:step 9/60 loss 10.6945 (0.011 s)
2026-11-25_12:47:34.64585 INFO:tensorflow:step 10/60 loss 5.1843 (0.012 s)
2026-11-25_12:47:34.75888 INFO:tensorflow:step 11/60 loss 6.7593 (0.012 s)
2026-11-25_12:47:34.87322 INFO:tensorflow:step 12/60 loss 6.3736 (0.012 s)
2026-11-25_12:47:34.98835 INFO:tensorflow:step 13/60 loss 3.1740 (0.014 s)
2026-11-25_12:47:35.10312 INFO:tensorflow:step 14/60 loss 4.8259 (0.013 s)
2026-11-25_12:47:35.21774 INFO:tensorflow:step 15/60 loss 3.5726 (0.014 s)
2026-11-25_12:47:35.33209 INFO:tensorflow:step 16/60 loss 2.8224 (0.012 s)
2026-11-25_12:47:35.44641 INFO:tensorflow:step 17/60 loss 2.0806 (0.012 s)
2026-11-25_12:47:35.56684 INFO:tensorflow:step 18/60 loss 1.2254 (0.018 s)
2026-11-25_12:47:35.68020 INFO:tensorflow:step 19/60 loss 1.3053 (0.013 s)
2026-11-25_12:47:35.79367 INFO:tensorflow:step 20/60 loss 1.7721 (0.013 s)
2026-11-25_12:47:35.88766 INFO:tensorflow:Member 1 has received termination notice.
2026-11-25_12:47:35.89550 INFO:tensorflow:Termination caught in main thread on preempted worker
2026-11-25_12:47:35.89780 INFO:tensorflow:RUN_TO_CHECKPOINT set to 21
2026-11-25_12:47:35.89955 INFO:tensorflow:PreemptionCheckpointHandler: RECEIVED_SIGNAL_RUN_TO_CHECKPOINT_1 set, preemption awareness acknowledged
2026-11-25_12:47:35.90059 INFO:tensorflow:Sigterm acknowledgement from replica 0 received
2026-11-25_12:47:35.90131 INFO:tensorflow:Sigterm acknowledgement from replica 1 received
2026-11-25_12:47:35.90191 INFO:tensorflow:Sigterm acknowledgement from replica 2 received
