"""Exports against scikit-learn's: export_text, export_graphviz and decision_path.

Both libraries are fitted on float32-exact, tie-free data, where their trees
are equal (tests/test_sklearn_agreement.py), so their exports must be equal
character for character.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from scipy import sparse
from sklearn import tree as sk
from test_sklearn_agreement import sklearn_stable_fit

import climbing_trees as ct


@pytest.fixture(scope="module")
def classifiers(breast_cancer):
    X, y = breast_cancer
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=len(y))
    ours = ct.DecisionTreeClassifier(max_depth=3).fit(X, y, sample_weight=w)
    theirs = sklearn_stable_fit(sk.DecisionTreeClassifier, X, y, sample_weight=w, max_depth=3)
    return ours, theirs, X


@pytest.fixture(scope="module")
def regressors(synthetic_regression):
    X, y = synthetic_regression
    ours = ct.DecisionTreeRegressor(max_depth=5, min_samples_leaf=50).fit(X, y)
    theirs = sklearn_stable_fit(sk.DecisionTreeRegressor, X, y, max_depth=5, min_samples_leaf=50)
    return ours, theirs, X


TEXT_OPTIONS = [
    {},
    {"max_depth": 0},
    {"max_depth": 1},
    {"max_depth": 2},
    {"spacing": 1},
    {"spacing": 6},
    {"decimals": 0},
    {"decimals": 5},
    {"show_weights": True},
    {"show_weights": True, "decimals": 3, "spacing": 2, "max_depth": 2},
]


@pytest.mark.parametrize("options", TEXT_OPTIONS, ids=str)
def test_export_text_matches_sklearn_classifier(classifiers, options):
    ours, theirs, X = classifiers
    names = [f"f{j} (cm)" for j in range(X.shape[1])]
    for extra in [{}, {"feature_names": names}, {"class_names": ["benign?", "malignant?"]}]:
        assert ct.export_text(ours, **options, **extra) == sk.export_text(
            theirs, **options, **extra
        )


@pytest.mark.parametrize("options", TEXT_OPTIONS, ids=str)
def test_export_text_matches_sklearn_regressor(regressors, options):
    ours, theirs, X = regressors
    names = [f"x{j}" for j in range(X.shape[1])]
    for extra in [{}, {"feature_names": names}]:
        assert ct.export_text(ours, **options, **extra) == sk.export_text(
            theirs, **options, **extra
        )


def test_export_text_format_details(regressors):
    ours, _, _ = regressors
    text = ct.export_text(ours, max_depth=1)
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert "truncated branch of depth 4" in text
    assert text.splitlines()[0].startswith("|--- feature_")
    # A leaf below the cut is still shown as a leaf, not as a truncated branch.
    X = np.arange(6.0)[:, None]
    stump = ct.DecisionTreeRegressor(max_depth=1).fit(X, [0, 0, 0, 1, 1, 1])
    assert "truncated" not in ct.export_text(stump, max_depth=0)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"max_depth": -1}, "max_depth must be at least 0"),
        ({"spacing": 0}, "spacing must be at least 1"),
        ({"decimals": 1.5}, "decimals must be an integer"),
        ({"show_weights": "yes"}, "show_weights must be True or False"),
        ({"class_names": ["only one"]}, "class_names has 1 names"),
    ],
)
def test_export_text_rejects_bad_options(classifiers, options, message):
    with pytest.raises(ValueError, match=message):
        ct.export_text(classifiers[0], **options)


def test_export_text_class_names_only_for_classifiers(regressors):
    with pytest.raises(ValueError, match="class_names is for classifiers"):
        ct.export_text(regressors[0], class_names=["a"])


def test_export_text_categorical_level_sets():
    X = pd.DataFrame({"colour": pd.Categorical(list("rgbrgbrgb")), "x": np.arange(9.0)})
    y = np.array([5.0, 0, 0, 5, 0, 0, 5, 0, 0])
    text = ct.export_text(ct.DecisionTreeRegressor(max_depth=1).fit(X, y))
    assert text.splitlines()[0] == "|--- colour in {b, g, <unseen>}"
    assert text.splitlines()[2] == "|--- colour in {r}"
    assert text.endswith("\n")


def assert_same_path(ours, theirs) -> None:
    assert type(ours) is type(theirs)
    assert ours.shape == theirs.shape and ours.format == "csr"
    for name in ("indptr", "indices", "data"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)


@pytest.mark.parametrize("which", ["classifiers", "regressors"])
def test_decision_path_matches_sklearn(which, request):
    ours, theirs, X = request.getfixturevalue(which)
    assert_same_path(ours.decision_path(X), theirs.decision_path(X))
    with sklearn.config_context(sparse_interface="sparray"):
        assert_same_path(ours.decision_path(X[:7]), theirs.decision_path(X[:7]))


def test_decision_path_ends_at_apply_and_walks_parent_to_child(mixed_frame):
    X, _, y = mixed_frame
    model = ct.DecisionTreeRegressor(max_depth=5).fit(X, y)
    path = model.decision_path(X)
    assert sparse.issparse(path) and path.shape == (len(X), model.tree_.node_count)
    leaves = model.apply(X)
    tree = model.tree_
    for i in range(len(X)):
        nodes = path.indices[path.indptr[i] : path.indptr[i + 1]]
        assert nodes[0] == 0 and nodes[-1] == leaves[i]
        for parent, child in zip(nodes[:-1], nodes[1:], strict=True):
            assert child in (tree.children_left[parent], tree.children_right[parent])


GRAPHVIZ_OPTIONS = [
    {},
    {"filled": True},
    {"filled": True, "rounded": True, "node_ids": True},
    {"max_depth": 1, "leaves_parallel": True},
    {"max_depth": 0},
    {"label": "root", "impurity": False},
    {"label": "none", "proportion": True},
    {"rotate": True, "precision": 1},
    {"special_characters": True, "node_ids": True},
    {"fontname": "DejaVu Sans", "precision": 5},
]


@pytest.mark.parametrize("options", GRAPHVIZ_OPTIONS, ids=str)
def test_export_graphviz_matches_sklearn(classifiers, regressors, options):
    for ours, theirs, X in (classifiers, regressors):
        names = [f"f{j}" for j in range(X.shape[1])]
        extras = [{}, {"feature_names": names}]
        if hasattr(ours, "classes_"):
            extras += [{"class_names": True}, {"class_names": ["no", "yes"]}]
            if not options.get("special_characters"):
                # (HTML-like labels differ on purpose: scikit-learn writes \" there.)
                extras += [{"class_names": ["no", 'say "yes"']}]
        for extra in extras:
            assert ct.export_graphviz(ours, **options, **extra) == sk.export_graphviz(
                theirs, **options, **extra
            )


def test_export_graphviz_writes_files(classifiers, tmp_path):
    ours = classifiers[0]
    text = ct.export_graphviz(ours)
    path = tmp_path / "tree.dot"
    assert ct.export_graphviz(ours, out_file=str(path)) is None
    assert path.read_text(encoding="utf-8") == text
    buffer = io.StringIO()
    ct.export_graphviz(ours, out_file=buffer)
    assert buffer.getvalue() == text


NODE = re.compile(r'^(\d+) \[label=("(?:[^"\\]|\\.)*"|<.*>)(, fillcolor="#[0-9a-fA-F]{6}")?\] ;$')
EDGE = re.compile(
    r"^(\d+) -> (\d+)( \[labeldistance=2.5, labelangle=-?45, headlabel=\"(True|False)\"\])? ;$"
)


def check_dot(text: str, tree: ct.Tree) -> None:
    """A small grammar check: the lines scikit-learn's exporter writes, every node once."""
    lines = text.splitlines()
    assert lines[0] == "digraph Tree {" and lines[-1] == "}"
    nodes, edges = [], []
    for line in lines[1:-1]:
        if line.startswith(("node [", "edge [", "graph [", "rankdir", "{rank=same")):
            assert line.endswith("] ;") or line.endswith("} ;") or line == "rankdir=LR ;"
            continue
        node, edge = NODE.match(line), EDGE.match(line)
        assert node or edge, line
        if node:
            nodes.append(int(node.group(1)))
        else:
            edges.append((int(edge.group(1)), int(edge.group(2))))
    assert sorted(nodes) == list(range(tree.node_count))  # every node named once
    internal = np.flatnonzero(tree.children_left != ct.TREE_LEAF)
    expected = [(p, c) for p in internal for c in (tree.children_left[p], tree.children_right[p])]
    assert sorted(edges) == sorted(expected)


