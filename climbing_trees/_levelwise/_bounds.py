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

from .._criteria import segment_sums
from .._growth import default_split_search
from .._monotonic import (
    HIST_REFUSES_CONSTRAINTS,
    check_constrained_fit,
    children_bounds,
    clip_value_rows,
    refused_candidates,
)


def check_constraints(monotonic_cst, criterion, Y, is_categorical, max_bins, n_features):
    """``grow_tree``'s checks of ``monotonic_cst`` (its errors) and the constraints to
    enforce (:func:`climbing_trees._monotonic.check_constrained_fit`), and the
    histogram search's refusal: its bin scans do not enforce constraints yet."""
    if monotonic_cst is None:
        return None
    if max_bins is not None and np.any(monotonic_cst):
        raise ValueError(HIST_REFUSES_CONSTRAINTS)
    default = default_split_search(criterion)
    return check_constrained_fit(
        monotonic_cst, criterion, Y, is_categorical, "learn", default, n_features
    )


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
        return cls(fit.monotonic_cst, not fit.regression, fit.value_cols)

    def __init__(self, cst: np.ndarray, classifier: bool, value_cols):
        # No absolute error here (the level-wise builder refuses it under
        # constraints), so the middle value is always the mean's (medians=False).
        self.cst, self.classifier = cst, classifier
        self.value_cols = value_cols  # each row's [w y, w], padded (FitData)
        self.lower, self.upper = np.array([-np.inf]), np.array([np.inf])
        self.parents = None  # the split nodes' (constraint, lower, upper)

    def enter(self, level) -> None:
        """Set ``level.lower`` and ``level.upper`` (rule 2), clip ``level.value`` (rule
        3) and sum each node's ``[w y, w]`` (``level.value_totals``, for the searches)."""
        if self.parents is not None:
            cst, lower, upper = self.parents
            first = level.value[:, 0]  # the children's own values, before clipping
            k = cst.size
            bounds = children_bounds(cst, lower, upper, first[:k], first[k:])
            self.lower = np.concatenate([bounds[0], bounds[2]])
            self.upper = np.concatenate([bounds[1], bounds[3]])
        level.lower, level.upper = self.lower, self.upper
        level.value_totals = value_totals(self.value_cols, level)
        level.value = clip_value_rows(level.value, self.lower, self.upper, self.classifier)

    def leave(self, feature: np.ndarray, split: np.ndarray) -> None:
        """Remember the split nodes (``split``) and their ``feature`` for the next level."""
        self.parents = (self.cst[feature[split]], self.lower[split], self.upper[split])


def value_totals(value_cols, level) -> np.ndarray:
    """Each node's sums of ``value_cols`` (each row's ``[w y, w]``), rows added in index
    order as ``grow_tree`` adds them: ``(n_nodes, 2)``."""
    columns = [col.take(level.index_rows) for col in value_cols]
    return segment_sums(columns, level.node_of_pos, level.n_nodes)


def refuse_monotonic(block, gains, idx, s):
    """Refuse (gain ``-inf``) the candidates of a prefix-sum ``block`` (``_prefix._Block``)
    on constrained features whose children's values break the constraint or the
    node's bounds, in place: ``gains`` of the slots ``s``, rows sorted ``idx``.

    Rule 1 of :mod:`climbing_trees._monotonic`
    (:func:`climbing_trees._monotonic.refused_candidates`) on the values
    ``grow_tree`` computes: the prefix sums of each row's ``[w y, w]``
    (``fit.value_cols``) in the feature's order, the missing rows' sums
    added where they go left, the right side's from the node's sums.
    Checked before the choice: the search picks the best allowed candidate.
    Returns ``gains, idx``, what ``_Block.gains_of`` returns.
    """
    fit, level = block.shared.fit, block.shared.level
    if level.value_totals is None:  # no constraint
        return gains, idx
    cst = fit.monotonic_cst[fit.num_features[block.feat[:, s]]]  # (c, f)
    groups = np.nonzero(cst)
    if not groups[0].size:
        return gains, idx
    L = block.L
    rows = idx[groups]  # (g, L): present rows sorted, the missing ones, padding
    node = groups[0]
    present = block.n_present[:, s][groups]
    missing_part = np.arange(L) >= present[:, None]
    left, missing = [], []
    for col in fit.value_cols:
        values = col.take(rows)
        left.append(np.cumsum(values, axis=-1)[:, :-1])
        # The missing rows' sum, added one by one in order (zeros before them).
        missing.append(np.cumsum(np.where(missing_part, values, 0.0), axis=-1)[:, -1:])
    totals = level.value_totals[block.nodes[node]]  # (g, 2)
    lower = level.lower[block.nodes[node], None]
    upper = level.upper[block.nodes[node], None]
    sub = gains[groups]  # (g, passes, L - 1)
    for side in range(sub.shape[1]):  # missing rows right, then left
        sums = [p + m for p, m in zip(left, missing, strict=True)] if side else left
        with np.errstate(invalid="ignore"):  # inf - inf bounds: NaN, refused
            refused = refused_candidates(
                cst[groups][:, None], np.stack(sums, axis=-1), totals[:, None, :], lower, upper
            )
        sub[:, side][refused] = -np.inf
    gains[groups] = sub
    return gains, idx

