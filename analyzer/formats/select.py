"""Which lines a condensed parse keeps (:class:`Keep`), chosen before any per-line work."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analyzer.formats.groups import GROUP_STARTS, group_starts, group_starts_of
from analyzer.formats.lines import Lines, bools
from analyzer.formats.repeats import collapse, shape_template_ids, templates


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


BLOCK = 64
_SAMPLE_EVERY = 16  # blocks: one in this many tells how many hold a line of interest
_STEPS_BACK = 4  # then one pass over the whole file is cheaper than more steps


def match_rows(lines: Lines | pa.Array, pattern: str, rows: np.ndarray | None = None) -> np.ndarray:
    """Row numbers (among ``rows``, or all) whose line matches ``pattern`` (RE2, case-insensitive)."""
    view = lines.view if isinstance(lines, Lines) else lines
    if rows is None:
        return np.flatnonzero(bools(pc.match_substring_regex(view, pattern, ignore_case=True)))
    hits = bools(
        pc.match_substring_regex(view.take(pa.array(rows, pa.int64())), pattern, ignore_case=True)
    )
    return rows[hits]


def select(
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
    pattern = f"(?m){keep.pattern}|{_ERROR_LEVEL}|{GROUP_STARTS}"
    wanted = np.zeros(n, dtype=bool)
    blocks = lines.blocks(BLOCK) if inner is None else None
    if blocks is not None and len(blocks) >= 16 * _SAMPLE_EVERY:
        # where most blocks hold a line of interest, testing blocks first costs a pass more
        sample = blocks.take(pa.array(np.arange(0, len(blocks), _SAMPLE_EVERY)))
        if bools(pc.match_substring_regex(sample, pattern, ignore_case=True)).mean() >= 0.5:
            blocks = None
    if blocks is None and inner is None:
        wanted[match_rows(lines, pattern)] = True
    elif blocks is not None:
        # most blocks of 64 lines hold nothing of interest: test blocks first, then their lines
        hit_blocks = np.flatnonzero(
            bools(pc.match_substring_regex(blocks, pattern, ignore_case=True))
        )
        if len(hit_blocks):
            candidates = (hit_blocks[:, None] * BLOCK + np.arange(BLOCK)).ravel()
            candidates = candidates[candidates < n]
            wanted[match_rows(lines, pattern, candidates)] = True
    else:
        wanted[match_rows(inner, pattern)] = True
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
            key, _ = shape_template_ids(
                lambda at: lines.text(candidates[at]), group, shapes.dictionary
            )
            starts = group_starts_of(lines, candidates)  # grouped later: kept
        else:
            text = lines.text(candidates) if inner is None else inner.take(pa.array(candidates))
            starts = group_starts(text)  # grouped later: kept
            key = templates(text)
            if rank is not None:  # one stream of several sources: each source's own repeats
                source = pc.fill_null(rank.take(pa.array(candidates)), "")
                key = pc.binary_join_element_wise(
                    source.cast(pa.large_string()),
                    key.cast(pa.large_string()),
                    pa.scalar("\x1f", pa.large_string()),
                )
        kept, repeats = collapse(key, starts, starts, keep.per_template)
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


def _progress_rows(lines: Lines, inner: pa.Array | None, keep: Keep) -> np.ndarray:
    """Progress lines of a condensed parse: those in evenly spaced blocks, the first, the last."""
    n = len(lines)
    target = lines if inner is None else inner
    count = -(-n // BLOCK)
    picks = np.unique(
        np.r_[0, count - 1, np.linspace(0, count - 1, max(keep.progress_blocks, 2)).round()]
    ).astype(np.int64)
    rows = (picks[:, None] * BLOCK + np.arange(BLOCK)).ravel()
    found = match_rows(target, keep.progress, rows[rows < n])
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
    blocks = lines.blocks(BLOCK) if inner is None else None
    size, edge = 32 * BLOCK, hi if last else lo
    while (edge > lo) if last else (edge < hi):
        a, b = (max(lo, edge - size), edge) if last else (edge, min(hi, edge + size))
        edge, size = (a if last else b), size * 2
        rows = np.arange(a, b)
        if blocks is not None:
            first_block, last_block = a // BLOCK, (b - 1) // BLOCK
            part = blocks.slice(first_block, last_block - first_block + 1)
            hit = np.flatnonzero(
                bools(pc.match_substring_regex(part, f"(?m){pattern}", ignore_case=True))
            )
            if not len(hit):
                continue
            cand = ((hit + first_block)[:, None] * BLOCK + np.arange(BLOCK)).ravel()
            rows = cand[(cand >= a) & (cand < b)]
        found = match_rows(target, pattern, rows)
        if len(found):
            return int(found[-1] if last else found[0])
    return None


def _add_time_sources(lines: Lines | pa.Array, wanted: np.ndarray, pinned: np.ndarray) -> None:
    """Keep, for each kept line without a time of its own, the timed line it inherits from.

    Steps back from all untimed rows at once, one line per step, testing only the rows still
    unresolved: most resolve in a step or two (a traceback or a proto dump takes more).
    """
    rows = np.flatnonzero(wanted)
    pending = np.setdiff1d(rows, match_rows(lines, _HAS_TIME, rows), assume_unique=True)
    step = 1
    while len(pending) and step <= _STEPS_BACK:
        back = pending - step
        pending, back = pending[back >= 0], back[back >= 0]
        timed = np.isin(back, match_rows(lines, _HAS_TIME, back))
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
        timed = match_rows(lines, _HAS_TIME, np.flatnonzero(np.cumsum(mark)[:-1] > 0))
        at = np.searchsorted(timed, top) - 1  # the last timed row below each top
        found = at >= 0
        found[found] = timed[at[found]] >= bottom[found]
        wanted[timed[at[found]]] = True
        going = ~found & (bottom > 0)
        pending, top, size = pending[going], bottom[going], size * 2
    first = match_rows(lines, _HAS_TIME, np.arange(min(len(wanted), 4096)))
    if len(first):
        wanted[first[0]] = pinned[first[0]] = True
