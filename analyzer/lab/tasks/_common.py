"""Start-up helpers shared by the lab's child training scripts.

These scripts are run by path (``python .../tasks/ps_training.py``) so that any
interpreter -- also a second virtualenv with another TensorFlow release -- can run
them without importing the ``analyzer`` package.  They print what real launch
scripts print: the TF_CONFIG they got, the TensorFlow version, and progress lines
through python ``logging`` or TensorFlow's own ``INFO:tensorflow:`` logger.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
import threading
import time

LOG_STYLE_ENV = "TFDIAG_LAB_LOG_STYLE"
STOP_FILE_ENV = "TFDIAG_LAB_STOP_FILE"
DTENSOR_ENV = ("DTENSOR_CLIENT_ID", "DTENSOR_NUM_CLIENTS", "DTENSOR_JOB_NAME", "DTENSOR_JOBS")
# what SlurmClusterResolver reads of the variables srun sets (and the job's id)
SLURM_ENV = (
    "SLURM_JOB_ID",
    "SLURM_PROCID",
    "SLURM_STEP_NUM_TASKS",
    "SLURM_STEP_NODELIST",
    "SLURM_STEP_TASKS_PER_NODE",
)


def tf_config() -> dict:
    raw = os.environ.get("TF_CONFIG", "{}")
    return json.loads(raw)


def task_identity() -> tuple[str, int]:
    task = tf_config().get("task", {})
    return task.get("type", "worker"), int(task.get("index", 0))


def banner(script: str) -> logging.Logger:
    """Print the launch banner and configure logging; returns the logger to use.

    Style ``python`` (default): ``logging.basicConfig`` with asctime.
    Style ``absl``: TensorFlow's logger (``INFO:tensorflow:...``), set up after TF
    is imported by :func:`import_tf`.
    """
    style = os.environ.get(LOG_STYLE_ENV, "python")
    # the task's configuration as its launcher hands it over: TF_CONFIG, or DTensor's
    # DTENSOR_* variables (a DTensor client has no TF_CONFIG), or srun's SLURM_* ones
    launch_env = [k for k in (*DTENSOR_ENV, *SLURM_ENV) if k in os.environ]
    if "TF_CONFIG" in os.environ or not launch_env:
        print(f"TF_CONFIG={os.environ.get('TF_CONFIG', '')}", flush=True)
    for k in launch_env:
        print(f"{k}={os.environ[k]}", flush=True)
    print(
        f"launching {script} on host {socket.gethostname()} pid {os.getpid()} "
        f"python {sys.version.split()[0]}",
        flush=True,
    )
    if style == "python":
        logging.basicConfig(format="%(asctime)s - %(levelname)s - %(message)s", level=logging.INFO)
        return logging.getLogger("train")
    return logging.getLogger("tensorflow")


def import_tf(log: logging.Logger):
    import tensorflow as tf

    style = os.environ.get(LOG_STYLE_ENV, "python")
    if style == "absl":
        tf.get_logger().setLevel(logging.INFO)
        log = tf.get_logger()
    log.info("TensorFlow version: %s", tf.__version__)
    print(f"tf.__version__ = {tf.__version__}", flush=True)
    return tf, log


def watch_stop_file(log: logging.Logger, what: str = "server") -> None:
    """Exit cleanly once the launcher creates the stop file (job finished)."""
    path = os.environ.get(STOP_FILE_ENV)
    if not path:
        return

    def _watch() -> None:
        while not os.path.exists(path):
            time.sleep(0.2)
        log.info("Launcher reports the job finished; shutting down %s.", what)
        for h in logging.getLogger().handlers + log.handlers:
            h.flush()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

    threading.Thread(target=_watch, daemon=True, name="stop-watch").start()


def add_fault_args(p) -> None:
    """Options every training script understands (the lab's matrix passes them)."""
    p.add_argument("--memory-limit-mb", type=int, default=0)
    p.add_argument("--oom-at-step", type=int, default=0)
    p.add_argument("--oom-mb", type=int, default=4096)
    p.add_argument("--block-at-step", type=int, default=0)
    p.add_argument("--slow-sleep", type=float, default=0.0)
    p.add_argument("--ckpt-dir", default="")
    p.add_argument("--ckpt-rounds", type=int, default=0)


def limit_memory(log: logging.Logger, extra_mb: int) -> None:
    """Cap the address space like a container memory limit would."""
    import resource

    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) for line in f if line.startswith("VmSize:"))
    limit = vm * 1024 + extra_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    log.info(
        "memory limit: address space capped at %d MB (%d MB above current)",
        limit // (1024 * 1024),
        extra_mb,
    )


