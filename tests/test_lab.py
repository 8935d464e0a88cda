"""Tests for the fault-injection lab (analyzer/lab) and the recorded sample_logs/."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.lab import SCENARIOS, list_scenarios, run_scenario, tensorflow_available
from analyzer.lab._runner import rotate

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"

# The category ids of /work/shared/taxonomy.md, verbatim.
TAXONOMY_IDS = {
    "deadline_exceeded",
    "address_in_use",
    "connection_unavailable",
    "name_resolution",
    "cluster_spec_mismatch",
    "session_blocked",
    "version_mismatch",
    "dtype_mismatch",
    "shape_mismatch",
    "oom",
    "node_crash",
    "coordination_failure",
    "hang",
    "straggler",
    "preemption",
    "concurrent_write",
    "filesystem_error",
    "collective_error",
    "none",
}
REQUIRED = {
    "scenario",
    "description",
    "nodes",
    "first_failing_node",
    "task",
    "root_cause_category",
    "fault_time_utc",
    "tensorflow_version",
    "notes",
}
NODE_RE = re.compile(r"^[a-z]+:\d+$")
ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")

TRUTH_FILES = sorted(SAMPLES.glob("*/truth.json"))


def _read(path: Path) -> str:
    if path.name.endswith(".gz"):
        with gzip.open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    return path.read_text(encoding="utf-8", errors="replace")


def _node_text(folder: Path, truth: dict, node: str) -> str:
    return "\n".join(_read(folder / f) for f in truth["node_files"][node])


# ------------------------------------------------------------------ recorded samples
def test_sample_logs_present():
    assert len(TRUTH_FILES) >= 10, "sample_logs/ should hold the lab's recorded scenarios"


def test_sample_logs_small():
    total = sum(p.stat().st_size for p in SAMPLES.rglob("*") if p.is_file())
    assert total < 5 * 1024 * 1024


@pytest.mark.parametrize("truth_path", TRUTH_FILES, ids=lambda p: p.parent.name)
def test_truth_json_follows_contract(truth_path: Path):
    truth = json.loads(truth_path.read_text())
    folder = truth_path.parent
    missing = REQUIRED - truth.keys()
    assert not missing, f"missing fields {missing}"
    assert truth["scenario"] == folder.name
    assert truth["root_cause_category"] in TAXONOMY_IDS
    assert isinstance(truth["nodes"], list) and truth["nodes"]
    for node in truth["nodes"]:
        assert NODE_RE.match(node), node
    assert len(set(truth["nodes"])) == len(truth["nodes"])
    ffn = truth["first_failing_node"]
    if truth["root_cause_category"] == "none":
        assert ffn is None and truth["task"] is None
    else:
        assert ffn in truth["nodes"]
        job, index = ffn.split(":")
        assert truth["task"] == f"/job:{job}/replica:0/task:{index}"
        assert ISO_Z.match(truth["fault_time_utc"]), truth["fault_time_utc"]
    assert re.match(r"^\d+\.\d+", truth["tensorflow_version"])
    assert truth["notes"].strip()

    missing_nodes = set(truth.get("missing_nodes", []))
    assert missing_nodes <= set(truth["nodes"])
    node_files = truth.get("node_files", {})
    for node in truth["nodes"]:
        if node in missing_nodes:
            assert not node_files.get(node), f"{node} is missing but has files"
            continue
        files = node_files.get(node, [])
        assert files, f"{node} has no file"
        for f in files:
            assert (folder / f).is_file(), f"{f} listed for {node} but absent"
    # every log file in the folder belongs to some node
    listed = {f for fs in node_files.values() for f in fs}
    on_disk = {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.name != "truth.json"
    }
    assert on_disk == listed


@pytest.mark.parametrize("truth_path", TRUTH_FILES, ids=lambda p: p.parent.name)
def test_truth_evidence_is_in_the_logs(truth_path: Path):
    truth = json.loads(truth_path.read_text())
    folder = truth_path.parent
    assert truth.get("verified") is True
    for ev in truth.get("evidence", []):
        text = _read(folder / ev["file"]).splitlines()
        assert text[ev["line_no"] - 1].startswith(ev["text"][:200])


def test_clock_skew_sample_records_skew():
    path = SAMPLES / "clock_skew" / "truth.json"
    if not path.exists():
        pytest.skip("clock_skew not recorded")
    truth = json.loads(path.read_text())
    assert truth["clock_skew_seconds"]
    for node in truth["clock_skew_seconds"]:
        assert node in truth["nodes"]


def test_several_naming_styles():
    names = {
        f
        for p in TRUTH_FILES
        for fs in json.loads(p.read_text())["node_files"].values()
        for f in fs
    }
    styles = {
        "plain": any(re.fullmatch(r"(chief|ps-\d|worker-\d)\.log", n) for n in names),
        "host_folder": any(re.fullmatch(r"host-[a-z]/\w+\.log", n) for n in names),
        "k8s": any(re.fullmatch(r"tfjob-\w+-worker-\d+\.log", n) for n in names),
        "stderr": any(re.fullmatch(r"\w+\d\.stderr", n) for n in names),
        "underscore_txt": any(re.fullmatch(r"\w+_\d\.txt", n) for n in names),
        "rotated": any(n.endswith(".log.2.gz") for n in names),
    }
    assert sum(styles.values()) >= 4, styles


# ---------------------------------------------------------------------- the driver
def test_import_is_cheap_and_tf_free():
    code = "import sys, analyzer.lab; print('tensorflow' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.strip() == "False"


def test_list_scenarios():
    listed = list_scenarios()
    assert [n for n, _ in listed] == list(SCENARIOS)
    assert {"ps_killed", "healthy"} <= set(SCENARIOS)
    for name, desc in listed:
        assert desc.endswith(".") and len(desc) > 20, name


def test_unknown_scenario(tmp_path):
    with pytest.raises(ValueError):
        run_scenario("no_such_scenario", tmp_path)


def test_rotate_like_logrotate(tmp_path):
    log = tmp_path / "worker-1.log"
    lines = [f"line {i}\n" for i in range(30)]
    log.write_text("".join(lines))
    names = rotate(log)
    assert names == ["worker-1.log", "worker-1.log.1", "worker-1.log.2.gz"]
    oldest = _read(tmp_path / "worker-1.log.2.gz")
    middle = _read(tmp_path / "worker-1.log.1")
    newest = _read(log)
    assert oldest + middle + newest == "".join(lines)
    assert oldest.startswith("line 0\n") and newest.endswith("line 29\n")


# ------------------------------------------------------------------------ live runs
live = pytest.mark.skipif(not tensorflow_available(), reason="tensorflow is not installed")


@pytest.mark.lab
@live
def test_live_ps_killed(tmp_path):
    truth = run_scenario("ps_killed", tmp_path, timeout=150)
    assert (tmp_path / "truth.json").is_file()
    assert json.loads((tmp_path / "truth.json").read_text()) == truth
    assert truth["first_failing_node"] == "ps:0"
    assert truth["root_cause_category"] == "node_crash"
    assert truth["verified"] is True
    assert truth["exit_codes"]["ps:0"] == -9
    for node in truth["nodes"]:
        assert _node_text(tmp_path, truth, node).startswith("TF_CONFIG=")
    chief = _node_text(tmp_path, truth, "chief:0")
    assert "UnavailableError" in chief
    assert "/job:ps/replica:0/task:0" in chief
    ps = _node_text(tmp_path, truth, "ps:0")
    assert "Started server with target: grpc://127.0.0.1:" in ps
    assert "Traceback" not in ps  # SIGKILL leaves no last words
    _assert_diagnosed_as_truth(tmp_path, truth)


def _assert_diagnosed_as_truth(folder, truth):
    """End to end: tfdiag, on what the lab just recorded, names the truth's node and category."""
    import analyzer

    for condensed in (False, True):
        rc = analyzer.load(folder, condensed=condensed).root_cause
        assert (rc.node, rc.category) == (
            truth["first_failing_node"],
            truth["root_cause_category"],
        ), rc.summary


