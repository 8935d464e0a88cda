2026-11-25_12:49:29.36494 2026-11-25 12:49:29,364 - INFO - step 1/60 loss 52.7001 (0.328 s)
2026-11-25_12:49:29.47321 2026-11-25 12:49:29,473 - INFO - step 2/60 loss 58.6609 (0.008 s)
2026-11-25_12:49:29.58139 2026-11-25 12:49:29,581 - INFO - step 3/60 loss 23.3343 (0.008 s)
2026-11-25_12:49:29.68924 2026-11-25 12:49:29,689 - INFO - step 4/60 loss 21.2365 (0.008 s)
2026-11-25_12:49:29.79652 2026-11-25 12:49:29,796 - INFO - step 5/60 loss 11.9479 (0.007 s)
2026-11-25_12:49:29.90463 2026-11-25 12:49:29,903 - INFO - step 6/60 loss 16.0345 (0.007 s)
2026-11-25_12:49:30.01132 2026-11-25 12:49:30,011 - INFO - step 7/60 loss 12.9141 (0.007 s)
2026-11-25_12:49:30.11918 2026-11-25 12:49:30,118 - INFO - step 8/60 loss 10.8206 (0.007 s)
2026-11-25_12:49:30.22661 2026-11-25 12:49:30,226 - INFO - step 9/60 loss 10.6945 (0.007 s)
2026-11-25_12:49:30.33438 2026-11-25 12:49:30,334 - INFO - step 10/60 loss 5.1843 (0.008 s)
2026-11-25_12:49:30.44227 2026-11-25 12:49:30,442 - INFO - step 11/60 loss 6.7593 (0.008 s)
2026-11-25_12:49:30.54976 2026-11-25 12:49:30,549 - INFO - step 12/60 loss 6.3736 (0.007 s)
2026-11-25_12:49:30.66467 2026-11-25 12:49:30,664 - INFO - step 13/60 loss 3.1740 (0.015 s)
2026-11-25_12:49:30.77201 2026-11-25 12:49:30,771 - INFO - step 14/60 loss 4.8259 (0.007 s)
2026-11-25_12:49:30.87964 2026-11-25 12:49:30,879 - INFO - step 15/60 loss 3.5726 (0.007 s)
2026-11-25_12:49:30.98651 2026-11-25 12:49:30,986 - INFO - step 16/60 loss 2.8224 (0.007 s)
2026-11-25_12:49:31.09352 2026-11-25 12:49:31,093 - INFO - step 17/60 loss 2.0806 (0.007 s)
2026-11-25_12:49:31.20131 2026-11-25 12:49:31,201 - INFO - step 18/60 loss 1.2254 (0.008 s)
2026-11-25_12:49:31.30948 2026-11-25 12:49:31,309 - INFO - step 19/60 loss 1.3053 (0.008 s)
2026-11-25_12:49:31.41711 2026-11-25 12:49:31,416 - INFO - step 20/60 loss 1.7721 (0.007 s)
2026-11-25_12:49:31.52141 2026-11-25 12:49:31.521328: E tensorflow/core/common_runtime/ring_alg.cc:291] Aborting RingReduce with UNAVAILABLE: failed to connect to all addresses
2026-11-25_12:49:31.52143 Additional GRPC error information from remote target /job:worker/replica:0/task:1 while calling /tensorflow.WorkerService/RecvBuf:
2026-11-25_12:49:31.52143 :{"created":"@1795610971.521281374","description":"Failed to pick subchannel","file":"external/com_github_grpc_grpc/src/core/ext/filters/client_channel/client_channel.cc","file_line":3941,"referenced_errors":[{"created":"@1795610971.521280372","description":"failed to connect to all addresses","file":"external/com_github_grpc_grpc/src/core/ext/filters/client_channel/lb_policy/pick_first/pick_first.cc","file_line":393,"grpc_status":14}]}
2026-11-25_12:49:31.52144 2026-11-25 12:49:31.521355: E tensorflow/core/common_runtime/base_collective_executor.cc:249] BaseCollectiveExecutor::StartAbort UNAVAILABLE: failed to connect to all addresses
2026-11-25_12:49:31.52144 Additional GRPC error information from remote target /job:worker/replica:0/task:1 while calling /tensorflow.WorkerService/RecvBuf:
2026-11-25_12:49:31.52144 :{"created":"@1795610971.521281374","description":"Failed to pick subchannel","file":"external/com_github_grpc_grpc/src/core/ext/filters/client_channel/client_channel.cc","file_line":3941,"referenced_errors":[{"created":"@1795610971.521280372","description":"failed to connect to all addresses","file":"external/com_github_grpc_grpc/src/core/ext/filters/client_channel/lb_policy/pick_first/pick_first.cc","file_line":393,"grpc_status":14}]}
