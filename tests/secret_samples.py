"""A job whose logs print secrets over several lines and text that would drive a terminal.

Every secret is generated here (random bytes of the right shape, from a seeded generator): no
real key is committed. A four-worker parameter-server job whose ps dies; each worker prints a
different multi-line secret right before its gRPC error, so the report's context view of that
error shows the secret's *inner* lines without the line that opens it (``-----BEGIN``,
``machine``, ``data:``, ``'HF_TOKEN': ...``). The ps dies while printing an OpenSSH key: its last
line -- the verdict's evidence, shown alone in every report -- is a short key-body line. The
chief's log holds an environment dump and an encrypted key. The workers' error lines carry
terminal control sequences and rich markup.

:func:`write_secret_logs` returns the folder and, per kind, the strings no report may contain.
"""

from __future__ import annotations

import base64
import datetime as dt
import random
import textwrap
from pathlib import Path

from hypothesis import strategies as st

T0 = dt.datetime(2026, 11, 22, 4, 9, 50)
_CLUSTER = (
    '{"cluster": {"chief": ["localhost:2220"], "ps": ["localhost:2221"], '
    '"worker": ["localhost:2222", "localhost:2223", "localhost:2224", "localhost:2225", '
    '"localhost:2226", "localhost:2227"]}, "task": {"type": "%s", "index": %d}}'
)

#: Control sequences and markup in log text; none may reach a terminal raw.
CSI = "\x1b[31mRED-ALERT\x1b[0m"
OSC_TITLE = "\x1b]0;pwned-title\x07"
OSC_LINK = "\x1b]8;;https://evil.example/\x1b\\click-here\x1b]8;;\x1b\\"
BACKSPACE = "secret-hidden\x08\x08\x08\x08\x08\x08"
OVERWRITE = "progress 10%\rALL-GOOD-NOTHING-TO-SEE"
MARKUP = "[bold red]rich-markup[/bold red] [link=https://evil.example]x[/link]"
TERMINAL_PAYLOAD = " ".join([MARKUP, CSI, OSC_TITLE, BACKSPACE, OSC_LINK])
#: What a raw control character must never leave in terminal output (ESC [ of the log's own
#: sequence, OSC, BEL, backspace, carriage return).
RAW_CONTROLS = ("\x1b[31mRED-ALERT", "\x1b]", "\x07", "\x08", "\r")
#: How they must show instead: escaped, as text (a colour code, SGR, is removed where the
#: log is read, as a terminal would render it: its text shows, plain).
ESCAPED = ("\\x1b]0;pwned-title\\x07", "\\x08")
COLOURED_TEXT = "RED-ALERT"


#: Kinds whose lines a report shows when nothing is redacted (the chief's encrypted key is in no
#: view: it is checked for absence only).
SHOWN = (
    "openssh_pem_cut",
    "rsa_pem",
    "service_account",
    "k8s_secret",
    "netrc_pgpass",
    "auth_headers",
    "pprint_environ",
    "env_dump",
)


