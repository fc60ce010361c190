"""The forests as drop-ins for scikit-learn 1.9's: parameters, attributes, parity.

Where their trees are equal (features exact in float32 without ties, and
leaves of at least 20 rows, so no two candidate splits of a node are equally
good), the package's forests and scikit-learn's draw the same seeds and
bootstrap samples and make the same predictions and out-of-bag scores.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import as_float32_exact, assert_same_tree
from sklearn import ensemble as sk
from sklearn.base import clone
from sklearn.metrics import balanced_accuracy_score, mean_absolute_error
from sklearn.utils.estimator_checks import parametrize_with_checks

import climbing_trees as ct

FORESTS = [
    ct.RandomForestClassifier,
    ct.RandomForestRegressor,
    ct.ExtraTreesClassifier,
    ct.ExtraTreesRegressor,
]


@pytest.fixture(scope="module")
def tie_free():
    """400 rows of 5 continuous features exact in float32, a smooth target, its classes,
    positive weights and 300 new rows."""
    rng = np.random.default_rng(0)
    X = as_float32_exact(rng.normal(size=(400, 5)))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=400)
    w = rng.uniform(0.5, 2.0, size=400)
    X_new = as_float32_exact(rng.normal(size=(300, 5)))
    return X, y, np.digitize(y, [-0.5, 0.5]), w, X_new


def fit_both(name, X, y, sample_weight=None, **params):
    ours = getattr(ct, name)(**params).fit(X, y, sample_weight=sample_weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # too few trees for every OOB row
        theirs = getattr(sk, name)(**params).fit(X, y, sample_weight=sample_weight)
    return ours, theirs


def assert_same_forest(ours, theirs, X_new):
    assert [t.random_state for t in ours] == [t.random_state for t in theirs.estimators_]
    for a, b in zip(ours.estimators_samples_, theirs.estimators_samples_, strict=True):
        np.testing.assert_array_equal(a, b)
    classifier = hasattr(ours, "classes_")
    method = "predict_proba" if classifier else "predict"
    np.testing.assert_allclose(
        getattr(ours, method)(X_new), getattr(theirs, method)(X_new), rtol=0, atol=1e-12
    )
    if classifier:
        np.testing.assert_array_equal(ours.predict(X_new), theirs.predict(X_new))
    np.testing.assert_allclose(
        ours.feature_importances_, theirs.feature_importances_, rtol=0, atol=1e-12
    )


REGRESSION_CASES = [
    {},
    {"max_samples": 0.5},
    {"max_samples": 150, "max_depth": 4},
    {"max_leaf_nodes": 8, "ccp_alpha": 1e-3},
    {"max_samples": 0.7, "max_depth": 3},
    {"min_weight_fraction_leaf": 0.06, "min_impurity_decrease": 1e-3},
    {"oob_score": mean_absolute_error, "min_samples_split": 60},
]


@pytest.mark.parametrize("params", REGRESSION_CASES, ids=str)
@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
def test_random_forest_regressor_equals_sklearns(tie_free, params, weighted):
    X, y, _, w, X_new = tie_free
    params = {"oob_score": True, **params}
    ours, theirs = fit_both(
        "RandomForestRegressor", X, y, w if weighted else None,
        n_estimators=25, max_features=1.0, min_samples_leaf=20, random_state=0, **params,
    )  # fmt: skip
    assert_same_forest(ours, theirs, X)
    assert_same_forest(ours, theirs, X_new)
    np.testing.assert_allclose(ours.oob_prediction_, theirs.oob_prediction_, atol=1e-12)
    assert ours.oob_score_ == pytest.approx(theirs.oob_score_, abs=1e-12)


CLASSIFICATION_CASES = [
    {},
    {"criterion": "entropy", "max_samples": 0.7},
    {"class_weight": "balanced"},
    {"class_weight": "balanced_subsample"},
    {"class_weight": "balanced_subsample", "max_samples": 250, "criterion": "log_loss"},
    {"class_weight": {0: 3.0, 2: 0.5}, "max_depth": 4, "max_samples": 0.8},
    {"class_weight": {0: 1.0, 1: 2.0}, "min_weight_fraction_leaf": 0.06},
    {"oob_score": balanced_accuracy_score, "max_leaf_nodes": 10},
    {"bootstrap": False, "oob_score": False, "class_weight": "balanced_subsample"},
]


@pytest.mark.parametrize("params", CLASSIFICATION_CASES, ids=str)
@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
def test_random_forest_classifier_equals_sklearns(tie_free, params, weighted):
    X, _, y, w, X_new = tie_free
    params = {"oob_score": True, **params}
    ours, theirs = fit_both(
        "RandomForestClassifier", X, y, w if weighted else None,
        n_estimators=25, max_features=None, min_samples_leaf=30, random_state=0, **params,
    )  # fmt: skip
    assert_same_forest(ours, theirs, X)
    assert_same_forest(ours, theirs, X_new)
    np.testing.assert_allclose(ours.predict_log_proba(X_new), theirs.predict_log_proba(X_new))
    if params["oob_score"]:
        np.testing.assert_allclose(
            ours.oob_decision_function_, theirs.oob_decision_function_, atol=1e-12
        )
        assert ours.oob_score_ == theirs.oob_score_


def test_several_outputs_equal_sklearns(tie_free):
    X, y, labels, _, X_new = tie_free
    noise = np.random.default_rng(2).normal(size=len(y))
    Y = np.column_stack([y, X[:, 3] ** 2 + noise])
    ours, theirs = fit_both(
        "RandomForestRegressor", X, Y, n_estimators=10, max_features=1.0,
        min_samples_leaf=20, oob_score=True, random_state=1,
    )  # fmt: skip
    assert_same_forest(ours, theirs, X_new)
    assert ours.oob_prediction_.shape == (len(y), 2)
    assert ours.oob_score_ == pytest.approx(theirs.oob_score_, abs=1e-12)
    Y = np.column_stack([labels > 0, Y[:, 1] > 1]).astype(int)  # two binary outputs
    ours, theirs = fit_both(
        "RandomForestClassifier", X, Y, n_estimators=10, max_features=None,
        min_samples_leaf=30, oob_score=True, random_state=1,
    )  # fmt: skip
    for a, b in zip(ours.predict_proba(X_new), theirs.predict_proba(X_new), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)
    with np.errstate(divide="ignore"):  # a class no tree gives a row: log(0)
        for a, b in zip(ours.predict_log_proba(X_new), theirs.predict_log_proba(X_new),
                        strict=True):  # fmt: skip
            np.testing.assert_allclose(a, b, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X_new), theirs.predict(X_new))
    assert ours.oob_decision_function_.shape == (len(y), 2, 2)
    np.testing.assert_allclose(ours.oob_decision_function_, theirs.oob_decision_function_)
    assert ours.oob_score_ == theirs.oob_score_


def test_single_leaf_trees_are_left_out_of_the_importances(tie_free):
    """Trees of 43 draws with leaves of 20 rows are often one leaf: scikit-learn leaves
    them out of the mean and renormalises."""
    X, y, _, _, _ = tie_free
    ours, theirs = fit_both(
        "RandomForestRegressor", X, y, n_estimators=30, max_features=1.0,
        min_samples_leaf=20, max_samples=43, random_state=0,
    )  # fmt: skip
    single = [tree.tree_.node_count == 1 for tree in ours]
    assert 0 < sum(single) < len(single)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_, atol=1e-12)
    assert ours.feature_importances_.sum() == pytest.approx(1.0)
    stumps = ct.RandomForestRegressor(n_estimators=3, min_samples_leaf=300).fit(X, y)
    np.testing.assert_array_equal(stumps.feature_importances_, np.zeros(5))


@pytest.mark.parametrize("Forest", FORESTS)
def test_n_jobs_gives_the_same_forest(tie_free, Forest):
    X, y, labels, _, X_new = tie_free
    y = labels if "Classifier" in Forest.__name__ else y
    params = {"n_estimators": 8, "random_state": 0, "bootstrap": True, "oob_score": True}
    serial = Forest(**params).fit(X, y)
    threads = Forest(**params, n_jobs=2).fit(X, y)
    method = "predict_proba" if hasattr(serial, "classes_") else "predict"
    np.testing.assert_array_equal(getattr(serial, method)(X_new), getattr(threads, method)(X_new))
    np.testing.assert_array_equal(serial.apply(X_new), threads.apply(X_new))
    assert serial.oob_score_ == threads.oob_score_


@pytest.mark.parametrize("Forest", FORESTS)
@pytest.mark.parametrize("weighted", [False, True])
def test_the_trees_are_those_fitted_one_by_one(penguins, Forest, weighted):
    """The forest checks X and y once for all its trees; each tree is still the one that
    fit(X, y, sample_weight) grows with its seed and its sample's weights, array by
    array, on a frame with text columns, ties and missing values; and n_jobs=2 grows
    the same trees in threads."""
    target = "species" if "Classifier" in Forest.__name__ else "body_mass_g"
    X, y = penguins.drop(columns=target).copy(), penguins[target]
    X.loc[::7, "bill_length_mm"] = np.nan
    X.loc[::11, "island"] = None
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(X)) if weighted else None
    params = {"n_estimators": 6, "random_state": 0, "max_features": 0.5, "bootstrap": True}
    forest = Forest(**params).fit(X, y, sample_weight=w)
    threads = Forest(**params, n_jobs=2).fit(X, y, sample_weight=w)
    for b, (tree, rows) in enumerate(zip(forest, forest.estimators_samples_, strict=True)):
        alone = clone(forest.estimator_).set_params(random_state=tree.random_state)
        alone.fit(X, y, sample_weight=np.bincount(rows, minlength=len(X)).astype(float))
        assert_same_tree(tree.tree_, alone.tree_)
        assert_same_tree(tree.tree_, threads[b].tree_)
        assert list(tree.feature_names_in_) == list(alone.feature_names_in_)
        assert [list(c) if c is not None else None for c in tree.categories_] == [
            list(c) if c is not None else None for c in alone.categories_
        ]
        if hasattr(tree, "classes_"):
            np.testing.assert_array_equal(tree.classes_, alone.classes_)


@pytest.mark.parametrize(
    ("Forest", "params", "outputs"),
    [
        (ct.RandomForestClassifier, {}, 1),
        (ct.RandomForestClassifier, {"n_jobs": 2, "max_samples": 0.4}, 2),
        (ct.RandomForestClassifier, {"bootstrap": False, "max_features": 0.5}, 1),
        (ct.RandomForestRegressor, {"max_features": 0.5}, 1),
    ],
)
def test_the_forest_sorts_and_reads_its_rows_once_for_its_compiled_trees(
    monkeypatch, Forest, params, outputs
):
    """Compiled trees that presort take their orders from the forest's, sorted once and
    cut down to each tree's rows, and classifiers their class codes, read once: each
    tree is still the one fit(X, y, sample_weight) grows alone, array by array, on
    rounded features (ties) with rows of weight 0."""
    from climbing_trees._compiled import _grow, _tables

    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(600, 6)), 1)
    y = X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=600)
    if Forest is ct.RandomForestClassifier:
        y = np.digitize(y, [-0.5, 0.5])
        y = np.c_[y, X[:, 3] > 0] if outputs == 2 else y
    w = rng.uniform(0.5, 2.0, size=600) * (rng.random(600) > 0.1)
    calls = {"sorted": 0, "codes": 0}

    def counted(name, function):
        def count(*args):
            calls[name] += 1
            return function(*args)

        return count

    for module in (_grow, _tables):  # the tree's own search, and the forest's
        monkeypatch.setattr(module, "_presorted", counted("sorted", module._presorted))
        monkeypatch.setattr(module, "_class_codes", counted("codes", module._class_codes))
    forest = Forest(n_estimators=5, random_state=0, **params).fit(X, y, sample_weight=w)
    assert calls == {"sorted": 1, "codes": int(Forest is ct.RandomForestClassifier)}
    bootstrap = params.get("bootstrap", True)
    for tree, rows in zip(forest, forest.estimators_samples_, strict=True):
        # With bootstrap, w draws the rows (times drawn: the weights), the rest weigh 0.
        weights = np.bincount(rows, minlength=len(X)).astype(float) if bootstrap else w
        alone = clone(forest.estimator_).set_params(random_state=tree.random_state)
        assert_same_tree(tree.tree_, alone.fit(X, y, sample_weight=weights).tree_)
    assert calls["sorted"] == 6  # each tree alone sorted its own rows

@pytest.mark.parametrize("Forest", [ct.ExtraTreesClassifier, ct.ExtraTreesRegressor])
def test_trees_without_bootstrap_get_the_forests_weights(tie_free, Forest):
    """Without bootstrap every tree is fit(X, y, sample_weight) with its seed."""
    X, y, labels, w, _ = tie_free
    y = labels if "Classifier" in Forest.__name__ else np.round(y, 1)  # ties in y
    X = np.round(X, 1)  # ties in X
    forest = Forest(n_estimators=4, random_state=0, max_features=2).fit(X, y, sample_weight=w)
    for tree in forest:
        alone = clone(forest.estimator_).set_params(random_state=tree.random_state)
        assert_same_tree(tree.tree_, alone.fit(X, y, sample_weight=w).tree_)


@pytest.mark.parametrize("Forest", FORESTS)
def test_warm_start_grows_the_forest_fitted_at_once(tie_free, Forest):
    X, y, labels, _, X_new = tie_free
    y = labels if "Classifier" in Forest.__name__ else y
    at_once = Forest(n_estimators=9, random_state=3, bootstrap=True, oob_score=True).fit(X, y)
    grown = Forest(n_estimators=4, random_state=3, bootstrap=True, oob_score=True)
    grown.set_params(warm_start=True).fit(X, y)
    first_trees = list(grown.estimators_)
    grown.set_params(n_estimators=9).fit(X, y)
    assert grown.estimators_[:4] == first_trees  # the same tree objects, kept
    assert [t.random_state for t in grown] == [t.random_state for t in at_once]
    method = "predict_proba" if hasattr(grown, "classes_") else "predict"
    np.testing.assert_array_equal(getattr(grown, method)(X_new), getattr(at_once, method)(X_new))
    assert grown.oob_score_ == at_once.oob_score_  # recomputed with every tree
    with pytest.warns(UserWarning, match="without increasing n_estimators"):
        grown.fit(X, y)
    with pytest.raises(ValueError, match=r"n_estimators=5 must be larger or equal to "):
        grown.set_params(n_estimators=5).fit(X, y)
    assert len(grown) == 9  # the failed fit left the forest as it was


@pytest.mark.parametrize("Forest", FORESTS)
def test_warm_start_refuses_other_columns_outputs_and_classes(tie_free, Forest):
    """The kept trees were grown on 5 columns (and these classes): a warm refit on other
    data is refused before any tree grows, and the forest stays as it was."""
    X, y, labels, _, X_new = tie_free
    classifier = "Classifier" in Forest.__name__
    y = labels if classifier else y
    forest = Forest(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    trees, method = forest.estimators_, "predict_proba" if classifier else "predict"
    expected = getattr(forest, method)(X_new)
    forest.set_params(n_estimators=5)
    with pytest.raises(ValueError, match=f"X has 2 features, but {Forest.__name__} is "
                       "expecting 5 features"):  # fmt: skip
        forest.fit(X[:, :2], y)
    with pytest.raises(ValueError, match="y has 2 output"):
        forest.fit(X, np.column_stack([y, y]))
    if classifier:
        with pytest.raises(ValueError, match=r"classes \[0, 1, 2, 3\], the trees kept have"):
            forest.fit(X, np.where(X[:, 0] > 1.5, 3, labels))
    assert forest.estimators_ is trees and forest.n_features_in_ == 5
    np.testing.assert_array_equal(getattr(forest, method)(X_new), expected)
    assert len(forest.fit(X, y)) == 5  # the same data: two more trees


@pytest.mark.parametrize("Forest", FORESTS)
def test_a_failed_warm_refit_keeps_the_forest_and_a_refit_grows_the_one_at_once(
    tie_free, Forest
):
    X, y, labels, _, X_new = tie_free
    classifier = "Classifier" in Forest.__name__
    y, method = (labels, "predict_proba") if classifier else (y, "predict")
    params = {"random_state": 0, "bootstrap": True, "oob_score": True}
    forest = Forest(n_estimators=3, warm_start=True, **params).fit(X, y)
    state, expected = dict(vars(forest)), getattr(forest, method)(X_new)
    with pytest.raises(ValueError, match="index 17"):  # raised by the first new tree
        forest.set_params(n_estimators=6, categorical_features=[17]).fit(X, y)
    assert vars(forest).keys() == state.keys()
    fitted = [k for k in state if k not in forest.get_params()]
    assert fitted and all(vars(forest)[k] is state[k] for k in fitted)
    np.testing.assert_array_equal(getattr(forest, method)(X_new), expected)
    forest.set_params(categorical_features="auto").fit(X, y)
    at_once = Forest(n_estimators=6, **params).fit(X, y)
    np.testing.assert_array_equal(getattr(forest, method)(X_new), getattr(at_once, method)(X_new))
    assert forest.oob_score_ == at_once.oob_score_


def test_warm_start_seeds_are_sklearns(tie_free):
    X, y, _, _, _ = tie_free
    ours = ct.RandomForestRegressor(n_estimators=3, warm_start=True, random_state=5)
    theirs = sk.RandomForestRegressor(n_estimators=3, warm_start=True, random_state=5)
    for n in (3, 7):
        ours.set_params(n_estimators=n).fit(X, y)
        theirs.set_params(n_estimators=n).fit(X, y)
    assert [t.random_state for t in ours] == [t.random_state for t in theirs.estimators_]


@pytest.mark.parametrize("Forest", [ct.RandomForestRegressor, ct.ExtraTreesRegressor])
def test_friedman_mse_is_squared_error_with_sklearns_warning(tie_free, Forest):
    X, y, _, _, X_new = tie_free
    plain = Forest(n_estimators=3, random_state=0).fit(X, y)
    with pytest.warns(FutureWarning, match='Value `"friedman_mse"` for `criterion` is deprec'):
        friedman = Forest(n_estimators=3, criterion="friedman_mse", random_state=0).fit(X, y)
    assert friedman.estimator_.criterion == "squared_error"
    assert friedman.get_params()["criterion"] == "friedman_mse"  # the parameter as set
    np.testing.assert_array_equal(friedman.predict(X_new), plain.predict(X_new))


def test_verbose_reports_progress(tie_free, capsys):
    X, y, _, _, _ = tie_free
    ct.RandomForestRegressor(n_estimators=3, verbose=2, random_state=0).fit(X, y)
    out, err = capsys.readouterr()
    assert [f"building tree {i} of 3" for i in (1, 2, 3)] == out.split("\n")[:3]
    assert "Done   3 out of   3" in err  # joblib's report
    ct.RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("Forest", FORESTS)
def test_monotonic_cst_reaches_every_tree(Forest):
    X, y = np.arange(20.0).reshape(10, 2), np.arange(10) % 2
    model = Forest(n_estimators=2, monotonic_cst=[1, 0], random_state=0).fit(X, y)
    assert [list(tree.monotonic_cst) for tree in model.estimators_] == [[1, 0], [1, 0]]
    with pytest.raises(ValueError, match="has shape 3 but the input data X has 2"):
        Forest(n_estimators=2, monotonic_cst=[1, 0, 0]).fit(X, y)


@pytest.mark.parametrize("Forest", FORESTS)
@pytest.mark.parametrize(
    "params, name",
    [
        ({"criterion": "mse"}, "criterion"),
        ({"min_samples_split": 1}, "min_samples_split"),
        ({"min_weight_fraction_leaf": 0.6}, "min_weight_fraction_leaf"),
        ({"max_leaf_nodes": 1}, "max_leaf_nodes"),
        ({"min_impurity_decrease": -1.0}, "min_impurity_decrease"),
        ({"oob_score": "yes"}, "oob_score"),
        ({"n_jobs": 1.5}, "n_jobs"),
        ({"verbose": -1}, "verbose"),
        ({"warm_start": "no"}, "warm_start"),
        ({"ccp_alpha": -0.1}, "ccp_alpha"),
        ({"max_samples": 0}, "max_samples"),
        ({"max_samples": -0.5}, "max_samples"),
        ({"monotonic_cst": "up"}, "monotonic_cst"),
        ({"class_weight": "even"}, "class_weight"),
        ({"ccp_risk": "error"}, "ccp_risk"),
        ({"categorical_split": "greedy"}, "categorical_split"),
        ({"min_samples_level": 0}, "min_samples_level"),
        ({"max_categorical_candidates": 0}, "max_categorical_candidates"),
        ({"missing_values": "drop"}, "missing_values"),
        ({"max_surrogates": -1}, "max_surrogates"),
    ],
)
def test_bad_parameters_name_the_forest(Forest, params, name):
    if name not in Forest().get_params():
        pytest.skip(f"{Forest.__name__} has no {name}")
    X, y = np.arange(40.0).reshape(20, 2), np.arange(20) % 2
    model = Forest(n_estimators=2, random_state=0).fit(X, y)
    trees = model.estimators_
    with pytest.raises((ValueError, TypeError)) as info:
        model.set_params(**params).fit(X, y)
    assert f"The '{name}' parameter of {Forest.__name__} must be" in str(info.value)
    assert model.estimators_ is trees


@pytest.mark.parametrize("Forest", FORESTS)
def test_parameters_and_defaults_are_sklearns(Forest):
    """Every parameter of scikit-learn's forest, with its default; the extra ones are the
    package's tree options."""
    ours = inspect.signature(Forest).parameters
    theirs = inspect.signature(getattr(sk, Forest.__name__)).parameters
    assert list(theirs)[0] == list(ours)[0] == "n_estimators"  # the one positional
    for name, parameter in theirs.items():
        assert ours[name].default == parameter.default, name
        assert ours[name].kind == parameter.kind, name
    extra = set(ours) - set(theirs)
    tree_params = set(Forest._tree_class().get_params())
    assert extra <= tree_params and {"categorical_features", "missing_values"} <= extra


