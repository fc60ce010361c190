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

The seeds follow scikit-learn's scheme: one ``random_state`` gives one seed
per tree, and a tree's bootstrap sample is drawn from its own seed
(:func:`bootstrap_counts`), so it can be recomputed, for example for
out-of-bag estimates.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_consistent_length, check_random_state
from sklearn.utils.validation import _num_samples, check_is_fitted, column_or_1d

from ._classes import DecisionTreeClassifier, DecisionTreeRegressor
from ._validation import _check_int, check_sample_weight

#: The largest seed scikit-learn gives a tree of an ensemble (``np.iinfo(np.int32).max``).
MAX_SEED = np.iinfo(np.int32).max


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

    def __init__(self, n_estimators=100, *, max_features="sqrt", max_depth=None,
                 min_samples_leaf=1, bootstrap=True, random_state=None,
                 categorical_features="auto"):  # fmt: skip
        self.n_estimators, self.max_features = n_estimators, max_features
        self.max_depth, self.min_samples_leaf = max_depth, min_samples_leaf
        self.bootstrap, self.random_state = bootstrap, random_state
        self.categorical_features = categorical_features

    def fit(self, X, y, sample_weight=None):
        _check_int(self.n_estimators, "n_estimators", low=1)
        if np.asarray(y).ndim == 2 and np.asarray(y).shape[1] == 1:
            y = column_or_1d(y, warn=True)  # a column vector warns, as scikit-learn's forests
        n, weights = _rows_and_weights(self, X, y, sample_weight)
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
        self.n_features_in_ = trees[0].n_features_in_
        if hasattr(trees[0], "feature_names_in_"):
            self.feature_names_in_ = trees[0].feature_names_in_
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

    def predict_proba(self, X):
        check_is_fitted(self, "estimators_")
        probas = [tree.predict_proba(X) for tree in self.estimators_]
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

    def __init__(self, n_estimators=100, *, max_features=1.0, max_depth=None,
                 min_samples_leaf=1, bootstrap=True, random_state=None,
                 categorical_features="auto"):  # fmt: skip
        super().__init__(n_estimators, max_features=max_features, max_depth=max_depth,
                         min_samples_leaf=min_samples_leaf, bootstrap=bootstrap,
                         random_state=random_state,
                         categorical_features=categorical_features)  # fmt: skip

    def predict(self, X) -> np.ndarray:
        check_is_fitted(self, "estimators_")
        return np.mean([tree.predict(X) for tree in self.estimators_], axis=0)


class ExtraTreesClassifier(RandomForestClassifier):
    """Extremely randomised trees (Geurts et al. 2006): random thresholds, all rows."""

    _splitter = "random"

    def __init__(self, n_estimators=100, *, max_features="sqrt", max_depth=None,
                 min_samples_leaf=1, bootstrap=False, random_state=None,
                 categorical_features="auto"):  # fmt: skip
        super().__init__(n_estimators, max_features=max_features, max_depth=max_depth,
                         min_samples_leaf=min_samples_leaf, bootstrap=bootstrap,
                         random_state=random_state,
                         categorical_features=categorical_features)  # fmt: skip


class ExtraTreesRegressor(RandomForestRegressor):
    """Extremely randomised regression trees: random thresholds, all rows."""

    _splitter = "random"

    def __init__(self, n_estimators=100, *, max_features=1.0, max_depth=None,
                 min_samples_leaf=1, bootstrap=False, random_state=None,
                 categorical_features="auto"):  # fmt: skip
        super().__init__(n_estimators, max_features=max_features, max_depth=max_depth,
                         min_samples_leaf=min_samples_leaf, bootstrap=bootstrap,
                         random_state=random_state,
                         categorical_features=categorical_features)  # fmt: skip


class GradientBoostingRegressor(RegressorMixin, _MissingValuesTag, BaseEstimator):
    """Gradient boosting with squared error (Friedman 2001): trees fit to residuals.

    ``F_0`` is the weighted mean of ``y``; stage ``m`` fits a
    :class:`DecisionTreeRegressor` of depth ``max_depth`` to ``y - F_{m-1}``
    and adds ``learning_rate`` times its prediction.  With the same
    parameters, scikit-learn's ``GradientBoostingRegressor(criterion=
    "squared_error", subsample=1.0)`` makes the same predictions on tie-free
    data (chapter 11 and the tests check it).
    """

    def __init__(self, n_estimators=100, *, learning_rate=0.1, max_depth=3,
                 min_samples_leaf=1, max_features=None, random_state=None,
                 categorical_features="auto"):  # fmt: skip
        self.n_estimators, self.learning_rate = n_estimators, learning_rate
        self.max_depth, self.min_samples_leaf = max_depth, min_samples_leaf
        self.max_features, self.random_state = max_features, random_state
        self.categorical_features = categorical_features

    def fit(self, X, y, sample_weight=None):
        _check_int(self.n_estimators, "n_estimators", low=1)
        rate = self.learning_rate
        if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not rate > 0:
            raise ValueError(f"learning_rate={rate!r} is invalid; use a number > 0.")
        _, sample_weight = _rows_and_weights(self, X, y, sample_weight)
        y = column_or_1d(y, warn=True).astype(float)
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinity; drop or impute those rows.")
        rng = check_random_state(self.random_state)
        self.init_ = float(np.average(y, weights=sample_weight))
        F = np.full(len(y), self.init_)
        self.estimators_ = []
        for _ in range(self.n_estimators):
            tree = DecisionTreeRegressor(
                max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf,
                max_features=self.max_features, random_state=rng.randint(MAX_SEED),
                categorical_features=self.categorical_features,
            ).fit(X, y - F, sample_weight=sample_weight)  # fmt: skip
            F += rate * tree.predict(X)
            self.estimators_.append(tree)
        self.n_features_in_ = self.estimators_[0].n_features_in_
        return self

    def staged_predict(self, X):
        """Predictions after each stage (a generator), as scikit-learn's."""
        check_is_fitted(self, "estimators_")
        F = None
        for tree in self.estimators_:
            step = self.learning_rate * tree.predict(X)
            F = np.full(len(step), self.init_) if F is None else F
            F = F + step
            yield F

    def predict(self, X) -> np.ndarray:
        *_, F = self.staged_predict(X)  # the last stage is the prediction
        return F
