"""MultiWorkerMirroredStrategy custom training loop on synthetic data.

Role and cluster come from TF_CONFIG.  Options let the lab make one worker
misbehave (feed another dtype, allocate an oversized tensor) and set short
collective timeouts.
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
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--step-sleep", type=float, default=0.1)
    p.add_argument("--feed-dtype", default="float32")
    p.add_argument("--collective-timeout", type=float, default=0.0)
    p.add_argument("--oom-at-step", type=int, default=0)
    p.add_argument("--oom-mb", type=int, default=8192)
    p.add_argument("--save-h5", default="")
    p.add_argument("--memory-limit-mb", type=int, default=0)
    p.add_argument("--preemption-checkpoint-dir", default="")
    args = p.parse_args()

    log = _common.banner("mwms_training.py")
    tf, log = _common.import_tf(log)
    job, index = _common.task_identity()

    comm = tf.distribute.experimental.CommunicationOptions(
        timeout_seconds=args.collective_timeout or None
    )
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=comm)
    log.info(
        "MultiWorkerMirroredStrategy: %s %d of %d replicas in sync",
        job,
        index,
        strategy.num_replicas_in_sync,
    )

    with strategy.scope():
        w = tf.Variable(tf.random.normal([32, 1], seed=7), name="dense/kernel")
        b = tf.Variable(tf.zeros([1]), name="dense/bias")

    feed_dtype = tf.as_dtype(args.feed_dtype)
    x = tf.random.stateless_normal([512, 32], seed=[index, 3])
    y = tf.reduce_sum(x, axis=1, keepdims=True)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(32)
    if feed_dtype != tf.float32:
        log.info("input pipeline: features decoded as %s", feed_dtype.name)
        ds = ds.map(lambda a, c: (tf.cast(a * 100, feed_dtype), c))
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    ds = ds.with_options(options)
    it = iter(strategy.experimental_distribute_dataset(ds))

    @tf.function
    def train_step(iterator):
        def step_fn(batch):
            xb, yb = batch
            with tf.GradientTape() as tape:
                pred = tf.matmul(xb, w) + b
                loss = tf.reduce_mean(tf.square(pred - yb))
            gw, gb = tape.gradient(loss, [w, b])
            ctx = tf.distribute.get_replica_context()
            gw, gb = ctx.all_reduce(tf.distribute.ReduceOp.MEAN, [gw, gb])
            w.assign_sub(0.05 * gw)
            b.assign_sub(0.05 * gb)
            return loss

        loss = strategy.run(step_fn, args=(next(iterator),))
        return strategy.reduce(tf.distribute.ReduceOp.MEAN, loss, axis=None)

    run = train_step
    if args.preemption_checkpoint_dir:
        checkpoint = tf.train.Checkpoint(w=w, b=b)
        handler = tf.distribute.experimental.PreemptionCheckpointHandler(
            strategy.cluster_resolver, checkpoint, args.preemption_checkpoint_dir
        )
        run = lambda iterator: handler.run(train_step, iterator)  # noqa: E731
    if args.memory_limit_mb:
        _limit_memory(log, args.memory_limit_mb)

    for step in range(1, args.steps + 1):
        if args.oom_at_step and step == args.oom_at_step:
            log.info("step %d: building embedding table of %d MB", step, args.oom_mb)
            n = args.oom_mb * 1024 * 1024 // 4
            table = tf.random.uniform([n], dtype=tf.float32)
            log.info("embedding table checksum %s", float(tf.reduce_sum(table[:10])))
        loss = run(it)
        log.info("step %d/%d loss %.4f", step, args.steps, float(loss))
        time.sleep(args.step_sleep)
    log.info("training finished after %d steps", args.steps)
    if args.save_h5:
        _save_h5(tf, log, args.save_h5, w, b, index)


def _limit_memory(log, extra_mb: int) -> None:
    """Cap the address space like a container memory limit would."""
    import resource

    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) for line in f if line.startswith("VmSize:"))
    limit = vm * 1024 + extra_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    log.info(
        "memory limit: address space capped at %d MB (%d MB above current)",
        limit // (1024 * 1024),
        extra_mb,
    )


def _save_h5(tf, log, path, w, b, index) -> None:
    import h5py

    log.info("saving weights to %s", path)
    with h5py.File(path, "w") as f:  # what Keras' save_weights(".h5") does
        for i in range(20):
            f.create_dataset(f"dense/kernel_{i}", data=w.numpy())
            f.flush()
            time.sleep(0.05)
        f.attrs["writer"] = index
    log.info("weights saved to %s", path)


if __name__ == "__main__":
    main()
