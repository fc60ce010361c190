"""Gradient boosting (Friedman 2001) on the package's regression trees.

The book's chapter "Boosting" explains it.  Each stage
fits a :class:`DecisionTreeRegressor` to the negative gradient of the loss at
the current predictions ``F`` (the *pseudo-residuals*), then replaces each
leaf's value by one step that lowers the loss of the leaf's rows (Friedman's
``_update_terminal_regions``), and adds the tree shrunk by ``learning_rate``:

* squared error: the leaf keeps its mean residual;
* absolute error and quantile: the weighted median (or quantile) of ``y - F``
  in the leaf;
* Huber: the median plus the mean of the clipped deviations from it;
* log-loss: one Newton step ``sum(w r) / sum(w p (1 - p))`` (times
  ``(K - 1) / K`` with ``K > 2`` classes, one tree per class and stage).

The losses are small objects (:class:`_Loss` and its subclasses) with the
same definitions as scikit-learn 1.9's ``sklearn._loss`` (half squared error,
half binomial deviance...), so that ``train_score_``, ``oob_scores_`` and
early stopping read the same numbers.  The random draws (row subsamples,
the trees' seeds, the early-stopping split) follow scikit-learn's order, so
the same ``random_state`` gives the same model.
"""

from __future__ import annotations

import copy
import functools
import math
import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real
from time import time
from typing import Any

import numpy as np
from scipy.special import expit, logit
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    RealNotInt,
    StrOptions,
)
from sklearn.utils.validation import _num_samples, check_is_fitted, column_or_1d

from ._classes import MAX_ABS_TARGET, DecisionTreeRegressor
from ._dask import is_dask_collection, lazy_predict
from ._ensemble import (
    _TREE_PARAMETERS,
    MAX_SEED,
    _adopt_columns,
    _check_columns,
    _class_labels,
    _MissingValuesTag,
    _numeric_target,
    _rows_and_weights,
    _tree_call,
)
from ._libm import exp, log, logsumexp_rows, softmax_rows
from ._tree import TREE_LEAF
from ._validation import densified, power_of_two_scale

# --- weighted percentiles, as scikit-learn's ``_weighted_percentile`` -------------------------


def weighted_percentile(values, sample_weight, percentile_rank: float = 50.0) -> float:
    """The smallest value whose cumulative weight reaches ``percentile_rank`` % of the total.

    NumPy's ``"inverted_cdf"`` with weights: scikit-learn's
    ``_weighted_percentile(values, sample_weight, percentile_rank)`` (1.9,
    ``average=False``), which its gradient boosting uses for the leaves of
    the absolute-error, Huber and quantile losses.  Leading rows of weight 0
    are skipped at rank 0.

    >>> weighted_percentile(np.array([1.0, 2.0, 3.0, 4.0]), np.ones(4))
    2.0
    >>> weighted_percentile(np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 5.0]), 30)
    3.0
    """
    values = np.asarray(values, dtype=float)
    # Stable: tied values add their weights in row order, on every CPU (numpy's
    # default sort takes vectorised code chosen by the CPU, which may order ties
    # otherwise).
    order = np.argsort(values, kind="stable")
    cdf = np.cumsum(np.asarray(sample_weight, dtype=float)[order])
    target = percentile_rank / 100 * cdf[-1]
    if target == 0:
        target = np.nextafter(target, target + 1)
    position = min(int(np.searchsorted(cdf, target)), len(values) - 1)
    return float(values[order[position]])


def random_sample_mask(n_samples: int, n_in_bag: int, rng) -> np.ndarray:
    """Rows of one stochastic-boosting stage: ``n_in_bag`` of ``n_samples``, drawn by ``rng``.

    Selection sampling (Knuth's Algorithm S), with scikit-learn's draws
    (``sklearn.ensemble._gradient_boosting._random_sample_mask``): one
    uniform number per row; row ``i`` is taken when ``u_i (n - i)`` is below
    the number of rows still to take.

    >>> mask = random_sample_mask(10, 4, np.random.RandomState(0))
    >>> int(mask.sum())
    4
    """
    draws = rng.uniform(size=n_samples).tolist()
    mask = np.zeros(n_samples, dtype=bool)
    taken = 0
    for i, u in enumerate(draws):
        if u * (n_samples - i) < n_in_bag - taken:
            mask[i] = True
            taken += 1
    return mask


def _average(values, weights) -> float:
    return float(np.average(values, weights=weights))


def _safe_divide(numerator: float, denominator: float) -> float:
    """A leaf's Newton step; 0 where the Hessian vanishes (all its rows sure of their class)."""
    if abs(denominator) < 1e-150:
        return 0.0
    result = float(numerator) / float(denominator)
    if np.isinf(result):
        warnings.warn("overflow encountered in a leaf's Newton step", RuntimeWarning, stacklevel=2)
    return result


# --- the losses -------------------------------------------------------------------------------


class _Loss:
    """A loss of gradient boosting: its gradient, its value and its leaf step.

    ``raw`` has shape ``(n_samples, K)``; ``y`` is the target (class codes
    ``0..K-1`` as floats for classification).  ``factor`` scales the mean
    loss into ``train_score_`` as scikit-learn does (2 for the "half" losses).
    """

    factor = 1.0
    n_trees = 1
    #: The squared error's leaves keep the tree's mean; the others are replaced.
    updates_leaves = True

    def before_stage(self, y, raw, sample_weight) -> None:
        """Per-stage state (Huber's ``delta``)."""

    def negative_gradient(self, y, raw) -> np.ndarray:
        raise NotImplementedError

    def pointwise(self, y, raw) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, y, raw, sample_weight) -> float:
        """The weighted mean loss (scikit-learn's ``BaseLoss.__call__``)."""
        return _average(self.pointwise(y, raw), sample_weight)

    def leaf_value(self, y, neg_gradient, raw, sample_weight) -> float:
        raise NotImplementedError


class _SquaredError(_Loss):
    factor, updates_leaves = 2.0, False

    def init_estimator(self):
        return DummyRegressor(strategy="mean")

    def negative_gradient(self, y, raw):
        return y - raw[:, 0]

    def pointwise(self, y, raw):
        return 0.5 * (y - raw[:, 0]) ** 2


class _AbsoluteError(_Loss):
    def init_estimator(self):
        return DummyRegressor(strategy="quantile", quantile=0.5)

    def negative_gradient(self, y, raw):
        return np.where(raw[:, 0] > y, -1.0, 1.0)

    def pointwise(self, y, raw):
        return np.abs(y - raw[:, 0])

    def leaf_value(self, y, neg_gradient, raw, sample_weight):
        return weighted_percentile(y - raw, sample_weight, 50)


