"""Many small files are parsed in one pass (issue 13): the result for each file is exactly
what parsing it alone gives, and nothing of one file leaks into the next."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from analyzer.formats import SMALL_FILE, parse_lines, parse_many
from analyzer.run import keep_for
from tests.conftest import ROOT

CORPUS = ROOT / "tests" / "corpus"


def _small_real_files() -> list[bytes]:
    """Real logs of the lab corpus and the excerpts that fit the one-pass path, as read."""
    out = []
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.suffix in (".json", ".csv", ".md") or path.name == "README":
            continue
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        if len(data) <= SMALL_FILE:
            out.append(data)
    return out


def _same(a, b) -> None:
    assert a.table.equals(b.table)
    assert (a.lines_read, a.rejected, a.formats, a.wrapper) == (
        b.lines_read,
        b.rejected,
        b.formats,
        b.wrapper,
    )
    assert a.problems == b.problems


@pytest.mark.parametrize("condensed", [False, True])
def test_each_file_parses_as_it_would_alone(condensed):
    keep = keep_for(_rules()) if condensed else None
    datas = _small_real_files()
    assert len(datas) > 300
    together = parse_many(datas, keep)
    assert len(together) == len(datas)
    for data, got in zip(datas, together, strict=True):
        _same(got, parse_lines(data, keep))


def test_a_traceback_at_a_files_end_does_not_take_the_next_files_lines():
    datas = _small_real_files()
    ending = next(d for d in datas if d.rstrip().splitlines()[-1].startswith(b"  File "))
    cut = ending.rstrip().rsplit(b"\n", 1)[0] + b"\n"  # the traceback, cut before its exception
    following = next(d for d in datas if d.startswith(b"    ") is False and d != ending)
    got = parse_many([cut, following, cut])
    for data, parsed in zip([cut, following, cut], got, strict=True):
        _same(parsed, parse_lines(data))


def test_line_ends_and_bad_bytes_are_per_file():
    datas = _small_real_files()[:3]
    odd = [datas[0].replace(b"\n", b"\r\n"), datas[1].rstrip(b"\n"), datas[2] + b"\xff\xfe\n"]
    for data, parsed in zip(odd, parse_many(odd), strict=True):
        _same(parsed, parse_lines(data))
    assert any("line end" in p for p in parse_many(odd)[1].problems)
    assert any("UTF-8" in p for p in parse_many(odd)[2].problems)


def test_large_and_empty_files_go_alone():
    big = b"".join(_small_real_files())[: SMALL_FILE * 3]
    big = big[: big.rfind(b"\n") + 1]
    got = parse_many([big, b"", _small_real_files()[0]])
    assert got[0].lines_read == big.count(b"\n")
    assert got[1].lines_read == 0


_RULES: list = []


def _rules():
    if not _RULES:
        from analyzer.rules import load_rules

        _RULES.append(load_rules())
    return _RULES[0]


def test_corpus_has_wrapped_small_files():
    """The comparison above covers files a container runtime wrapped (parsed alone)."""
    wrapped = [d for d in _small_real_files() if parse_lines(d).wrapper]
    assert wrapped, "no wrapped file among the small real ones"


def test_paths_exist():
    assert Path(CORPUS).is_dir()
