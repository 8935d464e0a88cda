"""TF1 asynchronous between-graph replication under the old ``tf.compat.v1.train.Supervisor``.

ps tasks serve the variables; every worker builds a replica of the graph with
``replica_device_setter`` and applies its own gradients (no aggregation: a worker never
waits for another).  Worker 0 is the chief: its Supervisor initializes the variables,
and the other workers' ``prepare_or_wait_for_session`` waits until the model is ready.
With a checkpoint folder the chief's Supervisor gets a ``logdir`` (its summary writer and
step-counter threads) and the chief saves a checkpoint every ``--save-checkpoint-steps``
global steps with the Supervisor's saver.

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


def main() -> None:
    started = _common.v1_start(
        "tf1_supervisor.py", ("--recovery-wait-secs", {"type": int, "default": 5})
    )
    if started is None:
        return
    tf, log, args, cluster, server, index = started

    is_chief = index == 0
    with _common.v1_replica(tf, cluster, index):
        global_step = tf.compat.v1.train.get_or_create_global_step()
        loss = _common.v1_regressor(tf, log, args, global_step, index)
        train_op = tf.compat.v1.train.AdagradOptimizer(0.05).minimize(loss, global_step=global_step)
        saver = tf.compat.v1.train.Saver(max_to_keep=3)
        init_op = tf.compat.v1.global_variables_initializer()
    big = _common.v1_big_tensor(tf, args, index)
    config, run_options = _common.v1_timeouts(tf, args.op_timeout_ms)

    logdir = args.ckpt_dir if (args.ckpt_dir and is_chief) else None
    sv = tf.compat.v1.train.Supervisor(
        is_chief=is_chief,
        logdir=logdir,
        init_op=init_op,
        saver=saver,
        global_step=global_step,
        summary_op=None,
        save_model_secs=0,
        recovery_wait_secs=args.recovery_wait_secs,
    )
    log.info(
        "worker %d: Supervisor(is_chief=%s, logdir=%s); prepare_or_wait_for_session on %s",
        index,
        is_chief,
        logdir,
        server.target,
    )
    sess = sv.prepare_or_wait_for_session(server.target, config=config)
    log.info("worker %d: session ready, training to global step %d", index, args.steps)
    n, step = 0, 0
    next_save = args.save_checkpoint_steps
    while not sv.should_stop() and step < args.steps:
        n += 1
        _common.v1_maybe_oom(sess, big, log, args, n)
        t0 = time.monotonic()
        _, step, value = sess.run([train_op, global_step, loss], options=run_options)
        log.info(
            "worker %d step %d (global step %d/%d) loss %.4f (%.3f s)",
            index,
            n,
            step,
            args.steps,
            value,
            time.monotonic() - t0,
        )
        if logdir and next_save and step >= next_save:
            log.info("worker %d: saving checkpoint at global step %d into %s", index, step, logdir)
            path = sv.saver.save(sess, sv.save_path, global_step=global_step)
            log.info("worker %d: checkpoint written: %s", index, path)
            next_save = step - step % args.save_checkpoint_steps + args.save_checkpoint_steps
        time.sleep(args.step_sleep)
    log.info("worker %d: stopping the Supervisor", index)
    sv.stop()
    log.info("training finished after %d local steps (worker %d, global step %d)", n, index, step)


if __name__ == "__main__":
    main()
