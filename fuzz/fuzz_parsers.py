"""Coverage-guided fuzzing of the parsers (atheris / libFuzzer); see fuzz/README.md.

Targets: :func:`analyzer.formats.parse_lines` (full and condensed), the time resolution of
:func:`analyzer.timeline.resolve_times`, and :func:`analyzer.identity.facts_from_content` /
:func:`analyzer.identity.hint_from_name`. Invariants checked on every input:

* nothing raises;
* every line is accounted for: ``lines_read == lines in the timeline + lines rejected``, where
  the lines in the timeline are counted from the events' spans (``line_end - line_no + 1``),
  not from the parser's own total; spans lie in ``1..lines_read`` and never overlap; a span's
  ``raw`` holds one text line per line of the span;
* ``lines_read`` is the number of lines in the input (``\\n``, ``\\r\\n`` and lone ``\\r`` end
  a line; a last line without an end counts), counted here independently;
* a condensed parse keeps a subset of the full parse's events;
* parsing is deterministic (the same bytes give the same table).

The first input byte picks the shape: raw bytes, or log-shaped lines assembled from real line
prefixes and fuzzed text (so that every line format, wrapper and multi-line grouping is reached).
"""

from __future__ import annotations

import os
import re
import sys
import traceback
from collections import Counter
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

with atheris.instrument_imports(include=["analyzer"]):
    from analyzer.formats import Keep, parse_lines
    from analyzer.identity import facts_from_content, hint_from_name
    from analyzer.timeline import resolve_times

PREFIXES = [
    "",
    "I0000 00:00:1795322641.915983    3974 grpc_server_lib.cc:467] ",
    "E0130 12:34:56.789012  1234 x.cc:1] ",
    "W1231 23:59:59.999999 1 a/b/c.cc:99] ",
    "2018-03-02 08:50:57.918293: E tensorflow/core/distributed_runtime/master.cc:221] ",
    "2026-11-22 04:44:03,627 - ERROR - ",
    "2026-11-22 04:44:03,627 - tensorflow - WARNING - ",
    "[2026-11-22T04:44:03.627+02:00] INFO ",
    "INFO:tensorflow:",
    "WARNING:absl:",
    "Traceback (most recent call last):",
    '  File "x.py", line 1, in <module>',
    "tensorflow.python.framework.errors_impl.UnavailableError: ",
    "During handling of the above exception, another exception occurred:",
    "*** Begin stack trace ***",
    "*** End stack trace ***",
    "[1,0]<stderr>:",
    "[1,3]<stdout>:",
    "3: ",
    "2026-11-22T04:44:01.915983123Z stderr F ",
    "2026-11-22T04:44:01.915983123Z stdout P ",
    "2026-11-22T04:44:01Z ",
    '{"log":"',
    '","stream":"stderr","time":"2026-11-22T04:44:01.9Z"}',
    "10/10 [=====>....] - 1s 5ms/step - loss: 0.1",
    "Epoch 3/10",
    'TF_CONFIG={"cluster": {"worker": ["h:1", "h:2"], "ps": ["h:3"]}, "task": {"type": "worker", "index": 1}}',
    "task_type='worker', task_id=",
    "/job:worker/replica:0/task:3/device:CPU:0",
    "Started server with target: grpc://",
    "GrpcChannelCache for job worker -> {0 -> h:1, 1 -> h:2}",
    "eager service context ",
    "cluster_spec = {'cluster': {'ps': ['h:3']}}",
]
TEXTS = ["", "\\ud800", "\\u0000", "\x00", "\ufffd", "\u2028", "é", "\t", " ", "}", "{", '"']
ENDS = ["\n", "\r\n", "\r", ""]
KEEP = Keep(pattern="error|unavailable|socket closed|aborted", head=3, tail=3, sample=5)
ALLOWED_FORMATS = {
    "tf_cpp",
    "absl",
    "python_logging",
    "python_basic",
    "keras_progress",
    "python_traceback",
    "cpp_stacktrace",
    "plain",
}


#: Bugs found, reported and not fixed yet: (exception type, message regex, function in the
#: traceback). They are counted, not raised, so that a run goes past them; FUZZ_STRICT=1 raises.
KNOWN_BUGS = [
    # TF_CONFIG / cluster_spec with non-numeric keys, or a task index of > 4300 digits
    ("ValueError", r"invalid literal for int|Exceeds the limit .* digits", "facts_from_content"),
]
STRICT = os.environ.get("FUZZ_STRICT") == "1"
seen_known: Counter = Counter()


def _known(exc: BaseException) -> str | None:
    where = {frame.name for frame in traceback.extract_tb(exc.__traceback__)}
    for kind, pattern, function in KNOWN_BUGS:
        if type(exc).__name__ == kind and re.search(pattern, str(exc)) and function in where:
            return f"{kind} in {function}"
    return None