@pytest.mark.parametrize("Forest", FORESTS)
def test_the_trees_get_the_forests_parameters(Forest):
    X, y = np.arange(60.0).reshape(30, 2), np.arange(30) % 3
    params = {
        "max_depth": 3, "min_samples_split": 4, "ccp_alpha": 0.01,
        "categorical_split": "one_vs_rest", "missing_values": "surrogate", "max_surrogates": 2,
        "min_samples_level": 2, "max_categorical_candidates": 99, "max_features": 1,
    }  # fmt: skip
    forest = Forest(n_estimators=3, random_state=0, **params).fit(X, y)
    for tree in [*forest, forest.estimator_]:
        assert {k: tree.get_params()[k] for k in params} == params
        assert tree.splitter == ("random" if "Extra" in Forest.__name__ else "best")
        assert tree.class_weight is None if hasattr(tree, "class_weight") else True
    assert type(forest.estimator_) is Forest._tree_class
    assert not hasattr(forest.estimator_, "tree_")


@pytest.mark.parametrize(
    "params, message",
    [
        ({"bootstrap": False, "max_samples": 10}, "`max_sample` cannot be set if `bootstrap="),
        ({"bootstrap": False, "oob_score": True}, "Out of bag estimation only available if"),
    ],
)
@pytest.mark.parametrize("Forest", [ct.RandomForestRegressor, ct.ExtraTreesClassifier])
def test_bootstrap_rules_are_sklearns(Forest, params, message):
    X, y = np.arange(40.0).reshape(20, 2), np.arange(20) % 2
    with pytest.raises(ValueError, match=message):
        Forest(n_estimators=2, **params).fit(X, y)
    with pytest.raises(ValueError, match=message):
        getattr(sk, Forest.__name__)(n_estimators=2, **params).fit(X, y)


