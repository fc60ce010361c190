"""Impurity functions: Gini, entropy, squared error and Poisson deviance, with weights.

Chapter 1 of the book ("Building blocks") explains this module.

Every criterion here is computed from *sufficient statistics*: weighted sums
over the samples of a node.  A node's samples are summarised by one row of
numbers, the sum of ``phi(y_i) * w_i`` over its samples, where

* for classification ``phi(y)`` is the one-hot row of the label, so the
  statistics are the weighted class counts ``(c_1, ..., c_K)``;
* for regression ``phi(y) = (1, y, y**2)``, so the statistics are the total
  weight ``W``, the weighted sum and the weighted sum of squares;
* for Poisson deviance ``phi(y) = (1, y, y log y, [y > 0])``: the total
  weight, the weighted sum, the weighted sum of ``y log y`` and the number of
  rows with a positive target (unweighted, so its sums are exact integers).

Because statistics add up, the statistics of a node are the sum of those of
its children.  That single fact powers the incremental search of chapter 3.

Several outputs (``y`` of shape ``(n_samples, n_outputs)``, scikit-learn's
semantics) keep one block of columns per output: one-hot columns per output
for classification, one target column per output for regression.  The
criterion is then an :class:`OutputLayout`, a criterion name that also knows
the width of each block, and a node's impurity is the mean over outputs of
each output's impurity.  The mean itself is taken in one place,
:func:`output_mean`: :func:`impurity_from_statistics` (which ``grow_tree``
calls) and the level-wise builder's cheap gain formulas (chapter 11) both
divide by the number of outputs through it.

Absolute error is the exception: its leaf value is a weighted median, which
no fixed set of sums determines.  :func:`weighted_median` and
:func:`absolute_error` compute it from the rows, and the split searches find
each child's median instead of summing: running medians
(:mod:`climbing_trees._median`, chapter 3's "A criterion without an O(1)
update"), or a wavelet matrix for all candidates at once
(:mod:`climbing_trees._wavelet`).
"""

from __future__ import annotations

import numpy as np

from ._libm import log, xlog2x

CLASSIFICATION_CRITERIA = ("gini", "entropy", "log_loss")
REGRESSION_CRITERIA = ("squared_error", "poisson", "absolute_error")
#: Criteria computed from summed per-row statistics (all but absolute error).
STATISTICS_CRITERIA = (*CLASSIFICATION_CRITERIA, "squared_error", "poisson")


class OutputLayout(str):
    """A criterion name with the column layout of several outputs.

    It compares, hashes and prints as the plain name (``"gini"``), so every
    function that takes a criterion takes it; ``widths[k]`` is the number of
    columns of output ``k`` in ``Y`` (its classes, or 1 for a regression
    target).  One output is the plain name itself.

    Parameters
    ----------
    name : str
        The criterion's name, such as ``"gini"`` or ``"squared_error"``.
    widths : sequence of int
        Columns of each output in ``Y``.

    Attributes
    ----------
    widths : tuple of int
        ``widths`` as Python ints.

    Examples
    --------
    >>> layout = OutputLayout("gini", (2, 3))
    >>> layout == "gini", n_outputs(layout), n_outputs("gini")
    (True, 2, 1)
    """

    widths: tuple[int, ...]

    def __new__(cls, name: str, widths):
        obj = super().__new__(cls, name)
        obj.widths = tuple(int(k) for k in widths)
        return obj

    def __reduce__(self):
        return (OutputLayout, (str(self), self.widths))

    def __repr__(self) -> str:
        return str.__repr__(str(self))


def output_criterion(name: str, widths) -> str:
    """``name`` itself for one output, else an :class:`OutputLayout` with ``widths``.

    Parameters
    ----------
    name : str
        The criterion's name.
    widths : sequence of int
        Columns of each output in ``Y`` (classes, or 1 for a regression target).

    Returns
    -------
    str
        ``name`` when there is one output, else ``OutputLayout(name, widths)``.

    Examples
    --------
    >>> output_criterion("gini", [3])
    'gini'
    >>> output_criterion("gini", [2, 3]).widths
    (2, 3)
    """
    widths = tuple(int(k) for k in widths)
    return name if len(widths) == 1 else OutputLayout(name, widths)


def n_outputs(criterion: str) -> int:
    """How many outputs a criterion describes (1 for a plain name)."""
    return len(getattr(criterion, "widths", (0,)))


