"""Gradient boosting: agreement with scikit-learn 1.9, its attributes, its errors.

Agreement to 1e-12 needs data without ties *in the split search*.  The
features are exact in float32 and distinct, but a gradient that takes two
values (the first stage of log-loss, the signs of absolute error, the two
slopes of the quantile loss) makes many splits of a small node exactly as good
as each other; scikit-learn then keeps the first in its random feature order,
the package the first by its tie rule (chapter 4).  And with ``subsample``
the out-of-bag rows are new rows to a tree: two features that cut a small
node's in-bag rows alike send them different ways.  So the cases either give
each row a continuous random weight (no two splits tie) or keep nodes of at
least 25 rows (``min_samples_leaf=25``), as the chapter "From one tree to many" does.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import as_float32_exact
from sklearn import ensemble as sk
from sklearn.datasets import load_diabetes
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier as SkTree
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.stats import _weighted_percentile

import climbing_trees as ct
from climbing_trees._gradient_boosting import random_sample_mask, weighted_percentile

ATOL = 1e-12


@pytest.fixture(scope="module")
def smooth_regression():
    """Continuous features exact in float32 and a continuous target: no ties."""
    rng = np.random.default_rng(0)
    X = as_float32_exact(rng.normal(size=(400, 6)))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=400)
    return X, y


@pytest.fixture(scope="module")
def new_rows():
    return as_float32_exact(np.random.default_rng(2).normal(size=(200, 6)))


@pytest.fixture(scope="module")
def weights():
    return np.random.default_rng(1).uniform(0.5, 2.0, size=400)


def labels(y, n_classes: int) -> np.ndarray:
    return (y > 0.2).astype(int) if n_classes == 2 else np.digitize(y, [-0.5, 0.5])


def fit_both(Ours, Theirs, X, y, sample_weight=None, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ours = Ours(**params).fit(X, y, sample_weight=sample_weight)
        theirs = Theirs(**params).fit(X, y, sample_weight=sample_weight)
    return ours, theirs


def assert_same_scores(ours, theirs):
    np.testing.assert_allclose(ours.train_score_, theirs.train_score_, rtol=0, atol=ATOL)
    assert ours.n_estimators_ == theirs.n_estimators_
    if theirs.subsample < 1:
        for name in ("oob_scores_", "oob_improvement_", "oob_score_"):
            np.testing.assert_allclose(
                getattr(ours, name), getattr(theirs, name), rtol=0, atol=ATOL
            )
    else:
        assert not hasattr(ours, "oob_scores_")


# --- agreement with scikit-learn ------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"n_estimators": 40},
        {"n_estimators": 25, "max_depth": 5, "learning_rate": 0.3, "min_samples_leaf": 4},
        {"n_estimators": 10, "max_depth": 1, "learning_rate": 1.0},
        {"n_estimators": 30, "max_depth": 3, "min_samples_leaf": 25},
    ],
    ids=str,
)
@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
def test_squared_error_predicts_as_sklearn(smooth_regression, new_rows, params, weighted):
    """Same predictions on the training rows, stage by stage.

    (On new rows only where no small node can be cut by two features alike:
    there scikit-learn picks one of the tied features at random.)
    """
    X, y = smooth_regression
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y)) if weighted else None
    ours, theirs = fit_both(
        ct.GradientBoostingRegressor, sk.GradientBoostingRegressor, X, y, w,
        random_state=0, **params,
    )  # fmt: skip
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=ATOL)
    for a, b in zip(ours.staged_predict(X), theirs.staged_predict(X), strict=True):
        np.testing.assert_allclose(a, b, atol=ATOL)
    assert_same_scores(ours, theirs)
    if params.get("min_samples_leaf", 1) >= 25:
        np.testing.assert_allclose(ours.predict(new_rows), theirs.predict(new_rows), atol=ATOL)


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "huber", "quantile"])
@pytest.mark.parametrize("subsample", [1.0, 0.7])
@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
def test_regression_losses_as_sklearn(
    smooth_regression, new_rows, weights, loss, subsample, weighted
):
    """Every loss, with and without row subsampling: the same model as scikit-learn's."""
    if loss == "quantile" and not weighted:
        pytest.skip("the quantile's two gradient values tie two splits of a 50-row node")
    X, y = smooth_regression
    ours, theirs = fit_both(
        ct.GradientBoostingRegressor, sk.GradientBoostingRegressor, X, y,
        weights if weighted else None, loss=loss, alpha=0.8, n_estimators=30,
        subsample=subsample, min_samples_leaf=25, random_state=0,
    )  # fmt: skip
    for rows in (X, new_rows):
        np.testing.assert_allclose(ours.predict(rows), theirs.predict(rows), rtol=0, atol=ATOL)
    assert_same_scores(ours, theirs)
    np.testing.assert_allclose(
        ours.feature_importances_, theirs.feature_importances_, rtol=0, atol=ATOL
    )
    np.testing.assert_allclose(ours.init_.constant_, theirs.init_.constant_, rtol=0, atol=0)


