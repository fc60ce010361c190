"""Chapters refer to each other with ``{doc}``, never by a typed chapter number.

``_toc.yml`` numbers the chapters in the order of its parts, so a number typed in
prose ("chapter 7", ``{doc}`chapter 7 <07_optimal_partitioning>` ``) goes wrong as
soon as a chapter moves; ``{doc}`07_optimal_partitioning` `` renders the title and
follows the chapter wherever it goes.  This test reads every notebook's Markdown, its
figure captions and its code comments and strings, and fails on a typed number.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
TYPED = re.compile(r"\b[Cc]hapters?\s+\d+")
# Other books' chapters, which are numbers of their own.
ALLOWED = {"(their chapter 4)"}
CHAPTERS = sorted(p.name for p in BOOK.glob("*.ipynb"))


def typed_numbers(chapter: str) -> list[str]:
    notebook = nbformat.read(BOOK / chapter, as_version=4)
    found = []
    for cell in notebook.cells:
        text = cell.source + "\n" + json.dumps(cell.metadata, ensure_ascii=False)
        for allowed in ALLOWED:
            text = text.replace(allowed, "")
        found += [
            f"{cell.get('id', '?')}: ...{text[max(0, m.start() - 40) : m.end() + 20]!r}"
            for m in TYPED.finditer(text)
        ]
    return found


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapters_are_named_by_doc_links_not_numbers(chapter):
    found = typed_numbers(chapter)
    assert not found, (
        "use {doc}`NN_name` (it renders the title) instead of a typed chapter "
        "number:\n" + "\n".join(found)
    )


def test_the_pattern_finds_a_typed_number():
    assert TYPED.search("as {doc}`chapter 3 <03_incremental>` showed")
    assert TYPED.search("Chapters 6 and 7 dropped those rows")
    assert not TYPED.search("as {doc}`03_incremental` showed")
