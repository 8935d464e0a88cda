"""The excerpt corpus (tests/corpus/excerpts/): what users paste in issues, judged one file at a
time, as ``tfdiag analyze FILE`` does. The figures asserted here are the ones measured when the
corpus and its rules were committed (README "Excerpts"); a change that lowers them fails."""

from __future__ import annotations

import csv

import pytest
from conftest import ROOT

from analyzer.evaluate.excerpts import COLUMNS, LABELS, evaluate, figures, valid_split
from analyzer.model import CATEGORIES

CORPUS = ROOT / "tests" / "corpus" / "excerpts"

#: Measured figures, rounded down (see tests/corpus/excerpts/README.md for how they were reached).
#: ``fresh`` was 25/48 recall untouched (tests/corpus/excerpts/measurements/fresh2-untouched.txt);
#: the floor is the figure after its misses were looked at and fixed (45/48). ``fresh3`` was 30/38
#: recall and 11/12 benign-clean untouched (measurements/fresh3-untouched.txt); its floor is the
#: figure after general rules were added for its misses (36/38, 11/12). ``all`` is lower than
#: before fresh3 because the corpus grew by its three misses, not because a verdict regressed.
#: ``fresh4`` was 25/41 recall and 12/14 benign-clean untouched (measurements/fresh4-untouched.txt);
#: its floor is the figure after general rules from the tools' templates were added for its
#: misses (38/41, 14/14; measurements/all-after-fresh4-fixes.txt). ``fresh5`` was 14/23 recall
#: and 10/11 benign-clean untouched (measurements/fresh5-untouched.txt); its floor is the figure
#: after the generic storage / version-skew / MPI families (21/23, 10/11;
#: measurements/all-after-fresh5-fixes.txt). ``fresh6`` was 19/29 and 13/16 untouched, then 21/29
#: and 13/16 after those families, which never saw it (measurements/fresh6-untouched*.txt); its
#: floor is the figure after general rules from the libraries' templates were added for its
#: misses (25/29, 15/16; measurements/all-after-fresh6-fixes.txt). ``fresh5`` rose to 22/23 with
#: the torch checkpoint-size rule. ``fresh7`` was 14/26 and 12/14 untouched, before and after the
#: fresh6 fixes, which never saw it (measurements/fresh7-untouched*.txt); its floor is the figure
#: after general rules from the emitting programs' templates were added for its misses (21/26,
#: 14/14; measurements/all-after-fresh7-fixes.txt), and ``all`` rose with it (352/371, 143/145).
#: ``fresh8`` was 19/28 and 13/13 untouched (measurements/fresh8-untouched.txt); its floor is the
#: figure after general rules from the emitting programs' templates were added for its misses
#: (24/28, 13/13; measurements/all-after-fresh8-fixes.txt), and ``all`` rose with it (371/399 ->
#: 376/399, 156/158). Its four left are label questions the lines cannot settle (a bare
#: ``Killed``, a SIGTERM from the job's own launcher, a Horovod shutdown after an unpasted OOM,
#: c10d's start-up retry warnings), not missing templates.
#: ``fresh9`` was 21/28 and 11/13 untouched (measurements/fresh9-untouched.txt; after the fresh8
#: fixes, which never saw it); its floor is the figure after general rules from the emitting
#: programs' templates were added for its misses (28/28, 13/13;
#: measurements/all-after-fresh9-fixes.txt), and ``all`` rose with it (397/427 -> 407/427,
#: 167/171 -> 170/171). The same rules fixed older misses of the same families: ``fresh5`` 23/23
#: and 11/11 (an all-gather past its timeout, a Ray 1.x downscale), ``fresh6`` 26/29 (the
#: watchdog's stack), ``fresh7`` 22/26 (a collective group-size mismatch). The NCCL watchdog's
#: timeout is ``deadline_exceeded`` now (the taxonomy's words), so four ``fresh`` rows that had
#: labelled it ``collective_error`` were relabelled, each with a note; ``fresh`` stays 45/48.
#: ``fresh10`` was 18/31 and 8/13 untouched, before and after the fresh9 fixes, which never saw
#: it (measurements/fresh10-untouched*.txt); its floor is the figure after general rules from the
#: emitting programs' templates were added for its misses (27/31, 11/13;
#: measurements/all-after-fresh10-fixes.txt), and ``all`` rose with it (425/458 -> 434/458,
#: 178/184 -> 181/184). A bare ``Killed`` stays node_crash (the taxonomy's words), so the
#: pastes labelled oom for one stay misses, as do a thread's traceback after a finished run, a
#: ps-lite check failed at exit and a run whose log shows no failure.
#: ``fresh11`` was 10/26 and then 11/26 untouched (14/14 benign-clean both times;
#: measurements/fresh11-untouched*.txt); its floor is the figure after general rules from the
#: emitters' templates were added for its misses (16/26, 14/14; gRPC's "'%s' scheme not supported
#: in proxy URI", horovodrun's ssh check with OpenSSH's "Permission denied (publickey,...)" read as
#: a login failure rather than a file permission, TF's GCS "'Location' header not returned" and
#: collectives' "RecvBufResponse returned N bytes where to_tensor expected M";
#: measurements/all-after-fresh11-fixes.txt), and ``all`` rose with it (445/484 -> 450/484,
#: benign-clean 195/198 unchanged). A bare ``Killed`` stays node_crash (the taxonomy's words).
#: ``fresh12`` (21 excerpts, 4 benign: the helper found fewer qualifying threads than asked)
#: was 10/17 and 4/4 untouched (measurements/fresh12-untouched.txt); its floor is that figure
#: (no rule was written for its misses yet), and ``all`` became 460/501, 199/202. Its floor is
#: now the figure after general rules from the emitters' sources were added for its misses (13/17,
#: 4/4; measurements/all-after-fresh12-fixes.txt): TF eager's "'%s' is neither a type of a
#: primitive operation nor a name of a function registered in binary running on" (both
#: wordings), ctpu's TF-version checks, Open MPI's "*** End of error message ***" footer (and
#: glibc's older crash wordings with them); ``all`` rose with it (460/501 -> 463/501, 199/202
#: unchanged). The four left end before the error their thread is about (a traceback's frames
#: or a Jupyter header only): no line shows the cause, so they stay misses.
#: ``fresh13`` (16 excerpts, 7 benign; mostly single-machine TensorFlow: the collector found few
#: distributed-TF threads not already listed) was 8/9 and 7/7 untouched
#: (measurements/fresh13-untouched.txt, after the fresh12 fixes, which never saw it); its floor
#: is that figure, and ``all`` became 471/510, 206/209.
#: ``fresh14`` (33 excerpts, 13 benign) was 12/20 and 13/13 untouched
#: (measurements/fresh14-untouched.txt, at 4b65b53); its floor is the figure after its misses were
#: fixed (18/20, 13/13; measurements/all-after-fresh14-fixes.txt). Four of its eight misses were a
#: shell's bare ``Killed`` that the thread concluded was the OOM killer, as every such paste in the
#: corpus (11, in six batches) was: the shell's own "Killed" names no sender, a scheduler or a
#: launcher names itself, so the bare word is now oom (memory.shell_killed) rather than node_crash,
#: which fixed the older ones too; with Slurm's "exceeded memory limit" and CUDA's "no kernel image
#: for the device" ``all`` rose 486/530 -> 496/530 (219/222 unchanged). Left: a launcher's
#: ``died with <Signals.SIGKILL: 9>`` (a launcher names the signal, not the sender: node_crash) and a
#: traceback cut before its error.
#: ``fresh15`` (15 excerpts, 4 benign: most threads the searches return are listed already) was
#: 8/11 and 4/4 untouched (measurements/fresh15-untouched.txt, at 67c4f36); its floor is the
#: figure after its misses were fixed (10/11, 4/4; measurements/all-after-fresh15-fixes.txt):
#: cuDNN's "Could not create cudnn handle" / "Failed to get convolution algorithm" as oom (the
#: GPU's memory taken; fresh13's tony-pr-486 too) and TF's GCS configure ops' errors as
#: filesystem_error; ``all`` 496/530 -> 507/541, 223/226. Left: a docker build's exit code 137
#: (a launcher's code names no sender: node_crash by the taxonomy's words).
#: ``fresh16`` (28 excerpts, 9 benign; mostly single-machine TensorFlow: nearly every distributed
#: thread the searches returned is listed already) was 14/19 and 9/9 untouched
#: (measurements/fresh16-untouched.txt, at c9a836b); its floor is the figure after two general
#: templates were added looking at its misses (16/19, 9/9; measurements/all-after-fresh16-fixes.txt):
#: gdb's "received signal SIGILL|SIGBUS|SIGFPE" as a fatal signal and Cloud Run's / Cloud
#: Functions' "Memory limit of N exceeded with M used" as a container's memory limit; ``all``
#: 521/560 -> 523/560, 232/235. Left: a paste whose OOM lines are not in it, a Caffe host
#: allocation failure, and h5py's "unable to lock file" on NFS with one process (its lines are
#: those of two writers; concurrent_write).
#: ``fresh17`` (12 excerpts, 2 benign; five from distributed or launched TF jobs) was 8/10 and 1/2
#: untouched (measurements/fresh17-untouched.txt, at 7b00304); its floor is the figure after two
#: templates were added looking at its misses (9/10, 2/2; measurements/all-after-fresh17-fixes.txt):
#: Python 2's "'module' object has no attribute" as a missing symbol (version_mismatch) and NCCL
#: 2.19's "NET/Plugin : dlerror=... No plugin found" as the harmless plugin fallback; ``all``
#: 532/570, 234/237. Left: mpirun's "exited on signal 9 (Killed)" alone, called a host OOM.
#: ``fresh18`` (33 excerpts, 12 benign; from public repositories' files — documentation and FAQ
#: pages that paste an error and state its cause, committed logs of runs that finished — rather
#: than issue threads) raised the totals below (807 -> 840 excerpts, 237 -> 249 benign). It was
#: 5/21 and 9/12 untouched (measurements/fresh18-untouched.txt, at 7578a9a), the lowest recall
#: yet; its floor is the figure after the fixes written looking at its misses (10/21, 12/12;
#: measurements/all-after-fresh18-fixes.txt): a finding the paste's own training steps went on
#: past does not count (excerpt._not_gone_past; tf_cnn_benchmarks' step rows and "step N,
#: duration" lines read as progress), tensor.cc's dtype CHECK, "Unable to get element as bytes",
#: an error raised out of tf.io.gfile's file_io.py, "'str' object has no attribute 'decode'"
#: (h5py 3 under older Keras) and glibc's "Inconsistency detected by ld.so"; ``all`` 532/570 ->
#: 542/591 recall (the new batch's misses lower it), 234/237 -> 246/249 benign-clean.
#: ``fresh19`` (30 excerpts, 18 benign; saved cell outputs of Jupyter notebooks committed in public
#: repositories, a new source) raised the totals below (840 -> 870 excerpts, 249 -> 267 benign).
#: ``fresh20`` (14 excerpts, 4 benign; saved cell outputs of other notebooks, as fresh19) raised them
#: again (870 -> 884 excerpts, 267 -> 271 benign).
#: ``fresh21`` (25 excerpts, 8 benign; 8 log files committed in public repositories and 17 issue
#: threads) raised them again (884 -> 909 excerpts, 271 -> 279 benign); it was 14/17 recall and 4/8
#: benign-clean untouched (measurements/fresh21-untouched.txt, at eb3bbe5) and its floors are that
#: figure (not tuned on). Its misses lower ``all`` from 558/613 (91.0%) to 572/630 (90.8%) recall and
#: from 267/271 (98.5%) to 271/279 (97.1%) benign-clean, below the 0.91 / 0.98 floors: ``all`` is
#: floored at the measured figure until a session fixes fresh21's misses and raises it back.
#: Session 16 fixed four of them (measurements/all-after-fresh21-fixes.txt): all 575/630 recall
#: (91.3%), 272/279 benign-clean (97.5%).
#: ``fresh22`` (20 excerpts, 7 benign; issue threads) raised them again (909 -> 929 excerpts,
#: 279 -> 286 benign); it was 12/13 recall and 7/7 benign-clean untouched
#: (measurements/fresh22-untouched.txt, at 5c202c5) and its floors are that figure (not tuned on);
#: ``all`` stays at 0.91 / 0.97 with it (587/643 = 91.3% recall, 279/286 = 97.6% benign-clean).
#: ``fresh23`` (25 excerpts, 8 benign; issue and PR threads) raised them again (929 -> 954 excerpts,
#: 286 -> 294 benign); it was 14/17 recall and 8/8 benign-clean untouched
#: (measurements/fresh23-untouched.txt, at c29616e) and its floors are that figure (not tuned on);
#: ``all`` stays at 0.91 / 0.97 with it (602/660 = 91.2% recall, 287/294 = 97.6% benign-clean).
#: ``fresh24`` (20 excerpts, 6 benign; issue and PR threads, mostly distributed TF and launchers'
#: formats) raised them again (954 -> 974 excerpts, 294 -> 300 benign); it was 11/14 recall and 6/6
#: benign-clean untouched (measurements/fresh24-untouched.txt, at 71502e7) and its floors are that
#: figure (not tuned on); ``all`` stays at 0.91 / 0.97 with it (614/674 = 91.1% recall, 293/300 =
#: 97.7% benign-clean).
#: ``fresh25`` (20 excerpts, 7 benign; issue threads aimed at hangs and stragglers — Horovod's
#: stall inspector —, start-up waits, deadlines and launchers' formats) raised them again (974 ->
#: 994 excerpts, 300 -> 307 benign); it was 5/13 recall and 7/7 benign-clean untouched
#: (measurements/fresh25-untouched.txt, at a544003, and again at main's merge): Horovod's stall
#: report was read by no rule when a paste wrapped its first line or held only its per-tensor
#: lines, and was collective_error where it was read. After reading it as the taxonomy's hang
#: (and relabelling fresh3's and fresh4's two excerpts of the same report from collective_error
#: to hang, by the taxonomy) and PyTorch's "Some NCCL operations have failed or timed out" as
#: the consequence of the line before it, 11/13; ``all`` 626/687 (91.1%) recall, 300/307 (97.7%)
#: benign-clean.
#: ``fresh26`` (20 excerpts, 7 benign; issue threads aimed at distributed TensorFlow proper — ps/worker
#: clusters, Estimator, MultiWorkerMirroredStrategy, TFJob, TensorFlowOnSpark, Cloud ML Engine — and
#: the rarer families) raised them again (994 -> 1014 excerpts, 307 -> 314 benign); it was 7/13
#: recall and 7/7 benign-clean untouched (measurements/fresh26-untouched.txt, at 73d7c35, and again
#: at main's merge 7328a66, with no diagnosis change between). After rules from the emitters' own
#: templates (TensorFlow's parse-example and executor dtype checks, its device manager's "unknown
#: device" for a task the cluster lacks, Cloud ML Engine's "ran out-of-memory", master.cc's
#: CreateSession wait in any case), 12/13; ``all`` 638/700 (91.1%) recall, 307/314 (97.8%)
#: benign-clean (measurements/all-after-fresh26-fixes.txt).
MIN_EXCERPTS = 1014
MIN_BENIGN = 314
MIN_RECALL = {
    "tune": 1.00,
    "holdout": 1.00,
    # fresh: 45/48 -> 44/48 when Ray's driver prefix began to part a stream by process: the
    # bigdl-issue-4409 paste holds three Ray workers' lines, no longer one node's excerpt
    "fresh": 0.91,
    "fresh3": 0.94,
    "fresh4": 0.92,
    "fresh5": 1.00,
    "fresh6": 0.89,
    "fresh7": 0.92,
    "fresh8": 0.89,
    "fresh9": 1.00,
    "fresh10": 0.93,
    "fresh11": 0.65,
    "fresh12": 0.76,
    "fresh13": 1.00,
    "fresh14": 0.90,
    "fresh15": 0.90,
    "fresh16": 0.84,
    "fresh17": 0.90,
    "fresh18": 0.47,
    # fresh19: 7/12 untouched (measurements/fresh19-untouched.txt); 8/12 after colour codes are
    # removed at reading (an ImportError coloured apart from its colon)
    "fresh19": 0.66,
    # fresh20: 6/10 untouched (measurements/fresh20-untouched.txt); 9/10 after the templates of
    # glibc's loader, a SavedModel function with no matching signature and tfds' dataset versions
    "fresh20": 0.90,
    # fresh21: 14/17 untouched (measurements/fresh21-untouched.txt); 17/17 after the templates
    # of MySQL's unknown host, YARN's lost node, and a deadline whose peer no log here is
    "fresh21": 1.00,
    # fresh22: 12/13 untouched (measurements/fresh22-untouched.txt); 13/13 after the shell's
    # "Killed" glued to the end of Keras' progress bar was read
    "fresh22": 1.00,
    # fresh23: 14/17 untouched (measurements/fresh23-untouched.txt, and again at main's merge:
    # fresh23-untouched-at-merge.txt); 15/17 after its own-spec fix (all-after-fresh23-fixes.txt)
    "fresh23": 0.88,
    # fresh24: 11/14 untouched (measurements/fresh24-untouched.txt, and again at main's merge:
    # fresh24-untouched-at-merge.txt); 12/14 after macOS dyld's "Symbol not found" was read
    # as a version mismatch (all-after-fresh24-fixes.txt)
    "fresh24": 0.85,
    # fresh25: 5/13 untouched (measurements/fresh25-untouched.txt, and again at main's merge:
    # fresh25-untouched-at-merge.txt); 11/13 after Horovod's stall report was read as a hang
    # and PyTorch's NCCL notice as a consequence (all-after-fresh25-fixes.txt)
    "fresh25": 0.84,
    # fresh26: 7/13 untouched (measurements/fresh26-untouched.txt, and at main's merge); 12/13
    # after the templates' rules (all-after-fresh26-fixes.txt)
    "fresh26": 0.92,
    "all": 0.91,
}
MIN_BENIGN_CLEAN = {
    "tune": 1.00,
    "holdout": 1.00,
    "fresh": 1.00,
    "fresh3": 1.00,
    "fresh4": 1.00,
    "fresh5": 1.00,
    "fresh6": 0.93,
    "fresh7": 1.00,
    "fresh8": 1.00,
    "fresh9": 1.00,
    "fresh10": 0.84,
    "fresh11": 1.00,
    "fresh12": 1.00,
    "fresh13": 1.00,
    "fresh14": 1.00,
    "fresh15": 1.00,
    "fresh16": 1.00,
    "fresh17": 1.00,
    "fresh18": 1.00,
    # fresh19: 12/18 untouched; 17/18 after CPython's "Exception ignored in:" became one event
    # with its traceback, TensorFlow's port picker's bind retries, the AWS OFI plugin's
    # fallback to sockets and a harmless warning's continuation lines were read as harmless
    "fresh19": 0.94,
    "fresh20": 1.00,
    # fresh21: 4/8 untouched (measurements/fresh21-untouched.txt); 5/8 after libibverbs'
    # provider probe was read as harmless
    "fresh21": 0.62,
    # fresh22: 7/7 untouched (measurements/fresh22-untouched.txt)
    "fresh22": 1.00,
    # fresh23: 8/8 untouched (measurements/fresh23-untouched.txt)
    "fresh23": 1.00,
    # fresh24: 6/6 untouched (measurements/fresh24-untouched.txt)
    "fresh24": 1.00,
    # fresh25: 7/7 untouched (measurements/fresh25-untouched.txt)
    "fresh25": 1.00,
    # fresh26: 7/7 untouched (measurements/fresh26-untouched.txt)
    "fresh26": 1.00,
    # all: 0.98 before fresh21; 272/279 (97.5%) with its three benign misses left
    "all": 0.97,
}
#: Batches committed before analyzer/evaluate/excerpts.py knows their name (it learns it when the
#: batch is measured once, untouched); their rows are valid with the batch as their split.
NEW_BATCHES: frozenset[str] = frozenset({"fresh27"})