@pytest.mark.lab
@live
def test_live_healthy(tmp_path):
    truth = run_scenario("healthy", tmp_path, timeout=150)
    assert truth["root_cause_category"] == "none"
    assert truth["first_failing_node"] is None
    assert truth["verified"] is True
    assert all(code == 0 for code in truth["exit_codes"].values()), truth["exit_codes"]
    for node in truth["nodes"]:
        text = _node_text(tmp_path, truth, node)
        assert "Traceback" not in text
        assert "tf.__version__ = " in text
    assert "training finished" in _node_text(tmp_path, truth, "chief:0")
    _assert_diagnosed_as_truth(tmp_path, truth)


# ------------------------------------------------------------- the matrix and its corpus
CORPUS = ROOT / "tests" / "corpus" / "lab"
CORPUS_TRUTHS = sorted(CORPUS.glob("*/*/truth.json"))
MATRIX_FIELDS = {"style", "fault", "family", "phase", "naming", "target_role", "exit_codes"}


def test_matrix_has_enough_distinct_cells():
    from analyzer.lab import matrix

    cells = matrix.cells()
    folders = [c.folder for c in cells]
    assert len(set(folders)) == len(folders) >= 80
    for style in matrix.STYLES:
        assert any(c.style == style and c.fault == "healthy" for c in cells), style
        assert sum(c.style == style for c in cells) >= 15, style
    assert {c.phase for c in cells} >= {"startup", "training", "checkpoint"}
    for fault in matrix.FAULTS.values():
        assert fault.family in matrix.FAMILIES, fault.name
        assert fault.category in TAXONOMY_IDS | {"decide"}, fault.name
        for style, role, phase in fault.plan:
            assert phase in matrix.PHASES
            assert role in ("none", "any") or role in matrix.STYLES[style].roles, (fault, style)


