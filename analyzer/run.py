"""The notebook API, and what the CLI calls: :func:`load` runs the whole pipeline.

>>> import analyzer
>>> run = analyzer.load("sample_logs/ps_killed")      # doctest: +SKIP
>>> run.root_cause.node, run.root_cause.category      # doctest: +SKIP
('ps:0', 'node_crash')
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from analyzer.ingest import Ingest
    from analyzer.model import Diagnosis, RootCause
    from analyzer.rules import RuleSet

SCHEMA_VERSION = 1


@dataclass
class Options:
    """How to read and judge the logs (the CLI flags of ``tfdiag analyze``)."""

    tz: str | None = None
    node_tz: dict[str, str] = field(default_factory=dict)
    year: int | None = None
    patterns: Sequence[str | os.PathLike[str]] = ()
    workers: int | None = None
    max_bytes: int | None = None
    follow_links: bool = False
    regex_timeout: float = 0.5
    #: keep only the events the diagnosis needs (``tfdiag analyze``); the notebook default keeps all
    condensed: bool = False
    engine: str = (
        "local"  #: where files are parsed: ``local`` or ``dask`` (see :mod:`analyzer.engine`)
    )
    scheduler: str | None = None  #: the Dask scheduler's address for ``engine="dask"``


class Run:
    """One analysis: the timeline, the findings, the diagnosis, and ways to show them."""

    def __init__(
        self, ingest: Ingest, rules: RuleSet, options: Options, command: str | None = None
    ):
        self.ingest = ingest
        self.rules = rules
        self.options = options
        self.command = command
        self.problems: list[str] = []
        self.paths: tuple[str, ...] = ()  #: what was read (for labels)
        self.baseline: Run | None = None  #: a good run of the same job to compare with

    # -- data ------------------------------------------------------------------------------
    @cached_property
    def timeline(self) -> pd.DataFrame:
        """Every event of every node, time-sorted (schema: :mod:`analyzer.timeline`)."""
        from analyzer.timeline import to_pandas

        return to_pandas(self.ingest.timeline)

    @cached_property
    def findings(self) -> pd.DataFrame:
        """Events that matched a rule (benign ones included, flagged ``benign``).

        Index: the event's row in :attr:`timeline`. Columns: ``ts``, ``node``, ``file``,
        ``line_no``, ``level``, ``message``, ``pattern_id``, ``category``, ``severity``,
        ``benign``, ``captures`` (a dict of the rule's named groups), ``repeats`` (how many
        findings of its kind the row stands for: more than 1 where a condensed ingest left out
        events repeating its template).
        """
        from analyzer.parse import captures_of

        timeline = self.timeline
        matched = timeline["pattern_id"].notna().to_numpy()
        columns = ["ts", "node", "file", "line_no", "level", "message"]
        columns += ["pattern_id", "category", "severity", "benign", "blames", "captures"]
        columns += ["repeats"] if "repeats" in timeline.columns else []
        out = timeline.loc[matched, columns].copy()
        if "repeats" not in out.columns:  # a timeline read from an older Parquet file
            out["repeats"] = 1
        out["benign"] = out["benign"].fillna(False).astype(bool)
        parsed: dict[str, dict[str, str]] = {}  # many findings capture the same: parsed once
        out["captures"] = [
            (parsed[c] if c in parsed else parsed.setdefault(c, captures_of(c)))
            if isinstance(c, str)
            else captures_of(c)
            for c in out["captures"].astype(object)
        ]
        out.index.name = "row"
        return out

    @cached_property
    def progress(self) -> pd.DataFrame:
        """Training progress each node reported: ``node``, ``ts``, ``step``, ``epoch``, ``rate``
        (steps/s), ``step_time_s``, ``source`` (template), … (see :mod:`analyzer.progress`)."""
        from analyzer.progress import progress_of

        return progress_of(self.timeline)

    def compare(self, other: Run):
        """What differs between ``other`` (a good run of the same job) and this run: an
        :class:`analyzer.compare.Comparison` (new templates per node, divergence, versions…)."""
        from analyzer.compare import compare

        return compare(other, self)

    @cached_property
    def comparison(self):
        """:meth:`compare` with :attr:`baseline`, or None when there is no baseline."""
        return self.compare(self.baseline) if self.baseline is not None else None

    @cached_property
    def diagnosis(self) -> Diagnosis:
        """The verdict and the per-node story (see :mod:`analyzer.diagnose`)."""
        from analyzer.diagnose import diagnose

        return diagnose(
            self.timeline,
            self.findings,
            self.ingest,
            self.rules,
            progress=self.progress,
            comparison=self.comparison,
        )

    @property
    def root_cause(self) -> RootCause:
        """The first failing node, the category and the evidence chain."""
        return self.diagnosis.root_cause

    @cached_property
    def nodes(self) -> pd.DataFrame:
        """One row per node: status, files, lines, first error, last line time, …"""
        import pandas as pd

        return pd.DataFrame([n.to_dict() for n in self.diagnosis.nodes]).set_index("node")

    # -- outputs ---------------------------------------------------------------------------
    def to_dict(self, *, redact: bool = True) -> dict[str, Any]:
        """The JSON object of shared/contract.md."""
        from analyzer.report.jsonout import build

        return build(self, redact=redact)

    def to_json(self, path: str | os.PathLike[str] | None = None, *, redact: bool = True) -> str:
        """The contract's JSON text; also written to ``path`` when given."""
        text = json.dumps(self.to_dict(redact=redact), indent=2, ensure_ascii=False)
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    def to_html(self, path: str | os.PathLike[str] | None = None, *, redact: bool = True) -> str:
        """A self-contained HTML report; also written to ``path`` when given."""
        from analyzer.report.html import render

        html = render(self, redact=redact)
        if path is not None:
            Path(path).write_text(html, encoding="utf-8")
        return html

    def plot_timeline(self, **filters: Any):
        """A swimlane figure of the nodes (filters: ``nodes``, ``categories``, ``start``, ``end``)."""
        from analyzer.report.plots import plot_timeline

        return plot_timeline(self, **filters)

    def plot_progress(self, **kw: Any):
        """Step and step rate per node over time (the root cause's node drawn in red)."""
        from analyzer.report.plots import plot_progress

        kw.setdefault("highlight", self.root_cause.node)
        return plot_progress(self.progress, **kw)

    def _repr_html_(self) -> str:
        from analyzer.report.html import render_summary

        return render_summary(self)

    def __repr__(self) -> str:
        rc = self.root_cause
        return f"<Run {len(self.ingest.nodes)} nodes, verdict: {rc.category} at {rc.node}>"