class _Quantile(_Loss):
    def __init__(self, alpha: float):
        self.alpha = alpha

    def init_estimator(self):
        return DummyRegressor(strategy="quantile", quantile=self.alpha)

    def negative_gradient(self, y, raw):
        return np.where(y >= raw[:, 0], self.alpha, self.alpha - 1.0)

    def pointwise(self, y, raw):
        diff = y - raw[:, 0]
        return np.where(diff >= 0, self.alpha * diff, (self.alpha - 1.0) * diff)

    def leaf_value(self, y, neg_gradient, raw, sample_weight):
        return weighted_percentile(y - raw, sample_weight, 100 * self.alpha)


class _Huber(_Loss):
    """Huber's loss; ``delta`` is the ``alpha`` quantile of ``|y - F|`` before each stage."""

    def __init__(self, alpha: float):
        self.alpha, self.delta = alpha, 0.5  # scikit-learn's HuberLoss starts at 0.5

    def init_estimator(self):
        return DummyRegressor(strategy="quantile", quantile=0.5)

    def before_stage(self, y, raw, sample_weight):
        errors = np.abs(y - raw[:, 0])
        self.delta = weighted_percentile(errors, sample_weight, 100 * self.alpha)

    def negative_gradient(self, y, raw):
        residual = y - raw[:, 0]
        return np.where(np.abs(residual) <= self.delta, residual,
                        np.where(residual > 0, self.delta, -self.delta))  # fmt: skip

    def pointwise(self, y, raw):
        error = np.abs(y - raw[:, 0])
        return np.where(error <= self.delta, 0.5 * error**2,
                        self.delta * (error - 0.5 * self.delta))  # fmt: skip

    def leaf_value(self, y, neg_gradient, raw, sample_weight):
        residual = y - raw
        median = weighted_percentile(residual, sample_weight, 50)
        diff = residual - median
        step = np.sign(diff) * np.minimum(self.delta, np.abs(diff))
        return median + _average(step, sample_weight)


def _log1pexp(x):
    """``log(1 + exp(x))`` without overflow."""
    return np.logaddexp(0.0, x)


class _BinomialLogLoss(_Loss):
    """Half the binomial deviance: ``log(1 + exp(F)) - y F``; ``p = expit(F)``."""

    factor = 2.0

    def init_estimator(self):
        return DummyClassifier(strategy="prior")

    def link(self, proba):
        return logit(proba)

    def negative_gradient(self, y, raw):
        raw = raw[:, 0]
        e = exp(-raw)  # inf for raw below about -709, no warning: not selected then
        gradient = np.where(raw > -37, ((1 - y) - y * e) / (1 + e), exp(raw) - y)
        return -gradient

    def pointwise(self, y, raw):
        return _log1pexp(raw[:, 0]) - y * raw[:, 0]

    def leaf_value(self, y, neg_gradient, raw, sample_weight):
        # One Newton step (Friedman, Hastie and Tibshirani 2000): y - p = -gradient.
        p = y - neg_gradient
        return _safe_divide(_average(neg_gradient, sample_weight),
                            _average(p * (1 - p), sample_weight))  # fmt: skip

    def proba(self, raw):
        p = expit(raw[:, 0])
        return np.column_stack([1 - p, p])


class _ExponentialLoss(_BinomialLogLoss):
    """AdaBoost's exponential loss ``y exp(-F) + (1 - y) exp(F)``; ``p = expit(2 F)``."""

    factor = 1.0

    def link(self, proba):
        return 0.5 * logit(proba)

    def negative_gradient(self, y, raw):
        e = exp(raw[:, 0])
        return y / e - (1 - y) * e

    def pointwise(self, y, raw):
        e = exp(raw[:, 0])
        return y / e + (1 - y) * e

    def leaf_value(self, y, neg_gradient, raw, sample_weight):
        hessian = np.where(y == 0, -neg_gradient, neg_gradient)
        return _safe_divide(_average(neg_gradient, sample_weight),
                            _average(hessian, sample_weight))  # fmt: skip

    def proba(self, raw):
        p = expit(2 * raw[:, 0])
        return np.column_stack([1 - p, p])


class _MultinomialLogLoss(_Loss):
    """Half the multinomial deviance ``log sum_k exp(F_k) - F_y``; one tree per class."""

    def __init__(self, n_classes: int):
        self.n_trees = self.n_classes = n_classes

    def init_estimator(self):
        return DummyClassifier(strategy="prior")

    def link(self, proba):
        # The symmetric multinomial logit: log p_k minus the mean of log p.
        geometric_mean = exp(np.mean(log(proba), axis=1))  # as scipy.stats computes it
        return log(proba / geometric_mean[:, None])

    def negative_gradient(self, y, raw):
        return (y[:, None] == np.arange(self.n_classes)) - softmax_rows(raw)

    def pointwise(self, y, raw):
        return logsumexp_rows(raw) - raw[np.arange(len(y)), y.astype(np.intp)]

    def leaf_value(self, y, neg_gradient, raw, sample_weight):
        # y is here 1 for the rows of class k; Friedman's (K - 1) / K factor.
        p = y - neg_gradient
        K = self.n_classes
        numerator = _average(neg_gradient, sample_weight) * ((K - 1) / K)
        return _safe_divide(numerator, _average(p * (1 - p), sample_weight))

    def proba(self, raw):
        return softmax_rows(raw)


# --- the progress report ------------------------------------------------------------------------


class _VerboseReporter:
    """One line per stage (then every 10th, 100th... with ``verbose=1``), as scikit-learn's."""

    def __init__(self, verbose: int, n_estimators: int, oob: bool, begin_at_stage: int):
        self.verbose, self.n_estimators, self.oob = verbose, n_estimators, oob
        header = ["Iter", "Train Loss"] + (["OOB Improve"] if oob else []) + ["Remaining Time"]
        print(("%10s " + "%16s " * (len(header) - 1)) % tuple(header))
        fmt = ["{iter:>10d}", "{train_score:>16.4f}"] + (["{oob_impr:>16.4f}"] if oob else [])
        self.fmt = " ".join([*fmt, "{remaining_time:>16s}"])
        self.every, self.start, self.begin = 1, time(), begin_at_stage

    def update(self, j: int, train_score: float, oob_improvement: float) -> None:
        i = j - self.begin
        if (i + 1) % self.every:
            return
        remaining = (self.n_estimators - (j + 1)) * (time() - self.start) / (i + 1)
        remaining = f"{remaining / 60:.2f}m" if remaining > 60 else f"{remaining:.2f}s"
        print(self.fmt.format(iter=j + 1, train_score=train_score, oob_impr=oob_improvement,
                              remaining_time=remaining))  # fmt: skip
        if self.verbose == 1 and (i + 1) // (self.every * 10) > 0:
            self.every *= 10


