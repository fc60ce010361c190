"""Show a fitted tree: as indented text, or drawn with matplotlib.

Chapter 2 of the book prints and draws its first tree with these functions.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._tree import TREE_LEAF


def _feature_names(model, feature_names, sklearn_says: str = "") -> list[str]:
    """The names shown for the features; ``sklearn_says`` starts a length error
    with the sentence scikit-learn's function of the same name writes."""
    if feature_names is not None:
        names = [str(f) for f in feature_names]
        if len(names) != model.n_features_in_:
            start = sklearn_says.format(given=len(names), n=model.n_features_in_)
            raise ValueError(
                f"{start}{': f' if start else 'F'}eature_names has {len(names)} names but "
                f"the model was fitted on {model.n_features_in_} features; pass one name "
                "per feature."
            )
        return names
    if hasattr(model, "feature_names_in_"):
        return [str(f) for f in model.feature_names_in_]
    return [f"feature_{j}" for j in range(model.n_features_in_)]


def _several_outputs(model) -> bool:
    return getattr(model, "n_outputs_", 1) > 1


def _output_classes(model, node: int) -> list:
    """Several outputs: the class each output predicts at ``node``."""
    value = model.tree_.value[node]
    return [c[int(np.argmax(value[k, : len(c)]))] for k, c in enumerate(model.classes_)]


def _shown_class(model, node: int) -> int:
    """Index of the class ``predict`` gives at ``node`` (one output): the most
    probable, or the least expected cost with a ``loss_matrix`` (chapter 10)."""
    value = model.tree_.value[node, 0]
    costs = getattr(model, "_costs_", None)
    if costs is not None:
        return int(costs.node_classes(value[None, : len(model.classes_)])[0])
    return int(np.argmax(value))


def _class_value(model, node: int) -> tuple[np.ndarray, np.ndarray]:
    """A classifier's node (one output): its class proportions and class weights.

    Under the priors, as ``predict_proba`` gives them: with a ``loss_matrix``
    the tree holds the altered priors' proportions and weights (chapter 10),
    and the drawings show the ones the least-cost class is chosen from, as
    rpart's ``print`` shows its ``yprob``.
    """
    value = model.tree_.value[node, 0]
    weight = model.tree_.weighted_n_node_samples[node]
    costs = getattr(model, "_costs_", None)
    if costs is None:
        return value, value * weight
    k = len(model.classes_)
    return costs.proba(value[None, :k])[0], value[:k] * weight / costs.factors


def _leaf_text(model, node: int, decimals: int) -> str:
    value = model.tree_.value[node, 0]
    if _several_outputs(model):
        if hasattr(model, "classes_"):
            return "class: [" + ", ".join(str(c) for c in _output_classes(model, node)) + "]"
        numbers = ", ".join(f"{v:.{decimals}f}" for v in model.tree_.value[node, :, 0])
        return f"value: [{numbers}]"
    if hasattr(model, "classes_"):
        return f"class: {model.classes_[_shown_class(model, node)]}"
    return f"value: [{value[0]:.{decimals}f}]"


#: Most levels listed per side of a categorical split by export_text and
#: export_graphviz (plot_tree lists 6); the rest are counted, ``... 980 more``.
LEVELS_SHOWN = 32


def _level_set(codes: np.ndarray, label, unseen: bool, limit: int | None) -> str:
    """``{a, b, c}``, ending with ``<unseen>`` if unseen levels go this way.

    Only the codes shown are turned into text (``label(code)``): a node of a
    20,000-level feature names at most ``limit`` of them.
    """
    shown = codes if limit is None or len(codes) <= limit else codes[:limit]
    items = [label(c) for c in shown]
    if len(shown) < len(codes):
        items.append(f"... {len(codes) - len(shown)} more")
    if unseen:
        items.append("<unseen>")
    return "{" + ", ".join(items) + "}"


def _reach(tree, node: int, masks: dict[int, np.ndarray]):
    """Which codes can reach ``node``, and the masks to pass to its children.

    ``masks`` maps each categorical feature tested above ``node`` to the
    codes that can arrive (``max_levels + 1`` entries, the last for levels
    unseen at fit, which follow the unseen side down the tree): a level sent
    away by an ancestor on the same feature never arrives, so the text of a
    node leaves it out.  Returns ``(reach, left_masks, right_masks)``;
    ``reach`` is ``None`` unless ``node`` is a categorical split.  The
    exporters pass the masks down as they walk, so they hold those of one
    path (and of the right children waiting their turn), not one per node.
    """
    if tree.children_left[node] == TREE_LEAF or not np.isnan(tree.threshold[node]):
        return None, masks, masks
    j = int(tree.feature[node])
    mask = masks.get(j)
    if mask is None:
        mask = np.ones(tree.categories_width, dtype=bool)
    row = tree.categories_left_row(node)
    return mask, {**masks, j: mask & row}, {**masks, j: mask & ~row}


