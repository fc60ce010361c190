"""Randomised trees: a feature subset per node, and random thresholds.

The book's chapter "From one tree to many" explains this module.

Two knobs of scikit-learn's trees make a tree random, and a forest needs them:

* ``max_features``: each node searches a random subset of the features;
* ``splitter="random"``: each searched feature gets one threshold drawn
  uniformly between the node's smallest and largest value (extremely
  randomised trees, Geurts, Ernst and Wehenkel 2006), and the best of those
  candidates wins.

**Per-node draws.**  The builders visit nodes in different orders (depth
first, or a whole level at once), so a single stream of random numbers would
give them different trees.  Instead every node has a 64-bit *key*: the root's
comes from ``random_state``, and a child's is a hash of its parent's key and
its side (:func:`child_keys`).  Every random number a node uses is a hash of
its key, a stream name and an index (:func:`uniforms`), so it depends only
on the node's path from the root, never on the visiting order: both builders
draw the same numbers and grow the same tree, array by array.  The hash is
SplitMix64's finaliser (Steele, Lea and Flood 2014), vectorised in numpy.

**The rules** (scikit-learn's where it documents one):

* The features' draws put them in a random order, and a node searches the
  non-constant ones among the first ``max_features``; if all of those are
  constant, it searches the first non-constant feature after them (none if
  every feature is constant).  This is scikit-learn's rule: its search draws
  features one at a time, a constant one still counts towards
  ``max_features``, and it goes on drawing only while every feature drawn so
  far is constant.  So each feature is among the drawn ones with
  probability ``max_features / n_features``, and a node with constant
  features may search fewer than ``max_features``.
* A numerical threshold is ``lo * (1 - u) + hi * u`` for a uniform ``u`` in
  [0, 1) and the node's range ``[lo, hi]`` of the *present* values; a value
  landing on ``hi`` becomes ``lo`` (scikit-learn's rule), so both sides get
  rows.  Rows with ``x <= threshold`` go left.
* Missing values (NaN, chapter 9) under a random threshold go to a side
  drawn by a fair coin from the node's key, one coin per feature
  (scikit-learn's ``RandomSplitter`` since 1.6 also draws the side, and
  does not try "missing alone on one side").  Where the present values are
  all equal, the threshold sends every present row left and the missing
  rows go right, with no coin (:func:`missing_sides`): the one split of
  such a feature.  scikit-learn flips its coin there too and, half the
  time, sends every row left and finds no split.  Where the node has no missing
  value of the feature, rows missing it at predict time go to the child with
  more training rows, as with ``splitter="best"``.
* A feature is *constant* in a node when it has no present value there, or
  when none is missing and its present values span at most
  ``FEATURE_THRESHOLD`` (scikit-learn's rule, for both splitters and both
  builders: rule 6 of :mod:`climbing_trees._ties`,
  :func:`climbing_trees._ties.constant_features`).  A feature whose present
  values are equal but which has missing values is not constant: it can
  still split "present against missing".
* A categorical feature (chapter 6) draws a random split of its present
  levels: each goes left when its draw is below 1/2; if that leaves a side
  empty, the level with the smallest draw goes left (all were right) or the
  one with the largest goes right (all were left).  Rare levels pooled by
  ``min_samples_level`` move as one.  Unseen levels go to the heavier side,
  as for every categorical split.  The draws are made for the (node, level)
  pairs present only, never for every level of every node.
* Among the drawn candidates the best score wins, with the usual tie rule
  (lowest feature index), and a candidate that breaks ``min_samples_leaf``
  or ``min_weight_fraction_leaf`` is skipped.

scikit-learn's own draws (its ``rand_r`` stream, consumed in visiting order)
cannot be reproduced, so only ``max_features=None`` with ``splitter="best"``
gives scikit-learn's tree.
"""

from __future__ import annotations

import numbers
import threading
from dataclasses import dataclass

import numpy as np

