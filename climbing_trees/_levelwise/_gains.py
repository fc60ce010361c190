"""Scores of many candidates at once: prefix sums and gains (ties: :mod:`.._ties`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._criteria import (
    CLASSIFICATION_CRITERIA,
    impurity_from_statistics,
    n_outputs,
    output_mean,
    output_widths,
    poisson_impurity,
    total_weight,
)
from .._exact_weights import refused_sides
from .._libm import xlog2x
from .._ties import constant_features, refused_weights


def _sum_last(parts: list) -> np.ndarray:
    """``np.stack(parts, -1).sum(-1)`` with numpy's rounding, without the stack.

    numpy sums fewer than 8 numbers along the last axis from left to right;
    from 8 on it sums pairwise, so the stacked form is kept there.
    """
    if len(parts) >= 8:
        return np.stack(np.broadcast_arrays(*parts), axis=-1).sum(axis=-1)
    out = parts[0]
    for part in parts[1:]:
        out = out + part
    return out


def _impurity(parts: list, criterion: str):
    """(total weight, impurity) from statistics given column by column.

    The same operations in the same order as
    :func:`climbing_trees.impurity_from_statistics`, so the same bits (with
    several outputs, that function itself on the stacked columns).
    """
    if n_outputs(criterion) > 1:
        stats = np.stack(np.broadcast_arrays(*parts), axis=-1)
        return total_weight(stats, criterion), impurity_from_statistics(stats, criterion)
    if criterion == "squared_error":
        total, s1, s2 = parts
        mean = s1 / total
        return total, np.maximum(s2 / total - mean * mean, 0.0)
    if criterion == "poisson":
        return parts[0], poisson_impurity(*parts)
    total = _sum_last(parts)
    p = [part / total for part in parts]
    if criterion == "gini":
        return total, 1.0 - _sum_last([q**2 for q in p])
    return total, 0.0 - _sum_last([xlog2x(q) for q in p])


def _gains(left, stats, w_left, w_right, criterion):
    """Split *gains*: ``const - W_t * score`` for every candidate, bigger is better.

    Cheaper forms of the scores of :func:`climbing_trees.impurity_from_statistics`
    (chapter 11 derives them); the constant is ``W_t`` for Gini, 0 for entropy,
    the node's sum of squares for squared error, and 0 for Poisson deviance,
    whose gain is minus the score times ``W_t``.  ``left`` holds the prefix
    sums of the statistic columns (class counts; the weighted sum of centred
    targets; or, for Poisson, all columns but the weight), ``stats`` the
    node's totals.

    Several outputs average the outputs' impurities, so the same forms hold
    with the per-output sums divided by the number of outputs ``K``: Gini's
    and entropy's class terms run over every output's classes, squared
    error's over every output's centred sum (its constant is the mean of the
    outputs' sums of squares).  Poisson deviance with several outputs is
    scored as with one, by ``grow_tree``'s own formula: the mean over outputs
    of :func:`climbing_trees.impurity_from_statistics`, from every column
    but the weight.
    """
    k = n_outputs(criterion)
    if k > 1 and criterion == "poisson":
        full = [w_left, *left]
        stacked = np.stack(np.broadcast_arrays(*full), axis=-1)
        totals = np.stack(np.broadcast_arrays(*stats), axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            gain = w_left * impurity_from_statistics(stacked, criterion)
            gain += w_right * impurity_from_statistics(totals - stacked, criterion)
        # Not finite: a refused candidate (Poisson), or a padding position whose
        # side weighs a rounding error; both are refused (gain -inf).
        np.putmask(gain, ~np.isfinite(gain), np.inf)
        return np.negative(gain, out=gain)
    if criterion == "poisson":
        # No cheaper form: W_L I_L = T_L - S_L log(S_L / W_L) is a difference of
        # numbers much larger than itself in near-pure nodes, so its rounding
        # noise can exceed the tie tolerance.  The gain is then grow_tree's own
        # score (times -W_t), from the same prefix sums, so both builders see
        # the same noise and pick the same split.  A side without a positive
        # target has infinite impurity: refused.
        pairs = zip(stats[1:], left, strict=True)
        right = [np.subtract(total, part) for total, part in pairs]
        with np.errstate(invalid="ignore"):
            gain = w_left * poisson_impurity(w_left, *left)
            gain += w_right * poisson_impurity(w_right, *right)
        # NaN: a side whose sum of targets rounds to zero or below (a tiny target
        # lost in S - S_left).  grow_tree's choose_best skips such a score; so here.
        np.putmask(gain, np.isnan(gain), np.inf)
        return np.negative(gain, out=gain)
    if criterion == "squared_error":
        gain = None
        for output, s1_left in enumerate(left):  # one centred sum per output
            part = s1_left * s1_left
            part /= w_left
            s1_right = np.subtract(stats[1 + output], s1_left)
            s1_right *= s1_right
            s1_right /= w_right
            part += s1_right
            gain = part if gain is None else np.add(gain, part, out=gain)
        return output_mean(gain, criterion)
    if criterion == "gini":
        sq_left = sq_right = None
        for total, part in zip(stats, left, strict=True):
            right = np.subtract(total, part)
            right *= right
            square = part * part
            if sq_left is None:
                sq_left, sq_right = square, right
            else:
                np.add(sq_left, square, out=sq_left)
                np.add(sq_right, right, out=sq_right)
        sq_left /= w_left
        sq_right /= w_right
        sq_left += sq_right
        return output_mean(sq_left, criterion)
    # Entropy: W_L H_L = W_L log2 W_L - sum_k c_k log2 c_k (same for the right).
    w_left, w_right = np.asarray(w_left, dtype=float), np.asarray(w_right, dtype=float)
    gain = -xlog2x(w_left) - xlog2x(w_right)
    if k > 1:  # the class terms of every output, averaged
        classes = None
        for total, part in zip(stats, left, strict=True):
            term = xlog2x(part)
            term += xlog2x(np.subtract(total, part))
            classes = term if classes is None else np.add(classes, term, out=classes)
        return gain + output_mean(classes, criterion)
    for total, part in zip(stats, left, strict=True):
        gain = gain + xlog2x(part)
        gain += xlog2x(np.subtract(total, part))
    return gain


def _prefix_sums(left_idx, cols, scan, weighted, carry=None):
    """The segmented prefix sums of a block: each block row restarts at zero.

    One array per column ``cols[scan]`` over the rows ``left_idx`` (shape
    ``(c, features, positions)``), and the weights' (``cols[0]``) when
    ``weighted``, else None.  ``carry`` (the last sums of the previous
    positions, in the same form) continues a block cut into pieces: it is
    added to the first value, so the sums are added in the same order.
    """
    carried, carried_weight = carry if carry is not None else (None, None)

    def running(col, start):
        values = col.take(left_idx)
        if start is not None:
            values[..., 0] += start
        return np.cumsum(values, axis=-1)

    weights = running(cols[0], carried_weight) if weighted else None
    columns = cols[scan]
    starts = carried if carried is not None else [None] * len(columns)
    return [running(col, start) for col, start in zip(columns, starts, strict=True)], weights


@dataclass(frozen=True)
class _Totals:
    """What scoring a block's candidates reads besides its prefix sums."""

    cols: list  # every row's statistics, flat columns
    scan: slice  # the columns scanned
    unit: bool  # unit weights
    stats: np.ndarray  # the nodes' statistics, (columns, c, 1, 1)
    w_node: np.ndarray  # the nodes' weights
    criterion: str
    msl: int = 1  # min_samples_leaf (a LeafMinimum carries min_weight_leaf)


def _fixed_sides(fit, idx, n_present):
    """The fixed-point weights (:mod:`climbing_trees._exact_weights`) of the rows
    ``idx`` (``(c, f, L)``, present rows sorted, then missing, then padding):
    their prefix sums, each segment's total and its missing rows' sum.  Exact
    integers, so the same in any order or chunking.  None with unit weights
    (every row weighs 1 and ``min_weight_leaf`` is 0: no side is refused)."""
    if fit.unit:
        return None
    q_all = np.cumsum(fit.q_col.take(idx), axis=-1)
    q_total = q_all[..., -1:]
    present = np.take_along_axis(q_all, np.maximum(n_present - 1, 0)[..., None], axis=-1)
    return q_all, q_total, np.where(n_present[..., None] > 0, q_total - present, q_total)


def _block_gains(
    prefix, i, totals: _Totals, penalty, missing=None, n_missing=0, fixed=None, at=None
):
    """Gains of every candidate of a block (some of its features), -inf if refused.

    ``prefix`` holds the block's segmented prefix sums (:func:`_prefix_sums`)
    of the statistic columns scanned (``totals.scan``), each ``(c, features,
    positions)``, at the positions ``i``.  ``penalty`` is 0 where the row
    counts allow a candidate and -inf elsewhere; a side without weight, or
    lighter than ``leaf_weight(msl)`` (``min_weight_fraction_leaf``), is
    refused too.  With ``missing``, the missing rows' sums (one
    ``(c, features, 1)`` array per statistic column) and ``n_missing`` their
    count, the missing rows join every left child.  ``fixed``
    (:func:`_fixed_sides`) and ``at`` (the positions): the sides' weights in
    exact fixed point, which the refusal rule compares
    (:func:`climbing_trees._exact_weights.refused_sides`); without them (the
    histogram search), the float sums are compared.
    """
    scan, unit, stats, w_node = totals.scan, totals.unit, totals.stats, totals.w_node
    criterion, msl = totals.criterion, totals.msl
    regression = criterion not in CLASSIFICATION_CRITERIA
    left, w_left = list(prefix[0]), prefix[1]
    if unit:
        w_left = i + 1.0 + n_missing  # total weight of a prefix = its row count
    elif regression and missing is not None:
        w_left = w_left + missing[0]
    if missing is not None:
        left = [part + extra for part, extra in zip(left, missing[scan], strict=True)]
    if not regression and unit:
        # The last class's count: the prefix's rows minus the others' counts,
        # whole numbers, so any order of additions gives the same bits.
        left.append(np.broadcast_to(w_left, left[0].shape) - sum(left))
    elif not regression:  # one output's class counts (the first's) sum to the weight
        w_left = _sum_last(left[: output_widths(criterion, len(left))[0]])
    w_right = w_node - w_left
    empty = None
    if unit:
        w_right = np.maximum(w_right, 0.5)  # only refused positions are clamped
    else:
        # A side without weight is refused; give it weight 1 so no 0/0 appears.
        if fixed is not None:  # exact sums; a float side at or below 0 is refused too
            q_all, q_total, q_missing = fixed
            q_left = q_all[..., at] + (q_missing if missing is not None else 0.0)
            empty = refused_sides(q_left, q_total - q_left, msl)
            empty |= (w_left <= 0) | (w_right <= 0)
        else:
            empty = refused_weights(w_left, w_right, msl)  # min_weight_leaf too
        w_left = np.where(w_left > 0, w_left, 1.0)
        w_right = np.where(w_right > 0, w_right, 1.0)
    gains = _gains(left, stats, w_left, w_right, criterion)
    gains += penalty
    if empty is not None:
        np.putmask(gains, empty, -np.inf)
    return gains


def _run_gains(idx, ends, row_class, penalty, totals: _Totals):
    """Gains of a block of tied features, scored at the ends of runs only; or None.

    A threshold never falls inside a run of equal values, so only the
    positions ``p`` where ``x[p] < x[p + 1]`` (``ends``) are candidates.  With
    unit weights and one output's classes, the class counts of the prefix
    ending at each of them come from counting each run's rows by class (one
    ``bincount``) and summing runs: whole numbers, so exactly the row-by-row
    prefix sums.  On features with few distinct values (pixels, ratings) this
    scores a few candidates per node instead of every row.  Returns gains of
    shape ``idx.shape[:2] + (L - 1,)``, ``-inf`` off the ends, or None when
    the runs are too many for counting to pay.
    """
    c, f, L = idx.shape
    cols, scan, stats, w_node = totals.cols, totals.scan, totals.stats, totals.w_node
    n_classes = len(cols)
    run = np.zeros((c, f, L), dtype=np.intp)  # ends before each position
    np.cumsum(ends, axis=-1, out=run[:, :, 1:])
    n_ends = run[:, :, -1:]  # per (node, feature)
    first = np.cumsum(n_ends) - n_ends.ravel()  # each (node, feature)'s first run
    E = int(n_ends.sum())  # runs that end where a threshold may fall
    if 2 * E > c * f * L:  # most positions end a run: scanning every row costs less
        return None
    gains = np.full((c, f, L - 1), -np.inf)
    if E == 0:
        return gains
    # The runs of the block numbered one after the other (the rows after a
    # (node, feature)'s last end: number E, not counted), and their rows by
    # class (class n_classes: the padding row).
    number = np.where(run < n_ends, first.reshape(c, f, 1) + run, E)
    key = number * (n_classes + 1) + row_class.take(idx)
    counts = np.bincount(key.ravel(), minlength=(E + 1) * (n_classes + 1))
    running = np.zeros((n_classes + 1, E + 1), dtype=np.intp)
    np.cumsum(counts.reshape(E + 1, n_classes + 1)[:E].T, axis=1, out=running[:, 1:])
    # np.nonzero lists the ends run by run, in the numbering above.
    ci, fi, p = np.nonzero(ends)
    # A prefix's counts: the running counts minus those before its (node, feature).
    prefix = (running[:, 1:] - running[:, first[ci * f + fi]]).astype(float)
    left = [part.reshape(1, 1, E) for part in prefix[:n_classes][scan]]
    at_ends = replace(
        totals,
        stats=stats[:, ci].reshape(len(stats), 1, 1, E),
        w_node=w_node[ci].reshape(1, 1, E),
    )
    part = _block_gains(
        (left, None), p.reshape(1, 1, E), at_ends, penalty[ci, 0, p].reshape(1, 1, E)
    )
    gains[ci, fi, p] = part.ravel()
    return gains


def _refuse_equal(gains, refuse, idx, features, values) -> None:
    """Refuse (gain ``-inf``) the positions between two equal values, in place.

    ``gains`` is ``(c, f, passes, L - 1)``, ``idx`` the rows sorted by the
    ``features`` ``(c, f)`` it scores, and ``refuse`` (per (node, feature), or
    True) says where to look.
    """
    refuse = np.broadcast_to(refuse, features.shape)
    if not refuse.any():
        return
    if refuse.all():
        xs = values(idx, features[:, :, None])
        np.copyto(gains, -np.inf, where=(xs[..., :-1] >= xs[..., 1:])[:, :, None])
        return
    xs = values(idx[refuse], features[refuse][:, None])
    sub = gains[refuse]  # (groups, passes, L - 1)
    np.copyto(sub, -np.inf, where=(xs[:, :-1] >= xs[:, 1:])[:, None])
    gains[refuse] = sub


def _refuse_constant(gains, idx, features, n_present, n_missing, values) -> None:
    """Refuse (gain ``-inf``) every candidate of the (node, feature) pairs whose
    feature is constant at the node (rule 6 of :mod:`climbing_trees._ties`), in place.

    ``idx`` holds each node's rows sorted by ``features`` ``(c, f)``, its
    ``n_present`` present rows first and its ``n_missing`` missing rows next
    (then the padding), so the range is read at the ends of the present rows.
    """
    lo = values(idx[:, :, 0], features)
    last = np.take_along_axis(idx, np.maximum(n_present - 1, 0)[..., None], axis=-1)
    hi = values(last[..., 0], features)
    constant = constant_features(np.where(n_present > 0, lo, np.nan), hi, n_missing > 0)
    if constant.any():
        gains[constant] = -np.inf


def _store(winners, found, nodes, feature, threshold, score, missing_left) -> None:
    """Write the ``found`` ones of ``nodes``' winners into ``winners`` (a ``LevelSplits``)."""
    at = nodes[found]
    winners.feature[at] = feature[found]
    winners.threshold[at] = threshold[found]
    winners.score[at] = score[found]
    winners.missing_left[at] = missing_left[found]
