"""Copy scikit-learn's own tree tests and adapt them to drive ``climbing_trees``.

Run ``python tests/sklearn_tests/adapt.py`` to refresh the copies from the
installed scikit-learn (or pass the folder of another copy of
``sklearn/tree/tests``).  The adaptation is mechanical: the estimators and the
export functions are imported from ``climbing_trees`` instead of ``sklearn.tree``;
everything else (scikit-learn's internals that some tests use, its datasets and
metrics) is still imported from scikit-learn.  Nothing in a test body changes.

Which copied tests do not run, and why, is written in one place: ``SKIPS`` (tests
of scikit-learn's internals, or of what the package refuses on purpose) and
``XFAILS`` (parity gaps that wait for work on the split searches; strict, so
that a test which starts to pass must be moved out of the list).  The
``conftest.py`` beside this file applies both.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: The files copied: scikit-learn's name -> the copy's name.
FILES = {
    "test_tree.py": "test_sklearn_tree.py",
    "test_export.py": "test_sklearn_export.py",
    "test_split.py": "test_sklearn_split.py",
    "test_monotonic_tree.py": "test_sklearn_monotonic_tree.py",
}

#: Public names that come from ``climbing_trees`` instead of ``sklearn.tree``.
PUBLIC = {
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ExtraTreeClassifier",
    "ExtraTreeRegressor",
    "export_graphviz",
    "export_text",
    "plot_tree",
}

#: Public names that come from ``climbing_trees`` instead of ``sklearn.ensemble``.
ENSEMBLES = {
    "ExtraTreesClassifier",
    "ExtraTreesRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
}

INTERNALS = "tests scikit-learn's own internals (Cython Tree, criteria, splitters, utilities)"

#: (copy, pattern of the test's name, as fnmatch reads it) -> reason: tests that
#: do not apply to this package.  Patterns match the name with its parameters,
#: ``test_x[csr_matrix-...]``.
SKIPS: dict[tuple[str, str], str] = {
    # scikit-learn's internals: the test never reaches this package
    ("test_sklearn_tree.py", "test_realloc"): INTERNALS,
    ("test_sklearn_tree.py", "test_criterion_copy"): INTERNALS,
    ("test_sklearn_tree.py", "test_check_n_classes"): INTERNALS,
    ("test_sklearn_tree.py", "test_check_value_ndarray"): INTERNALS,
    ("test_sklearn_tree.py", "test_check_node_ndarray"): INTERNALS,
    ("test_sklearn_tree.py", "test_splitter_serializable"): INTERNALS,
    ("test_sklearn_tree.py", "test_absolute_errors_precomputation_function"): INTERNALS,
    ("test_sklearn_tree.py", "test_build_pruned_tree_py"): INTERNALS
    + ": _build_pruned_tree_py takes scikit-learn's Cython Tree",
    ("test_sklearn_tree.py", "test_build_pruned_tree_infinite_loop"): INTERNALS
    + ": _build_pruned_tree_py takes scikit-learn's Cython Tree",
    ("test_sklearn_tree.py", "test_huge_allocations"): INTERNALS
    + ": Cython's allocation of max_leaf_nodes nodes ahead; this package grows only "
    "the nodes it needs, so a huge max_leaf_nodes is no limit rather than an error",
    # deliberate differences
    ("test_sklearn_export.py", "test_export_text"): "the toy tree's root ties features 0 "
    "and 1 (both split the rows perfectly at 0): scikit-learn picks by its random order "
    "of features, this package the lowest index (chapter 4's tie rule)",
    ("test_sklearn_export.py", "test_export_text_feature_class_names_array_support*"): (
        "the same tie as test_export_text; tests/test_export.py passes arrays of names "
        "on tie-free trees"
    ),
    ("test_sklearn_tree.py", "test_big_input"): "scikit-learn refuses values beyond "
    "float32 (1e40); climbing_trees keeps X in float64, where 1e40 is a valid value",
}

#: (copy, pattern) -> reason: parity gaps that wait for the work on the split
#: searches (marked xfail, strict: a test that starts passing fails the run,
#: so it must leave this list).
XFAILS: dict[tuple[str, str], str] = {}


def adapt(source: str) -> str:
    """scikit-learn's test text with the public tree names imported from climbing_trees."""

    def from_module(module: str, public: set):
        def rewrite(match: re.Match) -> str:
            names = [n.strip() for n in match.group(1).strip("()").split(",") if n.strip()]
            ours = [n for n in names if n in public]
            theirs = [n for n in names if n not in public]
            lines = []
            if ours:
                lines.append(f"from climbing_trees import {', '.join(ours)}")
            if theirs:
                lines.append(f"from {module} import {', '.join(theirs)}")
            return "\n".join(lines)

        return rewrite

    text = source
    for module, public in (("sklearn.tree", PUBLIC), ("sklearn.ensemble", ENSEMBLES)):
        pattern = rf"^from {re.escape(module)} import (\([^)]*\)|[^\n]*)"
        text = re.sub(pattern, from_module(module, public), text, flags=re.M)
    text = text.replace(
        "from sklearn.tree._export import _rgb_to_hexstring",
        "from climbing_trees._export import _rgb_to_hexstring",
    )
    return text


def main(folder: str | None = None) -> None:
    import sklearn

    tests = Path(folder) if folder else Path(sklearn.__file__).parent / "tree" / "tests"
    for name, copy in FILES.items():
        source = (tests / name).read_text(encoding="utf-8")
        header = (
            f"# Copied from scikit-learn {sklearn.__version__}'s sklearn/tree/tests/{name}\n"
            "# (BSD-3-Clause, the scikit-learn developers) and adapted by adapt.py:\n"
            "# do not edit; run `python tests/sklearn_tests/adapt.py` to refresh.\n"
            "# ruff: noqa\n"
        )
        (HERE / copy).write_text(header + adapt(source), encoding="utf-8")
        print(f"wrote {copy}")


if __name__ == "__main__":
    main(*sys.argv[1:])
