2026-11-25_12:53:07.68201 INFO:tensorflow:MultiWorkerMirroredStrategy: worker 1 of 4 replicas in sync
2026-11-25_12:53:07.70598 E0000 00:00:1795611187.705913    2151 base_collective_executor.cc:252] BaseCollectiveExecutor::StartAbort INTERNAL: Device /job:worker/replica:0/task:1/device:CPU:0 is joining a group with size4, but that group has size 3 (group_key=1)
2026-11-25_12:53:07.70599 Additional GRPC error information from remote target /job:worker/replica:0/task:0 while calling /tensorflow.WorkerService/CompleteGroup:
2026-11-25_12:53:07.70599 :UNKNOWN:Error received from peer  {grpc_message:"Device /job:worker/replica:0/task:1/device:CPU:0 is joining a group with size4, but that group has size 3 (group_key=1)", grpc_status:13}
2026-11-25_12:53:07.70603 W0000 00:00:1795611187.706012    1909 local_rendezvous.cc:412] Local rendezvous is aborting with status: INTERNAL: Collective ops is aborted by: Device /job:worker/replica:0/task:1/device:CPU:0 is joining a group with size4, but that group has size 3 (group_key=1)
2026-11-25_12:53:07.70604 Additional GRPC error information from remote target /job:worker/replica:0/task:0 while calling /tensorflow.WorkerService/CompleteGroup:
2026-11-25_12:53:07.70604 :UNKNOWN:Error received from peer  {grpc_message:"Device /job:worker/replica:0/task:1/device:CPU:0 is joining a group with size4, but that group has size 3 (group_key=1)", grpc_status:13}
2026-11-25_12:53:07.70604 The error could be from a previous operation. Restart your program to reset. [type.googleapis.com/tensorflow.DerivedStatus='']
2026-11-25_12:53:07.70643 Traceback (most recent call last):
2026-11-25_12:53:07.70643   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 104, in <module>
2026-11-25_12:53:07.70652     main()
2026-11-25_12:53:07.70655   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 46, in main
2026-11-25_12:53:07.70659     w, b, train_step = _common.ctl_regressor(tf, strategy, 32)
2026-11-25_12:53:07.70662                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
2026-11-25_12:53:07.70667   File "/work/style25/analyzer/lab/tasks/_common.py", line 650, in ctl_regressor
2026-11-25_12:53:07.70679     w = tf.Variable(tf.random.normal([width, 1], seed=7), name="dense/kernel")
2026-11-25_12:53:07.70682         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
2026-11-25_12:53:07.70688   File "/work/main/.venv/lib/python3.11/site-packages/tensorflow/python/util/traceback_utils.py", line 167, in error_handler
2026-11-25_12:53:07.70695     raise e.with_traceback(filtered_tb) from None
2026-11-25_12:53:07.70697   File "/work/main/.venv/lib/python3.11/site-packages/tensorflow/python/eager/execute.py", line 53, in quick_execute
2026-11-25_12:53:07.70800     tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
2026-11-25_12:53:07.70800   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
2026-11-25_12:53:07.70807 tensorflow.python.framework.errors_impl.InternalError: {{function_node __wrapped__CollectiveBcastRecv_device_/job:worker/replica:0/task:1/device:CPU:0}} Collective ops is aborted by: Device /job:worker/replica:0/task:1/device:CPU:0 is joining a group with size4, but that group has size 3 (group_key=1)