@pytest.mark.parametrize(
    "n_classes, loss", [(2, "log_loss"), (2, "exponential"), (3, "log_loss")], ids=str
)
@pytest.mark.parametrize("subsample", [1.0, 0.7])
@pytest.mark.parametrize("weighted", [False, True], ids=["unit", "weighted"])
def test_classifier_as_sklearn(
    smooth_regression, new_rows, weights, n_classes, loss, subsample, weighted
):
    """Binary and multinomial log-loss, exponential loss: same scores and probabilities."""
    X, y = smooth_regression
    y = labels(y, n_classes)
    ours, theirs = fit_both(
        ct.GradientBoostingClassifier, sk.GradientBoostingClassifier, X, y,
        weights if weighted else None, loss=loss, n_estimators=30, subsample=subsample,
        min_samples_leaf=25, random_state=0,
    )  # fmt: skip
    assert ours.estimators_.shape == theirs.estimators_.shape
    assert all(isinstance(t, ct.DecisionTreeRegressor) for t in ours.estimators_.ravel())
    for rows in (X, new_rows):
        for method in ("predict_proba", "decision_function", "predict_log_proba"):
            np.testing.assert_allclose(
                getattr(ours, method)(rows), getattr(theirs, method)(rows), rtol=0, atol=1e-11
            )
        np.testing.assert_array_equal(ours.predict(rows), theirs.predict(rows))
    assert_same_scores(ours, theirs)
    np.testing.assert_allclose(
        ours.feature_importances_, theirs.feature_importances_, rtol=0, atol=ATOL
    )
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    assert ours.n_classes_ == theirs.n_classes_ == n_classes


@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_small_leaves_with_weights_as_sklearn(smooth_regression, weights, n_classes):
    """Deep trees with leaves of one row: continuous weights leave no tie to break."""
    X, y = smooth_regression
    ours, theirs = fit_both(
        ct.GradientBoostingClassifier, sk.GradientBoostingClassifier, X,
        labels(y, n_classes), weights, n_estimators=20, max_depth=4, random_state=0,
    )  # fmt: skip
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=ATOL)
    assert_same_scores(ours, theirs)


@pytest.mark.parametrize(
    "params",
    [
        {"max_leaf_nodes": 6},
        {"min_samples_split": 60, "min_weight_fraction_leaf": 0.05},
        {"min_impurity_decrease": 0.002},
        {"ccp_alpha": 0.001, "max_depth": 5},
        {"init": "zero"},
        {"learning_rate": 0.5, "max_depth": 2},
    ],
    ids=str,
)
def test_tree_parameters_and_init_as_sklearn(smooth_regression, weights, params):
    X, y = smooth_regression
    common = {"n_estimators": 15, "min_samples_leaf": 25, "random_state": 0, **params}
    ours, theirs = fit_both(
        ct.GradientBoostingClassifier, sk.GradientBoostingClassifier, X, labels(y, 3),
        weights, **common,
    )  # fmt: skip
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=ATOL)
    ours, theirs = fit_both(
        ct.GradientBoostingRegressor, sk.GradientBoostingRegressor, X, y, weights, **common
    )
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=ATOL)


@pytest.mark.parametrize(
    "Ours, Theirs, init, atol",
    [
        (ct.GradientBoostingRegressor, sk.GradientBoostingRegressor,
         DummyRegressor(strategy="median"), ATOL),
        (ct.GradientBoostingClassifier, sk.GradientBoostingClassifier,
         SkTree(max_depth=2, random_state=0), ATOL),
        # scikit-learn gives its init X in float32, this package X as given: a linear
        # model's coefficients then differ in the 7th digit.
        (ct.GradientBoostingRegressor, sk.GradientBoostingRegressor, LinearRegression(), 1e-5),
        (ct.GradientBoostingClassifier, sk.GradientBoostingClassifier, LogisticRegression(),
         1e-5),
    ],
    ids=["median", "tree", "linear", "logistic"],
)  # fmt: skip
def test_init_estimators_as_sklearn(smooth_regression, weights, Ours, Theirs, init, atol):
    X, y = smooth_regression
    target = labels(y, 3) if Ours is ct.GradientBoostingClassifier else y
    ours, theirs = fit_both(
        Ours, Theirs, X, target, weights, init=init, n_estimators=10, min_samples_leaf=25,
        random_state=0,
    )  # fmt: skip
    method = "predict_proba" if hasattr(ours, "predict_proba") else "predict"
    np.testing.assert_allclose(
        getattr(ours, method)(X), getattr(theirs, method)(X), rtol=0, atol=atol
    )
    assert ours.init_ is not init  # the parameter stays as given


