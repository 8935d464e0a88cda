"""The pss_systemd style's journal writers (analyzer/lab/systemd.py): journald's stdout stream,
journalctl's short outputs, rsyslog's traditional file, the merged file's order, the file
layout and PID 1's lines. No TensorFlow, no /etc/hosts line needed."""

from __future__ import annotations

import calendar
import json
import re
import signal
from pathlib import Path

import pytest

from analyzer.lab import systemd as sd

# 2026-11-04 07:05:09.012345 UTC: a one-digit day shows the zero-padding (journalctl) and the
# space-padding (rsyslog's RFC 3164 stamp)
US = calendar.timegm((2026, 11, 4, 7, 5, 9)) * 1_000_000 + 12345


def test_journald_stream_lines():
    assert sd.stream_messages(b"  step 3 loss 0.1 \t\r\n") == [b"  step 3 loss 0.1"]
    assert sd.stream_messages(b"\n") == []
    assert sd.stream_messages(b"a\0b\n") == [b"a", b"b"]
    assert sd.stream_messages(b"<3>boom\n") == [b"boom"]
    assert sd.stream_messages(b"x" * 10 + b"\n", line_max=4) == [b"xxxx", b"xxxx", b"xx"]
    assert sd.stream_messages(b"last bytes") == [b"last bytes"]  # the EOF line break


@pytest.mark.parametrize(
    ("mode", "stamp"),
    [
        ("short", "Nov 04 07:05:09"),
        ("short-precise", "Nov 04 07:05:09.012345"),
        ("short-iso", "2026-11-04T07:05:09+00:00"),
    ],
)
def test_a_journal_line_in_each_output_mode(mode, stamp):
    line = sd.journal_line(mode, US, "tfhost-1", "python3", 4242, b"step 3 loss 0.1")
    assert line == f"{stamp} tfhost-1 python3[4242]: step 3 loss 0.1"


def test_journalctl_strips_tabs_and_colors_and_shows_blobs():
    assert sd.short_message(b"a\tb") == "a" + " " * 8 + "b"
    assert sd.short_message(b"\x1b[31mred\x1b[0m done\r") == "red done"
    assert sd.short_message(b"bell\x07 here") == "[10B blob data]"
    assert sd.short_message(b"\xff\xfe") == "[2B blob data]"
    assert sd.short_message("naïve ✓".encode()) == "naïve ✓"
    assert [sd.format_bytes(n) for n in (100, 1024, 1536, 1048576)] == [
        "100B",
        "1.0K",
        "1.5K",
        "1.0M",
    ]


def test_rsyslog_traditional_line():
    line = sd.syslog_line(US, "tfhost-3", "python3", 77, b"a\tb")
    assert line == "Nov  4 07:05:09 tfhost-3 python3[77]: a#011b"
    assert sd.syslog_line(US, "h", "systemd", 1, b" x").endswith("systemd[1]: x")


def _entry(us, node, msg, seq, raw=None, ident="python3", pid=10):
    return {
        "us": us,
        "seq": seq,
        "node": node,
        "host": sd.HOSTS[node],
        "ident": ident,
        "pid": pid,
        "msg": msg,
        "raw": raw,
    }


def test_merged_file_interleaves_hosts_by_time_and_per_host_files_split():
    entries = [
        _entry(US + 30, "chief:0", b"third", 1),
        _entry(US + 10, "ps:0", b"first", 2),
        _entry(US + 20, "worker:1", b"second", 3),
        _entry(US + 20, "ps:0", b"second too", 4),
    ]
    merged = sd.render("journal_merged", entries)
    assert list(merged) == ["journal-all.log"]
    lines = [x for x, _ in merged["journal-all.log"]]
    assert [x.split(": ", 1)[1] for x in lines] == ["first", "second", "second too", "third"]
    assert [x.split()[3] for x in lines] == ["tfhost-1", "tfhost-4", "tfhost-1", "tfhost-0"]
    assert list(sd.render("syslog_merged", entries)) == ["syslog"]
    per_host = sd.render("journal_short", entries)
    assert sorted(per_host) == [
        "tfhost-0/journal.log",
        "tfhost-1/journal.log",
        "tfhost-4/journal.log",
    ]
    assert [x.split(": ", 1)[1] for x, _ in per_host["tfhost-1/journal.log"]] == [
        "first",
        "second too",
    ]
    assert sorted(sd.render("journal_precise", entries)) == [
        "tfhost-0/tf-chief.service.log",
        "tfhost-1/tf-ps@0.service.log",
        "tfhost-4/tf-worker@1.service.log",
    ]
    iso = sd.render("journal_iso", entries)["tfhost-0/journal.log"][0][0]
    assert re.match(r"^2026-11-04T07:05:09\+00:00 tfhost-0 python3\[10\]: third$", iso)


class _Popen:
    def __init__(self, pid, code):
        self.pid, self.returncode = pid, code

    def poll(self):
        return self.returncode


class _Proc:
    def __init__(self, pid, code):
        self.popen = _Popen(pid, code)