def _level_sets(
    model, node: int, limit: int | None = None, reach: np.ndarray | None = None
) -> tuple[str, str]:
    """The sets of levels a categorical node sends left and right, as text.

    Only levels in ``reach`` (the codes that can arrive at the node) are
    listed; ``<unseen>`` marks the side taking levels never seen at fit.
    """
    tree = model.tree_
    j = tree.feature[node]
    categories = getattr(model, "categories_", None)
    row = tree.categories_left_row(node)
    if reach is None:
        reach = np.ones_like(row)
    n_levels = len(categories[j]) if categories is not None else row.size - 1
    if categories is not None and n_levels:

        def label(c):
            return str(categories[j][c])
    else:
        label = str
    left = np.flatnonzero(row[:n_levels] & reach[:n_levels])
    right = np.flatnonzero(~row[:n_levels] & reach[:n_levels])
    return (
        _level_set(left, label, bool(row[-1] and reach[-1]), limit),
        _level_set(right, label, bool(not row[-1] and reach[-1]), limit),
    )


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
    name = names[tree.feature[node]]
    if np.isnan(tree.threshold[node]):
        left, right = _level_sets(model, node, limit, reach)
        return f"{name} in {left}", f"{name} in {right}"
    t = f"{tree.threshold[node]:.{decimals}f}"
    return f"{name} <= {t}", f"{name} >  {t}"


def _check_export_options(**options) -> None:
    """Clear errors for the integer and boolean options of the exports."""
    lowest = {"max_depth": 0, "spacing": 1, "decimals": 0, "precision": 0}
    for name, value in options.items():
        if name == "show_weights":
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"show_weights must be True or False, got {value!r}.")
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be an integer, got {value!r}.")
        if value < lowest[name]:
            raise ValueError(f"{name} must be at least {lowest[name]}, got {value}.")


class ClassNamesError(ValueError, IndexError):
    """``class_names`` of the wrong length.

    A ``ValueError``, and an ``IndexError`` as well: scikit-learn's
    ``export_graphviz`` and ``plot_tree`` raise that one when the names run
    out, so code that catches it keeps working.
    """


def _class_names(model, class_names) -> list:
    """The names shown for the classes: ``class_names`` if given, else ``classes_``.

    With several outputs, a list of lists: one list of names per output.
    """
    if _several_outputs(model):
        if class_names is None:
            return [list(c) for c in model.classes_]
        names = list(class_names)
        if len(names) != len(model.classes_) or any(
            isinstance(n, (str, bytes)) or not hasattr(n, "__len__") for n in names
        ):
            raise ValueError(
                f"class_names must be a list of {len(model.classes_)} lists (one list of "
                "names per output, in the order of classes_[k]) for a model with "
                f"{len(model.classes_)} outputs, got {class_names!r}."
            )
        for k, (given, classes) in enumerate(zip(names, model.classes_, strict=True)):
            if len(given) != len(classes):
                raise ValueError(
                    f"class_names[{k}] has {len(given)} names but output {k} has "
                    f"{len(classes)} classes; pass one name per class of classes_[{k}]."
                )
        return [list(n) for n in names]
    if class_names is None:
        return list(model.classes_)
    names = list(class_names)
    if len(names) != len(model.classes_):
        raise ClassNamesError(
            "When `class_names` is an array, it should contain as many items as "
            f"`decision_tree.classes_`. Got {len(names)} while the tree was fitted with "
            f"{len(model.classes_)} classes: class_names has {len(names)} names but the "
            f"model has {len(model.classes_)} classes; pass one name per class, in the "
            "order of classes_."
        )
    return names


def _subtree_depth(tree, node: int) -> int:
    """Number of levels of the subtree rooted at ``node`` (a leaf counts 1)."""
    depth, level = 0, np.array([node])
    while level.size:
        depth += 1
        level = level[tree.children_left[level] != TREE_LEAF]
        level = np.concatenate([tree.children_left[level], tree.children_right[level]])
    return depth


