"""Every module of the package appears in the book's map and in the package's table.

A reader of a chapter should know which file to open (book/intro.md, "Map of the
book"), and a reader of the package which chapter explains a file (the table in
``climbing_trees/__init__.py``).  A new module must be added to both.
"""

import pkgutil
import re
from pathlib import Path

import climbing_trees

ROOT = Path(__file__).resolve().parents[1]
MODULES = {module.name for module in pkgutil.iter_modules(climbing_trees.__path__)}


def book_map() -> set[str]:
    """The modules named in the table of intro.md's "Map of the book"."""
    text = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    section = text.split("## Map of the book", 1)[1].split("\n## ", 1)[0]
    rows = "\n".join(line for line in section.splitlines() if line.startswith("|"))
    return set(re.findall(r"`(_\w+)`", rows))


def package_table() -> set[str]:
    """The modules named in the table of the package's docstring."""
    table = climbing_trees.__doc__.split("=====", 1)[1]
    return set(re.findall(r"``(_\w+)``", table))


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