def test_matrix_file_names_are_distinct_per_run():
    from analyzer.lab import matrix

    for style in matrix.STYLES.values():
        for naming in matrix.NAMINGS:
            names = [matrix.file_name(naming, style, n, 7) for n in style.nodes]
            assert len(set(names)) == len(names), (style.name, naming)


def test_every_recorded_run_is_a_cell_of_the_matrix():
    """A style added to the tables later must not rename the recorded runs of the others."""
    from analyzer.lab import matrix

    folders = {c.folder for c in matrix.cells()}
    recorded = {f"{p.parent.parent.name}/{p.parent.name}" for p in CORPUS_TRUTHS}
    assert recorded and not recorded - folders, sorted(recorded - folders)[:5]
    added = [s for s in matrix.STYLES.values() if s.naming_start is not None]
    assert added, "no style counts its namings on its own"
    for style in added:
        namings = {c.naming for c in matrix.cells() if c.style == style.name}
        assert namings == set(style.namings or matrix.NAMINGS), (style.name, namings)


class _RecordedLab:
    """A finished lab run read back from the corpus (what ``_settle`` reads of a Lab)."""

    def __init__(self, folder: Path, truth: dict):
        self.folder, self.truth = folder, truth
        self.procs = {n: None for n, files in truth["node_files"].items() if files}

    def read(self, node: str) -> str:
        return (self.folder / self.truth["node_files"][node][0]).read_text()


def _settle_recorded(folder: Path, codes: dict, offsets_at: dict[str, str]):
    """Settle a recorded SIGSTOP run again; a node's log counts from ``offsets_at[node]``."""
    from analyzer.lab import matrix

    truth = json.loads((folder / "truth.json").read_text())
    lab = _RecordedLab(folder, truth)
    style, fault = matrix.STYLES[truth["style"]], matrix.FAULTS[truth["fault"]]
    cell = matrix.Cell(
        truth["style"], truth["fault"], truth["target_role"], truth["phase"], "plain", 0
    )
    target = style.roles[truth["target_role"]]
    run = matrix.launch._Run(
        truth["nodes"], target, fault.category, stopped={target}, ended_by="exited"
    )
    run.offsets = {n: lab.read(n).index(offsets_at[n]) for n in lab.procs if n in offsets_at}
    matrix.settle._settle(lab, cell, style, fault, run, codes)
    return lab, run


def test_stall_evidence_is_what_peers_logged_after_the_freeze():
    """tf.data service workers log 'Failed to Worker heartbeat' while their dispatcher starts:
    not the evidence of a trainer frozen later (the peer trainer's abort is)."""
    folder = CORPUS / "data_service" / "stall_notimeout-worker-training-plain"
    truth = json.loads((folder / "truth.json").read_text())
    marks = {n: "serving at" for n in ("dispatcher:0", "data_worker:0", "data_worker:1")}
    marks |= {"worker:0": "step 20/60", "worker:1": "step 20/60"}
    lab, run = _settle_recorded(folder, truth["exit_codes"], marks)
    assert "heartbeat" in lab.read("data_worker:0")[: run.offsets["data_worker:0"]]
    assert run.category == "coordination_failure"
    assert [node for node, _ in run.expect] == ["worker:0"]


def test_a_freeze_the_trainers_finished_through_is_not_recorded():
    from analyzer.lab import matrix

    folder = CORPUS / "data_service" / "stall_notimeout-worker-training-plain"
    codes = {
        "dispatcher:0": 0,
        "data_worker:0": 0,
        "data_worker:1": -9,
        "worker:0": 0,
        "worker:1": 0,
    }
    with pytest.raises(matrix.CellError, match="nothing stalled"):
        _settle_recorded(folder, codes, {})


def test_corpus_recorded():
    assert len(CORPUS_TRUTHS) >= 80, f"only {len(CORPUS_TRUTHS)} runs under {CORPUS}"
    styles = [json.loads(p.read_text())["style"] for p in CORPUS_TRUTHS]
    for style in set(styles):
        assert styles.count(style) >= 15, style


