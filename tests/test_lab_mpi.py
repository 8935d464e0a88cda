"""The lab's mpirun (analyzer/lab/mpi.py) and the recorded mwms_mpi runs' files.

Reads logs and the lab's truth.json only: tfdiag's verdicts on these runs are not computed
here (mwms_mpi is held out and untouched; see tests/corpus/lab/protocol.json).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from analyzer.lab import matrix, mpi

ROOT = Path(__file__).resolve().parents[1]
RUNS = sorted((ROOT / "tests" / "corpus" / "lab" / "mwms_mpi").glob("*/truth.json"))
NODES = ["worker:0", "worker:1", "worker:2"]


def test_wait_status_reads_as_popen_returncode():
    assert mpi.wait_code(9) == -9  # killed by SIGKILL
    assert mpi.wait_code(15 | 0x80) == -15  # SIGTERM, core flag
    assert mpi.wait_code(3 << 8) == 3
    assert mpi.wait_code(0) == 0


def test_tag_prefixes_with_and_without_timestamp():
    m = mpi.TAG_RE.match(b"[1,2]<stderr>:2026-11-24 22:06:28,123 - INFO - step 3/60")
    assert m and m.group(1) == b"2" and m.end() == len(b"[1,2]<stderr>:")
    m = mpi.TAG_RE.match(b"Tue Nov 24 22:06:28 2026[1,0]<stdout>:tf.__version__ = 2.21.0")
    assert m and m.group(1) == b"0"
    assert mpi.TAG_RE.match(b"Sun Nov  1 02:06:28 2026[1,1]<stdout>:x")
    assert not mpi.TAG_RE.match(b"mpirun noticed that process rank 1 with PID 0 on node vm")
    assert not mpi.TAG_RE.match(b"-" * 74)


def test_print_s_newline_comes_behind_a_tag_of_its_own(tmp_path):
    # mpirun tags each write(); print() writes its text and its newline apart
    run = mpi.Mpirun(tmp_path, "mpi_timestamp_output", 1, NODES)
    (tmp_path / mpi.RAW_DIR).mkdir()
    t = b"Tue Nov 24 22:15:25 2026"
    lines = [
        t + b"[1,1]<stdout>:TF_CONFIG={1}" + t + b"[1,0]<stdout>:TF_CONFIG={0}\n",
        t + b"[1,1]<stdout>:\n",
        t + b"[1,2]<stderr>:step 1/60 loss 1.0\n",
        t + b"[1,0]<stdout>:tf.__version__ = 2.21.0" + t + b"[1,0]<stderr>:INFO:x\n",
        t + b"[1,0]<stdout>:\n",
    ]
    with open(run.path, "wb") as out:
        for line in lines:
            run._line(out, line)
    raw = {n: (tmp_path / mpi.raw_name(n)).read_text() for n in NODES}
    assert raw == {
        "worker:0": "TF_CONFIG={0}\nINFO:x\ntf.__version__ = 2.21.0\n",
        "worker:1": "TF_CONFIG={1}\n",
        "worker:2": "step 1/60 loss 1.0\n",
    }
    # each rank's line points at the job line where its text is
    # (a rank's stdout and stderr are apart: its stderr line ends first)
    assert run.where == {"worker:0": [1, 4, 4], "worker:1": [1], "worker:2": [3]}


def test_tagged_output_is_kept_whole_and_the_evidence_points_at_the_tagged_line(tmp_path):
    run = mpi.Mpirun(tmp_path, "mpi_tag_output", 5, NODES)
    (tmp_path / mpi.RAW_DIR).mkdir()
    lines = [
        b"[1,0]<stdout>:TF_CONFIG={}\n",
        b"[1,1]<stderr>:a\n",
        b"-----\n",
        b"mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).\n",
        b"[1,2]<stderr>:b\n",
        b"[1,1]<stderr>:c",
    ]
    with open(run.path, "wb") as out:
        for line in lines:
            run._line(out, line)
    run._end_line(
        ("worker:1", b"stderr")
    )  # the output's end: a rank's last text without its newline
    assert run.path.read_bytes() == b"".join(lines)
    assert (tmp_path / mpi.raw_name("worker:1")).read_text() == "a\nc\n"
    assert run.where == {"worker:0": [1], "worker:1": [2, 6], "worker:2": [5]}
    truth = {
        "node_files": {n: [mpi.raw_name(n)] for n in NODES},
        "evidence": [
            {"node": "worker:1", "file": mpi.raw_name("worker:1"), "line_no": 2, "text": "c"}
        ],
    }
    run.finish(truth)
    name = mpi.job_file(mpi.job_id(5))
    assert truth["launcher_files"] == [name]
    assert truth["node_files"] == {n: [name] for n in NODES}
    assert truth["evidence"][0] == {
        "node": "worker:1",
        "file": name,
        "line_no": 6,
        "text": "[1,1]<stderr>:c",
    }
    assert not (tmp_path / mpi.RAW_DIR).exists()


def test_output_filename_runs_keep_each_rank_s_files(tmp_path):
    run = mpi.Mpirun(tmp_path, "mpi_output_filename", 0, NODES)
    assert run.path.name == mpi.LAUNCHER_FILE
    assert run.node_files("worker:2") == ["mpi-out/1/rank.2/stdout", "mpi-out/1/rank.2/stderr"]
    for f in run.node_files("worker:2"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text(f"{Path(f).name}\n")
    assert run.read("worker:2") == "stdout\nstderr\n"
    truth = {"node_files": {"worker:2": run.node_files("worker:2")}, "evidence": []}
    run.finish(truth)
    assert truth["launcher_files"] == [mpi.LAUNCHER_FILE]
    assert truth["node_files"]["worker:2"] == run.node_files("worker:2")


def test_one_app_context_per_rank_in_rank_order(tmp_path):
    run = mpi.Mpirun(tmp_path, "mpi_tag_output", 0, NODES[:2])
    run.add("worker:0", "/py", Path("/t/mwms_mpi.py"), ["--workers", "a,b,c"], {"K": "v"})
    with pytest.raises(ValueError):
        run.add("worker:0", "/py", Path("/t/mwms_mpi.py"), [], {})
    run.add("worker:1", "/old/py", Path("/t/mwms_mpi.py"), ["--task-index", "0"], {})
    assert run.contexts == [
        ["-np", "1", "-x", "K=v", "/py", "-u", "/t/mwms_mpi.py", "--workers", "a,b,c"],
        ["-np", "1", "/old/py", "-u", "/t/mwms_mpi.py", "--task-index", "0"],
    ]


def test_mpi_cells_rotate_over_the_three_layouts():
    cells = [c for c in matrix.cells() if c.style == "mwms_mpi"]
    assert 28 <= len(cells) <= 36
    counts = {n: sum(c.naming == n for c in cells) for n in mpi.NAMINGS}
    assert max(counts.values()) - min(counts.values()) <= 1
    assert ("missing", "last") in {(c.fault, c.role) for c in cells}
    assert matrix.STYLES["mwms_mpi"].roles["last"] == "worker:2"


@pytest.mark.parametrize("truth_path", RUNS, ids=lambda p: p.parent.name)
def test_recorded_run_has_mpirun_files(truth_path: Path):
    truth = json.loads(truth_path.read_text())
    folder = truth_path.parent
    started = [n for n in truth["nodes"] if n not in truth["missing_nodes"]]
    if truth["naming"] == "mpi_output_filename":
        assert truth["launcher_files"] == [mpi.LAUNCHER_FILE]
        for i, node in enumerate(started):
            assert truth["node_files"][node] == mpi.rank_files(i)
        return
    job_file = mpi.job_file(truth["batch_job_id"])
    assert truth["launcher_files"] == [job_file]
    assert {f for n in started for f in truth["node_files"][n]} == {job_file}
    lines = (folder / job_file).read_text(encoding="utf-8", errors="replace").splitlines()
    ranks = {m.group(1) for x in lines if (m := mpi.TAG_RE.match(x.encode()))}
    assert ranks == {str(i).encode() for i in range(len(started))}
    if truth["naming"] == "mpi_timestamp_output":
        tagged = [x for x in lines if mpi.TAG_RE.match(x.encode())]
        assert all(re.match(r"[A-Z][a-z]{2} [A-Z][a-z]{2} ", x) for x in tagged)


def test_a_launched_process_reads_as_a_popen_does():
    import subprocess as sp

    from analyzer.lab.mpi import LaunchedProcess

    class Fake(LaunchedProcess):
        def __init__(self):
            self.label, self.found, self.alive, self.code = "worker:1", None, True, None

        def _found_pid(self):
            return self.found

        def _launcher_alive(self):
            return self.alive

        def poll(self):
            return self.code

    task = Fake()
    task.found = 4242
    assert task.pid == 4242 and task.returncode is None
    with pytest.raises(sp.TimeoutExpired):
        task.wait(timeout=0.1)
    task.code = -9
    assert task.wait(timeout=0.1) == -9 and task.returncode == -9
    gone = Fake()
    gone.alive = False  # the launcher ended before the task was seen: no pid to wait for
    with pytest.raises(ProcessLookupError, match="worker:1"):
        _ = gone.pid


def test_a_launched_tasks_code_comes_from_its_exit_event_or_is_unknown():
    from types import SimpleNamespace

    from analyzer.lab.mpi import ended_code

    launcher = SimpleNamespace(exits=SimpleNamespace(status={7: 9, 8: 42 << 8}), _ended_at=None)
    assert ended_code(launcher, 7, running=True) == -9  # its exit event: SIGKILL
    assert ended_code(launcher, 8, running=False) == 42
    assert ended_code(launcher, 9, running=True) is None  # no event yet, the launcher runs
    assert ended_code(launcher, 9, running=False) is None  # the launcher just ended: a grace
    launcher._ended_at -= 5.0
    assert ended_code(launcher, 9, running=False) == 255  # its end was never seen
