"""The results that flow from diagnosis to reports: plain dataclasses, JSON-ready.

``to_dict()`` on each gives the shape of shared/contract.md; times are ISO 8601 UTC with ``Z``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

STATUSES = ("ok", "failed", "victim", "silent", "missing")

#: Taxonomy ids in the order of shared/taxonomy.md (the contract; tests check this list against it).
CATEGORIES: tuple[str, ...] = (
    "deadline_exceeded",
    "address_in_use",
    "connection_unavailable",
    "name_resolution",
    "cluster_spec_mismatch",
    "session_blocked",
    "version_mismatch",
    "dtype_mismatch",
    "shape_mismatch",
    "oom",
    "node_crash",
    "coordination_failure",
    "hang",
    "straggler",
    "preemption",
    "concurrent_write",
    "filesystem_error",
    "collective_error",
    "none",
)


def iso(ts: Any) -> str | None:
    """A timestamp (datetime, pandas Timestamp, None/NaT) as ``2026-11-22T04:10:11.123456Z``."""
    if ts is None:
        return None
    try:
        import pandas as pd

        if pd.isna(ts):
            return None
        ts = pd.Timestamp(ts)
        ts = ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
        text = ts.strftime("%Y-%m-%dT%H:%M:%S.%f")
    except ImportError:  # pragma: no cover - pandas is a core dependency
        text = datetime.fromisoformat(str(ts)).strftime("%Y-%m-%dT%H:%M:%S.%f")
    return text + "Z"


@dataclass
class Evidence:
    """One log line that supports the verdict, and why it counts."""

    node: str
    time: Any
    file: str | None
    line_no: int | None
    text: str
    why: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "time": iso(self.time),
            "file": self.file,
            "line_no": self.line_no,
            "text": self.text,
            "why": self.why,
        }


@dataclass
class RootCause:
    """The verdict: the first failing node and what happened there."""

    node: str | None
    task: str | None
    category: str  #: an id of shared/taxonomy.md; ``none`` for a healthy run
    confidence: float
    time: Any
    summary: str
    evidence: list[Evidence] = field(default_factory=list)
    pattern_id: str | None = None
    remediation: str | None = None
    ambiguity: str | None = None  #: what is uncertain, when the verdict is not clear-cut

    def to_dict(self) -> dict[str, Any]:
        out = {
            "node": self.node,
            "task": self.task,
            "category": self.category,
            "confidence": round(float(self.confidence), 3),
            "time": iso(self.time),
            "summary": self.summary,
            "evidence": [e.to_dict() for e in self.evidence],
        }
        if self.pattern_id:
            out["pattern_id"] = self.pattern_id
        if self.remediation:
            out["remediation"] = self.remediation
        if self.ambiguity:
            out["ambiguity"] = self.ambiguity
        return out


@dataclass
class NodeReport:
    """One node as the diagnosis sees it."""

    node: str
    task: str | None
    files: list[str]
    lines: int
    status: str  #: one of :data:`STATUSES`
    first_error_time: Any = None
    first_error: str | None = None  #: the first error-level finding's message
    first_error_category: str | None = None
    first_time: Any = None
    last_time: Any = None
    ending: str | None = None  #: ``clean``, ``exception``, ``killed``, ``mid-run``, ``no log``
    exit_info: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    cluster: dict[str, list[str]] | None = None
    address: str | None = None
    clock_offset_s: float | None = None  #: estimated offset of this node's clock (+ = ahead)
    #: how far this node's zone-less timestamps sat from its own epoch/zoned ones (aligned)
    zone_offset_s: float | None = None
    lag_s: float | None = None  #: for a victim: first symptom minus the root cause time
    blamed_by: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "node": self.node,
            "task": self.task,
            "files": self.files,
            "lines": self.lines,
            "first_error_time": iso(self.first_error_time),
            "last_time": iso(self.last_time),
            "status": self.status,
        }
        extra = {
            "first_time": iso(self.first_time),
            "first_error": self.first_error,
            "first_error_category": self.first_error_category,
            "ending": self.ending,
            "exit_info": self.exit_info,
            "versions": self.versions or None,
            "cluster": self.cluster,
            "address": self.address,
            "clock_offset_s": self.clock_offset_s,
            "zone_offset_s": self.zone_offset_s,
            "lag_s": self.lag_s,
            "blamed_by": self.blamed_by or None,
        }
        out.update({k: v for k, v in extra.items() if v is not None})
        return out


@dataclass
class Diagnosis:
    """What :func:`analyzer.diagnose.diagnose` concludes."""

    root_cause: RootCause
    nodes: list[NodeReport]
    #: cross-node observations: differing cluster specs or versions, two tasks on one address…
    consistency: list[str] = field(default_factory=list)
    clock_offsets: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  #: how the verdict was reached, step by step

    def node(self, node_id: str) -> NodeReport | None:
        return next((n for n in self.nodes if n.node == node_id), None)