def _pid1_lines(j):
    return [e["msg"].decode() for e in j.entries if e["ident"] == "systemd"]


def test_pid1_lines_for_each_ending(tmp_path):
    j = sd.Journald(tmp_path, "journal_short", list(sd.HOSTS))
    j.unit_started("worker:1", "/venv/bin/python3")
    j._exited("worker:1", -signal.SIGKILL)
    j._exited("chief:0", 1)
    j._exited("ps:0", 0)
    j.stopping.add("ps:1")
    j._exited("ps:1", -signal.SIGTERM)
    j.stopping.add("worker:0")
    j.timed_out.add("worker:0")
    j._exited("worker:0", -signal.SIGKILL)
    assert _pid1_lines(j) == [
        "Started tf-worker@1.service - TensorFlow worker 1.",
        "tf-worker@1.service: Main process exited, code=killed, status=9/KILL",
        "tf-worker@1.service: Failed with result 'signal'.",
        "tf-chief.service: Main process exited, code=exited, status=1/FAILURE",
        "tf-chief.service: Failed with result 'exit-code'.",
        "tf-ps@0.service: Deactivated successfully.",
        "tf-ps@1.service: Deactivated successfully.",
        "Stopped tf-ps@1.service - TensorFlow parameter server 1.",
        "tf-worker@0.service: Main process exited, code=killed, status=9/KILL",
        "tf-worker@0.service: Failed with result 'timeout'.",
        "Stopped tf-worker@0.service - TensorFlow worker 0.",
    ]
    assert j.ident["worker:1"] == "python3"


def test_finish_writes_the_files_and_points_the_evidence_at_them(tmp_path):
    nodes = list(sd.HOSTS)
    j = sd.Journald(tmp_path, "journal_short_unit", nodes)
    j.procs = {n: _Proc(100 + i, 0) for i, n in enumerate(nodes)}
    for n in nodes:
        j.unit_started(n, "/venv/bin/python3")
    j.tee("chief:0", b"TF_CONFIG={}\n")
    j.tee("chief:0", b"\n")  # an empty line: journald drops it
    j.tee("chief:0", b"training finished after 60 steps\n")
    j.tee("ps:0", b"ps 0 server started\n")
    raw = tmp_path / sd.raw_name("chief:0")
    raw.parent.mkdir(parents=True)
    raw.write_text("TF_CONFIG={}\n\ntraining finished after 60 steps\n")
    truth = {
        "nodes": nodes,
        "notes": "",
        "exit_codes": {},
        "node_files": {n: [sd.raw_name(n)] for n in nodes if n != "worker:1"} | {"worker:1": []},
        "evidence": [{"node": "chief:0", "line_no": 3, "text": "training finished after 60 steps"}],
    }
    j.finish(truth)
    chief = tmp_path / "tfhost-0" / "tf-chief.service.log"
    lines = chief.read_text().splitlines()
    assert lines[0].endswith("systemd[1]: Started tf-chief.service - TensorFlow chief.")
    assert lines[-1].endswith("python3[100]: training finished after 60 steps")
    assert len(lines) == 3  # the empty line is not in the journal
    ev = truth["evidence"][0]
    assert (ev["file"], ev["line_no"]) == ("tfhost-0/tf-chief.service.log", 3)
    assert truth["node_files"]["chief:0"] == ["tfhost-0/tf-chief.service.log"]
    assert truth["node_files"]["worker:1"] == []
    assert not (tmp_path / sd.RAW_DIR).exists()
    assert json.dumps(truth["systemd"])  # serialisable
    assert Path(tmp_path / "tfhost-1" / "tf-ps@0.service.log").exists()


def test_restart_on_failure_schedules_and_starts_the_unit_again(tmp_path, monkeypatch):
    monkeypatch.setattr(sd, "RESTART_SEC", 0.0)
    j = sd.Journald(tmp_path, "journal_merged", list(sd.HOSTS), restart=True)
    started = []

    def restarter(node, raw):
        started.append((node, raw))
        j.unit_started(node, "/venv/bin/python3")

    j.restarter = restarter
    j._exited("ps:0", -signal.SIGKILL)
    for _ in range(200):
        if not j.restart_due():
            break
        __import__("time").sleep(0.01)
    assert started == [("ps:0", sd.raw_name("ps:0", 1))]
    assert sd.raw_run(sd.raw_name("ps:0", 1)) == 1 and sd.raw_run(sd.raw_name("ps:0")) == 0
    assert _pid1_lines(j)[-2:] == [
        "tf-ps@0.service: Scheduled restart job, restart counter is at 1.",
        "Started tf-ps@0.service - TensorFlow parameter server 0.",
    ]
    j._exited("worker:0", 0)  # a clean exit is not restarted
    j.job_event("time_limit")
    j._exited("chief:0", 1)  # the job is being ended: no restart either
    assert not j.restart_due() and j.restarts == {n: int(n == "ps:0") for n in sd.HOSTS}
