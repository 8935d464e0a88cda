"""A Kubeflow TFJob's container: ParameterServerStrategy with Keras ``fit`` from the TF_CONFIG
the training-operator writes.

The training-operator gives every replica (chief, ps, worker) the same cluster, its addresses
the replicas' headless services ``<job>-<replica>-<i>.<namespace>.svc:<port>``, plus the
replica's own ``task`` and ``"environment": "cloud"``. The chief trains exactly as
``pss_keras.py`` does (``_common.keras_ps_fit``: tf.keras ``fit`` driving a ClusterCoordinator,
the variables on the ps); the ps and the workers only serve. ``--op-timeout-ms`` sets an
operation timeout on the chief's eager context (every remote op the coordinator issues), as
a job that wants a stuck task to fail rather than hang does.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

MODEL_WIDTH = 32  # the model's input features; --feature-dim changes only the data


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--step-sleep", type=float, default=0.1)
    p.add_argument("--feed-dtype", default="float32")
    p.add_argument("--feature-dim", type=int, default=MODEL_WIDTH)
    p.add_argument("--image-format", default="raw", choices=["raw", "webp"])
    p.add_argument("--op-timeout-ms", type=int, default=0)
    _common.add_fault_args(p)
    args = p.parse_args()

    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    log = _common.banner("tfjob_k8s.py")
    tf, log = _common.import_tf(log)
    job, _ = _common.task_identity()
    if _common.serve_if_server(tf, log, args, job):
        return
    if args.op_timeout_ms:
        from tensorflow.python.eager import context

        context.context().operation_timeout_in_ms = args.op_timeout_ms
        log.info("operation timeout: %d ms", args.op_timeout_ms)
    import tf_keras as keras

    log.info("Keras version: %s", keras.__version__)
    _common.keras_ps_fit(tf, keras, log, args, MODEL_WIDTH)


if __name__ == "__main__":
    main()
