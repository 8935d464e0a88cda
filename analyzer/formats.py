"""Stage 2: bytes of one log → a table of events, one column at a time.

The hot path never loops over lines in Python. A file's bytes are split into an Arrow
string array (newline offsets found with NumPy), container/launcher prefixes are
recognised file-wide, and each line format is a RE2 expression applied with
``pyarrow.compute.extract_regex`` to the lines no earlier format claimed. Only the rare
multi-line events (Python tracebacks, C++ stack traces) are grouped in Python.

Line formats (``format`` column):

``tf_cpp``            ``2018-03-02 08:50:57.918293: I tensorflow/core/.../master.cc:221] msg``
``absl``              ``E0130 12:34:56.789012  1234 grpc_server_lib.cc:467] msg`` (no year), and
                      ``I0000 00:00:1795320249.254368    2138 port.cc:153] msg`` (epoch seconds)
``python_logging``    ``2025-01-30 12:34:56,789 - INFO - msg`` and ``... - name - LEVEL - msg``
``python_basic``      ``INFO:tensorflow:msg``, ``WARNING:absl:msg``
``keras_progress``    ``10/10 [==============================] - 1s 5ms/step - loss: 0.1``
``python_traceback``  ``Traceback (most recent call last):`` … ``SomeError: msg`` (one event)
``cpp_stacktrace``    ``*** Begin stack trace ***`` … ``*** End stack trace ***`` (one event)
``plain``             anything else; it inherits the previous event's time

Wrappers (``wrapper`` column), recognised when most of a file's lines carry them:
``k8s_cri`` (``2025-01-30T12:34:56.789012345Z stderr F …``), ``kubectl`` (``--timestamps``),
``docker_json``, ``mpirun`` (``[1,0]<stderr>:``) and ``slurm`` (``srun --label``: ``3: ``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: Lines longer than this are cut to it in the timeline (a dumped tensor can be 200 MB).
MAX_LINE_CHARS = 1024 * 1024

_TS_ISO = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})"


@dataclass(frozen=True)
class LineFormat:
    """One line format: a RE2 pattern with named groups among :data:`PART_FIELDS`."""

    name: str
    pattern: str
    #: a cheap RE2 test of the line start that must hold before ``pattern`` is tried
    start: str


PART_FIELDS = ("date", "time", "md", "tz", "level", "source", "thread", "logger", "message")

LINE_FORMATS: tuple[LineFormat, ...] = (
    LineFormat(
        "tf_cpp",
        r"^(?P<date>\d{4}-\d{2}-\d{2}) (?P<time>\d{2}:\d{2}:\d{2}(?:\.\d+)?): (?P<level>[IWEF]) "
        r"(?P<source>[^\s\]]+:\d+)\] ?(?P<message>.*)$",
        r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[.\d]*: [IWEF] ",
    ),
    LineFormat(
        "absl",
        r"^(?P<level>[IWEF])(?P<md>\d{4}) (?P<time>\d{2}:\d{2}:\d+(?:\.\d+)?) +(?P<thread>\d+) "
        r"(?P<source>[^\s\]]+:\d+)\] ?(?P<message>.*)$",
        r"^[IWEF]\d{4} \d\d:\d\d:\d",
    ),
    LineFormat(
        "python_logging",
        r"^\[?(?P<date>\d{4}-\d{2}-\d{2})[ T](?P<time>\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)"
        r"(?P<tz>Z|[+-]\d{2}:?\d{2})?\]?(?:\s*[-|:]\s*|\s+)(?:\[?(?P<logger>[\w.]+)\]?\s*[-|:]\s*)?"
        r"\[?(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\]?(?:\s*[-|:]\s*|\s+|$)"
        r"(?P<message>.*)$",
        r"^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d",
    ),
    LineFormat(
        "python_basic",
        r"^(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL):(?P<logger>[\w.]+):(?P<message>.*)$",
        r"^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):",
    ),
    LineFormat(
        "keras_progress",
        r"^(?P<message>\s*(?:\d+/\d+ \[[=>.]*\].*|\d+/\d+ - \d+m?s .*|Epoch \d+/\d+\s*))$",
        r"^\s*(?:\d+/\d+ |Epoch \d)",
    ),
)


@dataclass(frozen=True)
class Wrapper:
    """A prefix that a container runtime or launcher puts before every line."""

    name: str
    pattern: str  # named groups: inner (required), wts, stream, rank


WRAPPERS: tuple[Wrapper, ...] = (
    Wrapper("k8s_cri", rf"^(?P<wts>{_TS_ISO}) (?P<stream>stdout|stderr) [FP] (?P<inner>.*)$"),
    Wrapper(
        "docker_json",
        r'^\{"log":"(?P<inner>(?:[^"\\]|\\.)*)","stream":"(?P<stream>\w+)","time":"(?P<wts>[^"]+)"\}$',
    ),
    Wrapper("mpirun", r"^\[\d+,(?P<rank>\d+)\]<(?P<stream>stdout|stderr|stddiag)>:(?P<inner>.*)$"),
    Wrapper("kubectl", rf"^(?P<wts>{_TS_ISO}) (?P<inner>.*)$"),
    Wrapper("slurm", r"^ {0,4}(?P<rank>\d{1,5}): (?P<inner>.*)$"),
)

_LEVELS = {
    "I": "INFO",
    "W": "WARNING",
    "E": "ERROR",
    "F": "FATAL",
    "WARN": "WARNING",
    "CRITICAL": "FATAL",
}
_TRACEBACK_START = "Traceback (most recent call last):"
_TRACEBACK_JOINERS = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)


@dataclass
class ParsedLines:
    """The lines of one source as a table; see :data:`analyzer.timeline.SCHEMA` for columns.

    ``table`` has one row per event (a traceback is one row spanning ``line_no`` to
    ``line_end``); blank lines are not in it but counted in ``rejected``.
    """

    table: pa.Table
    lines_read: int
    rejected: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    formats: dict[str, int] = field(default_factory=dict)
    wrapper: str | None = None


def decode(data: bytes) -> tuple[bytes, list[str]]:
    """Return ``data`` as valid UTF-8 with a problem note for every repair made."""
    problems: list[str] = []
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16").encode("utf-8"), ["UTF-16 text (byte-order mark); decoded"]
        except UnicodeDecodeError:
            text = data.decode("utf-16", "replace")
            return text.encode("utf-8"), [
                "UTF-16 text with invalid code units; replaced with U+FFFD"
            ]
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", "backslashreplace")
        problems.append(
            f"not valid UTF-8 (first bad byte at offset {exc.start:,}); "
            "bad bytes kept as \\xNN escapes"
        )
        data = text.encode("utf-8")
    return data, problems


def split_lines(data: bytes) -> tuple[pa.Array, list[str]]:
    """Split UTF-8 bytes into an Arrow array of lines (``\\n``, ``\\r\\n`` and lone ``\\r`` end a line)."""
    problems: list[str] = []
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if not data:
        return pa.array([], pa.large_string()), problems
    if not data.endswith(b"\n"):
        problems.append("the last line has no line end (the file was cut off mid-line?)")
        data += b"\n"
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    offsets = np.empty(len(ends) + 1, dtype=np.int64)
    offsets[0] = 0
    offsets[1:] = ends + 1
    with_newline = pa.LargeStringArray.from_buffers(
        len(ends), pa.py_buffer(offsets), pa.py_buffer(data)
    )
    lines = pc.utf8_slice_codeunits(with_newline, 0, -1)
    lengths = pc.utf8_length(lines)
    longest = pc.max(lengths).as_py() or 0
    if longest > MAX_LINE_CHARS:
        long_rows = np.flatnonzero(lengths.to_numpy(zero_copy_only=False) > MAX_LINE_CHARS)
        problems.append(
            f"{len(long_rows)} line(s) longer than {MAX_LINE_CHARS:,} characters (longest "
            f"{longest:,}, line {long_rows[0] + 1}); kept their first {MAX_LINE_CHARS:,}"
        )
        cut = pc.utf8_slice_codeunits(lines, 0, MAX_LINE_CHARS)
        lines = pc.if_else(pc.greater(lengths, MAX_LINE_CHARS), cut, lines)
    return lines, problems


def _detect_wrapper(lines: pa.Array) -> Wrapper | None:
    sample = lines.slice(0, 400)
    sample = sample.filter(pc.greater(pc.utf8_length(sample), 0))
    if len(sample) == 0:
        return None
    for wrapper in WRAPPERS:
        hits = pc.sum(pc.match_substring_regex(sample, wrapper.pattern)).as_py() or 0
        if hits >= max(1, len(sample) // 2):
            return wrapper
    return None


def _unwrap(lines: pa.Array, wrapper: Wrapper) -> dict[str, pa.Array]:
    parts = pc.extract_regex(lines, wrapper.pattern)
    matched = parts.is_valid()
    inner = pc.if_else(matched, parts.field("inner"), lines)
    out: dict[str, pa.Array] = {}
    if wrapper.name == "docker_json":
        inner = pa.array([_json_unescape(s) for s in inner.to_pylist()], pa.large_string())
    out["inner"] = inner
    for name in ("wts", "stream", "rank"):
        if name in parts.type.names:
            values = parts.field(name)
            out[name] = pc.if_else(pc.equal(values, ""), None, values)
    return out


def _json_unescape(text: str | None) -> str | None:
    if text is None or "\\" not in text:
        return text.removesuffix("\n") if text else text
    try:
        return json.loads(f'"{text}"').removesuffix("\n")
    except ValueError:
        return text


def _extract_formats(inner: pa.Array) -> pa.Table:
    """Apply every line format in turn to the lines no earlier one claimed."""
    n = len(inner)
    remaining = np.arange(n, dtype=np.int64)
    pieces: list[pa.Table] = []
    for fmt in LINE_FORMATS:
        if len(remaining) == 0:
            break
        candidates = inner.take(pa.array(remaining))
        looks = pc.match_substring_regex(candidates, fmt.start).to_numpy(zero_copy_only=False)
        if not looks.any():
            continue
        cand_idx = remaining[looks]
        parts = pc.extract_regex(inner.take(pa.array(cand_idx)), fmt.pattern)
        ok = parts.is_valid().to_numpy(zero_copy_only=False)
        if not ok.any():
            continue
        parts = parts.filter(pa.array(ok))
        columns = {
            "row": pa.array(cand_idx[ok]),
            "format": pa.array([fmt.name] * int(ok.sum()), pa.large_string()),
        }
        for name in PART_FIELDS:
            if name in parts.type.names:
                values = parts.field(name).cast(pa.large_string())
                columns[name] = pc.if_else(pc.equal(values, ""), None, values)
            else:
                columns[name] = pa.nulls(int(ok.sum()), pa.large_string())
        pieces.append(pa.table(columns))
        keep = np.ones(len(remaining), dtype=bool)
        keep[np.flatnonzero(looks)[ok]] = False
        remaining = remaining[keep]
    columns = {
        "row": pa.array(remaining),
        "format": pa.array(["plain"] * len(remaining), pa.large_string()),
    }
    for name in PART_FIELDS:
        columns[name] = pa.nulls(len(remaining), pa.large_string())
    columns["message"] = inner.take(pa.array(remaining)).cast(pa.large_string())
    pieces.append(pa.table(columns))
    table = pa.concat_tables(pieces)
    table = table.take(pc.sort_indices(table["row"]))
    return table


def _group_multiline(
    inner: list[str | None], starts: np.ndarray, kind: str
) -> list[tuple[int, int]]:
    """Return (first, last) row ranges of tracebacks or C++ stack traces starting at ``starts``."""
    groups: list[tuple[int, int]] = []
    n = len(inner)
    next_free = 0
    for start in starts.tolist():
        if start < next_free:
            continue
        j = start + 1
        end = start
        while j < n:
            line = inner[j] or ""
            if kind == "python_traceback":
                if (
                    line.startswith((" ", "\t"))
                    or line == ""
                    or line in _TRACEBACK_JOINERS
                    or line == _TRACEBACK_START
                ):
                    j += 1
                    continue
                end = j  # the exception line closes the traceback
                break
            end = j
            if "*** End stack trace ***" in line:
                break
            if j - start > 500:
                break
            j += 1
        else:
            end = n - 1
        # trailing blank lines belong to what follows, not to the traceback
        while end > start and not (inner[end] or "").strip():
            end -= 1
        groups.append((start, end))
        next_free = end + 1
    return groups


def parse_lines(data: bytes) -> ParsedLines:
    """Parse the decompressed bytes of one source into events (see :class:`ParsedLines`)."""
    data, problems = decode(data)
    lines, split_problems = split_lines(data)
    problems += split_problems
    n = len(lines)
    wrapper = _detect_wrapper(lines) if n else None
    extra: dict[str, pa.Array] = {}
    if wrapper:
        extra = _unwrap(lines, wrapper)
        inner = extra.pop("inner")
    else:
        inner = lines
    table = _extract_formats(inner)

    line_no = np.arange(1, n + 1, dtype=np.int64)
    line_end = line_no.copy()
    fmt_col = table["format"].to_numpy()
    message = table["message"].combine_chunks()
    detail = pa.nulls(n, pa.large_string())

    # Multi-line events: tracebacks and stack traces, grouped over the few rows that start one.
    tb_starts = np.flatnonzero(pc.equal(inner, _TRACEBACK_START).to_numpy(zero_copy_only=False))
    st_starts = np.flatnonzero(
        pc.match_substring(inner, "*** Begin stack trace ***").to_numpy(zero_copy_only=False)
    )
    in_group = np.zeros(n, dtype=bool)
    if len(tb_starts) or len(st_starts):
        inner_py = inner.to_pylist()
        msg_py = message.to_pylist()
        detail_py: list[str | None] = [None] * n
        fmt_col = fmt_col.copy()
        for kind, starts in (("python_traceback", tb_starts), ("cpp_stacktrace", st_starts)):
            for first, last in _group_multiline(inner_py, starts, kind):
                if in_group[first]:
                    continue
                body = inner_py[first : last + 1]
                in_group[first + 1 : last + 1] = True
                line_end[first] = last + 1
                fmt_col[first] = kind
                detail_py[first] = "\n".join(s or "" for s in body)
                if kind == "python_traceback":
                    msg_py[first] = body[-1] if len(body) > 1 else body[0]
                else:
                    msg_py[first] = body[0]
        message = pa.array(msg_py, pa.large_string())
        detail = pa.array(detail_py, pa.large_string())
    blank = pc.equal(pc.utf8_trim_whitespace(lines), "").to_numpy(zero_copy_only=False) & ~in_group
    keep = ~(in_group | blank)
    rejected: dict[str, int] = {}
    if blank.any():
        rejected["blank line"] = int(blank.sum())

    levels = table["level"].combine_chunks()
    levels = pc.coalesce(_map_values(levels, _LEVELS), levels)
    source = pc.replace_substring_regex(table["source"].combine_chunks(), r"^.*/", "")
    columns: dict[str, pa.Array] = {
        "line_no": pa.array(line_no),
        "line_end": pa.array(line_end),
        "format": pa.array(fmt_col, pa.large_string()),
        "wrapper": pa.array([wrapper.name] * n if wrapper else [None] * n, pa.large_string()),
        "level": levels,
        "source": source,
        "thread": table["thread"].combine_chunks(),
        "logger": table["logger"].combine_chunks(),
        "message": message,
        "detail": detail,
        "raw": lines,
        "date": table["date"].combine_chunks(),
        "time": table["time"].combine_chunks(),
        "md": table["md"].combine_chunks(),
        "tz": table["tz"].combine_chunks(),
        "wts": extra.get("wts", pa.nulls(n, pa.large_string())),
        "stream": extra.get("stream", pa.nulls(n, pa.large_string())),
        "rank": extra.get("rank", pa.nulls(n, pa.large_string())),
    }
    # a multi-line event keeps all its lines in ``raw``
    if in_group.any():
        raw_py = columns["raw"].to_pylist()
        for first in np.flatnonzero(line_end != line_no).tolist():
            raw_py[first] = "\n".join(raw_py[first : line_end[first]])
        columns["raw"] = pa.array(raw_py, pa.large_string())
    out = pa.table(columns).filter(pa.array(keep))
    formats = pc.value_counts(out["format"]).to_pylist() if out.num_rows else []
    return ParsedLines(
        table=out,
        lines_read=n,
        rejected=rejected,
        problems=problems,
        formats={f["values"]: f["counts"] for f in formats},
        wrapper=wrapper.name if wrapper else None,
    )


def _map_values(values: pa.Array, mapping: dict[str, str]) -> pa.Array:
    keys = pa.array(list(mapping), pa.large_string())
    index = pc.index_in(values, value_set=keys)
    return pc.take(pa.array(list(mapping.values()), pa.large_string()), index)