def big_allocation(tf, log: logging.Logger, step: int, mb: int) -> None:
    """Allocate an ``mb`` MB tensor (an embedding table that does not fit)."""
    log.info("step %d: building embedding table of %d MB", step, mb)
    table = tf.random.uniform([mb * 1024 * 1024 // 4], dtype=tf.float32)
    log.info("embedding table checksum %s", float(tf.reduce_sum(table[:10])))


def blocking_read(step: int) -> None:
    """A read from storage that never returns (an NFS mount gone away)."""
    threading.Event().wait()


def slow_read(seconds: float) -> None:
    """A slow storage read on this host only."""
    time.sleep(seconds)


def storage_reads(tf, ds, args, replicas: int):
    """Batches come through a python read hook: slow (--slow-sleep) or stuck (--block-at-step).

    The distributed dataset splits each global batch over the ``replicas`` workers, so one
    read feeds ``replicas`` steps: the hook sleeps and counts per step, not per read.
    """
    if not (args.slow_sleep or args.block_at_step):
        return ds

    reads = []

    def read(i):
        reads.append(1)
        if args.block_at_step and len(reads) * replicas >= args.block_at_step:
            blocking_read(len(reads))
        if args.slow_sleep:
            slow_read(args.slow_sleep * replicas)
        return i

    def hook(i, batch):
        dep = tf.py_function(read, [i], tf.int64)
        with tf.control_dependencies([dep]):
            return tf.nest.map_structure(tf.identity, batch)

    return ds.enumerate().map(hook)


def serve(tf, log: logging.Logger, job: str, index: int, memory_limit_mb: int = 0) -> None:
    """A ParameterServerStrategy ps or worker: start the gRPC server and serve until the end
    (``memory_limit_mb``: cap its memory once the server runs, as gRPC's threads need room)."""
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    log.info(
        "Starting %s %d server, cluster spec %s", job, index, resolver.cluster_spec().as_dict()
    )
    server = tf.distribute.Server(
        resolver.cluster_spec(),
        job_name=job,
        task_index=index,
        protocol=resolver.rpc_layer or "grpc",
        start=True,
    )
    log.info("%s %d server started at %s, waiting for the coordinator", job, index, server.target)
    if memory_limit_mb:
        limit_memory(log, memory_limit_mb)
    watch_stop_file(log, f"{job} {index} server")
    server.join()


def serve_if_server(tf, log: logging.Logger, args, job: str) -> bool:
    """ps and workers of ParameterServerStrategy: serve (under a memory limit); True if served."""
    if job not in ("ps", "worker"):
        return False
    serve(tf, log, job, task_identity()[1], args.memory_limit_mb)
    return True


def ps_strategy(tf, log: logging.Logger, *, name_coordinator: bool = False):
    """ParameterServerStrategy from TF_CONFIG and its ClusterCoordinator, logged."""
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    strategy = tf.distribute.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    log.info(
        "ParameterServerStrategy ready: %d ps, %d workers%s",
        strategy.extended._num_ps,
        strategy.extended._num_workers,
        f"; coordinator {type(coordinator).__name__}" if name_coordinator else "",
    )
    return strategy, coordinator


def ps_ctl_train(tf, log: logging.Logger, args) -> None:
    """The chief of ParameterServerStrategy with a custom loop (pss, pss_systemd): the strategy
    and its ClusterCoordinator from TF_CONFIG, two variables on the ps (round-robin over them),
    ``--steps`` steps scheduled through ``coordinator.schedule`` (the dtype / feature width /
    WebP / OOM knobs), then the checkpoint rounds. ``--op-timeout-ms`` (when the script has it)
    sets an operation timeout on the chief's eager context: every remote op it issues."""
    if getattr(args, "op_timeout_ms", 0):
        from tensorflow.python.eager import context

        context.context().operation_timeout_in_ms = args.op_timeout_ms
        log.info("operation timeout: %d ms", args.op_timeout_ms)
    strategy, coordinator = ps_strategy(tf, log)

    with strategy.scope():
        w = tf.Variable(tf.random.normal([32, 1]), name="w")
        b = tf.Variable(tf.zeros([1]), name="b")
    opt_lr = 0.05

    def dataset_fn():
        if args.image_format == "webp":
            return webp_dataset(tf)
        return synthetic_data(tf, args.feature_dim, [1, 2], args.feed_dtype)

    per_worker_ds = coordinator.create_per_worker_dataset(dataset_fn)
    it = iter(per_worker_ds)

    @tf.function
    def train_step(iterator):
        def step_fn(batch):
            x, y = batch
            with tf.GradientTape() as tape:
                pred = tf.matmul(x, w) + b
                loss = tf.reduce_mean(tf.square(pred - y))
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(opt_lr * gw)
            b.assign_sub(opt_lr * gb)
            return loss

        return strategy.run(step_fn, args=(next(iterator),))

    if args.memory_limit_mb:
        limit_memory(log, args.memory_limit_mb)
    t0 = time.monotonic()
    for step in range(1, args.steps + 1):
        if args.oom_at_step and step == args.oom_at_step:
            big_allocation(tf, log, step, args.oom_mb)
        result = coordinator.schedule(train_step, args=(it,))
        if step % args.report_every == 0:
            coordinator.join()
            log.info(
                "step %d loss %.4f (%.3f s)", step, float(result.fetch()), time.monotonic() - t0
            )
            t0 = time.monotonic()
        time.sleep(args.step_sleep)
    coordinator.join()
    log.info("training finished after %d steps", args.steps)
    if args.ckpt_dir and args.ckpt_rounds:
        checkpoint = tf.train.Checkpoint(w=w, b=b)

        @tf.function
        def eval_step(iterator):
            def step_fn(batch):
                x, y = batch
                return tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))

            return strategy.run(step_fn, args=(next(iterator),))

        for r in range(1, args.ckpt_rounds + 1):
            log.info("saving checkpoint %s/ckpt-%d", args.ckpt_dir, r)
            path = checkpoint.save(os.path.join(args.ckpt_dir, "ckpt"))
            results = [coordinator.schedule(eval_step, args=(it,)) for _ in range(4)]
            coordinator.join()
            loss = sum(float(x.fetch()) for x in results) / len(results)
            log.info("checkpoint %s written; evaluation loss %.4f", path, loss)
            time.sleep(args.step_sleep)
        log.info("all checkpoints written")