from ._categorical import (
    CategoricalSplit,
    _level_sums,
    best_categorical_split,
    expand_pooled,
    pool_rare_levels,
)
from ._criteria import (
    _centred,
    children_score,
    impurity_from_statistics,
    node_statistics,
    output_absolute_error,
    total_weight,
)
from ._exact_weights import fixed_weights, refused_sides
from ._missing import missing_goes_left
from ._monotonic import allowed_splits, child_values
from ._naive import Split
from ._ties import (  # noqa: F401 (the constant rule, re-exported for the level-wise draws)
    FEATURE_THRESHOLD,
    best_of,
    choose_best,
    constant_features,
    narrow_ranges,
    refused_weights,
)

#: Stream names: which random numbers a node draws (salts of the hash).
FEATURES, THRESHOLDS, LEVELS, MISSING = 1, 2, 3, 4
_LEFT, _RIGHT = 0x5851F42D4C957F2D, 0x14057B7EF767814F
_GOLDEN = 0x9E3779B97F4A7C15
_MASK = (1 << 64) - 1


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: a bijection of uint64 that scrambles every bit."""
    z = np.asarray(z, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def child_keys(keys: np.ndarray, left: bool) -> np.ndarray:
    """Keys of the left (or right) children of nodes with keys ``keys``."""
    salt = np.uint64(_LEFT if left else _RIGHT)
    with np.errstate(over="ignore"):
        return _mix(np.asarray(keys, dtype=np.uint64) + salt)


def uniforms(keys: np.ndarray, n: int, stream: int, offset: int = 0):
    """Uniform numbers in [0, 1), ``(len(keys), n)``: draws ``offset + i`` of a stream.

    >>> keys = np.array([1, 2], dtype=np.uint64)
    >>> u = uniforms(keys, 3, FEATURES)
    >>> u.shape, bool(np.all((u >= 0) & (u < 1)))
    ((2, 3), True)
    >>> bool(np.all(uniforms(keys[1:], 3, FEATURES) == u[1:]))  # per node, order-free
    True
    """
    keys = np.asarray(keys, dtype=np.uint64)
    return pair_uniforms(keys[:, None], np.arange(n)[None, :], stream, offset)


def pair_uniforms(keys, index, stream: int, offset: int = 0) -> np.ndarray:
    """Draw ``offset + index`` of a stream for each key, elementwise (broadcast).

    ``pair_uniforms(keys[:, None], np.arange(n), s, o)`` is
    ``uniforms(keys, n, s, o)``; with one key per (node, level) pair it
    draws only the pairs present.  The stream's base is a hash of the key
    and the stream name; draw ``i`` hashes the base plus ``i + 1`` times
    SplitMix64's odd increment ``_GOLDEN`` (2**64 over the golden ratio).
    Of the 64 bits, the top 53 make a float in [0, 1).

    >>> keys = np.array([5, 9], dtype=np.uint64)
    >>> bool(np.all(pair_uniforms(keys, np.array([2, 0]), LEVELS)
    ...             == uniforms(keys, 3, LEVELS)[[0, 1], [2, 0]]))
    True
    """
    keys = np.asarray(keys, dtype=np.uint64)
    index = np.asarray(index, dtype=np.uint64)
    with np.errstate(over="ignore"):
        base = _mix(keys ^ np.uint64((stream * _GOLDEN) & _MASK))
        z = _mix(base + (index + np.uint64(offset + 1)) * np.uint64(_GOLDEN))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


@dataclass(frozen=True)
class RandomSplits:
    """What makes a tree random: features per node, splitter, the root's key.

    The estimators make one from ``max_features``, ``splitter`` and
    ``random_state`` (:func:`random_splits`); the builders take it as
    ``random_splits``.

    Parameters
    ----------
    max_features : int
        Features drawn at each node.
    splitter : {"best", "random"}
        Best thresholds of the drawn features, or one random threshold each.
    key : int
        The root's 64-bit key; every node's draws derive from it.

    Examples
    --------
    The same key grows the same random tree:

    >>> from climbing_trees import grow_tree
    >>> X = np.array([[0.0, 5.0], [1.0, 3.0], [2.0, 4.0], [3.0, 1.0]])
    >>> Y, w = np.array([[0.0], [0.0], [1.0], [1.0]]), np.ones(4)
    >>> spec = RandomSplits(max_features=1, splitter="random", key=7)
    >>> tree = grow_tree(X, Y, w, criterion="squared_error", random_splits=spec)
    >>> int(tree.feature[0]), round(float(tree.threshold[0]), 3)
    (1, 2.759)
    >>> again = grow_tree(X, Y, w, criterion="squared_error", random_splits=spec)
    >>> bool(np.array_equal(tree.threshold, again.threshold))
    True
    """

    max_features: int
    splitter: str
    key: int

    def root_keys(self) -> np.ndarray:
        return np.array([self.key], dtype=np.uint64)


def feature_ranges(X_rows: np.ndarray, starts: np.ndarray, axis: int = 0):
    """Each node's range of every feature, and which features are constant there.

    ``X_rows`` holds the rows node by node, node ``i``'s from ``starts[i]``,
    along ``axis`` (0: one row per sample; 1: one row per feature, the layout
    the level-wise builder keeps).  Returns ``(lo, hi, missing, constant)``,
    each ``(nodes, d)``: the smallest and largest *present* value (NaN when
    none is), whether a value is missing, and whether the feature is constant
    (:func:`constant_features`).  Both builders call it (``grow_tree`` with
    one node, ``starts = [0]``).

    >>> X = np.array([[1.0, np.nan, 2.0], [1.0, 3.0, np.nan], [1.0, 3.0, np.nan]])
    >>> lo, hi, missing, constant = feature_ranges(X, np.array([0]))
    >>> lo.tolist(), missing.tolist(), constant.tolist()
    ([[1.0, 3.0, 2.0]], [[False, True, True]], [[True, False, False]])
    """
    nan = np.isnan(X_rows)
    if nan.any():  # fmin, fmax: NaN only if all are
        lo = np.fmin.reduceat(X_rows, starts, axis=axis)
        hi = np.fmax.reduceat(X_rows, starts, axis=axis)
        missing = np.logical_or.reduceat(nan, starts, axis=axis)
    else:  # the same numbers, faster
        lo = np.minimum.reduceat(X_rows, starts, axis=axis)
        hi = np.maximum.reduceat(X_rows, starts, axis=axis)
        missing = np.zeros(lo.shape, dtype=bool)
    if axis == 1:
        lo, hi, missing = lo.T, hi.T, missing.T
    return lo, hi, missing, constant_features(lo, hi, missing)


def missing_sides(keys: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per node and feature: do missing rows go left of a random threshold?

    A fair coin drawn from the node's key, where the present values differ
    (``lo < hi``, each ``(nodes, d)``).  Where they are all equal the drawn
    threshold is ``lo`` and sends every present row left, so the missing
    rows go right: the one side that splits the node ("present against
    missing"; scikit-learn's coin sends them left half the time and then
    finds no split there).

    >>> keys = np.arange(400, dtype=np.uint64)
    >>> lo, hi = np.zeros((400, 2)), np.array([[1.0, 0.0]] * 400)
    >>> side = missing_sides(keys, lo, hi)
    >>> bool(abs(side[:, 0].mean() - 0.5) < 0.1), bool(side[:, 1].any())
    (True, False)
    """
    coin = uniforms(keys, np.shape(lo)[1], MISSING) < 0.5
    with np.errstate(invalid="ignore"):
        return coin & (np.asarray(lo) < np.asarray(hi))


