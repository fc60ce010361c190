"""Where the trees behave as scikit-learn 1.9's: deprecations, errors, Tree attributes.

scikit-learn's own tests (tests/sklearn_tests) check the same things with its
data; these pin each item with scikit-learn side by side.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import sparse
from sklearn import tree as sk

import climbing_trees as ct


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    return X, X[:, 0] + 0.1 * rng.normal(size=80)


@pytest.mark.parametrize("Estimator", [ct.DecisionTreeRegressor, ct.ExtraTreeRegressor])
def test_friedman_mse_is_squared_error_with_sklearns_warning(Estimator, data):
    X, y = data
    with pytest.warns(FutureWarning) as ours:
        model = Estimator(criterion="friedman_mse", random_state=0)
    with pytest.warns(FutureWarning) as theirs:
        sk.DecisionTreeRegressor(criterion="friedman_mse")
    assert str(ours[0].message) == str(theirs[0].message)
    assert ours[0].filename == __file__  # points at the caller's line
    assert model.criterion == "squared_error"
    reference = Estimator(random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.fit(X, y).tree_.threshold, reference.tree_.threshold)


def test_friedman_mse_through_set_params_is_refused_as_in_sklearn(data):
    X, y = data
    model = ct.DecisionTreeRegressor().set_params(criterion="friedman_mse")
    with pytest.raises(ValueError, match="criterion='friedman_mse' is not supported"):
        model.fit(X, y)


@pytest.mark.parametrize("Estimator", [ct.DecisionTreeClassifier, ct.DecisionTreeRegressor])
def test_min_samples_split_1_raises_sklearns_message(Estimator):
    X, y = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([0, 1])
    Estimator(min_samples_split=1.0).fit(X, y)  # a fraction: valid
    with pytest.raises(ValueError) as ours:
        Estimator(min_samples_split=1).fit(X, y)
    with pytest.raises(ValueError) as theirs:
        getattr(sk, Estimator.__name__)(min_samples_split=1).fit(X, y)
    assert str(ours.value).startswith(str(theirs.value).removesuffix("."))
    assert "min_samples_split=1 is invalid; use an integer >= 2" in str(ours.value)


@pytest.mark.parametrize("Estimator", [ct.DecisionTreeClassifier, ct.DecisionTreeRegressor])
def test_sparse_y_is_refused_with_sklearns_message(Estimator, data):
    X, _ = data
    y = sparse.csr_matrix((np.arange(80) % 2)[:, None] * np.ones((1, 2)))
    with pytest.raises(TypeError) as ours:
        Estimator().fit(X, y)
    with pytest.raises(TypeError) as theirs:
        getattr(sk, Estimator.__name__)().fit(X, y)
    assert str(ours.value) == str(theirs.value)


def test_poisson_checks_y_before_the_length_of_X():
    model = ct.DecisionTreeRegressor(criterion="poisson")
    with pytest.raises(ValueError, match="Sum of y is not positive"):
        model.fit([[0, 1, 2]], [0, 0, 0])
    with pytest.raises(ValueError, match="Some value.s. of y are negative"):
        model.fit([[0, 1, 2]], [5, -0.1, 2])


def test_class_weight_list_of_wrong_length_has_sklearns_words():
    X = np.arange(12.0)[:, None]
    y = np.c_[np.arange(12) % 2, np.arange(12) % 3]
    with pytest.raises(ValueError, match="number of elements in class_weight should match"):
        ct.DecisionTreeClassifier(class_weight=[{0: 1.0}]).fit(X, y)


def test_zero_dim_sample_weight_has_sklearns_words(data):
    X, y = data
    with pytest.raises(TypeError, match=r"Input should have at least 1 dimension"):
        ct.DecisionTreeRegressor().fit(X, y, sample_weight=np.array(0.0))


@pytest.mark.parametrize("n_outputs", [1, 2])
def test_tree_has_sklearns_descriptive_attributes(n_outputs):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 4))
    y = np.c_[np.arange(60) % 2, np.arange(60) % 3][:, :n_outputs].squeeze()
    ours = ct.DecisionTreeClassifier(max_depth=2).fit(X, y).tree_
    theirs = sk.DecisionTreeClassifier(max_depth=2).fit(X, y).tree_
    for name in ("n_outputs", "max_n_classes", "n_features"):
        assert getattr(ours, name) == getattr(theirs, name), name
    np.testing.assert_array_equal(ours.n_classes, theirs.n_classes)
    assert ours.capacity >= ours.node_count
    regression = ct.DecisionTreeRegressor(max_depth=2).fit(X, X[:, 0]).tree_
    np.testing.assert_array_equal(regression.n_classes, [1])


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (ct.ExtraTreeClassifier, sk.ExtraTreeClassifier),
        (ct.ExtraTreeRegressor, sk.ExtraTreeRegressor),
    ],
)
def test_extra_tree_defaults_are_sklearns(ours, theirs):
    shared = set(ours().get_params()) & set(theirs().get_params())
    assert shared >= {"splitter", "max_features", "criterion", "max_depth"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in shared:
            assert ours().get_params()[name] == theirs().get_params()[name], name


@pytest.mark.parametrize(
    "public",
    [
        ct.export_text,
        ct.export_graphviz,
        ct.plot_tree,
        ct.DecisionTreeClassifier,
        ct.DecisionTreeRegressor,
        ct.ExtraTreeClassifier,
        ct.ExtraTreeRegressor,
    ],
    ids=lambda f: f.__name__,
)
def test_numpydoc_sections(public):
    doc = public.__doc__
    sections = ["Parameters", "Examples"] + ([] if isinstance(public, type) else ["Returns"])
    for section in sections:
        assert f"\n    {section}\n    {'-' * len(section)}\n" in doc, section
