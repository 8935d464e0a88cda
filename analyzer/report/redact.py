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
  query parameters and environment dumps (also ``*_KEY`` variables, ``os.environ`` dicts);
- ``Authorization:`` / ``Cookie:`` / ``X-...-Token:`` headers, ``.netrc`` lines.

Secrets printed over several lines (PEM blocks, a service-account JSON, ``.netrc`` entries,
``.pgpass`` lines, Kubernetes ``Secret`` YAML/JSON, quoted values continued on the next lines,
YAML block values) are found by :func:`find_secret_lines`, which sees a window of lines with their
line numbers; :func:`redact_lines` redacts such a window, and :class:`Redactor` (:func:`for_run`)
does it once per :class:`~analyzer.run.Run` so that every view -- a line shown alone included --
hides what lies inside a multi-line secret.

The patterns are linear (no nested quantifiers), and a cheap pre-check skips the common text that
contains none of the trigger words, so redacting every message of a large run stays fast.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

MARK = "[REDACTED]"

#: Words that appear in or near every secret we recognise; text without any of them is skipped.
_TRIGGER = re.compile(
    r"(?i)A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|3T)[A-Z0-9]|bearer|basic|oauth|digest|://|pass|pwd|"
    r"secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|session[_-]?key|credential|"
    r"signature|sas[_-]?key|account[_-]?key|ya29\.|gh[pousr]_|xox[abprs]-|eyJ|-----BEGIN|-----END|"
    r"authorization|cookie|_key\b"
)

#: Name fragments that make a ``name=value`` argument or variable secret.
_SECRET_NAME = (
    r"(?:password|passwd|passphrase|pwd|(?<![a-z])pass(?![a-z])|secret|token|api[_-]?key|apikey|access[_-]?key|"
    r"private[_-]?key|client[_-]?secret|credentials?|auth[_-]?key|session[_-]?key|"
    r"signature|sas[_-]?key|account[_-]?key)"
)

_VALUE = r"""(?!["']?\[REDACTED)(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|["']?[^\s&,;'"<>)\]}]+)"""


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


_AUTH_SCHEMES = (
    r"bearer|basic|token|digest|negotiate|oauth|ntlm|hoba|mutual|aws4-hmac-sha256|scram-sha-\d+"
)

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
    # -- added for multi-line dumps; each also stands alone on one line --
    # PGP private key blocks (the PEM rule above needs ``PRIVATE KEY-----``).
    (
        re.compile(
            r"-----BEGIN PGP PRIVATE KEY BLOCK-----(?s:.*?)(?:-----END PGP PRIVATE KEY BLOCK-----|\Z)"
        ),
        lambda m: f"-----BEGIN PGP PRIVATE KEY BLOCK-----{MARK}-----END PGP PRIVATE KEY BLOCK-----",
    ),
    # Environment variables named ``*_KEY`` (``*_TOKEN``, ``*_SECRET``, ``*PASSWORD*`` are above):
    # ``WANDB_KEY=...``, ``'OPENAI_KEY': '...'`` in a printed ``os.environ``.
    (re.compile(r"(?<![\w.-])([A-Z][A-Z0-9_]{0,60}_KEY)(=)" + _VALUE), _keep_name),
    (
        re.compile(
            r"""(["'][A-Z][A-Z0-9_]{0,60}_KEY["'])(\s*:\s*)"""
            r"""(?!["']\[REDACTED)(?:(")(?:[^"\\]|\\.)*"|(')(?:[^'\\]|\\.)*')"""
        ),
        lambda m: f"{m[1]}{m[2]}{m[3] or m[4]}{MARK}{m[3] or m[4]}",
    ),
    # Header dumps: ``Authorization: <anything>``, ``Cookie: ...``, ``X-Auth-Token: ...``.
    (
        re.compile(
            r"""(?i)\b((?:proxy-)?authorization|x-[\w-]{0,30}(?:token|api-key|auth)[\w-]{0,30}|"""
            r"""cookie|set-cookie)(["']?\s*[:=]\s*["']?)((?:"""
            + _AUTH_SCHEMES
            + r""")\s+)?(?!\[REDACTED|(?:"""
            + _AUTH_SCHEMES
            + r""")\s+\[REDACTED)([^\s"'\\,;\[][^"'\\\r\n]{0,4000})"""
        ),
        lambda m: f"{m[1]}{m[2]}{m[3] or ''}{MARK}",
    ),
    # ``.netrc`` on one line: ``machine HOST login USER password PASS``.
    (
        re.compile(
            r"(?i)(?<![\w-])((?:machine\s+\S+|default)(?:\s+(?:login|account|port)\s+\S+){0,3}"
            r"\s+(?:password|passwd))(\s+)(?!\[REDACTED)(\S+)"
        ),
        lambda m: f"{m[1]}{m[2]}{MARK}",
    ),
]

