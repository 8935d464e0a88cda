"""Multi-line events: Python tracebacks, C++ stack traces, and a warning's continuation lines.

Only the few rows that start a group are looked at; the lines after them are tested all at once.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analyzer.formats.catalog import LINE_FORMATS, TRACEBACK_JOINERS, TRACEBACK_START
from analyzer.formats.lines import Lines, bools

GROUP_STARTS = r"^Traceback \(most recent call last\):$|\*\*\* Begin stack trace \*\*\*"
_MAX_GROUP_LINES = 500


def group_spans(
    text,
    n: int,
    starts: np.ndarray,
    kind: str,
    limit: np.ndarray | None = None,
    lines: Lines | None = None,
) -> np.ndarray:
    """The last row of each traceback or C++ stack trace starting at ``starts`` (sorted).

    A traceback runs over indented lines, blank lines and the lines that chain exceptions, to
    the line that names the exception; a stack trace to its ``*** End stack trace ***``; either
    at most :data:`_MAX_GROUP_LINES` lines and never past ``limit`` (per row: where its file
    ends). Only the lines after each start are tested, all at once (``text(rows)`` gives them);
    given the file's ``lines`` (``text`` is theirs), a traceback's end is found on the first
    byte of each line, with no line copied.
    """
    if not len(starts):
        return starts
    if lines is not None and kind == "python_traceback":
        last, closed = _traceback_ends(lines, starts, limit)
        if not closed.all():
            last[~closed] = _spans(text, n, starts[~closed], kind, limit, _MAX_GROUP_LINES)[0]
        return last
    # most end within a few lines: those are found looking that far; the others look again
    last, closed = _spans(text, n, starts, kind, limit, _FIRST_LOOK)
    if not closed.all():
        last[~closed] = _spans(text, n, starts[~closed], kind, limit, _MAX_GROUP_LINES)[0]
    return last


_FIRST_LOOK = 32
#: a line that goes on a traceback by its first byte: indented, or empty
_GOES_ON_BYTES = np.zeros(256, dtype=bool)
_GOES_ON_BYTES[[ord(" "), ord("\t"), ord("\n")]] = True


def _traceback_ends(
    lines: Lines, starts: np.ndarray, limit: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The line naming the exception of each traceback at ``starts``: the first line after it
    that is not indented, empty, a traceback's first line or a joiner, told by each line's
    first byte (a view of the file's bytes) and, for the few as long as those lines, their
    text; within :data:`_MAX_GROUP_LINES` lines and ``limit``. Which were found (closed)."""
    n = len(lines)
    raw = np.frombuffer(lines.data, dtype=np.uint8)
    first = raw[lines.offsets[:-1]]
    candidates = np.flatnonzero(~_GOES_ON_BYTES[first])
    sizes = lines.offsets[candidates + 1] - lines.offsets[candidates] - 1
    goes_on = (TRACEBACK_START, *TRACEBACK_JOINERS)
    maybe = np.isin(sizes, [len(x) for x in goes_on])
    if maybe.any():
        said = lines.text(candidates[maybe])
        joins = bools(pc.is_in(said, pa.array(goes_on, said.type)))
        drop = np.zeros(len(candidates), dtype=bool)
        drop[np.flatnonzero(maybe)[joins]] = True
        candidates = candidates[~drop]
    stop = np.minimum(starts + _MAX_GROUP_LINES, n if limit is None else limit[starts])
    at = np.searchsorted(candidates, starts + 1)
    found = candidates[np.minimum(at, max(len(candidates) - 1, 0))] if len(candidates) else starts
    closed = (at < len(candidates)) & (found < stop)
    return np.where(closed, found, stop - 1), closed


