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
    _common.keras_ps_fit(tf, keras, log, args, MODEL_WIDTH)


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
