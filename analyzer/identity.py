"""Stage 3: which node wrote a log — ``<job>:<index>`` (see shared/contract.md).

Two kinds of evidence, and contents win over names:

* **names**: ``worker-0.log``, ``worker0.stderr``, ``ps_1.txt``, ``tfjob-mnist-worker-3.log``,
  ``host-a/chief.log``, ``worker-1/stdout``, and rotated pieces ``worker-1.log.1`` / ``.2.gz``;
* **contents**: the TF_CONFIG a launch script printed (or DTensor's ``DTENSOR_CLIENT_ID``,
  ``DTENSOR_JOB_NAME`` and ``DTENSOR_JOBS``; or, alone, Slurm's ``SLURM_PROCID=N``, which
  SlurmClusterResolver makes ``worker:N``), ``task_type = 'worker', task_id = 3``,
  the task's own devices ``/job:worker/replica:0/task:3/device:CPU:0``, and the address in
  ``Started server with target: grpc://host:port`` looked up in a cluster spec.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import pyarrow as pa
import pyarrow.compute as pc

JOB_NAMES = ("chief", "master", "ps", "worker", "evaluator", "coordinator")
_JOBS = "|".join(JOB_NAMES)
_NAME_RE = re.compile(
    rf"(?:^|[-_.\s])(?P<job>{_JOBS})(?:[-_. ]?(?P<index>\d+))?(?=$|[-_.\s])", re.I
)
_ROTATION_RE = re.compile(r"^(?P<base>.+?)\.(?P<n>\d{1,3})$")
_LOG_SUFFIX_RE = re.compile(r"\.(?:log|txt|out|err|stdout|stderr)$", re.I)
_SINGLETON_JOBS = {"chief", "master", "evaluator", "coordinator"}

# Content evidence, as RE2 prefilters (cheap, whole column) and Python regexes (few rows).
_CONTENT_PREFILTER = (
    r"TF_CONFIG|task_type|/job:\w+/replica:\d+/task:\d+/device|Started server with target"
    r"|GrpcChannelCache for job|eager service context|DTENSOR_(?:CLIENT_ID|JOB_NAME|JOBS)="
    r"|SLURM_PROCID=|OMPI_COMM_WORLD_RANK=|PMIX?_RANK="
)
#: The same in Python (ASCII classes, as RE2's), for logs of at most :data:`_FEW_ROWS` messages.
_CONTENT_RE = re.compile(_CONTENT_PREFILTER, re.ASCII)
_FEW_ROWS = 256
_TASK_TYPE_RE = re.compile(
    r"task_type\s*[=:]\s*['\"]?(?P<job>\w+)['\"]?,?\s*task_id\s*[=:]\s*(?P<index>\d+)"
)
_DEVICES_RE = re.compile(
    r"(?:devices?\s*[:=]?\s*\[?\s*['\"]?|eager service context .*? on host \S+ )"
    r"/job:(?P<job>\w+)/replica:\d+/task:(?P<index>\d+)"
)
_SERVER_RE = re.compile(r"Started server with target:\s*grpc://(?P<address>\S+)")
_CHANNEL_RE = re.compile(r"GrpcChannelCache for job (?P<job>\w+) -> \{(?P<body>[^}]*)\}")
#: DTensor multi-client's own configuration, one variable a line as a launch script prints it:
#: the client's index, its job (``worker`` by default) and every client's address in order.
_DTENSOR_RE = re.compile(r"\bDTENSOR_(?P<name>CLIENT_ID|JOB_NAME|JOBS)=(?P<value>[^\s'\"]+)")
#: The task's rank as Slurm's srun sets it: with no TF_CONFIG, TensorFlow's SlurmClusterResolver
#: makes rank N task N of the one job ``worker`` (its default ``jobs``).
_SLURM_PROCID_RE = re.compile(r"\bSLURM_PROCID=(?P<rank>\d{1,6})\b")
#: the rank other launchers give a process in its environment (Open MPI's mpirun, PMI / PMIx
#: launchers such as MPICH's hydra): the launcher's own lines name a task by it
_LAUNCHER_RANK_RE = re.compile(r"\b(?:OMPI_COMM_WORLD_RANK|PMI_RANK|PMIX_RANK)=(?P<rank>\d{1,6})\b")


@dataclass(frozen=True)
class NameHint:
    """What a file's name and folders say: the node and, for rotated logs, the piece number."""

    job: str | None
    index: int | None
    stem: str  #: the log's name without rotation number and compression suffix
    rotation: int  #: 0 for the live file, N for ``.N`` (higher is older)

    @property
    def node(self) -> str | None:
        """``job:index`` when the name tells both (a lone ``chief`` is ``chief:0``)."""
        if self.job is None:
            return None
        if self.index is None:
            return f"{self.job}:0" if self.job in _SINGLETON_JOBS else None
        return f"{self.job}:{self.index}"


