"""TF1-style between-graph replication: tf.compat.v1.train.Server + MonitoredTrainingSession.

ps tasks serve variables; workers build a replica of the graph with
replica_device_setter and train; worker 0 is the chief.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--step-sleep", type=float, default=0.05)
    args = p.parse_args()

    log = _common.banner("tf1_training.py")
    tf, log = _common.import_tf(log)
    tf.compat.v1.disable_eager_execution()
    job, index = _common.task_identity()
    cluster = tf.train.ClusterSpec(_common.tf_config()["cluster"])
    log.info("cluster: %s; this task: /job:%s/task:%d", cluster.as_dict(), job, index)
    server = tf.compat.v1.train.Server(cluster, job_name=job, task_index=index)
    log.info("server for /job:%s/task:%d listening at %s", job, index, server.target)

    if job == "ps":
        _common.watch_stop_file(log, "parameter server")
        server.join()
        return

    is_chief = index == 0
    with tf.compat.v1.device(
        tf.compat.v1.train.replica_device_setter(
            worker_device=f"/job:worker/task:{index}", cluster=cluster
        )
    ):
        global_step = tf.compat.v1.train.get_or_create_global_step()
        x = tf.random.normal([32, 16])
        y = tf.reduce_sum(x, axis=1, keepdims=True)
        w = tf.compat.v1.get_variable("w", [16, 1])
        b = tf.compat.v1.get_variable("b", [1], initializer=tf.compat.v1.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(
            loss, global_step=global_step
        )

    hooks = [tf.compat.v1.train.StopAtStepHook(last_step=args.steps)]
    log.info("worker %d creating MonitoredTrainingSession (is_chief=%s)", index, is_chief)
    with tf.compat.v1.train.MonitoredTrainingSession(
        master=server.target, is_chief=is_chief, hooks=hooks, log_step_count_steps=20
    ) as sess:
        log.info("worker %d session created", index)
        while not sess.should_stop():
            _, step, value = sess.run([train_op, global_step, loss])
            log.info("worker %d global_step %d loss %.4f", index, step, value)
            time.sleep(args.step_sleep)
    log.info("worker %d done", index)


if __name__ == "__main__":
    main()
