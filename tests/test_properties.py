"""Property tests: no input makes a parser raise or lose a line, and parsing is deterministic."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.formats import LINE_FORMATS, parse_lines

# Line-shaped text: real prefixes glued to arbitrary text, so every parser is exercised.
PREFIXES = st.sampled_from(
    [
        "",
        "I0000 00:00:1795322641.915983    3974 grpc_server_lib.cc:467] ",
        "E0130 12:34:56.789012  1234 x.cc:1] ",
        "2018-03-02 08:50:57.918293: E tensorflow/core/x.cc:1] ",
        "2026-11-22 04:44:03,627 - ERROR - ",
        "INFO:tensorflow:",
        "Traceback (most recent call last):",
        '  File "x.py", line 1',
        "*** Begin stack trace ***",
        "[1,0]<stderr>:",
        "3: ",
        "2026-11-22T04:44:01.915983123Z stderr F ",
        '{"log":"',
        "10/10 [=====>....] ",
    ]
)
LINE = st.builds(lambda p, t: p + t, PREFIXES, st.text(max_size=60))
TEXT = st.lists(LINE, max_size=40).map("\n".join)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _count_lines(data: bytes) -> int:
    data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _check(data: bytes) -> None:
    parsed = parse_lines(data)
    rows = parsed.table.to_pylist()
    in_timeline = sum(r["line_end"] - r["line_no"] + 1 for r in rows)
    assert parsed.lines_read == in_timeline + sum(parsed.rejected.values())
    assert {r["format"] for r in rows} <= {f.name for f in LINE_FORMATS} | {
        "plain",
        "python_traceback",
        "cpp_stacktrace",
    }
    assert parse_lines(data).table.equals(parsed.table)


@SETTINGS
@given(TEXT)
def test_line_shaped_text_never_raises_nor_loses_a_line(text):
    data = text.encode()
    _check(data)
    if not text.startswith(("\ufeff",)):
        assert parse_lines(data).lines_read == _count_lines(data)


@SETTINGS
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise_nor_lose_a_line(data):
    _check(data)


@SETTINGS
@given(st.text(max_size=500))
def test_arbitrary_text_never_raises(text):
    _check(text.encode("utf-8", "surrogatepass"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_ingest_of_arbitrary_logs_balances(text):
    import tempfile
    from pathlib import Path

    from analyzer.ingest import ingest

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "worker-0.log").write_text(text, encoding="utf-8", errors="surrogatepass")
        result = ingest([tmp])
        assert result.lines_read == result.lines_in_timeline + result.lines_rejected
        assert result.timeline.num_rows <= result.lines_read


@SETTINGS
@given(TEXT, st.sampled_from(["Socket closed", "zzz", "error"]))
def test_condensed_parse_is_a_faithful_subset_of_the_full_parse(text, keyword):
    from analyzer.formats import Keep

    data = text.encode()
    full = parse_lines(data)
    condensed = parse_lines(data, keep=Keep(keyword, head=2, tail=2, sample=3))
    assert condensed.lines_read == full.lines_read
    assert condensed.lines_in_timeline == full.lines_in_timeline
    by_line = {r["line_no"]: r for r in full.table.to_pylist()}
    for row in condensed.table.to_pylist():
        assert by_line[row["line_no"]] == row
