"""Categorical features: one-vs-rest, optimal partitioning and the multiclass heuristic.

Chapters 6 ("One-vs-rest") and 7 ("Optimal partitioning") of the book explain
this module.  A categorical split sends a *set* of levels left and the other
levels right.  With ``k`` levels there are ``2**(k-1) - 1`` such splits, so
the searches below choose a short list of candidate sets and score them all
with the same sufficient statistics as :mod:`climbing_trees._criteria`: the
statistics of a set of levels are the sum of the statistics of its levels.

Data format
-----------
This is the contract between the estimators, :func:`climbing_trees.grow_tree`,
the fitted :class:`climbing_trees.Tree` and any other tree builder.

1. **Encoding.**  ``X`` stays one float64 matrix.  A categorical column ``j``
   holds integer *codes* ``0 .. n_categories[j] - 1`` stored as floats.  The
   estimators map (:func:`climbing_trees._categorical_encoding.encode_categorical`)
   the levels seen at fit, in the order of ``categories_[j]``
   (sorted when the levels can be sorted, else in order of first appearance;
   a pandas ``category`` column keeps its category order), to
   ``0, 1, 2, ...``.  At predict time a level not seen at fit gets code
   ``-1``.  A missing value (NaN, None, ``pd.NA``, ``pd.NaT``) in a
   categorical column is *one more level* (chapter 9): the levels seen at
   fit end with ``nan`` when the column had missing values, and missing
   values get that level's code.  The split search then places the missing
   rows like any level (the sorted scan puts them where their statistics
   say).  Where a node had no missing row, missing values follow the rule
   of unseen levels below: the child with the larger training *weight*
   (a numerical column's missing values go to the child with more training
   *rows* instead, scikit-learn's rule); a column without missing values
   at fit treats them as an unseen level.
2. **Growing.**  :func:`climbing_trees.grow_tree` takes three keyword
   arguments: ``is_categorical`` (bool array of length ``n_features``,
   ``None`` means no categorical feature), ``n_categories`` (int array of
   length ``n_features``, 0 for numerical columns) and ``categorical_split``
   (``"auto"``, ``"one_vs_rest"`` or ``"partition"``).
3. **Storing.**  A categorical internal node has ``feature[node] = j`` and
   ``threshold[node] = NaN`` (NaN marks a categorical node; numerical nodes
   keep their threshold and leaves ``TREE_UNDEFINED``).  Its set is, in
   principle, a *row* of bools over ``max_levels + 1`` columns with
   ``max_levels = max(n_categories)`` (0 without categorical features):
   entry ``c`` is True when code ``c`` goes left; the last column (index
   ``-1``, so code ``-1`` indexes it directly) says where *unseen* codes go.
   Build a row with :func:`categories_left_row`.  The tree stores the row
   compactly (:mod:`climbing_trees._category_sets`):
   ``Tree.categories_unseen_left[node]`` (the last entry) and the sorted
   codes whose entry differs from it, a slice of ``Tree.categories_levels``
   given by ``categories_start`` and ``categories_stop``; numerical nodes
   and leaves store nothing.  ``Tree.categories_left`` (all rows, rows of
   other nodes all False) and ``Tree.categories_left_row(node)`` give the
   rows back.
4. **Unseen levels.**  A code that no training row of the node carried
   (a level unseen at fit, a level absent from this node, or a code past
   ``n_categories[j]``) goes to the child with the larger training weight
   (``weighted_n_node_samples``), and to the **right** child when the two
   weights are equal.  Its entries in the row (all absent codes and the last
   column) hold that direction, so ``predict`` never needs a special case.

Search and tie rules
--------------------
At a node, only the *present* levels (at least one row at the node) take part.
Per-level statistics are ``np.bincount`` sums of
:func:`climbing_trees.node_statistics` rows (regression targets centred at the
node's weighted mean first, exactly as the numerical searches do).  Each
strategy lists candidate left sets in a fixed order, scores them as
``(W_left * I_left + W_right * I_right) / W`` and lets
:func:`climbing_trees.choose_best` pick the first candidate within the tie
tolerance of the minimum.

* ``one_vs_rest``: the candidates are ``{c}`` for every present level ``c``,
  by increasing code.  The single level is the left side.
* ``partition``: the present levels are sorted by a key, ties broken by
  increasing code (``np.lexsort``); candidate ``i`` sends the first ``i + 1``
  levels of that order left, ``i = 0 .. k - 2``.  The key is the weighted mean
  response: the mean target (regression), the weighted proportion of class 1
  (two classes), or, with three or more classes, the projection of the
  level's class-proportion vector on the first principal component of the
  weighted covariance of those vectors (Coppersmith, Hong and Hosking 1999;
  the component's sign makes its largest-magnitude entry positive).  Levels
  with zero total weight have key NaN and sort last.
* ``auto``: ``partition`` for regression and for two classes, where it is
  exact.  With three or more classes :func:`multiclass_plan` picks, under the
  budget ``max_categorical_candidates`` (default 16,384):

  - ``"scan"`` (at most two classes or three levels present): the
    ``partition`` candidates, then the ``one_vs_rest`` ones; exact there;
  - ``"exhaustive"`` (``2**(k-1) - 1`` within the budget): every partition of
    the present levels and nothing else, in bitmask order over the levels by
    increasing code (the highest present level always right); exact, also
    with ``min_samples_leaf``;
  - ``"hyperplane"`` (three classes, ``2 k (k - 1)`` within the budget): the
    ``partition`` candidates, the ``one_vs_rest`` ones, then the line cuts of
    :func:`_hyperplane_sets` by pair of levels.  Some best partition is cut
    by a line in the triangle of class proportions (Chou 1991; Coppersmith,
    Hong and Hosking 1999): exact for ``min_samples_leaf=1``;
  - ``"local"`` (otherwise): the ``partition`` and ``one_vs_rest`` candidates,
    the line cuts in the plane of the first two principal axes when they fit
    the budget, then the end points of single-level moves; a heuristic never
    worse than the first two.

  Ties go to the first candidate in that order.
* Several outputs (an :class:`climbing_trees.OutputLayout`
  criterion): no ordering of the levels is exact any more.  ``partition``
  sorts the levels along the first weighted principal axis of their mean
  outputs (each output's mean, or the concatenated class proportions);
  ``auto`` scores every partition (bitmask order, as ``"exhaustive"``
  above) when ``2**(k-1) - 1 <= max_categorical_candidates``, which is
  exact, and otherwise that scan followed by the one-vs-rest candidates.
  Absolute error orders the levels along the principal axis of their
  per-output medians.
* Across features (numerical and categorical) the lowest feature index wins
  among equal scores, as for numerical splits.
* Absolute error has no level statistics: :func:`absolute_error_split`
  scores each candidate from the rows, and its sorted scan (levels by
  weighted median) is a heuristic, not exact.

Another builder (for example the level-wise one) reproduces these splits
exactly by summing the per-level statistics itself and calling the searches
that start from them, ``_one_vs_rest``, ``_partition``, ``_auto`` and
``_brute_force``, all with the signature ``(level_stats, counts, criterion,
min_samples_leaf)``, and then :func:`categories_left_row` (or its compact
form, as the level-wise builder does).

``min_samples_leaf`` counts the rows of the whole left and right sides, and a
side must have positive weight.  The sorted scan is exact for the unconstrained
problem (``min_samples_leaf=1``); with a larger ``min_samples_leaf`` it returns
the best admissible contiguous split.

References
----------
W. D. Fisher, "On grouping for maximum homogeneity", JASA 53, 1958.
L. Breiman, J. Friedman, R. Olshen and C. Stone, *Classification and Regression
Trees*, Wadsworth, 1984, section 4.2 (Theorem 4.5).
P. A. Chou, "Optimal partitioning for classification and regression trees",
IEEE Transactions on Pattern Analysis and Machine Intelligence 13, 1991.
D. Coppersmith, S. J. Hong and J. R. M. Hosking, "Partitioning nominal
attributes in decision trees", Data Mining and Knowledge Discovery 3, 1999.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ._category_sets import unseen_goes_left
from ._criteria import (
    CLASSIFICATION_CRITERIA,
    _centred,
    children_score,
    impurity_from_statistics,
    n_outputs,
    node_statistics,
    output_absolute_error,
    total_weight,
    weighted_median,
)
from ._exact_weights import fixed_weights, refused_sides
from ._ties import best_of, choose_best, leaf_weight, refused_weights, tie_tolerance

CATEGORICAL_SPLITS = ("auto", "one_vs_rest", "partition")

#: Default of ``max_categorical_candidates``: the most candidate partitions the
#: multiclass search of ``"auto"`` scores per feature and node (see :func:`multiclass_plan`).
MAX_CATEGORICAL_CANDIDATES = 16_384


class CategoricalSplit(NamedTuple):
    """The best categorical split of a node.

    ``levels_left`` holds the codes sent left (present levels only); ``score``
    is the weighted mean impurity of the children, as in :class:`Split`.

    Parameters
    ----------
    feature : int
        Column of ``X`` that the test reads.
    levels_left : tuple of int
        Codes of the levels sent left, increasing.
    score : float
        Weighted mean impurity of the two children.

    Examples
    --------
    >>> split = CategoricalSplit(feature=2, levels_left=(0, 3), score=0.25)
    >>> 3 in split.levels_left, 1 in split.levels_left
    (True, False)
    """

    feature: int
    levels_left: tuple[int, ...]
    score: float


def level_statistics(
    codes: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion: str,
    n_levels: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Summed statistics and row counts of every level, shape ``(k, m)`` and ``(k,)``.

    Row ``c`` of the statistics is the sum of
    :func:`climbing_trees.node_statistics` over the rows with code ``c``: the
    weighted class counts, or (weight, weighted sum, weighted sum of squares)
    of the target centred at the node's mean.

    Parameters
    ----------
    codes : ndarray of int of shape (n_samples,)
        Level codes of one categorical column.
    Y : ndarray of shape (n_samples, n_columns)
        One-hot labels, or the regression targets.
    sample_weight : ndarray of shape (n_samples,)
        Weights of the rows.
    criterion : str
        A criterion with sufficient statistics (not ``"absolute_error"``).
    n_levels : int, optional
        Number of rows ``k`` of the result; ``codes.max() + 1`` by default.

    Returns
    -------
    stats : ndarray of shape (k, n_statistics)
        Summed statistics of each level (zeros for an absent level).
    counts : ndarray of int of shape (k,)
        Rows of each level.

    Examples
    --------
    >>> codes = np.array([0, 1, 1, 2])
    >>> Y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    >>> stats, counts = level_statistics(codes, Y, np.ones(4), "gini")
    >>> stats.tolist(), counts.tolist()
    ([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], [1, 2, 1])
    """
    centred = _centred(Y, sample_weight, criterion)
    phi = node_statistics(centred, sample_weight, criterion)
    return _level_sums(codes, phi, n_levels)