@dataclass
class ContentFacts:
    """What a log's own lines say about its node and the cluster."""

    job: str | None = None
    index: int | None = None
    evidence: str | None = None  #: the line that told, for the conflict report
    tf_config: dict | None = None
    cluster: dict[str, list[str]] | None = None  #: job → addresses, as in TF_CONFIG
    address: str | None = None  #: where this task served (``Started server with target``)
    channel_cache: dict[str, list[str]] = field(default_factory=dict)
    #: the task's rank as its launcher set it (srun's ``SLURM_PROCID``, mpirun's
    #: ``OMPI_COMM_WORLD_RANK``, a PMI rank)
    rank: int | None = None
    #: every task a TF_CONFIG line of this log claims (one, in a log of one task)
    claims: set[str] = field(default_factory=set)

    @property
    def node(self) -> str | None:
        """``job:index`` when the contents tell it."""
        return f"{self.job}:{self.index}" if self.job and self.index is not None else None


def rotation_of(name: str) -> tuple[str, int]:
    """``(base, N)`` for the piece ``base.N`` of a rotated log (``x.log.2`` → ``x.log``, 2),
    ``(name, 0)`` for any other name (the live file)."""
    m = _ROTATION_RE.match(name)
    if m and _LOG_SUFFIX_RE.search(m["base"]):
        return m["base"], int(m["n"])
    return name, 0


def hint_from_name(logical_name: str, parents: tuple[str, ...] = ()) -> NameHint:
    """Read the node and rotation number from a file name and its folders."""
    name, rotation = rotation_of(PurePosixPath(logical_name).name)
    stem = _LOG_SUFFIX_RE.sub("", name)
    job = index = None
    for text in (stem, *reversed(parents)):
        matches = [
            m
            for m in _NAME_RE.finditer(text)
            if not _in_class_name(text, m) and not _before_id(text, m)
        ]
        if matches:
            last = matches[-1]
            job = last["job"].lower()
            index = int(last["index"]) if last["index"] is not None else None
            if index is None:
                trailing = re.search(r"[-_.](\d+)$", text)
                if trailing and trailing.start() >= last.end():
                    index = int(trailing[1])
            break
    return NameHint(job, index, name if rotation else logical_name, rotation)


#: A Java class's package path (``org.apache.spark.deploy.``): a JVM daemon's log is named
#: after its class (spark-daemon.sh, hadoop-daemon.sh: ``spark-root-org.apache.spark.deploy.
#: worker.Worker-1-host.out``), whose words are no task's name.
_PACKAGE_PATH_RE = re.compile(r"(?:[a-z][a-z0-9_]*\.){3,}$")


def _in_class_name(text: str, m: re.Match) -> bool:
    """Is this job word part of a fully qualified class name (after a package path)?"""
    return bool(_PACKAGE_PATH_RE.search(text, 0, m.start() + 1))


#: A long hexadecimal id right after a job word: the word names a kind of process, the id one
#: process (Ray's ``worker-<WorkerID>-<JobID>-<pid>.out``, ``python-core-worker-<WorkerID>_
#: <pid>.log``), and the number that may follow is a pid, no task index.
HEX_ID = r"[0-9a-f]{16,}"
_HEX_ID_AFTER_RE = re.compile(rf"[-_.]{HEX_ID}(?=$|[-_.])", re.I)


