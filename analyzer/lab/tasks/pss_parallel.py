"""A GNU parallel job of a ParameterServerStrategy cluster: the task its arguments name.

One ``parallel ... python -u pss_parallel.py --spec job.json --job {1} --index {2} ... ::: chief
ps ps worker worker :::+ 0 0 1 0 1`` runs every task of the cluster on one host, as a small
deployment's job script does: parallel's input names each job's task (``{1}`` its job, ``{2}``
its index, ``$PARALLEL_SEQ`` its place in the input), and the script builds its TF_CONFIG from
them and the cluster of the job's spec file (JSON: ``cluster``, and by task ``chief:0`` its own
``env``, ``args``, a ``tf_config`` fault, a start ``delay`` or another ``python``, as a
deployment's start script takes them). The training is pss_systemd.py's:
``_common.ps_ctl_train`` on the chief (two variables on the two ps, steps scheduled through a
ClusterCoordinator, checkpoint rounds), the ps and workers serving until they are stopped;
``--op-timeout-ms`` sets an operation timeout on the chief's eager context.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main() -> None:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--spec", required=True)
    p.add_argument("--job", required=True)
    p.add_argument("--index", type=int, required=True)
    own, rest = p.parse_known_args()
    with open(own.spec, encoding="utf-8") as f:
        spec = json.load(f)
    mine = spec.get("tasks", {}).get(f"{own.job}:{own.index}", {})
    python = mine.get("python")
    if python and os.environ.get("PSS_PARALLEL_PYTHON") != python:
        # this task runs on another interpreter (another TensorFlow release)
        os.environ["PSS_PARALLEL_PYTHON"] = python
        os.execv(python, [python, "-u", os.path.abspath(__file__), *sys.argv[1:]])
    if mine.get("delay"):
        time.sleep(float(mine["delay"]))
    os.environ.update({k: str(v) for k, v in mine.get("env", {}).items()})
    tf_config = mine.get("tf_config") or {
        "cluster": spec["cluster"],
        "task": {"type": own.job, "index": own.index},
    }
    print(
        f"PARALLEL_SEQ={os.environ.get('PARALLEL_SEQ', '')} "
        f"PARALLEL_JOBSLOT={os.environ.get('PARALLEL_JOBSLOT', '')} "
        f"job={own.job} index={own.index}",
        flush=True,
    )
    os.environ["TF_CONFIG"] = json.dumps(tf_config)
    train([*rest, *mine.get("args", [])])


def train(argv: list[str]) -> None:
    import _common

    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--step-sleep", type=float, default=0.1)
    p.add_argument("--report-every", type=int, default=2)
    p.add_argument("--feed-dtype", default="float32")
    p.add_argument("--image-format", default="raw", choices=["raw", "webp"])
    p.add_argument("--feature-dim", type=int, default=32)
    p.add_argument("--op-timeout-ms", type=int, default=0)
    _common.add_fault_args(p)
    args = p.parse_args(argv)
    log = _common.banner("pss_parallel.py")
    tf, log = _common.import_tf(log)
    job, _ = _common.task_identity()
    if not _common.serve_if_server(tf, log, args, job):
        _common.ps_ctl_train(tf, log, args)


if __name__ == "__main__":
    main()