_PEM_END = re.compile(r"-----END ([A-Z0-9 ]{0,40})PRIVATE KEY(?: BLOCK)?-----")
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def _before_end(text: str) -> str:
    """The base64 right before an ``-----END ... PRIVATE KEY-----`` whose BEGIN is elsewhere."""
    if "-----END" not in text:
        return text
    out, last = [], 0
    for m in _PEM_END.finditer(text):
        i, b64 = m.start(), 0
        while i > last:
            c = text[i - 1]
            if c == "n" and i - 2 >= last and text[i - 2] == "\\":
                i -= 2  # an escaped ``\n`` inside JSON
            elif c in _B64_CHARS:
                b64 += 1
                i -= 1
            elif c in "\r\n":
                i -= 1
            else:
                break
        if b64 >= 16:
            out += [text[last:i], MARK]
            last = m.start()
    return "".join([*out, text[last:]]) if out else text


def redact(text: str) -> str:
    """``text`` with every recognised secret replaced by a ``[REDACTED]`` marker."""
    if not text or not isinstance(text, str) or not _TRIGGER.search(text):
        return text
    for pattern, repl in _RULES:
        text = pattern.sub(repl, text)
    return _before_end(text)


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


def redact_obj(obj: Any, *, skip: frozenset[str] = frozenset(), fn: Any = None) -> Any:
    """Every string inside a JSON-like object redacted by ``fn`` (default :func:`redact`; values
    of keys in ``skip`` kept)."""
    fn = fn or redact
    if isinstance(obj, str):
        return fn(obj)
    if isinstance(obj, dict):
        return {k: v if k in skip else redact_obj(v, skip=skip, fn=fn) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [redact_obj(v, skip=skip, fn=fn) for v in obj]
    return obj


# -- secrets over several lines ---------------------------------------------------------------

#: How far (in lines) a multi-line secret may reach from the line that opens it.
MAX_BLOCK_LINES = 400
#: How far a quoted value may go on (a service-account key wrapped at 64 characters: ~30 lines).
MAX_VALUE_LINES = 100
#: Lines looked at around a line that may open a multi-line secret (``kind: Secret`` may come
#: after ``data:`` when kubectl sorts the keys).
_LOOK_AROUND = 80
#: A value at least this long, found inside a multi-line secret, is hidden wherever it appears
#: (a finding message or a summary that quotes it out of context).
MIN_GLOBAL = 8

_BEGIN = re.compile(r"-----BEGIN ([A-Z0-9 ]{1,60}?)-----")
_END = re.compile(r"-----END ([A-Z0-9 ]{1,60}?)-----")
_ARMOR_HEADER = re.compile(r"^(?:Proc-Type|DEK-Info|Comment|Version|Hash|Charset):")
_PIECES = re.compile(r"""\\[nrt]|["',\s]+""")
_B64_PIECE = re.compile(r"[A-Za-z0-9+/=]+")
_LONE_BODY = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")
_LONG_RUN = re.compile(r"[A-Za-z0-9+/]{40}")  # what every lone body holds
_QUOTED_KEY = re.compile(
    r"""(?:["'](?:[\w.-]{0,60}(?i:"""
    + _SECRET_NAME
    + r""")[\w.-]{0,40}|[A-Z][A-Z0-9_]{0,60}_KEY|"""
    r"""(?i:(?:proxy-)?authorization|cookie))["']\s*[:=]\s*"""
    r"""|(?<![\w.-])(?:export\s+)?(?:[A-Za-z0-9_]{0,60}(?i:"""
    + _SECRET_NAME
    + r""")[A-Za-z0-9_]{0,40}|[A-Z][A-Z0-9_]{0,60}_KEY)=)(["'])"""
)
#: A word every name :data:`_QUOTED_KEY` looks for holds (lower-cased).
_QUOTED_WORDS = ("pass", "pwd", "secret", "token", "key", "credential", "signature")
_QUOTED_WORDS += ("authorization", "cookie")
_BLOCK_KEY = re.compile(
    r"""^(\s*)(?:-\s+)?["']?(?:[\w.-]{0,60}(?i:""" + _SECRET_NAME + r""")[\w.-]{0,40}|"""
    r"""[A-Z][A-Z0-9_]{0,60}_KEY)["']?\s*[:=](?:\s*[|>][-+0-9]{0,3})?\s*$"""
)
_CRED_HEADER = (
    r"(?:proxy-)?authorization|x-[\w-]{0,30}(?:token|api-key|auth)[\w-]{0,30}|cookie|set-cookie"
)
_AUTH_OPEN = re.compile(
    r"(?i)^\s*[>\"']?\s*(?:" + _CRED_HEADER + r")[\"']?\s*:(?:\s*(?:" + _AUTH_SCHEMES + r"))?\s*$"
)
_HEADER = re.compile(r"(?i)^\s*[>\"']?\s*(?:" + _CRED_HEADER + r")[\"']?\s*:")
_DATA = re.compile(r"""^(\s*)["']?(?:data|stringData)["']?\s*:(?:\s*(\{))?\s*$""")
_KIND_SECRET = re.compile(r"""^\s*["']?kind["']?\s*:\s*["']?Secret["']?(?:\s*,)?\s*$""")
_YAML_ENTRY = re.compile(r"""^\s*["']?([^:"'\s][^:"']{0,200})["']?\s*:(.*)$""")
_INLINE_SECRET = re.compile(r'"kind"\s*:\s*"Secret"')
_INLINE_DATA = re.compile(r'"(?:data|stringData)"\s*:\s*\{([^{}]*)\}')
_JSON_VALUE = re.compile(r'"[^"]*"\s*:\s*"((?:[^"\\]|\\.)*)"')
_NETRC_START = re.compile(r"^\s*(?:machine\s+\S+|default)(?:\s|$)")
_NETRC_TOKEN = re.compile(r"^\s*(?:machine|default|login|password|passwd|account|port|macdef)\b")
_NETRC_VALUE = re.compile(r"(?i)\b(?:password|passwd|account)\s+(\S+)")
_LOGIN_LINE = re.compile(r"^\s*login\s+\S+\s*$")
_PASSWORD_LINE = re.compile(r"^\s*(?:password|passwd)\s+(\S+)\s*$")
_PGPASS = re.compile(r"^\s*[^:\s#]+:(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:(\S+)\s*$")
_CONCAT = re.compile(r"""^\s*(["'])(?:[^\\]|\\.)*?\1((?:\s*[,})\]])*)\s*$""")
_LOG_START = re.compile(r"^(?:\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d|[IWEF]\d{4} \d\d:\d\d:)")

#: RE2 (pyarrow) version of what may open a multi-line secret: the rows worth a closer look.
_OPENERS = (
    r"-----BEGIN |(?i:key|token|secret|pass|pwd|credential|signature|auth|cookie)[\w.-]*[\"']?\s*[:=]"
    r"|(?m:^\s*[\"']?(?:data|stringData)[\"']?\s*:)|(?m:^\s*(?:machine|default|login)\b)"
    r"|(?m:^\s*[^:\s#]+:(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:\S+\s*$)"
    r"|(?m:^\s*[\"']?[A-Za-z0-9+/]{40,}={0,2}(?:\\n)?[\"']?,?\s*$)"
)


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _pieces(text: str) -> tuple[str, ...]:
    """The parts of a secret line worth hiding: split at quotes, commas, spaces, ``\\n`` escapes."""
    return tuple(p for p in _PIECES.split(text) if p)


def _body_shaped(text: str) -> bool:
    """A line of a PEM/PGP body: base64 (maybe quoted, with ``\\n`` escapes), armor header, blank."""
    stripped = text.strip()
    if not stripped or _ARMOR_HEADER.match(stripped):
        return True
    return all(_B64_PIECE.fullmatch(p) for p in _pieces(stripped))


def _lone_body(text: str) -> bool:
    """A line that is nothing but a long random-looking base64 run (a key body shown alone)."""
    if not _LONG_RUN.search(text):  # (most lines: no need to cut them into pieces)
        return False
    pieces = _pieces(text)
    if len(pieces) != 1 or not _LONE_BODY.fullmatch(pieces[0]):
        return False
    p = pieces[0]
    return (
        any(c.isupper() for c in p) and any(c.islower() for c in p) and any(c.isdigit() for c in p)
    )


class _Found:
    """What a scan found: for each line number, the parts of it to hide."""

    def __init__(self) -> None:
        self.lines: dict[int, set[str]] = {}
        self.public: set[int] = set()  # inside a certificate / public key: left alone
        self.records: set[int] = set()  # lines that start a log record of their own

    def add(self, no: int, values: tuple[str, ...] | list[str]) -> None:
        values = [v for v in values if v and v != MARK and not _BEGIN.fullmatch(v)]
        if values:
            self.lines.setdefault(no, set()).update(values)

    def whole(self, no: int, text: str) -> None:
        self.add(no, [text.strip()])


def _scan_pem(nos: list[int], texts: list[str], found: _Found) -> None:
    n, i = len(texts), 0
    while i < n:
        begins = list(_BEGIN.finditer(texts[i]))
        if not begins or _END.search(texts[i], begins[-1].end()):
            i += 1
            continue
        secret = "PRIVATE KEY" in begins[-1][1]
        end = None
        j = i + 1
        while j < n and nos[j] - nos[i] <= MAX_BLOCK_LINES:
            if "-----END" in texts[j]:  # (also an END cut by a wrapped line: ``-----END PRIV``)
                end = j
                break
            if _BEGIN.search(texts[j]):
                break
            j += 1
        if end is not None:
            inside = list(range(i + 1, end))
        else:
            inside = []
            j = i + 1
            while j < n and nos[j] - nos[i] <= MAX_BLOCK_LINES and _body_shaped(texts[j]):
                inside.append(j)
                j += 1
        for k in inside:
            if not secret:
                found.public.add(nos[k])
            elif _body_shaped(texts[k]):
                found.add(nos[k], _pieces(texts[k]))
            elif nos[k] not in found.records:  # (another thread's log record is not the key)
                found.whole(nos[k], texts[k])
        if end is not None and secret:
            before = texts[end][: texts[end].index("-----END")]
            found.add(nos[end], _B64_PIECE.findall(_body_tail(before).replace("\\n", " ")))
        i = end if end is not None else (inside[-1] + 1 if inside else i + 1)


def _body_tail(text: str) -> str:
    """The end of ``text`` that is made of key body (base64, ``\\n`` escapes, quotes)."""
    i = len(text)
    while i > 0:
        c = text[i - 1]
        if c == "n" and i >= 2 and text[i - 2] == "\\":
            i -= 2
        elif c in _B64_CHARS or c in "\"',":
            i -= 1
        else:
            break
    return text[i:]


def _close_quote(text: str, start: int, quote: str) -> int:
    """Index of the unescaped ``quote`` in ``text`` from ``start`` (-1 if the value goes on)."""
    i = start
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            return i
        i += 1
    return -1


def _may_quote_key(text: str) -> bool:
    """False when ``text`` cannot hold a match of :data:`_QUOTED_KEY` (no quote, or an ASCII
    line without any of :data:`_QUOTED_WORDS`): the full search is slow on long lines."""
    if '"' not in text and "'" not in text:
        return False
    if not text.isascii():  # letters that match ASCII ones ignoring case (K, ſ, ı): search
        return True
    low = text.lower()
    return any(word in low for word in _QUOTED_WORDS)


def _scan_quoted(nos: list[int], texts: list[str], found: _Found) -> None:
    """``"private_key": "...`` whose string goes on over the next lines; pprint's ``'...'``
    continuations of a secret value; ``TOKEN="...`` shell values over several lines."""
    n = len(texts)
    for i in range(n):
        if not _may_quote_key(texts[i]):
            continue
        for m in _QUOTED_KEY.finditer(texts[i]):
            quote = m[1]
            close = _close_quote(texts[i], m.end(), quote)
            if close < 0:
                found.add(nos[i], [texts[i][m.end() :].strip()])
                j = i + 1
                while j < n and nos[j] - nos[i] <= MAX_VALUE_LINES and nos[j] not in found.records:
                    close = _close_quote(texts[j], 0, quote)
                    if close < 0:
                        found.whole(nos[j], texts[j])
                        j += 1
                        continue
                    found.add(nos[j], [texts[j][:close].strip()])
                    break
                continue
            value = texts[i][m.end() : close]
            if len(value) >= MIN_GLOBAL:  # hidden wherever else it is printed too
                found.add(nos[i], [value])
            rest = texts[i][close + 1 :].strip()
            if rest:  # closed on its line (``,``, ``}``, more keys): nothing continues
                continue
            j = i + 1
            while (
                j < n
                and nos[j] - nos[i] <= MAX_VALUE_LINES
                and nos[j] not in found.records
                and (c := _CONCAT.match(texts[j]))
            ):
                found.whole(nos[j], texts[j])
                if c[2].strip():
                    break
                j += 1


def _scan_blocks(nos: list[int], texts: list[str], found: _Found) -> None:
    """``password: |`` (YAML block values) and ``Authorization:`` with the value on the next line."""
    n = len(texts)
    for i in range(n):
        m = _BLOCK_KEY.match(texts[i])
        if m:
            level = len(m[1])
            j = i + 1
            while j < n and nos[j] - nos[i] <= MAX_VALUE_LINES and nos[j] not in found.records:
                t = texts[j]
                if t.strip() and _indent(t) <= level:
                    break
                if t.strip():
                    found.whole(nos[j], t)
                j += 1
            continue
        if _HEADER.match(texts[i]):
            j = i + 1
            if _AUTH_OPEN.match(texts[i]) and j < n and nos[j] == nos[i] + 1:
                t = texts[j]
                if (
                    t.strip()
                    and nos[j] not in found.records
                    and not _LOG_START.match(t)
                    and not re.match(r"^\s*[\w-]+\s*:", t)
                ):
                    found.whole(nos[j], t)
                    j += 1
            while j < n and nos[j] == nos[j - 1] + 1 and texts[j][:1] in (" ", "\t"):
                if not texts[j].strip() or nos[j] in found.records:
                    break
                found.whole(nos[j], texts[j])  # a folded header continues the value
                j += 1


def _scan_k8s(nos: list[int], texts: list[str], found: _Found) -> None:
    """Kubernetes ``Secret`` objects: every value under ``data:`` / ``stringData:``."""
    n = len(texts)
    for i in range(n):
        if '"kind"' in texts[i] and _INLINE_SECRET.search(texts[i]):
            for d in _INLINE_DATA.finditer(texts[i]):
                found.add(nos[i], [v[1] for v in _JSON_VALUE.finditer(d[0])])
        m = _DATA.match(texts[i])
        if not m:
            continue
        near = range(i - 1, -1, -1), range(i + 1, n)
        secret = False
        for side in near:
            for k in side:
                if abs(nos[k] - nos[i]) > _LOOK_AROUND or texts[k].strip() == "---":
                    break
                if _KIND_SECRET.match(texts[k]):
                    secret = True
                    break
        if not secret:
            continue
        level, brace = len(m[1]), bool(m[2])
        j, scalar = i + 1, None
        while j < n and nos[j] - nos[i] <= MAX_BLOCK_LINES and nos[j] not in found.records:
            t = texts[j]
            if brace and t.strip().startswith("}"):
                break
            if not brace and t.strip() and _indent(t) <= level:
                break
            if scalar is not None and t.strip() and _indent(t) > scalar:
                found.whole(nos[j], t)  # a line of a block scalar (``tls.key: |``)
            elif t.strip():
                e = _YAML_ENTRY.match(t)
                value = e[2].strip().rstrip(",").strip().strip("\"'") if e else t.strip()
                if e and value in ("|", ">", "|-", ">-", "|+", ">+"):
                    scalar = _indent(t)
                else:
                    scalar = None
                    found.add(nos[j], [value])
            j += 1


def _scan_netrc(nos: list[int], texts: list[str], found: _Found) -> None:
    n = len(texts)
    for i in range(n):
        if _NETRC_START.match(texts[i]):
            j = i
            while j < n and (
                j == i
                or (
                    nos[j] == nos[j - 1] + 1
                    and nos[j] not in found.records
                    and _NETRC_TOKEN.match(texts[j])
                )
            ):
                found.add(nos[j], [v[1] for v in _NETRC_VALUE.finditer(texts[j])])
                j += 1
        elif _LOGIN_LINE.match(texts[i]) and i + 1 < n and nos[i + 1] == nos[i] + 1:
            p = _PASSWORD_LINE.match(texts[i + 1])
            if p:
                found.add(nos[i + 1], [p[1]])


def _scan_lines(nos: list[int], texts: list[str], found: _Found) -> None:
    """One-line shapes that need no trigger word: ``.pgpass`` entries, lone key-body lines (a
    key whose BEGIN line is not known), and the shorter body lines right after those."""
    body_before = None  # the line number of the last key-body line found here
    for no, t in zip(nos, texts, strict=True):
        p = _PGPASS.match(t)
        if p:
            found.add(no, [p[1]])
        elif no not in found.public and (
            _lone_body(t) or (body_before == no - 1 and t.strip() and _body_shaped(t))
        ):
            found.add(no, _pieces(t))
            body_before = no


_SCANS = (_scan_pem, _scan_quoted, _scan_blocks, _scan_k8s, _scan_netrc, _scan_lines)


def find_secret_lines(
    lines: Iterable[tuple[int, str]], records: Iterable[int] | None = None
) -> dict[int, frozenset[str]]:
    """The lines of one file that lie inside a multi-line secret, and what to hide on each.

    ``lines`` are ``(line number, text)``; numbers may skip lines that are not known (a condensed
    timeline). ``records``: the numbers of lines that start a log record of their own (a prefixed
    line); a value that goes on over lines stops before one. By default, the lines that start
    with a timestamp. Returns ``{line number: parts of that line to hide}``.
    """
    pairs = sorted({no: "" if t is None else str(t) for no, t in lines}.items())
    nos, texts = [p[0] for p in pairs], [p[1] for p in pairs]
    found = _Found()
    found.records = (
        set(records)
        if records is not None
        else {no for no, t in zip(nos, texts, strict=True) if _LOG_START.match(t)}
    )
    for scan in _SCANS:
        scan(nos, texts, found)
    return {no: frozenset(v) for no, v in found.lines.items()}


def _hide(text: str, values: Iterable[str]) -> str:
    """``text`` with each of ``values`` (longest first) replaced by :data:`MARK`."""
    for v in sorted(values, key=len, reverse=True):
        if v not in text:
            continue
        if len(v) >= MIN_GLOBAL:
            text = text.replace(v, MARK)
        else:  # a short value only as a whole word (``password pw`` keeps ``pw`` in ``pwd``)
            text = re.sub(r"(?<![A-Za-z0-9])" + re.escape(v) + r"(?![A-Za-z0-9])", MARK, text)
    return text


def _trie(words: Iterable[str]) -> str:
    """A regex matching any of ``words`` (longest first), as a trie: one branch per position."""
    root: dict[str, Any] = {}
    for w in words:
        node = root
        for c in w:
            node = node.setdefault(c, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        chain = []
        while "" not in node and len(node) == 1:  # a run of single letters: no group needed
            ((c, node),) = node.items()
            chain.append(re.escape(c))
        keys = sorted(k for k in node if k)
        if not keys:
            return "".join(chain)
        group = "(?:" + "|".join(re.escape(k) + build(node[k]) for k in keys) + ")"
        return "".join(chain) + group + ("?" if "" in node else "")

    return build(root)


def _any_of(values: set[str]) -> re.Pattern[str]:
    try:
        return re.compile(_trie(values))
    except (RecursionError, re.error, OverflowError):  # pathological nesting: plain alternation
        return re.compile("|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)))


def redact_lines(lines: Sequence[tuple[int, str]]) -> list[str]:
    """A window of lines of one file, redacted: each line by :func:`redact`, and what lies inside
    a multi-line secret (as its neighbours in the window show) hidden too -- also where a long
    value of such a secret is repeated on another line of the window."""
    redactor = Redactor({"": find_secret_lines(lines)})
    return [redactor.line(t, "", no) for no, t in lines]


class Redactor:
    """Redaction for every view of one run: knows which lines lie inside multi-line secrets.

    ``redactor(text)`` redacts free text (a message, a summary) and hides every long value found
    inside a multi-line secret anywhere in the run; ``redactor.line(text, file, line_no)`` also
    hides the parts of the lines ``line_no, line_no + 1, ...`` (one per line of ``text``) that lie
    inside a multi-line secret, short ones included.
    """

    def __init__(
        self, secrets: dict[str, dict[int, frozenset[str]]] | None = None, *, enabled: bool = True
    ):
        self.enabled = enabled
        self.secrets = secrets or {}
        values = {
            v
            for per in self.secrets.values()
            for vs in per.values()
            for v in vs
            if len(v) >= MIN_GLOBAL
        }
        self._values = _any_of(values) if values else None

    def __call__(self, text: Any) -> Any:
        if not self.enabled or not isinstance(text, str) or not text:
            return text
        if self._values is not None:
            text = self._values.sub(MARK, text)
        return redact(text)

    def secret_at(self, file: Any, line_no: Any) -> bool:
        per = self.secrets.get(file) if isinstance(file, str) else None
        no = _number(line_no)
        return bool(per) and no is not None and no in per

    def line(self, text: Any, file: Any, line_no: Any) -> Any:
        """``text`` shown as line ``line_no`` of ``file`` (its later lines the following ones)."""
        if not self.enabled or not isinstance(text, str) or not text:
            return text
        per = self.secrets.get(file) if isinstance(file, str) else None
        first = _number(line_no)
        if per and first is not None:
            parts = text.split("\n")
            for k, part in enumerate(parts):
                values = per.get(first + k)
                if values:
                    parts[k] = _hide(part, values)
            text = "\n".join(parts)
        return self(text)

    def obj(self, obj: Any, *, skip: frozenset[str] = frozenset()) -> Any:
        if not self.enabled:
            return obj
        done: dict[str, Any] = {}  # (a report repeats its strings: each redacted once)

        def once(text: Any) -> Any:
            if type(text) is not str:
                return self(text)
            got = done.get(text)
            if got is None:
                got = done[text] = self(text)
            return got

        return redact_obj(obj, skip=skip, fn=once)


NO_REDACTION = Redactor(enabled=False)


def _number(value: Any) -> int | None:
    """A line number as int (None for None, NaN, NA, or anything else)."""
    try:
        return None if value is None or value != value else int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def for_run(run: Any, enabled: bool = True) -> Redactor:
    """The :class:`Redactor` of ``run`` (its multi-line secrets found once, then cached)."""
    if not enabled:
        return NO_REDACTION
    cached = run.__dict__.get("_redactor")
    if cached is None:
        cached = Redactor(run_secret_lines(run.timeline))
        run.__dict__["_redactor"] = cached
    return cached


def run_secret_lines(timeline: pd.DataFrame) -> dict[str, dict[int, frozenset[str]]]:
    """:func:`find_secret_lines` for every file of a timeline: ``{file: {line_no: parts}}``.

    The lines of an event are its ``raw`` lines (one event may span several), its ``message``
    for a one-line event (the log prefix and any wrapper removed, indentation kept), and the
    continuation lines a warning carries in ``detail``. Only the files with a line that may open a
    multi-line secret are scanned, and only around such lines.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    need = ("file", "line_no", "raw")
    if len(timeline) == 0 or any(c not in timeline.columns for c in need):
        return {}

    def arrow(col: str) -> pa.ChunkedArray | pa.Array:
        if col not in timeline.columns:
            return pa.nulls(len(timeline), pa.large_string())
        values = timeline[col]
        try:
            return pa.array(values.array) if hasattr(values, "array") else pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            return pa.array(
                values.astype(object).where(values.notna(), None).tolist(), pa.large_string()
            )

    hit = None
    for col in ("raw", "message", "detail"):
        values = arrow(col)
        if values.null_count == len(values):
            continue
        if not (pa.types.is_large_string(values.type) or pa.types.is_string(values.type)):
            values = pc.cast(values, pa.large_string())
        match = pc.fill_null(pc.match_substring_regex(values, _OPENERS), False)
        hit = match if hit is None else pc.or_(hit, match)
    if hit is None:
        return {}
    hit = np.asarray(hit.to_numpy(zero_copy_only=False), dtype=bool)
    if not hit.any():
        return {}
    import pandas as pd

    codes, names = pd.factorize(timeline["file"], sort=False)
    line_no = timeline["line_no"].astype("float64").to_numpy()
    line_end = (
        timeline["line_end"].astype("float64").to_numpy()
        if "line_end" in timeline.columns
        else line_no
    )
    ok = (codes >= 0) & ~np.isnan(line_no)
    columns = {
        c: timeline[c].astype(object).to_numpy() if c in timeline.columns else None
        for c in ("raw", "message", "detail")
    }
    # a line that starts a record of its own: a parsed (prefixed) line, or one that starts with a time
    record = np.zeros(len(timeline), dtype=bool)
    if "format" in timeline.columns:
        fmt = timeline["format"].astype(object).to_numpy()
        record |= (fmt != "plain") & (fmt == fmt) & np.array([f is not None for f in fmt])
    # (the message: a wrapper's own time, as in Kubernetes CRI lines, does not make a record)
    record |= np.asarray(
        pc.fill_null(
            pc.match_substring_regex(arrow("message"), _LOG_START.pattern), False
        ).to_numpy(zero_copy_only=False),
        dtype=bool,
    )
    out: dict[str, dict[int, frozenset[str]]] = {}
    for code in np.unique(codes[hit & ok]).tolist():
        rows = np.flatnonzero((codes == code) & ok)
        rows = rows[np.argsort(line_no[rows], kind="stable")]
        nos = line_no[rows]
        starts = nos[hit[rows]]
        # the rows within reach of a hit: +1 where a window opens, -1 after it closes
        delta = np.zeros(len(rows) + 1, dtype=np.int64)
        np.add.at(delta, np.searchsorted(nos, starts - _LOOK_AROUND, "left"), 1)
        np.add.at(delta, np.searchsorted(nos, starts + MAX_BLOCK_LINES + _LOOK_AROUND, "right"), -1)
        wanted = np.cumsum(delta)[:-1] > 0
        known: dict[int, str] = {}
        for r in rows[wanted].tolist():
            _event_lines(known, int(line_no[r]), line_end[r], r, columns)
        starts = {int(line_no[r]) for r in rows[wanted & record[rows]].tolist()}
        found = find_secret_lines(known.items(), starts)
        if found:
            out[str(names[code])] = found
    return out


def _event_lines(
    known: dict[int, str], first: int, last: float, r: int, columns: dict[str, Any]
) -> None:
    """Put the physical lines of timeline row ``r`` into ``known`` (``{line number: text}``)."""

    def text(col: str) -> str | None:
        values = columns[col]
        v = values[r] if values is not None else None
        return v if isinstance(v, str) else None

    raw = text("raw")
    if last == last and last > first and raw is not None:
        for k, part in enumerate(raw.split("\n")):
            known[first + k] = part
        return
    msg = text("message")
    known[first] = msg if msg is not None else (raw or "")
    more = text("detail")
    if more:
        for k, part in enumerate(more.split("\n"), 1):
            known.setdefault(first + k, part)