def _before_id(text: str, m: re.Match) -> bool:
    """Is this job word the prefix of a process's hexadecimal id (see :data:`HEX_ID`)?"""
    return m["index"] is None and bool(_HEX_ID_AFTER_RE.match(text, m.end()))


_BRACES_RE = re.compile(r"[{}]")


def _parse_mapping(text: str) -> dict | None:
    start = text.find("{")
    if start < 0:
        return None
    depth = 0
    for brace in _BRACES_RE.finditer(text, start):  # (only the braces: a spec is long)
        if brace[0] == "{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                blob = text[start : brace.end()]
                for loader in (json.loads, ast.literal_eval):
                    try:
                        value = loader(blob)
                    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
                        continue
                    if isinstance(value, dict):
                        return value
                return None
    return None


def _normalize_cluster(cluster: object) -> dict[str, list[str]] | None:
    if not isinstance(cluster, dict):
        return None
    out: dict[str, list[str]] = {}
    for job, addrs in cluster.items():
        if isinstance(addrs, str):
            addrs = [addrs]
        if isinstance(addrs, dict):  # {0: "host:port"} form
            addrs = [addrs[k] for k in sorted(addrs, key=lambda k: (len(str(k)), str(k)))]
        if isinstance(addrs, list | tuple):
            out[str(job)] = [str(a) for a in addrs]
    return out or None


def facts_from_content(messages: pa.Array, max_rows: int = 2000) -> ContentFacts:
    """Scan a log's messages for the evidence of its own node and its cluster spec."""
    facts = ContentFacts()
    if len(messages) <= _FEW_ROWS:  # a short log: Python's search costs less than Arrow's calls
        texts = [t for t in messages.to_pylist() if t is not None and _CONTENT_RE.search(t)]
    else:
        hit = pc.match_substring_regex(messages, _CONTENT_PREFILTER)
        rows = pc.indices_nonzero(pc.fill_null(hit, False)).to_pylist()[:max_rows]
        texts = messages.take(pa.array(rows, pa.int64())).to_pylist() if rows else []
    dtensor: dict[str, str] = {}
    slurm_rank: str | None = None
    launcher_rank: str | None = None
    # A text that repeats (a crash loop's TF_CONFIG at every restart) tells nothing new: every
    # fact below is the first one found, or a set, except the channel cache, where the last
    # line naming a job wins: those are applied in the order of each text's last occurrence.
    last = {text: at for at, text in enumerate(texts[:max_rows]) if text is not None}
    channels: list[tuple[int, str, list[str]]] = []
    for text in last:
        if slurm_rank is None and (m := _SLURM_PROCID_RE.search(text)):
            slurm_rank = m["rank"]
        if launcher_rank is None and (m := _LAUNCHER_RANK_RE.search(text)):
            launcher_rank = m["rank"]
        for m in _DTENSOR_RE.finditer(text):
            dtensor.setdefault(m["name"], m["value"])
        if "TF_CONFIG" in text:
            config = _parse_mapping(text[text.find("TF_CONFIG") :])
            if config and facts.tf_config is not None:  # a second one: whose task is it?
                task = config.get("task")
                if isinstance(task, dict) and "type" in task:
                    facts.claims.add(f"{task['type']}:{task.get('index', 0)}")
                config = None
            if config:
                facts.tf_config = config
                facts.cluster = facts.cluster or _normalize_cluster(config.get("cluster"))
                task = config.get("task")
                if isinstance(task, dict) and "type" in task:
                    facts.claims.add(f"{task['type']}:{task.get('index', 0)}")
                if isinstance(task, dict) and "type" in task and facts.job is None:
                    try:
                        facts.job, facts.index = str(task["type"]), int(task.get("index", 0))
                        facts.evidence = text.strip()[:200]
                    except (TypeError, ValueError):
                        pass
        if facts.job is None:
            m = _TASK_TYPE_RE.search(text) or _DEVICES_RE.search(text)
            if m:
                facts.job, facts.index = m["job"], int(m["index"])
                facts.evidence = text.strip()[:200]
        # (MultiWorkerMirroredStrategy logs its devices, which name the task, and then its
        # cluster_spec: the spec is read whether or not the task is known by then)
        if facts.cluster is None and "cluster_spec" in text:
            spec = _parse_mapping(text[text.find("cluster_spec") :])
            facts.cluster = _normalize_cluster(spec.get("cluster", spec)) if spec else None
        if facts.address is None:
            m = _SERVER_RE.search(text)
            if m:
                facts.address = m["address"].rstrip(".,;")
        m = _CHANNEL_RE.search(text)
        if m:
            pairs = re.findall(r"(\d+)\s*->\s*([^,\s]+)", m["body"])
            addrs = [addr for _, addr in sorted(pairs, key=lambda p: int(p[0]))]
            channels.append((last[text], m["job"], addrs))
    for _, job, addrs in sorted(channels, key=lambda c: c[0]):
        facts.channel_cache[job] = addrs
    if facts.cluster is None and facts.channel_cache:
        facts.cluster = dict(facts.channel_cache)
    if len(facts.claims) > 1:  # several tasks' lines in one stream: none of them is its node,
        # nor is their spec its own (a launcher's copy of every task's output is a job-level log)
        facts.job = facts.index = facts.evidence = facts.tf_config = facts.address = None
        facts.cluster = None
        facts.channel_cache = {}
        slurm_rank = launcher_rank = None
    if dtensor:
        _dtensor_facts(facts, dtensor)
    if slurm_rank is not None or launcher_rank is not None:
        facts.rank = int(slurm_rank if slurm_rank is not None else launcher_rank)
    if facts.job is None and slurm_rank is not None:  # (the weakest evidence: only alone)
        facts.job, facts.index = "worker", int(slurm_rank)
        facts.evidence = f"SLURM_PROCID={slurm_rank} (SlurmClusterResolver's worker {slurm_rank})"
    return facts