def _spans(
    text, n: int, starts: np.ndarray, kind: str, limit: np.ndarray | None, span: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`group_spans` looking at most ``span`` lines on; and which groups were closed."""
    stop = np.minimum(starts + span, n if limit is None else limit[starts])
    stop = np.maximum(stop, starts + 1)
    # the rows of every window (start, stop) in one array
    mark = np.zeros(n + 1, dtype=np.int64)
    np.add.at(mark, starts + 1, 1)
    np.add.at(mark, stop, -1)
    rows = np.flatnonzero(np.cumsum(mark)[:n] > 0)
    lines = text(rows)
    blank = bools(pc.equal(pc.utf8_trim_whitespace(lines), ""))
    if kind == "python_traceback":
        goes_on = pc.or_(
            pc.or_(pc.starts_with(lines, " "), pc.starts_with(lines, "\t")),
            pc.is_in(lines, pa.array(["", TRACEBACK_START, *TRACEBACK_JOINERS], lines.type)),
        )
        closing = rows[~bools(goes_on)]
    else:
        closing = rows[bools(pc.match_substring(lines, "*** End stack trace ***"))]
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


def joined(text, firsts: np.ndarray, lasts: np.ndarray) -> pa.Array:
    """The lines ``firsts[i]..lasts[i]`` of each group, joined by newlines (one text each)."""
    sizes = lasts - firsts + 1
    offsets = np.r_[0, np.cumsum(sizes)]
    rows = np.repeat(firsts - offsets[:-1], sizes) + np.arange(offsets[-1])
    values = pc.fill_null(text(rows), "")
    lists = pa.LargeListArray.from_arrays(pa.array(offsets, pa.int64()), values)
    return pc.binary_join(lists, pa.scalar("\n", values.type))


def group_starts_of(lines: Lines, rows: np.ndarray) -> np.ndarray:
    """:func:`group_starts` of ``lines.text(rows)``, found on the file's bytes (no copy)."""
    found = np.zeros(len(rows), dtype=bool)
    sizes = lines.offsets[rows + 1] - lines.offsets[rows] - 1
    tracebacks = np.flatnonzero(sizes == len(TRACEBACK_START))
    if len(tracebacks):
        texts = lines.view.take(pa.array(rows[tracebacks]))
        found[tracebacks[bools(pc.equal(texts, TRACEBACK_START + "\n"))]] = True
    raw = np.frombuffer(lines.data, dtype=np.uint8)
    stars = np.concatenate(
        [np.flatnonzero(raw[i : i + (1 << 23)] == 42) + i for i in range(0, len(raw), 1 << 23)]
        or [np.zeros(0, dtype=np.int64)]
    )
    if len(stars):
        at = np.unique(np.searchsorted(lines.offsets, stars, side="right") - 1)
        at = at[np.isin(at, rows)]
        if len(at):
            begin = bools(pc.match_substring(lines.text(at), "*** Begin stack trace ***"))
            found[np.searchsorted(rows, at[begin])] = True
    return found


def group_starts(text: pa.Array) -> np.ndarray:
    """Which of ``text`` (lines without their line end) match :data:`GROUP_STARTS`: the lines
    as long as a traceback's first line, and those with a ``*`` (found on the bytes), tested."""
    if not pa.types.is_large_string(text.type) or text.null_count or not len(text):
        return bools(pc.match_substring_regex(text, GROUP_STARTS))
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int64)[
        text.offset : text.offset + len(text) + 1
    ]
    found = np.zeros(len(text), dtype=bool)
    tracebacks = np.flatnonzero(np.diff(offsets) == len(TRACEBACK_START))
    if len(tracebacks):
        same = bools(pc.equal(text.take(pa.array(tracebacks)), TRACEBACK_START))
        found[tracebacks[same]] = True
    if text.buffers()[2] is not None and offsets[-1] > offsets[0]:
        raw = np.frombuffer(text.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
        stars = np.flatnonzero(raw == 42) + offsets[0]
        rows = np.unique(np.searchsorted(offsets, stars, side="right") - 1)
        if len(rows):
            begin = bools(
                pc.match_substring(text.take(pa.array(rows)), "*** Begin stack trace ***")
            )
            found[rows[begin]] = True
    return found


#: Formats whose warnings take the level-less lines after them as their ``detail``.
CONTINUED_FORMATS = ("tf_cpp", "absl", "python_logging", "python_basic")
_PREFIXED = CONTINUED_FORMATS
_ANY_START = re.compile(
    "|".join(f"(?:{f.start})" for f in LINE_FORMATS) + "|" + re.escape(TRACEBACK_START)
)
_MAX_CONTINUATION = 20


def attach_continuations(
    rows: np.ndarray,
    fmt: pa.Array,
    levels: pa.Array,
    detail: pa.Array,
    text,
    stops: np.ndarray,
    message: pa.Array | None = None,
) -> pa.Array:
    """Give each warning-or-worse line the unprefixed lines that follow it as its ``detail``,
    and each plain level-less line that ends with a colon the one line it introduces.

    TensorFlow prints the peer of an error on such lines (``Additional GRPC error information
    from remote target /job:ps/replica:0/task:0 ...``); a launcher names what failed on the
    line after its own (GNU parallel's ``parallel: This job failed:`` then the job's command).
    They stay events of their own too. ``text(rows)`` gives lines; ``stops[i]``: the row where
    the file of ``rows[i]`` ends. The line after each is read for all at once; only those
    followed by one read on.
    """
    serious = pc.and_(
        pc.is_in(levels, pa.array(["WARNING", "ERROR", "FATAL"], pa.large_string())),
        pc.is_in(fmt, pa.array(_PREFIXED, pa.large_string())),
    )
    headers = np.zeros(len(rows), dtype=bool)
    if message is not None and len(rows):
        headers = bools(
            pc.and_(
                pc.and_(pc.equal(fmt, "plain"), pc.is_null(levels)),
                pc.match_substring_regex(message, r":\s*$"),
            )
        )
    at = np.flatnonzero(bools(pc.and_(pc.or_(serious, pa.array(headers)), pc.is_null(detail))))
    if not len(at):
        return detail
    starts = rows[at] + 1
    stops = np.minimum(starts + np.where(headers[at], 1, _MAX_CONTINUATION), stops[at])
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
