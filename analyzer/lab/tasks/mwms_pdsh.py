"""A pdsh host of ``pdsh -R exec -w worker[0-2] bash -c '... --host %h ...'``: one MWMS worker.

pdsh's exec module runs the command once per host of its ``-w`` list on this machine, ``%h``
replaced by the host's name, as a small cluster's job script does with real hosts: the script
makes its TF_CONFIG from that name (``workerN`` is worker task N) and the cluster of the job's
spec file (JSON: ``cluster``, and by task ``worker:0`` its own ``env``, ``args``, a
``tf_config`` fault, a start ``delay`` or another ``python``, as a deployment's start script
takes them). The training is mwms_training.py's custom loop, with its fault knobs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main() -> None:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--spec", required=True)
    p.add_argument("--host", required=True)
    own, rest = p.parse_known_args()
    with open(own.spec, encoding="utf-8") as f:
        spec = json.load(f)
    m = re.fullmatch(r"([a-z_]+?)(\d+)", own.host)
    job, index = m.group(1), int(m.group(2))
    mine = spec.get("tasks", {}).get(f"{job}:{index}", {})
    python = mine.get("python")
    if python and os.environ.get("MWMS_PDSH_PYTHON") != python:
        # this host runs another interpreter (another TensorFlow release)
        os.environ["MWMS_PDSH_PYTHON"] = python
        os.execv(python, [python, "-u", os.path.abspath(__file__), *sys.argv[1:]])
    if mine.get("delay"):
        time.sleep(float(mine["delay"]))
    os.environ.update({k: str(v) for k, v in mine.get("env", {}).items()})
    tf_config = mine.get("tf_config") or {
        "cluster": spec["cluster"],
        "task": {"type": job, "index": index},
    }
    print(f"host={own.host} job={job} index={index}", flush=True)
    os.environ["TF_CONFIG"] = json.dumps(tf_config)
    import mwms_training

    mwms_training.main([*rest, *mine.get("args", [])], "mwms_pdsh.py")


if __name__ == "__main__":
    main()