# --- fitting a stage's tree ---------------------------------------------------------------------


def _fit_residuals(tree, X, residual, sample_weight, stage: int, rate) -> None:
    """Fit a boosting stage's tree to the residuals, scaled when they pass the trees' limit.

    The residuals ``y - F`` can reach twice the largest ``|y|``, beyond the
    ``1e150`` a tree accepts.  Dividing them by a power of two is exact, and
    so a squared-error tree grown on them has the same splits; multiplying
    its values (and its impurities, by the square) back gives the tree of the
    unscaled residuals.  Residuals past ``2**511`` (whose squares would
    overflow even so) mean the stages diverge.
    """
    largest = float(np.max(np.abs(residual)))
    if not largest <= 2.0**511:  # NaN and infinity too
        raise ValueError(
            f"The residuals of stage {stage} reach {largest:g}: the stages diverge with "
            f"learning_rate={rate!r}; use a learning_rate of at most 1."
        )
    if largest <= MAX_ABS_TARGET:
        tree.fit(X, residual, sample_weight=sample_weight)
        return
    scale = 2.0 ** math.ceil(math.log2(largest / MAX_ABS_TARGET))
    while largest / scale > MAX_ABS_TARGET:  # in case the logarithm rounded down
        scale *= 2.0
    tree.fit(X, residual / scale, sample_weight=sample_weight)
    tree.tree_.value *= scale
    tree.tree_.impurity *= scale * scale


def _update_leaves(loss: _Loss, tree, leaves, y, neg_gradient, raw, sample_weight, in_bag):
    """Replace each leaf's value by the loss's step, computed on the leaf's in-bag rows."""
    if not loss.updates_leaves:
        return
    t = tree.tree_
    for leaf in np.flatnonzero(t.children_left == TREE_LEAF):
        rows = np.flatnonzero((leaves == leaf) & in_bag)
        t.value[leaf, 0, 0] = loss.leaf_value(
            y[rows], neg_gradient[rows], raw[rows], sample_weight[rows]
        )


def _tree_importances(tree) -> np.ndarray:
    """A tree's weighted impurity decreases per feature, over its root weight (not normalised)."""
    t = tree.tree_
    internal = np.flatnonzero(t.children_left != TREE_LEAF)
    left, right = t.children_left[internal], t.children_right[internal]
    w = power_of_two_scale(t.weighted_n_node_samples)[0]
    imp = np.maximum(t.impurity, 0.0)
    decrease = w[internal] * imp[internal] - w[left] * imp[left] - w[right] * imp[right]
    decrease = np.maximum(decrease, 0.0)
    total = np.bincount(t.feature[internal], weights=decrease, minlength=tree.n_features_in_)
    return total / w[0]



def _lazy_on_dask(method):
    """``method(self, X)``, chunk by chunk and lazily (a dask array) when ``X`` is a
    dask array (:func:`climbing_trees._dask.lazy_predict`), as the trees predict."""

    @functools.wraps(method)
    def predict(self, X):
        if is_dask_collection(X):
            return lazy_predict(self, method.__name__, X)
        return method(self, X)

    return predict

@dataclass
class _Rows:
    """The rows a fit learns from: ``weights`` (rescaled) for the trees and the losses,
    ``init_weights`` as the user gave them (None without ``sample_weight``) for ``init``."""

    X: Any
    y: np.ndarray
    weights: np.ndarray
    init_weights: np.ndarray | None


@dataclass
class _Stages:
    """A fit under way: ``init``, the random state, the scores ``raw`` of the training
    rows and, stage by stage, the trees and their losses."""

    init: Any
    rng: np.random.RandomState
    raw: np.ndarray
    stages: list = field(default_factory=list)
    train_score: list = field(default_factory=list)
    oob_scores: list = field(default_factory=list)
    oob_improvement: list = field(default_factory=list)


#: Parameters of both boosting estimators, with scikit-learn 1.9's ranges (the tree
#: parameters with this package's: a fraction of rows may be 1.0).
_BOOSTING_PARAMETERS = {
    **_TREE_PARAMETERS,
    "learning_rate": [Interval(Real, 0.0, None, closed="neither")],
    "subsample": [Interval(Real, 0.0, 1.0, closed="right")],
    "criterion": [
        StrOptions({"squared_error"}),
        Hidden(StrOptions({"deprecated", "friedman_mse"})),
    ],
    "min_samples_split": [
        Interval(Integral, 2, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
    ],
    "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, closed="both")],
    "splitter": [StrOptions({"best", "hist"})],
    "max_bins": [Interval(Integral, 2, 65_535, closed="both")],
    "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
    "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
    "ccp_alpha": [Interval(Real, 0.0, None, closed="left")],
    "verbose": ["verbose"],
    "warm_start": ["boolean"],
    "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")],
    "n_iter_no_change": [Interval(Integral, 1, None, closed="left"), None],
    "tol": [Interval(Real, 0.0, None, closed="left")],
}


