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
    p.add_argument("--feed-dtype", default="float32")
    p.add_argument("--feature-dim", type=int, default=16)
    p.add_argument("--op-timeout-ms", type=int, default=0)
    p.add_argument("--save-checkpoint-steps", type=int, default=0)
    _common.add_fault_args(p)
    args = p.parse_args()

    log = _common.banner("tf1_training.py")
    tf, log = _common.import_tf(log)
    tf.compat.v1.disable_eager_execution()
    job, index = _common.task_identity()
    cluster = tf.train.ClusterSpec(_common.tf_config()["cluster"])
    log.info("cluster: %s; this task: /job:%s/task:%d", cluster.as_dict(), job, index)
    server = tf.compat.v1.train.Server(cluster, job_name=job, task_index=index)
    log.info("server for /job:%s/task:%d listening at %s", job, index, server.target)
    if args.memory_limit_mb:
        _common.limit_memory(log, args.memory_limit_mb)

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
        dim = args.feature_dim
        if dim != 16:
            log.info("model input: %d features", dim)
        x = tf.random.normal([32, dim])
        y = tf.reduce_sum(x, axis=1, keepdims=True)
        if args.feed_dtype != "float32":
            log.info("input pipeline: features decoded as %s", args.feed_dtype)
            x = tf.cast(x * 100, args.feed_dtype)
        if args.slow_sleep or args.block_at_step:

            def read(step):
                if args.block_at_step and int(step) + 1 >= args.block_at_step:
                    _common.blocking_read(int(step))
                if args.slow_sleep:
                    _common.slow_read(args.slow_sleep)
                return step

            dep = tf.compat.v1.py_func(read, [global_step], tf.int64, stateful=True)
            with tf.control_dependencies([dep]):
                x = tf.identity(x)
        w = tf.compat.v1.get_variable("w", [dim, 1])
        b = tf.compat.v1.get_variable("b", [1], initializer=tf.compat.v1.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(
            loss, global_step=global_step
        )

    big = None
    if args.oom_at_step:
        with tf.compat.v1.device(f"/job:worker/task:{index}"):
            big = tf.reduce_sum(tf.random.uniform([args.oom_mb * 1024 * 1024 // 4]))

    hooks = [tf.compat.v1.train.StopAtStepHook(last_step=args.steps)]
    config = run_options = None
    if args.op_timeout_ms:
        config = tf.compat.v1.ConfigProto(operation_timeout_in_ms=args.op_timeout_ms)
        run_options = tf.compat.v1.RunOptions(timeout_in_ms=args.op_timeout_ms)
    extra = {}
    if args.ckpt_dir:
        extra = {
            "checkpoint_dir": args.ckpt_dir,
            "save_checkpoint_steps": args.save_checkpoint_steps or None,
            "save_checkpoint_secs": None,
        }
    log.info("worker %d creating MonitoredTrainingSession (is_chief=%s)", index, is_chief)
    with tf.compat.v1.train.MonitoredTrainingSession(
        master=server.target,
        is_chief=is_chief,
        hooks=hooks,
        log_step_count_steps=20,
        config=config,
        **extra,
    ) as sess:
        log.info("worker %d session created", index)
        n = 0
        while not sess.should_stop():
            n += 1
            if big is not None and n == args.oom_at_step:
                log.info("step %d: building embedding table of %d MB", n, args.oom_mb)
                log.info("embedding table checksum %s", sess.run(big))
            t0 = time.monotonic()
            _, step, value = sess.run([train_op, global_step, loss], options=run_options)
            log.info(
                "worker %d global_step %d loss %.4f (%.3f s)",
                index,
                step,
                value,
                time.monotonic() - t0,
            )
            time.sleep(args.step_sleep)
    log.info("worker %d done", index)


if __name__ == "__main__":
    main()
