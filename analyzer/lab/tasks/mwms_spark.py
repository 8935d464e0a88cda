"""A TensorFlow worker started by a Spark barrier task: MultiWorkerMirroredStrategy.

The PySpark application (``spark_app.py``) runs one barrier stage of one partition per
worker; each barrier task learns its partition id and its peers' addresses
(``BarrierTaskContext.getTaskInfos()`` and an ``allGather`` of a free port), writes the
cluster into TF_CONFIG and starts this script as a child of the executor's Python worker,
its stdout and stderr the Python worker's (Spark copies both into the executor's ``stderr``
file). Worker 0 hosts the coordination service and writes the checkpoints. The training is
mwms_training.py's custom loop, with its fault knobs.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mwms_training


def main() -> None:
    mwms_training.main(sys.argv[1:], "mwms_spark.py")


if __name__ == "__main__":
    main()
