"""Ensembles of the package's trees: random forests and extra trees.

The book's chapter "From one tree to many" builds and measures them.
Each is a thin layer on top of :class:`DecisionTreeClassifier` and
:class:`DecisionTreeRegressor`, which do the work (categorical features
included): the forest draws the seeds and the samples, grows the trees and
averages them, and adds scikit-learn's parameters, out-of-bag estimates,
``n_jobs`` and warm starts around them:

* **random forest** (Breiman 2001): every tree sees a bootstrap sample (rows
  drawn with replacement, given to the tree as integer sample weights) and
  searches ``max_features`` random features per node;
* **extra trees** (Geurts, Ernst and Wehenkel 2006): every tree sees all rows
  and draws one random threshold per searched feature (``splitter="random"``).

Gradient boosting lives in :mod:`climbing_trees._gradient_boosting`.

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
from collections.abc import Callable
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from functools import partial
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
from scipy.sparse import hstack as sparse_hstack
from scipy.sparse import issparse
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    _fit_context,
    is_classifier,
)
from sklearn.ensemble import RandomForestClassifier as SkRandomForestClassifier
from sklearn.ensemble import RandomForestRegressor as SkRandomForestRegressor
from sklearn.ensemble._bootstrap import _get_n_samples_bootstrap
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import (
    _safe_indexing,
    check_consistent_length,
    check_random_state,
    compute_class_weight,
    compute_sample_weight,
)
from sklearn.utils._param_validation import Hidden, Interval, RealNotInt, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import (
    _num_samples,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from ._classes import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    _check_classification_labels,
    numeric_target,
)
from ._compiled._tables import ForestRows
from ._criteria import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA
from ._dask import (
    DaskRows,
    forest_data,
    forest_report,
    grow_on_workers,
    grow_over_cluster,
    is_dask_collection,
    oob_sums,
)
from ._random import seeded_random_state
from ._validation import (
    check_sample_weight,
    densified,
    explained_errors,
    user_stacklevel,
)
from ._weights import expand_output_class_weights

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


def bootstrap_rows(
    seed: int, n_samples: int, n_draws: int, sample_weight=None
) -> np.ndarray:
    """The rows drawn with replacement for the tree with ``seed``, as scikit-learn does.

    ``n_draws`` draws from ``RandomState(seed)``: uniformly, or, given
    ``sample_weight``, each row with probability proportional to its weight.
    The indices are ``int32``, as scikit-learn's ``estimators_samples_``.

    >>> bootstrap_rows(0, 5, 3).tolist()
    [4, 0, 3]
    """
    rng = seeded_random_state(seed)  # np.random.RandomState(seed)'s draws, faster
    if sample_weight is None:
        rows = rng.randint(0, n_samples, n_draws)
    else:
        p = np.asarray(sample_weight, dtype=float)
        rows = rng.choice(n_samples, n_draws, replace=True, p=p / p.sum())
    return rows.astype(np.int32)


def bootstrap_counts(seed: int, n_samples: int, sample_weight=None) -> np.ndarray:
    """How often each row is drawn in the bootstrap sample of the tree with ``seed``.

    ``n_samples`` draws with replacement (:func:`bootstrap_rows`), as
    scikit-learn 1.9 draws them: uniformly, or, given ``sample_weight``,
    each row with probability proportional to its weight.  A row drawn
    twice weighs 2 in the tree, a row never drawn (out of bag) weighs 0.

    Parameters
    ----------
    seed : int
        The tree's seed (one per tree, drawn from the forest's ``random_state``).
    n_samples : int
        Rows of the training set, and draws.
    sample_weight : ndarray of shape (n_samples,), optional
        Draw each row with probability proportional to its weight.

    Returns
    -------
    ndarray of int of shape (n_samples,)
        Draws of each row; they sum to ``n_samples``.

    Examples
    --------
    >>> counts = bootstrap_counts(0, 10_000)
    >>> int(counts.sum()), round(float(np.mean(counts == 0)), 2)  # 1/e out of bag
    (10000, 0.37)
    >>> counts = bootstrap_counts(0, 4, np.array([1.0, 0.0, 0.0, 1.0]))
    >>> int(counts.sum()), counts[1:3].tolist()  # weight 0: never drawn
    (4, [0, 0])
    """
    rows = bootstrap_rows(seed, n_samples, n_samples, sample_weight)
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


def _check_columns(estimator, X):
    """``X``'s columns against those seen at fit: errors and warnings name the ensemble.

    Returns ``X`` as the trees read it: dense once here, if it is sparse, rather
    than once per tree (:func:`climbing_trees._validation.densified`).
    """
    check_is_fitted(estimator, "estimators_")
    if len(getattr(X, "shape", (0, 0))) != 2:
        return X  # not a table: the trees' validation says so ("Reshape your data")
    with explained_errors():
        validate_data(estimator, X, reset=False, skip_check_array=True)
    return densified(X)  # its own messages: explained_errors' hints are about y


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
    X = _check_columns(estimator, X)
    seen: set = set()
    return [
        _tree_call(getattr(tree, method), X, seen) for tree in estimator.estimators_
    ]


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
    """Ensembles accept NaN in ``X`` (chapter 9) and a sparse ``X`` as their trees do:
    the tags say so."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True  # read as its dense equivalent (densified)
        return tags


# --- forests ---------------------------------------------------------------------------------

