"""MultiWorkerMirroredStrategy with Keras ``model.fit`` on synthetic data.

Uses tf.keras from the ``tf_keras`` package (Keras 2, ``TF_USE_LEGACY_KERAS=1``): Keras 3's
``fit`` does not take MultiWorkerMirroredStrategy's distributed datasets.

Role and cluster come from TF_CONFIG (chief + workers).  The options are the
same fault knobs as ``mwms_training.py``: another dtype or feature width on one
worker, a slow or stuck input read, an oversized allocation under a memory
limit, checkpoints at the end, and HDF5 weights written by every task.
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
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--step-sleep", type=float, default=0.1)
    p.add_argument("--feed-dtype", default="float32")
    p.add_argument("--feature-dim", type=int, default=16)
    p.add_argument("--collective-timeout", type=float, default=0.0)
    p.add_argument("--save-h5", default="")
    _common.add_fault_args(p)
    args = p.parse_args()

    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    log = _common.banner("mwms_keras.py")
    tf, log = _common.import_tf(log)
    import tf_keras as keras

    log.info("Keras version: %s", keras.__version__)
    job, index = _common.task_identity()
    comm = tf.distribute.experimental.CommunicationOptions(
        timeout_seconds=args.collective_timeout or None
    )
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=comm)
    log.info(
        "MultiWorkerMirroredStrategy: %s %d, %d replicas in sync",
        job,
        index,
        strategy.num_replicas_in_sync,
    )
    steps_per_epoch = max(1, args.steps // args.epochs)
    replicas = strategy.num_replicas_in_sync

    def make_ds(input_context=None):
        x = tf.random.stateless_normal([256, args.feature_dim], seed=[index, 5])
        y = tf.reduce_sum(x, axis=1, keepdims=True)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(16)
        if args.feed_dtype != "float32":
            log.info("input pipeline: features decoded as %s", args.feed_dtype)
            ds = ds.map(lambda a, c: (tf.cast(a * 100, args.feed_dtype), c))
        ds = _common.storage_reads(tf, ds, args, replicas)
        return _common.no_read_ahead(tf, ds, args)

    if args.feature_dim != 16:
        log.info("model input: %d features", args.feature_dim)
    with strategy.scope():
        model = _common.keras_regressor(keras, args.feature_dim)

    if args.memory_limit_mb:
        _common.limit_memory(log, args.memory_limit_mb)

    model.fit(
        make_ds(),
        epochs=args.epochs,
        steps_per_epoch=steps_per_epoch,
        verbose=2,
        callbacks=[_common.keras_step_logger(keras, tf, log, args, steps_per_epoch * args.epochs)],
    )
    log.info("training finished after %d steps", steps_per_epoch * args.epochs)
    if args.ckpt_dir and args.ckpt_rounds:
        has_chief = "chief" in _common.tf_config().get("cluster", {})
        chief = job == "chief" or (job == "worker" and index == 0 and not has_chief)
        base = args.ckpt_dir if chief else os.path.join(args.ckpt_dir, f"tmp-{job}-{index}")
        _common.keras_checkpoints(model, log, base, args, make_ds(), ".h5")
    if args.save_h5:
        log.info("saving weights to %s", args.save_h5)
        model.save_weights(args.save_h5)
        log.info("weights saved to %s", args.save_h5)
        time.sleep(0.2)
        model.load_weights(args.save_h5)  # read back, as a restore would
        log.info("weights read back from %s", args.save_h5)


if __name__ == "__main__":
    main()
