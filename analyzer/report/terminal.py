"""The terminal report (rich): verdict first, then nodes, findings and the ingest account."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from analyzer.ingest import Ingest
    from analyzer.run import Run


def print_ingest(ingest: Ingest, console: Console) -> None:
    """Files, lines, formats and every problem met while reading."""
    console.print(
        f"[bold]Ingest[/]: {len(ingest.files)} files, {ingest.lines_read:,} lines read = "
        f"{ingest.lines_in_timeline:,} in the timeline + {ingest.lines_rejected:,} rejected"
    )
    formats = ", ".join(
        f"{k} {v:,}" for k, v in sorted(ingest.formats().items(), key=lambda kv: -kv[1])
    )
    if formats:
        console.print(f"  formats: {formats}")
    for p in ingest.problems:
        console.print(f"  [yellow]problem[/] {p.file}: {p.problem}", markup=True, highlight=False)
    for p in ingest.skipped:
        console.print(f"  skipped {p.file}: {p.problem}", markup=False)


def print_nodes(ingest: Ingest, console: Console) -> None:
    """One row per node: id, identity source, files, lines."""
    table = Table(title="Nodes", title_justify="left")
    for col in ("node", "files", "lines", "identified by"):
        table.add_column(col)
    for info in sorted(ingest.nodes.values(), key=lambda n: n.node):
        table.add_row(
            info.node, ", ".join(info.files) or "(no log)", f"{info.lines:,}", info.identity
        )
    console.print(table)


def print_report(run: Run, console: Console, *, redact: bool = True) -> None:
    """The whole terminal report for ``tfdiag analyze``."""
    print_nodes(run.ingest, console)
    print_ingest(run.ingest, console)
