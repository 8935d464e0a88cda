"""The lab's runit launcher (analyzer/lab/runit.py): its service scripts, svlogd's files and
stamps, and the mwms_runit cells. Recording needs runit (apt-get install runit); these tests
need nothing but the code."""

from __future__ import annotations

import json
from pathlib import Path

from analyzer.lab import matrix
from analyzer.lab import runit as rl

ROOT = Path(__file__).resolve().parents[1]


def test_service_names_and_svlogd_flags_per_layout():
    assert rl.service("worker:1") == "tf-worker-1"
    assert rl.svlogd_flags("runit_tt", 0) == ["-tt"]
    assert rl.svlogd_flags("runit_tai", 1) == ["-t"]
    assert rl.svlogd_flags("runit_rotate", 2) == ["-tt"]
    assert rl.svlogd_flags("runit_rotate", 5) == ["-ttt"]


def test_pieces_are_svlogds_rotated_files_oldest_first_then_current():
    names = [
        "current",
        "lock",
        "config",
        "@400000006b06d5532629bcbc.s",
        "@400000006b06d5503183490c.s",
    ]
    assert rl.pieces(names) == [
        "@400000006b06d5503183490c.s",
        "@400000006b06d5532629bcbc.s",
        "current",
    ]


def test_unstamp_drops_each_of_svlogds_stamps():
    for stamp in (
        "2026-11-25_12:31:26.79252",
        "2026-11-25T12:31:26.79252",
        "@400000006b06d52f1b64d71c",
    ):
        assert rl.unstamp(f"{stamp} TF_CONFIG={{}}") == "TF_CONFIG={}"
    assert rl.unstamp("2026-11-25_12:31:26.79252 ") == ""


def test_run_script_execs_python_with_tf_config_exported():
    text = rl.run_script(
        "/usr/bin/python3",
        "/x/mwms_training.py",
        ["--steps", "60"],
        {"TF_CONFIG": json.dumps({"task": {"type": "worker", "index": 0}})},
        Path("/tmp/job"),
        "tf-worker-0",
    )
    lines = text.splitlines()
    assert lines[0] == "#!/bin/sh" and "exec 2>&1" in lines
    assert any(x.startswith("export TF_CONFIG='{") for x in lines)
    assert lines[-1] == "exec /usr/bin/python3 -u /x/mwms_training.py --steps 60"


def test_mwms_runit_cells_cover_every_family_and_rotate_the_layouts():
    cells = [c for c in matrix.cells() if c.style == "mwms_runit"]
    assert {c.naming for c in cells} == set(rl.NAMINGS)
    faults = {c.fault for c in cells}
    for f in ("healthy", "kill", "preempt", "preempt_job", "stall_notimeout", "straggler", "oom"):
        assert f in faults
    assert {c.role for c in cells if c.fault == "kill"} == {"chief", "worker"}


def test_the_protocol_holds_mwms_runit_out():
    protocol = json.loads((ROOT / "tests" / "corpus" / "lab" / "protocol.json").read_text())
    assert "mwms_runit" in protocol["holdout_styles"]
    assert "mwms_runit" in protocol["styles"]