def threshold_below(x: np.ndarray, threshold, missing_left) -> np.ndarray:
    """Which rows go left: ``x <= threshold``, and missing ``x`` where ``missing_left``."""
    return np.where(np.isnan(x), missing_left, x <= threshold)


def missing_directions(missing, missing_left, n_left, n_rows) -> np.ndarray:
    """``missing_go_to_left`` of random-threshold candidates, ``(nodes, d)``.

    The drawn side where the node has missing values of the feature; else
    the child with more training rows (the right one on equal counts).
    """
    return missing_goes_left(missing, missing_left, n_left, np.asarray(n_rows)[:, None])


def draw_features(keys: np.ndarray, constant: np.ndarray, max_features: int):
    """Which features each node searches: bool array like ``constant``, ``(nodes, d)``.

    The non-constant features among the ``max_features`` with the smallest
    draws; where all of those are constant, the non-constant feature with the
    smallest draw (none if every feature is constant).  Constant features
    count towards ``max_features``, as in scikit-learn.

    >>> keys = np.arange(4000, dtype=np.uint64)
    >>> constant = np.zeros((4000, 5), dtype=bool)
    >>> constant[:, 4] = True  # drawn as often as the others, never searched
    >>> mask = draw_features(keys, constant, 2)
    >>> sorted(set(mask.sum(axis=1).tolist())), bool(mask[:, 4].any())
    ([1, 2], False)
    >>> bool(np.all(np.abs(mask[:, :4].mean(axis=0) - 2 / 5) < 0.03))
    True
    """
    constant = np.asarray(constant, dtype=bool)
    if max_features >= constant.shape[1]:
        return ~constant
    order = draw_order(keys, constant.shape[1])
    mask = np.zeros(constant.shape, dtype=bool)
    mask[np.arange(len(order))[:, None], order[:, :max_features]] = True
    mask &= ~constant
    empty = np.flatnonzero(~mask.any(axis=1) & ~constant.all(axis=1))
    if empty.size:  # every drawn feature constant: draw on to a non-constant one
        constant_in_order = np.take_along_axis(constant[empty], order[empty], axis=1)
        mask[empty, order[empty, np.argmin(constant_in_order, axis=1)]] = True
    return mask


