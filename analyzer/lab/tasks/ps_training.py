"""ParameterServerStrategy training: chief runs a ClusterCoordinator, ps/workers serve.

Usage: ps_training.py [--steps N] [--step-sleep S] [--feed-dtype float32|int64]
Role and cluster come from TF_CONFIG.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common


def coordinate(tf, log, args) -> None:
    strategy, coordinator = _common.ps_strategy(tf, log)

    with strategy.scope():
        w = tf.Variable(tf.random.normal([32, 1]), name="w")
        b = tf.Variable(tf.zeros([1]), name="b")
    opt_lr = 0.05

    def dataset_fn():
        if args.image_format == "webp":
            return _common.webp_dataset(tf)
        return _common.synthetic_data(tf, args.feature_dim, [1, 2], args.feed_dtype)

    per_worker_ds = coordinator.create_per_worker_dataset(dataset_fn)
    it = iter(per_worker_ds)

    @tf.function
    def train_step(iterator):
        def step_fn(batch):
            x, y = batch
            with tf.GradientTape() as tape:
                pred = tf.matmul(x, w) + b
                loss = tf.reduce_mean(tf.square(pred - y))
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(opt_lr * gw)
            b.assign_sub(opt_lr * gb)
            return loss

        return strategy.run(step_fn, args=(next(iterator),))

    if args.memory_limit_mb:
        _common.limit_memory(log, args.memory_limit_mb)
    t0 = time.monotonic()
    for step in range(1, args.steps + 1):
        if args.oom_at_step and step == args.oom_at_step:
            _common.big_allocation(tf, log, step, args.oom_mb)
        result = coordinator.schedule(train_step, args=(it,))
        if step % args.report_every == 0:
            coordinator.join()
            log.info(
                "step %d loss %.4f (%.3f s)", step, float(result.fetch()), time.monotonic() - t0
            )
            t0 = time.monotonic()
        time.sleep(args.step_sleep)
    coordinator.join()
    log.info("training finished after %d steps", args.steps)
    if args.ckpt_dir and args.ckpt_rounds:
        checkpoint = tf.train.Checkpoint(w=w, b=b)

        @tf.function
        def eval_step(iterator):
            def step_fn(batch):
                x, y = batch
                return tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))

            return strategy.run(step_fn, args=(next(iterator),))

        for r in range(1, args.ckpt_rounds + 1):
            log.info("saving checkpoint %s/ckpt-%d", args.ckpt_dir, r)
            path = checkpoint.save(os.path.join(args.ckpt_dir, "ckpt"))
            results = [coordinator.schedule(eval_step, args=(it,)) for _ in range(4)]
            coordinator.join()
            loss = sum(float(x.fetch()) for x in results) / len(results)
            log.info("checkpoint %s written; evaluation loss %.4f", path, loss)
            time.sleep(args.step_sleep)
        log.info("all checkpoints written")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--step-sleep", type=float, default=0.05)
    p.add_argument("--report-every", type=int, default=2)
    p.add_argument("--feed-dtype", default="float32")
    p.add_argument("--image-format", default="raw", choices=["raw", "webp"])
    p.add_argument("--feature-dim", type=int, default=32)
    _common.add_fault_args(p)
    args = p.parse_args()
    log = _common.banner("ps_training.py")
    tf, log = _common.import_tf(log)
    job, _ = _common.task_identity()
    if not _common.serve_if_server(tf, log, args, job):
        coordinate(tf, log, args)


if __name__ == "__main__":
    main()
