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
``docker_json``, ``mpirun`` (``[1,0]<stderr>:``) and ``slurm`` (``srun --label``: ``3: ``),
``kubectl_prefix``, ``compose`` and ``syslog``; and ``learned``: the prefix of a launcher
tfdiag has no rule for, learned from the file's first lines (:mod:`analyzer.prefixes`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analyzer import prefixes

#: Lines longer than this are cut to it in the timeline (a dumped tensor can be 200 MB).
MAX_LINE_CHARS = 1024 * 1024

_TS_ISO = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})"
#: ISO 8601 with a zone with or without its colon (journalctl's short-iso: ``+0000``)
_TS_ISO_LOOSE = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})"
_MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTHS = "|".join(_MONTH_NAMES)
#: Open MPI's output tag, after --timestamp-output's ctime() text when there is one
_MPIRUN_TAG = (
    rf"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:{_MONTHS}) [ \d]\d \d\d:\d\d:\d\d \d{{4}})?"
    r"\[\d+,(?P<rank>\d+)\]<(?P<stream>stdout|stderr|stddiag)>:"
)


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
    # log4j's pattern "%d{yy/MM/dd HH:mm:ss} %p %c{1}: %m" (Apache Spark's default for its
    # daemons, drivers and executors: conf/log4j2.properties.template): a two-digit year
    LineFormat(
        "log4j_short",
        r"^(?P<date>\d{2}/\d{2}/\d{2}) (?P<time>\d{2}:\d{2}:\d{2}(?:[.,]\d+)?) "
        r"(?P<level>TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL) (?P<logger>[\w.$-]+): "
        r"(?P<message>.*)$",
        r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d",
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
    #: named groups: inner (required), wts, stream, rank (the line's source in a stream of
    #: several: a rank number, or a pod's name)
    pattern: str


WRAPPERS: tuple[Wrapper, ...] = (
    Wrapper("k8s_cri", rf"^(?P<wts>{_TS_ISO}) (?P<stream>stdout|stderr) [FP] (?P<inner>.*)$"),
    Wrapper(
        "docker_json",
        r'^\{"log":"(?P<inner>(?:[^"\\]|\\.)*)","stream":"(?P<stream>\w+)","time":"(?P<wts>[^"]+)"\}$',
    ),
    # Open MPI's ``mpirun --tag-output`` (orte/mca/iof/base/iof_base_output.c): "[job,rank]<stream>:"
    # before every piece a rank writes, with --timestamp-output behind ctime()'s text and no
    # space ("Tue Nov 24 22:21:34 2026[1,0]<stdout>:"); a piece without its newline is followed
    # on the same line by the next piece's tag (see :func:`_mpirun_pieces`)
    Wrapper("mpirun", rf"^{_MPIRUN_TAG}(?P<inner>.*)$"),
    # `kubectl logs -l SELECTOR --prefix [--timestamps]`: every pod's lines in one stream,
    # each behind "[pod/<pod>/<container>] " (kubectl's logs.go addPrefixIfNeeded); the pod
    # name is the line's source, as a rank is
    Wrapper(
        "kubectl_prefix",
        rf"^\[pod/(?P<rank>[^/\]\s]+)/[^\]\s]+\] (?:(?P<wts>{_TS_ISO}) )?(?P<inner>.*)$",
    ),
    # ``docker compose logs`` / ``up`` (docker/compose cmd/formatter/logs.go): every line
    # behind ``fmt.Sprintf("%-<width>s | ", name)``, width one more than the longest container
    # name, in color unless --no-color; with --timestamps a time and a space after it. The
    # container's name is the line's source, as a pod's is.
    Wrapper(
        "compose",
        r"^(?:\x1b\[[\d;]*m)?(?P<rank>[A-Za-z0-9][\w.-]*) +\| (?:\x1b\[[\d;]*m)?"
        rf"(?:(?P<wts>{_TS_ISO}) )?(?P<inner>.*)$",
    ),
    # syslog / the systemd journal: ``journalctl``'s short, short-precise, short-iso and
    # short-iso-precise output (systemd src/shared/logs-show.c output_short: time, host,
    # identifier[pid], ": ", message) and rsyslog's traditional or RFC 3339 file lines. The
    # host is the line's source (a merged journal or a central syslog holds every host's
    # lines); a year-less time ("Nov 24 17:06:15") takes the file's year as an absl time does.
    Wrapper(
        "syslog",
        rf"^(?:(?P<wts>{_TS_ISO_LOOSE})|(?P<mon>{_MONTHS}) (?P<day>[ \d]\d) "
        r"(?P<clock>\d\d:\d\d:\d\d(?:\.\d{1,9})?)) (?P<rank>[A-Za-z0-9][\w.-]*) "
        r"[^\s\[\]:]+(?:\[\d+\])?: (?P<inner>.*)$",
    ),
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
    "TRACE": "DEBUG",
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
    condensed: bool = False  #: True when only the lines a :class:`Keep` selects are in ``table``

    @property
    def lines_in_timeline(self) -> int:
        """Lines that are (or, condensed, would be) part of an event in the timeline."""
        return self.lines_read - sum(self.rejected.values())


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
        if not data.isascii():  # (ASCII is UTF-8: no decoded copy needed to tell)
            data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", "backslashreplace")
        problems.append(
            f"not valid UTF-8 (first bad byte at offset {exc.start:,}); "
            "bad bytes kept as \\xNN escapes"
        )
        data = text.encode("utf-8")
    return data, problems


@dataclass
class Lines:
    """The lines of one decoded source, as a zero-copy Arrow view over its bytes.

    Each element of ``view`` still ends with its ``\n``; :meth:`text` gives lines without it.
    Regular expressions that only test lines (selection, blank, has-time) run on the view,
    so only the rows that become events are ever copied.
    """

    view: pa.LargeStringArray
    offsets: np.ndarray  #: int64 byte offsets of the line starts, plus the end
    data: bytes
    longest: int  #: bytes in the longest line

    def __len__(self) -> int:
        return len(self.view)

    def text(self, rows: np.ndarray | None = None) -> pa.Array:
        """Lines ``rows`` (all when None) without their line end, cut at :data:`MAX_LINE_CHARS`."""
        view = self.view if rows is None else self.view.take(pa.array(rows, pa.int64()))
        lines = pc.utf8_slice_codeunits(view, 0, -1)
        if self.longest > MAX_LINE_CHARS:
            lines = pc.utf8_slice_codeunits(lines, 0, MAX_LINE_CHARS)
        return lines

    def shapes(self) -> pa.LargeStringArray | None:
        """Each line (with its line end, uncut) with every ASCII digit as a mark
        (:data:`_DIGITS_TO_MARK`): lines of one *shape* differ only in their digits (see
        :func:`templates`). None when the file holds a mark itself (a shape would not tell it
        from a digit)."""
        if _ZERO.encode() in self.data or _DIGIT.encode() in self.data:
            return None
        shaped = self.data.translate(_DIGITS_TO_MARK)
        return pa.LargeStringArray.from_buffers(
            len(self.view), pa.py_buffer(self.offsets), pa.py_buffer(shaped)
        )

    def blocks(self, size: int) -> pa.Array:
        """Zero-copy view of runs of ``size`` lines as single strings (for a fast first test)."""
        bounds = np.concatenate([self.offsets[:-1:size], self.offsets[-1:]])
        return pa.LargeStringArray.from_buffers(
            len(bounds) - 1, pa.py_buffer(bounds), pa.py_buffer(self.data)
        )


def split_lines(data: bytes) -> tuple[Lines, list[str]]:
    """Split UTF-8 bytes into :class:`Lines` (``\n``, ``\r\n`` and lone ``\r`` end a line)."""
    problems: list[str] = []
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if data and not data.endswith(b"\n"):
        problems.append("the last line has no line end (the file was cut off mid-line?)")
        data += b"\n"
    raw = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 23  # in 8 MB pieces: no byte-sized mask of the whole file
    ends = np.concatenate(
        [np.flatnonzero(raw[i : i + step] == 10) + i for i in range(0, len(raw), step)]
        or [np.zeros(0, dtype=np.int64)]
    )
    offsets = np.empty(len(ends) + 1, dtype=np.int64)
    offsets[0] = 0
    offsets[1:] = ends + 1
    view = pa.LargeStringArray.from_buffers(len(ends), pa.py_buffer(offsets), pa.py_buffer(data))
    sizes = np.diff(offsets) - 1
    longest = int(sizes.max()) if len(sizes) else 0
    if longest > MAX_LINE_CHARS:
        long_rows = np.flatnonzero(sizes > MAX_LINE_CHARS)
        problems.append(
            f"{len(long_rows)} line(s) longer than {MAX_LINE_CHARS:,} characters (longest "
            f"{longest:,} bytes, line {long_rows[0] + 1}); kept their first {MAX_LINE_CHARS:,}"
        )
    return Lines(view, offsets, data, longest), problems


def _detect_wrapper(lines: pa.Array) -> Wrapper | None:
    sample = _nonblank_head(lines)
    if len(sample) == 0:
        return None
    found = _carried_by(sample, WRAPPERS)
    if found is not None:
        return found
    if _formats_after_text(sample).sum() < 3:
        return None
    learned = prefixes.learn(sample.to_pylist(), _FORMAT_RES)
    return Wrapper("learned", learned[0]) if learned else None


def _nested_wrapper(inner: pa.Array, outer: Wrapper) -> Wrapper | None:
    """A known wrapper that names each line's source, inside ``outer`` (which names none): an
    MPI Operator launcher pod's ``kubectl logs --timestamps`` holds mpirun's ``[1,N]<stdout>:``
    tags; a batch system's time before srun's ``--label``. Found as :func:`_detect_wrapper`
    finds a wrapper, on the text inside ``outer``."""
    sample = _nonblank_head(inner)
    sources = [w for w in WRAPPERS if w.name != outer.name and "(?P<rank>" in w.pattern]
    return _carried_by(sample, sources) if len(sample) else None


def _nonblank_head(lines: pa.Array) -> pa.Array:
    """The first 400 lines that are not empty: what wrapper detection looks at."""
    sample = lines.slice(0, 400)
    return sample.filter(pc.greater(pc.utf8_length(sample), 0))


def _carried_by(sample: pa.Array, wrappers) -> Wrapper | None:
    """The first of ``wrappers`` most of ``sample``'s lines carry (at least two of several: a
    short paste with one "1: [...]" line among others is not wrapped; a one-line log is when
    its line is)."""
    need = 1 if len(sample) == 1 else max(2, len(sample) // 2 + 1)
    for wrapper in wrappers:
        if (pc.sum(pc.match_substring_regex(sample, wrapper.pattern)).as_py() or 0) >= need:
            return wrapper
    return None


#: the line formats a learned prefix may stand before (Python ``re``, anchored at the text)
_FORMAT_RES = [re.compile(f.pattern) for f in LINE_FORMATS if f.name != "keras_progress"]


def _formats_after_text(text: pa.Array) -> np.ndarray:
    """Lines where a known format starts after some text, not at the line's start."""
    after = _bool(pc.match_substring_regex(text, prefixes.STARTS_AFTER_TEXT))
    if not after.any():
        return after
    return after & ~_bool(pc.match_substring_regex(text, prefixes.STARTS_AT_LINE_START))


def _unwrap(lines: pa.Array, wrapper: Wrapper) -> dict[str, pa.Array]:
    parts = pc.extract_regex(lines, wrapper.pattern)
    matched = parts.is_valid()
    inner = pc.if_else(matched, parts.field("inner"), lines)
    out: dict[str, pa.Array] = {}
    if wrapper.name == "docker_json":
        inner = pa.array([_json_unescape(s) for s in inner.to_pylist()], pa.large_string())
    if wrapper.name == "mpirun":
        inner, parts = _mpirun_pieces(inner, parts)
    out["inner"] = inner
    for name in ("wts", "stream", "rank"):
        if name in parts.type.names:
            values = parts.field(name)
            out[name] = pc.if_else(pc.equal(values, ""), None, values)
    if "mon" in parts.type.names:  # a year-less "Mon dd hh:mm:ss": as an absl time's parts
        mon = parts.field("mon")
        month = pc.index_in(mon, value_set=pa.array(_MONTH_NAMES, mon.type))
        mm = pc.utf8_lpad(pc.cast(pc.add(month, 1), pa.string()), 2, "0")
        dd = pc.utf8_lpad(pc.utf8_trim_whitespace(parts.field("day")), 2, "0")
        md = pc.binary_join_element_wise(
            mm.cast(pa.large_string()), dd.cast(pa.large_string()), pa.scalar("", pa.large_string())
        )
        out["wmd"] = pc.if_else(pc.equal(mon, ""), None, md)
        clock = parts.field("clock")
        out["wclock"] = pc.if_else(pc.equal(clock, ""), None, clock)
    return out


_MPIRUN_TAG_RE = re.compile(_MPIRUN_TAG.replace("(?P<rank>", "(").replace("(?P<stream>", "("))


def _mpirun_pieces(inner: pa.Array, parts: pa.StructArray) -> tuple[pa.Array, pa.StructArray]:
    """mpirun tags every write() of a rank, not every line: Python's print() writes its text
    and its newline apart, so a rank's text may be followed on the same line by other pieces
    (each behind its own tag) and its newline comes later behind a tag of its own:
    ``[1,1]<stdout>:text[1,0]<stdout>:other`` then ``[1,1]<stdout>:``. Each line is cut at its
    tags and each rank's pieces are joined until the piece a newline ends; that joined text is
    the line where its last piece is, with that piece's rank and stream. A rank's pieces that
    no newline ends (its output stopped mid-line) are added to its last line."""
    cut = _bool(pc.match_substring_regex(inner, _MPIRUN_TAG))
    if not cut.any():
        return inner, parts
    texts = inner.to_pylist()
    ranks = parts.field("rank").to_pylist()
    streams = parts.field("stream").to_pylist()
    pending: dict[str, str] = {}
    last_row: dict[str, int] = {}
    for i, text in enumerate(texts):
        if text is None or ranks[i] is None:
            continue
        rank, stream = ranks[i], streams[i]
        if cut[i]:
            pieces = _MPIRUN_TAG_RE.split(text)  # text, then (rank, stream, text) per tag
            for k in range(1, len(pieces), 3):
                pending[rank] = pending.get(rank, "") + pieces[k - 1]
                rank, stream = pieces[k], pieces[k + 1]
            text = pieces[-1]
        texts[i] = pending.pop(rank, "") + text
        ranks[i], streams[i] = rank, stream
        last_row[rank] = i
    for rank, text in pending.items():  # never ended by a newline
        if rank in last_row:
            texts[last_row[rank]] += text
    names = parts.type.names
    fields = {n: parts.field(n) for n in names}
    fields["rank"] = pa.array(ranks, fields["rank"].type)
    fields["stream"] = pa.array(streams, fields["stream"].type)
    return pa.array(texts, inner.type), pa.StructArray.from_arrays(
        list(fields.values()), names=list(names)
    )


def _json_unescape(text: str | None) -> str | None:
    if text is None or "\\" not in text:
        return text.removesuffix("\n") if text else text
    try:
        value = json.loads(f'"{text}"').removesuffix("\n")
    except ValueError:
        return text
    # an escaped lone surrogate (\ud800) is no text Arrow can hold: keep it as the escape
    return value.encode("utf-8", "backslashreplace").decode("utf-8")


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


def _group_spans(
    text, n: int, starts: np.ndarray, kind: str, limit: np.ndarray | None = None
) -> np.ndarray:
    """The last row of each traceback or C++ stack trace starting at ``starts`` (sorted).

    A traceback runs over indented lines, blank lines and the lines that chain exceptions, to
    the line that names the exception; a stack trace to its ``*** End stack trace ***``; either
    at most :data:`_MAX_GROUP_LINES` lines and never past ``limit`` (per row: where its file
    ends). Only the lines after each start are tested, all at once (``text(rows)`` gives them).
    """
    if not len(starts):
        return starts
    # most end within a few lines: those are found looking that far; the others look again
    last, closed = _spans(text, n, starts, kind, limit, _FIRST_LOOK)
    if not closed.all():
        last[~closed] = _spans(text, n, starts[~closed], kind, limit, _MAX_GROUP_LINES)[0]
    return last


_FIRST_LOOK = 32


def _spans(
    text, n: int, starts: np.ndarray, kind: str, limit: np.ndarray | None, span: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_group_spans` looking at most ``span`` lines on; and which groups were closed."""
    stop = np.minimum(starts + span, n if limit is None else limit[starts])
    stop = np.maximum(stop, starts + 1)
    # the rows of every window (start, stop) in one array
    mark = np.zeros(n + 1, dtype=np.int64)
    np.add.at(mark, starts + 1, 1)
    np.add.at(mark, stop, -1)
    rows = np.flatnonzero(np.cumsum(mark)[:n] > 0)
    lines = text(rows)
    blank = _bool(pc.equal(pc.utf8_trim_whitespace(lines), ""))
    if kind == "python_traceback":
        goes_on = pc.or_(
            pc.or_(pc.starts_with(lines, " "), pc.starts_with(lines, "\t")),
            pc.is_in(lines, pa.array(["", _TRACEBACK_START, *_TRACEBACK_JOINERS], lines.type)),
        )
        closing = rows[~_bool(goes_on)]
    else:
        closing = rows[_bool(pc.match_substring(lines, "*** End stack trace ***"))]
    at = np.searchsorted(closing, starts + 1)
    found = closing[np.minimum(at, max(len(closing) - 1, 0))] if len(closing) else starts
    closed = (at < len(closing)) & (found < stop)
    last = np.where(closed, found, stop - 1)
    # an open group's trailing blank lines belong to what follows, not to it
    filled = np.full(n, -1, dtype=np.int64)
    filled[rows[~blank]] = rows[~blank]
    filled[starts] = starts
    last_filled = np.maximum.accumulate(filled)
    return np.where(closed, last, np.maximum(last_filled[last], starts)), closed


def _joined(text, firsts: np.ndarray, lasts: np.ndarray) -> pa.Array:
    """The lines ``firsts[i]..lasts[i]`` of each group, joined by newlines (one text each)."""
    sizes = lasts - firsts + 1
    offsets = np.r_[0, np.cumsum(sizes)]
    rows = np.repeat(firsts - offsets[:-1], sizes) + np.arange(offsets[-1])
    values = pc.fill_null(text(rows), "")
    lists = pa.LargeListArray.from_arrays(pa.array(offsets, pa.int64()), values)
    return pc.binary_join(lists, pa.scalar("\n", values.type))


@dataclass(frozen=True)
class Keep:
    """What a *condensed* parse keeps (``tfdiag analyze``); ``None`` keeps every line (``ingest``).

    Kept: lines matching ``pattern`` (RE2, case-insensitive: the pattern library's keywords),
    error-level lines, the first ``head`` and last ``tail`` lines of the file, an even sample of
    about ``sample`` lines (for activity over time), and the timestamped line each kept line
    takes its time from. Everything else is counted, not kept.

    Training progress lines (``progress``, RE2, case-insensitive; see :mod:`analyzer.progress`)
    are kept downsampled: those in ``progress_blocks`` evenly spaced runs of 64 lines (runs of
    consecutive reports, so the interval between reports shows), plus the file's first and
    last progress line.

    Events that repeat are aggregated where they are found: of the events a file logs with one
    *template* (format, level, source and message with its numbers masked; task names and
    addresses kept), only the first and the last ``per_template`` are kept. The last of the
    first ones carries in ``repeats`` how many it stands for, so counts stay exact while what is
    kept grows with the distinct templates, not with the lines (0 keeps every event). The head,
    tail, sample and progress lines, and the timed line a kept line takes its time from, are
    always kept.
    """

    pattern: str
    head: int = 50
    tail: int = 50
    sample: int = 500
    progress: str = ""
    progress_blocks: int = 16
    per_template: int = 8


#: Lines whose level says error or worse, in the formats that put the level at a fixed place.
_ERROR_LEVEL = (
    r"^[EF]\d{4} \d\d:|^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[.\d]*: [EF] "
    r"|^\S+ \S+ - (?:ERROR|CRITICAL|FATAL) - |^(?:ERROR|CRITICAL|FATAL):"
    r"|^\d\d/\d\d/\d\d \d\d:\d\d:\d\d[.,\d]* (?:ERROR|FATAL) "
)
#: A line that carries its own timestamp (one of the timed line formats).
_HAS_TIME = (
    r"^(?:\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d|[IWEF]\d{4} \d\d:\d\d:|\d\d/\d\d/\d\d \d\d:\d\d:\d\d)"
)
_GROUP_STARTS = r"^Traceback \(most recent call last\):$|\*\*\* Begin stack trace \*\*\*"
_MAX_GROUP_LINES = 500


def _bool(array: pa.Array) -> np.ndarray:
    return pc.fill_null(array, False).to_numpy(zero_copy_only=False)


_BLOCK = 64
_SAMPLE_EVERY = 16  # blocks: one in this many tells how many hold a line of interest
_STEPS_BACK = 4  # then one pass over the whole file is cheaper than more steps


def _match_rows(
    lines: Lines | pa.Array, pattern: str, rows: np.ndarray | None = None
) -> np.ndarray:
    """Row numbers (among ``rows``, or all) whose line matches ``pattern`` (RE2, case-insensitive)."""
    view = lines.view if isinstance(lines, Lines) else lines
    if rows is None:
        return np.flatnonzero(_bool(pc.match_substring_regex(view, pattern, ignore_case=True)))
    hits = _bool(
        pc.match_substring_regex(view.take(pa.array(rows, pa.int64())), pattern, ignore_case=True)
    )
    return rows[hits]


def _select(
    lines: Lines,
    inner: pa.Array | None,
    blank: np.ndarray,
    keep: Keep,
    timed_by_wrapper: bool,
    rank: pa.Array | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows a condensed parse keeps (see :class:`Keep`), those of them that are kept
    whatever they repeat (head, tail, sample, progress, a file's first timed line), and how
    many lines each row stands for (a line repeating a kept line's template is left out here,
    before any per-line work, and counted on it)."""
    n = len(lines)
    pattern = f"(?m){keep.pattern}|{_ERROR_LEVEL}|{_GROUP_STARTS}"
    wanted = np.zeros(n, dtype=bool)
    blocks = lines.blocks(_BLOCK) if inner is None else None
    if blocks is not None and len(blocks) >= 16 * _SAMPLE_EVERY:
        # where most blocks hold a line of interest, testing blocks first costs a pass more
        sample = blocks.take(pa.array(np.arange(0, len(blocks), _SAMPLE_EVERY)))
        if _bool(pc.match_substring_regex(sample, pattern, ignore_case=True)).mean() >= 0.5:
            blocks = None
    if blocks is None and inner is None:
        wanted[_match_rows(lines, pattern)] = True
    elif blocks is not None:
        # most blocks of 64 lines hold nothing of interest: test blocks first, then their lines
        hit_blocks = np.flatnonzero(
            _bool(pc.match_substring_regex(blocks, pattern, ignore_case=True))
        )
        if len(hit_blocks):
            candidates = (hit_blocks[:, None] * _BLOCK + np.arange(_BLOCK)).ravel()
            candidates = candidates[candidates < n]
            wanted[_match_rows(lines, pattern, candidates)] = True
    else:
        wanted[_match_rows(inner, pattern)] = True
    pinned = np.zeros(n, dtype=bool)
    pinned[: keep.head] = True
    pinned[max(0, n - keep.tail) :] = True
    if rank is not None:  # one stream of several sources: each source's own head and tail
        pinned[_source_edges(rank, keep.head, keep.tail)] = True
    if keep.sample and n > keep.sample:
        pinned[:: n // keep.sample] = True
    if keep.progress:
        pinned[_progress_rows(lines, inner, keep)] = True
    wanted |= pinned
    wanted &= ~blank
    weights = np.ones(n, dtype=np.int64)
    candidates = np.flatnonzero(wanted & ~pinned)
    if keep.per_template and len(candidates) > 2 * keep.per_template:
        shaped = lines.shapes() if inner is None and len(candidates) * 4 > n else None
        if shaped is not None:  # most lines are candidates: shape the whole file once
            shapes = pc.dictionary_encode(shaped)
            group = shapes.indices.to_numpy(zero_copy_only=False)[candidates]
            key, _ = _shape_template_ids(
                lambda at: lines.text(candidates[at]), group, shapes.dictionary
            )
            starts = _group_starts_of(lines, candidates)  # grouped later: kept
        else:
            text = lines.text(candidates) if inner is None else inner.take(pa.array(candidates))
            starts = _group_starts(text)  # grouped later: kept
            key = templates(text)
            if rank is not None:  # one stream of several sources: each source's own repeats
                source = pc.fill_null(rank.take(pa.array(candidates)), "")
                key = pc.binary_join_element_wise(
                    source.cast(pa.large_string()),
                    key.cast(pa.large_string()),
                    pa.scalar("\x1f", pa.large_string()),
                )
        kept, repeats = _collapse(key, starts, starts, keep.per_template)
        wanted[candidates[~kept]] = False
        weights[candidates] = repeats
    if not timed_by_wrapper:
        _add_time_sources(inner if inner is not None else lines, wanted, pinned)
    return wanted, pinned, weights


def _source_edges(rank: pa.Array, head: int, tail: int) -> np.ndarray:
    """Rows among the first ``head`` or last ``tail`` of their source (``rank``'s value)."""
    codes = pc.dictionary_encode(pc.fill_null(rank, "")).indices.to_numpy(zero_copy_only=False)
    order = np.argsort(codes, kind="stable")
    ordered = codes[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    sizes = np.diff(np.r_[starts, len(codes)])
    at = np.arange(len(codes)) - np.repeat(starts, sizes)
    return order[(at < head) | (at >= np.repeat(sizes, sizes) - tail)]


def _group_starts_of(lines: Lines, rows: np.ndarray) -> np.ndarray:
    """:func:`_group_starts` of ``lines.text(rows)``, found on the file's bytes (no copy)."""
    found = np.zeros(len(rows), dtype=bool)
    sizes = lines.offsets[rows + 1] - lines.offsets[rows] - 1
    tracebacks = np.flatnonzero(sizes == len(_TRACEBACK_START))
    if len(tracebacks):
        texts = lines.view.take(pa.array(rows[tracebacks]))
        found[tracebacks[_bool(pc.equal(texts, _TRACEBACK_START + "\n"))]] = True
    raw = np.frombuffer(lines.data, dtype=np.uint8)
    stars = np.concatenate(
        [np.flatnonzero(raw[i : i + (1 << 23)] == 42) + i for i in range(0, len(raw), 1 << 23)]
        or [np.zeros(0, dtype=np.int64)]
    )
    if len(stars):
        at = np.unique(np.searchsorted(lines.offsets, stars, side="right") - 1)
        at = at[np.isin(at, rows)]
        if len(at):
            begin = _bool(pc.match_substring(lines.text(at), "*** Begin stack trace ***"))
            found[np.searchsorted(rows, at[begin])] = True
    return found


def _group_starts(text: pa.Array) -> np.ndarray:
    """Which of ``text`` (lines without their line end) match :data:`_GROUP_STARTS`: the lines
    as long as a traceback's first line, and those with a ``*`` (found on the bytes), tested."""
    if not pa.types.is_large_string(text.type) or text.null_count or not len(text):
        return _bool(pc.match_substring_regex(text, _GROUP_STARTS))
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int64)[
        text.offset : text.offset + len(text) + 1
    ]
    found = np.zeros(len(text), dtype=bool)
    tracebacks = np.flatnonzero(np.diff(offsets) == len(_TRACEBACK_START))
    if len(tracebacks):
        same = _bool(pc.equal(text.take(pa.array(tracebacks)), _TRACEBACK_START))
        found[tracebacks[same]] = True
    if text.buffers()[2] is not None and offsets[-1] > offsets[0]:
        raw = np.frombuffer(text.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
        stars = np.flatnonzero(raw == 42) + offsets[0]
        rows = np.unique(np.searchsorted(offsets, stars, side="right") - 1)
        if len(rows):
            begin = _bool(
                pc.match_substring(text.take(pa.array(rows)), "*** Begin stack trace ***")
            )
            found[rows[begin]] = True
    return found


def _progress_rows(lines: Lines, inner: pa.Array | None, keep: Keep) -> np.ndarray:
    """Progress lines of a condensed parse: those in evenly spaced blocks, the first, the last."""
    n = len(lines)
    target = lines if inner is None else inner
    count = -(-n // _BLOCK)
    picks = np.unique(
        np.r_[0, count - 1, np.linspace(0, count - 1, max(keep.progress_blocks, 2)).round()]
    ).astype(np.int64)
    rows = (picks[:, None] * _BLOCK + np.arange(_BLOCK)).ravel()
    found = _match_rows(target, keep.progress, rows[rows < n])
    if not len(found):
        return found
    # the last (first) progress line lies between the last (first) sampled one and the end
    ends = [_edge_row(lines, inner, keep.progress, int(found[-1]) + 1, n, last=True)]
    ends.append(_edge_row(lines, inner, keep.progress, 0, int(found[0]), last=False))
    return np.r_[found, [r for r in ends if r is not None]].astype(np.int64)


def _edge_row(
    lines: Lines, inner: pa.Array | None, pattern: str, lo: int, hi: int, *, last: bool
) -> int | None:
    """The last (or first) row in ``[lo, hi)`` matching ``pattern``, searched block-wise from
    that end in chunks that double, so a progress line near the end costs one small chunk."""
    target = lines if inner is None else inner
    blocks = lines.blocks(_BLOCK) if inner is None else None
    size, edge = 32 * _BLOCK, hi if last else lo
    while (edge > lo) if last else (edge < hi):
        a, b = (max(lo, edge - size), edge) if last else (edge, min(hi, edge + size))
        edge, size = (a if last else b), size * 2
        rows = np.arange(a, b)
        if blocks is not None:
            first_block, last_block = a // _BLOCK, (b - 1) // _BLOCK
            part = blocks.slice(first_block, last_block - first_block + 1)
            hit = np.flatnonzero(
                _bool(pc.match_substring_regex(part, f"(?m){pattern}", ignore_case=True))
            )
            if not len(hit):
                continue
            cand = ((hit + first_block)[:, None] * _BLOCK + np.arange(_BLOCK)).ravel()
            rows = cand[(cand >= a) & (cand < b)]
        found = _match_rows(target, pattern, rows)
        if len(found):
            return int(found[-1] if last else found[0])
    return None


def _add_time_sources(lines: Lines | pa.Array, wanted: np.ndarray, pinned: np.ndarray) -> None:
    """Keep, for each kept line without a time of its own, the timed line it inherits from.

    Steps back from all untimed rows at once, one line per step, testing only the rows still
    unresolved: most resolve in a step or two (a traceback or a proto dump takes more).
    """
    rows = np.flatnonzero(wanted)
    pending = np.setdiff1d(rows, _match_rows(lines, _HAS_TIME, rows), assume_unique=True)
    step = 1
    while len(pending) and step <= _STEPS_BACK:
        back = pending - step
        pending, back = pending[back >= 0], back[back >= 0]
        timed = np.isin(back, _match_rows(lines, _HAS_TIME, back))
        wanted[back[timed]] = True
        pending = pending[~timed]
        step += 1
    # far from any timed line (the lines just before were tested): back in windows that double
    top, size = pending - (step - 1), 64  # rows below ``top`` are still to be looked at
    while len(pending):
        bottom = np.maximum(top - size, 0)
        mark = np.zeros(len(wanted) + 1, dtype=np.int64)
        np.add.at(mark, bottom, 1)
        np.add.at(mark, top, -1)
        timed = _match_rows(lines, _HAS_TIME, np.flatnonzero(np.cumsum(mark)[:-1] > 0))
        at = np.searchsorted(timed, top) - 1  # the last timed row below each top
        found = at >= 0
        found[found] = timed[at[found]] >= bottom[found]
        wanted[timed[at[found]]] = True
        going = ~found & (bottom > 0)
        pending, top, size = pending[going], bottom[going], size * 2
    first = _match_rows(lines, _HAS_TIME, np.arange(min(len(wanted), 4096)))
    if len(first):
        wanted[first[0]] = pinned[first[0]] = True


#: What a message template masks: numbers (addresses and ports too: a job that restarts
#: serves on new ports) and ``0x`` hex. Kept as they are (group 1): the tasks a line names
#: (``/job:worker/replica:0/task:3``, ``task:3``, ``worker:3``).
_TEMPLATE_MASK = (
    r"((?:/job:[\w-]+)?/replica:\d+/task:\d+|\btask:\d+"
    r"|\b(?:chief|worker|ps|master|evaluator|coordinator):\d+\b)"
    r"|0x[0-9a-fA-F]+|\d+"
)
_NUMBERS = r"0x[0-9a-fA-F]+|\d+"
_NAMES_TASK = r"task:#|\b(?:chief|worker|ps|master|evaluator|coordinator):#"
#: What a digit becomes in a line's *shape* (:func:`templates`): control characters logs do not
#: hold (a text that does hold one is masked line by line); ``0`` has its own (``0x`` starts a
#: hex number, ``1x`` does not).
_ZERO, _DIGIT = "\x1d", "\x1e"
_DIGITS_TO_MARK = bytes(0x1D if c == 48 else 0x1E if 49 <= c < 58 else c for c in range(256))
_SHAPE_NAMES_TASK = _NAMES_TASK.replace("#", f"[{_ZERO}{_DIGIT}]")


def templates(message: pa.Array) -> pa.Array:
    """``message`` with its numbers masked (see :data:`_TEMPLATE_MASK`): one text per kind, the
    key under which a condensed parse aggregates repeated events. (:func:`analyzer.compare.
    templates` is the template shown to people: it masks paths and task names too.)

    The work grows with the distinct lines, not with the lines: every digit becomes a mark
    (:data:`_DIGITS_TO_MARK`) in one byte translation (a *shape*: lines of one shape differ only in their
    digits), the shapes are hashed, and only one line of each shape is masked
    (:func:`_masked`). Two lines of one shape get the same template, except where a task's
    number is kept (``worker:3``): the lines of a shape that shows a task name are masked each."""
    text = pc.fill_null(message, "") if message.null_count else message
    if isinstance(text, pa.ChunkedArray):
        text = text.combine_chunks()
    if not pa.types.is_large_string(text.type):
        return templates(text.cast(pa.large_string())).cast(text.type)
    shaped = _digit_shapes(text)
    if shaped is None:
        return _masked(text)
    shapes = pc.dictionary_encode(shaped)
    if len(shapes.dictionary) * 2 > len(text):  # little repeats: mask each line
        return _masked(text)
    group = shapes.indices.to_numpy(zero_copy_only=False)
    ids, masked = _shape_template_ids(lambda at: text.take(pa.array(at)), group, shapes.dictionary)
    return masked.take(pa.array(ids))


def _shape_template_ids(
    text_of, group: np.ndarray, shapes: pa.Array
) -> tuple[np.ndarray, pa.LargeStringArray]:
    """A number per row, equal for two rows exactly when their :func:`templates` are equal,
    and the template of each number; given each row's digit shape (``group``: its index in
    ``shapes``, the distinct shapes). ``text_of(positions)`` gives the text of those rows.
    One row of each shape is masked, and one row of each shape and kept task number
    (:func:`_task_classes`) where the shape names a task."""
    present = np.zeros(len(shapes), dtype=bool)
    present[group] = True
    first = np.empty(len(shapes), dtype=np.int64)
    first[group[::-1]] = np.arange(len(group) - 1, -1, -1)
    kinds = np.flatnonzero(present)
    named_shape = _bool(pc.match_substring_regex(shapes, _SHAPE_NAMES_TASK))
    named = np.flatnonzero(named_shape[group])
    task_class, representatives = _task_classes(text_of, named, group[named])
    both = np.r_[first[kinds], named[representatives]].astype(np.int64)
    masked = _masked(pc.fill_null(text_of(both), "").cast(pa.large_string()))
    encoded = pc.dictionary_encode(masked)
    ids = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    of_shape = np.full(len(shapes), -1, dtype=np.int64)
    of_shape[kinds] = ids[: len(kinds)]
    out = of_shape[group]
    out[named] = ids[len(kinds) :][task_class]
    return out, encoded.dictionary


_KEPT_NUMBERS = re.compile(_TEMPLATE_MASK.encode())  # bytes: ASCII \w, \d and \b, as RE2's


def _kept_digits(line: bytes) -> np.ndarray:
    """Byte positions of the digits :data:`_TEMPLATE_MASK` keeps in ``line`` (a task's name)."""
    spans = [m.span(1) for m in _KEPT_NUMBERS.finditer(line) if m.start(1) >= 0]
    return np.array(
        [i for a, b in spans for i in range(a, b) if 48 <= line[i] < 58], dtype=np.int64
    )


def _task_classes(text_of, rows: np.ndarray, shape: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For ``rows`` of shapes that name a task (``shape``: each one's), a class per row and
    a representative (index into ``rows``) per class: two rows of one shape whose digits are
    equal where :data:`_TEMPLATE_MASK` keeps a task's number have equal templates (rows of one
    shape have their digits at the same bytes and equal bytes elsewhere, and the expression
    only tells a digit, a ``0`` and the rest apart). So the slow, exact masking runs on one
    row per class, not on every row that names a task (a crash loop's thousands)."""
    n = len(rows)
    cls = np.arange(n, dtype=np.int64)
    if n == 0:
        return cls, cls
    text = pc.fill_null(text_of(rows), "").cast(pa.large_string())
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int64)[text.offset : text.offset + n + 1]
    data = text.buffers()[2]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    sizes = np.diff(offsets)
    order = np.argsort(shape, kind="stable")
    bounds = np.r_[0, np.flatnonzero(np.diff(shape[order])) + 1, n]
    # a shape of one row is its own class (no Python step for it: where few lines repeat,
    # most shapes are such)
    alone = np.diff(bounds) == 1
    single = order[bounds[:-1][alone]]
    cls[single] = np.arange(len(single))
    representatives: list[int] = single.tolist()
    for a, b in zip(bounds[:-1][~alone].tolist(), bounds[1:][~alone].tolist(), strict=True):
        members = order[a:b]
        head = int(members[0])
        if (sizes[members] != sizes[head]).any():  # not one shape after all: each its own
            cls[members] = len(representatives) + np.arange(len(members))
            representatives.extend(members.tolist())
            continue
        kept = _kept_digits(raw[offsets[head] : offsets[head + 1]].tobytes())
        if not len(kept):
            cls[members] = len(representatives)
            representatives.append(head)
            continue
        picked = raw[offsets[members][:, None] + kept]
        _, at, inverse = np.unique(picked, axis=0, return_index=True, return_inverse=True)
        cls[members] = len(representatives) + inverse.ravel()
        representatives.extend(members[at].tolist())
    return cls, np.asarray(representatives, dtype=np.int64)


def _digit_shapes(text: pa.LargeStringArray) -> pa.LargeStringArray | None:
    """``text`` with every ASCII digit replaced by a mark (:data:`_DIGITS_TO_MARK`, one
    ``bytes.translate``); None when the text holds a mark itself."""
    n = len(text)
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int64)[text.offset : text.offset + n + 1]
    data = text.buffers()[2]
    if n == 0 or data is None or offsets[-1] == offsets[0]:
        return text
    start, size = int(offsets[0]), int(offsets[-1] - offsets[0])
    raw = data.slice(start, size).to_pybytes()
    if _ZERO.encode() in raw or _DIGIT.encode() in raw:
        return None
    shaped = raw.translate(_DIGITS_TO_MARK)
    return pa.LargeStringArray.from_buffers(
        n, pa.py_buffer(offsets - offsets[0]), pa.py_buffer(shaped), null_count=0
    )


def _masked(text: pa.LargeStringArray) -> pa.LargeStringArray:
    """:func:`templates` of each line: all numbers are masked first, on the bytes with NumPy
    (:func:`_mask_digits`; the rare lines with ``0x`` get the RE2 expression); only the lines
    that then show a task name are masked again keeping it (the slower expression runs on
    those few)."""
    coarse, hex_rows, maybe_named = _mask_digits(text)
    if len(hex_rows):  # `0x…` is one number: RE2 does those lines
        redo = np.zeros(len(text), dtype=bool)
        redo[hex_rows] = True
        coarse = pc.replace_with_mask(
            coarse,
            pa.array(redo),
            pc.replace_substring_regex(
                text.take(pa.array(hex_rows)), pattern=_NUMBERS, replacement="#"
            ),
        )
        maybe_named = np.union1d(maybe_named, hex_rows)
    if not len(maybe_named):
        return coarse
    candidates = pa.array(maybe_named)
    hit = _bool(pc.match_substring_regex(coarse.take(candidates), _NAMES_TASK))
    if not hit.any():
        return coarse
    names = np.zeros(len(text), dtype=bool)
    names[maybe_named[hit]] = True
    precise = pc.replace_substring_regex(
        text.take(pa.array(maybe_named[hit])), pattern=_TEMPLATE_MASK, replacement=r"\1#"
    )
    return pc.replace_with_mask(coarse, pa.array(names), precise)


#: Last letters of the words :data:`_NAMES_TASK` puts before ``:#`` (task, chief, worker, ps…).
_NAME_ENDS = np.zeros(256, dtype=bool)
_NAME_ENDS[list(b"kfrs")] = True
_DIGITS_TO_HASH = bytes(35 if 48 <= c < 58 else c for c in range(256))
_MASK_PIECE = 1 << 20


def _mask_digits(text: pa.LargeStringArray) -> tuple[pa.LargeStringArray, np.ndarray, np.ndarray]:
    """``text`` with each run of ASCII digits replaced by ``#`` (what ``\\\\d+`` → ``#`` gives),
    computed on the bytes of all lines, a piece of :data:`_MASK_PIECE` bytes at a time (the
    temporary arrays stay small and in cache); and the rows holding ``0x`` (where the template
    masks ``0x`` and its hex digits as one number) and the rows that may name a task (a ``:#``
    after one of :data:`_NAME_ENDS`), both for RE2 to look at."""
    n = len(text)
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int64)[text.offset : text.offset + n + 1]
    data = text.buffers()[2]
    if n == 0 or data is None or offsets[-1] == offsets[0]:
        return text, np.zeros(0, np.int64), np.zeros(0, np.int64)
    raw = np.frombuffer(data, dtype=np.uint8)[offsets[0] : offsets[-1]]
    offsets = offsets - offsets[0]
    heads = offsets[:-1][offsets[:-1] < offsets[1:]]  # first byte of each non-empty line
    pieces: list[bytes] = []
    dropped_at: list[np.ndarray] = []
    hex_at: list[np.ndarray] = []
    named_at: list[np.ndarray] = []
    done = 0  # bytes of the masked text so far
    tail = b""  # its last two bytes
    for start in range(0, len(raw), _MASK_PIECE):
        stop = min(len(raw), start + _MASK_PIECE)
        before = 1 if start else 0  # the byte before the piece: does a run go on?
        segment = raw[start - before : stop]
        digit = np.less(np.subtract(segment, 48, dtype=np.uint8), 10)
        dropped = digit[1:] & digit[:-1]  # a digit after a digit of its line
        if not before:
            dropped = np.r_[False, dropped]
        dropped[heads[np.searchsorted(heads, start) : np.searchsorted(heads, stop)] - start] = False
        piece = raw[start:stop][~dropped].tobytes().translate(_DIGITS_TO_HASH)
        dropped_at.append(np.flatnonzero(dropped) + start)
        x = np.flatnonzero(segment[1:] == 120) + 1  # "0x" (x at segment[x])
        hex_at.append(x[segment[x - 1] == 48] + (start - before))
        # ":#" after k, f, r or s (masked bytes, with the two before the piece)
        masked = np.frombuffer(tail + piece, dtype=np.uint8)
        c = np.flatnonzero(masked[2:] == 35) + 2
        c = c[masked[c - 1] == 58]
        named_at.append(c[_NAME_ENDS[masked[c - 2]]] + (done - len(tail)))
        pieces.append(piece)
        done += len(piece)
        tail = (tail + piece)[-2:]
    new_offsets = offsets - np.searchsorted(np.concatenate(dropped_at), offsets)
    masked_text = pa.LargeStringArray.from_buffers(
        n, pa.py_buffer(new_offsets), pa.py_buffer(b"".join(pieces)), null_count=0
    )
    hex_rows = np.unique(np.searchsorted(offsets, np.concatenate(hex_at), side="right") - 1)
    c = np.concatenate(named_at)
    named = np.unique(np.searchsorted(new_offsets, c, side="right") - 1)
    return masked_text, hex_rows, named


def _collapse(
    key: pa.Array | np.ndarray,
    pinned: np.ndarray,
    timed: np.ndarray,
    per: int,
    weights: np.ndarray | None = None,
):
    """Which events a condensed parse keeps of those that repeat a template (``key``), and how
    many events each kept one stands for (see :class:`Keep`): ``(keep mask, repeats)``.
    ``weights``: how many each event already stands for (1 each by default)."""
    n = len(key)
    weights = np.ones(n, dtype=np.int64) if weights is None else weights
    if isinstance(key, np.ndarray):  # already a number per template
        group = key.astype(np.int64, copy=True)
    else:
        group = pc.dictionary_encode(key).indices.to_numpy(zero_copy_only=False)
        group = group.astype(np.int64)
    group[pinned] = -1 - np.arange(int(pinned.sum()))  # pinned events: a group each
    order = np.argsort(group, kind="stable")
    sorted_group = group[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_group)) + 1]
    sizes = np.diff(np.r_[starts, n])
    rank = np.arange(n) - np.repeat(starts, sizes)
    size = np.repeat(sizes, sizes)
    keep = np.empty(n, dtype=bool)
    keep[order] = (rank < per) | (rank >= size - per)
    # a kept event without a time of its own takes the previous timed event's: keep that one
    index = np.arange(n)
    last_timed = np.maximum.accumulate(np.where(timed, index, -1))
    sources = last_timed[keep & ~timed]
    keep[sources[sources >= 0]] = True
    repeats = weights.copy()
    dropped = ~keep[order]
    if dropped.any():
        # the omitted events of a template are counted on its kept event before the first gap
        gid = np.repeat(np.arange(len(sizes)), sizes)
        omitted = np.bincount(gid, weights=dropped * weights[order], minlength=len(sizes))
        omitted = omitted.astype(np.int64)
        at = np.flatnonzero(dropped)
        groups, first = np.unique(gid[at], return_index=True)
        # rank 0 is always kept, so the event before a group's first gap is of the same group
        np.add.at(repeats, order[at[first] - 1], omitted[groups])
    return keep, repeats


_PREFIXED = ("tf_cpp", "absl", "python_logging", "python_basic")
_ANY_START = re.compile(
    "|".join(f"(?:{f.start})" for f in LINE_FORMATS) + "|" + re.escape(_TRACEBACK_START)
)
_MAX_CONTINUATION = 20


def _attach_continuations(
    rows: np.ndarray, fmt: pa.Array, levels: pa.Array, detail: pa.Array, text, stops: np.ndarray
) -> pa.Array:
    """Give each warning-or-worse line the unprefixed lines that follow it as its ``detail``.

    TensorFlow prints the peer of an error on such lines (``Additional GRPC error information
    from remote target /job:ps/replica:0/task:0 ...``). They stay events of their own too.
    ``text(rows)`` gives lines; ``stops[i]``: the row where the file of ``rows[i]`` ends.
    The line after each is read for all at once; only those followed by one read on.
    """
    serious = pc.and_(
        pc.is_in(levels, pa.array(["WARNING", "ERROR", "FATAL"], pa.large_string())),
        pc.is_in(fmt, pa.array(_PREFIXED, pa.large_string())),
    )
    at = np.flatnonzero(_bool(pc.and_(serious, pc.is_null(detail))))
    if not len(at):
        return detail
    starts = rows[at] + 1
    stops = np.minimum(starts + _MAX_CONTINUATION, stops[at])
    nexts = [None] * len(at)
    has_next = np.flatnonzero(starts < stops)
    for i, line in zip(has_next.tolist(), text(starts[has_next]).to_pylist(), strict=True):
        nexts[i] = line or ""
    going = [i for i, line in enumerate(nexts) if line is not None and _continues(line)]
    values: list[str | None] = [None] * len(at)
    if going:
        going_arr = np.asarray(going, dtype=np.int64)
        sizes = stops[going_arr] - starts[going_arr]
        bounds = np.r_[0, np.cumsum(sizes)]
        window_rows = np.repeat(starts[going_arr] - bounds[:-1], sizes) + np.arange(bounds[-1])
        lines = [line or "" for line in text(window_rows).to_pylist()]
        for k, i in enumerate(going):
            following = []
            for line in lines[bounds[k] : bounds[k + 1]]:
                if not _continues(line):
                    break
                following.append(line)
            values[i] = "\n".join(following)
    mask = np.zeros(len(rows), dtype=bool)
    mask[at] = True
    return pc.replace_with_mask(detail, pa.array(mask), pa.array(values, pa.large_string()))


def _continues(line: str) -> bool:
    """Whether ``line`` may go on a warning's detail: not blank, not the start of a record."""
    return bool(line.strip()) and not _ANY_START.match(line)


def parse_lines(data: bytes, keep: Keep | None = None) -> ParsedLines:
    """Parse the decompressed bytes of one source into events (see :class:`ParsedLines`).

    With ``keep`` only the lines it selects become events (the others are counted); without
    it every non-blank line does.
    """
    data, problems = decode(data)
    lines, split_problems = split_lines(data)
    problems += split_problems
    n = len(lines)
    wrapper = _detect_wrapper(lines.text(np.arange(min(n, 400)))) if n else None
    extra: dict[str, pa.Array] = {}
    inner: pa.Array | None = None  # the text inside a wrapper, for every line (wrapped files only)
    if wrapper:
        extra = _unwrap(lines.text(), wrapper)
        inner = extra.pop("inner")
        nested = _nested_wrapper(inner, wrapper) if "rank" not in extra else None
        if nested is not None:  # a launcher's tags inside a collector's prefix
            more = _unwrap(inner, nested)
            inner = more.pop("inner")
            # the source and its stream are the inner wrapper's; a time stays the outer's
            extra |= {k: v for k, v in more.items() if k not in extra or k in ("rank", "stream")}
            wrapper = Wrapper(f"{wrapper.name}+{nested.name}", wrapper.pattern)
        blank = _bool(pc.or_(pc.ascii_is_space(inner), pc.equal(inner, "")))
    else:
        blank = _bool(pc.ascii_is_space(lines.view))
    # a file shorter than the head and tail a condensed parse keeps is kept whole: no regex needed
    whole = keep is None or n <= keep.head + keep.tail
    pinned = weights = None
    if whole:
        wanted = ~blank
    else:
        wanted, pinned, weights = _select(
            lines,
            inner,
            blank,
            keep,  # type: ignore[arg-type]
            "wts" in extra,
            extra.get("rank"),
        )
    out, in_group = _events(lines, inner, extra, wrapper, wanted, pinned, weights, keep)
    rejected: dict[str, int] = {}
    if (blank & ~in_group).any():
        rejected["blank line"] = int((blank & ~in_group).sum())
    formats = pc.value_counts(out["format"]).to_pylist() if out.num_rows else []
    return ParsedLines(
        table=out,
        lines_read=n,
        rejected=rejected,
        problems=problems,
        formats={f["values"]: f["counts"] for f in formats},
        wrapper=wrapper.name if wrapper else None,
        condensed=keep is not None,
    )


def _events(
    lines: Lines,
    inner: pa.Array | None,
    extra: dict[str, pa.Array],
    wrapper: Wrapper | None,
    wanted: np.ndarray,
    pinned: np.ndarray | None,
    weights: np.ndarray | None,
    keep: Keep | None,
    ends: np.ndarray | None = None,
) -> tuple[pa.Table, np.ndarray]:
    """The events of the ``wanted`` rows (see :func:`parse_lines`), and which rows lie inside
    a multi-line event. ``ends``: per row, the row where its file ends (several files parsed as
    one, :func:`parse_many`); a traceback or a continuation never runs past it."""
    n = len(lines)

    def text(rows: np.ndarray) -> pa.Array:
        return lines.text(rows) if inner is None else inner.take(pa.array(rows, pa.int64()))

    # Multi-line events: tracebacks and stack traces, grouped over the few rows that start one.
    first_rows = np.flatnonzero(wanted)
    first_text = text(first_rows)
    tb_starts = first_rows[_bool(pc.equal(first_text, _TRACEBACK_START))]
    st_starts = first_rows[_bool(pc.match_substring(first_text, "*** Begin stack trace ***"))]
    kinds = np.r_[np.zeros(len(tb_starts), np.int8), np.ones(len(st_starts), np.int8)]
    firsts = np.r_[tb_starts, st_starts].astype(np.int64)
    lasts = np.r_[
        _group_spans(text, n, tb_starts, "python_traceback", ends),
        _group_spans(text, n, st_starts, "cpp_stacktrace", ends),
    ].astype(np.int64)
    order = np.argsort(firsts, kind="stable")
    firsts, lasts, kinds = firsts[order], lasts[order], kinds[order]
    keep_group = np.ones(len(firsts), dtype=bool)
    next_free = 0
    for i, (first, last) in enumerate(zip(firsts.tolist(), lasts.tolist(), strict=True)):
        if first < next_free:
            keep_group[i] = False  # starts inside an earlier group
        else:
            next_free = last + 1
    firsts, lasts, kinds = firsts[keep_group], lasts[keep_group], kinds[keep_group]
    marks = np.zeros(n + 1, dtype=np.int64)
    np.add.at(marks, firsts + 1, 1)
    np.add.at(marks, lasts + 1, -1)
    in_group = np.cumsum(marks)[:n] > 0
    rows = first_rows[~in_group[first_rows]]
    sub_text = first_text.filter(pa.array(~in_group[first_rows])) if in_group.any() else first_text
    table = _extract_formats(sub_text)
    line_no = rows + 1
    line_end = line_no.copy()
    message = table["message"].combine_chunks()
    detail = pa.nulls(len(rows), pa.large_string())
    fmt = table["format"].combine_chunks()
    raw = lines.text(rows)
    if len(firsts):
        at = np.searchsorted(rows, firsts)
        mask = np.zeros(len(rows), dtype=bool)
        mask[at] = True
        line_end[at] = lasts + 1
        mask_arr = pa.array(mask)

        def put(array: pa.Array, values: pa.Array) -> pa.Array:
            return pc.replace_with_mask(array, mask_arr, values.cast(pa.large_string()))

        names = np.array(["python_traceback", "cpp_stacktrace"], dtype=object)
        fmt = put(fmt, pa.array(names[kinds].tolist(), pa.large_string()))
        # a traceback is told by its last line (the exception), a stack trace by its first
        told = np.where((kinds == 0) & (lasts > firsts), lasts, firsts)
        message = put(message, pc.fill_null(text(told), ""))
        body = _joined(text, firsts, lasts)
        detail = put(detail, body)
        raw = put(raw, body if inner is None else _joined(lines.text, firsts, lasts))

    levels = table["level"].combine_chunks()
    levels = pc.coalesce(_map_values(levels, _LEVELS), levels)
    repeats = np.ones(len(rows), dtype=np.int64) if weights is None else weights[rows]
    if pinned is not None and keep is not None and keep.per_template and len(rows):
        # (in one stream of several sources, a rank's or a pod's, each source's own repeats)
        source_of = (
            [pc.fill_null(extra["rank"].take(pa.array(rows)), "").cast(pa.large_string())]
            if "rank" in extra
            else []
        )
        key = pc.binary_join_element_wise(
            fmt,
            pc.fill_null(levels, ""),
            pc.fill_null(table["source"].combine_chunks(), ""),
            *source_of,
            templates(message),
            pa.scalar("\x1f", pa.large_string()),
        )
        timed = _bool(pc.or_(table["time"].is_valid(), table["md"].is_valid()))
        if "wts" in extra:
            timed |= _bool(extra["wts"].take(pa.array(rows)).is_valid())
        kept, repeats = _collapse(key, pinned[rows], timed, keep.per_template, repeats)
        if not kept.all():
            mask = pa.array(kept)
            rows, line_no, line_end, repeats = (
                rows[kept],
                line_no[kept],
                line_end[kept],
                repeats[kept],
            )
            table, raw = table.filter(mask), raw.filter(mask)
            fmt, message, detail, levels = (
                fmt.filter(mask),
                message.filter(mask),
                detail.filter(mask),
                levels.filter(mask),
            )
    stops = np.full(len(rows), n, dtype=np.int64) if ends is None else ends[rows]
    detail = _attach_continuations(rows, fmt, levels, detail, text, stops)
    source = pc.replace_substring_regex(table["source"].combine_chunks(), r"^.*/", "")
    rows_arr = pa.array(rows)
    nulls = pa.nulls(len(rows), pa.large_string())
    columns: dict[str, pa.Array] = {
        "line_no": pa.array(line_no),
        "line_end": pa.array(line_end),
        "format": fmt,
        "wrapper": pa.array(
            [wrapper.name] * len(rows) if wrapper else [None] * len(rows), pa.large_string()
        ),
        "level": levels,
        "source": source,
        "thread": table["thread"].combine_chunks(),
        "logger": table["logger"].combine_chunks(),
        "message": message,
        "detail": detail,
        "raw": raw,
        **_times(table, extra, rows_arr),
        "wts": extra["wts"].take(rows_arr) if "wts" in extra else nulls,
        "stream": extra["stream"].take(rows_arr) if "stream" in extra else nulls,
        "rank": extra["rank"].take(rows_arr) if "rank" in extra else nulls,
        "repeats": pa.array(repeats),
    }
    return pa.table(columns), in_group


def _times(table: pa.Table, extra: dict[str, pa.Array], rows: pa.Array) -> dict[str, pa.Array]:
    """The time parts of each event: its own line's, or its wrapper's year-less time where
    the wrapper has one (a syslog line's time is the journal's, as a kubectl prefix's is)."""
    out = {name: table[name].combine_chunks() for name in ("date", "time", "md", "tz")}
    if "wmd" not in extra:
        return out
    md = extra["wmd"].take(rows)
    has = md.is_valid()
    none = pa.nulls(len(md), out["date"].type)
    out["date"] = pc.if_else(has, none, out["date"])
    out["tz"] = pc.if_else(has, pa.nulls(len(md), out["tz"].type), out["tz"])
    out["md"] = pc.if_else(has, md.cast(out["md"].type), out["md"])
    clock = extra["wclock"].take(rows).cast(out["time"].type)
    out["time"] = pc.if_else(has, clock, out["time"])
    return out


#: Files up to this size are parsed together by :func:`parse_many` (one pass for many).
SMALL_FILE = 64 * 1024


def parse_many(datas: list[bytes], keep: Keep | None = None) -> list[ParsedLines]:
    """:func:`parse_lines` of each of ``datas``, the small unwrapped ones in one pass.

    Thousands of files of a few lines each (a log per process, per rank, per pod) cost one
    parse, not thousands: their lines are joined, parsed as one file whose multi-line events
    stop at each file's end, and the events are cut back into one table per file. A file
    that is large, wrapped, or longer than a condensed parse keeps whole goes alone.
    """
    out: list[ParsedLines | None] = [None] * len(datas)
    small: list[int] = []
    texts: list[bytes] = []
    problems: list[list[str]] = []
    for i, data in enumerate(datas):
        if len(data) > SMALL_FILE:
            continue
        text, found = decode(data)
        if b"\r" in text:
            text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if text and not text.endswith(b"\n"):
            found.append("the last line has no line end (the file was cut off mid-line?)")
            text += b"\n"
        count = text.count(b"\n")
        if count == 0 or (keep is not None and count > keep.head + keep.tail):
            continue
        small.append(i)
        texts.append(text)
        problems.append(found)
    if len(small) > 1:
        _parse_together(small, texts, problems, keep, out)
    return [r if r is not None else parse_lines(d, keep) for r, d in zip(out, datas, strict=True)]


def _parse_together(
    index: list[int],
    texts: list[bytes],
    problems: list[list[str]],
    keep: Keep | None,
    out: list[ParsedLines | None],
) -> None:
    """Parse ``texts`` (decoded, each ending in a line end) as one; fill ``out[index[k]]``."""
    lines, _ = split_lines(b"".join(texts))
    counts = np.array([t.count(b"\n") for t in texts], dtype=np.int64)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    file_of = np.repeat(np.arange(len(texts)), counts)
    blank = _bool(pc.ascii_is_space(lines.view))
    # a file most of whose lines carry a wrapper is parsed alone (as _detect_wrapper decides)
    text = lines.text()
    head = (np.arange(len(file_of)) - starts[file_of]) < 400
    filled = _bool(pc.greater(pc.utf8_length(text), 0)) & head
    need = np.maximum(1, np.bincount(file_of[filled], minlength=len(texts)) // 2)
    wrapped = np.bincount(file_of[filled], minlength=len(texts)) == 0
    for wrapper in WRAPPERS:
        hits = _bool(pc.match_substring_regex(text, wrapper.pattern)) & filled
        wrapped |= np.bincount(file_of[hits], minlength=len(texts)) >= need
    # a file whose formats mostly start after a prefix may carry one to learn: parsed alone too
    after = _formats_after_text(text) & filled
    wrapped |= np.bincount(file_of[after], minlength=len(texts)) >= 3
    ends = (starts + counts)[file_of]
    table, in_group = _events(
        lines, None, {}, None, ~blank & ~wrapped[file_of], None, None, keep, ends
    )
    first = table["line_no"].to_numpy() - 1
    owner = file_of[first]
    offset = pa.array(starts[owner])
    table = table.set_column(0, "line_no", pc.subtract(table["line_no"], offset))
    table = table.set_column(1, "line_end", pc.subtract(table["line_end"], offset))
    bounds = np.searchsorted(owner, np.arange(len(texts) + 1))
    blanks = np.bincount(file_of[blank & ~in_group], minlength=len(texts))
    # each file's formats and their counts, in the order they first appear (as value_counts)
    encoded = pc.dictionary_encode(table["format"].combine_chunks())
    names = encoded.dictionary.to_pylist()
    pair = owner * len(names) + encoded.indices.to_numpy(zero_copy_only=False)
    pairs, first_row, pair_count = np.unique(pair, return_index=True, return_counts=True)
    by_first = np.lexsort((first_row, pairs // max(len(names), 1)))
    pairs, pair_count = pairs[by_first], pair_count[by_first]
    pair_bounds = np.searchsorted(pairs // max(len(names), 1), np.arange(len(texts) + 1))
    for k, i in enumerate(index):
        if wrapped[k]:
            continue
        part = table.slice(bounds[k], bounds[k + 1] - bounds[k])
        span = slice(pair_bounds[k], pair_bounds[k + 1])
        out[i] = ParsedLines(
            table=part,
            lines_read=int(counts[k]),
            rejected={"blank line": int(blanks[k])} if blanks[k] else {},
            problems=problems[k],
            formats={
                names[p % len(names)]: c
                for p, c in zip(pairs[span].tolist(), pair_count[span].tolist(), strict=True)
            },
            wrapper=None,
            condensed=keep is not None,
        )


def _map_values(values: pa.Array, mapping: dict[str, str]) -> pa.Array:
    keys = pa.array(list(mapping), pa.large_string())
    index = pc.index_in(values, value_set=keys)
    return pc.take(pa.array(list(mapping.values()), pa.large_string()), index)
