"""Redaction: secrets in log text become [REDACTED] markers that keep the key's name."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.report.redact import redact, redact_obj, redact_series

PEM = (
    "-----BEGIN PRIVATE KEY-----\n"
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"
    "abcdefghijklmnopqrstuvwxyz0123456789+/ABCDEFGH==\n"
    "-----END PRIVATE KEY-----"
)

CASES = [
    # (text, secret that must vanish, what must remain)
    ("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "AWS_ACCESS_KEY_ID="),
    (
        "using key AKIAIOSFODNN7EXAMPLE for s3",
        "AKIAIOSFODNN7EXAMPLE",
        "[REDACTED:aws-access-key-id]",
    ),
    (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws_secret_access_key = [REDACTED]",
    ),
    (
        "Authorization: Bearer ya29.a0AfH6SMBx-very-long-oauth-token_value",
        "a0AfH6SMBx",
        "Authorization: Bearer [REDACTED]",
    ),
    ("header Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA", "Basic [REDACTED]"),
    (
        "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
        "dozjgNryP4J3jVmNHl0w5N",
        "[REDACTED",
    ),
    (
        "loading gs://x from https://alice:hunter2@storage.example.com/bucket",
        "hunter2",
        "https://alice:[REDACTED]@storage.example.com/bucket",
    ),
    ("redis://:p4ss@10.0.0.1:6379/0", "p4ss", "redis://"),
    ("argv: train.py --password=s3cr3t --lr=0.1", "s3cr3t", "--password=[REDACTED] --lr=0.1"),
    ("argv: train.py --db-password s3cr3t --lr 0.1", "s3cr3t", "--db-password [REDACTED] --lr 0.1"),
    ("PASSWORD=hunter2 HOME=/root", "hunter2", "PASSWORD=[REDACTED] HOME=/root"),
    ("export MY_API_TOKEN='abc def'", "abc def", "MY_API_TOKEN=[REDACTED]"),
    ("GET /v1/models?token=abcdef123&page=2", "abcdef123", "token=[REDACTED]&page=2"),
    ("client_secret: xyzzy42", "xyzzy42", "client_secret: [REDACTED]"),
    ("X-Api-Key: 0123456789abcdef", "0123456789abcdef", "X-Api-Key: [REDACTED]"),
    (
        "environ({'HOME': '/root', 'WANDB_API_KEY': 'f00dfeed', 'DB_PASS': 'pw1'})",
        "f00dfeed",
        "'WANDB_API_KEY': '[REDACTED]'",
    ),
    (
        '{"type": "service_account", "private_key_id": "4a5b6c", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\\n-----END PRIVATE KEY-----\\n", "client_email": "svc@proj.iam.gserviceaccount.com"}',
        "MIIEvQIBADANBg",
        '"client_email": "svc@proj.iam.gserviceaccount.com"',
    ),
    (
        f"key file:\n{PEM}\nnext line",
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
        "next line",
    ),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA truncated",
        "MIIEowIBAAKCAQEA",
        "BEGIN RSA",
    ),
    ("github ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "ghp_0123456789abcdef", "[REDACTED"),
]


@pytest.mark.parametrize(("text", "secret", "kept"), CASES)
def test_secret_is_hidden_and_the_name_kept(text, secret, kept):
    out = redact(text)
    assert secret not in out
    assert kept in out
    assert "REDACTED" in out
    assert redact(out) == out  # idempotent


def test_private_key_json_field_is_hidden():
    out = redact('"private_key_id": "4a5b6c7d8e9f", "private_key": "-----BEGIN'
                 ' PRIVATE KEY-----\\nABC\\n-----END PRIVATE KEY-----\\n"')  # fmt: skip
    assert "4a5b6c7d8e9f" not in out and "ABC" not in out
    assert '"private_key_id": "[REDACTED]"' in out


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-22 04:10:11.123: I tensorflow/core/distributed_runtime/rpc/grpc_server_lib.cc:449] Started server with target: grpc://localhost:2222",
        "UnavailableError: failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:2221: Failed to connect to remote host: Connection refused",
        "Step 100: loss=0.3, max_tokens=1024 num_keys=3 key_dim=64",
        "Created device /job:worker/replica:0/task:1/device:GPU:0 with 14 MB memory",
        "The password is wrong; check the token expiry",
        'TF_CONFIG={"cluster": {"worker": ["host-a:2222"]}, "task": {"type": "worker", "index": 0}}',
        "tokenizer loaded; passing through bypass=1",
        "",
    ],
)
def test_ordinary_lines_are_untouched(text):
    assert redact(text) == text


def test_non_strings_pass_through():
    assert redact(None) is None  # type: ignore[arg-type]


def test_series_and_objects():
    s = pd.Series(["ok", None, "--password=x", "AKIAIOSFODNN7EXAMPLE"], name="message")
    out = redact_series(s)
    assert out.name == "message" and list(out.index) == list(s.index)
    assert out.iloc[0] == "ok" and pd.isna(out.iloc[1])
    assert out.iloc[2] == "--password=[REDACTED]"
    assert "AKIA" not in out.iloc[3]
    assert redact_series(pd.Series([], dtype=object)).empty
    obj = {"node": "token=1", "text": ["PASSWORD=x", {"why": "token=abc"}], "n": 3}
    assert redact_obj(obj, skip=frozenset({"node"})) == {
        "node": "token=1",
        "text": ["PASSWORD=[REDACTED]", {"why": "token=[REDACTED]"}],
        "n": 3,
    }


def test_long_lines_stay_fast():
    import time

    text = ("password " * 20_000) + "x" * 200_000 + " token=" + "a" * 100_000
    start = time.perf_counter()
    out = redact(text)
    assert time.perf_counter() - start < 2.0
    assert "a" * 1000 not in out


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_never_raises_and_is_idempotent(text):
    once = redact(text)
    assert isinstance(once, str)
    assert redact(once) == once


@settings(max_examples=200, deadline=None)
@given(
    name=st.sampled_from(["--password", "--token", "PASSWORD", "db_secret", "api_key", "AUTH_TOKEN"]),
    sep=st.sampled_from(["=", ": ", " = "]),
    value=st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/+_.", min_size=6, max_size=40),
    before=st.sampled_from(["", "run with ", "env: ", "x "]),
    after=st.sampled_from(["", " and more", "\nnext", ", other=1"]),
)  # fmt: skip
def test_assigned_secrets_never_survive(name, sep, value, before, after):
    out = redact(f"{before}{name}{sep}{value}{after}")
    assert value not in out
    assert name in out


# -- secrets over several lines (issue 15) -----------------------------------------------------

import base64  # noqa: E402
import random  # noqa: E402
import textwrap  # noqa: E402

from secret_samples import FILLER, multi_line_secret  # noqa: E402

from analyzer.report.common import printable  # noqa: E402
from analyzer.report.redact import Redactor, find_secret_lines, redact_lines  # noqa: E402

_RNG = random.Random(15)


def _b64(n: int) -> str:
    return base64.b64encode(_RNG.randbytes(n)).decode()


def _word(n: int = 14) -> str:
    return "".join(
        _RNG.choice("abcdefghkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(n)
    )


BODY = textwrap.wrap(_b64(200), 64)
W1, W2, W3 = _word(), _word(), _word()

#: (lines, secrets that must vanish, text that must stay) -- generated, not real keys.
MULTI = {
    "pem": (
        ["key:", "-----BEGIN RSA PRIVATE KEY-----", *BODY, "-----END RSA PRIVATE KEY-----", "next"],
        BODY,
        ["-----END RSA PRIVATE KEY-----", "next"],
    ),
    "pem_cut_short_tail": (
        ["-----BEGIN OPENSSH PRIVATE KEY-----", *BODY, W1],
        [*BODY, W1],
        ["BEGIN OPENSSH"],
    ),
    "pem_then_log": (
        ["-----BEGIN EC PRIVATE KEY-----", BODY[0], "E1122 04:10:05.000 1 x.cc:1] Socket closed"],
        [BODY[0]],
        ["Socket closed"],
    ),
    "pem_in_json_wrapped": (
        textwrap.wrap(
            '"private_key": "-----BEGIN PRIVATE KEY-----\\n'
            + "\\n".join(BODY)
            + '\\n-----END PRIVATE KEY-----\\n", "client_email": "a@b.iam.gserviceaccount.com"',
            70,
            drop_whitespace=False,
        ),
        [b[:16] for b in BODY[1:]],
        ["client_email"],
    ),
    "pprint_dict": (
        [
            "{'client_email': 'x@y',",
            " 'private_key': '-----BEGIN PRIVATE KEY-----\\n'",
            *(f"                '{b}\\n'" for b in BODY),
            "                '-----END PRIVATE KEY-----\\n',",
            f" 'token': '{W1}'",
            f"          '{W2}',",
            " 'type': 'service_account'}",
        ],
        [*BODY, W1, W2],
        ["'type': 'service_account'", "'client_email': 'x@y'"],
    ),
    "k8s_yaml_kind_after_data": (
        [
            "apiVersion: v1",
            "data:",
            f"  password: {W1}",
            f"  tls.key: {W2}",
            "  cfg: |",
            f"    inner {W3}",
            "kind: Secret",
            "metadata:",
            "  name: creds",
        ],
        [W1, W2, W3],
        ["  tls.key: ", "kind: Secret", "name: creds"],
    ),
    "k8s_json": (
        [
            "{",
            '  "data": {',
            f'    "username": "{W1}",',
            f'    "token": "{W2}"',
            "  },",
            '  "kind": "Secret"',
            "}",
        ],
        [W1, W2],
        ['"username": ', '"kind": "Secret"'],
    ),
    "netrc": (
        [
            "machine api.example.com",
            "  login bob",
            f"  password {W1}",
            f"  account {W2}",
            f"machine b.example login al password {W3}",
        ],
        [W1, W2, W3],
        ["login bob", "machine api.example.com"],
    ),
    "json_key_end_line": (
        [
            ' "private_key": "-----BEGIN PRIVATE KEY-----',
            f"\\n{BODY[0]}",
            f'{W1}\\n{W2[:8]}==\\n-----END PRIVATE KEY-----",',
        ],
        [BODY[0], W1, W2[:8]],
        ["-----END PRIVATE KEY-----"],
    ),
    "pgpass": ([f"localhost:5432:*:postgres:{W1}"], [W1], ["localhost:5432:*:postgres:"]),
    "env_dump": (
        [
            "HOME=/root",
            f"WANDB_KEY={W1}",
            f'DEPLOY_TOKEN="{W2}',
            f'{W3}"',
            "DB_PASSWORD=pw",
            "PATH=/usr/bin",
        ],
        [W1, W2, W3, "DB_PASSWORD=pw"],
        ["HOME=/root", "PATH=/usr/bin", "WANDB_KEY="],
    ),
    "yaml_block_value": (
        ["creds:", "  client_secret: |", f"    {W1}", f"    {W2}", "  other: visible"],
        [W1, W2],
        ["other: visible"],
    ),
    "auth_header_next_line": (
        [
            "> Authorization: Bearer",
            f">   {W1}",
            f"Cookie: session={W2}",
            f"X-Auth-Token: {W3}",
            f"  {W1}x",
        ],
        [W1, W2, W3],
        ["> Authorization:"],
    ),
}


@pytest.mark.parametrize("kind", MULTI)
def test_multi_line_secret_is_hidden_on_every_line(kind):
    lines, secrets, kept = MULTI[kind]
    numbered = list(enumerate(lines, 1))
    window = "\n".join(redact_lines(numbered))
    for s in secrets:
        assert s not in window, s
    for k in kept:
        assert k in window, k
    # a line shown alone (as JSON evidence or a finding) is redacted by what the run knows
    redactor = Redactor({"f.log": find_secret_lines(numbered)})
    alone = "\n".join(redactor.line(t, "f.log", no) for no, t in numbered)
    for s in secrets:
        assert s not in alone, s
    # and a window that starts after the opening line still hides them
    for start in range(len(numbered)):
        part = "\n".join(redactor.line(t, "f.log", no) for no, t in numbered[start:])
        assert not [s for s in secrets if s in part]


def test_a_long_value_is_hidden_wherever_it_is_quoted():
    numbered = list(
        enumerate(["-----BEGIN PRIVATE KEY-----", *BODY, "-----END PRIVATE KEY-----"], 1)
    )
    redactor = Redactor({"f.log": find_secret_lines(numbered)})
    assert BODY[2] not in redactor(f"summary quotes {BODY[2]} out of context")


def test_certificates_and_public_keys_stay():
    cert = ["-----BEGIN CERTIFICATE-----", *BODY, "-----END CERTIFICATE-----"]
    assert redact_lines(list(enumerate(cert, 1))) == cert
    # the same body line alone, with no known certificate around it, is hidden
    assert redact_lines([(7, BODY[0])]) == ["[REDACTED]"]


@pytest.mark.parametrize(
    "lines",
    [
        ["data:", "  learning_rate: 0.1", "kind: ConfigMap"],  # not a Secret
        ["The password is wrong; check the token expiry", "login failed for bob"],
        ["machine learning is fun", "steps: 100"],
        ["Created device /job:worker/replica:0/task:1/device:GPU:0 with 14 MB memory"],
        ["Authorization failed: permission denied for user bob"],
        ["step 1: loss=0.3", "-----BEGIN CERTIFICATE-----"],
        ["0123456789abcdef0123456789abcdef0123456789abcdef"],  # a hex digest is not a key body
    ],
)
def test_ordinary_neighbours_are_untouched(lines):
    assert redact_lines(list(enumerate(lines, 1))) == lines


def test_new_single_line_shapes():
    assert redact(f"WANDB_KEY={W1} HOME=/root") == "WANDB_KEY=[REDACTED] HOME=/root"
    assert W1 not in redact(f"environ({{'OPENAI_KEY': '{W1}', 'X': '1'}})")
    assert redact(f"Authorization: {W1}") == "Authorization: [REDACTED]"
    assert redact(f"Authorization: AWS4-HMAC-SHA256 Credential={W1}/x, Signature={W2}") == (
        "Authorization: AWS4-HMAC-SHA256 [REDACTED]"
    )
    assert redact(f"machine h login u password {W1}") == "machine h login u password [REDACTED]"
    assert redact(f"{BODY[0]}\n{BODY[1]}\n-----END PRIVATE KEY-----") == (
        "[REDACTED]-----END PRIVATE KEY-----"
    )
    assert W1 not in redact(f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n{W1}\n")


def test_printable_escapes_what_drives_a_terminal():
    text = "a\x1b[31mred\x1b[0m \x1b]0;title\x07 back\x08 over\rwrite \x9b2J \u202eevil\ttab\nnext"
    out = printable(text)
    assert out == (
        "a\\x1b[31mred\\x1b[0m \\x1b]0;title\\x07 back\\x08 over\\x0dwrite \\x9b2J \\u202eevil"
        "\ttab\nnext"
    )
    assert printable("[bold red]x[/bold red]") == "[bold red]x[/bold red]"


_LINE = st.text(st.characters(blacklist_categories=("Cs", "Zl", "Zp"), blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85"), max_size=50)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    before=st.lists(_LINE.filter(lambda s: "-----" not in s), max_size=8),
    after=st.lists(_LINE, max_size=8),
    raw=st.binary(min_size=30, max_size=300),
    width=st.sampled_from([64, 70, 76]),
    label=st.sampled_from(["RSA ", "EC ", "ENCRYPTED ", "OPENSSH ", ""]),
    cut=st.booleans(),
    indent=st.sampled_from(["", "    ", "'"]),
)
def test_property_pem_across_lines_never_survives(before, after, raw, width, label, cut, indent):
    """Random lines around a PEM key, maybe cut before its END: no body line survives, in the
    window or shown alone, whatever lines come before and after."""
    body = textwrap.wrap(base64.b64encode(raw).decode(), width)
    block = [f"-----BEGIN {label}PRIVATE KEY-----", *(indent + b for b in body)]
    if not cut:
        block.append(f"-----END {label}PRIVATE KEY-----")
    lines = [*before, *block, *([] if cut else after)]
    numbered = list(enumerate(lines, 1))
    secrets = [b for b in body if len(b) >= 8]
    window = "\n".join(redact_lines(numbered))
    assert not [s for s in secrets if s in window]
    redactor = Redactor({"f": find_secret_lines(numbered)})
    for no, t in numbered:
        shown = redactor.line(t, "f", no)
        assert not [s for s in secrets if s in shown]


def test_an_unclosed_secret_value_stops_at_the_next_log_record():
    """A value cut off mid-string (a 16 KiB Docker split) must not hide the log that follows."""
    lines = [
        f'2026-11-22 04:10:01.000000: I x.cc:1] creds {{"token": "{W1}',
        f"{W2}",
        '2026-11-22 04:10:02.000000: E x.cc:1] RPC failed: "Socket closed"',
        "step 5",
    ]
    out = redact_lines(list(enumerate(lines, 1)))
    assert W1 not in out[0] and W2 not in out[1]
    assert out[2:] == lines[2:]


def test_key_lines_each_with_a_log_prefix(tmp_path):
    """A key logged line by line through a logger: every body line is a record of its own."""
    import analyzer
    from analyzer.report.redact import for_run

    prefix = "2026-11-22 04:10:01,000 - INFO - "
    body = [prefix + b for b in BODY]
    lines = [
        prefix + "-----BEGIN EC PRIVATE KEY-----",
        *body,
        prefix + "-----END EC PRIVATE KEY-----",
    ]
    lines.append("2026-11-22 04:10:02,000 - ERROR - Socket closed")
    (tmp_path / "worker-0.log").write_text("\n".join(lines) + "\n")
    run = analyzer.load(tmp_path)
    R = for_run(run)
    tl = run.timeline
    shown = [R.line(t, f, n) for t, f, n in zip(tl["raw"], tl["file"], tl["line_no"], strict=True)]
    assert not [b for b in BODY if any(b in s for s in shown)]
    assert any("Socket closed" in s for s in shown)


@settings(max_examples=300, deadline=None)
@given(
    before=st.lists(FILLER, max_size=8),
    after=st.lists(FILLER, max_size=8),
    secret=multi_line_secret(),
)
def test_property_every_kind_across_lines_never_survives(before, after, secret):
    """Random lines around a multi-line secret of any kind (secret_samples.multi_line_secret): no
    part survives in the window, nor in any line shown alone, nor in any later part of it."""
    lines, parts = secret
    numbered = list(enumerate([*before, *lines, *after], 1))
    window = "\n".join(redact_lines(numbered))
    assert not [p for p in parts if p in window]
    redactor = Redactor({"f": find_secret_lines(numbered)})
    for k in range(len(numbered)):
        shown = "\n".join(redactor.line(t, "f", no) for no, t in numbered[k:])
        assert not [p for p in parts if p in shown]


def test_hostile_long_lines_do_not_hang_the_window_scan():
    """Quadratic backtracking guard (a quadratic pattern would take minutes on these lines)."""
    import time

    spaces = " " * 100_000
    windows = [
        ["password:" + spaces + "x"],
        ["Authorization:" + spaces + "x"],
        ["data:" + spaces + "x", "kind: Secret"],
        ["data:", "  a: b", "kind: Secret" + spaces + "x"],
        ["data:", "  key:" + spaces + "," + spaces + "x", "kind: Secret"],
        ["{'token': 'abc'", "  'x'" + spaces + "," + spaces + "y"],
        ['"token": "' + "a" * 200_000],
        [
            "-----BEGIN RSA PRIVATE KEY-----",
            "A" * 200_000,
            "B" * 100_000 + "-----END RSA PRIVATE KEY-----",
        ],
        ["machine " + "m" * 100_000 + " login" + spaces + "x"],
        ['"' * 200_000, "x" * 1_000_000],
    ]
    start = time.perf_counter()
    for lines in windows:
        redact_lines(list(enumerate(lines, 1)))
    assert time.perf_counter() - start < 30


_QUOTED_PARTS = st.sampled_from(
    [
        '"',
        "'",
        "=",
        ":",
        " ",
        "export ",
        "_KEY",
        "API_KEY",
        "Password",
        "pass",
        "Token",
        "api-key",
        "client_secret",
        "Cookie",
        "Authorization",
        "proxy-",
        "x",
        "9",
        "\u212a",
        "\u017f",
        "\u0131",
        "\u0130",
        "é",
        "PASSWD",
        "signature",
        "credentials",
        "sas_key",
        "-",
        ".",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_QUOTED_PARTS, max_size=12).map("".join))
def test_the_quick_test_never_skips_a_line_the_quoted_key_search_would_match(text):
    from analyzer.report.redact import _QUOTED_KEY, _may_quote_key

    if _QUOTED_KEY.search(text):
        assert _may_quote_key(text)


def test_the_quick_test_on_every_corpus_line():
    from pathlib import Path

    from analyzer.report.redact import _QUOTED_KEY, _may_quote_key

    root = Path(__file__).resolve().parent.parent
    matched = skipped = 0
    for folder in (root / "sample_logs", root / "tests" / "corpus", root / "tests" / "data"):
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.stat().st_size > 5_000_000:
                continue
            for line in path.read_text(errors="replace").splitlines():
                if _QUOTED_KEY.search(line):
                    matched += 1
                    assert _may_quote_key(line), line
                elif not _may_quote_key(line):
                    skipped += 1
    assert matched > 0 and skipped > 1000
    examples = [
        '{"Cookie": "a=b',
        "'proxy-authorization' = 'x",
        '"MY_API_KEY": "v',
        "export DB_PASSWORD='v",
        'secret_token="v',
        '"API_\u212aEY": "v',
        "'passphrase':'v",
    ]
    for line in examples:
        assert _QUOTED_KEY.search(line) and _may_quote_key(line), line