def _rows() -> list[dict[str, str]]:
    with (CORPUS / LABELS).open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == COLUMNS
        return list(reader)


def test_every_label_row_is_valid():
    rows = _rows()
    assert len(rows) >= MIN_EXCERPTS
    assert sum(r["label"] == "benign" for r in rows) >= MIN_BENIGN
    files = [r["file"] for r in rows]
    assert len(files) == len(set(files)), "a file is listed twice"
    for r in rows:
        path = CORPUS / r["file"]
        assert path.is_file() and path.suffix == ".txt", r["file"]
        assert path.read_bytes().strip(), f"{r['file']} is empty"
        assert r["label"] == "benign" or r["label"] in CATEGORIES, r
        assert r["label"] != "none", "a harmless excerpt is labelled benign"
        assert (r["family"] == "benign") == (r["label"] == "benign"), r
        assert r["source"].startswith("https://"), r
        assert r["split"] in NEW_BATCHES or valid_split(r["file"], r["split"]), (
            f"{r['file']}: the split is fixed by its name"
        )


def test_every_excerpt_file_is_listed():
    listed = {r["file"] for r in _rows()}
    on_disk = {p.name for p in CORPUS.glob("*.txt")}
    assert on_disk == listed


@pytest.fixture(scope="module")
def verdicts():
    return evaluate(CORPUS)


