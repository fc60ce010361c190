"""A chapter that imports the package's copy of an earlier chapter's code gets that code.

Chapter 7 writes the generator ``noisy_levels`` live, to teach it; chapter 10 imports
the package's copy (``climbing_trees._importance.noisy_levels``) and says so.  The
copy must have chapter 7's statements and default values, or chapter 10 would
measure another problem than the one chapter 7 shows.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import nbformat

from climbing_trees._importance import noisy_levels

BOOK = Path(__file__).resolve().parents[1] / "book"


def body_and_defaults(source: str):
    """A function's statements after its docstring, and its default values."""
    function = ast.parse(source).body[0]
    body = [ast.dump(statement) for statement in function.body[1:]]
    return body, [ast.literal_eval(value) for value in function.args.defaults]


def chapter_function(notebook: str, name: str) -> str:
    """The source of the function ``name`` defined in a code cell of ``notebook``."""
    chapter = nbformat.read(BOOK / notebook, as_version=4)
    cell = next(
        c.source for c in chapter.cells
        if c.cell_type == "code" and f"def {name}(" in c.source
    )
    return cell[cell.index(f"def {name}(") :].split("\n\n\n")[0]


def test_chapter_10_noisy_levels_is_chapter_7s():
    chapter7 = chapter_function("07_optimal_partitioning.ipynb", "noisy_levels")
    package = inspect.getsource(noisy_levels)
    assert body_and_defaults(package) == body_and_defaults(chapter7)


def test_the_check_sees_a_changed_default():
    chapter7 = chapter_function("07_optimal_partitioning.ipynb", "noisy_levels")
    changed = chapter7.replace("signal=0.15", "signal=0.2")
    assert changed != chapter7
    assert body_and_defaults(changed) != body_and_defaults(inspect.getsource(noisy_levels))
