"""The level-wise state: what a fit fixes once, and how a level is summarised."""

import dataclasses

import numpy as np
import pytest

from climbing_trees._levelwise._state import (
    FitData,
    LevelSplits,
    fit_data,
    level_of,
    summaries_for,
)
from climbing_trees._ties import TIE_RTOL


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


def _candidate(feature, score, threshold=np.nan, set_node=(), set_level=()):
    n = len(feature)
    return LevelSplits(
        np.asarray(feature, dtype=np.intp), np.asarray(threshold, dtype=float) + np.zeros(n),
        np.asarray(score, dtype=float), np.zeros(n, dtype=bool), np.ones(n, dtype=bool),
        np.asarray(set_node, dtype=np.intp), np.asarray(set_level, dtype=np.intp),
    )  # fmt: skip


def test_best_of_makes_one_choice_over_every_search():
    """Near ties never chain: feature 1 is within the tolerance of the best (2) and
    comes first; feature 0 is not.  A pairwise fold in feature order would keep 0
    against 1 (a tie), then lose 0 to 2, and pick 2."""
    tol = TIE_RTOL * 4.0  # the tolerance relative to the parent's score 4
    numerical = _candidate([0], [1.0 + 0.9 * tol], threshold=0.5)
    # A categorical search's candidates, one per feature, handed in out of order.
    second = _candidate([2], [1.0 - 0.9 * tol], set_node=[0], set_level=[3])
    first = _candidate([1], [1.0], set_node=[0], set_level=[7])
    found = LevelSplits.best_of([second, numerical, first], np.array([4.0]))
    assert found.feature.tolist() == [1]
    assert found.score.tolist() == [1.0]
    assert np.isnan(found.threshold[0]) and found.unseen_left.tolist() == [True]
    assert found.set_level.tolist() == [7]  # the winner's set only


def test_best_of_lowest_feature_wins_exact_ties_and_refusals_lose():
    a = _candidate([0, -1, 3], [2.0, np.inf, 1.0], threshold=[0.5, 0.5, 2.5])
    b = _candidate([1, 2, -1], [2.0, 1.0, np.inf], set_node=[1, 0], set_level=[4, 5])
    found = LevelSplits.best_of([b, a], np.array([4.0, 4.0, 4.0]))
    assert found.feature.tolist() == [0, 2, 3]
    assert found.threshold[0] == 0.5 and np.isnan(found.threshold[1])
    assert found.threshold[2] == 2.5
    assert found.set_node.tolist() == [1] and found.set_level.tolist() == [4]