def output_mean(total, criterion: str):
    """The mean over outputs of ``total``, a sum of one term per output.

    The one place where several outputs are averaged: ``total`` itself for
    one output, else ``total / n_outputs(criterion)`` (in place for a float
    array, which callers own).

    >>> output_mean(3.0, "gini"), output_mean(3.0, OutputLayout("gini", (2, 2)))
    (3.0, 1.5)
    """
    k = n_outputs(criterion)
    if k == 1:
        return total
    if isinstance(total, np.ndarray) and total.dtype.kind == "f":
        return np.divide(total, k, out=total)
    return total / k


def output_widths(criterion: str, n_columns: int) -> tuple[int, ...]:
    """Columns of each output in ``Y`` (``n_columns`` in all) under ``criterion``."""
    return getattr(criterion, "widths", (n_columns,))


def _blocks(criterion: str, n_columns: int) -> list[slice]:
    """The column slice of each output's block in ``Y``, or in classification statistics."""
    widths = output_widths(criterion, n_columns)
    ends = np.cumsum(widths)
    return [slice(int(e - k), int(e)) for e, k in zip(ends, widths, strict=True)]


def value_by_output(value: np.ndarray, criterion: str) -> np.ndarray:
    """Node values ``(nodes, n_columns)`` as scikit-learn's ``(nodes, n_outputs, width)``.

    Output ``k`` fills the first ``widths[k]`` entries of its row (its class
    proportions, or its mean); a narrower output is padded with zeros, as
    scikit-learn pads ``tree_.value`` to ``max(n_classes_)``.  Both builders
    call this to store their values.

    >>> value_by_output(np.array([[0.5, 0.5, 0.2, 0.3, 0.5]]), OutputLayout("gini", (2, 3)))
    array([[[0.5, 0.5, 0. ],
            [0.2, 0.3, 0.5]]])
    """
    value = np.asarray(value, dtype=float)
    if n_outputs(criterion) == 1:
        return value[:, None, :]
    if criterion in REGRESSION_CRITERIA:
        return value[:, :, None]
    blocks = _blocks(criterion, value.shape[1])
    out = np.zeros((len(value), len(blocks), max(b.stop - b.start for b in blocks)))
    for k, block in enumerate(blocks):
        out[:, k, : block.stop - block.start] = value[:, block]
    return out


def gini(proportions: np.ndarray) -> np.ndarray:
    """Gini impurity ``1 - sum_k p_k**2`` of class proportions (last axis).

    Parameters
    ----------
    proportions : array-like of shape (..., n_classes)
        Class proportions, each row summing to 1.

    Returns
    -------
    ndarray of shape (...)
        The impurity of each row.

    Examples
    --------
    >>> float(gini(np.array([0.5, 0.5])))
    0.5
    """
    proportions = np.asarray(proportions, dtype=float)
    return 1.0 - np.sum(proportions**2, axis=-1)


def entropy(proportions: np.ndarray) -> np.ndarray:
    """Shannon entropy in bits, ``-sum_k p_k log2 p_k``, with ``0 log 0 = 0``.

    Parameters
    ----------
    proportions : array-like of shape (..., n_classes)
        Class proportions, each row summing to 1.

    Returns
    -------
    ndarray of shape (...)
        The entropy of each row, in bits.

    Examples
    --------
    >>> float(entropy(np.array([0.5, 0.5])))
    1.0
    """
    p = np.asarray(proportions, dtype=float)
    # p log2 p, 0 where p is 0 (by continuity), with the C library's log2: the
    # same bits on every CPU (numpy's np.log2 rounds otherwise with AVX-512).
    return 0.0 - np.sum(xlog2x(p), axis=-1)  # 0.0 - x: a pure node's entropy is +0.0


def squared_error(y: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
    """Weighted mean squared distance of ``y`` to its weighted mean.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Targets.
    sample_weight : ndarray of shape (n_samples,), optional
        Weights of the samples; unit weights when omitted.

    Returns
    -------
    float
        ``sum_i w_i (y_i - mean)**2 / sum_i w_i``.

    Examples
    --------
    >>> squared_error(np.array([1.0, 3.0]))
    1.0
    >>> squared_error(np.array([1.0, 3.0]), np.array([3.0, 1.0]))
    0.75
    """
    y = np.asarray(y, dtype=float)
    w = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, float)
    mean = np.sum(w * y) / np.sum(w)
    return float(np.sum(w * (y - mean) ** 2) / np.sum(w))