def test_recall_and_benign_clean_per_split(verdicts):
    fig = figures(verdicts)
    for split, floor in MIN_RECALL.items():
        right, total = fig["recall"][split]
        assert total and right / total >= floor, (split, right, total)
    for split, floor in MIN_BENIGN_CLEAN.items():
        right, total = fig["benign_clean"][split]
        assert total and right / total >= floor, (split, right, total)


def test_no_excerpt_breaks_the_analysis(verdicts):
    assert not [r["file"] for r in verdicts if r["category"] == "error"]


def test_an_excerpt_names_only_a_task_its_lines_name(verdicts):
    """One node's lines never invent a first failing node: when the verdict points away from
    the pasted node, at a peer whose log is not here, the lines name that peer."""
    pointed = [r for r in verdicts if "the lines point at" in (r["summary"] or "")]
    assert pointed, "some excerpts name the peer they lost"
    for r in pointed:
        text = (CORPUS / r["file"]).read_text(encoding="utf-8", errors="replace")
        job, _, index = str(r["node"]).partition(":")
        assert f"/job:{job}/replica:0/task:{index}" in text or f"/job:{job}/task:{index}" in text, (
            r["file"],
            r["node"],
        )


def test_only_takes_a_named_split(capsys):
    from analyzer.evaluate.excerpts import main

    assert main(CORPUS, only="bogus") == 2
    assert "--only takes one of tune, holdout, fresh" in capsys.readouterr().out


