"""ParameterServerStrategy training: chief runs a ClusterCoordinator, ps/workers serve.

Usage: ps_training.py [--steps N] [--step-sleep S] [--feed-dtype float32|int64]
Role and cluster come from TF_CONFIG.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common


def coordinate(tf, log, args) -> None:
    _common.ps_ctl_train(tf, log, args)


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
