"""The tfjob_k8s style's writers (analyzer/lab/kubernetes.py): TF_CONFIG as the training-operator
writes it, CRI log lines as containerd writes them, kubectl logs --prefix --timestamps, and the
files' layout. No TensorFlow, no cluster, no /etc/hosts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from analyzer.lab import kubernetes as k8s

CRI_LINE = re.compile(rb"^(\S+) (stdout|stderr) ([FP]) (.*)\n$", re.S)
NS = 1_795_532_177_125_764_000  # 2026-11-24T14:56:17.125764Z


def test_rfc3339nano_drops_trailing_zeros_and_fixed_keeps_nine_digits():
    assert k8s.rfc3339nano(NS) == "2026-11-24T14:56:17.125764Z"
    assert k8s.rfc3339nano(NS + 1) == "2026-11-24T14:56:17.125764001Z"
    assert k8s.rfc3339nano(NS - 125_764_000) == "2026-11-24T14:56:17Z"
    assert k8s.rfc3339nano_fixed(NS) == "2026-11-24T14:56:17.125764000Z"
    assert k8s.rfc3339nano_fixed(NS - 125_764_000) == "2026-11-24T14:56:17.000000000Z"


def test_a_cri_line_has_time_stream_tag_and_the_content_without_its_newline():
    (rec,) = k8s.cri_records(b"step 3/60 loss 1.0\r\n", partial=False)
    line = k8s.cri_line(NS, "stderr", *rec)
    assert line == b"2026-11-24T14:56:17.125764Z stderr F step 3/60 loss 1.0\n"
    m = CRI_LINE.match(line)
    assert m and m.group(4) == b"step 3/60 loss 1.0"
    # an empty line is a full record with no content (the header's space stays)
    assert k8s.cri_line(NS, "stdout", *k8s.cri_records(b"\n", False)[0]).endswith(b" F \n")


def test_long_and_unterminated_lines_are_partial_records():
    long = b"x" * (2 * k8s.MAX_LINE + 5) + b"\n"
    recs = k8s.cri_records(long, partial=False)
    assert [t for t, _ in recs] == ["P", "P", "F"]
    assert [len(c) for _, c in recs] == [k8s.MAX_LINE, k8s.MAX_LINE, 5]
    assert b"".join(c for _, c in recs) == long[:-1]
    assert k8s.cri_records(b"x" * k8s.MAX_LINE + b"\n", False) == [("F", b"x" * k8s.MAX_LINE)]
    # the stream ended in the middle of a line: one partial record, nothing for no bytes
    assert k8s.cri_records(b"Traceback (most rec", partial=True) == [("P", b"Traceback (most rec")]
    assert k8s.cri_records(b"", partial=True) == []


def test_tf_config_is_the_operators_json_with_service_names():
    cluster = {
        "worker": [k8s.service("worker", 0, 3), k8s.service("worker", 1, 4)],
        "chief": [k8s.service("chief", 0, 1)],
        "ps": [k8s.service("ps", 0, 2)],
    }
    raw = k8s.tf_config({"cluster": cluster, "task": {"type": "worker", "index": 1}})
    assert " " not in raw  # Go's json.Marshal
    assert list(json.loads(raw)) == ["cluster", "task", "environment"]
    assert list(json.loads(raw)["cluster"]) == ["chief", "ps", "worker"]
    assert json.loads(raw)["environment"] == "cloud"
    assert json.loads(raw)["task"] == {"type": "worker", "index": 1}
    assert cluster["worker"][1] == "recsys-tfjob-worker-1.kubeflow.svc:4"
    assert k8s.HOSTS_LINE.split()[0] == "127.0.0.1"
    assert "recsys-tfjob-ps-0.kubeflow.svc" in k8s.HOSTS_LINE.split()


NODES = ["chief:0", "ps:0", "worker:0", "worker:1"]


def _feed(kubelet: k8s.Kubelet) -> None:
    kubelet.line("chief:0", b"TF_CONFIG={}\n", "stdout", False)
    kubelet.line("ps:0", b"TF_CONFIG={}\n", "stdout", False)
    kubelet.line("chief:0", b"2026 - INFO - step 1/60 loss 2.0 (0.1 s)\n", "stderr", False)
    kubelet.line("ps:0", b"Traceback (most rec", "stderr", True)  # killed mid-line
    kubelet.closed("ps:0")
    kubelet.line("chief:0", b"UnavailableError: ps gone\n", "stderr", False)
    kubelet.closed("chief:0")


@pytest.mark.parametrize("naming", ["k8s_pods", "k8s_containers"])
def test_per_container_files_are_laid_out_as_kubelet_does(tmp_path: Path, naming: str):
    kubelet = k8s.Kubelet(tmp_path, naming, 7, NODES)
    _feed(kubelet)
    chief = kubelet.files["chief:0"]
    if naming == "k8s_pods":
        assert re.fullmatch(
            r"pods/kubeflow_recsys-tfjob-chief-0_[0-9a-f-]{36}/tensorflow/0\.log", chief
        )
        assert kubelet.uids["chief:0"] == k8s.pod_uid(7, "recsys-tfjob-chief-0")
    else:
        assert re.fullmatch(
            r"containers/recsys-tfjob-chief-0_kubeflow_tensorflow-[0-9a-f]{64}\.log", chief
        )
    lines = (tmp_path / chief).read_bytes().splitlines(keepends=True)
    assert [CRI_LINE.match(x).group(2, 3) for x in lines] == [
        (b"stdout", b"F"),
        (b"stderr", b"F"),
        (b"stderr", b"F"),
    ]
    (ps,) = (tmp_path / kubelet.files["ps:0"]).read_bytes().splitlines(keepends=True)[1:]
    assert CRI_LINE.match(ps).group(3, 4) == (b"P", b"Traceback (most rec")
    # the evidence moves from the task's plain copy (line 3) to the runtime's file
    truth = {
        "nodes": NODES,
        "node_files": {n: [k8s.raw_name(n)] for n in NODES[:2]} | {"worker:0": [], "worker:1": []},
        "evidence": [{"node": "chief:0", "line_no": 3, "text": "UnavailableError: ps gone"}],
    }
    (tmp_path / k8s.RAW_DIR).mkdir()
    kubelet.finish(truth)
    assert not (tmp_path / k8s.RAW_DIR).exists()
    (ev,) = truth["evidence"]
    assert (ev["file"], ev["line_no"]) == (chief, 3)
    assert ev["text"].endswith(" stderr F UnavailableError: ps gone")
    assert truth["node_files"]["chief:0"] == [chief] and truth["node_files"]["worker:1"] == []
    assert truth["launcher_files"] == []


def test_kubectl_prefixes_each_line_and_joins_what_kubelet_sent_without_a_newline(tmp_path):
    kubelet = k8s.Kubelet(tmp_path, "k8s_kubectl", 7, NODES)
    _feed(kubelet)
    assert set(kubelet.files.values()) == {"recsys-tfjob.log"}
    text = (tmp_path / "recsys-tfjob.log").read_text()
    ts = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z"
    lines = text.split("\n")
    assert re.fullmatch(rf"\[pod/recsys-tfjob-chief-0/tensorflow\] {ts} TF_CONFIG=\{{\}}", lines[0])
    assert lines[1].startswith("[pod/recsys-tfjob-ps-0/tensorflow] ")
    # the ps's stream ended on a partial record: no newline, the chief's next line follows it
    assert re.fullmatch(
        rf"\[pod/recsys-tfjob-ps-0/tensorflow\] {ts} Traceback \(most rec"
        rf"\[pod/recsys-tfjob-chief-0/tensorflow\] {ts} UnavailableError: ps gone",
        lines[3],
    )
    truth = {
        "nodes": NODES,
        "node_files": {n: [k8s.raw_name(n)] for n in NODES},
        "evidence": [{"node": "ps:0", "line_no": 2, "text": "Traceback (most rec"}],
    }
    kubelet.finish(truth)
    (ev,) = truth["evidence"]
    assert (ev["file"], ev["line_no"]) == ("recsys-tfjob.log", 4)
    assert truth["node_files"]["worker:0"] == ["recsys-tfjob.log"]


def test_a_long_line_reaches_kubectl_as_one_line_with_each_records_time(tmp_path):
    kubelet = k8s.Kubelet(tmp_path, "k8s_kubectl", 1, NODES)
    kubelet.line("worker:0", b"y" * (k8s.MAX_LINE + 3) + b"\n", "stderr", False)
    (line,) = (tmp_path / "recsys-tfjob.log").read_text().splitlines()
    head, tail = line.split("y" * k8s.MAX_LINE)
    assert head.startswith("[pod/recsys-tfjob-worker-0/tensorflow] ")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+Z yyy", tail)


def test_the_operator_fails_the_job_on_a_replicas_exit_and_deletes_the_running_pods(tmp_path):
    import signal
    import subprocess
    import sys
    from types import SimpleNamespace

    def proc(code: str):
        cmd = [sys.executable, "-c", f"import time, sys; time.sleep({code})"]
        return SimpleNamespace(popen=subprocess.Popen(cmd))

    procs = {"chief:0": proc("30"), "ps:0": proc("30"), "worker:1": proc("0.2")}
    kubelet = k8s.Kubelet(tmp_path, "k8s_pods", 1, list(procs))
    kubelet.watch(procs, "chief:0")
    procs["worker:1"].popen.send_signal(signal.SIGKILL)
    assert kubelet.acted.wait(10)
    codes = {n: p.popen.wait(10) for n, p in procs.items()}
    assert codes == {"chief:0": -15, "ps:0": -15, "worker:1": -9}
    assert kubelet.deleted == {"chief:0", "ps:0"}
    (event,) = kubelet.events
    assert (
        event["message"]
        == "TFJob kubeflow/recsys-tfjob has failed because 1 Worker replica(s) failed."
    )


@pytest.mark.parametrize("naming", ["k8s_pods", "k8s_containers", "k8s_kubectl"])
def test_a_restarted_container_writes_its_next_log_and_kubectl_stops_following(
    tmp_path, monkeypatch, naming
):
    monkeypatch.setattr(k8s, "RESTART_DELAY", 0.0)
    kubelet = k8s.Kubelet(tmp_path, naming, 3, NODES, on_failure=True)
    started = []
    kubelet.restarter = lambda node, raw: started.append((node, raw))
    kubelet.line("worker:1", b"first run\n", "stderr", False)
    kubelet._restart("worker:1", -9)
    assert started == [("worker:1", ".raw/worker-1.r1.log")]
    assert kubelet.restarts["worker:1"] == 1 and not kubelet.restart_due()
    kubelet.line("worker:1", b"second run\n", "stderr", False)
    truth = {
        "nodes": NODES,
        "node_files": {n: [k8s.raw_name(n)] for n in NODES},
        "notes": "",
        "evidence": [{"node": "worker:1", "file": ".raw/worker-1.r1.log", "line_no": 1}],
    }
    truth["evidence"][0]["text"] = "second run"
    if naming == "k8s_kubectl":
        text = (tmp_path / "recsys-tfjob.log").read_text()
        assert "first run" in text and "second run" not in text
        with pytest.raises(RuntimeError, match="not in"):
            kubelet.finish(truth)
        return
    kubelet.finish(truth)
    first, second = truth["node_files"]["worker:1"]
    if naming == "k8s_pods":
        assert first.endswith("/tensorflow/0.log") and second.endswith("/tensorflow/1.log")
        assert first.rsplit("/", 2)[0] == second.rsplit("/", 2)[0]  # the same pod
    else:
        assert first != second and first.startswith("containers/recsys-tfjob-worker-1_")
    assert (truth["evidence"][0]["file"], truth["evidence"][0]["line_no"]) == (second, 1)
    assert truth["kubernetes"]["pods"]["worker:1"]["restart_count"] == 1
    assert "restarted its container once" in truth["notes"]
