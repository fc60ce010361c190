"""Every public object carries a numpydoc docstring that a reader can use.

For each class and function in ``climbing_trees.__all__``: a one-line summary,
a ``Parameters`` section naming exactly the parameters of the signature (when
it takes any), ``Returns`` (or ``Yields``) for a function, and an ``Examples``
section with at least one doctest.  ``pytest --doctest-modules`` (pyproject's
``addopts``) runs those examples, so they stay true.  The constants
(``TIE_RTOL``, ``TREE_LEAF``, ...) have no docstrings of their own and are not
checked.  numpydoc is not a dependency, so a small parser reads the sections.
"""

from __future__ import annotations

import inspect
import re

import pytest

import climbing_trees

# A numpydoc section header: a title, then a line of dashes of the same length.
HEADER = re.compile(r"^([A-Z][A-Za-z ]*)\n(-+)[ \t]*$", re.M)

PUBLIC = [
    name
    for name in climbing_trees.__all__
    if inspect.isclass(getattr(climbing_trees, name))
    or inspect.isfunction(getattr(climbing_trees, name))
]


def sections(doc: str) -> dict[str, str]:
    """Each numpydoc section of ``doc`` (dedented), by title."""
    heads = [
        (m.group(1), m.start(), m.end())
        for m in HEADER.finditer(doc)
        if len(m.group(2)) == len(m.group(1))
    ]
    return {
        title: doc[end : heads[i + 1][1] if i + 1 < len(heads) else len(doc)]
        for i, (title, _, end) in enumerate(heads)
    }


def documented_parameters(body: str) -> set[str]:
    """Names in a Parameters section: unindented lines, ``a, b : type`` lists."""
    names = set()
    for line in body.strip("\n").splitlines():
        if line.strip() and not line[0].isspace():
            names |= {n.strip().lstrip("*") for n in line.split(" : ")[0].split(",")}
    return names


def signature_parameters(obj) -> set[str]:
    """Parameters of a function, or of a class's constructor."""
    return set(inspect.signature(obj).parameters)


def problems(obj) -> list[str]:
    """What the docstring of ``obj`` lacks (empty when it is complete)."""
    doc = obj.__doc__ and inspect.cleandoc(obj.__doc__)
    if not doc:
        return ["no docstring of its own"]
    found = []
    summary = doc.split("\n\n")[0]
    if "\n" in summary:
        found.append("the summary is not one line")
    parts = sections(doc)
    expected = signature_parameters(obj)
    if expected:
        if "Parameters" not in parts:
            found.append("no Parameters section")
        else:
            documented = documented_parameters(parts["Parameters"])
            if documented != expected:
                found.append(
                    f"Parameters: missing {sorted(expected - documented)}, "
                    f"not in the signature {sorted(documented - expected)}"
                )
    if inspect.isfunction(obj):
        wanted = "Yields" if inspect.isgeneratorfunction(obj) else "Returns"
        if wanted not in parts:
            found.append(f"no {wanted} section")
    if ">>>" not in parts.get("Examples", ""):
        found.append("no Examples section with a doctest")
    return found


def test_the_parser_finds_what_is_missing():
    def documented(a, b):
        """Add.

        Parameters
        ----------
        a, b : int

        Returns
        -------
        int

        Examples
        --------
        >>> documented(1, 2)
        3
        """
        return a + b

    def bare(a, b):
        """Add ``a`` and ``b``,
        two numbers.

        Parameters
        ----------
        a : int
        c : int
        """
        return a + b

    assert problems(documented) == []
    assert problems(bare) == [
        "the summary is not one line",
        "Parameters: missing ['b'], not in the signature ['c']",
        "no Returns section",
        "no Examples section with a doctest",
    ]


def test_every_public_object_is_checked():
    assert {"Tree", "prune", "DecisionTreeClassifier", "gini"} <= set(PUBLIC)
    assert "TIE_RTOL" not in PUBLIC


@pytest.mark.parametrize("name", PUBLIC)
def test_public_docstring_is_complete(name):
    found = problems(getattr(climbing_trees, name))
    assert not found, f"{name}: " + "; ".join(found)
