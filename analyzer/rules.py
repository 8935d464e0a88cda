"""The pattern library: rule model, loading, validation and example checking.

A rule is data (YAML under ``patterns/``): a regex in the :mod:`regex` module's syntax that is
searched in an event's ``message`` (and ``detail`` when the rule says ``fields: [message,
detail]``), optional conditions on the event's ``level``, ``source`` and ``format``, the
taxonomy category it points to, and ``keywords``: literal substrings used by the prefilter of
:func:`analyzer.classify.classify`.

Keyword contract: every text the rule's regex matches must contain at least one of its
keywords (compared case-insensitively).  The examples check this for every match example.
A rule without ``keywords`` gets them derived from its regex (a required literal run, or one
literal per alternative); when nothing can be derived the rule is *always a candidate*: it is
correct but slow, and ``tfdiag patterns test`` warns about it.

Priority (first matching rule wins): benign rules first, then higher ``priority`` (default 0),
then the order of definition (files in name order, rules in file order).  Give specific rules
a higher priority than the generic ones they overlap (``errors_impl.UnavailableError`` is
generic; ``... heartbeat timeout`` inside it is specific).

Public API: :class:`Rule`, :class:`RuleSet`, :class:`RuleError`, :func:`load_rules`,
:func:`bundled_patterns_dir`, :func:`run_examples`, :func:`split_example_line`.
"""

from __future__ import annotations

import re as _stdre
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

from analyzer.model import CATEGORIES

SEVERITIES: tuple[str, ...] = ("info", "warning", "error", "fatal")
SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}
LEVELS: tuple[str, ...] = ("DEBUG", "INFO", "WARNING", "ERROR", "FATAL")
FORMATS: tuple[str, ...] = (
    "tf_cpp",
    "absl",
    "python_logging",
    "python_tf_logging",
    "python_traceback",
    "cpp_stacktrace",
    "grpc",
    "keras_progress",
    "plain",
)
FIELDS: tuple[str, ...] = ("message", "detail")

_ID_RE = _stdre.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)+$")
_RULE_KEYS = {
    "id",
    "title",
    "category",
    "severity",
    "match",
    "fields",
    "ignore_case",
    "level",
    "source",
    "format",
    "blames",
    "keywords",
    "priority",
    "benign",
    "remediation",
    "references",
    "examples",
    "description",
}
_REQUIRED = ("id", "title", "category", "severity", "match")
_EXAMPLE_KEYS = {"line", "captures", "source", "detail", "level", "format", "message", "note"}
_MIN_DERIVED_LITERAL = 3


class RuleError(ValueError):
    """A rule file or rule is invalid; the message names the file and the rule id."""


@dataclass(frozen=True)
class Example:
    """One example line of a rule (``expect`` is ``"match"`` or ``"no_match"``)."""

    line: str
    expect: str
    captures: dict[str, str] | None = None
    source: str | None = None
    detail: str | None = None
    level: str | None = None
    format: str | None = None
    message: str | None = None


