"""Show a fitted tree: as indented text, or drawn with matplotlib.

Chapter 2 of the book prints and draws its first tree with these functions.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._tree import TREE_LEAF


def _feature_names(model, feature_names) -> list[str]:
    if feature_names is not None:
        names = [str(f) for f in feature_names]
        if len(names) != model.n_features_in_:
            raise ValueError(
                f"feature_names has {len(names)} names but the model was fitted on "
                f"{model.n_features_in_} features; pass one name per feature."
            )
        return names
    if hasattr(model, "feature_names_in_"):
        return [str(f) for f in model.feature_names_in_]
    return [f"feature_{j}" for j in range(model.n_features_in_)]


def _leaf_text(model, node: int, decimals: int) -> str:
    value = model.tree_.value[node, 0]
    if hasattr(model, "classes_"):
        return f"class: {model.classes_[int(np.argmax(value))]}"
    return f"value: [{value[0]:.{decimals}f}]"


def _level_set(levels: list[str], unseen: bool, limit: int | None) -> str:
    """``{a, b, c}``, ending with ``<unseen>`` if unseen levels go this way."""
    shown = levels if limit is None or len(levels) <= limit else levels[:limit]
    items = list(shown)
    if len(shown) < len(levels):
        items.append(f"... {len(levels) - len(shown)} more")
    if unseen:
        items.append("<unseen>")
    return "{" + ", ".join(items) + "}"


def _reachable_levels(tree) -> dict[int, np.ndarray]:
    """For each categorical node, which codes of its feature can reach it.

    A level sent away by a categorical ancestor on the same feature never
    arrives, so the text of a node leaves it out.  Entry ``-1`` is for
    levels unseen at fit, which follow the last column of
    ``categories_left`` down the tree.
    """
    reach: dict[int, np.ndarray] = {}
    stack: list[tuple[int, dict[int, np.ndarray]]] = [(0, {})]
    everything = np.ones(tree.categories_left.shape[1], dtype=bool)
    while stack:
        node, masks = stack.pop()
        if tree.children_left[node] == TREE_LEAF:
            continue
        j = int(tree.feature[node])
        if not np.isnan(tree.threshold[node]):
            stack += [(tree.children_left[node], masks), (tree.children_right[node], masks)]
            continue
        mask = masks.get(j, everything)
        reach[node] = mask
        row = tree.categories_left[node]
        stack.append((tree.children_left[node], {**masks, j: mask & row}))
        stack.append((tree.children_right[node], {**masks, j: mask & ~row}))
    return reach


def _split_text(
    model,
    node: int,
    names: list[str],
    decimals: int,
    limit: int | None = None,
    reach: np.ndarray | None = None,
) -> tuple[str, str]:
    """Left and right conditions of an internal node.

    A categorical node (chapter 6) lists the levels seen at fit that go each
    way (among those in ``reach``, the codes that can arrive at the node);
    ``<unseen>`` marks the side taking levels never seen at fit.
    """
    tree = model.tree_
    j = tree.feature[node]
    name = names[j]
    if np.isnan(tree.threshold[node]):
        categories = getattr(model, "categories_", None)
        row = tree.categories_left[node]
        if reach is None:
            reach = np.ones_like(row)
        n_levels = len(categories[j]) if categories is not None else row.size - 1
        labels = [str(c) for c in categories[j]] if categories is not None else None
        labels = labels or [str(c) for c in range(n_levels)]
        left = [labels[c] for c in range(n_levels) if row[c] and reach[c]]
        right = [labels[c] for c in range(n_levels) if not row[c] and reach[c]]
        return (
            f"{name} in {_level_set(left, bool(row[-1] and reach[-1]), limit)}",
            f"{name} in {_level_set(right, bool(not row[-1] and reach[-1]), limit)}",
        )
    t = f"{tree.threshold[node]:.{decimals}f}"
    return f"{name} <= {t}", f"{name} >  {t}"


def export_text(model, feature_names=None, decimals: int = 2) -> str:
    """The fitted tree as indented text, one line per branch and leaf.

    Parameters
    ----------
    model : fitted DecisionTreeClassifier or DecisionTreeRegressor
    feature_names : list of str, optional
        Defaults to the DataFrame's column names, else ``feature_0, ...``.
    decimals : int, default=2

    Examples
    --------
    >>> from climbing_trees import DecisionTreeRegressor
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> model = DecisionTreeRegressor(max_depth=1).fit(X, [1.0, 1.0, 5.0, 5.0])
    >>> print(export_text(model, feature_names=["x"]))
    |--- x <= 1.50
    |   |--- value: [1.00]
    |--- x >  1.50
    |   |--- value: [5.00]
    """
    check_is_fitted(model, "tree_")
    tree = model.tree_
    names = _feature_names(model, feature_names)
    lines: list[str] = []

    def walk(node: int, depth: int) -> None:
        indent = "|   " * depth + "|--- "
        if tree.children_left[node] == TREE_LEAF:
            lines.append(indent + _leaf_text(model, node, decimals))
            return
        left_text, right_text = _split_text(model, node, names, decimals, reach=reach.get(node))
        lines.append(indent + left_text)
        walk(tree.children_left[node], depth + 1)
        lines.append(indent + right_text)
        walk(tree.children_right[node], depth + 1)

    reach = _reachable_levels(tree)
    walk(0, 0)
    return "\n".join(lines)


def plot_tree(model, ax=None, feature_names=None, decimals: int = 2, fontsize: float = 8):
    """Draw the fitted tree with matplotlib; returns the list of node text boxes.

    Internal nodes show their test (the left-going levels of a categorical
    split, at most six of them); leaves show their prediction, the number
    of training rows and the impurity.  Leaves are spread evenly left to
    right and each parent sits above the middle of its leaves.
    """
    import matplotlib.pyplot as plt

    check_is_fitted(model, "tree_")
    tree = model.tree_
    names = _feature_names(model, feature_names)
    if ax is None:
        ax = plt.gca()
    depth = tree.node_depths()
    x = np.zeros(tree.node_count)
    next_leaf = [0]

    def place(node: int) -> float:
        if tree.children_left[node] == TREE_LEAF:
            x[node] = next_leaf[0]
            next_leaf[0] += 1
        else:
            x[node] = (place(tree.children_left[node]) + place(tree.children_right[node])) / 2
        return x[node]

    place(0)
    width = max(next_leaf[0] - 1, 1)
    height = max(depth.max(), 1)
    xs, ys = x / width, 1 - depth / height
    texts = []
    reach = _reachable_levels(tree)
    box = {"boxstyle": "round", "fc": "white", "ec": "0.3"}
    for node in range(tree.node_count):
        common = f"n = {tree.n_node_samples[node]}\nimpurity = {tree.impurity[node]:.3f}"
        if tree.children_left[node] == TREE_LEAF:
            label = f"{_leaf_text(model, node, decimals)}\n{common}"
            style = dict(box, fc="#e8f1fa")
        else:
            test = _split_text(model, node, names, decimals, limit=6, reach=reach.get(node))[0]
            label = f"{test}\n{common}"
            style = box
            for child in (tree.children_left[node], tree.children_right[node]):
                ax.plot([xs[node], xs[child]], [ys[node], ys[child]], color="0.5", zorder=1)
        texts.append(
            ax.text(xs[node], ys[node], label, ha="center", va="center",
                    fontsize=fontsize, bbox=style, zorder=2)
        )
    ax.set_xlim(-0.08, 1.08)
    ax.set_ylim(-0.12, 1.12)
    ax.set_axis_off()
    return texts
