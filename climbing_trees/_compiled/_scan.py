"""The compiled searches of one node and feature: the sorted scan and a drawn threshold.

:func:`scan_sorted` is chapter 3's incremental scan, compiled: the node's
rows sorted by one feature (present values first, missing ones last), one
forward pass that moves a row at a time to the left side with scalar sums,
and at each position between two distinct values (rule 1 of
:mod:`climbing_trees._ties`) the candidates of
:mod:`climbing_trees._missing`: missing rows right (and, at the last
present row, "present left, missing right", threshold ``+inf``), then
missing rows left.  The positions allowed by ``min_samples_leaf`` come from
:func:`climbing_trees._missing.candidate_bounds` (its port
:func:`._rules.bounds`); a side without weight or lighter than
``min_weight_leaf`` is refused, on exact fixed-point sums of the weights ``q``
(:func:`climbing_trees._exact_weights.refused_sides`, its port
:func:`._rules.refused_side`).

:func:`drawn_thresholds` scores the random splitter's one candidate of each
drawn feature (:func:`climbing_trees._random.random_numeric_split`): rows with
``x <= t`` go left, missing rows to the drawn side, summed in index order.

Both offer their candidates to the near list (:mod:`._choice`), which
applies the tie rule over all of a node's candidates.
"""

from __future__ import annotations

import numpy as np

from ._choice import _counted_once, gate, near_grown, near_put
from ._prefetch import PREFETCH_AHEAD, PREFETCH_BYTES, prefetch_row
from ._rules import (
    allowed_split,
    bounds,
    jit,
    midpoint,
    missing_left_of,
    refused_side,
    tie_tolerance,
)
from ._scores import ENTROPY, GINI, POISSON, gain, gain_slack, poisson_side, xlogx


@jit
def add_row(acc, row, weight, classes, cls, offsets, phi, n_out):
    """Add one row's statistics to ``acc`` (the drawn threshold's pass; the
    sorted scan adds them in its own body)."""
    if classes:
        for o in range(n_out):
            acc[offsets[o] + cls[row, o]] += weight
    else:
        for c in range(acc.shape[0]):
            acc[c] += phi[row, c]