@pytest.mark.parametrize(
    "Ours, Theirs, init",
    [
        (ct.GradientBoostingRegressor, sk.GradientBoostingRegressor, Ridge(alpha=100)),
        (ct.GradientBoostingClassifier, sk.GradientBoostingClassifier,
         LogisticRegression(C=0.01)),
    ],
    ids=["ridge", "logistic"],
)  # fmt: skip
@pytest.mark.parametrize("n_iter_no_change", [None, 3], ids=["all", "early-stopping"])
def test_init_gets_the_sample_weights_as_given(
    smooth_regression, weights, Ours, Theirs, init, n_iter_no_change
):
    """A regularised init depends on the scale of the weights: it gets them unscaled (the
    training part of them under early stopping), as scikit-learn gives them."""
    X, y = smooth_regression
    target = labels(y, 2) if Ours is ct.GradientBoostingClassifier else y
    ours, theirs = fit_both(
        Ours, Theirs, X, target, 10 * weights, init=init, n_estimators=2,
        min_samples_leaf=25, n_iter_no_change=n_iter_no_change, random_state=0,
    )  # fmt: skip
    method = "predict_proba" if hasattr(ours, "predict_proba") else "predict"
    np.testing.assert_allclose(
        getattr(ours, method)(X), getattr(theirs, method)(X), rtol=0, atol=1e-5
    )


def test_init_without_sample_weight_support_is_refused(smooth_regression):
    class NoWeights(DummyRegressor):
        def fit(self, X, y):
            return super().fit(X, y)

    X, y = smooth_regression
    model = ct.GradientBoostingRegressor(init=NoWeights(), n_estimators=2)
    model.fit(X, y)  # without weights: fine
    with pytest.raises(ValueError, match="NoWeights does not support sample weights"):
        model.fit(X, y, sample_weight=np.ones(len(y)))


# --- staged methods, early stopping, warm start, progress report ------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
def test_staged_methods_end_at_the_final_model(smooth_regression, new_rows, n_classes):
    X, y = smooth_regression
    model = ct.GradientBoostingClassifier(n_estimators=8, random_state=0)
    model.fit(X, labels(y, n_classes))
    stages = {
        "predict_proba": list(model.staged_predict_proba(new_rows)),
        "predict": list(model.staged_predict(new_rows)),
        "decision_function": list(model.staged_decision_function(new_rows)),
    }
    assert all(len(s) == 8 for s in stages.values())
    np.testing.assert_array_equal(stages["predict_proba"][-1], model.predict_proba(new_rows))
    np.testing.assert_array_equal(stages["predict"][-1], model.predict(new_rows))
    final = model.decision_function(new_rows)
    np.testing.assert_array_equal(stages["decision_function"][-1].reshape(final.shape), final)
    for raw, proba in zip(stages["decision_function"], stages["predict_proba"], strict=True):
        assert raw.shape == (len(new_rows), 1 if n_classes == 2 else n_classes)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    regressor = ct.GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, y)
    *_, last = regressor.staged_predict(new_rows)
    np.testing.assert_array_equal(last, regressor.predict(new_rows))


@pytest.mark.parametrize(
    "Ours, Theirs, n_classes",
    [
        (ct.GradientBoostingClassifier, sk.GradientBoostingClassifier, 2),
        (ct.GradientBoostingClassifier, sk.GradientBoostingClassifier, 3),
        (ct.GradientBoostingRegressor, sk.GradientBoostingRegressor, None),
    ],
    ids=["binary", "multiclass", "regression"],
)
def test_early_stopping_stops_where_sklearn_stops(smooth_regression, weights, Ours, Theirs,
                                                  n_classes):  # fmt: skip
    X, y = smooth_regression
    target = y if n_classes is None else labels(y, n_classes)
    ours, theirs = fit_both(
        Ours, Theirs, X, target, weights, n_estimators=500, learning_rate=0.3,
        n_iter_no_change=5, validation_fraction=0.25, min_samples_leaf=25, random_state=3,
    )  # fmt: skip
    assert ours.n_estimators_ == theirs.n_estimators_ < 500
    assert ours.estimators_.shape[0] == len(ours.train_score_) == ours.n_estimators_
    method = "predict" if n_classes is None else "predict_proba"
    np.testing.assert_allclose(getattr(ours, method)(X), getattr(theirs, method)(X), atol=ATOL)