@dataclass(frozen=True)
class Rule:
    """One pattern. ``compiled``/``source_compiled`` are built by :func:`load_rules`."""

    id: str
    title: str
    category: str
    severity: str
    match: str
    fields: tuple[str, ...] = ("message",)
    ignore_case: bool = False
    level: tuple[str, ...] | None = None
    source: str | None = None
    format: tuple[str, ...] | None = None
    blames: str | None = None
    keywords: tuple[str, ...] = ()
    keywords_derived: bool = False
    priority: int = 0
    benign: bool = False
    remediation: str = ""
    references: tuple[str, ...] = ()
    description: str = ""
    examples: tuple[Example, ...] = ()
    file: str = ""
    order: int = 0
    compiled: Any = field(default=None, repr=False, compare=False, hash=False)
    source_compiled: Any = field(default=None, repr=False, compare=False, hash=False)

    @property
    def matcher(self):
        """The compiled ``match`` regex. The bundled library's rules compile it on first use
        (most rules never meet a line their keywords pass; the tests compile them all)."""
        if self.compiled is None:
            flags = regex.V0 | (regex.IGNORECASE if self.ignore_case else 0)
            object.__setattr__(self, "compiled", regex.compile(self.match, flags))
        return self.compiled

    @property
    def always_candidate(self) -> bool:
        """True when the prefilter cannot narrow this rule down (no keywords at all)."""
        return not self.keywords

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (0 if self.benign else 1, -self.priority, self.order)

    def conditions_ok(self, level: str | None, source: str | None, fmt: str | None) -> bool:
        if self.level is not None and level not in self.level:
            return False
        if self.format is not None and fmt not in self.format:
            return False
        return not (
            self.source_compiled is not None
            and (source is None or self.source_compiled.search(source) is None)
        )

    def search(
        self, message: str | None, detail: str | None = None, *, timeout: float | None = None
    ):
        """Search the rule's text; the match object, or None.

        With ``fields: [message, detail]`` the text is ``message + "\\n" + detail`` so that one
        regex can capture across the exception line and its traceback / continuation lines.
        """
        if "detail" in self.fields:
            parts = [t for t in (message, detail) if isinstance(t, str)]
            if "message" not in self.fields:
                parts = [detail] if isinstance(detail, str) else []
            text = "\n".join(parts)
        else:
            text = message if isinstance(message, str) else None
        if not text:
            return None
        return self.matcher.search(text, timeout=timeout)

    def captures_of(self, m) -> dict[str, str]:
        return {k: v for k, v in m.groupdict().items() if v is not None}

    def blamed(self, captures: dict[str, str]) -> str | None:
        if self.blames is None:
            return None
        if self.blames in ("self", "chief"):
            return self.blames
        return captures.get(self.blames)


class RuleSet:
    """Rules in priority order (see module doc), with lookup by id."""

    def __init__(self, rules: Iterable[Rule], warnings: Sequence[str] = ()) -> None:
        self.rules: tuple[Rule, ...] = tuple(sorted(rules, key=lambda r: r.sort_key))
        self.by_id: dict[str, Rule] = {r.id: r for r in self.rules}
        self.warnings: list[str] = list(warnings)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.by_id

    def __getitem__(self, rule_id: str) -> Rule:
        return self.by_id[rule_id]

    def get(self, rule_id: str) -> Rule | None:
        return self.by_id.get(rule_id)

    def categories(self) -> set[str]:
        return {r.category for r in self.rules}

    def match_event(
        self,
        message: str | None,
        detail: str | None = None,
        level: str | None = None,
        source: str | None = None,
        fmt: str | None = None,
    ) -> tuple[Rule, dict[str, str]] | None:
        """Brute force: the first rule (priority order) matching one event, with captures."""
        for rule in self.rules:
            if not rule.conditions_ok(level, source, fmt):
                continue
            m = rule.search(message, detail)
            if m is not None:
                return rule, rule.captures_of(m)
        return None


# --------------------------------------------------------------------------- locations


def bundled_patterns_dir() -> Path:
    """The bundled library: ``analyzer/_patterns`` in a wheel, ``patterns/`` in a checkout."""
    here = Path(__file__).resolve().parent
    for cand in (here / "_patterns", here.parent / "patterns"):
        if cand.is_dir():
            return cand
    return here.parent / "patterns"


def _yaml_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    return [path]


# --------------------------------------------------------------------------- loading


def load_rules(
    paths: list[Path] | None = None, extra_dirs: Sequence[Path] = (), *, compile_all: bool = False
) -> RuleSet:
    """Load and validate rules.

    ``paths`` (files or directories) replaces the bundled library when given; every rule in
    ``extra_dirs`` (user directories) is loaded afterwards and overrides a rule with the same
    id.  Any invalid rule raises :class:`RuleError` naming the file and the rule id. The
    regexes of the bundled library (tested with it) are compiled on first use unless
    ``compile_all``; the user's are compiled here, so a bad one is named at once.
    """
    base = [Path(p) for p in paths] if paths is not None else [bundled_patterns_dir()]
    rules: dict[str, Rule] = {}
    warnings: list[str] = []
    order = 0
    bundled = paths is None
    for group_index, group in enumerate((base, [Path(p) for p in extra_dirs])):
        group_is_users = group_index == 1 or not bundled
        seen_in_group: dict[str, str] = {}
        for root in group:
            if not root.exists():
                raise RuleError(f"{root}: no such pattern file or directory")
            for f in _yaml_files(root):
                for raw in _read_file(f):
                    order += 1
                    rule = _build_rule(raw, f, order, compile_now=compile_all or group_is_users)
                    if rule.id in seen_in_group:
                        raise RuleError(
                            f"{f}: rule {rule.id}: duplicate id (also in {seen_in_group[rule.id]})"
                        )
                    seen_in_group[rule.id] = str(f)
                    if group_index == 1 and rule.id in rules:
                        warnings.append(f"{f}: rule {rule.id} overrides the bundled rule")
                    if rule.keywords_derived:
                        warnings.append(
                            f"{f}: rule {rule.id}: no keywords given; derived "
                            f"{list(rule.keywords)} from its regex"
                        )
                    elif rule.always_candidate:
                        warnings.append(
                            f"{f}: rule {rule.id}: no keywords and none derivable from its regex;"
                            " it is tried on every line (slow). Add `keywords:`."
                        )
                    rules[rule.id] = rule
    return RuleSet(rules.values(), warnings)


