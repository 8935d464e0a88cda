"""TF1-style between-graph replication: tf.compat.v1.train.Server + MonitoredTrainingSession.

ps tasks serve variables; workers build a replica of the graph with
replica_device_setter and train; worker 0 is the chief.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common


def main() -> None:
    started = _common.v1_start("tf1_training.py")
    if started is None:
        return
    tf, log, args, cluster, server, index = started

    is_chief = index == 0
    with _common.v1_replica(tf, cluster, index):
        global_step = tf.compat.v1.train.get_or_create_global_step()
        dim = args.feature_dim
        if dim != 16:
            log.info("model input: %d features", dim)
        x = tf.random.normal([32, dim])
        y = tf.reduce_sum(x, axis=1, keepdims=True)
        if args.feed_dtype != "float32":
            log.info("input pipeline: features decoded as %s", args.feed_dtype)
            x = tf.cast(x * 100, args.feed_dtype)
        x = _common.v1_read_gate(tf, args, global_step, x)
        w = tf.compat.v1.get_variable("w", [dim, 1])
        b = tf.compat.v1.get_variable("b", [1], initializer=tf.compat.v1.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(
            loss, global_step=global_step
        )

    big = _common.v1_big_tensor(tf, args, index)

    hooks = [tf.compat.v1.train.StopAtStepHook(last_step=args.steps)]
    config, run_options = _common.v1_timeouts(tf, args.op_timeout_ms)
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
            _common.v1_maybe_oom(sess, big, log, args, n)
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
