2026-11-25_12:49:31.55384 The error could be from a previous operation. Restart your program to reset.
2026-11-25_12:49:31.55386 	 [[{{node CollectiveReduceV2}}]] [type.googleapis.com/tensorflow.DerivedStatus='']
2026-11-25_12:49:31.55386 Traceback (most recent call last):
2026-11-25_12:49:31.55386   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 104, in <module>
2026-11-25_12:49:31.55387     main()
2026-11-25_12:49:31.55388   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 76, in main
2026-11-25_12:49:31.55388     _common.ctl_train(tf, log, args, run, it)
2026-11-25_12:49:31.55388   File "/work/style25/analyzer/lab/tasks/_common.py", line 724, in ctl_train
2026-11-25_12:49:31.55388     loss = run(it)
2026-11-25_12:49:31.55388            ^^^^^^^
2026-11-25_12:49:31.55388   File "/tmp/tf-old/lib/python3.11/site-packages/tensorflow/python/util/traceback_utils.py", line 153, in error_handler
2026-11-25_12:49:31.55388     raise e.with_traceback(filtered_tb) from None
2026-11-25_12:49:31.55388   File "/tmp/tf-old/lib/python3.11/site-packages/tensorflow/python/eager/execute.py", line 53, in quick_execute
2026-11-25_12:49:31.55389     tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
2026-11-25_12:49:31.55389   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
2026-11-25_12:49:31.55389 tensorflow.python.framework.errors_impl.UnavailableError: Graph execution error:
2026-11-25_12:49:31.55389 
2026-11-25_12:49:31.55389 Detected at node CollectiveReduceV2 defined at (most recent call last):
2026-11-25_12:49:31.55389   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 104, in <module>
2026-11-25_12:49:31.55389 
2026-11-25_12:49:31.55389   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 76, in main
2026-11-25_12:49:31.55389 
2026-11-25_12:49:31.55389   File "/work/style25/analyzer/lab/tasks/_common.py", line 724, in ctl_train
2026-11-25_12:49:31.55390 
2026-11-25_12:49:31.55390   File "/work/style25/analyzer/lab/tasks/_common.py", line 667, in train_step
2026-11-25_12:49:31.55390 
2026-11-25_12:49:31.55390 Collective ops is aborted by: Collective ops is aborted by: failed to connect to all addresses
2026-11-25_12:49:31.55390 Additional GRPC error information from remote target /job:worker/replica:0/task:1 while calling /tensorflow.WorkerService/RecvBuf:
2026-11-25_12:49:31.55390 :{"created":"@1795610971.521281374","description":"Failed to pick subchannel","file":"external/com_github_grpc_grpc/src/core/ext/filters/client_channel/client_channel.cc","file_line":3941,"referenced_errors":[{"created":"@1795610971.521280372","description":"failed to connect to all addresses","file":"external/com_github_grpc_grpc/src/core/ext/filters/client_channel/lb_policy/pick_first/pick_first.cc","file_line":393,"grpc_status":14}]}
2026-11-25_12:49:31.55391 The error could be from a previous operation. Restart your program to reset.
2026-11-25_12:49:31.55391 Additional GRPC error information from remote target /job:worker/replica:0/task:2 while calling /tensorflow.WorkerService/RecvBuf:
