2026-11-25T12:46:46.88091 2026-11-25 12:46:46,880 - INFO - MultiWorkerMirroredStrategy: worker 2 of 3 replicas in sync
2026-11-25T12:46:47.06824 I0000 00:00:1795610807.068176   27045 generator_dataset_op.cc:213] Memory patch applied: M_TRIM_THRESHOLD=128 kb was set.
2026-11-25T12:46:47.07284 W0000 00:00:1795610807.072780   27045 dataset.cc:997] Input of GeneratorDatasetOp::Dataset will not be optimized because the dataset does not implement the AsGraphDefInternal() method needed to apply optimizations.
2026-11-25T12:46:47.17083 2026-11-25 12:46:47,170 - INFO - Collective all_reduce tensors: 2 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:46:47.18575 2026-11-25 12:46:47,181 - INFO - Collective all_reduce tensors: 1 all_reduces, num_devices = 1, group_size = 3, implementation = CommunicationImplementation.AUTO, num_packs = 1
2026-11-25T12:46:47.45569 2026-11-25 12:46:47,455 - INFO - step 1/60 loss 52.7001 (0.367 s)
2026-11-25T12:46:47.56614 2026-11-25 12:46:47,566 - INFO - step 2/60 loss 58.6609 (0.010 s)
2026-11-25T12:46:47.67815 2026-11-25 12:46:47,678 - INFO - step 3/60 loss 23.3343 (0.012 s)
2026-11-25T12:46:47.79259 2026-11-25 12:46:47,792 - INFO - step 4/60 loss 21.2365 (0.014 s)
2026-11-25T12:46:47.90495 2026-11-25 12:46:47,904 - INFO - step 5/60 loss 11.9479 (0.012 s)
2026-11-25T12:46:48.01710 2026-11-25 12:46:48,016 - INFO - step 6/60 loss 16.0345 (0.012 s)
2026-11-25T12:46:48.12969 2026-11-25 12:46:48,129 - INFO - step 7/60 loss 12.9141 (0.012 s)
2026-11-25T12:46:48.24233 2026-11-25 12:46:48,242 - INFO - step 8/60 loss 10.8206 (0.012 s)
2026-11-25T12:46:48.35734 2026-11-25 12:46:48,356 - INFO - step 9/60 loss 10.6945 (0.014 s)
2026-11-25T12:46:48.47120 2026-11-25 12:46:48,470 - INFO - step 10/60 loss 5.1843 (0.012 s)
2026-11-25T12:46:48.58548 2026-11-25 12:46:48,584 - INFO - step 11/60 loss 6.7593 (0.011 s)
2026-11-25T12:46:48.69948 2026-11-25 12:46:48,698 - INFO - step 12/60 loss 6.3736 (0.013 s)
2026-11-25T12:46:48.81536 2026-11-25 12:46:48,815 - INFO - step 13/60 loss 3.1740 (0.016 s)
2026-11-25T12:46:48.92905 2026-11-25 12:46:48,928 - INFO - step 14/60 loss 4.8259 (0.013 s)
2026-11-25T12:46:49.04130 2026-11-25 12:46:49,041 - INFO - step 15/60 loss 3.5726 (0.011 s)
2026-11-25T12:46:49.15523 2026-11-25 12:46:49,154 - INFO - step 16/60 loss 2.8224 (0.013 s)
2026-11-25T12:46:49.26994 2026-11-25 12:46:49,269 - INFO - step 17/60 loss 2.0806 (0.011 s)
2026-11-25T12:46:49.38385 2026-11-25 12:46:49,382 - INFO - step 18/60 loss 1.2254 (0.013 s)
2026-11-25T12:46:49.49803 2026-11-25 12:46:49,497 - INFO - step 19/60 loss 1.3053 (0.013 s)
2026-11-25T12:46:49.61197 2026-11-25 12:46:49,611 - INFO - step 20/60 loss 1.7721 (0.012 s)
2026-11-25T12:46:49.71690 E0000 00:00:1795610809.716776   27087 base_collective_executor.cc:252] BaseCollectiveExecutor::StartAbort UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:46057: Failed to connect to remote host: Connection refused
2026-11-25T12:46:49.71691 Additional GRPC error information from remote target /job:worker/replica:0/task:0 while calling /tensorflow.WorkerService/CompleteInstance:
