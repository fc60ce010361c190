"""Fixtures of the browser test: the built book served on 127.0.0.1, headless Chromium.

The built book is ``_build/html`` (``make book``); set ``BOOK_HTML`` to test another
build folder.  Screenshots go to the ``screenshots`` folder next to it
(``_build/screenshots``).
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
# Jupyter Book 1.0.4 declares `const THEBE_JS_URL` in two inline scripts of every page,
# so Chromium reports the second declaration.  This exact message is upstream noise.
UPSTREAM_NOISE = ("Identifier 'THEBE_JS_URL' has already been declared",)

# What the browser test looked at, printed at the end of the run.
STATS: Counter = Counter()

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def html_dir() -> Path:
    return Path(os.environ.get("BOOK_HTML", REPO / "_build" / "html")).resolve()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the signature of the base class
        pass


@pytest.fixture(scope="session")
def site() -> str:
    """Base URL of the built book, served from a thread on a free local port."""
    root = html_dir()
    if not (root / "index.html").exists():
        pytest.fail(f"No built book at {root}: run `make book` first (or set BOOK_HTML).")
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium driven by Playwright (its own browser download is not used)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install it with `apt-get install chromium`.")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    folder = html_dir().parent / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# ------------------------------------------------------------------ one visit per page


@dataclass
class Visit:
    """What was recorded while a page loaded and rendered."""

    url: str
    status: int
    requests: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dom: dict = field(default_factory=dict)


# Collected in the page once it has loaded and MathJax has finished.
COLLECT_JS = """
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  for (const img of document.images) { img.loading = "eager"; }
  await Promise.all([...document.images].map(img => img.complete ? null :
      new Promise(done => { img.onload = img.onerror = done; })));
  const main = document.querySelector("main") || document.body;
  const prose = main.cloneNode(true);
  prose.querySelectorAll("pre, code, script, style, mjx-container, .MathJax")
       .forEach(el => el.remove());
  return {
    mathjax: !!(window.MathJax && MathJax.startup),
    math: [...document.querySelectorAll("main .math")].map(el => ({
      rendered: !!el.querySelector("mjx-container"), text: el.textContent.slice(0, 80)})),
    mjx: document.querySelectorAll("mjx-container").length,
    prose: prose.innerText,
    images: [...document.images].map(img => ({
      src: img.currentSrc || img.src, width: img.naturalWidth})),
    cells: [...document.querySelectorAll("div.cell")].map(cell => {
      const input = cell.querySelector(".cell_input pre");
      const output = cell.querySelector(".cell_output");
      return {
        classes: cell.className,
        source: input ? input.textContent : null,
        output: !!output && (output.textContent.trim().length > 0 ||
                             !!output.querySelector("img, svg, table, iframe")),
      };
    }),
    // Code blocks wider than their box: the reader would have to scroll sideways.
    wide_code: [...main.querySelectorAll("pre")]
      .filter(pre => pre.scrollWidth > pre.clientWidth + 1)
      .map(pre => ({
        cell_input: !!pre.closest(".cell_input"),
        overflow: pre.scrollWidth - pre.clientWidth,
        line: pre.textContent.split("\\n").reduce((a, b) => (b.length > a.length ? b : a), ""),
      })),
    links: [...document.querySelectorAll("a[href]")].map(a => a.href),
    sidebar: [...document.querySelectorAll("nav.bd-docs-nav a.reference")].map(a => ({
      text: a.textContent.trim(), href: a.href})),
    captions: [...document.querySelectorAll("nav.bd-docs-nav p.caption")].map(
      p => p.textContent.trim()),
    prev: (document.querySelector("a.left-prev") || {}).href || null,
    next: (document.querySelector("a.right-next") || {}).href || null,
    citations: [...document.querySelectorAll("main a[href*='references.html#']")].map(
      a => a.href),
    downloads: [...document.querySelectorAll("a[href*='_sources/']")].map(a => a.href),
    ids: [...document.querySelectorAll("main [id]")].map(el => el.id),
  };
}
"""


@pytest.fixture(scope="session")
def visit(site, browser, screenshot_dir):
    """visit(page) loads the page once per session and returns its Visit."""
    cache: dict[str, Visit] = {}

    def load(page_path: str) -> Visit:
        if page_path in cache:
            return cache[page_path]
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        record = Visit(url=urljoin(site, page_path), status=0)

        def route(route):
            url = route.request.url
            if urlsplit(url).hostname == "127.0.0.1":
                record.requests.append(url)
                route.continue_()
            else:
                record.blocked.append(url)
                route.abort()

        context.route("**/*", route)
        page = context.new_page()
        page.on(
            "console",
            lambda msg: (
                record.errors.append(f"console: {msg.text}") if msg.type == "error" else None
            ),
        )
        page.on("pageerror", lambda exc: record.errors.append(f"pageerror: {exc}"))
        page.on(
            "response",
            lambda r: record.failed.append(f"{r.status} {r.url}") if r.status >= 400 else None,
        )
        response = page.goto(record.url, wait_until="load")
        record.status = response.status if response else 0
        page.wait_for_load_state("networkidle")
        record.dom = page.evaluate(COLLECT_JS)
        name = page_path.removesuffix(".html").replace("/", "_")
        page.screenshot(path=str(screenshot_dir / f"{name}.png"), full_page=True)
        # Let late requests (the favicon) arrive before the context closes.
        page.wait_for_timeout(200)
        context.close()
        STATS["pages"] += 1
        STATS["screenshots"] += 1
        STATS["images"] += len(record.dom["images"])
        STATS["math elements"] += len(record.dom["math"])
        STATS["code cells"] += len(record.dom["cells"])
        record.errors = [e for e in record.errors if not any(n in e for n in UPSTREAM_NOISE)]
        cache[page_path] = record
        return record

    return load


CHECKED_LINKS: dict[str, int] = {}


def _status(url: str) -> int:
    if url not in CHECKED_LINKS:
        STATS["distinct internal links"] += 1
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                CHECKED_LINKS[url] = response.status
        except urllib.error.HTTPError as error:
            CHECKED_LINKS[url] = error.code
    return CHECKED_LINKS[url]


@pytest.fixture(scope="session")
def http_status():
    """http_status(url): the local server's status code for url (each URL fetched once)."""
    return _status


def pytest_terminal_summary(terminalreporter):
    if STATS:
        terminalreporter.write_line(
            "browser test checked: " + ", ".join(f"{count} {what}" for what, count in STATS.items())
        )