def synthetic_data(tf, width: int, seed: list[int], feed_dtype: str = "float32", scale: int = 10):
    """256 examples of ``width`` features, label = their sum, batches of 16, repeated.

    ``feed_dtype``: the features as the input pipeline hands them over: cast (times
    ``scale``) to another dtype, or ``string`` (a CSV column read without parsing).
    """
    x = tf.random.stateless_normal([256, width], seed=seed)
    y = tf.reduce_sum(x, axis=1, keepdims=True)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(16)
    if feed_dtype == "string":
        return ds.map(lambda a, c: (tf.strings.as_string(a), c))
    if feed_dtype != "float32":
        ds = ds.map(lambda a, c: (tf.cast(a * scale, feed_dtype), c))
    return ds


def keras_regressor(keras, width: int, optimizer=None):
    """The small Keras model the Keras styles train: Dense(8, relu) -> Dense(1), SGD, MSE
    (``optimizer``: another one than ``keras.optimizers.SGD(0.01)``)."""
    model = keras.Sequential(
        [
            keras.Input(shape=(width,)),
            keras.layers.Dense(8, activation="relu", name="hidden"),
            keras.layers.Dense(1, name="out"),
        ]
    )
    model.compile(optimizer=optimizer or keras.optimizers.SGD(0.01), loss="mse")
    return model