def draw_order(keys: np.ndarray, n_features: int) -> np.ndarray:
    """Each node's features in the order of its draws (smallest first), ``(nodes, d)``."""
    u = uniforms(keys, n_features, FEATURES)
    return np.argsort(u, axis=1, kind="stable")


def random_thresholds(keys: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """One threshold per node and feature, uniform in ``[lo, hi)`` (``lo`` if constant).

    ``lo`` and ``hi`` have shape ``(nodes, d)``.  The convex combination
    cannot overflow, even for ``lo = -1e308, hi = 1e308``.

    >>> t = random_thresholds(np.arange(1000, dtype=np.uint64),
    ...                       np.zeros((1000, 1)), np.ones((1000, 1)))
    >>> bool(t.min() >= 0 and t.max() < 1), bool(abs(t.mean() - 0.5) < 0.05)
    (True, True)
    """
    u = uniforms(keys, lo.shape[1], THRESHOLDS)
    t = np.minimum(np.maximum(lo * (1.0 - u) + hi * u, lo), hi)
    return np.where(t >= hi, lo, t)


def random_pair_sets(keys, pair_node, pair_level, feature: int) -> np.ndarray:
    """Random left sets over the (node, level) pairs of one categorical feature.

    ``pair_node`` and ``pair_level`` list the levels each node may move
    (sorted by node, then level; ``keys`` has one entry per node).  Returns,
    per pair, whether its level goes left.  See the module docstring for the
    rule; the draws are those of :func:`uniforms` at the levels' codes, so
    the set does not depend on which other nodes share the level.
    """
    pair_node = np.asarray(pair_node, dtype=np.intp)
    n_nodes = len(keys)
    keys = np.asarray(keys, dtype=np.uint64)[pair_node]
    u = pair_uniforms(keys, pair_level, LEVELS, offset=int(feature) * 1_000_003)
    left = u < 0.5
    n_pairs = np.bincount(pair_node, minlength=n_nodes)
    n_left = np.bincount(pair_node, weights=left, minlength=n_nodes)
    none_left = (n_left == 0) & (n_pairs > 0)
    all_left = (n_left == n_pairs) & (n_pairs > 0)
    first = np.cumsum(n_pairs) - n_pairs  # each node's first pair
    if none_left.any():  # the smallest draw goes left (the lowest level on ties)
        lowest = np.lexsort((u, pair_node))
        left[lowest[first[none_left]]] = True
    if all_left.any():  # the largest draw goes right (the lowest level on ties)
        highest = np.lexsort((-u, pair_node))
        left[highest[first[all_left]]] = False
    return left


def random_level_sets(keys: np.ndarray, feature: int, present: np.ndarray) -> np.ndarray:
    """:func:`random_pair_sets` as a ``(nodes, k)`` mask over the ``present`` levels."""
    node, level = np.nonzero(present)
    left = np.zeros(present.shape, dtype=bool)
    left[node, level] = random_pair_sets(keys, node, level, feature)
    return left


def pair_set_scores(stats, counts, pair_node, left, n_nodes, criterion, min_samples_leaf):
    """Score of each node's left set (``inf`` if not allowed), from its pairs.

    ``stats`` and ``counts`` are the pairs' level statistics and row counts,
    ``left`` their sides; each side's statistics are summed pair by pair in
    order (``bincount``), so both builders, which call this function on the
    same pairs, get the same bits.  Returns ``(score, w_left, w_right)``.
    """

    def side(mask):
        return np.stack(
            [
                np.bincount(pair_node, weights=np.where(mask, s, 0.0), minlength=n_nodes)
                for s in stats.T
            ],
            axis=1,
        )

    left_stats, right_stats = side(left), side(~left)
    n_left = np.bincount(pair_node, weights=np.where(left, counts, 0), minlength=n_nodes)
    n_right = np.bincount(pair_node, weights=np.where(left, 0, counts), minlength=n_nodes)
    total = total_weight(side(np.ones_like(left)), criterion)
    score, w_left, w_right = children_score(left_stats, right_stats, criterion, total)
    allowed = (
        (n_left >= min_samples_leaf)
        & (n_right >= min_samples_leaf)
        & ~refused_weights(w_left, w_right, min_samples_leaf)
        & np.isfinite(score)
    )
    return np.where(allowed, score, np.inf), w_left, w_right


def resolve_max_features(max_features, n_features: int) -> int:
    """Number of features each node searches, by scikit-learn's rules.

    ``None``: all; an int: that many (1 to ``n_features``); a float in
    (0, 1]: that fraction, ``max(1, int(max_features * n_features))``;
    ``"sqrt"`` and ``"log2"``: ``max(1, int(sqrt(n_features)))`` and
    ``max(1, int(log2(n_features)))``.

    >>> [resolve_max_features(m, 10) for m in (None, 3, 0.25, "sqrt", "log2")]
    [10, 3, 2, 3, 3]
    """
    hint = "use None (all features), an int in [1, n_features], a float in (0, 1], 'sqrt' or 'log2'"
    if max_features is None:
        return n_features
    if isinstance(max_features, str):
        if max_features == "sqrt":
            return max(1, int(np.sqrt(n_features)))
        if max_features == "log2":
            return max(1, int(np.log2(n_features)))  # scikit-learn's own expression
        raise ValueError(f"max_features={max_features!r} is invalid; {hint}.")
    if isinstance(max_features, bool) or not isinstance(max_features, numbers.Real):
        raise ValueError(f"max_features={max_features!r} is invalid; {hint}.")
    if isinstance(max_features, numbers.Integral):
        if not 1 <= max_features <= n_features:
            raise ValueError(
                f"max_features={max_features!r} is invalid for X with {n_features} "
                f"features; {hint}."
            )
        return int(max_features)
    if not 0.0 < max_features <= 1.0:  # NaN fails this too
        raise ValueError(f"max_features={max_features!r} is invalid; {hint}.")
    return max(1, int(max_features * n_features))


def check_splitter(splitter) -> str:
    """``splitter`` as given, or a clear error."""
    if not isinstance(splitter, str) or splitter not in ("best", "random", "hist"):
        raise ValueError(
            f"splitter={splitter!r} is invalid; use 'best' (the best threshold of "
            "each searched feature), 'random' (one random threshold per feature) or "
            "'hist' (the best boundary between bins of each searched feature)."
        )
    return splitter


def _is_seed(random_state) -> bool:
    """Whether ``random_state`` is an int seed; an int out of range is an error."""
    if not isinstance(random_state, numbers.Integral) or isinstance(random_state, bool):
        return False
    if not 0 <= random_state < 2**32:
        raise ValueError(
            f"random_state={random_state!r} is invalid; use an int in [0, 2**32 - 1], "
            "a numpy RandomState or Generator, or None."
        )
    return True


_SEEDED = threading.local()


def seeded_random_state(seed) -> np.random.RandomState:
    """``np.random.RandomState(seed)``, without the cost of a new generator.

    A new ``RandomState`` first seeds itself from the operating system's
    entropy (about 0.2 ms, more than a small tree's fit) and is then seeded
    again; this reseeds one generator kept per thread instead, which gives the
    same numbers.  Use it at once: the next call in the same thread reseeds it.

    >>> seeded_random_state(3).randint(100, size=3).tolist()
    [24, 3, 56]
    >>> np.random.RandomState(3).randint(100, size=3).tolist()
    [24, 3, 56]
    """
    rng = getattr(_SEEDED, "rng", None)
    if rng is None:
        rng = _SEEDED.rng = np.random.RandomState()
    rng.seed(seed)
    return rng


def root_key(random_state) -> int:
    """The root's key from ``random_state`` (None, int, RandomState or Generator).

    ``None`` draws from numpy's global generator (a different tree each fit),
    an int always gives the same key, and a ``RandomState`` or ``Generator``
    is advanced by one draw, as scikit-learn's estimators use them.
    """
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63))
    if random_state is None:
        rng = np.random.mtrand._rand
    elif _is_seed(random_state):
        rng = seeded_random_state(random_state)
    elif isinstance(random_state, np.random.RandomState):
        rng = random_state
    else:
        raise ValueError(
            f"random_state={random_state!r} is invalid; use None, an int, "
            "a numpy RandomState or a numpy Generator."
        )
    high, low = rng.randint(0, 2**31, size=2)
    return (int(high) << 31) | int(low)


