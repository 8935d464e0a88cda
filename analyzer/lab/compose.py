"""Docker's side of the lab's ``mwms_compose`` style: the launcher plays dockerd and
``docker compose`` for one compose project of three services.

What each part writes, read from its sources:

* **TF_CONFIG** as a compose file's ``environment:`` entry gives it: the JSON a user writes by
  hand, here ``json.dumps`` of ``{"cluster": {"worker": ["trainer-0:<port>", ...]}, "task":
  {"type": "worker", "index": i}}``, the services' names as hosts (compose's network resolves
  a service's name to its container). Worker 0 hosts the coordination service: the chief.
* **Containers** are named as compose v2 names them, ``<project>-<service>-<n>``
  (``mwms-trainer-0-1``), each with a 64-hex-digit id; a container's hostname is dockerd's
  default, the id's first 12 digits (each task runs in its own UTS namespace, ``unshare
  --uts``, with that hostname; dockerd also sets ``HOSTNAME``).
* **The json-file logging driver** (moby ``daemon/logger/copier.go``,
  ``daemon/logger/jsonfilelog/jsonfilelog.go`` ``marshalMessage`` and
  ``jsonlog/jsonlogbytes.go`` ``MarshalJSONBuf``): stdout and stderr are read apart, every
  line is one message without its newline; the driver writes one JSON object per line,
  fields in the order ``log``, ``stream``, ``time`` (``{"log":"...\\n","stream":"stderr",
  "time":"<RFC3339Nano>"}``; no ``attrs`` without log options), the newline put back into
  ``log`` unless the message is a partial one (``PLogMetaData`` not last); the copier cuts a
  line longer than its 16 KiB buffer into partial messages, the last piece the whole one, and
  a stream's last bytes without a newline are a partial message. ``log`` is escaped by
  ``ffjsonWriteJSONBytesAsString``: ``\\`` and ``"`` backslashed, ``\\n`` and ``\\r`` as such,
  other bytes below 0x20 and ``<``, ``>``, ``&`` as ``\\u00XX``, invalid UTF-8 as
  ``\\ufffd``, U+2028/U+2029 as ``\\u2028``/``\\u2029``. ``time`` is Go's ``time.RFC3339Nano``
  in UTC (``jsonlog/time_marshalling.go``: trailing zeros of the fraction dropped). The file
  is ``containers/<id>/<id>-json.log`` as under /var/lib/docker.
* **docker compose logs** for a third of the runs, instead, one file as ``docker compose
  logs -f --no-color --timestamps > compose.log 2>&1`` prints it while the job runs
  (docker/compose ``cmd/compose/logs.go`` passes ``Timestamps`` to the daemon and ``false``
  as the consumer's own timestamp; ``cmd/formatter/logs.go``): every line behind the
  presenter's prefix ``fmt.Sprintf("%-<width>s | ", name)``, ``name`` the container's name
  without the project (``trainer-0-1``), ``width`` one more than the longest name; the
  daemon puts each message's time (``RFC3339NanoFixed``, nine digits) and a space before its
  content, a partial message without its newline, so a line cut in pieces shows a time in
  its middle; lines interleaved as they come.
* **docker logs** for another third, one file per container as ``docker logs
  <container> > <container>.log 2>&1`` leaves it after the job (no ``-t``: no timestamps
  but the program's own; the pieces of a partial line joined again).
* **Nothing job-level.** ``docker compose logs`` prints only the containers' lines (no
  ``exited with code``: that is ``docker compose up`` attached, not used here); dockerd's
  own words (``docker inspect``'s ``OOMKilled``, ``ExitCode: 137``, a ``docker stop``) are in
  no file these commands write. The lab's end of a stalled job is ``docker compose down``
  (SIGTERM to every container, SIGKILL after the timeout) and a preemption is ``docker
  stop``; both are kept in truth.json only.

Name resolution: the service names resolve on the recording machine through an /etc/hosts
line (:data:`HOSTS_LINE`, added by hand as root before recording; ``check_names`` says when
it is missing). A wrong-count TF_CONFIG names a service the project does not have
(``trainer-3``): its name does not resolve, as on compose's network. Real containers each
have their own IP and may all listen on one port; here every task is on 127.0.0.1 and
TensorFlow binds ``0.0.0.0:<port>``, so each task gets its own port. Recorded runs are text
and never need the line to be read back. ``restart: on-failure`` is not played (not
recorded). No TensorFlow import here.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import threading
import time
from pathlib import Path

#: The compose project (the directory the compose file is in) and its services.
PROJECT = "mwms"
SERVICE = "trainer"
#: moby's copier buffer: a longer line is cut into partial messages.
MAX_LINE = 16 * 1024
#: The output forms, a third of the cells each.
NAMINGS = ("compose_json", "compose_logs", "docker_logs")
RAW_DIR = ".raw"  # the tasks' plain output while they run (removed when the run is settled)
COMPOSE_LOGS_FILE = "compose.log"
COMPOSE_COMMAND = f"docker compose logs -f --no-color --timestamps > {COMPOSE_LOGS_FILE} 2>&1"


def service_name(index: int) -> str:
    return f"{SERVICE}-{index}"


def service(index: int, port: int) -> str:
    """A task's address in the cluster spec: its service's name and the port."""
    return f"{service_name(index)}:{port}"


def container_name(index: int) -> str:
    """compose v2's container name: ``<project>-<service>-<replica number>``."""
    return f"{PROJECT}-{service_name(index)}-1"


