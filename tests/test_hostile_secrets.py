"""Hostile corpus: secrets printed over several lines, and log text that would drive a terminal.

The job of :mod:`secret_samples` goes through ``tfdiag analyze`` as a user runs it (a subprocess,
stdout captured, with and without forced colour) and through the notebook API. No report -- the
terminal, the JSON, the HTML -- may contain any part of any secret; the same run with
``--no-redact`` shows them (so the absence is not an accident of what the views show). Control
sequences in log text reach the terminal only escaped; rich markup in log text stays literal.
The same check runs in headless Chromium in ``test_browser.py``.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from rich.console import Console
from secret_samples import (
    COLOURED_TEXT,
    ESCAPED,
    FILLER,
    MARKUP,
    RAW_CONTROLS,
    SHOWN,
    multi_line_secret,
    stamp,
    write_secret_logs,
)

import analyzer
from analyzer.report.html import render
from analyzer.report.redact import for_run
from analyzer.report.terminal import print_report


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    return write_secret_logs(tmp_path_factory.mktemp("secrets") / "logs")


def tfdiag(*args: str, color: bool = False, tmp=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["COLUMNS"] = "120"
    if color:
        env["FORCE_COLOR"] = "1"
        env["TERM"] = "xterm-256color"
    return subprocess.run(
        [sys.executable, "-m", "analyzer", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def outputs(job, tmp_path_factory):
    """stdout, JSON and HTML of ``tfdiag analyze``, redacted and not, with colour and without."""
    folder, _ = job
    out = tmp_path_factory.mktemp("out")
    result = {}
    for redact in (True, False):
        flags = [] if redact else ["--no-redact"]
        j, h = out / f"r{redact}.json", out / f"r{redact}.html"
        plain = tfdiag("analyze", str(folder), *flags, "--json", str(j), "--html", str(h))
        assert plain.returncode == 1, plain.stderr
        color = tfdiag("analyze", str(folder), *flags, color=True)
        assert color.returncode == 1, color.stderr
        result[redact] = {
            "terminal": plain.stdout,
            "terminal (colour)": color.stdout,
            "json": j.read_text(encoding="utf-8"),
            "html": h.read_text(encoding="utf-8"),
        }
    return result


def test_the_job_is_diagnosed(outputs):
    assert "Root cause: node_crash on ps:0" in outputs[True]["terminal"]
    assert "\x1b[" in outputs[True]["terminal (colour)"]  # sanity: colour was forced
    assert "\x1b[" not in outputs[True]["terminal"]


def test_no_view_shows_any_part_of_a_secret(job, outputs):
    _, secrets = job
    for view, text in outputs[True].items():
        for kind, parts in secrets.items():
            shown = [p for p in parts if p in text]
            assert not shown, f"{view} shows {kind}: {shown}"


def test_without_redaction_the_secrets_are_in_the_views(job, outputs):
    """Positive control: the views do show these lines; redaction is what hides them."""
    _, secrets = job
    html = outputs[False]["html"]
    for kind in SHOWN:
        assert any(p in html for p in secrets[kind]), kind
    # the ps's last line (a short key-body line) is the verdict's evidence, shown alone
    tail = secrets["openssh_pem_cut"][-1]
    assert tail in outputs[False]["terminal"]
    assert tail in outputs[False]["json"]


def test_a_line_shown_alone_is_redacted_by_its_neighbours(outputs, job):
    """JSON evidence ``text`` is one line; it lies inside a key whose BEGIN is lines away."""
    _, secrets = job
    tail = secrets["openssh_pem_cut"][-1]
    assert len(tail) < 40  # too short to be called a key on its own
    for redact in (True, False):
        evidence = json.loads(outputs[redact]["json"])["root_cause"]["evidence"][0]
        assert evidence["file"] == "ps-0.log"
        assert evidence["text"] == ("[REDACTED]" if redact else tail)


@pytest.mark.parametrize("view", ["terminal", "terminal (colour)"])
@pytest.mark.parametrize("redact", [True, False])
def test_terminal_gets_no_raw_control_sequence(outputs, view, redact):
    text = outputs[redact][view]
    for raw in RAW_CONTROLS:
        assert raw not in text, repr(raw)
    for escaped in ESCAPED:
        assert escaped in text
    assert COLOURED_TEXT in text and "x1b[31m" not in text
    assert MARKUP.split(" [link")[0] in text  # ``[bold red]...[/bold red]`` literally


def test_rich_console_at_terminal_size(job):
    """In-process, a colour terminal 100 columns wide: same guarantees."""
    run = analyzer.load(job[0])
    buf = io.StringIO()
    console = Console(file=buf, width=100, force_terminal=True, color_system="truecolor")
    print_report(run, console)
    out = buf.getvalue()
    for raw in RAW_CONTROLS:
        assert raw not in out, repr(raw)
    assert COLOURED_TEXT in out and "x1b[31m" not in out
    assert "[bold red]rich-markup[/bold red]" in out
    for kind, parts in job[1].items():
        assert not [p for p in parts if p in out], kind


def test_notebook_views(job):
    """The notebook API: to_html, to_json, the summary card."""
    run = analyzer.load(job[0])
    views = {"html": run.to_html(), "json": run.to_json(), "card": run._repr_html_()}
    for view, text in views.items():
        for kind, parts in job[1].items():
            assert not [p for p in parts if p in text], (view, kind)
    raw = render(run, redact=False)
    assert all(any(p in raw for p in job[1][k]) for k in SHOWN)


# -- property: a secret across line breaks, anywhere among random lines ----------------------


# (no shrinking: one example runs the whole pipeline; a failure is reported as found)
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(
    before=st.lists(FILLER, max_size=6),
    after=st.lists(FILLER, max_size=4),
    secret=multi_line_secret(),
    prefix=st.sampled_from(["", "2026-01-01T00:00:00.000000000Z stdout F "]),
)
def test_property_no_view_contains_the_secret(tmp_path_factory, before, after, secret, prefix):
    """Random lines, a secret across line breaks, then a gRPC error: no view shows the secret."""
    lines, parts = secret
    folder = tmp_path_factory.mktemp("prop")
    body = [f"{stamp(0)}: I tensorflow/core/x.cc:1] start", *before, *lines, *after]
    body += [
        f"{stamp(5)}: E tensorflow/core/x.cc:1] UnavailableError: Socket closed",
        f"{stamp(6)}: E tensorflow/core/x.cc:1] Socket closed",
    ]
    (folder / "worker-0.log").write_text("\n".join(prefix + b for b in body) + "\n")
    (folder / "worker-1.log").write_text(f"{stamp(0)}: I tensorflow/core/x.cc:1] start\n")
    run = analyzer.load(folder)
    buf = io.StringIO()
    print_report(run, Console(file=buf, width=200, force_terminal=True))
    views = {"terminal": buf.getvalue(), "json": run.to_json(), "html": run.to_html()}
    # and every line of the timeline as any view could show it: alone, by file and number
    R = for_run(run)
    tl = run.timeline
    alone = [R.line(t, f, n) for t, f, n in zip(tl["raw"], tl["file"], tl["line_no"], strict=True)]
    views["each line alone"] = "\n".join(alone)
    assert all(any(p in t for t in tl["raw"]) for p in parts)  # the input has them
    for view, text in views.items():
        assert not [p for p in parts if p in text], view


def test_progress_bar_shows_a_hostile_file_name_escaped():
    """``tfdiag analyze`` on a terminal names the file it reads: a name is not markup or codes."""
    from analyzer.cli import _progress

    buf = io.StringIO()
    bar, update = _progress(Console(file=buf, force_terminal=True, width=120))
    with bar:
        update(1, 2, "[bold red]x[/bold red]\x1b]0;pwned\x07.log")
        bar.refresh()
    out = buf.getvalue()
    assert "\x1b]0;pwned" not in out and "\x07" not in out
    assert "\\x1b]0;pwned\\x07.log" in out and "[bold red]x[/bold red]" in out