# An 8x4 RGB lossless WebP image.
_WEBP_8X4 = "UklGRioAAABXRUJQVlA4TB4AAAAvA8ABAM1VIKL/AQVt2zD9GMaf7RiM/whE6jHG8QI="


def webp_dataset(tf, width: int = 32):
    """Training images that arrive WebP-encoded (tf.io.decode_webp is new in TF 2.21)."""
    import base64

    raw = tf.constant([base64.b64decode(_WEBP_8X4)] * 64)
    x = tf.map_fn(
        lambda r: tf.reshape(tf.cast(tf.io.decode_webp(r), tf.float32), [-1])[:width] / 255.0,
        raw,
        fn_output_signature=tf.float32,
    )
    y = tf.reduce_sum(x, axis=1, keepdims=True)
    return tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(16)


def keras_step_logger(keras, tf, log: logging.Logger, args, total: int, per_epoch: int = 0):
    """A Keras callback: a ``batch B step N/T loss L (t s)`` line per step, and the OOM knob.

    ``per_epoch`` > 0: the line comes at the end of each epoch of ``per_epoch`` steps instead
    (ParameterServerStrategy's ``fit`` refuses batch-level callbacks); it then sleeps
    ``--step-sleep`` per step of the epoch.
    """

    class StepLog(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.step = 0
            self.t0 = time.monotonic()

        def begin(self, steps: int) -> None:
            if args.oom_at_step and self.step < args.oom_at_step <= self.step + steps:
                big_allocation(tf, log, args.oom_at_step, args.oom_mb)
            self.t0 = time.monotonic()

        def end(self, batch: int, steps: int, logs) -> None:
            self.step += steps
            loss = (logs or {}).get("loss", float("nan"))
            log.info(
                "batch %d step %d/%d loss %.4f (%.3f s)",
                batch,
                self.step,
                total,
                float(loss),
                time.monotonic() - self.t0,
            )
            time.sleep(args.step_sleep * steps)

    class BatchLog(StepLog):
        def on_train_batch_begin(self, batch, logs=None):
            self.begin(1)

        def on_train_batch_end(self, batch, logs=None):
            self.end(batch, 1, logs)

    class EpochLog(StepLog):
        def on_epoch_begin(self, epoch, logs=None):
            self.begin(per_epoch)

        def on_epoch_end(self, epoch, logs=None):
            self.end(per_epoch - 1, per_epoch, logs)

    return EpochLog() if per_epoch else BatchLog()


def keras_checkpoints(model, log: logging.Logger, base: str, args, eval_data, suffix: str) -> None:
    """After training: ``--ckpt-rounds`` rounds of save_weights then a short evaluation."""
    os.makedirs(base, exist_ok=True)
    for r in range(1, args.ckpt_rounds + 1):
        path = os.path.join(base, f"ckpt-{r}{suffix}")
        log.info("saving checkpoint %s", path)
        model.save_weights(path)
        loss = model.evaluate(eval_data, steps=2, verbose=2)
        log.info("checkpoint %s written; evaluation loss %.4f", path, float(loss))
        time.sleep(args.step_sleep)
    log.info("all checkpoints written")


def add_keras_mwms_args(p) -> None:
    """The options of the Keras ``fit`` under MultiWorkerMirroredStrategy (mwms_keras,
    mwms_compose), the fault knobs included."""
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--step-sleep", type=float, default=0.1)
    p.add_argument("--feed-dtype", default="float32")
    p.add_argument("--feature-dim", type=int, default=16)
    p.add_argument("--collective-timeout", type=float, default=0.0)
    p.add_argument("--save-h5", default="")
    # fit's verbose: 2 (one line per epoch, the default), 1 (the interactive progress bar, as a
    # task run by hand in a terminal shows it: mwms_tmux)
    p.add_argument("--fit-verbose", type=int, default=2)
    add_fault_args(p)


def keras_mwms_fit(tf, keras, log: logging.Logger, args, callbacks=()) -> None:
    """MultiWorkerMirroredStrategy from TF_CONFIG with Keras ``fit`` (mwms_keras, mwms_compose):
    the strategy (``--collective-timeout``), each task's own synthetic data (the dtype /
    feature width / storage read knobs), the regressor, ``--epochs`` epochs of ``fit`` with the
    step logger and ``callbacks`` (mwms_compose's BackupAndRestore), then the checkpoint
    rounds (the chief's, or worker 0's with no chief, into ``--ckpt-dir``; the others' into
    its ``tmp-<job>-<i>`` folders) and the shared HDF5 weights knob."""
    job, index = task_identity()
    comm = tf.distribute.experimental.CommunicationOptions(
        timeout_seconds=args.collective_timeout or None
    )
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=comm)
    log.info(
        "MultiWorkerMirroredStrategy: %s %d, %d replicas in sync",
        job,
        index,
        strategy.num_replicas_in_sync,
    )
    steps_per_epoch = max(1, args.steps // args.epochs)
    replicas = strategy.num_replicas_in_sync

    def make_ds(input_context=None):
        x = tf.random.stateless_normal([256, args.feature_dim], seed=[index, 5])
        y = tf.reduce_sum(x, axis=1, keepdims=True)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(16)
        if args.feed_dtype != "float32":
            log.info("input pipeline: features decoded as %s", args.feed_dtype)
            ds = ds.map(lambda a, c: (tf.cast(a * 100, args.feed_dtype), c))
        ds = storage_reads(tf, ds, args, replicas)
        return no_read_ahead(tf, ds, args)

    if args.feature_dim != 16:
        log.info("model input: %d features", args.feature_dim)
    with strategy.scope():
        model = keras_regressor(keras, args.feature_dim)

    if args.memory_limit_mb:
        limit_memory(log, args.memory_limit_mb)

    model.fit(
        make_ds(),
        epochs=args.epochs,
        steps_per_epoch=steps_per_epoch,
        verbose=getattr(args, "fit_verbose", 2),
        callbacks=[
            keras_step_logger(keras, tf, log, args, steps_per_epoch * args.epochs),
            *callbacks,
        ],
    )
    log.info("training finished after %d steps", steps_per_epoch * args.epochs)
    if args.ckpt_dir and args.ckpt_rounds:
        has_chief = "chief" in tf_config().get("cluster", {})
        chief = job == "chief" or (job == "worker" and index == 0 and not has_chief)
        base = args.ckpt_dir if chief else os.path.join(args.ckpt_dir, f"tmp-{job}-{index}")
        keras_checkpoints(model, log, base, args, make_ds(), ".h5")
    if args.save_h5:
        log.info("saving weights to %s", args.save_h5)
        model.save_weights(args.save_h5)
        log.info("weights saved to %s", args.save_h5)
        time.sleep(0.2)
        model.load_weights(args.save_h5)  # read back, as a restore would
        log.info("weights read back from %s", args.save_h5)


def keras_ps_fit(tf, keras, log: logging.Logger, args, width: int) -> None:
    """The chief of ParameterServerStrategy with Keras ``fit`` (pss_keras, tfjob_k8s): the
    strategy and its ClusterCoordinator from TF_CONFIG, the regressor of ``width`` inputs on
    the ps, ``--epochs`` short epochs of ``fit`` over a DatasetCreator (the dtype / feature
    width / WebP knobs), the step logger, then the checkpoint rounds."""
    strategy, _ = ps_strategy(tf, log, name_coordinator=True)
    steps_per_epoch = max(1, args.steps // args.epochs)

    def dataset_fn(input_context=None):
        if args.image_format == "webp":
            return webp_dataset(tf, width)
        return synthetic_data(tf, args.feature_dim, [3, 4], args.feed_dtype)

    if args.feature_dim != width:
        log.info("input pipeline: %d features per example", args.feature_dim)
    if args.feed_dtype != "float32":
        log.info("input pipeline: features decoded as %s", args.feed_dtype)
    with strategy.scope():
        model = keras_regressor(keras, width)

    if args.memory_limit_mb:
        limit_memory(log, args.memory_limit_mb)
    data = keras.utils.experimental.DatasetCreator(dataset_fn)
    model.fit(
        data,
        epochs=args.epochs,
        steps_per_epoch=steps_per_epoch,
        verbose=2,
        callbacks=[
            keras_step_logger(
                keras, tf, log, args, steps_per_epoch * args.epochs, per_epoch=steps_per_epoch
            )
        ],
    )
    log.info("training finished after %d steps", steps_per_epoch * args.epochs)
    if args.ckpt_dir and args.ckpt_rounds:
        keras_checkpoints(model, log, args.ckpt_dir, args, data, "")


# ----------------------------------------------------------------------------- TF1 graph mode
def v1_server(tf, log: logging.Logger, args):
    """A ``tf.compat.v1.train.Server`` for this task of the TF_CONFIG cluster, logged.

    Returns (cluster, server, job, index); applies the memory limit after the server started
    (not when ``--fault-task`` names another task whose part of the graph this one builds).
    """
    job, index = task_identity()
    cluster = tf.train.ClusterSpec(tf_config()["cluster"])
    log.info("cluster: %s; this task: /job:%s/task:%d", cluster.as_dict(), job, index)
    server = tf.compat.v1.train.Server(cluster, job_name=job, task_index=index)
    log.info("server for /job:%s/task:%d listening at %s", job, index, server.target)
    if args.memory_limit_mb and not getattr(args, "fault_task", ""):
        limit_memory(log, args.memory_limit_mb)
    return cluster, server, job, index


def v1_start(script: str, *extra: tuple[str, dict], serving: tuple[str, ...] = ("ps",)):
    """The start every TF1 task script shares: its arguments (the TF1 ones, ``extra``
    ``(flag, add_argument kwargs)`` pairs, the fault knobs), the banner, TensorFlow in graph
    mode and the task's server. A task of a ``serving`` job (the ps; in in-graph replication
    the workers too) then serves until told to stop and this returns None; a task that
    trains gets ``(tf, log, args, cluster, server, index)``."""
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--step-sleep", type=float, default=0.05)
    p.add_argument("--feed-dtype", default="float32")
    p.add_argument("--feature-dim", type=int, default=16)
    p.add_argument("--op-timeout-ms", type=int, default=0)
    p.add_argument("--save-checkpoint-steps", type=int, default=0)
    for flag, kwargs in extra:
        p.add_argument(flag, **kwargs)
    add_fault_args(p)
    args = p.parse_args()

    log = banner(script)
    tf, log = import_tf(log)
    tf.compat.v1.disable_eager_execution()
    cluster, server, job, index = v1_server(tf, log, args)
    if job in serving:
        watch_stop_file(log, "parameter server" if job == "ps" else f"{job} server")
        server.join()
        return None
    return tf, log, args, cluster, server, index


def v1_replica(tf, cluster, index: int):
    """The device scope of a worker's replica: variables on the ps, ops on this worker."""
    return tf.compat.v1.device(
        tf.compat.v1.train.replica_device_setter(
            worker_device=f"/job:worker/task:{index}", cluster=cluster
        )
    )


def v1_read_gate(tf, args, step, x):
    """``x`` behind a python storage read in the graph: slow (--slow-sleep) or stuck
    (--block-at-step, counted on ``step``, the global step tensor)."""
    if not (args.slow_sleep or args.block_at_step):
        return x

    def read(s):
        if args.block_at_step and int(s) + 1 >= args.block_at_step:
            blocking_read(int(s))
        if args.slow_sleep:
            slow_read(args.slow_sleep)
        return s

    dep = tf.compat.v1.py_func(read, [step], tf.int64, stateful=True)
    with tf.control_dependencies([dep]):
        return tf.identity(x)


def v1_regressor(tf, log: logging.Logger, args, global_step, index: int, hidden: int = 8):
    """The TF1 styles' replica graph (call under the replica_device_setter): this worker's
    ``tf.data`` input (512 examples seeded by ``index``, batches of 32; the dtype / feature
    width knobs), the storage read gate, a 2-layer regressor; returns its MSE loss."""
    dim = args.feature_dim
    if dim != 16:
        log.info("input pipeline: %d features per example", dim)
    feats = tf.random.stateless_normal([512, dim], seed=[index, 11])
    labels = tf.reduce_sum(feats, axis=1, keepdims=True)
    ds = tf.data.Dataset.from_tensor_slices((feats, labels)).repeat().batch(32)
    if args.feed_dtype != "float32":
        log.info("input pipeline: features decoded as %s", args.feed_dtype)
        ds = ds.map(lambda a, c: (tf.cast(a * 100, args.feed_dtype), c))
    x, y = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
    x = v1_read_gate(tf, args, global_step, x)
    w1 = tf.compat.v1.get_variable("dense/kernel", [dim, hidden])
    b1 = tf.compat.v1.get_variable(
        "dense/bias", [hidden], initializer=tf.compat.v1.zeros_initializer()
    )
    w2 = tf.compat.v1.get_variable("out/kernel", [hidden, 1])
    b2 = tf.compat.v1.get_variable("out/bias", [1], initializer=tf.compat.v1.zeros_initializer())
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    return tf.reduce_mean(tf.square(tf.matmul(h, w2) + b2 - y))


def v1_big_tensor(tf, args, index: int):
    """The oversized tensor of the OOM knob, on this worker (None without --oom-at-step)."""
    if not args.oom_at_step:
        return None
    with tf.compat.v1.device(f"/job:worker/task:{index}"):
        return tf.reduce_sum(tf.random.uniform([args.oom_mb * 1024 * 1024 // 4]))


def v1_maybe_oom(sess, big, log: logging.Logger, args, n: int) -> None:
    """Evaluate the oversized tensor at local step ``--oom-at-step``."""
    if big is not None and n == args.oom_at_step:
        log.info("step %d: building embedding table of %d MB", n, args.oom_mb)
        log.info("embedding table checksum %s", sess.run(big))


def v1_timeouts(tf, ms: int):
    """(ConfigProto, RunOptions) with an operation timeout of ``ms`` (both None for 0)."""
    if not ms:
        return None, None
    return (
        tf.compat.v1.ConfigProto(operation_timeout_in_ms=ms),
        tf.compat.v1.RunOptions(timeout_in_ms=ms),
    )


# ----------------------------------------------------------------------------- MWMS custom loop
def ctl_regressor(tf, strategy, width: int):
    """The custom-loop styles' linear model (``width`` features) and its training step.

    Returns (w, b, train_step): ``train_step(iterator)`` runs one step on every replica,
    all-reduces the gradients (MEAN) and returns the mean loss.
    """
    with strategy.scope():
        w = tf.Variable(tf.random.normal([width, 1], seed=7), name="dense/kernel")
        b = tf.Variable(tf.zeros([1]), name="dense/bias")

    @tf.function
    def train_step(iterator):
        def step_fn(batch):
            xb, yb = batch
            with tf.GradientTape() as tape:
                pred = tf.matmul(xb, w) + b
                loss = tf.reduce_mean(tf.square(pred - yb))
            gw, gb = tape.gradient(loss, [w, b])
            ctx = tf.distribute.get_replica_context()
            gw, gb = ctx.all_reduce(tf.distribute.ReduceOp.MEAN, [gw, gb])
            w.assign_sub(0.05 * gw)
            b.assign_sub(0.05 * gb)
            return loss

        loss = strategy.run(step_fn, args=(next(iterator),))
        return strategy.reduce(tf.distribute.ReduceOp.MEAN, loss, axis=None)

    return w, b, train_step


def ctl_checkpoints(
    tf, log: logging.Logger, args, w, b, index, job, evaluate, max_to_keep: int = 0
) -> None:
    """Save ``--ckpt-rounds`` checkpoints, each followed by a synchronised evaluation step
    (``max_to_keep`` > 0: through a ``tf.train.CheckpointManager`` keeping that many)."""
    checkpoint = tf.train.Checkpoint(w=w, b=b)
    chief = index == 0 and job in ("worker", "chief")
    base = args.ckpt_dir if chief else os.path.join(args.ckpt_dir, f"tmp-{job}-{index}")
    manager = None
    if max_to_keep:
        manager = tf.train.CheckpointManager(checkpoint, base, max_to_keep=max_to_keep)
    for r in range(1, args.ckpt_rounds + 1):
        log.info("saving checkpoint %s/ckpt-%d", base, r)
        path = manager.save() if manager else checkpoint.save(os.path.join(base, "ckpt"))
        loss = evaluate()
        log.info("checkpoint %s written; evaluation loss %.4f", path, float(loss))
        time.sleep(args.step_sleep)
    log.info("all checkpoints written")


def seeded_input(tf, log: logging.Logger, args, index: int, batch: int = 32):
    """A trainer's own input: 512 examples of ``--feature-dim`` features seeded by its
    ``index`` (label = their sum), batches of ``batch``, repeated; ``--feed-dtype`` other than
    float32 casts the features (times 100), as a pipeline decoding them wrongly would."""
    x = tf.random.stateless_normal([512, args.feature_dim], seed=[index, 3])
    y = tf.reduce_sum(x, axis=1, keepdims=True)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(batch)
    if args.feed_dtype != "float32":
        log.info("input pipeline: features decoded as %s", args.feed_dtype)
        ds = ds.map(lambda a, c: (tf.cast(a * 100, args.feed_dtype), c))
    return ds


def no_read_ahead(tf, ds, args):
    """``ds`` with auto-sharding off (every worker reads its own data) and, when the storage
    hook slows or blocks a read, no prefetching past it (the hook must hit the step it names)."""
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    if args.slow_sleep or args.block_at_step:  # no read-ahead past the storage hook
        options.autotune.enabled = False
        options.experimental_optimization.inject_prefetch = False
    return ds.with_options(options)


def ctl_train(tf, log: logging.Logger, args, run, it) -> None:
    """The custom loop's steps: ``run(it)`` per step, the OOM knob at its step, one progress
    line per step (``step N/M loss L (T s)``), the pause between steps, the goodbye."""
    for step in range(1, args.steps + 1):
        if args.oom_at_step and step == args.oom_at_step:
            big_allocation(tf, log, step, args.oom_mb)
        t0 = time.monotonic()
        loss = run(it)
        log.info(
            "step %d/%d loss %.4f (%.3f s)", step, args.steps, float(loss), time.monotonic() - t0
        )
        time.sleep(args.step_sleep)
    log.info("training finished after %d steps", args.steps)
