2026-11-25T12:46:49.71761 Additional GRPC error information from remote target /job:worker/replica:0/task:0 while calling /tensorflow.WorkerService/CompleteInstance:
2026-11-25T12:46:49.71763 :UNKNOWN:Error received from peer  {grpc_status:14, grpc_message:"failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:46057: Failed to connect to remote host: Connection refused"}
2026-11-25T12:46:49.71763 The error could be from a previous operation. Restart your program to reset.
2026-11-25T12:46:49.71763 	 [[{{node CollectiveReduceV2}}]] [type.googleapis.com/tensorflow.DerivedStatus='']
2026-11-25T12:46:49.72366 Traceback (most recent call last):
2026-11-25T12:46:49.72369   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 104, in <module>
2026-11-25T12:46:49.72380     main()
2026-11-25T12:46:49.72386   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 76, in main
2026-11-25T12:46:49.72390     _common.ctl_train(tf, log, args, run, it)
2026-11-25T12:46:49.72396   File "/work/style25/analyzer/lab/tasks/_common.py", line 724, in ctl_train
2026-11-25T12:46:49.72406     loss = run(it)
2026-11-25T12:46:49.72410            ^^^^^^^
2026-11-25T12:46:49.72426   File "/work/main/.venv/lib/python3.11/site-packages/tensorflow/python/util/traceback_utils.py", line 167, in error_handler
2026-11-25T12:46:49.72432     raise e.with_traceback(filtered_tb) from None
2026-11-25T12:46:49.72436   File "/work/main/.venv/lib/python3.11/site-packages/tensorflow/python/eager/execute.py", line 53, in quick_execute
2026-11-25T12:46:49.72441     tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
2026-11-25T12:46:49.72443   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
2026-11-25T12:46:49.72506 tensorflow.python.framework.errors_impl.UnavailableError: Graph execution error:
2026-11-25T12:46:49.72510 
2026-11-25T12:46:49.72510 Detected at node CollectiveReduceV2 defined at (most recent call last):
2026-11-25T12:46:49.72510   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 104, in <module>
2026-11-25T12:46:49.72510 
2026-11-25T12:46:49.72511   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 76, in main
2026-11-25T12:46:49.72511 
2026-11-25T12:46:49.72511   File "/work/style25/analyzer/lab/tasks/_common.py", line 724, in ctl_train
2026-11-25T12:46:49.72511 
2026-11-25T12:46:49.72511   File "/work/style25/analyzer/lab/tasks/_common.py", line 667, in train_step
2026-11-25T12:46:49.72511 
2026-11-25T12:46:49.72511 Collective ops is aborted by: failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:46057: Failed to connect to remote host: Connection refused
2026-11-25T12:46:49.72511 Additional GRPC error information from remote target /job:worker/replica:0/task:0 while calling /tensorflow.WorkerService/CompleteInstance:
2026-11-25T12:46:49.72511 :UNKNOWN:Error received from peer  {grpc_status:14, grpc_message:"failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:46057: Failed to connect to remote host: Connection refused"}
2026-11-25T12:46:49.72512 The error could be from a previous operation. Restart your program to reset.
