"""Step 3, consistency: cluster specs, shared addresses and versions across nodes."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from analyzer.diagnose.common import _address_key, _names, _node_order
from analyzer.diagnose.facts import Facts
from analyzer.diagnose.outside import job_level_logs


@dataclass
class Consistency:
    """Cross-node disagreements: text for the report and the nodes that are odd ones out."""

    messages: list[str] = field(default_factory=list)
    spec_outliers: set[str] = field(default_factory=set)
    majority_nodes: set[str] | None = None
    version_outliers: dict[str, str] = field(default_factory=dict)  #: node → what differs
    shared_addresses: dict[str, list[str]] = field(default_factory=dict)
    #: tasks whose spec entry repeats an address an earlier entry already holds
    duplicates: dict[str, str] = field(default_factory=dict)  #: node → the task it repeats
    claims: dict[str, str] = field(default_factory=dict)  #: node → the other task it says it is


#: Task types TensorFlow runs outside the cluster spec its TF_CONFIG gives (multi_worker_util
#: accepts an ``evaluator`` task that no job of the cluster lists: it only reads checkpoints).
OUTSIDE_THE_CLUSTER = ("evaluator",)


def _spec_key(cluster: dict[str, list[str]]) -> tuple:
    return tuple(
        sorted(
            (job, tuple(_address_key(a) or (a, "") for a in addrs))
            for job, addrs in cluster.items()
        )
    )


def _describe_spec_difference(odd: dict, usual: dict) -> str:
    parts = []
    for job in sorted(set(odd) | set(usual)):
        a, b = odd.get(job, []), usual.get(job, [])
        if len(a) != len(b):
            parts.append(f"{len(a)} {job} task(s) instead of {len(b)}")
            continue
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if _address_key(x) != _address_key(y):
                parts.append(f"{job}:{i} at {x} instead of {y}")
    return ", ".join(parts) or "a different order"


def _majority(groups: dict[tuple, list[str]]) -> tuple | None:
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    if len(ranked) > 1 and len(ranked[0][1]) == len(ranked[1][1]):
        return None
    return ranked[0][0]


def _check_specs(facts: dict[str, Facts], out: Consistency) -> None:
    specs = {n: f.cluster for n, f in facts.items() if f.cluster and not f.missing}
    groups: dict[tuple, list[str]] = defaultdict(list)
    for node, cluster in specs.items():
        groups[_spec_key(cluster)].append(node)
    if len(groups) > 1:
        major = _majority(groups)
        if major is None:
            out.messages.append(
                "Cluster specs disagree and no version is held by a majority: "
                + "; ".join(_names(sorted(nodes)) for nodes in groups.values())
            )
            out.spec_outliers.update(specs)
        else:
            out.majority_nodes = set(groups[major])
            usual = specs[groups[major][0]]
            for key, nodes in groups.items():
                if key == major:
                    continue
                for node in sorted(nodes):
                    out.spec_outliers.add(node)
                    out.messages.append(
                        f"{node}'s cluster spec differs from the one {len(groups[major])} other "
                        f"node(s) use: {_describe_spec_difference(specs[node], usual)}."
                    )
    for node, f in facts.items():
        task = f.task or {}
        job, index = task.get("type"), task.get("index")
        if f.cluster and job is not None:
            try:
                in_spec = 0 <= int(index or 0) < len(f.cluster.get(str(job), []))
            except (TypeError, ValueError):
                in_spec = False
            if not in_spec and str(job) in OUTSIDE_THE_CLUSTER and str(job) not in f.cluster:
                pass  # (TensorFlow's evaluator runs outside the cluster it evaluates)
            elif not in_spec:
                out.spec_outliers.add(node)
                out.messages.append(f"{node}'s own task {job}:{index} is not in its cluster spec.")
            elif ":" in node and node != f"{job}:{index}":
                out.spec_outliers.add(node)
                out.claims[node] = f"{job}:{index}"
                out.messages.append(
                    f"{node}'s {f.task_source} says it is task {job}:{index}: two tasks claim "
                    "one index."
                )


def _check_twins(facts: dict[str, Facts], out: Consistency) -> None:
    """Two different logs that both say they are one task, while another task of its job has
    no log at all: that task was started with the first one's index (its TF_CONFIG, or
    whatever gave it its identity, is the wrong one). Said only when exactly one task of the
    job is without a log: with more, which one it was is not in the lines."""
    for node, f in sorted(facts.items(), key=lambda kv: _node_order(kv[0])):
        if len(f.twins) < 2 or ":" not in node:
            continue
        job = node.partition(":")[0]
        absent = [
            n
            for n, g in facts.items()
            if g.missing and n.partition(":")[0] == job and n not in out.claims
        ]
        if len(absent) != 1:
            continue
        other = absent[0]
        out.spec_outliers.add(other)
        out.claims[other] = node
        out.messages.append(
            f"{len(f.twins)} different logs ({_names(f.twins)}) all say they are {node}, "
            f"and {other} left none: {other} was probably started with {node}'s task index."
        )


def _check_addresses(facts: dict[str, Facts], out: Consistency) -> None:
    """Two tasks on one address, within any one node's cluster spec."""
    for f in sorted(facts.values(), key=lambda f: _node_order(f.node)):
        seen: dict[tuple[str, str], list[str]] = defaultdict(list)
        raw: dict[tuple[str, str], str] = {}
        for job, addrs in (f.cluster or {}).items():
            for i, addr in enumerate(addrs):
                if key := _address_key(addr):
                    seen[key].append(f"{job}:{i}")
                    raw.setdefault(key, addr)
        for key, tasks in seen.items():
            address = raw[key]
            if len(tasks) > 1 and address not in out.shared_addresses:
                out.shared_addresses[address] = sorted(tasks)
                for later in tasks[1:]:  # spec order: the first entry held the address first
                    out.duplicates.setdefault(later, tasks[0])
                out.messages.append(
                    f"{f.node}'s cluster spec puts {_names(sorted(tasks))} on one address "
                    f"{address}."
                )


