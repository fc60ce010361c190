"""Misclassification costs: a loss matrix, altered priors, leaf classes by least cost.

Chapter 10 of the book ("Costs, priors and importance") explains this module.
A loss matrix ``L`` (rpart's convention) holds in ``L[i, j]`` the cost of
predicting class ``j`` when the truth is class ``i``; its diagonal is 0.  CART
(Breiman et al. 1984, section 4.4) and rpart (``parms = list(loss = L)``)
use it twice, and this module does both without touching a split search:

* **Splitting by altered priors.**  Class ``i`` costs ``c_i = sum_j L[i, j]``
  when it is misclassified.  The priors ``pi_i`` (the classes' shares of the
  training weight) become ``pi'_i = c_i pi_i / sum_k c_k pi_k``, and the tree
  is grown with the Gini criterion under ``pi'``.  With weights that is one
  factor per class, ``f_i = pi'_i / pi_i`` (:func:`altered_prior_factors`),
  multiplied into each row's weight: the builders grow the tree as they would
  with ``class_weight``.  The factors keep the total weight.
* **Leaf classes by least expected cost.**  A node with class proportions
  ``p_j`` (under the priors ``pi``, not ``pi'``) predicts the class ``k``
  that minimises ``sum_j p_j L[j, k]`` (:func:`least_cost_classes`); equal
  costs (to ``TIE_RTOL``) go to the lowest class index, as in rpart.  The
  node's risk is that least cost times its share of the weight
  (:func:`loss_node_risk`), the risk that cost-complexity pruning
  (``ccp_risk="misclassification"``) weighs.

A loss that is the same for every mistake (``L = a (1 - I)``) changes
nothing but the scale of the risk: :func:`check_loss_matrix` returns it as
such, and the tree is grown and predicts exactly as without a loss.

The fitted tree keeps the arrays it was grown with (``value``,
``impurity`` and ``weighted_n_node_samples`` under ``pi'``):
:func:`prior_proportions` recovers the proportions under ``pi``, which
``predict_proba`` returns.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._pruning import node_risk
from ._ties import TIE_RTOL
from ._tree import Tree


class LossMatrix:
    """A checked loss matrix ``L`` (``L[i, j]``: truth ``i``, prediction ``j``).

    ``uniform`` is the cost ``a`` when ``L = a (1 - I)`` (every mistake costs
    the same), else ``None``.
    """

    def __init__(self, matrix: np.ndarray):
        self.matrix = matrix
        off = matrix[~np.eye(len(matrix), dtype=bool)]
        uniform = not len(off) or np.all(off == off[0])  # one class: nothing to alter
        self.uniform = (float(off[0]) if len(off) else 1.0) if uniform else None

    @property
    def misclassification_costs(self) -> np.ndarray:
        """``c_i = sum_j L[i, j]``: what misclassifying class ``i`` costs in all."""
        return self.matrix.sum(axis=1)


def check_loss_matrix(
    loss_matrix, n_classes, n_outputs: int = 1, classes=None
) -> LossMatrix | None:
    """``loss_matrix`` checked against the fitted classes, or a clear error.

    ``None`` stays ``None``.  Otherwise a finite, non-negative square matrix
    with one row and one column per class (in ``classes_`` order), a zero
    diagonal and a positive entry in every row (rpart's rules: a class that
    costs nothing when misclassified would get a prior of 0).  ``classes``,
    the labels found in ``y``, are named in the error on a wrong shape.

    >>> check_loss_matrix([[0, 5], [1, 0]], 2).misclassification_costs.tolist()
    [5.0, 1.0]
    """
    if loss_matrix is None:
        return None
    if n_outputs != 1:
        raise ValueError(
            f"loss_matrix needs y with one output, but y has {n_outputs}; fit one "
            "classifier per output, or drop loss_matrix."
        )
    try:
        L = np.array(loss_matrix, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            "loss_matrix must be a square array of numbers (L[i, j]: the cost of "
            "predicting class j when the truth is class i)."
        ) from exc
    k = int(n_classes)
    if L.shape != (k, k):
        raise ValueError(
            f"loss_matrix has shape {L.shape}, but y has {k} classes"
            + ("" if classes is None else f" {list(np.asarray(classes).tolist())}")
            + f": pass a ({k}, {k}) matrix, rows and columns in the order of "
            "classes_ (sorted labels)."
        )
    if not np.all(np.isfinite(L)):
        raise ValueError(
            "loss_matrix contains NaN or infinity; give every cost a finite value."
        )
    if np.any(L < 0):
        raise ValueError("loss_matrix has negative entries; costs must be >= 0.")
    if np.any(np.diag(L) != 0):
        raise ValueError(
            "loss_matrix has a non-zero diagonal; a right prediction costs nothing: "
            "set L[i, i] = 0."
        )
    if k > 1 and np.any(L.sum(axis=1) == 0):
        rows = np.flatnonzero(L.sum(axis=1) == 0).tolist()
        raise ValueError(
            f"loss_matrix rows {rows} are all zero: misclassifying those classes would "
            "cost nothing, which gives them a prior of 0; give each row a positive "
            "cost."
        )
    return LossMatrix(L)


def altered_prior_factors(loss: LossMatrix, class_weights: np.ndarray) -> np.ndarray:
    """Per-class weight factors ``f_i = pi'_i / pi_i`` of the altered priors.

    ``class_weights`` holds each class's total training weight (so
    ``pi_i = W_i / W``).  With ``c_i = sum_j L[i, j]``, ``pi'_i = c_i pi_i /
    sum_k c_k pi_k`` (Breiman et al. 1984, section 4.4), so ``f_i = c_i W /
    sum_k c_k W_k``: rows weighted by ``f`` keep the total weight ``W``.  A
    uniform loss gives factors of exactly 1.

    >>> L = check_loss_matrix([[0, 3], [1, 0]], 2)
    >>> altered_prior_factors(L, np.array([50.0, 50.0])).tolist()
    [1.5, 0.5]
    """
    if loss.uniform is not None:
        return np.ones(len(class_weights))
    c = loss.misclassification_costs
    W = math.fsum(class_weights)
    return c * W / math.fsum(c * class_weights)


def prior_proportions(value: np.ndarray, factors: np.ndarray) -> np.ndarray:
    """Class proportions under the priors ``pi`` from those under ``pi'``.

    ``value`` holds proportions ``p'_j`` (one row per node or row); dividing
    by ``f_j`` and normalising undoes the altered priors.
    """
    p = value / factors
    total = p.sum(axis=-1, keepdims=True)
    return np.divide(p, total, out=np.zeros_like(p), where=total > 0)


def least_cost_classes(proba: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """The class of least expected cost ``sum_j p_j L[j, k]`` of each row of ``proba``.

    Costs within ``TIE_RTOL`` (relative) of the least are equal, and equal
    costs go to the lowest class index, as rpart's ``ginidev`` does.

    >>> proba = np.array([[0.7, 0.3], [0.8, 0.2]])
    >>> least_cost_classes(proba, np.array([[0, 1], [3, 0]]))
    array([1, 0])
    """
    costs = expected_costs(proba, loss)
    least = costs.min(axis=1, keepdims=True)
    return np.argmax(costs <= least + TIE_RTOL * np.abs(least), axis=1)


def loss_node_risk(tree: Tree, loss: LossMatrix, factors: np.ndarray) -> np.ndarray:
    """``R(t)``: a node's least expected cost times its share of the training weight.

    ``R(t) = min_k sum_j W_j(t) L[j, k] / W``, with ``W_j(t)`` the weight of
    class ``j`` at ``t`` under the priors ``pi`` (Breiman et al.'s ``R(t)``
    with costs, section 4.4; rpart's ``dev`` over the root's weight).  With
    ``L = 1 - I`` it is :func:`~climbing_trees.node_risk`
    ``(tree, "misclassification")``; a uniform loss ``a (1 - I)`` gives ``a``
    times that.  The tree holds proportions under ``pi'``, whose weights are
    ``W_j(t) f_j``: dividing row ``j`` of ``L`` by ``f_j`` undoes it.
    """
    if loss.uniform is not None:
        return loss.uniform * node_risk(tree, "misclassification")
    share = tree.weighted_n_node_samples / tree.weighted_n_node_samples[0]
    costs = expected_costs(
        share[:, None] * tree.value[:, 0, :], loss.matrix / factors[:, None]
    )
    return costs.min(axis=1)


def expected_costs(proba: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """``sum_j proba[:, j] L[j, k]`` for every class ``k``: one column per prediction.

    Summed elementwise rather than by a matrix product, whose BLAS kernel may
    round differently from one CPU to another (the costs decide the class).
    """
    return (proba[:, :, None] * loss[None, :, :]).sum(axis=1)


class FittedCosts(NamedTuple):
    """What a fit with ``loss_matrix`` keeps: the loss, the altered priors' factors."""

    loss: LossMatrix
    factors: np.ndarray

    def proba(self, value: np.ndarray) -> np.ndarray:
        """Class proportions under the priors, from the tree's (altered) ``value``."""
        if self.loss.uniform is not None:  # nothing was altered
            return value
        return prior_proportions(value, self.factors)

    def node_classes(self, value: np.ndarray) -> np.ndarray:
        """Class code of least expected cost of each row of ``value`` (tree nodes)."""
        if (
            self.loss.uniform is not None
        ):  # the 0-1 loss scaled: the most probable class
            return np.argmax(value, axis=1)
        return least_cost_classes(self.proba(value), self.loss.matrix)

    def node_risk(self, tree: Tree) -> np.ndarray:
        """``R(t)`` of pruning under the loss (:func:`loss_node_risk`)."""
        return loss_node_risk(tree, self.loss, self.factors)


