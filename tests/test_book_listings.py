"""The code the chapters print fits the page: at most 88 characters a line.

Ruff checks the notebooks' code cells at 88 (``book/ruff.toml``), but the package
allows 100, and a chapter also prints package functions (``literalinclude`` with
``:pyobject:``, or ``print(inspect.getsource(...))`` in a code cell) and code inside
its Markdown (exercise solutions).  These tests read what each chapter shows and
measure it.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
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
# Chapter 14 prints RemoteRows.built_histograms and _Shard.histograms, which have a
# line of 90 and one of 89 characters in climbing_trees/_dask.py.
LONG_PRINTED_SOURCES: set[str] = set()


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


def _is_getsource(node) -> bool:
    """``inspect.getsource(...)`` or ``getsource(...)``."""
    if not isinstance(node, ast.Call):
        return False
    function = node.func
    if isinstance(function, ast.Attribute):
        return function.attr == "getsource"
    return isinstance(function, ast.Name) and function.id == "getsource"


def _names(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _importer(cells: list[ast.Module]):
    """Resolve a dotted expression of the notebook to the object it names.

    Names come from the notebook's imports (any cell); a name the notebook defines
    itself (``def``, ``class``) resolves to None: ruff measures its cells already.
    """
    imported, defined = {}, set()
    for tree in cells:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        imported[alias.asname] = (alias.name, ())
                    else:
                        top = alias.name.split(".")[0]
                        imported[top] = (top, ())
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                for alias in node.names:
                    imported[alias.asname or alias.name] = (node.module, (alias.name,))
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defined.add(node.name)

    def resolve(expression):
        attributes = []
        while isinstance(expression, ast.Attribute):
            attributes.insert(0, expression.attr)
            expression = expression.value
        assert isinstance(expression, ast.Name), (
            f"getsource of {ast.unparse(expression)}: not a dotted name"
        )
        if expression.id in defined and expression.id not in imported:
            return None
        assert expression.id in imported, f"getsource of an unknown {expression.id}"
        module, first = imported[expression.id]
        try:
            target = importlib.import_module(f"{module}.{first[0]}") if first else None
        except ImportError:
            target = None
        if target is None:
            target = importlib.import_module(module)
            for name in first:
                target = getattr(target, name)
        for name in attributes:
            target = getattr(target, name)
        return target

    return resolve


# A cell that prints a piece of a source and asserts its width itself, as
# ``assert max(len(line) for line in shown.splitlines()) <= 88``.
ASSERTS_WIDTH = re.compile(r"assert\b.*\blen\(.*<=\s*88")


def printed_sources(notebook) -> list[tuple[str, str, int, str]]:
    """(cell id, what, line number, line) of the package source a notebook prints.

    A code cell prints a source when it passes ``inspect.getsource(obj)`` to
    ``print``, or a name bound to it, or anything computed from such a name (a
    slice, a dedent).  A whole source is measured as the object's source.  A piece
    can be no wider than the whole, so the whole is measured too, unless the cell
    asserts the width of what it prints (``assert ... len(...) <= 88``), which the
    book's build then checks.
    """
    cells = [c for c in notebook.cells if c.cell_type == "code"]
    trees = []
    for cell in cells:  # IPython magics (%timeit) are not Python
        text = "\n".join(
            "" if line.lstrip().startswith(("%", "!")) else line
            for line in cell.source.splitlines()
        )
        trees.append(ast.parse(text))
    resolve = _importer(trees)
    shown = []
    for cell, tree in zip(cells, trees, strict=True):
        sources = {}  # name -> the getsource call bound to it
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and _is_getsource(node.value):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        sources[target.id] = node.value
        derived = dict(sources)  # name -> the getsource call it comes from
        changed = True
        while changed:
            changed = False
            for node in ast.walk(tree):
                if not isinstance(node, (ast.Assign, ast.AugAssign)):
                    continue
                origins = [derived[n] for n in _names(node.value) if n in derived]
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in _names(target):
                        if origins and name not in derived:
                            derived[name], changed = origins[0], True
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "print"):
                continue
            calls = [n for n in ast.walk(node) if _is_getsource(n)]
            calls += [derived[n] for n in _names(node) if n in derived]
            whole = any(
                _is_getsource(a) or (isinstance(a, ast.Name) and a.id in sources) for a in node.args
            )
            if not whole and ASSERTS_WIDTH.search(cell.source):
                continue  # a piece, measured by the cell itself
            for call in calls:
                target = resolve(call.args[0])
                if target is None:
                    continue
                what = f"getsource({ast.unparse(call.args[0])})"
                lines = inspect.getsource(target).splitlines()
                cell_id = cell.get("id", "?")
                shown += [(cell_id, what, i, line) for i, line in enumerate(lines, 1)]
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
    assert LONG_PRINTED_SOURCES <= set(CHAPTERS)
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


@pytest.mark.parametrize("chapter", [_mark(c, LONG_PRINTED_SOURCES) for c in CHAPTERS])
def test_printed_package_code_fits_the_page(chapter):
    """Every line of package source a code cell prints (inspect.getsource): <= 88."""
    notebook = nbformat.read(BOOK / chapter, as_version=4)
    assert _too_long(printed_sources(notebook)) == []


WIDE_MODULE = f'''
def wide():
    """A function with one line over the page."""
    return {"x" * (WIDTH + 1)!r}


def narrow():
    return 1
'''


def _notebook(*sources: str):
    return nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(s, id=f"cell-{i}") for i, s in enumerate(sources)]
    )


@pytest.fixture
def wide_module(tmp_path, monkeypatch):
    (tmp_path / "wide_module.py").write_text(WIDE_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "wide_module"
    importlib.sys.modules.pop("wide_module", None)


@pytest.mark.parametrize(
    "cells, too_long",
    [
        # printed whole: by the call, or by the name bound to it
        (["import inspect", "from wide_module import wide", "print(inspect.getsource(wide))"], 1),
        (
            [
                "import inspect\nimport wide_module as m",
                "source = inspect.getsource(m.wide)\nprint(source)",
            ],
            1,
        ),
        (
            [
                "from inspect import getsource\nfrom wide_module import narrow, wide",
                "print(getsource(narrow))",
            ],
            0,
        ),
        # a piece, computed from the source: the whole source bounds it ...
        (
            [
                "import inspect\nfrom wide_module import wide",
                "s = inspect.getsource(wide)\nbody = s[s.index('return'):]\nprint(body)",
            ],
            1,
        ),
        # ... unless the cell asserts the width of what it prints
        (
            [
                "import inspect\nfrom wide_module import wide",
                "s = inspect.getsource(wide)\nbody = s[s.index('return'):]\n"
                "assert max(len(line) for line in body.splitlines()) <= 88\nprint(body)",
            ],
            0,
        ),
        # a source compared, not printed; a function the notebook defines itself
        (
            [
                "import inspect\nfrom wide_module import wide",
                "assert 'return' in inspect.getsource(wide)",
            ],
            0,
        ),
        (["import inspect", "def own():\n    pass", "print(inspect.getsource(own))"], 0),
    ],
)
def test_printed_sources_are_measured(wide_module, cells, too_long):
    """A synthetic notebook: each printed source is found, resolved and measured."""
    assert len(_too_long(printed_sources(_notebook(*cells)))) == too_long


def test_printed_source_of_an_unknown_name_is_an_error(wide_module):
    with pytest.raises(AssertionError, match="unknown"):
        printed_sources(_notebook("import inspect", "print(inspect.getsource(mystery))"))