def _level_sums(codes: np.ndarray, phi: np.ndarray, n_levels: int | None = None):
    """Per-level sums of the per-row statistics ``phi``, and per-level row counts."""
    codes = np.asarray(codes, dtype=np.intp)
    k = int(codes.max()) + 1 if n_levels is None else int(n_levels)
    stats = np.column_stack(
        [np.bincount(codes, weights=phi[:, c], minlength=k) for c in range(phi.shape[1])]
    )
    return stats, np.bincount(codes, minlength=k)


def level_order(
    level_stats: np.ndarray, counts: np.ndarray, criterion: str
) -> np.ndarray:
    """Codes of the present levels in the order the partition scan visits them.

    The key is the weighted mean response (see the module docstring); with
    three or more classes it is the first-principal-component projection of
    the class proportions.  Ties go to the lower code; zero-weight levels last.

    Parameters
    ----------
    level_stats : ndarray of shape (k, n_statistics)
        Summed statistics of each level (:func:`level_statistics`).
    counts : ndarray of int of shape (k,)
        Rows of each level; levels without rows are left out.
    criterion : str
        The criterion the statistics were made for.

    Returns
    -------
    ndarray of int
        Codes of the present levels in scan order.

    Examples
    --------
    >>> stats = np.array([[3.0, 1.0], [0.0, 0.0], [1.0, 3.0], [2.0, 2.0]])
    >>> level_order(stats, np.array([4, 0, 4, 4]), "gini").tolist()
    [0, 3, 2]
    """
    present = np.flatnonzero(counts > 0)
    key = level_order_keys(level_stats[present], counts[present], criterion)
    return present[np.lexsort((present, key))]


def level_order_keys(level_stats: np.ndarray, counts: np.ndarray, criterion: str) -> np.ndarray:
    """The key :func:`level_order` sorts the levels by, for one node or a block of nodes.

    ``level_stats`` has shape ``(..., levels, statistics)`` and ``counts``
    ``(..., levels)``; the key has shape ``(..., levels)``.  Regression: the
    weighted mean response; two classes: the weighted proportion of the last
    class; three or more classes, or several outputs: the projection on the
    first principal component of the present levels' proportions (or mean
    outputs), node by node.  NaN for levels without weight, and for every
    level of a node with fewer than two present levels under a principal
    component (one level needs no order).  The level-wise builder sorts its
    blocks by these keys, so both builders visit the levels in one order.

    >>> stats = np.array([[3.0, 1.0], [0.0, 0.0], [1.0, 3.0], [2.0, 2.0]])
    >>> level_order_keys(stats, np.array([4, 0, 4, 4]), "gini").tolist()
    [0.25, nan, 0.75, 0.5]
    """
    level_stats = np.asarray(level_stats, dtype=float)
    present = np.asarray(counts) > 0
    several = n_outputs(criterion) > 1
    regression = criterion not in CLASSIFICATION_CRITERIA
    if not several and (regression or level_stats.shape[-1] <= 2):
        w = total_weight(level_stats, criterion)
        with np.errstate(divide="ignore", invalid="ignore"):
            return level_stats[..., 1 if regression else -1] / w
    # The first principal axis of each node's present levels.
    n_rows = int(np.prod(present.shape[:-1]))
    stats = level_stats.reshape(n_rows, *level_stats.shape[-2:])
    rows_present = present.reshape(n_rows, present.shape[-1])
    keys = np.full(rows_present.shape, np.nan)
    for node in np.flatnonzero(rows_present.sum(axis=1) >= 2):
        here = np.flatnonzero(rows_present[node])
        node_stats = stats[node, here]
        w = total_weight(node_stats, criterion)
        if several and regression:
            node_stats = node_stats[:, 1 : 1 + n_outputs(criterion)]  # the outputs' sums
        with np.errstate(divide="ignore", invalid="ignore"):
            keys[node, here] = _principal_component_key(node_stats, w)
    return keys.reshape(present.shape)


