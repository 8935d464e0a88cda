"""The terminal report (rich): verdict first, then nodes, findings, remediation and the ingest.

Readable at 80 columns. Log text and file names are always printed as plain :class:`Text`
(never parsed as rich markup: ``[bold red]`` stays literal), with control characters shown
escaped (``\\x1b[31m``: no escape sequence of a log reaches the terminal), and redacted unless
``redact=False`` (multi-line secrets too: :func:`analyzer.report.redact.for_run`). With ``--no-color`` (or
``NO_COLOR``) and when the output is not a terminal, nothing but plain text is written: no ANSI
codes at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich import box
from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from analyzer.report import common as C
from analyzer.report.common import printable as P
from analyzer.report.redact import NO_REDACTION, for_run
from analyzer.report.redact import redact as _redact

if TYPE_CHECKING:
    from analyzer.ingest import Ingest
    from analyzer.run import Run

#: Longest log excerpt shown in the terminal (the HTML report shows more).
EXCERPT = 300
MAX_NODES = 60
MAX_GROUPS = 60
#: problems (or skipped files) of one kind written out before the rest are named on one line
PER_KIND = 5


def _plain(console: Console) -> Console:
    """``console``, or a twin that writes no escape codes when colour is turned off."""
    if console.no_color and console.color_system is not None:
        return Console(
            file=console.file,
            width=console.width,
            color_system=None,
            highlight=False,
            soft_wrap=console.soft_wrap,
            emoji=False,
            markup=False,
        )
    return console


def _cut(text: str | None, limit: int = EXCERPT) -> str:
    """The first line of ``text`` (at most ``limit`` characters), control characters escaped."""
    lines = (text or "").split("\n")
    text = lines[0] + (f" … (+{len(lines) - 1} lines)" if len(lines) > 1 else "")
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return P(text)


def _indent(text: Text) -> Padding:
    return Padding(text, (0, 0, 0, 2))


def _status(status: str) -> Text:
    return Text(P(status), style=f"bold {C.STATUS_COLORS.get(status, 'white')}")


def _cat(category: str | None) -> Text:
    return Text(P(category or ""), style=C.category_color(category))


def _redactor(run: Run, redact: bool):
    """``R(text)`` for free text, ``R.line(text, file, line_no)`` for a log line."""
    return for_run(run) if redact else NO_REDACTION


def verdict_panel(run: Run, *, redact: bool = True) -> Panel:
    """The verdict card: node, category, time, confidence, summary, evidence."""
    R = _redactor(run, redact)
    rc = run.diagnosis.root_cause
    analyzed = run.ingest.lines_in_timeline > 0
    healthy = rc.category == "none"
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="dim", no_wrap=True)
    facts.add_column(overflow="fold")
    if not analyzed:
        title, border = "Nothing could be analyzed", "yellow"
    elif healthy:
        title, border = "No failure found", C.STATUS_COLORS["ok"]
    else:
        title = f"Root cause: {rc.category}" + (f" on {rc.node}" if rc.node else "")
        border = C.STATUS_COLORS["failed"]
        if rc.node:
            facts.add_row("node", Text(P(rc.node + (f"  {rc.task}" if rc.task else ""))))
        facts.add_row("category", _cat(rc.category))
        if rc.time is not None:
            facts.add_row("time", Text(f"{C.fmt_time(rc.time)} UTC"))
        facts.add_row("confidence", Text(f"{float(rc.confidence or 0):.0%}"))
        if rc.pattern_id:
            facts.add_row("pattern", Text(P(rc.pattern_id)))
    parts: list = [facts] if facts.row_count else []
    summary = (
        P(R(rc.summary))
        if analyzed
        else "No log line made it into the timeline; see the ingest problems below."
    )
    parts.append(Text(summary or "", style="bold"))
    if rc.ambiguity:
        parts.append(Text.assemble(("uncertain: ", "yellow"), P(R(rc.ambiguity))))
    if rc.evidence and analyzed:
        parts.append(Text("Evidence", style="bold underline"))
        for i, e in enumerate(rc.evidence, 1):
            where = f"{e.file}:{e.line_no}" if e.line_no else (e.file or "")
            parts.append(
                Text.assemble(
                    (f"{i}. ", "bold"),
                    (P(e.node or ""), "bold"),
                    f"  {C.fmt_time(e.time, date=False)}  ",
                    (P(where), "dim"),
                )
            )
            text = R.line(e.text or "", e.file, e.line_no)
            parts.append(Padding(Text(_cut(text), style="cyan"), (0, 0, 0, 3)))
            if e.why:
                parts.append(Padding(Text("→ " + P(R(e.why)), style="dim"), (0, 0, 0, 3)))
    return Panel(
        Group(*parts),
        title=Text(title, style="bold"),
        title_align="left",
        border_style=border,
        box=box.ROUNDED,
    )


def nodes_table(run: Run, *, redact: bool = True) -> Table | Text:
    """One row per node: status, files, lines, first error, last line."""
    if not run.diagnosis.nodes:
        return Text("Nodes: none found.", style="dim")
    table = Table(
        title="Nodes",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )
    table.add_column("node", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("files", overflow="fold", max_width=24)
    table.add_column("lines", justify="right", no_wrap=True)
    table.add_column("first error", overflow="fold", min_width=22)
    table.add_column("last line", overflow="fold", min_width=12)
    reports = C.ordered_nodes(run)
    for rep in reports[:MAX_NODES]:
        if rep.first_error_time is not None:
            first = Text(C.fmt_time(rep.first_error_time, date=False))
            if rep.first_error_category:
                first.append("\n")
                first.append_text(_cat(rep.first_error_category))
        else:
            first = Text("—", style="dim")
        last = Text(C.fmt_time(rep.last_time, date=False) if rep.last_time is not None else "—")
        if rep.ending:
            last.append(f"\n{P(rep.ending)}", style="dim")
        name = Text(P(rep.node), style="bold" if rep.node == run.diagnosis.root_cause.node else "")
        table.add_row(
            name,
            _status(rep.status),
            Text(P(", ".join(rep.files)) or "(no log)"),
            Text(f"{rep.lines:,}"),
            first,
            last,
        )
    if len(reports) > MAX_NODES:
        hidden = reports[MAX_NODES:]
        counts = ", ".join(
            f"{n} {s}" for s in C.STATUSES_ORDER if (n := sum(r.status == s for r in hidden))
        )
        table.caption = f"… {len(hidden)} more nodes ({counts})"
    return table


def findings_table(run: Run, *, redact: bool = True) -> Table | Text:
    """Non-benign warnings and errors, counted by category and node."""
    groups = C.finding_groups(run)
    if not groups:
        return Text("Findings: no warning or error matched the pattern library.", style="dim")
    table = Table(
        title="Findings",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )
    table.add_column("category / node", no_wrap=True)
    table.add_column("count", justify="right", no_wrap=True)
    table.add_column("first", no_wrap=True)
    table.add_column("pattern", overflow="fold")
    previous = None
    for g in groups[:MAX_GROUPS]:
        if g.category != previous:
            table.add_row(Text(P(g.category), style=f"bold {C.category_color(g.category)}"))
            previous = g.category
        table.add_row(
            Text("  " + P(g.node)),
            Text(f"{g.count:,}"),
            Text(C.fmt_time(g.first, date=False, ms=False)),
            Text(P(g.pattern_id), style="dim"),
        )
    notes = []
    if len(groups) > MAX_GROUPS:
        notes.append(f"… {len(groups) - MAX_GROUPS} more groups (see --json)")
    info = C.info_count(run)
    if info:
        notes.append(f"{info:,} informational findings not shown")
    if notes:
        table.caption = "; ".join(notes)
    return table


def remediation_panel(run: Run, *, redact: bool = True) -> Panel | None:
    from analyzer.report.jsonout import remediation_for

    rc = run.diagnosis.root_cause
    if rc.category == "none" or run.ingest.lines_in_timeline == 0:
        return None
    advice = remediation_for(run)
    if not advice:
        return None
    text = _redactor(run, redact)(advice)
    return Panel(
        Text(P(text)),
        title=Text("What to do", style="bold"),
        title_align="left",
        border_style="green",
        box=box.ROUNDED,
    )


def _assumptions(ingest: Ingest) -> dict[str, list[str]]:
    """What the ingest assumed for times (zone, year), each distinct note once."""
    out: dict[str, list[str]] = {}
    for f in ingest.files:
        for key, note in f.notes.items():
            label = {"tz": "zone", "year": "year"}.get(key, key)
            if note not in out.setdefault(label, []):
                out[label].append(note)
    return out


def print_ingest(ingest: Ingest, console: Console, *, redact: bool = True) -> None:
    """Files, lines, formats and every problem met while reading."""
    console = _plain(console)
    R = _redact if redact else (lambda s: s)
    console.print(
        Text.assemble(
            ("Ingest", "bold"),
            f": {len(ingest.files):,} files, {ingest.lines_read:,} lines read = "
            f"{ingest.lines_in_timeline:,} in the timeline + {ingest.lines_rejected:,} rejected",
        )
    )
    formats = ", ".join(
        f"{k} {v:,}" for k, v in sorted(ingest.formats().items(), key=lambda kv: -kv[1])
    )
    if formats:
        console.print(_indent(Text(f"formats: {formats}", style="dim")))
    for what, values in _assumptions(ingest).items():
        console.print(_indent(Text(P(f"assumed {what}: {'; '.join(values)}"), style="dim")))
    rejected = ingest.to_dict().get("rejected_reasons") or {}
    if rejected:
        console.print(
            _indent(
                Text(
                    P("rejected: " + ", ".join(f"{k} {v:,}" for k, v in rejected.items())),
                    style="dim",
                )
            )
        )
    for label, style, items in (
        ("problem", "yellow", ingest.problems),
        ("skipped", "dim", ingest.skipped),
    ):
        for kind in C.by_kind(items, lambda p: p.problem):
            for p in kind[:PER_KIND]:
                console.print(
                    _indent(Text.assemble((label, style), P(f" {p.file}: {R(p.problem)}")))
                )
            if len(kind) > PER_KIND:
                rest = kind[PER_KIND:]
                names = ", ".join(p.file for p in rest)
                console.print(
                    _indent(
                        Text.assemble(
                            (label, style),
                            P(f" the same for {len(rest):,} more file{'s' * (len(rest) > 1)}: "),
                            P(names),
                        )
                    )
                )


def print_report(run: Run, console: Console, *, redact: bool = True) -> None:
    """The whole terminal report for ``tfdiag analyze``."""
    console = _plain(console)
    console.print(verdict_panel(run, redact=redact))
    console.print()
    console.print(nodes_table(run, redact=redact))
    console.print()
    console.print(findings_table(run, redact=redact))
    panel = remediation_panel(run, redact=redact)
    if panel is not None:
        console.print()
        console.print(panel)
    print_progress(run, console)
    if run.comparison is not None:
        console.print()
        print_comparison(run.comparison, console, redact=redact)
    console.print()
    print_ingest(run.ingest, console, redact=redact)
    R = _redactor(run, redact)
    for note in run.diagnosis.consistency:
        console.print(_indent(Text.assemble(("consistency", "magenta"), P(f" {R(note)}"))))
    for warning in dict.fromkeys([*run.problems, *getattr(run.rules, "warnings", [])]):
        console.print(_indent(Text.assemble(("warning", "yellow"), P(f" {R(warning)}"))))


# -- progress and comparison with a baseline ----------------------------------------------------


def print_progress(run: Run, console: Console) -> None:
    """A few lines: per node, the steps it reported, its last step and its pace."""
    from analyzer.progress import summary_lines

    rows = summary_lines(run.progress)
    if not rows:
        return
    console = _plain(console)
    console.print()
    console.print(Text("Progress", style="bold"))
    for r in rows[:MAX_NODES]:
        console.print(_indent(Text(P(r), style="")))
    if len(rows) > MAX_NODES:
        console.print(_indent(Text(f"… {len(rows) - MAX_NODES} more nodes", style="dim")))


def print_comparison(comparison, console: Console, *, redact: bool = True) -> None:
    """The differences from a good run (``tfdiag diff``, ``analyze --baseline``)."""
    console = _plain(console)
    R = _redact if redact else (lambda s: s)
    console.print(
        Text.assemble(
            ("Compared with the baseline", "bold"),
            P(
                f" {comparison.baseline}: {comparison.node_count[1]} node(s) here, "
                f"{comparison.node_count[0]} there"
            ),
        )
    )
    lines = comparison.lines()
    if not lines:
        console.print(_indent(Text("no difference found", style="dim")))
    for line in lines:
        style = "green" if line.lstrip().startswith("+") else ""
        style = "red" if line.lstrip().startswith("-") else style
        console.print(_indent(Text(_cut(R(line)), style=style)))
