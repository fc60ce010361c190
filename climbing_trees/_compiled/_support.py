"""Which options the compiled builder grows (:func:`compiled_refusal`)."""

from __future__ import annotations

import numpy as np

from ._scores import CRITERION_CODES


def compiled_refusal(
    criterion, is_categorical=None, random_splits=None, missing_values="learn",
    monotonic_cst=None,
):  # fmt: skip
    """Why :func:`grow_tree_compiled` cannot grow a tree with these options, or None.

    It grows numerical features with the criteria of sums (Gini, entropy,
    squared error, Poisson; one output or several), sample weights, every
    stopping rule (``builder_for`` leaves ``max_leaf_nodes`` to the
    level-wise builder, which is faster there), ``max_features``, both
    splitters and missing values learned as scikit-learn learns them.
    Absolute error (:mod:`._absolute`) with the best splitter and without
    monotonic constraints.  Categorical features, absolute error with random
    thresholds or ``monotonic_cst``, and surrogate splits are left to the
    other builders (:func:`climbing_trees._levelwise._support.builder_for`
    chooses).

    >>> compiled_refusal("gini") is None, compiled_refusal("absolute_error") is None
    (True, True)
    >>> compiled_refusal("absolute_error", monotonic_cst=np.array([1])).split(";")[0]
    "grow_tree_compiled does not enforce monotonic_cst with criterion='absolute_error'"
    """
    if missing_values != "learn":
        return (
            f"grow_tree_compiled learns where missing values go (missing_values='learn'), "
            f"not missing_values={missing_values!r}; grow the tree with grow_tree."
        )
    if str(criterion) == "absolute_error":
        if monotonic_cst is not None and bool(np.any(monotonic_cst)):
            return (
                "grow_tree_compiled does not enforce monotonic_cst with "
                "criterion='absolute_error'; grow the tree with grow_tree."
            )
        if random_splits is not None and random_splits.splitter == "random":
            return (
                "grow_tree_compiled searches criterion='absolute_error' with "
                "splitter='best' only; grow the tree with grow_tree."
            )
    elif str(criterion) not in CRITERION_CODES:
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
