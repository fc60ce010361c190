"""The compiled scan of the chapter "Compiling the loop" against chapter 3's loop."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from climbing_trees import incremental_best_split
from climbing_trees._compiled_lesson import first_call_seconds, squared_error_scan


def scan(x, y, w):
    """The compiled scan of an unsorted feature: sort it first (stably)."""
    order = np.argsort(x, kind="stable")
    return squared_error_scan(x[order], y[order], w[order])


def assert_same_as_loop(x, y, w):
    threshold, score = scan(x, y, w)
    reference = incremental_best_split(x[:, None], y[:, None], w, "squared_error")
    assert threshold == reference.threshold
    assert score == pytest.approx(reference.score, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("weighted", [False, True])
def test_tie_free_data(seed, weighted):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    x, y = rng.normal(size=n), rng.normal(size=n) + 100.0  # far from 0: centring
    w = rng.uniform(0.1, 3.0, size=n) if weighted else np.ones(n)
    assert_same_as_loop(x, y, w)


@pytest.mark.parametrize("seed", range(40))
def test_integer_features_with_many_equal_values(seed):
    # Few distinct values, so most positions lie between equal values; continuous
    # targets, so no two candidates score alike and chapter 4's tie rule agrees.
    rng = np.random.default_rng(1_000 + seed)
    n = int(rng.integers(3, 200))
    x = rng.integers(0, 6, size=n).astype(float)
    if np.all(x == x[0]):
        x[0] += 1.0
    y = rng.normal(size=n)
    w = rng.uniform(0.1, 3.0, size=n)
    assert_same_as_loop(x, y, w)


def test_never_splits_between_equal_values():
    # Without rule 1 the best cut would be between the two 1.0s (0 error left).
    x = np.array([0.0, 1.0, 1.0, 2.0])
    y = np.array([0.0, 0.0, 10.0, 10.0])
    threshold, _ = squared_error_scan(x, y, np.ones(4))
    assert threshold in (0.5, 1.5)
    assert_same_as_loop(x, y, np.ones(4))


def test_threshold_between_adjacent_floats_is_the_lower_value():
    a = np.nextafter(1.0, 2.0)
    b = np.nextafter(a, 2.0)
    # A far value keeps the range wide: a and b alone are constant (rule 6, which
    # the lesson leaves out and incremental_best_split applies).
    x, y = np.array([a, a, b, 9.0]), np.array([0.0, 0.0, 5.0, 5.0])
    assert squared_error_scan(x, y, np.ones(4))[0] == a
    assert_same_as_loop(x, y, np.ones(4))


def test_a_constant_feature_has_no_split():
    threshold, score = squared_error_scan(np.ones(5), np.arange(5.0), np.ones(5))
    assert np.isnan(threshold) and score == np.inf
    assert incremental_best_split(np.ones((5, 1)), np.arange(5.0)[:, None], np.ones(5),
                                  "squared_error") is None  # fmt: skip


def test_compiled_and_interpreted_give_the_same_bits():
    rng = np.random.default_rng(7)
    x = np.sort(rng.normal(size=500))
    y, w = rng.normal(size=500), rng.uniform(0.5, 2.0, size=500)
    assert squared_error_scan(x, y, w) == squared_error_scan.py_func(x, y, w)


def test_compiled_without_the_gil_and_cached():
    assert squared_error_scan.targetoptions["nogil"] is True
    assert squared_error_scan._cache.__class__.__name__ == "FunctionCache"


def in_a_fresh_process(**environment):
    """first_call_seconds() in a new interpreter (spawned) with ``environment`` set."""
    saved = {name: os.environ.get(name) for name in environment}
    os.environ.update(environment)
    try:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(1, mp_context=context) as pool:
            return pool.submit(first_call_seconds).result()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name)
            else:
                os.environ[name] = value


def test_a_fresh_process_loads_the_cache_and_compiles_without_it(tmp_path):
    squared_error_scan(np.ones(2), np.ones(2), np.ones(2))  # the cache exists now
    seconds, hits = in_a_fresh_process()
    assert hits == 1 and seconds > 0
    assert in_a_fresh_process(NUMBA_CACHE_DIR=str(tmp_path))[1] == 0