def fit_costs(
    loss_matrix, n_classes, n_outputs, Y: np.ndarray, sample_weight: np.ndarray, classes=None
):
    """Check ``loss_matrix`` and weight the rows by the altered priors.

    ``Y`` is the one-hot target, ``sample_weight`` the weights so far (class
    weights included: they set the priors ``pi``).  Returns ``(costs,
    sample_weight)``: a :class:`FittedCosts` (``None`` without a loss) and the
    weights the tree is grown with.  The classes' totals are exact sums
    (:func:`math.fsum`), so the factors do not depend on the order of the rows.
    """
    loss = check_loss_matrix(loss_matrix, n_classes, n_outputs, classes)
    if loss is None:
        return None, sample_weight
    codes = Y.argmax(axis=1)
    totals = np.array([math.fsum(sample_weight[codes == k]) for k in range(Y.shape[1])])
    factors = altered_prior_factors(loss, totals)
    if loss.uniform is None:
        sample_weight = sample_weight * factors[codes]
    return FittedCosts(loss, factors), sample_weight


def prior_class_weight(y, prior, sample_weight=None) -> dict:
    """The ``class_weight`` that gives the priors ``prior`` (rpart's ``prior``).

    A class's prior is its share of the training weight; weighting class
    ``k`` by ``prior_k / share_k`` turns the shares into ``prior``.
    ``prior`` lists one value per class in sorted label order and sums to 1.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels.
    prior : array-like of shape (n_classes,)
        The wanted priors, in sorted label order.
    sample_weight : array-like of shape (n_samples,), optional
        Weights of the rows; the shares are of their sum.

    Returns
    -------
    dict
        Label to class weight, for the estimators' ``class_weight``.

    Raises
    ------
    ValueError
        When ``prior`` is not a distribution over the classes, or gives a
        prior to a class without weight.

    Examples
    --------
    Three rows of ``"a"`` and one of ``"b"`` made equally likely:

    >>> prior_class_weight(["a", "a", "a", "b"], [0.5, 0.5])
    {'a': 0.6666666666666666, 'b': 2.0}
    """
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    prior = np.asarray(prior, dtype=float)
    if (
        prior.shape != classes.shape
        or np.any(prior < 0)
        or not np.isclose(prior.sum(), 1)
    ):
        raise ValueError(
            f"prior must hold {len(classes)} non-negative values that sum to 1, one "
            "per class in sorted label order."
        )
    w = (
        np.ones(len(codes))
        if sample_weight is None
        else np.asarray(sample_weight, float)
    )
    totals = np.array([math.fsum(w[codes == k]) for k in range(len(classes))])
    empty = classes[(totals == 0) & (prior > 0)]
    if empty.size:
        raise ValueError(
            f"classes {empty.tolist()} have a prior > 0 but no training weight, "
            "so no class weight can give them that prior: give them rows of "
            "positive sample_weight, or a prior of 0."
        )
    share = totals / math.fsum(totals)
    return {
        c: float(p / s) if p > 0 else 0.0
        for c, p, s in zip(classes.tolist(), prior, share, strict=True)
    }


__all__ = [
    "FittedCosts",
    "LossMatrix",
    "altered_prior_factors",
    "check_loss_matrix",
    "expected_costs",
    "fit_costs",
    "least_cost_classes",
    "loss_node_risk",
    "prior_class_weight",
    "prior_proportions",
]