def export_text(
    model,
    feature_names=None,
    class_names=None,
    max_depth: int = 10,
    spacing: int = 3,
    decimals: int = 2,
    show_weights: bool = False,
) -> str:
    """The fitted tree as indented text, one line per branch and leaf.

    The parameters and the format are scikit-learn's
    (``sklearn.tree.export_text``): on a numerical tree with one output
    both functions write the same characters, down to the trailing newline
    (with several outputs see the Notes).

    Parameters
    ----------
    model : fitted DecisionTreeClassifier or DecisionTreeRegressor
    feature_names : list of str, optional
        Defaults to the DataFrame's column names, else ``feature_0, ...``.
        (scikit-learn writes ``feature_0, ...`` even for a DataFrame.)
    class_names : list, optional
        Names shown for the classes, in the order of ``classes_``; defaults
        to ``classes_``.  With several outputs, a list of lists, one per
        output (``class_names[k]`` names ``classes_[k]``).  Only for
        classifiers.
    max_depth : int, default=10
        Levels shown below the root; deeper subtrees are replaced by a line
        ``truncated branch of depth d`` (a lone leaf is still shown).
    spacing : int, default=3
        Width of each level of indentation.
    decimals : int, default=2
        Digits after the point in thresholds and values.
    show_weights : bool, default=False
        Classifiers only: also show the weighted class counts of each leaf.

    Returns
    -------
    str
        One line per branch and leaf, each ending with a newline.

    Notes
    -----
    With a ``loss_matrix`` (chapter 10) a node shows the class of least
    expected cost, the one ``predict`` gives, with the class proportions
    ``predict_proba`` gives and the class weights under the priors
    (``sample_weight`` and ``class_weight``), not the altered priors held in
    ``tree_.value``: the numbers the class was chosen from, as rpart's
    ``print`` shows its ``yprob``.

    A categorical split (chapter 6) is written as the set of levels going
    each way, ``colour in {red, blue}``, leaving out levels that a
    categorical ancestor on the same feature already sent elsewhere;
    ``<unseen>`` marks the side that takes levels never seen at fit.  A side
    with more than 32 levels lists the first 32 and counts the others
    (``... 980 more``).  A node with surrogate splits
    (``missing_values="surrogate"``, chapter 9)
    lists them after its left branch, best first, each written as the
    condition that sends a row left: ``[surrogates: x2 <= 0.30, x1 > 2.00]``.

    With several outputs a leaf lists one entry per output: ``value: [v1,
    v2]`` (as scikit-learn) or ``class: [c1, c2]`` with ``weights: [[...],
    [...]]``; scikit-learn's classifier line is not per output, so the two
    texts differ there.

    Examples
    --------
    >>> from climbing_trees import DecisionTreeRegressor
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> model = DecisionTreeRegressor(max_depth=1).fit(X, [1.0, 1.0, 5.0, 5.0])
    >>> print(export_text(model, feature_names=["x"]), end="")
    |--- x <= 1.50
    |   |--- value: [1.00]
    |--- x >  1.50
    |   |--- value: [5.00]
    """
    check_is_fitted(model, "tree_")
    _check_export_options(
        max_depth=max_depth, spacing=spacing, decimals=decimals, show_weights=show_weights
    )
    tree = model.tree_
    names = _feature_names(
        model, feature_names, "feature_names must contain {n} elements, got {given}"
    )
    is_classifier = hasattr(model, "classes_")
    if is_classifier:
        labels = _class_names(model, class_names)
    elif class_names is not None:
        raise ValueError("class_names is for classifiers; leave it out for a regressor.")
    lines: list[str] = []

    def leaf(node: int, indent: str) -> None:
        value = tree.value[node, 0]
        if _several_outputs(model):  # one value (or class) per output
            text = _leaf_text(model, node, decimals)
            if is_classifier:  # each output's class, by its name in class_names
                chosen = [
                    labels[k][int(np.argmax(tree.value[node, k, : len(c)]))]
                    for k, c in enumerate(model.classes_)
                ]
                text = "class: [" + ", ".join(str(c) for c in chosen) + "]"
            if show_weights and is_classifier:
                w = tree.weighted_n_node_samples[node]
                blocks = [
                    "[" + ", ".join(f"{v * w:.{decimals}f}" for v in tree.value[node, k, : len(c)])
                    for k, c in enumerate(model.classes_)
                ]
                text = f"weights: [{'], '.join(blocks)}]] {text}"
            lines.append(f"{indent} {text}")
            return
        if not is_classifier:
            numbers = ", ".join(f"{v:.{decimals}f}" for v in value)
            lines.append(f"{indent} value: [{numbers}]")
            return
        text = f" class: {labels[_shown_class(model, node)]}"
        if show_weights:
            weights = _class_value(model, node)[1]  # under the priors (chapter 10)
            numbers = ", ".join(f"{v:.{decimals}f}" for v in weights)
            text = f" weights: [{numbers}]{text}"
        lines.append(indent + text)

    def walk(node: int, depth: int, masks: dict[int, np.ndarray]) -> None:
        indent = ("|" + " " * spacing) * depth
        indent = indent[:-spacing] + "-" * spacing
        if depth > max_depth + 1:
            subtree = _subtree_depth(tree, node)
            if subtree == 1:
                leaf(node, indent)
            else:
                lines.append(f"{indent} truncated branch of depth {subtree}")
            return
        if tree.children_left[node] == TREE_LEAF:
            leaf(node, indent)
            return
        reach, left_masks, right_masks = _reach(tree, node, masks)
        left_text, right_text = _split_text(
            model, node, names, decimals, limit=LEVELS_SHOWN, reach=reach
        )
        lines.append(f"{indent} {left_text}{_surrogate_text(model, node, names, decimals)}")
        walk(tree.children_left[node], depth + 1, left_masks)
        del left_masks
        lines.append(f"{indent} {right_text}")
        walk(tree.children_right[node], depth + 1, right_masks)

    walk(0, 1, {})
    return "".join(line + "\n" for line in lines)


