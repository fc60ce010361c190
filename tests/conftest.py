"""Shared fixtures: random problems and bundled datasets, built on demand."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes

import climbing_trees as ct
from climbing_trees._benchmark import as_float32

as_float32_exact = as_float32  # the package's rounding, under the tests' older name


def random_problem(seed: int, criterion: str, *, weighted: bool, n_levels: int = 5):
    """A small random split problem with many tied feature values.

    Returns ``(X, Y, w)`` with one-hot ``Y`` for classification criteria and a
    column for squared error; for Poisson deviance, non-negative counts with
    many zeros (so that splits leaving a child without a positive target,
    which are refused, come up often).
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    d = int(rng.integers(1, 4))
    X = rng.integers(0, n_levels, size=(n, d)).astype(float)
    if criterion == "squared_error":
        Y = rng.normal(size=(n, 1))
    elif criterion == "poisson":
        Y = rng.poisson(0.8, size=(n, 1)).astype(float)
        Y[0] = 1.0  # a positive sum
    else:
        Y = ct.one_hot(rng.integers(0, 3, size=n), 3)
    w = rng.uniform(0.1, 3.0, size=n) if weighted else np.ones(n)
    return X, Y, w


@pytest.fixture(scope="session")
def breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return as_float32_exact(X), y


@pytest.fixture(scope="session")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return as_float32_exact(X), y


@pytest.fixture(scope="session")
def synthetic_regression():
    """20,000 rows, 8 continuous features, continuous target: no ties."""
    rng = np.random.default_rng(20_000)
    X = as_float32_exact(rng.normal(size=(20_000, 8)))
    y = np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=20_000)
    return X, y


def assert_same_tree(a: ct.Tree, b: ct.Tree) -> None:
    """Assert two fitted trees are identical, array by array (every dataclass field)."""
    for field in dataclasses.fields(ct.Tree):
        np.testing.assert_array_equal(
            getattr(a, field.name), getattr(b, field.name), err_msg=field.name
        )


EXACT_FIELDS = (
    "children_left",
    "children_right",
    "feature",
    "n_node_samples",
    "missing_go_to_left",
    "surrogate_feature",
    "surrogate_threshold",
    "surrogate_below_left",
)
FLOAT_FIELDS = ("value", "impurity", "weighted_n_node_samples", "missing_left_fraction")
SET_FIELDS = (
    "categories_unseen_left",
    "categories_start",
    "categories_stop",
    "categories_levels",
    "categories_width",
    "surrogate_categories_start",
    "surrogate_categories_stop",
    "surrogate_categories_levels",
)


def assert_equivalent(fast: ct.Tree, slow: ct.Tree) -> None:
    """Same structure and thresholds bit for bit; floating values to rounding."""
    for name in EXACT_FIELDS:
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name), err_msg=name)
    # Thresholds are copied from the data: equal bits (NaN marks categorical nodes).
    np.testing.assert_array_equal(fast.threshold, slow.threshold, err_msg="threshold")
    for name in SET_FIELDS:  # categorical sets: the compact arrays, exactly
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name), err_msg=name)
    np.testing.assert_array_equal(fast.categories_left, slow.categories_left)
    np.testing.assert_array_equal(fast.surrogate_levels, slow.surrogate_levels)
    for name in FLOAT_FIELDS:
        np.testing.assert_allclose(
            getattr(fast, name), getattr(slow, name), rtol=1e-12, atol=1e-12, err_msg=name
        )
    # Every field of the dataclass is covered above.
    covered = set(EXACT_FIELDS) | set(FLOAT_FIELDS) | set(SET_FIELDS) | {"threshold"}
    assert covered == {f.name for f in dataclasses.fields(ct.Tree)}


def fitted_state(estimator) -> dict:
    """The learned attributes of an estimator (names ending in ``_``), for comparisons."""
    return {k: v for k, v in vars(estimator).items() if k.endswith("_")}


def assert_same_fitted_state(a, b) -> None:
    """Assert two estimators learned the same attributes, arrays compared exactly."""
    state_a, state_b = fitted_state(a), fitted_state(b)
    assert state_a.keys() == state_b.keys()
    for name, value in state_a.items():
        if isinstance(value, ct.Tree):
            assert_same_tree(value, state_b[name])
        elif isinstance(value, list):  # categories_: one array of levels (or None) per feature
            assert len(value) == len(state_b[name]), name
            for mine, theirs in zip(value, state_b[name], strict=True):
                np.testing.assert_array_equal(mine, theirs, err_msg=name)
        else:
            np.testing.assert_array_equal(value, state_b[name], err_msg=name)


@pytest.fixture
def mixed_frame():
    """A DataFrame mixing float, int, category, str, object and bool columns, and a target.

    The target depends on groups of levels, so categorical splits matter.
    """
    import pandas as pd

    rng = np.random.default_rng(6)
    n = 300
    colour = rng.choice(["red", "green", "blue", "black", "white"], size=n)
    size = rng.choice(["S", "M", "L"], size=n)
    shape = rng.choice(["round", "square", "star", "oval"], size=n)
    flag = rng.random(n) < 0.4
    x = rng.normal(size=n)
    count = rng.integers(0, 10, size=n)
    signal = np.isin(colour, ["red", "black"]) + (size == "L") + flag + 0.5 * x
    X = pd.DataFrame(
        {
            "x": x,
            "count": count,
            "colour": pd.Categorical(colour),
            "size": pd.Series(size, dtype="str"),
            "shape": pd.Series(shape, dtype=object),
            "flag": flag,
        }
    )
    y_class = np.where(signal + 0.3 * rng.normal(size=n) > 1.2, "yes", "no")
    y_reg = signal + 0.3 * rng.normal(size=n)
    return X, y_class, y_reg


@pytest.fixture(scope="session")
def penguins():
    """Palmer penguins without rows with missing values: island and sex are text columns."""
    from palmerpenguins import load_penguins

    return load_penguins().dropna().reset_index(drop=True)