def log_name(index: int) -> str:
    """The name compose's log printer shows: the container's name without the project."""
    return container_name(index)[len(PROJECT) + 1 :]


#: The services whose names resolve.
SERVICES = 3
HOSTS_LINE = "127.0.0.1 " + " ".join(service_name(i) for i in range(SERVICES))


def check_names() -> str | None:
    """None when every service name resolves, else what is missing."""
    bad = []
    for i in range(SERVICES):
        try:
            socket.getaddrinfo(service_name(i), None)
        except OSError:
            bad.append(service_name(i))
    if not bad:
        return None
    return f"{', '.join(bad)} do not resolve; as root add to /etc/hosts: {HOSTS_LINE}"


def tf_config(spec: dict) -> str:
    """A TF_CONFIG dict as a compose file's environment: entry spells it (plain JSON)."""
    task = {"type": spec["task"]["type"], "index": int(spec["task"]["index"])}
    return json.dumps({"cluster": spec["cluster"], "task": task})


def container_id(seed: int, index: int) -> str:
    """The container's id (64 hex digits; the cell's seed keeps it stable)."""
    return hashlib.sha256(f"{seed}/{container_name(index)}".encode()).hexdigest()


def json_log(cid: str) -> str:
    return f"containers/{cid}/{cid}-json.log"


def docker_logs_file(index: int) -> str:
    return f"{container_name(index)}.log"


OUTPUT_FORMS = {
    "compose_json": "each container's json-file log: containers/<id>/<id>-json.log",
    "compose_logs": f"one file: {COMPOSE_COMMAND}",
    "docker_logs": "one file per container: docker logs <container> > <container>.log 2>&1 (no -t)",
}


def raw_name(node: str) -> str:
    return f"{RAW_DIR}/{node.replace(':', '-')}.log"


# ----------------------------------------------------------------------------- formats
def rfc3339nano(ns: int) -> str:
    """Go's ``time.RFC3339Nano`` of a UTC time in ns: the fraction without trailing zeros."""
    secs, frac = divmod(ns, 1_000_000_000)
    base = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs))
    digits = f"{frac:09d}".rstrip("0")
    return f"{base}.{digits}Z" if digits else f"{base}Z"


def rfc3339nano_fixed(ns: int) -> str:
    """``jsonmessage.RFC3339NanoFixed`` (``2006-01-02T15:04:05.000000000Z07:00``)."""
    secs, frac = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{frac:09d}Z"


