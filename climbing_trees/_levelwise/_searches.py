"""The split searches of a fit, chosen once: each one object with ``search``.

Each search returns its candidates as :class:`LevelSplits`: a numerical
search each node's best numerical split, a categorical search each node's
best set of every categorical feature.  The loop then makes one choice over
all of them (``grow_tree``'s tie rule by feature index,
:meth:`LevelSplits.best_of`).  :func:`searches_for` picks them once
per fit from its options, so the loop of :func:`grow_tree_levelwise` never
tests which variant it runs (as LightGBM's ``FeatureHistogram::ResetFunc``).

=====================  ==========================================================
search                 its candidates
=====================  ==========================================================
``PrefixSums``         every threshold, by segmented prefix sums (:mod:`._prefix`)
``AbsoluteError``      every threshold, through a wavelet matrix (:mod:`._absolute`)
``RandomThresholds``   one drawn threshold per node and feature (:mod:`._thresholds`)
``CategoricalSets``    sorted scan and one-vs-rest sets (:mod:`._categorical_search`)
``RandomSets``         one drawn set per node and feature (:mod:`._categorical_search`)
=====================  ==========================================================
"""

from __future__ import annotations

import numpy as np

from ._absolute import _absolute_error_splits
from ._categorical_search import (
    _categorical_splits,
    _feature_candidates,
    _random_categorical_splits,
)
from ._orders import Orders
from ._prefix import _best_splits, _scan_settings
from ._state import FitData, Level, LevelSplits
from ._thresholds import _random_numeric_splits


class NumericalSearch:
    """A search over the numerical features: ``search(level) -> [LevelSplits]``.

    Each variant's ``winners(level, splits)`` writes every node's winner into
    ``splits`` (features numbered among the numerical ones).
    """

    def __init__(self, fit: FitData, orders: Orders):
        self.fit, self.orders = fit, orders

    def search(self, level: Level) -> list[LevelSplits]:
        """Each node's best numerical split, as the one candidate of this search."""
        splits = self.winners(level, LevelSplits.none(level.n_nodes))
        # The winners' features among the numerical ones, as X's column indices.
        num_features, feature = self.fit.num_features, splits.feature
        chosen = num_features[np.maximum(feature, 0)]
        splits.feature = np.where(feature >= 0, chosen, -1)
        return [splits]


class PrefixSums(NumericalSearch):
    """Every threshold, scored by segmented prefix sums over the sorted orders.

    ``free_phi``: the level's per-row statistics may be dropped once copied
    into the search's columns (no other search of the fit reads them); it
    lowers the peak memory of a regression fit by one copy of them.
    """

    def __init__(self, fit: FitData, orders: Orders, free_phi: bool = False):
        super().__init__(fit, orders)
        self.settings = _scan_settings(fit, orders)  # what no level changes
        self.free_phi = free_phi

    def winners(self, level: Level, splits: LevelSplits) -> LevelSplits:
        fit, orders = self.fit, self.orders
        # Per-row statistics as flat columns, padded with a zero at row n.
        cols = fit.class_cols
        if fit.regression:
            cols = np.zeros((level.phi.shape[1], fit.n + 1))
            cols[:, level.index_rows] = level.phi.T
            if self.free_phi:  # cols holds the same numbers
                level.phi = None
        return _best_splits(fit, orders, level, cols, self.settings, splits)


class AbsoluteError(NumericalSearch):
    """Every threshold, absolute error: the wavelet matrix's scores."""

    def winners(self, level: Level, splits: LevelSplits) -> LevelSplits:
        return _absolute_error_splits(self.fit, self.orders, level, splits)


class RandomThresholds(NumericalSearch):
    """One drawn threshold per node and drawn feature (``splitter="random"``)."""

    def winners(self, level: Level, splits: LevelSplits) -> LevelSplits:
        winner = _random_numeric_splits(self.fit, self.orders, level)
        splits.feature, splits.threshold, splits.score, splits.missing_left = winner
        return splits


class CategoricalSearch:
    """The categorical features: one candidate per feature and node (its best set)."""

    def __init__(self, fit: FitData, orders: Orders):
        self.fit = fit

    def search(self, level: Level) -> list[LevelSplits]:
        fit = self.fit

        def split_feature(j, n_levels):
            return self.feature_splits(level, fit.codes[j][level.index_rows], n_levels, j)

        return [
            _feature_candidates(level, j, int(fit.n_categories[j]), split_feature)
            for j in fit.cat_features
        ]


class CategoricalSets(CategoricalSearch):
    """Each node's best set: sorted scan and/or one-vs-rest (:func:`_categorical_splits`)."""

    def feature_splits(self, level: Level, codes, n_levels: int, j: int):
        return _categorical_splits(self.fit, level, codes, n_levels)


class RandomSets(CategoricalSearch):
    """One drawn set per node (``splitter="random"``, :func:`_random_categorical_splits`)."""

    def feature_splits(self, level: Level, codes, n_levels: int, j: int):
        return _random_categorical_splits(self.fit, level, codes, n_levels, j)


def searches_for(fit: FitData, orders: Orders) -> list:
    """The searches of this fit, in the order they run: numerical, then categorical."""
    searches = []
    if fit.num_features.size:
        if fit.random_splitter:
            searches.append(RandomThresholds(fit, orders))
        elif fit.absolute:
            searches.append(AbsoluteError(fit, orders))
        else:
            # Only a categorical search reads the level's rows of statistics after it.
            searches.append(PrefixSums(fit, orders, free_phi=not fit.cat_features.size))
    if fit.cat_features.size:
        categorical = RandomSets if fit.random_splitter else CategoricalSets
        searches.append(categorical(fit, orders))
    return searches