def random_splits(estimator, n_features: int, random_state) -> RandomSplits | None:
    """The estimator's randomness, or ``None`` when its tree is deterministic.

    ``random_state`` is the caller's object, not a clone's copy, so a shared
    ``RandomState`` advances from fit to fit as in scikit-learn.
    ``max_features`` covering every feature with ``splitter="best"`` draws
    nothing: the tree is the deterministic one, whatever ``random_state``.
    """
    k = resolve_max_features(estimator.max_features, n_features)
    splitter = check_splitter(estimator.splitter)
    if splitter == "hist":  # the draws of "best": histograms change the search only
        splitter = "best"
    deterministic = splitter == "best" and k >= n_features
    if deterministic and _is_seed(random_state):
        return None  # a valid seed, and nothing to draw or to consume
    key = root_key(random_state)  # validated (and consumed) in every other case
    return None if deterministic else RandomSplits(k, splitter, key)


# --- the node's search in grow_tree -------------------------------------------------------


def threshold_sides(below, stats, w, node, n_nodes):
    """Left statistics, row counts and positive-weight row counts of drawn thresholds.

    ``below[j, i]`` says whether row ``i`` goes left on feature ``j``; the
    rows come node by node (``node[i]`` is row ``i``'s node), each node's in
    index order, and ``stats[c, i]`` is their statistic ``c`` (``phi.T``).
    Each left sum is a ``bincount`` over (node, side) cells,
    one feature at a time, which adds a cell's rows one by one in row order, so
    :func:`grow_tree` (one node) and :func:`grow_tree_levelwise` (a level)
    get the same bits.  Returns arrays of shape ``(nodes, d, m)``,
    ``(nodes, d)`` and ``(nodes, d)``.
    """
    n_features = below.shape[0]
    columns = [np.ascontiguousarray(column) for column in stats]
    positive = w > 0
    all_positive = bool(positive.all())
    left = np.empty((n_nodes, n_features, len(columns)))
    n_left = np.empty((n_nodes, n_features), dtype=np.intp)
    positive_left = n_left if all_positive else np.empty_like(n_left)
    ones = [bool(np.all(column == 1.0)) for column in columns]  # sum: the row count
    side = 2 * node  # bin 2 * node + 1: the node's left side
    for j in range(n_features):
        bins = side + below[j]
        n_left[:, j] = np.bincount(bins, minlength=2 * n_nodes)[1::2]
        for c, column in enumerate(columns):
            if ones[c]:
                left[:, j, c] = n_left[:, j]
            else:
                left[:, j, c] = np.bincount(bins, weights=column, minlength=2 * n_nodes)[1::2]
        if not all_positive:
            positive_left[:, j] = np.bincount(bins[positive], minlength=2 * n_nodes)[1::2]
    return left, n_left, positive_left


