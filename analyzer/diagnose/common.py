"""Knobs, shared line patterns and small column helpers of the diagnosis."""

from __future__ import annotations

import re
from collections import namedtuple
from functools import cached_property, lru_cache
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

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
#: Python frames among those lines do not count: TensorFlow's ``Graph execution error:`` lists
#: where the op was defined (``Detected at node X defined at (most recent call last):`` and a
#: frame per line) before the status that says what failed; at most this many more lines.
CONTINUATION_FRAMES = 64
FRAME_LINE_RE = r'^\s+File "'
_FRAME_LINE = re.compile(FRAME_LINE_RE)
CLEAN_LOOKBACK = 8  #: a goodbye among a log's last this-many info lines makes a clean end
TAIL_EVENTS = 40  #: events per node inspected to tell how its log ends
MAX_EVIDENCE = 8
SHORT_MESSAGE = 60  #: evidence lines shorter than this show their continuation lines too
TEXT_LIMIT = 300
#: What a peer sees of a process that is gone (its sockets closed), not of one that hangs.
CLOSED_RE = r"Connection refused|Connection reset|Socket closed|failed to connect to all addresses"
#: A deadline's status in any error's text (gRPC status 4, TF's DeadlineExceededError).
#: Jobs whose tasks do not train: a ps only serves variables, an evaluator reads checkpoints
#: (its "step N" is the training step it evaluated, not one of its own).
NOT_TRAINERS = ("ps", "evaluator")
TIMED_OUT_RE = r"DEADLINE_EXCEEDED|DeadlineExceeded|[Dd]eadline [Ee]xceeded|timed out"
#: gRPC's note of which call failed, when it was the coordination agent's heartbeat: a timeout
#: of the coordination service's own liveness check, not of the job's work
HEARTBEAT_RPC_RE = r"(?:RPC: |calling )/tensorflow\.CoordinationService/Heartbeat"
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


_KILLED_RE = re.compile(
    r"\bKilled\b|SIGKILL|SIGTERM|SIGSEGV|SIGABRT|Segmentation fault|core dumped"
    r"|^Aborted\b|terminate called|(?i:exit(?:ed)?(?: with)? (?:code|status)[\s=:]*-?[1-9]\d*)"
    r"|(?i:returncode[\s=:]*-?[1-9])|(?i:signal \d+)"
    r"|code=(?:killed|dumped|exited), status=[1-9]|\bStopp(?:ing|ed) [\w@.:-]+\.service"
)


_TASK_RE = re.compile(r"/job:(?P<job>[\w-]+)(?:/replica:\d+)?/task:(?P<index>\d+)")
_ADDRESS_RE = re.compile(
    r"^(?:ipv[46]:|grpc://|dns:///?)?(?P<host>\[[^\]]+\]|[\w.\-]+):(?P<port>\d+)$"
)


_LOCAL_HOSTS = {"localhost", "127.0.0.1", "0.0.0.0", "[::1]", "[::]", "::1", "::"}


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
        for w in words:  # (a plain loop: twice as fast as any() over a generator here)
            if w in lower:
                break
        else:
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


#: how many names a sentence lists before it says how many more there are
NAMES_SHOWN = 12


def _names(names: Any, limit: int = NAMES_SHOWN) -> str:
    """Names joined for a sentence: ``a, b, c`` — past ``limit`` of them, the first ones and
    how many more (a job of thousands of tasks is one line, not thousands)."""
    names = list(names)
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit])} and {len(names) - limit:,} more"


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

    def frame_at(self, rows: np.ndarray) -> np.ndarray:
        """Per position: is its message a Python frame (``  File "...", line N, in f``)?
        Only these rows' messages are read."""
        if not len(rows):
            return np.zeros(0, dtype=bool)
        col = self.timeline["message"]
        if _arrow_strings(col):
            import pyarrow.compute as pc

            taken = pa.chunked_array(col.array.__arrow_array__()).take(pa.array(rows, pa.int64()))
            hit = pc.match_substring_regex(taken, FRAME_LINE_RE)
            return hit.fill_null(False).to_numpy(zero_copy_only=False).astype(bool)
        texts = col.iloc[rows]
        return np.array([bool(_FRAME_LINE.match(_text(t))) for t in texts], dtype=bool)

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


@lru_cache(maxsize=4096)
def _address_key(text: str) -> tuple[str, str] | None:
    m = _ADDRESS_RE.match(text.strip())
    if not m:
        return None
    host = m["host"].lower()
    return ("local" if host in _LOCAL_HOSTS else host, m["port"])


def _node_order(node: str) -> tuple:
    job, _, index = node.partition(":")
    order = {"chief": 0, "master": 0, "coordinator": 1, "ps": 2, "worker": 3, "evaluator": 4}
    return (order.get(job, 5), job, int(index) if index.isdigit() else 0, node)


def error_texts(frame: pd.DataFrame) -> pd.Series:
    """Each finding's full text (with its continuation lines) where known, else its message."""
    text = frame["message"].astype(str)
    if "full_text" in frame:
        text = frame["full_text"].fillna(frame["message"]).astype(str)
    return text


def trainers_only(progress: pd.DataFrame | None) -> pd.DataFrame | None:
    """``progress`` without the reports of tasks that do not train (:data:`NOT_TRAINERS`)."""
    if progress is None or progress.empty or "node" not in progress:
        return progress
    codes, nodes = pd.factorize(progress["node"].astype(object))
    trains = np.array([str(n).partition(":")[0] not in NOT_TRAINERS for n in nodes] + [True])
    keep = trains[codes]  # (code -1, no node: kept)
    return progress if keep.all() else progress[keep].reset_index(drop=True)