def _read_file(f: Path) -> list[dict]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: ~20x faster
    try:
        data = yaml.load(f.read_text(encoding="utf-8"), Loader=loader)
    except yaml.YAMLError as exc:
        raise RuleError(f"{f}: not valid YAML: {' '.join(str(exc).split())}") from exc
    except UnicodeDecodeError as exc:
        raise RuleError(
            f"{f}: not UTF-8 text (byte {exc.start:,}); save the rules as UTF-8"
        ) from exc
    except OSError as exc:
        raise RuleError(f"{f}: cannot read: {exc}") from exc
    if data is None:
        return []
    if isinstance(data, dict):
        unknown = set(data) - {"rules", "area", "description"}
        if unknown:
            raise RuleError(f"{f}: unknown top-level keys {sorted(unknown)} (expected `rules:`)")
        data = data.get("rules") or []
    if not isinstance(data, list):
        raise RuleError(f"{f}: expected a list of rules or a mapping with `rules:`")
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            raise RuleError(f"{f}: rule #{i + 1}: expected a mapping, got {type(item).__name__}")
    return data


def _as_tuple(value: Any, what: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise RuleError(f"{where}: `{what}` must be a string or a list of strings")


def _build_rule(raw: dict, f: Path, order: int, compile_now: bool = True) -> Rule:
    rid = raw.get("id")
    where = f"{f}: rule {rid if rid is not None else '#' + str(order)}"
    if not isinstance(rid, str) or not rid:
        raise RuleError(f"{where}: missing field `id`")
    if not _ID_RE.match(rid):
        raise RuleError(f"{where}: id must be dotted lowercase words like `grpc.unavailable.x`")
    unknown = set(raw) - _RULE_KEYS
    if unknown:
        raise RuleError(f"{where}: unknown fields {sorted(unknown)}")
    for key in _REQUIRED:
        if key not in raw or raw[key] in (None, ""):
            raise RuleError(f"{where}: missing field `{key}`")
    for key in ("title", "match", "category", "severity"):
        if not isinstance(raw[key], str):
            raise RuleError(f"{where}: `{key}` must be a string")
    category = raw["category"]
    if category not in CATEGORIES:
        raise RuleError(f"{where}: unknown category {category!r} (taxonomy ids: {CATEGORIES})")
    severity = raw["severity"]
    if severity not in SEVERITIES:
        raise RuleError(f"{where}: bad severity {severity!r} (one of {SEVERITIES})")
    benign = raw.get("benign", False)
    if not isinstance(benign, bool):
        raise RuleError(f"{where}: `benign` must be true or false")
    if benign and severity != "info":
        raise RuleError(f"{where}: benign rules must have severity `info`")
    ignore_case = raw.get("ignore_case", False)
    if not isinstance(ignore_case, bool):
        raise RuleError(f"{where}: `ignore_case` must be true or false")
    flags = regex.V0 | (regex.IGNORECASE if ignore_case else 0)
    compiled = None
    if compile_now:
        try:
            compiled = regex.compile(raw["match"], flags)
        except (regex.error, TypeError) as exc:
            raise RuleError(f"{where}: regex does not compile: {exc}") from exc

    fields = _as_tuple(raw.get("fields", ["message"]), "fields", where)
    bad = [x for x in fields if x not in FIELDS]
    if bad or not fields:
        raise RuleError(f"{where}: `fields` must be a non-empty subset of {FIELDS}, got {bad}")
    level = None
    if "level" in raw:
        level = _as_tuple(raw["level"], "level", where)
        bad = [x for x in level if x not in LEVELS]
        if bad:
            raise RuleError(f"{where}: unknown level(s) {bad} (one of {LEVELS})")
    fmt = None
    if "format" in raw:
        fmt = _as_tuple(raw["format"], "format", where)
        bad = [x for x in fmt if x not in FORMATS]
        if bad:
            raise RuleError(f"{where}: unknown format(s) {bad} (one of {FORMATS})")
    source = raw.get("source")
    source_compiled = None
    if source is not None:
        if not isinstance(source, str):
            raise RuleError(f"{where}: `source` must be a regex string")
        try:
            source_compiled = regex.compile(source)
        except regex.error as exc:
            raise RuleError(f"{where}: `source` regex does not compile: {exc}") from exc
    blames = raw.get("blames")
    if blames is not None:
        if not isinstance(blames, str):
            raise RuleError(f"{where}: `blames` must be `self`, `chief` or a group name")
        if (
            compiled is not None
            and blames not in ("self", "chief")
            and blames not in compiled.groupindex
        ):
            raise RuleError(
                f"{where}: `blames: {blames}` names no group of the regex "
                f"(groups: {sorted(compiled.groupindex)})"
            )
    priority = raw.get("priority", 0)
    if not isinstance(priority, int) or isinstance(priority, bool):
        raise RuleError(f"{where}: `priority` must be an integer")
    keywords: tuple[str, ...] = ()
    derived = False
    if raw.get("keywords") is not None:
        keywords = _as_tuple(raw["keywords"], "keywords", where)
        if any(not k.strip() for k in keywords):
            raise RuleError(f"{where}: empty keyword")
    else:
        keywords = derive_keywords(raw["match"], ignore_case=ignore_case)
        derived = bool(keywords)
    refs = _as_tuple(raw.get("references", []), "references", where)
    remediation = raw.get("remediation", "")
    if not isinstance(remediation, str):
        raise RuleError(f"{where}: `remediation` must be a string")
    description = raw.get("description", "")
    examples = _build_examples(raw.get("examples"), where)
    return Rule(
        id=rid,
        title=raw["title"].strip(),
        category=category,
        severity=severity,
        match=raw["match"],
        fields=fields,
        ignore_case=ignore_case,
        level=level,
        source=source,
        format=fmt,
        blames=blames,
        keywords=keywords,
        keywords_derived=derived,
        priority=priority,
        benign=benign,
        remediation=remediation.strip(),
        references=refs,
        description=str(description).strip(),
        examples=examples,
        file=str(f),
        order=order,
        compiled=compiled,
        source_compiled=source_compiled,
    )


def _build_examples(raw: Any, where: str) -> tuple[Example, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, dict) or set(raw) - {"match", "no_match"}:
        raise RuleError(f"{where}: `examples` must be a mapping with `match` and/or `no_match`")
    out: list[Example] = []
    for expect in ("match", "no_match"):
        items = raw.get(expect) or []
        if not isinstance(items, list):
            raise RuleError(f"{where}: `examples.{expect}` must be a list")
        for i, item in enumerate(items):
            if isinstance(item, str):
                item = {"line": item}
            if not isinstance(item, dict) or not isinstance(item.get("line"), str):
                raise RuleError(f"{where}: examples.{expect}[{i}] needs a `line` string")
            unknown = set(item) - _EXAMPLE_KEYS
            if unknown:
                raise RuleError(f"{where}: examples.{expect}[{i}]: unknown keys {sorted(unknown)}")
            caps = item.get("captures")
            if caps is not None:
                if not isinstance(caps, dict):
                    raise RuleError(f"{where}: examples.{expect}[{i}].captures must be a mapping")
                caps = {str(k): str(v) for k, v in caps.items()}
            out.append(
                Example(
                    line=item["line"],
                    expect=expect,
                    captures=caps,
                    source=item.get("source"),
                    detail=item.get("detail"),
                    level=item.get("level"),
                    format=item.get("format"),
                    message=item.get("message"),
                )
            )
    return tuple(out)


# --------------------------------------------------------------------------- keywords


def derive_keywords(pattern: str, *, ignore_case: bool = False) -> tuple[str, ...]:
    """Literal substrings, at least one of which every match of ``pattern`` contains.

    Uses the standard library's regex parser (the ``regex`` module's syntax is a superset;
    anything it cannot parse yields ``()``, i.e. "always a candidate").
    """
    try:
        import re._parser as sre_parse  # Python >= 3.11
    except ImportError:  # pragma: no cover
        import sre_parse  # type: ignore[no-redef]
    try:
        parsed = sre_parse.parse(pattern)
    except Exception:
        return ()
    best = _required_literals(list(parsed))
    if not best:
        return ()
    if min(len(s) for s in best) < _MIN_DERIVED_LITERAL:
        return ()
    return tuple(sorted(set(best)))


def _required_literals(items: list) -> list[str] | None:
    """Best OR-set of literals required by a sequence of parsed items (None if none)."""
    try:
        from re._constants import BRANCH, LITERAL, MAX_REPEAT, MIN_REPEAT, SUBPATTERN
    except ImportError:  # pragma: no cover
        from sre_constants import (  # type: ignore[no-redef]
            BRANCH,
            LITERAL,
            MAX_REPEAT,
            MIN_REPEAT,
            SUBPATTERN,
        )

    candidates: list[list[str]] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            candidates.append(["".join(run)])
            run.clear()

    for op, av in items:
        if op is LITERAL:
            run.append(chr(av))
            continue
        flush()
        if op is SUBPATTERN:
            sub = _required_literals(list(av[-1]))
            if sub:
                candidates.append(sub)
        elif op in (MAX_REPEAT, MIN_REPEAT):
            lo, _hi, body = av
            if lo >= 1:
                sub = _required_literals(list(body))
                if sub:
                    candidates.append(sub)
        elif op is BRANCH:
            alts = []
            for alt in av[1]:
                sub = _required_literals(list(alt))
                if not sub:
                    alts = None
                    break
                alts.extend(sub)
            if alts:
                candidates.append(alts)
    flush()
    if not candidates:
        return None
    # Prefer the set whose shortest literal is longest, then the smallest set.
    return max(candidates, key=lambda c: (min(len(s) for s in c), -len(c)))


# --------------------------------------------------------------------------- example lines

_TF_CPP = regex.compile(
    r"^(?P<ts>\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?):?\s+(?P<lvl>[IWEF])(?:\s+\d+)?\s+"
    r"(?P<src>[\w./+-]+:\d+)\]\s?(?P<msg>.*)$",
    regex.S,
)
_ABSL = regex.compile(
    r"^(?P<lvl>[IWEFD])(?P<ts>\d{4} \d\d:\d\d:\d+\.\d+)\s+(?P<tid>\d+)\s+(?P<src>[\w./+-]+:\d+)\]"
    r"\s*(?P<msg>.*)$",
    regex.S,
)
_PY_LOGGING = regex.compile(
    r"^(?P<lvl>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL):(?P<logger>[\w.]+):(?P<msg>.*)$",
    regex.S,
)
_PY_ASCTIME = regex.compile(
    r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)? - (?:(?P<logger>[\w.]+) - )?"
    r"(?P<lvl>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL) - (?P<msg>.*)$",
    regex.S,
)
_PY_EXC = regex.compile(
    r"^(?P<exc>(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning|"
    r"Failure|Fault))(?::\s?(?P<rest>.*))?$",
    regex.S,
)
_LVL = {
    "I": "INFO",
    "W": "WARNING",
    "E": "ERROR",
    "F": "FATAL",
    "D": "DEBUG",
    "WARN": "WARNING",
    "CRITICAL": "FATAL",
}


