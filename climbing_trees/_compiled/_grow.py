"""The compiled depth-first builder: :func:`grow_tree_compiled`.

One compiled loop (:func:`_grow_nodes`) pops a node, summarises its rows,
stores it (ids in depth-first preorder, left child first, as
:func:`climbing_trees.grow_tree` numbers them), searches it and partitions
its rows.  The rows of every node are one contiguous piece of ``rows``,
kept in index order by stable partitions, which is the order in which
``grow_tree`` sums them.

Two ways to search a node's features (chosen once per fit, by measurement;
see :func:`presorts`):

- *presorted*: every feature's rows are sorted once at the root
  (``order[j]``, stable, NaN last) and each split partitions every feature's
  piece stably, so a node's piece of ``order[j]`` is its rows sorted by
  feature ``j`` and no feature is sorted again (chapter 11's orders); with
  ``max_features``, the small subtrees stop partitioning them and sort their
  few searched features instead, by insertion, into the same pieces
  (:func:`_switch_size`);
- *sorted per node*: each searched feature's rows are sorted at the node
  (:func:`_sorted_rows`: by counting where its values are small integers).
  This wins when a node searches few of many features (``max_features``):
  the presorted orders would move every feature's rows at every split.

The random splitter sorts nothing: one drawn threshold per feature
(:func:`._scan.drawn_threshold`).
"""

from __future__ import annotations

import numba
import numpy as np

from .._criteria import (
    CLASSIFICATION_CRITERIA,
    n_outputs,
    output_widths,
    value_by_output,
)
from .._exact_weights import fixed_leaf_weight, fixed_weights, leaf_minimum
from .._growth import check_training_rows
from .._levelwise._nodes import _lazy_empty
from .._levelwise._orders import _in_place  # X read in place, one flat type for both orders
from .._monotonic import builder_constraints, check_constrained_fit
from .._random import FEATURES, MISSING, THRESHOLDS, RandomSplits
from .._tree import TREE_LEAF, TREE_UNDEFINED, Tree
from ._absolute import ABSOLUTE_ERROR, absolute_scan, absolute_summary, absolute_workspace
from ._choice import (
    FEATURE,
    MISSING_LEFT,
    N_LEFT,
    SCORE,
    THRESHOLD,
    near_empty,
    near_rescore,
    near_winner,
)
from ._rules import (
    child_bounds,
    child_key,
    clip_value_row,
    enough_decrease,
    jit,
    narrow_range,
    random_threshold,
    uniform,
)
from ._scan import drawn_thresholds, scan_sorted
from ._scores import (
    CRITERION_CODES,
    POISSON,
    SQUARED_ERROR,
    class_impurity,
    gain_slack,
    score_constants,
)
from ._support import compiled_refusal

_ONE = np.uint64(1)
#: :func:`_sort_pairs` sorts pieces of at most this many rows by insertion, stably.
INSERTION_RUN = 16

#: For functions that allocate nothing and call no function with array arguments,
#: and whose views do not outlive them: compiled without numba's reference counts
#: (NRT), which count each array argument up at the call and down at the return,
#: two atomic operations per array and call.
_counted_once = numba.njit(cache=True, nogil=True, _nrt=False)


