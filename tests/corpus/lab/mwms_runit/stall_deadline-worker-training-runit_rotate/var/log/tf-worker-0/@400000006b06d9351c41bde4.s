2026-11-25T12:48:36.97821 2026-11-25 12:48:36,978 - INFO - step 8/60 loss 10.8206 (0.013 s)
2026-11-25T12:48:37.09205 2026-11-25 12:48:37,091 - INFO - step 9/60 loss 10.6945 (0.013 s)
2026-11-25T12:48:37.20646 2026-11-25 12:48:37,206 - INFO - step 10/60 loss 5.1843 (0.014 s)
2026-11-25T12:48:37.32467 2026-11-25 12:48:37,324 - INFO - step 11/60 loss 6.7593 (0.018 s)
2026-11-25T12:48:37.43811 2026-11-25 12:48:37,438 - INFO - step 12/60 loss 6.3736 (0.013 s)
2026-11-25T12:48:37.55243 2026-11-25 12:48:37,552 - INFO - step 13/60 loss 3.1740 (0.014 s)
2026-11-25T12:48:37.66658 2026-11-25 12:48:37,666 - INFO - step 14/60 loss 4.8259 (0.013 s)
2026-11-25T12:48:37.78058 2026-11-25 12:48:37,780 - INFO - step 15/60 loss 3.5726 (0.013 s)
2026-11-25T12:48:37.89514 2026-11-25 12:48:37,895 - INFO - step 16/60 loss 2.8224 (0.014 s)
2026-11-25T12:48:38.00921 2026-11-25 12:48:38,009 - INFO - step 17/60 loss 2.0806 (0.012 s)
2026-11-25T12:48:38.12353 2026-11-25 12:48:38,123 - INFO - step 18/60 loss 1.2254 (0.014 s)
2026-11-25T12:48:38.23780 2026-11-25 12:48:38,237 - INFO - step 19/60 loss 1.3053 (0.013 s)
2026-11-25T12:48:38.35478 2026-11-25 12:48:38,354 - INFO - step 20/60 loss 1.7721 (0.016 s)
2026-11-25T12:48:43.45937 E0000 00:00:1795610923.459319   30688 base_collective_executor.cc:252] BaseCollectiveExecutor::StartAbort DEADLINE_EXCEEDED: Collective has timed out during execution.
2026-11-25T12:48:43.45944 E0000 00:00:1795610923.459432   30688 ring_alg.cc:291] Aborting RingReduce with DEADLINE_EXCEEDED: Collective ops is aborted by: Collective has timed out during execution.
2026-11-25T12:48:43.45944 The error could be from a previous operation. Restart your program to reset. [type.googleapis.com/tensorflow.DerivedStatus='']
2026-11-25T12:48:43.45970 W0000 00:00:1795610923.459663   30688 local_rendezvous.cc:412] Local rendezvous is aborting with status: DEADLINE_EXCEEDED: Collective has timed out during execution.
2026-11-25T12:48:43.45971 	 [[{{node CollectiveReduceV2}}]]
2026-11-25T12:48:43.46470 Traceback (most recent call last):
2026-11-25T12:48:43.46473   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 104, in <module>
2026-11-25T12:48:43.46486     main()
2026-11-25T12:48:43.46492   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 76, in main
2026-11-25T12:48:43.46503     _common.ctl_train(tf, log, args, run, it)
2026-11-25T12:48:43.46983   File "/work/style25/analyzer/lab/tasks/_common.py", line 724, in ctl_train
2026-11-25T12:48:43.46998     loss = run(it)
2026-11-25T12:48:43.47002            ^^^^^^^
2026-11-25T12:48:43.47406   File "/work/main/.venv/lib/python3.11/site-packages/tensorflow/python/util/traceback_utils.py", line 167, in error_handler
2026-11-25T12:48:43.47406     raise e.with_traceback(filtered_tb) from None
2026-11-25T12:48:43.47406   File "/work/main/.venv/lib/python3.11/site-packages/tensorflow/python/eager/execute.py", line 53, in quick_execute
2026-11-25T12:48:43.47406     tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
2026-11-25T12:48:43.47406   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