def json_escape(data: bytes) -> str:
    """moby's ``ffjsonWriteJSONBytesAsString`` (without the quotes)."""
    hexd = "0123456789abcdef"
    out: list[str] = []
    text = data.decode("utf-8", errors="replace")  # invalid UTF-8 -> U+FFFD, as \ufffd below
    for ch in text:
        b = ord(ch)
        if b < 0x80:
            if b >= 0x20 and ch not in '\\"<>&':
                out.append(ch)
            elif ch in '\\"':
                out.append("\\" + ch)
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\r":
                out.append("\\r")
            else:
                out.append("\\u00" + hexd[b >> 4] + hexd[b & 0xF])
        elif ch == "\ufffd":
            out.append("\\ufffd")
        elif ch in "\u2028\u2029":
            out.append("\\u202" + hexd[b & 0xF])
        else:
            out.append(ch)
    return "".join(out)


def messages(data: bytes, partial: bool, max_len: int = MAX_LINE) -> list[tuple[bytes, bool]]:
    """The (line, last) messages moby's copier sends for one line it read: ``data`` with its
    newline, or (``partial``) the stream's last bytes with none. ``last`` False: a partial
    message (its newline is not put back)."""
    if data.endswith(b"\n"):
        data = data[:-1]
    out = []
    while len(data) > max_len:
        out.append((data[:max_len], False))
        data = data[max_len:]
    if data or not partial:
        out.append((data, not partial))
    return out


def json_line(ns: int, stream: str, line: bytes, last: bool) -> bytes:
    """One line of a json-file log (``marshalMessage``)."""
    log = line + b"\n" if last else line
    parts = []
    if log:
        parts.append(f'"log":"{json_escape(log)}"')
    parts.append(f'"stream":"{stream}"')
    parts.append(f'"time":"{rfc3339nano(ns)}"')
    return ("{" + ",".join(parts) + "}\n").encode()


def api_piece(ns: int, line: bytes, last: bool) -> bytes:
    """What the daemon's log API sends for one message with timestamps (a partial message's
    content without a newline)."""
    return f"{rfc3339nano_fixed(ns)} ".encode() + line + (b"\n" if last else b"")


def compose_prefix(index: int, width: int) -> bytes:
    """compose's presenter prefix: ``%-<width>s | ``."""
    return f"{log_name(index):<{width}} | ".encode()


def compose_width(indices) -> int:
    """compose's ``computeWidth``: one more than the longest name."""
    return max(len(log_name(i)) for i in indices) + 1