def grow_tree_compiled(
    X: np.ndarray,
    Y: np.ndarray,
    sample_weight: np.ndarray,
    *,
    criterion: str,
    max_depth: int | None = None,
    min_samples_split: int = 2,
    min_samples_leaf: int = 1,
    min_impurity_decrease: float = 0.0,
    min_weight_leaf: float = 0.0,
    random_splits: RandomSplits | None = None,
    is_categorical: np.ndarray | None = None,
    missing_values: str = "learn",
    presort: bool | None = None,
    monotonic_cst: np.ndarray | None = None,
    forest_rows=None,
    **ignored,
) -> Tree:
    """Grow a tree depth first in compiled code; the result equals :func:`grow_tree`'s.

    Parameters
    ----------
    X, Y, sample_weight, criterion, max_depth, min_samples_split, \
    min_samples_leaf, min_impurity_decrease, min_weight_leaf, random_splits
        As in :func:`climbing_trees.grow_tree`.  ``Y`` holds one-hot labels
        (one block per output) for classification.
    is_categorical, missing_values
        Only numerical features with ``missing_values="learn"`` are grown
        here (:func:`compiled_refusal` says what is not).
    presort : bool or None
        Search with presorted orders (``True``) or sort each searched feature
        at each node (``False``); ``None`` chooses (:func:`presorts`).
    monotonic_cst : ndarray of int of shape (n_features,), optional
        Monotonic constraints, as in :func:`climbing_trees.grow_tree`
        (:mod:`climbing_trees._monotonic`): the scans skip the candidates that
        break them (:func:`._rules.allowed_split`), the bounds pass down the
        stack (:func:`._rules.child_bounds`) and every value is clipped to its
        node's (:func:`._rules.clip_value_row`).
    forest_rows : climbing_trees._compiled._tables.TreeRows, optional
        What a forest found once for all its trees, for the rows of ``X``
        (:class:`._tables.ForestRows`): the presorted orders, used where this
        fit presorts, and the class codes of ``Y``; the same tree as without.
    ignored
        Options of the other builders that change nothing here
        (``n_categories``, ``categorical_split``, ``min_samples_level``,
        ``max_categorical_candidates``).

    Returns
    -------
    Tree
        Node for node :func:`climbing_trees.grow_tree`'s tree: structure,
        features, thresholds and missing sides bit for bit, values,
        impurities and weights to rounding.

    Examples
    --------
    >>> from climbing_trees import grow_tree
    >>> X = np.array([[0.0, 3.0], [1.0, 2.0], [2.0, 1.0], [3.0, 0.0]])
    >>> Y = np.array([[1.0], [1.0], [5.0], [7.0]])
    >>> fast = grow_tree_compiled(X, Y, np.ones(4), criterion="squared_error")
    >>> slow = grow_tree(X, Y, np.ones(4), criterion="squared_error")
    >>> fast.threshold.tolist() == slow.threshold.tolist()
    True
    """
    unknown = set(ignored) - {
        "n_categories", "categorical_split", "min_samples_level", "max_categorical_candidates",
    }  # fmt: skip
    if unknown:
        raise TypeError(f"grow_tree_compiled got unexpected options {sorted(unknown)}.")
    refusal = compiled_refusal(
        criterion, is_categorical, random_splits, missing_values, monotonic_cst
    )
    if refusal is not None:
        raise ValueError(refusal)
    check_training_rows(X)
    classes = criterion in CLASSIFICATION_CRITERIA
    constrained, cst = monotonic_cst is not None, None
    if constrained:  # the checks and the sign of grow_tree (climbing_trees._monotonic)
        from .._growth import default_split_search

        checked = check_constrained_fit(
            monotonic_cst, criterion, Y, is_categorical, missing_values,
            default_split_search(criterion), X.shape[1],
        )  # fmt: skip
        constrained = checked is not None and bool(np.any(checked))
        if constrained:
            cst = builder_constraints(checked.astype(np.int64), classes)
    X, Xf, row_step, column_step = _in_place(X)
    n, d = X.shape
    if n >= 2**31 - 1:
        raise ValueError(f"X has {n} rows; grow_tree_compiled takes fewer than 2**31 - 1.")
    Y = np.ascontiguousarray(Y, dtype=float)
    w = np.ascontiguousarray(sample_weight, dtype=float)
    # Weights compared with bounds are summed in exact fixed point (_exact_weights).
    leaf = leaf_minimum(min_samples_leaf, min_weight_leaf, w)
    q = _lazy_empty(len(w), float)  # a memory map, as the orders (_presorted)
    q[:] = fixed_weights(w, leaf)
    absolute = str(criterion) == "absolute_error"  # medians: ._absolute
    code = ABSOLUTE_ERROR if absolute else CRITERION_CODES[str(criterion)]
    k = n_outputs(criterion)
    # Each row's w y (y: the first value column), whose sums give a node's value
    # (climbing_trees._monotonic.value_statistics); read only under constraints.
    vy = w * Y[:, 0] if constrained else np.zeros(1)
    cst = cst if constrained else np.zeros(X.shape[1], dtype=np.int64)
    if classes:
        widths = output_widths(criterion, Y.shape[1])
        offsets = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
        if forest_rows is None:
            cls = _class_codes(Y, offsets)
        else:  # found (and checked) once for the forest
            cls = _checked_shape(forest_rows.class_codes(offsets), (n, len(widths)))
        phi = np.zeros((1, 1))
        n_stats = Y.shape[1]
    else:
        offsets = np.zeros(k + 1, dtype=np.int64)
        cls = np.zeros((1, 1), dtype=np.int32)
        if code == POISSON:
            phi = _poisson_statistics(Y, w)
            n_stats = 3 * k
        else:
            # Centred at each node's mean; a memory map, as the orders (_presorted).
            phi = _lazy_empty((1 if absolute else n, k), float)
            phi.fill(0.0)
            n_stats = k
    if presort is None:
        presort = presorts(n, d, random_splits)
    order = ranks = np.zeros((1, 1), dtype=np.int32)
    if presort and (random_splits is None or random_splits.splitter == "best"):
        if forest_rows is None:
            order, ranks = _presorted(X, Xf, row_step, column_step)
        else:  # the forest's orders and ranks, cut down to this tree's rows
            order, ranks = forest_rows.orders()
            order, ranks = _checked_shape(order, (d, n)), _checked_shape(ranks, (d, n))
    else:
        presort = False
    randomness = random_splits is not None
    nodes = _grow_nodes(
        Xf, row_step, column_step, n, d, code, k, classes, cls, offsets, Y, w, phi, n_stats,
        -1 if max_depth is None else int(max_depth), int(min_samples_split),
        int(min_samples_leaf), q, fixed_leaf_weight(leaf), float(min_impurity_decrease),
        randomness, random_splits.max_features if randomness else d,
        randomness and random_splits.splitter == "random",
        np.uint64(random_splits.key if randomness else 0), bool(presort), order, ranks,
        _switch_size(d, random_splits),
        bool(np.all(w == 1.0)), constrained, cst, vy, absolute_workspace(n, k, absolute),
    )  # fmt: skip
    left, right, feature, threshold, value, impurity, n_node, w_node, missing_left = nodes
    return Tree(
        children_left=left,
        children_right=right,
        feature=feature,
        threshold=threshold,
        value=value_by_output(value, criterion),
        impurity=impurity,
        n_node_samples=n_node,
        weighted_n_node_samples=w_node,
        missing_go_to_left=missing_left,
    )


def presorts(n: int, d: int, random_splits: RandomSplits | None) -> bool:
    """Whether to search with presorted orders rather than sorting at each node.

    Presorted orders cost every feature's partition at every split, worth it
    when the nodes search most features; when a node searches fewer than a
    sixth of them (``max_features``), sorting the drawn ones at each node
    costs less.  Measured (CPU time, medians of 5 on a shared 2-core
    machine), presorted (small subtrees sorting, :func:`_switch_size`)
    against sorted per node: 20,000 x 8 regression with 2 features drawn,
    94 against 132 ms; 20,000 x 20 classification, 4 drawn, 100 against
    113 ms; digits (64 features), 8 drawn, 7.3 against 3.0 ms (medians of
    15; its pixels sorted by counting); 20,000 x 100 regression, 10 drawn,
    621 against 642 ms (about even).  The random splitter sorts nothing.
    """
    if random_splits is None:
        return True
    return random_splits.splitter == "best" and d <= 6 * random_splits.max_features


def _switch_size(d: int, random_splits: RandomSplits | None) -> int:
    """The child size at or below which a presorted fit stops partitioning its orders.

    Where a node searches fewer features than there are (``max_features``),
    a split whose children both have at most :data:`INSERTION_RUN` rows
    leaves the orders as they are, and its subtree sorts each searched
    feature at each node: by insertion, stable, so the sorted rows are the
    node's pieces of the presorted orders, row for row (the same tree), and
    sorting the few searched features costs less than partitioning every
    feature's order.  Measured on 20,000 x 8 regression, 2 features drawn:
    94.9 against 98.6 ms; 20,000 x 20 classification, 4 drawn: 101.8
    against 104.5 ms.  Where every feature is searched the partitions cost
    less (20,000 x 8 regression: 188 ms partitioning down to the leaves, 203
    switching at 16 rows): 0, never.
    """
    if random_splits is not None and random_splits.max_features < d:
        return INSERTION_RUN
    return 0


