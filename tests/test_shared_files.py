"""A file several tasks wrote at once (analyzer/diagnose/shared_files.py), on a real lab run
next to copies changed so the signal must turn off."""

from __future__ import annotations

from conftest import ROOT, changed_run, without

from analyzer.diagnose.shared_files import PATH_RE, WRITE_RE
from analyzer.run import load

NOLOCK = ROOT / "tests" / "corpus" / "lab" / "mwms_ctl" / "hdf5_nolock-any-checkpoint-pod"
W0 = "resnet-worker-0-ef96.log"
W1 = "resnet-worker-1-958c.log"


def test_an_error_naming_a_file_three_tasks_saved_at_once_is_a_concurrent_write():
    """mwms_ctl, HDF5 locking off: the three workers save one .h5 within 2.5 s; worker:2 and
    worker:0 then fail on their own check of what they read back (a ValueError naming the
    file). The error says nothing of a race; the three save lines do."""
    rc = load(NOLOCK, condensed=True).root_cause
    assert (rc.node, rc.category) == ("worker:2", "concurrent_write")
    writers = [e for e in rc.evidence if "saving weights to" in e.text]
    assert {e.node for e in writers} == {"worker:0", "worker:1", "worker:2"}


def test_one_writer_is_no_race(tmp_path):
    """The same run with the other tasks' save lines removed: only worker:2 wrote the file."""
    run = changed_run(NOLOCK, tmp_path, W0, without("saving weights", "weights saved"))
    path = tmp_path / "run" / W1
    path.write_text(
        without("saving weights", "weights saved")(path.read_text(encoding="utf-8")),
        encoding="utf-8",
    )
    run = load(tmp_path / "run", condensed=True)
    assert run.root_cause.category != "concurrent_write"
    assert run.root_cause.node == "worker:2"


def test_an_error_that_names_another_file_is_no_race(tmp_path):
    """The error names a file nobody wrote: its category stays what its rule says."""

    def other_file(text: str) -> str:
        return text.replace("ValueError: /tmp/", "ValueError: /var/other/")

    run = changed_run(NOLOCK, tmp_path, "resnet-worker-2-3357.log", other_file)
    path = tmp_path / "run" / W0
    path.write_text(other_file(path.read_text(encoding="utf-8")), encoding="utf-8")
    run = load(tmp_path / "run", condensed=True)
    assert run.root_cause.category == "node_crash"


def test_paths_and_write_words():
    assert PATH_RE.findall("OSError: /tmp/a/model_weights.h5 is truncated") == [
        "/tmp/a/model_weights.h5"
    ]
    assert PATH_RE.findall("saved to gs://bucket/run1/w.ckpt") == ["gs://bucket/run1/w.ckpt"]
    assert PATH_RE.findall("step 3/60 loss 1.5") == []  # a ratio is no path
    assert WRITE_RE.search("saving weights to /x/y.h5")
    assert not WRITE_RE.search("weights read back from /x/y.h5")
