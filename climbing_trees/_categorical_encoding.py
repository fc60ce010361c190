"""From a table to level codes: how the estimators read categorical columns.

Chapter 6 of the book ("One-vs-rest") explains this module; the format it
produces is item 1 ("Encoding") of the data format in
:mod:`climbing_trees._categorical`.  :func:`encode_categorical` decides which
columns are categorical (``categorical_features="auto"``: a DataFrame's
``category``, ``bool``, string and ``object`` columns, an array's text, bytes,
bool and ``object`` columns, numbers stored as objects excepted), lists the
levels of each at fit and turns every level into its code, one float64
matrix for the split searches; at predict time it maps the levels seen at fit
to the same codes, and any other value to -1 with a warning
(:func:`warn_unmatched_levels`).
"""

from __future__ import annotations

import numpy as np


def _columns(X):
    """``(columns, names, is_frame)``: one 1-D object per column, or ``None`` if not 2-D."""
    if hasattr(X, "iloc") and hasattr(X, "columns"):
        return [X.iloc[:, j] for j in range(X.shape[1])], list(X.columns), True
    arr = X if isinstance(X, np.ndarray) else np.asarray(X, dtype=object)
    if arr.ndim != 2:
        return None, None, False
    return [arr[:, j] for j in range(arr.shape[1])], list(range(arr.shape[1])), False


def _is_categorical_column(column, is_frame: bool) -> bool:
    """The ``"auto"`` rule for one column.

    A DataFrame's ``category``, ``bool`` and string columns are categorical, and
    so are its ``object`` columns and an array's text, bytes, bool and ``object``
    columns, except that numbers stored as objects (with or without missing
    values) stay numerical.
    """
    import pandas as pd

    dtype = column.dtype
    if is_frame and (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(dtype)
        or (pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype))
    ):
        return True
    if dtype.kind in "bUS":
        return True
    if dtype.kind == "O":  # numbers stored as objects stay numerical
        kind = pd.api.types.infer_dtype(column, skipna=True)
        return kind not in ("integer", "floating", "mixed-integer-float")
    return False


def _looks_numeric(value) -> bool:
    """A number (not a bool), or text that reads as a finite number (``"23"``, ``" 4.5"``)."""
    import math
    import numbers

    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, numbers.Real):
        return True
    if isinstance(value, str):
        try:
            return math.isfinite(float(value))
        except ValueError:
            return False
    return False


def _check_not_numbers_with_stray_text(levels: np.ndarray, name, is_frame: bool) -> None:
    """Refuse a column that ``"auto"`` found categorical but that is numbers with stray text.

    Ages with one ``"?"`` among them would otherwise become a categorical feature
    of as many levels as ages, and predictions on clean numbers would go where
    unseen levels go; scikit-learn refuses such a column.  A column is taken for
    such when most of its distinct present values, but not all, read as numbers;
    text levels with a few numbers among them (``"blue"``, ``"1.5"``) stay
    categorical.  ``"auto"`` does not guess further: the message says how to
    make the column numbers or to declare it categorical.
    """
    import pandas as pd

    present = [v for v in levels if not pd.isna(v)]
    numeric = [v for v in present if _looks_numeric(v)]
    other = [v for v in present if not _looks_numeric(v)]
    if not other or len(numeric) <= len(other):
        return
    where = f"X[{name!r}]" if is_frame else f"X[:, {name}]"
    raise ValueError(
        f"Column {name!r} of X holds numbers ({', '.join(map(repr, numeric[:3]))}"
        f"{', ...' if len(numeric) > 3 else ''}) and some other values "
        f"({', '.join(map(repr, other[:3]))}{', ...' if len(other) > 3 else ''}), so "
        'categorical_features="auto" cannot tell whether it is numerical or categorical. '
        "If it is numerical, make its values numbers (for example "
        f"pandas.to_numeric({where}, errors='coerce') turns {other[0]!r} into a missing "
        "value); otherwise list it in categorical_features to treat it as categorical."
    )


def _kind_of_level(value) -> str:
    """The kind of a level, as the warnings of :func:`warn_unmatched_levels` name it."""
    import numbers

    if isinstance(value, (bool, np.bool_)):
        return "booleans"
    if isinstance(value, numbers.Number):
        return "numbers"
    if isinstance(value, (str, bytes)):
        return "text"
    return type(value).__name__


