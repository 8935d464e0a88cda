"""What the terminal, HTML and notebook reports share: orderings, colours, groupings, context.

Everything here works column-wise on the timeline and findings frames (no Python loop over
events), so reports of runs with millions of lines stay quick.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from analyzer.model import NodeReport
    from analyzer.run import Run

from analyzer.model import CATEGORIES

#: One colour per category (colour-blind-aware where it matters: distinct hue and lightness).
CATEGORY_COLORS = {
    "deadline_exceeded": "#e6a100",
    "address_in_use": "#8c564b",
    "connection_unavailable": "#1f77b4",
    "name_resolution": "#17becf",
    "cluster_spec_mismatch": "#bcbd22",
    "session_blocked": "#7f7f7f",
    "version_mismatch": "#9467bd",
    "dtype_mismatch": "#e377c2",
    "shape_mismatch": "#f7b6d2",
    "oom": "#d62728",
    "node_crash": "#a50f15",
    "coordination_failure": "#2ca02c",
    "hang": "#6a3d9a",
    "straggler": "#b15928",
    "preemption": "#98df8a",
    "concurrent_write": "#ff7f0e",
    "filesystem_error": "#c49c94",
    "collective_error": "#393b79",
    "none": "#4c9a2a",
}
OTHER_COLOR = "#555555"

STATUS_COLORS = {
    "failed": "#c62828",
    "victim": "#ef6c00",
    "silent": "#6a1b9a",
    "missing": "#757575",
    "ok": "#2e7d32",
}

STATUSES_ORDER = ("failed", "victim", "silent", "missing", "ok")

STATUS_MEANING = {
    "failed": "the root cause node",
    "victim": "failed because of another node",
    "silent": "log stops while the job went on",
    "missing": "no log at all",
    "ok": "no failure of its own",
}

#: Severities that the charts and groupings show (``info`` findings are facts, not problems).
NOTABLE = ("warning", "error", "fatal", "critical")

_JOB_ORDER = {"chief": 0, "master": 1, "coordinator": 2, "ps": 3, "worker": 4, "evaluator": 5}
_NODE_RE = re.compile(r"^(?P<job>[A-Za-z_][\w-]*):(?P<index>\d+)$")


#: Characters that drive a terminal (C0 but newline and tab, DEL, C1) or reorder what it shows
#: (bidirectional overrides and isolates).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape_control(m: re.Match[str]) -> str:
    c = ord(m[0])
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def printable(text: Any) -> str:
    """``text`` safe for a terminal: control characters shown escaped (``\\x1b[31m``, ``\\r``),
    newlines and tabs kept."""
    text = text_of(text)
    return _CONTROL.sub(_escape_control, text) if _CONTROL.search(text) else text


def category_color(category: str | None) -> str:
    return CATEGORY_COLORS.get(category or "", OTHER_COLOR)


def node_sort_key(node: str) -> tuple[int, str, int, str]:
    """chief, ps, workers, evaluators, then anything else; indices numerically."""
    m = _NODE_RE.match(node or "")
    if not m:
        return (9, "", 0, node or "")
    job = m["job"]
    return (_JOB_ORDER.get(job, 8), job, int(m["index"]), "")


def job_of(node: str) -> str | None:
    m = _NODE_RE.match(node or "")
    return m["job"] if m else None


def roles_summary(nodes: list[NodeReport]) -> str:
    """``1 chief, 2 ps, 4 workers`` (plus ``3 unnamed`` for ids without a role)."""
    counts = Counter(job_of(n.node) or "unnamed" for n in nodes)
    order = sorted(counts, key=lambda j: (_JOB_ORDER.get(j, 8), j))
    parts = []
    for job in order:
        n = counts[job]
        plural = job if n == 1 or job in ("ps", "chief", "unnamed") else job + "s"
        parts.append(f"{n} {plural}")
    return ", ".join(parts) or "no nodes"


def fmt_time(ts: Any, *, date: bool = True, ms: bool = True) -> str:
    """``2026-11-22 04:10:11.123`` in UTC (``—`` when unknown)."""
    import pandas as pd

    if ts is None:
        return "—"
    try:
        if pd.isna(ts):
            return "—"
        t = pd.Timestamp(ts)
    except (TypeError, ValueError):
        return str(ts)
    t = t.tz_localize("UTC") if t.tzinfo is None else t.tz_convert("UTC")
    text = t.strftime("%Y-%m-%d %H:%M:%S" if date else "%H:%M:%S")
    if ms:
        text += f".{t.microsecond // 1000:03d}"
    return text


def fmt_duration(seconds: float | None) -> str:
    if seconds is None or seconds != seconds:
        return "—"
    s = abs(float(seconds))
    sign = "-" if seconds < 0 else ""
    if s < 1:
        return f"{sign}{s * 1000:.0f} ms"
    if s < 120:
        return f"{sign}{s:.1f} s"
    if s < 7200:
        return f"{sign}{s / 60:.1f} min"
    return f"{sign}{s / 3600:.1f} h"


def to_utc(ts: Any):
    """A pandas UTC Timestamp, or None."""
    import pandas as pd

    if ts is None:
        return None
    try:
        t = pd.Timestamp(ts)
    except (TypeError, ValueError):
        return None
    if t is pd.NaT or pd.isna(t):
        return None
    return t.tz_localize("UTC") if t.tzinfo is None else t.tz_convert("UTC")


def ordered_nodes(run: Run) -> list[NodeReport]:
    """The diagnosis's nodes: the root cause first, then by role and index."""
    rc = run.diagnosis.root_cause.node
    return sorted(run.diagnosis.nodes, key=lambda n: (n.node != rc, *node_sort_key(n.node)))


def lane_nodes(run: Run) -> list[str]:
    """Node ids in swimlane order: by role and index (the root cause is marked, not moved)."""
    names = {n.node for n in run.diagnosis.nodes} | set(run.ingest.nodes)
    return sorted(names, key=node_sort_key)


def bad_findings(run: Run, *, notable: bool = False) -> pd.DataFrame:
    """Non-benign findings (the contract's ``findings``), in timeline order.

    ``notable`` keeps only warnings and worse: ``info`` findings record facts (a TF_CONFIG was
    printed, a version was announced) and would read as problems in a chart.
    """
    cache = run.__dict__.setdefault("_report_bad_findings", {})
    got = cache.get(notable)
    if got is not None and got[0] is run.findings:
        return got[1]
    found = run.findings
    if len(found) and "benign" in found.columns:
        found = found[~found["benign"].fillna(False).astype(bool)]
    if notable and len(found) and "severity" in found.columns:
        found = found[found["severity"].isin(NOTABLE).to_numpy(dtype=bool)]
    cache[notable] = (run.findings, found)  # (kept while the run's findings are these)
    return found


def count(found: pd.DataFrame) -> int:
    """How many findings the rows of ``found`` stand for (see the ``repeats`` column)."""
    if "repeats" not in found.columns:
        return len(found)
    return int(found["repeats"].fillna(1).sum())


def info_count(run: Run) -> int:
    """Non-benign findings left out of the charts and groupings for being ``info``."""
    return count(bad_findings(run)) - count(bad_findings(run, notable=True))


@dataclass
class FindingGroup:
    category: str
    node: str
    count: int
    first: Any
    last: Any
    pattern_id: str
    severity: str
    message: str


def finding_groups(run: Run) -> list[FindingGroup]:
    """Non-benign findings counted by (category, node): category order, then node order."""
    found = bad_findings(run, notable=True)
    if len(found) == 0:
        return []
    frame = found.reset_index(drop=True)
    if "repeats" not in frame.columns:
        frame["repeats"] = 1
    grouped = frame.groupby(["category", "node"], sort=False, observed=True)
    firsts = grouped.head(1)
    # (the cells as a row of the frame holds them: pd.NA for a missing Arrow value)
    example = dict(
        zip(
            zip(_cells(firsts["category"]), _cells(firsts["node"]), strict=True),
            zip(
                _cells(firsts["pattern_id"]),
                _cells(firsts["severity"]),
                _cells(firsts["message"]),
                strict=True,
            ),
            strict=True,
        )
    )
    stats = grouped["ts"].agg(["min", "max"])
    stats["size"] = grouped["repeats"].sum()
    out = []
    for (category, node), first, last, size in zip(
        stats.index.tolist(),
        stats["min"].tolist(),
        stats["max"].tolist(),
        stats["size"].tolist(),
        strict=True,
    ):
        pattern_id, severity, message = example[(category, node)]
        out.append(
            FindingGroup(
                category=str(category),
                node=str(node),
                count=int(size),
                first=first,
                last=last,
                pattern_id=str(pattern_id),
                severity=str(severity),
                message=str(message),
            )
        )
    rank = {c: i for i, c in enumerate(CATEGORIES)}
    out.sort(key=lambda g: (rank.get(g.category, 99), g.category, node_sort_key(g.node)))
    return out


def _cells(column: pd.Series) -> list:
    """A column's values as a row taken out of its frame holds them (``pd.NA`` for a missing
    Arrow value), from the whole column at once."""
    import pandas as pd

    if isinstance(column.dtype, (pd.ArrowDtype, pd.StringDtype)):
        return column.to_numpy(dtype=object).tolist()
    return column.tolist()


def findings_matrix(run: Run) -> tuple[list[str], list[str], dict[tuple[str, str], int]]:
    """(nodes, categories, counts) of non-benign findings, for a node × category heatmap."""
    found = bad_findings(run, notable=True)
    if len(found) == 0:
        return [], [], {}
    import pandas as pd

    weights = found["repeats"] if "repeats" in found.columns else pd.Series(1, index=found.index)
    counts = weights.groupby([found["node"], found["category"]], observed=True).sum()
    cells = {(str(n), str(c)): int(v) for (n, c), v in counts.items()}
    nodes = sorted({n for n, _ in cells}, key=node_sort_key)
    rank = {c: i for i, c in enumerate(CATEGORIES)}
    cats = sorted({c for _, c in cells}, key=lambda c: (rank.get(c, 99), c))
    return nodes, cats, cells


def node_rows(run: Run) -> dict[str, Any]:
    """For each node, the positions of its events in the timeline (ascending), computed once."""
    cache = run.__dict__.get("_report_node_rows")
    if cache is not None:
        return cache
    import numpy as np
    import pandas as pd

    codes, uniques = pd.factorize(run.timeline["node"], sort=False)
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
    starts = np.concatenate([[0], np.cumsum(counts)])
    offset = int((codes < 0).sum())  # null nodes sort first
    out = {
        str(name): order[offset + starts[i] : offset + starts[i + 1]]
        for i, name in enumerate(uniques)
    }
    run.__dict__["_report_node_rows"] = out
    return out


@dataclass
class ContextLine:
    line_no: int | None
    time: str
    level: str
    text: str
    hit: bool
    file: str | None = None  #: with ``line_no``, where the text is (for multi-line redaction)


def text_of(value: Any) -> str:
    """A cell as text: ``""`` for None, NaN, NA."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    try:
        import pandas as pd

        if value is pd.NA or value is pd.NaT:
            return ""
    except ImportError:  # pragma: no cover
        pass
    return str(value)


def _event_text(raw: Any, message: Any, limit: int = 1500, max_lines: int = 12) -> str:
    text = text_of(raw) or text_of(message)
    lines = text.splitlines()
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], f"… ({len(lines) - max_lines} more lines)"]
    text = "\n".join(lines)
    return text if len(text) <= limit else text[:limit] + " …"


def context(run: Run, row: int, node: str, before: int = 3, after: int = 2) -> list[ContextLine]:
    """The events of ``node`` around timeline row ``row`` (the hit included, marked)."""
    import numpy as np

    rows = node_rows(run).get(node)
    if rows is None or len(rows) == 0:
        return []
    pos = int(np.searchsorted(rows, row))
    pick = rows[max(0, pos - before) : pos + after + 1]
    tl = run.timeline
    cols = [c for c in ("ts", "line_no", "level", "raw", "message", "file") if c in tl.columns]
    part = tl.iloc[pick, [tl.columns.get_loc(c) for c in cols]]  # (only these cells copied)
    out = []
    for r, rec in zip(pick.tolist(), part.itertuples(index=False), strict=True):
        line_no = text_of(getattr(rec, "line_no", None))
        out.append(
            ContextLine(
                line_no=int(line_no) if line_no else None,
                time=fmt_time(getattr(rec, "ts", None), date=False),
                level=text_of(getattr(rec, "level", None)),
                text=_event_text(getattr(rec, "raw", None), getattr(rec, "message", None)),
                hit=r == row,
                file=text_of(getattr(rec, "file", None)) or None,
            )
        )
    return out


def last_lines(run: Run, node: str, n: int = 3) -> list[ContextLine]:
    """The last ``n`` events of ``node``."""
    rows = node_rows(run).get(node)
    if rows is None or len(rows) == 0:
        return []
    return context(run, int(rows[-1]), node, before=n - 1, after=0)


def first_error_row(run: Run, node: NodeReport) -> int | None:
    """The timeline row of ``node``'s first error (as the diagnosis dated it), if any."""
    t = to_utc(node.first_error_time)
    found = bad_findings(run, notable=True)
    if len(found) == 0:
        return None
    at_node = _findings_by_node(run, found).get(node.node)
    if at_node is None:
        return None
    mine = found.iloc[at_node]
    if t is not None:
        at = mine[(mine["ts"] >= t).fillna(False).to_numpy(dtype=bool)]
        if len(at):
            return int(at.index[0])
    severe = mine[mine["severity"].isin(["error", "fatal", "critical"]).to_numpy(dtype=bool)]
    return int((severe if len(severe) else mine).index[0])


def _findings_by_node(run: Run, found: pd.DataFrame) -> dict[str, Any]:
    """Per node, the positions of its rows in ``found`` (ascending), computed once per run."""
    cache = run.__dict__.get("_report_findings_by_node")
    if cache is not None and cache[0] is found:
        return cache[1]
    import numpy as np
    import pandas as pd

    codes, uniques = pd.factorize(found["node"], sort=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
    out: dict[str, Any] = {}
    for i, name in enumerate(uniques.tolist()):
        if isinstance(name, str):  # (``found["node"] == node`` matches only a string)
            out[name] = order[bounds[i] : bounds[i + 1]]
    run.__dict__["_report_findings_by_node"] = (found, out)
    return out


def time_range(run: Run) -> tuple[Any, Any]:
    """(first, last) event time of the whole run, or (None, None)."""
    tl = run.timeline
    if len(tl) == 0 or "ts" not in tl.columns:
        return None, None
    ts = tl["ts"]
    return to_utc(ts.min()), to_utc(ts.max())


def consistency_table(
    columns: list[str], rows: list[str], cell: dict[tuple[str, str], str]
) -> list[tuple[str, list[tuple[str, bool]]]]:
    """Rows of (label, [(value, differs)]): a value differs when it is not the row's majority."""
    out = []
    for r in rows:
        values = [cell.get((r, c), "") for c in columns]
        present = [v for v in values if v]
        majority = Counter(present).most_common(1)[0][0] if present else ""
        out.append(
            (r, [(v, (bool(v) and v != majority) or (not v and bool(present))) for v in values])
        )
    return out


def versions_table(nodes: list[NodeReport]) -> tuple[list[str], list[tuple[str, list]]]:
    """(node ids, rows) of package versions side by side; empty if no node printed any."""
    have = [n for n in nodes if n.versions]
    if not have:
        return [], []
    cols = [n.node for n in have]
    keys = sorted({k for n in have for k in n.versions}, key=lambda k: (k != "tensorflow", k))
    cell = {(k, n.node): str(v) for n in have for k, v in n.versions.items()}
    return cols, consistency_table(cols, keys, cell)


def cluster_table(nodes: list[NodeReport]) -> tuple[list[str], list[tuple[str, list]]]:
    """(job names, rows) of each node's view of the cluster spec.

    Each row is ``(node, cells)``; a cell is a list of ``(address, differs)`` — an address
    differs when most nodes name another one at that position of that job (a missing or extra
    position differs too, shown as ``—``).
    """
    have = [n for n in nodes if n.cluster]
    if not have:
        return [], []
    jobs = sorted(
        {j for n in have for j in n.cluster or {}}, key=lambda j: (_JOB_ORDER.get(j, 8), j)
    )
    specs = {
        n.node: {j: [str(a) for a in (n.cluster or {}).get(j, [])] for j in jobs} for n in have
    }
    sizes = {j: Counter(len(specs[n.node][j]) for n in have).most_common(1)[0][0] for j in jobs}
    majority = {
        (j, i): Counter(specs[n.node][j][i] for n in have if i < len(specs[n.node][j])).most_common(
            1
        )[0][0]
        for j in jobs
        for i in range(max(len(specs[n.node][j]) for n in have))
        if any(i < len(specs[n.node][j]) for n in have)
    }
    rows = []
    for n in have:
        cells = []
        for j in jobs:
            addrs = specs[n.node][j]
            cell = [(a, a != majority.get((j, i))) for i, a in enumerate(addrs)]
            cell += [("—", True)] * max(0, sizes[j] - len(addrs))
            cells.append(cell)
        rows.append((n.node, cells))
    return jobs, rows


def by_kind(items: list, text) -> list[list]:
    """Items grouped by what their ``text(item)`` says with its numbers masked, in the order
    each kind first appears: a thousand files with one problem read as one kind (a report lists
    a few of each and counts the rest)."""
    kinds: dict[str, list] = {}
    for item in items:
        kinds.setdefault(re.sub(r"\d+", "#", text(item)), []).append(item)
    return list(kinds.values())
