"""Checks on hyperparameters and inputs, with messages that say how to fix them.

Chapter 5 of the book ("Training and inference") uses the estimators that
call these checks.  Every rejected input raises ``ValueError`` or
``TypeError`` whose message names the problem and the fix; the estimators'
``fit`` validates everything before it changes the model, so a failed
``fit`` leaves a fitted model as it was.  Rejected today:

* infinity in a numerical column of ``X`` (NaN there is a missing value,
  chapter 9), NaN or infinity in ``y``;
* ``X`` that is empty, 1-D, 3-D, complex, or has duplicate column
  names, or holds datetime or timedelta columns next to numeric or categorical
  ones (unless declared categorical); text in a column declared numerical, and
  with ``categorical_features="auto"`` a column of numbers with stray text
  (:mod:`climbing_trees._categorical_encoding`); ``X`` and ``y`` of different lengths;
* a sparse ``X`` holding NaN or infinity (as scikit-learn; a sparse ``X`` is
  otherwise read as its dense equivalent, :func:`densified`);
* at predict time: another number of columns, or other column names or order;
* sample weights that are negative, NaN, infinite, complex, all zero, of the
  wrong length, or whose sum overflows;
* ``y`` with no column or with three or more dimensions (a 2-D ``y`` is
  several outputs);
* a continuous ``y`` for the classifier; a non-numeric ``y``, or
  ``|y| > 1e150``, for the regressor;
* hyperparameters outside their range (:func:`resolve_hyperparameters`):
  among them a negative or non-finite ``ccp_alpha``, ``max_leaf_nodes < 2``,
  an unknown ``missing_values``, a negative ``max_surrogates``
  and an unknown ``ccp_risk`` (the regressor has no ``ccp_risk``:
  ``set_params`` and the constructor reject it); a bad ``class_weight``,
  ``min_weight_fraction_leaf`` (:mod:`climbing_trees._weights`),
  ``max_features``, ``splitter`` or ``random_state``
  (:mod:`climbing_trees._random`).

Weights are rescaled exactly by a power of two before growing
(:func:`power_of_two_scale`), so huge (1e300) and subnormal (5e-324) weights
give the same tree as moderate ones; a weight below ``2.2e-308`` times the
largest counts as zero, and a row of weight zero takes no part in the fit.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.utils import check_array


def resolve_hyperparameters(est, n_samples: int) -> dict:
    """Check an estimator's hyperparameters and turn fractions into counts.

    ``n_samples`` is the number of rows of ``X``, rows of weight 0 included:
    scikit-learn's ``ceil(fraction * n_samples)``.

    Raises ``ValueError`` or ``TypeError`` naming the parameter, the value
    received and what is allowed.  Returns the values the builder uses.
    """
    criteria = est._valid_criteria
    if not isinstance(est.criterion, str) or est.criterion not in criteria:
        allowed = ", ".join(repr(c) for c in criteria)
        raise ValueError(
            f"criterion={est.criterion!r} is not supported by "
            f"{type(est).__name__}; use one of {allowed}."
        )
    max_depth = est.max_depth
    if max_depth is not None:
        _check_int(max_depth, "max_depth", low=1, hint="or None for no limit")
    owner = type(est).__name__
    min_samples_split = _count_or_fraction(
        est.min_samples_split, "min_samples_split", n_samples, 2, 1.0, owner
    )
    min_samples_leaf = _count_or_fraction(
        est.min_samples_leaf, "min_samples_leaf", n_samples, 1, 1.0, owner
    )
    mid = est.min_impurity_decrease
    _check_finite_nonnegative(mid, "min_impurity_decrease", "0 disables the rule")
    _check_int(est.min_samples_level, "min_samples_level", low=1, hint="(1 pools no level)")
    _check_int(
        est.max_categorical_candidates,
        "max_categorical_candidates",
        low=1,
        hint="(the number of candidate partitions the exact multiclass search may score; "
        "the default is 16384)",
    )
    missing_values = est.missing_values
    if not isinstance(missing_values, str) or missing_values not in (
        "learn",
        "surrogate",
        "fractional",
    ):
        raise ValueError(
            f"missing_values={missing_values!r} is not supported; use 'learn' (scikit-learn's "
            "learned direction), 'surrogate' (CART's surrogate splits) or 'fractional' "
            "(C4.5's fractional rows)."
        )
    _check_int(est.max_surrogates, "max_surrogates", low=0, hint="(0 keeps no surrogate)")
    max_leaf_nodes = est.max_leaf_nodes
    if max_leaf_nodes is not None:
        _check_int(max_leaf_nodes, "max_leaf_nodes", low=2, hint="or None for no limit")
    alpha = est.ccp_alpha
    _check_finite_nonnegative(
        alpha,
        "ccp_alpha",
        "0 keeps the grown tree; see cost_complexity_pruning_path for useful values",
    )
    risk = getattr(est, "ccp_risk", "impurity")  # only the classifier has ccp_risk
    if not isinstance(risk, str) or risk not in ("impurity", "misclassification"):
        raise ValueError(
            f"ccp_risk={risk!r} is not supported; use 'impurity' or 'misclassification'."
        )
    return {
        "max_leaf_nodes": max_leaf_nodes,
        "ccp_alpha": float(alpha),
        "criterion": est.criterion,
        "max_depth": max_depth,
        # scikit-learn's convention: a node that cannot give two legal leaves
        # is not worth trying to split.
        "min_samples_split": max(min_samples_split, 2 * min_samples_leaf),
        "min_samples_leaf": min_samples_leaf,
        "min_impurity_decrease": float(mid),
        "min_samples_level": int(est.min_samples_level),
        "max_categorical_candidates": int(est.max_categorical_candidates),
        "missing_values": missing_values,
        "max_surrogates": int(est.max_surrogates),
    }


def _check_finite_nonnegative(value, name: str, hint: str) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not np.isfinite(value)
        or value < 0
    ):
        raise ValueError(f"{name}={value!r} is invalid; use a finite number >= 0 ({hint}).")


def _check_int(value, name: str, low: int, hint: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        extra = f" {hint}" if hint else ""
        raise ValueError(f"{name}={value!r} is invalid; use an integer >= {low}{extra}.")


def _count_or_fraction(
    value, name: str, n_samples: int, min_int: int, frac_high: float, owner: str = "the tree"
) -> int:
    """An integer count, or a float fraction of ``n_samples`` rounded up.

    The error starts with scikit-learn's sentence (code matching its wording
    still works), then says the same in this package's words.

    >>> _count_or_fraction(1, "min_samples_split", 10, 2, 1.0, "DecisionTreeClassifier")
    Traceback (most recent call last):
    ...
    ValueError: The 'min_samples_split' parameter of DecisionTreeClassifier must be an int \
