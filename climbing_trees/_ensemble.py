"""Ensembles of the package's trees: random forests, extra trees, gradient boosting.

Chapter 11 of the book ("From one tree to many") builds and measures them.
Each is a few lines on top of :class:`DecisionTreeClassifier` and
:class:`DecisionTreeRegressor`, which do the work (categorical features
included):

* **random forest** (Breiman 2001): every tree sees a bootstrap sample (rows
  drawn with replacement, given to the tree as integer sample weights) and
  searches ``max_features`` random features per node;
* **extra trees** (Geurts, Ernst and Wehenkel 2006): every tree sees all rows
  and draws one random threshold per searched feature (``splitter="random"``);
* **gradient boosting** for regression (Friedman 2001): start from the mean,
  then fit each small tree to the residuals of the sum so far and add it,
  shrunk by ``learning_rate``.

Their parameters are checked with scikit-learn's parameter constraints
(``_parameter_constraints``) before any tree is grown, and their errors and
warnings name the ensemble, not its trees; a failed ``fit`` keeps the
previous model.

The seeds follow scikit-learn's scheme: one ``random_state`` gives one seed
per tree, and a tree's bootstrap sample is drawn from its own seed
(:func:`bootstrap_counts`), so it can be recomputed, for example for
out-of-bag estimates.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils import check_consistent_length, check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import _num_samples, check_is_fitted, column_or_1d, validate_data

from ._classes import (
    MAX_ABS_TARGET,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    _check_classification_labels,
    numeric_target,
)
from ._validation import (
    check_sample_weight,
    explained_errors,
    power_of_two_scale,
    user_stacklevel,
)

#: The largest seed scikit-learn gives a tree of an ensemble (``np.iinfo(np.int32).max``).
MAX_SEED = np.iinfo(np.int32).max

#: scikit-learn's parameter constraints for the tree parameters an ensemble passes on,
#: with the ranges of this package's trees (a fraction of rows may be 1.0).  ``fit``
#: checks every parameter before it grows a tree, and the error names the ensemble.
_TREE_PARAMETERS = {
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    "min_samples_leaf": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
    ],
    "max_features": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
        StrOptions({"sqrt", "log2"}),
        None,
    ],
    "random_state": ["random_state"],
    "categorical_features": [StrOptions({"auto"}), "array-like", None],
    "n_estimators": [Interval(Integral, 1, None, closed="left")],
}


def bootstrap_counts(seed: int, n_samples: int, sample_weight=None) -> np.ndarray:
    """How often each row is drawn in the bootstrap sample of the tree with ``seed``.

    ``n_samples`` draws with replacement from ``RandomState(seed)``, as
    scikit-learn 1.9 draws them: uniformly, or, given ``sample_weight``,
    each row with probability proportional to its weight.  A row drawn
    twice weighs 2 in the tree, a row never drawn (out of bag) weighs 0.

    >>> counts = bootstrap_counts(0, 10_000)
    >>> int(counts.sum()), round(float(np.mean(counts == 0)), 2)  # 1/e out of bag
    (10000, 0.37)
    >>> counts = bootstrap_counts(0, 4, np.array([1.0, 0.0, 0.0, 1.0]))
    >>> int(counts.sum()), counts[1:3].tolist()  # weight 0: never drawn
    (4, [0, 0])
    """
    rng = np.random.RandomState(seed)
    if sample_weight is None:
        rows = rng.randint(0, n_samples, n_samples)
    else:
        p = np.asarray(sample_weight, dtype=float)
        rows = rng.choice(n_samples, n_samples, replace=True, p=p / p.sum())
    return np.bincount(rows, minlength=n_samples)


def _rows_and_weights(estimator, X, y, sample_weight):
    """Row count and validated weights; the trees check ``X`` and ``y`` themselves."""
    name = type(estimator).__name__
    if y is None:
        raise ValueError(f"{name} requires y to be passed, but the target y is None.")
    check_consistent_length(X, y)
    n, shape = _num_samples(X), getattr(X, "shape", ())
    if n == 0 or (len(shape) == 2 and shape[1] == 0):
        raise ValueError(
            f"Found array with 0 sample(s) or 0 feature(s) (shape={shape}) while a minimum "
            f"of 1 is required by {name}; pass at least one row and one column."
        )
    return n, check_sample_weight(sample_weight, n)


def _adopt_columns(estimator, tree) -> None:
    """The columns seen at fit, as the first tree saw them (no name left from a former fit)."""
    estimator.n_features_in_ = tree.n_features_in_
    if hasattr(tree, "feature_names_in_"):
        estimator.feature_names_in_ = tree.feature_names_in_
    elif hasattr(estimator, "feature_names_in_"):  # an earlier fit on a DataFrame
        del estimator.feature_names_in_


def _check_columns(estimator, X) -> None:
    """``X``'s columns against those seen at fit: errors and warnings name the ensemble."""
    check_is_fitted(estimator, "estimators_")
    if len(getattr(X, "shape", (0, 0))) != 2:
        return  # not a table: the trees' validation says so ("Reshape your data")
    with explained_errors():
        validate_data(estimator, X, reset=False, skip_check_array=True)