def _check_versions(facts: dict[str, Facts], out: Consistency) -> None:
    for name in ("tensorflow", "python", "protobuf", "grpc"):
        values = {n: f.versions[name] for n, f in facts.items() if name in f.versions}
        counts = Counter(values.values())
        if len(counts) < 2:
            continue
        common, common_n = counts.most_common(1)[0]
        out.messages.append(
            f"{name} versions differ: "
            + ", ".join(f"{n} {v}" for n, v in sorted(values.items()))
            + "."
        )
        if common_n > len(values) / 2:
            for node, value in values.items():
                if value != common:
                    out.version_outliers[node] = f"{name} {value} (others run {common})"


def _check_builds(facts: dict[str, Facts], out: Consistency) -> None:
    """The same TensorFlow message logged from another source line: another build.

    Printed versions are the direct evidence, but most jobs never print them; every absl
    line names its ``file.cc:line`` though, and releases move those lines. Per message that
    three or more nodes log, the line most of them log it from is the usual one; a node that
    logs it from another line on any message runs another build.
    """
    seen: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for node, f in facts.items():
        for key, line in f.source_lines.items():
            seen[key][node] = line
    odd: dict[str, list[str]] = defaultdict(list)
    for (source, _), lines in sorted(seen.items()):
        counts = Counter(lines.values())
        if len(lines) < 3 or len(counts) < 2:
            continue
        usual, n = counts.most_common(1)[0]
        if n <= len(lines) / 2:
            continue
        for node, line in lines.items():
            if line != usual:
                odd[node].append(f"{source}:{line} where {n} peers log it from :{usual}")
    for node in sorted(odd, key=_node_order):
        if node in out.version_outliers:
            continue  # its printed version already says so
        what = odd[node][0] + (f" (and {len(odd[node]) - 1} more)" if len(odd[node]) > 1 else "")
        out.version_outliers[node] = f"another TensorFlow build ({odd[node][0]})"
        out.messages.append(
            f"{node} logs the same TensorFlow messages from other source lines than its "
            f"peers ({what}): it runs another TensorFlow build."
        )


def check_consistency(facts: dict[str, Facts]) -> Consistency:
    """Step 3: cluster specs, shared addresses and versions compared across nodes. A job-level
    log (a launcher's, or its copy of every task's output) runs no TensorFlow of its own: its
    versions and builds are not compared."""
    out = Consistency()
    _check_specs(facts, out)
    _check_twins(facts, out)
    _check_addresses(facts, out)
    outside = job_level_logs(facts)
    tasks = {n: f for n, f in facts.items() if n not in outside}
    _check_versions(tasks, out)
    _check_builds(tasks, out)
    return out
