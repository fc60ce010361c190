"""Variable importance: CART's with surrogate splits, and drop-column importance.

Chapter 10 of the book ("Costs, priors and importance") explains this module
and compares three measures on features built to fool them:

* the **impurity importance** (MDI) of scikit-learn and of this package,
  ``feature_importances_``: each split's weighted impurity decrease, summed by
  feature and normalised (:meth:`climbing_trees.Tree.compute_feature_importances`);
* scikit-learn's **permutation importance** (``sklearn.inspection``) and the
  **drop-column importance** (:func:`drop_column_importances`): how much a
  held-out score drops when a feature is shuffled, or removed and the model
  refitted;
* **CART's importance with surrogates** (Breiman et al. 1984, section 5.3.4;
  rpart's ``variable.importance``, :func:`surrogate_importances`): a feature
  also earns credit where it *could* have split, as a surrogate of the
  primary split, so a feature masked by a correlated one is not scored 0.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from ._criteria import node_impurity
from ._surrogates import best_surrogate
from ._tree import TREE_LEAF, Tree


def surrogate_importances(
    tree: Tree,
    X: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    criterion,
    is_categorical: np.ndarray,
    n_categories: np.ndarray,
    surrogate_weight: np.ndarray | None = None,
) -> np.ndarray:
    """CART's variable importance of a tree grown with surrogate splits (rpart's).

    For every split ``s`` at a node ``t``, ``improve(s)`` is the absolute
    weighted impurity decrease ``W_p I_p - W_L I_L - W_R I_R`` over the rows
    of ``t`` whose split feature is present (the primary's score in
    :func:`~climbing_trees._surrogates.best_present_split`).  A feature's
    importance is the sum of ``improve`` over the splits where it is the
    primary, plus ``adj * improve`` over the splits where it is a surrogate,
    ``adj`` being the surrogate's adjusted agreement
    (:func:`~climbing_trees._surrogates.adjusted_agreement`), as rpart's
    ``importance`` (``R/importance.R``) sums them.  Breiman et al. (section
    5.3.4) credit each surrogate with the decrease it would bring itself; rpart
    weights the primary's by the adjusted agreement instead, and this function
    follows rpart.

    ``X``, ``Y`` and ``sample_weight`` are the training arrays the tree was
    grown on (encoded, rows of weight 0 removed), ``criterion`` its criterion;
    ``surrogate_weight`` the weights its surrogates were searched with
    (``None``: ``sample_weight``).  With a loss matrix, ``improve`` counts
    the altered weights and ``adj`` the case weights, as rpart's do.
    The tree keeps each node's surrogate features but not their adjusted
    agreements: each surrogate is searched again on the rows that reach the
    node (:func:`~climbing_trees._surrogates.best_surrogate`, the search that
    chose it), for the features the tree keeps only.

    Returns the raw sums, one per feature (rpart's scale: the weighted
    impurity decrease, a sum of squares for regression); divide by their sum
    to compare with ``feature_importances_``.

    Parameters
    ----------
    tree : Tree
        A tree grown with ``missing_values="surrogate"``.
    X : ndarray of shape (n_samples, n_features)
        The training features (categorical columns as level codes).
    Y : ndarray of shape (n_samples, n_columns)
        The training labels, one-hot, or the targets.
    sample_weight : ndarray of shape (n_samples,)
        The training weights.
    criterion : str
        The tree's criterion.
    is_categorical : ndarray of bool of shape (n_features,)
        Which columns are categorical.
    n_categories : ndarray of int of shape (n_features,)
        Levels of each categorical column.
    surrogate_weight : ndarray of shape (n_samples,), optional
        The weights the surrogates were searched with.

    Returns
    -------
    ndarray of shape (n_features,)

    Examples
    --------
    Column 1 orders the rows almost as column 0 does; the root splits on
    column 0 and column 1, its surrogate, agrees on every row (``adj = 1``):

    >>> from climbing_trees import grow_tree
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 3.0], [3.0, 2.0]])
    >>> Y, w = np.array([[0.0], [0.0], [1.0], [1.0]]), np.ones(4)
    >>> tree = grow_tree(X, Y, w, criterion="squared_error", missing_values="surrogate")
    >>> int(tree.feature[0]), int(tree.surrogate_feature[0, 0])
    (0, 1)
    >>> flags, levels = np.zeros(2, bool), np.zeros(2, int)
    >>> surrogate_importances(tree, X, Y, w, "squared_error", flags, levels).tolist()
    [1.0, 1.0]
    """
    importances = np.zeros(X.shape[1])
    if surrogate_weight is None:
        surrogate_weight = sample_weight
    reach = tree.decision_path(X).tocsc()
    for t in np.flatnonzero(tree.children_left != TREE_LEAF):
        rows = reach[:, [t]].nonzero()[0]
        left = reach[:, [tree.children_left[t]]].nonzero()[0]
        goes_left = np.isin(rows, left)
        j = int(tree.feature[t])
        x = X[rows, j]
        present = np.ones(len(rows), bool) if is_categorical[j] else ~np.isnan(x)
        improve = _decrease(Y[rows], sample_weight[rows], present, goes_left, criterion)
        importances[j] += improve
        if is_categorical[j]:
            continue  # a categorical primary has no surrogates (missing is a level)
        label = np.where(present, np.where(goes_left, 1, -1), 0)
        kept = tree.surrogate_feature[t]
        for k in kept[kept >= 0]:
            s = best_surrogate(
                X[rows, k],
                label,
                surrogate_weight[rows],
                bool(is_categorical[k]),
                int(n_categories[k]),
            )
            importances[k] += s.adjusted * improve
    return importances


def _decrease(Y, w, present, goes_left, criterion) -> float:
    """``W_p I_p - W_L I_L - W_R I_R`` over the ``present`` rows."""
    total = 0.0
    for sign, part in (
        (1, present),
        (-1, present & goes_left),
        (-1, present & ~goes_left),
    ):
        if part.any():
            total += (
                sign * float(w[part].sum()) * node_impurity(Y[part], w[part], criterion)
            )
    return max(total, 0.0)


def drop_column_importances(estimator, X_train, y_train, X_test, y_test) -> np.ndarray:
    """How much the held-out score drops when a feature is removed and the model refit.

    ``score(full) - score(without feature j)`` for every column ``j``, the
    models fitted on ``(X_train, y_train)`` and scored on ``(X_test, y_test)``
    with ``estimator.score``.  ``X`` may be arrays or DataFrames (give
    categorical columns a ``category`` dtype: their indices move when a
    column is dropped).  Unlike permutation importance it never asks the model
    about rows it could not have seen (a shuffled column breaks the features'
    correlations), but it costs one fit per feature, and a feature with a
    correlated twin scores near 0: the twin takes its place.

    Parameters
    ----------
    estimator : estimator
        Any scikit-learn estimator with ``score``; it is cloned.
    X_train, y_train : array-like or DataFrame
        The rows the models are fitted on.
    X_test, y_test : array-like or DataFrame
        The held-out rows they are scored on.

    Returns
    -------
    ndarray of shape (n_features,)
        The drop in score for each column (negative when removing it helps).

    Examples
    --------
    On iris, petal length (column 2) has a twin, petal width (column 3); the
    sepal columns are never used:

    >>> from sklearn.datasets import load_iris
    >>> from climbing_trees import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_depth=2)
    >>> drops = drop_column_importances(model, X[::2], y[::2], X[1::2], y[1::2])
    >>> drops.round(3).tolist()
    [0.0, 0.0, 0.0, 0.013]
    """
    full = clone(estimator).fit(X_train, y_train).score(X_test, y_test)
    drops = []
    for j in range(X_train.shape[1]):
        if hasattr(X_train, "columns"):
            name = X_train.columns[j]
            train, test = X_train.drop(columns=name), X_test.drop(columns=name)
        else:
            train, test = np.delete(X_train, j, axis=1), np.delete(X_test, j, axis=1)
        model = clone(estimator).fit(train, y_train)
        drops.append(full - model.score(test, y_test))
    return np.array(drops)


def noisy_levels(seed: int, k: int, n: int = 200, n_test: int = 1000, signal=0.15):
    """Chapter 7's selection-bias problem: an informative ``x`` and a noise feature.

    ``x`` is uniform on [0, 1] and moves P(class 1) from ``0.5 - signal``
    below 0.5 to ``0.5 + signal`` above; column 1 holds the codes of ``k``
    levels drawn independently of everything (declare it categorical).
    Returns ``X, y, X_test, y_test``.
    """
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=n + n_test)
    level = rng.integers(0, k, size=n + n_test)
    y = (rng.uniform(size=n + n_test) < 0.5 + signal * np.sign(x - 0.5)).astype(int)
    X = np.column_stack([x, level.astype(float)])
    return X[:n], y[:n], X[n:], y[n:]


__all__ = ["drop_column_importances", "noisy_levels", "surrogate_importances"]
