"""Which options the compiled builder grows (:func:`compiled_refusal`)."""

from __future__ import annotations

import numpy as np

from ._scores import CRITERION_CODES


def compiled_refusal(criterion, is_categorical=None, random_splits=None, missing_values="learn"):
    """Why :func:`grow_tree_compiled` cannot grow a tree with these options, or None.

    It grows numerical features with the criteria of sums (Gini, entropy,
    squared error, Poisson; one output or several), sample weights, every
    stopping rule (``builder_for`` leaves ``max_leaf_nodes`` to the
    level-wise builder, which is faster there), ``max_features``, both
    splitters and missing values learned as scikit-learn learns them.
    Categorical features, absolute error and surrogate splits are left to the other builders
    (:func:`climbing_trees._levelwise._support.builder_for` chooses).

    >>> compiled_refusal("gini") is None
    True
    >>> compiled_refusal("absolute_error").split(";")[0]
    "grow_tree_compiled does not support criterion='absolute_error'"
    """
    if missing_values != "learn":
        return (
            f"grow_tree_compiled learns where missing values go (missing_values='learn'), "
            f"not missing_values={missing_values!r}; grow the tree with grow_tree."
        )
    if str(criterion) not in CRITERION_CODES:
        return (
            f"grow_tree_compiled does not support criterion={str(criterion)!r}; grow the "
            "tree with grow_tree_levelwise or grow_tree."
        )
    if is_categorical is not None and bool(np.any(is_categorical)):
        return (
            "grow_tree_compiled splits numerical features only; grow a tree with "
            "categorical features with grow_tree_levelwise or grow_tree."
        )
    return None
