"""Hostile and secret-laden logs for the report tests (HTML, JSON, terminal, browser).

A four-node parameter-server job whose ps dies; the workers' errors carry XSS payloads, rich
markup, Jinja syntax and credentials. One more file has a hostile *name* and no role, so its
node id (the file's stem) is hostile too.
"""

from __future__ import annotations

import datetime as dt
import gzip
from pathlib import Path

XSS_SCRIPT = "<script>alert(1)</script>"
XSS_IMG = "<img src=x onerror=alert(1)>"
#: Each of these, if it ever ran, would set document.title or a global: the browser test checks.
PAYLOADS = (
    XSS_SCRIPT,
    XSS_IMG,
    "<script>document.title='pwned';window.__pwned=1</script>",
    "<img src=x onerror=\"document.title='pwned';window.__pwned=1\">",
    '<svg/onload="window.__pwned=1"><circle r=9></circle></svg>',
    '<a href="javascript:window.__pwned=1">click</a>',
    "</style><script>window.__pwned=1</script><style>",
    '</pre></div></details><iframe src="https://evil.example/frame"></iframe>',
    '<link rel="stylesheet" href="https://evil.example/x.css">',
    '<div style="background:url(https://evil.example/bg.png)">x</div>',
    "{{ 7*7 }} {% if 1 %}jinja{% endif %}",
    "[bold red]rich markup[/bold red] [/] [link=https://evil.example]x[/link]",
)

#: Secrets that must not survive redaction, and the lines that carry them.
SECRETS = {
    "aws_key": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "bearer": "eyJhbGciOiJIUzI1NiJ9secrettokenvalue0123456789",
    "url_password": "hunter2pass",
    "cli_password": "s3cr3t-Passw0rd",
}
SECRET_TEXT = (
    f"creds AWS_ACCESS_KEY_ID={SECRETS['aws_key']} AWS_SECRET_ACCESS_KEY={SECRETS['aws_secret']} "
    f"Authorization: Bearer {SECRETS['bearer']} "
    f"fetching https://bob:{SECRETS['url_password']}@storage.example.com/ckpt "
    f"argv: train.py --password={SECRETS['cli_password']}"
)

#: A file name that is itself an attack (and, having no role, becomes the node id).
HOSTILE_NAME = "\"><svg onload=alert(1)> & 'quote'.log"

_CLUSTER = (
    '{"cluster": {"chief": ["localhost:2220"], "ps": ["localhost:2221"], '
    '"worker": ["localhost:2222", "localhost:2223"]}, "task": {"type": "%s", "index": %d}}'
)
T0 = dt.datetime(2026, 11, 22, 4, 9, 50)


def _stamp(seconds: float) -> str:
    return (T0 + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M:%S.%f")


def _start(job: str, index: int, port: int, steps: int = 40) -> list[str]:
    lines = [f"TF_CONFIG={_CLUSTER % (job, index)}"]
    lines.append(
        f"{_stamp(0)}: I tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc:449] "
        f"Started server with target: grpc://localhost:{port}"
    )
    for i in range(steps):
        lines.append(
            f"{_stamp(1 + i * 0.5)}: I tensorflow/core/common_runtime/step.cc:1] step {i} loss=0.{i}"
        )
    return lines


def write_hostile_logs(folder: Path, *, steps: int = 40, broken_gzip: bool = True) -> Path:
    """Write the hostile job into ``folder`` and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    payload = " ".join(PAYLOADS)
    (folder / "chief-0.log").write_text("\n".join(_start("chief", 0, 2220, steps)) + "\n")
    ps = _start("ps", 0, 2221, steps)
    ps.append(f"{_stamp(21)}: I tensorflow/core/platform/x.cc:1] {SECRET_TEXT}")
    (folder / "ps-0.log").write_text("\n".join(ps) + "\n")
    for w in (0, 1):
        lines = _start("worker", w, 2222 + w, steps)
        lines.append(
            f"{_stamp(22 + w)}: W tensorflow/core/distributed_runtime/rpc/grpc_remote_master.cc:160] "
            'RPC failed with status = "Unavailable: Socket closed" and grpc_error_string = '
            '"{"created":"@1609120565.2","description":"Error received from peer '
            'ipv4:127.0.0.1:2221","grpc_message":"Socket closed","grpc_status":14}", '
            f"maybe retrying the RPC {payload}"
        )
        lines.append(f"{_stamp(22.5 + w)}: E tensorflow/core/x.cc:1] {payload} {SECRET_TEXT}")
        lines += [
            "Traceback (most recent call last):",
            '  File "train.py", line 3, in <module>',
            f"tensorflow.python.framework.errors_impl.UnavailableError: Socket closed {payload} "
            f"{SECRET_TEXT}",
        ]
        (folder / f"worker-{w}.log").write_text("\n".join(lines) + "\n")
    (folder / HOSTILE_NAME).write_text(
        f"{_stamp(5)}: E tensorflow/core/x.cc:1] {payload}\n"
        f"{_stamp(6)}: E tensorflow/core/x.cc:1] Socket closed {XSS_IMG}\n"
    )
    if broken_gzip:
        data = gzip.compress(("\n".join(_start("worker", 1, 2223, 5)) + "\n").encode())
        (folder / "worker-1.old.log.gz").write_bytes(data[: len(data) // 2])
    return folder
