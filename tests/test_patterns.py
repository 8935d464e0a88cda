"""The pattern library: every rule's examples, coverage of the taxonomy, validation errors."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from analyzer.rules import (
    CATEGORIES,
    RuleError,
    bundled_patterns_dir,
    check_rule_examples,
    derive_keywords,
    example_event,
    load_rules,
    run_examples,
    split_example_line,
)

ROOT = Path(__file__).resolve().parent.parent
RULES = load_rules()


def _taxonomy_file() -> Path | None:
    for cand in (ROOT.parent / "shared" / "taxonomy.md", ROOT / "shared" / "taxonomy.md"):
        if cand.is_file():
            return cand
    return None


# --------------------------------------------------------------------------- the library


def test_bundled_dir_is_the_checkout_patterns_folder():
    assert bundled_patterns_dir() == ROOT / "patterns"


def test_at_least_70_rules():
    assert len(RULES) >= 70


def test_categories_match_the_taxonomy_contract():
    tax = _taxonomy_file()
    if tax is None:
        pytest.skip("shared/taxonomy.md not beside the checkout")
    ids = re.findall(r"^\| `([a-z_]+)` \|", tax.read_text(), re.M)
    assert set(ids) == set(CATEGORIES)


# Categories that no single log line states: the diagnosis infers them from per-node progress.
INFERRED = {"none", "straggler"}


def test_every_category_has_a_rule():
    covered = {r.category for r in RULES if not r.benign}
    missing = set(CATEGORIES) - INFERRED - covered
    assert not missing, f"no rule for {sorted(missing)}"


def test_every_category_has_an_error_level_rule():
    strong = {r.category for r in RULES if not r.benign and r.severity in ("error", "fatal")}
    assert set(CATEGORIES) - INFERRED <= strong


@pytest.mark.parametrize("rule_id", sorted(RULES.by_id))
def test_rule_examples(rule_id):
    """Match lines match with the stated captures (and contain a keyword); no_match lines do
    not match; the full ruleset resolves every match line to a rule of the same category."""
    rule = RULES[rule_id]
    assert any(e.expect == "match" for e in rule.examples), "needs at least one match example"
    failures = check_rule_examples(rule, RULES)
    assert not failures, "\n".join(str(f) for f in failures)


@pytest.mark.parametrize("rule_id", sorted(RULES.by_id))
def test_rule_metadata(rule_id):
    rule = RULES[rule_id]
    assert rule.remediation, "remediation is required"
    assert rule.references and all(u.startswith("https://") for u in rule.references)
    assert rule.keywords, "keywords (given or derived) keep the rule out of the slow path"
    for k in rule.keywords:  # a keyword like " 143" would make most lines candidates
        # (three letters of a Latin word, or two characters of a script without spaces: 已杀死)
        generic = len(k.strip().encode()) < 4 or not re.search(r"[A-Za-z]{3}|[^\x00-\x7f]{2}", k)
        assert not generic, f"keyword too generic: {k!r}"
    for ex in rule.examples:
        if ex.expect == "match":
            assert ex.source, f"match example without source: {ex.line[:80]}"
    if rule.benign:
        assert rule.severity == "info"


def test_no_two_rules_claim_an_example_with_different_categories():
    """Across all examples: whichever rule the engine picks for a match line has the category
    of the rule that owns the example (priorities resolve overlaps consistently)."""
    problems = []
    for rule in RULES:
        for ex in rule.examples:
            if ex.expect != "match":
                continue
            ev = example_event(ex)
            won = RULES.match_event(
                ev["message"], ev["detail"], ev["level"], ev["source"], ev["format"]
            )
            assert won is not None, f"{rule.id}: nothing matches {ex.line[:80]}"
            if won[0].category != rule.category:
                problems.append(f"{rule.id} ({rule.category}) lost to {won[0].id}: {ex.line}")
    assert not problems, "\n".join(problems)


def test_run_examples_is_clean():
    assert run_examples(RULES) == []


def test_blaming_rules_name_existing_groups():
    for r in RULES:
        if r.blames and r.blames not in ("self", "chief"):
            assert r.blames in r.matcher.groupindex


def test_the_bundled_library_compiles_whole_and_lazily_the_same():
    """The bundled rules compile on first use; compiled all at load they are the same rules,
    every regex compiles, and a user's bad regex is still named at load."""
    eager = load_rules(compile_all=True)
    lazy = load_rules()
    assert [r.id for r in eager] == [r.id for r in lazy]
    assert all(r.compiled is not None for r in eager)
    first = next(iter(lazy))
    assert first.matcher.pattern == first.match and first.compiled is first.matcher


