"""The lab's srun (analyzer/lab/slurm.py) and the recorded mwms_slurm runs' files.

Reads logs and the lab's truth.json only: tfdiag's verdicts on these runs are not computed
here (mwms_slurm is held out and untouched; see tests/corpus/lab/protocol.json).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.lab import matrix, slurm

ROOT = Path(__file__).resolve().parents[1]
RUNS = sorted((ROOT / "tests" / "corpus" / "lab" / "mwms_slurm").glob("*/truth.json"))


class _Proc:
    def __init__(self, code):
        self.popen = type("P", (), {"poll": lambda _self: code})()


def test_exit_lines_are_worded_as_srun_prints_them(tmp_path):
    srun = slurm.Srun(tmp_path, 77, False, {"worker:0": 0, "worker:1": 1, "worker:2": 2})
    assert srun.exit_line("worker:1", -9) == "srun: error: localhost: task 1: Killed"
    assert srun.exit_line("worker:2", -15) == "srun: error: localhost: task 2: Terminated"
    assert (
        srun.exit_line("worker:0", 1) == "srun: error: localhost: task 0: Exited with exit code 1"
    )
    assert srun.exit_line("worker:0", 0) is None
    srun.procs = {"worker:0": _Proc(1), "worker:1": _Proc(None)}
    srun.job_event("time_limit")
    srun.job_event("time_limit")  # printed once
    lines = (tmp_path / "slurm-77.out").read_text().splitlines()
    assert lines[0] == "srun: error: localhost: task 0: Exited with exit code 1"
    assert re.fullmatch(
        r"slurmstepd: error: \*\*\* JOB 77 ON localhost CANCELLED AT "
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d DUE TO TIME LIMIT \*\*\*",
        lines[1],
    )
    assert len(lines) == 2
    # after the cancel, srun reports a task's end only at verbose level
    assert srun.exit_line("worker:1", -15) is None


def test_label_mode_interleaves_and_points_the_evidence_at_the_labelled_line(tmp_path):
    tasks = {"worker:0": 0, "worker:1": 1}
    srun = slurm.Srun(tmp_path, 5, True, tasks)
    own = {"worker:0": tmp_path / "slurm-5-0.out", "worker:1": tmp_path / "slurm-5-1.out"}
    for node, text in (("worker:0", "a\n"), ("worker:1", "b\n"), ("worker:0", "c\n")):
        with open(own[node], "a") as f:
            f.write(text)
        srun.tee(node, text.encode())
    srun.error("srun: error: localhost: task 1: Killed")
    truth = {
        "node_files": {n: [p.name] for n, p in own.items()},
        "evidence": [{"node": "worker:0", "file": "slurm-5-0.out", "line_no": 2, "text": "c"}],
    }
    srun.finish(truth)
    assert (tmp_path / "slurm-5.out").read_text() == (
        "0: a\n1: b\n0: c\nsrun: error: localhost: task 1: Killed\n"
    )
    assert truth["node_files"] == {"worker:0": ["slurm-5.out"], "worker:1": ["slurm-5.out"]}
    assert truth["evidence"][0] | {} == {
        "node": "worker:0",
        "file": "slurm-5.out",
        "line_no": 3,
        "text": "0: c",
    }
    assert not any(p.exists() for p in own.values())


def test_a_task_output_is_kept_whole_and_teed_line_by_line(tmp_path):
    from analyzer.lab._runner import _copy_lines

    code = (
        "import sys; print('one', flush=True); sys.stderr.write('two\\n'); "
        "sys.stdout.write('three')"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    seen = []
    with open(tmp_path / "t.out", "wb") as fh:
        _copy_lines(p.stdout, fh, "t", lambda node, line: seen.append((node, line)))
    assert p.wait(30) == 0
    assert (tmp_path / "t.out").read_bytes() == b"one\ntwo\nthree"
    # the last line has no newline in the task's file; srun --label ends it
    assert seen == [("t", b"one\n"), ("t", b"two\n"), ("t", b"three\n")]


def test_srun_namings_rotate_over_the_style_only():
    cells = [c for c in matrix.cells() if c.style == "mwms_slurm"]
    names = {c.naming for c in cells}
    assert names == set(slurm.NAMINGS)
    labelled = sum(c.naming == "srun_label" for c in cells)
    assert len(cells) / 4 <= labelled <= len(cells) / 2


@pytest.mark.parametrize("truth_path", RUNS, ids=lambda p: p.parent.name)
def test_recorded_run_has_srun_files(truth_path: Path):
    truth = json.loads(truth_path.read_text())
    folder, job = truth_path.parent, truth["slurm_job_id"]
    job_file = folder / f"slurm-{job}.out"
    assert truth["launcher_files"] == [job_file.name]
    lines = job_file.read_text(encoding="utf-8", errors="replace").splitlines()
    srun_lines = [x for x in lines if x.startswith(("srun: ", "slurmstepd: "))]
    if truth["naming"] == "srun_label":
        started = [n for n in truth["nodes"] if n not in truth["missing_nodes"]]
        assert {f for n in started for f in truth["node_files"][n]} == {job_file.name}
        tasks = {x.split(": ", 1)[0] for x in lines if x not in srun_lines}
        assert tasks == {n.split(":")[1] for n in started}
    else:
        assert len(srun_lines) == len(lines)
        for node in truth["nodes"]:
            for f in truth["node_files"][node]:
                assert f.endswith(f"-{job}-{node.split(':')[1]}.out")
    # srun names a task that ended by a signal or an error exit before the job was cancelled,
    # and only such a task
    cancel = [i for i, x in enumerate(srun_lines) if "CANCELLED" in x]
    assert bool(cancel) == (truth["ended_by"] == "launcher_timeout")
    for x in srun_lines:
        m = re.fullmatch(r"srun: error: localhost: task (\d): (.+)", x)
        if m:
            code = truth["exit_codes"][f"worker:{m.group(1)}"]
            assert code not in (0, None), x
