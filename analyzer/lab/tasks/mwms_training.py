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


def main(argv: list[str] | None = None, script: str = "mwms_training.py") -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--step-sleep", type=float, default=0.1)
    p.add_argument("--feed-dtype", default="float32")
    p.add_argument("--collective-timeout", type=float, default=0.0)
    p.add_argument("--save-h5", default="")
    p.add_argument("--feature-dim", type=int, default=32)
    p.add_argument("--preemption-checkpoint-dir", default="")
    _common.add_fault_args(p)
    args = p.parse_args(argv)

    log = _common.banner(script)
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

    w, b, train_step = _common.ctl_regressor(tf, strategy, 32)

    feed_dtype = tf.as_dtype(args.feed_dtype)
    if args.feature_dim != 32:
        log.info("input pipeline: %d features per example", args.feature_dim)
    x = tf.random.stateless_normal([512, args.feature_dim], seed=[index, 3])
    y = tf.reduce_sum(x, axis=1, keepdims=True)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(32)
    ds = _common.storage_reads(tf, ds, args, strategy.num_replicas_in_sync)
    if feed_dtype != tf.float32:
        log.info("input pipeline: features decoded as %s", feed_dtype.name)
        ds = ds.map(lambda a, c: (tf.cast(a * 100, feed_dtype), c))
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    if args.slow_sleep or args.block_at_step:  # no read-ahead past the storage hook
        options.autotune.enabled = False
        options.experimental_optimization.inject_prefetch = False
    ds = ds.with_options(options)
    it = iter(strategy.experimental_distribute_dataset(ds))

    run = train_step
    if args.preemption_checkpoint_dir:
        checkpoint = tf.train.Checkpoint(w=w, b=b)
        handler = tf.distribute.experimental.PreemptionCheckpointHandler(
            strategy.cluster_resolver, checkpoint, args.preemption_checkpoint_dir
        )
        run = lambda iterator: handler.run(train_step, iterator)  # noqa: E731
    if args.memory_limit_mb:
        _common.limit_memory(log, args.memory_limit_mb)

    _common.ctl_train(tf, log, args, run, it)
    if args.ckpt_dir and args.ckpt_rounds:
        _common.ctl_checkpoints(tf, log, args, w, b, index, job, lambda: train_step(it))
    if args.save_h5:
        _save_h5(tf, log, args.save_h5, w, b, index)


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
    time.sleep(0.2)
    with h5py.File(path, "r") as f:  # read back, as a restore would
        kernels = [f[f"dense/kernel_{i}"][()] for i in range(20)]
        writer = int(f.attrs["writer"])
    log.info("weights read back from %s: %d kernels, writer %d", path, len(kernels), writer)
    if writer != index:
        raise ValueError(f"{path} holds the weights of writer {writer}, not of task {index}")


if __name__ == "__main__":
    main()