def test_early_stopping_split_with_a_single_row_class_is_refused():
    """The stratified split needs two rows a class: scikit-learn's error, as there."""
    X = np.arange(40.0)[:, None]
    y = np.array([0] * 38 + [1, 2])
    params = {"n_iter_no_change": 2, "validation_fraction": 0.5}
    with pytest.raises(ValueError) as theirs:
        sk.GradientBoostingClassifier(**params).fit(X, y)
    with pytest.raises(ValueError, match="least populated class") as ours:
        ct.GradientBoostingClassifier(**params).fit(X, y)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("subsample", [1.0, 0.6])
def test_warm_start_adds_stages_as_sklearn(smooth_regression, subsample):
    X, y = smooth_regression
    y = labels(y, 3)
    params = {"min_samples_leaf": 25, "subsample": subsample, "random_state": 0}
    ours = ct.GradientBoostingClassifier(n_estimators=6, warm_start=True, **params).fit(X, y)
    first = ours.estimators_[0, 0]
    ours.set_params(n_estimators=12).fit(X, y)
    assert ours.estimators_.shape == (12, 3) and ours.estimators_[0, 0] is first
    theirs = sk.GradientBoostingClassifier(n_estimators=6, warm_start=True, **params).fit(X, y)
    theirs.set_params(n_estimators=12).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=ATOL)
    assert_same_scores(ours, theirs)
    with pytest.raises(ValueError, match="must be larger or equal"):
        ours.set_params(n_estimators=3).fit(X, y)
    assert ours.estimators_.shape == (12, 3)


def test_warm_start_can_switch_subsampling(smooth_regression):
    X, y = smooth_regression
    model = ct.GradientBoostingRegressor(n_estimators=3, warm_start=True, random_state=0)
    model.fit(X, y).set_params(subsample=0.5, n_estimators=5).fit(X, y)
    assert model.oob_scores_.shape == model.oob_improvement_.shape == (5,)
    np.testing.assert_array_equal(model.oob_scores_[:3], 0.0)
    assert model.oob_score_ == model.oob_scores_[-1] > 0
    model.set_params(subsample=1.0, n_estimators=6).fit(X, y)
    assert model.n_estimators_ == 6 and not hasattr(model, "oob_scores_")


def test_warm_start_early_stopping_judges_each_new_stage(smooth_regression, weights):
    """A warm start with early stopping starts a fresh history of validation losses and
    judges each new stage by the loss after that stage (recomputed here from
    ``staged_predict`` on the rows fit sets aside).  scikit-learn 1.9 judges stage ``i``
    by the loss after stage ``i - begin`` (its ``_staged_raw_predict`` restarts at stage
    0), so it stops elsewhere: the Notes of both estimators say so."""
    X, y = smooth_regression
    params = {"n_iter_no_change": 3, "learning_rate": 0.3, "min_samples_leaf": 25,
              "random_state": 3, "warm_start": True}  # fmt: skip
    fits = {}
    for Boosting in (ct.GradientBoostingRegressor, sk.GradientBoostingRegressor):
        model = Boosting(n_estimators=10, **params).fit(X, y, sample_weight=weights)
        begin = model.n_estimators_
        fits[Boosting] = model.set_params(n_estimators=500).fit(X, y, sample_weight=weights)
    ours = fits[ct.GradientBoostingRegressor]
    _, X_val, _, y_val, _, w_val = train_test_split(
        X, y, weights, random_state=3, test_size=0.1
    )
    losses = [np.average((y_val - p) ** 2, weights=w_val) for p in ours.staged_predict(X_val)]
    history, expected = np.full(3, np.inf), 500
    for i in range(begin, 500):
        if not np.any(losses[i] + 1e-4 < history):
            expected = i + 1  # the stage that did not improve is kept, as in scikit-learn
            break
        history[i % 3] = losses[i]
    assert begin == 10 and ours.n_estimators_ == expected < 500
    assert fits[sk.GradientBoostingRegressor].n_estimators_ != expected