def threshold_scores(
    left, n_left, positive_left, node_stats, n_rows, n_positive, criterion, msl,
    q_left=None, q_node=None,
):  # fmt: skip
    """Scores ``(W_L I_L + W_R I_R) / W`` of drawn thresholds; ``inf`` where refused.

    ``left`` is ``(nodes, d, m)``, ``node_stats`` ``(nodes, m)`` and
    ``n_rows``, ``n_positive`` (rows, rows of positive weight) per node.  A
    candidate is refused when a side has fewer than ``msl`` rows, no row of
    positive weight (counted: the right side's weight is a difference and can
    round to a tiny positive number), less than ``leaf_weight(msl)``, or an
    infinite impurity (Poisson).  Both builders call it.  The weights are
    compared in exact fixed point (:func:`climbing_trees._exact_weights.refused_sides`)
    when ``q_left`` (``(nodes, d)``) and ``q_node`` (per node) are given.
    """
    node_stats = node_stats[:, None, :]
    right = node_stats - left
    total = total_weight(node_stats, criterion)
    scores, w_left, w_right = children_score(left, right, criterion, total)
    n_right = n_rows[:, None] - n_left
    if q_left is None:
        refused = refused_weights(w_left, w_right, msl)
    else:
        refused = refused_sides(q_left, q_node[:, None] - q_left, msl)
        refused |= (w_left <= 0) | (w_right <= 0)  # a float side at or below 0: NaN
    allowed = (
        (n_left >= msl)
        & (n_right >= msl)
        & (positive_left > 0)
        & (positive_left < n_positive[:, None])
        & ~refused
        & np.isfinite(scores)
    )
    return np.where(allowed, scores, np.inf)