@pytest.mark.parametrize("special_characters", [False, True])
def test_export_graphviz_categorical_parses(penguins, special_characters):
    X = penguins.drop(columns="species").copy()
    X["island"] = X["island"].replace({"Dream": 'Dr"eam <&>'})
    model = ct.DecisionTreeClassifier(max_depth=3).fit(X, penguins["species"])
    assert model.tree_.is_categorical_split.any()
    text = ct.export_graphviz(
        model, filled=True, class_names=True, special_characters=special_characters
    )
    check_dot(text, model.tree_)
    node = int(np.flatnonzero(model.tree_.is_categorical_split)[0])
    line = next(s for s in text.splitlines() if s.startswith(f"{node} [label="))
    feature = model.feature_names_in_[model.tree_.feature[node]]
    assert f"{feature} in {{" in line
    if model.tree_.categories_left[node, -1]:
        assert ("&lt;unseen&gt;" if special_characters else "<unseen>") in line
    if shutil.which("dot") is None:
        pytest.skip("graphviz's dot is not installed")
    svg = subprocess.run(
        ["dot", "-Tsvg"], input=text, capture_output=True, text=True, check=True
    ).stdout
    assert svg.count('class="node"') == model.tree_.node_count


def test_export_graphviz_numerical_parses(classifiers, regressors):
    for ours, _, _ in (classifiers, regressors):
        check_dot(ct.export_graphviz(ours, filled=True, leaves_parallel=True), ours.tree_)
        if shutil.which("dot") is not None:
            result = subprocess.run(
                ["dot", "-Tsvg"],
                input=ct.export_graphviz(ours, special_characters=True),
                capture_output=True,
                text=True,
            )
            assert result.returncode == 0, result.stderr


