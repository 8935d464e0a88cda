"""Prefixes of launchers tfdiag has no rule for (analyzer/prefixes.py), learned per file, on the
recorded lines of a lab run wrapped as the launcher-* variants wrap them
(analyzer/evaluate/variants.py). Only the prefixes looked at while the learner was written
(Ray's, pdsh's) are used here; the other launchers are measured, not tested."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from analyzer.evaluate.variants import LAUNCHERS, VARIANTS, WRAPPED_STYLES, write_run
from analyzer.formats import Keep, parse_lines
from analyzer.formats.wrappers import FORMAT_RES
from analyzer.prefixes import learn
from analyzer.run import load

LAB = Path(__file__).parent / "corpus" / "lab"
ROOT_EXCERPTS = Path(__file__).parent / "corpus" / "excerpts"
RUN = LAB / "tf1" / "healthy-none-full-plain"  # ps:0, worker:0, worker:1: each a file


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def _lines(name: str) -> list[str]:
    return _read(RUN / name).decode().splitlines()


def test_the_tuned_launchers_are_marked_so():
    assert {n for n, v in LAUNCHERS.items() if v.tuned} == {"ray", "pdsh"}
    assert VARIANTS["launcher-ray"].tuned and not VARIANTS["launcher-stern"].tuned


def test_rays_prefix_is_learned_literal_and_the_lines_parse_as_unwrapped():
    plain = _read(RUN / "worker-0.log")
    wrapped = b"".join(
        b"(TrainWorker pid=41000, ip=10.0.0.2) " + line + b"\n" for line in plain.splitlines()
    )
    pattern, source = learn(wrapped.decode().splitlines(), FORMAT_RES)
    assert source is None  # one process: nothing varies
    assert pattern.startswith(r"^\(TrainWorker\ pid=41000,\ ip=10\.0\.0\.2\)\ (?P<inner>")
    got, want = parse_lines(wrapped), parse_lines(plain)
    # (Ray's prefix is now a known wrapper, formats/catalog.py: learned or known, same lines)
    assert got.wrapper == "ray" and want.wrapper is None
    assert got.formats == want.formats
    assert got.table["message"].to_pylist() == want.table["message"].to_pylist()
    assert got.table["level"].to_pylist() == want.table["level"].to_pylist()


@pytest.mark.parametrize(
    "run",
    [RUN, LAB / "pss" / "stall_notimeout-ps-training-host"],  # (most of its lines are prints)
    ids=lambda p: p.name,
)
def test_pdsh_hosts_are_each_lines_source(tmp_path: Path, run: Path):
    out = tmp_path / "run"
    write_run(run, out, VARIANTS["launcher-pdsh"])
    text = (out / "all.log").read_text()
    _, source = learn(text.splitlines()[:400], FORMAT_RES)
    assert source == "rank"
    parsed = parse_lines(text.encode())
    assert parsed.wrapper == "learned"
    truth = json.loads((run / "truth.json").read_text())
    assert len(set(parsed.table["rank"].to_pylist())) == len(truth["node_files"])
    # read whole or condensed, the stream is the nodes named by their own TF_CONFIG, each with
    # its own lines, and the verdict is the one on the files the launcher took
    for condensed in (False, True):
        got = load(str(out), condensed=condensed)
        nodes = got.nodes.loc[list(truth["node_files"])]
        assert all(f == ["all.log"] for f in nodes["files"])
        assert (nodes["lines"] > 10).all()
        rc = got.root_cause
        assert (rc.node if rc else None) == truth["first_failing_node"]
        assert (rc.category if rc else "none") == truth["root_cause_category"]


def test_each_sources_last_lines_are_kept_in_a_condensed_parse():
    # worker-0's goodbye is in the middle of the merged stream; a condensed parse keeps the
    # head and tail of each source, not only of the file
    names = ("ps-0.log", "worker-0.log", "worker-1.log")
    lines = [f"{n[:-4]}: {line}" for n in names for line in _lines(n)]
    keep = Keep(pattern="zzz-never", head=2, tail=2, sample=0)
    parsed = parse_lines("\n".join(lines).encode() + b"\n", keep)
    kept = parsed.table.to_pylist()
    for n in names:
        own = [r["message"] for r in kept if r["rank"] == n[:-4]]
        last = _lines(n)[-1]
        assert own and own[-1] and own[-1] in last


def test_a_time_in_the_prefix_is_not_the_lines_time():
    # a collector's time (when it read the line) is not taken over the line's own, and a line
    # behind "[<ISO time>] " is read by its own format, not as a Python logging line
    lines = _lines("worker-1.log")
    stamped = [f"[2026-11-23T19:11:{i % 60:02d}.500Z] {line}" for i, line in enumerate(lines)]
    pattern, _ = learn(stamped, FORMAT_RES)
    assert "wts" not in pattern
    got, want = parse_lines("\n".join(stamped).encode()), parse_lines("\n".join(lines).encode())
    assert got.wrapper == "learned" and got.formats == want.formats
    assert got.table["wts"].null_count == got.table.num_rows
    assert got.table["time"].to_pylist() == want.table["time"].to_pylist()


@pytest.mark.parametrize(
    "path",
    sorted(p for p in LAB.rglob("*") if p.is_file() and p.name != "truth.json")[::7],
    ids=lambda p: str(p.relative_to(LAB)),
)
def test_no_recorded_file_gets_a_learned_prefix(path: Path):
    # a known wrapper or none: a file as TensorFlow or a known launcher writes it learns nothing
    if path.suffix in (".json", ".md", ".txt"):
        return
    parsed = parse_lines(_read(path))
    if "mwms_pdsh" in path.parts:
        # pdsh's "<host>: " has no known wrapper: a host is any word, and a config dump's
        # "key: value" lines look the same (tf.data's server config); the learned prefix, which
        # needs a log format after it, reads it, each host the source of its lines (and
        # pdsh's own "pdsh@<node>: " lines theirs)
        if parsed.wrapper == "learned":
            hosts = set(parsed.table["rank"].drop_null().to_pylist())
            assert hosts and all(re.fullmatch(r"worker\d+|pdsh@\S+", h) for h in hosts), hosts
        return
    if "mwms_runit" in path.parts:
        # svlogd's stamp ('2026-11-25_12:31:26.79252 ', '-ttt' with a 'T', TAI64N '@4000...')
        # is a known wrapper: every piece of a service's log is read through it, the small
        # rotated ones too (too few lines to learn a prefix from)
        assert parsed.wrapper == "svlogd"
        return
    assert parsed.wrapper != "learned"


def test_a_quoted_or_indented_paste_is_not_a_launcher():
    lines = _lines("worker-1.log")[:40]
    assert learn(["    " + s for s in lines], FORMAT_RES) is None  # blanks only
    # most lines start with a format: the few that do not are not a prefix
    mixed = [("x " + s if i % 4 == 0 else s) for i, s in enumerate(lines)]
    assert learn(mixed, FORMAT_RES) is None


def test_most_lines_must_carry_the_prefix():
    lines = _lines("worker-1.log")
    most = [f"h{i % 3}: {s}" if i % 3 else s for i, s in enumerate(lines)]  # two in three
    pattern, source = learn(most, FORMAT_RES)
    assert source == "rank"
    assert all(re.match(pattern, s) for s in most[1::3] + most[2::3])
    few = [f"h{i % 3}: {s}" if i % 3 == 0 else s for i, s in enumerate(lines)]  # one in three
    assert learn(few, FORMAT_RES) is None


#: runs a launcher's prefix still changes, and why (measurements/launchers.md)
_LOST = {
    "pss/throttle-worker-training-rotated": "a rotated piece with under three format lines",
}
_SAMPLE = [
    p.parent
    for p in sorted(LAB.glob("*/*/truth.json"))
    if p.parent.parent.name not in WRAPPED_STYLES
][::13]


@pytest.fixture(scope="module")
def unwrapped_verdicts() -> dict[str, tuple]:
    out = {}
    for run in _SAMPLE:
        rc = load(str(run)).root_cause
        out[run.relative_to(LAB).as_posix()] = (rc.node, rc.category) if rc else (None, "none")
    return out


@pytest.mark.parametrize("launcher", sorted(LAUNCHERS))
def test_a_launchers_prefix_leaves_the_verdicts_as_they_were(
    tmp_path: Path, launcher: str, unwrapped_verdicts: dict[str, tuple]
):
    # a sample of the lab (every 13th run of the styles no deployment wraps): behind each
    # launcher's prefix, per file or merged, the verdict is the one on the files as recorded
    changed = []
    for run in _SAMPLE:
        name = run.relative_to(LAB).as_posix()
        out = tmp_path / name
        write_run(run, out, VARIANTS[f"launcher-{launcher}"])
        rc = load(str(out)).root_cause
        got = (rc.node, rc.category) if rc else (None, "none")
        if got != unwrapped_verdicts[name] and name not in _LOST:
            changed.append((name, unwrapped_verdicts[name], got))
    assert not changed


def test_a_huge_line_and_an_id_per_line_are_not_a_problem():
    lines = _lines("worker-1.log")
    # a different word on every line (a request id) is not a source: no rank
    ided = [f"req-{i:05x}a | {s}" for i, s in enumerate(lines)]
    pattern, source = learn(ided, FORMAT_RES)
    assert source is None and re.match(pattern, ided[3])
    # one line of 8 MB among them: learned the same, and parsed whole
    wrapped = [f"(pid=7) {s}" for s in lines]
    wrapped[5] = "(pid=7) I1123 19:11:46.548602 1 x.cc:1] " + "z" * (8 << 20)
    pattern, _ = learn(wrapped, FORMAT_RES)
    assert pattern.startswith(r"^\(pid=7\)\ ")
    parsed = parse_lines("\n".join(wrapped).encode())
    assert parsed.wrapper == "ray" and parsed.lines_read == len(lines)


def test_a_timestamp_prefix_on_lines_that_hold_no_time_of_their_own():
    # "[<ISO time>] INFO:tensorflow:..." reads as a Python logging line after "[" and as a
    # python_basic one after the time: the longer prefix is the launcher's
    lines = [s for s in _lines("worker-0.log") if s.startswith("INFO:tensorflow:")]
    assert len(lines) > 20
    stamped = [f"[2026-11-23T19:11:46.{i:03d}Z] {s}" for i, s in enumerate(lines)]
    pattern, _ = learn(stamped, FORMAT_RES)
    parsed = parse_lines("\n".join(stamped).encode())
    assert set(parsed.formats) == {"python_basic"}
    assert re.match(pattern, stamped[0]).group("inner") == lines[0]


def test_a_ray_paste_is_read_behind_its_prefix():
    # a real paste (intel/BigDL#4409): Ray's driver shows each actor's lines behind
    # "(pid=N, ip=A) ", Ray's own prefix (a known wrapper since session 14). The lines are read
    # as their own formats and parted by process: the two whose lines name their task are those
    # tasks, and the verdict points at the task their health check lost
    paste = next(ROOT_EXCERPTS.rglob("bigdl-issue-4409-ray-worker-seems-down.txt"))
    run = load(str(paste))
    tl = run.timeline
    assert (tl["wrapper"] == "ray").all() and "tf_cpp" in set(tl["format"])
    assert not tl["message"].str.startswith("(pid=").any()
    assert {"worker:0", "worker:5"} <= set(tl["node"])
    assert run.root_cause.node == "worker:7"
