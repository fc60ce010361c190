"""Property tests: invariants of CART checked on many small random datasets (hypothesis).

Each property is a fact about the algorithm, not about one dataset:

* the order of the rows does not matter (the tie rules of chapter 4 never
  look at row order);
* only the *order* of a feature's values matters, so a strictly increasing
  transform of a feature gives the same partition of the training rows;
* an integer weight ``k`` is ``k`` copies of a row (and 0 is no row);
* a constant target gives a single leaf;
* class probabilities sum to 1;
* every leaf keeps at least ``min_samples_leaf`` rows;
* a deeper tree never has a larger training loss.

Datasets are kept small (at most 30 rows, 3 features) so that each test
runs a few dozen examples in about a second.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from climbing_trees import TREE_LEAF, DecisionTreeClassifier, DecisionTreeRegressor
from climbing_trees._criteria import entropy, gini

# derandomize: the same examples on every run (no flaky failures, nothing to
# store); database=None: no .hypothesis folder in the working tree.
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

CRITERIA = [
    (DecisionTreeClassifier, "gini"),
    (DecisionTreeClassifier, "entropy"),
    (DecisionTreeRegressor, "squared_error"),
    (DecisionTreeRegressor, "poisson"),
    (DecisionTreeRegressor, "absolute_error"),
]
CRITERION_IDS = ["gini", "entropy", "squared_error", "poisson", "absolute_error"]


def for_criterion(criterion: str, y: np.ndarray) -> np.ndarray:
    """Poisson deviance gets counts (``round(|y|)``); the others take ``y`` as drawn.

    Counts keep every sum exact.  With arbitrary floats, a target smaller than
    the rounding error of its node's sum vanishes from ``S - S_left``, and
    whether that side counts as "all zero" then depends on the order of the
    additions (see :func:`climbing_trees._criteria.poisson_impurity`).
    """
    if criterion != "poisson":
        return y
    y = np.round(np.abs(y))
    if not (y > 0).any():
        y[0] = 1.0  # a positive sum
    return y


@st.composite
def datasets(draw, task: str, min_rows: int = 2, max_rows: int = 30, distinct: bool = True):
    """``(X, y)``: continuous features; with ``distinct``, all values of X differ.

    Classification targets have 2 or 3 classes; regression targets are
    distinct floats, so that no two splits tie by coincidence.
    """
    n = draw(st.integers(min_rows, max_rows))
    d = draw(st.integers(1, 3))
    values = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, width=64)
    if not distinct:
        values = st.integers(-3, 3).map(float)
    X = draw(hnp.arrays(np.float64, (n, d), elements=values, unique=distinct))
    if task == "classifier":
        n_classes = draw(st.integers(2, 3))
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    else:
        y = draw(hnp.arrays(np.float64, n, elements=values, unique=True))
    return X, y


def task_of(Estimator) -> str:
    return "classifier" if Estimator is DecisionTreeClassifier else "regressor"


def outputs(model, X):
    if isinstance(model, DecisionTreeClassifier):
        return model.predict_proba(X)
    return model.predict(X)


def training_loss(model, X, y, sample_weight=None) -> float:
    """Weighted mean, over training rows, of the loss of the prediction of their leaf.

    Squared error, absolute error or Poisson deviance for the regressor; for the
    classifier, the impurity (Gini or entropy) of the class proportions of the
    row's leaf, which is the criterion CART minimises.  Computed from predictions, not from
    ``tree_.impurity``.
    """
    w = np.ones(len(X)) if sample_weight is None else sample_weight
    if model.criterion == "absolute_error":
        per_row = np.abs(y - model.predict(X))
    elif model.criterion == "poisson":  # half Poisson deviance of the leaf's mean
        m = model.predict(X)
        per_row = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0) / m), 0.0) - y + m
    elif isinstance(model, DecisionTreeRegressor):
        per_row = (y - model.predict(X)) ** 2
    else:
        impurity = gini if model.criterion == "gini" else entropy
        per_row = impurity(model.predict_proba(X))
    return float(np.sum(w * per_row) / np.sum(w))


def with_level_column(X: np.ndarray, data) -> pd.DataFrame:
    """``X`` as a DataFrame with an extra text column ``level`` (categorical, chapter 6)."""
    levels = data.draw(
        st.lists(
            st.sampled_from(["ant", "bee", "cat", "dog", "eel"]), min_size=len(X), max_size=len(X)
        )
    )
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["level"] = pd.Series(levels, dtype="str")
    return frame


def repeat_rows(X, counts):
    """Each row of ``X`` (array or DataFrame) repeated ``counts[i]`` times."""
    if isinstance(X, pd.DataFrame):
        return X.iloc[np.repeat(np.arange(len(X)), counts)].reset_index(drop=True)
    return np.repeat(X, counts, axis=0)


def partition(leaf_ids: np.ndarray) -> list[frozenset[int]]:
    """The groups of row indices that share a leaf, independent of the leaf numbering."""
    groups: dict[int, set[int]] = {}
    for row, leaf in enumerate(leaf_ids):
        groups.setdefault(int(leaf), set()).add(row)
    return sorted((frozenset(g) for g in groups.values()), key=min)


# ---------------------------------------------------------------- row order


@pytest.mark.parametrize(("Estimator", "criterion"), CRITERIA, ids=CRITERION_IDS)
@pytest.mark.parametrize("categorical", [False, True], ids=["numerical", "categorical"])
@SETTINGS
@given(data=st.data())
def test_shuffling_rows_leaves_predictions_unchanged(Estimator, criterion, categorical, data):
    X, y = data.draw(datasets(task_of(Estimator)))
    y = for_criterion(criterion, y)
    probe = np.vstack([X, X.mean(axis=0), X.min(axis=0) - 1.0, X.max(axis=0) + 1.0])
    if categorical:  # levels are recorded sorted, so their codes ignore row order too
        X = with_level_column(X, data)
        probe = pd.concat([X, X.iloc[:1].assign(level="never seen")], ignore_index=True)
    perm = np.array(data.draw(st.permutations(range(len(X)))))
    max_depth = data.draw(st.none() | st.integers(1, 4))
    model = Estimator(criterion=criterion, max_depth=max_depth).fit(X, y)
    shuffled = Estimator(criterion=criterion, max_depth=max_depth).fit(
        X.iloc[perm] if categorical else X[perm], y[perm]
    )
    np.testing.assert_allclose(outputs(shuffled, probe), outputs(model, probe), rtol=1e-12)
    # The same partition of the training rows, leaf for leaf.
    back = np.argsort(perm)
    assert partition(shuffled.apply(X.iloc[perm] if categorical else X[perm])[back]) == (
        partition(model.apply(X))
    )
    if criterion == "poisson":
        # Poisson scores are T - S log(S / W) with T = sum w y log y: with large
        # counts the subtraction cancels, and its rounding (which depends on the
        # order the rows are summed in) can exceed the tie tolerance between two
        # features that make the same partition, so the feature named may differ.
        return
    np.testing.assert_array_equal(shuffled.tree_.feature, model.tree_.feature)
    np.testing.assert_array_equal(shuffled.tree_.threshold, model.tree_.threshold)


# ---------------------------------------------------------------- monotone transforms

TRANSFORMS = {
    "affine": lambda x: 3.0 * x - 7.0,
    "cube": lambda x: x**3 + x,
    "exp": lambda x: np.exp(x / 200.0),
    "arctan": lambda x: np.arctan(x / 500.0),
}


@pytest.mark.parametrize(("Estimator", "criterion"), CRITERIA, ids=CRITERION_IDS)
@pytest.mark.parametrize("transform", TRANSFORMS)
@SETTINGS
@given(data=st.data())
def test_increasing_transform_of_a_feature_keeps_the_partition(
    Estimator, criterion, transform, data
):
    # Integer-valued features spaced by at least 1 stay distinct after every
    # transform above, so the transform is strictly increasing in floats too.
    X, y = data.draw(datasets(task_of(Estimator)))
    y = for_criterion(criterion, y)
    X = np.round(X)
    j = data.draw(st.integers(0, X.shape[1] - 1))
    X_t = X.copy()
    X_t[:, j] = TRANSFORMS[transform](X[:, j])
    assert np.array_equal(np.argsort(X[:, j], kind="stable"), np.argsort(X_t[:, j], kind="stable"))
    model = Estimator(criterion=criterion).fit(X, y)
    model_t = Estimator(criterion=criterion).fit(X_t, y)
    assert partition(model_t.apply(X_t)) == partition(model.apply(X))
    np.testing.assert_array_equal(model_t.tree_.feature, model.tree_.feature)
    np.testing.assert_allclose(outputs(model_t, X_t), outputs(model, X), rtol=1e-12)


# ---------------------------------------------------------------- weights


@pytest.mark.parametrize(("Estimator", "criterion"), CRITERIA, ids=CRITERION_IDS)
@pytest.mark.parametrize("categorical", [False, True], ids=["numerical", "categorical"])
@SETTINGS
@given(data=st.data())
def test_integer_weights_equal_repeated_rows(Estimator, criterion, categorical, data):
    distinct = data.draw(st.booleans())
    X, y = data.draw(datasets(task_of(Estimator), distinct=distinct))
    y = for_criterion(criterion, y)
    if categorical:
        X = with_level_column(X, data)
    w = data.draw(hnp.arrays(np.int64, len(X), elements=st.integers(0, 3)))
    w[data.draw(st.integers(0, len(X) - 1))] = 1  # at least one row counts
    if criterion == "poisson":  # ... and a positive target among the rows that count
        w[np.argmax(y)] = max(w[np.argmax(y)], 1)
    max_depth = data.draw(st.none() | st.integers(1, 4))
    weighted = Estimator(criterion=criterion, max_depth=max_depth).fit(X, y, sample_weight=w)
    # A level carried only by rows of weight 0 is, in both fits, a level no node has
    # seen: it follows the heavier child.
    repeated = Estimator(criterion=criterion, max_depth=max_depth).fit(
        repeat_rows(X, w), np.repeat(y, w)
    )
    if Estimator is DecisionTreeRegressor:
        # atol: a subnormal target (5e-324) keeps no relative precision in w * y
        np.testing.assert_allclose(weighted.predict(X), repeated.predict(X), rtol=1e-9, atol=1e-300)
    else:
        np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))
        if np.array_equal(weighted.classes_, repeated.classes_):
            np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X))
    assert weighted.get_n_leaves() == repeated.get_n_leaves()


# ---------------------------------------------------------------- constant target


@pytest.mark.parametrize("Estimator", [DecisionTreeClassifier, DecisionTreeRegressor])
@SETTINGS
@given(data=st.data())
def test_constant_target_gives_a_single_leaf(Estimator, data):
    X, _ = data.draw(datasets(task_of(Estimator), min_rows=1, distinct=False))
    if Estimator is DecisionTreeClassifier:
        label = data.draw(st.sampled_from([0, 7, "yes", True]))
    else:
        label = data.draw(st.floats(-1e150, 1e150, allow_nan=False))
    y = np.full(len(X), label)
    w = data.draw(st.none() | hnp.arrays(np.float64, len(X), elements=st.floats(0.01, 100.0)))
    model = Estimator().fit(X, y, sample_weight=w)
    assert model.tree_.node_count == 1
    assert model.get_depth() == 0
    assert model.tree_.impurity[0] == 0.0
    if Estimator is DecisionTreeClassifier:
        np.testing.assert_array_equal(model.predict(X), y)
    else:  # the weighted mean of equal values, up to rounding of w @ y / sum(w)
        np.testing.assert_allclose(model.predict(X), y, rtol=1e-15)


# ---------------------------------------------------------------- probabilities


@SETTINGS
@given(data=st.data())
def test_predict_proba_rows_sum_to_one(data):
    X, y = data.draw(datasets("classifier", distinct=data.draw(st.booleans())))
    w = data.draw(st.none() | hnp.arrays(np.float64, len(X), elements=st.floats(1e-3, 1e3)))
    criterion = data.draw(st.sampled_from(["gini", "entropy"]))
    max_depth = data.draw(st.none() | st.integers(1, 3))
    model = DecisionTreeClassifier(criterion=criterion, max_depth=max_depth)
    model.fit(X, y, sample_weight=w)
    probe = np.vstack(
        [X, data.draw(hnp.arrays(np.float64, (5, X.shape[1]), elements=st.floats(-2e3, 2e3)))]
    )
    proba = model.predict_proba(probe)
    assert proba.shape == (len(probe), len(np.unique(y)))
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(model.predict(probe), model.classes_[proba.argmax(axis=1)])


# ---------------------------------------------------------------- min_samples_leaf


@pytest.mark.parametrize(("Estimator", "criterion"), CRITERIA, ids=CRITERION_IDS)
@SETTINGS
@given(data=st.data())
def test_every_leaf_keeps_min_samples_leaf_rows(Estimator, criterion, data):
    X, y = data.draw(datasets(task_of(Estimator), distinct=data.draw(st.booleans())))
    y = for_criterion(criterion, y)
    min_samples_leaf = data.draw(st.integers(1, 8) | st.floats(0.01, 0.5))
    w = data.draw(st.none() | hnp.arrays(np.float64, len(X), elements=st.floats(0.1, 10.0)))
    model = Estimator(criterion=criterion, min_samples_leaf=min_samples_leaf)
    model.fit(X, y, sample_weight=w)
    tree = model.tree_
    leaves = np.flatnonzero(tree.children_left == TREE_LEAF)
    if isinstance(min_samples_leaf, float):
        min_samples_leaf = math.ceil(min_samples_leaf * len(X))
    if tree.node_count > 1:  # a lone root holds every row, however few
        assert np.all(tree.n_node_samples[leaves] >= min_samples_leaf)
    # the counts stored in the tree are the rows that apply() sends to each leaf
    counts = np.bincount(model.apply(X), minlength=tree.node_count)
    np.testing.assert_array_equal(counts[leaves], tree.n_node_samples[leaves])


# ---------------------------------------------------------------- depth


@pytest.mark.parametrize(("Estimator", "criterion"), CRITERIA, ids=CRITERION_IDS)
@SETTINGS
@given(data=st.data())
def test_training_loss_never_increases_with_depth(Estimator, criterion, data):
    X, y = data.draw(datasets(task_of(Estimator), distinct=data.draw(st.booleans())))
    y = for_criterion(criterion, y)
    w = data.draw(st.none() | hnp.arrays(np.float64, len(X), elements=st.floats(0.1, 10.0)))
    losses = [
        training_loss(
            Estimator(criterion=criterion, max_depth=depth).fit(X, y, sample_weight=w), X, y, w
        )
        for depth in range(1, 6)
    ]
    for shallow, deep in zip(losses, losses[1:], strict=False):
        assert deep <= shallow + 1e-9 * max(1.0, shallow)
