"""The cells of the matrix (style x fault x role x phase x file naming), the order they are
recorded in, the file names of each naming, and the lab's named scenarios.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .. import compose, kubernetes, mpi, runit, slurm, spark, supervisord, systemd
from .. import tmux as tmuxlab
from .faults import FAULTS
from .styles import (
    STYLES,
    Style,
)

NAMINGS = ("plain", "pod", "host", "stderr", "slurm", "rotated", "gz")


def file_name(naming: str, style: Style, node: str, seed: int) -> str:
    """The file a deployment of this naming would leave for ``node``."""
    job, index = node.split(":")
    order = style.nodes.index(node)
    if naming == "pod":
        h = hashlib.sha1(f"{seed}{node}".encode()).hexdigest()[:4]
        return f"{style.pod_prefix}-{job}-{index}-{h}.log"
    if naming == "host":
        return f"host-{'abcdefgh'[order]}/{job}.out"
    if naming == "stderr":
        return f"{job}{index}.stderr"
    if naming == "slurm":
        return f"slurm-{4200 + seed}.{order}.out"
    if naming in slurm.NAMINGS:
        return slurm.output_name(naming, slurm.job_id(seed), order)
    if naming in kubernetes.NAMINGS:
        return kubernetes.raw_name(node)
    if naming in compose.NAMINGS:
        return compose.raw_name(node)
    if naming in systemd.NAMINGS:
        return systemd.raw_name(node)
    if naming in mpi.NAMINGS:
        return mpi.raw_name(node)
    if naming in spark.NAMINGS:
        return spark.WORK_DIR
    if naming in supervisord.NAMINGS:
        return f"{supervisord.program(node)}.log"
    if naming in runit.NAMINGS:
        return f"{runit.LOG_ROOT}/{runit.service(node)}/current"
    if naming in tmuxlab.NAMINGS:
        return tmuxlab.log_name(naming, node)
    base = "chief" if job == "chief" else f"{job}-{index}"
    return f"{base}.log"


# ----------------------------------------------------------------------------- cells
@dataclass(frozen=True)
class Cell:
    style: str
    fault: str
    role: str
    phase: str
    naming: str
    seed: int
    # named scenarios only: exact file names, nodes to rotate, extra evidence
    files: tuple[tuple[str, str], ...] = ()
    rotate: tuple[str, ...] = ()
    expect: tuple[tuple[str, str], ...] = ()

    @property
    def folder(self) -> str:
        return f"{self.style}/{self.fault}-{self.role}-{self.phase}-{self.naming}"


# Order of recording: the baselines and hang/straggler cells first, then crashes,
# preemptions and stalls, then the rest.
PRIORITY = (
    ("healthy", "block", "stall_notimeout", "straggler", "throttle"),
    ("kill", "preempt", "stall_deadline"),
)


def _priority(fault: str) -> int:
    for i, group in enumerate(PRIORITY):
        if fault in group:
            return i
    return len(PRIORITY)


def cells() -> list[Cell]:
    """Every cell of the matrix, in recording order; namings rotate through NAMINGS."""
    out: list[Cell] = []
    k = 0
    own = {s.name: s.naming_start for s in STYLES.values() if s.naming_start is not None}
    for fault in sorted(FAULTS.values(), key=lambda f: _priority(f.name)):
        for style, role, phase in fault.plan:
            names = STYLES[style].namings or NAMINGS
            for _ in range(fault.variants_of(style)):
                i = own.get(style, k)
                out.append(Cell(style, fault.name, role, phase, names[i % len(names)], i))
                if style in own:
                    own[style] += 1
                else:
                    k += 1
    seen: set[str] = set()
    unique = []
    for c in out:
        if c.folder not in seen:
            seen.add(c.folder)
            unique.append(c)
    return unique


def _files(pattern: str, nodes: list[str]) -> tuple[tuple[str, str], ...]:
    return tuple((n, pattern.format(i=n.split(":")[1])) for n in nodes)


_W3 = ["worker:0", "worker:1", "worker:2"]
_PSS_FILES = (
    ("chief:0", "chief.log"),
    ("ps:0", "ps-0.log"),
    ("worker:0", "worker-0.log"),
    ("worker:1", "worker-1.log"),
)

# The lab's named scenarios that are cells of the matrix: name -> (description, cell).
NAMED: dict[str, tuple[str, Cell]] = {
    "ps_killed": (
        "ParameterServerStrategy with a ClusterCoordinator; the parameter server is "
        "SIGKILLed mid-training.",
        Cell(
            "pss",
            "kill",
            "ps",
            "training",
            "plain",
            0,
            files=_PSS_FILES,
            # the workers log UNAVAILABLE only when the kill lands mid-RecvTensor: a race
            expect=(
                ("chief:0", r"UnavailableError"),
                ("chief:0", r"remote target /job:ps/replica:0/task:0"),
            ),
        ),
    ),
    "worker_killed": (
        "MultiWorkerMirroredStrategy with 3 workers; worker 1 is SIGKILLed mid-training.",
        Cell(
            "mwms_ctl",
            "kill",
            "worker",
            "training",
            "pod",
            0,
            files=_files("tfjob-mnist-worker-{i}.log", _W3),
            expect=(("worker:0|worker:2", r"UnavailableError"),),
        ),
    ),
    "missing_worker": (
        "A worker named in the cluster spec is never started, so the others block at start-up.",
        Cell(
            "mwms_ctl",
            "missing",
            "worker",
            "startup",
            "plain",
            0,
            files=_files("worker_{i}.txt", _W3),
            expect=(("worker:0", r"Waiting for 1/3 tasks to connect"),),
        ),
    ),
    "stalled_worker_deadline": (
        "A worker is frozen with SIGSTOP while its peers use a 5 s collective timeout.",
        Cell(
            "mwms_ctl",
            "stall_deadline",
            "worker",
            "training",
            "plain",
            0,
            rotate=("worker:0",),
        ),
    ),
    "oom_worker": (
        "One worker runs out of memory under an address-space limit when it allocates a "
        "large tensor.",
        Cell(
            "mwms_ctl",
            "oom",
            "worker",
            "training",
            "host",
            0,
            files=_files("node-{i}/worker.log", _W3),
        ),
    ),
    "preempted_worker": (
        "A worker receives SIGTERM as a scheduler's preemption notice while training under "
        "PreemptionCheckpointHandler.",
        Cell(
            "mwms_ctl",
            "preempt",
            "worker",
            "training",
            "pod",
            0,
            files=_files("tfjob-resnet-worker-{i}.log", _W3),
            rotate=("worker:0",),
        ),
    ),
    "healthy": (
        "A clean ParameterServerStrategy run with no fault.",
        Cell("pss", "healthy", "none", "full", "plain", 0, files=_PSS_FILES, rotate=("chief:0",)),
    ),
}