@pytest.mark.parametrize("subsample", [1.0, 0.7])
def test_monitor_stops_the_fit_as_sklearn(smooth_regression, subsample):
    """``monitor(i, estimator, locals())`` after each stage; True stops, keeping stage i."""
    X, y = smooth_regression
    seen = {}
    models = {}
    for Boosting in (ct.GradientBoostingRegressor, sk.GradientBoostingRegressor):
        scores = seen[Boosting] = []

        def monitor(i, estimator, local_variables, scores=scores):
            scores.append(estimator.train_score_[i])
            assert isinstance(local_variables, dict)
            return i == 4

        model = Boosting(n_estimators=20, subsample=subsample, min_samples_leaf=25,
                         random_state=0, warm_start=True)  # fmt: skip
        models[Boosting] = model.fit(X, y, monitor=monitor)
    ours, theirs = models[ct.GradientBoostingRegressor], models[sk.GradientBoostingRegressor]
    assert ours.n_estimators_ == ours.estimators_.shape[0] == 5
    assert_same_scores(ours, theirs)
    np.testing.assert_allclose(seen[ct.GradientBoostingRegressor],
                               seen[sk.GradientBoostingRegressor], rtol=0, atol=ATOL)  # fmt: skip
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=ATOL)
    ours.fit(X, y)  # a warm start goes on from the fifth stage, as scikit-learn's
    theirs.fit(X, y)
    assert ours.n_estimators_ == 20
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=ATOL)


def _report(text: str) -> list[list[str]]:
    """Stage and training loss (and OOB improvement) of each line of a progress report."""
    rows = [line.split() for line in text.splitlines() if line.strip()]
    return [row[:-1] for row in rows[1:]]  # no header, no time left


@pytest.mark.parametrize("verbose", [1, 2])
@pytest.mark.parametrize("subsample", [1.0, 0.8])
def test_verbose_prints_scikit_learns_report(smooth_regression, capsys, verbose, subsample):
    X, y = smooth_regression
    params = {"n_estimators": 25, "subsample": subsample, "verbose": verbose, "random_state": 0}
    ct.GradientBoostingRegressor(min_samples_leaf=25, **params).fit(X, y)
    ours = capsys.readouterr().out
    sk.GradientBoostingRegressor(min_samples_leaf=25, **params).fit(X, y)
    theirs = capsys.readouterr().out
    assert ours.splitlines()[0] == theirs.splitlines()[0]  # the header
    assert _report(ours) == _report(theirs)
    assert len(_report(ours)) == (25 if verbose == 2 else 11)  # 1-10, then 20
    assert all(re.fullmatch(r"\d+\.\d\d[sm]", line.split()[-1]) for line in ours.splitlines()[1:])


# --- pieces against scikit-learn's ----------------------------------------------------------------


@pytest.mark.parametrize("rank", [0.0, 10.0, 50.0, 80.0, 100.0])
def test_weighted_percentile_is_sklearns(rank):
    rng = np.random.default_rng(5)
    for n in (1, 2, 7, 100):
        values, w = rng.normal(size=n), rng.uniform(0.0, 2.0, size=n)
        w[0] = 0.0 if n > 1 else 1.0
        expected = _weighted_percentile(values, w, rank)
        assert weighted_percentile(values, w, rank) == expected


def test_random_sample_mask_is_sklearns():
    from sklearn.ensemble._gradient_boosting import _random_sample_mask

    for n, k in [(10, 3), (400, 280), (7, 7), (5, 1)]:
        ours, theirs = np.random.RandomState(n), np.random.RandomState(n)
        for _ in range(3):
            mask = random_sample_mask(n, k, ours)
            assert mask.sum() == k
            np.testing.assert_array_equal(mask, _random_sample_mask(n, k, theirs))


# --- missing values and categorical features, passed to the trees -------------------------------


def test_missing_values_go_to_the_trees(smooth_regression):
    """NaN in X: each stage is the package's tree on the negative gradient, NaN included."""
    X, y = smooth_regression
    X = X.copy()
    X[np.random.default_rng(3).random(X.shape) < 0.1] = np.nan
    model = ct.GradientBoostingClassifier(n_estimators=3, random_state=0).fit(X, y > 0.2)
    assert np.all(np.isfinite(model.predict_proba(X)))
    target = (y > 0.2).astype(float)
    p0 = target.mean()
    tree = ct.DecisionTreeRegressor(max_depth=3).fit(X, target - p0)
    first = model.estimators_[0, 0]
    np.testing.assert_array_equal(first.apply(X), tree.apply(X))
    np.testing.assert_array_equal(first.tree_.missing_go_to_left, tree.tree_.missing_go_to_left)
    # Its leaves hold the Newton step sum(y - p) / sum(p (1 - p)) of their rows.
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        step = np.sum(target[rows] - p0) / np.sum(np.full(rows.sum(), p0 * (1 - p0)))
        np.testing.assert_allclose(first.tree_.value[leaf, 0, 0], step, rtol=1e-12)


