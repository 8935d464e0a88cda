2026-11-25_12:53:07.62831 I0000 00:00:1795611187.625784    1943 coordination_service.cc:505] Example stragglers:
2026-11-25_12:53:07.62832 /job:worker/replica:0/task:0
2026-11-25_12:53:07.62874 I0000 00:00:1795611187.628492    1943 coordination_service.h:529] /job:worker/replica:0/task:0 has connected to coordination service. Incarnation: 15196473195850672994
2026-11-25_12:53:07.62875 I0000 00:00:1795611187.628503    1943 coordination_service.cc:502] Waiting for 0/3 tasks to connect.
2026-11-25_12:53:07.62902 I0000 00:00:1795611187.628879    1908 coordination_service_agent.cc:245] Coordination agent has successfully connected.
2026-11-25_12:53:07.63125 I0000 00:00:1795611187.629187    1942 coordination_service.cc:1472] Barrier(WaitForAllTasks::5116445200518912608::0) has passed with status: OK
2026-11-25_12:53:07.63774 2026-11-25 12:53:07,631 - INFO - Enabled multi-worker collective ops with available devices: ['/job:worker/replica:0/task:0/device:CPU:0', '/job:worker/replica:0/task:1/device:CPU:0', '/job:worker/replica:0/task:2/device:CPU:0']
2026-11-25_12:53:07.66064 2026-11-25 12:53:07,660 - INFO - Using MirroredStrategy with devices ('/job:worker/task:0/device:CPU:0',)
2026-11-25_12:53:07.66074 2026-11-25 12:53:07,660 - INFO - Check health not enabled.
2026-11-25_12:53:07.66080 2026-11-25 12:53:07,660 - INFO - MultiWorkerMirroredStrategy with cluster_spec = {'worker': ['127.0.0.1:44129', '127.0.0.1:52691', '127.0.0.1:43087']}, task_type = 'worker', task_id = 0, num_workers = 3, local_devices = ('/job:worker/task:0/device:CPU:0',), communication = CommunicationImplementation.AUTO
2026-11-25_12:53:07.66091 2026-11-25 12:53:07,660 - INFO - MultiWorkerMirroredStrategy: worker 0 of 3 replicas in sync
2026-11-25_12:53:07.70430 E0000 00:00:1795611187.704226    2095 worker.cc:436] Bad status from CompleteGroupDistributed: INTERNAL: Device /job:worker/replica:0/task:1/device:CPU:0 is joining a group with size4, but that group has size 3 (group_key=1)
2026-11-25_12:53:07.70447 E0000 00:00:1795611187.704462    2095 base_collective_executor.cc:252] BaseCollectiveExecutor::StartAbort INTERNAL: Device /job:worker/replica:0/task:1/device:CPU:0 is joining a group with size4, but that group has size 3 (group_key=1)
2026-11-25_12:53:07.70464 W0000 00:00:1795611187.704628    1908 local_rendezvous.cc:412] Local rendezvous is aborting with status: INTERNAL: Collective ops is aborted by: Device /job:worker/replica:0/task:1/device:CPU:0 is joining a group with size4, but that group has size 3 (group_key=1)
2026-11-25_12:53:07.70464 The error could be from a previous operation. Restart your program to reset. [type.googleapis.com/tensorflow.DerivedStatus='']
2026-11-25_12:53:07.70507 Traceback (most recent call last):
2026-11-25_12:53:07.70548   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 104, in <module>
2026-11-25_12:53:07.70560     main()
2026-11-25_12:53:07.70587   File "/work/style25/analyzer/lab/tasks/mwms_training.py", line 46, in main
2026-11-25_12:53:07.70712     w, b, train_step = _common.ctl_regressor(tf, strategy, 32)
2026-11-25_12:53:07.70718                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