def test_the_table_has_a_column_per_split_present():
    from analyzer.evaluate.excerpts import markdown

    rows = [
        {"label": "oom", "family": "oom", "split": "fresh", "right": True},
        {"label": "benign", "family": "benign", "split": "fresh", "right": False},
        {"label": "oom", "family": "oom", "split": "tune", "right": False},
    ]
    table = markdown(rows).splitlines()
    assert table[0] == "| family | tune | fresh | all |"
    assert "| oom | 0/1 (0%) | 1/1 (100%) | 1/2 (50%) |" in table
    assert "| **benign-clean** | – | 0/1 (0%) | 0/1 (0%) |" in table


# --------------------------------------------------------------------------- general signals
# Real lines (each from the thread named beside it), put together in one paste to check how the
# general signals of patterns/fallback.yaml rank against the specific rules.
_CUDA_OOM = "RuntimeError: CUDA error: out of memory"  # MIC-DKFZ/nnUNet#593
_SHAPES = (  # bedapudi6788/deepcorrect#21
    "ValueError: Dimension 0 in both shapes must be equal, but are 2 and 98. Shapes are "
    "[2,256] and [98,256]. for 'Assign' (op: 'Assign') with input shapes: [2,256], [98,256]."
)
_TF_OOM = (  # santi-pdp/segan#42
    "ResourceExhaustedError (see above for traceback): OOM when allocating tensor with "
    "shape[100,4096,32]"
)
_UNAVAILABLE = (
    "tensorflow.python.framework.errors_impl.UnavailableError: OS Error"  # kubeflow/trainer#778
)
_NCCL_INFO = (  # NVIDIA/nccl#1504
    "678c7278cb2d:26023:27095 [0] NCCL INFO [Service thread] Connection closed by localRank 0"
)


