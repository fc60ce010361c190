"""Monotonic constraints level by level: each node's bounds and clipped value.

The rules are :mod:`climbing_trees._monotonic`'s, called on whole levels:
the search refuses the candidates that break a constraint
(:func:`climbing_trees._monotonic.allowed_splits`, in ``_prefix`` and
``_thresholds``); here the bounds pass from each level's split nodes to
their children (:func:`climbing_trees._monotonic.children_bounds`, from the
children's own values, as ``grow_tree`` takes them) and every node's value
is clipped to its bounds (:func:`climbing_trees._monotonic.clip_value_rows`).
"""

from __future__ import annotations

import numpy as np

from .._growth import default_split_search
from .._monotonic import check_constrained_fit, children_bounds, clip_value_rows


def check_constraints(monotonic_cst, criterion, Y, is_categorical, max_bins) -> None:
    """``grow_tree``'s checks of ``monotonic_cst`` (its errors), and the histogram
    search's refusal: its bin scans do not enforce constraints yet."""
    if monotonic_cst is None:
        return
    if max_bins is not None and np.any(monotonic_cst):
        raise ValueError(
            "splitter='hist' does not take monotonic_cst yet: its bin scans do not "
            "enforce monotonic constraints; use splitter='best' or 'random'."
        )
    default = default_split_search(criterion)
    check_constrained_fit(monotonic_cst, criterion, Y, is_categorical, "learn", default)


class LevelBounds:
    """The bounds of the current level's nodes, handed from level to level.

    ``cst``: each feature's constraint (a column of ``X``; the builders' sign).
    The next level holds the split nodes' left children, then their right
    children, in the order of the split nodes (as the random keys).
    """

    @classmethod
    def of(cls, fit) -> LevelBounds | None:
        """The bounds of a fit (its ``FitData``) with constraints, or None."""
        if fit.monotonic_cst is None or not fit.monotonic_cst.any():
            return None
        return cls(fit.monotonic_cst, not fit.regression)

    def __init__(self, cst: np.ndarray, classifier: bool, medians: bool = False):
        self.cst, self.classifier, self.medians = cst, classifier, medians
        self.lower, self.upper = np.array([-np.inf]), np.array([np.inf])
        self.parents = None  # the split nodes' (constraint, lower, upper)

    def enter(self, level) -> None:
        """Set ``level.lower`` and ``level.upper`` (rule 2) and clip ``level.value`` (rule 3)."""
        if self.parents is not None:
            cst, lower, upper = self.parents
            first = level.value[:, 0]  # the children's own values, before clipping
            k = cst.size
            bounds = children_bounds(cst, lower, upper, first[:k], first[k:], self.medians)
            self.lower = np.concatenate([bounds[0], bounds[2]])
            self.upper = np.concatenate([bounds[1], bounds[3]])
        level.lower, level.upper = self.lower, self.upper
        level.value = clip_value_rows(level.value, self.lower, self.upper, self.classifier)

    def leave(self, feature: np.ndarray, split: np.ndarray) -> None:
        """Remember the split nodes (``split``) and their ``feature`` for the next level."""
        self.parents = (self.cst[feature[split]], self.lower[split], self.upper[split])
