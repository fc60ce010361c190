"""Chapter 02_naive_search's key to the ``grow_tree`` listing names every name of it.

The chapter shows the package's ``grow_tree`` in a dropdown, names in its prose the
names that the chapter and ``01_building_blocks`` explain, and lists every other
name of the body in a table (the dictionary ``later`` of the cell
``ch02-grow-tree-key``), by the chapter that explains it.  This test parses the body
and checks that the prose names and the table together are exactly its names: a
name added to ``grow_tree`` must be placed in the key, and the key names nothing the
body lacks.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import nbformat

from climbing_trees import grow_tree

CHAPTER = Path(__file__).resolve().parents[1] / "book" / "02_naive_search.ipynb"

PYTHON_AND_NUMPY = {
    "append", "bool", "dict", "float", "getattr", "int", "isinstance", "len", "list",
    "pop", "sum", "tuple", "np", "arange", "inf", "nan", "ndarray", "uint64",
}
# The names the chapter's prose explains next to the listing (its bullet list).
THIS_CHAPTER = {
    "X", "Y", "sample_weight", "criterion", "max_depth", "min_samples_split",
    "min_samples_leaf", "min_impurity_decrease", "find_split", "NodeSearch",
    "search", "best_split", "route", "TREE_LEAF", "TREE_UNDEFINED",
    "node_impurity", "node_value", "is_pure", "enough_decrease", "_assemble",
    "depth_limit", "W", "nodes", "stack", "rows", "w_t", "depth", "parent",
    "is_left", "node_id", "Y_t", "impurity", "node", "split", "score", "feature",
    "threshold", "goes_left", "left", "right", "side", "w_side", "child",
    "'left'", "'right'", "'feature'", "'threshold'", "'value'", "'impurity'",
    "'n'", "'w'",
}


def body_names() -> set[str]:
    """Names, attributes, keywords and string constants of ``grow_tree``'s body."""
    source = inspect.getsource(grow_tree)
    body = ast.parse(textwrap.dedent(source[source.index("    search = NodeSearch(") :]))
    used = set()
    for item in ast.walk(body):
        if isinstance(item, ast.Name):
            used.add(item.id)
        elif isinstance(item, ast.Attribute):
            used.add(item.attr)
        elif isinstance(item, ast.keyword):
            used.add(item.arg)
        elif isinstance(item, ast.Constant) and isinstance(item.value, str):
            used.add(repr(item.value))
    return used


def chapter_key() -> dict[str, list[str]]:
    """The dictionary ``later`` of the chapter's key cell."""
    notebook = nbformat.read(CHAPTER, as_version=4)
    cell = next(c for c in notebook.cells if c.get("id") == "ch02-grow-tree-key")
    for statement in ast.parse(cell.source).body:
        if isinstance(statement, ast.Assign) and statement.targets[0].id == "later":
            return ast.literal_eval(statement.value)
    raise AssertionError("the key cell defines no `later`")


def mismatch(later: dict[str, list[str]]) -> set[str]:
    listed = [name for names in later.values() for name in names]
    assert len(listed) == len(set(listed)), "a name is listed twice"
    assert not set(listed) & THIS_CHAPTER, "a name is both in the prose and the table"
    return body_names() ^ (PYTHON_AND_NUMPY | THIS_CHAPTER | set(listed))


def test_the_key_names_exactly_the_names_of_the_listing():
    assert mismatch(chapter_key()) == set()


def test_a_name_missing_from_the_key_is_found():
    later = chapter_key()
    later["09_missing_values"] = later["09_missing_values"][1:]
    assert mismatch(later) == {"missing_values"}
