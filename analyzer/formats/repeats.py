"""Message templates (numbers masked, tasks kept) and the repeats they collapse.

A condensed parse keeps the first and last few events of each template and counts the rest on
them (:func:`collapse`), so what it keeps grows with the distinct templates, not with the lines.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analyzer.formats.lines import DIGIT_MARK, DIGITS_TO_MARK, ZERO_MARK, bools

#: serves on new ports) and ``0x`` hex. Kept as they are (group 1): the tasks a line names
#: (``/job:worker/replica:0/task:3``, ``task:3``, ``worker:3``, a launcher's ``[Rank 3``).
_TEMPLATE_MASK = (
    r"((?:/job:[\w-]+)?/replica:\d+/task:\d+|\btask:\d+"
    r"|\b(?:chief|worker|ps|master|evaluator|coordinator):\d+\b|\[Rank \d+\b)"
    r"|0x[0-9a-fA-F]+|\d+"
)
_NUMBERS = r"0x[0-9a-fA-F]+|\d+"
_NAMES_TASK = r"task:#|\b(?:chief|worker|ps|master|evaluator|coordinator):#|\[Rank #"
_SHAPE_NAMES_TASK = _NAMES_TASK.replace("#", f"[{ZERO_MARK}{DIGIT_MARK}]")


def templates(message: pa.Array) -> pa.Array:
    """``message`` with its numbers masked (see :data:`_TEMPLATE_MASK`): one text per kind, the
    key under which a condensed parse aggregates repeated events. (:func:`analyzer.compare.
    templates` is the template shown to people: it masks paths and task names too.)

    The work grows with the distinct lines, not with the lines: every digit becomes a mark
    (:data:`DIGITS_TO_MARK`) in one byte translation (a *shape*: lines of one shape differ only in their
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
    ids, masked = shape_template_ids(lambda at: text.take(pa.array(at)), group, shapes.dictionary)
    return masked.take(pa.array(ids))


def shape_template_ids(
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
    named_shape = bools(pc.match_substring_regex(shapes, _SHAPE_NAMES_TASK))
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
    """``text`` with every ASCII digit replaced by a mark (:data:`DIGITS_TO_MARK`, one
    ``bytes.translate``); None when the text holds a mark itself."""
    n = len(text)
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int64)[text.offset : text.offset + n + 1]
    data = text.buffers()[2]
    if n == 0 or data is None or offsets[-1] == offsets[0]:
        return text
    start, size = int(offsets[0]), int(offsets[-1] - offsets[0])
    raw = data.slice(start, size).to_pybytes()
    if ZERO_MARK.encode() in raw or DIGIT_MARK.encode() in raw:
        return None
    shaped = raw.translate(DIGITS_TO_MARK)
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
    hit = bools(pc.match_substring_regex(coarse.take(candidates), _NAMES_TASK))
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
    after one of :data:`_NAME_ENDS`, or ``k #`` as in ``[Rank #``), both for RE2 to look at."""
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
        # ":#" after k, f, r or s, or "k #" (masked bytes, with the two before the piece)
        masked = np.frombuffer(tail + piece, dtype=np.uint8)
        c = np.flatnonzero(masked[2:] == 35) + 2
        colon = c[(masked[c - 1] == 58) & _NAME_ENDS[masked[c - 2]]]
        rank = c[(masked[c - 1] == 32) & (masked[c - 2] == 107)]  # "[Rank #"
        named_at.append(np.union1d(colon, rank) + (done - len(tail)))
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


def collapse(
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