# ----------------------------------------------------------------------------- the daemon
class Dockerd:
    """dockerd's and docker compose's output for one run.

    ``line(node, data, stream, partial)`` takes each line a task writes, the moment it is
    written; ``closed(node)`` when both of its streams ended. ``finish(truth)`` settles the
    run's files: the tasks' plain copies go, and the evidence points at the lines of the
    files that stay.
    """

    def __init__(self, out_dir: Path, naming: str, seed: int, nodes: list[str]):
        self.out_dir, self.naming, self.seed = Path(out_dir), naming, seed
        self.index = {n: int(n.split(":")[1]) for n in nodes}
        self.cids = {n: container_id(seed, i) for n, i in self.index.items()}
        self.names = {n: container_name(i) for n, i in self.index.items()}
        self.width = compose_width(self.index.values())
        self.files = {n: self._file(n) for n in nodes}
        self.lock = threading.Lock()
        self.newlines: dict[str, int] = {}
        self.where: dict[str, list[int]] = {n: [] for n in nodes}  # raw line -> file line
        self.pending: dict[str, bytes] = {n: b"" for n in nodes}  # compose: no newline yet
        self.waiting: dict[str, list[int]] = {n: [] for n in nodes}
        self.events: list[dict] = []
        if naming == "compose_logs":
            (self.out_dir / COMPOSE_LOGS_FILE).write_bytes(b"")

    def hostname(self, node: str) -> str:
        return self.cids[node][:12]

    def _file(self, node: str) -> str:
        if self.naming == "compose_logs":
            return COMPOSE_LOGS_FILE
        if self.naming == "docker_logs":
            return docker_logs_file(self.index[node])
        return json_log(self.cids[node])

    def _append(self, name: str, data: bytes) -> int:
        path = self.out_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab") as f:
            f.write(data)
        start = self.newlines.get(name, 0) + 1
        self.newlines[name] = start - 1 + data.count(b"\n")
        return start

    def line(self, node: str, data: bytes, stream: str, partial: bool) -> None:
        with self.lock:
            raw_index = len(self.where[node])
            self.where[node].append(0)
            for text, last in messages(data, partial):
                ns = time.time_ns()
                if self.naming == "compose_json":
                    no = self._append(self.files[node], json_line(ns, stream, text, last))
                elif self.naming == "docker_logs":
                    no = self._append(self.files[node], text + (b"\n" if last else b""))
                else:
                    self.pending[node] += api_piece(ns, text, last)
                    if raw_index not in self.waiting[node]:
                        self.waiting[node].append(raw_index)
                    if self.pending[node].endswith(b"\n"):
                        self._flush(node)
                    continue
                self.where[node][raw_index] = self.where[node][raw_index] or no

    def _flush(self, node: str) -> None:
        # compose splits what it reads at newlines and prints each line behind the prefix
        data = self.pending[node]
        body = data[:-1] if data.endswith(b"\n") else data
        prefix = compose_prefix(self.index[node], self.width)
        out = b"".join(prefix + x + b"\n" for x in body.split(b"\n"))
        no = self._append(self.files[node], out)
        for i in self.waiting[node]:
            self.where[node][i] = no
        self.pending[node], self.waiting[node] = b"", []

    def closed(self, node: str) -> None:
        """Both streams of ``node`` ended: compose prints what it read of the last line."""
        with self.lock:
            if self.naming == "compose_logs" and self.pending[node]:
                self._flush(node)

    def job_event(self, event: str) -> None:
        """A job-level event of the launcher: compose and dockerd write nothing of it into
        these files; it is kept for truth.json only."""
        if event and event != "end":
            self.events.append({"event": event, "utc": rfc3339nano(time.time_ns())})

    def finish(self, truth: dict) -> None:
        """The tasks' plain copies go; node files and evidence point at docker's files."""
        out = self.out_dir
        for ev in truth["evidence"]:
            node, no = ev["node"], ev["line_no"]
            mine = self.where.get(node, [])
            mine = mine + [0] * max(0, no - len(mine))
            name = self.files[node]
            text = (out / name).read_text(encoding="utf-8", errors="replace").splitlines()
            want = ev["text"][:100]
            if self.naming == "compose_json":
                want = json_escape(want.encode())
            at = mine[no - 1]
            if not at or want not in text[at - 1]:
                mark = ""
                if self.naming == "compose_logs":
                    mark = compose_prefix(self.index[node], self.width).decode()
                at = next((i for i, x in enumerate(text, 1) if x.startswith(mark) and want in x), 0)
            if not at:
                raise RuntimeError(f"{node}'s line {no} is not in {name}: {want[:80]!r}")
            ev["file"], ev["line_no"], ev["text"] = name, at, text[at - 1][:400]
        for node, files in truth["node_files"].items():
            truth["node_files"][node] = [self.files[node]] if files else []
        shutil.rmtree(out / RAW_DIR, ignore_errors=True)
        truth["launcher_files"] = []
        codes = truth.get("exit_codes", {})
        truth["compose"] = {
            "project": PROJECT,
            "output": OUTPUT_FORMS[self.naming],
            "containers": {
                n: {
                    "service": service_name(self.index[n]),
                    "container": self.names[n],
                    "id": self.cids[n],
                    "hostname": self.hostname(n),
                    # what docker inspect's State.ExitCode says (128 + signal)
                    "docker_exit_code": None
                    if codes.get(n) is None
                    else (128 - codes[n] if codes[n] < 0 else codes[n]),
                }
                for n in truth["nodes"]
            },
            "restart": "no",
            "job_events_not_logged": self.events,
            "hosts_line": HOSTS_LINE,
        }
