"""The HTML report: one self-contained file, safe to open and to pass around.

- Nothing is loaded from anywhere: CSS is inline, figures are ``data:`` SVG images, no fonts,
  no scripts; a strict Content-Security-Policy (:data:`CSP`) makes the browser enforce it.
- Built from ``templates/report.html.j2`` (shipped inside the package) with autoescaping on:
  every piece of log text, node id and file name is escaped.
- Log text is redacted (:mod:`analyzer.report.redact`) unless ``redact=False``; a line shown in
  a context view is redacted knowing its neighbours (multi-line secrets: :func:`for_run`).
- Bounded work whatever the run's size: figures plot a thinned sample, tables are capped.
"""

from __future__ import annotations

import math
from functools import cache
from typing import TYPE_CHECKING, Any

from analyzer import __version__
from analyzer.report import common as C
from analyzer.report.redact import NO_REDACTION, for_run

if TYPE_CHECKING:
    import jinja2

    from analyzer.model import NodeReport
    from analyzer.run import Run

#: The page may show inline styles and ``data:`` images, and nothing else: no script, no
#: fetch, no font, no frame, no form, no base URL.
CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    "base-uri 'none'; form-action 'none'"
)

#: Caps that keep the page readable (and its size bounded) for clusters of hundreds of nodes.
MAX_NODE_SECTIONS = 64
MAX_GROUPS = 300
MAX_HEAT_ROWS = 120
MAX_FILES = 500