def split_example_line(line: str) -> dict[str, str | None]:
    """Split a raw log line into the timeline's ``message``/``level``/``source``/``format``.

    A small stand-in for the ingest's parser, used for rule examples and tests.
    """
    line = line.rstrip("\n")
    m = _TF_CPP.match(line)
    if m:
        return {
            "message": m["msg"],
            "level": _LVL[m["lvl"]],
            "source": Path(m["src"]).name,
            "format": "tf_cpp",
        }
    m = _ABSL.match(line)
    if m:
        src = Path(m["src"]).name
        grpc_like = src.startswith(("server_chttp2", "chttp2", "subchannel", "tcp_", "call.cc"))
        return {
            "message": m["msg"],
            "level": _LVL[m["lvl"]],
            "source": src,
            "format": "grpc" if grpc_like or m["msg"].startswith("{") else "absl",
        }
    m = _PY_LOGGING.match(line)
    if m:
        lvl = _LVL.get(m["lvl"], m["lvl"])
        tf = m["logger"] in ("tensorflow", "absl")
        return {
            "message": m["msg"],
            "level": lvl,
            "source": None,
            "format": "python_tf_logging" if tf else "python_logging",
        }
    m = _PY_ASCTIME.match(line)
    if m:
        return {
            "message": m["msg"],
            "level": _LVL.get(m["lvl"], m["lvl"]),
            "source": None,
            "format": "python_logging",
        }
    m = _PY_EXC.match(line)
    if m:
        return {"message": line, "level": "ERROR", "source": None, "format": "python_traceback"}
    return {"message": line, "level": None, "source": None, "format": "plain"}


