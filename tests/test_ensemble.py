"""Ensembles of the package's trees, and its trees inside scikit-learn's meta-estimators."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn import ensemble as sk
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.ensemble._forest import _generate_sample_indices
from sklearn.model_selection import train_test_split
from sklearn.multioutput import MultiOutputRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

import climbing_trees as ct


def held_out(dataset):
    X, y = dataset(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0)


@pytest.mark.parametrize(
    "ours, theirs, dataset, margin",
    [
        (ct.RandomForestClassifier, sk.RandomForestClassifier, load_breast_cancer, 0.03),
        (ct.ExtraTreesClassifier, sk.ExtraTreesClassifier, load_breast_cancer, 0.03),
        (ct.RandomForestRegressor, sk.RandomForestRegressor, load_diabetes, 0.05),
        (ct.ExtraTreesRegressor, sk.ExtraTreesRegressor, load_diabetes, 0.05),
    ],
    ids=["rf-clf", "et-clf", "rf-reg", "et-reg"],
)
def test_forests_score_like_sklearns(ours, theirs, dataset, margin):
    """Held-out accuracy or R^2 within noise of scikit-learn's (mean over 3 seeds)."""
    X_train, X_test, y_train, y_test = held_out(dataset)
    mine = [ours(n_estimators=40, random_state=s).fit(X_train, y_train) for s in range(3)]
    sks = [theirs(n_estimators=40, random_state=s).fit(X_train, y_train) for s in range(3)]
    score_mine = np.mean([m.score(X_test, y_test) for m in mine])
    score_sk = np.mean([m.score(X_test, y_test) for m in sks])
    assert abs(score_mine - score_sk) < margin, (score_mine, score_sk)
    # And the forest beats a single tree of the package on held-out data.
    tree_cls = type(mine[0].estimators_[0])
    single = tree_cls(random_state=0).fit(X_train, y_train).score(X_test, y_test)
    assert score_mine > single


def test_forest_is_reproducible_and_uses_bootstrap_counts():
    X_train, _, y_train, _ = held_out(load_diabetes)
    a = ct.RandomForestRegressor(n_estimators=5, random_state=3).fit(X_train, y_train)
    b = ct.RandomForestRegressor(n_estimators=5, random_state=3).fit(X_train, y_train)
    np.testing.assert_array_equal(a.predict(X_train), b.predict(X_train))
    tree = a.estimators_[0]
    counts = ct.bootstrap_counts(tree.random_state, len(y_train))
    # The seeds and the samples are scikit-learn's own.
    theirs = sk.RandomForestRegressor(n_estimators=5, random_state=3).fit(X_train, y_train)
    for ours_tree, their_tree in zip(a.estimators_, theirs.estimators_, strict=True):
        assert ours_tree.random_state == their_tree.random_state
        rows = _generate_sample_indices(their_tree.random_state, len(y_train), len(y_train), None)
        assert np.array_equal(
            ct.bootstrap_counts(ours_tree.random_state, len(y_train)),
            np.bincount(rows, minlength=len(y_train)),
        )
    # The root holds the in-bag rows only, weighted by how often each was drawn.
    assert tree.tree_.n_node_samples[0] == np.count_nonzero(counts)
    assert tree.tree_.weighted_n_node_samples[0] == counts.sum() == len(y_train)
    again = ct.DecisionTreeRegressor(max_features=1.0, random_state=tree.random_state)
    again.fit(X_train, y_train, sample_weight=counts)
    np.testing.assert_array_equal(again.predict(X_train), tree.predict(X_train))


@pytest.mark.parametrize("Forest", [ct.RandomForestRegressor, ct.ExtraTreesRegressor])
def test_forest_sample_weight_as_sklearn(Forest):
    """With bootstrap, rows are drawn with probability proportional to their weight
    (scikit-learn 1.9) and each tree is weighted by its counts alone; without, every
    tree gets the weights."""
    X_train, _, y_train, _ = held_out(load_diabetes)
    n = len(y_train)
    w = np.random.default_rng(0).uniform(0.0, 3.0, size=n)
    w[:20] = 0.0
    forest = Forest(n_estimators=4, random_state=1).fit(X_train, y_train, sample_weight=w)
    Sk = getattr(sk, Forest.__name__)
    theirs = Sk(n_estimators=4, random_state=1).fit(X_train, y_train, sample_weight=w)
    for tree, their_tree in zip(forest.estimators_, theirs.estimators_, strict=True):
        assert tree.random_state == their_tree.random_state
        root_weight = tree.tree_.weighted_n_node_samples[0]
        assert root_weight == their_tree.tree_.weighted_n_node_samples[0]
        if not forest.bootstrap:
            np.testing.assert_allclose(root_weight, w.sum())
            continue
        counts = ct.bootstrap_counts(tree.random_state, n, w)
        rows = _generate_sample_indices(their_tree.random_state, n, n, w)
        assert np.array_equal(counts, np.bincount(rows, minlength=n))
        assert counts[:20].sum() == 0 and root_weight == counts.sum() == n
        again = ct.DecisionTreeRegressor(max_features=1.0, random_state=tree.random_state)
        again.fit(X_train, y_train, sample_weight=counts)
        np.testing.assert_array_equal(again.predict(X_train), tree.predict(X_train))