def warn_unmatched_levels(name, values: np.ndarray, codes: np.ndarray, levels) -> None:
    """Warn when a column's values at predict cannot be the levels seen at fit.

    Unseen levels are allowed (they go to the heavier child), but two cases are
    almost always a mistake that would otherwise pass in silence: values of
    another kind than every fitted level (the integer codes 0, 1, 2 of text
    levels, or text for numeric levels), and a column of two or more present
    values none of which matches a fitted level (one row of a new level is the
    ordinary unseen level).  Missing values are left out of both checks.  The
    warning points at the first line outside the package (the user's call).
    """
    import warnings

    import pandas as pd

    from ._validation import user_stacklevel

    unseen = codes < 0
    if not unseen.any():
        return
    present = ~pd.isna(values)
    unseen &= present
    if not unseen.any():
        return
    fitted = [v for v in levels if not pd.isna(v)]
    shown = ", ".join(map(repr, fitted[:5])) + (", ..." if len(fitted) > 5 else "")
    try:
        new = pd.unique(pd.Series(values[unseen], dtype=object)).tolist()
    except TypeError:  # unhashable values: their kinds still tell
        new = list(values[unseen])
    kinds = {_kind_of_level(v) for v in fitted}
    strange = [v for v in new if _kind_of_level(v) not in kinds]
    if strange:
        kind = _kind_of_level(strange[0])
        message = (
            f"Column {name!r} holds {kind} (for example {strange[0]!r}) where fit saw "
            f"{' and '.join(sorted(kinds))} as levels ({shown}): such values match no level "
            "and go where unseen levels go. Predict with the levels themselves (not, "
            "for example, their codes)."
        )
    elif unseen.sum() == present.sum() >= 2:
        message = (
            f"No value of column {name!r} matches a level seen at fit ({shown}; here for "
            f"example {new[0]!r}): every row goes where unseen levels go. Check the "
            "column's values (spelling, type) against the model's categories_."
        )
    else:
        return
    warnings.warn(message, UserWarning, stacklevel=user_stacklevel())


def resolve_categorical_features(categorical_features, columns, names, is_frame) -> np.ndarray:
    """Boolean mask of the categorical columns from the ``categorical_features`` parameter."""
    n = len(columns)
    if isinstance(categorical_features, str) and categorical_features == "auto":
        return np.array([_is_categorical_column(c, is_frame) for c in columns], dtype=bool)
    if categorical_features is None:
        return np.zeros(n, dtype=bool)
    items = list(np.asarray(categorical_features, dtype=object).ravel())
    if items and all(isinstance(v, (bool, np.bool_)) for v in items):
        if len(items) != n:
            raise ValueError(
                f"categorical_features is a boolean mask of length {len(items)} but X has "
                f"{n} columns; pass one True/False per column."
            )
        return np.array(items, dtype=bool)
    mask = np.zeros(n, dtype=bool)
    for item in items:
        if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
            if not -n <= item < n:
                allowed = f"use indices 0 to {n - 1}" if n else "pass categorical_features=None"
                raise ValueError(
                    f"categorical_features contains the index {item}, but X has {n} "
                    f"column{'' if n == 1 else 's'}; {allowed}."
                )
            mask[item] = True
        elif is_frame and item in names:
            mask[names.index(item)] = True
        else:
            where = "a column of X" if is_frame else "usable: X has no column names"
            raise ValueError(
                f"categorical_features contains {item!r}, which is not {where}; pass "
                '"auto", None, a boolean mask, column indices, or DataFrame column names.'
            )
    return mask


def _levels_of(column, values: np.ndarray) -> np.ndarray:
    """Observed levels, sorted when possible (a pandas category keeps its order).

    Missing values (``values`` holds them as ``nan``) are one more level, the last.
    """
    import pandas as pd

    missing = pd.isna(values)
    if missing.any():
        column = column[~missing] if isinstance(column, pd.Series) else None
        levels = _levels_of(column, values[~missing])
        return np.append(levels, np.array([np.nan], dtype=object))

    try:
        observed = pd.unique(pd.Series(values, dtype=object))
    except TypeError as exc:
        raise TypeError(
            f"{exc}: a categorical level must be hashable; each argument must be a string, "
            "a number or another hashable value."
        ) from exc
    if isinstance(getattr(column, "dtype", None), pd.CategoricalDtype):
        seen = set(observed.tolist())
        levels = [c for c in column.cat.categories if c in seen]
    else:
        try:
            levels = sorted(observed.tolist())
        except TypeError:  # mixed types such as 1 and "a": keep the order of appearance
            levels = observed.tolist()
    out = np.empty(len(levels), dtype=object)
    out[:] = levels
    return out


def _categorical_values(column, name) -> np.ndarray:
    import pandas as pd

    values = np.asarray(column, dtype=object)
    missing = pd.isna(values)
    if missing.any():  # NaN, None, pd.NA, NaT: one missing level, written nan
        values = values.copy()
        values[missing] = np.nan
    return values