class _GradientBoosting(_MissingValuesTag, BaseEstimator):
    """What both boosting estimators share: the stages, subsampling, early stopping."""

    _parameter_constraints: dict = _BOOSTING_PARAMETERS

    def __init__(self, *, loss, learning_rate, n_estimators, subsample, criterion,
                 min_samples_split, min_samples_leaf, min_weight_fraction_leaf, max_depth,
                 min_impurity_decrease, init, random_state, max_features, verbose,
                 max_leaf_nodes, warm_start, validation_fraction, n_iter_no_change, tol,
                 ccp_alpha, categorical_features, splitter="best", max_bins=255):  # fmt: skip
        self.loss, self.learning_rate, self.n_estimators = loss, learning_rate, n_estimators
        self.subsample, self.criterion = subsample, criterion
        self.min_samples_split, self.min_samples_leaf = min_samples_split, min_samples_leaf
        self.min_weight_fraction_leaf, self.max_depth = min_weight_fraction_leaf, max_depth
        self.min_impurity_decrease, self.init = min_impurity_decrease, init
        self.random_state, self.max_features = random_state, max_features
        self.verbose, self.max_leaf_nodes, self.warm_start = verbose, max_leaf_nodes, warm_start
        self.validation_fraction, self.n_iter_no_change = validation_fraction, n_iter_no_change
        self.tol, self.ccp_alpha = tol, ccp_alpha
        self.categorical_features = categorical_features
        self.splitter, self.max_bins = splitter, max_bins

    # The subclasses say how y is encoded, which loss and how raw scores become predictions.
    _stratify = False

    def _encode_y(self, y, sample_weight, given_weights: bool):
        raise NotImplementedError

    def _make_loss(self, n_classes: int) -> _Loss:
        raise NotImplementedError

    def _tree(self, seed: int) -> DecisionTreeRegressor:
        return DecisionTreeRegressor(
            criterion="squared_error", max_depth=self.max_depth,
            min_samples_split=self.min_samples_split, min_samples_leaf=self.min_samples_leaf,
            min_weight_fraction_leaf=self.min_weight_fraction_leaf,
            min_impurity_decrease=self.min_impurity_decrease, max_features=self.max_features,
            max_leaf_nodes=self.max_leaf_nodes, ccp_alpha=self.ccp_alpha,
            categorical_features=self.categorical_features, random_state=seed,
            splitter=self.splitter, max_bins=self.max_bins,
        )  # fmt: skip

    def _init_raw(self, init, loss: _Loss, X, n_rows: int) -> np.ndarray:
        """The initial scores ``F_0``, shape ``(n_rows, K)``: from ``init``'s predictions."""
        if isinstance(init, str):  # "zero"
            return np.zeros((n_rows, loss.n_trees))
        if isinstance(self, ClassifierMixin):
            proba = np.asarray(init.predict_proba(X), dtype=float)
            if loss.n_trees == 1:
                proba = proba[:, 1]
            eps = np.finfo(np.float64).eps
            raw = loss.link(np.clip(proba, eps, 1 - eps))
        else:
            raw = np.asarray(init.predict(X), dtype=np.float64)
        return raw.reshape(n_rows, -1)

    def _fit_init(self, init, X, y, sample_weight) -> None:
        """Fit ``init`` with the weights as the user gave them (None: without weights)."""
        if sample_weight is None:
            init.fit(X, y)
            return
        try:
            init.fit(X, y, sample_weight=sample_weight)
        except TypeError as exc:
            if "unexpected keyword argument 'sample_weight'" in str(exc):
                raise ValueError(
                    f"The initial estimator {type(init).__name__} does not support sample "
                    "weights; fit without sample_weight or give an init that accepts them."
                ) from exc
            raise

    @_fit_context(prefer_skip_nested_validation=False)  # init is an estimator
    def fit(self, X, y, sample_weight=None, monitor=None):
        """Fit the stages (all of them, or until early stopping or the monitor stops).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            As the package's trees accept it: NaN and categorical columns included.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
        monitor : callable, default=None
            Called after each stage as ``monitor(i, self, locals())``, as in
            scikit-learn: ``i`` is the stage, ``self`` the estimator with the
            ``i + 1`` stages so far (``estimators_``, ``train_score_``...),
            ``locals()`` the fitting loop's variables.  If it returns True,
            fitting stops there and keeps those ``i + 1`` stages.  If it
            raises, the previous model is restored.

        Returns
        -------
        self : object
        """
        if self.criterion != "deprecated":
            warnings.warn(
                "The parameter `criterion` is deprecated and will be removed in 1.11. It has "
                "no effect. Leave it to its default value to avoid this warning.",
                FutureWarning,
                stacklevel=2,
            )
        train, validation, n_classes = self._split_validation(X, y, sample_weight)
        loss = self._make_loss(n_classes)
        state = self._start_state(loss, train)
        if monitor is None:
            self._run_stages(loss, state, train, validation)
        else:  # the monitor sees the model stage by stage: restore it if the fit fails
            previous = dict(self.__dict__)
            try:
                self._run_stages(loss, state, train, validation, monitor)
            except BaseException:
                self.__dict__.clear()
                self.__dict__.update(previous)
                raise
        # Every stage has succeeded: the fitted state changes now, all at once.
        self._set_fitted(loss, state)
        return self

    def _split_validation(self, X, y, sample_weight):
        """The training rows and, with early stopping, the validation rows (else None).

        Returns ``(train, validation, n_classes)``.  The trees and the losses get
        the weights divided by a power of two: exact, since only their ratios
        count, and sums of ``w * y`` then cannot overflow with weights near the
        largest float.  A user's ``init`` gets them as given (their training part
        under early stopping), as scikit-learn gives them: a regularised ``init``
        (a ridge, a penalised logistic regression) depends on their scale.  The
        default ``init`` (a weighted mean, quantile or prior) gets the rescaled
        ones, which give the same value.
        """
        _, given = _rows_and_weights(self, X, y, sample_weight)
        X = densified(X)  # once, not once per stage
        weights = power_of_two_scale(given)[0] if given.max() > 0 else given
        y, n_classes = self._encode_y(y, weights, sample_weight is not None)
        if self.n_iter_no_change is None:
            X_val = None
        else:
            X, X_val, y, y_val, weights, w_val, given, _ = train_test_split(
                X, y, weights, given, random_state=self.random_state,
                test_size=self.validation_fraction, stratify=y if self._stratify else None,
            )  # fmt: skip
            if self._stratify and len(np.unique(y)) != n_classes:
                raise ValueError(
                    "The training data after the early stopping split is missing some "
                    "classes. Try using another random seed."
                )
        init_weights = None if sample_weight is None else given
        train = _Rows(X, y, weights, init_weights)
        return train, None if X_val is None else (X_val, y_val, w_val), n_classes

    def _start_state(self, loss: _Loss, train: _Rows) -> _Stages:
        """Where the stages start: the fitted ones (warm start) or a newly fitted ``init``."""
        if self.warm_start and len(getattr(self, "estimators_", ())) > 0:
            n_fitted = self.estimators_.shape[0]
            if self.n_estimators < n_fitted:
                raise ValueError(
                    f"n_estimators={self.n_estimators} must be larger or equal to "
                    f"estimators_.shape[0]={n_fitted} when warm_start==True"
                )
            # Stages fitted without subsampling have no out-of-bag loss: 0, as in
            # scikit-learn; without subsampling now, the earlier ones are dropped.
            oob_scores = list(getattr(self, "oob_scores_", np.zeros(n_fitted)))
            oob_improvement = list(getattr(self, "oob_improvement_", np.zeros(n_fitted)))
            if self.subsample == 1.0:
                oob_scores, oob_improvement = [], []
            return _Stages(
                init=self.init_, rng=copy.deepcopy(self._rng),
                raw=self._raw_predict(train.X, check=False),
                stages=[list(row) for row in self.estimators_],
                train_score=list(self.train_score_), oob_scores=oob_scores,
                oob_improvement=oob_improvement,
            )  # fmt: skip
        init, init_weights = self.init, train.init_weights
        if init is None:
            init = loss.init_estimator()
            if init_weights is not None:  # a mean, quantile or prior: only ratios count
                init_weights = train.weights
        elif not isinstance(init, str):
            init = copy.deepcopy(init)  # the previous model keeps its own
        if not isinstance(init, str):
            self._fit_init(init, train.X, train.y, init_weights)
        return _Stages(
            init=init, rng=check_random_state(self.random_state),
            raw=self._init_raw(init, loss, train.X, len(train.y)),
        )  # fmt: skip

    def _run_stages(self, loss: _Loss, state: _Stages, train: _Rows, validation,
                    monitor=None) -> None:  # fmt: skip
        """Add stages to ``state`` up to ``n_estimators``, or until early stopping (the
        validation loss has not improved by ``tol`` in ``n_iter_no_change`` stages) or
        the monitor stops; the stage that stops is kept, as in scikit-learn."""
        X, y, weights, raw = train.X, train.y, train.weights, state.raw
        n = len(y)
        oob = self.subsample < 1.0
        n_in_bag = max(1, int(self.subsample * n))
        if oob and n_in_bag == n:
            raise ValueError(
                f"subsample={self.subsample} leaves no out-of-bag row among {n} "
                f"training rows (n_samples = {n}); use subsample=1.0 or more rows."
            )
        if validation is not None:
            X_val, y_val, w_val = validation
            raw_val = self._raw_on(X_val, state.init, loss, state.stages)
            history = np.full(self.n_iter_no_change, np.inf)  # fresh on a warm start too
        in_bag = np.ones(n, dtype=bool)
        begin = len(state.stages)
        reporter = (
            _VerboseReporter(self.verbose, self.n_estimators, oob, begin) if self.verbose else None
        )
        train_score, oob_scores, oob_improvement = (
            state.train_score, state.oob_scores, state.oob_improvement
        )
        for i in range(begin, self.n_estimators):
            if oob:
                in_bag = random_sample_mask(n, n_in_bag, state.rng)
                if i == 0:
                    initial_oob = loss.factor * loss(y[~in_bag], raw[~in_bag], weights[~in_bag])
            trees = self._fit_stage(i, loss, X, y, raw, weights, in_bag, state.rng)
            state.stages.append(trees)
            if oob:
                train_score.append(loss.factor * loss(y[in_bag], raw[in_bag], weights[in_bag]))
                oob_scores.append(loss.factor * loss(y[~in_bag], raw[~in_bag], weights[~in_bag]))
                previous = initial_oob if i == 0 else oob_scores[i - 1]
                oob_improvement.append(previous - oob_scores[i])
            else:
                train_score.append(loss.factor * loss(y, raw, weights))
            if reporter is not None:
                reporter.update(i, train_score[i], oob_improvement[i] if oob else 0)
            if monitor is not None:
                self._set_fitted(loss, state)  # the monitor sees the stages so far
                if monitor(i, self, locals()):
                    break
            if validation is not None:
                seen: set = set()
                for k, tree in enumerate(trees):
                    raw_val[:, k] += self.learning_rate * _tree_call(tree.predict, X_val, seen)
                validation_loss = loss.factor * loss(y_val, raw_val, w_val)
                if np.any(validation_loss + self.tol < history):
                    history[i % len(history)] = validation_loss
                else:
                    break

    def _set_fitted(self, loss: _Loss, state: _Stages) -> None:
        """Set the fitted attributes from ``state``, all at once."""
        self.init_, self._loss, self._rng = state.init, loss, state.rng
        self.estimators_ = np.empty((len(state.stages), loss.n_trees), dtype=object)
        for i, trees in enumerate(state.stages):
            self.estimators_[i, :] = trees
        self.train_score_ = np.asarray(state.train_score, dtype=float)
        for name in ("oob_scores_", "oob_improvement_", "oob_score_"):
            if hasattr(self, name):
                delattr(self, name)
        if state.oob_scores:
            self.oob_scores_ = np.asarray(state.oob_scores, dtype=float)
            self.oob_improvement_ = np.asarray(state.oob_improvement, dtype=float)
            self.oob_score_ = float(self.oob_scores_[-1])
        self.n_estimators_ = len(state.stages)
        self.n_trees_per_iteration_ = loss.n_trees
        first = self.estimators_[0, 0]
        _adopt_columns(self, first)
        self.max_features_ = first.max_features_
        classes = self.__dict__.get("_new_classes")  # a classifier's, set by _encode_y
        if classes is not None:
            self.classes_, self.n_classes_ = classes, len(classes)

    def _fit_stage(self, i, loss, X, y, raw, weights, in_bag, rng) -> list:
        """One stage: ``K`` trees on minus the gradient; leaves stepped, ``raw`` set."""
        loss.before_stage(y, raw, weights)
        neg_gradient = loss.negative_gradient(y, raw)
        neg_gradient = neg_gradient.reshape(len(y), -1)
        stage_weights = weights * in_bag if self.subsample < 1.0 else weights
        trees = []
        for k in range(loss.n_trees):
            target = (y == k).astype(float) if loss.n_trees > 1 else y
            # scikit-learn draws one seed a tree.
            tree = self._tree(int(rng.randint(MAX_SEED)))
            _fit_residuals(
                tree, X, neg_gradient[:, k], stage_weights, i, self.learning_rate
            )
            leaves = tree.apply(X)
            _update_leaves(loss, tree, leaves, target, neg_gradient[:, k], raw[:, k],
                           stage_weights, in_bag)  # fmt: skip
            raw[:, k] += self.learning_rate * tree.tree_.value[leaves, 0, 0]
            trees.append(tree)
        return trees

    def _raw_on(self, X, init, loss, stages) -> np.ndarray:
        """Scores of ``init`` plus the given stages on ``X`` (no column checks)."""
        raw = self._init_raw(init, loss, X, _num_samples(X))
        seen: set = set()
        for trees in stages:
            for k, tree in enumerate(trees):
                raw[:, k] += self.learning_rate * _tree_call(tree.predict, X, seen)
        return raw

    def _raw_predict(self, X, check: bool = True) -> np.ndarray:
        if check:
            X = _check_columns(self, X)
        return self._raw_on(X, self.init_, self._loss, self.estimators_)

    def _staged_raw_predict(self, X):
        """The scores after each stage (a generator of copies)."""
        if is_dask_collection(X):
            raise TypeError(
                "The staged methods yield one array per stage and do not take a Dask "
                "array; call them on X.compute(), or on each chunk (X.to_delayed())."
            )
        X = _check_columns(self, X)
        raw = self._raw_on(X, self.init_, self._loss, [])
        seen: set = set()
        for trees in self.estimators_:
            for k, tree in enumerate(trees):
                raw[:, k] += self.learning_rate * _tree_call(tree.predict, X, seen)
            yield raw.copy()

    def apply(self, X) -> np.ndarray:
        """Leaf index of each row in each tree, shape ``(n_samples, n_estimators_, K)``."""
        X = _check_columns(self, X)
        leaves = [[tree.apply(X) for tree in trees] for trees in self.estimators_]
        return np.asarray(leaves, dtype=float).transpose(2, 0, 1)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Mean over the trees (those with a split) of their impurity decreases, normalised.

        As scikit-learn's: each tree's decreases are divided by its root weight,
        not normalised; their mean is normalised to sum to 1 (all zeros when no
        tree splits).
        """
        check_is_fitted(self, "estimators_")
        trees = [tree for trees in self.estimators_ for tree in trees if tree.tree_.node_count > 1]
        if not trees:
            return np.zeros(self.n_features_in_)
        mean = np.mean([_tree_importances(tree) for tree in trees], axis=0)
        total = mean.sum()
        return mean / total if total > 0 else mean


class GradientBoostingRegressor(RegressorMixin, _GradientBoosting):
    """Gradient boosting for regression (Friedman 2001) on the package's trees.

    ``F_0`` is ``init``'s prediction (the weighted mean, or median/quantile for
    the robust losses); stage ``m`` fits a :class:`DecisionTreeRegressor` to
    the negative gradient at ``F_{m-1}``, replaces each leaf's value by the
    loss's step on the leaf's rows, and adds ``learning_rate`` times it.
    The book's chapter "Boosting" builds it.

    Parameters
    ----------
    loss : {"squared_error", "absolute_error", "huber", "quantile"}, \
