"""Wrapped lines: find the prefix most of a file's lines carry, and peel it off.

A known wrapper (:data:`analyzer.formats.catalog.WRAPPERS`) or, failing that, a launcher's
prefix learned from the file (:mod:`analyzer.prefixes`); mpirun's tags cut a rank's pieces,
which are joined back into lines here.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analyzer import prefixes
from analyzer.formats.catalog import LINE_FORMATS, MONTH_NAMES, MPIRUN_TAG, WRAPPERS, Wrapper
from analyzer.formats.lines import bools


def detect_wrapper(lines: pa.Array) -> Wrapper | None:
    sample = _nonblank_head(lines)
    if len(sample) == 0:
        return None
    found = _carried_by(sample, WRAPPERS)
    if found is not None:
        return found
    if formats_after_text(sample).sum() < 3:
        return None
    learned = prefixes.learn(sample.to_pylist(), FORMAT_RES)
    return Wrapper("learned", learned[0]) if learned else None


def nested_wrapper(inner: pa.Array, outer: Wrapper) -> Wrapper | None:
    """A known wrapper that names each line's source, inside ``outer`` (which names none): an
    MPI Operator launcher pod's ``kubectl logs --timestamps`` holds mpirun's ``[1,N]<stdout>:``
    tags; a batch system's time before srun's ``--label``. Found as :func:`detect_wrapper`
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
FORMAT_RES = [re.compile(f.pattern) for f in LINE_FORMATS if f.name != "keras_progress"]


def formats_after_text(text: pa.Array) -> np.ndarray:
    """Lines where a known format starts after some text, not at the line's start."""
    after = bools(pc.match_substring_regex(text, prefixes.STARTS_AFTER_TEXT))
    if not after.any():
        return after
    return after & ~bools(pc.match_substring_regex(text, prefixes.STARTS_AT_LINE_START))


def unwrap(lines: pa.Array, wrapper: Wrapper) -> dict[str, pa.Array]:
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
        month = pc.index_in(mon, value_set=pa.array(MONTH_NAMES, mon.type))
        mm = pc.utf8_lpad(pc.cast(pc.add(month, 1), pa.string()), 2, "0")
        dd = pc.utf8_lpad(pc.utf8_trim_whitespace(parts.field("day")), 2, "0")
        md = pc.binary_join_element_wise(
            mm.cast(pa.large_string()), dd.cast(pa.large_string()), pa.scalar("", pa.large_string())
        )
        out["wmd"] = pc.if_else(pc.equal(mon, ""), None, md)
        clock = parts.field("clock")
        out["wclock"] = pc.if_else(pc.equal(clock, ""), None, clock)
    return out


_MPIRUN_TAG_RE = re.compile(MPIRUN_TAG.replace("(?P<rank>", "(").replace("(?P<stream>", "("))


def _mpirun_pieces(inner: pa.Array, parts: pa.StructArray) -> tuple[pa.Array, pa.StructArray]:
    """mpirun tags every write() of a rank, not every line: Python's print() writes its text
    and its newline apart, so a rank's text may be followed on the same line by other pieces
    (each behind its own tag) and its newline comes later behind a tag of its own:
    ``[1,1]<stdout>:text[1,0]<stdout>:other`` then ``[1,1]<stdout>:``. Each line is cut at its
    tags and each rank's pieces are joined until the piece a newline ends; that joined text is
    the line where its last piece is, with that piece's rank and stream. A rank's pieces that
    no newline ends (its output stopped mid-line) are added to its last line."""
    cut = bools(pc.match_substring_regex(inner, MPIRUN_TAG))
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
