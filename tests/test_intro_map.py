"""The book's map (book/intro.md) and the package's table name the same modules,
and the map lists every page of the table of contents in its order.

The package's table is the docstring of ``climbing_trees/__init__.py``; the book's
map is the table under "Map of the book" in ``book/intro.md``.  A module is a file
``_name.py`` or a package ``_name/`` of ``climbing_trees``; both tables write it as
``_name`` (a trailing ``/`` is allowed).  Chapters are named in the map by their
``{doc}`` reference, not by a number: the numbers follow ``_toc.yml``'s order.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import climbing_trees

ROOT = Path(__file__).resolve().parents[1]
MODULE = re.compile(r"`{1,2}(_[a-z]\w*)/?`{1,2}")


def intro_map_rows(text: str | None = None) -> list[str]:
    """The table rows of intro.md's "Map of the book"."""
    if text is None:
        text = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    section = text.split("## Map of the book", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("|")]


def intro_modules(text: str | None = None) -> set[str]:
    return {m for row in intro_map_rows(text) for m in MODULE.findall(row)}


def package_modules(doc: str | None = None) -> set[str]:
    """The modules in the table of the package docstring (between its ``===`` rules)."""
    if doc is None:
        doc = climbing_trees.__doc__
    table = doc.split("=====", 1)[1]
    return set(MODULE.findall(table))


def toc_pages() -> list[str]:
    """The documents of _toc.yml in reading order, without the root."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    pages: list[str] = []

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                pages.append(Path(entry["file"]).name)
            walk(entry.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return pages


def test_the_readers_find_modules_in_both_tables():
    assert {"_criteria", "_pruning", "_ensemble"} <= intro_modules()
    assert {"_criteria", "_pruning", "_ensemble"} <= package_modules()


def test_intro_map_and_package_table_name_the_same_modules():
    in_book, in_package = intro_modules(), package_modules()
    assert not in_package - in_book, (
        f"add to book/intro.md's map: {sorted(in_package - in_book)}"
    )
    assert not in_book - in_package, (
        f"add to climbing_trees/__init__.py's table: {sorted(in_book - in_package)}"
    )


def test_the_map_lists_the_pages_of_the_toc_in_order():
    linked = [
        doc for row in intro_map_rows() for doc in re.findall(r"\{doc\}`([^`<>]+)`", row)
    ]
    pages = [page for page in toc_pages() if page != "references"]
    assert linked == pages, "book/intro.md's map must follow _toc.yml, one row a page"


def test_the_map_names_no_chapter_by_number():
    """Numbers change when a chapter is added before another: refer by title."""
    assert not [row for row in intro_map_rows() if re.match(r"\|\s*\d", row)]


@pytest.mark.parametrize(
    ("package_doc", "intro", "missing"),
    [
        # A module split out of another: in the package's table only.
        ("=====\n``_a``, ``_encoding``  6\n", "## Map of the book\n| x | `_a` |\n", True),
        # A module that became a package, written with a slash in the map.
        ("=====\n``_levelwise``  8\n", "## Map of the book\n| x | `_levelwise/` |\n", False),
    ],
)
def test_the_comparison_sees_a_module_on_one_side_only(package_doc, intro, missing):
    assert (package_modules(package_doc) != intro_modules(intro)) is missing
