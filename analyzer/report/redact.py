"""Hide secrets that leak into logs before any report shows them.

:func:`redact` replaces credentials with ``[REDACTED]`` markers and keeps the name of what was
hidden (``--password=[REDACTED]``, ``https://bob:[REDACTED]@host``, ``Bearer [REDACTED]``), so a
reader still sees *that* a secret was there. Covered:

- PEM private keys (``-----BEGIN ... PRIVATE KEY-----`` blocks, also with ``\\n`` escapes as
  in a GCP service-account JSON) and JSON fields such as ``"private_key": "..."``;
- AWS access key ids (``AKIA...``, ``ASIA...``) and secret keys (``aws_secret_access_key=...``);
- ``Authorization: Bearer/Basic ...`` and OAuth/JWT/GitHub/Slack/Google token shapes;
- passwords in URLs (``scheme://user:pass@host``);
- ``--password=...``, ``--token ...``, ``PASSWORD=...``, ``token=``, ``secret:`` style arguments,
  query parameters and environment dumps.

The patterns are linear (no nested quantifiers), and a cheap pre-check skips the common text that
contains none of the trigger words, so redacting every message of a large run stays fast.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

MARK = "[REDACTED]"

#: Words that appear in or near every secret we recognise; text without any of them is skipped.
_TRIGGER = re.compile(
    r"(?i)A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|3T)[A-Z0-9]|bearer|basic|oauth|digest|://|pass|pwd|"
    r"secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|session[_-]?key|credential|"
    r"signature|sas[_-]?key|account[_-]?key|ya29\.|gh[pousr]_|xox[abprs]-|eyJ|-----BEGIN"
)

#: Name fragments that make a ``name=value`` argument or variable secret.
_SECRET_NAME = (
    r"(?:password|passwd|passphrase|pwd|(?<![a-z])pass(?![a-z])|secret|token|api[_-]?key|apikey|access[_-]?key|"
    r"private[_-]?key|client[_-]?secret|credentials?|auth[_-]?key|session[_-]?key|"
    r"signature|sas[_-]?key|account[_-]?key)"
)

_VALUE = r"""(?!\[REDACTED)(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|["']?[^\s&,;'"<>)\]}]+)"""


def _keep_name(m: re.Match[str]) -> str:
    # ``max_tokens=512``, ``num_keys=3``: counts, not secrets.
    if m[1].lower().endswith(("tokens", "keys")) and m[0][len(m[1]) + len(m[2]) :].isdigit():
        return m[0]
    return f"{m[1]}{m[2]}{MARK}"


def _auth_header(m: re.Match[str]) -> str:
    # ``token XYZ`` is a credential only when XYZ looks like one (letters and digits mixed).
    if m[1].lower() == "token" and not _looks_random(m[3]):
        return m[0]
    return f"{m[1]}{m[2]}{MARK}"


def _looks_random(value: str) -> bool:
    return len(value) >= 16 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _label(name: str):
    return lambda m: f"[REDACTED:{name}]"


_RULES: list[tuple[re.Pattern[str], Any]] = [
    # PEM blocks, real newlines or escaped ``\n`` inside JSON; an unterminated block to the end.
    (
        re.compile(
            r"-----BEGIN ([A-Z0-9 ]{0,40})PRIVATE KEY-----"
            r"(?s:.*?)(?:-----END \1PRIVATE KEY-----|\Z)"
        ),
        lambda m: f"-----BEGIN {m[1]}PRIVATE KEY-----{MARK}-----END {m[1]}PRIVATE KEY-----",
    ),
    # Quoted keys (JSON, Python dict reprs of os.environ): "private_key": "...", 'PASSWORD': '...'.
    (
        re.compile(
            r"""(?i)(["'][\w.-]{0,60}""" + _SECRET_NAME + r"""[\w.-]{0,40}["'])(\s*[:=]\s*)"""
            r"""(?!["']\[REDACTED)(?:(")(?:[^"\\]|\\.)*"|(')(?:[^'\\]|\\.)*')"""
        ),
        lambda m: f"{m[1]}{m[2]}{m[3] or m[4]}{MARK}{m[3] or m[4]}",
    ),
    # Authorization headers.
    (
        re.compile(r"(?i)\b(bearer|basic|oauth|token|digest)(\s+)([A-Za-z0-9\-._~+/]{8,}=*)"),
        _auth_header,
    ),
    # Credentials in URLs: scheme://user:password@host.
    (
        re.compile(r"(?i)\b([a-z][a-z0-9+.\-]{1,20}://)([^\s:/@?#]{0,256}):([^\s@/?#]{1,1024})@"),
        lambda m: f"{m[1]}{m[2]}:{MARK}@",
    ),
    # --password=x, --password x, --token x.
    (
        re.compile(
            r"(?i)(?<![\w-])(--?[\w.-]{0,40}"
            + _SECRET_NAME
            + r"[\w.-]{0,40})(\s*=\s*|\s+)(?!-)"
            + _VALUE
        ),
        _keep_name,
    ),
    # PASSWORD=x, token: x, ?token=x&, export AWS_SECRET_ACCESS_KEY=x.
    (
        re.compile(
            r"(?i)(?<![\w.-])([\w.-]{0,60}" + _SECRET_NAME + r"[\w.-]{0,40})(\s*[=:]\s*)" + _VALUE
        ),
        _keep_name,
    ),
    # Shapes that are secrets wherever they appear.
    (
        re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
        _label("aws-access-key-id"),
    ),
    (
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        _label("jwt"),
    ),
    (re.compile(r"\bya29\.[A-Za-z0-9_\-]{20,}"), _label("google-oauth-token")),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}"), _label("github-token")),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), _label("slack-token")),
]


def redact(text: str) -> str:
    """``text`` with every recognised secret replaced by a ``[REDACTED]`` marker."""
    if not text or not isinstance(text, str) or not _TRIGGER.search(text):
        return text
    for pattern, repl in _RULES:
        text = pattern.sub(repl, text)
    return text


def redact_series(series: pd.Series) -> pd.Series:
    """:func:`redact` over a column: only the values that contain a trigger word are rewritten."""
    import pandas as pd

    if series.empty:
        return series
    text = series.astype("string")
    hit = text.str.contains(_TRIGGER.pattern, regex=True, na=False)
    if not hit.any():
        return series
    out = series.astype(object).copy()
    out[hit.to_numpy()] = [redact(v) for v in text[hit].to_numpy(dtype=object)]
    return pd.Series(out, index=series.index, name=series.name)


def redact_obj(obj: Any, *, skip: frozenset[str] = frozenset()) -> Any:
    """Every string inside a JSON-like object redacted (values of keys in ``skip`` kept)."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return {k: v if k in skip else redact_obj(v, skip=skip) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [redact_obj(v, skip=skip) for v in obj]
    return obj
