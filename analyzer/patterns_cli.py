"""``tfdiag patterns``: list, show and test the pattern library.

The main CLI mounts :data:`app` with ``app.add_typer(app, name="patterns")``. Importing this
module is cheap: pandas / pyarrow / the ingest are imported inside the commands that need them.
The plain functions (:func:`list_patterns`, :func:`show_pattern`, :func:`test_patterns`) return
an exit code and print through a :class:`rich.console.Console`, so they are easy to test.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="List, show and test the pattern library.",
)

_SEVERITY_STYLE = {"info": "dim", "warning": "yellow", "error": "red", "fatal": "bold red"}


def _load(extra_dirs: list[Path], console: Console):
    from analyzer.rules import RuleError, load_rules

    try:
        return load_rules(extra_dirs=extra_dirs)
    except RuleError as exc:
        console.print(Text.from_markup("[red]invalid pattern:[/red] ") + Text(str(exc)))
        return None


def coverage_counts(rules, log_dirs: list[Path]) -> tuple[Counter, list[str]]:
    """How often each rule fired on the logs under ``log_dirs`` (needs the ingest)."""
    from analyzer.classify import classify
    from analyzer.ingest import ingest
    from analyzer.timeline import to_pandas

    counts: Counter = Counter()
    problems: list[str] = []
    runs: list[Path] = []
    for d in log_dirs:
        # a folder of scenarios (sample_logs/) is analyzed one scenario at a time
        scenarios = sorted(p.parent for p in Path(d).glob("*/truth.json"))
        runs.extend(scenarios or [Path(d)])
    for d in runs:
        result = ingest([d])
        events = to_pandas(result.timeline)
        res = classify(events, rules)
        counts.update(res.findings["pattern_id"].tolist())
        problems.extend(res.problems)
    return counts, problems


def list_patterns(
    console: Console,
    extra_dirs: list[Path] = (),  # type: ignore[assignment]
    coverage: list[Path] | None = None,
    category: str | None = None,
) -> int:
    rules = _load(list(extra_dirs), console)
    if rules is None:
        return 1
    counts: Counter | None = None
    if coverage:
        try:
            counts, problems = coverage_counts(rules, coverage)
        except ImportError as exc:  # pragma: no cover - the ingest is part of the package
            console.print(f"[yellow]--coverage needs the ingest: {exc}[/yellow]")
            counts, problems = None, []
        for p in problems:
            console.print(Text(p, style="yellow"))
    table = Table(title=f"{len(rules)} patterns", show_lines=False)
    table.add_column("id", style="cyan", no_wrap=True)
    if counts is not None:
        table.add_column("hits", justify="right", no_wrap=True, min_width=5)
    table.add_column("category", no_wrap=True)
    table.add_column("severity", no_wrap=True)
    table.add_column("title", no_wrap=True, overflow="ellipsis", max_width=50)
    shown = 0
    for r in sorted(rules, key=lambda r: r.id):
        if category and r.category != category:
            continue
        shown += 1
        sev = f"[{_SEVERITY_STYLE.get(r.severity, '')}]{r.severity}[/]"
        if r.benign:
            sev += " (benign)"
        row = [Text(r.id), r.category, sev, Text(r.title)]
        if counts is not None:
            row.insert(1, str(counts.get(r.id, 0)))
        table.add_row(*row)
    console.print(table)
    if counts is not None:
        fired = sum(1 for r in rules if counts.get(r.id))
        console.print(f"{fired}/{len(rules)} patterns fired on {', '.join(map(str, coverage))}")
    if category and not shown:
        console.print(f"[yellow]no pattern has category {category!r}[/yellow]")
    return 0


def show_pattern(console: Console, rule_id: str, extra_dirs: list[Path] = ()) -> int:  # type: ignore[assignment]
    rules = _load(list(extra_dirs), console)
    if rules is None:
        return 1
    r = rules.get(rule_id)
    if r is None:
        close = [x.id for x in rules if rule_id in x.id]
        hint = f" (did you mean: {', '.join(close[:5])})" if close else ""
        console.print(f"[red]no pattern {rule_id!r}[/red]{hint}")
        return 1
    table = Table(show_header=False, title=r.id, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")

    def row(name: str, value: str) -> None:
        table.add_row(name, Text(value))

    row("title", r.title)
    row("category", r.category)
    row("severity", r.severity + (" (benign)" if r.benign else ""))
    row("priority", str(r.priority))
    row("match", r.match)
    row("fields", ", ".join(r.fields))
    for name in ("level", "format"):
        value = getattr(r, name)
        if value:
            row(name, ", ".join(value))
    if r.source:
        row("source", r.source)
    row("blames", r.blames or "-")
    kw = ", ".join(r.keywords) if r.keywords else "(none: tried on every line)"
    row("keywords", kw + (" (derived)" if r.keywords_derived else ""))
    row("remediation", " ".join(r.remediation.split()) or "-")
    row("references", "\n".join(r.references) or "-")
    row("file", r.file)
    console.print(table)
    for ex in r.examples:
        mark = "[green]match[/green]" if ex.expect == "match" else "[dim]no_match[/dim]"
        console.print(Text.from_markup(mark + ": ") + Text(ex.line))
        if ex.detail:
            console.print(Text("    detail: " + ex.detail))
        if ex.captures:
            console.print(Text(f"    captures: {ex.captures}"))
        if ex.source:
            console.print(Text("    source: " + ex.source))
    return 0


def test_patterns(console: Console, extra_dirs: list[Path] = ()) -> int:  # type: ignore[assignment]
    """Validate every rule and check every example; 0 when all pass, 1 otherwise."""
    from analyzer.rules import run_examples

    rules = _load(list(extra_dirs), console)
    if rules is None:
        return 1
    for w in rules.warnings:
        console.print(Text.from_markup("[yellow]warning:[/yellow] ") + Text(w))
    failures = run_examples(rules)
    n_examples = sum(len(r.examples) for r in rules)
    no_examples = [r.id for r in rules if not any(e.expect == "match" for e in r.examples)]
    for rid in no_examples:
        console.print(f"[yellow]warning:[/yellow] pattern {rid} has no match example")
    if failures:
        table = Table(title=f"{len(failures)} failing example(s)", show_lines=True)
        table.add_column("pattern", style="cyan", no_wrap=True)
        table.add_column("problem", overflow="fold")
        table.add_column("line", overflow="fold")
        for f in failures:
            table.add_row(Text(f.rule_id), Text(f.problem), Text(f.line))
        console.print(table)
        console.print(f"[red]{len(failures)} failed[/red], {n_examples - len(failures)} passed")
        return 1
    cats = Counter(r.category for r in rules)
    console.print(
        f"[green]{len(rules)} patterns, {n_examples} examples: all pass[/green] "
        f"({len(cats)} categories)"
    )
    return 0


# ------------------------------------------------------------------------- typer commands

_DirsOpt = Annotated[
    list[Path] | None,
    typer.Option("--patterns", help="Extra folder of pattern YAML files (repeatable)."),
]


@app.command("list")
def list_cmd(
    patterns: _DirsOpt = None,
    coverage: Annotated[
        list[Path] | None,
        typer.Option("--coverage", help="Log folder: count how often each pattern fires."),
    ] = None,
    category: Annotated[str | None, typer.Option(help="Only this category.")] = None,
) -> None:
    """List the patterns (id, category, severity, title)."""
    raise typer.Exit(list_patterns(Console(), patterns or [], coverage, category))


@app.command("show")
def show_cmd(
    rule_id: Annotated[str, typer.Argument(help="Pattern id.")], patterns: _DirsOpt = None
):
    """Show one pattern: regex, keywords, remediation, references and examples."""
    raise typer.Exit(show_pattern(Console(), rule_id, patterns or []))


@app.command("test")
def test_cmd(
    dirs: Annotated[
        list[Path] | None, typer.Argument(help="Extra pattern folders to validate and test.")
    ] = None,
) -> None:
    """Validate every pattern and run every example; exit 1 on any failure."""
    raise typer.Exit(test_patterns(Console(), dirs or []))
