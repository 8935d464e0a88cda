"""The HTML report: self-contained, escaped, redacted; works on every sample_logs folder."""

from __future__ import annotations

import base64
import re
import time
from html.parser import HTMLParser
from importlib import resources
from xml.etree import ElementTree

import pytest
from conftest import sample_folders
from report_samples import HOSTILE_NAME, PAYLOADS, SECRETS, write_hostile_logs

import analyzer
from analyzer.report.html import CSP, render, render_summary

FOLDERS = sample_folders()

#: Every element the report may contain; anything else means a payload became markup.
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "main", "nav", "section",
    "footer", "div", "span", "h1", "h2", "h3", "h4", "p", "a", "b", "code", "pre", "dl", "dt",
    "dd", "ol", "ul", "li", "table", "thead", "tbody", "tr", "th", "td", "figure", "figcaption",
    "img", "details", "summary", "br",
}  # fmt: skip


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.styles: list[str] = []
        self.text: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        (self.styles if self._in_style else self.text).append(data)


def parse(html: str) -> _Collect:
    p = _Collect()
    p.feed(html)
    p.close()
    return p


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    folder = write_hostile_logs(tmp_path_factory.mktemp("hostile"))
    return analyzer.load(
        folder, command="tfdiag analyze logs/ --password=" + SECRETS["cli_password"]
    )


@pytest.fixture(scope="module")
def hostile_html(hostile_run):
    return render(hostile_run)


def assert_inert(html: str) -> None:
    """No payload became markup, and nothing in the page can load or run anything."""
    doc = parse(html)
    assert [t for t, _ in doc.tags if t not in ALLOWED_TAGS] == []
    assert sum(t == "style" for t, _ in doc.tags) == 1
    metas = [a for t, a in doc.tags if t == "meta" and a.get("http-equiv")]
    assert metas == [{"http-equiv": "Content-Security-Policy", "content": CSP}]
    for tag, attrs in doc.tags:
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            value = value or ""
            assert "javascript:" not in value.lower(), (tag, name)
            assert not re.search(r"(?i)\b(?:https?|ftp|file)://", value), (tag, name, value[:80])
            if name == "src":
                assert tag == "img" and value.startswith(
                    ("data:image/svg+xml;base64,", "data:image/png;base64,")
                )
            if name == "href":
                assert tag == "a" and value.startswith("#"), value
            if name == "style":
                assert "url(" not in value and "expression" not in value
    css = "".join(doc.styles)
    assert "url(" not in css and "@import" not in css and "@font-face" not in css
    # Figures are images: an SVG inside a data: URI carries no script and loads nothing.
    for tag, attrs in doc.tags:
        if tag == "img" and attrs["src"].startswith("data:image/svg+xml"):
            assert_inert_svg(base64.b64decode(attrs["src"].split(",", 1)[1]))


def assert_inert_svg(data: bytes) -> None:
    root = ElementTree.fromstring(data)
    for el in root.iter():
        tag = el.tag.rsplit("}", 1)[-1]
        assert tag not in ("script", "foreignObject", "a", "iframe"), tag
        if tag == "style":
            assert "url(" not in (el.text or "") and "@import" not in (el.text or "")
        for name, value in el.attrib.items():
            name = name.rsplit("}", 1)[-1]
            assert not name.startswith("on"), name
            if name == "href":
                # internal references, or the rasterized background as an inline PNG
                ok = value.startswith("#") or (
                    tag == "image" and value.startswith("data:image/png;base64,")
                )
                assert ok, (tag, value[:60])


def test_csp_is_strict():
    assert "default-src 'none'" in CSP
    assert "img-src data:" in CSP
    assert "script-src" not in CSP  # falls back to default-src 'none': no script at all


def test_hostile_logs_render_as_text(hostile_html):
    assert_inert(hostile_html)
    text = "".join(parse(hostile_html).text)
    # The payloads are shown to the reader, verbatim, as text.
    for payload in PAYLOADS:
        assert payload in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in hostile_html
    assert "<script" not in hostile_html.lower()
    assert "<svg" not in hostile_html.lower()
    assert "<iframe" not in hostile_html.lower()


