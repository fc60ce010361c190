"""The code the chapters print fits the page: at most 88 characters a line.

Ruff checks the notebooks' code cells at 88 (``book/ruff.toml``), but the package
allows 100, and a chapter also prints package functions (``literalinclude`` with
``:pyobject:``) and code inside its Markdown (exercise solutions).  These tests read
what each chapter shows and measure it.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
_spec = importlib.util.spec_from_file_location("listings", BOOK / "_ext" / "listings.py")
listings = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(listings)
CHAPTERS = sorted(p.name for p in BOOK.glob("*.ipynb"))
WIDTH = 88  # book/ruff.toml's line-length for the chapters' code cells

# A directive, its argument and its options (``:name: value`` lines).
LITERALINCLUDE = re.compile(r"```\{literalinclude\}\s+(\S+)\s*\n((?:[ \t]*:[^\n]*\n)*)")
PYTHON_FENCE = re.compile(r"^[ \t]*```python[ \t]*\n(.*?)^[ \t]*```", re.S | re.M)

# Chapters that still print lines over 88 characters: wrap them, then remove the
# chapter here (the mark is strict, so a chapter that fits fails until removed).
LONG_LISTINGS: set[str] = set()
LONG_MARKDOWN_CODE: set[str] = set()


def _markdown(chapter: str) -> list[tuple[str, str]]:
    notebook = nbformat.read(BOOK / chapter, as_version=4)
    return [(c.get("id", "?"), c.source) for c in notebook.cells if c.cell_type == "markdown"]


def _object_lines(path: Path, dotted: str) -> tuple[int, int]:
    """First and last line (1-based, decorators included) of ``Class.method`` etc."""
    body = ast.parse(path.read_text()).body
    node = None
    for name in dotted.split("."):
        found = [n for n in body if getattr(n, "name", None) == name]
        assert found, f"{path.name} has no {dotted}"
        node = found[0]
        body = getattr(node, "body", [])
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return first, node.end_lineno


def shown_sources(chapter: str) -> list[tuple[str, str, int, str]]:
    """(cell id, what is shown, line number, line) of every line a chapter includes."""
    shown = []
    for cell_id, source in _markdown(chapter):
        for match in LITERALINCLUDE.finditer(source):
            path = (BOOK / match.group(1)).resolve()
            if path.suffix != ".py":
                continue
            options = dict(re.findall(r":([\w-]+):[ \t]*(.*)", match.group(2)))
            lines = path.read_text().splitlines(keepends=True)
            if "pyobject" in options:
                first, last = _object_lines(path, options["pyobject"].strip())
                what = f"{path.name}:{options['pyobject'].strip()}"
            else:
                first, last, what = 1, len(lines), path.name
            lines = lines[first - 1 : last]
            if options.get("docstring", "").strip() != "full":
                lines = listings.drop_docstring_sections(lines)
            shown += [(cell_id, what, i, line.rstrip("\n")) for i, line in enumerate(lines)]
    return shown


def _too_long(rows) -> list[str]:
    return [
        f"{cell_id}: {what} line {i} has {len(line)} characters"
        for cell_id, what, i, line in rows
        if len(line) > WIDTH
    ]


def _mark(chapter: str, known: set[str]):
    return pytest.param(
        chapter,
        marks=pytest.mark.xfail(chapter in known, strict=True, reason="not wrapped yet"),
    )


def _without_docstring(source: str) -> str:
    function = ast.parse(source).body[0]
    assert isinstance(function.body[0].value, ast.Constant)  # the docstring
    summary = function.body[0].value.value.splitlines()[0]
    function.body = function.body[1:]
    return summary, ast.dump(function)


@pytest.mark.parametrize("name", ["first_best_split", "grow_first_tree", "Node"])
def test_listings_drop_docstring_sections_only(name):
    """A listing keeps the code and the docstring's summary; numpydoc sections go."""
    path = BOOK.parent / "climbing_trees" / "_first_tree.py"
    first, last = _object_lines(path, name)
    whole = path.read_text().splitlines(keepends=True)[first - 1 : last]
    shown = listings.drop_docstring_sections(whole)
    assert any(line.strip() == "Examples" for line in whole)
    assert not any(line.strip() in listings.SECTIONS for line in shown)
    assert _without_docstring("".join(shown)) == _without_docstring("".join(whole))


def test_every_chapter_is_checked():
    assert "08_pruning.ipynb" in CHAPTERS
    assert LONG_LISTINGS <= set(CHAPTERS) and LONG_MARKDOWN_CODE <= set(CHAPTERS)
    listed = [row for chapter in CHAPTERS for row in shown_sources(chapter)]
    assert any(what == "_pruning.py:prune" for _, what, _, _ in listed)


@pytest.mark.parametrize("chapter", [_mark(c, LONG_LISTINGS) for c in CHAPTERS])
def test_shown_package_code_fits_the_page(chapter):
    """Every line of every function a chapter shows by literalinclude: <= 88 chars."""
    assert _too_long(shown_sources(chapter)) == []


@pytest.mark.parametrize("chapter", [_mark(c, LONG_MARKDOWN_CODE) for c in CHAPTERS])
def test_markdown_code_fits_the_page(chapter):
    """Python blocks in a chapter's Markdown (exercise solutions): <= 88 chars."""
    rows = [
        (cell_id, "```python", i, line)
        for cell_id, source in _markdown(chapter)
        for match in PYTHON_FENCE.finditer(source)
        for i, line in enumerate(match.group(1).splitlines(), start=1)
    ]
    assert _too_long(rows) == []