#: Constraints of the package's own tree options (chapters 6, 7, 8 and 9), which a
#: forest passes on to its trees.
_PACKAGE_TREE_PARAMETERS = {
    "min_samples_leaf": _TREE_PARAMETERS[
        "min_samples_leaf"
    ],  # 1.0: a fraction here too
    "categorical_features": _TREE_PARAMETERS["categorical_features"],
    "categorical_split": [StrOptions({"auto", "one_vs_rest", "partition"})],
    "min_samples_level": [Interval(Integral, 1, None, closed="left")],
    "max_categorical_candidates": [Interval(Integral, 1, None, closed="left")],
    "missing_values": [StrOptions({"learn", "surrogate"})],
    "max_surrogates": [Interval(Integral, 0, None, closed="left")],
    "splitter": [StrOptions({"best", "random", "hist"}), None],
    "max_bins": [Interval(Integral, 2, 65_535, closed="both")],
}

#: Parameters of the trees that the forest sets itself: each tree's seed, and its class
#: weights, which the forest folds into the sample weights (as scikit-learn's forests).
_SET_BY_THE_FOREST = ("random_state", "class_weight", "splitter")


def _forest_constraints(sklearn_forest: type, criteria: tuple[str, ...]) -> dict:
    """scikit-learn's constraints of ``sklearn_forest`` (its own and its trees'), with the
    criteria and the tree options of this package."""
    return {
        **sklearn_forest._parameter_constraints,
        **_PACKAGE_TREE_PARAMETERS,
        "criterion": [StrOptions(set(criteria))],
    }


def _average(outputs: list) -> np.ndarray:
    """The trees' outputs summed in tree order, then divided by their number.

    scikit-learn's forests add each tree's output to a running total in the
    order their threads finish, which can change the last bits from one run
    (or ``n_jobs``) to another; summing in the order of the trees makes the
    result the same for every ``n_jobs``, and equal to scikit-learn's with one
    thread.
    """
    total = np.zeros_like(outputs[0], dtype=np.float64)
    for output in outputs:
        total += output
    return total / len(outputs)


def _parallel_outputs(forest, X, method: str) -> list:
    """Every tree's ``method`` on ``X`` in tree order, over ``n_jobs`` threads.

    The ensemble checks ``X``'s columns first; the trees' warnings are passed on
    once each (:func:`_tree_call` around the whole parallel call, which also sees
    the warnings of joblib's worker threads).
    """
    X = _check_columns(forest, X)

    def run(X):
        parallel = Parallel(
            n_jobs=forest.n_jobs, verbose=forest.verbose, prefer="threads"
        )
        return parallel(
            delayed(getattr(tree, method))(X) for tree in forest.estimators_
        )

    return _tree_call(run, X, set())


def _grow_tree(
    tree, fitted: dict, X: np.ndarray, Y: np.ndarray, sample_weight, forest_rows=None
):
    """Fit ``tree`` on ``X`` and ``Y`` validated once for the forest (``fitted``: what
    the validation learned, ``classes_``, ``n_features_in_``, ...), with its own
    ``sample_weight``: the tree ``tree.fit(X, y, sample_weight)`` grows, without
    checking ``X`` and ``y`` again, nor sorting ``X`` again where ``forest_rows``
    (:class:`climbing_trees._compiled._tables.ForestRows` of ``X`` and ``Y``) has."""
    learner = tree._unfitted_copy()
    learner.__dict__.update(fitted)
    tree._grow(learner, X, Y, sample_weight, forest_rows=forest_rows)
    return tree


def _one_column_per_output(y) -> np.ndarray:
    """``y`` as an array of shape ``(n_samples, n_outputs)``."""
    y = np.asarray(y)
    return y.reshape(-1, 1) if y.ndim == 1 else y