def _dtensor_facts(facts: ContentFacts, env: dict[str, str]) -> None:
    """DTensor's variables as a TF_CONFIG would say it: client N of job J is ``J:N``, and the
    clients' addresses, in order, are the job's cluster."""
    job = env.get("JOB_NAME") or "worker"
    if not re.fullmatch(r"[A-Za-z][\w-]*", job):
        return
    if facts.job is None and env.get("CLIENT_ID", "").isdigit():
        facts.job, facts.index = job, int(env["CLIENT_ID"])
        facts.evidence = f"DTENSOR_CLIENT_ID={env['CLIENT_ID']}"
    addresses = [a for a in env.get("JOBS", "").split(",") if a]
    if facts.cluster is None and addresses:
        facts.cluster = {job: addresses}
    if facts.tf_config is None and env.get("CLIENT_ID", "").isdigit() and addresses:
        # (what a TF_CONFIG would say: the checks of cluster and task read it alike)
        task = {"type": job, "index": int(env["CLIENT_ID"])}
        facts.tf_config = {"cluster": {job: addresses}, "task": task, "from": "DTENSOR_*"}


def _same_address(a: str, b: str) -> bool:
    local = {"localhost", "127.0.0.1", "0.0.0.0", "[::1]", "[::]", "::1"}
    ha, _, pa_ = a.rpartition(":")
    hb, _, pb = b.rpartition(":")
    return pa_ == pb and (ha == hb or (ha in local and hb in local))


def task_for_address(address: str, clusters: list[dict[str, list[str]]]) -> tuple[str, int] | None:
    """Find the (job, index) that serves ``address`` in any of the cluster specs, if only one does."""
    found: set[tuple[str, int]] = set()
    for cluster in clusters:
        for job, addrs in cluster.items():
            for index, addr in enumerate(addrs):
                if _same_address(addr, address):
                    found.add((job, index))
    return found.pop() if len(found) == 1 else None


def task_name(node: str) -> str | None:
    """``worker:3`` → ``/job:worker/replica:0/task:3`` (None for a node id that is a file stem)."""
    job, sep, index = node.partition(":")
    return f"/job:{job}/replica:0/task:{index}" if sep and index.isdigit() else None