def build(data: bytes) -> bytes:
    """The input for the parsers: the raw bytes, or log-shaped lines built from them."""
    if not data or data[0] < 96:
        return data[1:]
    fdp = atheris.FuzzedDataProvider(data[1:])
    out = []
    for _ in range(fdp.ConsumeIntInRange(0, 40)):
        prefix = PREFIXES[fdp.ConsumeIntInRange(0, len(PREFIXES) - 1)]
        text = fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 60))
        if fdp.ConsumeBool():
            text += TEXTS[fdp.ConsumeIntInRange(0, len(TEXTS) - 1)]
        out.append(prefix + text + ENDS[fdp.ConsumeIntInRange(0, len(ENDS) - 1)])
    tail = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 64))
    return "".join(out).encode("utf-8", "surrogatepass") + tail


def count_lines(data: bytes) -> int | None:
    """Lines in ``data`` as the parser must count them (None for UTF-16, decoded first)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    data = data.removeprefix(b"\xef\xbb\xbf")
    data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def check_table(parsed, data: bytes, condensed: bool) -> list[tuple[int, int]]:
    table = parsed.table
    n = parsed.lines_read
    expected = count_lines(data)
    if expected is not None:
        assert n == expected, f"lines_read {n} != {expected} lines in the input"
    starts = table["line_no"].to_pylist()
    ends = table["line_end"].to_pylist()
    raws = table["raw"].to_pylist()
    spans = list(zip(starts, ends, strict=True))
    previous_end = 0
    for (first, last), raw in zip(spans, raws, strict=True):
        assert 1 <= first <= last <= n, f"span {first}..{last} outside 1..{n}"
        assert first > previous_end, f"span {first}..{last} overlaps the one ending {previous_end}"
        previous_end = last
        assert raw is not None and raw.count("\n") == last - first, (
            f"raw of {first}..{last} holds {raw.count(chr(10)) + 1 if raw else 0} lines"
        )
    covered = sum(last - first + 1 for first, last in spans)
    rejected = sum(parsed.rejected.values())
    assert all(v >= 0 for v in parsed.rejected.values()), parsed.rejected
    if not condensed:
        assert n == covered + rejected, f"lines_read {n} != {covered} in events + {rejected}"
    else:
        assert covered <= n - rejected, f"{covered} lines in events > {n} - {rejected}"
    assert parsed.lines_in_timeline == n - rejected
    assert set(table["format"].to_pylist()) <= ALLOWED_FORMATS, set(table["format"].to_pylist())
    for text in raws + table["message"].to_pylist():
        if text is not None:
            text.encode("utf-8")  # valid text: no lone surrogates reach the timeline
    return spans


def TestOneInput(data: bytes) -> None:
    try:
        check(build(data))
    except Exception as exc:
        bug = None if STRICT else _known(exc)
        if bug is None:
            raise
        seen_known[bug] += 1
        if seen_known[bug] == 1:
            print(f"known bug (counted, not raised; FUZZ_STRICT=1 raises): {bug}", file=sys.stderr)


def check(payload: bytes) -> None:
    full = parse_lines(payload)
    spans = check_table(full, payload, condensed=False)
    again = parse_lines(payload)
    assert again.table.equals(full.table), "parse_lines is not deterministic"
    assert again.problems == full.problems and again.rejected == full.rejected

    condensed = parse_lines(payload, KEEP)
    kept = check_table(condensed, payload, condensed=True)
    assert condensed.lines_read == full.lines_read
    assert {first for first, _ in kept} <= {first for first, _ in spans} | {
        line for first, last in spans for line in range(first, last + 1)
    }

    ts, origin, _notes = resolve_times(full.table, year_hint=2026, tz=None)
    assert len(ts) == len(origin) == full.table.num_rows

    facts = facts_from_content(full.table["message"])
    assert facts.node is None or ":" in facts.node
    name = payload[:80].decode("utf-8", "replace").replace("\x00", "")
    hint = hint_from_name(name, tuple(name.split("/")[:3]))
    assert hint.rotation >= 0
    assert hint.node is None or hint.node.count(":") == 1


def write_seeds(folder: Path) -> None:
    """Seed inputs: the head of every real sample log, and a few hostile shapes."""
    root = Path(__file__).resolve().parent.parent
    folder.mkdir(parents=True, exist_ok=True)
    seeds = {
        f"sample-{i}": b"\x00" + path.read_bytes()[:4096]
        for i, path in enumerate(sorted((root / "sample_logs").rglob("*")))
        if path.is_file() and path.suffix != ".json"
    }
    seeds.update(
        {
            "docker": b"\x00"
            + b'{"log":"x \\ud800\\n","stream":"stderr","time":"2026-11-22T04:44:01Z"}\n',
            "utf16": b"\x00" + "INFO:tensorflow:x\r\n".encode("utf-16"),
            "cr": b"\x00" + b"INFO:tensorflow:a\rINFO:tensorflow:b\r",
            "nul": b"\x00" + b"I0000 00:00:0.0 1 a.cc:1] \x00\n" + bytes(300),
            "years": b"\x00" + b"0001-01-01 00:00:00.000000: E tensorflow/x.cc:1] m\n",
            "structured": bytes([200]) + bytes(range(256)),
        }
    )
    for name, data in seeds.items():
        (folder / name).write_bytes(data)
    print(f"{len(seeds)} seeds written to {folder}")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--seeds":
        write_seeds(Path(sys.argv[2]))
        return
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