def test_categorical_features_go_to_the_trees(penguins):
    X, y = penguins.drop(columns="species"), penguins["species"]
    model = ct.GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y)
    assert model.estimators_.shape == (20, 3)
    assert model.estimators_[0, 0].is_categorical_.sum() == 2  # island and sex
    assert list(model.feature_names_in_) == list(X.columns)
    assert model.score(X, y) > 0.98
    regressor = ct.GradientBoostingRegressor(n_estimators=20, random_state=0)
    regressor.fit(X.drop(columns="body_mass_g"), X["body_mass_g"])
    assert regressor.score(X.drop(columns="body_mass_g"), X["body_mass_g"]) > 0.8


# --- scikit-learn's estimator checks ------------------------------------------------------------


SUBSAMPLE_WEIGHTS = (
    "a stage draws int(subsample * n_samples) rows: a weighted dataset and the same data "
    "with repeated rows have different n_samples, so the draws and the models differ (as "
    "in scikit-learn)"
)


def boosting_failures(estimator) -> dict[str, str]:
    if estimator.subsample < 1:
        return {
            check: SUBSAMPLE_WEIGHTS
            for check in (
                "check_sample_weight_equivalence_on_dense_data",
                "check_sample_weight_equivalence_on_sparse_data",
            )
        }
    return {}


@parametrize_with_checks(
    [
        ct.GradientBoostingClassifier(n_estimators=5),
        ct.GradientBoostingRegressor(n_estimators=5),
        ct.GradientBoostingClassifier(n_estimators=5, subsample=0.8),
        ct.GradientBoostingRegressor(n_estimators=5, subsample=0.8),
    ],
    expected_failed_checks=boosting_failures,
    xfail_strict=True,
)
def test_gradient_boosting_passes_sklearn_checks(estimator, check):
    check(estimator)


# --- parameters, targets and inputs: clear errors, the previous model kept -----------------------

BOOSTING = [ct.GradientBoostingClassifier, ct.GradientBoostingRegressor]


def boosting_data(Boosting):
    X, y = load_diabetes(return_X_y=True)
    return X[:80], (y[:80] > 140 if Boosting is ct.GradientBoostingClassifier else y[:80])


@pytest.mark.parametrize("Boosting", BOOSTING)
@pytest.mark.parametrize(
    "params, name",
    [
        ({"n_estimators": 0}, "n_estimators"),
        ({"n_estimators": 2.5}, "n_estimators"),
        ({"max_depth": 0}, "max_depth"),
        ({"min_samples_leaf": 0}, "min_samples_leaf"),
        ({"min_samples_split": 1}, "min_samples_split"),
        ({"min_weight_fraction_leaf": 0.6}, "min_weight_fraction_leaf"),
        ({"max_leaf_nodes": 1}, "max_leaf_nodes"),
        ({"min_impurity_decrease": -1.0}, "min_impurity_decrease"),
        ({"ccp_alpha": -0.1}, "ccp_alpha"),
        ({"max_features": "all"}, "max_features"),
        ({"random_state": "seed"}, "random_state"),
        ({"categorical_features": "yes"}, "categorical_features"),
        ({"learning_rate": 0}, "learning_rate"),
        ({"learning_rate": "fast"}, "learning_rate"),
        ({"subsample": 0.0}, "subsample"),
        ({"subsample": 1.5}, "subsample"),
        ({"loss": "hinge"}, "loss"),
        ({"init": "one"}, "init"),
        ({"alpha": 1.0}, "alpha"),
        ({"validation_fraction": 1.0}, "validation_fraction"),
        ({"n_iter_no_change": 0}, "n_iter_no_change"),
        ({"tol": -1.0}, "tol"),
        ({"warm_start": "yes"}, "warm_start"),
        ({"verbose": "loud"}, "verbose"),
        ({"criterion": "gini"}, "criterion"),
    ],
)
def test_bad_parameters_name_the_class(Boosting, params, name):
    if name not in Boosting().get_params():
        pytest.skip(f"{Boosting.__name__} has no {name}")
    X, y = boosting_data(Boosting)
    model = Boosting(n_estimators=2, random_state=0).fit(X, y)
    trees = model.estimators_
    with pytest.raises((ValueError, TypeError)) as info:
        model.set_params(**params).fit(X, y)
    assert f"The '{name}' parameter of {Boosting.__name__} must be" in str(info.value)
    assert model.estimators_ is trees  # the previous model stands


def test_learning_rate_message():
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match=r"must be a float in the range \(0.0, inf\). Got 0"):
        ct.GradientBoostingRegressor(learning_rate=0).fit(X, y)


@pytest.mark.parametrize("Boosting", BOOSTING)
def test_signature_errors_name_the_class(Boosting):
    with pytest.raises(TypeError, match=f"{Boosting.__name__}.__init__"):
        Boosting(bootstrapped=True)


