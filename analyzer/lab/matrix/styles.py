"""The cluster styles of the lab: how each runs its tasks and where their logs go (one
``Style`` row per style; its launcher module does the running).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import compose, honcho, kubernetes, mpi, pdsh, runit, slurm, spark, supervisord, systemd
from .. import parallel as gnu_parallel
from .. import ray as raylab
from .. import tmux as tmuxlab

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
