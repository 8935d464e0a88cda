"""Variants of recorded runs: the same real logs as another deployment would have written them.

Every lab run was recorded on one host: one clock, and every task on 127.0.0.1 with a port of its
own. Real clusters differ in ways that must not change a diagnosis, and a variant rewrites a run
so (``tfdiag evaluate tests/corpus/lab --variant NAME``):

``pod-addresses``
    every task address ``127.0.0.1:PORT`` (and ``localhost:PORT``) becomes a pod IP
    ``10.244.X.Y:2222``, one per port and the same in every file, and ``0.0.0.0:PORT`` becomes
    ``0.0.0.0:2222``: on Kubernetes every task listens on the same port of its own address.
``culprit-clock±Ns`` / ``victim-clock±Ns``
    one node's clock is off by N seconds: every timestamp of its files (Python logging and TF
    C++ dates, absl's month-day and epoch-second forms) moves by N. ``culprit`` is the truth's
    first failing node (``worker:0`` in a healthy run); ``victim`` the first other node.
``launcher-NAME``
    every line of a node's files behind the prefix a launcher or log collector that tfdiag has no
    rule for writes (:data:`LAUNCHERS`, each with the source of its format): per file (each
    node's file wrapped alone, as a task runner's log keeps it) or merged (every node's lines in
    one ``all.log``, interleaved by their times, each behind its node's name, as pdsh or stern
    print them). Styles whose files a deployment already wraps (:data:`WRAPPED_STYLES`) are
    copied unchanged. The lines are the recorded ones; only the prefix is made.

The truth does not change. :data:`VARIANTS` says which were looked at while the diagnosis was
changed (``tuned``) and which were only measured.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Variant:
    name: str
    what: str  #: "addresses" or "clock"
    seconds: float = 0.0  #: the clock's offset (clock variants)
    target: str = "culprit"  #: whose clock: "culprit" or "victim"
    tuned: bool = False  #: looked at while the diagnosis was changed
    launcher: str = ""  #: the launcher whose prefix (``what`` "prefix")


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("pod-addresses", "addresses"),
        Variant("culprit-clock+5s", "clock", 5.0, "culprit", tuned=True),
        Variant("culprit-clock+20s", "clock", 20.0, "culprit", tuned=True),
        Variant("culprit-clock+60s", "clock", 60.0, "culprit", tuned=True),
        Variant("culprit-clock-45s", "clock", -45.0, "culprit"),
        Variant("victim-clock+25s", "clock", 25.0, "victim"),
        Variant("victim-clock-8s", "clock", -8.0, "victim"),
    )
}


@dataclass(frozen=True)
class Launcher:
    """A launcher's line prefix: ``prefix(source, index, time)`` is the bytes before a line."""

    name: str
    merged: bool  #: every node's lines in one stream (the source names the node) or per file
    tuned: bool  #: looked at while tfdiag's wrapper detection was written
    where: str  #: where the format comes from
    prefix: Callable[[str, int, dt.datetime], bytes]


