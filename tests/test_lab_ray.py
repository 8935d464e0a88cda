"""The lab's Ray launcher (analyzer/lab/ray.py, tasks/ray_app.py) and the recorded mwms_ray
runs' files.

Needs neither Ray nor TensorFlow (the one test that looks at a Ray install skips without it).
Reads logs and the lab's truth.json only: tfdiag's verdicts on these runs are not computed
here (mwms_ray is held out and untouched; see tests/corpus/lab/protocol.json).
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from analyzer.lab import matrix
from analyzer.lab import ray as raylab
from analyzer.lab._runner import TASKS_DIR

ROOT = Path(__file__).resolve().parents[1]
RUNS = sorted((ROOT / "tests" / "corpus" / "lab" / "mwms_ray").glob("*/truth.json"))
NODES = ["worker:0", "worker:1", "worker:2"]
GIVEN = ["10.0.0.5:41001", "10.0.0.5:41002", "10.0.0.5:41003"]


def _app():
    spec = importlib.util.spec_from_file_location("ray_app", TASKS_DIR / raylab.APP)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # no Ray import at module level
    return mod


def _spec(index: int, workers=GIVEN) -> dict:
    return {"cluster": {"worker": list(workers)}, "task": {"type": "worker", "index": index}}


def test_tf_config_as_ray_train_set_it_is_kept():
    app = _app()
    assert app.edit_tf_config(_spec(1), None, [], {}) == _spec(1)


def test_tf_config_edits_are_the_spec_faults():
    app = _app()
    wrong = app.edit_tf_config(
        _spec(1), {"kind": "wrong_address", "peer": 0, "port": 50000}, [], {}
    )
    assert wrong["cluster"]["worker"] == ["10.0.0.5:50000", *GIVEN[1:]]
    assert wrong["task"]["index"] == 1
    # the lab's address of a worker no Ray worker runs is put on the Ray node's host
    more = app.edit_tf_config(_spec(1), {"kind": "wrong_count", "extra": "127.0.0.1:50001"}, [], {})
    assert more["cluster"]["worker"] == [*GIVEN, "10.0.0.5:50001"]
    other = app.edit_tf_config(_spec(1), {"kind": "wrong_index", "index": 0}, [], {})
    assert other["task"]["index"] == 0 and other["cluster"]["worker"] == GIVEN
    # a missing task: a trainer of two workers, every TF_CONFIG listing the third
    two = app.edit_tf_config(_spec(0, GIVEN[:2]), None, ["127.0.0.1:49999"], {})
    assert two["cluster"]["worker"] == [*GIVEN[:2], "10.0.0.5:49999"]
    # two tasks given one port (every worker's TF_CONFIG)
    dup = app.edit_tf_config(_spec(2), None, [], {"1": 45000, "0": 45000})
    assert dup["cluster"]["worker"] == ["10.0.0.5:45000", "10.0.0.5:45000", GIVEN[2]]


def test_a_worker_process_s_files_by_its_pid():
    names = [
        "raylet.out",
        "worker-16b7cd8abd7f9400b8ba2a239f255dae701dfd9c252da49a3df6afb3-ffffffff-5494.out",
        "worker-55016b5b4284a97fa71bc2b8a3b5fba12370c1549079b64ee0bcb1a1-01000000-5709.err",
        "worker-55016b5b4284a97fa71bc2b8a3b5fba12370c1549079b64ee0bcb1a1-01000000-5709.out",
        "python-core-worker-55016b5b4284a97fa71bc2b8a3b5fba12370c1549079b64ee0bcb1a1_5709.log",
        "worker-61130bd634d75cf42ba151b3476cf8048aaba4af519efe3bedc2f243-01000000-57090.out",
    ]
    assert raylab.worker_files(names, 5709) == [
        "worker-55016b5b4284a97fa71bc2b8a3b5fba12370c1549079b64ee0bcb1a1-01000000-5709.out",
        "worker-55016b5b4284a97fa71bc2b8a3b5fba12370c1549079b64ee0bcb1a1-01000000-5709.err",
    ]
    assert raylab.worker_files(names, 1) == []


def test_driver_files_per_layout():
    assert raylab.driver_files("ray_driver") == ["ray-job.log"]
    assert raylab.driver_files("ray_both") == ["ray-job.out", "ray-job.err"]
    assert raylab.driver_files("ray_session") == []
    assert set(raylab.OUTPUT_FORMS) == set(raylab.NAMINGS)
    assert not raylab.keeps_session("ray_driver") and raylab.keeps_session("ray_both")


def test_a_worker_line_is_found_behind_ray_s_prefix():
    lines = [
        "\x1b[36m(RayTrainWorker pid=12)\x1b[0m step 3/60 loss 1.0 (0.01 s)",
        "\x1b[36m(RayTrainWorker pid=13)\x1b[0m step 3/60 loss 1.0 (0.01 s)"
        "\x1b[32m [repeated 2x across cluster]\x1b[0m",
    ]
    assert raylab.driver_line_of(lines, 13, "step 3/60 loss 1.0 (0.01 s)") == 2
    assert raylab.driver_line_of(lines, 12, "step 3/60 loss 1.0 (0.01 s)") == 1
    # deduplicated away from its own prefix: any line that holds it
    assert raylab.driver_line_of(lines, 14, "step 3/60 loss 1.0 (0.01 s)") == 1
    assert raylab.driver_line_of(lines, 12, "nothing") is None


def test_finish_points_the_driver_layout_at_the_console(tmp_path):
    run = raylab.Ray(tmp_path, "ray_driver", 0, NODES, tmp_path / "scratch", "/v/bin/python")
    run.command = ["/v/bin/python", "/t/ray_app.py", "--plan", "/s/plan.json"]
    run.pids = {"worker:0": 10, "worker:1": 11, "worker:2": 12}
    run.session = "session_2026-11-25_03-24-18_365538_10126"
    logs = tmp_path / run.session / "logs"
    logs.mkdir(parents=True)
    (logs / "worker-aa-01000000-11.out").write_text("TF_CONFIG={}\n")
    (tmp_path / "ray-job.log").write_text(
        "2026-11-25 03:24:20,000\tINFO worker.py:1841 -- Connecting to existing Ray cluster\n"
        "\x1b[36m(RayTrainWorker pid=11)\x1b[0m TF_CONFIG={}\n"
    )
    truth = {
        "node_files": {n: [f"{run.session}/logs/worker-aa-01000000-11.out"] for n in NODES},
        "evidence": [{"node": "worker:1", "file": "x", "line_no": 1, "text": "TF_CONFIG={}"}],
        "notes": "",
    }
    run.finish(truth)
    assert truth["node_files"] == {n: ["ray-job.log"] for n in NODES}
    assert truth["evidence"][0]["file"] == "ray-job.log" and truth["evidence"][0]["line_no"] == 2
    assert not (tmp_path / run.session).exists() and truth["launcher_files"] == []
    assert truth["ray_driver_command"] == "python ray_app.py --plan plan.json"


def test_finish_lists_ray_s_other_files_as_job_level(tmp_path):
    run = raylab.Ray(tmp_path, "ray_both", 0, NODES, tmp_path / "scratch", "/v/bin/python")
    run.command = ["/v/bin/python", "/t/ray_app.py"]
    run.pids = {"worker:0": 10, "worker:1": 11, "worker:2": 12}
    run.session = "session_x"
    logs = tmp_path / "session_x" / "logs"
    logs.mkdir(parents=True)
    for pid in (9, 10, 11, 12):
        for ext in ("out", "err"):
            (logs / f"worker-ab{pid}-01000000-{pid}.{ext}").write_text("x\n")
    (logs / "raylet.out").write_text("x\n")
    for name in ("ray-job.out", "ray-job.err"):
        (tmp_path / name).write_text("x\n")
    truth = {"node_files": {n: run.node_files(n) for n in NODES}, "evidence": [], "notes": ""}
    assert truth["node_files"]["worker:1"] == [
        "session_x/logs/worker-ab11-01000000-11.out",
        "session_x/logs/worker-ab11-01000000-11.err",
    ]
    run.finish(truth)
    assert truth["launcher_files"] == [
        "ray-job.err",
        "ray-job.out",
        "session_x/logs/raylet.out",
        "session_x/logs/worker-ab9-01000000-9.err",
        "session_x/logs/worker-ab9-01000000-9.out",
    ]


def test_when_a_worker_logged_is_read_from_ray_train_s_json_records(tmp_path):
    run = raylab.Ray(tmp_path, "ray_session", 0, NODES, tmp_path / "scratch", "/v/bin/python")
    run.pids = {"worker:0": 10, "worker:1": 11, "worker:2": 12}
    run.session = "session_x"
    train = tmp_path / "session_x" / "logs" / "train"
    train.mkdir(parents=True)

    def rec(pid: int, at: str, message: str) -> str:
        return json.dumps({"asctime": at, "levelname": "INFO", "message": message, "process": pid})

    (train / "ray-train-app-worker-aa.log").write_text(
        rec(11, "2026-11-25 04:17:46,383", "step 1/20 loss 1.0")
        + "\n"
        + rec(11, "2026-11-25 04:17:46,386", "saving weights to /s/w.h5")
        + "\nnot json\n"
    )
    (train / "ray-train-app-worker-bb.log").write_text(
        rec(12, "2026-11-25 04:17:46,383", "saving weights to /s/w.h5") + "\n"
    )
    (train / "ray-train-sys-worker-bb.log").write_text(
        rec(10, "2026-11-25 04:17:40,000", "saving weights to /s/w.h5") + "\n"
    )
    assert run.logged_at("saving weights to") == {
        "worker:1": "2026-11-25T04:17:46.386000Z",
        "worker:2": "2026-11-25T04:17:46.383000Z",
    }


def test_ray_cells_rotate_over_the_three_layouts():
    cells = [c for c in matrix.cells() if c.style == "mwms_ray"]
    assert 28 <= len(cells) <= 36
    counts = {n: sum(c.naming == n for c in cells) for n in raylab.NAMINGS}
    assert max(counts.values()) - min(counts.values()) <= 1
    faults = {(c.fault, c.role) for c in cells}
    assert ("missing", "last") in faults and ("preempt_job", "chief") in faults
    assert ("hdf5_lock", "any") in faults and ("hdf5_nolock", "any") in faults
    assert not any(c.fault in ("version", "healthy_old", "kill_old") for c in cells)
    style = matrix.STYLES["mwms_ray"]
    assert style.config == "ray" and style.roles["last"] == "worker:2"
    assert style.release == "2.21" and style.python[0] == matrix.RAY_PYTHON_ENV
    assert "mwms_ray" not in matrix.LAB_VENV_STYLES


def test_the_protocol_holds_mwms_ray_out_and_keeps_its_untouched_measurements():
    """Declared held out and untouched before any run was recorded, measured untouched, then
    tuned on: held out, no longer untouched, its first figures kept."""
    lab = ROOT / "tests" / "corpus" / "lab"
    protocol = json.loads((lab / "protocol.json").read_text())
    assert "mwms_ray" in protocol["holdout_styles"]
    assert "mwms_ray" not in protocol["untouched_styles"]
    assert "untouched when recorded" in protocol["styles"]["mwms_ray"]
    for name in ("at-declaration", "at-merge"):
        assert (lab / "measurements" / f"mwms_ray-untouched-{name}.txt").is_file()


def _ray_python() -> str | None:
    try:
        return matrix.style_python(matrix.STYLES["mwms_ray"])
    except matrix.CellError:
        return None


@pytest.mark.skipif(_ray_python() is None, reason="needs a Ray venv (TFDIAG_LAB_RAY_PYTHON)")
def test_ray_cli_is_beside_its_interpreter():
    assert raylab.check(_ray_python()) is None
    assert raylab.check("/nonexistent/bin/python") is not None


@pytest.mark.parametrize("truth_path", RUNS, ids=lambda p: p.parent.name)
def test_recorded_run_has_ray_s_files(truth_path: Path):
    truth = json.loads(truth_path.read_text())
    folder = truth_path.parent
    started = [n for n in truth["nodes"] if n not in truth["missing_nodes"]]
    assert truth["style"] == "mwms_ray" and truth["naming"] in raylab.NAMINGS
    launcher = set(truth["launcher_files"])
    assert set(raylab.driver_files(truth["naming"])) - {"ray-job.log"} <= launcher
    pids = truth["ray_worker_pids"]
    assert len({pids[n] for n in started}) == len(started)  # one process per worker
    for node in started:
        files = truth["node_files"][node]
        if truth["naming"] == "ray_driver":
            assert files == ["ray-job.log"]
            text = (folder / "ray-job.log").read_text(errors="replace")
            assert f"(RayTrainWorker pid={pids[node]})" in text
            continue
        # the worker process's own files in Ray's session folder, named by its pid
        assert [re.sub(r".*-(\d+)\.(out|err)$", r"\1", f) for f in files] == [str(pids[node])] * 2
        assert files[0].startswith(f"{truth['ray_session']}/logs/worker-")
        text = (folder / files[0]).read_text(errors="replace")
        assert text.startswith(":job_id:") and ":actor_name:RayTrainWorker" in text
        assert "TF_CONFIG=" in text
    session = {f for f in launcher if f.startswith(f"{truth['ray_session']}/logs/")}
    assert bool(session) == raylab.keeps_session(truth["naming"])
    if session:
        assert f"{truth['ray_session']}/logs/raylet.out" in session
