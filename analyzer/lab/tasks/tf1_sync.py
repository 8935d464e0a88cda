"""TF1 synchronous between-graph replication: SyncReplicasOptimizer + MonitoredTrainingSession.

ps tasks serve variables and the gradient accumulators; every worker builds a replica of
the graph (replica_device_setter) fed by a ``tf.data`` pipeline, and wraps its optimizer in
``tf.compat.v1.train.SyncReplicasOptimizer`` with ``replicas_to_aggregate`` = the number of
workers: a global step is applied only once every worker's gradients arrived, so every
worker waits for the slowest.  Worker 0 is the chief: it runs the optimizer's chief queue
runner and its token queue (``make_session_run_hook(is_chief)``) and writes checkpoints.

Role and cluster come from TF_CONFIG.  Fault knobs (per task): another dtype or feature
width in the input, a blocked or slow storage read, an oversized tensor under a memory
limit, an operation timeout.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

HIDDEN = 8


def build(tf, log, args, cluster, index: int, workers: int):
    """The replica's graph: input pipeline, 2-layer regressor, synchronous optimizer."""
    with _common.v1_replica(tf, cluster, index):
        global_step = tf.compat.v1.train.get_or_create_global_step()
        loss = _common.v1_regressor(tf, log, args, global_step, index, HIDDEN)
        opt = tf.compat.v1.train.SyncReplicasOptimizer(
            tf.compat.v1.train.GradientDescentOptimizer(0.01),
            replicas_to_aggregate=workers,
            total_num_replicas=workers,
        )
        train_op = opt.minimize(loss, global_step=global_step)
    log.info(
        "SyncReplicasOptimizer: worker %d aggregates %d of %d replicas per global step",
        index,
        workers,
        workers,
    )
    return global_step, loss, train_op, opt


def main() -> None:
    started = _common.v1_start("tf1_sync.py", ("--stop-grace-secs", {"type": int, "default": 10}))
    if started is None:
        return
    tf, log, args, cluster, server, index = started

    workers = cluster.num_tasks("worker")
    is_chief = index == 0
    global_step, loss, train_op, opt = build(tf, log, args, cluster, index, workers)
    big = _common.v1_big_tensor(tf, args, index)
    config, run_options = _common.v1_timeouts(tf, args.op_timeout_ms)
    hooks = [
        opt.make_session_run_hook(is_chief, num_tokens=0),
        tf.compat.v1.train.StopAtStepHook(last_step=args.steps),
    ]
    extra = {}
    if args.ckpt_dir and is_chief:
        extra = {
            "checkpoint_dir": args.ckpt_dir,
            "save_checkpoint_steps": args.save_checkpoint_steps or None,
            "save_checkpoint_secs": None,
        }
    log.info(
        "worker %d: MonitoredTrainingSession, is_chief=%s, master %s",
        index,
        is_chief,
        server.target,
    )
    n = 0
    with tf.compat.v1.train.MonitoredTrainingSession(
        master=server.target,
        is_chief=is_chief,
        hooks=hooks,
        config=config,
        log_step_count_steps=0,
        stop_grace_period_secs=args.stop_grace_secs,
        save_summaries_steps=None,
        save_summaries_secs=None,
        **extra,
    ) as sess:
        log.info("worker %d: session ready, training to global step %d", index, args.steps)
        while not sess.should_stop():
            n += 1
            _common.v1_maybe_oom(sess, big, log, args, n)
            t0 = time.monotonic()
            _, step, value = sess.run([train_op, global_step, loss], options=run_options)
            log.info(
                "worker %d local step %d global step %d/%d loss %.4f (%.3f s)",
                index,
                n,
                step,
                args.steps,
                value,
                time.monotonic() - t0,
            )
            time.sleep(args.step_sleep)
    log.info("training finished after %d local steps (worker %d)", n, index)


if __name__ == "__main__":
    main()
