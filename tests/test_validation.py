"""Bad input fails loudly: a ValueError/TypeError that names the problem and the fix.

Each test asserts on two fragments of the message: one naming the problem
(often scikit-learn's own wording) and one naming the fix (the hint that
:func:`climbing_trees._validation.explained_errors` appends, or the
package's own message).  A failed ``fit`` must leave a fitted model exactly
as it was.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from conftest import assert_same_fitted_state
from sklearn.exceptions import NotFittedError

import climbing_trees as ct
from climbing_trees import DecisionTreeClassifier, DecisionTreeRegressor

ESTIMATORS = [DecisionTreeClassifier, DecisionTreeRegressor]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    return X, y


def with_value(X, row, col, value):
    X = X.copy()
    X[row, col] = value
    return X


# ---------------------------------------------------------------- X and y


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize(
    ("bad", "problem", "fix"),
    [
        (np.inf, "contains infinity", "finite"),
        (-np.inf, "contains infinity", "finite"),
    ],
)
def test_non_finite_X_is_rejected_at_fit_and_predict(Estimator, data, bad, problem, fix):
    X, y = data
    with pytest.raises(ValueError, match=problem) as info:
        Estimator().fit(with_value(X, 3, 1, bad), y)
    assert fix in str(info.value)
    model = Estimator().fit(X, y)
    with pytest.raises(ValueError, match=problem) as info:
        model.predict(with_value(X, 0, 2, bad))
    assert fix in str(info.value)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_X_and_y_of_different_lengths(Estimator, data):
    X, y = data
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[30, 29\]") as info:
        Estimator().fit(X, y[:-1])
    assert "one entry per training row" in str(info.value)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize(
    ("shape", "problem", "fix"),
    [
        ((0, 3), r"0 sample\(s\)", "at least one row"),
        ((5, 0), r"0 feature\(s\)", "at least one column"),
    ],
)
def test_empty_X(Estimator, shape, problem, fix):
    X = np.empty(shape)
    y = np.zeros(shape[0], dtype=int)
    with pytest.raises(ValueError, match=problem) as info:
        Estimator().fit(X, y)
    assert fix in str(info.value)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_one_dimensional_X(Estimator, data):
    X, y = data
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array") as info:
        Estimator().fit(X[:, 0], y)
    assert "reshape(-1, 1)" in str(info.value)
    model = Estimator().fit(X, y)
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        model.predict(X[0])


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("n_columns", [2, 4])
def test_wrong_number_of_columns_at_predict(Estimator, data, n_columns):
    X, y = data
    model = Estimator().fit(X, y)
    X_bad = np.resize(X, (len(X), n_columns))
    with pytest.raises(ValueError, match=f"X has {n_columns} features, but") as info:
        model.predict(X_bad)
    assert "same columns" in str(info.value)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize(
    ("columns", "problem"),
    [
        (["a", "b", "z"], "unseen at fit time"),
        (["b", "a", "c"], "same order"),
        (["a", "b", "c", "d"], "unseen at fit time"),
    ],
)
def test_different_column_names_at_predict(Estimator, data, columns, problem):
    X, y = data
    model = Estimator().fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    X_bad = pd.DataFrame(np.resize(X, (len(X), len(columns))), columns=columns)
    with pytest.raises(ValueError, match="feature names should match") as info:
        model.predict(X_bad)
    message = str(info.value)
    assert problem in message
    assert "columns given to fit" in message


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_array_after_dataframe_warns_as_in_sklearn(Estimator, data):
    # scikit-learn's convention (tested by its estimator checks): a plain array
    # has no names to compare, so predicting on one only warns.
    X, y = data
    model = Estimator().fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        model.predict(X)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_non_numeric_X_array(Estimator, data):
    X, y = data
    X_text = X.astype(str).astype(object)
    X_text[0, 0] = "tall"
    # Text columns are categorical by default (chapter 6); declared numerical, they fail.
    with pytest.raises(ValueError, match="could not convert string to float") as info:
        Estimator(categorical_features=None).fit(X_text, y)
    assert "encode text columns as numbers" in str(info.value)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_complex_X(Estimator, data):
    X, y = data
    with pytest.raises(ValueError, match="Complex data not supported") as info:
        Estimator().fit(X + 1j, y)
    assert "imaginary parts as two columns" in str(info.value)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_three_dimensional_X(Estimator, data):
    X, y = data
    with pytest.raises(ValueError, match="Found array with dim 3") as info:
        Estimator().fit(X[:, :, None], y)
    assert "one row per sample" in str(info.value)


SPARSE_READERS = [
    ct.DecisionTreeClassifier(random_state=0),
    ct.DecisionTreeRegressor(random_state=0),
    ct.ExtraTreeClassifier(random_state=0),
    ct.RandomForestClassifier(n_estimators=3, random_state=0),
    ct.ExtraTreesRegressor(n_estimators=3, random_state=0),
    ct.GradientBoostingClassifier(n_estimators=3, random_state=0),
    ct.GradientBoostingRegressor(n_estimators=3, random_state=0),
]


@pytest.mark.parametrize("estimator", SPARSE_READERS, ids=repr)
@pytest.mark.parametrize("container", ["csr_matrix", "csc_array", "coo_matrix"])
def test_sparse_X_fits_and_predicts_as_its_dense_equivalent(estimator, container):
    """A sparse X, explicit zeros included, gives the model of X.toarray()."""
    from scipy import sparse

    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 4)) * (rng.random((60, 4)) < 0.4)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X_sparse = getattr(sparse, container)(X)
    X_sparse.data[:3] = 0.0  # explicit zeros read as zeros
    dense = np.asarray(X_sparse.toarray())
    from sklearn.base import clone

    a = clone(estimator).fit(dense, y)
    b = clone(estimator).fit(X_sparse, y)
    assert np.array_equal(a.predict(dense), b.predict(X_sparse))
    assert np.array_equal(a.predict(dense), b.predict(dense))
    assert a.score(dense, y) == b.score(X_sparse, y)
    for method in ["predict_proba", "predict_log_proba", "decision_function", "apply"]:
        if hasattr(b, method):
            np.testing.assert_array_equal(
                getattr(b, method)(X_sparse), getattr(a, method)(dense), err_msg=method
            )
    for method in ["staged_predict", "staged_predict_proba", "staged_decision_function"]:
        if hasattr(b, method):
            for got, want in zip(getattr(b, method)(X_sparse), getattr(a, method)(dense),
                                 strict=True):  # fmt: skip
                np.testing.assert_array_equal(got, want, err_msg=method)
    if hasattr(b, "decision_path"):
        got, want = b.decision_path(X_sparse), a.decision_path(dense)
        got, want = (got[0], want[0]) if isinstance(got, tuple) else (got, want)
        assert (got != want).nnz == 0
    if hasattr(b, "cost_complexity_pruning_path"):
        got = b.cost_complexity_pruning_path(X_sparse, y)
        want = a.cost_complexity_pruning_path(dense, y)
        np.testing.assert_array_equal(got.ccp_alphas, want.ccp_alphas)
    if hasattr(b, "tree_"):
        assert np.array_equal(b.tree_.apply(X_sparse), a.tree_.apply(dense))


@pytest.mark.parametrize("Estimator", [ct.HistGradientBoostingClassifier,
                                       ct.HistGradientBoostingRegressor])  # fmt: skip
def test_hist_gradient_boosting_refuses_sparse_X_as_sklearn(Estimator, data):
    """As scikit-learn 1.9 (its tag ``sparse`` is False): a TypeError at fit and predict."""
    from scipy import sparse

    X, y = data
    with pytest.raises(TypeError, match="[Ss]parse"):
        Estimator(max_iter=2).fit(sparse.csr_matrix(X), y)
    fitted = Estimator(max_iter=2).fit(X, y)
    with pytest.raises(TypeError, match="[Ss]parse"):
        fitted.predict(sparse.csr_matrix(X))
    assert not fitted.__sklearn_tags__().input_tags.sparse


@pytest.mark.parametrize("estimator", SPARSE_READERS, ids=repr)
@pytest.mark.parametrize("columns", ["all sparse", "mixed"])
def test_dataframe_with_sparse_columns_fits_as_its_dense_frame(estimator, columns):
    """A DataFrame with sparse columns (as scikit-learn's tree takes it) gives the
    model of the matrix it was made from, names kept (pandas shows the fill value of
    ``from_spmatrix`` as NaN; scikit-learn reads it as zero, and so do we)."""
    import pandas as pd
    from scipy import sparse
    from sklearn.base import clone

    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 4)) * (rng.random((60, 4)) < 0.4)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    frame = pd.DataFrame.sparse.from_spmatrix(sparse.csr_matrix(X), columns=list("abcd"))
    if columns == "mixed":
        frame["b"] = X[:, 1]
    dense = pd.DataFrame(X, columns=list("abcd"))
    a = clone(estimator).fit(dense, y)
    b = clone(estimator).fit(frame, y)
    assert list(b.feature_names_in_) == list("abcd")
    assert np.array_equal(a.predict(dense), b.predict(frame))
    assert np.array_equal(b.predict(dense), b.predict(frame))


def test_dataframe_with_sparse_columns_other_fill_or_nan_is_refused(data):
    """A fill value neither 0 nor NaN, or a stored NaN, is refused with the fix."""
    import pandas as pd

    X, y = data
    frame = pd.DataFrame(X[:, :2], columns=["a", "b"])
    frame["a"] = pd.arrays.SparseArray(X[:, 0], fill_value=1.0)
    with pytest.raises(ValueError, match="fill value 1.0.*to_dense"):
        ct.DecisionTreeClassifier().fit(frame, y)
    values = X[:, 0].copy()
    values[0] = np.nan
    frame["a"] = pd.arrays.SparseArray(values, fill_value=0.0)
    with pytest.raises(ValueError, match="Input X contains NaN in its sparse column"):
        ct.DecisionTreeClassifier().fit(frame, y)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_sparse_X_with_nan_is_refused(Estimator, data):
    """As scikit-learn: a missing value is written in a dense X, and the error says so."""
    from scipy import sparse

    X, y = data
    X = X.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN") as info:
        Estimator().fit(sparse.csr_matrix(X), y)
    assert "toarray()" in str(info.value)
    fitted = Estimator().fit(np.nan_to_num(X), y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        fitted.predict(sparse.csr_matrix(X))


def test_continuous_y_to_the_classifier(data):
    X, _ = data
    with pytest.raises(ValueError, match="Unknown label type: continuous") as info:
        DecisionTreeClassifier().fit(X, np.linspace(0.0, 1.0, len(X)))
    assert "use DecisionTreeRegressor" in str(info.value)


@pytest.mark.parametrize(
    "y", [["low", "high"] * 15, np.array(["a", "b", "c"] * 10, dtype=object)], ids=["list", "obj"]
)
def test_non_numeric_y_to_the_regressor(data, y):
    X, _ = data
    with pytest.raises(ValueError, match="needs a numeric target y") as info:
        DecisionTreeRegressor().fit(X, y)
    assert "use DecisionTreeClassifier" in str(info.value)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_nan_in_y(Estimator, data):
    X, y = data
    y = y.astype(float)
    y[4] = np.nan
    with pytest.raises(ValueError, match="NaN") as info:
        Estimator().fit(X, y)
    assert "drop" in str(info.value)


@pytest.mark.parametrize("value", [1e151, -1e200, np.finfo(float).max])
def test_regressor_rejects_huge_targets(data, value):
    X, _ = data
    y = np.zeros(len(X))
    y[0] = value
    with pytest.raises(ValueError, match=r"beyond \+/-1e\+150") as info:
        DecisionTreeRegressor().fit(X, y)
    assert "rescale y" in str(info.value)


def test_regressor_accepts_targets_at_the_limit(data):
    X, _ = data
    y = np.where(X[:, 0] > 0, 1e150, -1e150)
    model = DecisionTreeRegressor().fit(X, y)
    assert np.all(np.isfinite(model.tree_.impurity))
    np.testing.assert_array_equal(model.predict(X), y)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_three_dimensional_y(Estimator, data):
    """A 2-D y is several outputs (tests/test_multioutput.py); 3-D is refused."""
    X, y = data
    with pytest.raises(ValueError, match=r"3 dimensions.*one column per output"):
        Estimator().fit(X, np.stack([np.c_[y, y]] * 2, axis=2))


# ---------------------------------------------------------------- sample weights


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize(
    ("make_weight", "error", "problem", "fix"),
    [
        (lambda n: -np.ones(n), ValueError, "negative values", "must be >= 0"),
        (lambda n: np.r_[-1.0, np.ones(n - 1)], ValueError, "negative values", "must be >= 0"),
        (lambda n: np.r_[np.nan, np.ones(n - 1)], ValueError, "NaN or infinity", "finite"),
        (lambda n: np.r_[np.inf, np.ones(n - 1)], ValueError, "NaN or infinity", "finite"),
        (lambda n: np.zeros(n), ValueError, "sums to zero", "positive weight"),
        (lambda n: np.ones(n - 1), ValueError, "X has 30 rows", "one weight per row"),
        (lambda n: np.ones(n + 1), ValueError, "X has 30 rows", "one weight per row"),
        (lambda n: np.ones((n, 1)), ValueError, r"shape \(30, 1\)", "one weight per row"),
        (lambda n: ["heavy"] * n, TypeError, "array of real numbers", "one per row"),
    ],
    ids=["negative", "one-negative", "nan", "inf", "all-zero", "short", "long", "2d", "text"],
)
def test_bad_sample_weight(Estimator, data, make_weight, error, problem, fix):
    X, y = data
    with pytest.raises(error, match=problem) as info:
        Estimator().fit(X, y, sample_weight=make_weight(len(X)))
    assert fix in str(info.value)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_scalar_sample_weight_is_every_row(Estimator, data):
    X, y = data
    scalar = Estimator().fit(X, y, sample_weight=3.0)
    ones = Estimator().fit(X, y)
    np.testing.assert_array_equal(scalar.predict(X), ones.predict(X))


# ---------------------------------------------------------------- hyperparameters


@pytest.mark.parametrize(
    ("Estimator", "params", "fragment"),
    [
        (DecisionTreeClassifier, {"criterion": "ginny"}, "criterion='ginny' is not supported"),
        (DecisionTreeClassifier, {"criterion": "squared_error"}, "use one of 'gini'"),
        (DecisionTreeClassifier, {"criterion": None}, "criterion=None"),
        (DecisionTreeRegressor, {"criterion": "gini"}, "use one of 'squared_error'"),
        (DecisionTreeRegressor, {"criterion": "mse"}, "not supported"),
    ],
)
def test_unknown_criterion(Estimator, data, params, fragment):
    X, y = data
    with pytest.raises(ValueError, match=fragment):
        Estimator(**params).fit(X, y)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"max_depth": 0}, "max_depth=0 is invalid; use an integer >= 1 or None"),
        ({"max_depth": -3}, "max_depth=-3 is invalid"),
        ({"max_depth": 2.5}, "max_depth=2.5 is invalid"),
        ({"max_depth": True}, "max_depth=True is invalid"),
        ({"max_depth": "3"}, "max_depth='3' is invalid"),
        ({"min_samples_split": 1}, "min_samples_split=1 is invalid; use an integer >= 2"),
        ({"min_samples_split": 0.0}, r"float fraction in \(0, 1\]"),
        ({"min_samples_split": 1.5}, "min_samples_split=1.5 is invalid"),
        ({"min_samples_split": -0.5}, "min_samples_split=-0.5 is invalid"),
        ({"min_samples_split": "2"}, "min_samples_split='2' is invalid"),
        ({"min_samples_leaf": 0}, "min_samples_leaf=0 is invalid; use an integer >= 1"),
        ({"min_samples_leaf": 0.0}, "min_samples_leaf=0.0 is invalid"),
        ({"min_samples_leaf": 2.0}, "min_samples_leaf=2.0 is invalid"),
        ({"min_samples_leaf": None}, "min_samples_leaf=None is invalid"),
        ({"min_impurity_decrease": -0.1}, "min_impurity_decrease=-0.1 is invalid"),
        ({"min_impurity_decrease": np.nan}, "use a finite number >= 0"),
        ({"min_impurity_decrease": np.inf}, "use a finite number >= 0"),
        ({"min_impurity_decrease": "0"}, "min_impurity_decrease='0' is invalid"),
    ],
)
def test_bad_hyperparameters(Estimator, data, params, fragment):
    X, y = data
    with pytest.raises(ValueError, match=fragment):
        Estimator(**params).fit(X, y)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize(
    "params",
    [
        {"max_depth": np.int64(2)},
        {"min_samples_split": 1.0},
        {"min_samples_split": 0.01},
        {"min_samples_leaf": 1.0},
        {"min_samples_leaf": 0.5},
        {"min_impurity_decrease": np.float32(0.0)},
        {"min_impurity_decrease": 1},
    ],
)
def test_edge_hyperparameters_are_accepted(Estimator, data, params):
    X, y = data
    model = Estimator(**params).fit(X, y)
    assert model.predict(X).shape == (len(X),)


# ---------------------------------------------------------------- not fitted


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize(
    "call",
    [
        lambda m, X: m.predict(X),
        lambda m, X: m.apply(X),
        lambda m, X: m.score(X, np.zeros(len(X))),
        lambda m, X: m.get_depth(),
        lambda m, X: m.get_n_leaves(),
        lambda m, X: m.feature_importances_,
    ],
    ids=["predict", "apply", "score", "get_depth", "get_n_leaves", "feature_importances_"],
)
def test_use_before_fit_raises_not_fitted_error(Estimator, data, call):
    X, _ = data
    with pytest.raises(NotFittedError, match="not fitted yet"):
        call(Estimator(), X)


@pytest.mark.parametrize("method", ["predict_proba", "predict_log_proba"])
def test_probabilities_before_fit(data, method):
    X, _ = data
    with pytest.raises(NotFittedError, match="Call 'fit'"):
        getattr(DecisionTreeClassifier(), method)(X)


# ---------------------------------------------------------------- failed fit changes nothing

BAD_FITS = {
    "nan-y": lambda X, y: ((X, with_value(y.astype(float)[:, None], 0, 0, np.nan)[:, 0]), {}),
    "short-y": lambda X, y: ((X, y[:-1]), {}),
    "1d-X": lambda X, y: ((X[:, 0], y), {}),
    "inf-X": lambda X, y: ((with_value(X, 2, 1, np.inf), y), {}),
    "negative-weight": lambda X, y: ((X, y), {"sample_weight": -np.ones(len(X))}),
    "zero-weights": lambda X, y: ((X, y), {"sample_weight": np.zeros(len(X))}),
    # Text with a hole is a categorical column with a missing level now (chapter 9);
    # a NaN weight is still refused.
    "nan-weight": lambda X, y: ((X, y), {"sample_weight": np.r_[np.nan, np.ones(len(X) - 1)]}),
}


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("bad", BAD_FITS)
def test_failed_fit_leaves_a_fitted_model_unchanged(Estimator, data, bad):
    X, y = data
    model = Estimator(max_depth=3).fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    before = copy.deepcopy(model)
    args, kwargs = BAD_FITS[bad](X, y)
    with pytest.raises((ValueError, TypeError)):
        model.fit(*args, **kwargs)
    assert_same_fitted_state(model, before)
    assert model.get_params() == before.get_params()
    np.testing.assert_array_equal(
        model.predict(pd.DataFrame(X, columns=["a", "b", "c"])),
        before.predict(pd.DataFrame(X, columns=["a", "b", "c"])),
    )


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_failed_fit_after_bad_set_params_keeps_the_old_tree(Estimator, data):
    X, y = data
    model = Estimator(max_depth=2).fit(X, y)
    before = copy.deepcopy(model)
    model.set_params(max_depth=0)
    with pytest.raises(ValueError, match="max_depth=0"):
        model.fit(X, y)
    assert_same_fitted_state(model, before)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_failed_fit_leaves_an_unfitted_model_unfitted(Estimator, data):
    X, y = data
    model = Estimator()
    with pytest.raises(ValueError):
        model.fit(with_value(X, 0, 0, np.inf), y)
    assert not any(k.endswith("_") for k in vars(model))
    with pytest.raises(NotFittedError):
        model.predict(X)


# ---------------------------------------------------------------- extreme values

HUGE = np.finfo(float).max


def fit_without_float_warnings(model, X, y, sample_weight=None):
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        return model.fit(X, y, sample_weight=sample_weight)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_extreme_feature_values_give_finite_thresholds(Estimator):
    # Midpoints a/2 + b/2 never overflow, even between -max and +max.
    X = np.array([[-HUGE], [-1e308], [-1.0], [0.0], [1e-300], [1e308], [HUGE]])
    y = np.array([0, 1, 0, 1, 0, 1, 0])
    model = fit_without_float_warnings(Estimator(), X, y)
    tree = model.tree_
    internal = tree.children_left != -1
    assert internal.sum() == len(X) - 1  # every row in its own leaf
    assert np.all(np.isfinite(tree.threshold)) and np.all(np.isfinite(tree.impurity))
    np.testing.assert_array_equal(model.predict(X), y)
    # each threshold lies between two neighbouring training values
    values = np.sort(X[:, 0])
    for t in tree.threshold[internal]:
        i = np.searchsorted(values, t, side="right")
        assert values[i - 1] <= t < values[i]


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("base", [0.0, 1.0, -1e308, 1e308, 5e-324])
def test_adjacent_floats_are_separated(Estimator, base):
    up = np.nextafter(base, np.inf)
    # A value far above keeps the feature from being constant (a range within
    # FEATURE_THRESHOLD, rule 6 of the tie rules: scikit-learn's float32 rule).
    far = base + max(1.0, abs(base) / 2)
    X = np.array([[base], [up], [base], [up], [far]])
    y = np.array([0, 1, 0, 1, 1])
    model = fit_without_float_warnings(Estimator(), X, y)
    assert model.tree_.threshold[0] == base  # the midpoint would round onto `up`
    np.testing.assert_array_equal(model.predict(X), y)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("base", [0.0, 1.0, 1e30])
def test_adjacent_floats_alone_are_a_constant_feature(Estimator, base):
    """Within FEATURE_THRESHOLD in float32: no split.  (Past float32's range the
    comparison is in float64, where only equal values are that close.)"""
    X = np.array([[base], [np.nextafter(base, np.inf)]] * 2)
    model = fit_without_float_warnings(Estimator(), X, np.array([0, 1, 0, 1]))
    assert model.tree_.node_count == 1


@pytest.mark.parametrize("scale", [1e300, 1e-300, 5e-324, 2.0**-1074, 1e150])
@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_weight_scale_does_not_change_the_tree(Estimator, scale):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    y = X[:, 0] * 1e140 if Estimator is DecisionTreeRegressor else (X[:, 0] > 0).astype(int)
    w = rng.integers(1, 4, size=40).astype(float)
    reference = Estimator().fit(X, y, sample_weight=w)
    scaled = fit_without_float_warnings(Estimator(), X, y, w * scale)
    for name in ["children_left", "feature", "threshold", "value", "impurity"]:
        np.testing.assert_allclose(
            getattr(scaled.tree_, name), getattr(reference.tree_, name), rtol=1e-12, err_msg=name
        )
    # weighted_n_node_samples stays in the caller's units
    np.testing.assert_allclose(
        scaled.tree_.weighted_n_node_samples,
        reference.tree_.weighted_n_node_samples * scale,
        rtol=1e-12,
        atol=5e-324 * 40,
    )


def test_weights_summing_past_the_largest_float_are_rejected(data):
    X, y = data
    with pytest.raises(ValueError, match="sums to more than the largest float") as info:
        DecisionTreeClassifier().fit(X, y, sample_weight=np.full(len(X), 1e307))
    assert "only their ratios matter" in str(info.value)


def test_negligible_weights_count_as_removed_rows():
    # 1e-310 next to 1 would be subnormal: too few digits for a leaf mean.
    X = np.array([[0.0], [1.0], [2.0]])
    y = np.array([1.0, 2.0, 3e-5])
    model = fit_without_float_warnings(
        DecisionTreeRegressor(), X, y, sample_weight=np.array([1.0, 1.0, 1e-310])
    )
    np.testing.assert_array_equal(model.tree_.n_node_samples[0], 2)
    assert model.predict(X[2:])[0] == 2.0


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_text_column_declared_numerical(Estimator, data):
    X, y = data
    frame = pd.DataFrame({"a": X[:, 0], "colour": pd.Series(["red", "blue"] * 15, dtype="str")})
    with pytest.raises(ValueError, match="colour|Cannot cast|could not convert") as info:
        Estimator(categorical_features=None).fit(frame, y)
    assert "categorical_features" in str(info.value)


# ---------------------------------------------------------------- categorical DataFrames


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda X: X.drop(columns="colour"), "feature names should match"),
        (lambda X: X.rename(columns={"colour": "color"}), "unseen at fit time"),
        (lambda X: X[list(reversed(X.columns))], "same order"),
    ],
    ids=["dropped", "renamed", "reordered"],
)
def test_categorical_frame_with_other_columns_at_predict(Estimator, mixed_frame, change, fragment):
    X, y_class, y_reg = mixed_frame
    model = Estimator(max_depth=3).fit(X, y_class if Estimator is DecisionTreeClassifier else y_reg)
    with pytest.raises(ValueError, match=fragment) as info:
        model.predict(change(X))
    assert "columns given to fit" in str(info.value)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_failed_fit_keeps_a_categorical_model(Estimator, mixed_frame):
    X, y_class, y_reg = mixed_frame
    y = y_class if Estimator is DecisionTreeClassifier else y_reg
    model = Estimator(max_depth=3).fit(X, y)
    before = copy.deepcopy(model)
    X_bad = X.copy()
    X_bad.loc[3, "x"] = np.inf  # (a missing level in "shape" would be fine: chapter 9)
    with pytest.raises(ValueError, match="contains infinity") as info:
        model.fit(X_bad, y)
    assert "Replace infinite values" in str(info.value)
    assert_same_fitted_state(model, before)
    np.testing.assert_array_equal(model.predict(X), before.predict(X))


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_duplicate_column_names(Estimator, data):
    X, y = data
    with pytest.raises(ValueError, match="Expected unique column names") as info:
        Estimator().fit(pd.DataFrame(X, columns=["a", "b", "a"]), y)
    assert "its own name" in str(info.value)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_complex_sample_weight(Estimator, data):
    X, y = data
    with pytest.raises(TypeError, match="array of real numbers"):
        Estimator().fit(X, y, sample_weight=np.ones(len(X)) + 1j)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_dates_mixed_with_numbers(Estimator, data):
    X, y = data
    frame = pd.DataFrame({"a": X[:, 0], "when": pd.date_range("2024-01-01", periods=len(X))})
    with pytest.raises(TypeError, match="could not be promoted") as info:
        Estimator().fit(frame, y)
    assert "turn datetime columns into numbers" in str(info.value)


@pytest.mark.parametrize("Estimator", [ct.DecisionTreeClassifier, ct.DecisionTreeRegressor])
def test_zero_dimensional_sample_weight_is_refused_as_in_scikit_learn(Estimator):
    """A Python number is spread over the rows; a 0-d array is a TypeError (as in sklearn)."""
    X, y = np.arange(6.0)[:, None], np.array([0, 0, 0, 1, 1, 1])
    model = Estimator().fit(X, y)
    before = model.tree_
    with pytest.raises(TypeError, match="0-d array"):
        model.fit(X, y, sample_weight=np.array(2.0))
    assert model.tree_ is before  # a failed fit keeps the previous model
    Estimator().fit(X, y, sample_weight=2.0)
    Estimator().fit(X, y, sample_weight=np.float64(2.0))  # a numpy scalar is a number too


def test_pure_nodes_have_entropy_plus_zero():
    """Not -0.0, which export_text and plot_tree would show as "-0.000"."""
    X = np.arange(8.0)[:, None]
    model = ct.DecisionTreeClassifier(criterion="entropy").fit(X, [0, 0, 0, 0, 1, 1, 1, 1])
    leaves = model.tree_.children_left == ct.TREE_LEAF
    assert (model.tree_.impurity[leaves] == 0).all()
    assert not np.signbit(model.tree_.impurity).any()
    slow = ct.grow_tree(X, ct.one_hot(np.repeat([0, 1], 4), 2), np.ones(8), criterion="entropy")
    assert not np.signbit(slow.impurity).any()


def test_categorical_index_on_an_empty_frame_says_so():
    with pytest.raises(ValueError, match="0 columns; pass categorical_features=None"):
        ct.DecisionTreeRegressor(categorical_features=[0]).fit(np.zeros((3, 0)), np.arange(3.0))


# ------------------------------------------------ dates, fractions, labels of several types


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("dtype", ["datetime64[ns]", "timedelta64[ns]", "datetime64[ns, UTC]"])
def test_dates_next_to_a_categorical_column_are_refused(Estimator, dtype, data):
    """Without a categorical column scikit-learn's validation refuses them; with one, too."""
    X, y = data
    when = pd.Series(pd.date_range("2024-01-01", periods=len(X), unit="ns"))
    when = when - when.iloc[0] if dtype.startswith("timedelta") else when
    when = when.dt.tz_localize("UTC") if "UTC" in dtype else when
    frame = pd.DataFrame({"a": X[:, 0], "when": when, "c": np.where(y == 1, "u", "v")})
    assert str(frame["when"].dtype) == dtype
    model = Estimator().fit(frame[["a", "c"]].assign(when=X[:, 1])[["a", "when", "c"]], y)
    before = copy.deepcopy(model)
    with pytest.raises(TypeError, match="Column 'when' of X holds dates or times") as info:
        model.fit(frame, y)
    assert "into numbers" in str(info.value)
    assert_same_fitted_state(model, before)
    # Declared categorical, the dates are levels.
    Estimator(categorical_features=["when", "c"]).fit(frame, y)


@pytest.mark.parametrize("param", ["min_samples_leaf", "min_samples_split"])
def test_fractions_count_every_row_as_scikit_learn(param):
    """ceil(fraction * n_samples) over all rows of X, zero-weight rows included."""
    from sklearn.tree import DecisionTreeRegressor as SklearnRegressor

    rng = np.random.default_rng(3)
    X = rng.permutation(40).astype(float)[:, None]
    y = rng.normal(size=40)
    w = np.where(np.arange(40) < 20, 0.0, 1.0)  # half the rows removed by weight
    params = {param: 0.2}  # 8 rows of 40; 4 of the 20 rows of positive weight
    ours = DecisionTreeRegressor(**params).fit(X, y, sample_weight=w)
    theirs = SklearnRegressor(**params).fit(X, y, sample_weight=w)
    assert ours.tree_.node_count == theirs.tree_.node_count
    np.testing.assert_array_equal(ours.tree_.threshold, theirs.tree_.threshold)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)


def test_outputs_with_labels_of_different_types_are_refused():
    X = np.arange(12.0).reshape(6, 2)
    y = np.empty((6, 2), dtype=object)
    y[:, 0], y[:, 1] = [0, 1, 0, 1, 0, 1], ["a", "b", "a", "b", "b", "a"]
    model = DecisionTreeClassifier().fit(X, y.astype(str))
    before = copy.deepcopy(model)
    with pytest.raises(TypeError, match="'<' not supported") as info:
        model.fit(X, y)  # scikit-learn 1.9.1 raises this TypeError, without an explanation
    message = str(info.value)
    assert "output 0: int; output 1: str" in message and "astype(str)" in message
    assert_same_fitted_state(model, before)


@pytest.mark.parametrize(
    "ensemble",
    [ct.RandomForestClassifier(n_estimators=2), ct.GradientBoostingClassifier(n_estimators=2)],
    ids=repr,
)
def test_sparse_X_with_nan_at_predict_names_X_not_the_target(ensemble, data):
    from scipy import sparse

    X, y = data
    fitted = ensemble.fit(X, y)
    X = X.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN") as info:
        fitted.predict(sparse.csr_matrix(X))
    assert "toarray()" in str(info.value) and "target" not in str(info.value)