default="squared_error"
        Squared error: leaves keep the mean residual.  Absolute error and
        quantile: the weighted median (``alpha`` quantile) of the leaf's
        ``y - F``.  Huber: squared error within ``delta`` (the ``alpha``
        quantile of ``|y - F|``, set before each stage), absolute beyond.
    alpha : float, default=0.9
        The quantile of ``"quantile"``, and Huber's share of residuals
        treated as squared errors.
    init : estimator, "zero" or None, default=None
        ``F_0``: a regressor's predictions, zero, or (None) a constant.
    learning_rate : float, default=0.1
        Shrinks each tree's contribution; in ``(0, inf)`` (0, which scikit-learn
        accepts, would fit trees that change nothing).
    n_estimators : int, default=100
        Number of boosting stages.
    subsample : float, default=1.0
        Fraction of the rows each stage's trees are grown on (stochastic gradient
        boosting, Friedman 2002); the others (out of bag) get weight 0 and give
        ``oob_scores_``.  The rows are drawn as scikit-learn draws them.
    criterion : {"squared_error"}, default="deprecated"
        No effect (deprecated in scikit-learn 1.9, whose trees always use squared
        error); any value but the default warns, as there.
    min_samples_split, min_samples_leaf, min_weight_fraction_leaf, max_depth, \
