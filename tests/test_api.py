"""Everyday guarantees: pickling, cloning, parameters, repeatable fits, untouched inputs."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pandas as pd
import pytest
from conftest import assert_same_fitted_state, assert_same_tree
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from climbing_trees import DecisionTreeClassifier, DecisionTreeRegressor

PARAMS = {
    "criterion": None,  # filled per estimator
    "max_depth": 3,
    "min_samples_split": 4,
    "min_samples_leaf": 2,
    "min_impurity_decrease": 0.001,
    "max_leaf_nodes": 6,
    "ccp_alpha": 0.01,
    "categorical_features": None,
    "categorical_split": "one_vs_rest",
    "min_samples_level": 3,
    "max_categorical_candidates": 1000,
    "missing_values": "surrogate",
    "max_surrogates": 3,
    "min_weight_fraction_leaf": 0.01,
    "splitter": "random",
    "max_features": "sqrt",
    "random_state": 3,
    "max_bins": 64,
    "monotonic_cst": None,
}
#: Parameters only the classifier has.
CLASSIFIER_PARAMS = {
    "ccp_risk": "misclassification",
    "class_weight": "balanced",
    "loss_matrix": [[0, 1], [2, 0]],
}


def make_data(kind: str, frame: bool):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 4))
    if kind == "classifier":
        y = np.array(["cat", "dog", "eel"])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)]
    else:
        y = X[:, 0] ** 2 + np.sin(X[:, 2])
    w = rng.uniform(0.5, 2.0, size=len(X))
    if frame:
        X = pd.DataFrame(X, columns=["height", "width", "depth", "age"])
        y = pd.Series(y, name="target")
        w = pd.Series(w)
    return X, y, w


CASES = [
    pytest.param(DecisionTreeClassifier, "classifier", id="classifier"),
    pytest.param(DecisionTreeRegressor, "regressor", id="regressor"),
]


def outputs(model, X):
    out = {"predict": model.predict(X), "apply": model.apply(X)}
    if hasattr(model, "predict_proba"):
        out["predict_proba"] = model.predict_proba(X)
    return out


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
@pytest.mark.parametrize("frame", [False, True], ids=["array", "frame"])
def test_pickle_round_trip_predicts_identically(Estimator, kind, frame):
    X, y, w = make_data(kind, frame)
    model = Estimator(max_depth=4).fit(X, y, sample_weight=w)
    restored = pickle.loads(pickle.dumps(model))
    assert_same_fitted_state(restored, model)
    for name, value in outputs(model, X).items():
        np.testing.assert_array_equal(outputs(restored, X)[name], value, err_msg=name)


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
def test_get_params_lists_every_constructor_argument(Estimator, kind):
    params = Estimator().get_params()
    expected = set(PARAMS) | (set(CLASSIFIER_PARAMS) if kind == "classifier" else set())
    assert set(params) == expected
    assert params["criterion"] == ("gini" if kind == "classifier" else "squared_error")


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
def test_set_params_then_get_params(Estimator, kind):
    new = dict(PARAMS, criterion="entropy" if kind == "classifier" else "squared_error")
    if kind == "classifier":
        new.update(CLASSIFIER_PARAMS)
    model = Estimator()
    assert model.set_params(**new) is model
    assert model.get_params() == new


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
def test_set_params_rejects_unknown_names(Estimator, kind):
    with pytest.raises(ValueError, match="Invalid parameter 'depth'"):
        Estimator().set_params(depth=3)


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
def test_constructor_arguments_are_keyword_only(Estimator, kind):
    with pytest.raises(TypeError):
        Estimator("gini")


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
def test_clone_copies_parameters_not_the_fit(Estimator, kind):
    X, y, _ = make_data(kind, frame=False)
    model = Estimator(max_depth=2, min_samples_leaf=3).fit(X, y)
    copy_ = clone(model)
    assert copy_ is not model
    assert copy_.get_params() == model.get_params()
    assert not hasattr(copy_, "tree_")
    assert_same_tree(copy_.fit(X, y).tree_, model.tree_)


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
def test_estimator_type(Estimator, kind):
    assert is_classifier(Estimator()) == (kind == "classifier")
    assert is_regressor(Estimator()) == (kind == "regressor")


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
@pytest.mark.parametrize("frame", [False, True], ids=["array", "frame"])
def test_fitting_twice_gives_identical_trees(Estimator, kind, frame):
    X, y, w = make_data(kind, frame)
    first = Estimator().fit(X, y, sample_weight=w)
    second = Estimator().fit(X, y, sample_weight=w)
    assert_same_fitted_state(first, second)
    refit = copy.deepcopy(first).fit(X, y, sample_weight=w)
    assert_same_fitted_state(first, refit)


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
def test_refit_on_other_data_forgets_the_old_fit(Estimator, kind):
    X, y, _ = make_data(kind, frame=True)
    model = Estimator().fit(X, y)
    model.fit(X.to_numpy()[:, :2], y.to_numpy())
    assert model.n_features_in_ == 2
    assert not hasattr(model, "feature_names_in_")
    assert_same_tree(model.tree_, Estimator().fit(X.to_numpy()[:, :2], y.to_numpy()).tree_)


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
@pytest.mark.parametrize("frame", [False, True], ids=["array", "frame"])
@pytest.mark.parametrize("zero_weights", [False, True], ids=["positive", "some-zero"])
def test_fit_does_not_modify_X_y_or_sample_weight(Estimator, kind, frame, zero_weights):
    X, y, w = make_data(kind, frame)
    if zero_weights:
        w[::5] = 0.0
    if not frame:
        X, y, w = np.asfortranarray(X), y, w  # a layout validate_data would copy
    X_before, y_before, w_before = copy.deepcopy((X, y, w))
    model = Estimator().fit(X, y, sample_weight=w)
    model.predict(X)
    model.apply(X)
    if frame:
        pd.testing.assert_frame_equal(X, X_before)
        pd.testing.assert_series_equal(y, y_before)
        pd.testing.assert_series_equal(w, w_before)
    else:
        np.testing.assert_array_equal(X, X_before)
        np.testing.assert_array_equal(y, y_before)
        np.testing.assert_array_equal(w, w_before)


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
def test_fitted_model_shares_no_memory_with_the_inputs(Estimator, kind):
    X, y, w = make_data(kind, frame=False)
    X_test = X.copy()
    model = Estimator().fit(X, y, sample_weight=w)
    expected = outputs(model, X_test)
    X[:] = 0.0
    y[:] = y[0]
    w[:] = 1.0
    for name, value in outputs(model, X_test).items():
        np.testing.assert_array_equal(value, expected[name], err_msg=name)


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
def test_works_inside_pipeline_grid_search_and_cross_validation(Estimator, kind):
    X, y, _ = make_data(kind, frame=True)
    pipe = make_pipeline(StandardScaler(), Estimator())
    search = GridSearchCV(pipe, {f"{Estimator.__name__.lower()}__max_depth": [1, 3]}, cv=3)
    search.fit(X, y)
    assert search.best_params_ in (
        {f"{Estimator.__name__.lower()}__max_depth": 1},
        {f"{Estimator.__name__.lower()}__max_depth": 3},
    )
    scores = cross_val_score(Estimator(max_depth=3), X, y, cv=3)
    assert scores.shape == (3,)
    assert np.all(np.isfinite(scores))


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
def test_feature_names_in_follow_dataframe_columns(Estimator, kind):
    X, y, _ = make_data(kind, frame=True)
    model = Estimator().fit(X, y)
    np.testing.assert_array_equal(model.feature_names_in_, X.columns.to_numpy())
    assert model.n_features_in_ == X.shape[1]


def test_classifier_labels_keep_their_type():
    X, y, _ = make_data("classifier", frame=False)
    model = DecisionTreeClassifier().fit(X, y)
    np.testing.assert_array_equal(model.classes_, np.unique(y))
    assert model.predict(X).dtype == model.classes_.dtype
    assert set(model.predict(X)) <= set(y)


# ---------------------------------------------------------------- categorical DataFrames


@pytest.mark.parametrize(("Estimator", "kind"), CASES)
def test_mixed_dataframe_guarantees(Estimator, kind, mixed_frame):
    """Pickle, refit, clone and untouched inputs with category/str/object/bool columns."""
    X, y_class, y_reg = mixed_frame
    y = y_class if kind == "classifier" else y_reg
    w = np.linspace(0.5, 2.0, len(X))
    X_before, y_before, w_before = X.copy(deep=True), y.copy(), w.copy()
    model = Estimator(max_depth=4).fit(X, y, sample_weight=w)
    assert model.is_categorical_.any()
    pd.testing.assert_frame_equal(X, X_before)
    np.testing.assert_array_equal(y, y_before)
    np.testing.assert_array_equal(w, w_before)
    restored = pickle.loads(pickle.dumps(model))
    assert_same_fitted_state(restored, model)
    np.testing.assert_array_equal(restored.predict(X), model.predict(X))
    assert_same_fitted_state(clone(model).fit(X, y, sample_weight=w), model)
    # rows in another order: the levels are recorded sorted, so the same tree
    order = np.random.default_rng(0).permutation(len(X))
    shuffled = Estimator(max_depth=4).fit(X.iloc[order], y[order], sample_weight=w[order])
    for mine, theirs in zip(shuffled.categories_, model.categories_, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    key = "predict_proba" if kind == "classifier" else "predict"
    np.testing.assert_allclose(outputs(shuffled, X)[key], outputs(model, X)[key], rtol=1e-12)
