"""scikit-learn style estimators: DecisionTreeClassifier and DecisionTreeRegressor.

Chapter 5 of the book ("Training and inference") explains this module.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ._binning import check_max_bins
from ._categorical import check_categorical_split
from ._categorical_encoding import encode_categorical, warn_unmatched_levels
from ._compiled import grow_tree_compiled
from ._costs import fit_costs, least_cost_classes
from ._criteria import (
    CLASSIFICATION_CRITERIA,
    REGRESSION_CRITERIA,
    one_hot,
    output_criterion,
)
from ._dask import fit_on_dask, is_dask_collection, lazy_predict, stacked_decision_path
from ._fractional import leaf_weights, mix
from ._importance import surrogate_importances
from ._levelwise._support import builder_for
from ._monotonic import check_monotonic_cst
from ._pruning import (
    best_first_subtree,
    ccp_subtree,
    cost_complexity_path,
    node_risk,
    prune,
)
from ._random import random_splits, resolve_max_features
from ._tree import Tree
from ._validation import (
    check_sample_weight,
    densified,
    explained_errors,
    power_of_two_scale,
    resolve_hyperparameters,
    unit_weights,
    user_stacklevel,
)
from ._weights import (
    check_min_weight_fraction_leaf,
    expand_output_class_weights,
    min_weight_leaf,
)

#: Largest |y| the regressor accepts: squares of larger values overflow.
MAX_ABS_TARGET = 1e150


def numeric_target(y, name: str, classifier: str) -> np.ndarray:
    """``y`` as floats, finite and within ``MAX_ABS_TARGET``, or an error naming
    the estimator ``name`` (and ``classifier``, for class labels)."""
    try:
        y = np.asarray(y, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} needs a numeric target y; for class labels use {classifier}."
        ) from exc
    if not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinity; drop or impute those rows.")
    if np.any(np.abs(y) > MAX_ABS_TARGET):
        raise ValueError(
            f"y has values beyond +/-{MAX_ABS_TARGET:g}, whose squares overflow; "
            "rescale y (for example divide it by a constant)."
        )
    return y


def _finite_state(X: np.ndarray) -> str:
    """``"finite"``, ``"missing"`` (NaN, no infinity) or ``"infinite"``: a 2-D float array's values.

    The sum of all values first: one pass, no copy.  It is finite exactly
    when every value is, unless finite values overflow it; a NaN or an
    infinite sum sends the check to ``isinf``, value by value (an overflow
    counts as ``"missing"``: it only makes the descent look for NaN).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        # einsum's sum streams faster than the pairwise summation of X.sum(),
        # but costs more to start: worth it from about a megabyte.
        total = np.einsum("ij->", X) if X.size >= 1 << 17 else X.sum()
        if np.isfinite(total):
            return "finite"
    return "infinite" if np.isinf(X).any() else "missing"


def _float_frame_named(X, names) -> bool:
    """Whether ``X`` is a pandas DataFrame of float64 columns named ``names``, in order.

    The names must be of type ``str`` itself, as scikit-learn requires to read
    them as feature names: a subclass such as ``numpy.str_`` compares equal but
    makes scikit-learn warn that ``X`` has no valid feature names.
    """
    import pandas as pd

    return (
        isinstance(X, pd.DataFrame)
        and len(X.columns) == len(names)
        and all(dtype == np.float64 for dtype in X.dtypes)
        and all(type(name) is str for name in X.columns)
        and list(X.columns) == list(names)
    )


def _encode_numeric_levels(
    X: np.ndarray, categories: list, names=None
) -> np.ndarray | None:
    """Level codes of a float array whose categorical levels are all plain numbers.

    The same codes as :func:`encode_categorical` (a value equal to a level gets
    that level's position, any other value -1), found by ``searchsorted`` on the
    sorted levels instead of through a pandas object index, and the same
    warnings (:func:`~climbing_trees._categorical_encoding.warn_unmatched_levels`; the
    columns are called by ``names``, or by their indices).  Returns ``None``
    when some level is not a plain int or float exactly equal to its float
    (booleans, strings, huge integers...): the caller then takes the general path.
    """
    out = None
    for j, levels in enumerate(categories):
        if levels is None:
            continue
        if not all(
            isinstance(v, (int, float, np.integer, np.floating))
            and not isinstance(v, (bool, np.bool_))
            and float(v) == v
            for v in levels
        ):
            return None
        values = np.array([float(v) for v in levels])
        if out is None:
            out = X.copy()
        if not len(values):
            out[:, j] = -1.0
            continue
        order = np.argsort(values, kind="stable")
        ordered = values[order]
        column = X[:, j]
        at = np.minimum(np.searchsorted(ordered, column), len(ordered) - 1)
        out[:, j] = np.where(ordered[at] == column, order[at], -1)
        name = j if names is None else names[j]
        warn_unmatched_levels(name, column, out[:, j], levels)
    return out


def _check_output_shape(shape: tuple) -> None:
    """Refuse a ``y`` without columns or with three or more dimensions, before it is
    validated (scikit-learn's own messages there speak of the features of X)."""
    if len(shape) > 2 or (len(shape) == 2 and shape[1] == 0):
        problem = "no output to fit" if len(shape) == 2 else f"{len(shape)} dimensions"
        raise ValueError(
            f"y has shape {tuple(shape)}: {problem}; pass y of shape (n_samples,), or "
            "(n_samples, n_outputs) with one column per output."
        )


def _check_outputs(y) -> np.ndarray:
    """``y`` as 1-D (one output) or 2-D (several outputs), or a clear error.

    A column vector ``(n, 1)`` is one output, without a warning (as
    scikit-learn's trees); ``(n, k)`` with ``k >= 2`` is ``k`` outputs.
    """
    y = np.asarray(y)
    if y.ndim == 1:
        return y
    if y.ndim == 2 and y.shape[1] == 1 or y.ndim != 2:
        return column_or_1d(y, warn=False)
    return y


def _check_classification_labels(y: np.ndarray) -> None:
    """scikit-learn's check of class labels, with an explanation where it gives none.

    scikit-learn 1.9.1 sorts all of a 2-D ``y`` at once to tell its kind, so
    outputs whose labels cannot be compared (integers in one column, strings in
    another) stop it with a bare ``TypeError: '<' not supported ...``.  The
    same error is raised here (scikit-learn refuses such a ``y`` too), saying
    which outputs hold which types and how to make them comparable.
    """
    try:
        check_classification_targets(y)
    except TypeError as exc:
        if y.ndim != 2 or "not supported between" not in str(exc):
            raise
        types = "; ".join(
            f"output {k}: "
            + ", ".join(
                sorted({type(v).__name__ for v in y[:, k] if v == v})
            )  # v == v: not NaN
            for k in range(y.shape[1])
        )
        raise TypeError(
            f"{exc}: the labels of y cannot be compared with each other ({types}), so "
            "the kind of target cannot be told (scikit-learn refuses such a y too). Give "
            "every output labels of one type, for example strings with y.astype(str)."
        ) from exc


def _friedman_mse_is_squared_error(criterion):
    """``"squared_error"`` for ``"friedman_mse"``, with scikit-learn 1.9's FutureWarning.

    scikit-learn 1.9 deprecates ``criterion="friedman_mse"``: its regressors'
    ``__init__`` store ``"squared_error"`` instead, "as both were always
    equivalent" (Friedman's improvement ranks the splits of a node as the
    decrease of squared error does, and the trees grown are the same), and
    warn.  The regressors here do the same, word for word.
    """
    if isinstance(criterion, str) and criterion == "friedman_mse":
        warnings.warn(
            'Value `"friedman_mse"` for `criterion` is deprecated and will be '
            'removed in 1.11. It maps to `"squared_error"` as both '
            'were always equivalent. Use `criterion="squared_error"` '
            "to remove this warning.",
            FutureWarning,
            stacklevel=user_stacklevel(),
        )
        return "squared_error"
    return criterion


