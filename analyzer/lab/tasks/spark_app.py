"""The PySpark application of the lab's ``mwms_spark`` style (run by ``spark-submit``).

One barrier stage (``rdd.barrier().mapPartitions(...)``) of one partition per TensorFlow
worker, collected by the driver: a barrier ResultStage, so Spark gang-schedules its tasks and
does not retry it when one fails (the job is aborted). Each barrier task:

* learns its partition id (``BarrierTaskContext.partitionId()``) and its peers' hosts
  (``getTaskInfos()``), picks a free port on its host and ``allGather``\\ s ``host:port``, as
  spark-tensorflow-distributor does;
* builds TF_CONFIG (worker ``partitionId`` of the gathered cluster) and starts the TensorFlow
  worker (``mwms_spark.py``) as a child of the Python worker, its stdout and stderr the
  Python worker's (Spark copies both into the executor's ``stderr``), the child ended with
  SIGTERM if the Python worker goes away (``PR_SET_PDEATHSIG``, as launchers that run a
  child per task do);
* waits for it, and fails the task (a RuntimeError naming the exit code) when it fails.

The lab's fault knobs come as a JSON plan (``--plan``): per partition the script's arguments
and interpreter, a start delay, a fixed port, an edited cluster spec; ``extra_workers``
lists workers of the configured cluster that no partition runs (a missing task).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time


def free_port(host: str) -> int:
    s = socket.socket()
    try:
        s.bind((host, 0))
        return s.getsockname()[1]
    finally:
        s.close()


def tf_config(workers: list[str], index: int, edit: dict | None) -> dict:
    """A task's TF_CONFIG from the gathered workers, with the plan's edit (a fault)."""
    workers = list(workers)
    edit = edit or {}
    if edit.get("kind") == "wrong_address":
        host = workers[edit["peer"]].rsplit(":", 1)[0]
        workers[edit["peer"]] = f"{host}:{edit['port']}"
    if edit.get("kind") == "wrong_count":
        workers.append(edit["extra"])
    if edit.get("kind") == "wrong_index":
        index = edit["index"]
    return {"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}}


def _die_with_parent() -> None:
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def train_partition(plan: dict):
    def run(_rows):
        from pyspark import BarrierTaskContext

        ctx = BarrierTaskContext.get()
        part, attempt = ctx.partitionId(), ctx.attemptNumber()
        key = str(part)
        host = ctx.getTaskInfos()[part].address.rsplit(":", 1)[0]
        port = plan.get("fixed_port", {}).get(key) or free_port(host)
        workers = ctx.allGather(f"{host}:{port}") + list(plan.get("extra_workers", []))
        spec = tf_config(workers, part, plan.get("spec", {}).get(key))
        print(
            f"barrier task {part} of {len(ctx.getTaskInfos())} (stage {ctx.stageId()}, "
            f"attempt {attempt}, TID {ctx.taskAttemptId()}): TensorFlow worker "
            f"{spec['task']['index']} of {len(spec['cluster']['worker'])}, cluster "
            f"{','.join(spec['cluster']['worker'])}",
            flush=True,
        )
        delay = plan.get("delay", {}).get(key, 0) if attempt == 0 else 0
        if delay:
            time.sleep(delay)
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env.update(plan.get("env", {}))
        env.update(plan.get("node_env", {}).get(key, {}))
        env.update(
            {
                "TF_CONFIG": json.dumps(spec),
                "TFDIAG_LAB_SPARK_RUN": plan["run_id"],
                "TFDIAG_LAB_SPARK_PARTITION": key,
            }
        )
        python = plan.get("python", {}).get(key) or sys.executable
        args = [python, "-u", plan["script"], *plan.get("args", {}).get(key, [])]
        child = subprocess.Popen(args, env=env, preexec_fn=_die_with_parent)
        print(f"barrier task {part}: started TensorFlow worker pid {child.pid}", flush=True)
        code = child.wait()
        if code != 0:
            raise RuntimeError(f"TensorFlow worker {spec['task']['index']} exited with code {code}")
        print(f"barrier task {part}: TensorFlow worker finished", flush=True)
        yield (part, code)

    return run


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--plan", required=True)
    p.add_argument("--partitions", type=int, default=3)
    args = p.parse_args()
    with open(args.plan) as f:
        plan = json.load(f)

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("mwms-spark-train").getOrCreate()
    sc = spark.sparkContext
    rdd = sc.parallelize(range(args.partitions), args.partitions)
    print(f"training on {args.partitions} barrier tasks", flush=True)
    done = rdd.barrier().mapPartitions(train_partition(plan)).collect()
    print(f"training finished: {sorted(done)}", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
