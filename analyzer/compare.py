"""Compare a failed run with a good run of the same job: what is new, who diverged, what changed.

Log lines become **templates** (:func:`templates`): numbers, hex, addresses, ids, URLs and paths
masked, progress-bar control characters removed, so that ``step 12 loss 0.3`` and ``step 13
loss 0.2`` are one template. Column-wise (``pyarrow.compute.replace_substring_regex``), then
one group-by per run for the per-node template sets.

:func:`compare` reports:

- per node, the templates that are **new** in the failed run (seen nowhere in the baseline run),
  with count, first time and an example line;
- per node, how far its log **diverges** from the same node in the baseline (share of its
  templates its baseline node never logged, and the baseline's templates it never reached);
- differences of versions, cluster spec (jobs and task counts), node count, step rate and the
  phase each node reached.

``tfdiag diff GOOD FAILED`` prints it; ``tfdiag analyze FAILED --baseline GOOD`` puts it in the
reports and hands it to the diagnosis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from analyzer.model import iso

if TYPE_CHECKING:
    from analyzer.run import Run

#: (pattern, replacement) applied in order; RE2.
MASKS: tuple[tuple[str, str], ...] = (
    (r"\x1b\[[0-9;]*[A-Za-z]|[\x08\r]", ""),
    (r"━+", "━"),
    (r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+", "<url>"),
    (r"\[[0-9a-fA-F:]*:[0-9a-fA-F:]*\](?::\d+)?", "<addr>"),
    (r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b", "<addr>"),
    (r"\b(?:localhost|[A-Za-z][\w-]*(?:\.[\w-]+)+):\d{2,5}\b", "<addr>"),
    (r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", "<id>"),
    (r"\b0x[0-9a-fA-F]+\b", "<hex>"),
    (r"\b[0-9a-fA-F]*\d[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*\b", "<hex>"),
    (r"(?:[A-Za-z]:)?(?:/[^\s/'\",:;()\[\]{}<>]+){2,}/?", "<path>"),
    (r"-?\b\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", "<n>"),
    (r"<n>(?:\s*[,x*]\s*<n>)+", "<n>,…"),
    (r"\s+", " "),
)
TEMPLATE_LIMIT = 200
#: Example lines and templates shown per node in reports.
MAX_SHOWN = 8
#: A node diverges when at least this share of its templates is foreign to its own baseline.
DIVERGENCE_MIN = 0.25
#: A step rate this many times lower (or higher) than the baseline's is a difference.
RATE_FACTOR = 1.5


def templates(messages: pa.Array | pa.ChunkedArray | pd.Series) -> pa.Array:
    """The template of each message (masked, trimmed, at most ``TEMPLATE_LIMIT`` characters)."""
    if isinstance(messages, pd.Series):
        from analyzer.progress import _arrow

        messages = _arrow(messages)
    if isinstance(messages, pa.ChunkedArray):
        messages = messages.combine_chunks()
    out = pc.cast(messages, pa.large_string())
    for pattern, repl in MASKS:
        out = pc.replace_substring_regex(out, pattern, repl)
    out = pc.utf8_trim_whitespace(out)
    return pc.utf8_slice_codeunits(out, 0, TEMPLATE_LIMIT)


def template_table(run: Run) -> pd.DataFrame:
    """Per (node, template): count, first row, first time, file, line, level, example message."""
    tl = run.timeline
    if tl.empty:
        cols = ["node", "template", "count", "row", "ts", "file", "line_no", "level", "example"]
        return pd.DataFrame(columns=cols)
    temp = templates(tl["message"]).to_numpy(zero_copy_only=False)
    frame = pd.DataFrame(
        {
            "node": tl["node"].astype(object).to_numpy(),
            "template": temp,
            "row": np.asarray(tl.index),
            "ts": pd.to_datetime(tl["ts"].astype(object), utc=True).to_numpy(),
            "file": tl["file"].astype(object).to_numpy(),
            "line_no": tl["line_no"].astype("Int64").to_numpy(),
            "level": tl["level"].astype(object).to_numpy(),
            "example": tl["message"].astype(object).to_numpy(),
        }
    )
    frame = frame[frame["template"].notna() & (frame["template"] != "")]
    # (the timeline is time-sorted: the first row of a pair is its first occurrence)
    first = frame.drop_duplicates(["node", "template"])
    counts = frame.groupby(["node", "template"], sort=False).size().rename("count")
    out = first.merge(counts, left_on=["node", "template"], right_index=True)
    return out.reset_index(drop=True)


@dataclass
class NodeDiff:
    """One node of the failed run against the same node of the baseline."""

    node: str
    presence: str  #: ``both``, ``failed only`` (a node the baseline had not), ``baseline only``
    new: list[dict] = field(default_factory=list)  #: templates new to the whole baseline run
    new_count: int = 0
    foreign_share: float = 0.0  #: share of its templates its own baseline node never logged
    missing: list[str] = field(default_factory=list)  #: its baseline's templates it never logged
    missing_count: int = 0
    diverges: bool = False
    first_new_time: Any = None
    rate: float | None = None  #: its median steps per second
    baseline_rate: float | None = None
    last_step: float | None = None
    baseline_last_step: float | None = None
    phase: str | None = None  #: the furthest phase its log shows
    baseline_phase: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "presence": self.presence,
            "new_templates": self.new,
            "new_template_count": self.new_count,
            "foreign_share": round(self.foreign_share, 3),
            "missing_templates": self.missing,
            "missing_template_count": self.missing_count,
            "diverges": self.diverges,
            "first_new_time": iso(self.first_new_time),
            "rate": _round(self.rate),
            "baseline_rate": _round(self.baseline_rate),
            "last_step": _round(self.last_step),
            "baseline_last_step": _round(self.baseline_last_step),
            "phase": self.phase,
            "baseline_phase": self.baseline_phase,
        }


@dataclass
class Comparison:
    """What differs between a baseline (good) run and a failed run of the same job."""

    baseline: str
    failed: str
    nodes: list[NodeDiff]
    differences: list[str]  #: versions, spec, node count, rate, phase: one sentence each
    node_count: tuple[int, int]
    rate: tuple[float | None, float | None]  #: job step rate (baseline, failed)
    last_step: tuple[float | None, float | None]

    @property
    def diverging(self) -> list[str]:
        """Nodes whose log diverges from their own baseline, most new templates first."""
        nodes = [n for n in self.nodes if n.diverges]
        nodes.sort(key=lambda n: (-n.new_count, n.first_new_time or pd.Timestamp.max))
        return [n.node for n in nodes]

    def node(self, name: str) -> NodeDiff | None:
        return next((n for n in self.nodes if n.node == name), None)

    @property
    def first_new(self) -> str | None:
        """The node whose first new (non-progress) template came earliest, if any."""
        timed = [n for n in self.nodes if n.first_new_time is not None and n.new_count]
        if not timed:
            return None
        return min(timed, key=lambda n: n.first_new_time).node

    def rate_ratio(self) -> float | None:
        """Baseline job rate over failed job rate (> 1: the failed run was slower)."""
        base, failed = self.rate
        if base and failed and base > 0 and failed > 0:
            return base / failed
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "failed": self.failed,
            "node_count": {"baseline": self.node_count[0], "failed": self.node_count[1]},
            "step_rate": {"baseline": _round(self.rate[0]), "failed": _round(self.rate[1])},
            "last_step": {
                "baseline": _round(self.last_step[0]),
                "failed": _round(self.last_step[1]),
            },
            "differences": list(self.differences),
            "diverging_nodes": self.diverging,
            "first_new_node": self.first_new,
            "nodes": [n.to_dict() for n in self.nodes],
        }

    def lines(self, limit: int = 3) -> list[str]:
        """A few plain lines for the terminal."""
        out = list(self.differences)
        for n in self.nodes:
            if not n.new_count and not n.diverges:
                continue
            head = f"{n.node}: {n.new_count} new template(s)"
            if n.presence == "both":
                head += f", {n.foreign_share:.0%} of its templates unlike its baseline"
            if n.missing_count:
                head += f", {n.missing_count} of the baseline's never reached"
            out.append(head)
            for t in n.new[:limit]:
                out.append(f"    + {t['template']}")
            for t in n.missing[:limit] if n.diverges else []:
                out.append(f"    - {t}")
        return out


def _round(value: Any, digits: int = 4) -> float | None:
    if value is None:
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return round(value, digits) if np.isfinite(value) else None


def _label(run: Run) -> str:
    paths = getattr(run, "paths", None) or []
    return ", ".join(str(p) for p in paths) or "run"


def _is_progress(frame: pd.DataFrame) -> np.ndarray:
    from analyzer.progress import KEEP_PATTERN

    text = pa.array(frame["example"].astype(object).tolist(), pa.large_string())
    hit = pc.match_substring_regex(text, KEEP_PATTERN, ignore_case=True)
    return pc.fill_null(hit, False).to_numpy(zero_copy_only=False)


def _spec_shape(run: Run) -> dict[str, int]:
    """Jobs and task counts of the cluster spec the logs printed (else of the nodes found)."""
    for info in run.ingest.nodes.values():
        if info.cluster:
            return {job: len(addrs) for job, addrs in sorted(info.cluster.items())}
    counts: dict[str, int] = {}
    for node in run.ingest.nodes:
        job = node.partition(":")[0]
        counts[job] = counts.get(job, 0) + 1
    return dict(sorted(counts.items()))


def _versions(run: Run) -> dict[str, set[str]]:
    """Versions each run's nodes printed (the diagnosis's node facts, computed here so that a
    comparison never needs the verdict it may feed)."""
    from analyzer.diagnose.facts import node_facts

    out: dict[str, set[str]] = {}
    for f in node_facts(run.timeline, run.ingest).values():
        for k, v in (f.versions or {}).items():
            out.setdefault(k, set()).add(str(v))
    return out


def _phases(run: Run) -> dict[str, str | None]:
    try:
        from analyzer.diagnose.phases import node_phases
    except ImportError:  # pragma: no cover - an older diagnosis without phases
        return {}
    ph = node_phases(run.timeline)
    return {n: ph.furthest(n) for n in run.ingest.nodes}


def compare(baseline: Run, failed: Run) -> Comparison:
    """The differences between ``baseline`` (a good run) and ``failed`` (see the module doc)."""
    from analyzer.progress import summary

    bt, ft = template_table(baseline), template_table(failed)
    known = set(bt["template"])
    ft = ft.assign(progress=_is_progress(ft)) if not ft.empty else ft.assign(progress=[])
    bsum, fsum = summary(baseline.progress), summary(failed.progress)
    bphase, fphase = _phases(baseline), _phases(failed)
    bnodes = [n for n, i in baseline.ingest.nodes.items() if not i.missing]
    fnodes = [n for n, i in failed.ingest.nodes.items() if not i.missing]
    # (node counts: tasks of the cluster, not a launcher's or scheduler's own log)
    btasks, ftasks = _tasks(baseline, bnodes), _tasks(failed, fnodes)
    nodes: list[NodeDiff] = []
    fgroups, bgroups = _rows_by_node(ft), _rows_by_node(bt)
    for node in sorted(set(bnodes) | set(fnodes), key=_order):
        presence = (
            "both"
            if node in bnodes and node in fnodes
            else "failed only"
            if node in fnodes
            else "baseline only"
        )
        d = NodeDiff(node, presence)
        mine, base = _of(ft, fgroups, node), _of(bt, bgroups, node)
        if not mine.empty:
            new = mine[~mine["template"].isin(known)]
            d.new_count = len(new)
            shown = new.sort_values(["ts", "line_no"], na_position="last")
            d.new = [
                {
                    "template": r.template,
                    "count": int(r.count),
                    "first_time": iso(r.ts),
                    "file": r.file,
                    "line_no": None if pd.isna(r.line_no) else int(r.line_no),
                    "level": None if pd.isna(r.level) else r.level,
                    "example": str(r.example)[:300],
                }
                for r in shown.head(MAX_SHOWN).itertuples()
            ]
            telling = new[~new["progress"].to_numpy(dtype=bool)]
            if not telling.empty and telling["ts"].notna().any():
                d.first_new_time = telling["ts"].min()
            if presence == "both":
                foreign = ~mine["template"].isin(set(base["template"]))
                d.foreign_share = float(foreign.mean())
                gone = base[~base["template"].isin(set(mine["template"]))]
                d.missing_count = len(gone)
                # what the baseline logged last and the failed node never did: how far it got
                d.missing = (
                    gone.sort_values(["ts", "line_no"], ascending=False)["template"]
                    .head(MAX_SHOWN)
                    .tolist()
                )
        d.diverges = presence != "both" or (d.foreign_share >= DIVERGENCE_MIN and d.new_count > 0)
        for summ, attr_rate, attr_step in (
            (fsum, "rate", "last_step"),
            (bsum, "baseline_rate", "baseline_last_step"),
        ):
            if node in summ.index:
                setattr(d, attr_rate, _round(summ.loc[node, "rate"]))
                setattr(d, attr_step, _round(summ.loc[node, "last_step"]))
        d.phase, d.baseline_phase = fphase.get(node), bphase.get(node)
        nodes.append(d)
    rate = (_job_rate(bsum), _job_rate(fsum))
    last_step = (_max(bsum, "last_step"), _max(fsum, "last_step"))
    differences = _differences(baseline, failed, nodes, rate, last_step, btasks, ftasks)
    return Comparison(
        _label(baseline),
        _label(failed),
        nodes,
        differences,
        (btasks, ftasks),
        rate,
        last_step,
    )


def _rows_by_node(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per node, the positions of its rows (ascending): one sort, not a mask per node."""
    if frame.empty:
        return {}
    codes, uniques = pd.factorize(frame["node"], sort=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
    return {
        name: order[bounds[i] : bounds[i + 1]]
        for i, name in enumerate(uniques.tolist())
        if isinstance(name, str)  # (``frame["node"] == node`` matches only a string)
    }


def _of(frame: pd.DataFrame, groups: dict[str, np.ndarray], node: str) -> pd.DataFrame:
    """``frame[frame["node"] == node]`` from :func:`_rows_by_node`'s positions."""
    if frame.empty:
        return frame
    return frame.iloc[groups.get(node, np.zeros(0, dtype=np.int64))]


def _tasks(run: Run, nodes: list[str]) -> int:
    """How many of ``nodes`` are tasks (``job:index``) of the run (all of them if none is)."""
    tasks = [n for n in nodes if run.ingest.nodes[n].task_index is not None]
    return len(tasks) or len(nodes)


def _job_rate(summ: pd.DataFrame) -> float | None:
    if summ.empty or summ["rate"].isna().all():
        return None
    return float(summ["rate"].median())


def _max(summ: pd.DataFrame, column: str) -> float | None:
    if summ.empty or summ[column].isna().all():
        return None
    return float(summ[column].max())


def _order(node: str) -> tuple:
    job, _, index = node.partition(":")
    return (job, int(index) if index.isdigit() else -1, node)


def _differences(
    baseline: Run,
    failed: Run,
    nodes: list[NodeDiff],
    rate: tuple[float | None, float | None],
    last_step: tuple[float | None, float | None],
    nb: int,
    nf: int,
) -> list[str]:
    out: list[str] = []
    if nb != nf:
        out.append(f"Node count: {nf} in the failed run, {nb} in the baseline.")
    only = [n.node for n in nodes if n.presence == "failed only"]
    gone = [n.node for n in nodes if n.presence == "baseline only"]
    if only:
        out.append(f"Nodes the baseline did not have: {', '.join(only)}.")
    if gone:
        out.append(f"Nodes of the baseline that left no log here: {', '.join(gone)}.")
    bspec, fspec = _spec_shape(baseline), _spec_shape(failed)
    if bspec != fspec:
        out.append(
            f"Cluster spec: {_spec_text(fspec)} in the failed run, {_spec_text(bspec)} in the baseline."
        )
    bver, fver = _versions(baseline), _versions(failed)
    for key in sorted(set(bver) | set(fver)):
        if bver.get(key, set()) != fver.get(key, set()) and bver.get(key) and fver.get(key):
            out.append(
                f"Version of {key}: {', '.join(sorted(fver[key]))} in the failed run, "
                f"{', '.join(sorted(bver[key]))} in the baseline."
            )
    base, now = rate
    if base and now and (base / now >= RATE_FACTOR or now / base >= RATE_FACTOR):
        out.append(
            f"Step rate: {now:.3g} steps/s in the failed run, {base:.3g} in the baseline "
            f"({base / now:.1f}x {'slower' if base > now else 'faster'})."
        )
    elif base and not now:
        out.append(
            f"Step rate: the baseline made {base:.3g} steps/s; the failed run reported none."
        )
    if last_step[0] is not None and (last_step[1] or 0) < last_step[0]:
        out.append(
            f"Last step: {'none' if last_step[1] is None else f'{last_step[1]:g}'} in the failed run, "
            f"{last_step[0]:g} in the baseline."
        )
    behind = [
        f"{n.node} ({n.phase or 'nothing'} vs {n.baseline_phase})"
        for n in nodes
        if n.presence == "both"
        and n.baseline_phase
        and _phase_rank(n.phase) < _phase_rank(n.baseline_phase)
    ]
    if behind:
        out.append("Phase reached, short of the baseline: " + ", ".join(behind) + ".")
    return out


def _phase_rank(phase: str | None) -> int:
    try:
        from analyzer.diagnose.phases import PHASE_NAMES
    except ImportError:  # pragma: no cover
        return 0
    return PHASE_NAMES.index(phase) + 1 if phase in PHASE_NAMES else 0


def _spec_text(spec: dict[str, int]) -> str:
    return ", ".join(f"{n} {job}" for job, n in spec.items()) or "no spec"