def _refuse_sparse_y(y) -> None:
    """scikit-learn's TypeError for a sparse ``y`` (the trees fit dense targets)."""
    if sparse.issparse(y):
        raise TypeError(
            "Sparse data was passed for y, but dense data is required. Use '.toarray()' "
            "to convert to a dense numpy array."
        )


class BaseDecisionTree(BaseEstimator):
    """Shared fit/predict machinery of both estimators.

    ``fit`` is all-or-nothing: it learns into a fresh clone and copies the
    learned attributes over only when everything has succeeded, so a failed
    ``fit`` never leaves a model half-changed.
    """

    _valid_criteria: tuple[str, ...] = ()

    def __init__(
        self,
        *,
        criterion,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        ccp_alpha=0.0,
        categorical_features="auto",
        categorical_split="auto",
        min_samples_level=1,
        max_categorical_candidates=16_384,
        missing_values="learn",
        max_surrogates=5,
        min_weight_fraction_leaf=0.0,
        splitter="best",
        max_features=None,
        random_state=None,
        max_bins=255,
        monotonic_cst=None,
    ):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.ccp_alpha = ccp_alpha
        self.categorical_features = categorical_features
        self.categorical_split = categorical_split
        self.min_samples_level = min_samples_level
        self.max_categorical_candidates = max_categorical_candidates
        self.missing_values = missing_values
        self.max_surrogates = max_surrogates
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.splitter = splitter
        self.max_features = max_features
        self.random_state = random_state
        self.max_bins = max_bins
        self.monotonic_cst = monotonic_cst

    def fit(self, X, y, sample_weight=None):
        """Grow a tree from the training set ``(X, y)``.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            NaN marks a missing value (in a dense ``X``); a sparse matrix is
            read as ``X.toarray()``, at the memory of its dense equivalent;
            categorical columns as in ``categorical_features``.
            With ``splitter="hist"``, a row-chunked ``dask.array`` (categorical
            columns as in ``categorical_features``) or a dask DataFrame (as a
            pandas one; its category columns with known categories) fits on the
            current ``distributed`` client, the same tree bit for bit
            (:mod:`climbing_trees._dask`; ``fit_report_`` then says what crossed
            the network).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Several columns are several outputs, fitted by one tree whose
            impurity is the mean of the outputs' impurities (scikit-learn's
            semantics).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; a weight of 2 counts like a duplicated row and
            a weight of 0 like a removed row (such rows take no part in the fit:
            they neither place thresholds nor count in ``n_node_samples``).

        Returns
        -------
        self
        """
        if is_dask_collection(X):  # rows on a Dask cluster (climbing_trees._dask)
            return fit_on_dask(self, X, y, sample_weight)
        learner, X, Y = self._validated(X, y)
        self._grow(learner, X, Y, sample_weight)
        return self

    def _validated(self, X, y):
        """A fresh learner with what ``(X, y)`` says (columns, classes, outputs), and
        ``X`` and the encoded target ``Y`` as the builders read them.

        The first half of :meth:`fit`.  A forest calls it once and gives every
        tree the result (:meth:`_grow`), as scikit-learn's forests fit their
        trees with ``check_input=False``.
        """
        learner = self._unfitted_copy()
        X = densified(X)
        _refuse_sparse_y(y)
        _check_output_shape(getattr(y, "shape", ()))
        learner._check_target_values(y)
        with explained_errors():
            X, learner.is_categorical_, learner.categories_ = encode_categorical(
                X, learner.categorical_features
            )
            X, y = validate_data(
                learner,
                X,
                y,
                dtype=np.float64,
                ensure_all_finite="allow-nan",
                y_numeric=False,
                multi_output=True,
            )
            y = _check_outputs(y)
            Y = learner._encode_target(y)
        return learner, X, Y

    def _grow(
        self, learner, X, Y, sample_weight, flat_tables: bool = True, forest_rows=None
    ) -> None:
        """The second half of :meth:`fit`: grow ``learner``'s tree on the validated
        ``X`` and ``Y`` (:meth:`_validated`) and adopt it; ``self`` changes only at
        the end.  ``flat_tables=False`` leaves predict's lookup tables to the first
        prediction.  ``forest_rows``: what a forest found once in ``X`` and ``Y``
        for all its trees (:class:`climbing_trees._compiled._tables.ForestRows`),
        which the compiled builder takes for this tree's rows."""
        sample_weight = check_sample_weight(sample_weight, len(X))
        sample_weight = learner._apply_class_weight(sample_weight, Y)
        # Surrogates count the case weights, the primary split the altered priors
        # of a loss matrix (rpart's surrogate.c and gini.c; chapter 10).
        case_weight = sample_weight
        sample_weight = learner._apply_loss(
            sample_weight, Y
        )  # altered priors (chapter 10)
        weight_fraction = check_min_weight_fraction_leaf(
            learner.min_weight_fraction_leaf
        )
        # self's random_state, not the clone's copy: a shared RandomState advances.
        randomness = random_splits(learner, X.shape[1], self.random_state)
        learner.max_features_ = resolve_max_features(learner.max_features, X.shape[1])
        # Only weight ratios matter: an exact rescaling keeps w * y**2 from
        # overflowing (huge weights) and w * y from underflowing (tiny ones).
        # In place: check_sample_weight's copies are the fit's own (no copy of a
        # million weights more); case weights are usually the same array.
        sample_weight, weight_scale = power_of_two_scale(sample_weight, in_place=True)
        if case_weight is not sample_weight:  # only its ratios matter
            case_weight = power_of_two_scale(case_weight, in_place=True)[0]
        # Fractions count every row of X, zero-weight rows included, as scikit-learn's
        # ceil(fraction * n_samples) does.
        params = resolve_hyperparameters(learner, len(X))
        keep = sample_weight > 0  # a zero weight removes the row
        if keep.all():
            keep = None
        else:  # case weights that are the weights stay the same array (one copy)
            same = case_weight is sample_weight
            # take: the same C-ordered copies as X[keep], faster (20,000 x 20, a
            # bootstrap's rows: 0.27 ms for X, Y and the weights against 0.70 ms).
            rows = np.flatnonzero(keep)
            X, Y = X.take(rows, axis=0), Y.take(rows, axis=0)
            sample_weight = sample_weight.take(rows)
            case_weight = sample_weight if same else case_weight.take(rows)
            del rows
        # Several outputs: the criterion carries each output's columns in Y.
        params["criterion"] = output_criterion(
            params["criterion"], learner._output_widths()
        )
        max_leaf_nodes = params.pop("max_leaf_nodes")
        ccp_alpha = params.pop("ccp_alpha")
        learner._check_target(Y)
        categorical_split = check_categorical_split(learner.categorical_split)
        if learner.is_categorical_ is None:  # X was not 2-D before validate_data
            learner.is_categorical_ = np.zeros(X.shape[1], dtype=bool)
            learner.categories_ = [None] * X.shape[1]
        n_categories = np.array(
            [0 if c is None else len(c) for c in learner.categories_]
        )
        # Which builder grows these options: one place says (builder_for).
        missing_values = params.pop("missing_values")
        monotonic_cst = learner._checked_monotonic_cst(X.shape[1])
        builder, extra = builder_for(
            learner.criterion, learner.is_categorical_, randomness, missing_values,
            max_leaf_nodes, max_surrogates=params.pop("max_surrogates"),
            max_bins=learner._max_bins(),
            monotonic_cst=monotonic_cst,
        )  # fmt: skip
        if (
            "max_bins" in extra
        ):  # splitter="hist": quantiles of a subsample drawn from it
            extra["bin_random_state"] = check_random_state(self.random_state)
            if case_weight is sample_weight and np.all(sample_weight == 1.0):
                # Unit weights as one read-only value for every row: a million
                # ones less (the histogram fit reads them, never writes them).
                sample_weight = case_weight = unit_weights(len(sample_weight))
        if missing_values == "surrogate":  # rpart's surrogates count the case weights
            extra["surrogate_weight"] = case_weight
        if forest_rows is not None and builder is grow_tree_compiled:
            extra["forest_rows"] = forest_rows.for_tree(keep)  # this tree's rows
        del keep
        learner.tree_ = builder(
            X,
            Y,
            sample_weight,
            **params,
            is_categorical=learner.is_categorical_,
            n_categories=n_categories,
            categorical_split=categorical_split,
            **extra,
            min_weight_leaf=min_weight_leaf(weight_fraction, sample_weight),
            random_splits=randomness,
        )
        # CART's importance with surrogates needs the training rows (chapter 10).
        training = None
        if missing_values == "surrogate":
            training = (X, Y, sample_weight, params["criterion"])
        # The training arrays: freed before the tables.
        del X, Y, sample_weight, case_weight
        tree = learner.tree_  # report the caller's weights, not the rescaled ones
        tree.weighted_n_node_samples *= weight_scale  # the builder's own array
        # Pruning (chapter 8): the full tree first, cut back afterwards.
        if max_leaf_nodes is not None and tree.n_leaves > max_leaf_nodes:
            tree = prune(tree, best_first_subtree(tree, max_leaf_nodes))
        if ccp_alpha > 0:
            tree = prune(tree, ccp_subtree(tree, ccp_alpha, learner._node_risk(tree)))
        learner.tree_ = tree
        tree.n_features = learner.n_features_in_
        tree.n_classes = np.ones(learner.n_outputs_) * np.asarray(
            learner._output_widths()
        )
        if training is not None:
            importances = surrogate_importances(
                tree,
                *training,
                learner.is_categorical_,
                n_categories,
                extra["surrogate_weight"],
            )
            with np.errstate(over="ignore"):  # the caller's weights: inf past 1e308
                learner.surrogate_importances_ = importances * weight_scale
            del training
        if flat_tables:
            tree.flat_tables()  # the lookup tables of predict, built once here
        self._adopt_fitted_state(learner)

    def _max_bins(self):
        """``max_bins`` checked where ``splitter="hist"`` (None otherwise: no binning)."""
        if self.splitter != "hist":
            return None
        return check_max_bins(self.max_bins)

    def _checked_monotonic_cst(self, n_features: int):
        """``monotonic_cst`` checked (scikit-learn's errors), or ``None`` (chapter 5)."""
        classes = (
            self._output_widths()[0] if isinstance(self, ClassifierMixin) else None
        )
        return check_monotonic_cst(
            self.monotonic_cst, n_features, self.n_outputs_, classes
        )

    def cost_complexity_pruning_path(self, X, y, sample_weight=None) -> Bunch:
        """The minimal cost-complexity pruning path of the tree grown on ``(X, y)``.

        Fits a clone with ``ccp_alpha=0`` (the other parameters, ``max_leaf_nodes``
        included, as set) and runs the weakest-link sequence on its tree
        (:func:`climbing_trees.weakest_links`), as scikit-learn's method of
        the same name does.  Chapter 8 of the book explains it.

        Parameters
        ----------
        X, y, sample_weight
            As in :meth:`fit`.

        Returns
        -------
        Bunch with
            ccp_alphas : ndarray
                0, then the effective alpha of each pruning step (one step per
                collapsed node, so nodes sharing an alpha repeat it).
            impurities : ndarray
                Total leaf risk ``R(T)`` of the subtree at each of those alphas
                (weighted impurity; with ``ccp_risk="misclassification"``, the
                weighted training error rate).
        """
        est = (
            clone(self).set_params(ccp_alpha=0.0).fit(X, y, sample_weight=sample_weight)
        )
        return cost_complexity_path(est.tree_, est._node_risk(est.tree_))

    def _node_risk(self, tree: Tree):
        """``R(t)`` of each node for cost-complexity pruning (chapter 8)."""
        return node_risk(tree, "impurity")

    def _with_tree(self, tree: Tree, ccp_alpha: float):
        """A shallow copy of this fitted estimator holding another (pruned) tree."""
        other = clone(self).set_params(ccp_alpha=ccp_alpha)
        other.__dict__.update({k: v for k, v in vars(self).items() if k.endswith("_")})
        other.tree_ = tree
        return other

    def _check_target(self, Y: np.ndarray) -> None:
        """Checks that depend on the criterion (after rows of weight 0 are dropped)."""

    def _check_target_values(self, y) -> None:
        """Checks of the raw ``y`` that come before those of ``X`` (none here)."""

    def _output_widths(self) -> tuple[int, ...]:
        """Columns of each output in the encoded target (one per regression output)."""
        return (1,) * self.n_outputs_

    def _apply_class_weight(
        self, sample_weight: np.ndarray, Y: np.ndarray
    ) -> np.ndarray:
        """``sample_weight`` times the class weights (the classifier's); as is here."""
        return sample_weight

    def _apply_loss(self, sample_weight: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """``sample_weight`` under the loss matrix's altered priors (the classifier's)."""
        return sample_weight

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # What fit accepts: X with missing values (NaN; chapter 9), whose columns
        # may be categorical, with levels of any hashable type, strings included
        # (chapter 6); a sparse X is read as its dense equivalent (densified).
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.target_tags.multi_output = True  # y may have several columns (outputs)
        return tags

    def _unfitted_copy(self):
        """A new estimator with ``self``'s parameters (shared, not copied: ``fit``
        only reads them) and no fitted attribute: ``clone`` without its cost,
        which on a tiny data set is a noticeable part of ``fit``."""
        learner = object.__new__(type(self))
        learner.__dict__.update(
            {
                k: v
                for k, v in vars(self).items()
                if not k.endswith("_") or k.startswith("__")
            }
        )
        return learner

    def _adopt_fitted_state(self, learner) -> None:
        for name in [
            k for k in vars(self) if k.endswith("_") and not k.startswith("__")
        ]:
            delattr(self, name)
        self.__dict__.update(
            {k: v for k, v in vars(learner).items() if k.endswith("_")}
        )

    def _validate_X_predict(self, X) -> np.ndarray:
        """``X`` checked and encoded as the tree reads it (:meth:`_checked_X`)."""
        return self._checked_X(X)[0]

    def _checked_X(self, X) -> tuple[np.ndarray, bool | None]:
        """``X`` validated for prediction, and whether it may hold NaN (None: unknown)."""
        check_is_fitted(self, "tree_")
        X = densified(X)
        plain = self._plain_floats(X)
        if plain is not None and (state := _finite_state(plain)) != "infinite":
            # The common case, decided in microseconds: float values of the right
            # width, with the fitted names or none, and nothing to encode or only
            # numeric levels.  Anything else takes the full checks below, which
            # raise the usual messages.  A finite sum also tells the descent
            # that no value is missing.
            has_missing = state != "finite"
            if not self.is_categorical_.any():
                return plain, has_missing
            names = getattr(self, "feature_names_in_", None)
            encoded = _encode_numeric_levels(plain, self.categories_, names)
            if encoded is not None:
                return encoded, has_missing
        with explained_errors():
            names = getattr(self, "feature_names_in_", None)
            if names is not None and list(getattr(X, "columns", names)) != list(names):
                # Check the column names before encoding levels column by column, or a
                # reordered DataFrame would be reported as text in a numerical column.
                validate_data(self, X, reset=False, skip_check_array=True)
            X = encode_categorical(X, categories=list(self.categories_))[0]
            X = validate_data(
                self, X, reset=False, dtype=np.float64, ensure_all_finite="allow-nan"
            )
            return X, None

    def _plain_floats(self, X) -> np.ndarray | None:
        """``X`` as a float64 array of the right shape, when that is all it is; else None.

        Either a float64 array, the model fitted without column names, or a
        DataFrame of float64 columns named as at fit, in the same order (its
        values, read without a copy when they form one block).  Such an ``X``
        skips scikit-learn's validation: only its values remain to be checked
        (:func:`_finite_state`).  Anything else (None) takes the full checks.
        """
        names = getattr(self, "feature_names_in_", None)
        if type(X) is np.ndarray and names is None:
            array = X
        elif names is not None and _float_frame_named(X, names):
            array = X.to_numpy()
        else:
            return None
        if (
            array.dtype == np.float64
            and array.ndim == 2
            and array.shape[0] >= 1
            and array.shape[1] == self.n_features_in_
        ):
            return array
        return None

    def _leaves(self, X) -> np.ndarray:
        """Leaf id of each row of ``X``, after the checks of :meth:`_validate_X_predict`.

        Plain floats without categorical columns have their values checked
        block by block, each block just before its descent (:meth:`Tree.apply_flat`),
        which then reads the block from the cache instead of memory.
        """
        check_is_fitted(self, "tree_")  # first: raises NotFittedError before fit
        if (
            not self.is_categorical_.any()
            and (plain := self._plain_floats(X)) is not None
        ):

            def has_missing(block: np.ndarray) -> bool:
                state = _finite_state(block)
                if state == "infinite":
                    self._checked_X(X)  # the full checks raise the usual message
                return state != "finite"

        else:
            plain, has_missing = self._checked_X(X)
        return self.tree_.apply_flat(plain, has_missing=has_missing, compiled=True)

    def _fractional_weights(self, X):
        """Each row's weights over the leaves (CSR) when the tree is fractional, else None.

        Only trees grown with ``missing_values="fractional"`` send a row down
        several paths (:func:`climbing_trees._fractional.leaf_weights`).
        """
        check_is_fitted(self, "tree_")
        if not self.tree_.is_fractional:
            return None
        return leaf_weights(self.tree_, self._validate_X_predict(X))

    def apply(self, X) -> np.ndarray:
        """Index of the leaf that each row of ``X`` lands in.

        With ``missing_values="fractional"`` a row missing a split feature
        reaches several leaves, and ``predict`` mixes them; ``apply`` gives
        one of them, the one reached by following the larger share at each
        such node (``tree_.missing_go_to_left``; right on equal shares).

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Columns as at fit (categorical levels, missing values allowed).

        Returns
        -------
        ndarray of shape (n_samples,)
            Node ids (rows of ``tree_``'s arrays), as scikit-learn's ``apply``;
            a lazy dask array for a dask array ``X``.
        """
        if is_dask_collection(X):  # lazy, chunk by chunk (climbing_trees._dask)
            return lazy_predict(self, "apply", X)
        return self._leaves(X)

    def decision_path(self, X):
        """Nodes each row of ``X`` passes through, as scikit-learn returns them.

        With ``missing_values="fractional"``: the path to the leaf :meth:`apply`
        gives (the larger share at each node where the row misses the feature).

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)

        Returns
        -------
        indicator : sparse CSR matrix of shape (n_samples, node_count)
            Entry ``(i, t)`` is 1 when row ``i`` visits node ``t``.  For a dask
            array ``X``, computed chunk by chunk on the workers and stacked.
        """
        if is_dask_collection(X):  # X stays on the workers (climbing_trees._dask)
            return stacked_decision_path(self, X)
        X = self._validate_X_predict(X)
        return self.tree_.decision_path(X)

    def get_depth(self) -> int:
        """Depth of the fitted tree (a single leaf has depth 0).

        Returns
        -------
        int
            Edges on the longest path from the root to a leaf.
        """
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves of the fitted tree.

        Returns
        -------
        int
        """
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    @property
    def feature_importances_(self) -> np.ndarray:
        """Normalised total weighted impurity decrease brought by each feature."""
        check_is_fitted(self, "tree_")
        return self.tree_.compute_feature_importances(self.n_features_in_)


class DecisionTreeClassifier(ClassifierMixin, BaseDecisionTree):
    """A CART classification tree.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        Impurity to minimise.  ``"log_loss"`` is a synonym of ``"entropy"``
        (Shannon entropy in bits), as in scikit-learn.
    max_depth : int or None, default=None
        Maximum depth; ``None`` grows until the other rules stop.
    min_samples_split : int or float, default=2
        Fewest rows a node needs to be split.  A float is a fraction of the
        rows of ``X``, rows of weight 0 included, rounded up
        (``ceil(fraction * n_samples)``, as in scikit-learn).
    min_samples_leaf : int or float, default=1
        Fewest rows every leaf keeps (a float as for ``min_samples_split``).
        Candidate splits violating it are skipped; the search takes the best
        remaining one.
    min_impurity_decrease : float, default=0.0
        Split only if ``W_t / W * (I_t - W_L / W_t * I_L - W_R / W_t * I_R)``
        is at least this (scikit-learn's weighted definition).
    max_leaf_nodes : int or None, default=None
        Grow best first to at most this many leaves (at least 2): the tree is
        grown with the other rules, then only the splits that decrease the
        weighted impurity most, parents before children, are kept; this is
        the tree of scikit-learn's best-first builder (chapter 8).
    ccp_alpha : float, default=0.0
        Complexity parameter of minimal cost-complexity pruning (Breiman et
        al. 1984; chapter 8).  After growing, the tree is replaced by the
        smallest subtree minimising ``R(T) + ccp_alpha * |leaves(T)|``, with
        ``R(T)`` the sum over leaves of the leaf's share of the training
        weight times its risk (see ``ccp_risk``).  ``0`` keeps the grown
        tree, as in scikit-learn.  :meth:`cost_complexity_pruning_path`
        lists the alphas where the subtree changes, and
        :func:`climbing_trees.select_ccp_alpha` picks one by cross-validation.
    ccp_risk : {"impurity", "misclassification"}, default="impurity"
        The leaf risk of ``ccp_alpha``: the ``criterion`` impurity
        (scikit-learn's definition) or the weighted misclassification rate
        ``1 - max_k p_k`` (Breiman et al.'s and rpart's, whose ``cp`` is
        ``ccp_alpha`` divided by the root's misclassification rate).
    categorical_features : "auto", None, list or bool mask, default="auto"
        Which columns are categorical (chapter 6).  ``"auto"``: the pandas
        ``category``, ``object``, string (``str``) and ``bool`` columns of a
        DataFrame, or the non-numeric columns of an array; numbers stored as
        objects stay numerical.  ``"auto"`` refuses a column of numbers with
        some text among them (a ``"?"`` among ages: most of its distinct
        values, not all, read as numbers): make it numbers, or list it here.
        Otherwise a list of column names or indices, a boolean mask, or
        ``None`` (none).  Levels may be any hashable values.  Missing
        values (NaN, None, pd.NA) are a level of their own (chapter 9).  At
        predict a level not seen at fit goes where the Notes say; values of
        another kind than every fitted level (the codes 0, 1, 2 of text
        levels), or two or more values none of which was seen, also warn.
    categorical_split : {"auto", "one_vs_rest", "partition"}, default="auto"
        How categorical splits are searched.  ``"one_vs_rest"``: one level
        against the others (chapter 6).  ``"partition"``: levels sorted by
        mean response (class-1 proportion with two classes; first principal
        component of the class proportions with more) and the ``k - 1``
        contiguous splits scanned; exact for two classes (Fisher 1958;
        Breiman et al. 1984) (chapter 7).  ``"auto"``: ``"partition"``; with
        three or more classes also the one-vs-rest candidates and an exact
        search within ``max_categorical_candidates``: every partition when
        there are few levels, and with three classes every partition a line
        cuts in the triangle of class proportions (some optimal split is one,
        Coppersmith, Hong and Hosking 1999), ``O(k**2)`` candidates for ``k``
        levels.  Past the budget a heuristic (line cuts in the plane of the
        first two principal axes, then single-level moves) that is never
        worse than the scan or one-vs-rest.  With several outputs no sorted
        scan is exact: ``"partition"`` orders the levels along the first
        principal axis of their mean outputs (the concatenated class
        proportions), and ``"auto"`` scores every partition when there are
        at most ``max_categorical_candidates`` of them (exact), else that
        scan and the one-vs-rest candidates (a heuristic, measured against
        brute force in chapter 7).
    min_samples_level : int, default=1
        At each node, the levels of a categorical feature with fewer rows
        than this are pooled into one group before the search, and the group
        goes to one side as a whole.  It guards against the selection bias of
        features with many rare levels, which can always find a partition
        that looks good on the training rows (chapter 7).  The default, 1,
        pools nothing.  Numerical features are unaffected.
    max_categorical_candidates : int, default=16384
        With ``categorical_split="auto"`` and three or more classes, the most
        candidate partitions the exact search may score per categorical
        feature and node.  All ``2**(k-1) - 1`` partitions are scored when
        that fits (``k <= 15`` levels by default); with three classes the
        ``2 k (k - 1)`` line cuts when they fit (``k <= 91`` by default);
        otherwise the heuristic runs.  Lower it to fit faster, raise it to
        stay exact with more levels.  Regression and two classes ignore it.
    missing_values : {"learn", "surrogate", "fractional"}, default="learn"
        What to do with NaN in numerical columns (chapter 9).  ``"learn"``:
        scikit-learn's rule; each split learns which side missing values go
        to, and where none were seen at a node they go to the child with
        more training rows.  ``"surrogate"``: CART's and rpart's rule; the
        split is chosen on the rows where its feature is present, and rows
        missing it follow the first of up to ``max_surrogates`` surrogate
        splits on other features that they have, then the heavier side (by
        weight) of the rows the split placed at fit.  ``"fractional"``:
        C4.5's rule (Quinlan 1993); the split is chosen on the present rows
        as with surrogates, and a row missing its feature goes down both
        children, its weight times each child's share of the present rows'
        weight, at fit and at predict, where ``predict_proba`` (``predict``)
        mixes the leaves reached by those weights
        (:mod:`climbing_trees._fractional`); ``apply`` and ``decision_path``
        follow the larger share.  Surrogate and fractional trees are grown
        depth first (``grow_tree``).
        Missing values in categorical columns are a level of their own
        either way.  With ``max_features`` or ``splitter="random"``, each
        node draws its features (a feature whose present values are all
        equal is constant there) and thresholds (between its smallest and largest present value) as
        below, and the surrogates, searched as usual, route the missing
        rows.
    max_surrogates : int, default=5
        With ``missing_values="surrogate"``: the most surrogate splits kept
        per node (0 sends every missing value to the heavier side).
    min_weight_fraction_leaf : float in [0, 0.5], default=0.0
        Every leaf keeps at least this fraction of the total sample weight
        (class weights included): lighter nodes are leaves and candidate
        splits leaving a lighter side are skipped, as in scikit-learn.
    class_weight : dict, list of dicts, "balanced" or None, default=None
        Weights multiplied into ``sample_weight`` by class, as scikit-learn
        does: ``{label: weight}`` (unlisted classes weigh 1), ``"balanced"``
        (``n_samples / (n_classes * count_k)`` over the rows given to
        ``fit``), or a list with one dict per output (for ``y`` with several
        columns); a row's factor is the product of its outputs' weights, as
        scikit-learn's ``compute_sample_weight``.  Weights must be
        finite and ``>= 0``; a class of weight 0 is removed from the fit.
        The classes' shares of the weight are the priors: weights
        ``prior_k / share_k`` (:func:`~climbing_trees._costs.prior_class_weight`)
        give rpart's ``parms = list(prior = ...)`` for the splits, leaf
        classes and risk, within limits.  Class weights are case weights:
        the surrogate search (``missing_values="surrogate"``) counts them,
        while rpart's counts its case weights without the priors, so surrogates
        can differ from rpart's with ``prior``; ``min_weight_fraction_leaf``
        and ``min_impurity_decrease`` act on the weighted rows (rpart's
        ``minbucket`` counts rows); and the default ``ccp_risk="impurity"``
        prunes by the weighted Gini, rpart by the misclassification risk
        (``ccp_risk="misclassification"``).  The same limits hold for the
        altered priors of ``loss_matrix``, except that surrogates are
        searched with the weights from before the loss (rpart's rule).
    loss_matrix : array-like of shape (n_classes, n_classes) or None, default=None
        Misclassification costs, rpart's convention: ``L[i, j]`` is the cost
        of predicting class ``j`` when the truth is class ``i`` (rows and
        columns in ``classes_`` order), with a zero diagonal, entries
        ``>= 0`` and a positive entry in every row; one output only.  As in
        CART and rpart (``parms = list(loss = L)``; chapter 10,
        :mod:`climbing_trees._costs`): the tree is grown by the altered
        priors (each class's weight times ``sum_j L[i, j]``, rescaled to keep
        the total weight), ``predict`` returns the class of least expected
        cost in the leaf, and ``ccp_risk="misclassification"`` weighs each
        mistake by its cost.  ``predict_proba`` still returns the leaf's
        class proportions under the priors (``sample_weight`` and
        ``class_weight``), unaltered by the costs, as rpart's ``predict``
        does: the costs change the decision, not the estimated
        probabilities, so ``predict`` need not be the most probable class.
        ``tree_.value``, ``impurity`` and ``weighted_n_node_samples`` are
        those of the altered priors the tree was grown with.  With
        ``missing_values="surrogate"`` the surrogates, their agreement and
        the majority side count the weights from before the loss, as rpart's
        ``surrogate.c`` does; the primary split the altered ones.  A loss equal
        for every mistake changes nothing (but the scale of the pruning risk).
    splitter : {"best", "random", "hist"}, default="best"
        ``"best"``: the best threshold of every searched feature.
        ``"hist"``: the best boundary between the bins of every searched
        numerical feature (``max_bins``; histograms of exact integer sums,
        :mod:`climbing_trees._histograms`): the tree of ``"best"`` wherever
        every feature has at most ``max_bins`` distinct values and the fixed
        point holds the statistics exactly (integer or dyadic targets and
        weights; targets spanning many orders of magnitude can rank near
        ties otherwise); categorical features are searched as with
        ``"best"``; other ``missing_values`` than ``"learn"``, monotonic
        constraints and absolute error are refused.
        ``"random"``: one threshold per searched feature, drawn uniformly
        between the node's smallest and largest present value (extra
        trees); a categorical feature draws a random split of its levels
        instead (:mod:`climbing_trees._random` states the rule).
        With ``missing_values="learn"``, the rows missing the feature go to
        a side drawn at random for each node and feature, as in
        scikit-learn's random splitter.
    max_features : int, float, "sqrt", "log2" or None, default=None
        Features searched at each node, drawn at random (scikit-learn's
        rules: an int, a fraction of ``n_features_in_``, its square root or
        base-2 logarithm, or ``None`` for all).  Constant features count
        towards ``max_features``, as in scikit-learn: a node searches the
        non-constant ones among its ``max_features`` drawn features, and
        draws on only while all of those are constant.  A feature is
        constant in a node without a present value there, or with present
        values within 1e-7 of each other and none missing (scikit-learn's
        rule).
    random_state : None, int, RandomState or Generator, default=None
        Source of the draws of ``max_features`` and ``splitter="random"``:
        an int gives the same tree every fit.  With ``max_features=None``
        and ``splitter="best"`` nothing is drawn and the tree is
        deterministic (and scikit-learn's on tie-free data).  The draws are
        per node (a hash of the node's path), so both builders grow the same
        tree; scikit-learn's own random sequence is not reproduced.
        With ``splitter="hist"`` it also draws the rows (at most 200,000)
        whose quantiles bin a feature with more than ``max_bins`` values.
    max_bins : int, default=255
        ``splitter="hist"`` only: bins of present values per feature, from 2
        to 65,535 (scikit-learn's ``_BinMapper`` rule,
        :func:`climbing_trees._binning.fit_bins`); missing values get one
        bin more.  Codes are uint8 up to 255 bins, uint16 above.
    monotonic_cst : array-like of int of shape (n_features,), default=None
        Monotonic constraints, scikit-learn's (chapter 5,
        :mod:`climbing_trees._monotonic`): 1, the probability of the positive
        class (``classes_[1]``) never decreases as the feature increases; -1,
        never increases; 0, no constraint.  Two classes and one output only;
        constrained features must be numerical and ``missing_values="learn"``.
        Splits that would break a constraint are refused, and bounds passed
        down the tree keep every leaf in order.  Every builder enforces them
        (but ``splitter="hist"``, which refuses them); a constrained tree is
        grown by the builder that grows the same options unconstrained.

    Attributes
    ----------
    tree_ : Tree
        The fitted tree as arrays (see :class:`climbing_trees.Tree`).
    classes_ : ndarray, or list of ndarray
        Class labels, sorted; any hashable values, strings included.  With
        several outputs (``y`` of shape ``(n_samples, n_outputs)``), a list
        with one array per output, as in scikit-learn.
    n_classes_ : int, or ndarray of int (one per output)
    n_outputs_ : int
        Number of outputs (columns of ``y``).  The impurity of a node is the
        mean of the outputs' impurities; ``predict`` returns
        ``(n_samples, n_outputs)`` labels, ``predict_proba`` a list of arrays,
        and ``tree_.value`` has shape ``(node_count, n_outputs,
        max(n_classes_))`` (zeros past an output's classes).  ``score`` is
        ``accuracy_score``: with several outputs it is the subset accuracy
        (every output right) when all outputs are 0/1, and raises otherwise,
        as in scikit-learn.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` was a DataFrame with string column names.
    is_categorical_ : ndarray of bool
        Which features were treated as categorical.
    categories_ : list
        ``categories_[j]`` is the array of levels of a categorical feature
        ``j`` (their codes are their positions), ``None`` for a numerical one.
    feature_importances_ : ndarray
    surrogate_importances_ : ndarray
        Only with ``missing_values="surrogate"``: CART's importance (rpart's
        ``variable.importance``, unnormalised), which also credits a feature
        for the splits it is a surrogate of
        (:func:`climbing_trees._importance.surrogate_importances`, chapter 10);
        in units of the weights given to ``fit`` (inf past the float range).
    max_features_ : int
        Features searched at each node (``max_features`` resolved).

    Notes
    -----
    The book's chapters 1-5 build this estimator; chapter 4 ("Ties") explains
    the tie rules: thresholds sit midway between distinct values, equal
    splits go to the lowest feature index then lowest threshold, and
    ``predict`` breaks equal probabilities by the lowest class index.

    A categorical split sends a set of levels left (chapters 6 and 7).  A
    level that no training row of a node carried (unseen at fit, or absent
    from that node) goes to the child with the larger training weight, and
    to the right child on equal weights; ``predict`` never fails on it.

    References
    ----------
    L. Breiman, J. Friedman, R. Olshen and C. Stone, *Classification and
    Regression Trees*, Wadsworth, 1984.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_depth=2).fit(X, y)
    >>> model.get_depth(), model.get_n_leaves()
    (2, 3)
    >>> float(model.score(X, y))
    0.96
    """

    _valid_criteria = CLASSIFICATION_CRITERIA

    def __init__(
        self,
        *,
        criterion="gini",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        ccp_alpha=0.0,
        ccp_risk="impurity",
        categorical_features="auto",
        categorical_split="auto",
        min_samples_level=1,
        max_categorical_candidates=16_384,
        missing_values="learn",
        max_surrogates=5,
        min_weight_fraction_leaf=0.0,
        splitter="best",
        max_features=None,
        random_state=None,
        max_bins=255,
        monotonic_cst=None,
        class_weight=None,
        loss_matrix=None,
    ):
        super().__init__(
            criterion=criterion,
            max_depth=max_depth,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            min_impurity_decrease=min_impurity_decrease,
            max_leaf_nodes=max_leaf_nodes,
            ccp_alpha=ccp_alpha,
            categorical_features=categorical_features,
            categorical_split=categorical_split,
            min_samples_level=min_samples_level,
            max_categorical_candidates=max_categorical_candidates,
            missing_values=missing_values,
            max_surrogates=max_surrogates,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            splitter=splitter,
            max_features=max_features,
            random_state=random_state,
            max_bins=max_bins,
            monotonic_cst=monotonic_cst,
        )
        self.ccp_risk = ccp_risk
        self.class_weight = class_weight
        self.loss_matrix = loss_matrix

    def _node_risk(self, tree: Tree):
        costs = getattr(self, "_costs_", None)
        if costs is not None and self.ccp_risk == "misclassification":
            return costs.node_risk(tree)  # weighted by the loss (chapter 10)
        return node_risk(tree, self.ccp_risk)

    def _apply_loss(self, sample_weight: np.ndarray, Y: np.ndarray) -> np.ndarray:
        self._costs_, sample_weight = fit_costs(
            self.loss_matrix,
            self.n_classes_,
            self.n_outputs_,
            Y,
            sample_weight,
            getattr(self, "classes_", None),
        )
        return sample_weight

    def _output_widths(self) -> tuple[int, ...]:
        return tuple(int(k) for k in np.atleast_1d(self.n_classes_))

    def _apply_class_weight(
        self, sample_weight: np.ndarray, Y: np.ndarray
    ) -> np.ndarray:
        if self.class_weight is None:  # no factors: no class codes to find (argmax)
            return sample_weight
        ends = np.cumsum(self._output_widths())
        codes = [
            Y[:, e - k : e].argmax(axis=1)
            for e, k in zip(ends, self._output_widths(), strict=True)
        ]
        classes = [self.classes_] if self.n_outputs_ == 1 else self.classes_
        factors = expand_output_class_weights(self.class_weight, codes, classes)
        if factors is None:
            return sample_weight
        sample_weight = sample_weight * factors
        if not sample_weight.sum() > 0:
            raise ValueError(
                "class_weight gives every row of positive sample_weight a weight of 0; "
                "give at least one class present in y a positive weight."
            )
        return sample_weight

    def _encode_target(self, y) -> np.ndarray:
        if np.asarray(y).dtype.kind not in "biu":  # integer labels are always classes
            _check_classification_labels(y)
        if y.ndim == 1:
            self.classes_, codes = np.unique(y, return_inverse=True)
            self.n_classes_ = len(self.classes_)
            self.n_outputs_ = 1
            return one_hot(codes.ravel(), self.n_classes_)
        # Several outputs: one block of one-hot columns per output, side by side.
        self.n_outputs_ = y.shape[1]
        self.classes_, self.n_classes_, blocks = [], [], []
        for k in range(self.n_outputs_):
            classes, codes = np.unique(y[:, k], return_inverse=True)
            self.classes_.append(classes)
            self.n_classes_.append(len(classes))
            blocks.append(one_hot(codes.ravel(), len(classes)))
        self.n_classes_ = np.array(self.n_classes_, dtype=np.intp)
        return np.hstack(blocks)

    def predict_proba(self, X):
        """Class probabilities (weighted leaf proportions), in ``classes_`` order.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            With several outputs, a list with one such array per output.  With a
            ``loss_matrix``, the proportions under the priors, not the altered
            priors the tree was grown with (the costs do not change them).
        """
        if is_dask_collection(X):  # lazy, chunk by chunk (climbing_trees._dask)
            return lazy_predict(self, "predict_proba", X)
        weights = self._fractional_weights(X)  # first: raises NotFittedError before fit
        if weights is not None:  # C4.5's fractions: the mixture of the leaves reached
            return self._mixed_proba(weights)
        leaves = self._leaves(X)
        proba = self.tree_.value.take(leaves, axis=0)
        if self.n_outputs_ == 1:
            costs = getattr(self, "_costs_", None)  # the priors, not the altered ones
            return proba[:, 0, :] if costs is None else costs.proba(proba[:, 0, :])
        return [proba[:, k, :n] for k, n in enumerate(self.n_classes_)]

    def _mixed_proba(self, weights):
        """:meth:`predict_proba` of a fractional tree: its leaves' probabilities mixed."""
        value = self.tree_.value
        if self.n_outputs_ == 1:
            costs = getattr(
                self, "_costs_", None
            )  # each leaf's under the priors, mixed
            return mix(
                weights,
                value[:, 0, :] if costs is None else costs.proba(value[:, 0, :]),
            )
        proba = mix(weights, value)
        return [proba[:, k, :n] for k, n in enumerate(self.n_classes_)]

    def predict_log_proba(self, X):
        """Natural logarithm of :meth:`predict_proba` (a list with several outputs).

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``-inf`` where a probability is 0.
        """
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            if self.n_outputs_ == 1:
                return np.log(proba)
            return [np.log(p) for p in proba]

    def predict(self, X) -> np.ndarray:
        """Most probable class; equal probabilities go to the lowest class index.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``; with several outputs, an array of shape
            ``(n_samples, n_outputs)``.  With a ``loss_matrix``, the class ``k`` of
            least expected cost ``sum_j p_j L[j, k]`` (``p``: :meth:`predict_proba`);
            costs equal to within ``TIE_RTOL`` go to the lowest class index, as in
            rpart.
        """
        if is_dask_collection(X):  # lazy, chunk by chunk (climbing_trees._dask)
            return lazy_predict(self, "predict", X)
        weights = self._fractional_weights(X)
        if weights is not None:  # C4.5's fractions: the best class of the mixture
            proba = self._mixed_proba(weights)
            if self.n_outputs_ == 1:
                costs = getattr(self, "_costs_", None)
                if costs is None or costs.loss.uniform is not None:
                    return self.classes_.take(np.argmax(proba, axis=1))
                return self.classes_.take(least_cost_classes(proba, costs.loss.matrix))
            out = np.empty(
                (weights.shape[0], self.n_outputs_), dtype=self.classes_[0].dtype
            )
            for k, classes in enumerate(self.classes_):
                out[:, k] = classes.take(np.argmax(proba[k], axis=1))
            return out
        leaves = self._leaves(X)
        # The argmax of each node once, rather than of each row's copy of it.
        if (
            getattr(self, "_costs_", None) is not None
        ):  # least expected cost (chapter 10)
            node_class = self._costs_.node_classes(self.tree_.value[:, 0, :])[:, None]
        else:
            node_class = np.argmax(
                self.tree_.value, axis=2
            )  # padding is 0: never above
        if self.n_outputs_ == 1:
            return self.classes_.take(node_class[:, 0].take(leaves))
        # scikit-learn's dtype: that of the first output's classes.
        out = np.empty((len(leaves), self.n_outputs_), dtype=self.classes_[0].dtype)
        for k, classes in enumerate(self.classes_):
            out[:, k] = classes.take(node_class[:, k].take(leaves))
        return out


class DecisionTreeRegressor(RegressorMixin, BaseDecisionTree):
    """A CART regression tree minimising the weighted squared error or Poisson deviance.

    Parameters
    ----------
    criterion : {"squared_error", "poisson", "absolute_error"}, default="squared_error"
        ``"squared_error"``: leaves predict the weighted mean and nodes are
        scored by the weighted variance.  ``"poisson"``: half Poisson
        deviance, for counts and other non-negative targets (scikit-learn's
        definition); ``y`` must be non-negative with a positive sum, and a
        split leaving a child whose targets are all zero is not allowed.
        ``"absolute_error"``: leaves predict the weighted median (scikit-
        learn's definition, :func:`climbing_trees.weighted_median`) and nodes
        are scored by the mean absolute deviation from it; robust to outliers.
        ``"friedman_mse"``, deprecated by scikit-learn 1.9, is accepted with
        scikit-learn's ``FutureWarning`` and stored as ``"squared_error"``
        (both always grew the same trees).
    max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease
        As in :class:`DecisionTreeClassifier`.
    max_leaf_nodes, ccp_alpha
        As in :class:`DecisionTreeClassifier`; the risk ``R(t)`` of
        ``ccp_alpha`` is the node's share of the training weight times its
        squared error (there is no ``ccp_risk``).
    categorical_features, categorical_split, min_samples_level, \
    max_categorical_candidates, min_weight_fraction_leaf, splitter, \
    max_features, random_state, max_bins
        As in :class:`DecisionTreeClassifier`; ``"partition"`` (the default
        through ``"auto"``) is exact for squared error (Fisher 1958) and for
        Poisson deviance.  For absolute error it sorts the levels by their
        weighted median and is a heuristic that can miss the best partition
        (:func:`climbing_trees.absolute_error_split`).  With several
        outputs see :class:`DecisionTreeClassifier`; for absolute error
        ``"auto"`` orders the levels along the first principal axis of their
        per-output medians (a heuristic, never exhaustive).
    missing_values, max_surrogates
        NaN in numerical columns: scikit-learn's learned direction
        (``"learn"``), CART's surrogate splits (``"surrogate"``) or C4.5's
        fractional rows (``"fractional"``: ``predict`` is the weighted mean
        of the leaves' values a row reaches), as in
        :class:`DecisionTreeClassifier`.
    monotonic_cst : array-like of int of shape (n_features,), default=None
        Monotonic constraints (chapter 5): 1, the prediction never decreases
        as the feature increases; -1, never increases; 0, no constraint; one
        output only, as in scikit-learn.  See :class:`DecisionTreeClassifier`.

    Attributes
    ----------
    tree_ : Tree
    max_features_ : int
    n_outputs_ : int
        Number of outputs (columns of ``y``).  With several, the impurity is
        the mean over outputs (squared error, Poisson deviance or absolute
        error of each), ``predict`` returns ``(n_samples, n_outputs)`` and
        ``tree_.value`` has shape ``(node_count, n_outputs, 1)``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    feature_importances_ : ndarray
    surrogate_importances_ : ndarray
        Only with ``missing_values="surrogate"``: CART's importance (rpart's
        ``variable.importance``, unnormalised), which also credits a feature
        for the splits it is a surrogate of
        (:func:`climbing_trees._importance.surrogate_importances`, chapter 10);
        in units of the weights given to ``fit`` (inf past the float range).

    Notes
    -----
    Leaves predict the weighted mean target of their rows (the mean also
    minimises the Poisson deviance), or their weighted median with
    ``criterion="absolute_error"``.  Trees are grown by the compiled
    builder (:func:`climbing_trees.grow_tree_compiled`), the level-wise one
    (:func:`climbing_trees.grow_tree_levelwise`) or the depth-first one
    (:func:`climbing_trees.grow_tree`), as
    :func:`climbing_trees._levelwise._support.builder_for` says; all grow
    the same trees.  With ``"absolute_error"`` every builder finds each
    child's median through a wavelet matrix
    (:func:`climbing_trees.split_absolute_errors`, compiled in
    :mod:`climbing_trees._compiled._absolute`).  Targets with
    ``|y| > 1e150`` are rejected: their squares overflow.  Chapters 1-5 of the
    book build this estimator.

    References
    ----------
    L. Breiman, J. Friedman, R. Olshen and C. Stone, *Classification and
    Regression Trees*, Wadsworth, 1984.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = DecisionTreeRegressor(max_depth=3).fit(X, y)
    >>> model.get_n_leaves()
    8
    """

    _valid_criteria = REGRESSION_CRITERIA

    def __init__(
        self,
        *,
        criterion="squared_error",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        ccp_alpha=0.0,
        categorical_features="auto",
        categorical_split="auto",
        min_samples_level=1,
        max_categorical_candidates=16_384,
        missing_values="learn",
        max_surrogates=5,
        min_weight_fraction_leaf=0.0,
        splitter="best",
        max_features=None,
        random_state=None,
        max_bins=255,
        monotonic_cst=None,
    ):
        criterion = _friedman_mse_is_squared_error(criterion)
        super().__init__(
            criterion=criterion,
            max_depth=max_depth,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            min_impurity_decrease=min_impurity_decrease,
            max_leaf_nodes=max_leaf_nodes,
            ccp_alpha=ccp_alpha,
            categorical_features=categorical_features,
            categorical_split=categorical_split,
            min_samples_level=min_samples_level,
            max_categorical_candidates=max_categorical_candidates,
            missing_values=missing_values,
            max_surrogates=max_surrogates,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            splitter=splitter,
            max_features=max_features,
            random_state=random_state,
            max_bins=max_bins,
            monotonic_cst=monotonic_cst,
        )

    def _encode_target(self, y) -> np.ndarray:
        y = numeric_target(y, "DecisionTreeRegressor", "DecisionTreeClassifier")
        self.n_outputs_ = 1 if y.ndim == 1 else y.shape[1]
        return y[:, None] if y.ndim == 1 else y

    def _check_target_values(self, y) -> None:
        """Poisson: scikit-learn's two checks of ``y``, on every row, before ``X`` is
        checked (as scikit-learn orders them).  Rows of weight 0 are checked again
        without their targets in :meth:`_check_target`."""
        if self.criterion != "poisson":
            return
        try:
            values = np.asarray(y, dtype=float)
        except (TypeError, ValueError):
            return  # not numbers: the checks of y say so
        with np.errstate(invalid="ignore"):
            if values.size and not np.isnan(values).any():
                self._check_target(values)

    def _check_target(self, Y: np.ndarray) -> None:
        if self.criterion != "poisson":
            return
        # scikit-learn's two checks: a Poisson mean is positive, counts are not negative.
        if np.any(Y < 0):
            raise ValueError(
                "Some value(s) of y are negative which is not allowed for Poisson "
                "regression; use criterion='squared_error' or shift y."
            )
        if not np.sum(Y) > 0:
            raise ValueError(
                "Sum of y is not positive which is necessary for Poisson "
                "regression (counting only rows of positive weight)."
            )

    def predict(self, X) -> np.ndarray:
        """Weighted mean target of the leaf each row lands in.

        (The weighted median with ``criterion="absolute_error"``.)

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            With several outputs, an array of shape ``(n_samples, n_outputs)``.
        """
        if is_dask_collection(X):  # lazy, chunk by chunk (climbing_trees._dask)
            return lazy_predict(self, "predict", X)
        weights = self._fractional_weights(X)
        if weights is not None:  # C4.5's fractions: the mixture of the leaves reached
            mixed = mix(weights, self.tree_.value[:, :, 0])
            return mixed[:, 0] if self.n_outputs_ == 1 else mixed
        leaves = self._leaves(X)
        if self.n_outputs_ == 1:
            return self.tree_.value[:, 0, 0].take(leaves)
        return self.tree_.value[:, :, 0].take(leaves, axis=0)


class ExtraTreeClassifier(DecisionTreeClassifier):
    """An extremely randomised classification tree (Geurts et al. 2006).

    :class:`DecisionTreeClassifier` with scikit-learn's defaults of
    ``sklearn.tree.ExtraTreeClassifier``: ``splitter="random"`` (one random
    threshold per feature tried) and ``max_features="sqrt"``.  Every other
    parameter, attribute and method is :class:`DecisionTreeClassifier`'s.
    Forests of them are :class:`climbing_trees.ExtraTreesClassifier`
    (the chapter "From one tree to many").

    Parameters
    ----------
    splitter : {"random", "best", "hist"}, default="random"
        One random threshold per feature tried, between its smallest and
        largest value in the node (the chapter "From one tree to many");
        ``"best"`` and ``"hist"`` as in :class:`DecisionTreeClassifier`.
    max_features : int, float, {"sqrt", "log2"} or None, default="sqrt"
        Features tried at each node.
    criterion, max_depth, min_samples_split, min_samples_leaf, \
    min_weight_fraction_leaf, random_state, max_bins, max_leaf_nodes, \
    min_impurity_decrease, class_weight, ccp_alpha, ccp_risk, \
    categorical_features, categorical_split, min_samples_level, \
    max_categorical_candidates, missing_values, max_surrogates, monotonic_cst
        As in :class:`DecisionTreeClassifier`.

    References
    ----------
    P. Geurts, D. Ernst and L. Wehenkel, "Extremely randomized trees",
    *Machine Learning* 63(1), 2006.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> model = ExtraTreeClassifier(random_state=0).fit(X, y)
    >>> float(model.score(X, y))
    1.0
    """

    def __init__(
        self,
        *,
        criterion="gini",
        splitter="random",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_features="sqrt",
        random_state=None,
        max_bins=255,
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        class_weight=None,
        ccp_alpha=0.0,
        monotonic_cst=None,
        ccp_risk="impurity",
        categorical_features="auto",
        categorical_split="auto",
        min_samples_level=1,
        max_categorical_candidates=16_384,
        missing_values="learn",
        max_surrogates=5,
    ):
        super().__init__(
            criterion=criterion,
            splitter=splitter,
            max_depth=max_depth,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            max_features=max_features,
            random_state=random_state,
            max_bins=max_bins,
            monotonic_cst=monotonic_cst,
            max_leaf_nodes=max_leaf_nodes,
            min_impurity_decrease=min_impurity_decrease,
            class_weight=class_weight,
            ccp_alpha=ccp_alpha,
            ccp_risk=ccp_risk,
            categorical_features=categorical_features,
            categorical_split=categorical_split,
            min_samples_level=min_samples_level,
            max_categorical_candidates=max_categorical_candidates,
            missing_values=missing_values,
            max_surrogates=max_surrogates,
        )


class ExtraTreeRegressor(DecisionTreeRegressor):
    """An extremely randomised regression tree (Geurts et al. 2006).

    :class:`DecisionTreeRegressor` with scikit-learn's defaults of
    ``sklearn.tree.ExtraTreeRegressor``: ``splitter="random"`` and
    ``max_features=1.0`` (every feature tried, each at one random
    threshold).  Every other parameter, attribute and method is
    :class:`DecisionTreeRegressor`'s.  Forests of them are
    :class:`climbing_trees.ExtraTreesRegressor` (the chapter "From one tree to many").

    Parameters
    ----------
    splitter : {"random", "best", "hist"}, default="random"
        One random threshold per feature tried, between its smallest and
        largest value in the node (the chapter "From one tree to many");
        ``"best"`` and ``"hist"`` as in :class:`DecisionTreeRegressor`.
    max_features : int, float, {"sqrt", "log2"} or None, default=1.0
        Features tried at each node (all of them by default).
    criterion, max_depth, min_samples_split, min_samples_leaf, \
    min_weight_fraction_leaf, random_state, max_bins, min_impurity_decrease, \
    max_leaf_nodes, ccp_alpha, categorical_features, categorical_split, \
    min_samples_level, max_categorical_candidates, missing_values, max_surrogates, \
    monotonic_cst
        As in :class:`DecisionTreeRegressor`.

    References
    ----------
    P. Geurts, D. Ernst and L. Wehenkel, "Extremely randomized trees",
    *Machine Learning* 63(1), 2006.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = ExtraTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    >>> model.get_n_leaves()
    8
    """

    def __init__(
        self,
        *,
        criterion="squared_error",
        splitter="random",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_features=1.0,
        random_state=None,
        max_bins=255,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        ccp_alpha=0.0,
        monotonic_cst=None,
        categorical_features="auto",
        categorical_split="auto",
        min_samples_level=1,
        max_categorical_candidates=16_384,
        missing_values="learn",
        max_surrogates=5,
    ):
        super().__init__(
            criterion=criterion,
            splitter=splitter,
            max_depth=max_depth,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            max_features=max_features,
            random_state=random_state,
            max_bins=max_bins,
            monotonic_cst=monotonic_cst,
            min_impurity_decrease=min_impurity_decrease,
            max_leaf_nodes=max_leaf_nodes,
            ccp_alpha=ccp_alpha,
            categorical_features=categorical_features,
            categorical_split=categorical_split,
            min_samples_level=min_samples_level,
            max_categorical_candidates=max_categorical_candidates,
            missing_values=missing_values,
            max_surrogates=max_surrogates,
        )
