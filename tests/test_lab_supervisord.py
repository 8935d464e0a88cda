"""The lab's supervisord launcher (analyzer/lab/supervisord.py) and the recorded tf1_supervisord
runs' files.

Needs neither supervisord nor TensorFlow (the live test runs a real supervisord and skips
without it). Reads logs and the lab's truth.json only: tfdiag's verdicts on these runs are not
computed here (the corpus test does: tests/test_lab_corpus.py).
"""

from __future__ import annotations

import configparser
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analyzer.lab import matrix
from analyzer.lab import supervisord as sup

ROOT = Path(__file__).resolve().parents[1]
RUNS = sorted((ROOT / "tests" / "corpus" / "lab" / "tf1_supervisord").glob("*/truth.json"))
TF_CONFIG = {
    "cluster": {"ps": ["127.0.0.1:41001"], "worker": ["127.0.0.1:41002", "127.0.0.1:41003"]},
    "task": {"type": "worker", "index": 1},
}


def _conf(naming: str, tmp_path: Path, autostart: bool = True) -> str:
    return sup.conf_text(
        run_dir=tmp_path / "run",
        scratch=tmp_path / "scratch",
        socket_path=tmp_path / "run" / sup.SOCKET,
        naming=naming,
        programs=[
            {
                "name": sup.program("worker:1"),
                "command": ["/venv/bin/python", "-u", "/lab/tasks/tf1_training.py", "--steps", "9"],
                "env": {"TF_CONFIG": json.dumps(TF_CONFIG), "TZ": "UTC", "PCT": "100%"},
                "autostart": autostart,
            }
        ],
    )


def _parse(text: str) -> configparser.RawConfigParser:
    cp = configparser.RawConfigParser()
    cp.read_string(text)
    return cp


def test_programs_are_named_by_job_and_index():
    assert sup.program("ps:0") == "tf-ps-0"
    assert sup.program("worker:1") == "tf-worker-1"


def test_environment_keeps_a_json_tf_config_whole(tmp_path):
    """supervisord splits environment= with a POSIX shlex at commas (options.
    dict_of_key_value_pairs) after its %-expansion: the JSON comes back whole."""
    cp = _parse(_conf("sup_auto", tmp_path))
    raw = cp.get("program:tf-worker-1", "environment")
    lexer = shlex.shlex(raw.replace("%%", "%"), posix=True)
    lexer.wordchars += '=:/.-_%{}[]" '
    lexer.whitespace = ","
    pairs = dict(tok.split("=", 1) for tok in lexer)
    assert json.loads(pairs["TF_CONFIG"]) == TF_CONFIG
    assert pairs["PCT"] == "100%" and pairs["TZ"] == "UTC"
    with pytest.raises(ValueError):
        sup.env_value("it's")


def test_each_layout_s_log_settings(tmp_path):
    auto = _parse(_conf("sup_auto", tmp_path))["program:tf-worker-1"]
    assert auto["stdout_logfile"] == "AUTO" and auto["stderr_logfile"] == "AUTO"
    assert auto["autorestart"] == "false" and auto["stopwaitsecs"] == str(sup.STOP_WAIT_SECS)
    red = _parse(_conf("sup_redirect", tmp_path))["program:tf-worker-1"]
    assert red["redirect_stderr"] == "true"
    assert red["stdout_logfile"].endswith("/%(program_name)s.log")
    rot = _parse(_conf("sup_rotate", tmp_path))["program:tf-worker-1"]
    assert rot["stdout_logfile_maxbytes"] == str(sup.ROTATE_BYTES)
    main = _parse(_conf("sup_rotate", tmp_path))
    assert main["supervisord"]["logfile"].endswith("/run/" + sup.MAIN_LOG)
    assert main["supervisord"]["childlogdir"] == str(tmp_path / "run")
    assert main["supervisorctl"]["serverurl"] == f"unix://{tmp_path / 'run' / sup.SOCKET}"
    late = _parse(_conf("sup_redirect", tmp_path, autostart=False))["program:tf-worker-1"]
    assert late["autostart"] == "false"


def test_a_program_s_files_in_each_layout():
    names = [
        "supervisord.log",
        "tf-worker-1-stderr---supervisor-x7_q1a2b.log",
        "tf-worker-1-stdout---supervisor-0kd8f_ee.log",
        "tf-worker-10-stdout---supervisor-aaaaaaaa.log",
        "tf-worker-0-stdout---supervisor-bbbbbbbb.log",
    ]
    assert sup.files_of("sup_auto", names, "worker:1") == [
        "tf-worker-1-stdout---supervisor-0kd8f_ee.log",
        "tf-worker-1-stderr---supervisor-x7_q1a2b.log",
    ]
    rotated = ["tf-ps-0.log", "tf-ps-0.log.1", "tf-ps-0.log.10", "tf-ps-0.log.2", "tf-ps-00.log"]
    # oldest first: .log.10 ... .log.1, then .log
    assert sup.files_of("sup_rotate", rotated, "ps:0") == [
        "tf-ps-0.log.10",
        "tf-ps-0.log.2",
        "tf-ps-0.log.1",
        "tf-ps-0.log",
    ]
    assert sup.files_of("sup_redirect", ["tf-ps-0.log", "supervisord.log"], "ps:0") == [
        "tf-ps-0.log"
    ]


