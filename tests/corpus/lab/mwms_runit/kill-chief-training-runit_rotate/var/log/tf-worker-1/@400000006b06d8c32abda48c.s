2026-11-25T12:46:47.13790 I0000 00:00:1795610807.137865   27044 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25T12:46:47.14646 W0000 00:00:1795610807.146419   27044 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25T12:46:47.34129 INFO:tensorflow:Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:46:47.38175 INFO:tensorflow:Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:46:47.45560 INFO:tensorflow:step 1/60 loss 52.7001 (0.285 s)
2026-11-25T12:46:47.56686 INFO:tensorflow:step 2/60 loss 58.6609 (0.010 s)
2026-11-25T12:46:47.67886 INFO:tensorflow:step 3/60 loss 23.3343 (0.010 s)
2026-11-25T12:46:47.79335 INFO:tensorflow:step 4/60 loss 21.2365 (0.014 s)
2026-11-25T12:46:47.90661 INFO:tensorflow:step 5/60 loss 11.9479 (0.012 s)
2026-11-25T12:46:48.01831 INFO:tensorflow:step 6/60 loss 16.0345 (0.010 s)
2026-11-25T12:46:48.13104 INFO:tensorflow:step 7/60 loss 12.9141 (0.011 s)
2026-11-25T12:46:48.24303 INFO:tensorflow:step 8/60 loss 10.8206 (0.010 s)
2026-11-25T12:46:48.35743 INFO:tensorflow:step 9/60 loss 10.6945 (0.014 s)
2026-11-25T12:46:48.47129 INFO:tensorflow:step 10/60 loss 5.1843 (0.011 s)
2026-11-25T12:46:48.58560 INFO:tensorflow:step 11/60 loss 6.7593 (0.013 s)
2026-11-25T12:46:48.69957 INFO:tensorflow:step 12/60 loss 6.3736 (0.011 s)
2026-11-25T12:46:48.81660 INFO:tensorflow:step 13/60 loss 3.1740 (0.014 s)
2026-11-25T12:46:48.92859 INFO:tensorflow:step 14/60 loss 4.8259 (0.012 s)
2026-11-25T12:46:49.04254 INFO:tensorflow:step 15/60 loss 3.5726 (0.014 s)
2026-11-25T12:46:49.15526 INFO:tensorflow:step 16/60 loss 2.8224 (0.011 s)
2026-11-25T12:46:49.27003 INFO:tensorflow:step 17/60 loss 2.0806 (0.013 s)
2026-11-25T12:46:49.38395 INFO:tensorflow:step 18/60 loss 1.2254 (0.011 s)
2026-11-25T12:46:49.49809 INFO:tensorflow:step 19/60 loss 1.3053 (0.012 s)
2026-11-25T12:46:49.61194 INFO:tensorflow:step 20/60 loss 1.7721 (0.014 s)
2026-11-25T12:46:49.71686 E0000 00:00:1795610809.716827   27114 base_collective_executor.cc:252] BaseCollectiveExecutor::StartAbort UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:46057: Failed to connect to remote host: Connection refused
2026-11-25T12:46:49.71688 Additional GRPC error information from remote target /job:worker/replica:0/task:0 while calling /tensorflow.WorkerService/CompleteInstance:
2026-11-25T12:46:49.71688 :UNKNOWN:Error received from peer  {grpc_status:14, grpc_message:"failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:46057: Failed to connect to remote host: Connection refused"}
2026-11-25T12:46:49.71706 W0000 00:00:1795610809.717049   27114 local_rendezvous.cc:412] Local rendezvous is aborting with status: UNAVAILABLE: Collective ops is aborted by: failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:46057: Failed to connect to remote host: Connection refused
