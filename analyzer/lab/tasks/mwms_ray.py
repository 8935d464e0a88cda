"""A TensorFlow worker run by Ray Train: MultiWorkerMirroredStrategy in a Ray actor.

The Ray application (``ray_app.py``) runs a ``TensorflowTrainer`` of one Ray Train worker per
TensorFlow worker; Ray Train's TensorFlow backend gathers a free port of each worker and
writes TF_CONFIG (worker ``world_rank``) into each worker actor's environment, and each
actor's ``train_loop_per_worker`` calls :func:`main` in the actor's own process (Ray's
``RayTrainWorker`` process): its stdout and stderr are that worker process's, which Ray
writes into its session's ``logs/worker-*.out`` / ``.err`` files and copies to the driver's
console. Worker 0 hosts the coordination service and writes the checkpoints. The training is
mwms_training.py's custom loop, with its fault knobs.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mwms_training


def main(argv: list[str] | None = None) -> None:
    mwms_training.main(sys.argv[1:] if argv is None else argv, "mwms_ray.py")


if __name__ == "__main__":
    main()
