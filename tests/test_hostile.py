"""Hostile input: tfdiag keeps working, loses nothing, and lets nothing through.

A corpus of bad inputs is generated under a temporary folder (nothing large is committed):
empty and binary files, cut and corrupt compressed files, a gzip bomb, bundles whose members
escape or link out, symbolic link loops and links out of the input folder, broken encodings,
odd line ends, NUL bytes, cut lines, interleaved processes, absurd timestamps, hostile file
names. Every case is read three ways — ``analyzer.ingest.ingest``, ``tfdiag ingest`` and
``tfdiag analyze --json`` (the real CLI in a subprocess) — and each must

* exit normally (0 or 1, never a traceback),
* name the file and its problem in the ingest problems / skipped files,
* keep every readable line, and
* balance the accounting: ``lines_read == lines_in_timeline + lines_rejected``.

Cases that need a setup of their own (unreadable files, a file that vanishes, a 200 MB line,
5,000 files under a low file-descriptor limit, writes outside the output paths) have their own
tests below.
"""

from __future__ import annotations

import bz2
import ctypes
import gzip
import io
import json
import lzma
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import ROOT

from analyzer import sources
from analyzer.ingest import ingest
from analyzer.timeline import read_parquet, to_pandas

#: --max-bytes for the corpus runs (the gzip bomb inflates to 1 GiB; this stops it at 8 MB).
CAP = 8_000_000


# --------------------------------------------------------------------------------- helpers


def tfdiag(*args: str, cwd: Path, timeout: float = 900, **kw) -> subprocess.CompletedProcess:
    """Run the real CLI (``python -m analyzer``) in a subprocess."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "COLUMNS": "10000",  # the terminal report on one line per problem
    }
    return subprocess.run(
        [sys.executable, "-m", "analyzer", *args],
        capture_output=True,
        text=True,
        errors="replace",
        cwd=cwd,
        env=env,
        timeout=timeout,
        **kw,
    )


#: Runs the CLI's entry point and prints the process's peak memory (KiB) to stderr.
MEASURED = (
    "import resource, sys\n"
    "from analyzer.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "print(f'MAXRSS_KIB={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}', file=sys.stderr)\n"
    "sys.exit(rc)\n"
)


def tfdiag_measured(*args: str, cwd: Path, **kw) -> tuple[subprocess.CompletedProcess, int]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", MEASURED, *args],
        capture_output=True,
        text=True,
        errors="replace",
        cwd=cwd,
        env=env,
        timeout=900,
        **kw,
    )
    m = re.search(r"MAXRSS_KIB=(\d+)", proc.stderr)
    return proc, int(m[1]) * 1024 if m else -1


def assert_exited_normally(proc: subprocess.CompletedProcess, codes=(0, 1)) -> None:
    assert proc.returncode in codes and "Traceback" not in proc.stderr, (
        f"exit {proc.returncode}\n--- stderr ---\n{proc.stderr[-4000:]}"
    )


def assert_balanced(result) -> None:
    """Line accounting of an :class:`analyzer.ingest.Ingest` or its JSON ``ingest`` object."""
    if isinstance(result, dict):
        for f in result["per_file"]:
            assert f["lines_read"] == f["lines_in_timeline"] + f["lines_rejected"], f
        total = result["lines_read"], result["lines_in_timeline"], result["lines_rejected"]
    else:
        for f in result.files:
            assert f.lines_read == f.lines_in_timeline + f.lines_rejected, f
        total = result.lines_read, result.lines_in_timeline, result.lines_rejected
    assert total[0] == total[1] + total[2], total


def notes_of(result) -> list[tuple[str, str]]:
    """(file, problem or reason) for every problem and skipped file."""
    if isinstance(result, dict):
        return [(p["file"], p["problem"]) for p in result["problems"]] + [
            (p["file"], p["reason"]) for p in result["skipped"]
        ]
    return [(p.file, p.problem) for p in (*result.problems, *result.skipped)]


def assert_named(result, file: str, pattern: str) -> None:
    notes = notes_of(result)
    assert any(f == file and re.search(pattern, text, re.I) for f, text in notes), (
        f"no problem for {file!r} matching {pattern!r} in:\n"
        + "\n".join(f"  {f}: {t}" for f, t in notes)
    )


def lines_by_file(frame) -> dict[str, set[str]]:
    """Every line of the timeline's ``raw`` text, per file (multi-line events split)."""
    out: dict[str, set[str]] = {}
    for file, raw in zip(frame["file"], frame["raw"], strict=True):
        out.setdefault(file, set()).update((raw or "").split("\n"))
    return out


def tf_line(second: int, msg: str, day: str = "2026-11-22 04:44") -> str:
    return f"{day}:{second % 60:02d}.{second // 60:06d}: I tensorflow/core/x.cc:1] {msg}"


def text_lines(n: int, tag: str) -> list[str]:
    return [tf_line(i, f"{tag} line {i}") for i in range(n)]