@pytest.mark.parametrize(
    "Boosting, y, message",
    [
        (ct.GradientBoostingRegressor, np.array(["a", "b"] * 40), "use GradientBoostingClassifier"),
        (ct.GradientBoostingClassifier, np.linspace(0, 1, 80), "use GradientBoostingRegressor"),
        (ct.GradientBoostingClassifier, np.zeros(80, dtype=int), "minimum of 2 classes"),
    ],
)
def test_target_errors_name_the_estimator(Boosting, y, message):
    X, _ = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match=message) as info:
        Boosting(n_estimators=2).fit(X[:80], y)
    assert "DecisionTree" not in str(info.value)


@pytest.mark.parametrize("Boosting", BOOSTING)
@pytest.mark.parametrize(
    "change, message",
    [
        ({"sample_weight": np.zeros(80)}, "sample_weight sums to zero"),
        ({"X": lambda X: np.where(X > 0.05, np.inf, X)}, "Input X contains infinity"),
        ({"X": lambda X: X[:, 0]}, "Expected 2D array, got 1D array"),
        ({"y": lambda y: y[:10]}, "inconsistent numbers of samples: \\[80, 10\\]"),
    ],
    ids=["zero-weights", "inf", "1d", "short-y"],
)
def test_bad_input_gives_a_clear_error(Boosting, change, message):
    X, y = boosting_data(Boosting)
    model = Boosting(n_estimators=2, random_state=0).fit(X, y)
    trees = model.estimators_
    X_bad = change["X"](X) if "X" in change else X
    y_bad = change["y"](y) if "y" in change else y
    with pytest.raises(ValueError, match=message):
        model.fit(X_bad, y_bad, sample_weight=change.get("sample_weight"))
    assert model.estimators_ is trees


def test_exponential_loss_needs_two_classes(smooth_regression):
    X, y = smooth_regression
    with pytest.raises(ValueError, match="only suitable for a binary classification"):
        ct.GradientBoostingClassifier(loss="exponential").fit(X, labels(y, 3))


def test_criterion_warns_as_sklearn(smooth_regression):
    X, y = smooth_regression
    with pytest.warns(FutureWarning, match="`criterion` is deprecated"):
        ct.GradientBoostingRegressor(n_estimators=2, criterion="friedman_mse").fit(X, y)


@pytest.mark.parametrize("Boosting", BOOSTING)
def test_failed_fit_keeps_the_previous_model(Boosting):
    X, y = boosting_data(Boosting)
    model = Boosting(n_estimators=3, subsample=0.8, random_state=0).fit(X, y)
    state = {k: v for k, v in vars(model).items() if k.endswith("_")}
    expected = model.predict(X)
    with pytest.raises(ValueError, match="index 17"):  # raised by the first tree
        model.set_params(categorical_features=[17], n_estimators=5).fit(X, y)
    assert {k: v for k, v in vars(model).items() if k.endswith("_")}.keys() == state.keys()
    assert all(getattr(model, k) is v for k, v in state.items())
    np.testing.assert_array_equal(model.predict(X), expected)


@pytest.mark.parametrize("Boosting", BOOSTING)
def test_a_monitor_that_raises_keeps_the_previous_model(Boosting):
    X, y = boosting_data(Boosting)
    model = Boosting(n_estimators=3, random_state=0).fit(X, y)
    state, expected = dict(vars(model)), model.predict(X)

    def monitor(i, estimator, local_variables):
        if i == 2:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        model.set_params(n_estimators=5).fit(X, y, monitor=monitor)
    assert vars(model).keys() == state.keys()
    assert all(vars(model)[k] is v for k, v in state.items() if k != "n_estimators")
    np.testing.assert_array_equal(model.predict(X), expected)


@pytest.mark.parametrize("Boosting", BOOSTING)
def test_a_failed_warm_refit_keeps_the_model_and_a_refit_equals_the_one_at_once(Boosting):
    X, y = boosting_data(Boosting)
    params = {"subsample": 0.8, "random_state": 0}
    model = Boosting(n_estimators=3, warm_start=True, **params).fit(X, y)
    state, expected = dict(vars(model)), model.predict(X)
    rng_state = model._rng.get_state()
    with pytest.raises(ValueError, match="index 17"):  # raised by the first new tree
        model.set_params(n_estimators=6, categorical_features=[17]).fit(X, y)
    assert vars(model).keys() == state.keys()
    fitted = [k for k in state if k not in model.get_params()]
    assert "_rng" in fitted and all(vars(model)[k] is state[k] for k in fitted)
    for a, b in zip(model._rng.get_state(), rng_state, strict=True):
        np.testing.assert_array_equal(a, b)  # the random draws go on where they stopped
    np.testing.assert_array_equal(model.predict(X), expected)
    model.set_params(categorical_features="auto").fit(X, y)
    at_once = Boosting(n_estimators=6, **params).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), at_once.predict(X))
    np.testing.assert_array_equal(model.train_score_, at_once.train_score_)
    np.testing.assert_array_equal(model.oob_scores_, at_once.oob_scores_)


