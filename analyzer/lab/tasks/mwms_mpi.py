"""An mpirun rank: MultiWorkerMirroredStrategy whose TF_CONFIG the script builds from Open MPI.

As Horovod-era launch scripts do, each of mpirun's ranks makes its own TF_CONFIG: the
cluster is the ``--workers`` host:port list (the job script's, one entry per rank), the task
``{"type": "worker", "index": OMPI_COMM_WORLD_RANK}`` (``--task-index`` overrides it; the
world's size is printed, not checked against the list). Rank 0 hosts the
coordination service and writes the checkpoints. ``--start-delay``: the rank waits that long
before it starts (a slow stage-in), inside mpirun. The training is mwms_training.py's
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
    p.add_argument("--task-index", type=int, default=None)
    p.add_argument("--start-delay", type=float, default=0.0)
    own, rest = p.parse_known_args()
    if own.start_delay:
        time.sleep(own.start_delay)

    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    size = int(os.environ["OMPI_COMM_WORLD_SIZE"])
    workers = own.workers.split(",")
    print(
        f"OMPI_COMM_WORLD_RANK={rank} OMPI_COMM_WORLD_SIZE={size} "
        f"OMPI_COMM_WORLD_LOCAL_RANK={os.environ.get('OMPI_COMM_WORLD_LOCAL_RANK', '')}",
        flush=True,
    )
    index = rank if own.task_index is None else own.task_index
    os.environ["TF_CONFIG"] = json.dumps(
        {"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}}
    )
    mwms_training.main(rest, "mwms_mpi.py")


if __name__ == "__main__":
    main()