def _paste(tmp_path, *lines: str) -> dict:
    from analyzer.evaluate.excerpts import judge

    path = tmp_path / "paste.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return judge(path)


def test_a_general_sign_alone_names_its_cause_and_quotes_the_line(tmp_path):
    verdict = _paste(tmp_path, _CUDA_OOM)
    assert verdict["category"] == "oom"
    assert "CUDA error: out of memory" in verdict["summary"]


def test_a_specific_rule_outranks_a_general_sign_logged_before_it(tmp_path):
    assert _paste(tmp_path, _SHAPES)["category"] == "shape_mismatch"
    assert _paste(tmp_path, _SHAPES, _TF_OOM)["category"] == "oom"


def test_a_general_sign_of_a_cause_outranks_a_generic_symptom(tmp_path):
    assert _paste(tmp_path, _UNAVAILABLE)["category"] == "connection_unavailable"
    assert _paste(tmp_path, _UNAVAILABLE, _CUDA_OOM)["category"] == "oom"


def test_a_broad_word_on_an_info_line_is_not_a_failure(tmp_path):
    assert _paste(tmp_path, _NCCL_INFO)["category"] == "none"


# --------------------------------------------------------------------------- the NCCL watchdog
# Real lines: arrival-ltd/catalyst-rl-tutorial#15 (an abort and its what()) and
# XPixelGroup/BasicSR#737 (a watchdog timeout and the watchdog's follow-up line).
_CATALYST = (CORPUS / "catalyst-rl-issue-15-distbackenderror-watchdog-broadcast.txt").read_text(
    encoding="utf-8"
)
_BASICSR = (CORPUS / "basicsr-issue-737-watchdog-allreduce-three-ranks.txt").read_text(
    encoding="utf-8"
)


