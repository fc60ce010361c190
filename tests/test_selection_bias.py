"""Claims of chapters 6 and 7 that concern the package: the tie between a numerical
and a categorical split, the geometry behind the sorted scan, and pooling rare levels
against selection bias."""

import numpy as np
import pytest
from scipy.spatial import ConvexHull

import climbing_trees as ct
from climbing_trees import (
    DecisionTreeClassifier,
    level_order,
    level_statistics,
    one_hot,
    prefix_sum_best_split,
)
from climbing_trees._growth import NodeSearch


@pytest.mark.parametrize("categorical_first", [True, False])
@pytest.mark.parametrize("method", ["one_vs_rest", "partition", "auto"])
def test_numerical_and_categorical_tie_goes_to_the_lower_column(categorical_first, method):
    """A 0/1 column and the categorical column it encodes offer the same split."""
    rng = np.random.default_rng(0)
    levels = rng.integers(0, 3, size=60)
    labels = (levels == 0) | (rng.uniform(size=60) < 0.1)
    indicator = (levels == 0).astype(float)
    columns = [levels.astype(float), indicator]
    is_categorical = np.array([True, False])
    if not categorical_first:
        columns, is_categorical = columns[::-1], is_categorical[::-1]
    X = np.column_stack(columns)
    Y, w = one_hot(labels.astype(int), 2), np.ones(60)
    search = NodeSearch(
        X,
        "gini",
        1,
        prefix_sum_best_split,
        is_categorical=is_categorical,
        n_categories=None,
        method=method,
    )
    split = search.best_split(np.arange(60), Y, w, ct.node_impurity(Y, w, "gini"))
    assert split.feature == 0
    # The estimator agrees.
    model = DecisionTreeClassifier(
        max_depth=1, categorical_features=[int(np.argmax(is_categorical))], categorical_split=method
    ).fit(X, labels)
    assert model.tree_.feature[0] == 0


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
def test_hull_vertices_are_the_sorted_prefixes_and_suffixes(seed, criterion):
    """Chapter 7's figure: the sets of levels as points (V_S, B_S); the vertices of
    their convex hull are the prefixes and suffixes of ``level_order``."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 9))
    codes = np.concatenate([np.arange(k), rng.integers(0, k, size=10 * k)])
    w = rng.uniform(0.5, 2.0, size=len(codes))
    if criterion == "gini":
        Y = one_hot((rng.uniform(size=len(codes)) < rng.uniform(size=k)[codes]).astype(int), 2)
    else:
        Y = (rng.normal(size=k)[codes] + rng.normal(size=len(codes)))[:, None]
    stats, counts = level_statistics(codes, Y, w, criterion)
    order = level_order(stats, counts, criterion)
    if criterion == "gini":
        level_points = np.column_stack([stats.sum(axis=1), stats[:, 1]])
    else:
        weight = np.bincount(codes, weights=w)
        level_points = np.column_stack([weight, np.bincount(codes, weights=w * Y[:, 0])])
    sets = ((np.arange(2**k)[:, None] >> np.arange(k)) & 1).astype(bool)
    hull = ConvexHull(sets.astype(float) @ level_points)
    cuts = {tuple(np.isin(np.arange(k), order[:j])) for j in range(k + 1)}
    cuts |= {tuple(np.isin(np.arange(k), order[j:])) for j in range(1, k)}
    vertices = {tuple(sets[v]) for v in hull.vertices}
    assert vertices <= cuts  # every vertex is a cut of the sorted order (step 4)
    means = level_points[:, 1] / level_points[:, 0]
    if len(np.unique(means)) == k:  # without ties, every cut is a vertex too
        assert vertices == cuts


def test_pooling_rare_levels_stops_a_noise_feature_winning_the_root():
    """Chapter 7's selection bias: 40 noise levels on 200 rows often beat an
    informative threshold; with min_samples_level=10 they never do."""
    wins = {1: 0, 10: 0}
    for seed in range(30):
        rng = np.random.default_rng(seed)
        x = rng.uniform(size=200)
        noise = rng.integers(0, 40, size=200).astype(float)
        y = (rng.uniform(size=200) < 0.5 + 0.15 * np.sign(x - 0.5)).astype(int)
        X = np.column_stack([x, noise])
        for msl in wins:
            stump = DecisionTreeClassifier(
                max_depth=1, categorical_features=[1], min_samples_level=msl
            ).fit(X, y)
            wins[msl] += stump.tree_.feature[0] == 1
    assert wins[1] >= 10
    assert wins[10] == 0
