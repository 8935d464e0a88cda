"""The HTML report in a real browser: Debian's headless Chromium, driven over the DevTools protocol.

For each page we record every network request, console message, exception, JavaScript dialog and
Content-Security-Policy violation, then assert that the report rendered (the verdict is in the
DOM), that nothing went wrong, that no request left the file, and that the XSS payloads in the
logs are shown as text and ran nothing. Screenshots of every sample_logs scenario go to /tmp.

Needs ``chromium`` (apt-get install chromium) and ``websocket-client`` (PyPI).
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from conftest import sample_folders
from report_samples import XSS_IMG, XSS_SCRIPT, write_hostile_logs
from secret_samples import SHOWN, write_secret_logs

import analyzer

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
websocket = pytest.importorskip("websocket", reason="needs websocket-client")
if not Path(CHROMIUM).exists():
    pytest.skip("needs Chromium (apt-get install chromium)", allow_module_level=True)

FOLDERS = sample_folders()
SHOTS = Path(os.environ.get("TFDIAG_SCREENSHOTS", "/tmp"))

#: Runs before the page's own content (CDP-injected scripts are exempt from the page's CSP).
WATCH_CSP = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
    e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


class Browser:
    """A headless Chromium and one DevTools websocket connection to it."""

    def __init__(self, profile: Path):
        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-default-apps",
                "--disable-extensions",
                "--hide-scrollbars",
                "--remote-allow-origins=*",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        url = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line and self.proc.poll() is not None:
                break
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                url = m[1]
                break
        if url is None:
            self.close()
            raise RuntimeError("Chromium did not start its DevTools endpoint")
        self.ws = websocket.create_connection(url, timeout=60, suppress_origin=True)
        self.ids = itertools.count(1)
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        msg_id = next(self.ids)
        msg = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        self.ws.settimeout(60)
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, method: str, session: str, timeout: float = 60) -> dict:
        for event in self.events:
            if event["method"] == method and event.get("sessionId") == session:
                return event
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.ws.settimeout(max(0.1, deadline - time.monotonic()))
            event = json.loads(self.ws.recv())
            if "method" in event:
                self.events.append(event)
                if event["method"] == method and event.get("sessionId") == session:
                    return event
        raise TimeoutError(method)

    def drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.ws.settimeout(left)
            try:
                event = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                return
            if "method" in event:
                self.events.append(event)

    def open(self, path: Path, width: int = 1280) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=session)
        self.send("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_CSP}, session)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        self.events.clear()
        self.send("Page.navigate", {"url": path.resolve().as_uri()}, session)
        self.wait_for("Page.loadEventFired", session)
        self.drain(0.5)
        return Page(self, session, target, path)

    def close(self) -> None:
        try:
            if getattr(self, "ws", None):
                self.ws.close()
        finally:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(10)


class Page:
    def __init__(self, browser: Browser, session: str, target: str, path: Path):
        self.browser, self.session, self.target, self.path = browser, session, target, path
        self.events = [e for e in browser.events if e.get("sessionId") == session]

    def js(self, expression: str):
        result = self.browser.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, self.session
        )
        return result["result"].get("value")

    def requests(self) -> list[str]:
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e["method"] == "Network.requestWillBeSent"
        ]

    def problems(self) -> list[str]:
        out = []
        for e in self.events:
            m, p = e["method"], e["params"]
            if m == "Runtime.exceptionThrown":
                out.append(f"exception: {p['exceptionDetails'].get('text')}")
            elif m == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert", "warning"):
                out.append(f"console.{p['type']}: {p['args']}")
            elif m == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
                out.append(f"log {p['entry']['level']}: {p['entry']['text']}")
            elif m == "Page.javascriptDialogOpening":
                out.append(f"dialog: {p.get('message')}")
        return out

    def screenshot(self, out: Path, width: int = 1280, max_height: int = 16000) -> Path:
        metrics = self.browser.send("Page.getLayoutMetrics", session=self.session)
        height = min(int(metrics["cssContentSize"]["height"]) + 1, max_height)
        self.browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            self.session,
        )
        data = self.browser.send(
            "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, self.session
        )["data"]
        out.write_bytes(base64.b64decode(data))
        return out

    def close(self) -> None:
        self.browser.send("Target.closeTarget", {"targetId": self.target})


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()


def assert_clean(page: Page) -> None:
    assert page.problems() == []
    assert page.js("window.__csp") == []
    file_url = page.path.resolve().as_uri()
    left = [u for u in page.requests() if u != file_url and not u.startswith("data:")]
    assert left == [], f"requests left the file: {left}"


def test_hostile_report_runs_nothing(browser, tmp_path):
    run = analyzer.load(write_hostile_logs(tmp_path / "logs"))
    path = tmp_path / "report.html"
    run.to_html(path)
    page = browser.open(path)
    try:
        assert_clean(page)
        rc = run.root_cause
        body = page.js("document.body.innerText")
        assert f"Root cause: {rc.category} on {rc.node}" in body
        # The payloads are there, as text, and none of them ran.
        assert XSS_SCRIPT in body and XSS_IMG in body
        assert page.js("document.title").startswith("tfdiag: ")
        assert "pwned" not in page.js("document.title")
        assert page.js("typeof window.__pwned") == "undefined"
        assert page.js("document.scripts.length") == 0
        assert page.js("document.querySelectorAll('svg, iframe, link, object, embed').length") == 0
        assert page.js("[...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length") == 0  # fmt: skip
        assert page.js("[...document.images].every(i => i.src.startsWith('data:image/'))")
        assert page.js("[...document.images].every(i => i.complete && i.naturalWidth > 0)")
        page.screenshot(SHOTS / "tfdiag-report-hostile.png")
    finally:
        page.close()


def test_csp_is_enforced(browser, tmp_path):
    """Positive control: a remote image smuggled into the page is blocked and reported."""
    run = analyzer.load(write_hostile_logs(tmp_path / "logs", broken_gzip=False))
    html = run.to_html().replace("</main>", '<img src="https://example.invalid/x.png"></main>')
    path = tmp_path / "tampered.html"
    path.write_text(html, encoding="utf-8")
    page = browser.open(path)
    try:
        violations = page.js("window.__csp")
        assert any("img-src" in v and "example.invalid" in v for v in violations), violations
        assert not any(
            u.startswith("https://example.invalid") and e["method"] == "Network.responseReceived"
            for e in page.events
            for u in [e["params"].get("response", {}).get("url", "")]
        )
    finally:
        page.close()


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_sample_report_in_browser(browser, folder, tmp_path):
    run = analyzer.load(folder)
    path = tmp_path / f"{folder.name}.html"
    run.to_html(path)
    page = browser.open(path)
    try:
        assert_clean(page)
        body = page.js("document.body.innerText")
        rc = run.root_cause
        if rc.category == "none":
            assert "No failure found" in body
        else:
            assert f"Root cause: {rc.category}" in body
        assert page.js("[...document.images].every(i => i.complete && i.naturalWidth > 0)")
        page.screenshot(SHOTS / f"tfdiag-report-{folder.name}.png")
    finally:
        page.close()


def test_progress_figure_and_baseline_in_browser(browser, tmp_path):
    """The progress section draws one figure of step and step rate per node, a row per
    reporting node, and (with --baseline) the comparison; all visible, nothing blocked."""
    samples = Path(__file__).resolve().parent.parent / "sample_logs"
    run = analyzer.load(samples / "ps_killed", baseline=samples / "healthy")
    path = tmp_path / "progress.html"
    run.to_html(path)
    page = browser.open(path)
    try:
        assert_clean(page)
        reporting = sorted(run.progress["node"].unique())
        assert reporting == ["chief:0"]
        rows = page.js("[...document.querySelectorAll('#progress table tbody tr')].map(r => r.cells[0].innerText)")  # fmt: skip
        assert rows == reporting
        img = page.js(
            "(() => { const i = document.querySelector('#progress figure img');"
            " const r = i.getBoundingClientRect();"
            " return {w: i.naturalWidth, h: i.naturalHeight, cw: r.width, ch: r.height,"
            " x: r.x + scrollX, y: r.y + scrollY, src: i.src.slice(0, 30), done: i.complete}; })()"
        )
        assert img["done"] and img["w"] > 0 and img["cw"] > 400 and img["ch"] > 150
        assert img["src"].startswith("data:image/svg+xml")
        # the figure has drawn something: many colours in its screenshot, not a blank box
        shot = browser.send(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {
                    "x": img["x"],
                    "y": img["y"],
                    "width": img["cw"],
                    "height": img["ch"],
                    "scale": 1,
                },
            },
            page.session,
        )["data"]
        out = SHOTS / "tfdiag-report-progress.png"
        out.write_bytes(base64.b64decode(shot))
        from PIL import Image

        with Image.open(out) as im:
            colours = im.convert("RGB").getcolors(maxcolors=1 << 16)
        assert colours is None or len(colours) > 20
        body = page.js("document.querySelector('#baseline').innerText")
        assert "Compared with a good run" in body and "Last step: 20 in the failed run, 60" in body
        assert page.js("document.querySelector('nav.toc').innerText").count("Progress") == 1
    finally:
        page.close()


def test_multi_line_secrets_are_not_in_the_dom(browser, tmp_path):
    """Keys, service-account JSON, netrc, headers, env and Kubernetes Secrets printed over several
    lines (secret_samples): no part of them is anywhere in the rendered page; without redaction
    the same page does show them (so their absence is redaction's doing)."""
    folder, secrets = write_secret_logs(tmp_path / "logs")
    run = analyzer.load(folder)
    for redact in (True, False):
        path = tmp_path / f"secrets-{redact}.html"
        run.to_html(path, redact=redact)
        page = browser.open(path)
        try:
            assert_clean(page)
            dom = page.js("document.documentElement.outerHTML")
            text = page.js("document.body.textContent")
            assert "Root cause: node_crash on ps:0" in text
            if redact:
                for kind, parts in secrets.items():
                    assert not [p for p in parts if p in dom or p in text], kind
                assert "[REDACTED]" in text
                page.screenshot(SHOTS / "tfdiag-report-secrets.png")
            else:
                for kind in SHOWN:
                    assert any(p in text for p in secrets[kind]), kind
        finally:
            page.close()