def stamp(seconds: float) -> str:
    return (T0 + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M:%S.%f")


def _start(job: str, index: int, port: int, steps: int = 20) -> list[str]:
    lines = [f"TF_CONFIG={_CLUSTER % (job, index)}"]
    lines.append(
        f"{stamp(0)}: I tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc:449] "
        f"Started server with target: grpc://localhost:{port}"
    )
    for i in range(steps):
        lines.append(
            f"{stamp(1 + i * 0.5)}: I tensorflow/core/common_runtime/step.cc:1] step {i} loss=0.{i}"
        )
    return lines


def _grpc_error(seconds: float, extra: str = "") -> list[str]:
    return [
        f"{stamp(seconds)}: W tensorflow/core/distributed_runtime/rpc/grpc_remote_master.cc:160] "
        f"{extra} RPC failed with status = "
        '"Unavailable: Socket closed" and grpc_error_string = '
        '"{"created":"@1609120565.2","description":"Error received from peer '
        'ipv4:127.0.0.1:2221","grpc_message":"Socket closed","grpc_status":14}", '
        "maybe retrying the RPC",
        # (a lone carriage return ends a line when the log is read: it cannot overwrite)
        f"{stamp(seconds + 0.5)}: E tensorflow/core/x.cc:1] Socket closed {extra} {OVERWRITE}",
    ]


class Fake:
    """Random secrets of the right shapes."""

    def __init__(self, seed: int = 15):
        self.rng = random.Random(seed)

    def b64(self, n_bytes: int) -> str:
        return base64.b64encode(self.rng.randbytes(n_bytes)).decode()

    def word(self, n: int = 14) -> str:
        alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def pem_body(self, n_bytes: int = 300, width: int = 64) -> list[str]:
        return textwrap.wrap(self.b64(n_bytes), width)


def _pieces(lines: list[str], min_len: int = 12) -> list[str]:
    """Distinctive parts of body lines (what a report must not contain)."""
    out = []
    for line in lines:
        for part in line.replace("\\n", " ").replace("'", " ").replace('"', " ").split():
            if len(part) >= min_len:
                out.append(part[:24])
    return out


def write_secret_logs(folder: Path, seed: int = 15) -> tuple[Path, dict[str, list[str]]]:
    """Write the job into ``folder``; return it and ``{kind: [strings no report may show]}``."""
    folder.mkdir(parents=True, exist_ok=True)
    fake = Fake(seed)
    secrets: dict[str, list[str]] = {}

    # chief: an encrypted private key and an environment dump, then it carries on
    chief = _start("chief", 0, 2220)
    enc = fake.pem_body(200)
    chief += ["-----BEGIN ENCRYPTED PRIVATE KEY-----", *enc, "-----END ENCRYPTED PRIVATE KEY-----"]
    env = {
        "WANDB_KEY": fake.word(32),
        "HF_TOKEN": "hf_" + fake.word(30),
        "SESSION_SECRET": fake.word(20),
        "POSTGRES_PASSWORD": fake.word(12),
    }
    multi = [fake.word(16), fake.word(16)]
    chief += ["$ printenv", "HOME=/root", *(f"{k}={v}" for k, v in env.items())]
    chief += [f'DEPLOY_TOKEN="{multi[0]}', f'{multi[1]}"', "PATH=/usr/bin:/bin"]
    chief += [f"{stamp(12)}: I tensorflow/core/common_runtime/step.cc:1] step 21 loss=0.21"]
    secrets["encrypted_pem"] = _pieces(enc)
    secrets["env_dump"] = [*env.values(), *multi]
    (folder / "chief-0.log").write_text("\n".join(chief) + "\n")

    # ps: killed while printing an OpenSSH key; its last line is a short body line
    ps = _start("ps", 0, 2221)
    ssh = fake.pem_body(150, 70)
    tail = fake.b64(18)  # 24 characters: not a line anyone would call a key on its own
    ps += [f"{stamp(10.5)}: I tensorflow/core/x.cc:1] deploy key follows"]
    ps += ["-----BEGIN OPENSSH PRIVATE KEY-----", *ssh, tail]
    secrets["openssh_pem_cut"] = [*_pieces(ssh), tail]
    (folder / "ps-0.log").write_text("\n".join(ps) + "\n")

    workers: list[tuple[str, list[str]]] = []
    # worker 0: an RSA key right before the error (the window shows its body, not its BEGIN)
    rsa = fake.pem_body(240)
    rsa[-1] = rsa[-1][:30]
    workers.append(
        ("rsa_pem", ["-----BEGIN RSA PRIVATE KEY-----", *rsa, "-----END RSA PRIVATE KEY-----"])
    )
    secrets["rsa_pem"] = _pieces(rsa)
    # worker 1: a GCP service-account JSON, its private_key wrapped by a log collector at 76
    key = "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(fake.pem_body(300)) + "\\n"
    key += "-----END PRIVATE KEY-----\\n"
    key_id = fake.b64(20).lower().replace("+", "a").replace("/", "b").rstrip("=")
    head = '  "private_key": "'
    body = textwrap.wrap(head + key + '"', 76, drop_whitespace=False)
    sa = [
        "{",
        '  "type": "service_account",',
        '  "project_id": "demo-project",',
        '  "client_email": "trainer@demo-project.iam.gserviceaccount.com",',
        f'  "private_key_id": "{key_id}",',
        *body,
        "}",
    ]
    workers.append(("service_account", sa))
    secrets["service_account"] = [key_id, *_pieces(body[1:])]
    # worker 2: kubectl get secret -o yaml, kind first; short base64 values
    vals = [base64.b64encode(fake.word(9).encode()).decode() for _ in range(3)]
    k8s = [
        "apiVersion: v1",
        "kind: Secret",
        "metadata:",
        "  name: training-creds",
        "type: Opaque",
        "data:",
        f"  ca.key: {vals[0]}",
        f"  token: {vals[1]}",
        f"  username: {vals[2]}",
    ]
    workers.append(("k8s_secret", k8s))
    secrets["k8s_secret"] = vals
    # worker 3: a .netrc over several lines, a .pgpass
    netrc_pw, acct, pg = fake.word(12), fake.word(12), fake.word(12)
    netrc = [
        "$ cat ~/.pgpass ~/.netrc",
        f"db.internal:5432:training:trainer:{pg}",
        "machine storage.example.com",
        "  login trainer",
        f"  password {netrc_pw}",
        f"  account {acct}",
    ]
    workers.append(("netrc_pgpass", netrc))
    secrets["netrc_pgpass"] = [netrc_pw, acct, pg]
    # worker 4: a curl -v header dump, the credential on the line after its header
    bearer, folded = fake.word(32), fake.word(20)
    headers = [
        "> GET /v1/models HTTP/1.1",
        "> Host: api.example.com",
        "> Authorization: Bearer",
        f">   {bearer}",
        f"X-Auth-Token: {fake.word(6)}",
        f"  {folded}",
    ]
    workers.append(("auth_headers", headers))
    secrets["auth_headers"] = [bearer, folded]
    # worker 5: os.environ pretty-printed; pprint splits a long token over lines
    parts = [fake.word(30), fake.word(30)]
    env_py = [
        "environ({'HOME': '/root',",
        f"         'OPENAI_API_KEY': '{parts[0]}'",
        f"                           '{parts[1]}',",
        "         'PATH': '/usr/bin'})",
    ]
    workers.append(("pprint_environ", env_py))
    secrets["pprint_environ"] = parts

    for w, (_, block) in enumerate(workers):
        lines = _start("worker", w, 2222 + w)
        lines += block
        lines += _grpc_error(22 + w * 0.1, TERMINAL_PAYLOAD)
        (folder / f"worker-{w}.log").write_text("\n".join(lines) + "\n")
    return folder, secrets


# -- Hypothesis: one multi-line secret of a random kind ------------------------------------------

#: A random log line (no line break, no PEM dashes).
FILLER = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=60
).filter(lambda s: s.strip() == s and "-----" not in s)


