2026-11-25_12:53:07.74210 2026-11-25 12:53:07,726 - INFO - MultiWorkerMirroredStrategy: worker 2 of 3 replicas in sync
2026-11-25_12:53:07.80575 E0000 00:00:1795611187.801962    1952 base_collective_executor.cc:252] BaseCollectiveExecutor::StartAbort INTERNAL: Collective ops is aborted by: Device /job:worker/replica:0/task:1/device:CPU:0 is joining a group with size4, but that group has size 3 (group_key=1)
2026-11-25_12:53:07.80576 The error could be from a previous operation. Restart your program to reset.
2026-11-25_12:53:07.80576 Additional GRPC error information from remote target /job:worker/replica:0/task:0 while calling /tensorflow.WorkerService/CompleteGroup:
2026-11-25_12:53:07.80576 :UNKNOWN:Error received from peer  {grpc_message:"Collective ops is aborted by: Device /job:worker/replica:0/task:1/device:CPU:0 is joining a group with size4, but that group has size 3 (group_key=1)\nThe error could be from a previous operation. Restart your program to reset.", grpc_status:13} [type.googleapis.com/tensorflow.DerivedStatus='']
2026-11-25_12:53:07.80577 W0000 00:00:1795611187.802056    1910 local_rendezvous.cc:412] Local rendezvous is aborting with status: INTERNAL: Collective ops is aborted by: Collective ops is aborted by: Device /job:worker/replica:0/task:1/device:CPU:0 is joining a group with size4, but that group has size 3 (group_key=1)
2026-11-25_12:53:07.80577 The error could be from a previous operation. Restart your program to reset.
2026-11-25_12:53:07.80577 Additional GRPC error information from remote target /job:worker/replica:0/task:0 while calling /tensorflow.WorkerService/CompleteGroup:
2026-11-25_12:53:07.80578 :UNKNOWN:Error received from peer  {grpc_message:"Collective ops is aborted by: Device /job:worker/replica:0/task:1/device:CPU:0 is joining a group with size4, but that group has size 3 (group_key=1)\nThe error could be from a previous operation. Restart your program to reset.", grpc_status:13}
2026-11-25_12:53:07.80578 The error could be from a previous operation. Restart your program to reset. [type.googleapis.com/tensorflow.DerivedStatus='']
2026-11-25_12:53:07.80578 Traceback (most recent call last):
2026-11-25_12:53:07.80578   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 104, in <module>
2026-11-25_12:53:07.80578     main()
2026-11-25_12:53:07.80578   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 46, in main
2026-11-25_12:53:07.80578     w, b, train_step = _common.ctl_regressor(tf, strategy, 32)
2026-11-25_12:53:07.80578                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
2026-11-25_12:53:07.80579   File "/work/style25/analyzer/lab/tasks/_common.py", line 650, in ctl_regressor
2026-11-25_12:53:07.80579     w = tf.Variable(tf.random.normal([width, 1], seed=7), name="dense/kernel")
2026-11-25_12:53:07.80579         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
2026-11-25_12:53:07.80579   File "/work/main/.venv/lib/python3.11/site-packages/tensorflow/python/util/traceback_utils.py", line 167, in error_handler
2026-11-25_12:53:07.80579     raise e.with_traceback(filtered_tb) from None
