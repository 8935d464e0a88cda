"""A systemd unit's process on a bare host: ParameterServerStrategy with a custom training
loop driven by a ClusterCoordinator.

Five template units on five hosts (``tf-chief.service`` on tfhost-0, ``tf-ps@0/1.service`` on
tfhost-1/2, ``tf-worker@0/1.service`` on tfhost-3/4), each started by systemd with
``ExecStart=<venv>/bin/python3 .../pss_systemd.py ...`` and ``Environment=TF_CONFIG=...`` naming
every task by its host and a port; stdout and stderr go to the journal. The chief trains as
``ps_training.py`` does (``_common.ps_ctl_train``: two variables on the two ps, steps scheduled
through ``coordinator.schedule``, checkpoint rounds); the ps and the workers only serve until
systemd stops them. ``--op-timeout-ms`` sets an operation timeout on the chief's eager context.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--step-sleep", type=float, default=0.1)
    p.add_argument("--report-every", type=int, default=2)
    p.add_argument("--feed-dtype", default="float32")
    p.add_argument("--image-format", default="raw", choices=["raw", "webp"])
    p.add_argument("--feature-dim", type=int, default=32)
    p.add_argument("--op-timeout-ms", type=int, default=0)
    _common.add_fault_args(p)
    args = p.parse_args()
    log = _common.banner("pss_systemd.py")
    tf, log = _common.import_tf(log)
    job, _ = _common.task_identity()
    if not _common.serve_if_server(tf, log, args, job):
        _common.ps_ctl_train(tf, log, args)


if __name__ == "__main__":
    main()