@st.composite
def multi_line_secret(draw) -> tuple[list[str], list[str]]:
    """(lines, parts that must not be shown) of one multi-line secret of a random kind."""
    kind = draw(st.sampled_from(["pem", "openssh_cut", "k8s", "netrc", "json_wrapped", "pprint"]))
    raw = draw(st.binary(min_size=48, max_size=400))
    body = textwrap.wrap(base64.b64encode(raw).decode(), draw(st.sampled_from([64, 70, 76])))
    word = draw(st.text(alphabet="abcdefghkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789",
                        min_size=12, max_size=30))  # fmt: skip
    parts = [p[:20] for p in body if len(p) >= 12]
    if kind == "pem":
        label = draw(st.sampled_from(["RSA ", "EC ", "ENCRYPTED ", "OPENSSH ", ""]))
        lines = [f"-----BEGIN {label}PRIVATE KEY-----", *body, f"-----END {label}PRIVATE KEY-----"]
    elif kind == "openssh_cut":
        lines = ["-----BEGIN OPENSSH PRIVATE KEY-----", *body]
    elif kind == "k8s":
        lines = ["apiVersion: v1", "data:", f"  token: {word}", f"  tls.key: {body[0]}"]
        lines += ["kind: Secret", "metadata:", "  name: x"]
        parts = [word, body[0][:20]]
    elif kind == "netrc":
        lines = ["machine host.example", "  login someone", f"  password {word}"]
        parts = [word]
    elif kind == "json_wrapped":
        value = "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(body) + "\\n-----END PRIVATE KEY-----"
        lines = textwrap.wrap(f'  "private_key": "{value}",', 60, drop_whitespace=False)
        parts = [p for p in (seg[:20] for line in lines[1:] for seg in line.split("\\n"))
                 if len(p) >= 12 and "---" not in p and '"' not in p]  # fmt: skip
    else:
        lines = ["{'HOME': '/root',", f" 'API_TOKEN': '{word}'", f"              '{body[0]}',"]
        lines += [" 'PATH': '/bin'}"]
        parts = [word, body[0][:20]]
    return lines, parts
