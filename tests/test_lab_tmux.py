"""The lab's tmux launcher (analyzer/lab/tmux.py): its windows, what is typed into them, each
layout's log file, and the mwms_tmux cells. Recording needs tmux (apt-get install tmux) and
util-linux script; these tests need nothing but the code."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from analyzer.lab import matrix
from analyzer.lab import tmux as tl

ROOT = Path(__file__).resolve().parents[1]


def test_windows_and_each_layouts_log():
    assert tl.window("worker:2") == "worker-2"
    assert tl.log_name("tmux_pipe", "worker:0") == "logs/worker-0.log"
    assert tl.log_name("tmux_script", "worker:1") == "logs/worker-1.typescript"
    assert tl.log_name("tmux_capture", "worker:2") == "logs/worker-2.txt"
    style = matrix.STYLES["mwms_tmux"]
    for naming in tl.NAMINGS:
        assert matrix.file_name(naming, style, "worker:1", 0) == tl.log_name(naming, "worker:1")


def test_each_run_has_its_own_private_server():
    assert tl.socket_name(3) != tl.socket_name(3)
    assert tl.socket_name(3).startswith("tfdiag-lab-")


def test_what_every_task_has_alike_is_not_typed():
    tfc = [json.dumps({"task": {"type": "worker", "index": i}}) for i in range(3)]
    envs = [{"TF_CONFIG": t, "TZ": "UTC", "OMP_NUM_THREADS": "1"} for t in tfc]
    envs[2]["HDF5_USE_FILE_LOCKING"] = "FALSE"
    common, typed = tl.split_env(envs)
    assert common == {"TZ": "UTC", "OMP_NUM_THREADS": "1"}
    assert typed[0] == {"TF_CONFIG": tfc[0]}
    assert typed[2] == {"TF_CONFIG": tfc[2], "HDF5_USE_FILE_LOCKING": "FALSE"}
    # TF_CONFIG is typed even when it is the same for every task
    common, typed = tl.split_env([{"TF_CONFIG": "{}"}, {"TF_CONFIG": "{}"}])
    assert common == {} and typed == [{"TF_CONFIG": "{}"}, {"TF_CONFIG": "{}"}]


def test_the_typed_line_exports_tf_config_then_runs_python():
    tfc = '{"cluster": {"worker": ["127.0.0.1:1"]}, "task": {"type": "worker", "index": 0}}'
    line = tl.shell_command(
        "tmux_pipe", "worker:0", "/v/bin/python", "/x/mwms_keras.py", ["--steps", "60"],
        {"TF_CONFIG": tfc},
    )  # fmt: skip
    assert (
        line == f"export TF_CONFIG={shlex.quote(tfc)}; /v/bin/python -u /x/mwms_keras.py --steps 60"
    )
    exports, _ = line.split("; /", 1)
    assert shlex.split(exports) == ["export", f"TF_CONFIG={tfc}"]


def test_the_script_layout_runs_the_command_under_script():
    line = tl.shell_command(
        "tmux_script", "worker:1", "/v/bin/python", "/x/mwms_keras.py", ["--steps", "60"],
        {"TF_CONFIG": "{}"},
    )  # fmt: skip
    exports, cmd = line.split("; ", 1)
    assert exports == "export TF_CONFIG='{}'"
    words = shlex.split(cmd)
    assert words[:4] == ["script", "-q", "-f", "logs/worker-1.typescript"]
    assert words[4] == "-c" and words[5] == "/v/bin/python -u /x/mwms_keras.py --steps 60"


def test_the_lab_reads_a_pty_stream_with_plain_line_ends():
    raw = b"Epoch 1/3\r\n\r 1/20 [>....] - ETA: 2s\x08\x08 step 1/60 loss 3.2\r\n"
    text = tl.plain(raw)
    assert text.splitlines()[0] == "Epoch 1/3"
    assert "step 1/60 loss" in text and "\r\n" not in text


def test_mwms_tmux_cells_cover_every_family_and_rotate_the_layouts():
    cells = [c for c in matrix.cells() if c.style == "mwms_tmux"]
    assert {c.naming for c in cells} == set(tl.NAMINGS)
    faults = {c.fault for c in cells}
    for f in ("healthy", "kill", "preempt", "preempt_job", "stall_notimeout", "straggler", "oom"):
        assert f in faults
    assert {c.role for c in cells if c.fault == "kill"} == {"chief", "worker"}
    # the same cells as mwms_runit's (the style before it)
    runit = {(c.fault, c.role, c.phase) for c in matrix.cells() if c.style == "mwms_runit"}
    assert {(c.fault, c.role, c.phase) for c in cells} == runit


def test_the_style_draws_fits_progress_bar():
    style = matrix.STYLES["mwms_tmux"]
    assert style.script == "mwms_keras.py" and style.config == "tmux"
    args = list(style.args)
    assert args[args.index("--fit-verbose") + 1] == "1"
    assert "--fit-verbose" not in matrix.STYLES["mwms_keras"].args


def test_the_protocol_holds_mwms_tmux_out():
    # (held out and untouched when declared; measured twice untouched, then tuned on)
    protocol = json.loads((ROOT / "tests" / "corpus" / "lab" / "protocol.json").read_text())
    assert "mwms_tmux" in protocol["holdout_styles"]
    assert "mwms_tmux" not in protocol["untouched_styles"]
    assert "mwms_tmux" in protocol["styles"]