@cache
def _env() -> jinja2.Environment:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("analyzer.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _anchor(i: int) -> str:
    return f"node-{i}"


def _join(items: Any, sep: str = ", ") -> str:
    return sep.join(str(i) for i in items or [])


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def verdict_context(run: Run, R) -> dict[str, Any]:
    """The verdict card's fields (shared by the full report and the notebook summary)."""
    from analyzer.report.jsonout import remediation_for

    rc = run.diagnosis.root_cause
    analyzed = run.ingest.lines_in_timeline > 0
    healthy = rc.category == "none"
    if not analyzed:
        title = headline = "Nothing could be analyzed"
        summary = "No log line made it into the timeline; see the ingest problems below."
    elif healthy:
        title = headline = "No failure found"
        summary = R(rc.summary) or "No node shows a failure."
    else:
        where = f" on {rc.node}" if rc.node else ""
        title = f"Root cause: {rc.category}{where}"
        headline = f"{rc.category}{where}"
        summary = R(rc.summary)
    conf = float(rc.confidence or 0.0)
    conf = 0.0 if math.isnan(conf) else max(0.0, min(conf, 1.0))
    return {
        "analyzed": analyzed,
        "healthy": healthy,
        "title": title,
        "headline": headline,
        "summary": summary,
        "node": rc.node,
        "task": rc.task,
        "category": rc.category,
        "color": C.STATUS_COLORS["ok"] if healthy else C.category_color(rc.category),
        "time": C.fmt_time(rc.time) if rc.time is not None else None,
        "confidence": f"{conf:.0%}",
        "confidence_pct": round(conf * 100),
        "pattern_id": rc.pattern_id,
        "ambiguity": R(rc.ambiguity) if rc.ambiguity else None,
        "remediation": R(remediation_for(run)) if analyzed and not healthy else None,
        "evidence": [
            {
                "node": e.node,
                "time": C.fmt_time(e.time),
                "file": e.file or "",
                "line_no": e.line_no,
                "text": R.line(e.text or "", e.file, e.line_no),
                "why": R(e.why or ""),
            }
            for e in rc.evidence
        ],
    }


def _heat(run: Run) -> dict[str, Any]:
    nodes, cats, cells = C.findings_matrix(run)
    rc = run.diagnosis.root_cause.node
    if len(nodes) > MAX_HEAT_ROWS:
        totals = {n: sum(cells.get((n, c), 0) for c in cats) for n in nodes}
        keep = set(sorted(nodes, key=lambda n: (n != rc, -totals[n]))[:MAX_HEAT_ROWS])
        nodes = [n for n in nodes if n in keep]
    top = max(cells.values(), default=1)
    rows = []
    for n in nodes:
        row = []
        for c in cats:
            count = cells.get((n, c), 0)
            alpha = 0.0 if not count else 0.10 + 0.55 * math.log1p(count) / math.log1p(top)
            row.append({"count": count, "bg": f"rgba(230, 81, 0, {alpha:.2f})"})
        rows.append({"node": n, "rc": n == rc, "cells": row, "total": sum(r["count"] for r in row)})
    return {
        "nodes": nodes,
        "cats": cats,
        "colors": [C.category_color(c) for c in cats],
        "rows": rows,
    }


def _node_context(run: Run, rep: NodeReport, index: int, R) -> dict[str, Any]:
    rc = run.diagnosis.root_cause
    d = {
        "node": rep.node,
        "anchor": _anchor(index),
        "rc": rep.node == rc.node,
        "status": rep.status,
        "status_meaning": C.STATUS_MEANING.get(rep.status, ""),
        "color": C.STATUS_COLORS.get(rep.status, "#555"),
        "task": rep.task,
        "address": rep.address,
        "files": _join(rep.files),
        "lines": f"{rep.lines:,}",
        "first_time": C.fmt_time(rep.first_time),
        "last_time": C.fmt_time(rep.last_time),
        "first_error_time": C.fmt_time(rep.first_error_time)
        if rep.first_error_time is not None
        else None,
        "first_error": R(rep.first_error) if rep.first_error else None,
        "first_error_category": rep.first_error_category,
        "first_error_color": C.category_color(rep.first_error_category),
        "lag": C.fmt_duration(rep.lag_s) if rep.lag_s is not None else None,
        "ending": rep.ending or "",
        "exit_info": R(rep.exit_info) if rep.exit_info else None,
        "blamed_by": _join(rep.blamed_by),
        "clock": f"{rep.clock_offset_s:+.3f} s" if rep.clock_offset_s else None,
        "versions": _join(f"{k} {v}" for k, v in (rep.versions or {}).items()),
        "cluster": [(j, _join(a)) for j, a in (rep.cluster or {}).items()],
        "open": rep.status in ("failed", "victim", "silent") or rep.node == rc.node,
        "context": [],
        "last_lines": [],
    }
    return d


def _with_logs(run: Run, d: dict[str, Any], rep: NodeReport, R) -> dict[str, Any]:
    row = C.first_error_row(run, rep)
    if row is not None:
        d["context"] = [_line(x, R) for x in C.context(run, row, rep.node)]
    n_last = 6 if rep.status in ("failed", "silent") else 3
    d["last_lines"] = [_line(x, R) for x in C.last_lines(run, rep.node, n_last)]
    if (
        d["context"]
        and d["last_lines"]
        and d["last_lines"][-1]["line_no"] == d["context"][-1]["line_no"]
    ):
        d["last_lines"] = []  # the error is the end of the log: shown once
    return d


def _line(line: C.ContextLine, R) -> dict[str, Any]:
    return {
        "line_no": line.line_no,
        "time": line.time,
        "level": line.level,
        "text": R.line(line.text, line.file, line.line_no),
        "hit": line.hit,
    }


def _ingest(run: Run, R) -> dict[str, Any]:
    ing = run.ingest.to_dict()
    files = ing.get("per_file", [])

    def notes(f: dict[str, Any]) -> str:
        parts = [f"wrapper {f['wrapper']}"] if f.get("wrapper") else []
        parts += [f"{k}: {v}" for k, v in (f.get("assumed") or {}).items()]
        return "; ".join(parts)

    return {
        "files": f"{ing['files']:,}",
        "lines_read": f"{ing['lines_read']:,}",
        "lines_in_timeline": f"{ing['lines_in_timeline']:,}",
        "lines_rejected": f"{ing['lines_rejected']:,}",
        "rejected": _join(f"{k} {v:,}" for k, v in (ing.get("rejected_reasons") or {}).items()),
        "formats": _join(
            f"{k} {v:,}"
            for k, v in sorted((ing.get("formats") or {}).items(), key=lambda kv: -kv[1])
        ),
        "problems": [{"file": p["file"], "problem": R(p["problem"])} for p in ing["problems"]],
        "skipped": [
            {"file": p["file"], "problem": R(p.get("reason", ""))} for p in ing.get("skipped", [])
        ],
        "per_file": [
            {
                "file": f["file"],
                "node": f["node"],
                "lines_read": f"{f['lines_read']:,}",
                "lines_in_timeline": f"{f['lines_in_timeline']:,}",
                "lines_rejected": f"{f['lines_rejected']:,}",
                "formats": _join(f"{k} {v:,}" for k, v in (f.get("formats") or {}).items()),
                "notes": notes(f),
            }
            for f in files[:MAX_FILES]
        ],
        "files_hidden": max(0, len(files) - MAX_FILES),
    }


def _figures(run: Run) -> dict[str, Any]:
    from analyzer.report.plots import failure_window, figure_data_uri, plot_timeline

    out: dict[str, Any] = {"timeline": None, "zoom": None, "zoom_range": ""}
    tl = run.timeline
    if len(tl) == 0 or not tl["ts"].notna().any():
        return out
    fig = plot_timeline(run)
    out["timeline"] = figure_data_uri(fig)
    window = failure_window(run)
    if window is not None:
        first, last = C.time_range(run)
        if first is None or window[0] > first or window[1] < last:
            fig = plot_timeline(run, start=window[0], end=window[1], title="Around the failure")
            out["zoom"] = figure_data_uri(fig)
            out["zoom_range"] = f"{C.fmt_time(window[0])} → {C.fmt_time(window[1], date=False)}"
    return out


def _progress(run: Run, figures: bool) -> dict[str, Any] | None:
    """The progress section: a figure of step and step rate per node, and one row per node."""
    from analyzer.progress import summary

    summ = summary(run.progress)
    if summ.empty:
        return None
    figure = None
    if figures:
        from analyzer.report.plots import figure_data_uri, plot_progress

        figure = figure_data_uri(plot_progress(run.progress, highlight=run.root_cause.node))

    def num(value: Any, fmt: str) -> str:
        return "—" if value is None or value != value else format(float(value), fmt)

    shown = summ.iloc[:MAX_NODE_SECTIONS]
    columns = ("reports", "last_step", "last_step_time", "rate", "step_time_s")
    columns += ("report_interval_s", "sources")
    rows = [
        {
            "node": str(node),
            "rc": node == run.root_cause.node,
            "reports": f"{int(reports):,}",
            "last_step": num(last_step, "g"),
            "last_step_time": C.fmt_time(last_step_time, date=False)
            if last_step_time == last_step_time
            else "—",
            "rate": num(rate, ".3g"),
            "step_time": num(step_time, ".3g"),
            "interval": num(interval, ".3g"),
            "sources": str(sources),
        }
        for node, reports, last_step, last_step_time, rate, step_time, interval, sources in zip(
            shown.index.tolist(), *(shown[c].tolist() for c in columns), strict=True
        )
    ]
    return {"figure": figure, "rows": rows}


def _baseline(run: Run, R) -> dict[str, Any] | None:
    """The comparison with a good run (``--baseline``), log text redacted."""
    comparison = run.comparison
    if comparison is None:
        return None
    nodes = []
    for n in comparison.nodes:
        if not (n.new_count or n.diverges or n.missing_count):
            continue
        nodes.append(
            {
                "node": n.node,
                "presence": n.presence,
                "new_count": n.new_count,
                "foreign": f"{n.foreign_share:.0%}",
                "missing_count": n.missing_count,
                "diverges": n.diverges,
                "new": [
                    {
                        "template": R(t["template"]),
                        "count": t["count"],
                        "where": f"{t['file']}:{t['line_no']}" if t.get("line_no") else "",
                    }
                    for t in n.new
                ],
                "missing": [R(t) for t in n.missing],
            }
        )
    return {
        "label": R(comparison.baseline),
        "differences": [R(d) for d in comparison.differences],
        "nodes": nodes,
        "count": comparison.node_count,
    }


def context(run: Run, *, redact: bool = True, figures: bool = True) -> dict[str, Any]:
    """Everything the template shows, as plain data (log text already redacted)."""
    R = for_run(run) if redact else NO_REDACTION
    diagnosis = run.diagnosis
    reports = C.ordered_nodes(run)
    first, last = C.time_range(run)
    nodes = [_node_context(run, rep, i, R) for i, rep in enumerate(reports)]
    if len(nodes) > MAX_NODE_SECTIONS:
        sections_idx = [i for i, n in enumerate(nodes) if n["status"] != "ok" or n["rc"]]
        sections_idx = sections_idx[:MAX_NODE_SECTIONS]
    else:
        sections_idx = list(range(len(nodes)))
    sections = [_with_logs(run, nodes[i], reports[i], R) for i in sections_idx]
    groups = C.finding_groups(run)
    vcols, vrows = C.versions_table(reports)
    ccols, crows = C.cluster_table(reports)
    warnings = list(dict.fromkeys([*run.problems, *getattr(run.rules, "warnings", [])]))
    return {
        "csp": CSP,
        "version": __version__,
        "command": R(run.command) if run.command else None,
        "redacted": redact,
        "verdict": verdict_context(run, R),
        "job": {
            "roles": C.roles_summary(diagnosis.nodes),
            "start": C.fmt_time(first),
            "end": C.fmt_time(last),
            "duration": C.fmt_duration((last - first).total_seconds()) if first and last else "—",
            "files": f"{len(run.ingest.files):,}",
            "lines": f"{run.ingest.lines_read:,}",
        },
        "figures": _figures(run) if figures else {"timeline": None, "zoom": None, "zoom_range": ""},
        "progress": _progress(run, figures),
        "baseline": _baseline(run, R),
        "heat": _heat(run),
        "groups": [
            {
                "category": g.category,
                "color": C.category_color(g.category),
                "node": g.node,
                "count": f"{g.count:,}",
                "first": C.fmt_time(g.first, date=False),
                "last": C.fmt_time(g.last, date=False),
                "pattern_id": g.pattern_id,
                "message": R(g.message[:600]),
            }
            for g in groups[:MAX_GROUPS]
        ],
        "groups_hidden": max(0, len(groups) - MAX_GROUPS),
        "info_count": C.info_count(run),
        "statuses": list(C.STATUS_MEANING.items()),
        "status_colors": C.STATUS_COLORS,
        "nodes": nodes,
        "node_sections": sections,
        "nodes_hidden": len(nodes) - len(sections),
        "versions": {"cols": vcols, "rows": vrows},
        "cluster": {"cols": ccols, "rows": crows},
        "consistency": [R(c) for c in diagnosis.consistency],
        "ingest": _ingest(run, R),
        "notes": [R(n) for n in diagnosis.notes],
        "warnings": [R(w) for w in warnings],
    }


def render(run: Run, *, redact: bool = True) -> str:
    """The self-contained HTML report of ``run``."""
    return _env().get_template("report.html.j2").render(**context(run, redact=redact))


def render_summary(run: Run, *, redact: bool = True) -> str:
    """A compact HTML card for notebooks (``Run._repr_html_``): verdict and node statuses."""
    R = for_run(run) if redact else NO_REDACTION
    reports = C.ordered_nodes(run)
    nodes = [_node_context(run, rep, i, R) for i, rep in enumerate(reports)]
    return (
        _env()
        .get_template("summary.html.j2")
        .render(
            verdict=verdict_context(run, R),
            nodes=nodes[:MAX_NODE_SECTIONS],
            nodes_hidden=max(0, len(nodes) - MAX_NODE_SECTIONS),
            findings=len(C.bad_findings(run, notable=True)),
            roles=C.roles_summary(run.diagnosis.nodes),
        )
    )