in the range [2, inf) or a float in the range (0.0, 1.0]. Got 1 instead: \
min_samples_split=1 is invalid; use an integer >= 2 or a float fraction in (0, 1].
    """
    integral = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if integral and value >= min_int:
        return int(value)
    if not integral and isinstance(value, numbers.Real) and 0.0 < value <= frac_high:
        return max(min_int, math.ceil(value * n_samples))
    raise ValueError(
        f"The {name!r} parameter of {owner} must be an int in the range [{min_int}, inf) "
        f"or a float in the range (0.0, {float(frac_high)}]. Got {value!r} instead: "
        f"{name}={value!r} is invalid; use an integer >= {min_int} or a float "
        f"fraction in (0, {frac_high:g}]."
    )


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """Validated float64 copy of ``sample_weight`` (all ones when ``None``)."""
    if sample_weight is None:
        return np.ones(n_samples)
    if isinstance(sample_weight, numbers.Real) and not isinstance(sample_weight, bool):
        return check_sample_weight(np.full(n_samples, float(sample_weight)), n_samples)
    message = "sample_weight must be an array of real numbers, one per row of X."
    try:
        w = np.asarray(sample_weight)
        if w.dtype.kind == "c":  # casting would silently drop the imaginary parts
            raise TypeError(message)
        w = np.array(w, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(message) from exc
    if w.ndim == 0:
        # scikit-learn spreads a Python number over the rows but refuses a 0-d array.
        # scikit-learn's sentence first, then how to fix it.
        raise TypeError(
            "Input should have at least 1 dimension i.e. satisfy `len(x.shape) > 0`, "
            f"got scalar `{w!r}` instead. sample_weight is a 0-d array "
            f"({sample_weight!r}); pass one weight per row, or a plain Python number to "
            "give every row the same weight."
        )
    if w.ndim != 1 or len(w) != n_samples:
        raise ValueError(
            f"sample_weight has shape {w.shape} but X has {n_samples} rows; "
            "pass one weight per row."
        )
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or infinity; use finite weights.")
    if np.any(w < 0):
        raise ValueError(
            "sample_weight contains negative values; weights must be >= 0 "
            "(drop a row instead of giving it a negative weight)."
        )
    with np.errstate(over="ignore"):
        total = w.sum()
    if not total > 0:
        raise ValueError(
            "sample_weight sums to zero, so no row counts; give at least one row a positive weight."
        )
    if not np.isfinite(total):
        raise ValueError(
            "sample_weight sums to more than the largest float; divide every weight "
            "by the same constant (only their ratios matter)."
        )
    return w


def unit_weights(n: int) -> np.ndarray:
    """Weights of 1 for ``n`` rows without an array of them: a read-only view of one
    value (stride 0), for builders that only read the weights.

    >>> w = unit_weights(3)
    >>> w.tolist(), w.strides, w.flags.writeable
    ([1.0, 1.0, 1.0], (0,), False)
    """
    return np.broadcast_to(np.float64(1.0), (n,))


def power_of_two_scale(
    sample_weight: np.ndarray, in_place: bool = False
) -> tuple[np.ndarray, float]:
    """Weights divided by a power of two that brings the largest into [1, 2).

    Only the ratios of the weights shape a tree, and dividing by a power of two
    is exact, so the tree is the same, bit for bit, as with the raw weights
    whenever those cause no overflow or underflow.  With huge weights (1e300)
    the statistics ``w * y**2`` would overflow; with subnormal ones (5e-324)
    ``w * y`` would underflow and leaf means would lose every digit.  Returns
    the scaled weights and the factor that undoes the scaling (multiply the
    tree's ``weighted_n_node_samples`` by it).  ``in_place``: scale the
    caller's own float64 array and return it (a fit's weights, no copy).

    A weight under ``2**-1022`` (about ``2.2e-308``) times the largest one
    would be subnormal after scaling, with too few digits left to make a leaf
    mean; it becomes 0, so its row counts as removed.  Next to the largest
    weight it is anyway far below the resolution of any sum of weights.

    >>> w, scale = power_of_two_scale(np.array([1e308, 3e307]))
    >>> float(w.max()) < 2.0, bool(np.all(w * scale == [1e308, 3e307]))
    (True, True)
    >>> power_of_two_scale(np.array([5e-324]))[0].tolist()
    [1.0]
    >>> power_of_two_scale(np.array([1.0, 1e-300, 1e-310]))[0].tolist()
    [1.0, 1e-300, 0.0]
    """
    _, exponent = np.frexp(sample_weight.max())  # max = m * 2**exponent, 0.5 <= m < 1
    exponent -= 1
    scaled = np.ldexp(sample_weight, -exponent, out=sample_weight if in_place else None)
    scaled[scaled < np.finfo(float).tiny] = 0.0
    return scaled, float(np.ldexp(1.0, exponent))


_TEXT_HINT = (
    "X must be numeric: encode text columns as numbers first (for example with "
    "sklearn.preprocessing.OrdinalEncoder), or list them in categorical_features."
)

#: How to fix dates or times next to other columns (scikit-learn's validation refuses
#: them next to numbers; :func:`climbing_trees.encode_categorical` next to levels).
DATES_HINT = (
    "X mixes dates or times with other columns: turn datetime columns into numbers "
    "first (for example days since a reference date)."
)

#: Fragments of scikit-learn's input-validation messages, each with the hint
#: that this package appends: scikit-learn names the problem, the hint says
#: how to fix it.  Tests assert on both halves, so a reworded message upstream
#: shows up as a test failure rather than as a silently unhelpful error.
_HINTS: tuple[tuple[str, str], ...] = (
    (
        "inconsistent numbers of samples",
        "X and y need one entry per training row: check that both were built from "
        "the same rows (same filtering, no header row or index left in one of them).",
    ),
    (
        "contains infinity or a value too large",
        "Replace infinite values by finite numbers (for example clip them with "
        "numpy.clip, or drop those rows) before fitting or predicting.",
    ),
    (
        "contains NaN",
        "Missing values are allowed in X (chapter 9) but not in y or sample_weight: "
        "drop the rows whose target is missing.",
    ),
    ("0 sample(s)", "Pass at least one row."),
    ("Expected unique column names", "Give every column of X its own name."),
    ("dim <= 2 is required", "Pass X as a table: one row per sample, one column per feature."),
    (
        "Complex data not supported",
        "Pass real numbers: for example the real and imaginary parts as two columns.",
    ),
    ("could not be promoted", DATES_HINT),
    ("0 feature(s)", "Pass at least one column (feature)."),
    ("could not convert", _TEXT_HINT),
    ("Cannot cast", _TEXT_HINT),  # a pandas ``str`` column
    ("argument must be a string or a", _TEXT_HINT),
    (
        "features as input",
        "Predict with the same columns, in the same order, as the X given to fit.",
    ),
    (
        "feature names should match",
        "Predict with a DataFrame that has the columns given to fit, in the same order.",
    ),
    (
        "y should be a 1d array",
        "Pass y as one value per row (n_samples,), or one column per output "
        "(n_samples, n_outputs).",
    ),
    (
        "Unknown label type",
        "DecisionTreeClassifier needs class labels (integers, strings, booleans); "
        "for a continuous target use DecisionTreeRegressor.",
    ),
)


@contextmanager
def explained_errors() -> Iterator[None]:
    """Re-raise scikit-learn's input errors with a hint on how to fix them.

    The exception keeps its type and its original message (so code matching
    scikit-learn's wording still works); the hint is appended after it, and
    the original exception is chained as ``__cause__``.

    It also silences numpy's overflow and invalid-value warnings inside the
    block: scikit-learn first checks that ``X`` is finite by summing it, and
    a sum of huge values of both signs (``1e308 + 1e308 - 1e308 ...``) is
    ``inf - inf``.  That fast check only decides whether to look at every
    value one by one, so the warning would be noise, not a problem in ``X``.

    >>> import numpy as np
    >>> from sklearn.utils import check_X_y
    >>> with explained_errors():
    ...     check_X_y(np.ones((3, 1)), [0, 1])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Found input variables with inconsistent numbers of samples: [3, 2] X and ...
    """
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            yield
    except (ValueError, TypeError) as exc:
        message = str(exc)
        hint = next((h for fragment, h in _HINTS if fragment in message), None)
        if hint is None or hint in message:
            raise
        try:
            explained = type(exc)(f"{message} {hint}")
        except Exception:  # an exception type with an unusual constructor
            raise exc from None
        raise explained from exc


def user_stacklevel() -> int:
    """The ``stacklevel`` at which a warning raised by the caller of this function
    points at the first frame outside the package (the user's ``predict`` line,
    however deep the ensemble's own calls go)."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def densified(X):
    """``X`` as a dense float64 array when it is a sparse matrix or array, a
    DataFrame with dense columns when it has sparse ones; else ``X``.

    The builders read dense columns, so a sparse ``X`` costs the memory of its
    dense equivalent (``8 * n_samples * n_features`` bytes). Explicit and implicit
    zeros are both zero, so the tree equals the one fitted on ``X.toarray()``.
    As in scikit-learn, a sparse ``X`` may not hold NaN (a missing value is
    written in a dense ``X``) or infinity.
    """
    if _has_sparse_columns(X):
        return _dense_columns(X)
    if not sparse.issparse(X):
        return X
    X = check_array(X, accept_sparse=["csr", "csc"], dtype=np.float64, input_name="X",
                    ensure_all_finite=False)
    values = X.data
    if np.isnan(values).any():
        raise ValueError(
            "Input X contains NaN. A sparse X may not hold missing values (as in "
            "scikit-learn); pass X.toarray() to fit with NaN as a missing value."
        )
    if not np.isfinite(values).all():
        raise ValueError(
            "Input X contains infinity or a value too large for dtype('float64'); "
            "replace it with a finite value."
        )
    return X.toarray()


def _has_sparse_columns(X) -> bool:
    """Whether ``X`` is a DataFrame with at least one pandas sparse column."""
    dtypes = getattr(X, "dtypes", None)
    return isinstance(dtypes, pd.Series) and any(
        isinstance(dtype, pd.SparseDtype) for dtype in dtypes
    )


def _dense_columns(X):
    """The DataFrame ``X`` with each sparse column made dense, names and order kept.

    A sparse column is read as scikit-learn reads it (``DataFrame.sparse.to_coo``):
    its stored values, and zero where nothing is stored.  That is the matrix a frame
    made by ``DataFrame.sparse.from_spmatrix`` came from, although pandas shows its
    fill value as NaN.  A fill value other than 0 or NaN would be read differently
    by pandas and scikit-learn, so it is refused, as a stored NaN is (a missing
    value is written in a dense column).
    """
    return X.apply(_dense_column)


def _dense_column(column):
    if not isinstance(column.dtype, pd.SparseDtype):
        return column
    array = column.array
    fill = array.fill_value
    if not (fill == 0 or (isinstance(fill, float) and math.isnan(fill))):
        raise ValueError(
            f"Column {column.name!r} of X is sparse with fill value {fill!r}; only 0 "
            f"(or NaN, read as 0 as scikit-learn does) is read. Pass "
            f"X.sparse.to_dense() to fit on the values pandas shows."
        )
    if not np.issubdtype(array.sp_values.dtype, np.number):
        raise ValueError(
            f"Column {column.name!r} of X is sparse with non-numeric values; pass "
            f"X.sparse.to_dense()."
        )
    if np.isnan(array.sp_values.astype(float)).any():
        raise ValueError(
            f"Input X contains NaN in its sparse column {column.name!r}. A sparse column "
            f"may not hold missing values (as in scikit-learn); pass X.sparse.to_dense() "
            f"to fit with NaN as a missing value."
        )
    values = np.zeros(len(column))
    values[array.sp_index.indices] = array.sp_values
    return pd.Series(values, index=column.index, name=column.name)