def _surrogate_text(model, node: int, names, decimals: int) -> str:
    """`` [surrogates: ...]`` for a node with surrogate splits, else ``""``."""
    tree = model.tree_
    features = tree.surrogate_feature[node]
    parts = []
    for rank in np.flatnonzero(features >= 0):
        f = int(features[rank])
        t = tree.surrogate_threshold[node, rank]
        if np.isnan(t):  # categorical: the levels it sends left (sorted, compact)
            start = tree.surrogate_categories_start[node, rank, 0]
            stop = tree.surrogate_categories_stop[node, rank, 0]
            levels = tree.surrogate_categories_levels[start:stop]
            known = model.categories_[f]
            parts.append(f"{names[f]} in {{{', '.join(str(known[c]) for c in levels)}}}")
        else:
            sign = "<=" if tree.surrogate_below_left[node, rank] else ">"
            parts.append(f"{names[f]} {sign} {t:.{decimals}f}")
    return f"  [surrogates: {', '.join(parts)}]" if parts else ""


def _pyplot():
    """matplotlib's pyplot, or an ImportError that says how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ModuleNotFoundError as exc:
        raise ImportError(
            "plot_tree draws with matplotlib, which is not installed: "
            "pip install 'climbing-trees[plot]' (or pip install matplotlib)."
        ) from exc
    return plt


def _check_plot_options(label, max_depth, precision, fontsize, **flags) -> None:
    """Clear errors for plot_tree's options (scikit-learn checks the same ones)."""
    if label not in ("all", "root", "none"):
        raise ValueError(f'label must be "all", "root" or "none", got {label!r}.')
    if max_depth is not None:
        _check_export_options(max_depth=max_depth)
    _check_export_options(precision=precision)
    for name, value in flags.items():
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be True or False, got {value!r}.")
    if fontsize is not None and (
        isinstance(fontsize, (bool, np.bool_))
        or not isinstance(fontsize, (int, float, np.integer, np.floating))
        or not fontsize > 0
    ):
        raise ValueError(f"fontsize must be a positive number or None, got {fontsize!r}.")


