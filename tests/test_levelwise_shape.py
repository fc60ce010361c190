"""The level-wise builder stays a package of small pieces.

Limits on ``climbing_trees/_levelwise/``, read from its syntax tree: no
function over 120 lines of code (its docstring not counted), none but
``grow_tree_levelwise`` with more than 10 parameters, no nested function over
40 lines, no module over 500 lines.  A new search or backend then comes as a
new piece, not as another branch of a long function.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "climbing_trees" / "_levelwise"
MAX_LINES, MAX_NESTED_LINES, MAX_PARAMETERS, MAX_MODULE_LINES = 120, 40, 10, 500
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def code_lines(function: ast.AST) -> int:
    """Lines from ``def`` to the end, less the docstring's."""
    lines = function.end_lineno - function.lineno + 1
    first = function.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        if isinstance(first.value.value, str):
            lines -= first.end_lineno - first.lineno + 1
    return lines


def parameters(function: ast.AST, method: bool) -> int:
    """Parameters a caller passes (``*args`` and ``**kwargs`` count one each)."""
    a = function.args
    count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
    count += (a.vararg is not None) + (a.kwarg is not None)
    return count - method  # self


def definitions(directory: Path = PACKAGE):
    """``(module, name, function, is_method, nested)`` of every function, nested ones
    listed under the function that holds them."""
    for path in sorted(directory.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        tops = [(node, False) for node in tree.body if isinstance(node, FUNCTIONS)]
        for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
            tops += [(node, True) for node in cls.body if isinstance(node, FUNCTIONS)]
        for function, method in tops:
            nested = [
                node
                for node in ast.walk(function)
                if isinstance(node, FUNCTIONS) and node is not function
            ]
            yield path.name, function.name, function, method, nested


def test_the_package_is_read():
    names = {name for _, name, *_ in definitions()}
    assert {"grow_tree_levelwise", "_best_splits", "_partition", "searches_for"} <= names
    assert len(list(PACKAGE.glob("*.py"))) >= 8


def test_no_function_is_over_120_lines():
    long = [
        (module, name, code_lines(f))
        for module, name, f, _, _ in definitions()
        if code_lines(f) > MAX_LINES
    ]
    assert not long, f"over {MAX_LINES} lines of code: {long}"


def test_only_the_grower_takes_more_than_10_parameters():
    many = [
        (module, name, parameters(f, method))
        for module, name, f, method, _ in definitions()
        if parameters(f, method) > MAX_PARAMETERS and name != "grow_tree_levelwise"
    ]
    assert not many, f"over {MAX_PARAMETERS} parameters: {many}"


def test_no_nested_function_is_over_40_lines():
    long = [
        (module, f"{name}.{inner.name}", code_lines(inner))
        for module, name, _, _, nested in definitions()
        for inner in nested
        if code_lines(inner) > MAX_NESTED_LINES
    ]
    assert not long, f"nested functions over {MAX_NESTED_LINES} lines: {long}"


def test_no_module_is_over_500_lines():
    long = [
        (path.name, n)
        for path in sorted(PACKAGE.glob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"
