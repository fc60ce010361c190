"""Shared fixtures: random problems and bundled datasets, built on demand."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes

import climbing_trees as ct


def as_float32_exact(X: np.ndarray) -> np.ndarray:
    """Round X to float32 and back: scikit-learn's trees work in float32."""
    return np.asarray(X, dtype=np.float32).astype(np.float64)


def random_problem(seed: int, criterion: str, *, weighted: bool, n_levels: int = 5):
    """A small random split problem with many tied feature values.

    Returns ``(X, Y, w)`` with one-hot ``Y`` for classification criteria and a
    column for squared error.
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    d = int(rng.integers(1, 4))
    X = rng.integers(0, n_levels, size=(n, d)).astype(float)
    if criterion == "squared_error":
        Y = rng.normal(size=(n, 1))
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
        else:
            np.testing.assert_array_equal(value, state_b[name], err_msg=name)
