"""The Ray application of the lab's ``mwms_ray`` style (the job's driver script).

``python ray_app.py --plan plan.json`` connects to a running Ray cluster (``ray.init`` with
the head's address) and fits one Ray Train ``TensorflowTrainer`` of one worker per
TensorFlow worker, as a Ray user would: Ray Train's TensorFlow backend picks a free port on
each worker's node, gathers them and sets TF_CONFIG (worker ``world_rank``) in every worker
actor before ``train_loop_per_worker`` runs there. Ray Train's defaults are kept:
``FailureConfig(max_failures=0)`` (a failed worker fails the run, no retry), the driver's
console gets every worker's output (``log_to_driver``), Ray's log deduplication on.

Each worker's ``train_loop_per_worker``:

* notes its process id and TF_CONFIG for the lab (a file in the plan's ``marks`` folder: the
  lab injects its faults into that process; nothing of it is a log);
* applies the plan's edits of its TF_CONFIG (a fault: a peer's port replaced, a worker
  added, another index; workers of the configured cluster that no Ray worker runs, a port
  shared by two tasks), its environment and its start delay;
* runs the TensorFlow worker (``mwms_ray.py``) in its own process, in Ray Train's training
  thread; an exception fails the Ray Train run (``TrainingFailedError`` at the driver).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time


def edit_tf_config(spec: dict, edit: dict | None, extra: list[str], fixed: dict) -> dict:
    """A TF_CONFIG as Ray Train set it, with the plan's edits (a fault)."""
    workers = list(spec["cluster"]["worker"])
    index = spec["task"]["index"]
    node = workers[0].rsplit(":", 1)[0]  # the Ray node's address (one node)

    def on_node(addr: str) -> str:  # the lab's port for a worker no Ray worker runs
        return f"{node}:{addr.rsplit(':', 1)[1]}"

    for rank, port in sorted(fixed.items()):  # two tasks given one port
        host = workers[int(rank)].rsplit(":", 1)[0]
        workers[int(rank)] = f"{host}:{port}"
    workers += [on_node(a) for a in extra]
    edit = edit or {}
    if edit.get("kind") == "wrong_address":
        host = workers[edit["peer"]].rsplit(":", 1)[0]
        workers[edit["peer"]] = f"{host}:{edit['port']}"
    if edit.get("kind") == "wrong_count":
        workers.append(on_node(edit["extra"]))
    if edit.get("kind") == "wrong_index":
        index = edit["index"]
    return {"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}}


def train_loop_per_worker(plan: dict) -> None:
    import ray.train

    rank = ray.train.get_context().get_world_rank()
    key = str(rank)
    given = json.loads(os.environ["TF_CONFIG"])
    spec = edit_tf_config(
        given,
        plan.get("spec", {}).get(key),
        plan.get("extra_workers", []),
        plan.get("fixed_port", {}),
    )
    marks = plan["marks"]
    os.makedirs(marks, exist_ok=True)
    tmp = os.path.join(marks, f".{key}.json")
    with open(tmp, "w") as f:
        json.dump({"pid": os.getpid(), "tf_config": given, "edited": spec}, f)
    os.replace(tmp, os.path.join(marks, f"{key}.json"))
    os.environ.update(plan.get("env", {}))
    os.environ.update(plan.get("node_env", {}).get(key, {}))
    os.environ["TF_CONFIG"] = json.dumps(spec)
    delay = plan.get("delay", {}).get(key, 0)
    if delay:
        time.sleep(delay)
    sys.path.insert(0, plan["tasks_dir"])
    import mwms_ray

    mwms_ray.main(list(plan.get("args", {}).get(key, [])))
    with open(os.path.join(marks, f"{key}.done"), "w") as f:  # Ray ends the actor after
        f.write(str(os.getpid()))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--plan", required=True)
    p.add_argument("--address", default="auto")
    args = p.parse_args()
    with open(args.plan) as f:
        plan = json.load(f)

    import ray
    from ray.train import RunConfig, ScalingConfig
    from ray.train.tensorflow import TensorflowTrainer

    # the job's environment (Ray's runtime_env): set in every worker process before it
    # starts, as a variable a library reads when it loads must be
    job_env = plan.get("job_env") or {}
    ray.init(address=args.address, runtime_env={"env_vars": job_env} if job_env else None)
    trainer = TensorflowTrainer(
        train_loop_per_worker=train_loop_per_worker,
        train_loop_config=plan,
        scaling_config=ScalingConfig(num_workers=plan["workers"], use_gpu=False),
        run_config=RunConfig(name="mwms-ray-train", storage_path=plan["storage"]),
    )
    result = trainer.fit()
    print(f"training finished: {result}", flush=True)


if __name__ == "__main__":
    main()