@pytest.mark.parametrize("Forest", FORESTS)
def test_the_forest_is_a_sequence_of_trees_with_paths(tie_free, Forest):
    X, y, labels, _, X_new = tie_free
    y = labels if "Classifier" in Forest.__name__ else y
    forest = Forest(n_estimators=4, max_depth=3, random_state=0).fit(X, y)
    assert len(forest) == 4 and forest[1] is forest.estimators_[1]
    assert list(forest) == forest.estimators_ and forest[:2] == forest.estimators_[:2]
    leaves = forest.apply(X_new)
    assert leaves.shape == (len(X_new), 4)
    indicator, n_nodes_ptr = forest.decision_path(X_new)
    assert indicator.shape == (len(X_new), n_nodes_ptr[-1])
    for b, tree in enumerate(forest):
        np.testing.assert_array_equal(leaves[:, b], tree.apply(X_new))
        block = indicator[:, n_nodes_ptr[b] : n_nodes_ptr[b + 1]]
        assert (block != tree.decision_path(X_new)).nnz == 0


@pytest.mark.parametrize("Forest", [ct.RandomForestClassifier, ct.ExtraTreesRegressor])
def test_out_of_bag_on_a_frame_with_categories_and_missing_values(penguins, Forest):
    """The out-of-bag prediction of a row is the mean over the trees that did not draw
    it (recomputed here from estimators_samples_), on a DataFrame with text columns and
    NaN."""
    X, y = penguins.drop(columns="species"), penguins["species"]
    if "Regressor" in Forest.__name__:
        X, y = penguins.drop(columns="body_mass_g"), penguins["body_mass_g"]
    X = X.copy()
    X.loc[::7, "bill_length_mm"] = np.nan  # missing values in a numerical column
    X.loc[::11, "island"] = None  # and in a text column
    forest = Forest(n_estimators=15, bootstrap=True, oob_score=True, random_state=0).fit(X, y)
    total, votes = 0.0, np.zeros(len(X))
    for tree, rows in zip(forest, forest.estimators_samples_, strict=True):
        out = np.bincount(rows, minlength=len(X)) == 0
        method = tree.predict_proba if hasattr(tree, "classes_") else tree.predict
        prediction = np.zeros((len(X), *np.shape(method(X.iloc[:1]))[1:]))
        prediction[out] = method(X[out])
        total, votes = total + prediction, votes + out
    expected = total / np.maximum(votes, 1).reshape(-1, *[1] * (np.ndim(total) - 1))
    if hasattr(forest, "classes_"):
        np.testing.assert_allclose(forest.oob_decision_function_, expected, atol=1e-12)
        codes = np.searchsorted(forest.classes_, y)
        assert forest.oob_score_ == np.mean(codes == expected.argmax(axis=1))
    else:
        np.testing.assert_allclose(forest.oob_prediction_, expected, atol=1e-9)