def weighted_median(y: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
    """Weighted median of ``y``, as scikit-learn's ``absolute_error`` criterion defines it.

    Sort ``y``; with ``C_k`` the cumulative weight of the ``k`` smallest
    values and ``W`` the total, take the first ``k`` with ``C_k >= W / 2``.
    If ``C_k`` equals ``W / 2`` exactly, the weight splits evenly and the
    median is the midpoint of that value and the next one; otherwise it is
    that value.  With unit weights this is the usual median (the midpoint of
    the two middle values when the count is even).

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Targets.
    sample_weight : ndarray of shape (n_samples,), optional
        Weights of the samples; unit weights when omitted.

    Returns
    -------
    float
        The weighted median; rows of zero weight are ignored.

    Examples
    --------
    >>> weighted_median(np.array([1.0, 2.0, 3.0, 10.0]))
    2.5
    >>> weighted_median(np.array([1.0, 2.0, 3.0, 10.0]), np.array([1.0, 1.0, 1.0, 4.0]))
    10.0
    """
    y = np.asarray(y, dtype=float)
    w = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, float)
    keep = w > 0
    y, w = y[keep], w[keep]
    order = np.argsort(y, kind="stable")
    y, cumulative = y[order], np.cumsum(w[order])
    half = 0.5 * cumulative[-1]
    k = min(int(np.searchsorted(cumulative, half, side="left")), len(y) - 1)
    if cumulative[k] == half and k + 1 < len(y):
        return float((y[k] + y[k + 1]) / 2)
    return float(y[k])


def absolute_error(y: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
    """Weighted mean absolute deviation of ``y`` from its :func:`weighted_median`.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Targets.
    sample_weight : ndarray of shape (n_samples,), optional
        Weights of the samples; unit weights when omitted.

    Returns
    -------
    float
        ``sum_i w_i |y_i - median| / sum_i w_i``.

    Examples
    --------
    >>> absolute_error(np.array([1.0, 2.0, 3.0, 10.0]))
    2.5
    """
    y = np.asarray(y, dtype=float)
    w = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, float)
    median = weighted_median(y, w)
    return float(np.sum(w * np.abs(y - median)) / np.sum(w))


def output_absolute_error(
    Y: np.ndarray, sample_weight: np.ndarray | None = None
) -> float:
    """:func:`absolute_error` of each column of ``Y`` (one per output), averaged.

    >>> output_absolute_error(np.array([[1.0, 0.0], [3.0, 4.0]]))
    1.5
    """
    Y = np.asarray(Y, dtype=float)
    errors = [absolute_error(Y[:, k], sample_weight) for k in range(Y.shape[1])]
    layout = output_criterion("absolute_error", [1] * len(errors))
    return float(output_mean(sum(errors), layout))


def poisson_deviance(y: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
    """Half Poisson deviance of ``y >= 0`` from its weighted mean ``m``, per unit weight.

    ``sum_i w_i (y_i log(y_i / m) - y_i + m) / W``, scikit-learn's impurity for
    ``criterion="poisson"``; the ``- y_i + m`` terms add up to zero because
    ``m`` is the weighted mean, and ``0 log 0 = 0``.  Infinite when the sum
    of ``y`` is zero: a Poisson mean must be positive.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Non-negative targets (counts or rates).
    sample_weight : ndarray of shape (n_samples,), optional
        Weights of the samples; unit weights when omitted.

    Returns
    -------
    float
        The half deviance per unit weight; ``inf`` when the weighted sum of
        ``y`` is zero.

    Examples
    --------
    >>> poisson_deviance(np.array([1.0, 1.0]))
    0.0
    >>> round(poisson_deviance(np.array([0.0, 2.0])), 6)  # log 2
    0.693147
    """
    y = np.asarray(y, dtype=float)
    w = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, float)
    total, s = np.sum(w), np.sum(w * y)
    if s <= 0:
        return float("inf")
    mean = s / total
    return float(np.sum(w * _xlogy(y, y / mean)) / total)


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x * log(y)``, 0 where ``x`` is 0 (as ``scipy.special.xlogy``), with the C
    library's logarithm (:func:`climbing_trees._libm.log`)."""
    x, y = np.broadcast_arrays(x, y)
    return log(np.where(x != 0, y, 1.0)) * x