min_impurity_decrease, max_features, max_leaf_nodes, ccp_alpha
        Passed to each :class:`DecisionTreeRegressor` (``max_depth`` defaults to 3).
    random_state : int, RandomState instance or None, default=None
        Draws each tree's seed, the rows of each stage (``subsample``) and the
        early-stopping split, in scikit-learn's order.
    verbose : int, default=0
        1: a line per stage for the first 10, then every 10th up to 100, ...;
        more: a line per stage (stage, training loss, out-of-bag improvement,
        time left), as scikit-learn prints them.
    warm_start : bool, default=False
        Refit adds stages to the fitted ones up to ``n_estimators``.
    validation_fraction : float, default=0.1
        Share of the rows set aside for early stopping.
    n_iter_no_change : int or None, default=None
        Stop when the validation loss has not improved by ``tol`` in that many
        stages (the set-aside rows are drawn by scikit-learn's
        ``train_test_split``, stratified for classification).
    tol : float, default=1e-4
    categorical_features : "auto", array-like or None, default="auto"
        Passed to the trees: categorical columns are split natively (chapters 6-7).
    splitter : {"best", "hist"}, default="best"
        The trees' splitter: ``"hist"`` grows histogram trees (``max_bins``
        bins per feature, :class:`DecisionTreeRegressor`).
    max_bins : int, default=255
        Passed to the trees; read with ``splitter="hist"`` only.

    Attributes
    ----------
    estimators_ : ndarray of DecisionTreeRegressor of shape (n_estimators_, K)
        The trees; ``K`` is 1 for regression and binary classification.
    init_ : estimator or "zero"
        The fitted initial estimator.
    n_estimators_ : int
        Stages fitted (fewer than ``n_estimators`` after early stopping).
    train_score_ : ndarray of shape (n_estimators_,)
        Loss on the (in-bag) training rows after each stage, scaled as
        scikit-learn's (twice the half-losses: squared error, binomial deviance).
    oob_scores_, oob_improvement_ : ndarray of shape (n_estimators_,)
        With ``subsample < 1``: loss on the out-of-bag rows after each stage,
        and its decrease from the stage before.
    oob_score_ : float
        The last of ``oob_scores_``.
    feature_importances_ : ndarray of shape (n_features,)
    max_features_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Notes
    -----
    With the same parameters scikit-learn's ``GradientBoostingRegressor``
    makes the same predictions on tie-free data, for every loss, with
    ``subsample`` too (the tests check it to 1e-12).  Tie-free means in the
    split search: a gradient of two values (absolute error, quantile) can
    make two splits of a small node equally good, and scikit-learn keeps the
    first in its random feature order, this package the first by its tie
    rule (chapter 4).  Every ``y`` the trees
    accept (``|y| <= 1e150``) is accepted, although the residuals may reach
    twice that: a stage whose residuals pass the trees' limit fits them
    divided by a power of two and multiplies its tree's values back (both
    exact).  NaN in ``X`` and categorical columns go to the trees, which
    handle them (chapters 6-7 and 9).

    With ``warm_start`` and ``n_iter_no_change``, a refit starts a fresh
    history of validation losses and judges each new stage ``i`` by the
    validation loss after stage ``i``.  scikit-learn 1.9 judges it by the loss
    after stage ``i - b`` (``b`` the stages fitted before: its validation
    predictions restart at stage 0), so its warm-started fit may stop at
    another stage; without warm start both stop at the same stage.  A
    ``monitor`` given to ``fit`` sees ``estimators_`` and ``train_score_`` of
    the ``i + 1`` stages so far (scikit-learn's are ``n_estimators`` long
    during the fit).

    References
    ----------
    J. H. Friedman, "Greedy function approximation: a gradient boosting
    machine", *Annals of Statistics* 29(5), 2001.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = GradientBoostingRegressor(n_estimators=20, random_state=0).fit(X, y)
    >>> model.estimators_.shape
    (20, 1)
    >>> bool(model.train_score_[-1] < model.train_score_[0])
    True
    """

    _parameter_constraints: dict = {
        **_BOOSTING_PARAMETERS,
        "loss": [StrOptions({"squared_error", "absolute_error", "huber", "quantile"})],
        "init": [StrOptions({"zero"}), None, HasMethods(["fit", "predict"])],
        "alpha": [Interval(Real, 0.0, 1.0, closed="neither")],
    }

    def __init__(self, *, loss="squared_error", learning_rate=0.1, n_estimators=100,
                 subsample=1.0, criterion="deprecated", min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, max_depth=3,
                 min_impurity_decrease=0.0, init=None, random_state=None, max_features=None,
                 alpha=0.9, verbose=0, max_leaf_nodes=None, warm_start=False,
                 validation_fraction=0.1, n_iter_no_change=None, tol=1e-4, ccp_alpha=0.0,
                 categorical_features="auto", splitter="best", max_bins=255):  # fmt: skip
        super().__init__(
            loss=loss, learning_rate=learning_rate, n_estimators=n_estimators,
            subsample=subsample, criterion=criterion, min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf, min_weight_fraction_leaf=min_weight_fraction_leaf,
            max_depth=max_depth, min_impurity_decrease=min_impurity_decrease, init=init,
            random_state=random_state, max_features=max_features, verbose=verbose,
            max_leaf_nodes=max_leaf_nodes, warm_start=warm_start,
            validation_fraction=validation_fraction, n_iter_no_change=n_iter_no_change,
            tol=tol, ccp_alpha=ccp_alpha, categorical_features=categorical_features,
            splitter=splitter, max_bins=max_bins,
        )  # fmt: skip
        self.alpha = alpha

    def _encode_y(self, y, sample_weight, given_weights):
        y = np.asarray(y)
        y = column_or_1d(y, warn=True) if y.ndim == 2 else y
        return _numeric_target(self, y, "GradientBoostingClassifier"), 1

    def _make_loss(self, n_classes):
        return {
            "squared_error": _SquaredError,
            "absolute_error": _AbsoluteError,
            "huber": lambda: _Huber(self.alpha),
            "quantile": lambda: _Quantile(self.alpha),
        }[self.loss]()

    @_lazy_on_dask
    def predict(self, X) -> np.ndarray:
        """The sum of ``F_0`` and every stage's shrunk tree."""
        return self._raw_predict(X).ravel()

    def staged_predict(self, X):
        """Predictions after each stage (a generator), as scikit-learn's."""
        for raw in self._staged_raw_predict(X):
            yield raw.ravel()

    def apply(self, X) -> np.ndarray:
        """Leaf index of each row in each tree, shape ``(n_samples, n_estimators_)``."""
        return super().apply(X)[:, :, 0]


