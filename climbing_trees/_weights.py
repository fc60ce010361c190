"""Class weights and the weighted leaf minimum, as scikit-learn defines them.

The book's chapter "From one tree to many" uses these knobs; chapter 1
explains why a weight is a row count.  Both reach the builders as sample
weights and a weight threshold, so no split search needs to know about them:

* ``class_weight`` multiplies each row's ``sample_weight`` by its class's
  weight (:func:`expand_class_weight`), as scikit-learn's
  ``compute_sample_weight`` does;
* ``min_weight_fraction_leaf`` becomes ``min_weight_leaf``, that fraction of
  the total weight (class weights included), which every leaf must keep
  (:func:`min_weight_leaf`).
"""

from __future__ import annotations

import math
import numbers

import numpy as np


def expand_class_weight(class_weight, codes: np.ndarray, classes: np.ndarray):
    """Per-row weight factors of ``class_weight`` for class codes ``codes``.

    Parameters
    ----------
    class_weight : dict, "balanced", list of one dict, or None
        ``{label: weight}`` (classes not listed weigh 1); ``"balanced"``:
        ``n_samples / (n_classes * count_k)``, computed on every row given
        to ``fit``; or a list holding one such dict (scikit-learn's form,
        here for ``y`` with one column).  For several outputs, a list with
        one dict per output goes to :func:`expand_output_class_weights`: a
        row's factor is the product of its outputs' weights, as
        scikit-learn's ``compute_sample_weight``.
    codes : ndarray of int
        Class code (position in ``classes``) of every row.
    classes : ndarray
        The sorted class labels.

    Returns
    -------
    ndarray of shape (n_samples,) or None
        ``None`` when ``class_weight`` is ``None``.

    Examples
    --------
    >>> codes, classes = np.array([0, 0, 0, 1]), np.array(["a", "b"])
    >>> expand_class_weight("balanced", codes, classes).tolist()
    [0.6666666666666666, 0.6666666666666666, 0.6666666666666666, 2.0]
    >>> expand_class_weight({"b": 3}, codes, classes).tolist()
    [1.0, 1.0, 1.0, 3.0]
    """
    if class_weight is None:
        return None
    if isinstance(class_weight, list):
        if len(class_weight) != 1:
            raise ValueError(
                "The number of elements in class_weight should match number of outputs: "
                f"class_weight is a list of {len(class_weight)} entries but y has 1 "
                "output; pass one dict per output (here a single dict, or the dict itself)."
            )
        class_weight = class_weight[0]
        if not isinstance(class_weight, dict):
            raise ValueError(
                f"class_weight's list must hold dicts, got {type(class_weight).__name__}."
            )
    n_classes = len(classes)
    if isinstance(class_weight, str) and class_weight == "balanced":
        counts = np.bincount(codes, minlength=n_classes).astype(np.float64)
        per_class = len(codes) / (n_classes * counts)
        return per_class[codes]
    if not isinstance(class_weight, dict):
        raise ValueError(
            f"class_weight={class_weight!r} is invalid; use None, 'balanced', a dict "
            "{class label: weight}, or a list of such dicts (one per output)."
        )
    per_class = np.ones(n_classes)
    known = {label: k for k, label in enumerate(classes.tolist())}
    unknown = [label for label in class_weight if label not in known]
    if unknown:
        raise ValueError(
            f"class_weight names labels {unknown!r} that are not classes of y "
            f"(classes: {classes.tolist()!r}); use the labels of y as keys."
        )
    for label, weight in class_weight.items():
        if (
            isinstance(weight, bool)
            or not isinstance(weight, numbers.Real)
            or not np.isfinite(weight)
            or weight < 0
        ):
            raise ValueError(
                f"class_weight[{label!r}]={weight!r} is invalid; class weights must be "
                "finite numbers >= 0."
            )
        per_class[known[label]] = float(weight)
    return per_class[codes]


def expand_output_class_weights(class_weight, codes: list, classes: list):
    """Per-row factors of ``class_weight`` with one output or several.

    ``codes[k]`` and ``classes[k]`` are output ``k``'s class codes and labels.
    With several outputs ``class_weight`` is ``"balanced"`` (each output
    balanced on its own) or a list of one dict per output, and a row's factor
    is the product of its outputs' weights, as in scikit-learn's
    ``compute_sample_weight``.  Returns ``None`` when ``class_weight`` is ``None``.

    >>> codes, classes = [np.array([0, 0, 1]), np.array([0, 1, 1])], [np.array([0, 1])] * 2
    >>> expand_output_class_weights([{1: 2.0}, {0: 3.0}], codes, classes).tolist()
    [3.0, 1.0, 2.0]
    """
    if class_weight is None:
        return None
    n_outputs = len(codes)
    if n_outputs == 1:
        return expand_class_weight(class_weight, codes[0], classes[0])
    if isinstance(class_weight, str) and class_weight == "balanced":
        per_output = ["balanced"] * n_outputs
    elif isinstance(class_weight, list):
        if len(class_weight) != n_outputs:
            raise ValueError(
                "The number of elements in class_weight should match number of outputs: "
                f"class_weight is a list of {len(class_weight)} entries but y has "
                f"{n_outputs} outputs; pass one dict per output (column of y)."
            )
        per_output = class_weight
    else:
        raise ValueError(
            f"class_weight={class_weight!r} is invalid for y with {n_outputs} outputs; use "
            "None, 'balanced', or a list of one dict {class label: weight} per output."
        )
    factors = np.ones(len(codes[0]))
    for k, weights in enumerate(per_output):
        if not (isinstance(weights, dict) or class_weight == "balanced"):
            raise ValueError(
                f"class_weight[{k}]={weights!r} is invalid; each entry of the list is a "
                "dict {class label: weight} for that output."
            )
        factors = factors * expand_class_weight(weights, codes[k], classes[k])
    return factors


def check_min_weight_fraction_leaf(value) -> float:
    """``min_weight_fraction_leaf`` as a float in [0, 0.5], or a clear error."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not 0.0 <= value <= 0.5  # NaN fails this too
    ):
        raise ValueError(
            f"min_weight_fraction_leaf={value!r} is invalid; use a float in [0, 0.5] "
            "(the fraction of the total sample weight every leaf keeps; 0 disables it)."
        )
    return float(value)


def min_weight_leaf(fraction: float, sample_weight: np.ndarray) -> float:
    """The weight every leaf keeps: ``fraction`` of the total (scikit-learn's rule).

    The total is exactly rounded (``math.fsum``), so the bound does not depend
    on the order of the rows (:mod:`climbing_trees._exact_weights`).

    >>> min_weight_leaf(0.1, np.array([1.0, 3.0]))
    0.4
    """
    if fraction == 0:  # the default: no bound, and no sum to take
        return 0.0
    return float(fraction * math.fsum(np.asarray(sample_weight, dtype=float).ravel().tolist()))
