"""CART's importance with surrogate splits (rpart's variable.importance) and drop-column.

rpart's output is read from ``climbing_trees/rpart_reference/importance_surrogates.csv``;
tests/test_reference_files.py makes it again where R is installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from climbing_trees import DecisionTreeClassifier, DecisionTreeRegressor
from climbing_trees._importance import drop_column_importances
from climbing_trees._rpart import (
    SURROGATE_SEEDS,
    reference_importance,
    surrogate_classes,
    surrogate_problem,
)


def surrogate_model(seed: int, method: str):
    X, y, w, _, params = surrogate_problem(seed)
    target = surrogate_classes(y) if method == "class" else y
    Est = DecisionTreeClassifier if method == "class" else DecisionTreeRegressor
    model = Est(**params, missing_values="surrogate", max_surrogates=5)
    return model.fit(X, target, sample_weight=w)


@pytest.mark.parametrize("method", ["anova", "class"])
@pytest.mark.parametrize("seed", SURROGATE_SEEDS)
def test_same_importance_as_rpart(seed, method):
    """rpart's variable.importance, feature by feature; features it omits score 0."""
    model = surrogate_model(seed, method)
    reference = reference_importance(seed, method)
    ours = model.surrogate_importances_
    np.testing.assert_allclose(ours[reference.index], reference.to_numpy(), rtol=1e-9)
    others = np.setdiff1d(np.arange(len(ours)), reference.index)
    np.testing.assert_array_equal(ours[others], 0.0)


def test_only_surrogate_trees_have_it():
    X, y, *_ = surrogate_problem(0)
    model = DecisionTreeRegressor(max_depth=3).fit(np.nan_to_num(X), y)
    assert not hasattr(model, "surrogate_importances_")


@pytest.mark.parametrize("seed", range(3))
def test_without_surrogates_it_is_the_impurity_importance(seed):
    """No missing values, no surrogates: the primaries' decreases, MDI unnormalised."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=300) > 0).astype(int)
    model = DecisionTreeClassifier(max_depth=4, missing_values="surrogate", max_surrogates=0).fit(
        X, y
    )
    raw = model.surrogate_importances_
    np.testing.assert_allclose(raw / raw.sum(), model.feature_importances_, rtol=1e-10)


def test_a_masked_copy_gets_the_credit_of_its_twin():
    """An exact copy of a feature never splits (ties go to the lower index), so its
    impurity importance is 0; as a surrogate that always agrees (adj = 1) it earns
    as much as the feature itself."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=400)
    X = np.column_stack([x, x, rng.normal(size=400)])
    y = x + 0.3 * rng.normal(size=400)
    model = DecisionTreeRegressor(max_depth=3, missing_values="surrogate").fit(X, y)
    assert model.feature_importances_[1] == 0
    imp = model.surrogate_importances_
    assert imp[1] == pytest.approx(imp[0], rel=1e-12) and imp[1] > 0


def test_pruning_keeps_the_importance_of_the_kept_splits():
    model = surrogate_model(3, "anova")
    pruned = clone(model).set_params(ccp_alpha=0.05)
    X, y, w, _, _ = surrogate_problem(3)
    pruned.fit(X, y, sample_weight=w)
    assert pruned.get_n_leaves() < model.get_n_leaves()
    assert np.all(pruned.surrogate_importances_ <= model.surrogate_importances_ + 1e-9)


def test_drop_column_importance_is_a_refit_without_the_column():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] > 0).astype(int)
    est = DecisionTreeClassifier(max_depth=3)
    drops = drop_column_importances(est, X[:300], y[:300], X[300:], y[300:])
    full = clone(est).fit(X[:300], y[:300]).score(X[300:], y[300:])
    without = clone(est).fit(X[:300, 1:], y[:300]).score(X[300:, 1:], y[300:])
    assert drops[0] == pytest.approx(full - without)
    assert drops[0] > 0.2 and np.all(np.abs(drops[1:]) < 0.1)


def test_reference_importance_refuses_unknown_seeds():
    with pytest.raises(ValueError, match="hold seeds"):
        reference_importance(max(SURROGATE_SEEDS) + 1, "class")