def random_numeric_split(
    X, Y, sample_weight, criterion, min_samples_leaf, thresholds, missing_left=None, monotonic=None
):
    """Best of one candidate per column of ``X``: rows with ``x <= thresholds[j]`` go left.

    Rows missing ``x`` (NaN) go left where ``missing_left[j]`` (the drawn
    side, :func:`missing_sides`; right if not given).  The scores come from
    :func:`threshold_sides` and :func:`threshold_scores`, which the
    level-wise builder calls on a whole level; absolute error scores each
    side from its rows.  Among the allowed candidates the lowest score wins,
    the lowest column on ties (:func:`climbing_trees.choose_best`).  Returns
    a :class:`Split` (feature = column of ``X``) or ``None``; its
    ``missing_go_to_left`` follows :func:`missing_directions`.  ``monotonic``
    (:class:`climbing_trees._monotonic.NodeConstraints`, one constraint per
    column) refuses the candidates that break a constraint (chapter 5).
    """
    n_samples, n_features = X.shape
    w = np.asarray(sample_weight, dtype=float)
    if missing_left is None:
        missing_left = np.zeros(n_features, dtype=bool)
    below = threshold_below(X, thresholds[None, :], missing_left[None, :])
    if criterion == "absolute_error":
        y = np.asarray(Y, dtype=float)  # (n, n_outputs)
        parent = output_absolute_error(y, w)
        scores = np.full(n_features, np.inf)
        for j in range(n_features):
            scores[j] = _absolute_error_score(y, w, below[:, j], min_samples_leaf)
    else:
        phi = node_statistics(_centred(Y, w, criterion), w, criterion)
        node_stats = phi.sum(axis=0)
        parent = float(impurity_from_statistics(node_stats, criterion))
        q = fixed_weights(w, min_samples_leaf)  # exact sums for the refusal rule
        stats = np.vstack([phi.T, q[None]])
        left, *sides = threshold_sides(below.T, stats, w, np.zeros(n_samples, dtype=np.intp), 1)
        counts = np.array([n_samples]), np.array([np.count_nonzero(w > 0)])
        scores = threshold_scores(
            left[..., :-1], *sides, node_stats[None], *counts, criterion, min_samples_leaf,
            q_left=left[..., -1], q_node=np.array([q.sum()]),
        )[0]  # fmt: skip
    if monotonic is not None:
        for j in np.flatnonzero(monotonic.cst):
            values = child_values(Y, w, below[:, j], criterion)
            lower, upper = monotonic.lower, monotonic.upper
            if not allowed_splits(monotonic.cst[j], *values, lower, upper):
                scores[j] = np.inf
    best = choose_best(scores, parent)
    if best < 0:
        return None
    missing = np.isnan(X[:, [best]]).any(axis=0)[None]
    n_left = below[:, [best]].sum(axis=0)[None]
    direction = missing_directions(missing, missing_left[[best]][None], n_left, [n_samples])
    return Split(best, float(thresholds[best]), float(scores[best]), bool(direction[0, 0]))


