2026-11-25_12:49:31.52218 2026-11-25 12:49:31.521615: W tensorflow/core/framework/local_rendezvous.cc:404] Local rendezvous is aborting with status: UNAVAILABLE: Collective ops is aborted by: failed to connect to all addresses
2026-11-25_12:49:31.52219 Additional GRPC error information from remote target /job:worker/replica:0/task:1 while calling /tensorflow.WorkerService/RecvBuf:
2026-11-25_12:49:31.52219 :{"created":"@1795610971.521281374","description":"Failed to pick subchannel","file":"external/com_github_grpc_grpc/src/core/ext/filters/client_channel/client_channel.cc","file_line":3941,"referenced_errors":[{"created":"@1795610971.521280372","description":"failed to connect to all addresses","file":"external/com_github_grpc_grpc/src/core/ext/filters/client_channel/lb_policy/pick_first/pick_first.cc","file_line":393,"grpc_status":14}]}
2026-11-25_12:49:31.52219 The error could be from a previous operation. Restart your program to reset.
2026-11-25_12:49:31.52220 	 [[{{node CollectiveReduceV2}}]] [type.googleapis.com/tensorflow.DerivedStatus='']
2026-11-25_12:49:31.52388 Traceback (most recent call last):
2026-11-25_12:49:31.52388   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 104, in <module>
2026-11-25_12:49:31.52402     main()
2026-11-25_12:49:31.52407   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 76, in main
2026-11-25_12:49:31.52412     _common.ctl_train(tf, log, args, run, it)
2026-11-25_12:49:31.52415   File "/work/style25/analyzer/lab/tasks/_common.py", line 724, in ctl_train
2026-11-25_12:49:31.52426     loss = run(it)
2026-11-25_12:49:31.52428            ^^^^^^^
2026-11-25_12:49:31.52429   File "/tmp/tf-old/lib/python3.11/site-packages/tensorflow/python/util/traceback_utils.py", line 153, in error_handler
2026-11-25_12:49:31.52722     raise e.with_traceback(filtered_tb) from None
2026-11-25_12:49:31.52725   File "/tmp/tf-old/lib/python3.11/site-packages/tensorflow/python/eager/execute.py", line 53, in quick_execute
2026-11-25_12:49:31.54178     tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
2026-11-25_12:49:31.54179   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
2026-11-25_12:49:31.54179 tensorflow.python.framework.errors_impl.UnavailableError: Graph execution error:
2026-11-25_12:49:31.54180 
2026-11-25_12:49:31.54180 Detected at node CollectiveReduceV2 defined at (most recent call last):
2026-11-25_12:49:31.54180   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 104, in <module>
2026-11-25_12:49:31.54182 
2026-11-25_12:49:31.54182   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 76, in main
2026-11-25_12:49:31.54182 
2026-11-25_12:49:31.54182   File "/work/style25/analyzer/lab/tasks/_common.py", line 724, in ctl_train
2026-11-25_12:49:31.54182 
2026-11-25_12:49:31.54182   File "/work/style25/analyzer/lab/tasks/_common.py", line 667, in train_step
2026-11-25_12:49:31.54183 
2026-11-25_12:49:31.54183 Collective ops is aborted by: failed to connect to all addresses
2026-11-25_12:49:31.54183 Additional GRPC error information from remote target /job:worker/replica:0/task:1 while calling /tensorflow.WorkerService/RecvBuf:
