"""Stage 6: from findings to a verdict — the first failing node, what happened there, and why.

The algorithm, one step per function (:func:`gather` runs steps 0–5, :func:`diagnose` all):

0. **Zones** (:func:`zone_offsets`). A log that mixes epoch-stamped C++ lines with zone-less
   Python lines tells its own zone error: neighbouring lines of the two kinds should agree.
   A node whose zone-less lines sit a quarter-hour multiple away gets them aligned.
1. **Node facts** (:func:`node_facts`). Per node: first and last line time, how the log ends
   (``clean`` goodbye, ``exception``, ``killed`` / exit info, or ``mid-run``: no goodbye at all),
   versions printed, cluster spec and served address. Vectorized: one group-by for the
   times, the last ``TAIL_EVENTS`` events per node, one regex prefilter for version and
   TF_CONFIG lines.
2. **Blame** (:func:`resolve_blames`). A finding whose rule ``blames`` a captured peer
   (``/job:ps/replica:0/task:0``, ``127.0.0.1:2222``, ``ps_index``) — or whose gRPC error names
   a ``remote target`` in its continuation lines — is evidence against that peer, resolved to
   a node id through task names, ``Started server`` addresses and the majority cluster spec.
   ``blames: self`` makes it the node's own (intrinsic) error. An address that only a
   disagreeing cluster spec lists is not blame. A blame logged well after the blamer's own
   first error is teardown noise (:func:`mark_early`).
3. **Consistency** (:func:`check_consistency`). Cluster specs that disagree (the odd ones
   out are suspects), a task outside its own spec, two tasks on one address, differing
   TensorFlow / Python / protobuf / gRPC versions.
4. **Clock skew** (:func:`estimate_clock_offsets`). Near-simultaneous events — start-up and
   the burst of first errors one failure causes on its victims — give pairwise differences;
   the node whose median difference stands out most is corrected first, and so on. A
   correction needs two kinds of event to agree, or a huge offset on a log that does not
   even overlap its peers' (a task started late overlaps: its peers waited for it).
5. **Silence** (:func:`detect_silence`, :func:`detect_blocked`). A log that ends mid-run
   while its peers go on is a silent death when the node is blamed or its peers start
   failing soon after it stops. A log that ends still waiting at start-up is blocked.
6. **Scoring** (:func:`score_candidates`). Points for being blamed (more for many blamers,
   one for late blame), an intrinsic error (one more if the log ends with it), a silent
   death (one more if peers reacted at once), a kill, being the odd one out in cluster spec
   or versions, having no log while peers wait or fail; a node whose own first error blames
   someone else loses a point. Ties go to the earliest (corrected) failure, then node order.
   Causal evidence (blame) thus outranks timestamps.
7. **Verdict** (:func:`diagnose`). The winner is ``failed``; its category is what happened
   there: its intrinsic error's category (``cluster_spec_mismatch`` when that is what a wrong
   spec causes and its spec is the odd one), else the odd spec or version, ``session_blocked``
   for a task its peers waited for, ``deadline_exceeded`` for a silent node its peers then
   time out on (hung), else ``node_crash`` (silent, killed, missing). Others are ``victim``
   (with lag), ``silent``, ``missing`` or ``ok``. Confidence is ``1 - 0.5 ** (score / 2)``,
   cut for a close runner-up, a missing log or a verdict that rests on clock correction.
   No sign of failure at all: category ``none``.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict, namedtuple
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from analyzer.identity import task_name
from analyzer.model import Diagnosis, Evidence, NodeReport, RootCause

if TYPE_CHECKING:
    from analyzer.ingest import Ingest
    from analyzer.rules import RuleSet

# --------------------------------------------------------------------------- knobs

#: Categories that are usually what a node sees when *another* node failed.
SYMPTOM_CATEGORIES = frozenset(
    {"connection_unavailable", "deadline_exceeded", "session_blocked", "coordination_failure"}
)
#: What a wrong cluster spec typically causes at the node that holds it.
SPEC_CONSEQUENCES = SYMPTOM_CATEGORIES | {"address_in_use", "name_resolution"}
ERROR_SEVERITIES = ("error", "fatal")
BLAME_SEVERITIES = ("warning", "error", "fatal")
SKEW_MIN_S = 30.0  #: smaller apparent offsets are normal start-up / reaction jitter
SKEW_HUGE_S = 600.0  #: an offset this large is a clock (or zone) error even on one event kind
ZONE_STEP_S = 900  #: time zones are whole quarter hours apart
SKEW_AGREE_S = 15.0  #: two event kinds agree when their offsets differ by less than this
SILENCE_GRACE_S = 1.0  #: peers must log this much longer than a node for it to be "silent"
START_WAIT_S = 10.0  #: start-up waits shorter than this are normal
BLOCKED_TAIL = 12  #: a start-up wait this close to a log's end means it never got further
SILENCE_BURST_S = 120.0  #: peers failing within this time after a node stops implicate it
LATE_BLAME_S = 1.0  #: a blame this long after the blamer's own first error is teardown noise
REGEX_TIMEOUT_S = 0.5  #: per rule re-run over an error's continuation lines
CONTINUATION_LINES = 12  #: level-less lines after an error that still belong to it
CONTINUATION_BEFORE = 2  #: lines before a level-less finding that it belongs with
CLEAN_LOOKBACK = 8  #: a goodbye among a log's last this-many info lines makes a clean end
TAIL_EVENTS = 40  #: events per node inspected to tell how its log ends
MAX_EVIDENCE = 8
SHORT_MESSAGE = 60  #: evidence lines shorter than this show their continuation lines too
TEXT_LIMIT = 300

#: Substrings of the lines this module reads beyond the rules' matches (for a condensed ingest).
KEYWORDS = (
    "remote target",
    "TF_CONFIG",
    "cluster spec",
    "Started server",
    "version",
    "python",
    "protobuf",
    "grpcio",
    "shutting down",
    "shut down",
    "finished",
    "exiting",
    "goodbye",
    "exit",
    "returncode",
    "signal",
    "killed",
    "SIG",
    "Segmentation fault",
    "core dumped",
    "Aborted",
    "terminate called",
)

DEFAULT_REMEDIATION = {
    "node_crash": "Find out why the process died: check the host's kernel log (dmesg) for the "
    "OOM killer, the scheduler's events for evictions, and the node's stderr for a native "
    "crash; restart it and consider checkpointing so the job can resume.",
    "address_in_use": "Another process holds the task's port: stop it, or give the task a free "
    "port in every node's TF_CONFIG.",
    "connection_unavailable": "Check that the peer task runs and listens on the address in the "
    "cluster spec, and that no firewall or network policy blocks the port.",
    "deadline_exceeded": "An RPC or barrier timed out: find the slow or stuck peer, or raise "
    "the timeout if the work legitimately takes longer.",
    "name_resolution": "A host name in the cluster spec does not resolve: fix the spec or DNS.",
    "cluster_spec_mismatch": "Give every task the same cluster spec (TF_CONFIG): same jobs, "
    "same addresses and ports in the same order, and a task index inside its job.",
    "session_blocked": "Start-up waits for a task that never answers: make sure every task "
    "in the cluster spec is launched and reachable.",
    "version_mismatch": "Run the same TensorFlow, protobuf and gRPC versions on every task.",
    "dtype_mismatch": "Cast the input to the dtype the model expects (check the input "
    "pipeline's dtypes against the model's).",
    "shape_mismatch": "Make the tensor shapes agree (check batch size and feature dimensions).",
    "oom": "Reduce the batch or model size, or give the task more memory.",
    "coordination_failure": "The coordination service gave up on a task: find the task it "
    "names and why it stopped answering (crash, hang, network).",
    "preemption": "The scheduler took the task away: use preemption-tolerant training "
    "(checkpoints, PreemptionCheckpointHandler) or non-preemptible capacity.",
    "concurrent_write": "Let only one task (the chief) write shared files, or give each task "
    "its own path.",
    "filesystem_error": "Check the storage path, its permissions and its availability from "
    "every node.",
    "collective_error": "Check the collective backend (NCCL) on every node: versions, network "
    "interfaces, and the NCCL_DEBUG=INFO output.",
}

ENDING_TEXT = {
    "clean": "with a clean shutdown",
    "exception": "with an error or exception",
    "killed": "with a kill / crash message",
    "mid-run": "mid-run, with no goodbye",
    "no log": "(no log)",
}

CATEGORY_PHRASE = {
    "node_crash": "died (killed or crashed)",
    "address_in_use": "could not bind its port",
    "connection_unavailable": "could not reach a peer",
    "deadline_exceeded": "ran past a deadline",
    "name_resolution": "could not resolve a peer's host name",
    "cluster_spec_mismatch": "has a cluster spec that disagrees with its peers'",
    "session_blocked": "was blocked waiting for a task at start-up",
    "version_mismatch": "runs an incompatible software version",
    "dtype_mismatch": "got a tensor of the wrong dtype",
    "shape_mismatch": "got a tensor of an incompatible shape",
    "oom": "ran out of memory",
    "coordination_failure": "was given up on by the coordination service",
    "preemption": "was preempted by the scheduler",
    "concurrent_write": "collided with another task writing the same file",
    "filesystem_error": "hit a storage error",
    "collective_error": "hit a collective-communication error",
}

# --------------------------------------------------------------------------- line patterns

_CLEAN_RE = re.compile(
    r"shutting down|shut down|training (?:finished|complete)|finished after|job finished"
    r"|exiting (?:cleanly|normally)|exit(?:ed)? with (?:code|status) 0\b|goodbye|all done"
    r"|successfully (?:finished|completed)|stopping (?:the )?(?:cluster|workers|server)",
    re.I,
)
_KILLED_RE = re.compile(
    r"\bKilled\b|SIGKILL|SIGTERM|SIGSEGV|SIGABRT|Segmentation fault|core dumped"
    r"|^Aborted\b|terminate called|(?i:exit(?:ed)?(?: with)? (?:code|status)[\s=:]*-?[1-9]\d*)"
    r"|(?i:returncode[\s=:]*-?[1-9])|(?i:signal \d+)"
)
_EXIT_RE = re.compile(
    r"(?P<text>(?i:exit(?:ed)?(?: with)? (?:code|status)[\s=:]*-?\d+|returncode[\s=:]*-?\d+)"
    r"|\bKilled\b|Segmentation fault(?: \(core dumped\))?|^Aborted(?: \(core dumped\))?"
    r"|terminate called[^\n]{0,80}|(?i:(?:received|caught|got) signal[\s:]*\w+)"
    r"|SIG(?:KILL|TERM|SEGV|ABRT|INT|BUS)\b)"
)
#: Lower-case words one of which every match of the pattern above contains (ASCII text).
_CLEAN_WORDS = ("shut", "finish", "complet", "exit", "goodbye", "all done", "stopping")
_EXIT_WORDS = ("exit", "returncode", "killed", "segmentation fault", "abort", "terminate", "sig")
_FACTS_PREFILTER = r"(?i)version|python \d|protobuf|grpcio|grpc[ =:]+v?\d|TF_CONFIG|cluster.?spec"
MAX_FACT_ROWS = 20000
_VERSION_RES = {
    "tensorflow": re.compile(
        r"(?:tf\.__version__|tensorflow(?:[ _-]version)?|TensorFlow version)\s*[=:]*\s*v?(\d+\.\d+[\w.+-]*)",
        re.I,
    ),
    "python": re.compile(r"\bpython(?: version)?[\s:=]+v?(\d+\.\d+(?:\.\d+)?)", re.I),
    "protobuf": re.compile(r"protobuf(?: version)?[\s:=]+v?(\d+\.\d+[\w.]*)", re.I),
    "grpc": re.compile(r"grpc(?:io)?(?: version)?[\s:=]+v?(\d+\.\d+[\w.]*)", re.I),
}
_REMOTE_TARGET_RE = re.compile(r"remote target (/job:[\w-]+(?:/replica:\d+)?/task:\d+)")
_PROPAGATED_RE = re.compile(r"grpc_message:\s*\"(?:[^\"]*aborted by|Cancelled|CANCELLED)", re.I)
_CANCELLED_RE = re.compile(r"CancelledError|\bCANCELLED\b")
_CLOSING_QUOTE_RE = re.compile(r'(?<!\\)"')
_TASK_RE = re.compile(r"/job:(?P<job>[\w-]+)(?:/replica:\d+)?/task:(?P<index>\d+)")
_ADDRESS_RE = re.compile(
    r"^(?:ipv[46]:|grpc://|dns:///?)?(?P<host>\[[^\]]+\]|[\w.\-]+):(?P<port>\d+)$"
)
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "0.0.0.0", "[::1]", "[::]", "::1", "::"}


# --------------------------------------------------------------------------- small helpers


def _utc(values: Any) -> pd.Series:
    """A column of timestamps (Arrow or numpy backed, naive or zoned) as UTC datetimes."""
    series = values if isinstance(values, pd.Series) else pd.Series(values)
    if isinstance(series.dtype, pd.ArrowDtype) and pa.types.is_timestamp(
        series.dtype.pyarrow_dtype
    ):
        # through Arrow: pandas' own astype from Arrow timestamps goes row by row
        arrow = pa.chunked_array(series.array.__arrow_array__()).cast(pa.timestamp("ns"))
        series = pd.Series(arrow.to_pandas().to_numpy(), index=series.index)
    return pd.to_datetime(series, utc=True, errors="coerce")


def _values(series: pd.Series) -> list:
    """A column as a plain list of the values iterating it gives (``pd.NA`` for a missing
    Arrow value), without iterating an Arrow-backed column element by element."""
    if isinstance(series.dtype, (pd.ArrowDtype, pd.StringDtype)):
        return series.to_numpy(dtype=object).tolist()
    return series.tolist()


def _column(frame: pd.DataFrame, name: str) -> list:
    """``_values`` of a column, or Nones when the frame has no such column."""
    return _values(frame[name]) if name in frame else [None] * len(frame)


def _search(pattern: re.Pattern, words: tuple[str, ...], text: str) -> re.Match | None:
    """``pattern.search(text)``, skipped when an ASCII text holds none of the ``words`` that
    every match contains (non-ASCII text may case-fold into them: always searched)."""
    if text.isascii():
        lower = text.lower()
        if not any(w in lower for w in words):
            return None
    return pattern.search(text)


def _arrow_strings(series: pd.Series) -> bool:
    """Is this an Arrow-backed string column (``string`` or ``large_string``)?"""
    dtype = series.dtype
    return isinstance(dtype, pd.ArrowDtype) and (
        pa.types.is_string(dtype.pyarrow_dtype) or pa.types.is_large_string(dtype.pyarrow_dtype)
    )


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _records(frame: pd.DataFrame) -> list:
    """``list(frame.itertuples(index=False))``, built from whole columns (fast on Arrow)."""
    row = namedtuple("Row", list(frame.columns), rename=True)
    columns = [_values(frame.iloc[:, i]) for i in range(frame.shape[1])]
    if not columns:
        return [row() for _ in range(len(frame))]
    return [row._make(v) for v in zip(*columns, strict=True)]


def _utc_one(value: Any) -> Any:
    """``_utc(pd.Series([value])).iloc[0]``, without a Series for a Timestamp."""
    if type(value) is pd.Timestamp:
        return value.tz_localize("UTC") if value.tz is None else value.tz_convert("UTC")
    return _utc(pd.Series([value])).iloc[0]


def _dict_rows(frame: pd.DataFrame) -> list[dict]:
    """The frame's rows as dicts of the values a row Series holds (built from whole columns)."""
    names = list(frame.columns)
    columns = [_values(frame.iloc[:, i]) for i in range(len(names))]
    return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]


def _seconds(delta: Any) -> float:
    return float(pd.Timedelta(delta).total_seconds())


def _text(value: Any) -> str:
    """A cell as text: None, NaN and pd.NA become the empty string."""
    if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
        return ""
    return str(value)


def _clip(text: Any, limit: int = TEXT_LIMIT) -> str:
    text = _text(text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _human_duration(seconds: float) -> str:
    seconds = abs(seconds)
    if seconds < 90:
        return f"{seconds:.1f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.2f} h"


def _rule(rules: Any, pattern_id: Any):
    if rules is None or not isinstance(pattern_id, str):
        return None
    getter = getattr(rules, "get", None)
    return getter(pattern_id) if getter else None


# --------------------------------------------------------------------------- 0. zones

#: ``ts_origin`` values whose times carry their own zone (or are epoch seconds)...
ABSOLUTE_ORIGINS = ("epoch", "wrapper")
#: ...and those read in the node's local zone (``--tz``), which may be wrong.
LOCAL_ORIGINS = ("parsed", "year_inferred")


@dataclass
class ZoneFix:
    """Per node, how far its zone-less lines sit from its own absolute (epoch/zoned) lines."""

    offsets: dict[str, float] = field(default_factory=dict)
    pairs: dict[str, int] = field(default_factory=dict)


def _origin_class(timeline: pd.DataFrame) -> pd.Series:
    """Per row: 1.0 for a zone-less (local) time, 0.0 for an absolute one, NaN otherwise."""
    codes, uniques = pd.factorize(timeline["ts_origin"])
    kinds = [
        1.0 if u in LOCAL_ORIGINS else 0.0 if u in ABSOLUTE_ORIGINS else float("nan")
        for u in uniques
    ]
    table = np.array([*kinds, float("nan")])  # code -1 (missing): NaN
    return pd.Series(table[codes], index=timeline.index)


class _Columns:
    """Whole-column conversions of one timeline, each made once and shared by the steps."""

    def __init__(self, timeline: pd.DataFrame):
        self.timeline = timeline

    @cached_property
    def ts(self) -> pd.Series:
        """``ts`` in UTC."""
        return _utc(self.timeline["ts"])

    @cached_property
    def nodes(self) -> tuple[np.ndarray, Any]:
        """``pd.factorize`` of ``node``."""
        return pd.factorize(self.timeline["node"])

    @cached_property
    def files(self) -> np.ndarray:
        """``pd.factorize`` codes of ``file``."""
        return pd.factorize(self.timeline["file"])[0]

    def plain_at(self, rows: np.ndarray) -> np.ndarray:
        """:attr:`plain` at these positions (of an Arrow column, only these rows are read)."""
        col = self.timeline.get("format")
        if "plain" in self.__dict__ or col is None or not _arrow_strings(col):
            return self.plain[rows]
        import pyarrow.compute as pc

        taken = pa.chunked_array(col.array.__arrow_array__()).take(pa.array(rows, pa.int64()))
        plain = pc.is_in(taken, value_set=pa.array(["plain", ""], taken.type))
        plain = pc.or_(plain.fill_null(False), pc.is_null(taken))
        return plain.to_numpy().astype(bool) if len(rows) else np.zeros(0, dtype=bool)

    @cached_property
    def plain(self) -> np.ndarray:
        """Per row: a level-less line (``format`` ``plain`` or none)?"""
        if "format" not in self.timeline:
            return np.ones(len(self.timeline), dtype=bool)
        codes, uniques = pd.factorize(self.timeline["format"])
        table = np.array([*(_text(u) in ("plain", "") for u in uniques), True], dtype=bool)
        return table[codes]

    @cached_property
    def line_numbers(self) -> tuple[np.ndarray, np.ndarray]:
        """``line_no`` as int64, and where it is a number at all (``int()`` works)."""
        col = self.timeline["line_no"]
        if pd.api.types.is_integer_dtype(col.dtype):
            return col.to_numpy(dtype="int64", na_value=0), col.notna().to_numpy(dtype=bool)
        values, ok = [], []
        for v in _values(col):
            try:
                values.append(int(v))
                ok.append(True)
            except (TypeError, ValueError):
                values.append(0)
                ok.append(False)
        return np.array(values, dtype=np.int64), np.array(ok, dtype=bool)


def _sort_order(node: np.ndarray, file: np.ndarray, line_no: np.ndarray) -> np.ndarray:
    """``np.lexsort((line_no, file, node))``.

    A time-sorted timeline mostly has each file's lines in order already: then two stable
    radix sorts (by file, then by node) give the lexsort's order, checked to be sorted by
    line number too; otherwise the lexsort itself.
    """
    small = np.iinfo(np.uint16).max
    if len(node) and min(node.min(), file.min()) >= 0 and max(node.max(), file.max()) <= small:
        by_file = np.argsort(file.astype(np.uint16), kind="stable")
        order = by_file[np.argsort(node[by_file].astype(np.uint16), kind="stable")]
        n, f, ln = node[order], file[order], line_no[order]
        if np.all((n[1:] != n[:-1]) | (f[1:] != f[:-1]) | (ln[1:] >= ln[:-1])):
            return order
    return np.lexsort((line_no, file, node))


def zone_offsets(timeline: pd.DataFrame, *, columns: _Columns | None = None) -> ZoneFix:
    """Step 0: compare adjacent lines of one file where one time is zone-less and one is not.

    A log that mixes epoch-stamped C++ lines with zone-less Python lines tells its own zone
    error: the median gap between neighbouring lines of the two kinds (numpy, no Python loop
    over rows; nodes without both kinds are skipped at once).
    """
    fix = ZoneFix()
    if timeline.empty or "ts_origin" not in timeline:
        return fix
    columns = columns or _Columns(timeline)
    cls = _origin_class(timeline).to_numpy()
    node_codes, node_names = columns.nodes
    seen = np.zeros((2, len(node_names) + 1), dtype=bool)  # [kind, code + 1]
    seen[1, node_codes[cls == 1.0] + 1] = True
    seen[0, node_codes[cls == 0.0] + 1] = True
    both = seen[0] & seen[1]  # per code + 1: the node has lines of both kinds
    rows = np.flatnonzero(both[node_codes + 1] & ~np.isnan(cls))
    if not len(rows):
        return fix
    file_codes = columns.files[rows]
    line_no = timeline["line_no"].to_numpy(dtype="int64", na_value=0)[rows]
    ts = columns.ts.to_numpy(dtype="datetime64[ns]").astype("int64")[rows]
    order = _sort_order(node_codes[rows], file_codes, line_no)
    node, file, kind, ts = node_codes[rows][order], file_codes[order], cls[rows][order], ts[order]
    pair = (node[1:] == node[:-1]) & (file[1:] == file[:-1]) & (kind[1:] != kind[:-1])
    # local minus absolute time of each neighbouring pair, in seconds
    gap = (ts[1:] - ts[:-1]) / 1e9 * np.where(kind[1:] == 1.0, 1.0, -1.0)
    gaps = pd.Series(gap[pair]).groupby(node[1:][pair])
    for code, values in gaps:
        offset = _zone_step(float(values.median()))
        if abs(offset) >= SKEW_MIN_S and len(values) >= 2:
            fix.offsets[str(node_names[code])] = offset
            fix.pairs[str(node_names[code])] = len(values)
    return fix


def _zone_step(offset: float) -> float:
    """One machine's two kinds of stamp differ by its zone: a whole quarter hour, when close."""
    step = round(offset / ZONE_STEP_S) * ZONE_STEP_S
    return float(step) if step and abs(offset - step) < SKEW_MIN_S else offset


def aligned_times(timeline: pd.DataFrame, fix: ZoneFix) -> pd.Series:
    """The timeline's ``ts`` as UTC, with each node's zone-less lines moved by its zone fix.

    Lines that inherited their time follow the line they inherited it from.
    """
    ts = _utc(timeline["ts"])
    if not fix.offsets:
        return ts
    cls = _origin_class(timeline)
    frame = pd.DataFrame(
        {"node": timeline["node"].astype(str), "file": timeline["file"].astype(str), "cls": cls}
    )
    frame["line_no"] = timeline["line_no"].astype("int64")
    order = frame.sort_values(["node", "file", "line_no"], kind="stable")
    order["cls"] = order.groupby(["node", "file"], sort=False)["cls"].ffill()
    cls = order["cls"].reindex(timeline.index)
    shift = frame["node"].map(fix.offsets).fillna(0.0) * (cls == 1.0)
    return ts - pd.to_timedelta(shift, unit="s")


# --------------------------------------------------------------------------- 1. node facts


@dataclass
class Facts:
    """What one node's own log tells, before any cross-node reasoning."""

    node: str
    files: list[str] = field(default_factory=list)
    lines: int = 0
    first_time: pd.Timestamp | None = None
    last_time: pd.Timestamp | None = None
    last_line: dict | None = None  #: the last event (time, file, line_no, message)
    ending: str = "no log"
    exit_info: str | None = None
    exit_line: dict | None = None
    versions: dict[str, str] = field(default_factory=dict)
    version_lines: dict[str, dict] = field(default_factory=dict)
    cluster: dict[str, list[str]] | None = None
    tf_config_line: dict | None = None
    address: str | None = None
    task: dict | None = None  #: TF_CONFIG's own task entry
    missing: bool = False
    tail_rows: list = field(default_factory=list)  #: timeline rows of its last events, in order
    uncaught: bool = False  #: the log ends with a Python traceback


def _event(row: Any) -> dict:
    return {
        "ts": row.ts,
        "file": getattr(row, "file", None),
        "line_no": getattr(row, "line_no", None),
        "message": getattr(row, "message", None),
    }


def _ending_of(tail: pd.DataFrame | list) -> tuple[str, str | None, dict | None]:
    """How a log ends, from its last few events (a frame, or its :func:`_records`):
    (ending, exit info, the exit line)."""
    rows = _records(tail) if isinstance(tail, pd.DataFrame) else tail
    exit_info = exit_line = None
    for row in rows:
        m = _search(_EXIT_RE, _EXIT_WORDS, _text(row.message))
        if m:
            exit_info, exit_line = m["text"], _event(row)
    if exit_info and _KILLED_RE.search(exit_info):
        return "killed", exit_info, exit_line
    progress = 0
    for row in reversed(rows):
        if _search(_CLEAN_RE, _CLEAN_WORDS, _text(row.message)):
            return "clean", exit_info, exit_line
        level = _text(getattr(row, "level", None)).upper()
        if level in ("ERROR", "FATAL", "CRITICAL") or _text(getattr(row, "format", None)) in (
            "python_traceback",
            "cpp_stacktrace",
        ):
            return "exception", exit_info, exit_line
        if level in ("INFO", "DEBUG"):
            progress += 1
            if progress >= CLEAN_LOOKBACK:  # ordinary progress was the last word
                break
        # level-less continuation lines, warnings, a short teardown: look further back
    return "mid-run", exit_info, exit_line


def _fact_rows(timeline: pd.DataFrame) -> pd.DataFrame:
    """The few rows that may print versions or a TF_CONFIG: one vectorized regex pass."""
    hit = _contains(timeline["message"], _FACTS_PREFILTER)
    rows = timeline.loc[hit, ["ts", "node", "file", "line_no", "message"]]
    return rows.head(MAX_FACT_ROWS)


def _contains(series: pd.Series, pattern: str) -> np.ndarray:
    """``series.str.contains(pattern, regex=True).fillna(False)`` as a numpy mask; on an Arrow
    string column through :func:`analyzer.classify.regex_rows` (RE2, as pandas runs there too,
    over blocks of rows first: the pattern has no anchor or word boundary)."""
    if not _arrow_strings(series):
        return series.str.contains(pattern, regex=True).fillna(False).astype(bool).to_numpy()
    from analyzer.classify import regex_rows

    chunks = pa.chunked_array(series.array.__arrow_array__()).chunks
    parts = [regex_rows(arr, pattern, block=64) for arr in chunks]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def _scan_versions(rows: pd.DataFrame) -> dict[str, tuple[dict[str, str], dict[str, dict]]]:
    """Versions each node printed (first mention of each), with the line that printed it."""
    out: dict[str, tuple[dict[str, str], dict[str, dict]]] = {}
    for row in _records(rows):
        versions, lines = out.setdefault(str(row.node), ({}, {}))
        for name, rx in _VERSION_RES.items():
            if name in versions:
                continue
            m = rx.search(_text(row.message))
            if m:
                versions[name] = m.group(1).rstrip(".,;")
                lines[name] = _event(row)
    return out


def _tf_config_lines(rows: pd.DataFrame) -> dict[str, dict]:
    """The first line of each node that prints its TF_CONFIG / cluster spec."""
    hit = rows["message"].str.contains("TF_CONFIG|cluster.?spec", regex=True).fillna(False)
    first = rows[hit.astype(bool).to_numpy()].drop_duplicates("node", keep="first")
    return {str(r.node): _event(r) for r in _records(first)}


def _tails(timeline: pd.DataFrame, ts: pd.Series, codes: np.ndarray) -> dict[str, tuple]:
    """The last ``TAIL_EVENTS`` events of each node (positions found with numpy, rows taken):
    node → (their index labels, their :func:`_records`), nodes in order of first appearance."""
    last = np.sort(_last_per_group(codes, TAIL_EVENTS))
    cols = [c for c in ("node", "file", "line_no", "level", "format", "message") if c in timeline]
    tails = timeline[cols].iloc[last]
    rows = _records(tails.assign(ts=ts.iloc[last].array))
    groups: dict[str, tuple[list, list]] = {}
    for label, row in zip(tails.index.tolist(), rows, strict=True):
        if _missing(row.node):
            continue
        node = str(row.node)
        labels, own = groups.setdefault(node, ([], []))
        labels.append(label)
        own.append(row._replace(node=node))
    return groups


def _last_per_group(codes: np.ndarray, n: int) -> np.ndarray:
    """Positions of the last ``n`` rows of each code (``groupby(codes).tail(n)``, unordered).

    Only a suffix of the rows is sorted: the shortest (of growing ones) that holds each
    code's last ``n`` rows (all of them for a code with fewer).
    """
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    shifted = codes.astype(np.int64) + 1  # code -1 (missing) is a group too
    need = np.minimum(np.bincount(shifted), n)
    size = min(len(shifted), max(4 * n * len(need), 4096))
    while True:
        block = shifted[len(shifted) - size :]
        have = np.bincount(block, minlength=len(need))
        if size == len(shifted) or np.all(have >= need):
            break
        size = min(len(shifted), 4 * size)
    # a stable sort of small integers is a radix sort
    small = block.astype(np.uint16) if len(need) <= 2**16 else block
    order = np.argsort(small, kind="stable")
    ends = np.cumsum(have)[block[order]]
    return len(shifted) - size + order[ends - np.arange(len(order)) <= n]


def _first_per_group(codes: np.ndarray) -> dict[int, int]:
    """code → position of its first row (codes ≥ 0), from the shortest prefix holding all."""
    present = np.flatnonzero(np.bincount(codes[codes >= 0])) if len(codes) else []
    size = min(len(codes), 4096)
    while True:
        block = pd.Series(codes[:size])
        first = block[block >= 0].drop_duplicates()
        if size == len(codes) or len(first) == len(present):
            return dict(zip(first.tolist(), first.index.tolist(), strict=True))
        size = min(len(codes), 4 * size)


def _time_span(ts: pd.Series, codes: np.ndarray, names: Any) -> tuple[dict, dict]:
    """Per node, its first and last time (min and max, NaT ignored).

    In a time-sorted timeline without NaT, those are the times of its first and last row.
    """
    raw = ts.to_numpy(dtype="datetime64[ns]")
    if len(raw) and not np.isnat(raw).any() and bool(np.all(raw[1:] >= raw[:-1])):
        first = _first_per_group(codes)
        last_rows = _last_per_group(codes, 1)
        last = dict(zip(codes[last_rows].tolist(), last_rows.tolist(), strict=True))
        keys = sorted(first)
        mins = ts.iloc[[first[k] for k in keys]].tolist()
        maxs = ts.iloc[[last[k] for k in keys]].tolist()
        return (
            {str(names[k]): v for k, v in zip(keys, mins, strict=True)},
            {str(names[k]): v for k, v in zip(keys, maxs, strict=True)},
        )
    times = ts.groupby(codes).agg(["min", "max"])
    return (
        {str(names[k]): v for k, v in times["min"].items() if k >= 0},
        {str(names[k]): v for k, v in times["max"].items() if k >= 0},
    )


def _last_meaningful(tail: pd.DataFrame | list) -> dict:
    """The last event with some words in it (a log may end with a lone ``}``)."""
    rows = _records(tail) if isinstance(tail, pd.DataFrame) else tail
    for row in reversed(rows):
        if re.search(r"[A-Za-z]{3}", _text(row.message)):
            return _event(row)
    return _event(rows[-1])


def _facts_from_ingest(ingest: Ingest) -> dict[str, Facts]:
    facts: dict[str, Facts] = {}
    for node, info in ingest.nodes.items():
        tf_task = (info.tf_config or {}).get("task") if isinstance(info.tf_config, dict) else None
        facts[node] = Facts(
            node,
            files=list(info.files),
            lines=int(info.lines),
            cluster=info.cluster,
            address=info.address,
            task=tf_task if isinstance(tf_task, dict) else None,
            missing=info.missing,
        )
    return facts


def node_facts(
    timeline: pd.DataFrame, ingest: Ingest, *, columns: _Columns | None = None
) -> dict[str, Facts]:
    """Step 1: per node, its times, ending, exit info, versions, cluster spec and address."""
    facts = _facts_from_ingest(ingest)
    if timeline.empty:
        return facts
    columns = columns or _Columns(timeline)
    ts = columns.ts
    codes, names = columns.nodes
    firsts, lasts = _time_span(ts, codes, names)
    fact_rows = _fact_rows(timeline)
    versions = _scan_versions(fact_rows)
    configs = _tf_config_lines(fact_rows)
    for node, (labels, tail) in _tails(timeline, ts, codes).items():
        f = facts.setdefault(node, Facts(node))
        f.first_time, f.last_time = firsts[node], lasts[node]
        f.last_line = _last_meaningful(tail)
        f.tail_rows = labels
        f.ending, f.exit_info, f.exit_line = _ending_of(tail)
        f.uncaught = f.ending == "exception" and any(
            isinstance(v, str) and v == "python_traceback"
            for v in (getattr(row, "format", None) for row in tail)
        )
        f.versions, f.version_lines = versions.get(node, ({}, {}))
        f.tf_config_line = configs.get(node)
    return facts


# --------------------------------------------------------------------------- 2. blame


@lru_cache(maxsize=4096)
def _address_key(text: str) -> tuple[str, str] | None:
    m = _ADDRESS_RE.match(text.strip())
    if not m:
        return None
    host = m["host"].lower()
    return ("local" if host in _LOCAL_HOSTS else host, m["port"])


class PeerDirectory:
    """Resolves what an error line names (task, address, index) to a node id."""

    def __init__(self, facts: dict[str, Facts], majority_nodes: set[str] | None = None):
        self.nodes = set(facts)
        self.served: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.spec: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.minority_spec: dict[tuple[str, str], set[str]] = defaultdict(set)
        for f in facts.values():
            if f.address and (key := _address_key(f.address)):
                self.served[key].add(f.node)
            table = self.spec if majority_nodes is None or f.node in majority_nodes else None
            for job, addrs in (f.cluster or {}).items():
                for index, addr in enumerate(addrs):
                    key = _address_key(addr)
                    if key:
                        (table if table is not None else self.minority_spec)[key].add(
                            f"{job}:{index}"
                        )

    def resolve(self, group: str, value: str) -> tuple[str | None, str]:
        """(node or None, how it was resolved) for one captured value."""
        value = str(value).strip()
        m = _TASK_RE.search(value)
        if m:
            if group == "remote_target":
                return f"{m['job']}:{int(m['index'])}", "the failed RPC's remote target"
            return f"{m['job']}:{int(m['index'])}", "by task name"
        job_index = re.fullmatch(r"(?P<job>[a-z]+)_(?:index|task|id)", group)
        if job_index and value.isdigit():
            return f"{job_index['job']}:{int(value)}", f"{job_index['job']} index {value}"
        key = _address_key(value)
        if key is None:
            return None, f"unrecognised peer {value!r}"
        for table, where in ((self.served, "serves"), (self.spec, "listens in the cluster spec")):
            found = table.get(key, set())
            if len(found) == 1:
                node = next(iter(found))
                return node, f"{value} is where {node} {where}"
        if self.minority_spec.get(key):
            return None, f"{value} appears only in a cluster spec that disagrees with the others"
        return None, f"{value} belongs to no known task"


def _candidate_values(captures: dict, blames: str | None) -> list[tuple[str, str]]:
    """The captures worth resolving, the rule's ``blames`` group first."""
    values = [(blames, captures[blames])] if blames and blames in captures else []
    for name in ("peer_task", "peer_address", *sorted(captures)):
        if (
            name != blames
            and name in captures
            and (name.startswith("peer") or name.endswith("_index"))
        ):
            values.append((name, captures[name]))
    return values


def _blamed_peer(
    victim: str, values: list[tuple[str, str]], directory: PeerDirectory
) -> tuple[str | None, str | None]:
    """The first value that resolves to a node other than the victim itself."""
    for group, value in values:
        node, how = directory.resolve(group, value)
        if node and node != victim:
            return node, how
    return None, None


def _captures_in(rule: Any, text: str) -> dict[str, str]:
    """The rule's named groups over the full text (its continuation lines included)."""
    compiled = getattr(rule, "compiled", None)
    if compiled is None or not text:
        return {}
    try:
        m = compiled.search(text, timeout=REGEX_TIMEOUT_S)
    except TimeoutError:
        return {}
    return {k: v for k, v in m.groupdict().items() if v is not None} if m else {}


def _remote_targets(text: str) -> list[tuple[str, str]]:
    """``remote target /job:...`` in a gRPC error: the task whose RPC failed.

    A target that only relayed an error (the next ``remote target`` sits inside its own
    ``grpc_message``) is skipped for the inner one, the origin. A target whose own error is
    an abort propagated from elsewhere (``Collective ops is aborted by``, ``CANCELLED``) is a
    fellow victim, not the culprit, and is skipped too.
    """
    out = []
    matches = list(_REMOTE_TARGET_RE.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        segment = text[m.end() : end]
        if i + 1 < len(matches) and _relays(segment):
            continue
        if _PROPAGATED_RE.search(segment[:400]):
            continue
        out.append(("remote_target", m.group(1)))
    return out


def _relays(segment: str) -> bool:
    """Does a ``grpc_message:"`` string open in ``segment`` and stay open to its end?"""
    opened = segment.find('grpc_message:"')
    if opened < 0:
        return False
    return _CLOSING_QUOTE_RE.search(segment, opened + len('grpc_message:"')) is None


def resolve_blames(
    findings: pd.DataFrame,
    directory: PeerDirectory,
    rules: Any,
    texts: dict[Any, str] | None = None,
) -> pd.DataFrame:
    """Step 2: one row per finding that blames a node: victim, blamed, how, and the line.

    ``texts`` maps a finding's row to its full text (message and detail); a ``remote target``
    named there is the peer the gRPC error came from and is preferred over other captures.
    """
    columns = ["row", "victim", "blamed", "self", "how", "ts", "pattern_id", "category", "severity"]
    texts = texts or {}
    directory = _MemoDirectory(directory)
    labels = findings.index.tolist()
    victims = [n if type(n) is str else str(n) for n in _values(findings["node"])]
    pattern_ids = _column(findings, "pattern_id")
    full = [texts.get(r, "") for r in labels] if texts else [""] * len(labels)
    kept: list[int] = []
    rows: list[tuple] = []
    rule_of: dict[Any, tuple[Any, Any]] = {}  # pattern id → (rule, what it blames)
    memo: dict[tuple, list] = {}  # many findings repeat one text: its peers found once...
    resolved: dict[tuple, tuple[str | None, str | None]] = {}  # ...and resolved once per victim
    for i, (row_id, victim, pattern_id, message, captures, text) in enumerate(
        zip(
            labels,
            victims,
            pattern_ids,
            _cancel_candidates(findings),
            _column(findings, "captures"),
            full,
            strict=True,
        )
    ):
        try:
            rule, blames = rule_of[pattern_id]
        except KeyError:
            rule = _rule(rules, pattern_id)
            rule, blames = rule_of[pattern_id] = (rule, getattr(rule, "blames", None))
        except TypeError:  # an unhashable pattern id
            rule = _rule(rules, pattern_id)
            blames = getattr(rule, "blames", None)
        if blames == "self":
            blamed, how = victim, "the rule blames the node that logged it"
        else:
            if message is not None and _CANCELLED_RE.search(message):
                continue  # a cancelled call says nothing about the peer it went to
            if not isinstance(captures, dict):
                captures = {}
            try:  # (the rule follows from the pattern id)
                key = (pattern_id, text, tuple(captures.items()))
                got = resolved.get((key, victim))
            except TypeError:  # an unhashable pattern id or capture
                key = got = None
            if got is None:
                values = memo.get(key) if key is not None else None
                if values is None:
                    values = _peer_values(rule, blames, captures, text)
                    if key is not None:
                        memo[key] = values
                got = _blamed_peer(victim, values, directory)
                if key is not None:
                    resolved[key, victim] = got
            blamed, how = got
            if blamed is None:
                continue
        kept.append(i)
        rows.append((row_id, victim, blamed, blamed == victim, how, pattern_id))
    if not kept:
        return pd.DataFrame([], columns=columns)
    names = ["row", "victim", "blamed", "self", "how", "pattern_id"]
    out: dict[str, Any] = {n: list(v) for n, v in zip(names, zip(*rows, strict=True), strict=True)}
    for name in ("category", "severity"):
        values = _column(findings, name)
        out[name] = [values[i] for i in kept]
    ts = findings["ts"].iloc[kept]
    if isinstance(ts.dtype, pd.ArrowDtype) and pa.types.is_timestamp(ts.dtype.pyarrow_dtype):
        # the column a list of its Timestamps would give, through Arrow
        out["ts"] = pa.chunked_array(ts.array.__arrow_array__()).to_pandas().array
    else:
        out["ts"] = ts.tolist()
    return pd.DataFrame(out, columns=columns)


def _cancel_candidates(findings: pd.DataFrame) -> list[str | None]:
    """Per finding, its message as text if it may say CANCELLED (holds ``CancelledError`` or
    ``CANCELLED``, which every match of ``_CANCELLED_RE`` does), else None: only those few
    messages become Python strings."""
    n = len(findings)
    if "message" not in findings:
        return [None] * n
    col = findings["message"]
    if not _arrow_strings(col):
        texts = (_text(v) for v in _values(col))
        return [t if "CancelledError" in t or "CANCELLED" in t else None for t in texts]
    import pyarrow.compute as pc

    arr = pa.chunked_array(col.array.__arrow_array__())
    maybe = pc.or_(pc.match_substring(arr, "CancelledError"), pc.match_substring(arr, "CANCELLED"))
    rows = np.flatnonzero(maybe.fill_null(False).to_numpy(zero_copy_only=False))
    out: list[str | None] = [None] * n
    for row, text in zip(rows.tolist(), arr.take(pa.array(rows)).to_pylist(), strict=True):
        out[row] = text
    return out


def _peer_values(rule: Any, blames: str | None, captures: dict, text: str) -> list:
    """What a (non-self) finding names, in order of preference: the remote targets in its
    full text, then the rule's ``blames`` capture and other peer captures (over the full
    text too when the line itself lacks the ``blames`` group)."""
    if blames and blames not in captures:
        captures = {**_captures_in(rule, text), **captures}
    return _remote_targets(text) + _candidate_values(captures, blames)


class _MemoDirectory:
    """A :class:`PeerDirectory` that resolves each (group, value) once."""

    def __init__(self, directory: PeerDirectory):
        self._directory = directory
        self._memo: dict[tuple[str, str], tuple[str | None, str]] = {}

    def resolve(self, group: str, value: str) -> tuple[str | None, str]:
        key = (group, value)
        try:
            got = self._memo.get(key)
        except TypeError:  # an unhashable capture
            return self._directory.resolve(group, value)
        if got is None:
            got = self._memo[key] = self._directory.resolve(group, value)
        return got


def finding_texts(
    timeline: pd.DataFrame, findings: pd.DataFrame, *, columns: _Columns | None = None
) -> dict[Any, str]:
    """Each finding's full text: message, detail, and the level-less lines that belong to it.

    gRPC's ``Additional GRPC error information from remote target ...`` often follows the error
    line as separate, level-less lines of the same file: they belong to a leveled finding. A
    finding that is itself such a level-less line belongs with the line or two before it.

    A line continues a finding when it is level-less (format ``plain`` or none), of the same
    node and file, and within ``k`` (+2 for blank lines) lines of it, ``k`` lines on; the
    continuation stops at the first line that does not. Found for all findings at once (numpy,
    one step per ``k``); only the messages of the lines taken are converted to text.
    """
    if findings is None or findings.empty or timeline.empty:
        return {}
    columns = columns or _Columns(timeline)
    n = len(timeline)
    positions = timeline.index.get_indexer(findings.index)
    found = positions >= 0
    heads = positions[found]
    node, file, plain_at = columns.nodes[0], columns.files, columns.plain_at
    line, line_ok = columns.line_numbers
    # a missing node or file continues nothing (as NaN != NaN)
    head_ok = (node[heads] >= 0) & (file[heads] >= 0) & line_ok[heads]

    def extent(live: np.ndarray, steps: int, sign: int) -> np.ndarray:
        """For the findings ``live`` (indices into ``heads``): how many lines, one after another
        ``sign``-wards, continue each (``_continues`` and level-less)."""
        count = np.zeros(len(heads), dtype=np.int64)
        live = live[head_ok[live]]
        for k in range(1, steps + 1):
            rows = heads[live] + sign * k
            inside = (rows >= 0) & (rows < n)
            live, rows = live[inside], rows[inside]
            h = heads[live]
            gap = (line[rows] - line[h]) * sign
            ok = (node[rows] == node[h]) & (file[rows] == file[h]) & line_ok[rows]
            ok &= (gap > 0) & (gap <= k + 2)
            ok[ok] = plain_at(rows[ok])
            live = live[ok]
            count[live] += 1
            if not len(live):
                break
        return count

    head_plain = plain_at(heads)
    # a leveled finding: the plain lines after it; a continuation itself: the lines before it
    after = extent(np.flatnonzero(~head_plain), CONTINUATION_LINES, +1)
    before = extent(np.flatnonzero(head_plain), CONTINUATION_BEFORE, -1)

    taken = np.zeros(n, dtype=bool)
    taken[heads] = True
    for k in range(1, CONTINUATION_LINES + 1):
        taken[heads[after >= k] + k] = True
    for k in range(1, CONTINUATION_BEFORE + 1):
        taken[heads[before >= k] - k] = True
    need = np.flatnonzero(taken)  # a finding's lines are consecutive here too
    part = timeline[[c for c in ("message", "detail") if c in timeline]].iloc[need]
    message = [v if type(v) is str else _text(v) for v in _column(part, "message")]
    detail = [v if type(v) is str else _text(v) for v in _column(part, "detail")]
    at = np.searchsorted(need, heads)

    texts: dict[Any, str] = {}
    for label, i, b, a in zip(
        findings.index[found].tolist(), at.tolist(), before.tolist(), after.tolist(), strict=True
    ):
        if a == b == 0:  # the line alone: "\n".join of its non-empty message and detail
            m, d = message[i], detail[i]
            texts[label] = m + "\n" + d if m and d else m or d
        else:
            lines = [*message[i - b : i], message[i], detail[i], *message[i + 1 : i + a + 1]]
            texts[label] = "\n".join([x for x in lines if x])
    return texts


# --------------------------------------------------------------------------- 3. consistency


@dataclass
class Consistency:
    """Cross-node disagreements: text for the report and the nodes that are odd ones out."""

    messages: list[str] = field(default_factory=list)
    spec_outliers: set[str] = field(default_factory=set)
    majority_nodes: set[str] | None = None
    version_outliers: dict[str, str] = field(default_factory=dict)  #: node → what differs
    shared_addresses: dict[str, list[str]] = field(default_factory=dict)


def _spec_key(cluster: dict[str, list[str]]) -> tuple:
    return tuple(
        sorted(
            (job, tuple(_address_key(a) or (a, "") for a in addrs))
            for job, addrs in cluster.items()
        )
    )


def _describe_spec_difference(odd: dict, usual: dict) -> str:
    parts = []
    for job in sorted(set(odd) | set(usual)):
        a, b = odd.get(job, []), usual.get(job, [])
        if len(a) != len(b):
            parts.append(f"{len(a)} {job} task(s) instead of {len(b)}")
            continue
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if _address_key(x) != _address_key(y):
                parts.append(f"{job}:{i} at {x} instead of {y}")
    return ", ".join(parts) or "a different order"


def _majority(groups: dict[tuple, list[str]]) -> tuple | None:
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    if len(ranked) > 1 and len(ranked[0][1]) == len(ranked[1][1]):
        return None
    return ranked[0][0]


def _check_specs(facts: dict[str, Facts], out: Consistency) -> None:
    specs = {n: f.cluster for n, f in facts.items() if f.cluster and not f.missing}
    groups: dict[tuple, list[str]] = defaultdict(list)
    for node, cluster in specs.items():
        groups[_spec_key(cluster)].append(node)
    if len(groups) > 1:
        major = _majority(groups)
        if major is None:
            out.messages.append(
                "Cluster specs disagree and no version is held by a majority: "
                + "; ".join(", ".join(sorted(nodes)) for nodes in groups.values())
            )
            out.spec_outliers.update(specs)
        else:
            out.majority_nodes = set(groups[major])
            usual = specs[groups[major][0]]
            for key, nodes in groups.items():
                if key == major:
                    continue
                for node in sorted(nodes):
                    out.spec_outliers.add(node)
                    out.messages.append(
                        f"{node}'s cluster spec differs from the one {len(groups[major])} other "
                        f"node(s) use: {_describe_spec_difference(specs[node], usual)}."
                    )
    for node, f in facts.items():
        task = f.task or {}
        job, index = task.get("type"), task.get("index")
        if f.cluster and job is not None:
            try:
                in_spec = 0 <= int(index or 0) < len(f.cluster.get(str(job), []))
            except (TypeError, ValueError):
                in_spec = False
            if not in_spec:
                out.spec_outliers.add(node)
                out.messages.append(f"{node}'s own task {job}:{index} is not in its cluster spec.")


def _check_addresses(facts: dict[str, Facts], out: Consistency) -> None:
    """Two tasks on one address, within any one node's cluster spec."""
    for f in sorted(facts.values(), key=lambda f: _node_order(f.node)):
        seen: dict[tuple[str, str], list[str]] = defaultdict(list)
        raw: dict[tuple[str, str], str] = {}
        for job, addrs in (f.cluster or {}).items():
            for i, addr in enumerate(addrs):
                if key := _address_key(addr):
                    seen[key].append(f"{job}:{i}")
                    raw.setdefault(key, addr)
        for key, tasks in seen.items():
            address = raw[key]
            if len(tasks) > 1 and address not in out.shared_addresses:
                out.shared_addresses[address] = sorted(tasks)
                out.messages.append(
                    f"{f.node}'s cluster spec puts {', '.join(sorted(tasks))} on one address "
                    f"{address}."
                )


def _check_versions(facts: dict[str, Facts], out: Consistency) -> None:
    for name in ("tensorflow", "python", "protobuf", "grpc"):
        values = {n: f.versions[name] for n, f in facts.items() if name in f.versions}
        counts = Counter(values.values())
        if len(counts) < 2:
            continue
        common, common_n = counts.most_common(1)[0]
        out.messages.append(
            f"{name} versions differ: "
            + ", ".join(f"{n} {v}" for n, v in sorted(values.items()))
            + "."
        )
        if common_n > len(values) / 2:
            for node, value in values.items():
                if value != common:
                    out.version_outliers[node] = f"{name} {value} (others run {common})"


def check_consistency(facts: dict[str, Facts]) -> Consistency:
    """Step 3: cluster specs, shared addresses and versions compared across nodes."""
    out = Consistency()
    _check_specs(facts, out)
    _check_addresses(facts, out)
    _check_versions(facts, out)
    return out


# --------------------------------------------------------------------------- 4. clock skew


@dataclass
class ClockEstimate:
    """Per node offset (seconds, + = its clock is ahead) and which were applied."""

    offsets: dict[str, float] = field(default_factory=dict)
    applied: dict[str, float] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)

    def correct(self, node: str, ts: Any) -> Any:
        if ts is None or pd.isna(ts):
            return ts
        return ts - pd.Timedelta(seconds=self.applied.get(node, 0.0))


def _anchors(facts: dict[str, Facts], blames: pd.DataFrame) -> dict[str, dict[str, pd.Timestamp]]:
    """Near-simultaneous events per kind: start-up, and the victims' first blame (the burst)."""
    anchors: dict[str, dict[str, pd.Timestamp]] = {"start-up": {}, "error burst": {}}
    for node, f in facts.items():
        if f.first_time is not None and not pd.isna(f.first_time):
            anchors["start-up"][node] = f.first_time
    peer_blames = blames[~blames["self"]] if not blames.empty else blames
    if not peer_blames.empty:
        first = peer_blames.assign(ts=_utc(peer_blames["ts"])).groupby("victim")["ts"].min()
        if len(first) >= 2:
            anchors["error burst"] = {str(k): v for k, v in first.items()}
    return anchors


def _pairwise_offset(
    node: str, anchors: dict[str, dict[str, pd.Timestamp]]
) -> tuple[float, dict[str, float]]:
    """Median time difference of ``node``'s anchors to every other node's, overall and per kind."""
    return _pairwise_offsets([node], anchors)[node]


def _pairwise_offsets(
    nodes: list[str], anchors: dict[str, dict[str, pd.Timestamp]]
) -> dict[str, tuple[float, dict[str, float]]]:
    """:func:`_pairwise_offset` of each node, the differences taken from one array per kind
    (nanoseconds; ``(a - b) / 1e9`` is what ``(a - b).total_seconds()`` gives)."""
    arrays: dict[str, tuple[dict[str, int], np.ndarray] | None] = {}
    for kind, times in anchors.items():
        values = list(times.values())
        exact = all(type(v) is pd.Timestamp for v in values)  # (NaT is not a Timestamp)
        arrays[kind] = (
            ({n: i for i, n in enumerate(times)}, np.array([v.value for v in values], np.int64))
            if exact
            else None
        )
    out: dict[str, tuple[float, dict[str, float]]] = {}
    for node in nodes:
        per_kind: dict[str, float] = {}
        every: list[float] = []
        for kind, times in anchors.items():
            if node not in times or len(times) < 2:
                continue
            got = arrays[kind]
            if got is None:
                diffs = [_seconds(times[node] - t) for other, t in times.items() if other != node]
            else:
                index, ns = got
                i = index[node]
                diffs = ((ns[i] - np.delete(ns, i)) / 1e9).tolist()
            per_kind[kind] = statistics.median(diffs)
            every.extend(diffs)
        out[node] = ((statistics.median(every) if every else 0.0), per_kind)
    return out


def _confirmed(offset: float, per_kind: dict[str, float], overlaps: bool) -> bool:
    """Is an apparent offset a clock error rather than a late start or a slow reaction?

    Two kinds of event that agree are enough; a huge offset on start-up alone only when the
    node's log does not even overlap its peers' (a task started late overlaps: peers waited).
    """
    if abs(offset) < SKEW_MIN_S:
        return False
    agreeing = [v for v in per_kind.values() if abs(v - offset) < SKEW_AGREE_S]
    if len(agreeing) >= 2:
        return True
    return abs(offset) >= SKEW_HUGE_S and not overlaps


def _overlaps(node: str, facts: dict[str, Facts], est: ClockEstimate) -> bool:
    """Does ``node``'s log span overlap the others' (with the corrections made so far)?"""
    spans = {
        n: (est.correct(n, f.first_time), est.correct(n, f.last_time))
        for n, f in facts.items()
        if f.first_time is not None and not pd.isna(f.first_time)
    }
    if node not in spans or len(spans) < 2:
        return True
    first, last = spans.pop(node)
    return first <= max(e for _, e in spans.values()) and last >= min(b for b, _ in spans.values())


def estimate_clock_offsets(facts: dict[str, Facts], blames: pd.DataFrame) -> ClockEstimate:
    """Step 4: peel off the most-offset node while one stands out, correcting its anchors."""
    anchors = _anchors(facts, blames)
    est = ClockEstimate()
    nodes = sorted(set().union(*(set(t) for t in anchors.values())))
    if len(nodes) < 3:
        # with two nodes there is no majority to say whose clock is wrong
        est.offsets = dict.fromkeys(nodes, 0.0)
        return est
    for _ in range(len(nodes)):
        measured = _pairwise_offsets([n for n in nodes if n not in est.applied], anchors)
        if not measured:
            break
        node = max(measured, key=lambda n: abs(measured[n][0]))
        offset, per_kind = measured[node]
        if not _confirmed(offset, per_kind, _overlaps(node, facts, est)):
            break
        # the error burst is a sharper event than start-up (imports take seconds)
        offset = per_kind.get("error burst", offset)
        est.applied[node] = offset
        est.reasons[node] = ", ".join(f"{k} {v:+.1f} s" for k, v in per_kind.items())
        for times in anchors.values():
            if node in times:
                times[node] = times[node] - pd.Timedelta(seconds=offset)
    # what is left is reaction jitter, measurable only on the sharp error burst
    residuals = _pairwise_offsets(nodes, {"error burst": anchors["error burst"]})
    for node in nodes:
        est.offsets[node] = round(est.applied.get(node, 0.0) + residuals[node][0], 3)
    return est


# --------------------------------------------------------------------------- 5. silence


def _reactions(symptoms: pd.DataFrame, blames: pd.DataFrame, clock: ClockEstimate) -> pd.DataFrame:
    """Symptom errors with their (corrected) time and the node they blame, if any."""
    peer = blames[~blames["self"]] if not blames.empty else blames
    blamed_of_row = dict(zip(_values(peer["row"]), _values(peer["blamed"]), strict=True))
    return pd.DataFrame(
        {
            "node": symptoms["node"].astype(str).to_numpy(),
            "blamed": [blamed_of_row.get(r) for r in symptoms.index.tolist()],
            "ts": _corrected_times(symptoms["node"], _utc(symptoms["ts"]), clock).array,
        }
    )


def _corrected_times(nodes: Any, times: pd.Series, clock: ClockEstimate) -> pd.Series:
    """``clock.correct(node, time)`` row by row, vectorized (``times`` in UTC; a fresh index)."""
    codes, uniques = pd.factorize(np.asarray(nodes, dtype=object))
    shifts = [pd.Timedelta(seconds=clock.applied.get(n, 0.0)).value for n in uniques]
    shift = np.array([*shifts, 0], dtype="int64")[codes]  # code -1 (no node): no shift
    return times.reset_index(drop=True) - pd.Series(pd.to_timedelta(shift, unit="ns"))


def detect_silence(
    facts: dict[str, Facts], symptoms: pd.DataFrame, blames: pd.DataFrame, clock: ClockEstimate
) -> dict[str, float]:
    """Step 5: nodes that died silently → seconds their peers logged after them.

    ``symptoms`` are the errors that are not a node's own (see :func:`_intrinsic_findings`);
    only those can be the peers' reaction to a silent death. Being blamed early counts too.
    """
    last = {
        n: clock.correct(n, f.last_time)
        for n, f in facts.items()
        if f.last_time is not None and not pd.isna(f.last_time)
    }
    # being waited for at start-up says a node was not there yet, not that it died
    early = (
        blames[~blames["self"] & blames["early"] & (blames["category"] != "session_blocked")]
        if not blames.empty
        else blames
    )
    blamed = set(early["blamed"]) if not early.empty else set()
    reactions = _reactions(symptoms, blames, clock)
    silent: dict[str, float] = {}
    for node, f in facts.items():
        if node not in last or f.ending not in ("mid-run", "killed"):
            continue
        others = [t for n, t in last.items() if n != node]
        if not others:
            continue
        after = _seconds(max(others) - last[node])
        if after <= 0:
            continue
        implicated = node in blamed or _reacted(reactions, node, last[node])
        if implicated or (f.ending == "killed" and after >= SILENCE_GRACE_S):
            silent[node] = after
    return silent


def _reacted(reactions: pd.DataFrame, node: str, stop: Any) -> bool:
    """Did a peer start failing soon after ``node`` stopped, without blaming someone else?"""
    if reactions.empty:
        return False
    window = (reactions["ts"] >= stop) & (
        reactions["ts"] <= stop + pd.Timedelta(seconds=SILENCE_BURST_S)
    )
    unexplained = reactions["blamed"].isna() | (reactions["blamed"] == node)
    return bool((window & unexplained & (reactions["node"] != node)).any())


def detect_blocked(facts: dict[str, Facts], warnings: pd.DataFrame) -> dict[str, Any]:
    """Nodes whose log ends while still waiting at start-up → the waiting line's row.

    A ``session_blocked`` finding among a node's last ``BLOCKED_TAIL`` events, with no error
    after it and no goodbye, means start-up never finished there.
    """
    blocked: dict[str, Any] = {}
    if warnings.empty:
        return blocked
    waits = warnings[warnings["category"] == "session_blocked"]
    for node, rows in waits.groupby("node"):
        f = facts.get(str(node))
        if f is None or f.ending not in ("mid-run", "killed"):
            continue
        near_end = set(f.tail_rows[-BLOCKED_TAIL:])
        last = [r for r in rows.index if r in near_end]
        if last:
            blocked[str(node)] = last[-1]
    return blocked


# --------------------------------------------------------------------------- 6. scoring


@dataclass
class Candidate:
    """One suspect node, its points and the reasons for them."""

    node: str
    score: float = 0.0
    reasons: list[str] = field(default_factory=list)
    blamers: list[str] = field(default_factory=list)
    intrinsic: dict | pd.Series | None = None  #: its first intrinsic finding (column → value)
    time: Any = None  #: its failure time (corrected clock)

    def add(self, points: float, reason: str) -> None:
        self.score += points
        self.reasons.append(f"{reason} ({points:+g})")


def _intrinsic_findings(errors: pd.DataFrame, blames: pd.DataFrame) -> pd.DataFrame:
    """Errors that are a node's own: blamed on itself, or not a symptom and blaming no peer."""
    if errors.empty:
        return errors
    peer_rows = set(blames.loc[~blames["self"], "row"]) if not blames.empty else set()
    self_rows = set(blames.loc[blames["self"], "row"]) if not blames.empty else set()
    own = errors.index.isin(list(self_rows)) | (
        ~errors["category"].isin(SYMPTOM_CATEGORIES) & ~errors.index.isin(list(peer_rows))
    )
    return errors[own]


@dataclass
class Case:
    """Everything the scoring and the verdict look at (one bundle, to keep signatures short)."""

    facts: dict[str, Facts]
    errors: pd.DataFrame
    blames: pd.DataFrame
    intrinsic: pd.DataFrame
    consistency: Consistency
    clock: ClockEstimate
    silent: dict[str, float]
    findings: pd.DataFrame | None = None  #: all findings (for the evidence lines)
    blocked: dict[str, Any] = field(default_factory=dict)  #: node → its last start-up wait row
    zones: ZoneFix = field(default_factory=lambda: ZoneFix())
    _memo: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def failing(self) -> bool:
        """Any sign of failure at all: an error, a silent death, a start-up that never ended."""
        return (
            not self.errors.empty
            or bool(self.silent)
            or bool(self.blocked)
            or bool(self.waited_for())
            or bool(self.unexplained_exits())
        )

    def unexplained_exits(self) -> set[str]:
        """Nodes whose log ends with a traceback that no rule recognised (no error finding)."""
        erring = self._memo.get("erring")
        if erring is None:
            erring = self._memo["erring"] = set(_values(self.errors["node"]))
        return {n for n, f in self.facts.items() if f.uncaught and n not in erring}

    @property
    def symptoms(self) -> pd.DataFrame:
        """Errors that are not a node's own: reactions to another node's failure."""
        got = self._memo.get("symptoms")
        if got is None:
            got = self._memo["symptoms"] = self.errors[
                ~self.errors.index.isin(self.intrinsic.index)
            ]
        return got

    def first_times(self, frame: str) -> dict[str, Any]:
        """Per node, the earliest time (UTC, uncorrected) of its ``errors`` or of the
        ``blames`` it logged: :func:`_first_time` for every node at once (kept)."""
        got = self._memo.get(frame)
        if got is None:
            rows = self.errors if frame == "errors" else self.blames
            got = self._memo[frame] = _first_times(rows, "node" if frame == "errors" else "victim")
        return got

    def symptom_times(self) -> pd.DataFrame:
        """:attr:`symptoms`' ``node`` and ``ts`` (all that silence detection reads; kept)."""
        got = self._memo.get("symptom_times")
        if got is None:
            own = self.errors.index.isin(self.intrinsic.index)
            got = self._memo["symptom_times"] = self.errors[["node", "ts"]][~own]
        return got

    @property
    def first_errors(self) -> pd.DataFrame:
        """Each node's first error: ``errors.sort_values("ts").drop_duplicates("node")`` (kept;
        the order found on the two columns it depends on)."""
        got = self._memo.get("first_errors")
        if got is None:
            first = self.errors[["ts", "node"]].sort_values("ts").drop_duplicates("node").index
            got = self._memo["first_errors"] = self.errors.loc[first]
        return got

    def waited_for(self) -> set[str]:
        """Nodes that peers waited for at start-up, by name (``CreateSession still waiting``)."""
        if self.blames.empty:
            return set()
        waits = self.blames[~self.blames["self"] & (self.blames["category"] == "session_blocked")]
        return set(waits["blamed"])


def _first_times(frame: pd.DataFrame, key: str) -> dict[str, Any]:
    """Per value of ``frame[key]``, its rows' earliest time (UTC, uncorrected): one group-by."""
    if frame.empty:
        return {}
    return _utc(frame["ts"]).groupby(frame[key].to_numpy()).min().to_dict()


def _corrected(times: dict[str, Any], node: str, clock: ClockEstimate) -> Any:
    """``_first_time`` from :func:`_first_times`: the node's corrected time, None if it has none."""
    return clock.correct(node, times[node]) if node in times else None


def score_candidates(ev: Case) -> list[Candidate]:
    """Step 6: points per node; the list is sorted best first (ties: earliest failure)."""
    cands: dict[str, Candidate] = {}

    def cand(node: str) -> Candidate:
        return cands.setdefault(node, Candidate(node))

    peer_blames = ev.blames[~ev.blames["self"]] if not ev.blames.empty else ev.blames
    for node, (early_victims, victims) in _blame_groups(peer_blames):
        early = sorted(early_victims)
        late = sorted(victims - set(early))
        c = cand(str(node))
        c.blamers = early + late
        if early:
            c.add(3 + min(len(early) - 1, 3), f"blamed by {', '.join(early)}")
        if late:
            c.add(1, f"named later by {', '.join(late)}, after their own failure had begun")
    for node, first in _earliest_rows(ev.intrinsic).items():
        c = cand(str(node))
        c.intrinsic = first
        c.add(3, f"its own error: {c.intrinsic['category']}")
        if ev.facts.get(str(node)) and ev.facts[str(node)].ending == "exception":
            c.add(1, "its log ends with that failure")
    reactions = None
    for node, after in ev.silent.items():
        cand(node).add(
            2, f"its log stops {_human_duration(after)} before its peers' with no goodbye"
        )
        if reactions is None:
            reactions = _reactions(ev.symptom_times(), ev.blames, ev.clock)
        if _reacted(reactions, node, ev.clock.correct(node, ev.facts[node].last_time)):
            cand(node).add(1, "its peers began failing right after it went quiet")
    for node in ev.unexplained_exits():
        cand(node).add(2, "its log ends with an uncaught exception that no rule recognised")
    for node, f in ev.facts.items():
        if f.ending == "killed" or (f.exit_info and _KILLED_RE.search(f.exit_info)):
            cand(node).add(1, f"exit info: {f.exit_info or f.ending}")
    failing = ev.failing
    if failing:
        for node in ev.consistency.spec_outliers:
            cand(node).add(3, "its cluster spec disagrees with the others'")
        for node, what in ev.consistency.version_outliers.items():
            cand(node).add(2, f"odd version: {what}")
        unresolved = (
            ev.errors[~ev.errors.index.isin(list(ev.blames["row"]))]
            if not ev.blames.empty
            else ev.errors
        )
        for node, f in ev.facts.items():
            if f.missing and ev.blocked:
                cand(node).add(
                    2, f"left no log while {', '.join(sorted(ev.blocked))} wait for tasks"
                )
            elif f.missing and not unresolved.empty:
                cand(node).add(1, "left no log while peers report unreachable peers")
    if not peer_blames.empty:
        first_error = ev.first_errors  # (= errors.sort_values("ts").groupby("node").head(1))
        victims_rows = set(_values(peer_blames["row"]))
        for row_id, node in zip(
            first_error.index.tolist(), _values(first_error["node"]), strict=True
        ):
            if row_id in victims_rows and str(node) in cands:
                cands[str(node)].add(-1, "its own first error blames another node")
    for node, c in cands.items():
        c.time = _failure_time(node, c, ev)
    if failing and not cands:
        for node in [*ev.errors["node"].unique(), *ev.blocked]:
            c = cand(str(node))
            c.time = _failure_time(str(node), c, ev)
    return sorted(
        cands.values(),
        key=lambda c: (
            -c.score,
            c.time if c.time is not None else pd.Timestamp.max.tz_localize("UTC"),
            _node_order(c.node),
        ),
    )


def _blame_groups(peer_blames: pd.DataFrame) -> list[tuple[Any, tuple[set, set]]]:
    """``groupby("blamed")`` of peer blames: per blamed node (sorted), the set of its early
    blamers and the set of all its blamers."""
    if peer_blames.empty:
        return []
    early = peer_blames.get("early", False)
    pairs = peer_blames.assign(early=early).groupby(["blamed", "victim"], sort=True)["early"].any()
    groups: dict[Any, tuple[set, set]] = {}
    for (blamed, victim), any_early in zip(pairs.index.tolist(), pairs.tolist(), strict=True):
        group = groups.get(blamed)
        if group is None:
            group = groups[blamed] = (set(), set())
        if any_early:
            group[0].add(victim)
        group[1].add(victim)
    return list(groups.items())


def _earliest_rows(frame: pd.DataFrame) -> dict[Any, dict]:
    """Per node (in sorted order), its earliest row as a dict:
    ``{node: rows.sort_values("ts").iloc[0] for node, rows in frame.groupby("node")}``,
    from one stable sort; a node whose earliest time is shared by two rows is sorted as such."""
    if frame.empty:
        return {}
    # Arrow sorts stably (the first of equal times wins); numpy's quicksort may not
    stable = isinstance(frame["ts"].dtype, pd.ArrowDtype)
    codes, uniques = pd.factorize(frame["node"], sort=True)
    ts = _utc(frame["ts"]).to_numpy(dtype="datetime64[ns]")
    late = np.iinfo(np.int64).max  # a missing time sorts last
    key = np.where(np.isnat(ts), late, ts.astype(np.int64))
    present = np.flatnonzero(codes >= 0)
    order = present[np.lexsort((key[present], codes[present]))]
    starts = np.flatnonzero(np.r_[True, codes[order][1:] != codes[order][:-1]])
    first = order[starts]
    following = order[np.minimum(starts + 1, len(order) - 1)]
    tied = (
        ~np.bool_(stable)
        & (starts + 1 < len(order))
        & (codes[following] == codes[first])
        & (key[following] == key[first])
        & (key[first] != late)
    )
    rows = _dict_rows(frame.iloc[first])
    out: dict[Any, dict] = {}
    for code, row, tie in zip(codes[first].tolist(), rows, tied.tolist(), strict=True):
        node = uniques[code]
        if tie:  # which of the two comes first is the sort's business
            group = frame[(frame["node"] == node).to_numpy(dtype=bool)]
            row = group.sort_values("ts").iloc[0].to_dict()
        out[node] = row
    return out


def drop_transient_waits(blames: pd.DataFrame, facts: dict[str, Facts]) -> pd.DataFrame:
    """Forget start-up waits for a task that came up within ``START_WAIT_S``: normal start-up.

    A wait counts when the awaited task left no log, or started ``START_WAIT_S`` after the
    first wait, or the same node kept waiting for it that long.
    """
    if blames.empty:
        return blames
    waits = blames[~blames["self"] & (blames["category"] == "session_blocked")]
    keep = pd.Series(True, index=blames.index)
    for (_victim, blamed), group in waits.groupby(["victim", "blamed"]):
        times = _utc(group["ts"])
        f = facts.get(str(blamed))
        late_start = (
            f is not None
            and f.first_time is not None
            and not pd.isna(f.first_time)
            and _seconds(f.first_time - times.min()) >= START_WAIT_S
        )
        long_wait = _seconds(times.max() - times.min()) >= START_WAIT_S
        if not (f is None or f.missing or late_start or long_wait):
            keep[group.index] = False
    return blames[keep.to_numpy()]


def mark_early(blames: pd.DataFrame, errors: pd.DataFrame) -> pd.DataFrame:
    """Flag each blame ``early`` when it comes with the blamer's first error.

    A blame logged well after the blamer's own failure began (teardown noise: reporting an
    error to a peer that is already gone) says little about who failed first.
    """
    if blames.empty or errors.empty:
        return blames.assign(early=True)
    ns = "datetime64[ns]"
    first_error = (
        pd.Series(_utc(errors["ts"]).to_numpy(dtype=ns)).groupby(errors["node"].to_numpy()).min()
    )
    grace = np.timedelta64(pd.Timedelta(seconds=LATE_BLAME_S).value, "ns")
    # NaT (a victim without errors, a missing time) compares False: not late
    first = first_error.reindex(blames["victim"].to_numpy()).to_numpy(dtype=ns)
    late = _utc(blames["ts"]).to_numpy(dtype=ns) > first + grace
    return blames.assign(early=~np.asarray(late, dtype=bool))


def _failure_time(node: str, c: Candidate, ev: Case) -> Any:
    f = ev.facts.get(node)
    if c.intrinsic is not None:
        return ev.clock.correct(node, _utc_one(c.intrinsic["ts"]))
    if node in ev.silent and f is not None:
        return ev.clock.correct(node, f.last_time)
    own = _corrected(ev.first_times("errors"), node, ev.clock)
    if own is not None:
        return own
    if not ev.blames.empty:
        against = ev.blames[ev.blames["blamed"] == node]
        if not against.empty:
            times = [
                ev.clock.correct(v, t)
                for v, t in zip(against["victim"], _utc(against["ts"]), strict=True)
            ]
            return min(times)
    if ev.blocked and ev.findings is not None:
        waits = ev.findings.loc[list(ev.blocked.values())]
        return min(
            ev.clock.correct(str(n), t)
            for n, t in zip(waits["node"], _utc(waits["ts"]), strict=True)
        )
    return None


# --------------------------------------------------------------------------- 7. verdict


def _root_category(node: str, c: Candidate, ev: Case) -> tuple[str, str | None]:
    """(category, pattern id) of what happened at the root node itself."""
    f = ev.facts.get(node)
    spec_odd = node in ev.consistency.spec_outliers
    if c.intrinsic is not None:
        category = str(c.intrinsic["category"])
        if spec_odd and category in SPEC_CONSEQUENCES:
            return "cluster_spec_mismatch", None
        return category, c.intrinsic.get("pattern_id")
    if spec_odd:
        return "cluster_spec_mismatch", None
    if node in ev.consistency.version_outliers:
        return "version_mismatch", None
    if f is not None and f.missing and ev.blocked and ev.errors.empty:
        return "session_blocked", None
    if node in ev.silent and _peers_timed_out(node, ev):
        return "deadline_exceeded", None
    if node not in ev.silent and f is not None and _only_waited_for(node, ev):
        return "session_blocked", None
    if (
        f is None
        or f.missing
        or node in ev.silent
        or f.ending in ("killed", "mid-run", "exception")
    ):
        return "node_crash", None
    own = ev.errors[ev.errors["node"] == node].sort_values("ts")
    if not own.empty:
        return str(own.iloc[0]["category"]), own.iloc[0].get("pattern_id")
    return "node_crash", None


def _only_waited_for(node: str, ev: Case) -> bool:
    """Are all early blames against ``node`` start-up waits (none says it failed later)?"""
    against = ev.blames[(ev.blames["blamed"] == node) & ~ev.blames["self"] & ev.blames["early"]]
    return bool(len(against)) and (against["category"] == "session_blocked").all()


def _peers_timed_out(node: str, ev: Case) -> bool:
    """After ``node`` went quiet, did its peers time out (it hung) rather than lose the
    connection (it died)? A dead process closes its sockets; a hung one keeps them open."""
    f = ev.facts[node]
    stop = ev.clock.correct(node, f.last_time)
    peers = ev.errors[ev.errors["node"] != node]
    if peers.empty:
        return False
    times = _corrected_times(peers["node"], _utc(peers["ts"]), ev.clock).set_axis(peers.index)
    window = peers[(times >= stop) & (times <= stop + pd.Timedelta(seconds=SILENCE_BURST_S))]
    firsts = window.sort_values("ts").drop_duplicates("node")["category"]
    return bool(len(firsts)) and (firsts == "deadline_exceeded").mean() > 0.5


def _confidence(cands: list[Candidate]) -> float:
    top = cands[0].score
    conf = 1 - 0.5 ** (max(top, 0.5) / 2)
    if len(cands) > 1 and top - cands[1].score < 2:
        conf *= 0.7
    return conf


def _evidence_text(event: dict | pd.Series) -> str:
    """The line's message; a short one with its continuation lines (``Example stragglers:``)."""
    message = _text(event.get("message"))
    full = _text(event.get("full_text"))
    if len(message.strip()) < SHORT_MESSAGE and len(full) > len(message):
        return _clip(full)
    return _clip(message)


def _evidence_line(
    node: str, event: dict | pd.Series | None, why: str, clock: ClockEstimate
) -> Evidence | None:
    if event is None:
        return None
    get = event.get
    return Evidence(
        node=node,
        time=clock.correct(node, _utc_one(get("ts"))) if get("ts") is not None else None,
        file=get("file"),
        line_no=int(get("line_no"))
        if get("line_no") is not None and not pd.isna(get("line_no"))
        else None,
        text=_evidence_text(event),
        why=why,
    )


def _root_evidence(node: str, c: Candidate, category: str, ev: Case, rules: Any) -> list[Evidence]:
    f = ev.facts.get(node)
    lines: list[Evidence | None] = []
    if c.intrinsic is not None:
        rule = _rule(rules, c.intrinsic.get("pattern_id"))
        title = getattr(rule, "title", None) or c.intrinsic["category"]
        lines.append(
            _evidence_line(node, c.intrinsic, f"{node}'s own first error: {title}", ev.clock)
        )
    if f is not None and node in ev.silent:
        lines.append(
            _evidence_line(
                node,
                f.last_line,
                f"{node}'s last line: its log ends here with no error and no shutdown message, "
                f"while its peers logged {_human_duration(ev.silent[node])} longer"
                + (
                    "; they timed out waiting for it (a hang, not a closed connection)"
                    if category == "deadline_exceeded"
                    else ""
                ),
                ev.clock,
            )
        )
    if f is not None and node in ev.unexplained_exits():
        why = f"{node}'s log ends with an uncaught exception (no rule knows it): it died of it"
        lines.append(_evidence_line(node, f.last_line, why, ev.clock))
    if f is not None and f.exit_line and f.exit_line is not f.last_line:
        lines.append(
            _evidence_line(node, f.exit_line, f"how {node} exited: {f.exit_info}", ev.clock)
        )
    if category == "cluster_spec_mismatch" and f is not None:
        why = next(
            (m for m in ev.consistency.messages if m.startswith(node)), "its cluster spec differs"
        )
        lines.append(_evidence_line(node, f.tf_config_line, why, ev.clock))
        usual = sorted(ev.consistency.majority_nodes or [])
        if usual and (other := ev.facts.get(usual[0])):
            lines.append(
                _evidence_line(
                    usual[0],
                    other.tf_config_line,
                    f"the cluster spec {len(usual)} node(s) agree on",
                    ev.clock,
                )
            )
    if category == "version_mismatch" and f is not None:
        odd = ev.consistency.version_outliers.get(node, "")
        for name, line in f.version_lines.items():
            if odd and not odd.startswith(name):
                continue
            lines.append(
                _evidence_line(node, line, f"{node} runs {name} {f.versions[name]}", ev.clock)
            )
    return [e for e in lines if e is not None]


def _blame_evidence(node: str, ev: Case, rules: Any, findings: pd.DataFrame) -> list[Evidence]:
    if ev.blames.empty:
        return []
    against = ev.blames[(ev.blames["blamed"] == node) & ~ev.blames["self"]]
    against = against.assign(ts=_utc(against["ts"])).sort_values("ts").drop_duplicates("victim")
    out = []
    found = _dict_rows(findings.loc[against["row"].tolist()]) if not against.empty else []
    for b, finding in zip(_records(against), found, strict=True):
        rule = _rule(rules, b.pattern_id)
        title = getattr(rule, "title", None) or finding["category"]
        why = f"{b.victim} names {task_name(node) or node} ({b.how}): {title}"
        out.append(_evidence_line(b.victim, finding, why, ev.clock))
    return [e for e in out if e is not None]


def _missing_evidence(node: str, ev: Case) -> list[Evidence]:
    """For a root without a log: the peer's cluster spec that names it."""
    f = ev.facts.get(node)
    if f is None or not f.missing:
        return []
    job, _, index = node.partition(":")
    for peer in sorted(ev.facts, key=_node_order):
        p = ev.facts[peer]
        addrs = (p.cluster or {}).get(job, [])
        if p.tf_config_line and index.isdigit() and int(index) < len(addrs):
            why = (
                f"{peer}'s cluster spec names {task_name(node)} at {addrs[int(index)]}, "
                "but no log of that task was found"
            )
            line = _evidence_line(peer, p.tf_config_line, why, ev.clock)
            return [line] if line else []
    return []


def _blocked_evidence(ev: Case, rules: Any) -> list[Evidence]:
    """Nodes whose log ends still waiting at start-up: their last waiting line."""
    out = []
    for node, row in sorted(ev.blocked.items()):
        if ev.findings is None or row not in ev.findings.index:
            continue
        finding = ev.findings.loc[row]
        title = getattr(_rule(rules, finding.get("pattern_id")), "title", None) or "waiting"
        why = f"{node}'s log ends still waiting at start-up: {title}"
        out.append(_evidence_line(node, finding, why, ev.clock))
    return [e for e in out if e is not None]


def _victim_evidence(root: str, ev: Case, already: set[str]) -> list[Evidence]:
    out = []
    firsts = ev.first_errors
    for row_id, row in zip(firsts.index.tolist(), _dict_rows(firsts), strict=True):
        node = str(row["node"])
        if node == root or node in already:
            continue
        if row_id in ev.intrinsic.index:
            why = f"{node} failed the same way ({row['category']}), but later than {root}"
        else:
            why = f"{node}'s first error ({row['category']}) comes after {root}'s: a symptom"
        out.append(_evidence_line(node, row, why, ev.clock))
        if len(out) == 2:  # (an evidence line of a row is never None)
            break
    return [e for e in out if e is not None][:2]


def _what_happened(node: str, category: str, ev: Case) -> str:
    """The verb phrase of the summary: what the root node did, as far as the logs tell."""
    f = ev.facts.get(node)
    if f is not None and f.missing:
        if category == "session_blocked":
            return "never joined the cluster: it left no log while its peers waited for it"
        return (
            f"{CATEGORY_PHRASE.get(category, category)} (it left no log; inferred from its peers)"
        )
    if node in ev.silent and category == "deadline_exceeded":
        return "hung: its log stops mid-run and its peers then time out waiting for it"
    if node in ev.silent and category == "node_crash":
        return "died without logging an error: its log stops mid-run"
    if category == "session_blocked" and node in ev.waited_for():
        late = _late_start(node, ev)
        return "kept its peers waiting at start-up" + (
            f" (its log starts {_human_duration(late)} after theirs)" if late else ""
        )
    return CATEGORY_PHRASE.get(category, category)


def _late_start(node: str, ev: Case) -> float | None:
    """Seconds by which ``node``'s log starts after the median of its peers', if it does."""
    starts = {
        n: ev.clock.correct(n, f.first_time)
        for n, f in ev.facts.items()
        if f.first_time is not None and not pd.isna(f.first_time)
    }
    if node not in starts or len(starts) < 2:
        return None
    others = sorted(t for n, t in starts.items() if n != node)
    late = _seconds(starts[node] - others[len(others) // 2])
    return late if late >= SILENCE_GRACE_S else None


def _summary(node: str, category: str, time: Any, ev: Case, victims: list[str]) -> str:
    """One sentence for a ticket: who, what, when, and who suffered."""
    when = (
        f" at {pd.Timestamp(time).strftime('%Y-%m-%d %H:%M:%S')} UTC"
        if time is not None and not pd.isna(time)
        else ""
    )
    tail = f"; affected after it: {', '.join(victims)}" if victims else ""
    what = _what_happened(node, category, ev)
    who = f"{node} ({task_name(node)})" if task_name(node) else node
    return f"{who} {what}{when} [{category}]{tail}."


def _statuses(root: str | None, ev: Case, root_time: Any) -> dict[str, tuple[str, float | None]]:
    """Status and lag (seconds behind the root cause) per node."""
    out: dict[str, tuple[str, float | None]] = {}
    blamers = (
        set(_values(ev.blames.loc[(ev.blames["blamed"] == root) & ~ev.blames["self"], "victim"]))
        if root and not ev.blames.empty
        else set()
    )
    erring = ev.first_times("errors")
    for node, f in ev.facts.items():
        if node == root:
            out[node] = ("failed", None)
        elif f.missing:
            out[node] = ("missing", None)
        elif root and (node in erring or node in blamers or node in ev.blocked):
            first = _corrected(erring, node, ev.clock)
            if first is None and node in ev.blocked and ev.findings is not None:
                first = ev.clock.correct(
                    node, _utc(ev.findings.loc[[ev.blocked[node]], "ts"]).iloc[0]
                )
            if first is None and not ev.blames.empty:
                first = _corrected(ev.first_times("blames"), node, ev.clock)
            lag = (
                _seconds(first - root_time) if first is not None and root_time is not None else None
            )
            out[node] = ("victim", round(lag, 3) if lag is not None else None)
        elif node in ev.silent:
            out[node] = ("silent", None)
        else:
            out[node] = ("ok", None)
    return out


def _node_reports(ev: Case, statuses: dict[str, tuple[str, float | None]]) -> list[NodeReport]:
    reports = []
    blamed_by = defaultdict(set)
    if not ev.blames.empty:
        for own, blamed, victim in zip(
            *(_values(ev.blames[c]) for c in ("self", "blamed", "victim")), strict=True
        ):
            if not own:
                blamed_by[blamed].add(victim)
    first_of: dict[Any, dict] = {}
    if not ev.errors.empty:
        firsts = ev.first_errors[["node", "ts", "message", "category"]]
        for row in _records(firsts.assign(ts=_utc(firsts["ts"]).array)):
            first_of.setdefault(row.node, row._asdict())
    for node in sorted(ev.facts, key=_node_order):
        f = ev.facts[node]
        first = first_of.get(node)
        status, lag = statuses.get(node, ("ok", None))
        reports.append(
            NodeReport(
                node=node,
                task=task_name(node),
                files=f.files,
                lines=f.lines,
                status=status,
                first_error_time=first["ts"] if first is not None else None,
                first_error=_clip(first["message"]) if first is not None else None,
                first_error_category=first["category"] if first is not None else None,
                first_time=f.first_time,
                last_time=f.last_time,
                ending=f.ending,
                exit_info=f.exit_info,
                versions=dict(f.versions),
                cluster=f.cluster,
                address=f.address,
                clock_offset_s=ev.clock.offsets.get(node),
                zone_offset_s=ev.zones.offsets.get(node),
                lag_s=lag,
                blamed_by=sorted(blamed_by.get(node, ())),
            )
        )
    return reports


def _node_order(node: str) -> tuple:
    job, _, index = node.partition(":")
    order = {"chief": 0, "master": 0, "coordinator": 1, "ps": 2, "worker": 3, "evaluator": 4}
    return (order.get(job, 5), job, int(index) if index.isdigit() else 0, node)


def _errors(findings: pd.DataFrame) -> pd.DataFrame:
    """Non-benign findings of severity error or fatal, oldest first."""
    if findings is None or findings.empty:
        return pd.DataFrame(
            columns=[
                "ts",
                "node",
                "file",
                "line_no",
                "message",
                "pattern_id",
                "category",
                "severity",
                "captures",
            ]
        )
    keep = ~findings["benign"].fillna(False).astype(bool) & findings["severity"].isin(
        ERROR_SEVERITIES
    )
    # filtered and time-sorted in one take of all columns: the order from the times alone
    rows = np.flatnonzero(keep.to_numpy(dtype=bool))
    times = findings[["ts"]].iloc[rows].reset_index(drop=True)
    f = findings.iloc[rows[times.sort_values("ts", kind="stable").index.to_numpy()]]
    return f.assign(node=f["node"].astype(str))


def _blaming(findings: pd.DataFrame) -> pd.DataFrame:
    """Non-benign findings that may name a culprit (warnings too: stragglers, waits)."""
    if findings is None or findings.empty:
        return pd.DataFrame(
            columns=["ts", "node", "pattern_id", "category", "severity", "captures"]
        )
    f = findings[_blaming_rows(findings)]
    return f.assign(node=f["node"].astype(str))


def _blaming_rows(findings: pd.DataFrame) -> np.ndarray:
    """Which findings :func:`_blaming` keeps (a mask)."""
    keep = ~findings["benign"].fillna(False).astype(bool) & findings["severity"].isin(
        BLAME_SEVERITIES
    )
    return keep.to_numpy(dtype=bool)


def _healthy(ev: Case, notes: list[str]) -> RootCause:
    warn = ""
    if ev.consistency.messages:
        warn = " (but see the consistency notes)"
    missing = sorted(n for n, f in ev.facts.items() if f.missing)
    ambiguity = None
    if missing:
        ambiguity = f"No log for {', '.join(missing)}: a failure there would not show."
    notes.append("No error-level finding and no silent death: the run looks healthy.")
    return RootCause(
        node=None,
        task=None,
        category="none",
        confidence=0.6 if ambiguity else 0.9,
        time=None,
        summary=f"Nothing failed: no node logged an error and none stopped early{warn}.",
        ambiguity=ambiguity,
    )


def _ambiguity(
    cands: list[Candidate], ev: Case, root: str, clock_dependent: str | None
) -> str | None:
    parts = []
    if len(cands) > 1 and cands[0].score - cands[1].score < 2:
        parts.append(
            f"{cands[1].node} is almost as likely ({cands[1].score:g} vs {cands[0].score:g} points: "
            + "; ".join(cands[1].reasons)
            + ")"
        )
    f = ev.facts.get(root)
    if f is not None and f.missing:
        parts.append(f"{root} left no log, so what happened there is inferred from its peers")
    if clock_dependent:
        parts.append(clock_dependent)
    return "; ".join(parts) or None


def _rank(ev: Case) -> list[Candidate]:
    return [c for c in score_candidates(ev) if c.score > 0] or score_candidates(ev)


def gather(
    timeline: pd.DataFrame,
    findings: pd.DataFrame,
    ingest: Ingest,
    rules: Any,
    notes: list[str],
) -> Case:
    """Steps 0–5: everything the scoring looks at."""
    columns = _Columns(timeline)
    zones = zone_offsets(timeline, columns=columns)
    if zones.offsets:
        ts = aligned_times(timeline, zones)
        order = ["ts", "node", "file", "line_no"]
        timeline = timeline.assign(ts=ts).sort_values(order, kind="stable")
        findings = findings.assign(ts=ts.reindex(findings.index).array)
        notes.extend(_zone_notes(zones))
        columns = _Columns(timeline)
    facts = node_facts(timeline, ingest, columns=columns)
    consistency = check_consistency(facts)
    directory = PeerDirectory(facts, consistency.majority_nodes)
    # (the texts need only which rows _blaming keeps: a one-column frame of them)
    blaming_rows = findings[["node"]][_blaming_rows(findings)] if not findings.empty else findings
    texts = finding_texts(timeline, blaming_rows, columns=columns)
    # (object dtype: the frames filtered from it below share the strings, no copies)
    full_text = np.array([texts.get(r) for r in findings.index.tolist()], dtype=object)
    findings = findings.assign(full_text=pd.Series(full_text, index=findings.index, dtype=object))
    errors = _errors(findings)
    blaming = _blaming(findings)
    blames = resolve_blames(blaming, directory, rules, texts)
    blames = mark_early(drop_transient_waits(blames, facts), errors)
    clock = estimate_clock_offsets(facts, blames)
    intrinsic = _intrinsic_findings(errors, blames)
    # (what detect_silence reads of the symptoms: their nodes and times)
    symptoms = errors[["node", "ts"]][~errors.index.isin(intrinsic.index)]
    silent = detect_silence(facts, symptoms, blames, clock)
    blocked = detect_blocked(facts, blaming)
    case = Case(
        facts, errors, blames, intrinsic, consistency, clock, silent, findings, blocked, zones
    )
    case._memo["symptom_times"] = symptoms
    return case


def _clock_dependence(ev: Case, cands: list[Candidate]) -> str | None:
    """Would the verdict differ without the clock correction? A sentence if so."""
    if not ev.clock.applied or not cands:
        return None
    raw_clock = ClockEstimate(offsets=dict(ev.clock.offsets))
    raw = replace(
        ev,
        clock=raw_clock,
        silent=detect_silence(ev.facts, ev.symptom_times(), ev.blames, raw_clock),
    )
    raw_cands = _rank(raw)
    if raw_cands and raw_cands[0].node != cands[0].node:
        return (
            f"without clock correction the verdict would be {raw_cands[0].node}; "
            f"it rests on the estimated offsets ({_offset_text(ev.clock)})"
        )
    return None


def _verdict(ev: Case, cands: list[Candidate], rules: Any, notes: list[str]) -> RootCause:
    """Step 7: the root cause from the best candidate, with evidence and confidence."""
    best = cands[0]
    clock_dependent = _clock_dependence(ev, cands)
    if clock_dependent:
        notes.append(clock_dependent[0].upper() + clock_dependent[1:] + ".")
    elif ev.clock.applied:
        notes.append("The verdict is the same with and without the clock correction.")
    for c in cands[:4]:
        notes.append(f"Candidate {c.node}: {c.score:g} points — " + "; ".join(c.reasons) + ".")
    category, pattern_id = _root_category(best.node, best, ev)
    statuses = _statuses(best.node, ev, best.time)
    victims = sorted(
        (n for n, (s, _) in statuses.items() if s == "victim"),
        key=lambda n: statuses[n][1] if statuses[n][1] is not None else float("inf"),
    )
    evidence = _root_evidence(best.node, best, category, ev, rules)
    evidence += _missing_evidence(best.node, ev)
    evidence += _blame_evidence(best.node, ev, rules, ev.findings)
    evidence += _blocked_evidence(ev, rules)
    evidence += _victim_evidence(best.node, ev, {e.node for e in evidence})
    confidence = _confidence(cands)
    if ev.facts.get(best.node) is not None and ev.facts[best.node].missing:
        confidence *= 0.85
    if clock_dependent:
        confidence *= 0.8
    notes.append(
        f"Verdict: {best.node} is the first failing node; what happened there: {category}"
        + (f" (rule {pattern_id})." if pattern_id else ".")
    )
    rule = _rule(rules, pattern_id)
    return RootCause(
        node=best.node,
        task=task_name(best.node),
        category=category,
        confidence=round(min(max(confidence, 0.05), 0.99), 3),
        time=best.time,
        summary=_summary(best.node, category, best.time, ev, victims),
        evidence=evidence[:MAX_EVIDENCE],
        pattern_id=pattern_id,
        remediation=(getattr(rule, "remediation", "") or "").strip()
        or DEFAULT_REMEDIATION.get(category),
        ambiguity=_ambiguity(cands, ev, best.node, clock_dependent),
    )


def diagnose(
    timeline: pd.DataFrame, findings: pd.DataFrame, ingest: Ingest, rules: RuleSet | None
) -> Diagnosis:
    """Steps 0–7 of the module doc: the verdict, node statuses and the reasoning notes."""
    notes: list[str] = []
    ev = gather(timeline, findings, ingest, rules, notes)
    _note_inputs(ev, notes)
    cands = _rank(ev) if ev.failing else []
    if not cands:
        return _finish(_healthy(ev, notes), ev, _statuses(None, ev, None), notes)
    root_cause = _verdict(ev, cands, rules, notes)
    return _finish(root_cause, ev, _statuses(cands[0].node, ev, cands[0].time), notes)


def _zone_notes(zones: ZoneFix) -> list[str]:
    return [
        f"Zones: {node}'s zone-less timestamps sit {_human_duration(off)} "
        f"{'ahead of' if off > 0 else 'behind'} its own epoch/zoned ones "
        f"({zones.pairs[node]} neighbouring line pairs); they were aligned (is --tz right?)."
        for node, off in sorted(zones.offsets.items())
    ]


def _offset_text(clock: ClockEstimate) -> str:
    return ", ".join(f"{n} {v:+.1f} s" for n, v in sorted(clock.applied.items())) or "none"


def _note_inputs(ev: Case, notes: list[str]) -> None:
    """Plain sentences for what each step found."""
    present = [n for n, f in ev.facts.items() if not f.missing]
    missing = [n for n, f in ev.facts.items() if f.missing]
    notes.append(
        f"Read {len(present)} node log(s)"
        + (f"; {', '.join(missing)} named in the cluster spec left no log" if missing else "")
        + f". {len(ev.errors)} error-level finding(s)."
    )
    for n in sorted(present, key=_node_order):
        f = ev.facts[n]
        notes.append(
            f"{n}'s log ends {ENDING_TEXT.get(f.ending, f.ending)}"
            + (f" ({f.exit_info})" if f.exit_info else "")
            + "."
        )
    if not ev.blames.empty:
        pairs = [(b, sorted(v)) for b, (_, v) in _blame_groups(ev.blames[~ev.blames["self"]])]
        for blamed, victims in pairs:
            notes.append(f"Blame: {', '.join(victims)} name(s) {blamed} in their errors.")
    notes.extend(ev.consistency.messages)
    for node, offset in ev.clock.applied.items():
        notes.append(
            f"Clock: {node}'s timestamps run {_human_duration(offset)} "
            f"{'ahead of' if offset > 0 else 'behind'} its peers' ({ev.clock.reasons[node]}); corrected."
        )
    if not ev.clock.applied and len(ev.clock.offsets) >= 3:
        notes.append(
            f"Clock: no node's start-up or first errors stand out from its peers' by "
            f"{SKEW_MIN_S:.0f} s or more; times are compared as logged."
        )
    for node, after in ev.silent.items():
        notes.append(
            f"Silence: {node}'s log stops mid-run {_human_duration(after)} before its peers'."
        )


def _finish(root_cause: RootCause, ev: Case, statuses: dict, notes: list[str]) -> Diagnosis:
    return Diagnosis(
        root_cause=root_cause,
        nodes=_node_reports(ev, statuses),
        consistency=list(ev.consistency.messages),
        clock_offsets=dict(ev.clock.offsets),
        notes=notes,
    )