def _line(text: str, needle: str) -> str:
    return next(line for line in text.splitlines() if needle in line)


def test_an_abort_is_read_with_its_what_line(tmp_path):
    """libstdc++ prints the exception's what() on the line after "terminate called": a cause a
    rule finds there is the verdict; the abort alone stays a crash."""
    abort = _line(_CATALYST, "terminate called after throwing")
    what = _line(_CATALYST, "what():")
    assert _paste(tmp_path, abort)["category"] == "node_crash"
    assert _paste(tmp_path, abort, what)["category"] == "deadline_exceeded"
    # a what() line that is not the next line is not the abort's message
    assert _paste(tmp_path, abort, _NCCL_INFO, what)["category"] == "node_crash"


def test_a_watchdog_timeout_is_a_deadline_and_its_follow_up_line_says_no_cause(tmp_path):
    timeout = _line(_BASICSR, "Watchdog caught collective operation timeout")
    follow = _line(_BASICSR, "Exception (either an error or timeout) detected by watchdog")
    assert _paste(tmp_path, timeout, follow)["category"] == "deadline_exceeded"
    assert _paste(tmp_path, follow)["category"] == "collective_error"


# --------------------------------------------------------------------------- went on past it
# Real lines: a committed tf_cnn_benchmarks log whose run finished (LambdaColdStorage/
# lambda-tensorflow-benchmark, in the corpus as a benign fresh18 excerpt): an I-level
# CUDA_ERROR_OUT_OF_MEMORY during warm-up, then the step table.
_LAMBDA = (
    CORPUS
    / "lambda-tf-benchmark-log-2080-maxq-inception3-fp16-tf1-15-failed-to-allocate-cuda-oom-benign.txt"
).read_text(encoding="utf-8")


