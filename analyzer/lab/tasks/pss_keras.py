"""ParameterServerStrategy with Keras ``model.fit``: the chief trains, ps and workers serve.

Uses tf.keras from the ``tf_keras`` package (Keras 2, ``TF_USE_LEGACY_KERAS=1``), whose
``fit`` drives a ``ClusterCoordinator`` under ParameterServerStrategy: the chief schedules
each step on a worker, the variables live on the ps.  Keras refuses batch-level callbacks
under this strategy, so progress is logged per (short) epoch.  ps and workers only run a
``tf.distribute.Server``.

Role and cluster come from TF_CONFIG (chief + ps + workers).  Fault knobs (chief only):
another dtype or feature width in the input, WebP-encoded input images (TF 2.21 ops), an
oversized allocation under a memory limit, checkpoints and evaluations after training.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

MODEL_WIDTH = 32  # the model's input features; --feature-dim changes only the data


def train(tf, keras, log, args) -> None:
    strategy, _ = _common.ps_strategy(tf, log, name_coordinator=True)
    steps_per_epoch = max(1, args.steps // args.epochs)

    def dataset_fn(input_context=None):
        if args.image_format == "webp":
            return _common.webp_dataset(tf, MODEL_WIDTH)
        return _common.synthetic_data(tf, args.feature_dim, [3, 4], args.feed_dtype)

    if args.feature_dim != MODEL_WIDTH:
        log.info("input pipeline: %d features per example", args.feature_dim)
    if args.feed_dtype != "float32":
        log.info("input pipeline: features decoded as %s", args.feed_dtype)
    with strategy.scope():
        model = _common.keras_regressor(keras, MODEL_WIDTH)

    if args.memory_limit_mb:
        _common.limit_memory(log, args.memory_limit_mb)
    data = keras.utils.experimental.DatasetCreator(dataset_fn)
    model.fit(
        data,
        epochs=args.epochs,
        steps_per_epoch=steps_per_epoch,
        verbose=2,
        callbacks=[
            _common.keras_step_logger(
                keras, tf, log, args, steps_per_epoch * args.epochs, per_epoch=steps_per_epoch
            )
        ],
    )
    log.info("training finished after %d steps", steps_per_epoch * args.epochs)
    if args.ckpt_dir and args.ckpt_rounds:
        _common.keras_checkpoints(model, log, args.ckpt_dir, args, data, "")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--step-sleep", type=float, default=0.1)
    p.add_argument("--feed-dtype", default="float32")
    p.add_argument("--feature-dim", type=int, default=MODEL_WIDTH)
    p.add_argument("--image-format", default="raw", choices=["raw", "webp"])
    _common.add_fault_args(p)
    args = p.parse_args()

    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    log = _common.banner("pss_keras.py")
    tf, log = _common.import_tf(log)
    job, _ = _common.task_identity()
    if _common.serve_if_server(tf, log, args, job):
        return
    import tf_keras as keras

    log.info("Keras version: %s", keras.__version__)
    train(tf, keras, log, args)


if __name__ == "__main__":
    main()
