"""The lab's honcho launcher (analyzer/lab/honcho.py) and the recorded mwms_honcho runs' files.

Needs neither honcho nor TensorFlow (the live test runs a real honcho and skips without it).
Reads logs and the lab's truth.json only: tfdiag's verdicts on these runs are not computed
here (the corpus test does: tests/test_lab_corpus.py).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.lab import honcho, matrix

ROOT = Path(__file__).resolve().parents[1]
RUNS = sorted((ROOT / "tests" / "corpus" / "lab" / "mwms_honcho").glob("*/truth.json"))
WORKERS = ["127.0.0.1:41001", "127.0.0.1:41002", "127.0.0.1:41003"]


def _tasks(delay_node: str | None = None, extra: dict | None = None) -> list[dict]:
    out = []
    for i in range(3):
        node = f"worker:{i}"
        spec = {"cluster": {"worker": WORKERS}, "task": {"type": "worker", "index": i}}
        out.append(
            {
                "node": node,
                "python": "/venv/bin/python",
                "script": "/lab/tasks/mwms_training.py",
                "args": ["--steps", "60", *((extra or {}).get(node, []))],
                "env": {"TF_CONFIG": json.dumps(spec), "TFDIAG_LAB_LOG_STYLE": "absl"},
                "delay": 15.0 if node == delay_node else 0.0,
            }
        )
    return out


def _lines(text: str) -> dict[str, str]:
    """The Procfile's process types and commands, as honcho's PROCFILE_LINE reads them."""
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, cmd = line.split(":", 1)
        out[name] = cmd.strip()
    return out


def test_processes_are_named_as_honcho_names_them():
    assert honcho.process_name("worker:0", False) == "worker0.1"
    assert honcho.process_name("worker:2", False) == "worker2.1"
    # -c worker=3: 1-based
    assert honcho.process_name("worker:0", True) == "worker.1"
    assert honcho.process_name("worker:2", True) == "worker.3"
    assert honcho.tee_file("worker:1", False) == "logs/worker1.log"
    assert honcho.tee_file("worker:1", True) == "logs/worker.2.log"


def test_a_procfile_line_per_task_keeps_its_tf_config_whole():
    text = honcho.procfile_text(_tasks("worker:1"), concurrency=False, tee=True, workers=WORKERS)
    lines = _lines(text)
    assert list(lines) == ["worker0", "worker1", "worker2"]
    words = shlex.split(lines["worker0"])
    assert words[0] == "env"
    env = dict(w.split("=", 1) for w in words[1:3])
    assert json.loads(env["TF_CONFIG"])["task"] == {"type": "worker", "index": 0}
    assert words[-3:] == ["|", "tee", "logs/worker0.log"]
    assert lines["worker1"].startswith("sleep 15 && env ")
    assert "tee" not in honcho.procfile_text(
        _tasks(), concurrency=False, tee=False, workers=WORKERS
    )


def test_one_process_type_with_concurrency_gives_each_task_its_own_part():
    bad = {"cluster": {"worker": WORKERS}, "task": {"type": "worker", "index": 0}}
    tasks = _tasks(extra={"worker:1": ["--feed-dtype", "int64"]})
    tasks[2]["env"]["TF_CONFIG"] = json.dumps(bad)
    text = honcho.procfile_text(tasks, concurrency=True, tee=True, workers=WORKERS)
    lines = _lines(text)
    assert list(lines) == ["worker"]
    words = shlex.split(lines["worker"])
    assert words[2].endswith("/" + honcho.WRAPPER)
    assert words[words.index("--workers") + 1] == ",".join(WORKERS)
    per = json.loads(words[words.index("--per-task") + 1])
    assert per["1"]["args"] == ["--feed-dtype", "int64"] and "args" not in per["0"]
    assert per["2"]["task_index"] == 0 and "task_index" not in per["1"]
    assert words[-3:] == ["|", "tee", "logs/$HONCHO_PROCESS_NAME.log"]
    assert words[words.index("--steps") : words.index("--steps") + 2] == ["--steps", "60"]
    cmd = honcho.command("honcho", Path("/s/Procfile"), Path("/r"), concurrency=True, n=2)
    assert cmd[-3:] == ["start", "-c", "worker=2"]


def test_honcho_s_lines_are_parted_by_process():
    assert honcho.parse_line(b"07:26:21 worker0.1 | step 3/60 loss 0.1\n") == (
        "worker0.1",
        b"step 3/60 loss 0.1",
    )
    coloured = b"\x1b[0m\x1b[36m07:27:11 worker.1 | \x1b[0mtraining finished\r\n"
    assert honcho.parse_line(coloured) == ("worker.1", b"training finished")
    assert honcho.parse_line(b"07:26:22 system    | worker2.1 stopped (rc=0)\n")[0] == "system"
    assert honcho.parse_line(b"not honcho's\n") is None


def test_a_third_of_the_cells_run_one_process_type_with_concurrency():
    cells = [c for c in matrix.cells() if c.style == "mwms_honcho"]
    assert len(cells) >= 25
    assert {c.naming for c in cells} == set(honcho.NAMINGS)
    many = [c for c in cells if honcho.concurrent(c.seed)]
    assert len(cells) // 4 <= len(many) <= len(cells) // 2
    assert {c.naming for c in many} == set(honcho.NAMINGS)
    style = matrix.STYLES["mwms_honcho"]
    assert style.config == "honcho" and style.script == "mwms_training.py"
    assert style.roles == matrix.STYLES["mwms_mpi"].roles


@pytest.mark.skipif(honcho.find() is None, reason=f"needs honcho ({honcho.ENV})")
def test_a_real_honcho_runs_the_procfile_and_stops_the_rest(tmp_path):
    """A real honcho with a generated Procfile (-c 2 of the wrapper-free kind): a process that
    exits 3 makes honcho stop the other; its names, prefixes and system lines."""
    run = tmp_path / "run"
    (run / "logs").mkdir(parents=True)
    py = shlex.quote(sys.executable)
    procfile = tmp_path / "Procfile"
    procfile.write_text(
        "worker: "
        + py
        + ' -c \'import os,sys,time; n=os.environ["HONCHO_PROCESS_NAME"]; print("hi", n, '
        'flush=True); time.sleep(0.5 if n.endswith(".1") else 30); sys.exit(3)\' 2>&1 '
        "| tee logs/$HONCHO_PROCESS_NAME.log\n"
    )
    cmd = honcho.command(honcho.find(), procfile, run, concurrency=True, n=2)
    env = {k: v for k, v in os.environ.items() if k != "PORT"}
    out = subprocess.run(
        cmd, cwd=run, capture_output=True, timeout=60, env={**env, "PYTHONUNBUFFERED": "1"}
    )
    lines = out.stdout.splitlines()
    parsed = [honcho.parse_line(x) for x in lines]
    assert ("worker.1", b"hi worker.1") in parsed and ("worker.2", b"hi worker.2") in parsed
    text = out.stdout.decode()
    assert "worker.1 started (pid=" in text and "sending SIGTERM to worker.2 (pid" in text
    assert (run / "logs" / "worker.2.log").read_text() == "hi worker.2\n"


@pytest.mark.parametrize("truth_path", RUNS, ids=lambda p: p.parent.name)
def test_recorded_run_has_honcho_s_files(truth_path: Path):
    truth = json.loads(truth_path.read_text())
    folder = truth_path.parent
    assert truth["style"] == "mwms_honcho" and truth["naming"] in honcho.NAMINGS
    assert truth["launcher_files"] == [honcho.MAIN_LOG]
    assert not (folder / honcho.RAW_DIR).exists()
    raw = (folder / honcho.MAIN_LOG).read_bytes()
    assert (b"\x1b[" in raw) == (truth["naming"] == "honcho_colour")
    log = raw.decode("utf-8", "replace")
    concurrency = truth["honcho"]["concurrency"]
    started = [n for n in truth["nodes"] if n not in truth["missing_nodes"]]
    for node in started:
        name = honcho.process_name(node, concurrency)
        assert f"{name} started (pid=" in log
        files = truth["node_files"][node]
        if truth["naming"] == "honcho_tee":
            assert files == [honcho.tee_file(node, concurrency)]
        else:
            assert files == [honcho.MAIN_LOG]
    for node in truth["missing_nodes"]:
        assert f"{honcho.process_name(node, concurrency)} started" not in log
