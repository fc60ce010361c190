"""plot_tree against scikit-learn's: the same boxes, texts, colours and edge labels.

Both libraries are fitted on float32-exact, tie-free data, where their trees are
equal (tests/test_sklearn_agreement.py), so the annotations they draw must say
the same.  Only the positions differ: scikit-learn lays trees out with the
Reingold-Tilford algorithm, this package with leaves evenly spaced.
"""

from __future__ import annotations

import sys

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from sklearn import tree as sk
from test_sklearn_agreement import sklearn_stable_fit

import climbing_trees as ct

matplotlib.use("Agg", force=True)
import matplotlib.pyplot as plt  # noqa: E402


@pytest.fixture
def axes():
    fig, ax = plt.subplots(figsize=(12, 6))
    yield ax
    plt.close(fig)


@pytest.fixture(scope="module")
def classifiers(breast_cancer):
    X, y = breast_cancer
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=len(y))  # weights: no gain ties
    ours = ct.DecisionTreeClassifier(max_depth=3).fit(X, y, sample_weight=w)
    theirs = sklearn_stable_fit(sk.DecisionTreeClassifier, X, y, sample_weight=w, max_depth=3)
    return ours, theirs


@pytest.fixture(scope="module")
def regressors(synthetic_regression):
    X, y = synthetic_regression
    ours = ct.DecisionTreeRegressor(max_depth=3, min_samples_leaf=50).fit(X, y)
    theirs = sklearn_stable_fit(sk.DecisionTreeRegressor, X, y, max_depth=3, min_samples_leaf=50)
    return ours, theirs


def drawn(boxes) -> list[tuple]:
    """What a reader sees of each annotation: its text and its box colour."""
    out = []
    for box in boxes:
        patch = box.get_bbox_patch()
        colour = None if patch is None else to_hex(patch.get_facecolor())
        out.append((box.get_text(), colour, box.get_horizontalalignment()))
    return out


OPTIONS = [
    {},
    {"filled": True},
    {"filled": True, "class_names": True},
    {"filled": True, "class_names": ["benign?", "malignant?"]},
    {"label": "root", "node_ids": True, "rounded": True},
    {"label": "none", "impurity": False},
    {"proportion": True, "precision": 1},
    {"max_depth": 1, "filled": True},
    {"max_depth": 0},
    {"feature_names": np.array([f"f{j}" for j in range(30)])},
    {"fontsize": 7},
]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_plot_tree_draws_what_sklearn_draws(classifiers, regressors, options, axes):
    for ours, theirs in (classifiers, regressors):
        if "class_names" in options and not hasattr(ours, "classes_"):
            continue
        if "feature_names" in options:
            options = {**options, "feature_names": options["feature_names"][: ours.n_features_in_]}
        mine = drawn(ct.plot_tree(ours, ax=axes, **options))
        fig, ax = plt.subplots(figsize=(12, 6))
        reference = drawn(sk.plot_tree(theirs, ax=ax, **options))
        plt.close(fig)
        assert mine == reference


def test_plot_tree_fits_the_font_and_keeps_boxes_inside(classifiers, axes):
    boxes = ct.plot_tree(classifiers[0], ax=axes)
    sizes = {box.get_fontsize() for box in boxes}
    assert len(sizes) == 1 and 0 < sizes.pop() < 30
    assert all(0 < x < 1 and 0 < y < 1 for x, y in (box.xyann for box in boxes[:1]))
    fixed = ct.plot_tree(classifiers[0], ax=axes, fontsize=9)
    assert {box.get_fontsize() for box in fixed} == {9}


def test_plot_tree_places_parents_midway_above_their_children(classifiers, axes):
    model = classifiers[0]
    tree = model.tree_
    drawn_ = ct.plot_tree(model, ax=axes)
    boxes = [b for b in drawn_ if b.get_text().strip() not in ("True", "False")]
    where = dict(zip(range(tree.node_count), (b.xyann for b in boxes), strict=True))
    for node in np.flatnonzero(tree.children_left >= 0):
        left, right = where[tree.children_left[node]], where[tree.children_right[node]]
        assert where[node][0] == pytest.approx((left[0] + right[0]) / 2)
        assert where[node][1] > left[1] == right[1]


def test_plot_tree_shows_categorical_splits_as_level_sets(penguins, axes):
    X, y = penguins[["island", "sex"]], penguins["species"]
    model = ct.DecisionTreeClassifier(max_depth=2).fit(X, y)
    boxes = ct.plot_tree(model, ax=axes, filled=True, class_names=list(model.classes_))
    root = boxes[0].get_text()
    assert root.startswith("island in {") and "class = " in root
    assert [b.get_text() for b in boxes if b.get_text().strip() in ("True", "False")] == [
        "True  ",
        "  False",
    ]


def test_plot_tree_of_a_lone_leaf(axes):
    model = ct.DecisionTreeRegressor().fit(np.zeros((4, 1)), np.ones(4))
    (box,) = ct.plot_tree(model, ax=axes, filled=True)
    assert box.get_text() == "squared_error = 0.0\nsamples = 4\nvalue = 1.0"


def test_plot_tree_without_matplotlib_says_how_to_install_it(classifiers, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install 'climbing-trees\[plot\]'"):
        ct.plot_tree(classifiers[0])


@pytest.mark.parametrize(
    "options, message",
    [
        ({"label": "some"}, "label must be"),
        ({"max_depth": -1}, "max_depth must be at least 0"),
        ({"precision": 1.5}, "precision must be an integer"),
        ({"filled": "yes"}, "filled must be True or False"),
        ({"fontsize": 0}, "fontsize must be a positive number"),
        ({"class_names": ["one"]}, "class_names has 1 names"),
        ({"feature_names": ["a"]}, "Length of feature_names, 1 does not match"),
    ],
)
def test_plot_tree_rejects_bad_options(classifiers, options, message, axes):
    with pytest.raises(ValueError, match=message):
        ct.plot_tree(classifiers[0], ax=axes, **options)


@pytest.mark.parametrize("container", [list, np.array, pd.Index])
def test_export_text_takes_arrays_of_names(classifiers, container):
    ours, theirs = classifiers
    features = container([f"f{j}" for j in range(ours.n_features_in_)])
    classes = container(["benign?", "malignant?"])
    text = ct.export_text(ours, feature_names=features, class_names=classes)
    assert text == sk.export_text(theirs, feature_names=features, class_names=classes)
    assert "f0" not in ct.export_text(ours) and "benign?" in text
