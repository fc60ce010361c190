"""Every module of the package appears in the book's map and in the package's table.

A reader of a chapter should know which file to open (book/intro.md, "Map of the
book"), and a reader of the package which chapter explains a file and what it does
(the table in ``climbing_trees/__init__.py``: module, chapter, role).  A new module
must be added to both.  A subpackage (``climbing_trees/_levelwise/``, say) is
listed by its name; its own docstring names each of its modules.
"""

import importlib
import pkgutil
import re
from pathlib import Path

import climbing_trees

ROOT = Path(__file__).resolve().parents[1]
MODULES = {module.name for module in pkgutil.iter_modules(climbing_trees.__path__)}
SUBPACKAGES = {m.name for m in pkgutil.iter_modules(climbing_trees.__path__) if m.ispkg}


def book_map() -> set[str]:
    """The modules named in the table of intro.md's "Map of the book"."""
    text = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    section = text.split("## Map of the book", 1)[1].split("\n## ", 1)[0]
    rows = "\n".join(line for line in section.splitlines() if line.startswith("|"))
    return set(re.findall(r"`(_\w+)`", rows))


def table_rows(doc: str) -> list[list[str]]:
    """The rows of the first reStructuredText simple table in ``doc``, as cells.

    The rule lines of ``=`` give the columns: a cell is the text under its
    rule, and the last column takes the rest of the line.
    """
    lines = doc.splitlines()
    rules = [i for i, line in enumerate(lines) if re.fullmatch(r"=+( +=+)+", line.strip())]
    assert len(rules) == 3, "the table needs a top rule, a rule under the header and a bottom one"
    spans = [m.span() for m in re.finditer(r"=+", lines[rules[0]])]
    rows = []
    for line in lines[rules[1] + 1 : rules[2]]:
        cells = [line[a:b].strip() for a, b in spans[:-1]] + [line[spans[-1][0] :].strip()]
        rows.append(cells)
    return rows


def package_table() -> set[str]:
    """The modules named in the table of the package's docstring."""
    rows = table_rows(climbing_trees.__doc__)
    return {re.fullmatch(r"``(\w+)``", row[0]).group(1) for row in rows}


def test_every_row_of_the_package_table_gives_chapter_and_role():
    header = climbing_trees.__doc__.split("\nmodule ", 1)[1].splitlines()[0].split()
    assert header == ["chapter", "role"]
    for module, chapter, role in table_rows(climbing_trees.__doc__):
        assert re.fullmatch(r"``_\w+``", module), module
        assert re.fullmatch(r"\d+(-\d+)?", chapter), f"{module}: chapter {chapter!r}"
        assert len(role.split()) >= 3, f"{module}: say what it does, not {role!r}"


def test_a_subpackage_lists_its_modules_in_its_docstring():
    for name in sorted(SUBPACKAGES):
        package = importlib.import_module(f"climbing_trees.{name}")
        doc = package.__doc__ or ""
        inner = {m.name for m in pkgutil.iter_modules(package.__path__)}
        missing = sorted(m for m in inner if m not in doc)
        assert not missing, f"name in climbing_trees/{name}/__init__.py's docstring: {missing}"


def test_the_checks_see_subpackages_and_table_cells(tmp_path, monkeypatch):
    """The two rules above, on a made-up package: a subpackage counts as one
    module, and a table row without a role is caught."""
    package = tmp_path / "fake_trees"
    (package / "_builder").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "_plain.py").write_text("")
    (package / "_builder" / "__init__.py").write_text('"""Modules: ``_state``."""')
    (package / "_builder" / "_state.py").write_text("")
    found = {(m.name, m.ispkg) for m in pkgutil.iter_modules([str(package)])}
    assert found == {("_plain", False), ("_builder", True)}
    rule = "======  =======  ====="
    doc = f"x\n\n{rule}\nmodule  chapter  role\n{rule}\n``_a``  1\n{rule}\n"
    assert table_rows(doc) == [["``_a``", "1", ""]]


def test_the_package_has_modules_to_map():
    assert {"_criteria", "_naive", "_ensemble"} <= MODULES


def test_every_module_is_in_the_book_map():
    named = book_map()
    assert not MODULES - named, f"add to book/intro.md's map: {sorted(MODULES - named)}"
    assert not named - MODULES, f"not modules of the package: {sorted(named - MODULES)}"


def test_every_module_is_in_the_package_table():
    named = package_table()
    missing = sorted(MODULES - named)
    assert not missing, f"add to climbing_trees/__init__.py's table: {missing}"
    assert not named - MODULES, f"not modules of the package: {sorted(named - MODULES)}"