def test_supervisord_s_lines_give_pids_and_ends():
    text = "\n".join(
        [
            "2026-11-25 06:35:33,674 INFO spawned: 'tf-ps-0' with pid 16484",
            "2026-11-25 06:35:35,224 INFO success: tf-ps-0 entered RUNNING state, process has "
            "stayed up for > than 1 seconds (startsecs)",
            "2026-11-25 06:35:58,111 INFO exited: tf-worker-0 (exit status 0; expected)",
            "2026-11-25 06:35:58,200 WARN exited: tf-worker-1 (terminated by SIGKILL; not "
            "expected)",
            "2026-11-25 06:36:00,327 WARN stopped: tf-ps-0 (terminated by SIGTERM)",
        ]
    )
    ev = sup.events(text)
    assert ev[0] == {"event": "spawned", "name": "tf-ps-0", "pid": 16484}
    assert [(e["name"], e["code"]) for e in ev[1:]] == [
        ("tf-worker-0", 0),
        ("tf-worker-1", -9),
        ("tf-ps-0", -15),
    ]
    assert sup.status_code("exit status 1") == 1
    assert sup.status_code("terminated by SIGSEGV (core dumped)") == -11


def test_the_style_s_cells_rotate_over_the_three_layouts():
    cells = [c for c in matrix.cells() if c.style == "tf1_supervisord"]
    assert len(cells) >= 25
    assert {c.naming for c in cells} == set(sup.NAMINGS)
    faults = {c.fault for c in cells}
    assert {"healthy", "kill", "preempt", "preempt_job", "stall_deadline", "missing"} <= faults
    style = matrix.STYLES["tf1_supervisord"]
    assert style.config == "supervisord" and style.script == "tf1_training.py"
    assert style.roles == matrix.STYLES["tf1"].roles


def test_the_protocol_holds_tf1_supervisord_out_and_keeps_its_untouched_measurements():
    """Declared held out and untouched before any run was recorded, measured untouched twice,
    then tuned on: held out, no longer untouched, its first figures kept."""
    lab = ROOT / "tests" / "corpus" / "lab"
    protocol = json.loads((lab / "protocol.json").read_text())
    assert "tf1_supervisord" in protocol["holdout_styles"]
    assert "tf1_supervisord" not in protocol["untouched_styles"]
    assert "twenty-first style" in protocol["why"]
    for name in ("untouched", "untouched-at-merge"):
        assert (lab / "measurements" / f"tf1_supervisord-{name}.txt").is_file()


@pytest.mark.skipif(sup.find() is None, reason=f"needs supervisord ({sup.ENV})")
def test_a_real_supervisord_runs_a_program_and_writes_its_lines(tmp_path):
    """A real supervisord with the generated configuration: a program that prints and exits 3;
    its AUTO files and supervisord's spawned / exited lines."""
    run, scratch = tmp_path / "run", tmp_path / "s"
    run.mkdir()
    scratch.mkdir()
    s = sup.Supervisord(run, "sup_auto", ["worker:1"], scratch)
    script = scratch / "task.py"
    script.write_text(
        "import os, sys, time\nprint('TF_CONFIG=' + os.environ['TF_CONFIG'], flush=True)\n"
        "time.sleep(1.5)\nprint('to stderr', file=sys.stderr, flush=True)\nsys.exit(3)\n"
    )
    s.add("worker:1", sys.executable, script, [], {"TF_CONFIG": json.dumps(TF_CONFIG)}, True)
    conf = s.write_conf()
    proc = subprocess.Popen([s.exe, "-c", str(conf)], cwd=scratch, start_new_session=True)
    try:
        end = time.monotonic() + 30
        while time.monotonic() < end and s.state("worker:1")["code"] is None:
            time.sleep(0.1)
        assert s.state("worker:1")["code"] == 3
        files = s.node_files("worker:1")
        assert len(files) == 2 and "-stdout---supervisor-" in files[0]
        assert (run / files[0]).read_text().startswith("TF_CONFIG={")
        assert (run / files[1]).read_text() == "to stderr\n"
        log = (run / sup.MAIN_LOG).read_text()
        assert "spawned: 'tf-worker-1' with pid" in log
        assert "exited: tf-worker-1 (exit status 3; not expected)" in log
        subprocess.run([sup.ctl_path(s.exe), "-c", str(conf), "shutdown"], timeout=30)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


@pytest.mark.parametrize("truth_path", RUNS, ids=lambda p: p.parent.name)
def test_recorded_run_has_supervisord_s_files(truth_path: Path):
    truth = json.loads(truth_path.read_text())
    folder = truth_path.parent
    assert truth["style"] == "tf1_supervisord" and truth["naming"] in sup.NAMINGS
    assert truth["launcher_files"][0] == sup.MAIN_LOG
    log = (folder / sup.MAIN_LOG).read_text()
    assert not (folder / sup.SOCKET).exists()
    started = [n for n in truth["nodes"] if n not in truth["missing_nodes"]]
    for node in started:
        files = truth["node_files"][node]
        names = sorted(p.name for p in folder.iterdir())
        assert files == sup.files_of(truth["naming"], names, node)
        assert f"spawned: '{sup.program(node)}' with pid" in log
        if truth["naming"] == "sup_auto":
            assert len(files) == 2
        text = "".join((folder / f).read_text(errors="replace") for f in files)
        assert "TF_CONFIG=" in text
    for node in truth["missing_nodes"]:
        assert sup.program(node) not in log