def test_extra_trees_use_every_row_and_random_thresholds():
    X_train, _, y_train, _ = held_out(load_breast_cancer)
    forest = ct.ExtraTreesClassifier(n_estimators=3, random_state=0).fit(X_train, y_train)
    for tree in forest.estimators_:
        assert tree.tree_.n_node_samples[0] == len(y_train)
        assert tree.splitter == "random"
    proba = forest.predict_proba(X_train)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(forest.predict(X_train)) <= set(forest.classes_)


def test_forest_with_native_categorical_features(penguins):
    X, y = penguins.drop(columns="species"), penguins["species"]
    forest = ct.RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    assert forest.estimators_[0].is_categorical_.sum() == 2  # island and sex
    assert forest.score(X, y) > 0.95
    assert list(forest.feature_names_in_) == list(X.columns)


@pytest.mark.parametrize(
    "estimator, message",
    [
        (
            ct.RandomForestClassifier(n_estimators=0),
            r"The 'n_estimators' parameter of RandomForestClassifier must be an int in the "
            r"range \[1, inf\). Got 0 instead.",
        ),
        (ct.ExtraTreesRegressor(max_features="all"), "among {'log2', 'sqrt'}|Got 'all'"),
    ],
)
def test_bad_ensemble_parameters(estimator, message):
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        estimator.fit(X, y > 140 if hasattr(estimator, "predict_proba") else y)


# --- the package's trees inside scikit-learn's meta-estimators ---------------------------


def test_bagging_classifier():
    X_train, X_test, y_train, y_test = held_out(load_breast_cancer)
    model = sk.BaggingClassifier(
        estimator=ct.DecisionTreeClassifier(), n_estimators=15, random_state=0
    ).fit(X_train, y_train)
    assert all(isinstance(e, ct.DecisionTreeClassifier) for e in model.estimators_)
    # Bagging gives each tree its own random_state.
    assert len({e.random_state for e in model.estimators_}) == 15
    assert model.score(X_test, y_test) > 0.9
    np.testing.assert_allclose(model.predict_proba(X_test).sum(axis=1), 1.0)


def test_bagging_regressor_with_feature_subsets():
    X_train, X_test, y_train, y_test = held_out(load_diabetes)
    model = sk.BaggingRegressor(
        estimator=ct.DecisionTreeRegressor(min_samples_leaf=5),
        n_estimators=15,
        max_features=0.7,
        random_state=0,
    ).fit(X_train, y_train)
    single = ct.DecisionTreeRegressor(min_samples_leaf=5).fit(X_train, y_train)
    assert model.score(X_test, y_test) > single.score(X_test, y_test)


def test_adaboost_classifier_uses_sample_weight():
    X_train, X_test, y_train, y_test = held_out(load_breast_cancer)
    ours = sk.AdaBoostClassifier(
        estimator=ct.DecisionTreeClassifier(max_depth=1), n_estimators=30, random_state=0
    ).fit(X_train, y_train)
    theirs = sk.AdaBoostClassifier(n_estimators=30, random_state=0).fit(X_train, y_train)
    assert ours.score(X_test, y_test) > 0.93
    assert abs(ours.score(X_test, y_test) - theirs.score(X_test, y_test)) < 0.03
    stumps = ct.DecisionTreeClassifier(max_depth=1).fit(X_train, y_train)
    assert ours.score(X_test, y_test) > stumps.score(X_test, y_test)


def test_multioutput_regressor():
    X, y = load_diabetes(return_X_y=True)
    Y = np.column_stack([y, np.log(y), X[:, 2] * 100])
    model = MultiOutputRegressor(ct.DecisionTreeRegressor(max_depth=4)).fit(X, Y)
    assert model.predict(X).shape == Y.shape
    for k, est in enumerate(model.estimators_):
        alone = ct.DecisionTreeRegressor(max_depth=4).fit(X, Y[:, k])
        np.testing.assert_array_equal(est.predict(X), alone.predict(X))


# --- scikit-learn's estimator checks on the ensembles ------------------------------------

BOOTSTRAP_WEIGHTS = (
    "a bootstrap sample draws n_samples rows with probabilities proportional to the weights: "
    "a weighted dataset and the same dataset with repeated rows have different n_samples, so "
    "the samples and the forests differ (scikit-learn declares the same failure for its "
    "forests)"
)


def ensemble_failures(estimator) -> dict[str, str]:
    if getattr(estimator, "bootstrap", False):
        return {
            check: BOOTSTRAP_WEIGHTS
            for check in (
                "check_sample_weight_equivalence_on_dense_data",
                "check_sample_weight_equivalence_on_sparse_data",
            )
        }
    return {}