def _checked_shape(array: np.ndarray, shape: tuple) -> np.ndarray:
    """``array`` (int32, C order) if it has ``shape``; an error naming both if not."""
    if array.shape != shape or array.dtype != np.int32 or not array.flags.c_contiguous:
        raise ValueError(
            f"forest_rows gave a {array.dtype} array of shape {array.shape}, not the C-ordered "
            f"int32 array of shape {shape} this fit reads: pass the part of the forest's "
            "rows for this tree's rows (ForestRows.for_tree)."
        )
    return array


def _class_codes(Y: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each row's class in each output's block of one-hot ``Y``; an error if not one-hot."""
    cls = np.empty((len(Y), len(offsets) - 1), dtype=np.int32)
    if not _one_hot_codes(Y, offsets, cls):
        raise ValueError(
            "grow_tree_compiled needs one-hot labels for classification (one 1.0 per "
            "row in each output's columns); grow this tree with grow_tree instead."
        )
    return cls


@jit
def _one_hot_codes(Y, offsets, cls):
    """Write each row's class in each output's block of ``Y`` into ``cls``; False
    unless every block of every row holds one 1.0 and zeros elsewhere (a forest
    checks its labels once per tree: one pass, no temporary arrays)."""
    for i in range(Y.shape[0]):
        for o in range(offsets.shape[0] - 1):
            code = -1
            for c in range(offsets[o], offsets[o + 1]):
                y = Y[i, c]
                if y == 1.0 and code < 0:
                    code = c - offsets[o]
                elif y != 0.0:
                    return False
            if code < 0:
                return False
            cls[i, o] = code
    return True


def _poisson_statistics(Y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per row: ``w y``, ``w y ln y`` and ``[y > 0 and w > 0]`` of each output
    (:func:`climbing_trees._criteria.node_statistics`'s Poisson columns)."""
    from .._criteria import _xlogy

    wc = w[:, None]
    positive = ((Y > 0) & (wc > 0)).astype(float)
    return np.ascontiguousarray(np.hstack([wc * Y, wc * _xlogy(Y, Y), positive]))


def _presorted(X: np.ndarray, Xf, rs, cs) -> tuple[np.ndarray, np.ndarray]:
    """Every feature's rows by increasing value (stable, NaN last), ``(d, n)`` int32,
    and beside them the ranks of their values (:func:`_value_ranks`).

    A feature of small integers (pixels, counts, ratings) is sorted as int16,
    which numpy's stable sort orders by radix, in a few passes: the same
    order, as the values are the same (digits' 64 features: 1.1 ms against
    3.3 ms).  Any other feature is sorted by :func:`_radix_order` (1,000,000
    x 8 regression: 0.35 s against 1.1 s for numpy's stable argsort).
    """
    n, d = X.shape
    # Memory maps (from 1 MiB on): all of it goes back to the system when the fit
    # drops them, whatever malloc would have kept (the tree's tables come next).
    order = _lazy_empty((d, n), np.int32)
    ranks = _lazy_empty((d, n), np.int32)
    for j in range(d):
        column = X[:, j]
        small = None
        with np.errstate(invalid="ignore"):  # NaN and inf cast to anything: compared below
            if np.array_equal(column[:64], column[:64].astype(np.int16)):  # a cheap look
                small = column.astype(np.int16)
        if small is not None and np.array_equal(small, column):  # no NaN, fraction, large
            order[j] = np.argsort(small, kind="stable")
            _value_ranks(order[j], Xf, rs, cs, j, ranks[j])
        else:
            _radix_order(Xf, rs, cs, j, order[j], ranks[j])
    return order, ranks


@_counted_once
def _value_ranks(order, Xf, rs, cs, j, ranks):
    """``ranks[i]``: how many distinct values of feature ``j`` lie below the value
    of row ``order[i]`` (``order``: the rows sorted by it; NaN: its last present
    value's rank, never read).

    Partitioned with the orders, a node's piece of ``ranks[j]`` is the ranks of
    its rows sorted by feature ``j``, in sequence: where two neighbours differ
    (``x < x_next``, rule 1 of :mod:`climbing_trees._ties`) is where their ranks
    do, and :func:`._scan.scan_sorted` reads them there instead of ``X``'s values,
    one row here and one there (1,000,000 x 8 regression: a fifth less time).
    """
    n = order.shape[0]
    rank = 0
    previous = Xf[order[0] * rs + j * cs] if n > 0 else 0.0
    for i in range(n):
        x = Xf[order[i] * rs + j * cs]
        if previous < x:
            rank += 1
        ranks[i] = rank
        previous = x


#: :func:`_radix_order` sorts by this many bits of the keys at a pass.
RADIX_BITS = 11


@jit
def _radix_order(Xf, rs, cs, j, order, ranks):
    """Feature ``j``'s rows by increasing value into ``order``, stable, NaN last (numpy's
    stable argsort's order), and their values' ranks into ``ranks`` (:func:`_value_ranks`;
    a NaN row's rank here is one above every present value's, never read).

    A least-significant-digit radix sort of 64-bit keys that order as the values
    do: the bits of each value, the sign bit flipped for positive values and
    every bit for negative ones; ``-0.0`` as ``0.0`` (equal: their rows stay in
    index order, as numpy keeps them) and every NaN as the largest key.  Each
    pass sorts stably by :data:`RADIX_BITS` of them, from the lowest; a pass
    where every key has the same digit is skipped (float32 values have 29 zero
    bits at the bottom).  Equal keys are equal values, so the ranks count the
    changes of key along the sorted keys.  Between passes the rows move from
    ``order`` to ``ranks`` and back (``ranks``: another array of ``order``'s
    dtype), which are written last: no array of ``n`` rows of their own.
    """
    n = order.shape[0]
    if n == 0:
        return
    keys = np.empty(n)
    for i in range(n):
        x = Xf[i * rs + j * cs]
        keys[i] = 0.0 if x == 0.0 else x  # -0.0 as 0.0
    bits = keys.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    for i in range(n):
        b = bits[i]
        if np.isnan(keys[i]):
            bits[i] = ~np.uint64(0)
        elif b & sign:
            bits[i] = ~b
        else:
            bits[i] = b | sign
    width = 1 << RADIX_BITS
    mask = np.uint64(width - 1)
    n_passes = (64 + RADIX_BITS - 1) // RADIX_BITS
    counts = np.zeros((n_passes, width), dtype=np.int64)  # every pass's, in one read
    for i in range(n):
        b = bits[i]
        for p in range(n_passes):
            counts[p, (b >> np.uint64(p * RADIX_BITS)) & mask] += 1
    rows = order
    rows_to = ranks
    for i in range(n):
        rows[i] = i
    moved = False  # whether the rows are in ranks
    bits_to = np.empty(n, dtype=np.uint64)
    for p in range(n_passes):
        shift = np.uint64(p * RADIX_BITS)
        count = counts[p]
        if count[(bits[0] >> shift) & mask] == n:
            continue  # one digit for every key: nothing moves
        total = 0
        for v in range(width):  # where each digit's keys start
            c = count[v]
            count[v] = total
            total += c
        for i in range(n):
            b = bits[i]
            v = (b >> shift) & mask
            at = count[v]
            count[v] = at + 1
            bits_to[at] = b
            rows_to[at] = rows[i]
        bits, bits_to = bits_to, bits
        rows, rows_to = rows_to, rows
        moved = not moved
    rank = 0
    for i in range(n):
        if i > 0 and bits[i] != bits[i - 1]:
            rank += 1
        if moved:
            order[i] = ranks[i]  # (ranks[i] is read before it is written)
        ranks[i] = rank


@_counted_once
def _draw(
    key, d, max_features, rows, Xf, rs, cs, lo, hi, missing, known, mask, u, taken, values,
    slot_of, keep, inherited, order,
):  # fmt: skip
    """The features a node searches (:func:`climbing_trees._random.draw_features`).

    Ranges are computed only for the features the rule looks at: the first
    ``max_features`` in the order of the draws, and further ones only while
    every feature looked at is constant.  Fills ``mask`` (and the ranges).
    The order of the draws is :func:`climbing_trees._random.draw_order`'s
    (increasing draw, ties by feature): each next feature is the smallest
    draw, and the first ``max_features`` are picked in one pass over the
    draws (an insertion into a short sorted list), the next ones only when
    needed: no sort of all features and no allocation (``u``, ``taken`` and
    ``order`` are work arrays of length ``d``).  With ``keep``,
    the values of each searched feature ``j`` stay in ``values[slot_of[j]]``
    (at most ``min(max_features, d)`` rows: a node searches no more);
    without, ``values`` has one row, overwritten.

    ``inherited`` has bit ``j`` set when feature ``j`` was found constant at
    an ancestor (``d <= 64``): constant there, it is constant on these rows
    (fewer rows, no wider range, no missing value appears), so its range is
    not computed again, as scikit-learn's splitters pass their constant
    features down.  Returns the bits of this node's constant features.
    """
    slot = 0
    track = d <= 64
    constants = inherited
    for j in range(d):
        known[j] = False
        mask[j] = False
    # The first max_features in the order of the draws, in that order, in one pass:
    # order[:k] holds the k smallest draws so far (a later feature passes an equal
    # draw only if it is smaller, so ties keep the lower feature first).  Every
    # feature, in order, when max_features >= d (no draw).
    k = 0
    for j in range(d if max_features < d else 0):
        u[j] = uniform(key, FEATURES, j)
        taken[j] = False
        if k < max_features or u[j] < u[order[k - 1]]:
            if k < max_features:
                k += 1
            i = k - 1
            while i > 0 and u[j] < u[order[i - 1]]:
                order[i] = order[i - 1]
                i -= 1
            order[i] = j
    if max_features >= d:
        k = d
        for j in range(d):
            order[j] = j
    for i in range(k):
        taken[order[i]] = True
    found = False
    for r in range(d):
        if r < k:
            j = order[r]
        else:  # every drawn feature was constant: the next smallest draw, when needed
            j = -1
            for jj in range(d):
                if not taken[jj] and (j < 0 or u[jj] < u[j]):
                    j = jj
            taken[j] = True
        if r >= max_features and found:
            break
        if track and constants & (_ONE << np.uint64(j)):
            continue  # constant at an ancestor
        # The range, written out (a call per feature costs more than a small node):
        # the smallest and largest present value, NaN bounds when none is present.
        lo_j = np.inf
        hi_j = -np.inf
        missing_j = False
        # Without a branch: a NaN fails both comparisons, and an equal value
        # keeps the first one seen (-0.0 or 0.0), as min and max do.
        for i in range(rows.shape[0]):
            x = Xf[rows[i] * rs + j * cs]
            values[slot, i] = x
            missing_j |= np.isnan(x)
            lo_j = x if x < lo_j else lo_j
            hi_j = x if x > hi_j else hi_j
        if lo_j > hi_j:
            lo_j, hi_j = np.nan, np.nan
        lo[j], hi[j], missing[j] = lo_j, hi_j, missing_j
        known[j] = True
        constant = np.isnan(lo[j]) or (narrow_range(lo[j], hi[j]) and not missing[j])
        if track and constant:
            constants |= _ONE << np.uint64(j)
        if not constant:
            mask[j] = True
            slot_of[j] = slot
            if keep:
                slot += 1
            found = True
            if r >= max_features:  # every drawn feature was constant: the first after them
                break
    return constants


@_counted_once
def _sorted_rows(rows, j, Xf, rs, cs, out, values, stack, counts, spare):
    """``rows`` with feature ``j`` present, sorted by it (ties in the order of ``rows``
    where counted or within :data:`INSERTION_RUN`, else as :func:`_sort_pairs` leaves
    them: only the rounding of sums over equal values can differ, which the tie
    rule's tolerance absorbs), then
    the missing ones; returns how many are present.  ``stack``: :func:`_sort_pairs`'s.

    Where the present values are integers spanning fewer values than there are
    rows (pixels, counts, ratings), a counting sort orders them: a count per
    value, then each row to its value's next place, in index order: stable,
    a pass per step instead of :func:`_sort_pairs`' passes per level.
    ``counts`` (int32, at least ``len(rows) + 1``) and ``spare`` (int32, at
    least ``len(rows)``) are its work arrays.
    """
    n = rows.shape[0]
    n_present = 0
    n_missing = 0
    lo = np.inf
    hi = -np.inf
    for i in range(n):
        x = Xf[rows[i] * rs + j * cs]
        if np.isnan(x):
            n_missing += 1
            out[n - n_missing] = rows[i]
        else:
            values[n_present] = x
            out[n_present] = rows[i]
            n_present += 1
            lo = min(lo, x)
            hi = max(hi, x)
    # the missing rows were written backwards: restore their index order
    a, b = n_present, n - 1
    while a < b:
        out[a], out[b] = out[b], out[a]
        a += 1
        b -= 1
    if n_present > INSERTION_RUN and hi - lo < n_present and np.floor(lo) == lo:
        if _counting_sort(values, out, n_present, lo, int(hi - lo) + 1, counts, spare):
            return n_present
    _sort_pairs(values, out, 0, n_present, stack)
    return n_present


@_counted_once
def _counting_sort(values, rows, n, lo, span, counts, spare):
    """Stable sort of ``rows[:n]`` by ``values[:n]``, integers from ``lo`` (an
    integer) spanning ``span`` values; False, ``rows`` untouched, where a value
    is not an integer.  ``values`` are left as they are (unsorted)."""
    for k in range(span + 1):
        counts[k] = 0
    for i in range(n):
        x = values[i]
        k = int(x - lo)
        if k + lo != x:  # not an integer (x - lo in [0, span): k is x's place)
            return False
        counts[k + 1] += 1
    for k in range(span):  # counts[k]: the first place of value lo + k
        counts[k + 1] += counts[k]
    for i in range(n):
        spare[i] = rows[i]
    for i in range(n):
        k = int(values[i] - lo)
        rows[counts[k]] = spare[i]
        counts[k] += 1
    return True


@_counted_once
def _sort_pairs(values, rows, start, stop, stack):
    """Sort ``values[start:stop]`` with ``rows`` alongside, in place.

    Quicksort with three-way partitions (runs of equal values, common in
    real features, are done in one pass; the median of three is the pivot;
    the smaller part first, so the stack stays logarithmic) down to runs of
    :data:`INSERTION_RUN`, then insertion sort (stable): no allocation.
    Above that, equal values may leave their
    index order: only the order of additions of tied rows changes, by
    rounding, which the tie rule's tolerance absorbs (the tests compare
    these trees with the presorted ones and grow_tree's).  ``stack``: room for
    the pending parts, ``(64, 2)`` intp (64 exceeds the depth, at most
    log2 of the rows), passed in: no allocation and no reference counts.
    """
    stack[0, 0], stack[0, 1] = start, stop
    top = 1
    while top > 0:
        top -= 1
        lo, hi = stack[top, 0], stack[top, 1]
        while hi - lo > INSERTION_RUN:
            a, b, c = values[lo], values[(lo + hi) // 2], values[hi - 1]
            pivot = max(min(a, b), min(max(a, b), c))  # the median of three
            lt, i, gt = lo, lo, hi
            while i < gt:
                v = values[i]
                if v < pivot:  # swap i and lt (written out: no call per element)
                    values[i], values[lt] = values[lt], v
                    rows[i], rows[lt] = rows[lt], rows[i]
                    lt += 1
                    i += 1
                elif v > pivot:  # swap i and gt - 1
                    gt -= 1
                    values[i], values[gt] = values[gt], v
                    rows[i], rows[gt] = rows[gt], rows[i]
                else:
                    i += 1
            # [lo, lt) below the pivot, [lt, gt) equal to it, [gt, hi) above
            if lt - lo < hi - gt:  # keep the larger part, go on with the smaller
                stack[top, 0], stack[top, 1] = gt, hi
                hi = lt
            else:
                stack[top, 0], stack[top, 1] = lo, lt
                lo = gt
            top += 1
        for a in range(lo + 1, hi):
            v, r = values[a], rows[a]
            b = a
            while b > lo and values[b - 1] > v:
                values[b] = values[b - 1]
                rows[b] = rows[b - 1]
                b -= 1
            values[b], rows[b] = v, r


@_counted_once
def _partition(piece, goes_left, buffer):
    """Stable partition of ``piece`` (row ids): rows going left first; returns their count."""
    n_left = 0
    n_right = 0
    for i in range(piece.shape[0]):
        row = piece[i]
        if goes_left[row]:
            piece[n_left] = row
            n_left += 1
        else:
            buffer[n_right] = row
            n_right += 1
    for i in range(n_right):  # a loop: a slice assignment may allocate (NRT)
        piece[n_left + i] = buffer[i]
    return n_left


@_counted_once
def _partition_ranked(piece, rank, goes_left, buffer):
    """:func:`_partition` of a piece of an order (``piece``) and, alongside, of its
    ranks (``rank``); ``buffer``: room for both, ``(2, n)`` int32."""
    n_left = 0
    n_right = 0
    for i in range(piece.shape[0]):
        row = piece[i]
        r = rank[i]
        if goes_left[row]:
            piece[n_left] = row
            rank[n_left] = r
            n_left += 1
        else:
            buffer[0, n_right] = row
            buffer[1, n_right] = r
            n_right += 1
    for i in range(n_right):
        piece[n_left + i] = buffer[0, i]
        rank[n_left + i] = buffer[1, i]
    return n_left


@_counted_once
def _partition_kept(piece, values, slot, t, missing_left, buffer):
    """:func:`_partition` of ``piece`` by threshold ``t`` of the feature whose values
    (in the order of ``piece``) are ``values[slot]``: rows with ``x <= t`` left,
    missing ones to ``missing_left``'s side; returns the count sent left."""
    n_left = 0
    n_right = 0
    # Without a branch on the side (mispredicted half the time in a large node):
    # each row is written to both places, and one count moves on.  piece[n_left]
    # is a row already read (n_left <= i).
    for i in range(piece.shape[0]):
        row = piece[i]
        x = values[slot, i]
        left = 1 if (missing_left if np.isnan(x) else x <= t) else 0
        piece[n_left] = row
        buffer[n_right] = row
        n_left += left
        n_right += 1 - left
    for i in range(n_right):  # a loop: a slice assignment may allocate (NRT)
        piece[n_left + i] = buffer[i]
    return n_left


@_counted_once
def _summarise(rows, criterion, classes, cls, offsets, Y, w, unit, phi, n_out, total, value):
    """A node's weight, impurity, purity, score constants and value (into ``value``).

    As :func:`climbing_trees.grow_tree` computes them: sums in index order;
    squared error centres the targets at the node's mean (at the constant
    where a column is constant over the rows of positive weight,
    :func:`climbing_trees._criteria.centring_means`) and writes each row's
    centred ``w y`` into ``phi``.  ``unit``: every weight is 1.
    """
    n = rows.shape[0]
    m = total.shape[0]
    for c in range(m):
        total[c] = 0.0
    node_weight = 0.0
    if unit:  # the same sum: n ones added in any order are n
        node_weight = float(n)
    else:
        for i in range(n):
            node_weight += w[rows[i]]
    if classes:
        if unit and n_out == 1 and 2 <= m <= 16:
            # Each row adds 1 to its class's field of one integer (64 // m bits),
            # emptied into total every 2**width - 1 rows: the counts are integers,
            # the same sums as adding 1.0 per row (as ._scan.drawn_thresholds
            # counts the rows sent left), without an addition to memory per row.
            width = 64 // m
            block = (1 << width) - 1 if width < 32 else n
            field = (_ONE << np.uint64(width)) - _ONE
            i = 0
            while i < n:
                stop = min(n, i + block)
                word = np.uint64(0)
                for ii in range(i, stop):
                    word += _ONE << np.uint64(cls[rows[ii], 0] * width)
                for c in range(m):
                    total[c] += np.float64((word >> np.uint64(c * width)) & field)
                i = stop
        else:
            for i in range(n):
                row = rows[i]
                for o in range(n_out):
                    total[offsets[o] + cls[row, o]] += w[row]
        positive = 0
        for c in range(m):
            value[c] = total[c] / node_weight
            if total[c] > 0.0:
                positive += 1
        impurity = class_impurity(criterion, total, offsets, n_out)
        constant, scale = score_constants(criterion, total, node_weight, n_out, 0.0)
        return node_weight, impurity, positive <= n_out, constant, scale
    pure = True
    impurity = 0.0
    s2_all = 0.0
    for o in range(n_out):
        s = 0.0
        lo = np.inf
        hi = -np.inf
        for i in range(n):
            row = rows[i]
            s += w[row] * Y[row, o]
            if w[row] > 0.0:
                lo = min(lo, Y[row, o])
                hi = max(hi, Y[row, o])
        mean = s / node_weight
        value[o] = mean
        if lo < hi:
            pure = False
        if criterion == SQUARED_ERROR:
            centre = lo if lo == hi else mean
            s1 = 0.0
            s2 = 0.0
            for i in range(n):
                row = rows[i]
                wy = w[row] * (Y[row, o] - centre)
                phi[row, o] = wy
                s1 += wy
                s2 += wy * (Y[row, o] - centre)
            total[o] = s1
            s2_all += s2
            impurity += max(s2 / node_weight - (s1 / node_weight) ** 2, 0.0)
        else:  # Poisson: the statistics are fixed by row
            t = 0.0
            p = 0.0
            s = 0.0
            for i in range(n):
                row = rows[i]
                s += phi[row, o]
                t += phi[row, n_out + o]
                p += phi[row, 2 * n_out + o]
            total[o], total[n_out + o], total[2 * n_out + o] = s, t, p
            if p > 0.0:
                impurity += max((t - s * np.log(s / node_weight)) / node_weight, 0.0)
            else:
                impurity += np.inf
    impurity /= n_out
    constant, scale = score_constants(criterion, total, node_weight, n_out, s2_all)
    return node_weight, impurity, pure, constant, scale


@_counted_once
def _mean(rows, vy, w, unit):
    """The value (first column) of a node of ``rows``, as :func:`_summarise` computes
    it: ``w y`` summed in index order, over the weight."""
    s = 0.0
    for i in range(rows.shape[0]):
        s += vy[rows[i]]
    if unit:
        return s / rows.shape[0]
    weight = 0.0
    for i in range(rows.shape[0]):
        weight += w[rows[i]]
    return s / weight


@jit
def _grow_nodes(
    Xf, rs, cs, n, d, criterion, n_out, classes, cls, offsets, Y, w, phi, n_stats,
    max_depth, min_samples_split, msl, q, low, mid, randomness, max_features,
    random_splitter, root_key, presorted, order, ranks, switch, unit, constrained, cst, vy,
    absolute,
):  # fmt: skip
    """The depth-first loop; returns the tree's arrays (see the module docstring).

    ``constrained``: monotonic constraints ``cst`` (per feature, the builders'
    sign), with ``vy`` each row's ``w y``; each stack entry then carries its
    node's bounds (rules 2 and 3 of :mod:`climbing_trees._monotonic`).
    ``absolute``: the work arrays of absolute error (:mod:`._absolute`).
    ``order`` and ``ranks``: the presorted orders and their values' ranks
    (:func:`_presorted`), partitioned together.
    """
    n_values = offsets[n_out] if classes else n_out
    capacity = 2 * (n // max(msl, 1)) - 1
    if capacity < 1:
        capacity = 1
    if 0 <= max_depth < 40:
        capacity = min(capacity, 2 ** (max_depth + 1) - 1)
    # The nodes' arrays, room for the most nodes these rows can make: each node
    # writes its own entries, so the pages of the room it does not take are never
    # touched (never resident); the tree gets copies of the first ``count``.
    left = np.empty(capacity, dtype=np.intp)
    right = np.empty(capacity, dtype=np.intp)
    feature = np.empty(capacity, dtype=np.intp)
    threshold = np.empty(capacity)
    value = np.empty((capacity, n_values))
    impurity = np.empty(capacity)
    n_node = np.empty(capacity, dtype=np.intp)
    w_node = np.empty(capacity)
    missing_left = np.empty(capacity, dtype=np.bool_)
    W = 0.0
    for i in range(n):
        W += w[i]
    rows = np.empty(n, dtype=np.int32)
    for i in range(n):
        rows[i] = i
    goes_left = np.zeros(n, dtype=np.bool_)
    pair_buffer = np.empty((2, n if presorted else 1), dtype=np.int32)  # _partition_ranked's
    # The other partitions' room: the first row of _partition_ranked's where it has one
    # (the two are never used at once).
    buffer = pair_buffer[0] if presorted else np.empty(n, dtype=np.int32)
    unranked = np.zeros((1, 1), dtype=np.int32)  # scan_sorted's ranks where a node sorts
    # A node's rows sorted by each feature it searches, where it sorts them itself
    # (at most min(max_features, d) features: a node searches no more).
    sorting = not presorted or switch > 0
    srows = np.empty((min(max_features, d) if sorting else 1, n if sorting else 1), dtype=np.int32)
    sort_stack = np.empty((64, 2), dtype=np.intp)  # _sort_pairs' pending parts
    counts = np.empty(n + 1 if sorting else 1, dtype=np.int32)  # _counting_sort's
    spare = np.empty(n if sorting else 1, dtype=np.int32)
    searched = np.empty(d, dtype=np.intp)  # the features scanned at a node, their pieces
    piece_of = np.empty(d, dtype=np.intp)
    n_presents = np.empty(d, dtype=np.intp)
    values = np.empty(n)
    total = np.empty(n_stats)
    acc = np.empty(n_stats)
    extra = np.zeros(n_stats)
    lo = np.empty(d)
    hi = np.empty(d)
    has_missing = np.zeros(d, dtype=np.bool_)
    known = np.zeros(d, dtype=np.bool_)
    mask = np.ones(d, dtype=np.bool_)
    u_draws = np.empty(d)  # a node's draws of the features, and which are taken
    # The random splitter's values of each searched feature at a node (see _draw).
    kept = np.empty((min(max_features, d) if random_splitter else 1, n))
    slot_of = np.zeros(d, dtype=np.intp)
    taken = np.zeros(d, dtype=np.bool_)
    draw_order = np.empty(d, dtype=np.intp)
    t_drawn = np.empty(d)  # the random splitter's thresholds and missing sides
    s_drawn = np.zeros(d, dtype=np.bool_)
    near = near_empty(n_stats)
    if random_splitter and near.shape[0] < d:  # a row per feature (drawn_thresholds)
        near = np.empty((d, near.shape[1]))
    right_stats = np.empty(n_stats)
    # The stack: start, stop, depth, parent, is-left, key.
    stack_size = n + 2 if max_depth < 0 else min(n, max_depth) + 2
    s_start = np.empty(stack_size, dtype=np.intp)
    s_stop = np.empty(stack_size, dtype=np.intp)
    s_depth = np.empty(stack_size, dtype=np.intp)
    s_parent = np.empty(stack_size, dtype=np.intp)
    s_left = np.empty(stack_size, dtype=np.bool_)
    s_key = np.empty(stack_size, dtype=np.uint64)
    s_constants = np.zeros(stack_size, dtype=np.uint64)
    s_ordered = np.zeros(stack_size, dtype=np.bool_)  # the node's pieces of order hold
    s_lower = np.full(stack_size, -np.inf)  # the nodes' bounds (monotonic constraints)
    s_upper = np.full(stack_size, np.inf)
    s_start[0], s_stop[0], s_depth[0], s_parent[0], s_left[0] = 0, n, 0, -1, True
    s_key[0] = root_key
    s_constants[0] = 0
    s_ordered[0] = presorted
    top = 1
    count = 0
    while top > 0:
        top -= 1
        start, stop, depth = s_start[top], s_stop[top], s_depth[top]
        parent, is_left, key = s_parent[top], s_left[top], s_key[top]
        constants = s_constants[top]  # the features constant at an ancestor (_draw)
        lower, upper = s_lower[top], s_upper[top]
        ordered = s_ordered[top]
        node = count
        count += 1
        left[node] = right[node] = TREE_LEAF  # a leaf until it splits
        feature[node] = TREE_UNDEFINED
        threshold[node] = TREE_UNDEFINED
        missing_left[node] = False
        if parent >= 0:
            if is_left:
                left[parent] = node
            else:
                right[parent] = node
        here = rows[start:stop]
        size = stop - start
        if criterion == ABSOLUTE_ERROR:  # medians, ranks and shifted targets
            node_weight, node_impurity, pure = absolute_summary(
                here, Y, w, unit, n_out, value[node], values, absolute
            )
            constant, scale = 0.0, 1.0
        else:
            node_weight, node_impurity, pure, constant, scale = _summarise(
                here, criterion, classes, cls, offsets, Y, w, unit, phi, n_out, total,
                value[node],
            )  # fmt: skip
        vy_total = 0.0
        if constrained:
            for i in range(size):
                vy_total += vy[here[i]]
            # Rule 3: the value within the bounds (a classifier's two proportions).
            clip_value_row(value[node], lower, upper, classes)
        impurity[node] = node_impurity
        n_node[node] = size
        w_node[node] = node_weight
        q_node = 0.0  # exact (fixed point): any order gives the same sum
        if unit:  # every row's q is the same integer; size * q is exact (below 2**53)
            q_node = size * q[here[0]]
        else:
            for i in range(size):
                q_node += q[here[i]]
        if (
            (max_depth >= 0 and depth >= max_depth)
            or size < min_samples_split
            or size < 2 * msl
            or q_node < 2.0 * low
            or pure
        ):
            continue
        if randomness:
            constants = _draw(
                key, d, max_features, here, Xf, rs, cs, lo, hi, has_missing, known, mask,
                u_draws, taken, kept, slot_of, random_splitter, constants, draw_order,
            )  # fmt: skip
        n_near = 0
        best = np.inf
        slack = gain_slack(criterion, node_weight, n_out) if classes else 0.0
        if random_splitter:
            for j in range(d):
                if mask[j]:
                    t_drawn[j] = random_threshold(uniform(key, THRESHOLDS, j), lo[j], hi[j])
                    # missing_sides: the coin where the present values differ, else
                    # right (every present row goes left of the threshold lo).  Drawn
                    # only where a row misses the feature: elsewhere no row reads it.
                    s_drawn[j] = has_missing[j] and uniform(key, MISSING, j) < 0.5 and lo[j] < hi[j]
            n_near, best = drawn_thresholds(
                here, mask, t_drawn, s_drawn, has_missing, kept, slot_of, w, unit, cls, offsets,
                phi, criterion, total, node_weight, node_impurity, constant, scale, msl, q,
                q_node, low, acc, extra, near, cst, lower, upper, vy, buffer,
            )  # fmt: skip
        n_searched = 0
        for j in range(d):
            if random_splitter or not mask[j]:
                continue
            if ordered:
                piece = order[j, start:stop]
                n_present = size
                while n_present > 0 and np.isnan(Xf[piece[n_present - 1] * rs + j * cs]):
                    n_present -= 1
            else:
                piece = srows[n_searched, :size]
                n_present = _sorted_rows(
                    here, j, Xf, rs, cs, piece, values, sort_stack, counts, spare
                )
            if n_present == 0:
                continue
            first_x = Xf[piece[0] * rs + j * cs]
            if n_present == size and narrow_range(first_x, Xf[piece[size - 1] * rs + j * cs]):
                continue  # constant (rule 6 of _ties) and none missing: no candidate
            if criterion == ABSOLUTE_ERROR:  # a feature at a time (medians: ._absolute)
                near, n_near, best = absolute_scan(
                    piece, n_present, j, Xf, rs, cs, w, unit, n_out, absolute[0], absolute[1],
                    msl, q, low, node_impurity, j * 2 * (n + 1), near, n_near, best, extra,
                    absolute,
                )  # fmt: skip
                continue
            searched[n_searched] = j
            piece_of[n_searched] = j if ordered else n_searched
            n_presents[n_searched] = n_present
            n_searched += 1
        if n_searched > 0:  # one call for all the features (see scan_sorted)
            pieces, piece_ranks, offset = (order, ranks, start) if ordered else (srows, unranked, 0)
            scalars = (
                node_weight, node_impurity, constant, scale, slack, q_node, low, lower,
                upper, vy_total,
            )  # fmt: skip
            near, n_near, best = scan_sorted(
                pieces, piece_ranks, offset, size, piece_of, searched, n_presents, n_searched, Xf,
                rs, cs, w, unit, classes, cls, offsets, phi, criterion, total, scalars, msl, q,
                acc, extra, near, n_near, best, cst, vy,
            )  # fmt: skip
        if classes and n_near > 0:  # the numbers grow_tree compares (see _choice)
            best = near_rescore(
                near, n_near, total, node_weight, offsets, n_out, criterion, right_stats
            )
        winner = near_winner(near, n_near, best, node_impurity)
        if winner < 0:
            continue
        score = near[winner, SCORE]
        if not enough_decrease(node_weight, W, node_impurity, score, mid):
            continue
        f = int(near[winner, FEATURE])
        t = near[winner, THRESHOLD]
        to_left = near[winner, MISSING_LEFT] > 0.5
        feature[node] = f
        threshold[node] = t
        missing_left[node] = to_left
        if random_splitter:  # the winner's values are kept (_draw): route as they are read
            n_left = _partition_kept(here, kept, slot_of[f], t, to_left, buffer)
        else:
            for i in range(size):
                row = here[i]
                x = Xf[row * rs + f * cs]
                goes_left[row] = to_left if np.isnan(x) else x <= t
            n_left = _partition(here, goes_left, buffer)
        if n_left != int(near[winner, N_LEFT]) or n_left == 0 or n_left == size:
            raise RuntimeError("grow_tree_compiled routed rows unlike its search: a bug.")
        # The orders are partitioned while a child is larger than switch; below,
        # the subtree sorts at each node by insertion (the same pieces: _switch_size).
        ordered = ordered and max(n_left, size - n_left) > switch
        if ordered:
            for jj in range(d):
                _partition_ranked(
                    order[jj, start:stop], ranks[jj, start:stop], goes_left, pair_buffer
                )
        # Rule 2: the children's bounds, from their own values (before clipping).
        left_lower, left_upper, right_lower, right_upper = lower, upper, lower, upper
        if constrained and cst[f] != 0:
            left_lower, left_upper, right_lower, right_upper = child_bounds(
                cst[f], lower, upper, _mean(here[:n_left], vy, w, unit),
                _mean(here[n_left:], vy, w, unit),
            )  # fmt: skip
        # Push the right child first, so that the left one is numbered next.
        if top + 2 > stack_size:
            raise RuntimeError("grow_tree_compiled's stack overflowed: a bug.")
        s_start[top], s_stop[top], s_depth[top] = start + n_left, stop, depth + 1
        s_parent[top], s_left[top] = node, False
        s_key[top] = child_key(key, False)
        s_constants[top] = constants
        s_ordered[top] = ordered
        s_lower[top], s_upper[top] = right_lower, right_upper
        top += 1
        s_start[top], s_stop[top], s_depth[top] = start, start + n_left, depth + 1
        s_parent[top], s_left[top] = node, True
        s_key[top] = child_key(key, True)
        s_constants[top] = constants
        s_ordered[top] = ordered
        s_lower[top], s_upper[top] = left_lower, left_upper
        top += 1
    return (
        left[:count].copy(),
        right[:count].copy(),
        feature[:count].copy(),
        threshold[:count].copy(),
        value[:count].copy(),
        impurity[:count].copy(),
        n_node[:count].copy(),
        w_node[:count].copy(),
        missing_left[:count].copy(),
    )