def test_a_failed_out_of_bag_score_keeps_the_previous_forest():
    X = np.arange(80.0).reshape(40, 2)
    forest = ct.RandomForestClassifier(n_estimators=3, oob_score=True, random_state=0)
    forest.fit(X, np.arange(40) % 2)
    trees, score = forest.estimators_, forest.oob_score_
    Y = np.column_stack([np.arange(40) % 3, np.arange(40) % 2])  # multiclass-multioutput
    with pytest.raises(ValueError, match="cannot be used to compute OOB estimates"):
        forest.fit(X, Y)
    assert forest.estimators_ is trees and forest.oob_score_ == score


@pytest.mark.parametrize(
    "second", [[1, 2], ["a", "b"], [5, 7]], ids=["ints", "strings", "other-ints"]
)
def test_out_of_bag_takes_two_binary_outputs_of_any_labels(tie_free, second):
    """Two outputs of two classes each are judged by their class codes, as scikit-learn
    judges them ("multilabel-indicator"), not refused as "multiclass-multioutput"."""
    X, y, labels, _, _ = tie_free
    Y = np.column_stack([np.where(labels > 0, 1, 2), np.where(y > 0, *second)])
    ours, theirs = fit_both(
        "RandomForestClassifier", X, Y, n_estimators=10, max_features=None,
        min_samples_leaf=30, oob_score=True, random_state=1,
    )  # fmt: skip
    np.testing.assert_allclose(ours.oob_decision_function_, theirs.oob_decision_function_)
    assert ours.oob_score_ == theirs.oob_score_ > 0.5


