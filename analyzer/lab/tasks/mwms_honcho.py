"""A honcho process of ``worker: ... -c worker=3``: MWMS whose TF_CONFIG the script builds.

honcho runs one process type several times (``honcho start -c worker=3``) and names each
``worker.1``, ``worker.2``, ... in ``HONCHO_PROCESS_NAME`` (1-based), as foreman's ``$PS``: the
script makes its TF_CONFIG from that name (``worker.N`` is worker task N-1) and the
``--workers`` host:port list, as Procfile deployments' start scripts do. ``--per-task`` (JSON,
by task index) gives a task its own arguments, variables, a TF_CONFIG fault (another
``workers`` list, another ``task_index``) or a start delay. The training is mwms_training.py's
custom loop, with its fault knobs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mwms_training


def main() -> None:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--workers", required=True)
    p.add_argument("--per-task", default="{}")
    own, rest = p.parse_known_args()
    name = os.environ["HONCHO_PROCESS_NAME"]
    index = int(name.rsplit(".", 1)[1]) - 1
    mine = json.loads(own.per_task).get(str(index), {})
    if mine.get("delay"):
        time.sleep(float(mine["delay"]))
    os.environ.update({k: str(v) for k, v in mine.get("env", {}).items()})
    workers = mine.get("workers") or own.workers.split(",")
    task = mine.get("task_index", index)
    print(f"HONCHO_PROCESS_NAME={name} PORT={os.environ.get('PORT', '')}", flush=True)
    os.environ["TF_CONFIG"] = json.dumps(
        {"cluster": {"worker": workers}, "task": {"type": "worker", "index": task}}
    )
    mwms_training.main([*rest, *mine.get("args", [])], "mwms_honcho.py")


if __name__ == "__main__":
    main()
