"""TF1 in-graph replication: one client builds the whole graph; the cluster only serves.

The ps and worker tasks run nothing but ``tf.compat.v1.train.Server(...)`` and
``server.join()``.  The client is its own task (``client:0`` of the cluster, with a server
of its own that is the session's master, as in TensorFlow's "in-graph replication"): in
graph mode it builds one tower per worker, each under ``replica_device_setter`` with
``/job:worker/task:i`` as its device (the tower's ``tf.data`` input and forward/backward
pass run on that worker, the variables live on ``/job:ps``), averages the towers'
gradients on its own device, applies them on the ps, and drives every step through
``tf.compat.v1.Session(server.target)``.  Only the client prints steps, checkpoints and
errors; the servers print their start-up and then little.

Role and cluster come from TF_CONFIG (the client builds a tower for every worker its
cluster spec lists).  Fault knobs of the client: another dtype or feature width in the
last tower's input, an operation timeout.  With ``--fault-task worker:I`` (the lab passes
a worker's own knobs on to the client, which builds that worker's part of the graph): an
oversized tensor on that worker at ``--oom-at-step`` (the worker runs under the memory
limit), or that worker's input queue running dry at ``--block-at-step`` (its reader stuck).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common


def tower_args(args, i: int, towers: int, fault_index: int | None):
    """The knobs of tower ``i``: the data knobs hit the last tower, the task knobs theirs."""
    last = i == towers - 1
    return argparse.Namespace(
        feature_dim=args.feature_dim if last else 16,
        feed_dtype=args.feed_dtype if last else "float32",
        slow_sleep=0.0,
        block_at_step=0,
        oom_at_step=args.oom_at_step if i == fault_index else 0,
        oom_mb=args.oom_mb,
    )


def starving_queue(tf, x, steps: int):
    """``x`` gated by a dequeue from a FIFOQueue on the tower's worker that holds ``steps``
    tokens and is never refilled: the reader behind it is stuck."""
    q = tf.queue.FIFOQueue(steps + 1, [tf.int64], shapes=[[]], name="input_tokens")
    fill = q.enqueue_many([tf.range(steps, dtype=tf.int64)])
    with tf.control_dependencies([q.dequeue()]):
        return tf.identity(x), fill


def main() -> None:
    started = _common.v1_start(
        "tf1_ingraph.py",
        ("--fault-task", {"default": ""}),
        serving=("ps", "worker"),
    )
    if started is None:
        return
    tf, log, args, cluster, server, index = started

    towers = cluster.num_tasks("worker")
    fault_index = int(args.fault_task.split(":")[1]) if args.fault_task else None
    log.info(
        "in-graph replication: %d towers on /job:worker/task:0..%d, variables on %d ps task(s)",
        towers,
        towers - 1,
        cluster.num_tasks("ps"),
    )
    with tf.compat.v1.device("/job:ps/task:0"):
        global_step = tf.compat.v1.train.get_or_create_global_step()
    opt = tf.compat.v1.train.AdagradOptimizer(0.05)
    tower_grads, losses, fills, big = [], [], [], None
    for i in range(towers):
        targs = tower_args(args, i, towers, fault_index)
        with (
            _common.v1_replica(tf, cluster, i),
            tf.compat.v1.name_scope(f"tower_{i}"),
            tf.compat.v1.variable_scope("model", reuse=tf.compat.v1.AUTO_REUSE),
        ):
            loss = _common.v1_regressor(tf, log, targs, global_step, i)
            if args.block_at_step and i == fault_index:
                loss, fill = starving_queue(tf, loss, args.block_at_step)
                fills.append(fill)
            tower_grads.append(opt.compute_gradients(loss))
            losses.append(loss)
        big = _common.v1_big_tensor(tf, targs, i) if targs.oom_at_step else big
        log.info("tower %d built on /job:worker/task:%d", i, i)
    with tf.compat.v1.device(f"/job:client/task:{index}"):
        averaged = [
            (tf.add_n([g for g, _ in gv]) / float(towers), gv[0][1])
            for gv in zip(*tower_grads, strict=True)
        ]
        mean_loss = tf.add_n(losses) / float(towers)
    train_op = opt.apply_gradients(averaged, global_step=global_step)
    saver = tf.compat.v1.train.Saver(max_to_keep=3)
    init_op = tf.compat.v1.global_variables_initializer()
    config, run_options = _common.v1_timeouts(tf, args.op_timeout_ms)

    log.info("client: creating session on %s", server.target)
    with tf.compat.v1.Session(server.target, config=config) as sess:
        sess.run(init_op)
        for fill in fills:
            sess.run(fill)
        log.info("client: variables initialized, training %d steps", args.steps)
        ckpt = os.path.join(args.ckpt_dir, "model.ckpt") if args.ckpt_dir else ""
        for step in range(1, args.steps + 1):
            _common.v1_maybe_oom(sess, big, log, args, step)
            t0 = time.monotonic()
            _, value = sess.run([train_op, mean_loss], options=run_options)
            log.info(
                "step %d/%d loss %.4f (%.3f s)", step, args.steps, value, time.monotonic() - t0
            )
            if ckpt and args.save_checkpoint_steps and step % args.save_checkpoint_steps == 0:
                log.info("client: saving checkpoint for step %d into %s", step, args.ckpt_dir)
                path = saver.save(sess, ckpt, global_step=step)
                log.info("client: checkpoint written: %s", path)
            time.sleep(args.step_sleep)
    log.info("training finished after %d steps (%d towers)", args.steps, towers)


if __name__ == "__main__":
    main()