@dataclass(kw_only=True, eq=False, repr=False)
class _Forest(_MissingValuesTag, BaseEstimator):
    """What the four forests share: fit, the bootstrap, out-of-bag estimates, apply.

    The parameters are fields of a dataclass: each forest's ``__init__`` is
    generated from them with its own name and signature (scikit-learn reads
    the signature in ``get_params``), and a subclass restates only the
    defaults that differ.
    """

    _tree_class: ClassVar[type]
    _splitter: ClassVar[str] = "best"

    n_estimators: int = field(default=100, kw_only=False)
    criterion: str = "squared_error"
    max_depth: int | None = None
    min_samples_split: int | float = 2
    min_samples_leaf: int | float = 1
    min_weight_fraction_leaf: float = 0.0
    max_features: int | float | str | None = 1.0
    max_leaf_nodes: int | None = None
    min_impurity_decrease: float = 0.0
    bootstrap: bool = True
    oob_score: bool | Callable = False
    n_jobs: int | None = None
    random_state: int | np.random.RandomState | None = None
    verbose: int = 0
    warm_start: bool = False
    ccp_alpha: float = 0.0
    max_samples: int | float | None = None
    monotonic_cst: Any = None
    categorical_features: Any = "auto"
    categorical_split: str = "auto"
    min_samples_level: int = 1
    max_categorical_candidates: int = 16_384
    missing_values: str = "learn"
    max_surrogates: int = 5
    splitter: str | None = None
    max_bins: int = 255

    # -- fit ------------------------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Grow the forest on ``(X, y)``: one tree per seed, as scikit-learn does.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Categorical columns and missing values as the trees take them.
            A row-chunked ``dask.array`` or a dask DataFrame grows the same
            forest on the current ``distributed`` client: where ``X`` fits a
            worker, each tree grows in memory on one; above, each grows over
            the whole cluster as a histogram tree (``splitter="hist"``), and
            ``fit_report_`` says what crossed the network
            (:func:`climbing_trees._dask.forest_data` says which and why).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        sample_weight : array-like of shape (n_samples,), default=None
            With ``bootstrap``, each row's chance of being drawn (times its
            class weight); without, every tree's weights.

        Returns
        -------
        self
        """
        on_dask, rows = is_dask_collection(X), None
        if on_dask:  # trees in memory on workers, or over the cluster (rows: _dask)
            X, y, sample_weight, rows = forest_data(self, X, y, sample_weight)
        tree_params = self._tree_params()
        if issparse(y):
            raise ValueError("sparse multilabel-indicator for y is not supported.")
        if np.asarray(y).ndim == 2 and np.asarray(y).shape[1] == 1:
            y = column_or_1d(
                y, warn=True
            )  # a column vector warns, as scikit-learn's forests
        n, weights = _rows_and_weights(self, X, y, sample_weight)
        X = densified(X)  # once for every tree and the out-of-bag predictions
        Y = _one_column_per_output(self._check_target(y))
        if not self.bootstrap and self.max_samples is not None:
            raise ValueError(
                "`max_sample` cannot be set if `bootstrap=False`. Either switch to "
                "`bootstrap=True` or set `max_sample=None`."
            )
        if not self.bootstrap and self.oob_score:
            raise ValueError("Out of bag estimation only available if bootstrap=True")
        if self.oob_score:
            self._check_oob_target(Y)
        given = None if sample_weight is None else weights
        draw_weight = self._draw_weights(Y, given)
        n_draws = _get_n_samples_bootstrap(n, self.max_samples, draw_weight)
        sampling = _Sampling(n, n_draws if self.bootstrap else None, draw_weight)

        rng = check_random_state(self.random_state)
        kept = (
            list(self.estimators_)
            if self.warm_start and hasattr(self, "estimators_")
            else []
        )
        if kept:
            self._check_warm_start(X, Y)
        n_more = self.n_estimators - len(kept)
        if n_more < 0:
            raise ValueError(
                f"n_estimators={self.n_estimators} must be larger or equal to "
                f"len(estimators_)={len(kept)} when warm_start==True"
            )
        if n_more == 0:
            warnings.warn(
                "Warm-start fitting without increasing n_estimators does not "
                "fit new trees.",
                stacklevel=user_stacklevel(),
            )
        rng.randint(
            MAX_SEED, size=len(kept)
        )  # the seeds of the trees kept: drawn again
        seeds = rng.randint(MAX_SEED, size=n_more)
        trees = [
            self._tree_class(**tree_params, random_state=int(seed)) for seed in seeds
        ]
        per_tree = self._tree_weights(Y, sampling)
        if trees and rows is None:  # X and y checked and converted once, for every tree
            validated, X_fit, Y_fit = trees[0]._validated(X, y)
            fitted = {k: v for k, v in vars(validated).items() if k.endswith("_")}
            # Sorted and read once for every tree, where the compiled builder asks.
            forest_rows = ForestRows(X_fit, Y_fit)

        def grow(i: int, tree):
            if self.verbose > 1:
                print(f"building tree {i + 1} of {n_more}")
            weights = per_tree(tree.random_state)
            return _grow_tree(tree, fitted, X_fit, Y_fit, weights, forest_rows)

        if rows is not None:  # the same trees, each grown over the cluster
            grown = grow_over_cluster(rows, trees, y, per_tree)
        elif on_dask and trees:  # the same trees, each grown on a worker
            weights = [per_tree(tree.random_state) for tree in trees]
            grown = grow_on_workers(_grow_tree, trees, fitted, X_fit, Y_fit, weights)
        else:
            # Threads: the compiled builder releases the GIL while it grows a tree.
            parallel = Parallel(
                n_jobs=self.n_jobs, verbose=self.verbose, prefer="threads"
            )
            grown = parallel(delayed(grow)(i, tree) for i, tree in enumerate(trees))
        trees = kept + grown
        oob = {}
        if self.oob_score and (n_more > 0 or not hasattr(self, "oob_score_")):
            oob = self._oob_attributes(trees, X if rows is None else rows, Y, sampling)
        # Every tree has grown (and the out-of-bag score is known): the model
        # changes now.
        if not oob and n_more > 0:
            for name in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
                self.__dict__.pop(name, None)  # from an earlier fit: no longer true
        self.estimators_, self._sampling = trees, sampling
        self.estimator_ = self._tree_class(**tree_params)
        self.__dict__.update(oob)
        if n_more > 0:  # an earlier fit's report no longer describes the forest
            self.__dict__.pop("fit_report_", None)
        if rows is not None and grown:  # what crossed the network
            self.fit_report_ = forest_report(rows, grown)
        _adopt_columns(self, trees[0])
        self.n_outputs_ = trees[0].n_outputs_
        if hasattr(trees[0], "classes_"):
            self.classes_, self.n_classes_ = trees[0].classes_, trees[0].n_classes_
        return self

    def _check_warm_start(self, X, Y: np.ndarray) -> None:
        """Refuse, before any tree grows, data the kept trees were not grown on: other
        columns (scikit-learn's ``validate_data(reset=False)``) or outputs."""
        _check_columns(self, X)
        if Y.shape[1] != self.n_outputs_:
            raise ValueError(
                f"y has {Y.shape[1]} output(s), but the {len(self.estimators_)} trees kept by "
                f"warm_start were fitted on {self.n_outputs_}; refit with warm_start=False "
                "to learn other outputs."
            )

    def _tree_params(self) -> dict:
        """The parameters every tree gets: the forest's own of the same name, and the
        forest's splitter (``splitter=None``: the forest's kind's)."""
        own = self.get_params(deep=False)
        names = self._tree_class._get_param_names()
        params = {k: own[k] for k in names if k in own and k not in _SET_BY_THE_FOREST}
        return {**params, "splitter": self.splitter or self._splitter}

    def _check_target(self, y):
        """``y`` checked in the ensemble's name (not its trees'): labels, or floats."""
        return y

    def _draw_weights(self, Y: np.ndarray, sample_weight):
        """The weights rows are drawn by (``sample_weight`` times class weights), or None."""
        return sample_weight

    def _tree_weights(self, Y: np.ndarray, sampling: _Sampling):
        """A function from a tree's seed to the sample weights of its fit."""
        if sampling.n_draws is None:  # no bootstrap: every tree gets all rows
            return lambda seed: sampling.weights
        return lambda seed: np.bincount(
            sampling.rows(seed), minlength=sampling.n_samples
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = (
            True  # y may have several columns, as the trees'
        )
        return tags

    # -- the trees as a sequence -----------------------------------------------------------

    def __len__(self) -> int:
        """The number of trees fitted."""
        return len(self.estimators_)

    def __getitem__(self, index):
        """The tree (or the list of trees) at ``index``."""
        return self.estimators_[index]

    def __iter__(self):
        """The trees, in the order of their seeds."""
        return iter(self.estimators_)

    @property
    def estimators_samples_(self) -> list[np.ndarray]:
        """The rows drawn for each tree (with repeats), recomputed from its seed.

        All the rows, in order, when ``bootstrap=False``.
        """
        check_is_fitted(self, "estimators_")
        return [self._sampling.rows(tree.random_state) for tree in self.estimators_]

    # -- predictions -----------------------------------------------------------------------

    def apply(self, X) -> np.ndarray:
        """The leaf each row of ``X`` reaches in each tree.

        Returns
        -------
        X_leaves : ndarray of shape (n_samples, n_estimators)
        """
        return np.array(_parallel_outputs(self, X, "apply")).T

    def decision_path(self, X):
        """The nodes each row of ``X`` passes through, in every tree.

        Returns
        -------
        indicator : sparse CSR matrix of shape (n_samples, total number of nodes)
            Entry ``(i, t)`` is 1 when row ``i`` visits node ``t``; the trees'
            nodes follow each other.
        n_nodes_ptr : ndarray of shape (n_estimators + 1,)
            Tree ``b``'s nodes are the columns ``n_nodes_ptr[b]:n_nodes_ptr[b + 1]``.
        """
        indicators = _parallel_outputs(self, X, "decision_path")
        n_nodes_ptr = np.cumsum([0, *(indicator.shape[1] for indicator in indicators)])
        return sparse_hstack(indicators).tocsr(), n_nodes_ptr

    @property
    def feature_importances_(self) -> np.ndarray:
        """Mean impurity importance of the trees that split, renormalised to sum to 1.

        Single-leaf trees are left out, as scikit-learn leaves them out; zeros
        when every tree is a single leaf.
        """
        check_is_fitted(self, "estimators_")
        split = [
            t.feature_importances_ for t in self.estimators_ if t.tree_.node_count > 1
        ]
        if not split:
            return np.zeros(self.n_features_in_)
        mean = np.mean(split, axis=0, dtype=np.float64)
        return mean / np.sum(mean)

    # -- out of bag -----------------------------------------------------------------------

    def _oob_attributes(
        self, trees: list, X, Y: np.ndarray, sampling: _Sampling
    ) -> dict:
        """The out-of-bag predictions and score, as scikit-learn computes them.

        Each row is predicted by the trees that did not draw it; a row that
        every tree drew gets a prediction of zero, with scikit-learn's warning.
        ``X`` on a Dask cluster is predicted where its blocks are (:func:`oob_sums`).
        """

        def out_of_bag(i: int) -> np.ndarray:
            return np.flatnonzero(sampling.counts(trees[i].random_state) == 0)

        on_dask = isinstance(X, DaskRows)  # X on the workers: summed there (_dask)
        sums = partial(oob_sums, self) if on_dask else self._oob_sums
        total, votes = sums(trees, X, Y.shape, out_of_bag)
        if (votes == 0).any():
            warnings.warn(
                "Some inputs do not have OOB scores. This probably means too few "
                "trees were used to compute any reliable OOB estimates.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
        total = np.zeros((Y.shape[0], 1, Y.shape[1])) if total is None else total
        oob = total / np.maximum(votes, 1)[:, None, :]
        return self._oob_result(Y, oob[..., 0] if oob.shape[-1] == 1 else oob)

    def _oob_sums(self, trees: list, X, shape: tuple, out_of_bag) -> tuple:
        """Each row's sum of the outputs of the trees that left it out (in tree order;
        None if none did) and their number, ``shape`` (rows, outputs);
        ``out_of_bag(i)``: the rows tree ``i`` left out."""
        if not isinstance(X, (np.ndarray, list)) and not hasattr(X, "iloc"):
            X = np.asarray(X)  # another array-like: rows taken from its array
        total, votes = None, np.zeros(shape, dtype=np.int64)
        for i, tree in enumerate(trees):
            rows = out_of_bag(i)
            if not len(rows):
                continue
            out = self._oob_tree_output(tree, _safe_indexing(X, rows))
            if total is None:
                total = np.zeros((shape[0], *out.shape[1:]))
            total[rows] += out
            votes[rows] += 1
        return total, votes

    def _check_oob_target(self, Y: np.ndarray) -> None:
        """Refuse, before any tree grows, a target the out-of-bag score cannot use.

        As scikit-learn, a classifier's target is judged by its class codes
        (positions in each output's sorted labels), not its labels: two outputs
        of two classes each are "multilabel-indicator" whatever their labels
        ({1, 2}, {"a", "b"}); outputs of more classes are refused.
        """
        kind = type_of_target(_class_codes(Y)[0] if is_classifier(self) else Y)
        if kind == "unknown" or (
            is_classifier(self) and kind == "multiclass-multioutput"
        ):
            raise ValueError(
                "The type of target cannot be used to compute OOB estimates. Got "
                f"{kind} while only the following are supported: continuous, "
                "continuous-multioutput, binary, multiclass, multilabel-indicator."
            )

    def _score_oob(self, Y, prediction):
        """``oob_score``'s callable, or the default score, of the out-of-bag prediction."""
        score = self.oob_score if callable(self.oob_score) else self._default_oob_score
        return score(Y, prediction)


@dataclass(frozen=True, eq=False)
class _Sampling:
    """How a fit draws each tree's rows: the same draws every time, from the tree's seed.

    ``n_draws`` is ``None`` without bootstrap (every tree gets all ``n_samples``
    rows, weighted by ``weights``).
    """

    n_samples: int
    n_draws: int | None
    weights: np.ndarray | None

    def rows(self, seed: int) -> np.ndarray:
        """The rows drawn for the tree of ``seed``, as scikit-learn's ``int32`` indices."""
        if self.n_draws is None:
            return np.arange(self.n_samples, dtype=np.int32)
        return bootstrap_rows(seed, self.n_samples, self.n_draws, self.weights)

    def counts(self, seed: int) -> np.ndarray:
        """How often each row is drawn for the tree of ``seed``."""
        return np.bincount(self.rows(seed), minlength=self.n_samples)


@dataclass(kw_only=True, eq=False, repr=False)
class _ForestClassifier(ClassifierMixin, _Forest):
    """Forests of :class:`DecisionTreeClassifier`: the trees' probabilities averaged."""

    _tree_class: ClassVar[type] = DecisionTreeClassifier
    _parameter_constraints: ClassVar[dict] = _forest_constraints(
        SkRandomForestClassifier, CLASSIFICATION_CRITERIA
    ) | {"ccp_risk": [StrOptions({"impurity", "misclassification"})]}
    _default_oob_score: ClassVar[Callable] = staticmethod(accuracy_score)
    _regressor: ClassVar[str] = (
        "RandomForestRegressor"  # named in the error on a continuous y
    )

    criterion: str = "gini"
    max_features: int | float | str | None = "sqrt"
    class_weight: Any = None
    ccp_risk: str = "impurity"

    def _check_target(self, y):
        _class_labels(self, y, self._regressor)
        return y

    def _check_warm_start(self, X, Y: np.ndarray) -> None:
        """As the other forests, and the classes of every output as those kept."""
        super()._check_warm_start(X, Y)
        fitted = self.classes_ if self.n_outputs_ > 1 else [self.classes_]
        for k, (new, old) in enumerate(zip(_class_codes(Y)[1], fitted, strict=True)):
            if not np.array_equal(new, old):
                raise ValueError(
                    f"warm_start needs the classes of the first fit: output {k} has the "
                    f"classes {new.tolist()}, the trees kept have {np.asarray(old).tolist()}; "
                    "refit with warm_start=False to learn new classes."
                )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True  # as scikit-learn's forests
        return tags

    def _draw_weights(self, Y: np.ndarray, sample_weight):
        """``sample_weight`` times the class weights, as scikit-learn's forests: a
        ``"balanced"`` class's weight counts its rows by their ``sample_weight``."""
        class_weight = self.class_weight
        if class_weight is None:
            return sample_weight
        codes, classes = _class_codes(Y)
        if isinstance(class_weight, str):
            if self.warm_start:
                warnings.warn(_BALANCED_WARM_START, stacklevel=user_stacklevel())
            if class_weight == "balanced_subsample" and self.bootstrap:
                return sample_weight  # weighted tree by tree (_tree_weights)
            class_weight = [
                dict(zip(c, compute_class_weight(
                    "balanced", classes=c, y=Y[:, k], sample_weight=sample_weight),
                    strict=True))
                for k, c in enumerate(classes)
            ]  # fmt: skip
        factors = expand_output_class_weights(class_weight, list(codes.T), classes)
        return factors if sample_weight is None else sample_weight * factors

    def _tree_weights(self, Y: np.ndarray, sampling: _Sampling):
        counts = super()._tree_weights(Y, sampling)
        if self.class_weight != "balanced_subsample" or sampling.n_draws is None:
            return counts
        codes = _class_codes(Y)[0]

        def balanced_counts(
            seed,
        ):  # classes balanced within each tree's bootstrap sample
            rows = sampling.rows(seed)
            balanced = compute_sample_weight("balanced", codes, indices=rows)
            return np.bincount(rows, minlength=sampling.n_samples) * balanced

        return balanced_counts

    def _oob_tree_output(self, tree, X) -> np.ndarray:
        """A tree's probabilities, shaped ``(n_rows, n_classes, n_outputs)``."""
        proba = tree.predict_proba(X)
        return np.stack(proba, axis=-1) if isinstance(proba, list) else proba[..., None]

    def _oob_result(self, Y, oob) -> dict:
        codes = _class_codes(Y)[0]
        score = self._score_oob(codes, np.argmax(oob, axis=1))
        return {"oob_decision_function_": oob, "oob_score_": score}

    def predict_proba(self, X):
        """Mean of the trees' class probabilities, columns in ``classes_`` order.

        With several outputs, a list with one such array per output.
        """
        probas = _parallel_outputs(self, X, "predict_proba")
        if isinstance(probas[0], list):  # several outputs: average each output's
            return [_average(list(p)) for p in zip(*probas, strict=True)]
        return _average(probas)

    def predict_log_proba(self, X):
        """Natural logarithm of :meth:`predict_proba` (a list with several outputs)."""
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            if isinstance(proba, list):
                return [np.log(p) for p in proba]
            return np.log(proba)

    def predict(self, X) -> np.ndarray:
        """The class of highest mean probability; equal ones go to the lowest class index.

        With several outputs, an array of shape ``(n_samples, n_outputs)``.
        """
        check_is_fitted(self, "estimators_")
        proba = self.predict_proba(X)
        if isinstance(proba, list):  # several outputs: one column each
            pairs = zip(self.classes_, proba, strict=True)
            return np.column_stack([c[np.argmax(p, axis=1)] for c, p in pairs])
        return self.classes_[np.argmax(proba, axis=1)]


@dataclass(kw_only=True, eq=False, repr=False)
class _ForestRegressor(RegressorMixin, _Forest):
    """Forests of :class:`DecisionTreeRegressor`: the trees' predictions averaged."""

    _tree_class: ClassVar[type] = DecisionTreeRegressor
    _parameter_constraints: ClassVar[dict] = _forest_constraints(
        SkRandomForestRegressor, REGRESSION_CRITERIA
    ) | {
        "criterion": [
            StrOptions(set(REGRESSION_CRITERIA)),
            Hidden(StrOptions({"friedman_mse"})),  # deprecated in scikit-learn 1.9
        ]
    }
    _default_oob_score: ClassVar[Callable] = staticmethod(r2_score)
    _classifier: ClassVar[str] = (
        "RandomForestClassifier"  # named in the error on labels
    )

    def _check_target(self, y):
        return _numeric_target(self, y, self._classifier)

    def _tree_params(self) -> dict:
        params = super()._tree_params()
        if params["criterion"] == "friedman_mse":  # scikit-learn 1.9's deprecation
            warnings.warn(
                'Value `"friedman_mse"` for `criterion` is deprecated and will be removed in '
                '1.11. It maps to `"squared_error"` as both were always equivalent. Use '
                '`criterion="squared_error"` to remove this warning.',
                FutureWarning,
                stacklevel=user_stacklevel(),
            )
            params["criterion"] = "squared_error"
        return params

    def _oob_tree_output(self, tree, X) -> np.ndarray:
        """A tree's predictions, shaped ``(n_rows, 1, n_outputs)``."""
        prediction = tree.predict(X)
        return prediction.reshape(len(prediction), 1, -1)

    def _oob_result(self, Y, oob) -> dict:
        prediction = oob[:, 0]
        return {
            "oob_prediction_": prediction,
            "oob_score_": self._score_oob(Y, prediction),
        }

    def predict(self, X) -> np.ndarray:
        """Mean of the trees' predictions (``(n_samples, n_outputs)`` with several outputs)."""
        return _average(_parallel_outputs(self, X, "predict"))


def _class_codes(Y: np.ndarray) -> tuple[np.ndarray, list]:
    """Each output's class codes (positions in its sorted labels) and labels."""
    codes, classes = np.zeros(Y.shape, dtype=int), []
    for k in range(Y.shape[1]):
        labels, codes[:, k] = np.unique(Y[:, k], return_inverse=True)
        classes.append(labels)
    return codes, classes


_BALANCED_WARM_START = (
    'class_weight presets "balanced" or "balanced_subsample" are not recommended for '
    "warm_start if the fitted data differs from the full dataset. In order to use "
    '"balanced" weights, use compute_class_weight ("balanced", classes, y). In place of y '
    "you can use a large enough sample of the full training set target to properly "
    "estimate the class frequency distributions. Pass the resulting weights as the "
    "class_weight parameter."
)


#: The parameters every forest documents (``{...}`` is filled in for each forest).
_PARAMETERS = """\
    Parameters
    ----------
    n_estimators : int, default=100
        The number of trees.
    criterion : {criteria}, default="{criterion}"
        The trees' impurity (:class:`{tree}`).
    max_depth : int or None, default=None
    min_samples_split : int or float, default=2
    min_samples_leaf : int or float, default=1
    min_weight_fraction_leaf : float, default=0.0
    max_features : {{"sqrt", "log2"}}, int, float or None, default={max_features}
        Features searched at each node, drawn at random for each node.
    max_leaf_nodes : int or None, default=None
    min_impurity_decrease : float, default=0.0
    ccp_alpha : float, default=0.0
        Passed to every tree, with the meaning they have in
        :class:`{tree}`.
    bootstrap : bool, default={bootstrap}
        Whether each tree sees a bootstrap sample (``max_samples`` rows drawn
        with replacement, given to the tree as integer sample weights) or
        every row.
    oob_score : bool or callable, default=False
        Whether to score the forest on the rows each tree did not draw (out of
        bag); only with ``bootstrap=True``.  A callable ``score(y, y_pred)``
        replaces the default ({score}).  As in scikit-learn it receives ``y``
        of shape ``(n_samples, n_outputs)``{oob_y}.
    n_jobs : int or None, default=None
        Trees grown (and predictions made) in this many threads (joblib,
        ``prefer="threads"``); ``None`` is 1 and ``-1`` every core.  The
        forest is the same for every ``n_jobs``: each tree's seed and sample
        are fixed before the trees are grown, and predictions are summed in
        the order of the trees.
    random_state : int, RandomState or None, default=None
        Draws one seed per tree (scikit-learn's seeds), from which the tree
        draws its bootstrap sample and its features and thresholds.
    verbose : int, default=0
        joblib's progress report while fitting and predicting; above 1 also
        a line per tree ("building tree 3 of 100").
    warm_start : bool, default=False
        Keep the fitted trees and grow only the ``n_estimators -
        len(estimators_)`` new ones: the forest is the one fitted at once
        with the final ``n_estimators`` (same seeds), as in scikit-learn.
{class_weight}\
    max_samples : int, float or None, default=None
        With ``bootstrap``, the rows drawn per tree: ``None`` draws
        ``n_samples``, an int that many, a float that fraction of
        ``n_samples``, or, when rows have weights, that fraction of the total
        draw weight (``sample_weight`` times the class weights), as in
        scikit-learn.
    monotonic_cst : array-like of int of shape (n_features,), default=None
        Monotonic constraints passed to every tree (1: increasing, -1:
        decreasing, 0: none; for a classifier, on the positive class's
        probability, two classes only), scikit-learn's semantics (chapter 5,
        :mod:`climbing_trees._monotonic`).  An average of monotone trees is
        monotone.
    categorical_features, categorical_split, min_samples_level, \
max_categorical_candidates, missing_values, max_surrogates, max_bins
        The package's tree options (categorical features, chapters 6 and 7;
        missing values and surrogate splits, chapter 9; histogram bins),
        passed to every tree: see :class:`{tree}`.{ccp_risk}
    splitter : {{"best", "random", "hist"}} or None, default=None
        The trees' splitter; None: the forest's own (``"best"`` for random
        forests, ``"random"`` for extra trees).  ``"hist"`` grows histogram
        trees (``max_bins``).
"""

_CCP_RISK = """
    ccp_risk : {"impurity", "misclassification"}, default="impurity"
        The node risk that ``ccp_alpha`` prunes by, passed to every tree: see
        :class:`DecisionTreeClassifier`."""

_CLASS_WEIGHT = """\
    class_weight : {"balanced", "balanced_subsample"}, dict, list of dicts or None, \
default=None
        Class weights multiplied into ``sample_weight``, as in scikit-learn's
        forests: with ``bootstrap`` they set each row's chance of being drawn,
        without they weigh the rows of every tree.  ``"balanced"`` weighs
        class ``k`` by ``n / (n_classes * n_k)`` with ``n`` and ``n_k``
        counted by ``sample_weight``; ``"balanced_subsample"`` does the same
        within each tree's bootstrap sample (and is ``"balanced"`` without
        bootstrap).
"""

_ATTRIBUTES = """\
    Attributes
    ----------
    estimators_ : list of {tree}
        The fitted trees; the forest is also their sequence (``len(forest)``,
        ``forest[0]``, ``for tree in forest``).
    estimator_ : {tree}
        The unfitted tree with the parameters every tree gets (its seed
        aside).
    estimators_samples_ : list of ndarray
        The rows each tree drew (with repeats), recomputed from its seed.
    feature_importances_ : ndarray of shape (n_features,)
        The mean impurity importance of the trees that split, renormalised
        (single-leaf trees are left out, as in scikit-learn).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` was a DataFrame with string column names.
    n_outputs_ : int
{specific}\
    oob_score_ : float
        The out-of-bag score; only with ``oob_score``.
"""

_CLASSIFIER_ATTRIBUTES = """\
    classes_ : ndarray, or list of ndarray (one per output)
    n_classes_ : int, or ndarray of int (one per output)
    oob_decision_function_ : ndarray of shape (n_samples, n_classes) or \
(n_samples, n_classes, n_outputs)
        Mean out-of-bag class probabilities of each training row; only with
        ``oob_score``.
"""

_REGRESSOR_ATTRIBUTES = """\
    oob_prediction_ : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Mean out-of-bag prediction of each training row; only with
        ``oob_score``.
"""


def _document(cls):
    """Fill a forest's docstring: its Parameters and Attributes sections."""
    classifier = issubclass(cls, ClassifierMixin)
    tree = cls._tree_class.__name__
    criteria = CLASSIFICATION_CRITERIA if classifier else REGRESSION_CRITERIA
    fields = {f.name: f.default for f in dataclass_fields(cls)}
    parameters = _PARAMETERS.format(
        criteria="{" + ", ".join(f'"{c}"' for c in criteria) + "}",
        criterion=fields["criterion"],
        tree=tree,
        max_features=repr(fields["max_features"]).replace("'", '"'),
        bootstrap=fields["bootstrap"],
        score="accuracy" if classifier else "R²",
        oob_y=",\n        as class codes (positions in ``classes_``)"
        if classifier
        else "",
        class_weight=_CLASS_WEIGHT if classifier else "",
        ccp_risk=_CCP_RISK if classifier else "",
    )
    specific = _CLASSIFIER_ATTRIBUTES if classifier else _REGRESSOR_ATTRIBUTES
    attributes = _ATTRIBUTES.format(tree=tree, specific=specific)
    cls.__doc__ = cls.__doc__.replace(
        "    {parameters}\n", parameters + "\n" + attributes
    )
    return cls


@_document
@dataclass(kw_only=True, eq=False, repr=False)
class RandomForestClassifier(_ForestClassifier):
    """Random forest of :class:`DecisionTreeClassifier` (Breiman 2001).

    Each tree is grown on a bootstrap sample of the rows and searches
    ``max_features`` random features per node; the forest averages the
    trees' class probabilities.  The parameters, seeds and bootstrap samples
    are scikit-learn's: where the trees are equal (tie-free data), so are
    the predictions and the out-of-bag score.  The book's chapter "From one tree to many"
    explains it.

    {parameters}

    See Also
    --------
    ExtraTreesClassifier : random thresholds, all rows.

    References
    ----------
    L. Breiman, "Random forests", *Machine Learning* 45 (2001), 5-32.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> forest = RandomForestClassifier(n_estimators=20, oob_score=True, random_state=0)
    >>> forest = forest.fit(X, y)
    >>> len(forest), forest[0].max_features_
    (20, 5)
    >>> round(forest.oob_score_, 2)
    0.95
    """


@_document
@dataclass(kw_only=True, eq=False, repr=False)
class RandomForestRegressor(_ForestRegressor):
    """Random forest of :class:`DecisionTreeRegressor` (Breiman 2001).

    Each tree is grown on a bootstrap sample of the rows (and, with
    ``max_features`` below 1, searches that many random features per node);
    the forest averages the trees' predictions.  The parameters, seeds and
    bootstrap samples are scikit-learn's: where the trees are equal
    (tie-free data), so are the predictions and the out-of-bag score.
    The book's chapter "From one tree to many" explains it.

    {parameters}

    See Also
    --------
    ExtraTreesRegressor : random thresholds, all rows.

    References
    ----------
    L. Breiman, "Random forests", *Machine Learning* 45 (2001), 5-32.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> X, y = load_diabetes(return_X_y=True)
    >>> forest = RandomForestRegressor(n_estimators=20, max_samples=0.5, oob_score=True,
    ...                                random_state=0).fit(X, y)
    >>> forest.estimators_samples_[0].shape, forest.oob_prediction_.shape
    ((221,), (442,))
    >>> round(forest.oob_score_, 2)
    0.42
    """


@_document
@dataclass(kw_only=True, eq=False, repr=False)
class ExtraTreesClassifier(_ForestClassifier):
    """Extremely randomised trees (Geurts, Ernst and Wehenkel 2006) for classes.

    Each tree draws one random threshold per searched feature
    (``splitter="random"``) and, by default, sees every row; the forest
    averages the trees' class probabilities.  The book's chapter "From one tree to many"
    explains it.

    {parameters}

    See Also
    --------
    RandomForestClassifier : best thresholds, bootstrap samples.

    References
    ----------
    P. Geurts, D. Ernst and L. Wehenkel, "Extremely randomized trees",
    *Machine Learning* 63 (2006), 3-42.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> forest = ExtraTreesClassifier(n_estimators=10, random_state=0).fit(X, y)
    >>> forest.apply(X).shape, forest.predict_proba(X[:1]).shape
    ((150, 10), (1, 3))
    """

    _splitter: ClassVar[str] = "random"
    _regressor: ClassVar[str] = "ExtraTreesRegressor"

    bootstrap: bool = False


@_document
@dataclass(kw_only=True, eq=False, repr=False)
class ExtraTreesRegressor(_ForestRegressor):
    """Extremely randomised trees (Geurts, Ernst and Wehenkel 2006) for regression.

    Each tree draws one random threshold per searched feature
    (``splitter="random"``) and, by default, sees every row; the forest
    averages the trees' predictions.  The book's chapter "From one tree to many" explains it.

    {parameters}

    See Also
    --------
    RandomForestRegressor : best thresholds, bootstrap samples.

    References
    ----------
    P. Geurts, D. Ernst and L. Wehenkel, "Extremely randomized trees",
    *Machine Learning* 63 (2006), 3-42.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> X, y = load_diabetes(return_X_y=True)
    >>> forest = ExtraTreesRegressor(n_estimators=10, random_state=0).fit(X, y)
    >>> indicator, n_nodes_ptr = forest.decision_path(X[:2])
    >>> indicator.shape[1] == int(n_nodes_ptr[-1]) == sum(t.tree_.node_count for t in forest)
    True
    """

    _splitter: ClassVar[str] = "random"
    _classifier: ClassVar[str] = "ExtraTreesClassifier"

    bootstrap: bool = False
