"""The lab as a matrix: cluster styles x faults x target roles x phases x file namings.

Everything here is data (``STYLES``, ``FAULTS``, ``PHASES``, ``NAMINGS``) plus one
generic launcher, :func:`run_cell`, that turns a :class:`Cell` into a real run:
start the cluster the style describes, wait for the phase's log line, inject the
fault the way the fault table says (a signal, an argument to the task script, an
edited TF_CONFIG, a task withheld or started late, a squatter process, a second
interpreter), wait for the end (or end the job like a scheduler's time limit when
it stops making progress), collect the logs under the naming's file names, check
the fault's evidence and write ``truth.json``.

The truth comes only from what was injected and what the processes did (exit
codes, the evidence regexes, whether the launcher had to end the job), never from
tfdiag's diagnosis.  No TensorFlow import here.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import compose, honcho, kubernetes, mpi, pdsh, runit, slurm, spark, supervisord, systemd
from . import parallel as gnu_parallel
from . import ray as raylab
from . import tmux as tmuxlab
from ._runner import TASKS_DIR, Lab, first_existing, free_ports, rotate, task_name, utc_now

ALT_PYTHON_ENV = "TFDIAG_LAB_ALT_PYTHON"
OLD_RELEASE_CANDIDATES = ("/tmp/tf-old/bin/python", "/tmp/tf219/bin/python")
# The estimator style needs a TensorFlow that still has tf.estimator (<= 2.15).
TF215_PYTHON_ENV = "TFDIAG_LAB_TF215_PYTHON"
TF215_CANDIDATES = ("/tmp/tf215/bin/python",)
# The Ray style needs an interpreter with Ray (2.60, ray[train]) and TensorFlow 2.21: a
# recording-only dependency, kept out of the lab venv.
RAY_PYTHON_ENV = "TFDIAG_LAB_RAY_PYTHON"
RAY_CANDIDATES = ("/work/ray-venv/bin/python", "/tmp/ray-venv/bin/python")


# ----------------------------------------------------------------------------- tables
@dataclass(frozen=True)
class Style:
    name: str
    script: str
    jobs: tuple[tuple[str, int], ...]
    cluster: str
    roles: dict[str, str]  # target role -> node ("chief" = chief / coordination leader)
    train_nodes: tuple[str, ...]  # the job is over when these exit; the rest are servers
    progress_node: str
    step_re: str  # group 1 = step number; printed by train nodes
    steps: int
    args: tuple[str, ...]
    ckpt_args: tuple[str, ...]  # {scratch} is replaced
    ckpt_node: str
    ckpt_re: str
    timeout_args: tuple[str, ...] = ()  # collective / operation timeouts (stall -> deadline)
    preempt_args: tuple[str, ...] = ()
    python_log: tuple[str, ...] = ()  # nodes that log through python logging (others absl)
    pod_prefix: str = "train"
    shape_dim: str = "17"  # the target's feature width in the shape fault
    feed_dtype: str = "int64"  # the target's feature dtype in the dtype fault
    alt_args: tuple[str, ...] = ()  # version fault: target and chief use TF-2.21-only ops
    # Namings rotate over the cells of the first styles with one shared counter; a style
    # added after the corpus was recorded counts on its own from here, so the recorded
    # cells of the other styles keep their folders.
    naming_start: int | None = None
    # A style whose tasks need their own interpreter (env var, candidate paths); the lab
    # venv's TensorFlow is then the *other* release of its version fault.
    python: tuple[str, tuple[str, ...]] | None = None
    release: str = "2.21"  # the TensorFlow release the style's tasks run on
    # The node that builds other tasks' work (in-graph replication's client; pss_sharded's
    # chief, which places a ps's OOM table). A fault's arguments for another task go to that
    # task *and* to the driver, with --fault-task.
    driver: str | None = None
    # The line a task logs once its server listens (the start-up phase waits for it).
    started_re: str = r"Started server with target"
    # How a task learns the cluster: "tf_config" (the TF_CONFIG variable), "dtensor"
    # (DTENSOR_CLIENT_ID / DTENSOR_NUM_CLIENTS / DTENSOR_JOB_NAME / DTENSOR_JOBS, no TF_CONFIG)
    # or "slurm" (the SLURM_* variables srun sets, read by SlurmClusterResolver; its ports are
    # consecutive from the script's --port-base; the launcher plays srun: analyzer/lab/slurm.py)
    # or "k8s" (a Kubeflow TFJob: the training-operator's TF_CONFIG with the replicas' service
    # names; the launcher plays kubelet and the container runtime: analyzer/lab/kubernetes.py)
    # or "compose" (a compose file's TF_CONFIG with the services' names; the launcher plays
    # dockerd and docker compose: analyzer/lab/compose.py)
    # or "systemd" (TF_CONFIG in each unit's environment with the hosts' names; the launcher
    # plays systemd, journald and journalctl: analyzer/lab/systemd.py)
    # or "mpi" (one real Open MPI mpirun runs every rank; each rank's script builds its
    # TF_CONFIG from OMPI_COMM_WORLD_RANK and a --workers host:port list: analyzer/lab/mpi.py)
    # or "spark" (a real Spark standalone cluster runs one barrier stage; each barrier task
    # builds its TF_CONFIG from its BarrierTaskContext: analyzer/lab/spark.py)
    # or "ray" (a real Ray head node runs a Ray Train TensorflowTrainer; Ray Train sets each
    # worker actor's TF_CONFIG: analyzer/lab/ray.py)
    # or "supervisord" (one real supervisord runs every task as a [program:...] with its
    # TF_CONFIG in environment=; the operator uses supervisorctl: analyzer/lab/supervisord.py)
    # or "honcho" (one real honcho runs every task as a Procfile process, TF_CONFIG on its
    # line or built from HONCHO_PROCESS_NAME; its merged output is the log: analyzer/lab/honcho.py)
    # or "parallel" (one real GNU parallel runs every task as a job of its input, each task's
    # script building TF_CONFIG from its {1} {2} arguments: analyzer/lab/parallel.py)
    # or "runit" (one real runsvdir runs every task as a runit service, TF_CONFIG exported by
    # its run script, its output logged by svlogd: analyzer/lab/runit.py)
    # or "tmux" (one real tmux server, one window per task, each task's command with its
    # exported TF_CONFIG typed into its window's shell: analyzer/lab/tmux.py)
    config: str = "tf_config"
    # The file namings the style's cells rotate over (default: NAMINGS).
    namings: tuple[str, ...] = ()
    # Jobs whose tasks get a TF_CONFIG naming their task but a cluster without their job (a
    # TFJob's evaluator is not part of the training cluster).
    outside: tuple[str, ...] = ()

    @property
    def nodes(self) -> list[str]:
        return [f"{job}:{i}" for job, n in self.jobs for i in range(n)]

    @property
    def config_re(self) -> str:
        """The line a task prints with the configuration it got (the config faults' evidence)."""
        # a Slurm task's port base is the script's: the resolver's line shows the cluster it
        # made of the SLURM_* variables and that base
        return {
            "dtensor": r"^DTENSOR_JOBS=",
            "slurm": r"SlurmClusterResolver: \w+ \d+ of cluster",
        }.get(self.config, r"^TF_CONFIG=")


#: What both Estimator styles share: TF 2.15 (the last with tf.estimator), the chief's
#: LoggingTensorHook steps, its CheckpointSaverHook, and the session's operation timeout.
_ESTIMATOR: dict = dict(
    train_nodes=("chief:0", "worker:0", "worker:1"),
    progress_node="chief:0",
    step_re=r"loss = [-+\w.]+, step = (\d+)",
    args=("--step-sleep", "0.1", "--log-every", "10", "--model-dir", "{scratch}/model_dir"),
    ckpt_node="chief:0",
    ckpt_re=r"Saving checkpoints for [1-9]\d* into",
    timeout_args=("--op-timeout-ms", "5000"),
    python=(TF215_PYTHON_ENV, TF215_CANDIDATES),
    release="2.15",
)

#: What the custom-loop styles of three workers share (mwms_ctl, dtensor, mwms_slurm):
#: ``_common.ctl_train``'s step lines, its CheckpointManager rounds, worker 0 checkpointing.
_CUSTOM_LOOP: dict = dict(
    train_nodes=("worker:0", "worker:1", "worker:2"),
    progress_node="worker:0",
    step_re=r"step (\d+)/\d+ loss",
    steps=60,
    args=("--step-sleep", "0.1"),
    ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--ckpt-rounds", "5"),
    ckpt_node="worker:0",
    ckpt_re=r"saving checkpoint .*ckpt-1$",
)

STYLES: dict[str, Style] = {
    s.name: s
    for s in [
        Style(
            name="tf1",
            script="tf1_training.py",
            jobs=(("ps", 1), ("worker", 2)),
            cluster="1 ps + 2 workers (tf.compat.v1.train.Server + MonitoredTrainingSession)",
            roles={"chief": "worker:0", "worker": "worker:1", "ps": "ps:0"},
            train_nodes=("worker:0", "worker:1"),
            progress_node="worker:0",
            step_re=r"global_step (\d+) loss",
            steps=90,
            args=("--step-sleep", "0.1"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--save-checkpoint-steps", "60"),
            ckpt_node="worker:0",
            ckpt_re=r"Saving checkpoints for [1-9]\d* into",
            timeout_args=("--op-timeout-ms", "5000"),
            python_log=("worker:1",),
            pod_prefix="wide-deep",
        ),
        Style(
            name="pss",
            script="ps_training.py",
            jobs=(("chief", 1), ("ps", 1), ("worker", 2)),
            cluster="chief + 1 ps + 2 workers (ParameterServerStrategy + ClusterCoordinator)",
            roles={"chief": "chief:0", "worker": "worker:1", "ps": "ps:0"},
            train_nodes=("chief:0",),
            progress_node="chief:0",
            step_re=r"step (\d+) loss",
            steps=60,
            args=("--step-sleep", "0.1"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--ckpt-rounds", "5"),
            ckpt_node="chief:0",
            ckpt_re=r"saving checkpoint .*ckpt-1$",
            python_log=("chief:0",),
            pod_prefix="ctr-model",
            shape_dim="20",
            alt_args=("--image-format", "webp"),
        ),
        Style(
            name="mwms_ctl",
            script="mwms_training.py",
            jobs=(("worker", 3),),
            cluster="3 workers (MultiWorkerMirroredStrategy, custom training loop)",
            roles={"chief": "worker:0", "worker": "worker:1"},
            **_CUSTOM_LOOP,
            timeout_args=("--collective-timeout", "5"),
            preempt_args=("--preemption-checkpoint-dir", "{scratch}/preempt"),
            python_log=("worker:0", "worker:2"),
            pod_prefix="resnet",
        ),
        Style(
            name="mwms_keras",
            script="mwms_keras.py",
            jobs=(("chief", 1), ("worker", 2)),
            cluster="chief + 2 workers (MultiWorkerMirroredStrategy, tf.keras Model.fit)",
            roles={"chief": "chief:0", "worker": "worker:1"},
            train_nodes=("chief:0", "worker:0", "worker:1"),
            progress_node="chief:0",
            step_re=r"step (\d+)/\d+ loss",
            steps=60,
            args=("--step-sleep", "0.1", "--epochs", "3"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--ckpt-rounds", "4"),
            ckpt_node="chief:0",
            ckpt_re=r"saving checkpoint .*ckpt-1\.h5$",
            timeout_args=("--collective-timeout", "5"),
            python_log=("chief:0", "worker:0", "worker:1"),
            pod_prefix="mnist",
        ),
        Style(
            name="pss_keras",
            script="pss_keras.py",
            jobs=(("chief", 1), ("ps", 1), ("worker", 2)),
            cluster="chief + 1 ps + 2 workers (ParameterServerStrategy, tf.keras Model.fit "
            "driving a ClusterCoordinator)",
            roles={"chief": "chief:0", "worker": "worker:1", "ps": "ps:0"},
            train_nodes=("chief:0",),
            progress_node="chief:0",
            step_re=r"step (\d+)/\d+ loss",
            steps=60,
            args=("--step-sleep", "0.1", "--epochs", "20"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--ckpt-rounds", "4"),
            ckpt_node="chief:0",
            ckpt_re=r"saving checkpoint .*ckpt-1$",
            python_log=("chief:0", "worker:1"),
            pod_prefix="recsys",
            shape_dim="20",
            feed_dtype="string",  # Keras casts int64 features to float32 without a word
            alt_args=("--image-format", "webp"),
            naming_start=3,
        ),
        Style(
            name="tf1_sync",
            script="tf1_sync.py",
            jobs=(("ps", 1), ("worker", 2)),
            cluster="1 ps + 2 workers (tf.compat.v1.train.Server + MonitoredTrainingSession, "
            "SyncReplicasOptimizer aggregating every worker's gradients per global step)",
            roles={"chief": "worker:0", "worker": "worker:1", "ps": "ps:0"},
            train_nodes=("worker:0", "worker:1"),
            progress_node="worker:0",
            step_re=r"global step (\d+)/\d+ loss",
            steps=60,
            args=("--step-sleep", "0.1"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--save-checkpoint-steps", "40"),
            ckpt_node="worker:0",
            ckpt_re=r"Saving checkpoints for [1-9]\d* into",
            timeout_args=("--op-timeout-ms", "5000"),
            python_log=("ps:0",),
            pod_prefix="criteo-sync",
            naming_start=1,
        ),
        Style(
            name="tf1_supervisor",
            script="tf1_supervisor.py",
            jobs=(("ps", 1), ("worker", 2)),
            cluster="1 ps + 2 workers (tf.compat.v1.train.Server + the old "
            "tf.compat.v1.train.Supervisor, prepare_or_wait_for_session; asynchronous "
            "between-graph replication)",
            roles={"chief": "worker:0", "worker": "worker:1", "ps": "ps:0"},
            train_nodes=("worker:0", "worker:1"),
            progress_node="worker:0",
            step_re=r"\(global step (\d+)/\d+\) loss",
            steps=60,
            # the other workers poll for the chief's initialized model every second (the
            # Supervisor's default is 30 s), so they train from early on
            args=("--step-sleep", "0.2", "--recovery-wait-secs", "1"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--save-checkpoint-steps", "30"),
            ckpt_node="worker:0",
            ckpt_re=r"checkpoint written: .*model\.ckpt-[1-9]\d*",
            timeout_args=("--op-timeout-ms", "5000"),
            python_log=("worker:0",),
            pod_prefix="ads-async",
            naming_start=5,
        ),
        Style(
            name="estimator",
            script="estimator_training.py",
            jobs=(("chief", 1), ("ps", 1), ("worker", 2)),
            cluster="chief + 1 ps + 2 workers (tf.estimator.train_and_evaluate from TF_CONFIG, "
            "custom model_fn, asynchronous between-graph replication; TensorFlow 2.15)",
            roles={"chief": "chief:0", "worker": "worker:1", "ps": "ps:0"},
            **_ESTIMATOR,
            steps=900,
            ckpt_args=("--save-checkpoints-steps", "600"),
            python_log=("chief:0", "worker:1"),
            pod_prefix="census-est",
            naming_start=4,
        ),
        Style(
            name="tf1_ingraph",
            script="tf1_ingraph.py",
            jobs=(("client", 1), ("ps", 1), ("worker", 2)),
            cluster="client + 1 ps + 2 workers (TF1 in-graph replication: the client task "
            "builds one tower per worker on /job:worker/task:i with the variables on /job:ps, "
            "averages the gradients and runs tf.compat.v1.Session(target); ps and workers are "
            "plain tf.compat.v1.train.Server + join)",
            roles={"chief": "client:0", "worker": "worker:1", "ps": "ps:0"},
            train_nodes=("client:0",),
            progress_node="client:0",
            step_re=r"step (\d+)/\d+ loss",
            steps=90,
            args=("--step-sleep", "0.1"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--save-checkpoint-steps", "60"),
            ckpt_node="client:0",
            ckpt_re=r"checkpoint written: .*model\.ckpt-[1-9]\d*",
            timeout_args=("--op-timeout-ms", "5000"),
            python_log=("client:0",),
            pod_prefix="ranker-ingraph",
            naming_start=6,
            driver="client:0",
        ),
        Style(
            name="data_service",
            script="data_service.py",
            jobs=(("dispatcher", 1), ("data_worker", 2), ("worker", 2)),
            cluster="tf.data service dispatcher + 2 data workers (their own jobs) feeding 2 "
            "trainers (MultiWorkerMirroredStrategy, custom training loop, each reading "
            "dataset.apply(tf.data.experimental.service.distribute(...)))",
            # "ps" is the dispatcher: the single task every trainer's input depends on
            roles={
                "chief": "worker:0",
                "worker": "worker:1",
                "ps": "dispatcher:0",
                "data_worker": "data_worker:1",
            },
            train_nodes=("worker:0", "worker:1"),
            progress_node="worker:0",
            step_re=r"step (\d+)/\d+ loss",
            steps=60,
            args=("--step-sleep", "0.2"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--ckpt-rounds", "5"),
            ckpt_node="worker:0",
            ckpt_re=r"saving checkpoint .*ckpt-1$",
            timeout_args=("--collective-timeout", "5"),
            python_log=("worker:1", "data_worker:0"),
            pod_prefix="rank-tfdata",
            naming_start=2,
            started_re=r"Started server with target|Started tf\.data \w+ running at",
        ),
        Style(
            name="dtensor",
            script="dtensor_training.py",
            jobs=(("worker", 3),),
            cluster="3 DTensor clients (tf.experimental.dtensor multi-client on CPU from "
            "DTENSOR_CLIENT_ID / DTENSOR_NUM_CLIENTS / DTENSOR_JOB_NAME / DTENSOR_JOBS; one mesh "
            "over every client's 2 CPU devices, batch-sharded data-parallel layout, "
            "tf.train.CheckpointManager)",
            # client 0 hosts the coordination service and leads the collectives: the chief
            roles={"chief": "worker:0", "worker": "worker:1"},
            **_CUSTOM_LOOP,
            python_log=("worker:1",),
            pod_prefix="lm-dtensor",
            naming_start=3,
            config="dtensor",
        ),
        Style(
            name="pss_sharded",
            script="pss_sharded.py",
            jobs=(("chief", 1), ("ps", 2), ("worker", 2), ("evaluator", 1)),
            cluster="chief + 2 ps + 2 workers + evaluator (ParameterServerStrategy with a "
            "FixedShardsPartitioner sharding the variables over both ps, custom loop through "
            "ClusterCoordinator.schedule, CheckpointManager; the evaluator runs tf_keras's "
            "SidecarEvaluator on the chief's checkpoints, outside the training cluster)",
            # the second ps (holding the other half of every sharded variable) is the ps target
            roles={
                "chief": "chief:0",
                "worker": "worker:1",
                "ps": "ps:1",
                "evaluator": "evaluator:0",
            },
            train_nodes=("chief:0",),
            progress_node="chief:0",
            step_re=r"step (\d+)/\d+ loss",
            steps=60,
            args=("--step-sleep", "0.1", "--model-dir", "{scratch}/model_dir"),
            ckpt_args=("--ckpt-rounds", "4"),
            ckpt_node="chief:0",
            ckpt_re=r"saving checkpoint .*ckpt-61$",
            timeout_args=("--op-timeout-ms", "5000"),
            python_log=("chief:0", "ps:0", "evaluator:0"),
            pod_prefix="ads-sharded",
            shape_dim="20",
            feed_dtype="string",  # Keras casts int64 features to float32 without a word
            alt_args=("--image-format", "webp"),
            naming_start=4,
            started_re=r"Started server with target|sidecar evaluator watching",
            driver="chief:0",  # a ps's OOM knob: the chief places the table on it
            outside=("evaluator",),
        ),
        Style(
            name="estimator_mwms",
            script="estimator_mwms.py",
            jobs=(("chief", 1), ("worker", 2)),
            cluster="chief + 2 workers, no ps (tf.estimator.train_and_evaluate from TF_CONFIG "
            "with RunConfig(train_distribute=MultiWorkerMirroredStrategy): custom model_fn, "
            "synchronous collective all-reduce in independent-worker mode; TensorFlow 2.15)",
            # the chief hosts the coordination service and checkpoints: the chief; no ps
            roles={"chief": "chief:0", "worker": "worker:1"},
            **_ESTIMATOR,
            steps=240,
            ckpt_args=("--save-checkpoints-steps", "160"),
            python_log=("chief:0", "worker:0"),
            pod_prefix="ctr-est-mwms",
            naming_start=5,
        ),
        Style(
            name="mwms_slurm",
            script="mwms_slurm.py",
            jobs=(("worker", 3),),
            cluster="3 Slurm tasks on one node (MultiWorkerMirroredStrategy configured by "
            "SlurmClusterResolver from the SLURM_* variables srun sets, no TF_CONFIG; custom "
            "training loop; tf.train.CheckpointManager into a shared directory; srun's output "
            "per task or in one labelled file)",
            # task 0 hosts the coordination service and checkpoints: the chief; no ps
            roles={"chief": "worker:0", "worker": "worker:1"},
            **_CUSTOM_LOOP,
            timeout_args=("--collective-timeout", "5"),
            python_log=("worker:0", "worker:2"),
            pod_prefix="mwms-slurm",
            naming_start=0,
            config="slurm",
            namings=slurm.NAMINGS,
        ),
        Style(
            name="tfjob_k8s",
            script="tfjob_k8s.py",
            jobs=(("chief", 1), ("ps", 1), ("worker", 2)),
            cluster="a Kubeflow TFJob on Kubernetes: chief + 1 ps + 2 workers "
            "(ParameterServerStrategy, tf.keras Model.fit driving a ClusterCoordinator) from the "
            "TF_CONFIG the training-operator writes (the replicas' service names "
            "<job>-<replica>-<i>.<namespace>.svc, environment cloud); each container's output "
            "as the container runtime writes it (CRI log format under "
            "pods/<namespace>_<pod>_<uid>/tensorflow/0.log) or in one kubectl logs --prefix "
            "--timestamps file",
            roles={"chief": "chief:0", "worker": "worker:1", "ps": "ps:0"},
            train_nodes=("chief:0",),
            progress_node="chief:0",
            step_re=r"step (\d+)/\d+ loss",
            steps=60,
            args=("--step-sleep", "0.1", "--epochs", "20"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--ckpt-rounds", "4"),
            ckpt_node="chief:0",
            ckpt_re=r"saving checkpoint .*ckpt-1$",
            # the coordinator's eager context: every remote op the chief issues
            timeout_args=("--op-timeout-ms", "5000"),
            python_log=("chief:0", "worker:0"),
            pod_prefix=kubernetes.JOB_NAME,
            shape_dim="20",
            feed_dtype="string",  # Keras casts int64 features to float32 without a word
            alt_args=("--image-format", "webp"),
            naming_start=0,
            config="k8s",
            namings=kubernetes.NAMINGS,
        ),
        Style(
            name="mwms_compose",
            script="mwms_compose.py",
            jobs=(("worker", 3),),
            cluster="3 Docker Compose services trainer-0..trainer-2 "
            "(MultiWorkerMirroredStrategy, tf.keras Model.fit with "
            "tf.keras.callbacks.BackupAndRestore into a shared volume directory) from the "
            "TF_CONFIG a compose file's environment: gives them (the services' names as hosts); "
            "each container's output as dockerd's json-file logging driver writes it "
            "(containers/<id>/<id>-json.log), or in one docker compose logs --timestamps file, "
            "or in one docker logs file per container",
            # worker 0 hosts the coordination service and checkpoints: the chief; no ps
            roles={"chief": "worker:0", "worker": "worker:1"},
            train_nodes=("worker:0", "worker:1", "worker:2"),
            progress_node="worker:0",
            step_re=r"step (\d+)/\d+ loss",
            steps=60,
            args=("--step-sleep", "0.1", "--epochs", "3", "--backup-dir", "{scratch}/backup"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--ckpt-rounds", "4"),
            ckpt_node="worker:0",
            ckpt_re=r"saving checkpoint .*ckpt-1\.h5$",
            timeout_args=("--collective-timeout", "5"),
            python_log=("worker:0", "worker:1"),
            pod_prefix=compose.PROJECT,
            feed_dtype="string",  # Keras casts int64 features to float32 without a word
            naming_start=0,
            config="compose",
            namings=compose.NAMINGS,
        ),
        Style(
            name="pss_systemd",
            script="pss_systemd.py",
            jobs=(("chief", 1), ("ps", 2), ("worker", 2)),
            cluster="chief + 2 ps + 2 workers on five bare hosts tfhost-0..tfhost-4, each task a "
            "systemd unit (tf-chief.service, tf-ps@0/1.service, tf-worker@0/1.service) "
            "(ParameterServerStrategy, custom training loop through ClusterCoordinator.schedule) "
            "from the TF_CONFIG in each unit's environment (the hosts' names and a port each); "
            "each task's output in its host's systemd journal (SYSLOG_IDENTIFIER python3), "
            "exported per host by journalctl -u <unit> in the short, short-precise or short-iso "
            "output, or in one file of every host's lines (journalctl -m, or a central rsyslog "
            "server's syslog file)",
            roles={"chief": "chief:0", "worker": "worker:1", "ps": "ps:0"},
            train_nodes=("chief:0",),
            progress_node="chief:0",
            step_re=r"step (\d+) loss",
            steps=60,
            args=("--step-sleep", "0.1"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--ckpt-rounds", "5"),
            ckpt_node="chief:0",
            ckpt_re=r"saving checkpoint .*ckpt-1$",
            # the coordinator's eager context: every remote op the chief issues
            timeout_args=("--op-timeout-ms", "5000"),
            python_log=("chief:0", "ps:1"),
            pod_prefix="tf",
            shape_dim="20",
            alt_args=("--image-format", "webp"),
            naming_start=0,
            config="systemd",
            namings=systemd.NAMINGS,
        ),
        Style(
            name="mwms_mpi",
            script="mwms_mpi.py",
            jobs=(("worker", 3),),
            cluster="3 ranks of one Open MPI mpirun on one host (MultiWorkerMirroredStrategy, "
            "custom training loop; each rank's script builds its TF_CONFIG from "
            "OMPI_COMM_WORLD_RANK and the job script's host:port list, rank 0 hosting the "
            "coordination service and checkpointing); each rank's output as mpirun "
            "--output-filename writes it (<dir>/1/rank.N/stdout and stderr, mpirun's own "
            "messages in mpirun.log), or in one file of mpirun --tag-output, or of --tag-output "
            "--timestamp-output, as the batch system captured mpirun's output",
            # rank 0 hosts the coordination service and checkpoints: the chief; the last rank
            # is the one an mpirun -np 2 never starts. Every fault is made inside the one
            # mpirun: a late rank's script waits before it starts (--start-delay), a missing
            # rank is mpirun -np 2 with three workers in the list, a rank's TF_CONFIG fault is
            # its own --workers / --task-index. Not recorded: preempt-worker-checkpoint (the
            # rank's TensorFlow catches the SIGTERM, logs 'SIGTERM caught' and goes on, and the
            # job ends cleanly within the 5 s grace: no preemption happened, twice); no HDF5
            # cell.
            roles={"chief": "worker:0", "worker": "worker:1", "last": "worker:2"},
            **_CUSTOM_LOOP,
            timeout_args=("--collective-timeout", "5"),
            preempt_args=("--preemption-checkpoint-dir", "{scratch}/preempt"),
            python_log=("worker:0", "worker:2"),
            pod_prefix="mwms-mpi",
            naming_start=0,
            config="mpi",
            namings=mpi.NAMINGS,
        ),
        Style(
            name="mwms_spark",
            script="mwms_spark.py",
            jobs=(("worker", 3),),
            cluster="3 tasks of one barrier stage on a real Apache Spark standalone cluster "
            "(pyspark 4's bundled Spark: a master and worker daemons on 127.0.0.1, the "
            "application run by spark-submit in client mode); each barrier task learns its "
            "partition id and its peers' addresses from BarrierTaskContext (getTaskInfos() and "
            "an allGather of a free port), builds TF_CONFIG (worker <partition>) and runs "
            "MultiWorkerMirroredStrategy with a custom training loop as a child process of the "
            "executor's Python worker, worker 0 hosting the coordination service and "
            "checkpointing; every task's output as Spark leaves it: in its executor's "
            "work/<app-id>/<executor-id>/stderr (beside the executor's own log4j lines), with "
            "the driver's output and, for two thirds of the runs, the master's and workers' "
            "daemon logs",
            # worker 0 hosts the coordination service and checkpoints: the chief; the last
            # partition is the one a two-partition stage leaves out. TensorFlow runs in a child
            # of the barrier task's Python worker (as TensorFlowOnSpark's background mode and
            # Horovod's Spark runner run theirs; spark-tensorflow-distributor runs it in the
            # Python worker itself): its stdout and stderr are the Python worker's, which Spark
            # copies into the executor's stderr; the child gets SIGTERM when the Python worker
            # goes (PR_SET_PDEATHSIG). The barrier stage is a ResultStage (collect()): when a
            # task fails Spark kills the others and aborts the job ('Could not recover from a
            # failed barrier ResultStage'), no retry, so each run has one attempt. A missing
            # task is a stage of two partitions whose tasks' TF_CONFIG lists a third worker
            # (barrier mode gang-schedules: Spark starts all of a stage's tasks or none); a port
            # bound is the free port a barrier task picked and released, taken by another
            # process before its TensorFlow worker bound it; an executor lost is SIGKILL to the
            # executor JVM that hosts the target. Not recorded: preempt-worker-checkpoint (the
            # task's TensorFlow caught the SIGTERM and ended with exit 0, twice); no HDF5 cell.
            roles={"chief": "worker:0", "worker": "worker:1", "last": "worker:2"},
            **_CUSTOM_LOOP,
            timeout_args=("--collective-timeout", "5"),
            preempt_args=("--preemption-checkpoint-dir", "{scratch}/preempt"),
            python_log=("worker:0", "worker:2"),
            pod_prefix="mwms-spark",
            naming_start=0,
            config="spark",
            namings=spark.NAMINGS,
        ),
        Style(
            name="mwms_ray",
            script="mwms_ray.py",
            jobs=(("worker", 3),),
            cluster="3 Ray Train workers of one TensorflowTrainer (Ray 2.60, Train V2) on a real "
            "Ray cluster (ray start --head on this host, 4 logical CPUs; the driver script "
            "connected by ray.init); Ray Train's TensorFlow backend gathers a free port of each "
            "worker and sets TF_CONFIG (worker <world rank>) in each RayTrainWorker actor, whose "
            "train_loop_per_worker runs MultiWorkerMirroredStrategy with a custom training loop "
            "in the actor's own process, worker 0 hosting the coordination service and "
            "checkpointing; every worker's output as Ray leaves it: the driver's console "
            "(each actor's lines behind '(RayTrainWorker pid=N)', deduplicated by Ray), Ray's "
            "session log folder (worker-<id>-<job>-<pid>.out/.err per worker process, "
            "raylet.out, gcs_server.out, python-core-worker-*.log, ...), or both",
            # world rank 0 hosts the coordination service and checkpoints: the chief; the last
            # rank is the one a two-worker trainer leaves out. The training runs in Ray Train's
            # training thread of the RayTrainWorker actor process (not a child process): a
            # kill or a SIGTERM goes to that actor process. Ray Train's FailureConfig default
            # (max_failures=0) is kept: a failed worker fails the run (TrainingFailedError at
            # the driver) and Ray Train tears the worker group down, no retry. A missing task
            # is a trainer of two workers whose TF_CONFIG lists a third; a spec fault is the
            # train function's edit of the TF_CONFIG Ray Train set (a peer's port, a worker
            # added, another index); two tasks on one port are both workers' TF_CONFIG given
            # one port; a port bound is the free port Ray Train picked for the target, taken
            # by another process before its TensorFlow worker bound it (the target's training
            # starts 3 s after the others': its TensorFlow is imported with Ray Train's
            # backend, so it binds within a second of Ray Train's pick). Every worker saving
            # its weights into one shared HDF5 file (hdf5_lock, hdf5_nolock) is the common
            # mistake of saving from every rank, not rank 0. Not recorded: preempt (SIGTERM
            # to a worker's process at any phase: TensorFlow's preemption notifier, which
            # replaces Ray's SIGTERM handler, logs 'SIGTERM caught' and the training goes on
            # to its end within the 5 s grace, every worker's training returning, three runs
            # of three; PreemptionCheckpointHandler cannot be used, its signal.signal fails
            # in Ray Train's training thread: 'signal only works in main thread', twice);
            # preempt_job (SIGTERM to the driver) is recorded. The session folder is copied whole (no Ray file dropped). Not recorded: version
            # (one Ray cluster runs one interpreter for its workers, and Ray and its workers
            # must be of one Ray and Python release: TensorFlow 2.15 with Ray 2.60 is not
            # installable beside it); healthy_old, kill_old (the same); no HDF5 cell.
            roles={"chief": "worker:0", "worker": "worker:1", "last": "worker:2"},
            **_CUSTOM_LOOP,
            timeout_args=("--collective-timeout", "5"),
            python_log=("worker:0", "worker:2"),
            pod_prefix="mwms-ray",
            naming_start=0,
            python=(RAY_PYTHON_ENV, RAY_CANDIDATES),
            release="2.21",
            config="ray",
            namings=raylab.NAMINGS,
        ),
        Style(
            name="tf1_supervisord",
            script="tf1_training.py",
            jobs=(("ps", 1), ("worker", 2)),
            cluster="1 ps + 2 workers (tf.compat.v1.train.Server + MonitoredTrainingSession, "
            "between-graph replication, worker 0 the chief) on a bare host run by one real "
            "supervisord (Supervisor 4.3, supervisord -c <conf>, nodaemon): each task a "
            "[program:tf-ps-0] / [program:tf-worker-N] with its TF_CONFIG in environment=, "
            "autorestart=false, stopwaitsecs=5, started and stopped with supervisorctl over a "
            "unix socket; each task's output as supervisord writes it: stdout_logfile=AUTO and "
            "stderr_logfile=AUTO in childlogdir (<program>-stdout---supervisor-<random>.log, "
            "-stderr---...), or redirect_stderr=true into <program>.log, or the same rotated by "
            "supervisord (.log.1, .log.2, ...), beside supervisord's own supervisord.log",
            # the TF1 task program of the tf1 style, unchanged; worker 0 is the chief. A
            # preemption is supervisorctl stop <program> (SIGTERM, SIGKILL after stopwaitsecs);
            # a job cancelled as a whole (preempt_job) is SIGTERM to supervisord, its host going
            # down, which stops every program itself; the job's time limit and its end are the
            # operator's supervisorctl stop all (then supervisorctl shutdown). A task started
            # late is a program with autostart=false that supervisorctl start starts; a missing
            # task is a program the configuration lacks. supervisord sends no SIGCONT: a frozen
            # task outlives the SIGTERM and is SIGKILLed after stopwaitsecs.
            roles={"chief": "worker:0", "worker": "worker:1", "ps": "ps:0"},
            train_nodes=("worker:0", "worker:1"),
            progress_node="worker:0",
            step_re=r"global_step (\d+) loss",
            # 300 steps, not tf1's 90: a worker that asks before the chief initialized the
            # variables waits MonitoredTrainingSession's 30 s (recovery_wait_secs) and must
            # still find the training going (a first try lost that race: the chief had ended)
            steps=300,
            args=("--step-sleep", "0.1"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--save-checkpoint-steps", "60"),
            ckpt_node="worker:0",
            ckpt_re=r"Saving checkpoints for [1-9]\d* into",
            timeout_args=("--op-timeout-ms", "5000"),
            python_log=("worker:1",),
            pod_prefix="tf",
            naming_start=0,
            config="supervisord",
            namings=supervisord.NAMINGS,
        ),
        Style(
            name="mwms_honcho",
            script="mwms_training.py",
            jobs=(("worker", 3),),
            cluster="3 workers (MultiWorkerMirroredStrategy, custom training loop, worker 0 "
            "hosting the coordination service and checkpointing) on a bare host run by one real "
            "honcho (2.0, the Python port of foreman, honcho start): each task a Procfile line "
            "(worker0: env TF_CONFIG=... python -u mwms_training.py ..., honcho's processes "
            "worker0.1, worker1.1, worker2.1) or, for a third of the runs, one process type run "
            "with -c worker=3 (worker.1..worker.3, TF_CONFIG built from HONCHO_PROCESS_NAME); "
            "when one process stops honcho stops the others (SIGTERM, SIGKILL 5 s later); the "
            "log is honcho's merged output ('HH:MM:SS <name> | ' before each process's line, "
            "its own 'HH:MM:SS system | ' lines) in honcho.log, or the same with honcho's "
            "colours as a terminal captured it, or with each process's output also teed to "
            "logs/<name>.log by its Procfile command",
            # the task program of mwms_ctl / mwms_mpi, unchanged (with -c, through the small
            # mwms_honcho.py wrapper that builds TF_CONFIG from honcho's process name). A
            # preemption is SIGTERM to the target's python (SIGKILL after 5 s); a job cancelled
            # as a whole (preempt_job) and the job's time limit are SIGTERM to honcho (the
            # terminal's Ctrl-C, the CI's cancel), which stops every process itself. A task
            # started late waits in its Procfile command (sleep 15 && ...); a missing task is a
            # Procfile without it (-c worker=2 with three workers in the list).
            roles={"chief": "worker:0", "worker": "worker:1", "last": "worker:2"},
            **_CUSTOM_LOOP,
            timeout_args=("--collective-timeout", "5"),
            preempt_args=("--preemption-checkpoint-dir", "{scratch}/preempt"),
            python_log=("worker:0", "worker:2"),
            pod_prefix="mwms-honcho",
            naming_start=0,
            config="honcho",
            namings=honcho.NAMINGS,
        ),
        Style(
            name="pss_parallel",
            script="pss_parallel.py",
            jobs=(("chief", 1), ("ps", 2), ("worker", 2)),
            cluster="chief + 2 ps + 2 workers (ParameterServerStrategy, custom training loop "
            "through ClusterCoordinator.schedule) on one bare host run by one real GNU parallel "
            "(20221122): parallel -j 0 'python -u pss_parallel.py --spec job.json --job {1} "
            "--index {2} ...' ::: chief ps ps worker worker :::+ 0 0 1 0 1, each job's script "
            "building its TF_CONFIG from its arguments and the spec's cluster; parallel's "
            "default halt (it waits for every job; the operator ends the job once the chief "
            "has exited, SIGTERM to parallel) or --halt now,fail=1 (the first failed job makes "
            "parallel kill the others); the output as parallel leaves it: --tag --line-buffer "
            "into parallel.log ('worker 1\\t' before each job's line), or --results results/ "
            "(results/1/<job>/2/<index>/stdout, stderr, seq), or --joblog joblog.tsv --files "
            "(each job's output in outputs/parXXXXX.par)",
            # the task program of pss_systemd (its training, its operation timeout) behind a
            # small wrapper that builds TF_CONFIG from parallel's arguments. A preemption is
            # SIGTERM to the target's python (SIGKILL after 5 s); a job cancelled as a whole
            # (preempt_job) and the job's time limit are SIGTERM to parallel, which stops every
            # job itself (--termseq). A task started late waits in its script (the spec's
            # delay); a missing task is an input line left out (its address still in the
            # cluster).
            roles={"chief": "chief:0", "worker": "worker:1", "ps": "ps:0"},
            train_nodes=("chief:0",),
            progress_node="chief:0",
            step_re=r"step (\d+) loss",
            steps=60,
            args=("--step-sleep", "0.1"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--ckpt-rounds", "5"),
            ckpt_node="chief:0",
            ckpt_re=r"saving checkpoint .*ckpt-1$",
            # the coordinator's eager context: every remote op the chief issues
            timeout_args=("--op-timeout-ms", "5000"),
            python_log=("chief:0", "ps:1"),
            pod_prefix="tf",
            shape_dim="20",
            alt_args=("--image-format", "webp"),
            naming_start=0,
            config="parallel",
            namings=gnu_parallel.NAMINGS,
        ),
        Style(
            name="mwms_pdsh",
            script="mwms_training.py",
            jobs=(("worker", 3),),
            cluster="3 workers (MultiWorkerMirroredStrategy, custom training loop, worker 0 "
            "hosting the coordination service and checkpointing) on one bare host run by one "
            "real pdsh (2.34) with its exec rcmd module (no ssh): pdsh -R exec -w worker[0-2] "
            "bash -c 'python -u mwms_pdsh.py --spec job.json --host %h ...', each host's "
            "command building its TF_CONFIG from the host name pdsh puts for %h; pdsh stops "
            "nothing when one command fails (it exits once every command has); the output as "
            "pdsh leaves it: every line behind '<host>: ', pdsh's own 'pdsh@<hostname>: <host>: "
            "...' lines among them, in pdsh.log, or the same grouped per host by dshbak "
            "(pdsh ... 2>&1 | dshbak [-c] > pdsh.log), or with each host's output also teed to "
            "logs/<host>.log by its command",
            # the task program of mwms_ctl / mwms_honcho, unchanged, behind a small wrapper
            # (mwms_pdsh.py) that builds TF_CONFIG from pdsh's %h. A preemption is SIGTERM to
            # the target's python (SIGKILL after 5 s); a job cancelled as a whole (preempt_job)
            # is SIGTERM to pdsh and to its commands at once (a batch system's cancel of the
            # job's cgroup; pdsh alone dies and leaves them training on, unread); the job's
            # time limit (and the operator's end of a job that outlived its training) is two
            # Ctrl-C's at pdsh's terminal (SIGINT twice: pdsh sends SIGINT to every command still
            # running and aborts). A task started late waits in its script (the spec's delay);
            # a missing task is a host left out of -w (its address still in the cluster).
            roles={"chief": "worker:0", "worker": "worker:1", "last": "worker:2"},
            **_CUSTOM_LOOP,
            timeout_args=("--collective-timeout", "5"),
            preempt_args=("--preemption-checkpoint-dir", "{scratch}/preempt"),
            python_log=("worker:0", "worker:2"),
            pod_prefix="mwms-pdsh",
            naming_start=0,
            config="pdsh",
            namings=pdsh.NAMINGS,
        ),
        Style(
            name="mwms_runit",
            script="mwms_training.py",
            jobs=(("worker", 3),),
            cluster="3 workers (MultiWorkerMirroredStrategy, custom training loop, worker 0 "
            "hosting the coordination service and checkpointing) on one bare host run as runit "
            "services by a real runit (2.1.2: runsvdir on a private service directory, one "
            "runsv per service): each task a service tf-worker-N whose run script exports its "
            "TF_CONFIG and execs python -u mwms_training.py ... (exec 2>&1), with a down file "
            "and started by sv once (a batch task: runsv does not restart it when it stops), "
            "its output logged by runit's own svlogd through log/run; the logs as an operator "
            "collects /var/log: each service's svlogd directory var/log/tf-worker-N/ with "
            "current, its lines behind svlogd -tt UTC stamps (YYYY-MM-DD_HH:MM:SS.xxxxx) or "
            "svlogd -t TAI64N stamps (@4000...), or rotated by svlogd (s4096 in its config) "
            "into several @<tai64n>.s files beside current",
            # the task program of mwms_ctl / mwms_pdsh, unchanged (TF_CONFIG from the run
            # script's export). A preemption is sv term tf-worker-N (SIGTERM to the python,
            # runsv's child; SIGKILL after 5 s if it is still there); a job cancelled as a whole
            # (preempt_job) is the host going down as runit's stage 3 takes it: sv -w 7
            # force-stop of every service (TERM and CONT, KILL after 7 s), then sv exit; the
            # job's time limit and the operator's end of a job are sv -w 7 force-stop of the
            # services still running, then sv exit and SIGHUP to runsvdir. runit writes no line
            # of its own into the logs. A task started late is a later sv once; a missing task
            # is a service the operator did not write (its address still in the cluster).
            roles={"chief": "worker:0", "worker": "worker:1", "last": "worker:2"},
            **_CUSTOM_LOOP,
            timeout_args=("--collective-timeout", "5"),
            preempt_args=("--preemption-checkpoint-dir", "{scratch}/preempt"),
            python_log=("worker:0", "worker:2"),
            pod_prefix="mwms-runit",
            naming_start=0,
            config="runit",
            namings=runit.NAMINGS,
        ),
        Style(
            name="mwms_tmux",
            script="mwms_keras.py",
            jobs=(("worker", 3),),
            cluster="3 workers (MultiWorkerMirroredStrategy, tf.keras Model.fit with its "
            "interactive progress bar, worker 0 hosting the coordination service and "
            "checkpointing) on one bare host run by hand in a real tmux (3.3a): one detached "
            "session on a private socket, one window per task (worker-0..worker-2), each "
            "window's login shell getting 'export TF_CONFIG=...; python -u mwms_keras.py ...' "
            "typed into it (tmux send-keys); the output through each window's pty (CRLF line "
            "ends, Keras's \\r/\\b progress-bar redraws), recorded raw as a tmux user "
            "collects it: tmux pipe-pane -o 'cat >> logs/#{window_name}.log' set before the "
            "command, or the command run under util-linux script -q -f "
            "logs/worker-N.typescript (its header and footer lines), or no log during the run "
            "and each window's history saved at the end with tmux capture-pane -p -J -S - > "
            "logs/worker-N.txt (history-limit 2000, remain-on-exit on)",
            # the task program of mwms_keras / mwms_compose with --fit-verbose 1 (fit's progress
            # bar; its default stays 2). The operator's Ctrl-C is tmux send-keys C-c (SIGINT to
            # the window's foreground python: KeyboardInterrupt); the job's time limit is a
            # Ctrl-C in every window whose python still runs; the operator's end of a job is a
            # Ctrl-C in the windows still running, 7 s, the windows saved (capture layout),
            # then tmux kill-server (SIGHUP to every pane's shell, which hangs up its jobs); a
            # job cancelled as a whole (preempt_job) is tmux kill-session mid-training (the
            # capture layout's windows saved just before). A preemption is SIGTERM from outside
            # to the task's python (as a host's preemption; SIGKILL after the grace), a kill
            # its SIGKILL, a stall SIGSTOP (its shell then reports it Stopped). tmux writes no
            # line of its own into the logs. A task started late is a command typed into its
            # window later; a missing task is a window the operator never opened (its address
            # still in the cluster). No preemption handler: mwms_keras has none (as
            # mwms_compose), so a SIGTERM ends the python at once.
            roles={"chief": "worker:0", "worker": "worker:1", "last": "worker:2"},
            train_nodes=("worker:0", "worker:1", "worker:2"),
            progress_node="worker:0",
            step_re=r"step (\d+)/\d+ loss",
            steps=60,
            args=("--step-sleep", "0.1", "--epochs", "3", "--fit-verbose", "1"),
            ckpt_args=("--ckpt-dir", "{scratch}/ckpt", "--ckpt-rounds", "4"),
            ckpt_node="worker:0",
            ckpt_re=r"saving checkpoint .*ckpt-1\.h5$",
            timeout_args=("--collective-timeout", "5"),
            python_log=("worker:0", "worker:1", "worker:2"),
            pod_prefix="mwms-tmux",
            feed_dtype="string",  # Keras casts int64 features to float32 without a word
            naming_start=0,
            config="tmux",
            namings=tmuxlab.NAMINGS,
        ),
    ]
}

# Styles that run on the lab venv's TensorFlow (the faults on "the older release" need them).
LAB_VENV_STYLES = tuple(s.name for s in STYLES.values() if s.python is None)

# What the launcher waits for before it injects a phase's fault.
PHASES: dict[str, str] = {
    "startup": "before training: right after the target's gRPC server started "
    "('Started server with target'), or at launch for configuration faults",
    "training": "mid-training: once the progress node logged a third of its steps",
    "checkpoint": "at checkpoint/shutdown time: once the checkpointing node logged its "
    "first checkpoint line after training",
    "full": "no fault: the whole run",
}

FAMILIES = (
    "healthy",
    "crash",
    "preemption",
    "stall/hang",
    "straggler",
    "oom",
    "network/port",
    "cluster_spec",
    "startup/late/missing",
    "data",
    "version",
    "concurrent_write",
)

ANY_ERROR = (
    r"Error|UNAVAILABLE|DEADLINE_EXCEEDED|Socket closed|Connection reset|"
    r"failed to connect|CreateSession still waiting|Waiting for \d+/\d+ tasks"
)
BIND_ERROR = r"Failed to add port|Could not start gRPC server|Address already in use"


@dataclass(frozen=True)
class Fault:
    name: str
    family: str
    category: str  # taxonomy id ("decide" = settled by what really happened)
    kind: str  # none|signal|args|tfconfig|missing|late|squatter|dup_port|alt|hdf5
    description: str
    plan: tuple[tuple[str, str, str], ...]  # (style, role, phase) cells
    sig: int = 0
    args: tuple[str, ...] = ()
    all_args: str = ""  # "timeout" -> the style's timeout_args on every node
    evidence: tuple[tuple[str, str], ...] = ()  # (node spec, regex); target/peers/any
    exit_code: int | None = None  # the target's expected exit code
    ended_by_launcher: bool = False  # the run must stall until the launcher ends it
    must_fail: bool = False  # some node must fail (exit != 0) or stall
    env: tuple[tuple[str, str], ...] = ()
    variants: int = 1
    style_variants: tuple[tuple[str, int], ...] = ()  # (style, variants) overrides

    def variants_of(self, style: str) -> int:
        return dict(self.style_variants).get(style, self.variants)


def _all(role: str, phase: str, styles=tuple(STYLES)) -> tuple[tuple[str, str, str], ...]:
    return tuple((s, role, phase) for s in styles)


FAULTS: dict[str, Fault] = {
    f.name: f
    for f in [
        Fault(
            "healthy",
            "healthy",
            "none",
            "none",
            "No fault: the job trains to its last step and every task ends cleanly.",
            _all("none", "full"),
            variants=2,
            # estimator has no older release to run healthy_old on: a third healthy run
            style_variants=(
                ("estimator", 3),
                ("data_service", 3),
                ("dtensor", 3),
                ("estimator_mwms", 3),
                ("tfjob_k8s", 3),
                ("mwms_compose", 3),
                ("pss_systemd", 3),
                ("pss_parallel", 3),
                ("mwms_mpi", 3),
                ("mwms_spark", 3),
                ("mwms_ray", 3),
                ("tf1_supervisord", 3),
                ("mwms_honcho", 3),
                ("mwms_pdsh", 3),
                ("mwms_runit", 3),
                ("mwms_tmux", 3),
            ),
        ),
        Fault(
            "healthy_old",
            "healthy",
            "none",
            "old",
            "No fault, every task on the older TensorFlow release.",
            _all("none", "full", LAB_VENV_STYLES),
        ),
        Fault(
            "kill",
            "crash",
            "node_crash",
            "signal",
            "The target task is SIGKILLed (an OOM killer, a node going away).",
            (
                ("tf1", "ps", "training"),
                ("tf1", "worker", "training"),
                ("tf1", "chief", "training"),
                ("pss", "ps", "training"),
                ("pss", "worker", "training"),
                ("pss", "chief", "training"),
                ("mwms_ctl", "worker", "training"),
                ("mwms_ctl", "chief", "training"),
                ("mwms_keras", "worker", "training"),
                ("mwms_keras", "chief", "training"),
                ("pss_keras", "ps", "training"),
                ("pss_keras", "worker", "training"),
                ("pss_keras", "chief", "training"),
                *_all("worker", "startup"),
                ("tf1", "ps", "checkpoint"),
                ("pss", "ps", "checkpoint"),
                ("mwms_ctl", "worker", "checkpoint"),
                ("mwms_keras", "worker", "checkpoint"),
                ("pss_keras", "ps", "checkpoint"),
                ("tf1_sync", "ps", "startup"),
                ("tf1_sync", "chief", "startup"),
                ("tf1_sync", "ps", "training"),
                ("tf1_sync", "worker", "training"),
                ("tf1_sync", "chief", "training"),
                ("tf1_sync", "ps", "checkpoint"),
                ("tf1_sync", "worker", "checkpoint"),
                ("tf1_sync", "chief", "checkpoint"),
                ("tf1_supervisor", "chief", "startup"),
                ("tf1_supervisor", "ps", "training"),
                ("tf1_supervisor", "worker", "training"),
                ("tf1_supervisor", "chief", "training"),
                ("tf1_supervisor", "chief", "checkpoint"),
                ("estimator", "chief", "startup"),
                ("estimator", "ps", "startup"),
                ("estimator", "ps", "training"),
                ("estimator", "worker", "training"),
                ("estimator", "chief", "training"),
                ("estimator", "chief", "checkpoint"),
                ("estimator", "ps", "checkpoint"),
                ("tf1_ingraph", "chief", "startup"),
                ("tf1_ingraph", "ps", "startup"),
                # a second worker lost at start-up (the first is in _all("worker", "startup")
                # above): listed by mistake, recorded (pod naming) and kept as a variant
                ("tf1_ingraph", "worker", "startup"),
                ("tf1_ingraph", "ps", "training"),
                ("tf1_ingraph", "worker", "training"),
                ("tf1_ingraph", "chief", "training"),
                ("tf1_ingraph", "chief", "checkpoint"),
                ("tf1_ingraph", "ps", "checkpoint"),
                ("tf1_ingraph", "worker", "checkpoint"),
                ("data_service", "ps", "startup"),
                ("data_service", "data_worker", "startup"),
                ("data_service", "ps", "training"),
                ("data_service", "data_worker", "training"),
                ("data_service", "worker", "training"),
                ("data_service", "chief", "training"),
                ("data_service", "ps", "checkpoint"),
                ("data_service", "data_worker", "checkpoint"),
                ("data_service", "chief", "checkpoint"),
                ("dtensor", "chief", "startup"),
                ("dtensor", "worker", "training"),
                ("dtensor", "chief", "training"),
                ("dtensor", "worker", "checkpoint"),
                ("dtensor", "chief", "checkpoint"),
                ("pss_sharded", "ps", "startup"),
                ("pss_sharded", "evaluator", "startup"),
                ("pss_sharded", "ps", "training"),
                ("pss_sharded", "worker", "training"),
                ("pss_sharded", "chief", "training"),
                ("pss_sharded", "evaluator", "training"),
                ("pss_sharded", "ps", "checkpoint"),
                ("pss_sharded", "evaluator", "checkpoint"),
                ("pss_sharded", "chief", "checkpoint"),
                ("estimator_mwms", "chief", "startup"),
                ("mwms_slurm", "chief", "startup"),
                ("estimator_mwms", "worker", "training"),
                ("mwms_slurm", "worker", "training"),
                ("estimator_mwms", "chief", "training"),
                ("mwms_slurm", "chief", "training"),
                ("estimator_mwms", "worker", "checkpoint"),
                ("mwms_slurm", "worker", "checkpoint"),
                ("estimator_mwms", "chief", "checkpoint"),
                ("mwms_slurm", "chief", "checkpoint"),
                # tfjob_k8s: every role at each phase (its worker at start-up is in _all above)
                ("tfjob_k8s", "chief", "startup"),
                ("tfjob_k8s", "ps", "startup"),
                ("tfjob_k8s", "chief", "training"),
                ("tfjob_k8s", "ps", "training"),
                ("tfjob_k8s", "worker", "training"),
                ("tfjob_k8s", "chief", "checkpoint"),
                ("tfjob_k8s", "ps", "checkpoint"),
                ("tfjob_k8s", "worker", "checkpoint"),
                # mwms_compose: each role at each phase (its worker at start-up is in _all)
                ("mwms_compose", "chief", "startup"),
                ("mwms_compose", "worker", "training"),
                ("mwms_compose", "chief", "training"),
                ("mwms_compose", "worker", "checkpoint"),
                ("mwms_compose", "chief", "checkpoint"),
                # pss_systemd: every role at each phase (its worker at start-up is in _all)
                ("pss_systemd", "chief", "startup"),
                ("pss_parallel", "chief", "startup"),
                ("pss_systemd", "ps", "startup"),
                ("pss_parallel", "ps", "startup"),
                ("pss_systemd", "chief", "training"),
                ("pss_parallel", "chief", "training"),
                ("pss_systemd", "ps", "training"),
                ("pss_parallel", "ps", "training"),
                ("pss_systemd", "worker", "training"),
                ("pss_parallel", "worker", "training"),
                ("pss_systemd", "chief", "checkpoint"),
                ("pss_parallel", "chief", "checkpoint"),
                ("pss_systemd", "ps", "checkpoint"),
                ("pss_parallel", "ps", "checkpoint"),
                ("pss_systemd", "worker", "checkpoint"),
                ("pss_parallel", "worker", "checkpoint"),
                # mwms_mpi: each role at each phase (its worker at start-up is in _all)
                ("mwms_mpi", "chief", "startup"),
                ("mwms_mpi", "worker", "training"),
                ("mwms_mpi", "chief", "training"),
                ("mwms_mpi", "worker", "checkpoint"),
                ("mwms_mpi", "chief", "checkpoint"),
                # mwms_spark: each role at each phase (its worker at start-up is in _all)
                ("mwms_spark", "chief", "startup"),
                ("mwms_ray", "chief", "startup"),
                ("mwms_spark", "worker", "training"),
                ("mwms_ray", "worker", "training"),
                ("mwms_spark", "chief", "training"),
                ("mwms_ray", "chief", "training"),
                ("mwms_spark", "worker", "checkpoint"),
                ("mwms_ray", "worker", "checkpoint"),
                ("mwms_spark", "chief", "checkpoint"),
                ("mwms_ray", "chief", "checkpoint"),
                # tf1_supervisord: every role mid-training, the ps and the chief at the
                # checkpoint (its worker at start-up is in _all above)
                ("tf1_supervisord", "ps", "training"),
                ("tf1_supervisord", "worker", "training"),
                ("tf1_supervisord", "chief", "training"),
                ("tf1_supervisord", "ps", "checkpoint"),
                ("tf1_supervisord", "chief", "checkpoint"),
                # mwms_honcho: each role at each phase (its worker at start-up is in _all)
                ("mwms_honcho", "chief", "startup"),
                ("mwms_pdsh", "chief", "startup"),
                ("mwms_runit", "chief", "startup"),
                ("mwms_tmux", "chief", "startup"),
                ("mwms_honcho", "worker", "training"),
                ("mwms_pdsh", "worker", "training"),
                ("mwms_runit", "worker", "training"),
                ("mwms_tmux", "worker", "training"),
                ("mwms_honcho", "chief", "training"),
                ("mwms_pdsh", "chief", "training"),
                ("mwms_runit", "chief", "training"),
                ("mwms_tmux", "chief", "training"),
                ("mwms_honcho", "worker", "checkpoint"),
                ("mwms_pdsh", "worker", "checkpoint"),
                ("mwms_runit", "worker", "checkpoint"),
                ("mwms_tmux", "worker", "checkpoint"),
                ("mwms_honcho", "chief", "checkpoint"),
                ("mwms_pdsh", "chief", "checkpoint"),
                ("mwms_runit", "chief", "checkpoint"),
                ("mwms_tmux", "chief", "checkpoint"),
            ),
            sig=signal.SIGKILL,
            exit_code=-9,
        ),
        Fault(
            "kill_old",
            "crash",
            "node_crash",
            "signal+old",
            "Every task on the older TensorFlow release; the target is SIGKILLed.",
            _all("worker", "training", LAB_VENV_STYLES),
            sig=signal.SIGKILL,
            exit_code=-9,
        ),
        Fault(
            "preempt",
            "preemption",
            "preemption",
            "signal",
            "The target receives SIGTERM as a scheduler's preemption notice.",
            _all("worker", "training")
            + _all("worker", "checkpoint")
            + (
                ("tf1_sync", "chief", "training"),
                ("tf1_supervisor", "chief", "training"),
                ("estimator", "chief", "training"),
                ("tf1_ingraph", "chief", "training"),
                ("data_service", "chief", "training"),
                ("data_service", "ps", "training"),
                ("data_service", "data_worker", "training"),
                ("dtensor", "chief", "training"),
                ("pss_sharded", "chief", "training"),
                ("pss_sharded", "ps", "training"),
                ("pss_sharded", "evaluator", "training"),
                ("estimator_mwms", "chief", "training"),
                ("mwms_slurm", "chief", "training"),
                ("tfjob_k8s", "chief", "training"),
                ("tfjob_k8s", "ps", "training"),
                ("mwms_compose", "chief", "training"),
                ("pss_systemd", "chief", "training"),
                ("pss_parallel", "chief", "training"),
                ("pss_systemd", "ps", "training"),
                ("pss_parallel", "ps", "training"),
                ("mwms_mpi", "chief", "training"),
                ("mwms_spark", "chief", "training"),
                ("mwms_ray", "chief", "training"),
                ("tf1_supervisord", "chief", "training"),
                ("mwms_honcho", "chief", "training"),
                ("mwms_pdsh", "chief", "training"),
                ("mwms_runit", "chief", "training"),
                ("mwms_tmux", "chief", "training"),
            ),
            sig=signal.SIGTERM,
            evidence=(),
        ),
        Fault(
            "preempt_job",
            "preemption",
            "preemption",
            "job_signal",
            "The scheduler cancels the job: SIGTERM to the job's launcher process (mpirun, the "
            "batch script's process; spark-submit, the Spark driver), which ends every task; "
            "the chief (rank 0, worker 0) is named as the first to go.",
            (
                ("mwms_mpi", "chief", "training"),
                ("mwms_spark", "chief", "training"),
                ("mwms_ray", "chief", "training"),
                # SIGTERM to supervisord (its host going down): it stops every program
                ("tf1_supervisord", "chief", "training"),
                # SIGTERM to honcho (the terminal's Ctrl-C, the CI's cancel): it stops all
                ("mwms_honcho", "chief", "training"),
                ("mwms_pdsh", "chief", "training"),
                ("mwms_runit", "chief", "training"),
                ("mwms_tmux", "chief", "training"),
                # SIGTERM to GNU parallel (the CI's cancel): it stops every job (--termseq)
                ("pss_parallel", "chief", "training"),
            ),
            sig=signal.SIGTERM,
        ),
        Fault(
            "stall_deadline",
            "stall/hang",
            "decide",
            "signal",
            "The target is frozen with SIGSTOP while every task runs with a collective / "
            "operation timeout of 5 s.",
            (
                ("tf1", "ps", "training"),
                ("tf1", "ps", "checkpoint"),
                ("mwms_ctl", "worker", "training"),
                ("mwms_ctl", "chief", "training"),
                ("mwms_keras", "worker", "training"),
                ("mwms_keras", "chief", "checkpoint"),
                ("tf1_sync", "worker", "training"),
                ("tf1_supervisor", "ps", "training"),
                ("estimator", "ps", "training"),
                ("tf1_ingraph", "ps", "training"),
                ("tf1_ingraph", "worker", "training"),
                ("data_service", "ps", "training"),
                ("data_service", "data_worker", "training"),
                ("data_service", "worker", "training"),
                # not dtensor: DTensor sets no collective timeout (its all-reduces have none,
                # the context's operation timeout does not reach them), so a frozen client is
                # only caught by the coordination service's heartbeat check, as in stall_notimeout
                # pss_sharded: the coordinator's context with an operation timeout
                ("pss_sharded", "ps", "training"),
                ("estimator_mwms", "worker", "training"),
                ("mwms_slurm", "worker", "training"),
                ("estimator_mwms", "chief", "training"),
                ("mwms_slurm", "chief", "training"),
                # tfjob_k8s: the chief's operation timeout (the coordinator's context)
                ("tfjob_k8s", "ps", "training"),
                ("tfjob_k8s", "worker", "training"),
                ("mwms_compose", "worker", "training"),
                ("mwms_compose", "chief", "training"),
                # pss_systemd: the chief's operation timeout (the coordinator's context)
                ("pss_systemd", "ps", "training"),
                ("pss_parallel", "ps", "training"),
                ("pss_systemd", "worker", "training"),
                ("pss_parallel", "worker", "training"),
                ("mwms_mpi", "worker", "training"),
                ("mwms_honcho", "worker", "training"),
                ("mwms_pdsh", "worker", "training"),
                ("mwms_runit", "worker", "training"),
                ("mwms_tmux", "worker", "training"),
                ("mwms_spark", "worker", "training"),
                ("mwms_ray", "worker", "training"),
                ("mwms_mpi", "chief", "training"),
                ("mwms_honcho", "chief", "training"),
                ("mwms_pdsh", "chief", "training"),
                ("mwms_runit", "chief", "training"),
                ("mwms_tmux", "chief", "training"),
                ("mwms_spark", "chief", "training"),
                ("mwms_ray", "chief", "training"),
                ("tf1_supervisord", "ps", "training"),
                ("tf1_supervisord", "worker", "training"),
            ),
            sig=signal.SIGSTOP,
            all_args="timeout",
        ),
        Fault(
            "stall_notimeout",
            "stall/hang",
            "decide",
            "signal",
            "The target is frozen with SIGSTOP and no collective/RPC timeout is set; the "
            "launcher ends the job once it stops making progress (hang), unless the "
            "coordination service's heartbeat check gives up on the frozen task first "
            "(coordination_failure).",
            (
                ("tf1", "ps", "training"),
                ("pss", "ps", "training"),
                ("pss", "worker", "training"),
                ("mwms_ctl", "worker", "training"),
                ("mwms_keras", "worker", "training"),
                ("mwms_ctl", "worker", "checkpoint"),
                ("pss_keras", "ps", "training"),
                ("pss_keras", "worker", "training"),
                ("tf1_sync", "ps", "training"),
                ("tf1_sync", "worker", "training"),
                ("tf1_supervisor", "ps", "training"),
                ("estimator", "ps", "training"),
                ("tf1_ingraph", "ps", "training"),
                ("tf1_ingraph", "worker", "training"),
                ("data_service", "ps", "training"),
                ("data_service", "data_worker", "training"),
                ("data_service", "worker", "training"),
                ("dtensor", "worker", "training"),
                ("dtensor", "chief", "training"),
                ("pss_sharded", "ps", "training"),
                ("pss_sharded", "worker", "training"),
                ("estimator_mwms", "worker", "training"),
                ("mwms_slurm", "worker", "training"),
                ("estimator_mwms", "chief", "training"),
                ("mwms_slurm", "chief", "training"),
                ("tfjob_k8s", "ps", "training"),
                ("tfjob_k8s", "worker", "training"),
                ("mwms_compose", "worker", "training"),
                ("mwms_compose", "chief", "training"),
                ("pss_systemd", "ps", "training"),
                ("pss_parallel", "ps", "training"),
                ("pss_systemd", "worker", "training"),
                ("pss_parallel", "worker", "training"),
                ("mwms_mpi", "worker", "training"),
                ("mwms_honcho", "worker", "training"),
                ("mwms_pdsh", "worker", "training"),
                ("mwms_runit", "worker", "training"),
                ("mwms_tmux", "worker", "training"),
                ("mwms_spark", "worker", "training"),
                ("mwms_ray", "worker", "training"),
                ("mwms_mpi", "chief", "training"),
                ("mwms_honcho", "chief", "training"),
                ("mwms_pdsh", "chief", "training"),
                ("mwms_runit", "chief", "training"),
                ("mwms_tmux", "chief", "training"),
                ("mwms_spark", "chief", "training"),
                ("mwms_ray", "chief", "training"),
                ("tf1_supervisord", "ps", "training"),
                # not the evaluator: training never waits on it, so freezing it stalls nothing
            ),
            sig=signal.SIGSTOP,
        ),
        Fault(
            "block",
            "stall/hang",
            "hang",
            "args",
            "The target blocks forever inside a training step (an input read that never "
            "returns); peers wait; the launcher ends the job.",
            (
                ("tf1", "worker", "training"),
                ("mwms_ctl", "worker", "training"),
                ("mwms_keras", "worker", "training"),
                ("tf1_sync", "worker", "training"),
                ("tf1_supervisor", "worker", "training"),
                ("estimator", "worker", "training"),
                ("tf1_ingraph", "worker", "training"),
                ("data_service", "worker", "training"),
                ("dtensor", "worker", "training"),
                ("estimator_mwms", "worker", "training"),
                ("mwms_slurm", "worker", "training"),
                ("mwms_compose", "worker", "training"),
                ("mwms_mpi", "worker", "training"),
                ("mwms_honcho", "worker", "training"),
                ("mwms_pdsh", "worker", "training"),
                ("mwms_runit", "worker", "training"),
                ("mwms_tmux", "worker", "training"),
                ("mwms_spark", "worker", "training"),
                ("mwms_ray", "worker", "training"),
                ("tf1_supervisord", "worker", "training"),
            ),
            args=("--block-at-step", "{third}"),
            ended_by_launcher=True,
        ),
        Fault(
            "straggler",
            "straggler",
            "straggler",
            "args",
            "The target's input reads take 0.5 s per step (about 5x its peers' step time); "
            "the job still finishes at its pace.",
            (
                ("mwms_ctl", "worker", "training"),
                ("mwms_keras", "worker", "training"),
                ("data_service", "worker", "training"),
                ("dtensor", "worker", "training"),
                ("estimator_mwms", "worker", "training"),
                ("mwms_slurm", "worker", "training"),
                ("mwms_compose", "worker", "training"),
                ("mwms_mpi", "worker", "training"),
                ("mwms_honcho", "worker", "training"),
                ("mwms_pdsh", "worker", "training"),
                ("mwms_runit", "worker", "training"),
                ("mwms_tmux", "worker", "training"),
                ("mwms_spark", "worker", "training"),
                ("mwms_ray", "worker", "training"),
            ),
            args=("--slow-sleep", "0.5"),
        ),
        Fault(
            "throttle",
            "straggler",
            "straggler",
            "throttle",
            "The launcher throttles the target's CPU (SIGSTOP 0.5 s / SIGCONT 0.1 s, like a "
            "cgroup CPU quota); the job still finishes.",
            (
                ("pss", "worker", "training"),
                ("mwms_ctl", "worker", "training"),
                ("mwms_keras", "chief", "training"),
                ("pss_keras", "worker", "training"),
                ("tf1_sync", "worker", "training"),
                ("tf1_supervisor", "worker", "training"),
                ("estimator", "worker", "training"),
                ("tf1_ingraph", "worker", "training"),
                # not the data worker: the trainers read from the other one at full speed
                ("data_service", "worker", "training"),
                ("dtensor", "worker", "training"),
                ("pss_sharded", "worker", "training"),
                ("estimator_mwms", "worker", "training"),
                ("mwms_slurm", "worker", "training"),
                ("tfjob_k8s", "worker", "training"),
                ("mwms_compose", "worker", "training"),
                ("pss_systemd", "worker", "training"),
                ("pss_parallel", "worker", "training"),
                ("mwms_mpi", "worker", "training"),
                ("mwms_honcho", "worker", "training"),
                ("mwms_pdsh", "worker", "training"),
                ("mwms_runit", "worker", "training"),
                ("mwms_tmux", "worker", "training"),
                ("mwms_spark", "worker", "training"),
                ("mwms_ray", "worker", "training"),
                ("tf1_supervisord", "worker", "training"),
            ),
        ),
        Fault(
            "oom",
            "oom",
            "oom",
            "args",
            "The target runs under an address-space limit (a container memory limit) and "
            "allocates a 4 GB tensor mid-training.",
            (
                ("tf1", "worker", "training"),
                ("pss", "chief", "training"),
                ("mwms_ctl", "worker", "training"),
                ("mwms_keras", "worker", "training"),
                ("pss_keras", "chief", "training"),
                ("tf1_sync", "worker", "training"),
                ("tf1_supervisor", "worker", "training"),
                ("estimator", "worker", "training"),
                ("tf1_ingraph", "worker", "training"),
                ("data_service", "worker", "training"),
                ("dtensor", "worker", "training"),
                ("pss_sharded", "chief", "training"),
                # not the evaluator: TensorFlow's allocator retries a failed allocation for
                # 10 s, and the job ends (stopping the evaluator) before the error surfaces;
                # the ps's table is placed there by the chief (Style.driver)
                ("pss_sharded", "ps", "training"),
                ("estimator_mwms", "worker", "training"),
                ("mwms_slurm", "worker", "training"),
                ("tfjob_k8s", "chief", "training"),
                ("mwms_compose", "worker", "training"),
                ("pss_systemd", "chief", "training"),
                ("pss_parallel", "chief", "training"),
                ("mwms_mpi", "worker", "training"),
                ("mwms_honcho", "worker", "training"),
                ("mwms_pdsh", "worker", "training"),
                ("mwms_runit", "worker", "training"),
                ("mwms_tmux", "worker", "training"),
                ("mwms_spark", "worker", "training"),
                ("mwms_ray", "worker", "training"),
                ("tf1_supervisord", "worker", "training"),
            ),
            args=("--memory-limit-mb", "1024", "--oom-at-step", "{third}", "--oom-mb", "4096"),
            evidence=(
                ("target", r"ResourceExhausted|OOM when allocating|out of memory|MemoryError"),
            ),
        ),
        Fault(
            "port_bound",
            "network/port",
            "address_in_use",
            "squatter",
            "Another process already listens on the target's port.",
            (
                ("tf1", "ps", "startup"),
                ("pss", "ps", "startup"),
                ("mwms_ctl", "worker", "startup"),
                ("mwms_keras", "worker", "startup"),
                ("pss_keras", "ps", "startup"),
                ("tf1_sync", "ps", "startup"),
                ("tf1_supervisor", "ps", "startup"),
                ("estimator", "ps", "startup"),
                ("tf1_ingraph", "ps", "startup"),
                ("data_service", "ps", "startup"),
                ("data_service", "data_worker", "startup"),
                ("dtensor", "chief", "startup"),
                ("pss_sharded", "ps", "startup"),
                ("estimator_mwms", "chief", "startup"),
                ("mwms_slurm", "chief", "startup"),
                ("tfjob_k8s", "ps", "startup"),
                ("mwms_compose", "chief", "startup"),
                ("pss_systemd", "ps", "startup"),
                ("pss_parallel", "ps", "startup"),
                ("mwms_mpi", "chief", "startup"),
                ("mwms_honcho", "chief", "startup"),
                ("mwms_pdsh", "chief", "startup"),
                ("mwms_runit", "chief", "startup"),
                ("mwms_tmux", "chief", "startup"),
                ("mwms_spark", "chief", "startup"),
                ("mwms_ray", "chief", "startup"),
                ("tf1_supervisord", "ps", "startup"),
            ),
            evidence=(("target", BIND_ERROR),),
        ),
        Fault(
            "dup_port",
            "network/port",
            "decide",
            "dup_port",
            "The cluster spec gives the target the same host:port as another task; the "
            "target starts 3 s after the others.",
            (
                ("tf1", "worker", "startup"),
                ("pss", "worker", "startup"),
                ("mwms_ctl", "worker", "startup"),
                ("mwms_keras", "worker", "startup"),
                ("pss_keras", "worker", "startup"),
                ("tf1_sync", "worker", "startup"),
                ("tf1_supervisor", "worker", "startup"),
                ("estimator", "worker", "startup"),
                ("tf1_ingraph", "worker", "startup"),
                ("data_service", "worker", "startup"),
                ("dtensor", "worker", "startup"),
                ("pss_sharded", "worker", "startup"),
                ("estimator_mwms", "worker", "startup"),
                ("mwms_slurm", "worker", "startup"),
                # tfjob_k8s: two replicas on one node with hostNetwork share its ports
                ("tfjob_k8s", "worker", "startup"),
                ("mwms_compose", "worker", "startup"),
                ("pss_systemd", "worker", "startup"),
                ("pss_parallel", "worker", "startup"),
                ("mwms_mpi", "worker", "startup"),
                ("mwms_honcho", "worker", "startup"),
                ("mwms_pdsh", "worker", "startup"),
                ("mwms_runit", "worker", "startup"),
                ("mwms_tmux", "worker", "startup"),
                ("mwms_spark", "worker", "startup"),
                ("mwms_ray", "worker", "startup"),
                ("tf1_supervisord", "worker", "startup"),
            ),
            must_fail=True,
        ),
        Fault(
            "wrong_address",
            "cluster_spec",
            "cluster_spec_mismatch",
            "tfconfig",
            "The target's TF_CONFIG gives a wrong port for one peer.",
            (
                ("tf1", "worker", "startup"),
                ("pss", "chief", "startup"),
                ("mwms_ctl", "worker", "startup"),
                ("mwms_keras", "worker", "startup"),
                ("pss_keras", "chief", "startup"),
                ("tf1_sync", "worker", "startup"),
                ("tf1_supervisor", "worker", "startup"),
                ("estimator", "worker", "startup"),
                ("tf1_ingraph", "worker", "startup"),
                ("data_service", "worker", "startup"),
                ("dtensor", "worker", "startup"),
                ("pss_sharded", "chief", "startup"),
                ("estimator_mwms", "worker", "startup"),
                ("mwms_slurm", "worker", "startup"),
                ("tfjob_k8s", "chief", "startup"),
                ("mwms_compose", "worker", "startup"),
                ("pss_systemd", "chief", "startup"),
                ("pss_parallel", "chief", "startup"),
                ("mwms_mpi", "worker", "startup"),
                ("mwms_honcho", "worker", "startup"),
                ("mwms_pdsh", "worker", "startup"),
                ("mwms_runit", "worker", "startup"),
                ("mwms_tmux", "worker", "startup"),
                ("mwms_spark", "worker", "startup"),
                ("mwms_ray", "worker", "startup"),
                ("tf1_supervisord", "worker", "startup"),
            ),
            must_fail=True,
        ),
        Fault(
            "wrong_count",
            "cluster_spec",
            "cluster_spec_mismatch",
            "tfconfig",
            "The target's TF_CONFIG lists one worker more than the cluster has.",
            (
                ("tf1", "worker", "startup"),
                ("pss", "chief", "startup"),
                ("mwms_ctl", "worker", "startup"),
                ("mwms_keras", "worker", "startup"),
                ("pss_keras", "chief", "startup"),
                ("tf1_sync", "worker", "startup"),
                ("tf1_supervisor", "worker", "startup"),
                ("estimator", "worker", "startup"),
                ("tf1_ingraph", "chief", "startup"),
                ("data_service", "worker", "startup"),
                ("dtensor", "worker", "startup"),
                ("pss_sharded", "chief", "startup"),
                ("estimator_mwms", "worker", "startup"),
                ("mwms_slurm", "worker", "startup"),
                ("tfjob_k8s", "chief", "startup"),
                ("mwms_compose", "worker", "startup"),
                ("pss_systemd", "chief", "startup"),
                ("pss_parallel", "chief", "startup"),
                ("mwms_mpi", "worker", "startup"),
                ("mwms_honcho", "worker", "startup"),
                ("mwms_pdsh", "worker", "startup"),
                ("mwms_runit", "worker", "startup"),
                ("mwms_tmux", "worker", "startup"),
                ("mwms_spark", "worker", "startup"),
                ("mwms_ray", "worker", "startup"),
                ("tf1_supervisord", "worker", "startup"),
            ),
            must_fail=True,
        ),
        Fault(
            "wrong_index",
            "cluster_spec",
            "cluster_spec_mismatch",
            "tfconfig",
            "The target's TF_CONFIG names another task's index (two tasks claim one identity).",
            (
                ("tf1", "worker", "startup"),
                ("mwms_ctl", "worker", "startup"),
                ("mwms_keras", "worker", "startup"),
                ("pss_keras", "worker", "startup"),
                ("tf1_sync", "worker", "startup"),
                ("tf1_supervisor", "worker", "startup"),
                ("estimator", "worker", "startup"),
                ("tf1_ingraph", "worker", "startup"),
                ("data_service", "worker", "startup"),
                ("dtensor", "worker", "startup"),
                ("pss_sharded", "worker", "startup"),
                ("estimator_mwms", "worker", "startup"),
                ("mwms_slurm", "worker", "startup"),
                ("tfjob_k8s", "worker", "startup"),
                ("mwms_compose", "worker", "startup"),
                ("pss_systemd", "worker", "startup"),
                ("pss_parallel", "worker", "startup"),
                ("mwms_mpi", "worker", "startup"),
                ("mwms_honcho", "worker", "startup"),
                ("mwms_pdsh", "worker", "startup"),
                ("mwms_runit", "worker", "startup"),
                ("mwms_tmux", "worker", "startup"),
                ("mwms_spark", "worker", "startup"),
                ("mwms_ray", "worker", "startup"),
                ("tf1_supervisord", "worker", "startup"),
            ),
            must_fail=True,
        ),
        Fault(
            "missing",
            "startup/late/missing",
            "session_blocked",
            "missing",
            "A task named in the cluster spec is never started; the launcher ends the job.",
            (
                ("tf1", "worker", "startup"),
                ("pss", "ps", "startup"),
                ("mwms_ctl", "worker", "startup"),
                ("mwms_keras", "worker", "startup"),
                ("pss_keras", "ps", "startup"),
                ("tf1_sync", "worker", "startup"),
                ("tf1_sync", "ps", "startup"),
                ("tf1_supervisor", "worker", "startup"),
                ("estimator", "ps", "startup"),
                ("tf1_ingraph", "worker", "startup"),
                ("tf1_ingraph", "ps", "startup"),
                ("data_service", "worker", "startup"),
                ("data_service", "ps", "startup"),
                ("data_service", "data_worker", "startup"),
                ("dtensor", "worker", "startup"),
                ("pss_sharded", "ps", "startup"),
                ("estimator_mwms", "worker", "startup"),
                ("mwms_slurm", "worker", "startup"),
                ("tfjob_k8s", "ps", "startup"),
                ("mwms_compose", "worker", "startup"),
                ("pss_systemd", "ps", "startup"),
                ("pss_parallel", "ps", "startup"),
                # mwms_mpi: mpirun -np 2 with three workers in the list: rank 2 never starts
                ("mwms_mpi", "last", "startup"),
                ("mwms_honcho", "last", "startup"),
                ("mwms_pdsh", "last", "startup"),
                ("mwms_runit", "last", "startup"),
                ("mwms_tmux", "last", "startup"),
                ("mwms_spark", "last", "startup"),
                ("mwms_ray", "last", "startup"),
                ("tf1_supervisord", "worker", "startup"),
                # not the evaluator: training never waits on it (nothing blocks)
            ),
            ended_by_launcher=True,
        ),
        Fault(
            "late",
            "startup/late/missing",
            "decide",
            "late",
            "The target starts 15 s after the others.",
            (
                ("tf1", "worker", "startup"),
                ("pss", "worker", "startup"),
                ("mwms_ctl", "worker", "startup"),
                ("mwms_keras", "worker", "startup"),
                ("pss_keras", "worker", "startup"),
                ("tf1_sync", "worker", "startup"),
                ("tf1_supervisor", "worker", "startup"),
                ("estimator", "worker", "startup"),
                ("tf1_ingraph", "worker", "startup"),
                ("data_service", "worker", "startup"),
                ("data_service", "ps", "startup"),
                ("dtensor", "worker", "startup"),
                ("pss_sharded", "worker", "startup"),
                ("pss_sharded", "ps", "startup"),
                ("estimator_mwms", "worker", "startup"),
                ("mwms_slurm", "worker", "startup"),
                ("tfjob_k8s", "worker", "startup"),
                ("mwms_compose", "worker", "startup"),
                ("pss_systemd", "worker", "startup"),
                ("pss_parallel", "worker", "startup"),
                ("mwms_mpi", "worker", "startup"),
                ("mwms_honcho", "worker", "startup"),
                ("mwms_pdsh", "worker", "startup"),
                ("mwms_runit", "worker", "startup"),
                ("mwms_tmux", "worker", "startup"),
                ("mwms_spark", "worker", "startup"),
                ("mwms_ray", "worker", "startup"),
                ("tf1_supervisord", "worker", "startup"),
            ),
        ),
        Fault(
            "dtype",
            "data",
            "dtype_mismatch",
            "args",
            "The target's input pipeline yields int64 (or string) features for a float32 model.",
            (
                ("tf1", "worker", "training"),
                ("pss", "chief", "training"),
                ("mwms_ctl", "worker", "training"),
                ("pss_keras", "chief", "training"),
                ("tf1_sync", "worker", "training"),
                ("tf1_supervisor", "worker", "training"),
                ("estimator", "worker", "training"),
                ("tf1_ingraph", "chief", "training"),
                ("data_service", "worker", "training"),
                ("dtensor", "worker", "training"),
                ("pss_sharded", "chief", "training"),
                ("estimator_mwms", "worker", "training"),
                ("mwms_slurm", "worker", "training"),
                ("tfjob_k8s", "chief", "training"),
                ("mwms_compose", "worker", "training"),
                ("pss_systemd", "chief", "training"),
                ("pss_parallel", "chief", "training"),
                ("mwms_mpi", "worker", "training"),
                ("mwms_honcho", "worker", "training"),
                ("mwms_pdsh", "worker", "training"),
                ("mwms_runit", "worker", "training"),
                ("mwms_tmux", "worker", "training"),
                ("mwms_spark", "worker", "training"),
                ("mwms_ray", "worker", "training"),
                ("tf1_supervisord", "worker", "training"),
            ),
            args=("--feed-dtype", "{feed}"),
            evidence=(
                (
                    "any",
                    r"does not match|DataType|dtype|expected .* tensor|Cast \w+ to \w+ is not",
                ),
            ),
            must_fail=True,
        ),
        Fault(
            "shape",
            "data",
            "shape_mismatch",
            "args",
            "The target's data / model has 17 (or 20) features where its peers have 16 (32).",
            (
                ("tf1", "worker", "training"),
                ("pss", "chief", "training"),
                ("mwms_ctl", "worker", "training"),
                ("mwms_keras", "worker", "training"),
                ("pss_keras", "chief", "training"),
                ("tf1_sync", "worker", "training"),
                ("tf1_supervisor", "worker", "training"),
                ("estimator", "worker", "training"),
                ("tf1_ingraph", "chief", "training"),
                ("data_service", "worker", "training"),
                ("dtensor", "worker", "training"),
                ("pss_sharded", "chief", "training"),
                ("estimator_mwms", "worker", "training"),
                ("mwms_slurm", "worker", "training"),
                ("tfjob_k8s", "chief", "training"),
                ("mwms_compose", "worker", "training"),
                ("pss_systemd", "chief", "training"),
                ("pss_parallel", "chief", "training"),
                ("mwms_mpi", "worker", "training"),
                ("mwms_honcho", "worker", "training"),
                ("mwms_pdsh", "worker", "training"),
                ("mwms_runit", "worker", "training"),
                ("mwms_tmux", "worker", "training"),
                ("mwms_spark", "worker", "training"),
                ("mwms_ray", "worker", "training"),
                ("tf1_supervisord", "worker", "training"),
            ),
            args=("--feature-dim", "{dim}"),
            evidence=(("any", r"[Ss]hape|[Ii]ncompatible|must be equal|size-incompatible"),),
            must_fail=True,
        ),
        Fault(
            "version",
            "version",
            "decide",
            "alt",
            "The target runs another TensorFlow release than the rest: the older one (the "
            "lab venv's 2.21 for a style that runs on 2.15).",
            (
                ("tf1", "worker", "startup"),
                ("pss", "worker", "startup"),
                ("mwms_ctl", "worker", "startup"),
                ("mwms_keras", "worker", "startup"),
                ("pss_keras", "worker", "startup"),
                ("tf1_sync", "worker", "startup"),
                ("tf1_supervisor", "worker", "startup"),
                ("estimator", "worker", "startup"),
                ("tf1_ingraph", "worker", "startup"),
                ("data_service", "worker", "startup"),
                ("dtensor", "worker", "startup"),
                ("pss_sharded", "worker", "startup"),
                ("estimator_mwms", "worker", "startup"),
                ("mwms_slurm", "worker", "startup"),
                ("tfjob_k8s", "worker", "startup"),
                ("mwms_compose", "worker", "startup"),
                ("pss_systemd", "worker", "startup"),
                ("pss_parallel", "worker", "startup"),
                ("mwms_mpi", "worker", "startup"),
                ("mwms_honcho", "worker", "startup"),
                ("mwms_pdsh", "worker", "startup"),
                ("mwms_runit", "worker", "startup"),
                ("mwms_tmux", "worker", "startup"),
                ("mwms_spark", "worker", "startup"),
                ("tf1_supervisord", "worker", "startup"),
            ),
        ),
        Fault(
            "hdf5_lock",
            "concurrent_write",
            "concurrent_write",
            "hdf5",
            "Every task saves its weights into one HDF5 file in a shared folder (file locking on).",
            (
                ("mwms_ctl", "any", "checkpoint"),
                ("mwms_keras", "any", "checkpoint"),
                ("mwms_ray", "any", "checkpoint"),
            ),
        ),
        Fault(
            "hdf5_nolock",
            "concurrent_write",
            "concurrent_write",
            "hdf5",
            "Every task saves its weights into one HDF5 file in a shared folder with "
            "HDF5_USE_FILE_LOCKING=FALSE.",
            (
                ("mwms_ctl", "any", "checkpoint"),
                ("mwms_keras", "any", "checkpoint"),
                ("mwms_ray", "any", "checkpoint"),
            ),
            env=(("HDF5_USE_FILE_LOCKING", "FALSE"),),
        ),
        Fault(
            "kill_restart",
            "crash",
            "node_crash",
            "signal",
            "The target is SIGKILLed on hosts whose units have Restart=on-failure "
            "(RestartSec=2s): systemd restarts every unit that exits unclean.",
            (
                ("pss_systemd", "worker", "training"),
                ("pss_systemd", "ps", "training"),
                ("pss_systemd", "chief", "training"),
            ),
            sig=signal.SIGKILL,
        ),
        Fault(
            "executor_lost",
            "crash",
            "node_crash",
            "executor_kill",
            "The Spark executor JVM that hosts the target is SIGKILLed (an executor lost: its "
            "host's OOM killer, a node going away); the target's Python worker and TensorFlow "
            "worker go with it.",
            (("mwms_spark", "worker", "training"), ("mwms_spark", "chief", "training")),
            must_fail=True,
        ),
        Fault(
            "kill_onfailure",
            "crash",
            "node_crash",
            "signal",
            "The target is SIGKILLed in a TFJob whose replicas have restartPolicy OnFailure (and "
            "a backoffLimit of 1): kubelet restarts its container once, in the same pod.",
            (
                ("tfjob_k8s", "worker", "training"),
                ("tfjob_k8s", "ps", "training"),
                ("tfjob_k8s", "chief", "training"),
            ),
            sig=signal.SIGKILL,
        ),
    ]
}

# The category a "decide" fault usually ends in (its truth.json says what really happened).
USUAL_CATEGORY = {
    "stall_deadline": "deadline_exceeded",
    "stall_notimeout": "hang",
    "dup_port": "address_in_use",
    "late": "session_blocked",
    "version": "version_mismatch",
}

NAMINGS = ("plain", "pod", "host", "stderr", "slurm", "rotated", "gz")


def file_name(naming: str, style: Style, node: str, seed: int) -> str:
    """The file a deployment of this naming would leave for ``node``."""
    job, index = node.split(":")
    order = style.nodes.index(node)
    if naming == "pod":
        h = hashlib.sha1(f"{seed}{node}".encode()).hexdigest()[:4]
        return f"{style.pod_prefix}-{job}-{index}-{h}.log"
    if naming == "host":
        return f"host-{'abcdefgh'[order]}/{job}.out"
    if naming == "stderr":
        return f"{job}{index}.stderr"
    if naming == "slurm":
        return f"slurm-{4200 + seed}.{order}.out"
    if naming in slurm.NAMINGS:
        return slurm.output_name(naming, slurm.job_id(seed), order)
    if naming in kubernetes.NAMINGS:
        return kubernetes.raw_name(node)
    if naming in compose.NAMINGS:
        return compose.raw_name(node)
    if naming in systemd.NAMINGS:
        return systemd.raw_name(node)
    if naming in mpi.NAMINGS:
        return mpi.raw_name(node)
    if naming in spark.NAMINGS:
        return spark.WORK_DIR
    if naming in supervisord.NAMINGS:
        return f"{supervisord.program(node)}.log"
    if naming in runit.NAMINGS:
        return f"{runit.LOG_ROOT}/{runit.service(node)}/current"
    if naming in tmuxlab.NAMINGS:
        return tmuxlab.log_name(naming, node)
    base = "chief" if job == "chief" else f"{job}-{index}"
    return f"{base}.log"


# ----------------------------------------------------------------------------- cells
@dataclass(frozen=True)
class Cell:
    style: str
    fault: str
    role: str
    phase: str
    naming: str
    seed: int
    # named scenarios only: exact file names, nodes to rotate, extra evidence
    files: tuple[tuple[str, str], ...] = ()
    rotate: tuple[str, ...] = ()
    expect: tuple[tuple[str, str], ...] = ()

    @property
    def folder(self) -> str:
        return f"{self.style}/{self.fault}-{self.role}-{self.phase}-{self.naming}"


# Order of recording: the baselines and hang/straggler cells first, then crashes,
# preemptions and stalls, then the rest.
PRIORITY = (
    ("healthy", "block", "stall_notimeout", "straggler", "throttle"),
    ("kill", "preempt", "stall_deadline"),
)


def _priority(fault: str) -> int:
    for i, group in enumerate(PRIORITY):
        if fault in group:
            return i
    return len(PRIORITY)


def cells() -> list[Cell]:
    """Every cell of the matrix, in recording order; namings rotate through NAMINGS."""
    out: list[Cell] = []
    k = 0
    own = {s.name: s.naming_start for s in STYLES.values() if s.naming_start is not None}
    for fault in sorted(FAULTS.values(), key=lambda f: _priority(f.name)):
        for style, role, phase in fault.plan:
            names = STYLES[style].namings or NAMINGS
            for _ in range(fault.variants_of(style)):
                i = own.get(style, k)
                out.append(Cell(style, fault.name, role, phase, names[i % len(names)], i))
                if style in own:
                    own[style] += 1
                else:
                    k += 1
    seen: set[str] = set()
    unique = []
    for c in out:
        if c.folder not in seen:
            seen.add(c.folder)
            unique.append(c)
    return unique


def _files(pattern: str, nodes: list[str]) -> tuple[tuple[str, str], ...]:
    return tuple((n, pattern.format(i=n.split(":")[1])) for n in nodes)


_W3 = ["worker:0", "worker:1", "worker:2"]
_PSS_FILES = (
    ("chief:0", "chief.log"),
    ("ps:0", "ps-0.log"),
    ("worker:0", "worker-0.log"),
    ("worker:1", "worker-1.log"),
)

# The lab's named scenarios that are cells of the matrix: name -> (description, cell).
NAMED: dict[str, tuple[str, Cell]] = {
    "ps_killed": (
        "ParameterServerStrategy with a ClusterCoordinator; the parameter server is "
        "SIGKILLed mid-training.",
        Cell(
            "pss",
            "kill",
            "ps",
            "training",
            "plain",
            0,
            files=_PSS_FILES,
            # the workers log UNAVAILABLE only when the kill lands mid-RecvTensor: a race
            expect=(
                ("chief:0", r"UnavailableError"),
                ("chief:0", r"remote target /job:ps/replica:0/task:0"),
            ),
        ),
    ),
    "worker_killed": (
        "MultiWorkerMirroredStrategy with 3 workers; worker 1 is SIGKILLed mid-training.",
        Cell(
            "mwms_ctl",
            "kill",
            "worker",
            "training",
            "pod",
            0,
            files=_files("tfjob-mnist-worker-{i}.log", _W3),
            expect=(("worker:0|worker:2", r"UnavailableError"),),
        ),
    ),
    "missing_worker": (
        "A worker named in the cluster spec is never started, so the others block at start-up.",
        Cell(
            "mwms_ctl",
            "missing",
            "worker",
            "startup",
            "plain",
            0,
            files=_files("worker_{i}.txt", _W3),
            expect=(("worker:0", r"Waiting for 1/3 tasks to connect"),),
        ),
    ),
    "stalled_worker_deadline": (
        "A worker is frozen with SIGSTOP while its peers use a 5 s collective timeout.",
        Cell(
            "mwms_ctl",
            "stall_deadline",
            "worker",
            "training",
            "plain",
            0,
            rotate=("worker:0",),
        ),
    ),
    "oom_worker": (
        "One worker runs out of memory under an address-space limit when it allocates a "
        "large tensor.",
        Cell(
            "mwms_ctl",
            "oom",
            "worker",
            "training",
            "host",
            0,
            files=_files("node-{i}/worker.log", _W3),
        ),
    ),
    "preempted_worker": (
        "A worker receives SIGTERM as a scheduler's preemption notice while training under "
        "PreemptionCheckpointHandler.",
        Cell(
            "mwms_ctl",
            "preempt",
            "worker",
            "training",
            "pod",
            0,
            files=_files("tfjob-resnet-worker-{i}.log", _W3),
            rotate=("worker:0",),
        ),
    ),
    "healthy": (
        "A clean ParameterServerStrategy run with no fault.",
        Cell("pss", "healthy", "none", "full", "plain", 0, files=_PSS_FILES, rotate=("chief:0",)),
    ),
}


def old_python() -> str | None:
    return first_existing(ALT_PYTHON_ENV, OLD_RELEASE_CANDIDATES)


def style_python(style: Style) -> str | None:
    """The interpreter a style with its own TensorFlow runs on (None: the lab venv's)."""
    if style.python is None:
        return None
    env, candidates = style.python
    found = first_existing(env, candidates)
    if found is not None:
        return found
    raise CellError(f"{style.name} needs TensorFlow {style.release} (set {env})")


class CellError(RuntimeError):
    """The cell's fault did not show up as planned (or the cluster never started)."""


# ----------------------------------------------------------------------------- launcher
def _consecutive_ports(n: int) -> int:
    """The first of ``n`` consecutive free ports on 127.0.0.1 (SlurmClusterResolver gives the
    tasks of a node consecutive ports from its port_base)."""
    import random
    import socket

    for _ in range(200):
        base = random.randrange(20000, 60000 - n)
        socks = []
        try:
            for port in range(base, base + n):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                socks.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise CellError(f"no {n} consecutive free ports")


def _cluster(style: Style) -> dict[str, list[str]]:
    if style.config == "slurm":
        base = _consecutive_ports(len(style.nodes))
        ports = iter(range(base, base + len(style.nodes)))
        return {job: [f"{slurm.NODE}:{next(ports)}" for _ in range(n)] for job, n in style.jobs}
    ports = iter(free_ports(len(style.nodes)))
    return {job: [_address(style, job, i, next(ports)) for i in range(n)] for job, n in style.jobs}


def _address(style: Style, job: str, index: int, port: int) -> str:
    """A task's address in a cluster spec: 127.0.0.1, or a TFJob replica's service name."""
    if style.config == "k8s":
        return kubernetes.service(job, index, port)
    if style.config == "compose":
        return compose.service(index, port)
    if style.config == "systemd":
        return systemd.address(job, index, port)
    return f"127.0.0.1:{port}"


def _tfc(cluster: dict, node: str) -> dict:
    job, index = node.split(":")
    return {"cluster": cluster, "task": {"type": job, "index": int(index)}}


def _dtensor_env(spec: dict) -> dict[str, str]:
    """A TF_CONFIG-shaped spec as the DTENSOR_* variables a DTensor client is launched with
    (one job; the client id is the task index; DTENSOR_JOBS lists every client in order)."""
    job, index = spec["task"]["type"], spec["task"]["index"]
    jobs = spec["cluster"][job]
    return {
        "DTENSOR_CLIENT_ID": str(index),
        "DTENSOR_NUM_CLIENTS": str(len(jobs)),
        "DTENSOR_JOB_NAME": job,
        "DTENSOR_JOBS": ",".join(jobs),
    }


def _port(addr: str) -> int:
    return int(addr.rsplit(":", 1)[1])


def _subst(args, style: Style, scratch: Path, target: str | None) -> list[str]:
    vals = {
        "scratch": str(scratch),
        "third": str(max(2, style.steps // 3)),
        "half": str(style.steps // 2),
        "dim": style.shape_dim,
        "feed": style.feed_dtype,
    }
    return [a.format(**vals) for a in args]


class _Watch:
    """Follows training progress in the train nodes' logs."""

    def __init__(self, lab: Lab, style: Style):
        self.lab, self.style = lab, style
        self.rx = re.compile(style.step_re)
        self.count = -1
        self.last_change = time.monotonic()

    def poll(self) -> int:
        n = 0
        for node in self.style.train_nodes:
            if node in self.lab.procs:
                n += len(self.rx.findall(self.lab.read(node)))
        if n != self.count:
            self.count = n
            self.last_change = time.monotonic()
        return n

    def step(self, node: str) -> int:
        found = self.rx.findall(self.lab.read(node)) if node in self.lab.procs else []
        return int(found[-1]) if found else 0


def _launcher_line(lab: Lab, text: str, event: str = "") -> None:
    """A job-level line: into launcher.log, or to the style's scheduler (``lab.job_log``),
    which writes only what that scheduler itself prints for ``event``."""
    if lab.job_log is not None:
        lab.job_log(event)
        return
    path = lab.out_dir / "launcher.log"
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{utc_now()} tfdiag-lab launcher: {text}\n")


def _wait_end(lab: Lab, style: Style, stopped: set[str], *, grace: float, idle: float) -> str:
    """Wait until every live train node exited; end the job on a stall.  Returns how it ended."""
    watch = _Watch(lab, style)
    started = time.monotonic()
    while True:
        live = [
            n
            for n in style.train_nodes
            if n in lab.procs and n not in stopped and lab.procs[n].popen.poll() is None
        ]
        if not live and lab.restarting is not None and lab.restarting():
            time.sleep(0.2)  # kubelet restarts a container (restartPolicy OnFailure)
            continue
        if not live:
            return "exited"
        if lab.remaining() <= 5:
            break
        n = watch.poll()
        since = time.monotonic() - watch.last_change
        limit = idle if n > 0 else grace
        if n == 0:
            since = time.monotonic() - started
        if since > limit:
            break
        time.sleep(0.2)
    # the scheduler's time limit: SIGTERM everyone, then SIGKILL what is left
    alive = [n for n, p in lab.procs.items() if p.popen.poll() is None]
    _launcher_line(
        lab,
        f"no training progress for {idle:.0f} s (step lines seen: {max(watch.count, 0)}); "
        f"job time limit reached, sending SIGTERM to {', '.join(alive)}",
        "time_limit",
    )
    for node in alive if not lab.job_ends_tasks else ():
        with contextlib.suppress(ProcessLookupError):
            os.kill(lab.procs[node].popen.pid, signal.SIGTERM)
    time.sleep(5)
    left = [n for n, p in lab.procs.items() if p.popen.poll() is None]
    if left:
        _launcher_line(lab, f"still running after 5 s: {', '.join(left)}; sending SIGKILL")
    return "launcher_timeout"


def _wait_phase(lab: Lab, style: Style, phase: str, target: str | None) -> None:
    if phase == "startup":
        node = target if target in lab.procs else style.progress_node
        m = lab.wait_for(node, style.started_re, 120)
        if not m:
            raise CellError(f"{node} never started its server")
        return
    if phase == "training":
        third = max(2, style.steps // 3)
        end = time.monotonic() + min(150, lab.remaining())
        watch = _Watch(lab, style)
        while time.monotonic() < end:
            if watch.step(style.progress_node) >= third:
                return
            if lab.procs[style.progress_node].popen.poll() is not None:
                break
            time.sleep(0.1)
        raise CellError(f"{style.progress_node} never reached step {third}")
    if phase == "checkpoint":
        if not lab.wait_for(style.ckpt_node, style.ckpt_re, 150):
            raise CellError(f"{style.ckpt_node} never logged {style.ckpt_re!r}")
        return


def _throttle(lab: Lab, node: str, stop_s: float = 0.5, run_s: float = 0.1) -> None:
    """Duty-cycle a process with SIGSTOP/SIGCONT until it exits (a CPU quota)."""
    import threading

    def loop():
        p = lab.procs[node].popen
        while p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, signal.SIGSTOP)
            time.sleep(stop_s)
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, signal.SIGCONT)
            time.sleep(run_s)

    threading.Thread(target=loop, daemon=True, name="throttle").start()


PREEMPT_GRACE = 5.0


def _preempt_grace(lab: Lab, node: str, run: _Run) -> None:
    """Like a kubelet: SIGTERM first, SIGKILL if the task is still there after the grace."""
    import threading

    _launcher_line(lab, f"preempting {node}: SIGTERM, SIGKILL after {PREEMPT_GRACE:.0f} s grace")

    def later():
        p = lab.procs[node].popen
        try:
            p.wait(PREEMPT_GRACE)
        except subprocess.TimeoutExpired:
            _launcher_line(lab, f"{node} still running after the grace period; SIGKILL")
            run.extra["killed_after_grace"] = True
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, signal.SIGKILL)

    threading.Thread(target=later, daemon=True, name="preempt-grace").start()


def _peer_of(style: Style, target: str) -> str:
    """A task the target talks to: the leader / chief / ps."""
    for cand in (style.roles.get("ps"), style.roles["chief"], style.roles["worker"]):
        if cand and cand != target:
            return cand
    raise CellError("no peer")


def _bad_tfconfig(fault: str, style: Style, cluster: dict, target: str) -> tuple[dict, dict]:
    job, index = target.split(":")
    spec = {j: list(a) for j, a in cluster.items()}
    extra: dict = {}
    if fault == "wrong_address":
        peer = _peer_of(style, target)
        pj, pi = peer.split(":")
        wrong = _address(style, pj, int(pi), free_ports(1)[0])
        extra = {"wrong_address": wrong, "right_address": spec[pj][int(pi)], "peer": peer}
        spec[pj][int(pi)] = wrong
        return {"cluster": spec, "task": {"type": job, "index": int(index)}}, extra
    if fault == "wrong_count":
        # a TFJob replica that has no pod has no service: its name does not resolve
        spec["worker"].append(_address(style, "worker", len(spec["worker"]), free_ports(1)[0]))
        extra = {"workers_in_target_spec": len(spec["worker"]), "workers": len(cluster["worker"])}
        return {"cluster": spec, "task": {"type": job, "index": int(index)}}, extra
    if fault == "wrong_index":
        other = 0 if int(index) != 0 else 1
        extra = {"claimed_task": f"{job}:{other}"}
        return {"cluster": spec, "task": {"type": job, "index": other}}, extra
    raise ValueError(fault)


@dataclass
class _Run:
    nodes: list[str]
    target: str | None
    category: str
    notes: list[str] = field(default_factory=list)
    expect: list[tuple[str, str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    stopped: set[str] = field(default_factory=set)
    extra: dict = field(default_factory=dict)
    ended_by: str = ""
    python: dict[str, str] = field(default_factory=dict)
    # how much of each log there was when the fault was injected (what came after it)
    offsets: dict[str, int] = field(default_factory=dict)
    srun: slurm.Srun | None = None  # the Slurm style's srun (its output and lines)
    kubelet: kubernetes.Kubelet | None = None  # the TFJob style's runtime (its pods' logs)
    dockerd: compose.Dockerd | None = None  # the compose style's daemon (its containers' logs)
    journal: systemd.Journald | None = None  # the systemd style's PID 1 and journald
    mpi: mpi.Mpirun | None = None  # the mpi style's one real mpirun (its output, its ranks)
    spark: spark.Spark | None = None  # the spark style's cluster, application and tasks
    ray: raylab.Ray | None = None  # the ray style's head node, driver and worker actors
    sup: supervisord.Supervisord | None = None  # the supervisord style's one real supervisord
    honcho: honcho.Honcho | None = None  # the honcho style's one real honcho (its output)
    par: gnu_parallel.Parallel | None = None  # the parallel style's one real GNU parallel
    pdsh: pdsh.Pdsh | None = None  # the pdsh style's one real pdsh (its output)
    runit: runit.Runit | None = None  # the runit style's one real runsvdir (its services)
    tmux: tmuxlab.Tmux | None = None  # the tmux style's one real tmux server (its windows)


def _port_bases(style: Style, fault: Fault, cluster: dict, target, extra: dict) -> dict:
    """Each task's SlurmClusterResolver port_base (its tasks' ports are consecutive from it):
    the cluster's first port, but a wrong address puts the target's view of the peer (and of
    every task) on the wrong port, and two tasks on one port give the target a base that puts
    its own port on the peer's. Empty for the other styles."""
    if style.config != "slurm":
        return {}
    job = style.jobs[0][0]
    base = _port(cluster[job][0])
    bases = {n: base for n in style.nodes}
    if fault.name == "wrong_address":
        peer = int(extra["peer"].split(":")[1])
        bases[target] = _port(extra["wrong_address"]) - peer
        extra["wrong_port_base"], extra["port_base"] = bases[target], base
    if fault.name == "dup_port":
        peer = int(extra["port_shared_with"].split(":")[1])
        bases[target] = base + peer - int(target.split(":")[1])
        extra["target_port_base"], extra["port_base"] = bases[target], base
    return bases


def _launch(lab: Lab, cell: Cell, style: Style, fault: Fault) -> _Run:
    """Start the cluster with the fault (or arm it), inject it, wait for the end."""
    cluster = _cluster(style)
    nodes = style.nodes
    target = style.roles.get(cell.role) if cell.role not in ("none", "any") else None
    run = _Run(nodes, target, fault.category)
    own = style_python(style)
    # the other release: the older one, or the lab venv's for a style on its own release
    old = sys.executable if own else old_python()
    if fault.kind in ("old", "signal+old", "alt") and not old:
        raise CellError("needs the older TensorFlow release (set TFDIAG_LAB_ALT_PYTHON)")
    base = [*style.args, "--steps", str(style.steps)]
    if cell.phase == "checkpoint" and fault.kind != "hdf5":
        base += list(style.ckpt_args)
    if fault.all_args == "timeout":
        base += list(style.timeout_args)
    if (
        fault.kind in ("signal", "job_signal")
        and fault.sig == signal.SIGTERM
        and cell.phase == "training"
    ):
        base += list(style.preempt_args)
    if fault.kind == "hdf5":
        shared = lab.scratch / "shared_logdir"
        shared.mkdir()
        run.extra["shared_file"] = str(shared / "model_weights.h5")
        base += ["--save-h5", run.extra["shared_file"], "--steps", "20"]
    base = _subst(base, style, lab.scratch, target)
    env = dict(fault.env)
    specs = {n: _tfc(cluster, n) for n in nodes}
    delayed: dict[str, float] = {}
    if fault.kind == "tfconfig":
        specs[target], extra = _bad_tfconfig(fault.name, style, cluster, target)
        run.extra.update(extra)
    if fault.kind == "dup_port":
        peer = _peer_of(style, target)
        pj, pi = peer.split(":")
        tj, ti = target.split(":")
        spec = {j: list(a) for j, a in cluster.items()}
        spec[tj][int(ti)] = spec[pj][int(pi)]
        specs = {n: _tfc(spec, n) for n in nodes}
        run.extra.update({"shared_address": spec[pj][int(pi)], "port_shared_with": peer})
        delayed[target] = 3.0
    if fault.kind == "late":
        delayed[target] = 15.0
    if fault.kind == "squatter" and style.config not in ("spark", "ray"):
        port = _port(cluster[target.split(":")[0]][int(target.split(":")[1])])
        if not lab.squat(port):
            raise CellError("squatter could not bind")
        run.extra["bound_port"] = port
        lab.mark_fault()
    if fault.kind in ("tfconfig", "missing", "alt", "dup_port"):
        lab.mark_fault()
    if fault.kind == "missing":
        run.missing = [target]
    bases = _port_bases(style, fault, cluster, target, run.extra)
    if style.config == "slurm":
        job = slurm.job_id(cell.seed)
        tasks = {n: int(n.split(":")[1]) for n in nodes}
        run.srun = slurm.Srun(lab.out_dir, job, cell.naming == "srun_label", tasks)
        lab.job_log = run.srun.job_event
        run.srun.watch(lab.procs)
        run.extra["slurm_job_id"] = job
        run.extra["slurm_output"] = slurm.OUTPUT_FORMS[cell.naming]
    if style.config == "k8s":
        missing = kubernetes.check_names()
        if missing:
            raise CellError(missing)
        on_failure = fault.name == "kill_onfailure"
        run.kubelet = kubernetes.Kubelet(lab.out_dir, cell.naming, cell.seed, nodes, on_failure)
        lab.job_log = run.kubelet.job_event
        lab.restarting = run.kubelet.restart_due
        run.kubelet.watch(lab.procs, style.roles["chief"])
        run.extra["kubernetes_output"] = kubernetes.OUTPUT_FORMS[cell.naming]
    if style.config == "compose":
        missing = compose.check_names()
        if missing:
            raise CellError(missing)
        run.dockerd = compose.Dockerd(lab.out_dir, cell.naming, cell.seed, nodes)
        lab.job_log = run.dockerd.job_event
        run.extra["compose_output"] = compose.OUTPUT_FORMS[cell.naming]
    if style.config == "systemd":
        missing = systemd.check_names()
        if missing:
            raise CellError(missing)
        run.journal = systemd.Journald(
            lab.out_dir, cell.naming, nodes, restart=fault.name == "kill_restart"
        )
        lab.job_log = run.journal.job_event
        lab.restarting = run.journal.restart_due
        run.journal.watch(lab.procs)
        run.extra["systemd_output"] = systemd.OUTPUT_FORMS[cell.naming]
    if style.config == "mpi":
        missing = mpi.check()
        if missing:
            raise CellError(missing)
        if run.missing and run.missing != nodes[-len(run.missing) :]:
            raise CellError("mpirun -np N leaves out the last ranks only")
        ranks = [n for n in nodes if n not in run.missing]
        run.mpi = mpi.Mpirun(lab.out_dir, cell.naming, cell.seed, ranks)
        lab.job_log = run.mpi.job_event
        run.extra["mpi_output"] = mpi.OUTPUT_FORMS[cell.naming]
        run.extra["batch_job_id"] = run.mpi.job
    plan: dict = {}
    if style.config == "spark":
        missing = spark.check()
        if missing:
            raise CellError(missing)
        if run.missing and run.missing != nodes[-len(run.missing) :]:
            raise CellError("a stage of fewer partitions leaves out the last tasks only")
        tasks = [n for n in nodes if n not in run.missing]
        run.spark = spark.Spark(lab.out_dir, cell.naming, cell.seed, tasks, lab.scratch)
        lab.job_log = run.spark.job_event
        lab.job_ends_tasks = True
        run.extra["spark_output"] = spark.OUTPUT_FORMS[cell.naming]
        plan = _spark_plan(style, fault, cluster, specs, target, run, delayed, env)
    if style.config == "ray":
        missing = raylab.check(own)
        if missing:
            raise CellError(missing)
        if run.missing and run.missing != nodes[-len(run.missing) :]:
            raise CellError("a trainer of fewer workers leaves out the last ranks only")
        tasks = [n for n in nodes if n not in run.missing]
        if fault.kind == "squatter":
            # Ray's workers have TensorFlow imported before their training starts: a port is
            # bound within a second of Ray Train picking it; the target starts 3 s later
            delayed[target] = 3.0
        run.ray = raylab.Ray(lab.out_dir, cell.naming, cell.seed, tasks, lab.scratch, own)
        lab.job_log = run.ray.job_event
        lab.job_ends_tasks = True
        run.extra["ray_output"] = raylab.OUTPUT_FORMS[cell.naming]
        plan = _spark_plan(style, fault, cluster, specs, target, run, delayed, env)
        # the fault's variables in the job's runtime_env (HDF5 reads its locking switch when
        # h5py loads, before the training function runs)
        plan["job_env"] = dict(fault.env)

    if style.config == "supervisord":
        missing = supervisord.check()
        if missing:
            raise CellError(missing)
        run.sup = supervisord.Supervisord(lab.out_dir, cell.naming, nodes, lab.scratch)
        lab.job_log = run.sup.job_event
        lab.job_ends_tasks = True  # the operator's supervisorctl stop all ends the tasks
        run.extra["supervisord_output"] = supervisord.OUTPUT_FORMS[cell.naming]
    if style.config == "honcho":
        missing = honcho.check()
        if missing:
            raise CellError(missing)
        if run.missing and honcho.concurrent(cell.seed) and run.missing != nodes[-1:]:
            raise CellError("honcho -c worker=N leaves out the last workers only")
        run.honcho = honcho.Honcho(lab.out_dir, cell.naming, cell.seed, nodes, lab.scratch)
        lab.job_log = run.honcho.job_event
        lab.job_ends_tasks = True  # SIGTERM to honcho, which stops every process
        run.extra["honcho_output"] = honcho.OUTPUT_FORMS[cell.naming]
    if style.config == "parallel":
        missing = gnu_parallel.check()
        if missing:
            raise CellError(missing)
        run.par = gnu_parallel.Parallel(lab.out_dir, cell.naming, cell.seed, nodes, lab.scratch)
        lab.job_log = run.par.job_event
        lab.job_ends_tasks = True  # SIGTERM to parallel, which stops every job (--termseq)
        run.extra["parallel_output"] = gnu_parallel.OUTPUT_FORMS[cell.naming]
    if style.config == "pdsh":
        missing = pdsh.check()
        if missing:
            raise CellError(missing)
        run.pdsh = pdsh.Pdsh(lab.out_dir, cell.naming, cell.seed, nodes, lab.scratch)
        lab.job_log = run.pdsh.job_event
        lab.job_ends_tasks = True  # pdsh exits once its commands have; Ctrl-C's abort it
        run.extra["pdsh_output"] = pdsh.OUTPUT_FORMS[cell.naming]
    if style.config == "runit":
        missing = runit.check()
        if missing:
            raise CellError(missing)
        run.runit = runit.Runit(lab.out_dir, cell.naming, cell.seed, nodes, lab.scratch)
        lab.job_log = run.runit.job_event
        lab.job_ends_tasks = True  # the operator's sv force-stop ends the services
        run.extra["runit_output"] = runit.OUTPUT_FORMS[cell.naming]
    if style.config == "tmux":
        missing = tmuxlab.check(cell.naming)
        if missing:
            raise CellError(missing)
        run.tmux = tmuxlab.Tmux(lab.out_dir, cell.naming, cell.seed, nodes, lab.scratch)
        lab.job_log = run.tmux.job_event
        lab.job_ends_tasks = True  # the operator's Ctrl-C and kill-server end the tasks
        run.extra["tmux_output"] = tmuxlab.OUTPUT_FORMS[cell.naming]

    def start(node: str, log_rel: str | None = None) -> None:
        args = list(base)
        if node == target and fault.kind == "args":
            args += _subst(fault.args, style, lab.scratch, target)
        if fault.kind == "args" and node == style.driver and target not in (None, node):
            args += [*_subst(fault.args, style, lab.scratch, target), "--fault-task", target]
        python = own
        if fault.kind in ("old", "signal+old") or (fault.kind == "alt" and node == target):
            python = old
            if fault.kind == "alt":
                args += list(style.alt_args)
        if fault.kind == "alt" and node == style.roles["chief"] and node != target:
            args += list(style.alt_args)
        run.python[node] = python or sys.executable
        tf_config, node_env = specs[node], dict(env)
        if style.outside:
            kept = {j: a for j, a in tf_config["cluster"].items() if j not in style.outside}
            tf_config = {**tf_config, "cluster": kept}
        if style.config == "dtensor":
            tf_config = None
            node_env.update(_dtensor_env(specs[node]))
        if style.config == "slurm":
            tf_config = None
            task = specs[node]["task"]
            n = len(specs[node]["cluster"][task["type"]])
            node_env.update(slurm.task_env(run.srun.job, task["index"], n))
            args += ["--port-base", str(bases[node])]
        wrap = None
        if style.config == "k8s":  # the training-operator's TF_CONFIG; the pod's hostname
            tf_config = None
            pod = run.kubelet.pods[node]
            node_env.update({"TF_CONFIG": kubernetes.tf_config(specs[node]), "HOSTNAME": pod})
            node_env["TFDIAG_LAB_STOP_FILE"] = ""  # no goodbye: the operator deletes the pod
            wrap = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', pod]
        if style.config == "compose":  # the compose file's TF_CONFIG; dockerd's hostname
            tf_config = None
            host = run.dockerd.hostname(node)
            node_env.update({"TF_CONFIG": compose.tf_config(specs[node]), "HOSTNAME": host})
            node_env["TFDIAG_LAB_STOP_FILE"] = ""  # no goodbye: compose stops the containers
            wrap = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', host]
        if style.config == "mpi":  # the rank's app context in the one mpirun command
            spec = specs[node]
            args += ["--workers", ",".join(spec["cluster"]["worker"])]
            if spec["task"]["index"] != int(node.split(":")[1]):
                args += ["--task-index", str(spec["task"]["index"])]
            if node in delayed:  # the rank's script waits before it starts, inside mpirun
                args += ["--start-delay", f"{delayed[node]:g}"]
            log_style = "python" if node in style.python_log else "absl"
            node_env = {"TFDIAG_LAB_LOG_STYLE": log_style, **node_env}
            run.mpi.add(node, python or sys.executable, TASKS_DIR / style.script, args, node_env)
            return
        if style.config in ("spark", "ray"):  # the barrier task's child / the Ray worker's
            key = str(nodes.index(node))
            plan.setdefault("args", {})[key] = args
            plan.setdefault("python", {})[key] = python or sys.executable
            log_style = "python" if node in style.python_log else "absl"
            plan.setdefault("node_env", {})[key] = {"TFDIAG_LAB_LOG_STYLE": log_style, **node_env}
            return
        if style.config in ("supervisord", "runit", "tmux"):  # a [program:...], a service,
            # a tmux window
            log_style = "python" if node in style.python_log else "absl"
            program_env = {
                "PYTHONUNBUFFERED": "1",
                "CUDA_VISIBLE_DEVICES": "",
                "TFDIAG_LAB_LOG_STYLE": log_style,
                "TFDIAG_LAB_STOP_FILE": "",  # no goodbye: supervisorctl stop ends the servers
                "OMP_NUM_THREADS": "1",
                "TZ": "UTC",
                **node_env,
            }
            if tf_config is not None:
                program_env = {"TF_CONFIG": json.dumps(tf_config), **program_env}
            (run.sup or run.runit or run.tmux).add(
                node,
                python or sys.executable,
                TASKS_DIR / style.script,
                args,
                program_env,
                autostart=node not in delayed,
            )
            return
        if style.config == "honcho":  # a Procfile process (its TF_CONFIG on its line)
            log_style = "python" if node in style.python_log else "absl"
            task_env = {"TFDIAG_LAB_LOG_STYLE": log_style, **node_env}
            if tf_config is not None:
                task_env = {"TF_CONFIG": json.dumps(tf_config), **task_env}
            run.honcho.add(
                node,
                python or sys.executable,
                TASKS_DIR / style.script,
                args,
                task_env,
                workers=cluster["worker"],
                delay=delayed.get(node, 0.0),
            )
            return
        if style.config in ("parallel", "pdsh"):  # a job of parallel's input, a pdsh host
            log_style = "python" if node in style.python_log else "absl"
            task_env = {"TFDIAG_LAB_LOG_STYLE": log_style, **node_env}
            if tf_config is not None:
                task_env = {"TF_CONFIG": json.dumps(tf_config), **task_env}
            (run.par or run.pdsh).add(
                node,
                python or sys.executable,
                TASKS_DIR / style.script,
                args,
                task_env,
                cluster=cluster,
                delay=delayed.get(node, 0.0),
            )
            return
        exec_python = python
        if style.config == "systemd":  # the unit's Environment=TF_CONFIG; the host's name
            host = systemd.HOSTS[node]
            node_env["TFDIAG_LAB_STOP_FILE"] = ""  # no goodbye: systemctl stop ends the units
            wrap = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', host]
            exec_python = systemd.exec_path(python or sys.executable)
            run.journal.unit_started(node, exec_python)
        lab.start(
            node,
            style.script,
            log_rel or dict(cell.files).get(node) or file_name(cell.naming, style, node, cell.seed),
            tf_config=tf_config,
            args=args,
            env=node_env or None,
            python=exec_python,
            log_style="python" if node in style.python_log else "absl",
            tee=run.srun.tee if run.srun else (run.journal.tee if run.journal else None),
            sink=run.kubelet or run.dockerd,
            wrap=wrap,
        )

    if run.kubelet is not None:
        run.kubelet.restarter = start
    if run.journal is not None:
        run.journal.restarter = start
    # delays made inside the job
    inside = (
        run.mpi is not None
        or run.spark is not None
        or run.ray is not None
        or run.honcho is not None
        or run.par is not None
        or run.pdsh is not None
    )
    for node in nodes:
        if node in run.missing or (
            node in delayed
            and not inside
            and run.sup is None
            and run.runit is None
            and run.tmux is None
        ):
            continue
        start(node)  # supervisord: a delayed program is in the configuration, autostart=false
        # (runit: a delayed service is written, started later by sv once; tmux: a delayed
        # task's window is opened, its command typed later)
    if run.sup is not None:
        try:
            run.sup.launch(lab)
        except RuntimeError as exc:
            raise CellError(str(exc)) from exc
        run.extra["supervisord_started_utc"] = utc_now()
    if run.honcho is not None:
        run.honcho.launch(lab, env)
        run.extra["honcho_started_utc"] = utc_now()
    if run.par is not None:
        if run.missing:  # the input lines of the tasks that run (the cluster lists them all)
            run.par.tasks = [t for t in run.par.tasks if t["node"] not in run.missing]
        run.par.launch(lab, env)
        run.extra["parallel_started_utc"] = utc_now()
    if run.pdsh is not None:
        if run.missing:  # the hosts that run (the cluster lists them all)
            run.pdsh.tasks = [t for t in run.pdsh.tasks if t["node"] not in run.missing]
        run.pdsh.launch(lab, env)
        run.extra["pdsh_started_utc"] = utc_now()
    if run.runit is not None:
        try:
            run.runit.launch(lab)
        except RuntimeError as exc:
            raise CellError(str(exc)) from exc
        run.extra["runsvdir_started_utc"] = utc_now()
    if run.tmux is not None:
        try:
            run.tmux.launch(lab)
        except RuntimeError as exc:
            raise CellError(str(exc)) from exc
        run.extra["tmux_started_utc"] = utc_now()
    if run.mpi is not None:
        run.mpi.launch(lab, _mpi_env(lab, env))
        run.extra["mpirun_started_utc"] = utc_now()
    if run.spark is not None:
        try:
            run.spark.start_cluster()
        except RuntimeError as exc:
            raise CellError(str(exc)) from exc
        run.spark.submit_app(lab, plan, len(nodes) - len(run.missing))
        run.extra["spark_submit_started_utc"] = utc_now()
        if fault.kind == "squatter":  # the port the target's task picked, before TF binds it
            port = run.spark.own_port(target)
            if port is None or not lab.squat(port):
                raise CellError("squatter could not bind the target's port")
            run.extra["bound_port"] = port
            lab.mark_fault()
    if run.ray is not None:
        try:
            run.ray.start_cluster(lab)
        except RuntimeError as exc:
            raise CellError(str(exc)) from exc
        run.ray.submit(lab, plan, len(nodes) - len(run.missing))
        run.extra["ray_driver_started_utc"] = utc_now()
        if fault.kind == "squatter":  # the port Ray Train picked for the target, before TF
            port = run.ray.own_port(target)
            if port is None or not lab.squat(port):
                raise CellError("squatter could not bind the target's port")
            run.extra["bound_port"] = port
            lab.mark_fault()
    if fault.kind == "args":
        lab.mark_fault()
    for node, delay in delayed.items():
        time.sleep(delay)
        run.extra.setdefault("late_start_utc", {})[node] = utc_now()
        if run.sup is not None or run.runit is not None or run.tmux is not None:
            # supervisorctl start, sv once, the command typed into its tmux window
            (run.sup or run.runit or run.tmux).start_program(node)
        elif not inside:
            start(node)
        if fault.kind == "late":
            lab.mark_fault()

    if fault.kind in ("signal", "signal+old"):
        _wait_phase(lab, style, cell.phase, target)
        if run.journal is not None and fault.sig == signal.SIGTERM:
            # systemctl stop <unit>: SIGTERM and SIGCONT, SIGKILL after TimeoutStopSec
            lab.mark_fault()
            run.journal.stop(target, by_operator=False)
        elif run.sup is not None and fault.sig == signal.SIGTERM:
            # supervisorctl stop <program>: SIGTERM, SIGKILL after stopwaitsecs
            lab.mark_fault()
            run.sup.stop_program(target, by_operator=False)
        elif run.runit is not None and fault.sig == signal.SIGTERM:
            # sv term tf-worker-N: SIGTERM to its python (the lab's SIGKILL after the grace)
            lab.mark_fault()
            run.runit.stop_program(target)
        else:
            lab.signal(target, fault.sig)
        run.offsets = {n: len(lab.read(n)) for n in lab.procs}
        if fault.sig == signal.SIGSTOP:
            run.stopped.add(target)
        if fault.sig == signal.SIGTERM and run.journal is None and run.sup is None:
            _preempt_grace(lab, target, run)
    if fault.kind == "job_signal":  # the scheduler cancels the job: SIGTERM to mpirun
        _wait_phase(lab, style, cell.phase, target)
        lab.mark_fault()
        if run.spark is not None:  # ... or to spark-submit (the driver)
            run.spark.cancel()
        elif run.ray is not None:  # ... or to the Ray job's driver script
            run.ray.cancel()
        elif run.sup is not None:  # ... or to supervisord (its host going down)
            run.sup.terminate()
        elif run.honcho is not None:  # ... or to honcho (Ctrl-C's SIGTERM, a CI's cancel)
            run.honcho.terminate()
        elif run.par is not None:  # ... or to GNU parallel (a CI's cancel)
            run.par.terminate()
        elif run.pdsh is not None:  # ... or to pdsh and its commands (the job's cgroup)
            run.pdsh.terminate()
        elif run.runit is not None:  # ... or the host going down (runit's stage 3)
            run.runit.terminate()
        elif run.tmux is not None:  # ... or tmux kill-session (SIGHUP to every window)
            run.tmux.terminate()
        else:
            run.mpi.signal_mpirun(fault.sig, "cancel")
        run.offsets = {n: len(lab.read(n)) for n in lab.procs}
    if fault.kind == "executor_kill":  # an executor lost: SIGKILL to the target's executor
        _wait_phase(lab, style, cell.phase, target)
        lab.mark_fault()
        run.extra["executor_killed"] = run.spark.executors[target][0]
        run.extra["executor_pid"] = run.spark.kill_executor(target)
        run.offsets = {n: len(lab.read(n)) for n in lab.procs}
    if fault.kind == "throttle":
        _wait_phase(lab, style, "training", target)
        lab.mark_fault()
        _throttle(lab, target)

    idle = 20.0
    # a Spark job's first step comes after its daemons, driver, executors and Python workers
    # started (40 s and more on two busy cores)
    grace = 120.0 if style.config in ("spark", "ray") else 45.0
    run.ended_by = _wait_end(lab, style, run.stopped, grace=grace, idle=idle)
    if fault.kind in ("hdf5",):
        time.sleep(0.5)
    return run


def _spark_plan(
    style: Style,
    fault: Fault,
    cluster: dict,
    specs: dict,
    target: str | None,
    run: _Run,
    delayed: dict[str, float],
    env: dict,
) -> dict:
    """The application's plan (spark_app.py --plan): what each barrier task does beyond the
    healthy path. Its ports are picked by the tasks at run time, so a spec fault is an edit
    of the gathered cluster: a peer's port replaced, a worker added, another index; a
    missing task's address and a shared port are the ones the lab picked."""
    nodes = style.nodes
    plan: dict = {
        "env": {
            "PYTHONUNBUFFERED": "1",
            "CUDA_VISIBLE_DEVICES": "",
            "TFDIAG_LAB_STOP_FILE": "",  # no goodbye: the job ends when its tasks end
            "OMP_NUM_THREADS": "1",
            "TZ": "UTC",
            **env,
        },
        "delay": {str(nodes.index(n)): d for n, d in delayed.items()},
    }
    if run.missing:  # every task's TF_CONFIG lists the workers no partition runs
        plan["extra_workers"] = [specs[n]["cluster"]["worker"][nodes.index(n)] for n in run.missing]
    if target is None:
        return plan
    key = str(nodes.index(target))
    if fault.kind == "tfconfig":
        if fault.name == "wrong_address":
            peer = run.extra["peer"]
            edit = {"kind": fault.name, "peer": nodes.index(peer)}
            edit["port"] = _port(run.extra["wrong_address"])
        elif fault.name == "wrong_count":
            edit = {"kind": fault.name, "extra": specs[target]["cluster"]["worker"][-1]}
        else:
            edit = {"kind": fault.name, "index": specs[target]["task"]["index"]}
        plan["spec"] = {key: edit}
    if fault.kind == "dup_port":  # the script's fixed port, on both tasks of one host
        port = _port(run.extra["shared_address"])
        peer = run.extra["port_shared_with"]
        plan["fixed_port"] = {key: port, str(nodes.index(peer)): port}
    return plan


def _mpi_env(lab: Lab, env: dict) -> dict[str, str]:
    """mpirun's environment (its ranks inherit it): the lab's child settings, as Lab.start
    gives a task; as root Open MPI wants its two variables allowing it."""
    out = dict(os.environ)
    for k in ("TF_CONFIG", "PYTHONPATH"):
        out.pop(k, None)
    out.update(
        {
            "PYTHONUNBUFFERED": "1",
            "CUDA_VISIBLE_DEVICES": "",
            "TFDIAG_LAB_STOP_FILE": "",  # no goodbye: the job ends when mpirun's ranks end
            "OMP_NUM_THREADS": "1",
            "TZ": "UTC",
            **env,
        }
    )
    if os.geteuid() == 0:
        out.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    return out


def _read_all(lab: Lab, node: str) -> str:
    return lab.read(node) if node in lab.procs else ""


def _settle(lab: Lab, cell: Cell, style: Style, fault: Fault, run: _Run, codes: dict) -> None:
    """Decide what really happened; fill run.category / expect / notes; raise CellError."""
    target = run.target
    started = [n for n in run.nodes if n in lab.procs]
    # a TFJob's pods the operator deleted once the job had ended did not fail it
    deleted = run.kubelet.deleted if run.kubelet else set()
    if run.journal is not None:  # the units the operator stopped once the job had ended
        deleted = set(run.journal.operator_stopped)
    if run.ray is not None:  # the worker actors Ray Train ended after their training returned
        deleted = run.ray.finished
    if run.sup is not None:  # the programs the operator stopped (supervisorctl stop all)
        deleted = set(run.sup.operator_stopped)
    if run.honcho is not None:  # the processes honcho stopped once one of them had ended
        deleted = set(run.honcho.stopped_by_honcho())
    if run.par is not None:  # the jobs parallel stopped (its halt, or a SIGTERM to it)
        deleted = set(run.par.stopped_by_parallel())
    if run.pdsh is not None:  # the commands pdsh's abort signalled (Ctrl-C twice)
        deleted = set(run.pdsh.stopped_by_pdsh())
    if run.runit is not None:  # the services the operator force-stopped (sv force-stop)
        deleted = set(run.runit.operator_stopped)
    if run.tmux is not None:  # the windows the operator Ctrl-C'd or hung up (kill-server)
        deleted = set(run.tmux.operator_stopped)
    failed = [n for n in started if codes.get(n) not in (0, None) and n not in deleted]
    peers = [n for n in started if n != target]
    stalled = run.ended_by == "launcher_timeout"
    all_ok = not failed and not stalled

    def after_fault(rx: str) -> list[str]:
        """The peers whose logs match ``rx`` after the fault (not in their start-up retries:
        a tf.data service worker logs 'Failed to Worker heartbeat' until its dispatcher is up)."""
        return [n for n in peers if re.search(rx, _read_all(lab, n)[run.offsets.get(n, 0) :])]

    def spec(s: str) -> str:
        if s == "target":
            return target
        if s == "peers":
            return "|".join(peers)
        return "|".join(started)

    run.expect = [(spec(s), rx) for s, rx in fault.evidence]
    if fault.sig == signal.SIGSTOP and all(codes.get(n) == 0 for n in style.train_nodes):
        # what a peer logs at shutdown (a trainer that finished and left) is not the stall's
        raise CellError(f"the job finished while {target} was frozen: nothing stalled; {codes}")
    if fault.exit_code is not None and codes.get(target) != fault.exit_code:
        raise CellError(f"{target} exit code {codes.get(target)}, expected {fault.exit_code}")
    if fault.ended_by_launcher and not stalled:
        raise CellError(f"the job did not stall (it {run.ended_by}); codes {codes}")
    if fault.must_fail and all_ok:
        raise CellError(f"every task ended cleanly; codes {codes}")

    if fault.kind in ("none", "old"):
        if not all_ok:
            raise CellError(f"healthy run failed: {codes}, {run.ended_by}")
        run.expect = [(style.progress_node, r"training finished after|worker 0 done")]
        run.target = None
    elif fault.name == "kill_onfailure":
        first = run.kubelet.first_exit.get(target)
        if first != -9 or not run.kubelet.restarts.get(target):
            raise CellError(f"{target} was not restarted after its SIGKILL: {first}, {codes}")
    elif fault.name == "kill_restart":
        first = run.journal.first_exit.get(target)
        if first != -9 or not run.journal.restarts.get(target):
            raise CellError(f"{target} was not restarted after its SIGKILL: {first}, {codes}")
    elif fault.name in ("preempt", "preempt_job"):
        # a cancelled Spark application: pyspark's daemon ends its workers' process group
        # with SIGHUP when its executor is stopped
        hup = (-1,) if fault.name == "preempt_job" and style.config == "spark" else ()
        # a Ray worker process's SIGTERM handler exits it with code 1 ('The process receives a
        # SIGTERM'), as does Ray's end of a job's actors once its driver is gone
        if style.config == "ray":
            hup = (1,)
        # tmux kill-session: the pane's shell hangs up its jobs (SIGHUP)
        if fault.name == "preempt_job" and style.config == "tmux":
            hup = (-1,)
        if codes.get(target) not in (-15, -9, 42, 143, *hup):
            raise CellError(f"{target} exit code {codes.get(target)} after SIGTERM")
        if run.ray is not None and target in run.ray.finished:
            # TensorFlow's preemption notifier caught the SIGTERM and the training went on
            # to its end: Ray ended the actor afterwards, nothing was preempted
            raise CellError(f"{target}'s training returned after the SIGTERM; {codes}")
        if style.preempt_args and cell.phase == "training" and fault.name == "preempt":
            run.expect.append((target, r"received termination notice|Termination caught"))
        if run.extra.get("killed_after_grace"):
            run.notes.append(
                f"{target} caught the SIGTERM (TensorFlow's preemption notifier) and kept "
                f"running; the launcher SIGKILLed it after a {PREEMPT_GRACE:.0f} s grace period, "
                "as a kubelet does."
            )
    elif fault.kind == "throttle" or fault.name == "straggler":
        if not all_ok:
            raise CellError(f"straggler run did not finish cleanly: {codes}, {run.ended_by}")
        run.expect = [(style.progress_node, r"training finished after|worker 0 done")]
        run.extra["step_seconds"] = _step_times(lab, style)
    elif fault.kind == "hdf5":
        writers, errors = [], {}
        for n in started:
            text = _read_all(lab, n)
            m = list(
                re.finditer(
                    r"^\w+Error: .*(Unable to|unable to|truncated|holds the weights|"
                    r"bad object header|not a valid|signature).*$",
                    text,
                    re.M,
                )
            )
            if m and codes.get(n) not in (0, None):
                writers.append(n)
                errors[n] = m[-1].group(0)[:300]
        if not writers:
            raise CellError(f"no writer failed on the shared HDF5 file; codes {codes}")
        starts = {}
        for n in started:
            m = re.search(
                r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) - \w+ - saving weights to",
                _read_all(lab, n),
                re.M,
            )
            if m:
                starts[n] = f"{m.group(1).replace(' ', 'T')}.{m.group(2)}000Z"
        if run.ray is not None and not starts:  # a Ray worker's lines carry no time
            starts = {n: t for n, t in run.ray.logged_at("saving weights to").items()}
        if len(writers) > 1 and not starts:
            raise CellError(f"writers {writers} failed and no log says which saved first")
        first = min(writers, key=lambda n: (starts.get(n, "~"), n))
        run.target = first
        if starts:
            lab.fault_time_utc = min(starts.values())
        run.expect = [(first, re.escape(errors[first][:80]))]
        run.extra.update({"failed_writers": writers, "writer_errors": errors})
        run.extra["save_started_utc"] = starts
    elif fault.name == "dup_port":
        text = _read_all(lab, target)
        if re.search(BIND_ERROR, text):
            run.category = "address_in_use"
            run.expect = [(target, BIND_ERROR)]
            run.notes.append("The second task to bind the shared port failed to bind it.")
        else:
            run.category = "cluster_spec_mismatch"
            run.expect = [(target, style.config_re)]
            run.notes.append(
                "The second task bound the shared port too (gRPC sets SO_REUSEPORT), so "
                "nothing failed to bind: two tasks answer on one address and the cluster "
                "misbehaves; recorded as cluster_spec_mismatch."
            )
    elif fault.name == "late":
        if all_ok:
            run.category, run.target = "none", None
            run.notes.append(
                f"{target} joined late but the job succeeded: recorded as healthy (none)."
            )
            run.expect = [(style.progress_node, r"training finished after|worker 0 done")]
        else:
            run.category = "session_blocked"
            run.expect = [(spec("any"), ANY_ERROR)]
    elif fault.name == "version":
        ver = rf"^tf\.__version__ = (?!{re.escape(style.release)}\.)"
        if all_ok:
            run.category, run.target = "none", None
            run.notes.append(
                f"{target} ran the older release and the job still succeeded: recorded as "
                "healthy (none), with mixed releases."
            )
            run.expect = [(target, ver)]
        else:
            run.category = "version_mismatch"
            run.expect = [(target, ver), (spec("any"), ANY_ERROR)]
    elif fault.name == "stall_deadline":
        deadline = r"DEADLINE_EXCEEDED|DeadlineExceeded|[Tt]imed out"
        if after_fault(deadline):
            run.category = "deadline_exceeded"
            run.expect = [("|".join(after_fault(deadline)), deadline)]
        elif stalled:
            run.category = "hang"
            run.notes.append(
                "The timeouts were set but nothing timed out: the peers waited on the frozen "
                f"{target} until the launcher ended the job, so this is recorded as hang."
            )
        else:
            raise CellError(f"neither a deadline error nor a stall: {codes}")
    elif fault.name == "stall_notimeout":
        beat = r"stopped sending heartbeats|[Hh]eartbeat"
        if stalled:
            run.category = "hang"
        elif after_fault(beat):
            run.category = "coordination_failure"
            run.expect = [("|".join(after_fault(beat)), beat)]
            run.notes.append(
                f"No timeout was set, but the coordination service noticed that the frozen "
                f"{target} stopped sending heartbeats and aborted the collectives of its "
                "peers: recorded as coordination_failure on the frozen task."
            )
        else:
            raise CellError(f"neither a stall nor a heartbeat failure: {codes}")
    elif fault.kind in ("tfconfig",):
        run.expect = [(target, style.config_re)]
    elif fault.kind == "missing":
        pass
    if fault.kind == "squatter" and codes.get(target) in (0, None):
        raise CellError(f"{target} did not fail to bind: {codes}")


STEP_TIME_RE = r"loss [-\d.naif]+ \((\d+\.\d+) s\)"


def step_time_stats(texts: dict[str, str]) -> dict[str, dict[str, float]]:
    """Per node: mean, median and max of the '(x s)' step times its step lines print."""
    out = {}
    for n, text in texts.items():
        vals = sorted(float(v) for v in re.findall(STEP_TIME_RE, text))
        if vals:
            out[n] = {
                "mean": round(sum(vals) / len(vals), 3),
                "median": round(vals[len(vals) // 2], 3),
                "max": round(vals[-1], 3),
                "steps": len(vals),
            }
    return out


def _step_times(lab: Lab, style: Style) -> dict[str, dict[str, float]]:
    return step_time_stats({n: lab.read(n) for n in style.train_nodes if n in lab.procs})


def _describe(cell: Cell, style: Style, fault: Fault, run: _Run) -> str:
    who = f" Target: {run.target or cell.role}." if cell.role not in ("none",) else ""
    return f"{fault.description}{who} Cluster: {style.cluster}. Phase: {PHASES[cell.phase]}."


K8S_TIMEOUT_NOTE = (
    " The job stopped making progress; the launcher ended it as a TFJob's "
    "activeDeadlineSeconds does (every pod deleted: SIGTERM to every task, SIGKILL 5 s "
    "later); Kubernetes writes nothing of it into the containers' logs."
)


COMPOSE_TIMEOUT_NOTE = (
    " The job stopped making progress; the launcher ended it as docker compose down "
    "--timeout 5 does (SIGTERM to every container, SIGKILL 5 s later); compose and dockerd "
    "write nothing of it into the containers' logs."
)


SYSTEMD_TIMEOUT_NOTE = (
    " The job stopped making progress; the operator stopped every unit (systemctl stop on "
    "each host: SIGTERM and SIGCONT, SIGKILL after TimeoutStopSec=5s), and systemd wrote its "
    "Stopping/Stopped lines into each host's journal."
)


SPARK_TIMEOUT_NOTE = (
    " The job stopped making progress; the launcher ended it as a workflow scheduler's "
    "timeout does: SIGTERM to spark-submit, whose shutdown hook stops the SparkContext and "
    "has the executors killed (their Python workers and TensorFlow workers go with them); "
    "the scheduler wrote no line of it."
)


RAY_TIMEOUT_NOTE = (
    " The job stopped making progress; the launcher ended it as a workflow scheduler's "
    "timeout does: SIGTERM to the Ray job's driver script, whose end has Ray end the job's "
    "actors (the Ray Train controller and its worker actors); the scheduler wrote no line "
    "of it."
)


SUPERVISORD_TIMEOUT_NOTE = (
    " The job stopped making progress; the operator stopped every program (supervisorctl "
    f"stop all: SIGTERM, SIGKILL after stopwaitsecs={supervisord.STOP_WAIT_SECS}), and "
    "supervisord wrote its stopped: lines into supervisord.log."
)


HONCHO_TIMEOUT_NOTE = (
    " The job stopped making progress; it was cancelled by SIGTERM to honcho (a terminal's "
    "Ctrl-C, a CI job's time limit), which printed 'SIGTERM received' and sent SIGTERM to every "
    "process's group (honcho's SIGKILL comes only 5 s after one of its processes stopped)."
)


HONCHO_GONE_NOTE = (
    " The job stopped making progress after honcho had exited (every process's shell had "
    "ended): the pythons that outlived it were SIGKILLed when the lab ended the run."
)


PARALLEL_TIMEOUT_NOTE = (
    " The job stopped making progress; it was cancelled by SIGTERM to GNU parallel (a CI job's "
    "time limit), which stopped every running job with its --termseq (TERM 200 ms TERM 100 ms "
    "TERM 50 ms KILL) and exited."
)


PDSH_TIMEOUT_NOTE = (
    " The job stopped making progress; the operator aborted pdsh with two Ctrl-C's at its "
    "terminal (SIGINT twice within a second): pdsh printed each host's status, sent SIGINT to "
    "every command still running and exited; what was left was SIGKILLed at the run's end."
)


RUNIT_TIMEOUT_NOTE = (
    " The job stopped making progress; the operator stopped the services still running (sv "
    f"-w {runit.STOP_WAIT} force-stop: TERM and CONT, KILL after {runit.STOP_WAIT} s), then sv "
    "exit and SIGHUP to runsvdir; runit wrote no line of it."
)


TMUX_TIMEOUT_NOTE = (
    " The job stopped making progress; the operator pressed Ctrl-C in every window whose "
    "python still ran (tmux send-keys C-c: SIGINT to the window's foreground process group), "
    f"waited {tmuxlab.STOP_WAIT} s, then ended the session with tmux kill-server (SIGHUP to every "
    "pane's shell, which hangs up its jobs); tmux wrote no line of it."
)


MPI_TIMEOUT_NOTE = (
    " The job stopped making progress; the launcher ended it as a batch system's time limit "
    "does (SIGTERM to every process of the job, mpirun and its ranks; SIGKILL 5 s later); "
    "the batch system wrote no line of it, what mpirun printed is in its output."
)


def run_cell(cell: Cell, out_dir: Path, *, timeout: float = 200.0) -> dict:
    """Record one cell into ``out_dir`` (node logs + truth.json); returns the truth dict.

    Raises :class:`CellError` when the fault did not show up as planned; the
    logs stay in ``out_dir`` without a truth.json.
    """
    from . import _describe_code, _find_evidence, _versions

    style, fault = STYLES[cell.style], FAULTS[cell.fault]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "truth.json").unlink(missing_ok=True)
    started = time.monotonic()
    started_utc = utc_now()
    lab = Lab(out_dir, timeout)
    run = None
    try:
        run = _launch(lab, cell, style, fault)
    finally:
        if lab.job_log is not None:
            lab.job_log("end")  # what the lab's cleanup ends is not the job's doing
        codes = lab.cleanup()
    wall = round(time.monotonic() - started, 1)
    _settle(lab, cell, style, fault, run, codes)

    node_files: dict[str, list[str]] = {
        n: [p.log_path.relative_to(out_dir).as_posix()] for n, p in lab.procs.items()
    }
    for n in cell.rotate:
        p = lab.procs[n]
        parent = p.log_path.parent.relative_to(out_dir)
        node_files[n] = [(parent / x).as_posix() for x in rotate(p.log_path)]
    if cell.naming in ("rotated", "gz"):
        for n, p in lab.procs.items():
            parent = p.log_path.parent.relative_to(out_dir)
            if cell.naming == "rotated":
                names = rotate(p.log_path)
            else:
                gz = p.log_path.with_name(p.log_path.name + ".gz")
                with gzip.GzipFile(str(gz), "wb", mtime=0) as f:
                    f.write(p.log_path.read_bytes())
                p.log_path.unlink()
                names = [gz.name]
            node_files[n] = [(parent / x).as_posix() for x in names]
    if run.mpi is not None:
        node_files = {n: run.mpi.node_files(n) for n in lab.procs}
    if run.spark is not None:
        node_files = {n: run.spark.node_files(n) for n in lab.procs}
        for n, files in node_files.items():
            if not files:
                raise CellError(f"{n}'s TensorFlow worker was never found in an executor")
    if run.ray is not None:
        node_files = {n: run.ray.node_files(n) for n in lab.procs}
        for n, files in node_files.items():
            if not files:
                raise CellError(f"{n}'s Ray worker process left no worker-*.out/.err file")
    if run.honcho is not None:
        node_files = {n: run.honcho.node_files(n) for n in lab.procs}
    if run.pdsh is not None:
        node_files = {n: run.pdsh.node_files(n) for n in lab.procs}
    if run.runit is not None:
        node_files = {n: run.runit.node_files(n) for n in lab.procs}
        for n, files in node_files.items():
            if not files:
                raise CellError(f"{n}'s service left no svlogd file")
    if run.tmux is not None:
        node_files = {n: run.tmux.node_files(n) for n in lab.procs}
        for n, files in node_files.items():
            if not files:
                raise CellError(f"{n}'s tmux window left no log")
    if run.par is not None:
        node_files = {n: run.par.node_files(n) for n in lab.procs}
        for n, files in node_files.items():
            if not files:
                raise CellError(f"{n}'s parallel job left no output file")
    if run.sup is not None:
        node_files = {n: run.sup.node_files(n) for n in lab.procs}
        for n, files in node_files.items():
            if not files:
                raise CellError(f"{n}'s program left no log file")
    for n in run.missing:
        node_files[n] = []
    evidence = _find_evidence(out_dir, node_files, [*run.expect, *cell.expect])
    if not all(e.get("file") for e in evidence):
        bad = [e["pattern"] for e in evidence if not e.get("file")]
        raise CellError(f"evidence not found: {bad}")
    versions = _versions(out_dir, node_files)
    distinct = sorted(set(versions.values()))
    ffn = run.target if run.category != "none" else None
    if run.category != "none" and lab.fault_time_utc is None:
        lab.mark_fault()
    exit_codes = {n: codes.get(n) for n in run.nodes if n in codes}
    notes = " ".join(run.notes)
    notes += " Exit codes: " + ", ".join(f"{n}={_describe_code(c)}" for n, c in exit_codes.items())
    notes += "."
    if run.missing:
        notes += " Never started (no log): " + ", ".join(run.missing) + "."
    if run.stopped and run.spark is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until the end of its Spark "
            "task or the final SIGKILL ended it."
        )
    elif run.stopped and run.ray is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until Ray ended its worker "
            "process or the final SIGKILL ended it."
        )
    elif run.stopped and run.mpi is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until mpirun's abort of the "
            "job or the final SIGKILL ended it."
        )
    elif run.stopped and run.honcho is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped (honcho sends no SIGCONT) "
            f"until a SIGKILL: honcho's {honcho.KILL_WAIT} s after its SIGTERM, or the lab's "
            "end of the run."
        )
    elif run.stopped and run.par is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until parallel's --termseq "
            "(TERM, TERM, TERM, KILL) or the lab's end of the run."
        )
    elif run.stopped and run.pdsh is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped (pdsh sends no SIGCONT; its "
            "abort's SIGINT stays pending) until the lab's SIGKILL at the end of the run."
        )
    elif run.stopped and run.tmux is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped (its window's shell reported "
            "it Stopped and took the terminal back, so the operator's Ctrl-C reached the shell, "
            "not the python) until tmux kill-server hung up its shell, which sent its stopped "
            "job SIGHUP and SIGCONT, or the lab's SIGKILL at the end of the run."
        )
    elif run.stopped and run.runit is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until the operator's sv "
            "force-stop (TERM and CONT; KILL after 7 s)."
        )
    elif run.stopped and run.sup is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until supervisorctl stop's "
            "SIGTERM and, supervisord sending no SIGCONT, its SIGKILL after stopwaitsecs="
            f"{supervisord.STOP_WAIT_SECS}."
        )
    elif run.stopped and run.journal is not None:
        notes += (
            f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until systemctl stop sent it "
            "SIGTERM and SIGCONT."
        )
    elif run.stopped:
        notes += f" {', '.join(sorted(run.stopped))} stayed SIGSTOPped until the final SIGKILL."
    if run.ended_by == "launcher_timeout" and style.config == "k8s":
        notes += K8S_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "compose":
        notes += COMPOSE_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "systemd":
        notes += SYSTEMD_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "mpi":
        notes += MPI_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "spark":
        notes += SPARK_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "ray":
        notes += RAY_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "supervisord":
        notes += SUPERVISORD_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "honcho":
        signalled = any(w == "time_limit" for w, _ in run.honcho.signalled)
        notes += HONCHO_TIMEOUT_NOTE if signalled else HONCHO_GONE_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "parallel":
        notes += PARALLEL_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "pdsh":
        notes += PDSH_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "runit":
        notes += RUNIT_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout" and style.config == "tmux":
        notes += TMUX_TIMEOUT_NOTE
    elif run.ended_by == "launcher_timeout":
        notes += (
            " The job stopped making progress; the launcher ended it (SIGTERM to every "
            "task, SIGKILL 5 s later) and wrote launcher.log."
        )
    launcher = ["launcher.log"] if (out_dir / "launcher.log").exists() else []
    truth = {
        "scenario": cell.folder.replace("/", "."),
        "description": _describe(cell, style, fault, run),
        "nodes": run.nodes,
        "first_failing_node": ffn,
        "task": task_name(ffn) if ffn else None,
        "root_cause_category": run.category,
        "fault_time_utc": lab.fault_time_utc if ffn else None,
        "tensorflow_version": distinct[0] if len(distinct) == 1 else ", ".join(distinct),
        "notes": notes.strip(),
        "node_files": {n: node_files.get(n, []) for n in run.nodes},
        "missing_nodes": run.missing,
        "tensorflow_versions": versions,
        "exit_codes": exit_codes,
        "evidence": evidence,
        "verified": True,
        "run_started_utc": started_utc,
        "wall_time_seconds": wall,
        "cluster": style.cluster,
        "style": cell.style,
        "fault": cell.fault,
        "family": fault.family,
        "phase": cell.phase,
        "naming": cell.naming,
        "target_role": cell.role,
        "target_node": run.target,
        "injected_category": fault.category,
        "ended_by": run.ended_by,
        "launcher_files": launcher,
        "interpreters": {n: _py_label(p) for n, p in run.python.items()},
    }
    truth.update(run.extra)
    truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.srun is not None:
        run.srun.finish(truth)
    if run.kubelet is not None:
        run.kubelet.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.dockerd is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is docker stop --time {PREEMPT_GRACE:.0f} on "
                f"{compose.container_name(int(run.target.split(':')[1]))} (SIGTERM, SIGKILL "
                "after the timeout), written in no log."
            )
        run.dockerd.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.journal is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is systemctl stop {systemd.unit(run.target)} on "
                f"{systemd.HOSTS[run.target]} (SIGTERM and SIGCONT, SIGKILL after "
                f"TimeoutStopSec={systemd.TIMEOUT_STOP_SEC:.0f}s); systemd's Stopping/Stopped "
                "lines are in that host's journal."
            )
        run.journal.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.mpi is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM to {run.target}'s process (rank "
                f"{run.target.split(':')[1]}), SIGKILL after {PREEMPT_GRACE:.0f} s if it is "
                "still there; mpirun sees the rank end and aborts the job."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The scheduler cancelled the job by SIGTERM to mpirun; mpirun ended its ranks."
            )
        run.mpi.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.spark is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM to {run.target}'s TensorFlow worker process (the "
                f"child of its barrier task's Python worker), SIGKILL after "
                f"{PREEMPT_GRACE:.0f} s if it is still there."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The scheduler cancelled the application by SIGTERM to spark-submit (client "
                "mode: the driver); its shutdown hook stopped the SparkContext."
            )
        if "right_address" in truth:  # the peer's address as its task gathered it
            spec = run.spark.tf_config(truth["peer"])
            if spec is not None:
                truth["right_address"] = spec["cluster"]["worker"][spec["task"]["index"]]
        run.spark.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.ray is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM to {run.target}'s Ray worker process (its "
                f"RayTrainWorker actor, where its training runs), SIGKILL after "
                f"{PREEMPT_GRACE:.0f} s if it is still there."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The scheduler cancelled the job by SIGTERM to the Ray job's driver script."
            )
        if "right_address" in truth:  # the peer's address as Ray Train gave it
            spec = run.ray.tf_config(truth["peer"])
            if spec is not None:
                truth["right_address"] = spec["cluster"]["worker"][spec["task"]["index"]]
        run.ray.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.sup is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is supervisorctl stop {supervisord.program(run.target)} "
                f"(SIGTERM, SIGKILL after stopwaitsecs={supervisord.STOP_WAIT_SECS}); "
                "supervisord's lines about it are in supervisord.log."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The host went down: SIGTERM to supervisord, which stopped every program "
                f"(SIGTERM, SIGKILL after stopwaitsecs={supervisord.STOP_WAIT_SECS}) and exited."
            )
        run.sup.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.honcho is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM to {run.target}'s python (honcho's process "
                f"{run.honcho.names[run.target]}), SIGKILL after {PREEMPT_GRACE:.0f} s if it is "
                "still there; honcho sees it stop and stops the others."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The job was cancelled by SIGTERM to honcho (a terminal's Ctrl-C, a CI's "
                f"cancel): honcho stopped every process (SIGTERM, SIGKILL {honcho.KILL_WAIT} s "
                "later to one whose shell had not ended) and exited."
            )
        run.honcho.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.par is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM to {run.target}'s python (parallel's job "
                f"'{gnu_parallel.tag(run.target).strip()}'), SIGKILL after "
                f"{PREEMPT_GRACE:.0f} s if it is still there."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The job was cancelled by SIGTERM to GNU parallel (a CI's cancel): parallel "
                "stopped every running job with its --termseq and exited."
            )
        halt = run.par.halt
        truth["notes"] += (
            " parallel ran with --halt now,fail=1 (the first failed job makes it kill the others)."
            if halt != "default"
            else " parallel ran with its default halt policy (it waits for every job)."
        )
        run.par.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.pdsh is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM to {run.target}'s python (pdsh's host "
                f"{pdsh.host(run.target)}), SIGKILL after {PREEMPT_GRACE:.0f} s if it is still "
                "there; pdsh reports its end and stops nothing else."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The job was cancelled as a batch system cancels one: SIGTERM to every process "
                "of the job at once, pdsh (which died at once, printing nothing) and its "
                "commands' pythons."
            )
        run.pdsh.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.runit is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is sv term {runit.service(run.target)} (SIGTERM to its "
                f"python), SIGKILL after {PREEMPT_GRACE:.0f} s if it is still there; the service "
                "was started by sv once, so runsv does not restart it."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                " The host went down as runit's stage 3 takes it down: sv -w "
                f"{runit.STOP_WAIT} force-stop of every service (TERM and CONT, KILL after "
                f"{runit.STOP_WAIT} s), then sv exit."
            )
        run.runit.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    if run.tmux is not None:
        if cell.fault == "preempt":
            truth["notes"] += (
                f" The preemption is SIGTERM from outside to {run.target}'s python (the "
                f"foreground job of tmux window {tmuxlab.window(run.target)}), SIGKILL after "
                f"{PREEMPT_GRACE:.0f} s if it is still there."
            )
        if cell.fault == "preempt_job":
            truth["notes"] += (
                f" The job was cancelled as a whole: tmux kill-session -t {tmuxlab.SESSION} "
                "mid-training (SIGHUP to every pane's shell, which hangs up its python)"
                + (
                    ", each window saved with capture-pane just before."
                    if cell.naming == "tmux_capture"
                    else "."
                )
            )
        run.tmux.finish(truth)
        truth["node_log_summary"] = node_log_summary(out_dir, truth)
    (out_dir / "truth.json").write_text(json.dumps(truth, indent=2) + "\n", encoding="utf-8")
    return truth


def node_log_summary(out_dir: Path, truth: dict) -> dict[str, dict]:
    """Per node: lines, step lines, and the last line of its log (what it shows at the end)."""
    from . import _node_texts

    rx = re.compile(STYLES[truth["style"]].step_re)
    out = {}
    for node, files in truth["node_files"].items():
        if not files:
            continue
        lines = "\n".join(t for _, t in _node_texts(Path(out_dir), files)).splitlines()
        last = next((x for x in reversed(lines) if x.strip()), "")
        out[node] = {
            "lines": len(lines),
            "step_lines": sum(1 for x in lines if rx.search(x)),
            "last_line": last[:240],
        }
    return out


def _py_label(path: str) -> str:
    return "lab venv" if path == sys.executable else path


def run_matrix(
    out_root: Path,
    *,
    style: str | None = None,
    fault: str | None = None,
    limit: int | None = None,
    retries: int = 1,
    skipped_log: Path | None = Path("/tmp/lab-skipped.txt"),
    echo=print,
) -> dict[str, int]:
    """Record every selected cell that has no truth.json yet (resumable)."""
    import shutil

    out_root = Path(out_root)
    todo = [
        c
        for c in cells()
        if (style is None or c.style == style) and (fault is None or c.fault == fault)
    ]
    counts = {"recorded": 0, "present": 0, "skipped": 0}
    for c in todo:
        if limit is not None and counts["recorded"] + counts["skipped"] >= limit:
            break
        folder = out_root / c.folder
        if (folder / "truth.json").exists():
            counts["present"] += 1
            continue
        for attempt in range(retries + 1):
            shutil.rmtree(folder, ignore_errors=True)
            t0 = time.monotonic()
            try:
                truth = run_cell(c, folder)
            except Exception as exc:  # a broken cell must not stop the recording
                echo(f"{c.folder}: attempt {attempt + 1} failed: {exc}")
                if attempt == retries:
                    failed = Path("/tmp/lab-failed") / c.folder
                    shutil.rmtree(failed, ignore_errors=True)
                    failed.parent.mkdir(parents=True, exist_ok=True)
                    if folder.exists():
                        shutil.move(str(folder), str(failed))
                    counts["skipped"] += 1
                    if skipped_log:
                        with open(skipped_log, "a", encoding="utf-8") as f:
                            f.write(f"{utc_now()} {c.folder}: {exc}\n")
                continue
            echo(
                f"{c.folder}: {truth['root_cause_category']} on "
                f"{truth['first_failing_node']} ({time.monotonic() - t0:.0f} s)"
            )
            counts["recorded"] += 1
            break
    return counts


def corpus_table(root: Path) -> str:
    """A Markdown table of recorded runs per style x family under ``root``."""
    counts: dict[tuple[str, str], int] = {}
    for p in sorted(Path(root).glob("*/*/truth.json")):
        t = json.loads(p.read_text(encoding="utf-8"))
        counts[(t["style"], t["family"])] = counts.get((t["style"], t["family"]), 0) + 1
    fams = [f for f in FAMILIES if any(k[1] == f for k in counts)]
    lines = [
        "| style | " + " | ".join(fams) + " | total |",
        "|---|" + "---:|" * (len(fams) + 1),
    ]
    for s in STYLES:
        row = [counts.get((s, f), 0) for f in fams]
        lines.append(f"| {s} | " + " | ".join(map(str, row)) + f" | {sum(row)} |")
    col = [sum(counts.get((s, f), 0) for s in STYLES) for f in fams]
    lines.append("| total | " + " | ".join(map(str, col)) + f" | {sum(col)} |")
    return "\n".join(lines)