def load(
    *paths: str | os.PathLike[str],
    options: Options | None = None,
    command: str | None = None,
    progress: Any = None,
    baseline: Any = None,
    **kw: Any,
) -> Run:
    """Read the logs under ``paths`` and return a :class:`Run` (keyword args set :class:`Options`).

    ``baseline``: a good run of the same job (a path, a list of paths, or a :class:`Run`), read
    with the same options; the diagnosis and the reports then compare the two."""
    from analyzer.ingest import ingest
    from analyzer.rules import load_rules
    from analyzer.sources import DEFAULT_MAX_BYTES

    options = options or Options(**kw)
    rules = load_rules(extra_dirs=[Path(p) for p in options.patterns])
    keep = keep_for(rules) if options.condensed else None
    result = ingest(
        paths,
        tz=options.tz,
        node_tz=options.node_tz,
        year=options.year,
        max_bytes=options.max_bytes or DEFAULT_MAX_BYTES,
        follow_links=options.follow_links,
        workers=options.workers,
        progress=progress,
        keep=keep,
        rules=rules,
        regex_timeout=options.regex_timeout,
        engine=options.engine,
        scheduler=options.scheduler,
    )
    run = Run(result, rules, options, command=command)
    run.paths = tuple(str(p) for p in paths)
    if baseline is not None:
        if not isinstance(baseline, Run):
            many = isinstance(baseline, list | tuple)
            baseline = load(*(baseline if many else [baseline]), options=options)
        run.baseline = baseline
    return run


#: What the diagnosis reads besides the rules' keywords: identity, cluster specs, versions, exits.
DIAGNOSIS_KEYWORDS = (
    "TF_CONFIG",
    "SLURM_PROCID",  # a launcher's rank for the task (srun, mpirun, PMI launchers)
    "OMPI_COMM_WORLD_RANK",
    "PMI_RANK",
    "PMIX_RANK",
    "task_type",
    "cluster_spec",
    "ClusterSpec",
    "cluster spec",
    "Started server",
    "GrpcChannelCache",
    "eager service context",
    "available devices",
    "compute_devices",
    "__version__",
    "TensorFlow version",
    "protobuf",
    "grpcio",
    "python 3",
    "remote target",
    "shutting down",
    "shut down",
    "exiting",
    "goodbye",
    "exit code",
    "exit status",
    "exited",
    "returncode",
    "signal",
    "killed",
    "Segmentation fault",
    "core dumped",
    "Aborted",
    "terminate called",
    "raining finished",
    "inished training",
    "raining complete",
    "Loss for final step",
    "GetNext",  # an input iterator's pending read cancelled (straggler._input_pending)
    "saving",  # a task saying it writes a file (shared_files: two tasks, one file)
    "saved",
    "writing",
    "wrote",
)  # the specific words among analyzer.diagnose.KEYWORDS; its generic ones ("python") would keep too much


def keep_for(rules: RuleSet):
    """The :class:`analyzer.formats.Keep` of a condensed ingest for these rules."""
    import re

    from analyzer.formats import Keep
    from analyzer.progress import KEEP_PATTERN

    words = {k for rule in rules for k in rule.keywords} | set(DIAGNOSIS_KEYWORDS)
    # a word that holds a shorter one matches no line the shorter does not (the match is
    # case-insensitive): fewer alternatives keep RE2's DFA within its memory, or it falls back
    # to a pass 17x slower
    lower = sorted({w.lower() for w in words}, key=len)
    kept: list[str] = []
    for w in lower:
        if not any(k in w for k in kept):
            kept.append(w)
    return Keep("|".join(re.escape(w) for w in sorted(kept)), progress=KEEP_PATTERN)