def test_a_rule_may_blame_the_chief():
    """``blames: chief`` (a non-chief worker waiting for the model) names the chief task."""
    assert RULES["session.waiting_for_model_ready"].blames == "chief"


def test_rule_ids_are_unique_and_dotted():
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_]+)+", i) for i in ids)


# --------------------------------------------------------------------------- example lines


@pytest.mark.parametrize(
    ("line", "message", "level", "source", "fmt"),
    [
        (
            "2017-11-07 13:04:58.438432: I tensorflow/core/distributed_runtime/master.cc:221] "
            "CreateSession still waiting",
            "CreateSession still waiting",
            "INFO",
            "master.cc:221",
            "tf_cpp",
        ),
        (
            "E0000 00:00:1795322892.272764    8135 grpc_server_lib.cc:618] UNKNOWN: x",
            "UNKNOWN: x",
            "ERROR",
            "grpc_server_lib.cc:618",
            "absl",
        ),
        ("INFO:tensorflow:hello", "hello", "INFO", None, "python_tf_logging"),
        (
            "tensorflow.python.framework.errors_impl.UnavailableError: Socket closed",
            "tensorflow.python.framework.errors_impl.UnavailableError: Socket closed",
            "ERROR",
            None,
            "python_traceback",
        ),
        ("Killed", "Killed", None, None, "plain"),
    ],
)
def test_split_example_line(line, message, level, source, fmt):
    ev = split_example_line(line)
    assert (ev["message"], ev["level"], ev["source"], ev["format"]) == (
        message,
        level,
        source,
        fmt,
    )


# --------------------------------------------------------------------------- keywords


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"Socket closed", ("Socket closed",)),
        (r"Task (?P<t>/job:\w+) heartbeat timeout", (" heartbeat timeout",)),
        (r"foo|barbaz", ("barbaz", "foo")),
        (r"(?:Connection refused|ECONNREFUSED)", ("Connection refused", "ECONNREFUSED")),
        (r"^\d+$", ()),
        (r"ab|\d+", ()),
        (r"(?P<x>\p{L}+) unicode", ()),  # regex-module syntax the stdlib parser rejects
    ],
)
def test_derive_keywords(pattern, expected):
    assert derive_keywords(pattern) == expected


# --------------------------------------------------------------------------- validation


def _write(tmp_path: Path, name: str, body: str) -> Path:
    d = tmp_path / "user"
    d.mkdir(exist_ok=True)
    (d / name).write_text(textwrap.dedent(body))
    return d


_GOOD = """\
    rules:
      - id: user.thing
        title: A thing
        category: {category}
        severity: {severity}
        match: '{match}'
        keywords: [thing]
        {extra}
    """


def _rule_yaml(category="oom", severity="error", match="thing (?P<peer_task>x)", extra=""):
    return _GOOD.format(category=category, severity=severity, match=match, extra=extra)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"category": "meltdown"}, "unknown category"),
        ({"severity": "catastrophic"}, "bad severity"),
        ({"match": "thing (unclosed"}, "does not compile"),
        ({"extra": "blames: peer_address"}, "names no group"),
        ({"extra": "frobnicate: 3"}, "unknown fields"),
        ({"extra": "level: [LOUD]"}, "unknown level"),
        ({"extra": "format: [xml]"}, "unknown format"),
        ({"extra": "benign: true"}, "benign rules must have severity"),
        ({"extra": "fields: [body]"}, "fields"),
    ],
)
def test_broken_rule_names_file_and_id(tmp_path, kwargs, needle):
    d = _write(tmp_path, "broken.yaml", _rule_yaml(**kwargs))
    for load in (lambda: load_rules(extra_dirs=[d]), lambda: load_rules([d])):  # named at load
        with pytest.raises(RuleError) as err:
            load()
        msg = str(err.value)
        assert "broken.yaml" in msg and "user.thing" in msg and needle in msg


def test_missing_field_names_file_and_id(tmp_path):
    d = _write(
        tmp_path,
        "missing.yaml",
        """\
        rules:
          - id: user.no_category
            title: x
            severity: error
            match: 'x'
        """,
    )
    with pytest.raises(RuleError, match=r"missing\.yaml: rule user\.no_category: missing field"):
        load_rules(extra_dirs=[d])