def test_refitting_without_oob_drops_the_old_score():
    X, y = np.arange(80.0).reshape(40, 2), np.arange(40) % 2
    forest = ct.RandomForestClassifier(n_estimators=3, oob_score=True, random_state=0).fit(X, y)
    forest.set_params(oob_score=False).fit(X, y)
    assert not hasattr(forest, "oob_score_") and not hasattr(forest, "oob_decision_function_")


def test_balanced_subsample_weighs_each_tree_by_its_own_sample(tie_free):
    X, _, y, _, _ = tie_free
    forest = ct.RandomForestClassifier(
        n_estimators=3, class_weight="balanced_subsample", random_state=0
    ).fit(X, y)
    for tree, rows in zip(forest, forest.estimators_samples_, strict=True):
        drawn = y[rows]
        class_totals = [
            tree.tree_.value[0, 0, k] * tree.tree_.weighted_n_node_samples[0] for k in range(3)
        ]
        # Each class carries the same total weight in the root: balanced in the sample.
        np.testing.assert_allclose(class_totals, len(drawn) / 3)


# --- scikit-learn's estimator checks on forests with the new options ---------------------

OPTIONS = [
    ct.RandomForestClassifier(
        n_estimators=5, oob_score=True, class_weight="balanced_subsample", max_samples=0.9,
        n_jobs=2, min_samples_split=3,
    ),
    ct.RandomForestRegressor(
        n_estimators=5, oob_score=True, max_samples=0.9, n_jobs=2, criterion="absolute_error"
    ),
    ct.ExtraTreesClassifier(n_estimators=5, class_weight="balanced", max_leaf_nodes=6),
    ct.ExtraTreesRegressor(n_estimators=5, ccp_alpha=0.01, missing_values="surrogate"),
]

