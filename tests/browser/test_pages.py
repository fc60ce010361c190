"""The rendered book, as a reader sees it: every page opened in headless Chromium.

Run after ``make book`` with ``make browser-test`` (``pytest -m browser tests/browser``).
Each page listed in ``_toc.yml``, plus the search page, is loaded once; the tests below
check what was recorded: rendered math from the local MathJax, no request leaving
127.0.0.1, loaded images, output under the code cells that print or plot, no
JavaScript errors, internal links that resolve.  A full-page screenshot of each page
is saved to ``_build/screenshots/``.
"""

from __future__ import annotations

import ast
import re
import textwrap
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlsplit

import nbformat
import pytest
import yaml
from nbclient import NotebookClient

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]

# Calls that end a cell without showing anything (they return None by convention).
SILENT_CALLS = ("assert", "set_", "glue", "close", "seed", "append", "update", "sort")
SILENT_CALLS += ("extend", "clear", "savefig", "tight_layout", "testing")


# --------------------------------------------------------------------------- pages


def _toc_entries() -> list[dict]:
    """The toc's documents in reading order: file, part caption, numbered or not."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    entries = [{"file": toc["root"], "part": None, "numbered": False}]

    def walk(items, part, numbered):
        for item in items or []:
            if "file" in item:
                entries.append({"file": item["file"], "part": part, "numbered": numbered})
            walk(item.get("sections"), part, numbered)

    for part in toc.get("parts", []):
        walk(part.get("chapters"), part.get("caption"), bool(part.get("numbered")))
    walk(toc.get("chapters"), None, bool(toc.get("numbered")))
    return entries


TOC = _toc_entries()
TOC_PAGES = [entry["file"] + ".html" for entry in TOC]
PAGES = [*TOC_PAGES, "search.html"]
CHAPTERS = [entry for entry in TOC if entry["numbered"]]


def _source(entry: dict) -> Path | None:
    for suffix in (".ipynb", ".md"):
        path = REPO / (entry["file"] + suffix)
        if path.exists():
            return path
    return None


# ---------------------------------------------------------------- checks on every page


@pytest.mark.parametrize("page_path", PAGES)
def test_page_loads_without_javascript_errors(visit, page_path):
    record = visit(page_path)
    assert record.status == 200, f"{record.url} returned {record.status}"
    assert record.errors == [], f"JavaScript errors on {page_path}: {record.errors}"


@pytest.mark.parametrize("page_path", PAGES)
def test_requests_stay_local_and_succeed(visit, page_path):
    record = visit(page_path)
    assert record.blocked == [], f"{page_path} asked for external resources: {record.blocked}"
    assert record.failed == [], f"{page_path}: local requests failed: {record.failed}"


@pytest.mark.parametrize("page_path", PAGES)
def test_math_is_rendered_by_the_local_mathjax(visit, page_path):
    record = visit(page_path)
    math = record.dom["math"]
    if math:
        assert any("/_static/mathjax/" in url for url in record.requests), (
            f"{page_path} has math but did not load the local MathJax"
        )
        unrendered = [m["text"] for m in math if not m["rendered"]]
        assert unrendered == [], f"math left unrendered on {page_path}: {unrendered}"
        assert record.dom["mjx"] >= len(math)
    prose = record.dom["prose"]
    for raw in ("\\(", "\\)", "\\[", "\\]", "$$"):
        where = prose.find(raw)
        assert where < 0, (
            f"raw {raw!r} visible on {page_path}: ...{prose[max(0, where - 60) : where + 60]}..."
        )


@pytest.mark.parametrize("page_path", PAGES)
def test_every_image_has_loaded(visit, page_path):
    record = visit(page_path)
    broken = [img["src"] for img in record.dom["images"] if img["width"] == 0]
    assert broken == [], f"images not loaded on {page_path}: {broken}"


def _expects_output(source: str) -> str | None:
    """Why a cell's code should print or plot something, or None.

    A cell should show output when, outside function and class bodies, it calls
    ``print``/``display``, draws with matplotlib (``plt.`` or an ``ax``/``axes``/``fig``
    method) without closing the figure, or ends with an expression that is not
    silenced by ``;`` and is not a call that returns None by convention (``assert*``,
    ``glue``, ``plt.close``, setters).
    """
    source = textwrap.dedent(source)
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics: no rule applies
        return None
    if not tree.body:
        return None

    def top_level_calls(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
            ):
                continue
            if isinstance(child, ast.Call):
                yield child
            yield from top_level_calls(child)

    names = {ast.unparse(call.func) for call in top_level_calls(tree)}
    if {"print", "display"} & names:
        return "calls print/display"
    draws = any(re.match(r"(plt|ax\w*|axes|fig)\.", name) for name in names)
    if draws and not any("close" in name or name.endswith("glue") for name in names):
        return "draws with matplotlib"
    last = tree.body[-1]
    if isinstance(last, ast.Expr) and not source.rstrip().endswith(";"):
        value = last.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return None  # a bare string: a comment-like docstring
        if isinstance(value, ast.Call):
            func = ast.unparse(value.func).split(".")[-1]
            if func.startswith(SILENT_CALLS):
                return None
        return "ends with an expression"
    return None


@pytest.mark.parametrize("page_path", PAGES)
def test_cells_that_print_or_plot_have_output(visit, page_path):
    record = visit(page_path)
    missing = []
    for cell in record.dom["cells"]:
        if cell["source"] is None or "tag_remove-output" in cell["classes"]:
            continue
        reason = _expects_output(cell["source"])
        if reason and not cell["output"]:
            missing.append(f"{reason}: {cell['source'][:120]!r}")
    assert missing == [], f"cells without output on {page_path}: {missing}"


@pytest.mark.parametrize("page_path", PAGES)
def test_no_code_scrolls_sideways(visit, page_path):
    """Code cells and listings fit the page at 1280 px: nothing scrolls horizontally."""
    record = visit(page_path)
    wide = [f"{c['overflow']}px too wide: {c['line']!r}" for c in record.dom["wide_code"]]
    assert wide == [], f"code blocks that scroll sideways on {page_path}: {wide}"


@pytest.mark.parametrize("page_path", PAGES)
def test_internal_links_resolve(visit, site, http_status, page_path):
    record = visit(page_path)
    targets = {urldefrag(link).url for link in record.dom["links"]}
    internal = sorted(t for t in targets if t.startswith(site))
    assert internal, f"{page_path} has no internal links at all"
    dead = [t for t in internal if http_status(t) != 200]
    assert dead == [], f"dead links on {page_path}: {dead}"


# -------------------------------------------------------------------------- navigation


def test_sidebar_shows_parts_and_numbered_chapters(visit, site):
    dom = visit(TOC_PAGES[0]).dom
    captions = [entry["part"] for entry in TOC if entry["part"]]
    for caption in dict.fromkeys(captions):
        assert caption in dom["captions"], f"part {caption!r} missing from the sidebar"
    sidebar = {urldefrag(link["href"]).url: link["text"] for link in dom["sidebar"]}
    for number, entry in enumerate(CHAPTERS, start=1):
        text = sidebar.get(urljoin(site, entry["file"] + ".html"))
        assert text is not None, f"{entry['file']} is not in the sidebar"
        assert text.startswith(f"{number}. "), f"sidebar shows {text!r} for chapter {number}"


@pytest.mark.parametrize("index", range(len(TOC_PAGES)))
def test_previous_and_next_links_follow_the_toc(visit, site, index):
    dom = visit(TOC_PAGES[index]).dom
    expected_prev = urljoin(site, TOC_PAGES[index - 1]) if index > 0 else None
    expected_next = urljoin(site, TOC_PAGES[index + 1]) if index + 1 < len(TOC_PAGES) else None
    assert (dom["prev"] and urldefrag(dom["prev"]).url) == expected_prev
    assert (dom["next"] and urldefrag(dom["next"]).url) == expected_next


def test_search_finds_pages(site, browser):
    context = browser.new_context()
    page = context.new_page()
    page.goto(urljoin(site, "search.html"))
    page.fill("main input[name='q']", "impurity")
    page.press("main input[name='q']", "Enter")
    page.wait_for_selector("#search-results ul.search li", timeout=30_000)
    hits = page.locator("#search-results ul.search li").count()
    context.close()
    assert hits > 0


def test_references_page_lists_the_bibliography(visit):
    references = [entry for entry in TOC if entry["file"].endswith("references")]
    assert references, "_toc.yml has no references page"
    prose = visit(references[0]["file"] + ".html").dom["prose"]
    for author in ("Breiman", "Fisher", "Hastie"):
        assert author in prose


@pytest.mark.parametrize("entry", CHAPTERS, ids=[entry["file"] for entry in CHAPTERS])
def test_chapter_citations_link_to_the_references_page(visit, site, entry):
    citations = visit(entry["file"] + ".html").dom["citations"]
    assert citations, f"{entry['file']} cites nothing from the references page"
    reference_pages = [e["file"] + ".html" for e in TOC if e["file"].endswith("references")]
    ids = set(visit(reference_pages[0]).dom["ids"])
    for link in citations:
        assert urldefrag(link).url == urljoin(site, reference_pages[0])
        assert urlsplit(link).fragment in ids, f"{link} points to no entry"


# ---------------------------------------------------------------- running a chapter


@pytest.mark.parametrize("entry", CHAPTERS, ids=[entry["file"] for entry in CHAPTERS])
def test_chapter_offers_its_notebook_for_download(visit, http_status, entry):
    downloads = visit(entry["file"] + ".html").dom["downloads"]
    source = _source(entry)
    expected = [url for url in downloads if url.endswith(source.name)]
    assert expected, f"{entry['file']} offers no download of {source.name}: {downloads}"
    assert http_status(expected[0]) == 200


def _first_notebook() -> dict | None:
    for entry in TOC:
        source = _source(entry)
        if source is not None and source.suffix == ".ipynb":
            return entry
    return None


def test_downloaded_chapter_notebook_runs(visit, tmp_path):
    """The notebook offered by a chapter's download button executes cleanly here."""
    entry = _first_notebook()
    if entry is None:
        pytest.skip("no chapter notebook in _toc.yml yet")
    record = visit(entry["file"] + ".html")
    notebooks = [url for url in record.dom["downloads"] if url.endswith(".ipynb")]
    assert notebooks, f"{entry['file']} offers no .ipynb download"
    with urllib.request.urlopen(notebooks[0], timeout=30) as response:
        notebook = nbformat.reads(response.read().decode("utf-8"), as_version=4)
    # Run where the reader would put it: next to the book's other files.
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(REPO / "book")}},
    )
    client.execute()
    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code" and "raises-exception" not in cell.metadata.get("tags", [])
        for output in cell.get("outputs", [])
        if output.output_type == "error"
    ]
    assert errors == []
