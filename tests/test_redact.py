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