def example_event(ex: Example) -> dict[str, str | None]:
    ev = split_example_line(ex.line)
    ev["detail"] = ex.detail
    for key in ("level", "format", "message"):
        value = getattr(ex, key)
        if value is not None:
            ev[key] = value
    return ev


# --------------------------------------------------------------------------- examples


@dataclass(frozen=True)
class ExampleFailure:
    rule_id: str
    file: str
    line: str
    problem: str

    def __str__(self) -> str:
        return f"{self.rule_id} ({self.file}): {self.problem}\n    line: {self.line}"


def check_rule_examples(rule: Rule, ruleset: RuleSet | None = None) -> list[ExampleFailure]:
    """Check one rule's examples (and, given the ruleset, who wins each match example)."""
    failures: list[ExampleFailure] = []

    def fail(ex: Example, problem: str) -> None:
        failures.append(ExampleFailure(rule.id, rule.file, ex.line, problem))

    for ex in rule.examples:
        ev = example_event(ex)
        cond = rule.conditions_ok(ev["level"], ev["source"], ev["format"])
        try:
            m = rule.search(ev["message"], ev["detail"], timeout=2.0) if cond else None
        except TimeoutError:
            fail(ex, "regex timed out (2 s) on this example")
            continue
        if ex.expect == "no_match":
            if m is not None:
                fail(ex, f"no_match example matched: {m.group(0)[:80]!r}")
            continue
        if not cond:
            fail(
                ex,
                f"conditions not met (level={ev['level']}, source={ev['source']}, "
                f"format={ev['format']})",
            )
            continue
        if m is None:
            fail(ex, f"match example did not match (message: {ev['message'][:120]!r})")
            continue
        got = rule.captures_of(m)
        if ex.captures is not None and got != ex.captures:
            fail(ex, f"captures differ: expected {ex.captures}, got {got}")
        texts = [ev[f] for f in rule.fields if ev.get(f)]
        hay = "\n".join(t.lower() for t in texts)
        if rule.keywords and not any(k.lower() in hay for k in rule.keywords):
            fail(ex, f"no keyword of {list(rule.keywords)} occurs in the line (prefilter miss)")
        if ruleset is not None:
            won = ruleset.match_event(
                ev["message"], ev["detail"], ev["level"], ev["source"], ev["format"]
            )
            if won is not None and won[0].id != rule.id and won[0].category != rule.category:
                fail(
                    ex,
                    f"claimed by {won[0].id} ({won[0].category}"
                    f"{', benign' if won[0].benign else ''}) before this rule "
                    f"({rule.category}); adjust priorities or narrow one of them",
                )
    return failures


def run_examples(ruleset: RuleSet) -> list[ExampleFailure]:
    """Every example of every rule: match/no_match, captures, keywords, category claims."""
    out: list[ExampleFailure] = []
    for rule in ruleset:
        out.extend(check_rule_examples(rule, ruleset))
    return out