def _absolute_error_score(y, w, goes_left, msl) -> float:
    """Score of one absolute-error split of the rows (``inf`` if it is refused)."""
    sides = [(y[goes_left], w[goes_left]), (y[~goes_left], w[~goes_left])]
    q = fixed_weights(w, msl)  # exact sums for the refusal rule
    too_few = min(goes_left.sum(), (~goes_left).sum()) < msl
    if too_few or refused_sides(q[goes_left].sum(), q[~goes_left].sum(), msl, w):
        return np.inf
    return sum(ws.sum() * output_absolute_error(ys, ws) for ys, ws in sides) / w.sum()


def random_categorical_split(X, Y, sample_weight, criterion, msl, features, keys, min_level):
    """Best of one random left set per categorical column in ``features`` (or ``None``)."""
    w = np.asarray(sample_weight, dtype=float)
    if criterion == "absolute_error":
        y = np.asarray(Y, dtype=float)  # (n, n_outputs)
        phi = w[:, None]  # the level sums only tell which levels are present
        parent = output_absolute_error(y, w)
    else:
        phi = node_statistics(_centred(Y, w, criterion), w, criterion)
        parent = float(impurity_from_statistics(phi.sum(axis=0), criterion))
    splits = []
    for j in features:
        codes = X[:, j].astype(np.intp)
        level_stats, counts = _level_sums(codes, phi)
        present = counts > 0
        level_stats, counts, rare = pool_rare_levels(level_stats, counts, min_level)
        # The node's (level) pairs searched, as the level-wise builder lists them.
        levels = np.flatnonzero(counts > 0)
        if levels.size < 2:
            continue
        pair_node = np.zeros(levels.size, dtype=np.intp)
        pair_left = random_pair_sets(keys, pair_node, levels, j)
        left = np.zeros(len(counts), dtype=bool)
        left[levels[pair_left]] = True
        left = expand_pooled(left, rare) & present
        if criterion == "absolute_error":
            score = _absolute_error_score(y, w, left[codes], msl)
        else:
            stats = level_stats[levels]
            score = pair_set_scores(stats, counts[levels], pair_node, pair_left, 1, criterion, msl)
            score = float(score[0][0])
        if np.isfinite(score):
            levels = tuple(int(c) for c in np.flatnonzero(left))
            splits.append(CategoricalSplit(int(j), levels, float(score)))
    return best_of(splits, parent)


def random_node_split(search, X, Y, w, impurity, key):
    """The split of one node of :func:`grow_tree` under :class:`RandomSplits`.

    ``search`` is grow_tree's :class:`NodeSearch` and ``X`` the node's rows.
    The drawn features are searched as usual (``splitter="best"``) or with one
    random candidate each (``"random"``); the winner is chosen as without
    randomness (numerical winner, categorical winner, lower score wins, lower
    feature index on ties).
    """
    spec, criterion, msl = search.random, search.criterion, search.min_samples_leaf
    keys = np.array([key], dtype=np.uint64)
    lo, hi, _, constant = feature_ranges(X, np.zeros(1, dtype=np.intp))
    drawn = draw_features(keys, constant, spec.max_features)[0]
    num = search.num_features[drawn[search.num_features]]
    cat = search.cat_features[drawn[search.cat_features]]
    splits = []
    if num.size:
        monotonic = search.constraints(num)
        if spec.splitter == "best":
            split = search.numeric_split(X[:, num], Y, w, monotonic)
        else:
            t = random_thresholds(keys, lo, hi)[0, num]
            side = missing_sides(keys, lo, hi)[0, num]
            split = random_numeric_split(X[:, num], Y, w, criterion, msl, t, side, monotonic)
        if split is not None:
            splits.append(split._replace(feature=int(num[split.feature])))
    if cat.size:
        if spec.splitter == "best":
            split = best_categorical_split(
                X,
                Y,
                w,
                criterion,
                msl,
                cat,
                search.method,
                search.min_samples_level,
                search.max_categorical_candidates,
            )
        else:
            split = random_categorical_split(
                X, Y, w, criterion, msl, cat, keys, search.min_samples_level
            )
        if split is not None:
            splits.append(split)
    return best_of(splits, impurity)
