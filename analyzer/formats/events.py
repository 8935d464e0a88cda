"""One source's lines → its table of events (:func:`parse_lines`)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analyzer.formats.catalog import (
    BAR_TEXT,
    GLUED_LINE_START,
    LEVELS,
    LINE_FORMATS,
    PART_FIELDS,
    TRACEBACK_START,
    Wrapper,
)
from analyzer.formats.groups import attach_continuations, group_spans, joined
from analyzer.formats.lines import Lines, ParsedLines, bools, decode, split_lines
from analyzer.formats.repeats import collapse, templates
from analyzer.formats.sections import find as find_sections
from analyzer.formats.select import Keep, select
from analyzer.formats.wrappers import detect_wrapper, nested_wrapper, unwrap

#: A log line glued to a progress bar's last redraw (catalog.BAR_TEXT) is read from its own
#: prefix on: its time and level are the log line's; the redraw before it is no event of its own.
_BAR_GLUED = rf"^.*?{BAR_TEXT}(?P<line>{GLUED_LINE_START}.*)$"


def _unglued(inner: pa.Array) -> pa.Array:
    """``inner`` with each log line glued to a progress bar's text read from its own start."""
    maybe = bools(pc.match_substring(inner, "] - "))
    if not maybe.any():
        return inner
    rows = np.flatnonzero(maybe)
    parts = pc.extract_regex(inner.take(pa.array(rows)), _BAR_GLUED)
    ok = bools(parts.is_valid())
    if not ok.any():
        return inner
    glued = rows[ok]
    lines = parts.filter(pa.array(ok)).field("line").cast(inner.type)
    index = np.full(len(inner), -1, dtype=np.int64)
    index[glued] = np.arange(len(glued))
    picked = lines.take(pa.array(np.maximum(index, 0)))
    return pc.if_else(pa.array(index >= 0), picked, inner)


def extract_formats(inner: pa.Array) -> pa.Table:
    """Apply every line format in turn to the lines no earlier one claimed."""
    inner = _unglued(inner)
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


def parse_lines(data: bytes, keep: Keep | None = None) -> ParsedLines:
    """Parse the decompressed bytes of one source into events (see :class:`ParsedLines`).

    With ``keep`` only the lines it selects become events (the others are counted); without
    it every non-blank line does.
    """
    data, problems = decode(data)
    lines, split_problems = split_lines(data)
    problems += split_problems
    n = len(lines)
    wrapper = detect_wrapper(lines.text(np.arange(min(n, 400)))) if n else None
    extra: dict[str, pa.Array] = {}
    inner: pa.Array | None = None  # the text inside a wrapper, for every line (wrapped files only)
    if wrapper:
        extra = unwrap(lines.text(), wrapper)
        inner = extra.pop("inner")
        nested = nested_wrapper(inner, wrapper) if "rank" not in extra else None
        if nested is not None:  # a launcher's tags inside a collector's prefix
            more = unwrap(inner, nested)
            inner = more.pop("inner")
            # the source and its stream are the inner wrapper's; a time stays the outer's
            extra |= {k: v for k, v in more.items() if k not in extra or k in ("rank", "stream")}
            wrapper = Wrapper(f"{wrapper.name}+{nested.name}", wrapper.pattern)
        blank = bools(pc.or_(pc.ascii_is_space(inner), pc.equal(inner, "")))
    else:
        blank = bools(pc.ascii_is_space(lines.view))
    # a file of sections (dshbak's hosts, tail's files): each line's source is its section's
    sections = find_sections(lines)
    ends = header = None
    if sections is not None:
        header, ends = sections.header, sections.ends
        if "rank" not in extra:
            extra["rank"] = sections.source
        blank = blank | header
    # a file shorter than the head and tail a condensed parse keeps is kept whole: no regex needed
    whole = keep is None or n <= keep.head + keep.tail
    pinned = weights = None
    if whole:
        wanted = ~blank
    else:
        wanted, pinned, weights = select(
            lines,
            inner,
            blank,
            keep,  # type: ignore[arg-type]
            "wts" in extra,
            extra.get("rank"),
        )
    out, in_group = events_of(lines, inner, extra, wrapper, wanted, pinned, weights, keep, ends)
    rejected: dict[str, int] = {}
    if header is not None:
        blank = blank & ~header
        rejected["section header"] = int(header.sum())
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


#: CPython's line before the traceback of an exception it reported and went on from (an
#: object's ``__del__``, an unraisable hook: Python/errors.c's ``write_unraisable_exc_file``).
_IGNORED_RE = r"^\s*(?:>\s*)?Exception ignored in\b"


def _ignored_from(
    text, tb_starts: np.ndarray, wanted: np.ndarray, ends: np.ndarray | None
) -> np.ndarray:
    """Where each traceback starting at ``tb_starts`` begins: a line earlier when that line is
    CPython's ``Exception ignored in: ...`` (one event, told harmless by what it says)."""
    prev = tb_starts - 1
    ok = prev >= 0
    ok[ok] = wanted[prev[ok]]
    if ends is not None:
        ok[ok] = ends[prev[ok]] == ends[tb_starts[ok]]  # (the same file)
    if not ok.any():
        return tb_starts
    at = np.flatnonzero(ok)
    said = bools(pc.match_substring_regex(text(prev[at]), _IGNORED_RE))
    out = tb_starts.copy()
    out[at[said]] -= 1
    return out


def events_of(
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
    tb_starts = first_rows[bools(pc.equal(first_text, TRACEBACK_START))]
    st_starts = first_rows[bools(pc.match_substring(first_text, "*** Begin stack trace ***"))]
    kinds = np.r_[np.zeros(len(tb_starts), np.int8), np.ones(len(st_starts), np.int8)]
    firsts = np.r_[_ignored_from(text, tb_starts, wanted, ends), st_starts].astype(np.int64)
    lasts = np.r_[
        group_spans(text, n, tb_starts, "python_traceback", ends, lines if inner is None else None),
        group_spans(text, n, st_starts, "cpp_stacktrace", ends),
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
    table = extract_formats(sub_text)
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
        body = joined(text, firsts, lasts)
        detail = put(detail, body)
        raw = put(raw, body if inner is None else joined(lines.text, firsts, lasts))

    levels = table["level"].combine_chunks()
    levels = pc.coalesce(_map_values(levels, LEVELS), levels)
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
        timed = bools(pc.or_(table["time"].is_valid(), table["md"].is_valid()))
        if "wts" in extra:
            timed |= bools(extra["wts"].take(pa.array(rows)).is_valid())
        kept, repeats = collapse(key, pinned[rows], timed, keep.per_template, repeats)
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
    detail = attach_continuations(rows, fmt, levels, detail, text, stops, message)
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


def _map_values(values: pa.Array, mapping: dict[str, str]) -> pa.Array:
    keys = pa.array(list(mapping), pa.large_string())
    index = pc.index_in(values, value_set=keys)
    return pc.take(pa.array(list(mapping.values()), pa.large_string()), index)