def _numerical_values(column, name) -> np.ndarray:
    import pandas as pd

    dtype = getattr(column, "dtype", None)
    if getattr(dtype, "kind", None) in ("M", "m"):
        # numpy would turn them into nanoseconds; scikit-learn refuses dates next to
        # numbers (and next to text), so they are refused here too, whatever else X holds.
        from ._validation import DATES_HINT

        raise TypeError(
            f"Column {name!r} of X holds dates or times ({dtype}). {DATES_HINT} Or list "
            "the column in categorical_features to treat each date as a level."
        )
    try:
        if getattr(dtype, "kind", None) == "O":  # numbers as objects: None, pd.NA are NaN
            values = np.asarray(column, dtype=object)
            missing = pd.isna(values)
            if missing.any():
                values = values.copy()
                values[missing] = np.nan
            return values.astype(float)
        return np.asarray(column, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"Column {name!r} of X is not numeric ({exc}); list it in categorical_features "
            '(or leave categorical_features="auto" on a DataFrame) to treat it as categorical.'
        ) from exc


def encode_categorical(X, categorical_features="auto", categories=None):
    """Replace the levels of categorical columns by integer codes (as floats).

    At fit (``categories=None``) the categorical columns are found from
    ``categorical_features`` and their levels recorded; at predict pass the
    ``categories`` list returned at fit, and levels not seen then get code -1.
    Returns ``(X_encoded, is_categorical, categories)``: ``X_encoded`` is a
    float DataFrame (same columns and index) when ``X`` was a DataFrame, a
    float array otherwise; ``categories[j]`` is the array of levels of column
    ``j``, or ``None`` for a numerical column.  Without any categorical
    column ``X`` is returned unchanged: the numerical path is untouched.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        The features, categorical columns holding any hashable levels.
    categorical_features : "auto", None, array-like of bool, int or str
        Which columns are categorical (the estimators' parameter): ``"auto"``
        (category, bool, text and object columns, except numbers stored as
        objects), ``None`` (none), a mask, column indices or column names.
    categories : list, optional
        The third result of a call at fit; ``None`` at fit.

    Returns
    -------
    X_encoded : DataFrame or ndarray
        ``X`` with level codes (floats) in its categorical columns.
    is_categorical : ndarray of bool of shape (n_features,) or None
        Which columns are categorical; ``None`` when ``X`` is not 2-D.
    categories : list of (ndarray or None)
        The levels of each categorical column (sorted where they can be; a
        pandas category keeps its order; missing values last), ``None`` for
        a numerical one.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"size": [1.0, 2.0, 3.0], "island": ["Dream", "Biscoe", "Dream"]})
    >>> codes, is_cat, categories = encode_categorical(X)
    >>> codes["island"].tolist(), is_cat.tolist(), categories[1].tolist()
    ([1.0, 0.0, 1.0], [False, True], ['Biscoe', 'Dream'])
    >>> new = pd.DataFrame({"size": [1.0], "island": ["Torgersen"]})
    >>> encode_categorical(new, categories=categories)[0]["island"].tolist()
    [-1.0]
    """
    import pandas as pd

    shape = getattr(X, "shape", None)
    if (
        categories is not None
        and all(c is None for c in categories)
        and shape is not None
        and len(shape) == 2
        and shape[1] == len(categories)
    ):
        # Nothing was categorical at fit: X goes on unchanged, as below, without
        # first reading it column by column.  (Another shape takes the path below,
        # which tells it apart with a mask of None.)
        return X, np.zeros(len(categories), dtype=bool), categories
    columns, names, is_frame = _columns(X)
    if columns is None:
        return X, None, None
    fitting = categories is None
    auto = isinstance(categorical_features, str) and categorical_features == "auto"
    if fitting:
        mask = resolve_categorical_features(categorical_features, columns, names, is_frame)
        categories = [None] * len(columns)
    else:
        if len(categories) != len(columns):
            return X, None, categories  # validate_data reports the wrong column count
        mask = np.array([c is not None for c in categories], dtype=bool)
    if not mask.any():
        return X, mask, categories
    out = np.empty((len(columns[0]) if columns else 0, len(columns)))
    for j, (column, name) in enumerate(zip(columns, names, strict=True)):
        if not mask[j]:
            out[:, j] = _numerical_values(column, name)
            continue
        values = _categorical_values(column, name)
        if fitting:
            categories[j] = _levels_of(column, values)
            dtype = column.dtype
            if auto and not (
                isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype)
            ):
                _check_not_numbers_with_stray_text(categories[j], name, is_frame)
        out[:, j] = pd.Index(categories[j], dtype=object).get_indexer(values)
        if not fitting:
            warn_unmatched_levels(name, values, out[:, j], categories[j])
    if is_frame:
        out = pd.DataFrame(out, columns=X.columns, index=X.index)
    return out, mask, categories