class GradientBoostingClassifier(ClassifierMixin, _GradientBoosting):
    """Gradient boosting for classification by log-loss (Friedman 2001), on regression trees.

    Binary: one tree per stage on ``y - p`` with ``p = expit(F)``; each leaf
    takes one Newton step ``sum(w (y - p)) / sum(w p (1 - p))``.  ``K > 2``
    classes: ``K`` trees per stage, tree ``k`` on ``1[y = k] - p_k`` with
    ``p = softmax(F)``, its leaves stepped by ``(K - 1) / K`` times the
    same ratio (Friedman's factor, kept by scikit-learn).  The book's chapter
    "Boosting" explains it.

    Parameters
    ----------
    loss : {"log_loss", "exponential"}, default="log_loss"
        Binomial or multinomial deviance; ``"exponential"`` (binary only) is
        AdaBoost's loss, with ``p = expit(2 F)``.
    init : estimator, "zero" or None, default=None
        ``F_0``: the link of a classifier's probabilities, zero, or (None) the
        link of the (weighted) class priors.
    learning_rate : float, default=0.1
        Shrinks each tree's contribution; in ``(0, inf)`` (0, which scikit-learn
        accepts, would fit trees that change nothing).
    n_estimators : int, default=100
        Number of boosting stages.
    subsample : float, default=1.0
        Fraction of the rows each stage's trees are grown on (stochastic gradient
        boosting, Friedman 2002); the others (out of bag) get weight 0 and give
        ``oob_scores_``.  The rows are drawn as scikit-learn draws them.
    criterion : {"squared_error"}, default="deprecated"
        No effect (deprecated in scikit-learn 1.9, whose trees always use squared
        error); any value but the default warns, as there.
    min_samples_split, min_samples_leaf, min_weight_fraction_leaf, max_depth, \
min_impurity_decrease, max_features, max_leaf_nodes, ccp_alpha
        Passed to each :class:`DecisionTreeRegressor` (``max_depth`` defaults to 3).
    random_state : int, RandomState instance or None, default=None
        Draws each tree's seed, the rows of each stage (``subsample``) and the
        early-stopping split, in scikit-learn's order.
    verbose : int, default=0
        1: a line per stage for the first 10, then every 10th up to 100, ...;
        more: a line per stage (stage, training loss, out-of-bag improvement,
        time left), as scikit-learn prints them.
    warm_start : bool, default=False
        Refit adds stages to the fitted ones up to ``n_estimators``.
    validation_fraction : float, default=0.1
        Share of the rows set aside for early stopping.
    n_iter_no_change : int or None, default=None
        Stop when the validation loss has not improved by ``tol`` in that many
        stages (the set-aside rows are drawn by scikit-learn's
        ``train_test_split``, stratified for classification).
    tol : float, default=1e-4
    categorical_features : "auto", array-like or None, default="auto"
        Passed to the trees: categorical columns are split natively (chapters 6-7).
    splitter : {"best", "hist"}, default="best"
        The trees' splitter: ``"hist"`` grows histogram trees (``max_bins``
        bins per feature, :class:`DecisionTreeRegressor`).
    max_bins : int, default=255
        Passed to the trees; read with ``splitter="hist"`` only.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
    estimators_ : ndarray of DecisionTreeRegressor of shape (n_estimators_, K)
        The trees; ``K`` is 1 for regression and binary classification.
    init_ : estimator or "zero"
        The fitted initial estimator.
    n_estimators_ : int
        Stages fitted (fewer than ``n_estimators`` after early stopping).
    train_score_ : ndarray of shape (n_estimators_,)
        Loss on the (in-bag) training rows after each stage, scaled as
        scikit-learn's (twice the half-losses: squared error, binomial deviance).
    oob_scores_, oob_improvement_ : ndarray of shape (n_estimators_,)
        With ``subsample < 1``: loss on the out-of-bag rows after each stage,
        and its decrease from the stage before.
    oob_score_ : float
        The last of ``oob_scores_``.
    feature_importances_ : ndarray of shape (n_features,)
    max_features_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Notes
    -----
    With the same parameters scikit-learn's ``GradientBoostingClassifier``
    makes the same probabilities on tie-free data (the tests check it to
    1e-12, binary and multiclass, with ``subsample`` too).  The first
    stage's gradient ``y - p_0`` has two values, so unweighted data with
    small leaves can tie two splits (see
    :class:`GradientBoostingRegressor`).  ``predict``
    returns the class of the largest score; a binary score of exactly 0
    gives the second class, as in scikit-learn.  NaN in ``X`` and
    categorical columns go to the trees, which handle them.

    With ``warm_start`` and ``n_iter_no_change``, a refit starts a fresh
    history of validation losses and judges each new stage ``i`` by the
    validation loss after stage ``i``.  scikit-learn 1.9 judges it by the loss
    after stage ``i - b`` (``b`` the stages fitted before: its validation
    predictions restart at stage 0), so its warm-started fit may stop at
    another stage; without warm start both stop at the same stage.  A
    ``monitor`` given to ``fit`` sees ``estimators_`` and ``train_score_`` of
    the ``i + 1`` stages so far (scikit-learn's are ``n_estimators`` long
    during the fit).

    References
    ----------
    J. H. Friedman, "Greedy function approximation: a gradient boosting
    machine", *Annals of Statistics* 29(5), 2001.  J. Friedman, T. Hastie and
    R. Tibshirani, "Additive logistic regression: a statistical view of
    boosting", *Annals of Statistics* 28(2), 2000.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = GradientBoostingClassifier(n_estimators=10, random_state=0).fit(X, y)
    >>> model.estimators_.shape  # one tree per class and stage
    (10, 3)
    >>> model.predict_proba(X[:1]).round(2)
    array([[0.8, 0.1, 0.1]])
    """

    _parameter_constraints: dict = {
        **_BOOSTING_PARAMETERS,
        "loss": [StrOptions({"log_loss", "exponential"})],
        "init": [StrOptions({"zero"}), None, HasMethods(["fit", "predict_proba"])],
    }
    _stratify = True

    def __init__(self, *, loss="log_loss", learning_rate=0.1, n_estimators=100, subsample=1.0,
                 criterion="deprecated", min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, max_depth=3, min_impurity_decrease=0.0,
                 init=None, random_state=None, max_features=None, verbose=0,
                 max_leaf_nodes=None, warm_start=False, validation_fraction=0.1,
                 n_iter_no_change=None, tol=1e-4, ccp_alpha=0.0,
                 categorical_features="auto", splitter="best", max_bins=255):  # fmt: skip
        super().__init__(
            loss=loss, learning_rate=learning_rate, n_estimators=n_estimators,
            subsample=subsample, criterion=criterion, min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf, min_weight_fraction_leaf=min_weight_fraction_leaf,
            max_depth=max_depth, min_impurity_decrease=min_impurity_decrease, init=init,
            random_state=random_state, max_features=max_features, verbose=verbose,
            max_leaf_nodes=max_leaf_nodes, warm_start=warm_start,
            validation_fraction=validation_fraction, n_iter_no_change=n_iter_no_change,
            tol=tol, ccp_alpha=ccp_alpha, categorical_features=categorical_features,
            splitter=splitter, max_bins=max_bins,
        )  # fmt: skip

    def _encode_y(self, y, sample_weight, given_weights):
        y = np.asarray(y)
        y = column_or_1d(y, warn=True) if y.ndim == 2 else y
        _class_labels(self, y, "GradientBoostingRegressor")
        encoder = LabelEncoder()
        codes = encoder.fit_transform(y)
        classes = encoder.classes_
        present = np.count_nonzero(np.bincount(codes, sample_weight))
        if present < 2:
            raise ValueError(
                f"y contains {present} class after sample_weight trimmed classes with zero "
                "weights, while a minimum of 2 classes are required; "
                f"{type(self).__name__} needs rows of at least two classes."
            )
        if self.loss == "exponential" and len(classes) > 2:
            raise ValueError(
                f"loss='exponential' is only suitable for a binary classification problem, "
                f"you have n_classes={len(classes)}. Please use loss='log_loss' instead."
            )
        self._new_classes = classes
        return codes.astype(float), len(classes)

    def _make_loss(self, n_classes):
        if self.loss == "exponential":
            return _ExponentialLoss()
        return _BinomialLogLoss() if n_classes == 2 else _MultinomialLogLoss(n_classes)

    def fit(self, X, y, sample_weight=None, monitor=None):
        """Fit the stages (all of them, or until early stopping or the monitor stops).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            As the package's trees accept it: NaN and categorical columns included.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
        monitor : callable, default=None
            Called after each stage as ``monitor(i, self, locals())``; True stops
            the fit (see :meth:`GradientBoostingRegressor.fit`).

        Returns
        -------
        self : object
        """
        old = getattr(self, "classes_", None)
        if self.warm_start and old is not None and len(getattr(self, "estimators_", ())):
            classes = np.unique(np.asarray(y))
            if not np.array_equal(classes, old):
                raise ValueError(
                    "warm_start needs the classes of the first fit; refit with "
                    "warm_start=False to learn new classes."
                )
        try:
            return super().fit(X, y, sample_weight, monitor)
        finally:
            self.__dict__.pop("_new_classes", None)  # classes_ is set with the model

    @_lazy_on_dask
    def decision_function(self, X) -> np.ndarray:
        """The scores ``F``: shape ``(n_samples,)`` for two classes, else ``(n_samples, K)``."""
        raw = self._raw_predict(X)
        return raw.ravel() if raw.shape[1] == 1 else raw

    def staged_decision_function(self, X):
        """The scores after each stage, shape ``(n_samples, K)`` (a generator)."""
        yield from self._staged_raw_predict(X)

    def _classes_of(self, raw) -> np.ndarray:
        codes = (raw[:, 0] >= 0).astype(int) if raw.shape[1] == 1 else np.argmax(raw, axis=1)
        return self.classes_.take(codes, axis=0)

    @_lazy_on_dask
    def predict(self, X) -> np.ndarray:
        """The class of the largest score (binary: the second class where ``F >= 0``)."""
        return self._classes_of(self._raw_predict(X))

    def staged_predict(self, X):
        """Classes after each stage (a generator)."""
        for raw in self._staged_raw_predict(X):
            yield self._classes_of(raw)

    @_lazy_on_dask
    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities: ``expit`` of the score, or ``softmax`` of the ``K`` scores."""
        raw = self._raw_predict(X)  # first: raises NotFittedError before fit
        return self._loss.proba(raw)

    @_lazy_on_dask
    def predict_log_proba(self, X) -> np.ndarray:
        """The logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    def staged_predict_proba(self, X):
        """Class probabilities after each stage (a generator)."""
        for raw in self._staged_raw_predict(X):
            yield self._loss.proba(raw)
