"""MultiWorkerMirroredStrategy on Slurm: the cluster from ``SlurmClusterResolver``, no TF_CONFIG.

Each task is one of ``srun``'s tasks: ``SlurmClusterResolver`` reads SLURM_PROCID,
SLURM_STEP_NUM_TASKS, SLURM_STEP_NODELIST and SLURM_STEP_TASKS_PER_NODE and gives the
tasks of a node consecutive ports from ``--port-base`` (the sbatch script's choice). This
is a CPU job, and ``gpus_per_node=0`` fails in the resolver (``cluster_spec()`` steps a
``range`` by ``gpus_per_task`` = 0: "ValueError: range() arg 3 must not be zero",
tensorflow/tensorflow#56894), so the script does what such users do: it lets the resolver
lay out one GPU per task without touching CUDA_VISIBLE_DEVICES and reports no accelerators
to the strategy. Task 0 hosts the coordination service; a custom training loop all-reduces
the gradients every step; at the end every task saves through a ``tf.train.CheckpointManager``
(task 0 into ``--ckpt-dir``, the others into its ``tmp-worker-N`` folders).

Fault knobs as ``mwms_training.py``: another dtype or feature width in the input, a slow or
stuck storage read, an oversized tensor under a memory limit, a collective timeout.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common


def slurm_resolver(tf, port_base: int, tasks_per_node: int):
    """SlurmClusterResolver for CPU tasks (see the module's docstring)."""

    class CPUSlurmClusterResolver(tf.distribute.cluster_resolver.SlurmClusterResolver):
        def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
            return {}

    return CPUSlurmClusterResolver(
        port_base=port_base,
        gpus_per_node=tasks_per_node,
        gpus_per_task=1,
        auto_set_gpu=False,
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--step-sleep", type=float, default=0.1)
    p.add_argument("--feed-dtype", default="float32")
    p.add_argument("--feature-dim", type=int, default=16)
    p.add_argument("--collective-timeout", type=float, default=0.0)
    p.add_argument("--port-base", type=int, default=8888)
    _common.add_fault_args(p)
    args = p.parse_args()

    log = _common.banner("mwms_slurm.py")
    tf, log = _common.import_tf(log)
    per_node = max(int(x.split("(")[0]) for x in os.environ["SLURM_STEP_TASKS_PER_NODE"].split(","))
    resolver = slurm_resolver(tf, args.port_base, per_node)
    spec = resolver.cluster_spec()
    job, index = resolver.get_task_info()
    log.info("SlurmClusterResolver: %s %d of cluster %s", job, index, spec.as_dict())
    strategy = tf.distribute.MultiWorkerMirroredStrategy(
        cluster_resolver=resolver,
        communication_options=tf.distribute.experimental.CommunicationOptions(
            timeout_seconds=args.collective_timeout or None
        ),
    )
    replicas = strategy.num_replicas_in_sync
    log.info("MultiWorkerMirroredStrategy: %s %d of %d replicas in sync", job, index, replicas)

    w, b, train_step = _common.ctl_regressor(tf, strategy, 16)
    if args.feature_dim != 16:
        log.info("input pipeline: %d features per example", args.feature_dim)
    ds = _common.seeded_input(tf, log, args, index)
    ds = _common.no_read_ahead(tf, _common.storage_reads(tf, ds, args, replicas), args)
    it = iter(strategy.experimental_distribute_dataset(ds))
    if args.memory_limit_mb:
        _common.limit_memory(log, args.memory_limit_mb)

    _common.ctl_train(tf, log, args, train_step, it)
    if args.ckpt_dir and args.ckpt_rounds:
        evaluate = lambda: train_step(it)  # noqa: E731
        _common.ctl_checkpoints(tf, log, args, w, b, index, job, evaluate, max_to_keep=3)


if __name__ == "__main__":
    main()
