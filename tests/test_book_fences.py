"""A backtick fence's info string holds no backtick (CommonMark): a directive such as
````` ````{dropdown} The whole of `fit` ````` is then no fence at all, and the text
after its closing line renders as a code block."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

BOOK = Path(__file__).parent.parent / "book"
OPENER = re.compile(r"^\s*(`{3,})(.*)$")


def bad_fences(source: str) -> list[str]:
    """The lines of ``source`` that open a backtick fence with a backtick after it."""
    return [line for line in source.splitlines()
            if (m := OPENER.match(line)) and "`" in m.group(2)]  # fmt: skip


def test_bad_fences_are_found():
    assert bad_fences("````{dropdown} The whole of `fit`\nx\n````") == [
        "````{dropdown} The whole of `fit`"
    ]
    assert bad_fences("````{dropdown} The whole of fit\n```{literalinclude} a.py\n```") == []


@pytest.mark.parametrize("path", sorted(BOOK.glob("*.ipynb")), ids=lambda p: p.name)
def test_no_backtick_in_a_fence_info_string(path):
    notebook = nbformat.read(path, as_version=4)
    found = [line for cell in notebook.cells if cell.cell_type == "markdown"
             for line in bad_fences(cell.source)]  # fmt: skip
    assert found == [], f"{path.name}: a fence's info string holds a backtick: {found}"