@jit
def scan_sorted(
    pieces, ranks, offset, size, piece_of, features, n_presents, n_searched, Xf, rs, cs, w,
    unit, classes, cls, offsets, phi, criterion, total, node, msl, q, acc, extra, near,
    count, best, cst, vy,
):  # fmt: skip
    """Offer every candidate of the features a node searches, its rows sorted by each.

    For the ``f``-th of the ``n_searched`` features, ``j = features[f]``, the
    node's ``size`` rows sorted by ``X[:, j]`` are
    ``srows = pieces[piece_of[f], offset : offset + size]``:
    ``srows[:n_presents[f]]`` sorted by it (ties in index order), the rest
    missing it.  Where ``ranks`` has the shape of ``pieces`` (the presorted
    orders), ``ranks[piece_of[f], offset + i]`` is the rank of the ``i``-th
    row's value among the feature's distinct values, and the scan compares
    those ranks, read in sequence, instead of the values, read from ``X``
    one row here and one there; ``X`` is read only for the thresholds of
    the candidates offered.  A feature's candidates are numbered in the tie-break order
    from ``j * 2 * (n_all + 1)`` (``n_all``: the fit's rows).  ``unit``: every
    weight is 1 (not read).  Returns the near list, its length and the lowest
    score seen.  ``node`` holds the node's scalars: ``(node_weight, impurity,
    constant, scale, slack, q_node, low, lower, upper, vy_total)``; the
    outputs are ``len(offsets) - 1`` and the fit's rows ``len(w)``.

    One call searches all of a node's features: each call of a compiled
    function with array arguments counts a reference to each array in and
    out (atomic operations, about 0.3 us a call here), which cost more than
    the scan itself in the many small nodes of a deep tree.  The loop calls
    no function with array arguments (each such call costs more than a
    candidate): the statistics and gains (:func:`._scores.gain`'s loop) are
    written out here, with scalar helpers only.

    Monotonic constraints (:mod:`climbing_trees._monotonic`): where ``cst[j]``
    (the feature's constraint, the builders' sign) is not 0, the scan also
    sums ``vy`` (each row's ``w y``, ``y`` the first value column), and a
    candidate whose children's values (``vy`` sums over weights; the right
    side's from the node's ``vy_total``) break the order or the node's
    bounds ``[lower, upper]`` is skipped (:func:`._rules.allowed_split`),
    before it is scored, as scikit-learn's splitter skips it.

    The call takes 29 arguments: a call of more than 30 packs them in a
    tuple, whose arrays are counted once more; the node's scalars come as
    one tuple (no reference counts).
    """
    node_weight, impurity, constant, scale, slack, q_node, low, lower, upper, vy_total = node
    n_out = offsets.shape[0] - 1
    n_all = w.shape[0]
    ranked = ranks.shape[1] > 1  # else a (1, 1) placeholder: compare the values
    far = (cls.nbytes if classes else phi.nbytes) > PREFETCH_BYTES  # (._prefetch)
    for f in range(n_searched):
        j = features[f]
        srows = pieces[piece_of[f], offset : offset + size]  # contiguous
        rank = ranks[piece_of[f] if ranked else 0]  # the same positions, when ranked
        n_present = n_presents[f]
        key_base = j * 2 * (n_all + 1)
        c_j = cst[j]
        n = srows.shape[0]
        n_missing = n - n_present
        m = acc.shape[0]
        for c in range(m):
            acc[c] = 0.0
            extra[c] = 0.0
        w_missing = 0.0
        q_missing = 0.0
        vy_missing = 0.0
        for i in range(n_present, n):
            row = srows[i]
            w_missing += w[row]
            q_missing += q[row]
            if c_j != 0:
                vy_missing += vy[row]
            add_row(extra, row, w[row], classes, cls, offsets, phi, n_out)
        lo_right, hi_right = bounds(n_present, n_missing, msl, False)
        lo_left, hi_left = bounds(n_present, n_missing, msl, True)
        last = max(hi_right, hi_left)
        first = min(lo_right, lo_left)
        floor = gate(best, impurity, constant, scale, slack)
        single_class = classes and n_out == 1
        poisson = criterion == POISSON
        entropy = criterion == ENTROPY
        w_left = 0.0
        q_left = 0.0
        vy_left = 0.0
        q_unit = q[srows[0]]  # every row's fixed-point weight, when the weights are unit
        # x: the value (or its rank) at position i; the thresholds read the values
        x_next = np.nan
        if n_present > 0:
            x_next = rank[offset] if ranked else Xf[srows[0] * rs + j * cs]
        for i in range(last + 1):
            row = srows[i]
            if far and i + PREFETCH_AHEAD < n:  # the statistics of a row to come
                if classes:
                    prefetch_row(cls, srows[i + PREFETCH_AHEAD])
                else:
                    prefetch_row(phi, srows[i + PREFETCH_AHEAD])
            weight = 1.0 if unit else w[row]
            w_left += weight
            q_left += q_unit if unit else q[row]
            if c_j != 0:
                vy_left += vy[row]
            if single_class:
                acc[cls[row, 0]] += weight
            elif classes:
                for o in range(n_out):
                    acc[offsets[o] + cls[row, o]] += weight
            else:
                for c in range(m):
                    acc[c] += phi[row, c]
            x = x_next
            if i + 1 < n_present:
                x_next = rank[offset + i + 1] if ranked else Xf[srows[i + 1] * rs + j * cs]
                distinct = x < x_next
            else:
                distinct = False
            if i < first or not (distinct or i == n_present - 1):
                continue  # (no candidate between equal values, rule 1)
            for side in range(2):  # missing rows right, then left
                if side == 0:
                    if not (lo_right <= i <= hi_right and (distinct or i == n_present - 1)):
                        continue
                    w_side = w_left
                    q_side = q_left
                    share = 0.0
                else:
                    if not (distinct and lo_left <= i <= hi_left):
                        continue
                    w_side = w_left + w_missing
                    q_side = q_left + q_missing
                    share = 1.0
                w_right = node_weight - w_side
                if refused_side(q_side, q_node - q_side, low) or not w_right > 0.0:
                    continue  # (a float side weight at or below 0: grow_tree's NaN score)
                if c_j != 0:
                    v_side = vy_left + share * vy_missing
                    value_left = v_side / w_side
                    value_right = (vy_total - v_side) / w_right
                    if not allowed_split(c_j, value_left, value_right, lower, upper):
                        continue
                g = 0.0
                if poisson:
                    for o in range(n_out):
                        s_left = acc[o] + share * extra[o]
                        t_left = acc[n_out + o] + share * extra[n_out + o]
                        p_left = acc[2 * n_out + o] + share * extra[2 * n_out + o]
                        part = poisson_side(w_side, s_left, t_left, p_left) + poisson_side(
                            w_right, total[o] - s_left, total[n_out + o] - t_left,
                            total[2 * n_out + o] - p_left,
                        )  # fmt: skip
                        if not np.isfinite(part):
                            g = -np.inf
                            break
                        g -= part
                elif entropy:
                    for c in range(m):
                        left = acc[c] + share * extra[c]
                        g += xlogx(left) + xlogx(total[c] - left)
                    g -= n_out * (xlogx(w_side) + xlogx(w_right))
                else:
                    sq_left = 0.0
                    sq_right = 0.0
                    for c in range(m):
                        left = acc[c] + share * extra[c]
                        right = total[c] - left
                        sq_left += left * left
                        sq_right += right * right
                    g = sq_left / w_side + sq_right / w_right
                if g < floor:
                    continue
                score = (constant - g) / scale
                threshold = np.inf
                if distinct:  # the values, read here (the loop may compare their ranks)
                    x_here = Xf[row * rs + j * cs]
                    threshold = midpoint(x_here, Xf[srows[i + 1] * rs + j * cs])
                if side == 0:
                    goes = missing_left_of(n_missing, False, i + 1, n)
                    key, n_left = key_base + i, i + 1
                else:
                    goes = True
                    key, n_left = key_base + n + i, i + 1 + n_missing
                if count == near.shape[0]:  # near_add's growth, then its put (uncounted)
                    near = near_grown(near)
                count, best = near_put(
                    near, count, best, impurity, slack, score, key, threshold, j, goes,
                    n_left, w_side, acc, extra, share,
                )  # fmt: skip
                floor = gate(best, impurity, constant, scale, slack)
    return near, count, best


