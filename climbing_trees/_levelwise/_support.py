"""Which builder grows which options: the one place the estimators ask."""

from __future__ import annotations

import numpy as np

from .._criteria import STATISTICS_CRITERIA
from .._monotonic import HIST_REFUSES_CONSTRAINTS


def levelwise_refusal(
    criterion, is_categorical=None, random_splits=None, missing_values="learn",
    monotonic_cst=None,
):  # fmt: skip
    """Why :func:`grow_tree_levelwise` cannot grow a tree with these options, or None.

    Surrogate splits (chapter 9) are searched node by node; a criterion
    without sufficient statistics (absolute error) only where
    :func:`levelwise_absolute_error` allows, and not under monotonic
    constraints (``monotonic_cst``: the children's medians of every candidate
    are left to ``grow_tree``).  The estimators grow the tree with
    :func:`climbing_trees.grow_tree` wherever this returns a reason, and
    :func:`grow_tree_levelwise` raises it.

    >>> levelwise_refusal("gini") is None, levelwise_refusal("gini", missing_values="surrogate")
    (True, 'surrogate splits are searched node by node; grow this tree with grow_tree instead.')
    """
    if missing_values == "surrogate":
        return "surrogate splits are searched node by node; grow this tree with grow_tree instead."
    if missing_values == "fractional":  # a row can sit in both children (chapter 9)
        return "fractional rows are carried node by node; grow this tree with grow_tree instead."
    absolute = criterion == "absolute_error"
    if absolute and monotonic_cst is not None and bool(np.any(monotonic_cst)):
        return (
            "grow_tree_levelwise does not enforce monotonic_cst with "
            "criterion='absolute_error'; grow this tree with grow_tree instead."
        )
    if criterion not in STATISTICS_CRITERIA and not absolute:
        return (
            f"grow_tree_levelwise does not support criterion={criterion!r}, which has no "
            "sufficient statistics; grow the tree with grow_tree instead."
        )
    if absolute and not levelwise_absolute_error(is_categorical, random_splits):
        return (
            "grow_tree_levelwise searches criterion='absolute_error' on numerical "
            "features with splitter='best' only; grow this tree with grow_tree instead."
        )
    return None


def levelwise_absolute_error(is_categorical, random_splits) -> bool:
    """Whether :func:`grow_tree_levelwise` grows an absolute-error tree with these options.

    Numerical features with the best splitter: their candidates go through
    :func:`climbing_trees.split_absolute_errors` level by level.  Categorical
    features (scored node by node from their rows) and random thresholds are
    left to :func:`climbing_trees.grow_tree`.
    """
    categorical = is_categorical is not None and bool(np.any(is_categorical))
    random_splitter = random_splits is not None and random_splits.splitter == "random"
    return not categorical and not random_splitter


