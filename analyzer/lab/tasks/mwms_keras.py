"""MultiWorkerMirroredStrategy with Keras ``model.fit`` on synthetic data.

Uses tf.keras from the ``tf_keras`` package (Keras 2, ``TF_USE_LEGACY_KERAS=1``): Keras 3's
``fit`` does not take MultiWorkerMirroredStrategy's distributed datasets.

Role and cluster come from TF_CONFIG (chief + workers).  The options are the
same fault knobs as ``mwms_training.py``: another dtype or feature width on one
worker, a slow or stuck input read, an oversized allocation under a memory
limit, checkpoints at the end, and HDF5 weights written by every task.  The training
itself is ``_common.keras_mwms_fit`` (shared with ``mwms_compose.py``).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common


def main() -> None:
    p = argparse.ArgumentParser()
    _common.add_keras_mwms_args(p)
    args = p.parse_args()

    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    log = _common.banner("mwms_keras.py")
    tf, log = _common.import_tf(log)
    import tf_keras as keras

    log.info("Keras version: %s", keras.__version__)
    _common.keras_mwms_fit(tf, keras, log, args)


if __name__ == "__main__":
    main()