BOOTSTRAP_WEIGHTS = (
    "a bootstrap sample draws rows with probabilities proportional to the weights, so a "
    "weighted dataset and the same dataset with repeated rows give different forests "
    "(scikit-learn declares the same failure for its forests)"
)


def forest_failures(estimator) -> dict[str, str]:
    if estimator.bootstrap:
        return {
            check: BOOTSTRAP_WEIGHTS
            for check in (
                "check_sample_weight_equivalence_on_dense_data",
                "check_sample_weight_equivalence_on_sparse_data",
            )
        }
    return {}


@parametrize_with_checks(OPTIONS, expected_failed_checks=forest_failures, xfail_strict=True)
def test_forests_with_options_pass_sklearn_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Some inputs do not have OOB scores")
        check(estimator)


def test_clones_keep_every_parameter():
    forest = ct.ExtraTreesClassifier(
        7, criterion="entropy", oob_score=balanced_accuracy_score, bootstrap=True,
        class_weight={0: 2.0}, categorical_features=None, verbose=1,
    )  # fmt: skip
    assert clone(forest).get_params() == forest.get_params()
    assert repr(forest).startswith("ExtraTreesClassifier(bootstrap=True, categorical_features")
    assert "n_estimators=7" in repr(forest)


def test_frames_keep_their_names(penguins):
    X, y = penguins.drop(columns="species"), penguins["species"]
    forest = ct.RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    assert list(forest.feature_names_in_) == list(X.columns)
    assert forest.n_features_in_ == X.shape[1] and forest.n_outputs_ == 1
    assert forest.n_classes_ == 3 and list(forest.classes_) == sorted(y.unique())
    assert isinstance(forest.predict(X), np.ndarray) and isinstance(X, pd.DataFrame)
