"""The words of the verdict: advice and phrases per category, how a log ends."""

from __future__ import annotations

DEFAULT_REMEDIATION = {
    "node_crash": "Find out why the process died: check the host's kernel log (dmesg) for the "
    "OOM killer, the scheduler's events for evictions, and the node's stderr for a native "
    "crash; restart it and consider checkpointing so the job can resume.",
    "address_in_use": "Another process holds the task's port: stop it, or give the task a free "
    "port in every node's TF_CONFIG.",
    "connection_unavailable": "Check that the peer task runs and listens on the address in the "
    "cluster spec, and that no firewall or network policy blocks the port.",
    "deadline_exceeded": "An RPC or barrier timed out: find the slow or stuck peer, or raise "
    "the timeout if the work legitimately takes longer.",
    "name_resolution": "A host name in the cluster spec does not resolve: fix the spec or DNS.",
    "cluster_spec_mismatch": "Give every task the same cluster spec (TF_CONFIG): same jobs, "
    "same addresses and ports in the same order, and a task index inside its job.",
    "session_blocked": "Start-up waits for a task that never answers: make sure every task "
    "in the cluster spec is launched and reachable.",
    "version_mismatch": "Run the same TensorFlow, protobuf and gRPC versions on every task.",
    "dtype_mismatch": "Cast the input to the dtype the model expects (check the input "
    "pipeline's dtypes against the model's).",
    "shape_mismatch": "Make the tensor shapes agree (check batch size and feature dimensions).",
    "oom": "Reduce the batch or model size, or give the task more memory.",
    "coordination_failure": "The coordination service gave up on a task: find the task it "
    "names and why it stopped answering (crash, hang, network).",
    "preemption": "The scheduler took the task away: use preemption-tolerant training "
    "(checkpoints, PreemptionCheckpointHandler) or non-preemptible capacity.",
    "concurrent_write": "Let only one task (the chief) write shared files, or give each task "
    "its own path.",
    "filesystem_error": "Check the storage path, its permissions and its availability from "
    "every node.",
    "collective_error": "Check the collective backend (NCCL) on every node: versions, network "
    "interfaces, and the NCCL_DEBUG=INFO output.",
}


ENDING_TEXT = {
    "clean": "with a clean shutdown",
    "exception": "with an error or exception",
    "killed": "with a kill / crash message",
    "mid-run": "mid-run, with no goodbye",
    "no log": "(no log)",
}


CATEGORY_PHRASE = {
    "node_crash": "died (killed or crashed)",
    "address_in_use": "could not bind its port",
    "connection_unavailable": "could not reach a peer",
    "deadline_exceeded": "ran past a deadline",
    "name_resolution": "could not resolve a peer's host name",
    "cluster_spec_mismatch": "has a cluster spec that disagrees with its peers'",
    "session_blocked": "was blocked waiting for a task at start-up",
    "version_mismatch": "runs an incompatible software version",
    "dtype_mismatch": "got a tensor of the wrong dtype",
    "shape_mismatch": "got a tensor of an incompatible shape",
    "oom": "ran out of memory",
    "coordination_failure": "was given up on by the coordination service",
    "preemption": "was preempted by the scheduler",
    "concurrent_write": "collided with another task writing the same file",
    "filesystem_error": "hit a storage error",
    "collective_error": "hit a collective-communication error",
}