def _principal_component_key(stats: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Projection of each level's class proportions on the first principal component."""
    positive = w > 0
    p = np.zeros_like(stats)
    p[positive] = stats[positive] / w[positive, None]
    return _principal_axis_key(p, w)


def _principal_axis_key(p: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Projection of points ``p`` (one row per level, weights ``w``) on their first
    weighted principal axis, signed so that its largest-magnitude entry is positive;
    NaN for levels without weight."""
    positive = w > 0
    _, vectors = _principal_axes(p, w)
    v = vectors[:, -1]  # eigenvalues come in increasing order
    v = v if v[np.argmax(np.abs(v))] > 0 else -v
    return np.where(positive, _project(p, v[:, None])[:, 0], np.nan)


def _ordered_sums(columns: np.ndarray) -> np.ndarray:
    """The sum of each column of ``columns`` (one row per level), rows added in order."""
    if not len(columns):
        return np.zeros(columns.shape[1:])
    return np.cumsum(columns, axis=0)[-1]  # a running sum: one addition at a time


def _principal_axes(p: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points ``p`` centred at their weighted mean, and the eigenvectors of their
    weighted covariance (columns, by increasing eigenvalue).

    The means and covariances add the levels in order, and the eigenvectors come
    from :func:`symmetric_eigenvectors` (no BLAS or LAPACK: a matrix product's
    order of additions depends on the BLAS kernel, and these numbers order the
    levels of a categorical split).  Both builders call this function.
    """
    total = _ordered_sums(w[:, None])[0]
    centred = p - _ordered_sums(w[:, None] * p) / total
    weighted = centred * w[:, None]
    i, j = np.triu_indices(p.shape[1])
    cov = np.empty((p.shape[1], p.shape[1]))
    cov[i, j] = _ordered_sums(weighted[:, i] * centred[:, j]) / total
    cov[j, i] = cov[i, j]
    return centred, symmetric_eigenvectors(cov)


def symmetric_eigenvectors(matrix: np.ndarray) -> np.ndarray:
    """Eigenvectors of a small symmetric matrix (columns, by increasing eigenvalue,
    equal eigenvalues in column order), by cyclic Jacobi rotations.

    Written in Python floats, so every operation is one IEEE rounding and the
    result is the same on every CPU; ``numpy.linalg.eigh`` calls LAPACK, whose
    last bits depend on the BLAS kernel, and where eigenvalues are equal (levels
    that are each pure in one class) its choice of axis does too.  Each rotation
    zeroes one off-diagonal entry; a sweep visits every pair; the sweeps stop
    when every off-diagonal entry is negligible beside its two diagonal
    entries (Numerical Recipes, section 11.1; Golub and Van Loan, section 8.5).

    >>> vectors = symmetric_eigenvectors(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> np.round(np.abs(vectors), 4).tolist()
    [[0.7071, 0.7071], [0.7071, 0.7071]]
    """
    a = np.asarray(matrix, dtype=float).tolist()
    d = len(a)
    v = [[float(i == j) for j in range(d)] for i in range(d)]
    for _ in range(100):  # converges quadratically: 4 to 8 sweeps
        rotated = False
        for p in range(d - 1):
            for q in range(p + 1, d):
                apq = a[p][q]
                g = 100.0 * abs(apq)
                if abs(a[p][p]) + g == abs(a[p][p]) and abs(a[q][q]) + g == abs(a[q][q]):
                    a[p][q] = a[q][p] = 0.0  # negligible (0 included)
                    continue
                rotated = True
                h = a[q][q] - a[p][p]
                if abs(h) + g == abs(h):
                    t = apq / h  # the tangent of the angle, when it is tiny
                else:
                    theta = 0.5 * h / apq
                    t = 1.0 / (abs(theta) + math.sqrt(theta * theta + 1.0))
                    t = -t if theta < 0.0 else t
                c = 1.0 / math.sqrt(t * t + 1.0)
                s = t * c
                for row in a:  # columns p and q
                    row[p], row[q] = c * row[p] - s * row[q], s * row[p] + c * row[q]
                a[p], a[q] = (  # rows p and q
                    [c * x - s * y for x, y in zip(a[p], a[q], strict=True)],
                    [s * x + c * y for x, y in zip(a[p], a[q], strict=True)],
                )
                a[p][q] = a[q][p] = 0.0
                for row in v:
                    row[p], row[q] = c * row[p] - s * row[q], s * row[p] + c * row[q]
        if not rotated:
            break
    order = np.argsort([a[i][i] for i in range(d)], kind="stable")
    return np.array(v)[:, order]


def _project(p: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """``p @ vectors`` with the products added coordinate by coordinate, in order."""
    out = p[:, :1] * vectors[:1]
    for c in range(1, p.shape[1]):
        out = out + p[:, c : c + 1] * vectors[c : c + 1]
    return out


class Candidates(NamedTuple):
    """Candidate left sets of a node, described by their two sides.

    One row per candidate: the summed statistics of the left and right sides,
    their row counts and their numbers of levels with positive weight (a side
    is allowed only if it has one).  ``levels(i)`` gives the codes of the left
    side of candidate ``i``.
    """

    left: np.ndarray
    right: np.ndarray
    n_left: np.ndarray
    n_right: np.ndarray
    positive_left: np.ndarray
    positive_right: np.ndarray
    levels: Callable[[int], tuple[int, ...]]


def _candidates_from_sets(sets: np.ndarray, level_stats, counts, criterion) -> Candidates:
    """Candidates given as a boolean matrix, one row per left set (brute force)."""
    sets = np.asarray(sets, dtype=bool)
    positive = (total_weight(level_stats, criterion) > 0).astype(np.intp)
    rows = np.asarray(counts, dtype=np.intp)  # integer products: exact, and never BLAS
    return Candidates(
        _set_sums(sets, level_stats),
        _set_sums(~sets, level_stats),
        sets.astype(np.intp) @ rows,
        (~sets).astype(np.intp) @ rows,
        sets.astype(np.intp) @ positive,
        (~sets).astype(np.intp) @ positive,
        lambda i: tuple(int(c) for c in np.flatnonzero(sets[i])),
    )


def _set_sums(sets: np.ndarray, level_stats: np.ndarray) -> np.ndarray:
    """Summed statistics of the levels of each set (bool rows): ``(sets, statistics)``.

    The levels are added one by one by increasing code, not by a matrix
    product, whose order of additions depends on the BLAS kernel: the scores,
    and the split, are then the same on every machine, and in both builders,
    which pass the same levels.  (A level left out adds ``0 * x``, which
    changes no sum; with infinite statistics it is skipped instead.)
    """
    k, m = level_stats.shape
    sums = np.zeros((m, len(sets)))
    if np.isfinite(level_stats).all():
        chosen = sets.T.astype(float)  # one contiguous row per level
        for c in range(k):
            sums += level_stats[c][:, None] * chosen[c]
    else:
        for c in range(k):
            np.add(sums, level_stats[c][:, None], out=sums, where=sets[:, c])
    return sums.T


def _subset_sums(rows: np.ndarray) -> np.ndarray:
    """Sums of the rows in every subset of ``rows``: entry ``b`` sums the rows whose
    bits are set in ``b``, ``(2**k, columns)``.

    Each sum adds its rows by increasing index, as :func:`_set_sums` does, at
    the cost of one addition per subset: subset ``b`` with highest bit ``c``
    is subset ``b - 2**c`` plus row ``c``.
    """
    k = len(rows)
    sums = np.zeros((1 << k, *rows.shape[1:]), dtype=rows.dtype)
    for c in range(k):
        np.add(sums[: 1 << c], rows[c], out=sums[1 << c : 2 << c])
    return sums


def _candidates_one_vs_rest(level_stats, counts, criterion) -> Candidates:
    """One candidate per present level, by increasing code: it alone on the left."""
    present = np.flatnonzero(counts > 0)
    positive = total_weight(level_stats, criterion) > 0
    left = level_stats[present]
    return Candidates(
        left,
        level_stats[present].sum(axis=0) - left,
        counts[present],
        counts.sum() - counts[present],
        positive[present].astype(int),
        positive.sum() - positive[present],
        lambda i: (int(present[i]),),
    )


def _candidates_sorted_scan(
    order: np.ndarray, level_stats, counts, criterion
) -> Candidates:
    """Candidate ``i`` puts the first ``i + 1`` levels of ``order`` on the left.

    Prefix sums over the sorted levels give every left side, and suffix sums
    every right side: the k - 1 candidates cost O(k) after the sort.
    """
    stats = level_stats[order]
    positive = (total_weight(stats, criterion) > 0).astype(int)

    def prefix(a):
        return np.cumsum(a, axis=0)[:-1]

    def suffix(a):
        return np.cumsum(a[::-1], axis=0)[::-1][1:]

    return Candidates(
        prefix(stats),
        suffix(stats),
        prefix(counts[order]),
        suffix(counts[order]),
        prefix(positive),
        suffix(positive),
        lambda i: tuple(sorted(int(c) for c in order[: i + 1])),
    )


def _concatenate(a: Candidates, b: Candidates) -> Candidates:
    """The candidates of ``a`` followed by those of ``b`` (``a`` wins ties)."""
    arrays = [np.concatenate([x, y]) for x, y in zip(a[:-1], b[:-1], strict=True)]
    n = len(a.n_left)
    return Candidates(*arrays, lambda i: a.levels(i) if i < n else b.levels(i - n))


def candidate_scores(
    candidates: Candidates,
    level_stats: np.ndarray,
    criterion: str,
    min_samples_leaf: int,
) -> np.ndarray:
    """Score ``(W_left I_left + W_right I_right) / W`` of each candidate; NaN: refused.

    A candidate is allowed when both sides keep ``min_samples_leaf`` rows and
    hold a level of positive weight.
    """
    left, right = candidates.left, candidates.right
    total = total_weight(level_stats.sum(axis=0), criterion)
    scores, w_left, w_right = children_score(left, right, criterion, total)
    allowed = (
        (candidates.n_left >= min_samples_leaf)
        & (candidates.n_right >= min_samples_leaf)
        & (candidates.positive_left > 0)
        & (candidates.positive_right > 0)
    )
    if leaf_weight(min_samples_leaf) > 0:  # min_weight_fraction_leaf
        allowed &= ~refused_weights(w_left, w_right, min_samples_leaf)
    return np.where(allowed, scores, np.nan)


def _best_split(candidates, level_stats, criterion, min_samples_leaf) -> CategoricalSplit | None:
    """The winning candidate by :func:`climbing_trees.choose_best`, or ``None``."""
    if len(candidates.n_left) == 0:
        return None
    scores = candidate_scores(candidates, level_stats, criterion, min_samples_leaf)
    parent = float(impurity_from_statistics(level_stats.sum(axis=0), criterion))
    best = choose_best(scores, parent)
    if best < 0:
        return None
    return CategoricalSplit(0, candidates.levels(best), float(scores[best]))


def one_vs_rest_split(
    codes: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion: str,
    min_samples_leaf: int = 1,
) -> CategoricalSplit | None:
    """Best split sending one level left and all the others right.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Integer level codes of one categorical column.
    Y, sample_weight, criterion, min_samples_leaf
        As in :func:`climbing_trees.naive_best_split`; ``min_samples_leaf``
        counts the rows of each whole side.

    Returns
    -------
    CategoricalSplit or None
        ``feature`` is 0 (the one column given).  ``None`` when fewer than two
        levels are present or no candidate is allowed.

    Notes
    -----
    ``k`` candidates for ``k`` present levels, tried by increasing code; on
    equal scores the lowest code wins.  A tree grown this way is the tree
    grown on the one-hot encoding of the column (chapter 6).

    Examples
    --------
    >>> codes = np.array([0, 0, 1, 1, 2, 2])
    >>> Y = np.array([[0.0], [0.0], [5.0], [5.0], [0.0], [0.0]])
    >>> one_vs_rest_split(codes, Y, np.ones(6), "squared_error")
    CategoricalSplit(feature=0, levels_left=(1,), score=0.0)
    """
    if criterion == "absolute_error":
        return absolute_error_split(codes, Y, sample_weight, "one_vs_rest", min_samples_leaf)
    level_stats, counts = level_statistics(codes, Y, sample_weight, criterion)
    return _one_vs_rest(level_stats, counts, criterion, min_samples_leaf)


def _candidates_zero_levels(level_stats, counts, criterion) -> Candidates | None:
    """Poisson deviance: the sorted scans that keep levels without a positive target
    next to a level with one (``None`` when no present level lacks one).

    A side made only of levels whose targets are all zero is not allowed
    (its Poisson mean would be 0), and then the best *allowed* partition
    need not be contiguous in the sorted order.  It is found this way: in
    some best allowed partition all the zero levels sit on one side, together
    with at least one level ``p`` with a positive target.  (Moving a weight
    ``a`` of zero targets from one side to the other changes the total
    deviance by ``S_L log(W_L + a) + S_R log(W_R - a)`` plus a constant, a
    concave function of ``a``, so its minimum is at an end point.)  Merging
    the zero levels into ``p`` leaves levels that all have a positive target,
    where every partition is allowed and the sorted scan is exact again
    (Breiman et al. 1984, Theorem 4.5).  One scan per
    possible ``p``, in increasing code: ``O(k**2 log k)`` for ``k`` levels.
    """
    present = counts > 0
    zero = present & (level_stats[:, 3] <= 0)
    hosts = np.flatnonzero(present & ~zero)
    if not zero.any() or len(hosts) < 2:
        return None
    zero_codes = np.flatnonzero(zero)
    zero_stats, zero_count = level_stats[zero_codes].sum(axis=0), counts[zero_codes].sum()
    blocks = None
    for p in hosts:
        stats, c = level_stats.copy(), counts.copy()
        stats[zero_codes], c[zero_codes] = 0.0, 0
        stats[p] += zero_stats
        c[p] += zero_count
        scan = _candidates_sorted_scan(level_order(stats, c, criterion), stats, c, criterion)

        def levels(i, scan=scan, p=int(p)):
            left = scan.levels(i)
            return tuple(sorted(left + tuple(int(z) for z in zero_codes))) if p in left else left

        scan = scan._replace(levels=levels)
        blocks = scan if blocks is None else _concatenate(blocks, scan)
    return blocks


def _with_zero_levels(candidates: Candidates, level_stats, counts, criterion) -> Candidates:
    """``candidates``, then (Poisson deviance only) :func:`_candidates_zero_levels`."""
    if criterion != "poisson" or n_outputs(criterion) > 1:
        return candidates
    extra = _candidates_zero_levels(level_stats, counts, criterion)
    return candidates if extra is None else _concatenate(candidates, extra)


def _one_vs_rest(level_stats, counts, criterion, min_samples_leaf):
    """:func:`one_vs_rest_split` from the level statistics on."""
    if np.count_nonzero(counts) < 2:
        return None
    candidates = _candidates_one_vs_rest(level_stats, counts, criterion)
    return _best_split(candidates, level_stats, criterion, min_samples_leaf)


def partition_split(
    codes: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion: str,
    min_samples_leaf: int = 1,
) -> CategoricalSplit | None:
    """Best split among the ``k - 1`` contiguous splits of the levels sorted by mean response.

    For regression with squared error or Poisson deviance and for two
    classes (Gini or entropy) this is the best of all ``2**(k-1) - 1``
    partitions (Fisher 1958; Breiman et al. 1984, Theorem 4.5), when
    ``min_samples_leaf`` is 1.  (For Poisson deviance, levels whose targets
    are all zero add one scan per other level: see
    :func:`_candidates_zero_levels`.)  With three or
    more classes the levels are ordered along the first principal component
    of their class proportions (Coppersmith, Hong and Hosking 1999), a
    heuristic.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Integer level codes of one categorical column.
    Y, sample_weight, criterion, min_samples_leaf
        As in :func:`climbing_trees.naive_best_split`; ``min_samples_leaf``
        counts the rows of each whole side.

    Returns
    -------
    CategoricalSplit or None
        ``feature`` is 0 (the one column given).  ``None`` when fewer than two
        levels are present or no candidate is allowed.

    Notes
    -----
    The levels are sorted by :func:`level_order` (ties by lower code); the
    left side is the beginning of that order.  Cost: O(N) for the level
    statistics, O(k log k) for the sort, O(k) for the scan.  Chapter 7
    proves why the sorted scan is exact and measures the multiclass heuristic.

    Examples
    --------
    >>> codes = np.array([0, 0, 1, 1, 2, 2])
    >>> Y = np.array([[0.0], [0.0], [5.0], [5.0], [0.0], [0.0]])
    >>> partition_split(codes, Y, np.ones(6), "squared_error")
    CategoricalSplit(feature=0, levels_left=(0, 2), score=0.0)
    """
    if criterion == "absolute_error":
        return absolute_error_split(codes, Y, sample_weight, "partition", min_samples_leaf)
    level_stats, counts = level_statistics(codes, Y, sample_weight, criterion)
    return _partition(level_stats, counts, criterion, min_samples_leaf)


def _partition(level_stats, counts, criterion, min_samples_leaf):
    """:func:`partition_split` from the level statistics on: sort, then scan the cuts."""
    order = level_order(level_stats, counts, criterion)
    candidates = _candidates_sorted_scan(order, level_stats, counts, criterion)
    candidates = _with_zero_levels(candidates, level_stats, counts, criterion)
    return _best_split(candidates, level_stats, criterion, min_samples_leaf)


def auto_split(
    codes: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion: str,
    min_samples_leaf: int = 1,
    max_candidates: int = MAX_CATEGORICAL_CANDIDATES,
) -> CategoricalSplit | None:
    """The ``"auto"`` strategy: the exact sorted scan, or with 3+ classes an exact search.

    Regression and two classes: :func:`partition_split` (exact).  With three
    or more classes the candidates are, in this order (the first of equal
    scores wins): the principal-component scan of :func:`partition_split`,
    the one-vs-rest candidates, then those of the search
    :func:`multiclass_plan` picks under the budget ``max_candidates``:
    every partition, or every partition a line cuts in the triangle of class
    proportions (three classes), both exact; else the line cuts in the plane
    of the first two principal axes and single-level moves from the best
    candidate, a heuristic.  So the score is never worse than the scan's or
    one-vs-rest's.

    Regression and two classes here mean one output.  With several outputs
    (``criterion`` an :class:`climbing_trees.OutputLayout`): every partition
    while there are at most ``max_candidates`` of them (exact), else the
    scan along the first principal axis of the levels' mean outputs and the
    one-vs-rest candidates, a heuristic (chapter 7 measures it).

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Integer level codes of one categorical column.
    Y, sample_weight, criterion, min_samples_leaf
        As in :func:`climbing_trees.naive_best_split`; ``min_samples_leaf``
        counts the rows of each whole side.
    max_candidates : int
        The budget of candidate partitions per feature and node
        (:func:`multiclass_plan`).

    Returns
    -------
    CategoricalSplit or None
        ``feature`` is 0 (the one column given).  ``None`` when fewer than two
        levels are present or no candidate is allowed.

    Examples
    --------
    >>> codes = np.array([0, 1, 2, 0, 1, 2])
    >>> Y = np.eye(3)[[0, 1, 2, 0, 1, 2]]
    >>> round(auto_split(codes, Y, np.ones(6), "gini").score, 4)   # one class alone left
    0.3333
    """
    if criterion == "absolute_error":
        return absolute_error_split(codes, Y, sample_weight, "auto", min_samples_leaf)
    level_stats, counts = level_statistics(codes, Y, sample_weight, criterion)
    return _auto(level_stats, counts, criterion, min_samples_leaf, max_candidates)


def _auto(
    level_stats, counts, criterion, min_samples_leaf, max_candidates=MAX_CATEGORICAL_CANDIDATES
):
    """:func:`auto_split` from the level statistics on."""
    several = n_outputs(criterion) > 1
    multiclass = criterion in CLASSIFICATION_CRITERIA and level_stats.shape[1] > 2 and not several
    plan = multiclass_plan(level_stats, counts, criterion, max_candidates) if multiclass else "scan"
    present = np.flatnonzero(counts > 0)
    if several and 2 <= len(present) and 2 ** (len(present) - 1) - 1 <= max_candidates:
        plan = "exhaustive"  # several outputs: no sorted scan is exact
    stats, present_counts = level_stats[present], counts[present]
    if plan == "exhaustive":  # every partition: exact, nothing else needed
        split = _brute_force(stats, present_counts, criterion, min_samples_leaf)
        if split is None:
            return None
        return split._replace(levels_left=tuple(int(present[c]) for c in split.levels_left))
    order = level_order(level_stats, counts, criterion)
    candidates = _candidates_sorted_scan(order, level_stats, counts, criterion)
    candidates = _with_zero_levels(candidates, level_stats, counts, criterion)
    lists = auto_candidate_lists(criterion, level_stats.shape[1])
    if "one_vs_rest" not in lists or len(order) < 2:
        return _best_split(candidates, level_stats, criterion, min_samples_leaf)
    # Three or more classes: the scan is a heuristic; one-vs-rest comes after it,
    # then the line cuts (or the heuristic's sets) over the present levels.
    candidates = _concatenate(candidates, _candidates_one_vs_rest(level_stats, counts, criterion))
    if plan == "scan":
        return _best_split(candidates, level_stats, criterion, min_samples_leaf)
    scores = candidate_scores(candidates, level_stats, criterion, min_samples_leaf)
    parent = float(impurity_from_statistics(level_stats.sum(axis=0), criterion))
    best = choose_best(scores, parent)
    start = None if best < 0 else np.isin(present, candidates.levels(best))
    sets = _multiclass_sets(
        stats, present_counts, criterion, min_samples_leaf, plan, start, max_candidates
    )
    found = _set_scores(sets, stats, present_counts, criterion, min_samples_leaf)
    scores = np.concatenate([scores, found])
    best = choose_best(scores, parent)
    if best < 0:
        return None
    n = len(candidates.n_left)
    if best < n:
        levels = candidates.levels(best)
    else:
        levels = tuple(int(c) for c in present[np.flatnonzero(sets[best - n])])
    return CategoricalSplit(0, levels, float(scores[best]))


def brute_force_categorical_split(
    codes: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion: str,
    min_samples_leaf: int = 1,
    *,
    one_level_sides: bool = False,
) -> CategoricalSplit | None:
    """Best of all ``2**(k-1) - 1`` partitions of the present levels: the oracle.

    Each partition is listed once, by the side *without* the highest present
    level (bitmask order over the other levels).  With
    ``one_level_sides=True`` only partitions where one side is a single level
    are kept: the one-vs-rest candidates.  Cost grows as ``2**k``; keep ``k``
    below about 20.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Integer level codes of one categorical column.
    Y, sample_weight, criterion, min_samples_leaf
        As in :func:`climbing_trees.naive_best_split`; ``min_samples_leaf``
        counts the rows of each whole side.
    one_level_sides : bool
        Keep only the partitions with a single level on one side.

    Returns
    -------
    CategoricalSplit or None
        ``feature`` is 0 (the one column given).  ``None`` when fewer than two
        levels are present or no candidate is allowed.

    Examples
    --------
    >>> codes = np.array([0, 1, 2, 3])
    >>> Y = np.array([[0.0], [9.0], [0.0], [9.0]])
    >>> brute_force_categorical_split(codes, Y, np.ones(4), "squared_error")
    CategoricalSplit(feature=0, levels_left=(0, 2), score=0.0)
    """
    if criterion == "absolute_error":
        method = "one_level_sides" if one_level_sides else "brute_force"
        return absolute_error_split(codes, Y, sample_weight, method, min_samples_leaf)
    level_stats, counts = level_statistics(codes, Y, sample_weight, criterion)
    return _brute_force(level_stats, counts, criterion, min_samples_leaf, one_level_sides)


def _brute_force(
    level_stats, counts, criterion, min_samples_leaf, one_level_sides=False
):
    """:func:`brute_force_categorical_split` from the level statistics on."""
    present = np.flatnonzero(counts > 0)
    k = len(present)
    if k < 2:
        return None
    bits = _exhaustive_sets(k)
    masks = np.arange(1, 1 << (k - 1))  # row i of bits holds the bits of i + 1
    if one_level_sides:
        size = bits.sum(axis=1)
        keep = (size == 1) | (size == k - 1)
        bits, masks = bits[keep], masks[keep]
    complement = ((1 << (k - 1)) - 1) ^ masks  # the right side, but for the last level
    last = present[-1]  # always right
    sides = []
    for values in (
        level_stats,
        np.asarray(counts, dtype=np.intp)[:, None],
        (total_weight(level_stats, criterion) > 0).astype(np.intp)[:, None],
    ):
        # Left sides by bitmask, levels in order.
        sums = _subset_sums(values[present[:-1]])
        sides += [sums[masks], sums[complement] + values[last]]
    left, right, n_left, n_right, positive_left, positive_right = sides
    candidates = Candidates(
        left,
        right,
        n_left[:, 0],
        n_right[:, 0],
        positive_left[:, 0],
        positive_right[:, 0],
        lambda i: tuple(int(c) for c in present[:-1][bits[i]]),
    )
    return _best_split(candidates, level_stats, criterion, min_samples_leaf)


def absolute_error_split(
    codes: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    method: str = "auto",
    min_samples_leaf: int = 1,
) -> CategoricalSplit | None:
    """Best categorical split for absolute error, each candidate scored from its rows.

    Absolute error has no level statistics to add up (a median is not a
    sum), so every candidate left set is scored directly,
    ``(sum_L w |y - m_L| + sum_R w |y - m_R|) / W`` with the sides' weighted
    medians: O(N log N) per candidate.  The candidates, in tie-break order:

    * ``"partition"`` and ``"auto"``: the present levels sorted by their
      weighted median (ties by lower code), and the ``k - 1`` cuts of that
      order.  Unlike squared error and Poisson deviance this is *not*
      exact: absolute error is not a concave function of a side's sums, and
      the best partition can interleave the levels' medians.  Chapter 3
      measures how often the scan misses the brute-force optimum.
    * ``"one_vs_rest"``: each present level alone, by increasing code.
    * ``"brute_force"``: all ``2**(k-1) - 1`` partitions (the oracle;
      ``"one_level_sides"`` keeps those with a single level on one side).

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Integer level codes of one categorical column.
    Y : ndarray of shape (n_samples, n_outputs)
        Regression targets, one column per output.
    sample_weight : ndarray of shape (n_samples,)
        Weights of the rows.
    method : {"auto", "partition", "one_vs_rest", "brute_force", "one_level_sides"}
        Which candidates to score (above).
    min_samples_leaf : int
        Candidates leaving fewer rows than this on either side are skipped.

    Returns
    -------
    CategoricalSplit or None
        ``feature`` is 0 (the one column given).  ``None`` when fewer than two
        levels are present or no candidate is allowed.

    Examples
    --------
    >>> codes = np.array([0, 0, 1, 1, 2, 2])
    >>> Y = np.array([[0.0], [1.0], [5.0], [6.0], [0.0], [1.0]])
    >>> absolute_error_split(codes, Y, np.ones(6))
    CategoricalSplit(feature=0, levels_left=(0, 2), score=0.5)
    """
    codes = np.asarray(codes).astype(np.intp)
    y = np.asarray(Y, dtype=float)  # (n, n_outputs)
    w = np.asarray(sample_weight, dtype=float)
    present = np.unique(codes)
    k = len(present)
    if k < 2:
        return None
    if method in ("partition", "auto"):
        # A level whose rows all weigh 0 has no median: it goes last, as in
        # level_order (its key NaN); its point 0 keeps the principal axis finite.
        w_level = np.bincount(codes, weights=w)[present]
        medians = np.array(
            [
                [weighted_median(col[codes == c], w[codes == c]) if wl > 0 else 0.0 for col in y.T]
                for c, wl in zip(present, w_level, strict=True)
            ]
        )
        if y.shape[1] > 1:  # several outputs: along the medians' first principal axis
            key = _principal_axis_key(medians, w_level)  # NaN for levels without weight
        else:
            key = np.where(w_level > 0, medians[:, 0], np.nan)
        order = present[np.lexsort((present, key))]
        sets = [tuple(sorted(int(c) for c in order[: i + 1])) for i in range(k - 1)]
    elif method == "one_vs_rest":
        sets = [(int(c),) for c in present]
    else:
        bits = _exhaustive_sets(k)
        if method == "one_level_sides":
            size = bits.sum(axis=1)
            bits = bits[(size == 1) | (size == k - 1)]
        sets = [tuple(int(c) for c in present[:-1][row.astype(bool)]) for row in bits]
    total = w.sum()
    q = fixed_weights(w, min_samples_leaf)  # exact sums for the refusal rule
    scores = []
    for levels in sets:
        left = np.isin(codes, levels)
        n_left = int(left.sum())
        too_few = min(n_left, len(codes) - n_left) < min_samples_leaf
        if too_few or refused_sides(q[left].sum(), q[~left].sum(), min_samples_leaf, w):
            scores.append(np.nan)
            continue
        sides = [(y[left], w[left]), (y[~left], w[~left])]
        scores.append(sum(ws.sum() * output_absolute_error(ys, ws) for ys, ws in sides) / total)
    best = choose_best(np.array(scores), output_absolute_error(y, w))
    if best < 0:
        return None
    return CategoricalSplit(0, sets[best], float(scores[best]))


# --- three or more classes: the exact search and its fallback ---------------------------------


#: Two proportion points closer than this are one point; a point closer than
#: this to a line is on it (proportions lie in [0, 1]; see :func:`_hyperplane_sets`).
_GEOMETRY_TOL = 1e-10


def multiclass_plan(
    level_stats, counts, criterion, max_candidates=MAX_CATEGORICAL_CANDIDATES
):
    """Which exact or heuristic search ``"auto"`` runs at a node with 3+ class columns.

    With ``k`` present levels and ``c`` classes of positive weight at the node:

    * ``"scan"`` when ``c <= 2`` or ``k <= 3``: the levels lie on one edge of
      the simplex and the principal-component scan is the exact sorted scan,
      or the scan and one-vs-rest list every partition;
    * ``"exhaustive"`` when ``2**(k-1) - 1 <= max_candidates``: every partition;
    * ``"hyperplane"`` when ``c == 3`` and ``2 k' (k' - 1) <= max_candidates``
      (``k'`` levels of positive weight): every partition a line cuts in the
      triangle of class proportions (:func:`_hyperplane_sets`), exact;
    * ``"local"`` otherwise, a heuristic: the line cuts in the plane of the
      first two principal axes of the proportions when ``2 k' (k' - 1)`` fits
      the budget, then single-level moves (:func:`_improve_by_moves`) from the
      best of those and from the best scan or one-vs-rest candidate.

    Parameters
    ----------
    level_stats : ndarray of shape (k, n_classes)
        Weighted class counts of each level (:func:`level_statistics`).
    counts : ndarray of int of shape (k,)
        Rows of each level; levels without rows are not present.
    criterion : str
        A classification criterion.
    max_candidates : int
        The budget of candidate partitions.

    Returns
    -------
    {"scan", "exhaustive", "hyperplane", "local"}

    Examples
    --------
    >>> stats = np.array([[4.0, 0, 0], [0, 4, 0], [0, 0, 4], [2, 2, 0]])
    >>> multiclass_plan(stats, np.array([4, 4, 4, 4]), "gini")
    'exhaustive'
    >>> multiclass_plan(stats, np.array([4, 4, 4, 4]), "gini", max_candidates=6)
    'local'
    >>> nine = np.vstack([stats, stats, [[1.0, 1, 1]]])
    >>> multiclass_plan(nine, np.full(9, 3), "gini", max_candidates=200)  # 144 < 255
    'hyperplane'
    """
    counts = np.asarray(counts)
    k = int((counts > 0).sum())
    weight = total_weight(level_stats, criterion)
    n_classes = int((level_stats[counts > 0].sum(axis=0) > 0).sum())
    if not multiclass_beyond_scan(n_classes, k):
        return "scan"
    if k <= 62 and 2 ** (k - 1) - 1 <= max_candidates:
        return "exhaustive"
    k_positive = int(((counts > 0) & (weight > 0)).sum())
    if n_classes == 3 and 2 * k_positive * (k_positive - 1) <= max_candidates:
        return "hyperplane"
    return "local"


def multiclass_beyond_scan(n_classes, n_present):
    """Where :func:`multiclass_plan` searches past the scan and one-vs-rest.

    At nodes with three or more classes of positive weight and four or more
    present levels.  Below that the levels lie on one edge of the simplex
    (the principal-component scan is the exact sorted scan), or the scan and
    one-vs-rest list every partition.  Vectorised: arrays of nodes in, an
    array out; the level-wise builder asks it for a whole level at once.

    >>> multiclass_beyond_scan(np.array([2, 3, 3]), np.array([5, 3, 4])).tolist()
    [False, False, True]
    """
    return (np.asarray(n_classes) >= 3) & (np.asarray(n_present) >= 4)


def auto_candidate_lists(criterion, n_columns: int) -> tuple[str, ...]:
    """The candidate lists ``"auto"`` scores first, in tie order, before any wider search.

    The sorted scan (:func:`level_order`); then, with three or more class
    columns or several outputs (where the scan is a heuristic), the
    one-vs-rest candidates.  ``n_columns`` is the number of statistics per level.

    >>> auto_candidate_lists("gini", 2), auto_candidate_lists("gini", 3)
    (('scan',), ('scan', 'one_vs_rest'))
    """
    several = n_outputs(criterion) > 1
    multiclass = criterion in CLASSIFICATION_CRITERIA and n_columns > 2 and not several
    return ("scan", "one_vs_rest") if multiclass or several else ("scan",)


@functools.lru_cache(maxsize=32)
def _exhaustive_sets(k: int) -> np.ndarray:
    """All ``2**(k-1) - 1`` left sets over ``k`` levels, the last level always right.

    Row ``m - 1`` holds the bits of ``m = 1 .. 2**(k-1) - 1`` (bitmask order).
    """
    masks = np.arange(1, 2 ** (k - 1), dtype=np.int64)
    sets = ((masks[:, None] >> np.arange(k - 1)) & 1).astype(bool)
    sets.flags.writeable = False  # cached: shared by every call
    return sets


def _proportions(stats: np.ndarray) -> np.ndarray:
    """Class proportions of levels of positive weight (rows of ``stats``)."""
    return stats / stats.sum(axis=1, keepdims=True)


def _hyperplane_sets(points: np.ndarray, tol: float = _GEOMETRY_TOL) -> np.ndarray:
    """Every partition of 2-D ``points`` that a line cuts, as left sets (bool rows).

    For each pair ``(i, j)``, ``i < j``, of distinct points, the line through
    them splits the others into those strictly on its negative side ``S``
    (cross product of ``q_j - q_i`` and ``q_l - q_i`` below ``-tol |q_j - q_i|``),
    those on the line, and the rest.  Along the line the points on it are
    ordered by ``t``, their coordinate in the direction ``q_j - q_i``.  The
    candidates of the pair, in this order, are ``S``; ``S`` plus the points on
    the line with ``t <= t_l`` for each point ``l`` on the line (by index);
    ``S`` plus those with ``t >= t_l`` for each point ``l`` on the line past
    ``i``.  A line is used once: only the pair whose points are the two ends
    of the points on it.  In general position that is four candidates per
    pair, ``2 k (k - 1)`` in all.

    **Coverage.**  Let a line strictly separate ``A`` from ``B`` (both
    nonempty, the points not all equal).  Move it parallel towards ``A``
    until it first touches points of ``A``.  If it touches two distinct
    points, the touched points are all of ``A`` on the line and ``B`` is
    strictly on the other side: ``A = S`` plus all points on the line (or
    ``B = S`` with the sides named the other way, a candidate with the empty
    prefix).  If it touches one point ``a`` (and its copies), turn the line
    about ``a`` until it meets another point ``b``; nothing crosses the line
    before that.  Turning one way, the line meets ``B`` points only on one
    ray from ``a`` and ``A`` points only on the other ray, so the points of
    ``A`` on the final line are those at or behind ``a``: a prefix of the
    on-line points ordered along the line one way or the other.  The line's
    end pair lists ``S`` with every such prefix, and the complement of an
    ascending prefix is a descending one, so one of the two sides of the
    partition is listed whichever side ``S`` lies on.  Hence every
    line-separable partition is a candidate.

    Floating-point proportions are compared with the tolerance ``tol``:
    points within it are one point, and a point within it of a line is on
    the line (levels on an edge of the triangle, where a class is absent, are
    collinear exactly in exact arithmetic and to rounding here).

    Three points: every partition, each named by its side holding point 0
    (``(0, 1, 2)`` is the empty cut, which the scores rule out).

    >>> q = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> sides = {tuple(np.flatnonzero(r if r[0] else ~r)) for r in _hyperplane_sets(q)}
    >>> sorted(tuple(int(c) for c in side) for side in sides)
    [(0,), (0, 1), (0, 1, 2), (0, 2)]
    """
    k = len(points)
    i, j = np.triu_indices(k, 1)
    d = points[j] - points[i]
    length = np.hypot(d[:, 0], d[:, 1])
    distinct = length > tol
    i, j, d, length = i[distinct], j[distinct], d[distinct], length[distinct]
    if not len(i):
        return np.zeros((0, k), dtype=bool)
    u = d / length[:, None]
    rel = points[None, :, :] - points[i][:, None, :]  # (pairs, k, 2)
    s = u[:, None, 0] * rel[:, :, 1] - u[:, None, 1] * rel[:, :, 0]  # signed distance
    t = u[:, None, 0] * rel[:, :, 0] + u[:, None, 1] * rel[:, :, 1]  # along the line
    on = np.abs(s) <= tol
    # Keep only the pair at the two ends of the points on its line.
    inside = np.where(on, (t >= -tol) & (t <= length[:, None] + tol), True).all(axis=1)
    s, t, on = s[inside], t[inside], on[inside]
    base = (s < 0) & ~on
    pair_a, level_a = np.nonzero(on)  # ascending prefixes: t <= t_l
    ascending = base[pair_a] | (
        on[pair_a] & (t[pair_a] <= t[pair_a, level_a, None] + tol)
    )
    past = t[pair_a, level_a] > tol
    pair_d, level_d = pair_a[past], level_a[past]  # descending prefixes: t >= t_l
    descending = base[pair_d] | (
        on[pair_d] & (t[pair_d] >= t[pair_d, level_d, None] - tol)
    )
    sets = np.concatenate([base, ascending, descending])
    owner = np.concatenate([np.arange(len(base)), pair_a, pair_d])
    return sets[np.argsort(owner, kind="stable")]


def _plane_coordinates(p: np.ndarray, w: np.ndarray, dims: int = 2) -> np.ndarray:
    """Coordinates of proportion vectors ``p`` in the plane of their first principal axes.

    Exact (an affine, one-to-one map of the points' plane) when the points
    span at most ``dims`` dimensions, as with three classes.
    """
    centred, vectors = _principal_axes(p, w)
    return _project(centred, vectors[:, ::-1][:, :dims])


def _improve_by_moves(left, stats, counts, criterion, min_samples_leaf, parent):
    """Move single levels across while that lowers the score; the final left set.

    ``left`` is a bool row over the levels of ``stats``; each step scores
    every single-level move and makes the best one if it beats the current
    score by more than the tie tolerance (so it stops).
    """
    k = len(left)
    flips = np.eye(k, dtype=bool)
    current = _set_scores(left[None, :], stats, counts, criterion, min_samples_leaf)[0]
    for _ in range(4 * k):
        candidates = _candidates_of_moves(left, stats, counts, criterion)
        scores = candidate_scores(candidates, stats, criterion, min_samples_leaf)
        if not np.isfinite(scores).any():
            break
        best = int(np.nanargmin(scores))
        tol = tie_tolerance(parent, scores[best])
        if np.isfinite(current) and not scores[best] < current - tol:
            break
        left, current = left ^ flips[best], scores[best]
    return left


def _candidates_of_moves(left: np.ndarray, stats, counts, criterion) -> Candidates:
    """Candidate ``c`` moves level ``c`` of the bool row ``left`` to the other side.

    Each side of candidate ``c`` is summed as (its levels before ``c``, added
    in order) + (level ``c`` if it joins) + (its levels after ``c``, added from
    the last one down): running sums (``np.cumsum``), no BLAS, and ``O(k)``
    for the ``k`` candidates.
    """
    positive = (total_weight(stats, criterion) > 0).astype(np.intp)
    sides = []
    for values in (stats, np.asarray(counts, dtype=np.intp)[:, None], positive[:, None]):
        for side in (left, ~left):
            kept = np.where(side[:, None], values, 0)
            before = np.zeros_like(kept)
            before[1:] = np.cumsum(kept[:-1], axis=0)
            after = np.zeros_like(kept)
            after[:-1] = np.cumsum(kept[:0:-1], axis=0)[::-1]
            sides.append(before + np.where(side[:, None], 0, values) + after)
    left_sums, right_sums, n_left, n_right, positive_left, positive_right = sides
    k = len(left)
    return Candidates(
        left_sums,
        right_sums,
        n_left[:, 0],
        n_right[:, 0],
        positive_left[:, 0],
        positive_right[:, 0],
        lambda i: tuple(int(c) for c in np.flatnonzero(left ^ (np.arange(k) == i))),
    )


def _set_scores(sets, stats, counts, criterion, min_samples_leaf):
    """Scores (NaN: not allowed, as in :func:`candidate_scores`) of left sets over ``stats``."""
    candidates = _candidates_from_sets(sets, stats, counts, criterion)
    return candidate_scores(candidates, stats, criterion, min_samples_leaf)


def _multiclass_sets(stats, counts, criterion, min_samples_leaf, plan, start, max_candidates):
    """Left sets (bool rows over the rows of ``stats``) of the ``"hyperplane"`` or ``"local"`` plan.

    ``stats`` and ``counts`` hold the present levels only.  ``start`` is the
    left set of the best sorted-scan or one-vs-rest candidate (or ``None``),
    where the local search starts.  See :func:`multiclass_plan`.
    """
    k = len(counts)
    weight = total_weight(stats, criterion)
    positive = np.flatnonzero(weight > 0)
    classes = stats[positive].sum(axis=0) > 0
    p = _proportions(stats[positive][:, classes])
    if plan == "hyperplane" or 2 * len(positive) * (len(positive) - 1) <= max_candidates:
        # Three classes: the plane of the triangle, exact.  More: the plane of
        # the first two principal axes, a heuristic that contains the scan.
        points = p[:, :2] if p.shape[1] == 3 else _plane_coordinates(p, weight[positive])
        inner = _hyperplane_sets(points)
        found = np.zeros((len(inner), k), dtype=bool)
        found[:, positive] = inner
    else:
        found = np.zeros((0, k), dtype=bool)
    if plan == "hyperplane":
        return found
    # Local improvement from the best candidate so far.
    parent = float(impurity_from_statistics(stats.sum(axis=0), criterion))
    starts = [] if start is None else [start]
    if len(found):
        scores = _set_scores(found, stats, counts, criterion, min_samples_leaf)
        if np.isfinite(scores).any():
            starts.append(found[int(np.nanargmin(scores))])
    improved = [
        _improve_by_moves(s, stats, counts, criterion, min_samples_leaf, parent) for s in starts
    ]
    return np.concatenate([found, np.array(improved, dtype=bool).reshape(-1, k)])


#: The search behind each value of ``categorical_split``.
CATEGORICAL_SEARCHES = {
    "auto": auto_split,
    "one_vs_rest": one_vs_rest_split,
    "partition": partition_split,
}


def best_categorical_split(
    X: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion: str,
    min_samples_leaf: int,
    features: np.ndarray,
    method: str = "auto",
    min_samples_level: int = 1,
    max_candidates: int = MAX_CATEGORICAL_CANDIDATES,
) -> CategoricalSplit | None:
    """Best split over the categorical columns ``features`` of ``X`` (codes as floats).

    Lowest feature index wins among equal scores (:func:`climbing_trees.choose_best`).
    Levels with fewer than ``min_samples_level`` rows are pooled first
    (:func:`pool_rare_pairs`) and go to one side together.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The node's rows; categorical columns hold level codes as floats.
    Y : ndarray of shape (n_samples, n_columns)
        One-hot labels, or the regression targets.
    sample_weight : ndarray of shape (n_samples,)
        Weights of the rows.
    criterion : str
        Any criterion of the trees.
    min_samples_leaf : int
        Candidates leaving fewer rows than this on either side are skipped.
    features : array-like of int
        The categorical columns to search, increasing.
    method : {"auto", "one_vs_rest", "partition"}
        The search run on each column (the estimators' ``categorical_split``).
    min_samples_level : int
        Levels with fewer rows are pooled (the estimators' parameter).
    max_candidates : int
        The budget of ``"auto"`` (:func:`multiclass_plan`).

    Returns
    -------
    CategoricalSplit or None
        The winner, ``feature`` its column of ``X``; ``None`` without any
        allowed candidate.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 2.0], [1.0, 0.0]])
    >>> Y = np.array([[1.0], [2.0], [5.0], [6.0]])
    >>> best_categorical_split(X, Y, np.ones(4), "squared_error", 1, [0, 1])
    CategoricalSplit(feature=0, levels_left=(0,), score=0.25)
    """
    if criterion == "absolute_error":
        splits = []
        for j in features:
            split = absolute_error_split(X[:, j], Y, sample_weight, method, min_samples_leaf)
            if split is not None:
                splits.append(split._replace(feature=int(j)))
        return best_of(splits, output_absolute_error(Y, sample_weight))
    search = {"auto": _auto, "one_vs_rest": _one_vs_rest, "partition": _partition}[method]
    # The per-row statistics are shared by every feature: compute them once.
    phi = node_statistics(_centred(Y, sample_weight, criterion), sample_weight, criterion)
    splits = []
    for j in features:
        level_stats, counts = _level_sums(X[:, j], phi)
        level_stats, counts, group = pool_rare_levels(level_stats, counts, min_samples_level)
        if method == "auto":
            split = search(level_stats, counts, criterion, min_samples_leaf, max_candidates)
        else:
            split = search(level_stats, counts, criterion, min_samples_leaf)
        if split is not None and (group >= 0).any():
            left = np.zeros(len(counts), dtype=bool)
            left[list(split.levels_left)] = True
            levels_left = tuple(int(c) for c in np.flatnonzero(expand_pooled(left, group)))
            split = split._replace(levels_left=levels_left)
        if split is not None:
            splits.append(split._replace(feature=int(j)))
    if not splits:
        return None
    parent = float(impurity_from_statistics(phi.sum(axis=0), criterion))
    return splits[choose_best(np.array([s.score for s in splits]), parent)]


def pool_rare_pairs(stats, counts, pair_node, n_nodes: int, min_level: int):
    """Pool the rare levels of each node into one group (``min_samples_level``).

    A guard against the selection bias of many-level features (chapter 7): a
    feature with many rare levels can always find *some* partition that looks
    good on the training rows.  The input lists (node, level) pairs by node,
    then code: ``stats[i]`` and ``counts[i]`` are the statistics and rows of
    level ``i``'s pair at node ``pair_node[i]``.  At each node, the rare
    levels (present, but with fewer rows than ``min_level``) are summed, in
    code order, into the node's lowest rare code, and the other rare codes
    get zero rows; the search then moves the group as one level, and
    :func:`expand_pooled` sends every rare level to the group's side.  With
    ``min_level=1`` (the default) nothing is pooled.

    Both builders call it: ``grow_tree`` on one node's levels
    (:func:`pool_rare_levels`), the level-wise builder on the pairs of all
    the nodes of a depth, so the pooled sums have the same bits.  Returns
    ``(stats, counts, group)``, ``group[i]`` the pair whose side pair ``i``
    takes (-1 if it is not rare).

    Parameters
    ----------
    stats : ndarray of shape (n_pairs, n_statistics)
        Summed statistics of each (node, level) pair.
    counts : ndarray of int of shape (n_pairs,)
        Rows of each pair.
    pair_node : ndarray of int of shape (n_pairs,)
        The node of each pair, in ``0..n_nodes-1``.
    n_nodes : int
        Number of nodes.
    min_level : int
        Present levels with fewer rows are rare.

    Returns
    -------
    stats : ndarray of shape (n_pairs, n_statistics)
        The pooled statistics.
    counts : ndarray of int of shape (n_pairs,)
        The pooled row counts.
    group : ndarray of int of shape (n_pairs,)
        The pair whose side each pair takes, -1 if it is not rare.

    Examples
    --------
    One node; levels 0, 1 and 3 have one row each, fewer than ``min_level=2``,
    so they are pooled into code 0, the lowest of them:

    >>> stats = np.array([[1.0, 0.0], [0.0, 1.0], [3.0, 0.0], [0.0, 1.0]])
    >>> out = pool_rare_pairs(stats, np.array([1, 1, 3, 1]), np.zeros(4, int), 1, 2)
    >>> [a.tolist() for a in out]
    [[[1.0, 2.0], [0.0, 0.0], [3.0, 0.0], [0.0, 0.0]], [3, 0, 3, 0], [0, 0, -1, 0]]
    """
    counts = np.asarray(counts)
    group = np.full(len(counts), -1, dtype=np.intp)
    rare = (counts > 0) & (counts < min_level)
    if not rare.any():
        return stats, counts, group
    rare_pairs = np.flatnonzero(rare)
    rare_node = pair_node[rare_pairs]
    nodes, first = np.unique(rare_node, return_index=True)
    group_pair = rare_pairs[first]  # the lowest rare code of each node
    pooled = [
        np.bincount(rare_node, weights=stats[rare_pairs, c], minlength=n_nodes)
        for c in range(stats.shape[1])
    ]
    rare_counts = counts[rare_pairs]
    pooled_counts = np.bincount(rare_node, weights=rare_counts, minlength=n_nodes)
    stats = np.where(rare[:, None], 0.0, stats)
    stats[group_pair] = np.stack(pooled, axis=1)[nodes]
    counts = np.where(rare, 0, counts)
    counts[group_pair] = pooled_counts[nodes].astype(counts.dtype)
    owner = np.full(n_nodes, -1, dtype=np.intp)
    owner[nodes] = group_pair
    group[rare_pairs] = owner[rare_node]
    return stats, counts, group


def pool_rare_levels(level_stats, counts, min_samples_level: int):
    """:func:`pool_rare_pairs` at one node: ``(k, m)`` statistics, ``(k,)`` counts.

    Parameters
    ----------
    level_stats : ndarray of shape (k, n_statistics)
        Summed statistics of each level (:func:`level_statistics`).
    counts : ndarray of int of shape (k,)
        Rows of each level.
    min_samples_level : int
        Present levels with fewer rows are pooled.

    Returns
    -------
    level_stats, counts, group : ndarray
        As in :func:`pool_rare_pairs`.

    Examples
    --------
    >>> stats = np.array([[1.0, 0.0], [0.0, 1.0], [3.0, 0.0], [0.0, 1.0]])
    >>> pooled, counts, group = pool_rare_levels(stats, np.array([1, 1, 3, 1]), 2)
    >>> pooled.tolist(), counts.tolist(), group.tolist()
    ([[1.0, 2.0], [0.0, 0.0], [3.0, 0.0], [0.0, 0.0]], [3, 0, 3, 0], [0, 0, -1, 0])
    """
    pair_node = np.zeros(len(counts), dtype=np.intp)
    return pool_rare_pairs(level_stats, counts, pair_node, 1, min_samples_level)


def expand_pooled(left: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Send every pooled level to its group's side (see :func:`pool_rare_pairs`).

    ``left`` marks the levels (or pairs) sent left; ``group`` is the third
    result of :func:`pool_rare_pairs`.

    >>> expand_pooled(np.array([True, False, False, False]), np.array([0, 0, -1, 0]))
    array([ True,  True, False,  True])
    """
    rare = group >= 0
    if not rare.any():
        return left
    left = np.array(left, dtype=bool)
    left[rare] = left[group[rare]]
    return left


def categories_left_row(
    levels_left: tuple[int, ...] | np.ndarray,
    present: np.ndarray,
    weight_left: float,
    weight_right: float,
    width: int,
) -> np.ndarray:
    """The ``Tree.categories_left`` row of a categorical node (stored compactly).

    ``present`` is a bool array over codes (levels with rows at the node);
    ``width`` is ``max_levels + 1``.  Absent codes and the last column (unseen
    codes) go to the heavier child, right on equal weights.

    Parameters
    ----------
    levels_left : tuple of int or ndarray of int
        Codes sent left by the split.
    present : ndarray of bool
        Which codes have rows at the node.
    weight_left, weight_right : float
        The children's weights.
    width : int
        Length of the row, ``max_levels + 1``.

    Returns
    -------
    ndarray of bool of shape (width,)
        True where a code goes left.

    Examples
    --------
    >>> categories_left_row((1,), np.array([True, True, False]), 1.0, 5.0, 4).tolist()
    [False, True, False, False]
    >>> categories_left_row((0, 1), np.array([True, True, True]), 5.0, 1.0, 4).tolist()
    [True, True, False, True]
    """
    row = np.full(width, bool(unseen_goes_left(weight_left, weight_right)))
    present = np.flatnonzero(np.asarray(present, dtype=bool))
    row[present] = False
    row[np.asarray(levels_left, dtype=np.intp)] = True
    return row


def check_categorical_split(value) -> str:
    """Validate the ``categorical_split`` parameter."""
    if not isinstance(value, str) or value not in CATEGORICAL_SPLITS:
        allowed = ", ".join(repr(c) for c in CATEGORICAL_SPLITS)
        raise ValueError(f"categorical_split={value!r} is not supported; use one of {allowed}.")
    return value
