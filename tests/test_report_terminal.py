"""The terminal report: verdict first, readable at 80 columns, plain when asked, redacted."""

from __future__ import annotations

import io
import re

import pytest
from conftest import sample_folders
from report_samples import SECRETS, write_hostile_logs
from rich.console import Console

import analyzer
from analyzer.cli import main
from analyzer.report.terminal import print_ingest, print_report

FOLDERS = sample_folders()
ANSI = re.compile(r"\x1b\[")


def render(run, *, width=80, redact=True, **console_kw) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, **console_kw)
    print_report(run, console, redact=redact)
    return buf.getvalue()


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    return analyzer.load(write_hostile_logs(tmp_path_factory.mktemp("hostile")))


def test_verdict_first_then_sections(hostile_run):
    out = render(hostile_run)
    rc = hostile_run.root_cause
    first = out.splitlines()[0]
    assert f"Root cause: {rc.category} on {rc.node}" in first
    order = [
        out.index("confidence"),
        out.index("Evidence"),
        out.index("Nodes"),
        out.index("Findings"),
        out.index("What to do"),
        out.index("Ingest"),
    ]
    assert order == sorted(order)
    for status in ("failed", "victim", "silent"):
        assert status in out
    assert "connection_unavailable" in out


def test_fits_80_columns_without_ansi(hostile_run):
    out = render(hostile_run, width=80, force_terminal=False)
    assert not ANSI.search(out)
    assert max(len(line) for line in out.splitlines()) <= 80


def test_no_color_on_a_terminal_is_plain(hostile_run):
    colored = render(hostile_run, force_terminal=True, color_system="truecolor")
    assert ANSI.search(colored)  # sanity: a terminal does get colours
    plain = render(hostile_run, force_terminal=True, color_system="truecolor", no_color=True)
    assert not ANSI.search(plain)
    assert plain.splitlines()[0] == render(hostile_run).splitlines()[0]


def test_log_text_is_never_markup(hostile_run):
    out = render(hostile_run, width=200)
    # rich markup in logs is printed as is (and does not crash the report)
    assert "[bold red]rich markup[/bold red]" in out or "<script>alert(1)</script>" in out


def test_every_ingest_problem_is_listed(hostile_run):
    buf = io.StringIO()
    print_ingest(hostile_run.ingest, Console(file=buf, width=80))
    out = buf.getvalue()
    for p in hostile_run.ingest.problems:
        assert p.file in out
        assert p.problem[:30] in out.replace("\n  ", " ")
    assert "lines read" in out


def test_redaction(hostile_run):
    out = render(hostile_run, width=400)
    for secret in SECRETS.values():
        assert secret not in out
    assert "[REDACTED]" in out
    raw = render(hostile_run, width=400, redact=False)
    assert SECRETS["url_password"] in raw


def test_cli_no_color(tmp_path, capsys, monkeypatch):
    folder = write_hostile_logs(tmp_path / "logs")
    # The progress bar (cli.py) draws with cursor codes on a terminal; only the report is tested.
    monkeypatch.setattr("analyzer.cli._progress", lambda console: (None, None))
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert main(["analyze", str(folder)]) == 1
    assert ANSI.search(capsys.readouterr().out)
    assert main(["analyze", str(folder), "--no-color"]) == 1
    out = capsys.readouterr().out
    assert not ANSI.search(out)
    assert "Root cause: node_crash on ps:0" in out
    for secret in SECRETS.values():
        assert secret not in out


def test_cli_not_a_tty_is_plain(tmp_path, capsys, monkeypatch):
    folder = write_hostile_logs(tmp_path / "logs")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    main(["analyze", str(folder), "--no-redact"])
    out = capsys.readouterr().out
    assert not ANSI.search(out)
    assert SECRETS["cli_password"] in out


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_every_sample_folder(folder):
    run = analyzer.load(folder)
    out = render(run)
    rc = run.root_cause
    assert ("No failure found" if rc.category == "none" else rc.category) in out.splitlines()[0]
    assert max(len(line) for line in out.splitlines()) <= 80
    for node in run.diagnosis.nodes:
        assert node.node in out


def test_many_problems_of_one_kind_are_listed_once_and_every_file_named(tmp_path):
    """Thirty copies of one worker's log (each says it is worker 1; their names say 0..29): the
    terminal writes a few of the problems out and names the other files on one line."""
    src = next(f for f in FOLDERS if f.name == "ps_killed")
    for name in ("chief.log", "ps-0.log"):
        (tmp_path / name).write_bytes((src / name).read_bytes())
    for i in range(30):
        (tmp_path / f"worker-{i}.log").write_bytes((src / "worker-1.log").read_bytes())
    run = analyzer.load(tmp_path)
    kind = [p for p in run.ingest.problems if "as another log's do" in p.problem]
    assert len(kind) >= 20
    buf = io.StringIO()
    print_ingest(run.ingest, Console(file=buf, width=200))
    out = buf.getvalue()
    written = [line for line in out.splitlines() if "as another log's do" in line]
    assert len(written) == 5
    assert f"the same for {len(kind) - 5:,} more files: " in out
    for p in kind:
        assert p.file in out
    assert len(out.splitlines()) < len(kind)


def test_long_lists_of_names_are_cut():
    from analyzer.diagnose.common import NAMES_SHOWN, _names

    few = [f"worker:{i}" for i in range(NAMES_SHOWN)]
    assert _names(few) == ", ".join(few)
    many = [f"worker:{i}" for i in range(5000)]
    said = _names(many)
    assert said.startswith("worker:0, worker:1,")
    assert said.endswith(f"and {5000 - NAMES_SHOWN:,} more")
    assert "worker:4999" not in said
