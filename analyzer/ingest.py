"""Run stages 1–4: paths → sources → parsed events → nodes → one sorted timeline.

Accounting holds for every file: ``lines_read == lines_in_timeline + lines_rejected``
(a traceback of ten lines is one event and ten lines in the timeline).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from analyzer.rules import RuleSet

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analyzer.engine import run_all
from analyzer.formats import Keep
from analyzer.identity import (
    HEX_ID,
    ContentFacts,
    NameHint,
    facts_from_content,
    hint_from_name,
    task_for_address,
)
from analyzer.parse import FINDING_COLUMNS, Parsed, Work, exc_text
from analyzer.sources import (
    DEFAULT_MAX_BYTES,
    Problem,
    discover,
)
from analyzer.timeline import (
    SCHEMA,
    empty_table,
    resolve_times,
    resolve_times_of,
    sort_timeline,
    write_parquet_batches,
)


@dataclass
class FileReport:
    """How one source was read: its node, line accounting, formats and problems."""

    file: str
    node: str
    lines_read: int = 0
    lines_in_timeline: int = 0
    events: int = 0  #: events kept in the timeline (a traceback is one event of many lines)
    rejected: dict[str, int] = field(default_factory=dict)
    formats: dict[str, int] = field(default_factory=dict)
    wrapper: str | None = None
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def lines_rejected(self) -> int:
        """Lines read but not in the timeline (each with a reason in ``rejected``)."""
        return sum(self.rejected.values())


@dataclass
class NodeInfo:
    """One task of the cluster as the ingest found it."""

    node: str
    job: str | None
    task_index: int | None
    host: str | None = None
    files: list[str] = field(default_factory=list)
    identity: str = "name"  #: how the id was found: ``content``, ``name``, ``address``, ``stem``, ``cluster spec``
    tf_config: dict | None = None
    cluster: dict[str, list[str]] | None = None
    address: str | None = None
    lines: int = 0
    #: two or more different logs whose contents say they are this task and whose file names
    #: do not tell them apart (two tasks given one index): the first file of each
    twins: list[str] = field(default_factory=list)
    #: its rank as its launcher set it (``SLURM_PROCID``, ``OMPI_COMM_WORLD_RANK``, a PMI rank,
    #: the rank of mpirun's tag or srun's label, Open MPI's ``rank.N`` output folder), if known
    rank: int | None = None
    #: the names a launcher gave its process, as the named source of a stream it copied
    #: (honcho's ``worker.2``, a pod's name): its own lines name it so (``sending SIGTERM to
    #: worker.2``), and the name need not say its task index (honcho counts from 1)
    aliases: list[str] = field(default_factory=list)
    #: the task whose own log this launcher's copy repeats (honcho's output beside each
    #: process's teed log, Ray's driver output beside its workers' logs), if it is one
    copy_of: str | None = None

    @property
    def missing(self) -> bool:
        """True for a task named by a cluster spec that left no log at all."""
        return not self.files


@dataclass
class Ingest:
    """Everything the ingest produced: the timeline and the account of how it was built."""

    timeline: pa.Table
    files: list[FileReport]
    nodes: dict[str, NodeInfo]
    problems: list[Problem]
    skipped: list[Problem]
    events_written: int | None = None  #: rows streamed to Parquet (``ingest(output=...)``)

    @property
    def lines_read(self) -> int:
        return sum(f.lines_read for f in self.files)

    @property
    def lines_in_timeline(self) -> int:
        return sum(f.lines_in_timeline for f in self.files)

    @property
    def lines_rejected(self) -> int:
        return sum(f.lines_rejected for f in self.files)

    def formats(self) -> dict[str, int]:
        """Events per line format, over all files."""
        total: dict[str, int] = defaultdict(int)
        for f in self.files:
            for name, count in f.formats.items():
                total[name] += count
        return dict(total)

    def to_dict(self) -> dict[str, Any]:
        """The ``ingest`` object of the JSON contract."""
        rejected: dict[str, int] = defaultdict(int)
        for f in self.files:
            for reason, count in f.rejected.items():
                rejected[reason] += count
        return {
            "files": len(self.files),
            "lines_read": self.lines_read,
            "lines_in_timeline": self.lines_in_timeline,
            "lines_rejected": self.lines_rejected,
            "rejected_reasons": dict(rejected),
            "formats": self.formats(),
            "problems": [{"file": p.file, "problem": p.problem} for p in self.problems],
            "skipped": [{"file": p.file, "reason": p.problem} for p in self.skipped],
            "per_file": [
                {
                    "file": f.file,
                    "node": f.node,
                    "lines_read": f.lines_read,
                    "lines_in_timeline": f.lines_in_timeline,
                    "lines_rejected": f.lines_rejected,
                    "formats": f.formats,
                    **({"wrapper": f.wrapper} if f.wrapper else {}),
                    **({"assumed": f.notes} if f.notes else {}),
                }
                for f in self.files
            ],
        }


@dataclass
class _Stream:
    """The events of one node from one source (a multi-rank file gives several streams)."""

    parsed: Parsed
    data: pa.Table | None  #: its events; None while they are spilled (:meth:`spill_to`)
    hint: NameHint
    facts: ContentFacts
    whole_file: bool = True
    node: str | None = None
    identity: str = "name"
    rows: int = 0
    spilled: Path | None = None
    #: (name, task): a launcher's name of the process whose lines these are (the named source
    #: it was parted by) and the task its contents say they are (also of a launcher's copy)
    alias: tuple[str, str] | None = None
    copy_of: str | None = None  #: the task whose own log these lines repeat (a launcher's copy)

    def __post_init__(self) -> None:
        self.rows = self.data.num_rows if self.data is not None else 0

    @property
    def table(self) -> pa.Table:
        """Its events (read back from the spill file when spilled)."""
        if self.data is None:
            with pa.OSFile(str(self.spilled), "rb") as f:
                self.data = pa.ipc.open_file(f).read_all()
        return self.data

    def spill_to(self, path: Path) -> None:
        """Write the events to an Arrow file at ``path`` and let go of them."""
        assert self.data is not None
        options = pa.ipc.IpcWriteOptions(compression="lz4")
        with (
            pa.OSFile(str(path), "wb") as f,
            pa.ipc.new_file(f, self.data.schema, options=options) as w,
        ):
            w.write_table(self.data)
        self.spilled, self.data = path, None

    def release(self) -> None:
        """Let go of the events of a spilled stream (they are read again when needed)."""
        if self.spilled is not None:
            self.data = None


#: A line of a paste's decoration, no word in it: a Markdown fence, a ruler, a lone bracket
_DECORATION = r"^[^\p{L}\p{N}]*$"


def _split_by_rank(p: Parsed) -> list[tuple[pa.Table, str | None]]:
    """A file's events parted by the rank a launcher's prefix gave each line; the lines with
    no rank are the file's own stream, unless they are only a paste's decoration (a Markdown
    fence around mpirun's tagged lines): those belong to the rank of the lines around them."""
    table = p.parsed.table  # type: ignore[union-attr]
    ranks = pc.unique(table["rank"]).drop_null().to_pylist()
    if not ranks:
        return [(table, None)]
    unranked = pc.is_null(table["rank"])
    if (
        pc.any(unranked).as_py()
        and pc.all(pc.match_substring_regex(table["message"].filter(unranked), _DECORATION)).as_py()
    ):
        rank = pc.fill_null_backward(pc.fill_null_forward(table["rank"].combine_chunks()))
        table = table.set_column(table.schema.get_field_index("rank"), "rank", rank)
    out = []
    for rank in sorted(ranks, key=lambda r: (len(r.lstrip("0")), r)):
        out.append((table.filter(pc.fill_null(pc.equal(table["rank"], rank), False)), rank))
    rest = table.filter(pc.is_null(table["rank"]))
    if rest.num_rows:
        out.insert(0, (rest, None))
    return out


#: Files that hold one stream of a process whose other streams sit in the same folder (Open
#: MPI's rank.N/stdout and rank.N/stderr, a batch system's per-job folder): one log's pieces
_STREAM_FILES = {name: "(one process's streams)" for name in ("stdout", "stderr", "stddiag")}
#: A process's id in a log file's name (a launcher's id of one worker process: Ray's WorkerID)
_PROCESS_ID_RE = re.compile(rf"(?<![0-9a-f]){HEX_ID}(?![0-9a-f])", re.I)
#: ... and its pid after it (Ray's worker-<WorkerID>-<JobID>-<pid>.out, python-core-worker-
#: <WorkerID>_<pid>.log), or in the prefix a launcher copies its lines behind (``pid=<pid>``)
_PID_AFTER_ID_RE = re.compile(rf"{HEX_ID}(?:-[0-9a-f]{{8}})?[-_](\d{{1,7}})(?:\.\w+)*$", re.I)
_PID_IN_SOURCE_RE = re.compile(r"\bpid=(\d{1,7})\b")


def _process_keys(s: _Stream) -> list[str]:
    """What names the process a stream is from, beyond its file: the ids and pid its file
    name carries after a launcher's id, or the pid of the named source it was parted by."""
    name = PurePosixPath(s.parsed.source.name).name
    keys = [m[0].lower() for m in _PROCESS_ID_RE.finditer(name)]
    if m := _PID_AFTER_ID_RE.search(name):
        keys.append(f"pid {m[1]}")
    if not s.whole_file and (m := _PID_IN_SOURCE_RE.search(s.hint.stem)):
        keys.append(f"pid {m[1]}")
    return keys


#: Open MPI's ``mpirun --output-filename DIR``: each rank's output in DIR/<job>/rank.<N>/
_RANK_FOLDER_RE = re.compile(r"rank\.(\d{1,6})")


def _launcher_rank(p: Parsed, rank: str | None) -> int | None:
    """The rank a launcher gave the task of this stream, as its own lines will name it: the
    rank of mpirun's tag or srun's label the stream was parted by, or Open MPI's per-rank
    output folder."""
    wrapper = (p.parsed.wrapper or "").rpartition("+")[2] if p.parsed else ""
    if rank is not None and rank.isdigit() and wrapper in ("mpirun", "slurm"):
        return int(rank)
    for name in p.source.parent_names:
        if m := _RANK_FOLDER_RE.fullmatch(name):
            return int(m[1])
    return None


def _decide_nodes(streams: list[_Stream], problems: list[Problem]) -> dict[str, list[str]]:
    """Give each stream its node; returns the twins :func:`_separate_twins` could not part."""
    clusters = [s.facts.cluster for s in streams if s.facts.cluster]
    by_piece: dict[tuple, list[_Stream]] = defaultdict(list)
    for s in streams:
        stem = _STREAM_FILES.get(s.hint.stem.lower(), s.hint.stem)
        by_piece[(s.parsed.source.parent_names, s.parsed.source.path.parent, stem)].append(s)
    for s in streams:
        if s.facts.node:
            s.node, s.identity = s.facts.node, "content"
        elif s.facts.address and (task := task_for_address(s.facts.address, clusters)):
            s.node, s.identity = f"{task[0]}:{task[1]}", "address"
    # rotated pieces of one log share the node their contents tell; so do the logs a launcher
    # names by one process's id (Ray's worker-<WorkerID>-<JobID>-<pid>.out and .err and
    # python-core-worker-<WorkerID>_<pid>.log: the TensorFlow task speaks in one of them)
    by_process: dict[str, list[_Stream]] = defaultdict(list)
    for s in streams:
        for key in _process_keys(s):
            by_process[key].append(s)
    for _ in range(2):  # (an id joins two logs, a pid a third)
        for pieces in [*by_piece.values(), *by_process.values()]:
            told = {s.node for s in pieces if s.node}
            if len(told) == 1:
                for s in pieces:
                    if not s.node:
                        s.node, s.identity = next(iter(told)), "content"
    # a task's lines in a log of its own and again in a launcher's copy of every task's output
    # (Ray's driver output beside its session's worker logs, a tagged mpirun or kubectl stream
    # beside per-task files): the copy is the launcher's, a job-level log, not a second log
    # of the task
    own = {s.node for s in streams if s.node and s.whole_file}
    for s in streams:
        if s.node and not s.whole_file and s.hint.stem != s.parsed.source.logical_name:
            s.alias = (s.hint.stem, s.node)  # (a copy's name is still the task's)
        if s.node in own and not s.whole_file and s.hint.stem != s.parsed.source.logical_name:
            stem = PurePosixPath(s.parsed.source.name).with_suffix("").as_posix()
            s.copy_of = s.node
            s.node, s.identity = f"{stem}/{s.hint.stem}", "stem"
            s.facts = ContentFacts()  # (the task's own log tells its spec and address)
    twins = _separate_twins(streams, by_piece, problems)
    for s in streams:
        by_name = s.hint.node
        if s.node and by_name and s.node != by_name:
            problems.append(
                Problem(
                    s.parsed.source.name,
                    f"file name says {by_name} but its contents say {s.node} "
                    f"({s.facts.evidence or 'server address'}); using {s.node}",
                )
            )
        if not s.node and by_name:
            s.node, s.identity = by_name, "name"
        if not s.node:
            stem = PurePosixPath(s.parsed.source.name).with_suffix("").as_posix()
            if not s.whole_file and s.hint.stem != s.parsed.source.logical_name:
                stem = f"{stem}/{s.hint.stem}"  # one named source of a stream of several
            # a colon is for ``job:index``: a file stem never looks like one (``x:²``, ``host:22``)
            s.node, s.identity = stem.replace("!", "/").replace(":", "_"), "stem"
    return twins


def _separate_twins(
    streams: list[_Stream], by_piece: dict[tuple, list[_Stream]], problems: list[Problem]
) -> dict[str, list[str]]:
    """Two different logs whose contents claim one task: two tasks were given one task index.

    A log among them whose file name names another task no log claims is read as that task
    (its TF_CONFIG then disagrees with it, which the diagnosis reports); said as a problem.
    Returns, per task, the first file of each log that still claims it where two or more do
    (no file name told them apart: ``host-a/worker.out`` and ``host-b/worker.out``).
    """
    logs_of: dict[str, list[tuple]] = defaultdict(list)
    for key, pieces in by_piece.items():
        for node in {s.node for s in pieces if s.node and s.identity == "content"}:
            logs_of[node].append(key)
    claimed = {s.node for s in streams if s.node}
    for node, keys in logs_of.items():
        if len(keys) < 2:
            continue
        for key in keys:
            pieces = by_piece[key]
            by_name = pieces[0].hint.node
            if not by_name or by_name == node or by_name in claimed:
                continue
            claimed.add(by_name)
            for s in pieces:
                s.node, s.identity = by_name, "name"
            problems.append(
                Problem(
                    pieces[0].parsed.source.name,
                    f"its contents say it is {node}, as another log's do; its file name says "
                    f"{by_name}: read as {by_name} (two tasks were given one task index?)",
                )
            )
    twins: dict[str, list[str]] = {}
    for node, keys in logs_of.items():
        left = sorted(
            min(s.parsed.source.name for s in by_piece[key])
            for key in keys
            if any(s.node == node for s in by_piece[key])
        )
        if len(left) >= 2:
            twins[node] = left
    return twins


#: Events per batch of a streamed ingest (``ingest(output=...)``).
BATCH_ROWS = 250_000
#: A streamed ingest gives each task of the engine at most this many bytes of logs.
SPILL_BATCH_BYTES = 16 * 1024 * 1024


def ingest(
    paths: Iterable[str | os.PathLike[str]],
    *,
    tz: str | None = None,
    node_tz: dict[str, str] | None = None,
    year: int | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    follow_links: bool = False,
    keep: Keep | None = None,
    rules: RuleSet | None = None,
    regex_timeout: float = 0.5,
    engine: str = "local",
    scheduler: str | None = None,
    workers: int | None = None,
    progress: Any = None,
    output: str | os.PathLike[str] | None = None,
    batch_rows: int = BATCH_ROWS,
) -> Ingest:
    """Read every log under ``paths`` into one timeline.

    With ``rules``, every event is classified where it is parsed (the finding columns of
    :data:`analyzer.timeline.SCHEMA`); ``engine`` and ``scheduler`` say where that work runs
    (:mod:`analyzer.engine`). ``keep`` makes a condensed timeline (see :class:`Keep`).
    ``tz`` is the zone of timestamps that carry none (default UTC), ``node_tz`` overrides it
    per node (``{"worker:1": "Asia/Tokyo"}``), ``year`` is used for year-less absl times when
    a file has no dated line. ``progress`` is an optional callable ``(done, total, name)``.
    Raises :class:`analyzer.sources.UsageError` for a path that does not exist.

    With ``output`` (a Parquet file, or a folder for a dataset partitioned by job) the timeline
    is streamed there instead of held (the result's ``timeline`` is then empty and
    ``events_written`` says how many rows went out). Each parsed file's events are spilled to
    a temporary Arrow file as they arrive; once every node is known they are resolved and
    written in batches of about ``batch_rows`` events, each sorted by time (the batches are in
    node order; :func:`analyzer.timeline.read_parquet` sorts the whole). Memory then grows with
    the largest file and the batch, not with the input.
    """
    work = Work(max_bytes=max_bytes, keep=keep, rules=rules, regex_timeout=regex_timeout)
    where = {"follow_links": follow_links, "engine": engine, "scheduler": scheduler}
    where |= {"workers": workers, "progress": progress}
    if output is None:
        plan = _Plan.read(paths, work, **where)
        tables = list(plan.rows(tz, node_tz or {}, year))
        return plan.result(sort_timeline(pa.concat_tables(tables)) if tables else empty_table())
    with tempfile.TemporaryDirectory(prefix="tfdiag-spill-") as spill:
        work = replace(work, batch_bytes=SPILL_BATCH_BYTES)
        plan = _Plan.read(paths, work, **where, spill=Path(spill))
        rows = plan.rows(tz, node_tz or {}, year, batch_rows=batch_rows)
        written = write_parquet_batches((sort_timeline(t) for t in rows), output)
        result = plan.result(empty_table())
        result.events_written = written
        return result


@dataclass
class _Plan:
    """The sources read, parsed and assigned to nodes; their rows not yet built."""

    streams: list[_Stream]  #: in timeline order: by node, oldest rotation first
    infos: list[NodeInfo]  #: the node of each stream
    nodes: dict[str, NodeInfo]
    problems: list[Problem]
    skipped: list[Problem]
    files: dict[str, FileReport] = field(default_factory=dict)

    @classmethod
    def read(
        cls,
        paths: Iterable[str | os.PathLike[str]],
        work: Work,
        *,
        follow_links: bool,
        engine: str,
        scheduler: str | None,
        workers: int | None,
        progress: Any,
        spill: Path | None = None,
    ) -> _Plan:
        """Discover, parse (on ``engine``) and decide each stream's node. With ``spill``, each
        stream's events go to an Arrow file in that folder as soon as they arrive."""
        found = discover(paths, follow_links=follow_links)
        problems = list(found.problems)
        skipped = list(found.skipped)
        streams: list[_Stream] = []
        results = run_all(
            found.sources,
            work,
            engine=engine,
            workers=workers,
            scheduler=scheduler,
            progress=progress,
        )
        for p in results:
            problems.extend(Problem(p.source.name, msg) for msg in p.problems)
            if p.skipped:
                skipped.append(Problem(p.source.name, p.skipped))
                continue
            if p.error:
                problems.append(Problem(p.source.name, p.error))
                continue
            assert p.parsed is not None
            hint = hint_from_name(p.source.logical_name, p.source.parent_names)
            pieces = _split_by_rank(p)
            for table, rank in pieces:
                if rank is not None and _task_index(rank) is not None:
                    hint = NameHint(
                        hint.job or "worker", _task_index(rank), hint.stem, hint.rotation
                    )
                elif rank is not None:  # a named source (a pod): its name tells the task
                    named = hint_from_name(rank)
                    hint = NameHint(named.job, named.index, named.stem, hint.rotation)
                facts = _facts(table["message"], p.source.name, problems)
                if facts.rank is None:
                    facts.rank = _launcher_rank(p, rank)
                stream = _Stream(p, table, hint, facts, whole_file=len(pieces) == 1)
                if spill is not None:
                    stream.spill_to(spill / f"{len(streams)}.arrow")
                streams.append(stream)
            if spill is not None:
                p.parsed.table = None  # type: ignore[assignment]  # its pieces are spilled
        twins = _decide_nodes(streams, problems)

        nodes: dict[str, NodeInfo] = {}
        ordered = sorted(streams, key=lambda s: (s.node, -s.hint.rotation, s.parsed.source.name))
        infos: list[NodeInfo] = []
        for s in ordered:
            src = s.parsed.source
            job, _, index = s.node.partition(":")  # type: ignore[union-attr]
            info = nodes.get(s.node)  # type: ignore[arg-type]
            if info is None:
                task_index = _task_index(index)
                info = nodes[s.node] = NodeInfo(  # type: ignore[index]
                    s.node,  # type: ignore[arg-type]
                    job if task_index is not None else None,
                    task_index,
                    identity=s.identity,
                )
            infos.append(info)
            if src.name not in info.files:
                info.files.append(src.name)
            info.tf_config = info.tf_config or s.facts.tf_config
            info.cluster = info.cluster or s.facts.cluster
            info.address = info.address or s.facts.address
            info.rank = info.rank if info.rank is not None else s.facts.rank
            if s.identity == "content":
                info.identity = "content"
            info.copy_of = info.copy_of or s.copy_of
            info.twins = twins.get(info.node, [])
        for s in ordered:
            if s.alias and s.alias[1] in nodes and s.alias[0] not in nodes[s.alias[1]].aliases:
                nodes[s.alias[1]].aliases.append(s.alias[0])
        return cls(ordered, infos, nodes, problems, skipped)

    def rows(
        self, tz: str | None, node_tz: dict[str, str], year: int | None, batch_rows: int = 0
    ) -> Iterator[pa.Table]:
        """The timeline rows of every stream, in stream order, in tables of about
        ``batch_rows`` rows (0: one table), each not yet sorted. Times are resolved and the
        files' accounts completed as the streams are reached."""
        carry: dict[str, int] = {}  #: node → the last time of its previous piece (ns)
        start = 0
        while start < len(self.streams):
            end, size = start, 0
            while end < len(self.streams) and (
                not batch_rows or end == start or size + self.streams[end].rows <= batch_rows
            ):
                size += self.streams[end].rows
                end += 1
            streams, infos = self.streams[start:end], self.infos[start:end]
            times = _times(streams, tz, node_tz, year, self.problems)
            for k, s in enumerate(streams):
                times[k] = self._account(s, infos[k], times[k], carry, year)
            self.problems.extend(_anomalies(streams, times))
            yield _timeline_rows(streams, infos, times)
            for s in streams:
                s.release()
            start = end

    def _account(self, s: _Stream, info: NodeInfo, times: tuple, carry: dict, year):
        src = s.parsed.source
        ts, origin, notes, last = times
        if ts.null_count and carry.get(s.node) is not None:
            # lines before a piece's first timed line follow the node's previous piece (an
            # older rotation, read first): a rotated log of untimed lines keeps its order
            origin = pc.if_else(pc.is_null(ts), "inherited", origin)
            ts = pc.fill_null(ts, pa.scalar(carry[s.node], pa.timestamp("ns", tz="UTC")))
        if last is not None:
            carry[s.node] = last  # type: ignore[index]
        if year and "year" in notes:
            notes["year"] = notes["year"].replace("the file's date or --year", "--year")
        parsed_lines = s.parsed.parsed
        assert parsed_lines is not None
        report = self.files.get(src.name)
        if report is None:
            report = self.files[src.name] = FileReport(
                src.name,
                s.node,  # type: ignore[arg-type]
                lines_read=parsed_lines.lines_read,
                rejected=dict(parsed_lines.rejected),
                wrapper=parsed_lines.wrapper,
            )
        table = s.table
        if s.whole_file:
            lines = parsed_lines.lines_in_timeline
        else:  # one rank of a multi-rank file: its events' lines
            spans = pc.add(pc.subtract(table["line_end"], table["line_no"]), 1)
            lines = int(pc.sum(spans).as_py() or 0)
        report.lines_in_timeline = parsed_lines.lines_in_timeline
        info.lines += lines
        report.events += table.num_rows
        if s.whole_file:
            for name, n in parsed_lines.formats.items():
                report.formats[name] = report.formats.get(name, 0) + n
        else:
            for f in pc.value_counts(table["format"]).to_pylist():
                report.formats[f["values"]] = report.formats.get(f["values"], 0) + f["counts"]
        report.notes.update(notes)
        return ts, origin, notes, last

    def result(self, timeline: pa.Table) -> Ingest:
        _add_missing_nodes(self.nodes)
        for info in self.nodes.values():
            info.host = info.host or _host_of(info)
        return Ingest(timeline, list(self.files.values()), self.nodes, self.problems, self.skipped)


def _timeline_rows(streams: list[_Stream], infos: list[NodeInfo], times: list) -> pa.Table:
    """The timeline rows of all streams, in their order (one table, built column-wise)."""
    t = pa.concat_tables([s.table for s in streams], promote_options="default")
    n = t.num_rows
    counts = np.array([s.table.num_rows for s in streams], dtype=np.int64)
    owner = pa.array(np.repeat(np.arange(len(streams)), counts))

    def per_stream(values: list, type_: pa.DataType) -> pa.Array:
        return pa.array(values, type_).take(owner)

    level = t["level"]
    # an uncaught Python exception and a stack trace are errors even without a level
    level = pc.if_else(
        pc.and_(
            pc.is_null(level),
            pc.is_in(
                t["format"], pa.array(["python_traceback", "cpp_stacktrace"], pa.large_string())
            ),
        ),
        pa.scalar("ERROR", pa.large_string()),
        level,
    )
    columns = {
        "ts": pa.chunked_array([x[0] for x in times], pa.timestamp("ns", tz="UTC")),
        "ts_origin": pa.chunked_array([x[1] for x in times], pa.large_string()),
        "node": per_stream([i.node for i in infos], pa.large_string()),
        "job": per_stream([i.job for i in infos], pa.large_string()),
        "task_index": per_stream([i.task_index for i in infos], pa.int32()),
        "host": pa.nulls(n, pa.large_string()),
        "file": per_stream([s.parsed.source.name for s in streams], pa.large_string()),
        "line_no": t["line_no"],
        "line_end": t["line_end"],
        "level": level,
        "source": t["source"],
        "pid": pa.nulls(n, pa.int64()),
        "thread": t["thread"],
        "logger": t["logger"],
        "message": t["message"],
        "detail": t["detail"],
        "format": t["format"],
        "wrapper": t["wrapper"],
        "stream": t["stream"],
        "raw": t["raw"],
    }
    for name in (*FINDING_COLUMNS, "benign"):
        columns[name] = t[name] if name in t.column_names else pa.nulls(n, SCHEMA.field(name).type)
    columns["repeats"] = t["repeats"] if "repeats" in t.column_names else pa.repeat(1, n)
    return pa.table(columns).cast(SCHEMA)


_TIME_PARTS = ("wts", "date", "time", "tz", "md")


def _times(
    streams: list[_Stream],
    tz: str | None,
    node_tz: dict[str, str],
    year: int | None,
    problems: list[Problem],
) -> list[tuple[pa.Array, pa.Array, dict[str, str], int | None]]:
    """Per stream: (ts, ts_origin, notes, its last time in ns) — one call for all the streams
    of a zone (:func:`analyzer.timeline.resolve_times_of`), each stream its own file."""
    out: list = [None] * len(streams)
    by_zone: dict[str | None, list[int]] = defaultdict(list)
    for k, s in enumerate(streams):
        by_zone[node_tz.get(s.node) or tz].append(k)  # type: ignore[arg-type]
    for zone, ks in by_zone.items():
        parts = pa.concat_tables([streams[k].table.select(_TIME_PARTS) for k in ks])
        counts = np.array([streams[k].table.num_rows for k in ks], dtype=np.int64)
        hints = np.array([year or _year_of(streams[k].parsed.source.mtime) for k in ks])
        try:
            ts, origin, notes = resolve_times_of(
                parts, np.repeat(np.arange(len(ks)), counts), hints, zone
            )
        except Exception:  # one stream at a time: the one that fails is named
            for k in ks:
                out[k] = _times_alone(streams[k], zone, year, problems)
            continue
        ns = pc.fill_null(ts.cast(pa.int64()), np.iinfo(np.int64).min).to_numpy()
        bounds = np.r_[0, np.cumsum(counts)]
        for j, k in enumerate(ks):
            a, b = int(bounds[j]), int(bounds[j + 1])
            top = int(ns[a:b].max()) if b > a else None
            last = top if top is not None and top != np.iinfo(np.int64).min else None
            out[k] = (ts.slice(a, b - a), origin.slice(a, b - a), notes[j], last)
    return out


def _times_alone(s: _Stream, zone: str | None, year: int | None, problems: list[Problem]):
    try:
        ts, origin, notes = resolve_times(
            s.table, year_hint=year or _year_of(s.parsed.source.mtime), tz=zone
        )
    except Exception as exc:  # keep the lines, without times, and say so
        problems.append(
            Problem(
                s.parsed.source.name,
                f"could not resolve timestamps ({exc_text(exc)}); lines kept without time",
            )
        )
        n = s.table.num_rows
        return (
            pa.nulls(n, pa.timestamp("ns", tz="UTC")),
            pa.array(["none"] * n, pa.large_string()),
            {},
            None,
        )
    last = pc.max(ts.cast(pa.int64())).as_py() if ts.null_count < len(ts) else None
    return ts, origin, notes, last


def _anomalies(streams: list[_Stream], times: list) -> list[Problem]:
    """:func:`time_anomalies` of the streams whose own times could hold one (a span longer than
    :data:`FAR_FROM_FILE` or a step back longer than :data:`BACKWARDS`), tested all at once."""
    if not streams:
        return []
    ts = pa.chunked_array([x[0] for x in times], pa.timestamp("ns", tz="UTC")).combine_chunks()
    origin = pa.chunked_array([x[1] for x in times], pa.large_string()).combine_chunks()
    own = np.asarray(
        pc.fill_null(pc.and_(pc.is_valid(ts), pc.is_in(origin, value_set=_OWN_TIME)), False),
        dtype=bool,
    )
    counts = np.array([len(x[0]) for x in times], dtype=np.int64)
    group = np.repeat(np.arange(len(streams)), counts)[own]
    values = ts.cast(pa.int64()).to_numpy(zero_copy_only=False)[own]
    flagged = set()
    if len(values):
        step = np.diff(values)
        same = group[1:] == group[:-1]
        flagged |= set(np.unique(group[1:][same & (step < -_ns(BACKWARDS))]).tolist())
        starts = np.r_[0, np.flatnonzero(np.diff(group)) + 1]
        span = np.maximum.reduceat(values, starts) - np.minimum.reduceat(values, starts)
        flagged |= set(group[starts][span > _ns(FAR_FROM_FILE)].tolist())
    out = []
    for k in sorted(flagged):
        s = streams[k]
        out += [
            Problem(s.parsed.source.name, msg)
            for msg in time_anomalies(times[k][0], times[k][1], s.table["line_no"])
        ]
    return out


def _all_tasks(nodes: dict[str, NodeInfo]) -> set[str]:
    tasks: set[str] = set()
    for info in nodes.values():
        for job, addrs in (info.cluster or {}).items():
            tasks.update(f"{job}:{i}" for i in range(len(addrs)))
    return tasks


def _add_missing_nodes(nodes: dict[str, NodeInfo]) -> None:
    for task in sorted(_all_tasks(nodes) - set(nodes)):
        job, _, index = task.partition(":")
        nodes[task] = NodeInfo(task, job, int(index), identity="cluster spec")


def _host_of(info: NodeInfo) -> str | None:
    address = info.address
    if not address and info.job and info.task_index is not None:
        for other in (info.cluster or {},):
            addrs = other.get(info.job, [])
            if info.task_index < len(addrs):
                address = addrs[info.task_index]
    return address.rpartition(":")[0] or None if address else None


def _facts(messages: pa.Array, name: str, problems: list[Problem]) -> ContentFacts:
    """What a log's contents tell about its node; a bad hint is reported, never fatal. A log
    whose lines claim several tasks (each printed its own TF_CONFIG) holds several tasks' lines
    in one stream whose prefix tfdiag did not recognise (or a launcher's copy of them all, as
    ``mpirun --output-filename`` also prints): said, and read as a log of the job named by its
    file, not as any one of those tasks."""
    try:
        facts = facts_from_content(messages)
        if len(facts.claims) > 1:
            problems.append(
                Problem(
                    name,
                    f"its lines claim {len(facts.claims)} tasks ({', '.join(sorted(facts.claims))}"
                    " by their TF_CONFIG): several tasks' lines in one stream whose line prefix "
                    "is not known here, read as the job's log named by its file, not as one of "
                    "those tasks; split the file per task",
                )
            )
        return facts
    except Exception as exc:
        problems.append(
            Problem(
                name,
                f"could not read the node from the contents ({exc_text(exc)}); using the name",
            )
        )
        return ContentFacts()


def _task_index(text: str) -> int | None:
    """The index of a ``job:index`` node id, or None (a file stem, or absurdly large)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else None


def _year_of(mtime: float) -> int:
    try:
        return datetime.fromtimestamp(mtime or 0, UTC).year
    except (OverflowError, OSError, ValueError):  # an absurd file time
        return datetime.now(UTC).year


#: Timestamps separated from the bulk of their file by a gap this long are reported.
FAR_FROM_FILE = timedelta(days=30)
#: A file whose time runs backwards by more than this is reported.
BACKWARDS = timedelta(minutes=10)
_OWN_TIME = pa.array(["parsed", "epoch", "wrapper", "year_inferred"], pa.large_string())


def time_anomalies(ts: pa.Array, origin: pa.Array, line_no: pa.Array) -> list[str]:
    """Problems of one file's timestamps: lines far from the rest (a clock at 1970, a wrong
    year), and time running backwards. Only lines with a time of their own count."""
    own = pc.fill_null(pc.and_(pc.is_valid(ts), pc.is_in(origin, value_set=_OWN_TIME)), False)
    values = ts.filter(own).cast(pa.int64()).to_numpy(zero_copy_only=False)
    lines = line_no.filter(own).to_numpy(zero_copy_only=False)
    if len(values) < 2:
        return []
    out: list[str] = []
    ordered = np.sort(values)
    bounds = [0, *(np.flatnonzero(np.diff(ordered) > _ns(FAR_FROM_FILE)) + 1), len(ordered)]
    sizes = np.diff(bounds)
    main = len(sizes) - 1 - int(np.argmax(sizes[::-1]))  # a tie: the later group
    lo, hi = ordered[bounds[main]], ordered[bounds[main + 1] - 1]
    far = (values < lo) | (values > hi)
    if far.any():
        examples = list(dict.fromkeys(_when(v) for v in values[far]))
        shown = ", ".join(examples[:3]) + (" …" if len(examples) > 3 else "")
        out.append(
            f"{int(far.sum())} line(s) have timestamps far from the rest of the file ({shown}; "
            f"first at line {int(lines[far][0])}; the rest is {_when(lo)} to {_when(hi)}); "
            "kept as they are"
        )
    steps = np.diff(values[~far])
    back = steps < -_ns(BACKWARDS)
    if back.any():
        at = int(lines[~far][1:][back][0])
        out.append(
            f"time goes backwards {int(back.sum())} time(s) by more than {_span(_ns(BACKWARDS))} "
            f"(by up to {_span(-int(steps.min()))}, first at line {at}); kept as they are"
        )
    return out


def _ns(delta: timedelta) -> int:
    return int(delta.total_seconds() * 1e9)


def _when(ns: int) -> str:
    return str(np.datetime64(int(ns), "ns").astype("datetime64[s]")).replace("T", " ")


def _span(ns: int) -> str:
    seconds = ns / 1e9
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:.0f} {unit}"
    return f"{seconds:.0f} seconds"