def _layout(tree, max_depth: int | None) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Where each drawn node goes: ``x`` in leaf slots, ``y`` in levels.

    The drawn tree stops at ``max_depth`` (its children are drawn as
    ``(...)``).  Its leaves take the slots 0, 1, 2, ... from left to right
    and each parent sits midway between its two children.  Returns ``x``
    and ``y`` (NaN for nodes not drawn) and the drawn nodes in preorder.
    """
    x = np.full(tree.node_count, np.nan)
    y = np.full(tree.node_count, np.nan)
    order: list[int] = []
    next_slot = 0
    stack = [(0, 0, False)]
    while stack:  # preorder down, then each parent once both children are placed
        node, depth, children_done = stack.pop()
        expand = tree.children_left[node] != TREE_LEAF and (
            max_depth is None or depth <= max_depth
        )
        left, right = tree.children_left[node], tree.children_right[node]
        if children_done:
            x[node] = (x[left] + x[right]) / 2
            continue
        order.append(node)
        y[node] = depth
        if expand:
            stack += [(node, depth, True), (right, depth + 1, False), (left, depth + 1, False)]
        else:
            x[node] = next_slot
            next_slot += 1
    return x, y, order


def plot_tree(
    decision_tree,
    *,
    max_depth=None,
    feature_names=None,
    class_names=None,
    label="all",
    filled=False,
    impurity=True,
    node_ids=False,
    proportion=False,
    rounded=False,
    precision=3,
    ax=None,
    fontsize=None,
):
    """Draw a fitted tree with matplotlib, as ``sklearn.tree.plot_tree`` does.

    The parameters, the text of each box (as :func:`export_graphviz` writes
    it), the filled colours, the arrows, the ``True``/``False`` labels of the
    root's two edges and the fitting of the font to the axes are
    scikit-learn's.  The layout is this package's: leaves evenly spaced
    left to right, each parent midway between its two children (scikit-learn
    uses the more compact Reingold-Tilford layout).

    Parameters
    ----------
    decision_tree : fitted DecisionTreeClassifier or DecisionTreeRegressor
        Or any fitted estimator of this package with a ``tree_``.
    max_depth : int, optional
        Levels drawn below the root; the subtrees below are drawn as grey
        ``(...)`` boxes.  ``None`` draws the whole tree.
    feature_names : array-like of str, optional
        One name per feature.  Defaults to the DataFrame's column names when
        the model was fitted on one, else ``x[0], x[1], ...``.
    class_names : array-like of str or True, optional
        Names of the classes, in the order of ``classes_``, written as a
        ``class = ...`` line; ``True`` writes ``y[0], y[1], ...``.  Only for
        classifiers with one output; ``None`` writes no class line.
    label : {"all", "root", "none"}, default="all"
        Which boxes name their numbers (``samples = ...``).
    filled : bool, default=False
        Colour the boxes: by majority class (stronger the purer), by value
        for regression (stronger the larger), by impurity with several
        outputs (stronger the purer), with scikit-learn's colours.
    impurity : bool, default=True
        Write each node's impurity.
    node_ids : bool, default=False
        Write each node's id (``#3``).
    proportion : bool, default=False
        Write shares of the training rows instead of counts.
    rounded : bool, default=False
        Round the corners of the boxes.
    precision : int, default=3
        Digits kept in thresholds, impurities and values.
    ax : matplotlib Axes, optional
        Where to draw; the current Axes by default.  It is cleared first.
    fontsize : float, optional
        Size of the text; ``None`` fits it to the size of the Axes.

    Returns
    -------
    list of matplotlib.text.Annotation
        The boxes and the two edge labels, in the order they are drawn: the
        root, then each subtree left before right, the ``True`` label after
        the root's left child and ``False`` after its right child.

    Raises
    ------
    ImportError
        Without matplotlib: ``pip install 'climbing-trees[plot]'``.

    Notes
    -----
    With a ``loss_matrix`` (chapter 10) a node shows the class of least
    expected cost, the one ``predict`` gives, with the class proportions
    ``predict_proba`` gives and the class weights under the priors
    (``sample_weight`` and ``class_weight``), not the altered priors held in
    ``tree_.value``: the numbers the class was chosen from, as rpart's
    ``print`` shows its ``yprob``.

    A categorical split (chapter 6) is written as the levels it sends left
    (to the ``True`` side), ``colour in {red, blue}``, at most six of them
    (``... 3 more``), leaving out levels that an ancestor on the same
    feature already sent elsewhere; ``<unseen>`` marks the side that takes
    levels never seen at fit.  Chapter 2 of the book draws its first trees
    with this function.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import load_iris
    >>> from climbing_trees import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_depth=1).fit(X, y)
    >>> boxes = plot_tree(model, filled=True, class_names=["setosa", "versicolor", "virginica"])
    >>> [box.get_text() for box in boxes][:3]  # doctest: +NORMALIZE_WHITESPACE
    ['x[2] <= 2.45\\ngini = 0.667\\nsamples = 150\\nvalue = [50, 50, 50]\\nclass = setosa',
     'gini = 0.0\\nsamples = 50\\nvalue = [50, 0, 0]\\nclass = setosa',
     'True  ']
    """
    plt = _pyplot()
    check_is_fitted(decision_tree, "tree_")
    _check_plot_options(
        label, max_depth, precision, fontsize, filled=filled, impurity=impurity,
        node_ids=node_ids, proportion=proportion, rounded=rounded,
    )  # fmt: skip
    model, tree = decision_tree, decision_tree.tree_
    names = _feature_names(
        model, feature_names, "Length of feature_names, {given} does not match number of "
        "features, {n}"
    ) if feature_names is not None or hasattr(model, "feature_names_in_") else None  # fmt: skip
    is_classifier = hasattr(model, "classes_")
    if _several_outputs(model) or not is_classifier:
        class_names = None  # as scikit-learn: a class line for one-output classifiers only
    elif class_names is not None and class_names is not True and class_names is not False:
        class_names = _class_names(model, class_names)
    if ax is None:
        ax = plt.gca()
    ax.clear()
    ax.set_axis_off()
    x, y, order = _layout(tree, max_depth)
    max_x, max_y = np.nanmax(x) + 1, np.nanmax(y) + 1
    where = {n: ((x[n] + 0.5) / max_x, (max_y - y[n] - 0.5) / max_y) for n in order}
    parent = {}
    for node in order:
        if tree.children_left[node] != TREE_LEAF:
            parent[int(tree.children_left[node])] = node
            parent[int(tree.children_right[node])] = node
    chars = ["#", "[", "]", "<=", "\n", "", ""]
    reach_masks: dict[int, dict[int, np.ndarray]] = {0: {}}
    annotations = []
    for node in order:  # preorder: a box, then its left subtree, then its right one
        depth = int(y[node])
        common = {"zorder": 100 - 10 * depth, "xycoords": "axes fraction"}
        if fontsize is not None:
            common["fontsize"] = fontsize
        bbox = {"boxstyle": "round"} if rounded else {}
        arrow = {"arrowstyle": "<-", "edgecolor": plt.rcParams["text.color"]}
        kwargs = dict(ha="center", va="center", bbox=bbox, arrowprops=arrow, **common)
        ends = (where[node],) if node == 0 else (where[parent[node]], where[node])
        if max_depth is not None and depth > max_depth:  # below the drawn levels
            bbox["fc"] = "grey"
            annotations.append(ax.annotate("\n  (...)  \n", *ends, **kwargs))
            continue
        masks = reach_masks.pop(node)
        reach, left_masks, right_masks = _reach(tree, node, masks)
        if tree.children_left[node] != TREE_LEAF:
            reach_masks[int(tree.children_left[node])] = left_masks
            reach_masks[int(tree.children_right[node])] = right_masks
        bbox["fc"] = _fill_color(model, node) if filled else ax.get_facecolor()
        text = _node_text(
            model, node, reach, names=names, class_names=class_names, label=label,
            impurity=impurity, node_ids=node_ids, proportion=proportion,
            precision=precision, chars=chars, escape=str, limit=6,
        )  # fmt: skip
        annotations.append(ax.annotate(text, *ends, **kwargs))
        if node != 0 and parent[node] == 0:  # the root's edges say where a test's rows go
            middle = tuple((a + b) / 2 for a, b in zip(*ends, strict=True))
            left = node == tree.children_left[0]
            edge = ("True  ", "right") if left else ("  False", "left")
            annotations.append(ax.annotate(edge[0], middle, ha=edge[1], **common))
    renderer = ax.figure.canvas.get_renderer()
    for annotation in annotations:
        annotation.update_bbox_position_size(renderer)
    if fontsize is None:  # scikit-learn's rule: the largest box fills one slot
        extents = [
            patch.get_window_extent()
            for annotation in annotations
            if (patch := annotation.get_bbox_patch()) is not None
        ]
        box = ax.get_window_extent()
        size = annotations[0].get_fontsize() * min(
            box.width / max_x / max(e.width for e in extents),
            box.height / max_y / max(e.height for e in extents),
        )
        for annotation in annotations:
            annotation.set_fontsize(size)
    return annotations


def _rgb_to_hexstring(rgb) -> str:
    """``#rrggbb`` of an 8-bit ``(r, g, b)``, as scikit-learn writes colours."""
    return "#" + "".join(f"{int(c):02x}" for c in rgb)


