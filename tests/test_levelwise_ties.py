"""The tie rule is written once: its score and gain forms make the same choice."""

from __future__ import annotations

import numpy as np
import pytest

from climbing_trees._ties import (
    choose_best,
    choose_best_gains,
    choose_best_rows,
    first_within,
    tie_tolerance,
)


def near_ties(seed, rows=200, width=9):
    """Scores a few tolerances apart, some exactly on the tolerance's edge."""
    rng = np.random.default_rng(seed)
    reference = rng.uniform(0.5, 4.0, size=rows)
    best = reference * rng.uniform(0.1, 0.9, size=rows)
    tol = tie_tolerance(reference, best)
    steps = rng.integers(0, 8, size=(rows, width)) / 4.0  # 0, 1/4, ... 7/4 of a tolerance
    scores = best[:, None] + steps * tol[:, None]
    scores[rng.random((rows, width)) < 0.2] = np.inf  # refused candidates
    return scores, reference


@pytest.mark.parametrize("seed", range(5))
def test_gain_form_chooses_as_score_form_exactly(seed):
    # g = -s (constant 0, weight 1): both forms compare the same numbers, so they
    # agree even on candidates exactly at the edge of the tolerance.
    scores, reference = near_ties(seed)
    best, first = choose_best_rows(scores, reference)
    g_best, g_first = choose_best_gains(-scores, 0.0, np.ones(len(scores)), reference)
    np.testing.assert_array_equal(first, g_first)
    np.testing.assert_array_equal(best, -g_best)
    finite = np.isfinite(best)
    for row in np.flatnonzero(finite)[:50]:
        assert first[row] == choose_best(scores[row], reference[row])


@pytest.mark.parametrize("seed", range(5))
def test_gain_form_with_weight_and_constant_chooses_as_score_form(seed):
    # g = c - W s: away from the edge (1/2 and 3/2 tolerances), the gains'
    # rounding cannot move a candidate across it, and the choice is the same.
    rng = np.random.default_rng(100 + seed)
    rows = 300
    reference = rng.uniform(0.5, 4.0, size=rows)
    best = reference * rng.uniform(0.1, 0.9, size=rows)
    tol = tie_tolerance(reference, best)
    steps = rng.choice([0.0, 0.5, 1.5, 3.0], size=(rows, 7))
    steps[np.arange(rows), rng.integers(0, 7, size=rows)] = 0.0  # each row has its best
    scores = best[:, None] + steps * tol[:, None]
    w_t = rng.uniform(1.0, 50.0, size=rows)
    const = w_t * reference  # as Gini's W_t, or squared error's sum of squares
    gains = const[:, None] - w_t[:, None] * scores
    _, first = choose_best_rows(scores, reference)
    _, g_first = choose_best_gains(gains, const, w_t, reference)
    np.testing.assert_array_equal(first, g_first)
    expected = np.argmax(steps <= 0.5, axis=1)  # the first within the tolerance
    np.testing.assert_array_equal(first, expected)


def test_first_within_in_both_directions():
    values = np.array([[5.0, 2.0 + 1e-13, 2.0, 1.0]])
    assert first_within(values, np.array([2.0]), np.array([1e-12])).tolist() == [1]
    assert first_within(values, np.array([1.0]), np.array([1e-12])).tolist() == [3]
    gains = -values
    best = np.array([-2.0])
    assert first_within(gains, best, np.array([1e-12]), larger_is_better=True).tolist() == [1]
