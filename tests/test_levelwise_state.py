"""The level-wise state: what a fit fixes once, and how a level is summarised."""

import dataclasses

import numpy as np
import pytest

from climbing_trees._levelwise._state import FitData, fit_data, level_of, summaries_for


def _fit(criterion, Y):
    X = np.arange(12.0).reshape(6, 2)
    return fit_data(
        X, Y, np.ones(6), criterion, max_depth=None, min_samples_leaf=1, min_weight_leaf=0.0,
        is_categorical=None, n_categories=None, min_samples_split=2,
        min_impurity_decrease=0.0, categorical_split="auto", min_samples_level=1,
        max_categorical_candidates=10, random_splits=None,
    )  # fmt: skip


def test_fit_data_is_frozen():
    assert FitData.__dataclass_params__.frozen
    fit = _fit("squared_error", np.arange(6.0)[:, None])
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.unit = False


@pytest.mark.parametrize(
    "criterion,expected",
    [("gini", "_class_summaries"), ("squared_error", "_regression_summaries"),
     ("poisson", "_regression_summaries"), ("absolute_error", "_absolute_summaries")],
)  # fmt: skip
def test_the_summaries_are_chosen_once_per_fit(criterion, expected):
    Y = np.eye(2)[[0, 1, 0, 1, 1, 0]] if criterion == "gini" else np.arange(1.0, 7.0)[:, None]
    fit = _fit(criterion, Y)
    assert fit.summaries is summaries_for(criterion)
    assert fit.summaries.__name__ == expected
    # level_of asks the fit's choice, not the criterion.
    calls = []

    def spy(*args):
        calls.append(1)
        return fit.summaries(*args)

    sizes = np.array([6])
    level = level_of(dataclasses.replace(fit, summaries=spy), np.arange(6), sizes, None, 0)
    assert calls == [1]
    root = level_of(fit, np.arange(6), sizes, None, 0)
    np.testing.assert_array_equal(level.value, root.value)
    np.testing.assert_array_equal(level.impurity, root.impurity)