LAUNCHERS: dict[str, Launcher] = {
    x.name: x
    for x in (
        # Ray's driver shows each actor's lines behind "(Name pid=N, ip=A)"
        # (ray doc/source/ray-observability/ray-logging.rst; python/ray/_private/worker.py
        # print_worker_logs)
        Launcher(
            "ray",
            False,
            True,
            "ray-project/ray ray-logging.rst: '(MyActor pid=480956) actor log message'",
            lambda src, k, t: b"(TrainWorker pid=%d, ip=10.0.%d.2) " % (41000 + 37 * k, k),
        ),
        # pdsh -w host[0-N] prints every host's lines behind "host: "
        Launcher(
            "pdsh",
            True,
            True,
            "pdsh(1): output lines are prepended with the hostname and a colon",
            lambda src, k, t: src.encode() + b": ",
        ),
        # torchrun --tee 3 (torch.distributed.elastic TailLog): "[<role><rank>]:" before each line
        Launcher(
            "torchelastic",
            True,
            False,
            "pytorch torch/distributed/elastic/multiprocessing: log_line_prefixes '[default0]:'",
            lambda src, k, t: b"[default%d]:" % k,
        ),
        # stern's default template: "{{.PodName}} {{.ContainerName}} {{.Message}}"
        Launcher(
            "stern",
            True,
            False,
            "stern/stern README: default --template '{{.PodName}} {{.ContainerName}} {{.Message}}'",
            lambda src, k, t: src.encode() + b" tensorflow ",
        ),
        # GNU parallel --tag: the argument and a TAB before each line of its job
        Launcher(
            "parallel-tag",
            True,
            False,
            "GNU parallel(1) --tag: prefix each line with the argument and TAB",
            lambda src, k, t: src.encode() + b"\t",
        ),
        # moreutils ts: "%b %d %H:%M:%S " before each line
        Launcher(
            "ts",
            False,
            False,
            "moreutils ts(1): default format '%b %d %H:%M:%S'",
            lambda src, k, t: t.strftime("%b %d %H:%M:%S ").encode(),
        ),
        # Airflow's task log of a BashOperator: SubprocessHook logs each output line at INFO
        Launcher(
            "airflow",
            False,
            False,
            "apache/airflow SubprocessHook: self.log.info('%s', line) under "
            "'[%(asctime)s] {%(filename)s:%(lineno)d} %(levelname)s - %(message)s'",
            lambda src, k, t: t.strftime(
                "[%Y-%m-%d, %H:%M:%S UTC] {subprocess.py:93} INFO - "
            ).encode(),
        ),
        # Jenkins' Timestamper plugin in a pipeline's console: "[ISO time] " before each line
        Launcher(
            "jenkins",
            False,
            False,
            "jenkinsci/timestamper-plugin: '[2024-11-24T17:06:15.123Z] ' in pipeline console text",
            lambda src, k, t: b"[" + t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3].encode() + b"Z] ",
        ),
    )
}
for _l in LAUNCHERS.values():
    VARIANTS[f"launcher-{_l.name}"] = Variant(
        f"launcher-{_l.name}", "prefix", tuned=_l.tuned, launcher=_l.name
    )

#: styles whose node files a deployment already wraps (CRI, json-file, journal, srun --label,
#: mpirun --tag-output, Ray's driver, honcho's Procfile stream, GNU parallel, pdsh, runit's svlogd
#: stamps)
WRAPPED_STYLES = frozenset(
    {
        "tfjob_k8s",
        "mwms_compose",
        "pss_systemd",
        "mwms_slurm",
        "mwms_mpi",
        "mwms_ray",
        "mwms_honcho",
        "pss_parallel",
        "mwms_pdsh",
        "mwms_runit",
    }
)

_LOOPBACK = re.compile(rb"(?<![\d.])(?:127\.0\.0\.1|localhost):(\d{2,5})(?!\d)")
_ANY = re.compile(rb"(?<![\d.])0\.0\.0\.0:(\d{2,5})(?!\d)")
_ISO = re.compile(rb"(\d{4}-\d\d-\d\d)([ T])(\d\d:\d\d:\d\d)([,.])(\d{1,9})")
_EPOCH = re.compile(rb"(?m)^([IWEF])0000 00:00:(\d{10})\.(\d{6})")
_ABSL = re.compile(rb"(?m)^([IWEF])(\d\d)(\d\d) (\d\d:\d\d:\d\d)\.(\d{6})")