def _color_brew(n: int) -> list[list[int]]:
    """``n`` colours of equally spaced hues, as scikit-learn's ``export_graphviz`` picks them."""
    s, v = 0.75, 0.9
    c = s * v
    m = v - c
    colours = []
    for h in np.arange(25, 385, 360.0 / n).astype(int):
        h_bar = h / 60.0
        x = c * (1 - abs((h_bar % 2) - 1))
        rgb = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x), (c, x, 0)]
        r, g, b = rgb[int(h_bar)]
        colours.append([int(255 * (r + m)), int(255 * (g + m)), int(255 * (b + m))])
    return colours


def _fill_color(model, node: int) -> str:
    """Fill colour of a node: the majority class's hue, paler the less pure the node;
    for regression one hue, stronger the larger the value; with several outputs
    one hue, stronger the lower the impurity (scikit-learn's rules)."""
    tree = model.tree_
    if _several_outputs(model):  # scikit-learn: one hue, stronger the purer
        colour = _color_brew(1)[0]
        low, high = -np.max(tree.impurity), -np.min(tree.impurity)
        alpha = 0.0 if low == high else (-tree.impurity[node] - low) / (high - low)
    elif hasattr(model, "classes_"):
        value = _class_value(model, node)[0]
        colour = _color_brew(len(model.classes_))[_shown_class(model, node)]
        ranked = sorted(value, reverse=True)
        alpha = 0.0 if len(ranked) == 1 else (ranked[0] - ranked[1]) / (1 - ranked[1])
    else:
        colour = _color_brew(1)[0]
        low, high = np.min(tree.value), np.max(tree.value)
        # One value everywhere: white, as scikit-learn draws it.
        alpha = 0.0 if low == high else (tree.value[node, 0, 0] - low) / (high - low)
    return _rgb_to_hexstring([int(round(alpha * c + (1 - alpha) * 255, 0)) for c in colour])


def _around(value, precision: int):
    """``np.around(value, precision)``, as scikit-learn prints numbers, without overflow.

    ``np.around`` multiplies by ``10**precision`` first, which overflows for
    huge values (weights near 1e300); a value that large has no digits after
    the ``precision``-th decimal anyway, so it is kept as it is.

    >>> _around(np.array([1.23456, 1e306]), 3).tolist()
    [1.235, 1e+306]
    """
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = np.around(value, precision)
    return np.where(np.isfinite(rounded), rounded, value)[()]


def _value_text(model, node: int, proportion: bool, precision: int) -> str:
    """A node's value as scikit-learn's ``export_graphviz`` prints it."""
    tree = model.tree_
    several = _several_outputs(model)
    # several outputs: one row per output, as numpy prints the 2-D array
    value = tree.value[node] if several else tree.value[node, 0]
    if hasattr(model, "classes_") or several:
        if proportion or not hasattr(model, "classes_"):
            if not several:  # under the priors, as predict_proba (chapter 10)
                value = _class_value(model, node)[0]
            shown = _around(value, precision)
        else:
            if several:
                value = value * tree.weighted_n_node_samples[node]
            else:  # the class weights under the priors (chapter 10)
                value = _class_value(model, node)[1]
            # Whole weights print as integers (scikit-learn's rule), but only those
            # an int64 holds: weights near 1e300 would cast to garbage.
            whole = np.all(np.mod(value, 1) == 0) and np.all(np.abs(value) < 2.0**63)
            shown = value.astype(np.int64) if whole else _around(value, precision)
        # numpy's array printing (with its line wrapping), without the quotes.
        text = str(shown.astype("S32")).replace("b'", "'")
        return text.replace("' '", ", ").replace("'", "")
    return str(_around(value[0], precision).astype("S32")).replace("b'", "").replace("'", "")