@parametrize_with_checks(
    [
        ct.RandomForestClassifier(n_estimators=5),
        ct.RandomForestRegressor(n_estimators=5),
        ct.ExtraTreesClassifier(n_estimators=5),
        ct.ExtraTreesRegressor(n_estimators=5),
    ],
    expected_failed_checks=ensemble_failures,
    xfail_strict=True,
)
def test_ensembles_pass_sklearn_checks(estimator, check):
    check(estimator)


# --- parameters checked by scikit-learn's constraints, errors naming the public class ---------

ENSEMBLES = [
    ct.RandomForestClassifier,
    ct.RandomForestRegressor,
    ct.ExtraTreesClassifier,
    ct.ExtraTreesRegressor,
]


def ensemble_data(Ensemble):
    X, y = load_diabetes(return_X_y=True)
    return X[:80], (y[:80] > 140 if "Classifier" in Ensemble.__name__ else y[:80])


@pytest.mark.parametrize("Ensemble", ENSEMBLES)
@pytest.mark.parametrize(
    "params, name",
    [
        ({"n_estimators": 0}, "n_estimators"),
        ({"n_estimators": 2.5}, "n_estimators"),
        ({"max_depth": 0}, "max_depth"),
        ({"max_depth": "3"}, "max_depth"),
        ({"min_samples_leaf": 0}, "min_samples_leaf"),
        ({"min_samples_leaf": 1.5}, "min_samples_leaf"),
        ({"max_features": "all"}, "max_features"),
        ({"max_features": 0}, "max_features"),
        ({"random_state": "seed"}, "random_state"),
        ({"categorical_features": "yes"}, "categorical_features"),
        ({"bootstrap": "no"}, "bootstrap"),
    ],
)
def test_bad_ensemble_parameters_name_the_class(Ensemble, params, name):
    if name not in Ensemble().get_params():
        pytest.skip(f"{Ensemble.__name__} has no {name}")
    X, y = ensemble_data(Ensemble)
    model = Ensemble(n_estimators=2, random_state=0).fit(X, y)
    trees = model.estimators_
    with pytest.raises((ValueError, TypeError)) as info:
        model.set_params(**params).fit(X, y)
    assert f"The '{name}' parameter of {Ensemble.__name__} must be" in str(info.value)
    assert model.estimators_ is trees  # the previous model stands


@pytest.mark.parametrize("Ensemble", ENSEMBLES)
def test_ensemble_signature_errors_name_the_class(Ensemble):
    with pytest.raises(TypeError, match=f"{Ensemble.__name__}.__init__"):
        Ensemble(bootstrapped=True)


@pytest.mark.parametrize(
    "Ensemble, y, message",
    [
        (ct.RandomForestRegressor, np.array(["a", "b"] * 40), "RandomForestRegressor needs"),
        (ct.ExtraTreesRegressor, np.array(["a", "b"] * 40), "use ExtraTreesClassifier"),
        (ct.RandomForestClassifier, np.linspace(0, 1, 80), "use RandomForestRegressor"),
        (ct.ExtraTreesClassifier, np.linspace(0, 1, 80), "ExtraTreesClassifier needs"),
    ],
)
def test_ensemble_target_errors_name_the_ensemble(Ensemble, y, message):
    X, _ = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match=message) as info:
        Ensemble(n_estimators=2).fit(X[:80], y)
    assert "DecisionTree" not in str(info.value)


@pytest.mark.parametrize("Ensemble", ENSEMBLES)
def test_ensemble_predict_checks_columns_in_its_own_name(Ensemble):
    X, y = ensemble_data(Ensemble)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    model = Ensemble(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=f"but {Ensemble.__name__} is expecting 10 features"):
        model.predict(X[:, :5])
    model.fit(frame, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.predict(X)  # no column names: one warning, naming the ensemble
    assert [str(w.message) for w in caught] == [
        f"X does not have valid feature names, but {Ensemble.__name__} was fitted with "
        "feature names"
    ]
    model.fit(X, y)  # refitted on an array: no names left from the first fit
    assert not hasattr(model, "feature_names_in_")


def test_forest_passes_on_each_warning_about_levels_once(penguins):
    X, y = penguins.drop(columns="species"), penguins["species"]
    forest = ct.RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    codes = X.assign(island=X["island"].map({"Biscoe": 0, "Dream": 1, "Torgersen": 2}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        forest.predict(codes)
    assert len(caught) == 1 and "Column 'island' holds numbers" in str(caught[0].message)


@pytest.mark.parametrize("method", ["predict", "predict_proba"])
def test_forest_warnings_point_at_the_callers_line(penguins, method):
    X, y = penguins.drop(columns="species"), penguins["species"]
    forest = ct.RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    codes = X.assign(island=X["island"].map({"Biscoe": 0, "Dream": 1, "Torgersen": 2}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(forest, method)(codes)
    assert [w.filename for w in caught] == [__file__]