def joined(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def salvage(data: bytes, kind: str) -> bytes:
    """What a careful reader can decode from a cut or corrupt compressed stream."""
    if kind == "gzip":
        dec, out = zlib.decompressobj(wbits=47), b""
        for i in range(0, len(data), 512):
            try:
                out += dec.decompress(data[i : i + 512])
            except zlib.error:
                break
        return out
    dec = {"bz2": bz2.BZ2Decompressor, "xz": lzma.LZMADecompressor}[kind]()
    out = b""
    for i in range(0, len(data), 512):
        try:
            out += dec.decompress(data[i : i + 512])
        except (OSError, EOFError, lzma.LZMAError):
            break
    return out


def readable_lines(data: bytes) -> list[str]:
    """The lines tfdiag must keep from ``data`` (bad UTF-8 bytes kept as ``\\xNN`` escapes)."""
    text = data.decode("utf-8", "backslashreplace").replace("\r\n", "\n").replace("\r", "\n")
    return [line for line in text.split("\n") if line.strip()]


# --------------------------------------------------------------------------------- corpus


@dataclass
class Expect:
    """What one case must produce: problems named per file, lines kept per file."""

    problems: list[tuple[str, str]] = field(default_factory=list)  #: (file, regex)
    lines: dict[str, list[str]] = field(default_factory=dict)  #: file → lines that must be kept
    absent: list[str] = field(default_factory=list)  #: text that must not be in the timeline


CASES: dict[str, Callable[[Path], Expect]] = {}


def case(fn: Callable[[Path], Expect]) -> Callable[[Path], Expect]:
    CASES[fn.__name__] = fn
    return fn


@case
def empty_files(d: Path) -> Expect:
    (d / "worker-0.log").write_bytes(b"")
    (d / "worker-1.log.gz").write_bytes(gzip.compress(b""))
    (d / "ps-0.log").write_bytes(b"\n\n   \n\t\n")  # blank lines only: read, rejected, counted
    return Expect([("worker-0.log", "empty"), ("worker-1.log.gz", "empty")])


@case
def binary_files(d: Path) -> Expect:
    rnd = random.Random(1)
    (d / "worker-0.log").write_bytes(rnd.randbytes(64 * 1024))
    elf = b"\x7fELF\x02\x01\x01" + bytes(9) + b"\x02\x00\x3e\x00" + rnd.randbytes(4000)
    (d / "worker-1.log").write_bytes(elf)
    core = b"\x7fELF\x02\x01\x01" + bytes(9) + b"\x04\x00\x3e\x00" + rnd.randbytes(8000)
    (d / "core.4242").write_bytes(core)  # a core dump, named like one
    png = b"\x89PNG\r\n\x1a\n" + rnd.randbytes(3000)
    (d / "ps-0.log").write_bytes(png)  # a PNG under a log's name
    (d / "loss.png").write_bytes(png)
    (d / "worker-2.log.gz").write_bytes(gzip.compress(rnd.randbytes(20000)))
    good = text_lines(20, "chief")
    (d / "chief.log").write_bytes(joined(good))
    return Expect(
        [
            ("worker-0.log", "binary"),
            ("worker-1.log", "ELF"),
            ("core.4242", "ELF"),
            ("ps-0.log", "PNG"),
            ("loss.png", "not a log"),
            ("worker-2.log.gz", "binary"),
        ],
        {"chief.log": good},
    )


@case
def compressed_cut(d: Path) -> Expect:
    exp = Expect()
    text = joined(text_lines(40_000, "cut"))
    zstd = __import__("zstandard")
    for name, kind, blob in (
        ("worker-0.log.gz", "gzip", gzip.compress(text)),
        ("worker-1.log.bz2", "bz2", bz2.compress(text, compresslevel=1)),
        ("worker-2.log.xz", "xz", lzma.compress(text)),
    ):
        cut = blob[: len(blob) // 2]
        (d / name).write_bytes(cut)
        exp.problems.append((name, f"truncated {kind}"))
        kept = readable_lines(salvage(cut, kind))
        assert len(kept) > 1000, (name, len(kept))
        exp.lines[name] = kept
    blob = zstd.ZstdCompressor().compress(text)
    (d / "worker-3.log.zst").write_bytes(blob[: len(blob) // 2])
    exp.problems.append(("worker-3.log.zst", "truncated zstd"))
    # corrupt in the middle: what comes before is kept
    blob = bytearray(gzip.compress(text))
    blob[len(blob) // 2 : len(blob) // 2 + 64] = bytes(64)
    (d / "worker-4.log.gz").write_bytes(bytes(blob))
    exp.problems.append(("worker-4.log.gz", "corrupt gzip"))
    exp.lines["worker-4.log.gz"] = readable_lines(salvage(bytes(blob), "gzip"))[:-1]
    # a .gz that is not gzip at all
    (d / "worker-5.log.gz").write_bytes(joined(text_lines(10, "plain")))
    exp.problems.append(("worker-5.log.gz", "corrupt gzip"))
    return exp


@case
def gzip_bomb(d: Path) -> Expect:
    # 64 gzip members of 16 MiB each: a 3.5 MiB file that inflates to 1 GiB
    line = tf_line(1, "bomb " + "a" * 30).encode() + b"\n"
    member = gzip.compress(line * (16 * 1024 * 1024 // len(line)), compresslevel=9)
    (d / "worker-0.log.gz").write_bytes(member * 64)
    assert (d / "worker-0.log.gz").stat().st_size < 4 * 1024 * 1024
    zstd = __import__("zstandard")
    frame = zstd.ZstdCompressor(level=3).compress(line * (16 * 1024 * 1024 // len(line)))
    (d / "worker-1.log.zst").write_bytes(frame * 64)
    return Expect(
        [
            ("worker-0.log.gz", rf"stopped reading at the cap of {CAP:,} bytes"),
            ("worker-1.log.zst", rf"stopped reading at the cap of {CAP:,} bytes"),
        ],
        {"worker-0.log.gz": [line.decode().strip()]},
    )


def _tar_add(tf: tarfile.TarFile, name: str, data: bytes = b"", **attrs) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for key, value in attrs.items():
        setattr(info, key, value)
    tf.addfile(info, io.BytesIO(data) if data else None)


def escaping_tar(path: Path, good: bytes) -> None:
    with tarfile.open(path, "w") as tf:
        _tar_add(tf, "../evil.log", joined(["EVIL parent"]))
        _tar_add(tf, "/tmp/tfdiag-evil-abs.log", joined(["EVIL absolute"]))
        _tar_add(tf, "logs/../../evil2.log", joined(["EVIL dotdot"]))
        _tar_add(tf, "link.log", type=tarfile.SYMTYPE, linkname="/etc/passwd")
        _tar_add(tf, "uplink.log", type=tarfile.SYMTYPE, linkname="../../../etc/passwd")
        _tar_add(tf, "hard.log", type=tarfile.LNKTYPE, linkname="../../etc/passwd")
        _tar_add(tf, "dev.log", type=tarfile.CHRTYPE)
        _tar_add(tf, "logs/worker-0.log", good)


def escaping_zip(path: Path, good: bytes) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("../evil.log", joined(["EVIL parent"]))
        zf.writestr("/tmp/tfdiag-evil-abs.log", joined(["EVIL absolute"]))
        zf.writestr("..\\evil-win.log", joined(["EVIL backslash"]))
        link = zipfile.ZipInfo("zlink.log")
        link.external_attr = 0o120777 << 16  # a symbolic link member
        zf.writestr(link, "../../../etc/passwd")
        zf.writestr("logs/worker-1.log", good)


@case
def bundles(d: Path) -> Expect:
    good0, good1 = text_lines(30, "tar good"), text_lines(30, "zip good")
    escaping_tar(d / "evil.tar", joined(good0))
    escaping_zip(d / "evil.zip", joined(good1))
    exp = Expect(
        [
            ("evil.tar!../evil.log", "escapes"),
            ("evil.tar!/tmp/tfdiag-evil-abs.log", "escapes"),
            ("evil.tar!logs/../../evil2.log", "escapes"),
            ("evil.tar!link.log", "link"),
            ("evil.tar!uplink.log", "link"),
            ("evil.tar!hard.log", "link"),
            ("evil.tar!dev.log", "special"),
            ("evil.zip!../evil.log", "escapes"),
            ("evil.zip!/tmp/tfdiag-evil-abs.log", "escapes"),
            ("evil.zip!..\\evil-win.log", "escapes"),
            ("evil.zip!zlink.log", "link"),
        ],
        {"evil.tar!logs/worker-0.log": good0, "evil.zip!logs/worker-1.log": good1},
        absent=["EVIL", "root:x:0:0"],
    )
    # a tar.gz cut in its third member: the first two are read whole, the third up to the cut
    members = [text_lines(3000, f"member {i}") for i in range(3)]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for i, lines in enumerate(members):
            _tar_add(tf, f"logs/worker-{i}.log", joined(lines))
    blob = buf.getvalue()
    (d / "cut.tar.gz").write_bytes(blob[: int(len(blob) * 0.8)])
    exp.problems.append(("cut.tar.gz", "cut or corrupt"))
    exp.lines["cut.tar.gz!logs/worker-0.log"] = members[0]
    exp.lines["cut.tar.gz!logs/worker-1.log"] = members[1]
    exp.lines["cut.tar.gz!logs/worker-2.log"] = members[2][:100]
    # two members with one name: both are read
    first, second = text_lines(10, "first copy"), text_lines(12, "second copy")
    with tarfile.open(d / "dup.tar", "w") as tf:
        _tar_add(tf, "logs/ps-0.log", joined(first))
        _tar_add(tf, "logs/ps-0.log", joined(second))
    exp.problems.append(("dup.tar!logs/ps-0.log", "2 members with this name"))
    exp.lines["dup.tar!logs/ps-0.log (copy 1)"] = first
    exp.lines["dup.tar!logs/ps-0.log (copy 2)"] = second
    # a zip member whose bytes were damaged (stored: the CRC check fails at its end)
    damaged = text_lines(50, "crc")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("worker-7.log", joined(damaged))
        zf.writestr("worker-8.log", joined(damaged))
    blob = bytearray(buf.getvalue())
    at = blob.index(b"crc line 25")
    blob[at : at + 3] = b"CRC"
    damaged[25] = damaged[25].replace("crc line 25", "CRC line 25")
    (d / "crc.zip").write_bytes(bytes(blob))
    exp.problems.append(("crc.zip!worker-7.log", "CRC"))
    exp.lines["crc.zip!worker-7.log"] = damaged
    exp.lines["crc.zip!worker-8.log"] = text_lines(50, "crc")
    # garbage named like a bundle
    (d / "junk.zip").write_bytes(b"PK\x03\x04" + bytes(100))
    (d / "junk.tar.gz").write_bytes(random.Random(3).randbytes(5000))
    exp.problems += [("junk.zip", "unreadable bundle"), ("junk.tar.gz", "unreadable bundle")]
    return exp


@case
def symlinks(d: Path) -> Expect:
    outside = d.parent.parent / "outside"  # next to the corpus, not in it
    outside.mkdir(exist_ok=True)
    (outside / "secret.log").write_bytes(joined(["OUTSIDE secret line"]))
    (d / "out.log").symlink_to(outside / "secret.log")
    (d / "outdir").symlink_to(outside, target_is_directory=True)
    (d / "self.log").symlink_to("self.log")
    (d / "loop-a.log").symlink_to("loop-b.log")
    (d / "loop-b.log").symlink_to("loop-a.log")
    (d / "sub").mkdir()
    (d / "sub" / "up").symlink_to("..", target_is_directory=True)  # a folder loop
    (d / "broken.log").symlink_to("does-not-exist.log")
    good = text_lines(10, "linked")
    (d / "worker-0.log").write_bytes(joined(good))
    (d / "worker-1.log").symlink_to("worker-0.log")  # inside: read once
    os.mkfifo(d / "worker-9.log")  # reading a FIFO would hang forever
    return Expect(
        [
            ("out.log", "out of the input folder"),
            ("outdir", "not followed"),
            ("self.log", "looping"),
            ("loop-a.log", "looping"),
            ("loop-b.log", "looping"),
            ("sub/up", "not followed"),
            ("broken.log", "broken"),
            ("worker-9.log", "not a regular file"),
        ],
        {"worker-0.log": good},
        absent=["OUTSIDE"],
    )


@case
def encodings(d: Path) -> Expect:
    exp = Expect()
    bad = (
        joined(text_lines(5, "utf8"))
        + b"2026-11-22 04:45:00.000: E tensorflow/x.cc:1] bad \xff\xfe\xc3( bytes\n"
    )
    (d / "worker-0.log").write_bytes(bad)
    exp.problems.append(("worker-0.log", "not valid UTF-8"))
    exp.lines["worker-0.log"] = readable_lines(bad)
    assert any("\\xff\\xfe" in line for line in exp.lines["worker-0.log"])
    utf16 = ["2026-11-22 04:44:00,000 - INFO - Grüße aus UTF-16 ✓", "INFO:tensorflow:zweite Zeile"]
    (d / "worker-1.log").write_bytes("\n".join(utf16).encode("utf-16") + "\n".encode("utf-16-le"))
    exp.problems.append(("worker-1.log", "UTF-16"))
    exp.lines["worker-1.log"] = utf16
    latin = "2026-11-22 04:44:00,000 - ERROR - Échec: délai dépassé à l'étape ½ — très élevé\n" * 40
    (d / "worker-2.log").write_bytes(latin.encode("latin-1", "replace"))
    exp.problems.append(("worker-2.log", "not valid UTF-8"))
    exp.lines["worker-2.log"] = readable_lines(latin.encode("latin-1", "replace"))
    cyr = "2026-11-22 04:44:00,000 - ERROR - Ошибка: соединение с узлом потеряно\n" * 40
    (d / "worker-3.log").write_bytes(cyr.encode("cp1251"))
    exp.lines["worker-3.log"] = readable_lines(cyr.encode("cp1251"))
    (d / "worker-4.log").write_bytes(b"\xef\xbb\xbf" + joined(text_lines(3, "bom")))
    exp.lines["worker-4.log"] = text_lines(3, "bom")
    return exp


@case
def line_ends(d: Path) -> Expect:
    exp = Expect()
    crlf = text_lines(20, "crlf")
    (d / "worker-0.log").write_bytes(("\r\n".join(crlf) + "\r\n").encode())
    lone = text_lines(20, "lone cr")
    (d / "worker-1.log").write_bytes(("\r".join(lone) + "\r").encode())
    nul = [*text_lines(5, "nul"), tf_line(9, "a NUL \x00 inside"), "\x00\x00 leading NULs"]
    (d / "worker-2.log").write_bytes(joined(nul))
    tail = text_lines(30, "before the crash")
    (d / "worker-3.log").write_bytes(joined(tail) + bytes(64 * 1024))  # zero-filled tail
    cut = [*text_lines(10, "cut"), tf_line(11, "this line was cut mid-wa")]
    (d / "worker-4.log").write_bytes(joined(cut)[:-1])
    mixed = text_lines(9, "mixed")
    (d / "worker-5.log").write_bytes(
        (
            mixed[0] + "\n" + mixed[1] + "\r\n" + mixed[2] + "\r" + "\n".join(mixed[3:]) + "\n"
        ).encode()
    )
    exp.lines = {
        "worker-0.log": crlf,
        "worker-1.log": lone,
        "worker-2.log": nul,
        "worker-3.log": tail,
        "worker-4.log": cut,
        "worker-5.log": mixed,
    }
    exp.problems.append(("worker-4.log", "no line end"))
    return exp


@case
def interleaved(d: Path) -> Expect:
    a = [tf_line(i, f"process A step {i}") for i in range(0, 40, 2)]
    b = [
        f"I1122 04:44:{i % 60:02d}.{i:06d}  4242 b.cc:7] process B step {i}"
        for i in range(1, 41, 2)
    ]
    rows = [x for pair in zip(a, b, strict=True) for x in pair]
    # a torn write: A's line is cut by a whole line of B and ends on the next line
    torn_head, torn_tail = tf_line(50, "process A torn li"), "ne ends here"
    rows[10:10] = [torn_head + b[-1], torn_tail]
    (d / "worker-0.log").write_bytes(joined(rows))
    return Expect(lines={"worker-0.log": rows})


@case
def timestamps(d: Path) -> Expect:
    exp = Expect()
    normal = [tf_line(i, f"normal {i}") for i in range(40)]
    absurd = [
        *normal[:20],
        "1970-01-01 00:00:00.000000: E tensorflow/x.cc:1] clock at the epoch",
        *normal[20:],
        "2099-12-31 23:59:59.000000: E tensorflow/x.cc:1] clock in the future",
    ]
    (d / "worker-0.log").write_bytes(joined(absurd))
    exp.problems.append(
        ("worker-0.log", r"2 line\(s\) have timestamps far from the rest.*1970-01-01.*2099-12-31")
    )
    back = [
        *(tf_line(i, f"before the step {i}", day="2026-11-22 06:00") for i in range(20)),
        *(tf_line(i, f"after the step {i}", day="2026-11-22 04:00") for i in range(20)),
    ]
    (d / "worker-1.log").write_bytes(joined(back))
    exp.problems.append(("worker-1.log", r"time goes backwards 1 time.*line 21"))
    year = [
        *(tf_line(i, f"this year {i}") for i in range(30)),
        *(tf_line(i, f"next year {i}", day="2027-11-22 04:44") for i in range(10)),
    ]
    (d / "worker-2.log").write_bytes(joined(year))
    exp.problems.append(
        ("worker-2.log", r"10 line\(s\) have timestamps far from the rest.*2027-11-22")
    )
    epoch = [
        "I0000 00:00:1795322641.559889    3971 a.cc:1] a real epoch time",
        "I0000 00:00:0.000001    3971 a.cc:1] epoch zero",
        *(f"I0000 00:00:{1795322642 + i}.0  3971 a.cc:1] more {i}" for i in range(10)),
    ]
    (d / "ps-0.log").write_bytes(joined(epoch))
    exp.problems.append(("ps-0.log", r"1 line\(s\) have timestamps far from the rest.*1970-01-01"))
    unrepresentable = [
        *normal[:5],
        "0001-01-01 00:00:00.000000: E tensorflow/x.cc:1] year one",
        "9999-12-31 23:59:59.999999: E tensorflow/x.cc:1] year 9999",
        "2026-13-45 99:99:99.000000: E tensorflow/x.cc:1] no such day",
        "I0000 00:00:99999999999999999999.0  1 a.cc:1] epoch past the end of time",
        "I1399 99:99:99.000000  1 a.cc:1] absl month 13",
        *normal[5:10],
    ]
    (d / "ps-1.log").write_bytes(joined(unrepresentable))
    exp.lines = {
        "worker-0.log": absurd,
        "worker-1.log": back,
        "worker-2.log": year,
        "ps-0.log": epoch,
        "ps-1.log": unrepresentable,
    }
    return exp


@case
def identity_tricks(d: Path) -> Expect:
    rows = {
        "worker-0.log": [
            'TF_CONFIG={"cluster": {"worker": {"x": "a", "b": 2}}, "task": {"type": "worker", "index": "z"}}',
            "task_type='worker', task_id=" + "9" * 5000,
            "devices: ['/job:worker/replica:0/task:99999999999999999999/device:CPU:0']",
            'TF_CONFIG={"cluster": ' + "[" * 5000 + "]" * 5000 + "}",
            "TF_CONFIG={'cluster': __import__('os').system('touch /tmp/tfdiag-pwned')}",
        ],
        "mpi.log": [f"[1,{'9' * 30}]<stderr>:rank from nowhere {i}" for i in range(5)],
        "x:\u00b2.log": text_lines(3, "superscript"),
        "slurm.log": [f"{i:5d}: slurm rank {i}" for i in (0, 1, 99999)],
    }
    for name, lines in rows.items():
        (d / name).write_bytes(joined(lines))
    old = d / "ps-0.log"
    old.write_bytes(joined(["I1122 04:44:01.000000  1 a.cc:1] year-less, file time absurd"]))
    os.utime(old, (2**40, 2**40))  # year ~36812
    rows["ps-0.log"] = ["I1122 04:44:01.000000  1 a.cc:1] year-less, file time absurd"]
    return Expect(lines=rows)


@case
def docker_escapes(d: Path) -> Expect:
    rows = [
        '{"log":"ok line\\n","stream":"stderr","time":"2026-11-22T04:44:01.000000000Z"}',
        '{"log":"bad \\u12 escape\\n","stream":"stderr","time":"2026-11-22T04:44:02.000000000Z"}',
        '{"log":"nul \\u0000 and bell \\u0007\\n","stream":"stdout","time":"2026-11-22T04:44:03.000000000Z"}',
        '{"log":"quote \\" and \\\\ backslash\\n","stream":"stdout","time":"bogus"}',
    ]
    (d / "worker-0.log").write_bytes(joined(rows))
    return Expect(lines={"worker-0.log": rows})  # ``raw`` keeps the untouched JSON lines


@case
def lone_surrogates(d: Path) -> Expect:
    # JSON-escaped lone surrogates in a Docker log: the file is named, the run goes on
    rows = [
        '{"log":"high \\ud800 alone\\n","stream":"stderr","time":"2026-11-22T04:44:01.000000000Z"}',
        '{"log":"low \\udfff alone\\n","stream":"stderr","time":"2026-11-22T04:44:02.000000000Z"}',
        '{"log":"pair \\ud83d\\ude00 ok\\n","stream":"stderr","time":"2026-11-22T04:44:03.000000000Z"}',
    ]
    (d / "worker-0.log").write_bytes(joined(rows))
    return Expect()


@case
def file_names(d: Path) -> Expect:
    rows = text_lines(3, "named")
    names = ["[red]ps-0[bold].log", "new\nline.log", "worker-\udcff.log", 'sp ace\'s "q".log']
    for name in names:
        (d / os.fsencode(name).decode("utf-8", "surrogateescape")).write_bytes(joined(rows))
    with zipfile.ZipFile(d / "names.zip", "w") as zf:  # a member name is a path: "[/x]" fits
        zf.writestr("d[/x]/worker-5.log", joined(rows)[:-1])
    return Expect(
        [("names.zip!d[/x]/worker-5.log", "no line end")],
        {
            "[red]ps-0[bold].log": rows,
            "worker-\\xff.log": rows,
            "names.zip!d[/x]/worker-5.log": rows,
        },
    )


# --------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, dict[str, Expect]]:
    base = tmp_path_factory.mktemp("hostile")
    root = base / "corpus"
    expects = {}
    for name, build in CASES.items():
        (root / name).mkdir(parents=True)
        expects[name] = build(root / name)
    return root, expects


@pytest.fixture(scope="module")
def cli_analyze(corpus, tmp_path_factory) -> tuple[subprocess.CompletedProcess, dict]:
    """``tfdiag analyze CORPUS --json OUT`` once over every case."""
    root, _ = corpus
    out = tmp_path_factory.mktemp("analyze") / "report.json"
    proc = tfdiag(
        "analyze", str(root), "--json", str(out), "--max-bytes", str(CAP), "--no-color",
        cwd=out.parent,
    )  # fmt: skip
    report = json.loads(out.read_bytes().decode("utf-8")) if out.exists() else None
    return proc, report


@pytest.fixture(scope="module")
def cli_ingest(corpus, tmp_path_factory) -> tuple[subprocess.CompletedProcess, object]:
    """``tfdiag ingest CORPUS -o OUT.parquet`` once over every case."""
    root, _ = corpus
    out = tmp_path_factory.mktemp("ingest") / "timeline.parquet"
    proc = tfdiag("ingest", str(root), "-o", str(out), "--max-bytes", str(CAP), cwd=out.parent)
    return proc, read_parquet(out) if out.exists() else None


def check_case(result, frame, expect: Expect, prefix: str = "") -> None:
    """The problems named, the lines kept, the absent text absent."""
    for file, pattern in expect.problems:
        assert_named(result, prefix + file, pattern)
    kept = lines_by_file(frame)
    for file, lines in expect.lines.items():
        have = kept.get(prefix + file)
        assert have is not None, f"{prefix + file} not in the timeline: {sorted(kept)[:20]}"
        missing = [line for line in lines if line.strip() and line not in have]
        assert not missing, f"{prefix + file}: {len(missing)} lines lost, e.g. {missing[:3]!r}"
    for text in expect.absent:
        assert not any(text in line for lines in kept.values() for line in lines), text


# --------------------------------------------------------------------------------- the corpus


@pytest.mark.parametrize("name", list(CASES))
def test_case_through_ingest(corpus, name):
    root, expects = corpus
    result = ingest([root / name], max_bytes=CAP)
    assert_balanced(result)
    check_case(result, to_pandas(result.timeline), expects[name])
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")  # valid text throughout


def test_corpus_through_cli_ingest(corpus, cli_ingest):
    _root, expects = corpus
    proc, frame = cli_ingest
    assert_exited_normally(proc, codes=(0,))
    assert frame is not None
    kept = lines_by_file(frame)
    for name, expect in expects.items():
        for file, lines in expect.lines.items():
            have = kept.get(f"{name}/{file}", set())
            missing = [line for line in lines if line.strip() and line not in have]
            assert not missing, f"{name}/{file}: {len(missing)} lines lost, e.g. {missing[:3]!r}"
    # problems are printed naming the file
    for name, expect in expects.items():
        for file, _ in expect.problems:
            if "\n" not in file:
                assert f"{name}/{file}" in proc.stdout, f"{name}/{file} not named"


def test_corpus_through_cli_analyze(corpus, cli_analyze):
    _root, expects = corpus
    proc, report = cli_analyze
    assert_exited_normally(proc)
    assert report is not None, proc.stderr[-2000:]
    ing = report["ingest"]
    assert_balanced(ing)
    for name, expect in expects.items():
        for file, pattern in expect.problems:
            assert_named(ing, f"{name}/{file}", pattern)
    # every file that was read is in the per-file account, once
    files = [f["file"] for f in ing["per_file"]]
    assert len(files) == len(set(files))
    for name, expect in expects.items():
        for file in expect.lines:
            assert f"{name}/{file}" in files, f"{name}/{file} not read"


def test_follow_links_reads_links_out_of_the_folder(corpus, tmp_path):
    root, _ = corpus
    out = tmp_path / "r.json"
    proc = tfdiag(
        "analyze", str(root / "symlinks"), "--follow-links", "--json", str(out), cwd=tmp_path
    )
    assert_exited_normally(proc)
    ing = json.loads(out.read_text())["ingest"]
    assert_balanced(ing)
    files = {f["file"] for f in ing["per_file"]}
    assert "out.log" in files  # the link to a file out of the folder, followed on request
    notes = notes_of(ing)
    assert any(f == "self.log" and "looping" in t for f, t in notes)  # loops still reported


def test_gzip_bomb_is_stopped_at_the_cap_with_little_memory(corpus, tmp_path):
    root, _ = corpus
    proc, rss = tfdiag_measured(
        "ingest", str(root / "gzip_bomb"), "-o", str(tmp_path / "t.parquet"), "--max-bytes", str(CAP),
        cwd=tmp_path,
    )  # fmt: skip
    assert_exited_normally(proc, codes=(0,))
    assert f"stopped reading at the cap of {CAP:,} bytes" in proc.stdout
    assert 0 < rss < 1024**3, f"peak memory {rss / 1024**2:.0f} MiB for a cap of {CAP:,} bytes"
    assert sources.DEFAULT_MAX_BYTES == 4 * 1024**3
    assert "--max-bytes" in (ROOT / "README.md").read_text()


def test_lone_surrogate_escapes_keep_their_lines(corpus):
    root, _ = corpus
    result = ingest([root / "lone_surrogates"])
    assert_balanced(result)
    kept = lines_by_file(to_pandas(result.timeline))
    assert "worker-0.log" in kept, result.problems
    rows = (root / "lone_surrogates" / "worker-0.log").read_text().splitlines()
    assert set(rows) <= kept["worker-0.log"]


def test_timestamps_are_kept_as_they_are(corpus):
    root, _ = corpus
    result = ingest([root / "timestamps" / "worker-0.log"])
    df = to_pandas(result.timeline)
    years = {row.ts.year: row.ts_origin for row in df.itertuples() if "clock" in row.message}
    assert years == {1970: "parsed", 2099: "parsed"}


# --------------------------------------------------------------------------------- special setups


def _drop_file_permission_override() -> None:
    """In the child, before exec: root loses the capabilities that bypass file permissions."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _become_nobody() -> None:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def run_unprivileged(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run tfdiag where file permissions hold, even when the tests run as root (CI).

    As root, the child drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from its bounding set
    before exec (so ``chmod 000`` stops it, while the root-owned interpreter stays readable);
    where that is not allowed it becomes ``nobody`` instead.
    """
    if os.geteuid() != 0:
        return tfdiag(*args, cwd=cwd)
    try:
        return tfdiag(*args, cwd=cwd, preexec_fn=_drop_file_permission_override)
    except subprocess.SubprocessError:
        return tfdiag(*args, cwd=cwd, preexec_fn=_become_nobody)


def test_unreadable_files_and_folders_are_named():
    # outside /tmp/pytest-of-root (0700), in a 0755 folder, so that `nobody` could reach it too
    base = Path(tempfile.mkdtemp(prefix="tfdiag-perm-"))
    logs = base / "logs"
    logs.mkdir()
    for p in (base, logs):
        p.chmod(0o755)
    good = text_lines(10, "readable")
    (logs / "worker-0.log").write_bytes(joined(good))
    secret = logs / "ps-0.log"
    secret.write_bytes(joined(["SECRET line"]))
    secret.chmod(0o000)
    locked = logs / "locked"
    locked.mkdir()
    (locked / "worker-1.log").write_bytes(joined(["LOCKED line"]))
    locked.chmod(0o000)
    out = base / "out"
    out.mkdir(mode=0o777)
    out.chmod(0o777)
    try:
        proc = run_unprivileged(
            "analyze", str(logs), "--json", str(out / "r.json"), "--no-color", cwd=out
        )
        assert_exited_normally(proc)
        ing = json.loads((out / "r.json").read_text())["ingest"]
        assert_balanced(ing)
        assert_named(ing, "ps-0.log", "permission denied")
        assert_named(ing, "locked", "permission denied")
        assert [f["file"] for f in ing["per_file"]] == ["worker-0.log"]
        proc = run_unprivileged("ingest", str(logs), "-o", str(out / "t.parquet"), cwd=out)
        assert_exited_normally(proc, codes=(0,))
        assert "ps-0.log" in proc.stdout and "Permission denied" in proc.stdout
        frame = read_parquet(out / "t.parquet")
        assert set(frame["raw"]) == set(good)
    finally:
        secret.chmod(0o644)
        locked.chmod(0o755)
        shutil.rmtree(base)


def test_a_file_that_vanishes_between_discovery_and_read(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "10000")
    import analyzer.ingest as ingest_mod
    from analyzer.cli import main

    logs = tmp_path / "logs"
    logs.mkdir()
    good = text_lines(10, "stays")
    (logs / "worker-0.log").write_bytes(joined(good))
    escaping_zip(logs / "bundle.zip", joined(good))
    real_discover = ingest_mod.discover

    def discover_then_delete(*args, **kw):
        found = real_discover(*args, **kw)
        for p in logs.glob("*"):
            if p.name != "worker-0.log":
                p.unlink()
        (logs / "bundle.zip").write_bytes(b"")  # the bundle is replaced by an empty file
        return found

    for gone in ("ps-0.log", "worker-2.log.gz"):
        (logs / gone).write_bytes(
            gzip.compress(joined(["GONE"])) if gone.endswith(".gz") else b"x\n"
        )
    monkeypatch.setattr(ingest_mod, "discover", discover_then_delete)
    result = ingest([logs])
    assert_balanced(result)
    assert_named(result, "ps-0.log", "no such file")
    assert_named(result, "worker-2.log.gz", "no such file")
    assert_named(result, "bundle.zip!logs/worker-1.log", "cannot read")
    assert set(to_pandas(result.timeline)["raw"]) == set(good)

    for name in ("ps-0.log", "worker-2.log.gz", "bundle.zip"):
        (logs / name).write_bytes(b"x\n")
    escaping_zip(logs / "bundle.zip", joined(good))
    assert main(["ingest", str(logs), "-o", str(tmp_path / "t.parquet")]) == 0
    printed = capsys.readouterr().out
    assert "ps-0.log" in printed and "No such file" in printed


def test_the_same_name_in_two_folders_is_two_files(tmp_path):
    for run in ("run1", "run2"):
        (tmp_path / run).mkdir()
        (tmp_path / run / "worker-0.log").write_bytes(joined(text_lines(5, run)))
    out = tmp_path / "r.json"
    proc = tfdiag("analyze", "run1", "run2", "--json", str(out), cwd=tmp_path)
    assert_exited_normally(proc)
    ing = json.loads(out.read_text())["ingest"]
    assert_balanced(ing)
    assert ing["lines_read"] == 10
    assert len({f["file"] for f in ing["per_file"]}) == 2


@pytest.mark.slow
def test_a_200_mb_line(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    before, after = tf_line(1, "before the tensor dump"), tf_line(3, "after the tensor dump")
    with open(logs / "worker-0.log", "wb") as f:
        f.write(before.encode() + b"\n" + tf_line(2, "tensor: ").encode())
        chunk = b"0123456789" * 100_000
        for _ in range(200):
            f.write(chunk)
        f.write(b"\n" + after.encode() + b"\n")
    proc, rss = tfdiag_measured(
        "ingest", str(logs), "-o", str(tmp_path / "t.parquet"), cwd=tmp_path
    )
    assert_exited_normally(proc, codes=(0,))
    assert "longer than" in proc.stdout
    assert rss < 2 * 1024**3, f"peak memory {rss / 1024**2:.0f} MiB for a 200 MB line"
    frame = read_parquet(tmp_path / "t.parquet")
    assert frame["raw"].iloc[0] == before and frame["raw"].iloc[2] == after
    assert frame["raw"].str.len().iloc[1] <= 1024 * 1024
    proc = tfdiag("analyze", str(logs), "--json", str(tmp_path / "r.json"), cwd=tmp_path)
    assert_exited_normally(proc)
    assert_balanced(json.loads((tmp_path / "r.json").read_text())["ingest"])


def _many_files(root: Path, n: int) -> None:
    for i in range(n):
        d = root / f"host-{i // 500}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"worker-{i}.log").write_bytes(joined([tf_line(i, f"file {i}")]))


def _low_fd_limit(limit: int):
    def set_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    return set_limit


def test_a_bundle_of_2000_members(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    with tarfile.open(logs / "bundle.tar.gz", "w:gz") as tf:
        for i in range(2000):
            _tar_add(tf, f"host-{i // 100}/worker-{i}.log", joined([tf_line(i, f"member {i}")]))
    proc = tfdiag("ingest", str(logs), "-o", str(tmp_path / "t.parquet"), cwd=tmp_path, timeout=300)
    assert_exited_normally(proc, codes=(0,))
    frame = read_parquet(tmp_path / "t.parquet")
    assert len(frame) == 2000 and frame["file"].nunique() == 2000


def test_hundreds_of_files_under_a_low_descriptor_limit(tmp_path):
    _many_files(tmp_path / "logs", 300)
    proc = tfdiag(
        "ingest", str(tmp_path / "logs"), "-o", str(tmp_path / "t.parquet"),
        cwd=tmp_path, preexec_fn=_low_fd_limit(40),
    )  # fmt: skip
    assert_exited_normally(proc, codes=(0,))
    assert len(read_parquet(tmp_path / "t.parquet")) == 300


@pytest.mark.slow
def test_5000_tiny_files_under_a_low_descriptor_limit(tmp_path):
    _many_files(tmp_path / "logs", 5000)
    proc = tfdiag(
        "analyze", str(tmp_path / "logs"), "--json", str(tmp_path / "r.json"),
        cwd=tmp_path, preexec_fn=_low_fd_limit(64), timeout=1800,
    )  # fmt: skip
    assert_exited_normally(proc)
    ing = json.loads((tmp_path / "r.json").read_text())["ingest"]
    assert_balanced(ing)
    assert ing["files"] == 5000 and ing["lines_read"] == 5000
    assert not ing["problems"]


# --------------------------------------------------------------------------------- nothing through


def _snapshot(root: Path) -> dict[str, tuple]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            out[str(p.relative_to(root))] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


def test_nothing_is_written_outside_the_output_paths(tmp_path):
    logs = tmp_path / "a" / "b" / "logs"
    logs.mkdir(parents=True)
    good = text_lines(20, "bundle")
    escaping_tar(logs / "evil.tar", joined(good))
    escaping_zip(logs / "evil.zip", joined(good))
    with tarfile.open(logs / "evil.tar.gz", "w:gz") as tf:
        _tar_add(tf, "../../../escaped.log", joined(["EVIL"]))
        _tar_add(tf, "logs", type=tarfile.SYMTYPE, linkname=str(tmp_path))
        _tar_add(tf, "logs/through-the-link.log", joined(["EVIL through a link"]))
    marker = tmp_path / "pwned"
    (logs / "worker-0.log").write_bytes(
        joined(
            [
                *good[:3],
                f"$(touch {marker}) `touch {marker}` ; touch {marker} | sh",
                f"TF_CONFIG={{'cluster': {{'worker': [__import__('os').system('touch {marker}')]}}}}",
                'TF_CONFIG={"cluster": {"worker": ["{{7*7}}"]}, "x": "<script>x</script>"}',
                f"!!python/object/apply:os.system ['touch {marker}']",
                "Traceback (most recent call last):",
                '  File "<string>", line 1, in <module>',
                f"OSError: exec(compile('open(\"{marker}\",\"w\")', 'x', 'exec'))",
            ]
        )
    )
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    before = _snapshot(tmp_path)
    proc = tfdiag(
        "analyze", str(logs), "--json", str(out / "r.json"), "--html", str(out / "r.html"),
        cwd=cwd,
    )  # fmt: skip
    assert_exited_normally(proc)
    after = _snapshot(tmp_path)
    added = set(after) - set(before)
    assert added == {"out/r.json", "out/r.html"}, added
    changed = {
        k for k in before if k in after and before[k] != after[k] and not k.startswith("out")
    }
    assert changed <= {"out"}, changed
    assert not Path("/tmp/tfdiag-evil-abs.log").exists()
    assert not marker.exists()
    ing = json.loads((out / "r.json").read_text())["ingest"]
    assert_balanced(ing)
    assert_named(ing, "evil.tar.gz!../../../escaped.log", "escapes")
    assert_named(ing, "evil.tar.gz!logs", "link")


def test_json_is_valid_for_any_bytes(tmp_path):
    rnd = random.Random(7)
    logs = tmp_path / "logs"
    logs.mkdir()
    pieces = [
        b"\\ud800", b"\\udfff", b"\\u0000", b"\x00", b"\xff", b"\xed\xa0\x80", b"\xc0\xaf",
        b'"', b"\\", b"\x1b[31m", b"\r", b"{}",
        "\u2028\u2029\ufeff".encode(), b"</script>", b"\x7f", "é".encode("latin-1"),
    ]  # fmt: skip
    for i in range(12):
        rows = []
        for _ in range(200):
            parts = [
                rnd.choice(pieces) if rnd.random() < 0.3 else bytes([rnd.randrange(32, 127)])
                for _ in range(rnd.randrange(1, 80))
            ]
            rows.append(b"".join(parts))
        head = tf_line(i, "error: ").encode() if i % 2 else b""
        (logs / f"worker-{i}.log").write_bytes(b"\n".join(head + r for r in rows) + b"\n")
    (logs / "worker-12.log").write_bytes(rnd.randbytes(4096).replace(b"\x00", b"\x01"))
    docker = [
        json.dumps({"log": "x \\ud800 y\n", "stream": "stderr", "time": "2026-11-22T04:44:01Z"}),
        '{"log":"\\ud800\\udc00\\udbff\\n","stream":"stderr","time":"2026-11-22T04:44:02Z"}',
        '{"log":"\\uDEAD\\n","stream":"stderr","time":"2026-11-22T04:44:03Z"}',
    ]
    (logs / "worker-13.log").write_bytes(joined(docker * 3))
    proc = tfdiag("analyze", str(logs), "--json", "-", cwd=tmp_path)
    assert_exited_normally(proc)
    report = json.loads(proc.stdout)
    assert_balanced(report["ingest"])
    out = tmp_path / "r.json"
    proc = tfdiag("analyze", str(logs), "--json", str(out), "--no-redact", "-q", cwd=tmp_path)
    assert_exited_normally(proc)
    text = out.read_bytes().decode("utf-8")  # strict: valid UTF-8
    assert_balanced(json.loads(text)["ingest"])