def test_export_graphviz_rejects_bad_options(classifiers):
    ours = classifiers[0]
    with pytest.raises(ValueError, match="label must be"):
        ct.export_graphviz(ours, label="some")
    with pytest.raises(ValueError, match="All feature names must be strings"):
        ct.export_graphviz(ours, feature_names=list(range(ours.n_features_in_)))
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        ct.export_graphviz(ours, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="class_names has 3 names"):
        ct.export_graphviz(ours, class_names=["a", "b", "c"])


def test_export_graphviz_rejects_bad_numbers(classifiers):
    with pytest.raises(ValueError, match="precision must be at least 0"):
        ct.export_graphviz(classifiers[0], precision=-1)
    with pytest.raises(ValueError, match="max_depth must be an integer"):
        ct.export_graphviz(classifiers[0], max_depth=2.5)


@pytest.mark.parametrize("criterion", ["poisson", "absolute_error"])
def test_exports_match_sklearn_for_the_other_criteria(synthetic_regression, criterion):
    X, y = synthetic_regression
    X, y = X[:3000], np.abs(y[:3000])  # non-negative targets for Poisson
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=len(y))  # no exact ties
    params = {"criterion": criterion, "max_depth": 3}
    ours = ct.DecisionTreeRegressor(**params).fit(X, y, sample_weight=w)
    theirs = sklearn_stable_fit(sk.DecisionTreeRegressor, X, y, sample_weight=w, **params)
    assert ct.export_text(ours) == sk.export_text(theirs)
    for options in [{}, {"filled": True, "node_ids": True}]:
        assert ct.export_graphviz(ours, **options) == sk.export_graphviz(theirs, **options)
    assert_same_path(ours.decision_path(X), theirs.decision_path(X))


@pytest.mark.parametrize("options", [{}, {"filled": True}, {"proportion": True}, {"precision": 12}])
def test_export_graphviz_with_huge_weights(options):
    # Weights near 1e300: the weighted class counts do not fit an int64 (they
    # printed as -9223372036854775808 with "invalid value in cast" warnings), and
    # rounding them to 12 decimals overflowed.  They print as floats, as counts
    # that are not whole do.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    w = np.full(30, 1e300 / 32)
    classifier = ct.DecisionTreeClassifier(max_depth=2).fit(X, y, sample_weight=w)
    regressor = ct.DecisionTreeRegressor(max_depth=2).fit(X, 1e149 * X[:, 0], sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = ct.export_graphviz(classifier, **options)
        ct.export_graphviz(regressor, **options)
    assert "-9223372036854775808" not in text
    if not options.get("proportion"):
        counts = [float(c) for c in re.findall(r"value = \[([^,\]]+),", text)]
        expected = classifier.tree_.value[:, 0, 0] * classifier.tree_.weighted_n_node_samples
        np.testing.assert_allclose(counts, expected, rtol=1e-3)