@jit
def _side_values(rows, values, s, t, side, vy, w):
    """The values (``vy`` sums over weights) of the two sides of threshold ``t``,
    each side summed in index order: the children's own values, as
    :func:`climbing_trees._monotonic.child_values` computes them for the random
    splitter of ``grow_tree``."""
    v_left = 0.0
    w_left = 0.0
    v_right = 0.0
    w_right = 0.0
    for i in range(rows.shape[0]):
        row = rows[i]
        x = values[s, i]
        below = side if np.isnan(x) else x <= t
        if below:
            v_left += vy[row]
            w_left += w[row]
        else:
            v_right += vy[row]
            w_right += w[row]
    return v_left / w_left, v_right / w_right


@_counted_once
def drawn_thresholds(
    rows, mask, thresholds, sides, has_missing, values, slot_of, w, unit, cls, offsets, phi,
    criterion, total, node_weight, impurity, constant, scale, msl, q, q_node, low, acc, extra,
    near, cst, lower, upper, vy, shifts,
):  # fmt: skip
    """Offer the one candidate of each drawn feature under its drawn threshold.

    The drawn features are those of ``mask``, offered in increasing order,
    each with its ``thresholds[j]`` and the side drawn for its missing rows
    (``sides[j]``); ``values[slot_of[j]]`` holds its values at the node's
    rows, kept by the pass that found its range (contiguous: ``X`` is not
    read again).  One pass over the node's rows per feature, in index order
    (as ``grow_tree`` sums them), with scalar sums (regression with one
    output) or ``acc`` (classes, several statistics): a row going left adds
    its statistics and its fixed-point weight ``q``, a row going right adds
    0.0 (no branch on an unpredictable side), which leaves every sum as it
    was.  ``unit``: every weight is 1, so the weights and fixed-point weights
    sent left are the count of rows sent left times 1 and times ``q`` (exact
    sums), and with one statistic only that count and ``phi`` are summed; with
    one output of at most 16 classes, each class's count sent left is a field
    of one integer (each row's field offset written once into ``shifts``, an
    ``int32`` work array of the node's length): a sum in a register, which
    the compiler vectorises, instead of an addition to memory per row.  A
    candidate is refused when a side has fewer than ``msl`` rows, no row of
    positive weight (counted), no fixed-point weight or less than ``low``
    (:func:`._rules.refused_side`), or an infinite score
    (:func:`climbing_trees._random.threshold_scores`), and, on a feature with a
    monotonic constraint (``cst[j]``, the builders' sign), where the
    children's values break it or the node's bounds ``[lower, upper]``
    (:func:`._rules.allowed_split`; the values from :func:`_side_values`).
    ``near`` is the node's empty near list, with a row for each feature
    (a node offers at most one candidate per feature: :func:`._choice.near_put`
    never runs out of room); returns its length and the lowest score.

    Measured, the loops are written out here and the arguments are kept to
    at most 30 (it takes 30): each array passed to a compiled function costs two atomic
    reference counts, and a call of more than 30 arguments (Python's
    ``CALL_FUNCTION_EX``) packs them in a tuple, which counts every array
    again; a call per feature (a sum, a gain) cost more than a small node.
    It allocates nothing and keeps no view, so it is compiled without
    reference counts (``_nrt=False``).
    """
    n = rows.shape[0]
    m = acc.shape[0]
    n_out = offsets.shape[0] - 1
    classes = criterion == GINI or criterion == ENTROPY
    slack = gain_slack(criterion, node_weight, n_out) if classes else 0.0
    scalar = not classes and m == 1
    # Unit weights are read anyway where classes are summed: measured, the
    # compiler branches on the side there otherwise (a mispredicted branch per row).
    read_w = not (unit and scalar)
    q_unit = q[rows[0]] if n > 0 else 0.0  # every row's, when the weights are unit
    n_positive = n
    if not unit:
        n_positive = 0
        for i in range(n):
            if w[rows[i]] > 0.0:
                n_positive += 1
    count = 0
    best = np.inf
    single_class = classes and n_out == 1
    # Unit weights and one output of at most 16 classes: a row's class as bits of an
    # integer (see `packed` below), fields of `width` bits, emptied every `block` rows.
    packed = unit and single_class and 2 <= m <= 16  # as _summarise (64 // m bits)
    width = 64 // m if packed else 64
    block = (1 << width) - 1 if packed and width < 32 else 2**31
    field = (np.uint64(1) << np.uint64(width)) - np.uint64(1) if packed else np.uint64(0)
    if packed:  # each row's field, read in order by every feature's pass
        for i in range(n):
            shifts[i] = cls[rows[i], 0] * width
    for j in range(mask.shape[0]):
        if not mask[j]:
            continue
        s = slot_of[j]
        t = thresholds[j]
        side = sides[j]
        if not read_w:  # unit weights, one statistic: the count and the sum of phi
            nl = 0
            s0 = 0.0
            for i in range(n):
                x = values[s, i]
                below = side if np.isnan(x) else x <= t
                nl += 1 if below else 0
                s0 += (1.0 if below else 0.0) * phi[rows[i], 0]
            # Sums of ones and of one power of two: exact, as the counts.
            wl, ql, pl = float(nl), nl * q_unit, nl
            acc[0] = s0
        elif scalar:  # one loop per case: a loop with the others' branches runs slower
            wl = 0.0
            ql = 0.0
            nl = 0
            pl = 0
            s0 = 0.0
            for i in range(n):
                row = rows[i]
                weight = w[row]
                x = values[s, i]
                below = side if np.isnan(x) else x <= t
                b = 1.0 if below else 0.0
                nb = 1 if below else 0
                wl += b * weight
                ql += b * q[row]
                nl += nb
                pl += nb * (1 if weight > 0.0 else 0)  # no `and`: it would branch on the side
                s0 += b * phi[row, 0]
            acc[0] = s0
        elif packed:  # unit weights, one output of few classes: counts in one integer
            # Each row sent left adds 1 to its class's field of `word` (bits
            # c * width and up): a sum in a register, where acc[class] += 1.0
            # waits for the previous row's store to acc whenever the class
            # repeats.  A field counts at most 2**width - 1 rows before it is
            # emptied into acc: every count is an integer, so acc holds the same
            # sums as adding 1.0 per row (exact below 2**53).
            for c in range(m):
                acc[c] = 0.0
            nl = 0
            i = 0
            while i < n:
                stop = min(n, i + block)
                word = np.uint64(0)
                for ii in range(i, stop):
                    x = values[s, ii]
                    below = side if np.isnan(x) else x <= t
                    nl += 1 if below else 0
                    word += np.uint64(1 if below else 0) << np.uint64(shifts[ii])
                for c in range(m):
                    acc[c] += np.float64((word >> np.uint64(c * width)) & field)
                i = stop
            wl, ql, pl = float(nl), nl * q_unit, nl
        elif unit and classes:  # the weights sent left are the count times 1 and times q
            for c in range(m):
                acc[c] = 0.0
            nl = 0
            for i in range(n):
                row = rows[i]
                weight = w[row]  # 1.0, read: the compiler branches on the side otherwise
                x = values[s, i]
                below = side if np.isnan(x) else x <= t
                b = 1.0 if below else 0.0
                nl += 1 if below else 0
                if single_class:
                    acc[cls[row, 0]] += b * weight
                else:
                    for o in range(n_out):
                        acc[offsets[o] + cls[row, o]] += b * weight
            wl, ql, pl = float(nl), nl * q_unit, nl
        else:  # classes, or several statistics, into acc
            for c in range(m):
                acc[c] = 0.0
            wl = 0.0
            ql = 0.0
            nl = 0
            pl = 0
            for i in range(n):
                row = rows[i]
                weight = w[row]
                x = values[s, i]
                below = side if np.isnan(x) else x <= t
                b = 1.0 if below else 0.0
                nb = 1 if below else 0
                wl += b * weight
                ql += b * q[row]
                nl += nb
                pl += nb * (1 if weight > 0.0 else 0)
                if single_class:
                    acc[cls[row, 0]] += b * weight
                elif classes:  # written out: a call with array arguments per row costs more
                    for o in range(n_out):
                        acc[offsets[o] + cls[row, o]] += b * weight
                else:
                    for c in range(m):
                        acc[c] += b * phi[row, c]
        if nl < msl or n - nl < msl or pl == 0 or pl >= n_positive:
            continue
        w_right = node_weight - wl
        if refused_side(ql, q_node - ql, low) or not w_right > 0.0:
            continue
        if cst[j] != 0:
            value_left, value_right = _side_values(rows, values, s, t, side, vy, w)
            if not allowed_split(cst[j], value_left, value_right, lower, upper):
                continue
        if criterion == POISSON or criterion == ENTROPY:
            g = gain(criterion, acc, extra, False, total, wl, w_right, n_out)
        else:  # Gini and squared error: gain's loop, written out (no call per feature)
            sq_left = 0.0
            sq_right = 0.0
            for c in range(m):
                left = acc[c] + 0.0 * extra[c]
                right = total[c] - left
                sq_left += left * left
                sq_right += right * right
            g = sq_left / wl + sq_right / w_right
        score = (constant - g) / scale
        if not np.isfinite(score):
            continue
        if np.isfinite(best) and not score <= best + 2.0 * (tie_tolerance(impurity, best) + slack):
            continue  # near_add's own test, without its call
        goes = missing_left_of(1 if has_missing[j] else 0, side, nl, n)
        count, best = near_put(
            near, count, best, impurity, slack, score, j, t, j, goes, nl, wl, acc, extra, 0.0,
        )  # fmt: skip
    return count, best