def builder_for(
    criterion, is_categorical, random_splits, missing_values, max_leaf_nodes, max_surrogates=None,
    max_bins=None, monotonic_cst=None,
):  # fmt: skip
    """The builder that grows a tree with these options, and the options only it takes.

    Returns ``(builder, extra_kwargs)``.  The compiled builder
    (:func:`climbing_trees.grow_tree_compiled`) grows every tree it can
    (:func:`climbing_trees._compiled.compiled_refusal`: numerical features,
    the criteria of sums and absolute error with the best splitter,
    ``missing_values="learn"``) without
    ``max_leaf_nodes``: the same trees, fastest.  Otherwise the level-wise
    builder (:func:`grow_tree_levelwise`) grows every tree it
    can: it grows the same trees faster than ``grow_tree``, and with
    ``max_leaf_nodes`` it leaves unsearched what the cut to that many leaves
    surely removes (``extra_kwargs`` carries it).
    Wherever :func:`levelwise_refusal` gives a reason (surrogate splits and
    fractional missing values, chapter 9; absolute error on categorical
    features or with random thresholds) the depth-first builder
    :func:`climbing_trees.grow_tree` grows the tree, with the surrogate
    options in ``extra_kwargs``; the caller cuts that tree back to
    ``max_leaf_nodes`` afterwards.  Monotonic constraints (chapter 5,
    :mod:`climbing_trees._monotonic`) go the same way to whichever builder
    grows the options (every builder enforces them, but the level-wise one
    with absolute error: ``grow_tree`` there); ``extra_kwargs`` carries them.
    A histogram tree (``max_bins``, ``splitter="hist"``) is grown level-wise
    only: :func:`hist_refusal` says which options it cannot take, and it
    refuses monotonic constraints yet.

    >>> builder, extra = builder_for("gini", None, None, "learn", 4)
    >>> builder.__name__, extra
    ('grow_tree_levelwise', {'max_leaf_nodes': 4})
    >>> builder_for("gini", None, None, "learn", None)[0].__name__
    'grow_tree_compiled'
    >>> builder, extra = builder_for("gini", None, None, "surrogate", 4, max_surrogates=5)
    >>> builder.__name__, extra
    ('grow_tree', {'missing_values': 'surrogate', 'max_surrogates': 5})
    >>> builder_for("gini", None, None, "fractional", None)[1]
    {'missing_values': 'fractional'}
    >>> builder, extra = builder_for("gini", None, None, "learn", None,
    ...                              monotonic_cst=np.array([1, 0]))
    >>> builder.__name__, extra["monotonic_cst"].tolist()
    ('grow_tree_compiled', [1, 0])
    """
    from .._compiled import compiled_refusal, grow_tree_compiled
    from .._growth import grow_tree  # imported here: _growth is a sibling of this package
    from ._grow import grow_tree_levelwise  # imported here: _grow asks this module

    constrained = monotonic_cst is not None and bool(np.any(monotonic_cst))
    if constrained and max_bins is not None:
        raise ValueError(HIST_REFUSES_CONSTRAINTS)
    # Monotonic constraints (chapter 5): passed to whichever builder grows the tree.
    monotonic = {"monotonic_cst": monotonic_cst} if constrained else {}
    if max_bins is not None:  # splitter="hist": level-wise, or a clear error
        refusal = hist_refusal(criterion, is_categorical, missing_values)
        if refusal is not None:
            raise ValueError(refusal)
        extra = {"max_bins": max_bins}
        if max_leaf_nodes is not None:
            extra["max_leaf_nodes"] = max_leaf_nodes
        return grow_tree_levelwise, extra

    # With max_leaf_nodes the level-wise builder leaves unsearched what the cut
    # removes: faster than growing the whole tree compiled (20,000 x 8, 64 leaves:
    # 144 ms against 296 ms).
    compiled = (
        compiled_refusal(criterion, is_categorical, random_splits, missing_values, monotonic_cst)
        is None
    )
    if compiled and max_leaf_nodes is None:
        return grow_tree_compiled, monotonic
    refusal = levelwise_refusal(
        criterion, is_categorical, random_splits, missing_values, monotonic_cst=monotonic_cst
    )
    if refusal is not None:
        extra = {}
        if missing_values == "surrogate":  # surrogate splits: depth first only (chapter 9)
            extra = {"missing_values": "surrogate", "max_surrogates": max_surrogates}
        if missing_values == "fractional":  # C4.5's fractions: depth first only (chapter 9)
            extra = {"missing_values": "fractional"}
        return grow_tree, {**extra, **monotonic}
    extra = {} if max_leaf_nodes is None else {"max_leaf_nodes": max_leaf_nodes}
    return grow_tree_levelwise, {**extra, **monotonic}


def hist_refusal(criterion, is_categorical=None, missing_values="learn"):
    """Why ``splitter="hist"`` cannot grow a tree with these options, or None.

    Categorical features are searched from the level's rows as with
    ``splitter="best"`` (``is_categorical`` is not refused).

    >>> hist_refusal("squared_error") is None
    True
    """
    if missing_values != "learn":
        return (
            "splitter='hist' learns where missing values go (missing_values='learn'); "
            f"missing_values={missing_values!r} needs splitter='best'."
        )
    if criterion not in STATISTICS_CRITERIA:
        return (
            f"splitter='hist' sums per-bin statistics, which criterion={criterion!r} does "
            "not have; use splitter='best' for it."
        )
    return None