def test_refit_without_subsample_drops_the_oob_attributes(smooth_regression):
    X, y = smooth_regression
    model = ct.GradientBoostingRegressor(n_estimators=3, subsample=0.5, random_state=0)
    assert model.fit(X, y).oob_scores_.shape == (3,)
    model.set_params(subsample=1.0).fit(X, y)
    assert not hasattr(model, "oob_scores_") and not hasattr(model, "oob_score_")


@pytest.mark.parametrize("Boosting", BOOSTING)
def test_predict_checks_columns_in_its_own_name(Boosting):
    X, y = boosting_data(Boosting)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    model = Boosting(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=f"but {Boosting.__name__} is expecting 10 features"):
        model.predict(X[:, :5])
    model.fit(frame, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.predict(X)
    assert [str(w.message) for w in caught] == [
        f"X does not have valid feature names, but {Boosting.__name__} was fitted with "
        "feature names"
    ]


def test_apply_gives_the_leaves(smooth_regression):
    X, y = smooth_regression
    model = ct.GradientBoostingClassifier(n_estimators=4, random_state=0).fit(X, labels(y, 3))
    leaves = model.apply(X)
    assert leaves.shape == (400, 4, 3)
    np.testing.assert_array_equal(leaves[:, 2, 1], model.estimators_[2, 1].apply(X))
    regressor = ct.GradientBoostingRegressor(n_estimators=4, random_state=0).fit(X, y)
    assert regressor.apply(X).shape == (400, 4)


# --- at the limits of the accepted targets and weights ----------------------------------------


def test_boosting_fits_every_target_its_trees_accept():
    """Residuals may pass 1e150 when y does not: each stage then fits a scaled copy."""
    X = np.arange(6.0)[:, None]
    y = np.array([1e150, -1e150, -1e150, 1e150, -7e149, 3e149])
    scale = 2.0**500  # a power of two: the same fit on y / scale is exact
    model = ct.GradientBoostingRegressor(n_estimators=5, max_depth=2).fit(X, y)
    small = ct.GradientBoostingRegressor(n_estimators=5, max_depth=2).fit(X, y / scale)
    np.testing.assert_array_equal(model.predict(X), small.predict(X) * scale)
    for big, little in zip(model.estimators_[:, 0], small.estimators_[:, 0], strict=True):
        np.testing.assert_array_equal(big.predict(X), little.predict(X) * scale)
    with pytest.raises(ValueError, match="beyond"):
        ct.GradientBoostingRegressor(n_estimators=2).fit(X, y * 1.5)


@pytest.mark.parametrize("Boosting", BOOSTING)
def test_boosting_weights_near_the_largest_float(Boosting):
    X, y = boosting_data(Boosting)
    w = np.random.default_rng(0).integers(1, 5, size=len(y)).astype(float)
    plain = Boosting(n_estimators=10, subsample=0.8, random_state=0).fit(X, y, sample_weight=w)
    huge = Boosting(n_estimators=10, subsample=0.8, random_state=0)
    huge.fit(X, y, sample_weight=w * 2.0**1010)
    np.testing.assert_array_equal(huge.predict(X), plain.predict(X))
    np.testing.assert_array_equal(huge.train_score_, plain.train_score_)


@pytest.mark.parametrize("n_classes", [0, 2, 3])
def test_predict_on_a_dask_array_is_lazy_and_equals_predict_in_memory(n_classes):
    """predict (and the classifier's scores and probabilities) on a dask array return a
    lazy dask array, chunk by chunk, equal to the in-memory answer; the staged methods,
    which yield one array per stage, refuse it with the fix."""
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    score = X[:, 0] + X[:, 1] ** 2
    if n_classes:
        y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
        model = ct.GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y)
        methods = ["predict", "decision_function", "predict_proba", "predict_log_proba"]
    else:
        model = ct.GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, score)
        methods = ["predict"]
    X_dask = da.from_array(X, chunks=(70, 2))
    for method in methods:
        lazy = getattr(model, method)(X_dask)
        assert isinstance(lazy, da.Array), method
        np.testing.assert_array_equal(lazy.compute(), getattr(model, method)(X))
    with pytest.raises(TypeError, match="compute"):
        next(model.staged_predict(X_dask))