def test_a_finding_the_training_went_on_past_does_not_count(tmp_path):
    """The allocator's failed allocation was retried: three step reports after it show the
    job went on. With fewer reports after it (or none), it is the verdict."""
    lines = _LAMBDA.splitlines()
    oom = next(i for i, line in enumerate(lines) if "CUDA_ERROR_OUT_OF_MEMORY" in line)
    rows = [i for i, line in enumerate(lines) if "images/sec:" in line and i > oom]
    assert len(rows) >= 3
    assert _paste(tmp_path, *lines)["category"] == "none"
    assert _paste(tmp_path, *lines[: rows[2] + 1])["category"] == "none"
    assert _paste(tmp_path, *lines[: rows[1] + 1])["category"] == "oom"
    assert _paste(tmp_path, *lines[: oom + 1])["category"] == "oom"


# --------------------------------------------------------------------------- its own spec
# Real lines: alibaba/EasyRec#207 (in the corpus as a fresh23 excerpt): TF_CONFIG printed with a
# chief task in a cluster of workers only, then a traceback cut before its exception.
_EASYREC = (CORPUS / "easyrec-issue-207-tf-config-chief-task-workers-only-cluster.txt").read_text(
    encoding="utf-8"
)


def test_a_paste_whose_own_spec_lacks_its_task_is_a_spec_mismatch(tmp_path):
    verdict = _paste(tmp_path, *_EASYREC.splitlines())
    assert verdict["category"] == "cluster_spec_mismatch"
    assert "not in its cluster spec" in verdict["summary"]
    # the same lines with a cluster that lists the chief: only the exception is left
    fixed = _EASYREC.replace("{'worker': [", "{'chief': ['localhost:2225'], 'worker': [")
    assert _paste(tmp_path, *fixed.splitlines())["category"] == "node_crash"