#: The trees' own warnings about X's column names: the ensemble has given its own.
_NAME_WARNINGS = ("X does not have valid feature names", "X has feature names, but")


def _tree_call(method, X, seen: set):
    """``method(X)`` of one tree; each of its warnings is passed on once per prediction.

    The trees of an ensemble share their categorical levels, so a warning about
    the values of ``X`` (:func:`climbing_trees._categorical_encoding.warn_unmatched_levels`)
    would otherwise come once per tree.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = method(X)
    for warning in caught:
        key = (warning.category, str(warning.message))
        if key[1].startswith(_NAME_WARNINGS) or key in seen:
            continue
        seen.add(key)
        warnings.warn(warning.message, stacklevel=user_stacklevel())
    return out


def _tree_outputs(estimator, X, method: str) -> list:
    """Every tree's ``method`` on ``X``, once the ensemble has checked ``X``'s columns."""
    _check_columns(estimator, X)
    seen: set = set()
    return [_tree_call(getattr(tree, method), X, seen) for tree in estimator.estimators_]


def _class_labels(estimator, y, regressor: str) -> None:
    """Refuse a ``y`` that is no set of class labels, naming the ensemble (not its trees)."""
    y = np.asarray(y)
    if y.dtype.kind in "biu":  # integer labels are always classes
        return
    try:
        _check_classification_labels(y)
    except ValueError as exc:
        raise ValueError(
            f"{exc} {type(estimator).__name__} needs class labels (integers, strings, "
            f"booleans); for a continuous target use {regressor}."
        ) from exc


def _numeric_target(estimator, y, classifier: str) -> np.ndarray:
    """``y`` as floats, finite and within the trees' limit, or an error naming the ensemble."""
    return numeric_target(y, type(estimator).__name__, classifier)


