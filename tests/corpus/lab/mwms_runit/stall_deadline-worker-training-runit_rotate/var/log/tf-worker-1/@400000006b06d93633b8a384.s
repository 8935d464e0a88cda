2026-11-25T12:48:35.84565 I0000 00:00:1795610915.845606   29992 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25T12:48:35.86865 W0000 00:00:1795610915.863756   29992 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25T12:48:36.08438 INFO:tensorflow:Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:48:36.10528 INFO:tensorflow:Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:48:36.18635 INFO:tensorflow:step 1/60 loss 52.7001 (0.287 s)
2026-11-25T12:48:36.29733 INFO:tensorflow:step 2/60 loss 58.6609 (0.009 s)
2026-11-25T12:48:36.40851 INFO:tensorflow:step 3/60 loss 23.3343 (0.010 s)
2026-11-25T12:48:36.52659 INFO:tensorflow:step 4/60 loss 21.2365 (0.017 s)
2026-11-25T12:48:36.63879 INFO:tensorflow:step 5/60 loss 11.9479 (0.012 s)
2026-11-25T12:48:36.74967 INFO:tensorflow:step 6/60 loss 16.0345 (0.009 s)
2026-11-25T12:48:36.86472 INFO:tensorflow:step 7/60 loss 12.9141 (0.014 s)
2026-11-25T12:48:36.97874 INFO:tensorflow:step 8/60 loss 10.8206 (0.013 s)
2026-11-25T12:48:37.09265 INFO:tensorflow:step 9/60 loss 10.6945 (0.012 s)
2026-11-25T12:48:37.20695 INFO:tensorflow:step 10/60 loss 5.1843 (0.013 s)
2026-11-25T12:48:37.32420 INFO:tensorflow:step 11/60 loss 6.7593 (0.016 s)
2026-11-25T12:48:37.43862 INFO:tensorflow:step 12/60 loss 6.3736 (0.012 s)
2026-11-25T12:48:37.55294 INFO:tensorflow:step 13/60 loss 3.1740 (0.013 s)
2026-11-25T12:48:37.66706 INFO:tensorflow:step 14/60 loss 4.8259 (0.013 s)
2026-11-25T12:48:37.78108 INFO:tensorflow:step 15/60 loss 3.5726 (0.012 s)
2026-11-25T12:48:37.89572 INFO:tensorflow:step 16/60 loss 2.8224 (0.012 s)
2026-11-25T12:48:38.00977 INFO:tensorflow:step 17/60 loss 2.0806 (0.014 s)
2026-11-25T12:48:38.12410 INFO:tensorflow:step 18/60 loss 1.2254 (0.013 s)
2026-11-25T12:48:38.23730 INFO:tensorflow:step 19/60 loss 1.3053 (0.012 s)
2026-11-25T12:48:38.35529 INFO:tensorflow:step 20/60 loss 1.7721 (0.018 s)
2026-11-25T12:48:44.86409 W0000 00:00:1795610924.863807   30112 preemption_notifier.cc:90] SIGTERM caught at 2026-11-25T12:48:44.863754722+00:00
2026-11-25T12:48:44.86761 E0000 00:00:1795610924.867582   30037 base_collective_executor.cc:252] BaseCollectiveExecutor::StartAbort UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:54461: Failed to connect to remote host: Connection refused
2026-11-25T12:48:44.86762 Additional GRPC error information from remote target /job:worker/replica:0/task:0 while calling /tensorflow.WorkerService/CompleteInstance:
2026-11-25T12:48:44.86762 :UNKNOWN:Error received from peer  {grpc_status:14, grpc_message:"failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:54461: Failed to connect to remote host: Connection refused"}
2026-11-25T12:48:44.86773 W0000 00:00:1795610924.867713   30037 local_rendezvous.cc:412] Local rendezvous is aborting with status: UNAVAILABLE: Collective ops is aborted by: failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:54461: Failed to connect to remote host: Connection refused