@pytest.mark.parametrize(
    "truth_path", CORPUS_TRUTHS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}"
)
def test_corpus_truth(truth_path: Path):
    from analyzer.lab import matrix

    truth = json.loads(truth_path.read_text())
    folder = truth_path.parent
    assert not (REQUIRED | MATRIX_FIELDS) - truth.keys()
    assert truth["root_cause_category"] in TAXONOMY_IDS
    assert truth["family"] in matrix.FAMILIES
    assert truth["style"] == folder.parent.name and truth["fault"] in matrix.FAULTS
    assert folder.name.startswith(f"{truth['fault']}-{truth['target_role']}-{truth['phase']}-")
    ffn = truth["first_failing_node"]
    if truth["root_cause_category"] == "none":
        assert ffn is None and truth["task"] is None
    else:
        assert ffn in truth["nodes"]
        job, index = ffn.split(":")
        assert truth["task"] == f"/job:{job}/replica:0/task:{index}"
        assert ISO_Z.match(truth["fault_time_utc"]), truth["fault_time_utc"]
    assert truth["verified"] is True
    missing = set(truth["missing_nodes"])
    listed = set(truth.get("launcher_files", []))
    for node in truth["nodes"]:
        files = truth["node_files"][node]
        assert bool(files) != (node in missing), node
        for f in files:
            assert (folder / f).is_file(), f
            listed.add(f)
    on_disk = {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.name != "truth.json"
    }
    assert on_disk == listed
    for ev in truth["evidence"]:
        lines = _read(folder / ev["file"]).splitlines()
        assert lines[ev["line_no"] - 1].startswith(ev["text"][:200])
    if any(k in truth for k in ("kubernetes", "compose", "systemd", "runit", "tmux")):
        # a TFJob's pods' logs hold only what the containers wrote (analyzer/lab/kubernetes.py),
        # so do a compose project's containers' (analyzer/lab/compose.py); the hosts' journals
        # hold systemd's own lines about the units it stopped (analyzer/lab/systemd.py); runit
        # writes no file of its own, each service's svlogd directory is its task's
        # (analyzer/lab/runit.py); nor does tmux, each window's log is its task's
        # (analyzer/lab/tmux.py)
        assert truth["launcher_files"] == []
    elif truth["ended_by"] == "launcher_timeout":
        # the lab's launcher.log, or a scheduler's own output (Slurm's slurm-<jobid>.out)
        job_log = (
            f"slurm-{truth['slurm_job_id']}.out" if "slurm_job_id" in truth else "launcher.log"
        )
        if "mpi_output" in truth:  # mpirun's output as the batch system captured it
            job_log = truth["launcher_files"][0]
            assert job_log in ("mpirun.log", f"job-{truth['batch_job_id']}.out")
        if "spark_output" in truth:  # the driver's output as the scheduler captured it
            job_log = (
                "spark-submit.log" if truth["naming"] == "spark_submit_log" else "spark-submit.err"
            )
        if "ray_output" in truth:  # the Ray driver's console, else the session's raylet log
            job_log = {"ray_both": "ray-job.err", "ray_driver": "ray-job.log"}.get(
                truth["naming"]
            ) or next((f for f in truth["launcher_files"] if f.endswith("/raylet.out")), "")
        if "supervisord_output" in truth:  # supervisord's own log (analyzer/lab/supervisord.py)
            job_log = "supervisord.log"
        if "honcho_output" in truth:  # honcho's merged output (analyzer/lab/honcho.py)
            job_log = "honcho.log"
        if "parallel_output" in truth:  # GNU parallel's output (analyzer/lab/parallel.py)
            job_log = "parallel.log"
        if "pdsh_output" in truth:  # pdsh's output (analyzer/lab/pdsh.py)
            job_log = "pdsh.log"
        assert job_log in truth["launcher_files"]


@pytest.mark.lab
@live
def test_live_matrix_cell(tmp_path):
    from analyzer.lab import matrix

    cell = next(c for c in matrix.cells() if c.folder == "mwms_keras/healthy-none-full-gz")
    truth = matrix.run_cell(cell, tmp_path, timeout=120)
    assert truth["root_cause_category"] == "none" and truth["verified"] is True
    assert truth["style"] == "mwms_keras" and truth["naming"] == "gz"
    assert set(truth["exit_codes"].values()) == {0}, truth["exit_codes"]
    for node in truth["nodes"]:
        (name,) = truth["node_files"][node]
        assert name.endswith(".log.gz")
        text = _node_text(tmp_path, truth, node)
        assert "tf.__version__ = " in text and "Traceback" not in text
    assert "training finished" in _node_text(tmp_path, truth, "chief:0")