class _MissingValuesTag:
    """Ensembles accept NaN in ``X`` as their trees do (chapter 10): the tag says so."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


class _Forest(_MissingValuesTag, BaseEstimator):
    """Trees on bootstrap samples (or on all rows), each with its own seed; averaged.

    ``sample_weight`` is used as scikit-learn 1.9 uses it: with ``bootstrap``
    it sets each row's chance of being drawn and each tree is weighted by
    its counts alone; without, every tree gets the weights.  Not here:
    ``max_samples``, ``class_weight``, ``oob_score`` (chapter 11's exercise
    computes it) and ``n_jobs``.
    """

    _tree_class: type
    _splitter: str
    _parameter_constraints: dict = {**_TREE_PARAMETERS, "bootstrap": ["boolean"]}

    def __init__(self, n_estimators=100, *, max_features="sqrt", max_depth=None,
                 min_samples_leaf=1, bootstrap=True, random_state=None,
                 categorical_features="auto"):  # fmt: skip
        self.n_estimators, self.max_features = n_estimators, max_features
        self.max_depth, self.min_samples_leaf = max_depth, min_samples_leaf
        self.bootstrap, self.random_state = bootstrap, random_state
        self.categorical_features = categorical_features

    def _check_target(self, y) -> None:
        """Checks of ``y`` that name the ensemble rather than its trees."""

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        if np.asarray(y).ndim == 2 and np.asarray(y).shape[1] == 1:
            y = column_or_1d(y, warn=True)  # a column vector warns, as scikit-learn's forests
        n, weights = _rows_and_weights(self, X, y, sample_weight)
        self._check_target(y)
        rng = check_random_state(self.random_state)
        seeds = rng.randint(MAX_SEED, size=self.n_estimators)
        given = None if sample_weight is None else weights  # draws rows by weight
        trees = []
        for seed in seeds:
            tree = self._tree_class(
                splitter=self._splitter, max_features=self.max_features,
                max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf,
                categorical_features=self.categorical_features, random_state=int(seed),
            )  # fmt: skip
            w = bootstrap_counts(seed, n, given) if self.bootstrap else weights
            trees.append(tree.fit(X, y, sample_weight=w))
        self.estimators_ = trees
        _adopt_columns(self, trees[0])
        if hasattr(trees[0], "classes_"):
            self.classes_ = trees[0].classes_
        return self

    @property
    def feature_importances_(self) -> np.ndarray:
        check_is_fitted(self, "estimators_")
        return np.mean([tree.feature_importances_ for tree in self.estimators_], axis=0)


class RandomForestClassifier(ClassifierMixin, _Forest):
    """Random forest of :class:`DecisionTreeClassifier` (Breiman 2001).

    Averages the trees' probabilities.
    """

    _tree_class, _splitter = DecisionTreeClassifier, "best"
    _regressor = "RandomForestRegressor"  # named in the error on a continuous y

    def __init__(self, n_estimators=100, *, max_features="sqrt", max_depth=None,
                 min_samples_leaf=1, bootstrap=True, random_state=None,
                 categorical_features="auto"):  # fmt: skip
        super().__init__(n_estimators, max_features=max_features, max_depth=max_depth,
                         min_samples_leaf=min_samples_leaf, bootstrap=bootstrap,
                         random_state=random_state,
                         categorical_features=categorical_features)  # fmt: skip

    def _check_target(self, y) -> None:
        _class_labels(self, y, self._regressor)

    def predict_proba(self, X):
        probas = _tree_outputs(self, X, "predict_proba")
        if isinstance(probas[0], list):  # several outputs: average each output's
            return [np.mean(p, axis=0) for p in zip(*probas, strict=True)]
        return np.mean(probas, axis=0)

    def predict(self, X) -> np.ndarray:
        check_is_fitted(self, "estimators_")
        proba = self.predict_proba(X)
        if isinstance(proba, list):  # several outputs: one column each
            pairs = zip(self.classes_, proba, strict=True)
            return np.column_stack([c[np.argmax(p, axis=1)] for c, p in pairs])
        return self.classes_[np.argmax(proba, axis=1)]


class RandomForestRegressor(RegressorMixin, _Forest):
    """Random forest of :class:`DecisionTreeRegressor`; averages the predictions."""

    _tree_class, _splitter = DecisionTreeRegressor, "best"
    _classifier = "RandomForestClassifier"  # named in the error on a y of labels

    def __init__(self, n_estimators=100, *, max_features=1.0, max_depth=None,
                 min_samples_leaf=1, bootstrap=True, random_state=None,
                 categorical_features="auto"):  # fmt: skip
        super().__init__(n_estimators, max_features=max_features, max_depth=max_depth,
                         min_samples_leaf=min_samples_leaf, bootstrap=bootstrap,
                         random_state=random_state,
                         categorical_features=categorical_features)  # fmt: skip

    def _check_target(self, y) -> None:
        _numeric_target(self, y, self._classifier)

    def predict(self, X) -> np.ndarray:
        return np.mean(_tree_outputs(self, X, "predict"), axis=0)


class ExtraTreesClassifier(RandomForestClassifier):
    """Extremely randomised trees (Geurts et al. 2006): random thresholds, all rows."""

    _splitter, _regressor = "random", "ExtraTreesRegressor"

    def __init__(self, n_estimators=100, *, max_features="sqrt", max_depth=None,
                 min_samples_leaf=1, bootstrap=False, random_state=None,
                 categorical_features="auto"):  # fmt: skip
        super().__init__(n_estimators, max_features=max_features, max_depth=max_depth,
                         min_samples_leaf=min_samples_leaf, bootstrap=bootstrap,
                         random_state=random_state,
                         categorical_features=categorical_features)  # fmt: skip


class ExtraTreesRegressor(RandomForestRegressor):
    """Extremely randomised regression trees: random thresholds, all rows."""

    _splitter, _classifier = "random", "ExtraTreesClassifier"

    def __init__(self, n_estimators=100, *, max_features=1.0, max_depth=None,
                 min_samples_leaf=1, bootstrap=False, random_state=None,
                 categorical_features="auto"):  # fmt: skip
        super().__init__(n_estimators, max_features=max_features, max_depth=max_depth,
                         min_samples_leaf=min_samples_leaf, bootstrap=bootstrap,
                         random_state=random_state,
                         categorical_features=categorical_features)  # fmt: skip


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
    scale = 2.0 ** int(np.ceil(np.log2(largest / MAX_ABS_TARGET)))
    while largest / scale > MAX_ABS_TARGET:  # in case the logarithm rounded down
        scale *= 2.0
    tree.fit(X, residual / scale, sample_weight=sample_weight)
    tree.tree_.value *= scale
    tree.tree_.impurity *= scale * scale


class GradientBoostingRegressor(RegressorMixin, _MissingValuesTag, BaseEstimator):
    """Gradient boosting with squared error (Friedman 2001): trees fit to residuals.

    ``F_0`` is the weighted mean of ``y``; stage ``m`` fits a
    :class:`DecisionTreeRegressor` of depth ``max_depth`` to ``y - F_{m-1}``
    and adds ``learning_rate`` times its prediction.  With the same
    parameters, scikit-learn's ``GradientBoostingRegressor(criterion=
    "squared_error", subsample=1.0)`` makes the same predictions on tie-free
    data (chapter 11 and the tests check it).

    Every ``y`` its trees accept (``|y| <= 1e150``) is accepted, although
    the residuals may reach twice that: a stage whose residuals pass the
    trees' limit fits them divided by a power of two, and its tree's values
    are multiplied back (both exact), so the model is the one an exact
    rescaling of ``y`` gives.
    """

    _parameter_constraints: dict = {
        **_TREE_PARAMETERS,
        "learning_rate": [Interval(Real, 0.0, None, closed="neither")],
    }

    def __init__(self, n_estimators=100, *, learning_rate=0.1, max_depth=3,
                 min_samples_leaf=1, max_features=None, random_state=None,
                 categorical_features="auto"):  # fmt: skip
        self.n_estimators, self.learning_rate = n_estimators, learning_rate
        self.max_depth, self.min_samples_leaf = max_depth, min_samples_leaf
        self.max_features, self.random_state = max_features, random_state
        self.categorical_features = categorical_features

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        _, sample_weight = _rows_and_weights(self, X, y, sample_weight)
        y = _numeric_target(self, column_or_1d(y, warn=True), "RandomForestClassifier")
        rng = check_random_state(self.random_state)
        # The weighted mean with the weights the trees use (rescaled by a power of two,
        # exactly): with weights near 1e300 the sum of w * y would overflow.
        init = float(np.average(y, weights=power_of_two_scale(sample_weight)[0]))
        F = np.full(len(y), init)
        trees = []  # the fitted state changes only once every stage has succeeded
        for stage in range(self.n_estimators):
            tree = DecisionTreeRegressor(
                max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf,
                max_features=self.max_features, random_state=rng.randint(MAX_SEED),
                categorical_features=self.categorical_features,
            )  # fmt: skip
            _fit_residuals(tree, X, y - F, sample_weight, stage, self.learning_rate)
            F += self.learning_rate * tree.predict(X)
            trees.append(tree)
        self.init_, self.estimators_ = init, trees
        _adopt_columns(self, trees[0])
        return self

    def staged_predict(self, X):
        """Predictions after each stage (a generator), as scikit-learn's."""
        _check_columns(self, X)
        F, seen = None, set()
        for tree in self.estimators_:
            step = self.learning_rate * _tree_call(tree.predict, X, seen)
            F = np.full(len(step), self.init_) if F is None else F
            F = F + step
            yield F

    def predict(self, X) -> np.ndarray:
        *_, F = self.staged_predict(X)  # the last stage is the prediction
        return F