def _pod_addresses() -> Callable[[bytes], bytes]:
    ports: dict[bytes, bytes] = {}

    def pod(m: re.Match) -> bytes:
        port = m.group(1)
        if port not in ports:
            k = len(ports)
            ports[port] = b"10.244.%d.%d:2222" % (k // 200 + 1, k % 200 + 2)
        return ports[port]

    return lambda data: _ANY.sub(b"0.0.0.0:2222", _LOOPBACK.sub(pod, data))


def _clock(seconds: float, year: int) -> Callable[[bytes], bytes]:
    shift = dt.timedelta(seconds=seconds)

    def iso(m: re.Match) -> bytes:
        frac = m.group(5).decode()
        t = dt.datetime.fromisoformat(
            f"{m.group(1).decode()} {m.group(3).decode()}.{frac.ljust(6, '0')[:6]}"
        )
        t += shift
        digits = (t.strftime("%f") + "000")[: len(frac)]
        return (
            t.strftime("%Y-%m-%d").encode()
            + m.group(2)
            + t.strftime("%H:%M:%S").encode()
            + m.group(4)
            + digits.encode()
        )

    def epoch(m: re.Match) -> bytes:
        micros = int(m.group(2)) * 1_000_000 + int(m.group(3)) + round(seconds * 1e6)
        return b"%s0000 00:00:%d.%06d" % (m.group(1), micros // 1_000_000, micros % 1_000_000)

    def absl(m: re.Match) -> bytes:
        h, mi, s = (int(x) for x in m.group(4).split(b":"))
        t = dt.datetime(year, int(m.group(2)), int(m.group(3)), h, mi, s, int(m.group(5)))
        return m.group(1) + (t + shift).strftime("%m%d %H:%M:%S.%f").encode()

    return lambda data: _ABSL.sub(absl, _EPOCH.sub(epoch, _ISO.sub(iso, data)))


_LINE_ISO = re.compile(rb"^\[?(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:[.,](\d{1,6}))?")
_LINE_EPOCH = re.compile(rb"^[IWEF]0000 00:00:(\d{10})\.(\d{6})")
_LINE_ABSL = re.compile(rb"^[IWEF](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6})")


def _line_time(line: bytes, year: int) -> dt.datetime | None:
    """The time a recorded line says (naive, as written), if it has one."""
    if m := _LINE_ISO.match(line):
        frac = (m.group(3) or b"0").decode().ljust(6, "0")
        try:
            return dt.datetime.fromisoformat(f"{m.group(1).decode()} {m.group(2).decode()}.{frac}")
        except ValueError:
            return None
    if m := _LINE_EPOCH.match(line):
        t = dt.datetime.fromtimestamp(int(m.group(1)), dt.UTC).replace(tzinfo=None)
        return t.replace(microsecond=int(m.group(2)))
    if m := _LINE_ABSL.match(line):
        try:
            return dt.datetime(year, *(int(g) for g in m.groups()))
        except ValueError:
            return None
    return None


def _timed_lines(data: bytes, year: int, start: dt.datetime) -> list[tuple[dt.datetime, bytes]]:
    """Each line with the time it was written at: its own, else the latest one before it."""
    out = []
    last = None
    for line in data.splitlines():
        t = _line_time(line, year)
        if t is not None and (last is None or t >= last):
            last = t
        out.append((last, line))
    first = next((t for t, _ in out if t is not None), start)
    return [(t or first, line) for t, line in out]


def _source_name(files: list[str], shared: set[str] = frozenset()) -> str:
    """A node's name as its launcher shows it: the host folder its files are in (unless every
    node's files are in it: a run's ``logs/``), else its first file's name without its log
    extension, rotation number or compression."""
    first = Path(files[0])
    if len(first.parts) > 1 and first.parts[0] not in shared:
        return first.parts[0]
    name = re.sub(r"\.gz$", "", first.name)
    return re.sub(r"\.(log|out|err|stderr|stdout|txt)(\.\d+)?$", "", name) or name


def _rotation(name: str) -> int:
    m = re.search(r"\.(\d+)(?:\.gz)?$", name)
    return int(m.group(1)) if m else 0


def _write_prefixed(run: Path, out: Path, truth: dict, launcher: Launcher) -> set[str]:
    """Write the node files of ``run`` behind ``launcher``'s prefix; the files written."""
    year = int(str(truth.get("fault_time_utc") or "2026")[:4])
    start = dt.datetime.fromisoformat(
        str(truth.get("run_started_utc") or f"{year}-01-01T00:00:00").rstrip("Z")
    )
    nodes = {
        n: [f for f in fs if (run / f).is_file()]
        for n, fs in (truth.get("node_files") or {}).items()
    }
    nodes = {n: fs for n, fs in nodes.items() if fs}
    done: set[str] = set()
    merged: list[tuple[dt.datetime, int, int, bytes]] = []
    names: set[str] = set()
    folders = [Path(fs[0]).parts[0] for fs in nodes.values() if len(Path(fs[0]).parts) > 1]
    shared = {f for f in folders if len(nodes) > 1 and folders.count(f) == len(nodes)}
    for k, (_node, files) in enumerate(sorted(nodes.items())):
        source = _source_name(files, shared)
        source = source if source not in names else f"{source}-{k}"  # as a launcher keeps apart
        names.add(source)
        timed: list[tuple[dt.datetime, bytes]] = []
        # a node's files in the order they were written (the most rotated first)
        parts = [
            (rel, _timed_lines(_read(run / rel), year, start))
            for rel in sorted(files, key=lambda f: (-_rotation(f), f))
        ]
        for rel, lines in parts:
            if launcher.merged:
                timed += lines
            else:
                body = b"".join(launcher.prefix(source, k, t) + line + b"\n" for t, line in lines)
                _write(out / rel, body)
            done.add(rel)
        if launcher.merged:
            level = None
            for i, (t, line) in enumerate(timed):  # one node's times never go back in the stream
                level = t if level is None or t > level else level
                merged.append((level, k, i, launcher.prefix(source, k, level) + line + b"\n"))
    if launcher.merged and merged:
        merged.sort(key=lambda m: (m[0], m[1], m[2]))
        _write(out / "all.log", b"".join(m[3] for m in merged))
    return done


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)


def write_run(run: Path, out: Path, variant: Variant) -> None:
    """``run`` (a folder with a truth.json) rewritten as ``variant`` into ``out``."""
    truth = json.loads((run / "truth.json").read_text())
    files = sorted(p for p in run.rglob("*") if p.is_file())
    if variant.what == "prefix":
        done = set()
        if truth.get("style") not in WRAPPED_STYLES:
            done = _write_prefixed(run, out, truth, LAUNCHERS[variant.launcher])
        for path in files:
            rel = path.relative_to(run).as_posix()
            if rel not in done:
                (out / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, out / rel)
        return
    if variant.what == "addresses":
        rewrite = _pod_addresses()
        chosen = {p.relative_to(run).as_posix() for p in files}
    else:
        culprit = truth.get("first_failing_node") or "worker:0"
        nodes = truth.get("node_files") or {}
        others = sorted(n for n in nodes if n != culprit)
        whose = culprit if variant.target == "culprit" else (others[0] if others else culprit)
        chosen = set(nodes.get(whose, []))
        year = int(str(truth.get("fault_time_utc") or "2026")[:4])
        rewrite = _clock(variant.seconds, year)
    for path in files:
        rel = path.relative_to(run).as_posix()
        target = out / rel
        if rel in chosen and path.name != "truth.json":
            _write(target, rewrite(_read(path)))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def write_variant(runs: list[Path], root: Path, out: Path, variant: Variant) -> list[Path]:
    """Each of ``runs`` (under ``root``) rewritten under ``out``; the copies' folders."""
    copies = []
    for run in runs:
        target = out / run.relative_to(root)
        write_run(run, target, variant)
        copies.append(target)
    protocol = root / "protocol.json"
    if protocol.is_file():
        shutil.copyfile(protocol, out / "protocol.json")
    return copies