def test_hostile_file_name_is_escaped(hostile_html):
    assert HOSTILE_NAME not in hostile_html
    assert "&#34;&gt;&lt;svg onload=alert(1)&gt; &amp; &#39;quote&#39;.log" in hostile_html
    text = "".join(parse(hostile_html).text)
    assert HOSTILE_NAME in text  # the file is listed, readable


def test_sections_present(hostile_html, hostile_run):
    rc = hostile_run.root_cause
    text = " ".join(parse(hostile_html).text)
    for heading in ("Timeline", "Findings", "Nodes", "Consistency", "Ingest", "Evidence chain"):
        assert heading in text
    assert f"Root cause: {rc.category} on {rc.node}" in text
    assert "What to do" in text
    assert "truncated gzip stream" in text  # ingest problems, with their file
    assert "worker-1.old.log.gz" in text
    assert "1 chief, 1 ps, 2 workers" in text
    assert analyzer.__version__ in text
    # swimlane + zoom, and the progress figure when some node reported steps
    progress = 1 if not hostile_run.progress.empty else 0
    assert hostile_html.count("data:image/svg+xml;base64,") == 2 + progress
    assert ('id="progress"' in hostile_html) == bool(progress)


def test_redacted_by_default(hostile_html, hostile_run):
    for secret in SECRETS.values():
        assert secret not in hostile_html
    assert "[REDACTED" in hostile_html
    raw = render(hostile_run, redact=False)
    assert_inert(raw)
    for secret in SECRETS.values():
        assert secret in raw


def test_summary_for_notebooks(hostile_run):
    html = hostile_run._repr_html_()
    assert html == render_summary(hostile_run)
    assert hostile_run.root_cause.category in html
    assert "<script" not in html and "<svg" not in html.lower()
    assert "&#34;&gt;&lt;svg onload=alert(1)&gt;" in html  # the hostile node id, escaped
    assert_no_markup = [t for t, _ in parse(html).tags if t not in ALLOWED_TAGS]
    assert assert_no_markup == []


def test_template_ships_inside_the_package():
    templates = resources.files("analyzer.report") / "templates"
    assert (templates / "report.html.j2").is_file()
    assert (templates / "summary.html.j2").is_file()


def test_large_run_is_bounded(tmp_path):
    """200k lines: the report thins what it plots and stays small and quick."""
    lines = []
    t0 = 1_790_000_000.0
    for i in range(200_000):
        lines.append(
            f"2026-11-22 04:{i // 6000 % 60:02d}:{i // 100 % 60:02d}.{i % 100:02d}0000: I tensorflow/core/x.cc:1] step {i}"
        )
    (tmp_path / "worker-0.log").write_text("\n".join(lines) + "\n")
    (tmp_path / "worker-1.log").write_text(
        "\n".join(
            [
                *lines[:1000],
                "tensorflow.python.framework.errors_impl.UnavailableError: Socket closed",
            ]
        )
        + "\n"
    )
    del t0
    run = analyzer.load(tmp_path)
    run.diagnosis  # noqa: B018 - the pipeline's own cost is not under test here
    start = time.perf_counter()
    html = render(run)
    elapsed = time.perf_counter() - start
    assert elapsed < 20, elapsed
    assert len(html) < 3_000_000
    assert_inert(html)


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_every_sample_folder(folder):
    run = analyzer.load(folder)
    html = render(run)
    assert_inert(html)
    text = " ".join(parse(html).text)
    rc = run.root_cause
    assert (rc.category == "none" and "No failure found" in text) or rc.category in text
    for node in run.diagnosis.nodes:
        assert node.node in text
    summary = run._repr_html_()
    assert rc.category in summary or "No failure found" in summary
    fig = run.plot_timeline()
    from matplotlib.figure import Figure

    assert isinstance(fig, Figure)
    assert fig.axes and fig.axes[0].get_yticks().size == len(
        {n.node for n in run.diagnosis.nodes} | set(run.ingest.nodes)
    )
