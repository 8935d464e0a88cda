"""A Docker Compose service's container: MultiWorkerMirroredStrategy with Keras ``fit`` and
``tf.keras.callbacks.BackupAndRestore`` into a shared volume directory.

Three services ``trainer-0`` .. ``trainer-2`` of one compose file, each given the TF_CONFIG
its ``environment:`` entry spells out (cluster ``{"worker": ["trainer-0:<port>", ...]}``, the
service names as hosts, and the task ``{"type": "worker", "index": i}``); worker 0 hosts the
coordination service and writes the checkpoints (the chief). The training is mwms_keras's
(``_common.keras_mwms_fit``) with one more callback: ``BackupAndRestore(--backup-dir)``, the
volume every service mounts, so a restarted container resumes from the last epoch's backup.
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
    p.add_argument("--backup-dir", default="")
    args = p.parse_args()

    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    log = _common.banner("mwms_compose.py")
    tf, log = _common.import_tf(log)
    import tf_keras as keras

    log.info("Keras version: %s", keras.__version__)
    callbacks = []
    if args.backup_dir:
        callbacks.append(keras.callbacks.BackupAndRestore(backup_dir=args.backup_dir))
        log.info("BackupAndRestore: backups in %s", args.backup_dir)
    _common.keras_mwms_fit(tf, keras, log, args, callbacks)


if __name__ == "__main__":
    main()