def test_bad_yaml_names_file(tmp_path):
    d = _write(tmp_path, "bad.yaml", "rules: [\n")
    with pytest.raises(RuleError, match=r"bad\.yaml"):
        load_rules(extra_dirs=[d])


def test_duplicate_id_in_one_source_is_an_error(tmp_path):
    body = _rule_yaml() + "\n" + _rule_yaml().split("rules:\n", 1)[1]
    d = _write(tmp_path, "dup.yaml", body)
    with pytest.raises(RuleError, match="duplicate id"):
        load_rules(extra_dirs=[d])


def test_user_rule_overrides_bundled_rule(tmp_path):
    d = _write(
        tmp_path,
        "override.yaml",
        """\
        rules:
          - id: grpc.unavailable.socket_closed
            title: Overridden
            category: node_crash
            severity: warning
            match: 'Socket closed'
        """,
    )
    rules = load_rules(extra_dirs=[d])
    assert len(rules) == len(RULES)
    r = rules["grpc.unavailable.socket_closed"]
    assert (r.title, r.category, r.keywords) == ("Overridden", "node_crash", ("Socket closed",))
    assert any("overrides the bundled rule" in w for w in rules.warnings)


def test_rule_without_keywords_warns(tmp_path):
    d = _write(
        tmp_path,
        "nokw.yaml",
        """\
        rules:
          - id: user.digits
            title: digits only
            category: node_crash
            severity: error
            match: '^\\d+$'
        """,
    )
    rules = load_rules(extra_dirs=[d])
    assert rules["user.digits"].always_candidate
    assert any("user.digits" in w and "every line" in w for w in rules.warnings)


def test_explicit_paths_replace_the_bundled_library(tmp_path):
    d = _write(tmp_path, "only.yaml", _rule_yaml())
    rules = load_rules([d])
    assert [r.id for r in rules] == ["user.thing"]


# --------------------------------------------------------------------------- CLI


def test_patterns_cli_test_passes_and_fails(tmp_path):
    from rich.console import Console

    from analyzer.patterns_cli import list_patterns, show_pattern, test_patterns

    console = Console(record=True, width=200)
    assert test_patterns(console) == 0
    assert "all pass" in console.export_text()

    d = _write(
        tmp_path,
        "wrong.yaml",
        """\
        rules:
          - id: user.wrong_example
            title: x
            category: oom
            severity: error
            match: 'boom (?P<n>\\d+)'
            keywords: [boom]
            remediation: r
            references: [https://example.org]
            examples:
              match:
                - {line: 'boom 12', captures: {n: '13'}, source: here}
              no_match:
                - 'boom 7'
        """,
    )
    console = Console(record=True, width=200)
    assert test_patterns(console, [d]) == 1
    out = console.export_text()
    assert "user.wrong_example" in out and "captures differ" in out and "no_match" in out

    console = Console(record=True, width=200)
    assert show_pattern(console, "grpc.unavailable.socket_closed") == 0
    assert r"[\w.\-\[\]:]" in console.export_text()
    assert show_pattern(Console(record=True), "no.such.rule") == 1

    console = Console(record=True, width=250)
    assert list_patterns(console, category="oom") == 0
    assert "memory.oom_allocating_tensor" in console.export_text()


def test_patterns_typer_app():
    from typer.testing import CliRunner

    from analyzer.patterns_cli import app

    result = CliRunner().invoke(app, ["test"])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["show", "dns.resolution_failed"])
    assert result.exit_code == 0 and "name_resolution" in result.output


def test_coverage_counts_with_the_ingest(tmp_path):
    from analyzer.patterns_cli import coverage_counts

    run = tmp_path / "run"
    run.mkdir()
    (run / "worker-0.log").write_text(
        "2017-11-07 13:04:58.438432: I tensorflow/core/distributed_runtime/master.cc:221] "
        "CreateSession still waiting for response from worker: /job:worker/replica:0/task:1\n"
        "INFO:tensorflow:step 1 loss 0.5\n"
        "tensorflow.python.framework.errors_impl.UnknownError: Could not start gRPC server\n"
    )
    counts, problems = coverage_counts(RULES, [run])
    assert counts["session.create_session_waiting"] == 1
    assert counts["server.could_not_start"] == 1
    assert problems == []