def _node_text(
    model,
    node: int,
    reach: np.ndarray | None,
    *,
    names: list[str] | None,
    class_names,
    label: str,
    impurity: bool,
    node_ids: bool,
    proportion: bool,
    precision: int,
    chars: list[str],
    escape,
    limit: int,
) -> str:
    """The text of one node, as scikit-learn's exporters write it.

    ``chars`` are the exporter's marks (``#``, the brackets of ``x[0]``,
    ``<=``, the line break and the quotes around the whole); ``escape``
    makes a name safe for the output.  A categorical node lists the levels
    it sends left (the ``True`` side), at most ``limit`` of them, among
    ``reach`` (the codes that can arrive at the node).
    """
    tree = model.tree_
    is_classifier = hasattr(model, "classes_")
    labels = (label == "root" and node == 0) or label == "all"
    text = chars[-1]
    if node_ids:
        text += ("node " if labels else "") + chars[0] + str(node) + chars[4]
    if tree.children_left[node] != TREE_LEAF:
        j = tree.feature[node]
        feature = escape(names[j]) if names is not None else f"x{chars[1]}{j}{chars[2]}"
        if np.isnan(tree.threshold[node]):  # categorical: the levels going left
            levels = _level_sets(model, node, limit, reach=reach)[0]
            text += f"{feature} in {escape(levels)}{chars[4]}"
        else:
            threshold = _around(tree.threshold[node], precision)
            text += f"{feature} {chars[3]} {threshold}{chars[4]}"
    if impurity:
        if labels:
            text += f"{model.criterion} = "
        text += str(_around(tree.impurity[node], precision)) + chars[4]
    if labels:
        text += "samples = "
    if proportion:
        share = 100.0 * tree.n_node_samples[node] / float(tree.n_node_samples[0])
        text += str(round(share, 1)) + "%" + chars[4]
    else:
        text += str(tree.n_node_samples[node]) + chars[4]
    if labels:
        text += "value = "
    text += _value_text(model, node, proportion, precision).replace("\n ", chars[4])
    text += chars[4]
    if class_names is not None and class_names is not False and is_classifier:
        if labels:
            text += "class = "
        k = _shown_class(model, node)
        if class_names is True:
            text += f"y{chars[1]}{k}{chars[2]}"
        else:
            text += escape(str(class_names[k]))
    if text.endswith(chars[4]):
        text = text[: -len(chars[4])]
    return text + chars[5]