def poisson_impurity(total, s, t, positive):
    """Half Poisson deviance of nodes from their statistics, column by column.

    With ``W`` the weight, ``S = sum w y``, ``T = sum w y log y`` and mean
    ``m = S / W``, the node's deviance is ``sum w y log(y / m) / W =
    (T - S log m) / W``.  A node without a positive target (``positive``
    rows with ``y > 0``: none) gets ``inf``: it cannot be a Poisson node,
    and a split leaving one is refused (scikit-learn's rule).  Both builders
    call this one function, so their impurities agree to the bit.

    A side's statistics are the node's minus the other side's, so a target
    smaller than the rounding error of the node's sum (about ``1e-16`` of it)
    can vanish from them: such a side has ``positive > 0`` but ``s <= 0``,
    its impurity is NaN, and the searches skip the candidate.  Whether that
    happens depends on the order of the additions.  (scikit-learn refuses
    every side whose sum is below ``2.2e-16``.)  Counts never meet this.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = s / total
        impurity = np.maximum((t - s * log(mean)) / total, 0.0)
    return np.where(positive > 0, impurity, np.inf)


def class_proportions(
    Y: np.ndarray, sample_weight: np.ndarray | None = None
) -> np.ndarray:
    """Weighted class proportions of one-hot labels ``Y`` (shape ``(n, K)``).

    A sample of weight 2 counts exactly like two copies of that sample.

    Parameters
    ----------
    Y : array-like of shape (n_samples, n_classes)
        One-hot labels (see :func:`one_hot`).
    sample_weight : ndarray of shape (n_samples,), optional
        Weights of the samples; unit weights when omitted.

    Returns
    -------
    ndarray of shape (n_classes,)
        The weighted share of each class; it sums to 1.

    Examples
    --------
    >>> Y = np.array([[1, 0], [0, 1], [0, 1]])
    >>> class_proportions(Y).tolist()
    [0.3333333333333333, 0.6666666666666666]
    >>> class_proportions(Y, np.array([2.0, 1.0, 1.0])).tolist()
    [0.5, 0.5]
    """
    Y = np.asarray(Y, dtype=float)
    w = np.ones(len(Y)) if sample_weight is None else np.asarray(sample_weight, float)
    counts = w @ Y
    return counts / counts.sum()


def one_hot(codes: np.ndarray, n_classes: int) -> np.ndarray:
    """One-hot encode integer class codes ``0..n_classes-1`` as floats.

    Parameters
    ----------
    codes : ndarray of int of shape (n_samples,)
        Class codes in ``0..n_classes-1``.
    n_classes : int
        Number of classes (columns of the result).

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
        Row ``i`` is 1.0 in column ``codes[i]`` and 0.0 elsewhere.

    Examples
    --------
    >>> one_hot(np.array([0, 2, 1]), 3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    """
    out = np.zeros((len(codes), n_classes))
    out[np.arange(len(codes)), codes] = 1.0
    return out


def node_statistics(
    Y: np.ndarray, sample_weight: np.ndarray, criterion: str
) -> np.ndarray:
    """Per-sample statistics ``phi(y_i) * w_i``, one row per sample.

    ``Y`` is one-hot (``(n, K)``) for classification and a column ``(n, 1)``
    for regression.  Summing rows gives a node's statistics; summing a prefix
    of rows sorted by a feature gives a left child's.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_columns)
        One-hot labels, or the regression targets (one column per output).
    sample_weight : ndarray of shape (n_samples,)
        Weights of the samples.
    criterion : str
        A criterion with sufficient statistics: ``"gini"``, ``"entropy"``,
        ``"log_loss"``, ``"squared_error"`` or ``"poisson"`` (or an
        :class:`OutputLayout` of one).

    Returns
    -------
    ndarray of shape (n_samples, n_statistics)
        Weighted class counts for classification; ``[w, w y, w y**2]`` per row
        for squared error; ``[w, w y, w y log y, y > 0]`` for Poisson.

    Raises
    ------
    ValueError
        For ``"absolute_error"``, whose median is not a sum.

    Examples
    --------
    >>> node_statistics(np.array([[1.0], [3.0]]), np.array([1.0, 2.0]), "squared_error")
    array([[ 1.,  1.,  1.],
           [ 2.,  6., 18.]])
    >>> node_statistics(one_hot(np.array([0, 1]), 2), np.array([1.0, 2.0]), "gini")
    array([[1., 0.],
           [0., 2.]])
    """
    w = np.asarray(sample_weight, dtype=float)[:, None]
    if criterion in CLASSIFICATION_CRITERIA:
        return Y * w
    if criterion not in STATISTICS_CRITERIA:
        raise ValueError(
            f"criterion={criterion!r} has no sufficient statistics (a median is not a "
            "sum); search its splits with wavelet_best_split or naive_best_split."
        )
    # One column per output: [W, sums..., squares...] (or Poisson's four kinds).
    y = Y[:, : n_outputs(criterion)]
    if criterion == "poisson":
        positive = ((y > 0) & (w > 0)).astype(float)
        return np.hstack([w, w * y, w * _xlogy(y, y), positive])
    return np.hstack([w, w * y, w * y * y])


def impurity_from_statistics(stats: np.ndarray, criterion: str) -> np.ndarray:
    """Impurity of nodes described by summed statistics (last axis).

    Works on a single row or on a stack of rows at once, which is what the
    vectorised searches need.  Rows with zero total weight give ``nan``.
    With several outputs (an :class:`OutputLayout`) it is the mean over the
    outputs of each output's impurity, as in scikit-learn.

    Parameters
    ----------
    stats : array-like of shape (..., n_statistics)
        Summed rows of :func:`node_statistics`, one node per row.
    criterion : str
        The criterion the statistics were made for.

    Returns
    -------
    ndarray of shape (...)
        The impurity of each node.

    Examples
    --------
    >>> impurity_from_statistics(np.array([[2.0, 2.0], [4.0, 0.0]]), "gini")
    array([0.5, 0. ])
    >>> stats = node_statistics(np.array([[1.0], [3.0]]), np.ones(2), "squared_error")
    >>> float(impurity_from_statistics(stats.sum(axis=0), "squared_error"))
    1.0
    """
    stats = np.asarray(stats, dtype=float)
    if n_outputs(criterion) > 1:
        return _mean_over_outputs(stats, criterion)
    with np.errstate(divide="ignore", invalid="ignore"):
        if criterion in CLASSIFICATION_CRITERIA:
            total = stats.sum(axis=-1, keepdims=True)
            p = stats / total
            if criterion == "gini":
                return gini(p)
            return entropy(p)
        if criterion == "squared_error":
            total, s1, s2 = stats[..., 0], stats[..., 1], stats[..., 2]
            mean = s1 / total
            # sum w (y - mean)^2 / W = s2 / W - mean^2.  Callers centre y at the
            # node's mean first, which keeps this subtraction accurate.
            return np.maximum(s2 / total - mean * mean, 0.0)
        if criterion == "poisson":
            return poisson_impurity(
                stats[..., 0], stats[..., 1], stats[..., 2], stats[..., 3]
            )
    raise ValueError(f"Unknown criterion {criterion!r}.")


def _mean_over_outputs(stats: np.ndarray, criterion: str) -> np.ndarray:
    """Impurity of several outputs: each output's, from its own statistics, averaged."""
    name, k = str(criterion), n_outputs(criterion)
    if criterion in CLASSIFICATION_CRITERIA:
        parts = [stats[..., block] for block in _blocks(criterion, stats.shape[-1])]
    else:
        # Columns [W, k sums, k squares] (Poisson: [W, k sums, k y log y, k positives]).
        n_kinds = (stats.shape[-1] - 1) // k
        parts = [
            np.stack(
                [stats[..., 0], *(stats[..., 1 + i * k + o] for i in range(n_kinds))],
                -1,
            )
            for o in range(k)
        ]
    total = impurity_from_statistics(parts[0], name)
    for part in parts[1:]:
        total = total + impurity_from_statistics(part, name)
    return output_mean(total, criterion)


def children_score(left: np.ndarray, right: np.ndarray, criterion: str, total) -> tuple:
    """Score of splits from their children's statistics: ``(W_L I_L + W_R I_R) / W``.

    ``left`` and ``right`` stack the children's summed statistics (last
    axis), ``total`` is the parent's weight ``W``.  Returns the scores with
    ``W_L`` and ``W_R``; a child without weight gives NaN (no warning).  Every
    vectorised search scores its candidates here.
    """
    w_left, w_right = total_weight(left, criterion), total_weight(right, criterion)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = (
            w_left * impurity_from_statistics(left, criterion)
            + w_right * impurity_from_statistics(right, criterion)
        ) / total
    return score, w_left, w_right


def total_weight(stats: np.ndarray, criterion: str) -> np.ndarray:
    """Total sample weight ``W`` of nodes described by their statistics."""
    stats = np.asarray(stats, dtype=float)
    if criterion in CLASSIFICATION_CRITERIA:
        # Every output's block of class counts sums to W: the first one's is used.
        return stats[..., : output_widths(criterion, stats.shape[-1])[0]].sum(axis=-1)
    return stats[..., 0]


def node_impurity(Y: np.ndarray, sample_weight: np.ndarray, criterion: str) -> float:
    """Impurity of one node holding labels ``Y`` with weights ``sample_weight``.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_columns)
        One-hot labels, or the regression targets (one column per output).
    sample_weight : ndarray of shape (n_samples,)
        Weights of the samples.
    criterion : str
        Any criterion of the trees, ``"absolute_error"`` included.

    Returns
    -------
    float
        The node's impurity.

    Examples
    --------
    >>> Y = one_hot(np.array([0, 0, 1, 1]), 2)
    >>> node_impurity(Y, np.ones(4), "gini")
    0.5
    >>> node_impurity(np.array([[1.0], [3.0]]), np.ones(2), "squared_error")
    1.0
    >>> round(node_impurity(np.array([[0.0], [2.0]]), np.ones(2), "poisson"), 6)
    0.693147
    >>> node_impurity(np.array([[1.0], [2.0], [3.0], [10.0]]), np.ones(4), "absolute_error")
    2.5
    """
    if criterion == "absolute_error":  # no sufficient statistics: from the rows
        return output_absolute_error(Y, sample_weight)
    Y = _centred(Y, sample_weight, criterion)
    stats = node_statistics(Y, sample_weight, criterion).sum(axis=0)
    return float(impurity_from_statistics(stats, criterion))


def node_value(
    Y: np.ndarray, sample_weight: np.ndarray, criterion: str | None = None
) -> np.ndarray:
    """A node's prediction: the weighted mean of ``Y`` (the median for absolute error).

    For one-hot ``Y`` this is the vector of weighted class proportions; for a
    regression column it is the weighted mean target.  Both minimise the
    node's criterion, and so does the mean for Poisson deviance (absolute
    error is minimised by a :func:`weighted_median` instead).  The weights
    matter here as much as in the split search: an unweighted mean would
    predict for a leaf a value that the weighted criterion did not choose.
    The sum adds the rows in order (:func:`segment_means`, the level-wise
    builder's sums), not through BLAS (``w @ Y``), whose order of additions
    depends on the CPU.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, n_columns)
        One-hot labels, or the regression targets (one column per output).
    sample_weight : ndarray of shape (n_samples,)
        Weights of the samples.
    criterion : str, optional
        Only ``"absolute_error"`` changes the value (a median per column).

    Returns
    -------
    ndarray of shape (n_columns,)
        Class proportions, or the mean (median) target of each output.

    Examples
    --------
    >>> node_value(np.array([[1.0], [4.0]]), np.array([2.0, 1.0])).tolist()
    [2.0]
    >>> node_value(np.array([[1.0], [4.0], [9.0]]), np.ones(3), "absolute_error").tolist()
    [4.0]
    """
    if criterion == "absolute_error":  # one median per output
        Y = np.asarray(Y, dtype=float)
        return np.array(
            [weighted_median(Y[:, k], sample_weight) for k in range(Y.shape[1])]
        )
    w = np.asarray(sample_weight, dtype=float)
    Y = np.asarray(Y, dtype=float)
    return segment_means(Y, w, np.zeros(len(w), dtype=np.intp), 1)[0]  # one segment


def segment_means(
    Y: np.ndarray,
    sample_weight: np.ndarray,
    segment: np.ndarray,
    n_segments: int,
    total=None,
) -> np.ndarray:
    """Weighted mean of each column of ``Y`` per segment (node): ``(n_segments, k)``.

    The weighted sums (:func:`segment_sums`) over the weight ``total`` (summed
    here when not given), the node value both builders store (scikit-learn's,
    to the bit).

    >>> segment_means(np.array([[1.0], [4.0], [2.0]]), np.array([2.0, 1.0, 1.0]),
    ...               np.array([0, 0, 1]), 2).tolist()
    [[2.0], [2.0]]
    """
    w = np.asarray(sample_weight, dtype=float)
    if total is None:
        total = np.bincount(segment, weights=w, minlength=n_segments)
    mean = segment_sums((w[:, None] * Y).T, segment, n_segments)
    with np.errstate(invalid="ignore", divide="ignore"):  # no weight: NaN, as 0 / 0
        mean /= total[:, None]
    return mean


def segment_ranges(
    Y: np.ndarray, sample_weight: np.ndarray, starts: np.ndarray
) -> tuple:
    """Smallest and largest value of each column of ``Y`` over the rows of positive
    weight of each segment (rows ``starts[i]`` up to ``starts[i + 1]``):
    ``(lo, hi)``, each ``(n_segments, k)``.  A segment without such a row has
    ``lo = inf > hi = -inf``.
    """
    positive = np.asarray(sample_weight) > 0
    lo = np.minimum.reduceat(np.where(positive[:, None], Y, np.inf), starts, axis=0)
    hi = np.maximum.reduceat(np.where(positive[:, None], Y, -np.inf), starts, axis=0)
    return lo, hi


def centring_means(mean: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Where squared error centres each segment's targets: its weighted ``mean``
    (:func:`segment_means`), but a column constant over the rows of positive
    weight (``lo == hi``, :func:`segment_ranges`) at that constant.

    Its centred targets are then exact zeros and its impurity exactly 0.  (The
    mean of a column constant near ``1e150`` is a few units in the last place
    away from it; centred there, its targets near ``1e134`` have squares near
    ``1e268`` that swamp the other outputs' gains.)  ``grow_tree`` (one
    segment, through :func:`_centred`) and the level-wise builder (a level's
    nodes) both call it, so their centred targets have the same bits.

    >>> Y = np.full((3, 1), 6.184052532980498e149)
    >>> mean = segment_means(Y, np.ones(3), np.zeros(3, dtype=np.intp), 1)
    >>> centre = centring_means(mean, *segment_ranges(Y, np.ones(3), np.array([0])))
    >>> bool(mean[0, 0] == Y[0, 0]), bool(centre[0, 0] == Y[0, 0])
    (False, True)
    """
    return np.where(lo == hi, lo, mean)


def segment_sums(columns, segment: np.ndarray, n_segments: int) -> np.ndarray:
    """Sums per segment of each of ``columns`` (1-D, one value per row): ``(n_segments, k)``.

    The rows are added one by one in order (``np.bincount``), never by BLAS,
    whose order of additions depends on the CPU kernel (``OPENBLAS_CORETYPE``).
    A node's mean, which centres every squared-error search, decides splits
    through its last bits: ``grow_tree`` (one segment, :func:`node_value`) and
    the level-wise builder (one segment per node of a level) both take it
    from here (:func:`segment_means`), so they get the same bits on every
    machine.

    >>> segment_sums([np.array([1.0, 2.0, 4.0])], np.array([0, 1, 0]), 2).tolist()
    [[5.0], [2.0]]
    """
    return np.stack(
        [
            np.bincount(segment, weights=column, minlength=n_segments)
            for column in columns
        ],
        axis=1,
    )


def _centred(Y: np.ndarray, sample_weight: np.ndarray, criterion: str) -> np.ndarray:
    """For squared error, shift ``y`` by its weighted mean (impurity unchanged).

    ``s2/W - mean**2`` subtracts two large numbers when ``y`` sits far from 0;
    after centring both are small and the difference keeps its precision.
    The centre is :func:`centring_means`: a constant column becomes exact
    zeros.  Poisson deviance is not shift-invariant: its ``y`` stays as it is.
    """
    if criterion != "squared_error":
        return Y
    Y, w = np.asarray(Y, dtype=float), np.asarray(sample_weight, dtype=float)
    if not len(Y):
        return Y
    mean = segment_means(Y, w, np.zeros(len(w), dtype=np.intp), 1)  # one segment
    return (
        Y - centring_means(mean, *segment_ranges(Y, w, np.zeros(1, dtype=np.intp)))[0]
    )