def export_graphviz(
    model,
    out_file=None,
    *,
    max_depth=None,
    feature_names=None,
    class_names=None,
    label="all",
    filled=False,
    leaves_parallel=False,
    impurity=True,
    node_ids=False,
    proportion=False,
    rotate=False,
    rounded=False,
    special_characters=False,
    precision=3,
    fontname="helvetica",
):
    """The fitted tree in Graphviz's DOT language, as scikit-learn writes it.

    The parameters are those of ``sklearn.tree.export_graphviz``, and on a
    numerical tree both functions write the same text.  Render it with
    ``dot -Tsvg tree.dot -o tree.svg`` (Debian's ``graphviz`` package).

    Parameters
    ----------
    model : fitted DecisionTreeClassifier or DecisionTreeRegressor
    out_file : str, file object or None, default=None
        Where to write; ``None`` returns the text instead.
    max_depth : int, optional
        Nodes deeper than this are drawn as ``(...)``.
    feature_names : list of str, optional
        Defaults to the DataFrame's column names, else ``x[0], x[1], ...``.
    class_names : list of str, bool or None, default=None
        Names of the classes in the order of ``classes_``; ``True`` writes
        ``y[0], y[1], ...``; ``None`` leaves the class out.  With several
        outputs no class line is written, as in scikit-learn.
    label : {"all", "root", "none"}, default="all"
        Which nodes carry labels such as ``samples =``.
    filled : bool, default=False
        Colour nodes by majority class (classification) or by value
        (regression), stronger the purer or larger; with several outputs by
        impurity, stronger the purer, as scikit-learn.
    leaves_parallel, impurity, node_ids, proportion, rotate, rounded : bool
        As in scikit-learn: leaves on one rank, show impurities, show node
        ids, show proportions instead of counts, draw left to right, round
        the boxes.
    special_characters : bool, default=False
        Write HTML-like labels (``&le;``, subscripts) instead of plain ones.
    precision : int, default=3
        Digits kept in thresholds, impurities and values.
    fontname : str, default="helvetica"

    Returns
    -------
    str or None
        The DOT text when ``out_file`` is None.

    Notes
    -----
    With a ``loss_matrix`` (chapter 10) a node shows the class of least
    expected cost, the one ``predict`` gives, with the class proportions
    ``predict_proba`` gives and the class weights under the priors
    (``sample_weight`` and ``class_weight``), not the altered priors held in
    ``tree_.value``: the numbers the class was chosen from, as rpart's
    ``print`` shows its ``yprob``.

    A categorical split (chapter 6) is labelled with the levels that go left
    (to the ``True`` side): ``colour in {red, blue}``, with ``<unseen>``
    when levels never seen at fit go left too.

    Two deliberate differences from scikit-learn: a model fitted on a
    DataFrame shows its column names by default, and with
    ``special_characters=True`` names are escaped for HTML-like labels
    (``&amp; &lt; &gt;``) where scikit-learn writes ``\\"``, which
    Graphviz would print as such.

    Examples
    --------
    >>> from climbing_trees import DecisionTreeRegressor
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> model = DecisionTreeRegressor(max_depth=1).fit(X, [1.0, 1.0, 5.0, 5.0])
    >>> print(export_graphviz(model, feature_names=["x"]))  # doctest: +NORMALIZE_WHITESPACE
    digraph Tree {
    node [shape=box, fontname="helvetica"] ;
    edge [fontname="helvetica"] ;
    0 [label="x <= 1.5\\nsquared_error = 4.0\\nsamples = 4\\nvalue = 3.0"] ;
    1 [label="squared_error = 0.0\\nsamples = 2\\nvalue = 1.0"] ;
    0 -> 1 [labeldistance=2.5, labelangle=45, headlabel="True"] ;
    2 [label="squared_error = 0.0\\nsamples = 2\\nvalue = 5.0"] ;
    0 -> 2 [labeldistance=2.5, labelangle=-45, headlabel="False"] ;
    }
    """
    check_is_fitted(model, "tree_")
    if label not in ("all", "root", "none"):
        raise ValueError(f'label must be "all", "root" or "none", got {label!r}.')
    if max_depth is not None:
        _check_export_options(max_depth=max_depth)
    _check_export_options(precision=precision)
    tree = model.tree_
    is_classifier = hasattr(model, "classes_")
    if feature_names is not None and any(not isinstance(f, str) for f in feature_names):
        raise ValueError("All feature names must be strings.")
    names = _feature_names(
        model, feature_names, "Length of feature_names, {given} does not match number of "
        "features, {n}"
    )
    if feature_names is None and not hasattr(model, "feature_names_in_"):
        names = None  # x[0], x[1], ... as scikit-learn writes them
    if _several_outputs(model):
        class_names = None  # as scikit-learn: no class line with several outputs
    if class_names is not None and class_names is not True and class_names is not False:
        class_names = _class_names(model, class_names) if is_classifier else None
    if special_characters:
        chars = ["&#35;", "<SUB>", "</SUB>", "&le;", "<br/>", ">", "<"]
    else:
        chars = ["#", "[", "]", "<=", "\\n", '"', '"']

    def escape(text: str) -> str:
        if special_characters:  # HTML-like labels: & < > would be markup
            return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return text.replace('"', r"\"")

    def node_label(node: int, reach: np.ndarray | None) -> str:
        return _node_text(
            model, node, reach, names=names, class_names=class_names, label=label,
            impurity=impurity, node_ids=node_ids, proportion=proportion,
            precision=precision, chars=chars, escape=escape, limit=LEVELS_SHOWN,
        )  # fmt: skip

    lines = ["digraph Tree {"]
    style = ["filled"] * bool(filled) + ["rounded"] * bool(rounded)
    head = "node [shape=box"
    if style:
        head += f', style="{", ".join(style)}", color="black"'
    lines.append(head + f', fontname="{fontname}"] ;')
    if leaves_parallel:
        lines.append("graph [ranksep=equally, splines=polyline] ;")
    lines.append(f'edge [fontname="{fontname}"] ;')
    if rotate:
        lines.append("rankdir=LR ;")
    ranks: dict[str, list[str]] = {"leaves": []}
    angles = np.array([45, -45]) * ((rotate - 0.5) * -2)
    stack: list[tuple[int, int | None, int, dict]] = [(0, None, 0, {})]
    while stack:  # preorder: a node, its left subtree, then its right subtree
        node, parent, depth, masks = stack.pop()
        leaf = tree.children_left[node] == TREE_LEAF
        shown = max_depth is None or depth <= max_depth
        if shown:
            reach, left_masks, right_masks = _reach(tree, node, masks)
            if leaf:
                ranks["leaves"].append(str(node))
            else:
                ranks.setdefault(str(depth), []).append(str(node))
            line = f"{node} [label={node_label(node, reach)}"
            if filled:
                line += f', fillcolor="{_fill_color(model, node)}"'
            lines.append(line + "] ;")
        else:
            ranks["leaves"].append(str(node))
            lines.append(
                f'{node} [label="(...)"' + (', fillcolor="#C0C0C0"' if filled else "") + "] ;"
            )
        if parent is not None:
            edge = f"{parent} -> {node}"
            if parent == 0 and shown:
                if node == 1:
                    edge += f' [labeldistance=2.5, labelangle={int(angles[0])}, headlabel="True"]'
                else:
                    edge += f' [labeldistance=2.5, labelangle={int(angles[1])}, headlabel="False"]'
            lines.append(edge + " ;")
        if shown and not leaf:
            stack.append((int(tree.children_right[node]), node, depth + 1, right_masks))
            stack.append((int(tree.children_left[node]), node, depth + 1, left_masks))
    if leaves_parallel:
        for rank in sorted(ranks):
            lines.append("{rank=same ; " + "; ".join(ranks[rank]) + "} ;")
    text = "\n".join(lines) + "\n}"
    if out_file is None:
        return text
    if isinstance(out_file, str):
        with open(out_file, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        out_file.write(text)
    return None
