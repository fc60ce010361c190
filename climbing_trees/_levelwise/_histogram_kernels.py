"""The compiled loops of the histogram search (``splitter="hist"``).

Each is plain Python over arrays, compiled by numba, and mirrors a numpy
version that the tests compare it with: :func:`_route_rows` the routing of
:func:`climbing_trees._levelwise._grow._routes`, :func:`_partition_index` the
stable partition of :func:`climbing_trees._levelwise._orders._partition`
(:func:`_route_partition` both in one pass),
:func:`_squared_kernel` the squared-error level summaries of
:func:`climbing_trees._levelwise._state._regression_summaries` (the same
additions in the same order), :func:`_squared_scan` the numpy gains and choice
of :meth:`~climbing_trees._levelwise._histogram_search.Histograms.gains`;
:func:`_class_scan` (classification) scores as the compiled exact builder does.
"""

from __future__ import annotations

import numba
import numpy as np

from .._compiled._choice import KEY, SCORE, gate, near_add, near_empty, near_rescore, near_winner
from .._compiled._rules import bounds, refused_side  # candidate_bounds, compiled once
from .._compiled._scores import gain, gain_slack, score_constants
from .._criteria import impurity_from_statistics


@numba.njit(cache=True, nogil=True)
def _route_rows(index_rows, starts, sizes, split, column, cut, missing_left, codes, missing_bin):
    """The rows of the split nodes (in index order), their nodes and which way each goes,
    from the binned codes: :func:`~climbing_trees._levelwise._grow._routes`' result for
    numerical splits, in one pass.

    A row of split node ``k`` goes left when its code of feature ``column[k]``
    is at most ``cut[k]``, and where it is missing (``missing_bin``) when
    ``missing_left[k]``; :meth:`BinnedRows.routes` chooses ``cut`` so that this is
    ``x <= threshold`` for every row (:func:`code_cuts`).
    """
    m = 0
    for k in range(sizes.size):
        if split[k]:
            m += sizes[k]
    kept_rows = np.empty(m, dtype=index_rows.dtype)
    kept_node = np.empty(m, dtype=index_rows.dtype)  # a node number fits a row number's type
    go_left = np.empty(m, dtype=np.bool_)
    p = 0
    for k in range(sizes.size):
        if not split[k]:
            continue
        j, c, missing = column[k], cut[k], missing_left[k]
        for q in range(starts[k], starts[k] + sizes[k]):
            r = index_rows[q]
            b = codes[r, j]
            kept_rows[p] = r
            kept_node[p] = k
            go_left[p] = missing if b == missing_bin else b <= c
            p += 1
    return kept_rows, kept_node, go_left


@numba.njit(cache=True, nogil=True)
def _partition_index(index, kept_rows, kept_node, go_left, n_nodes):
    """Stable partition of the level's rows: the kept rows going left, then those going
    right, each in their order; the padding row follows them.  Returns each node's rows
    sent left.

    ``kept_rows`` are the rows of the split nodes in index order (as
    :func:`_route_rows` and ``_routes`` list them), so the result is the
    partition of :func:`climbing_trees._levelwise._orders._partition`: the
    left children in their parents' order, then the right children.
    """
    n_left = np.zeros(n_nodes, dtype=np.intp)
    rights = np.empty(kept_rows.size, dtype=index.dtype)
    left, right = 0, 0
    for p in range(kept_rows.size):  # no branch: a row is written to both, kept by one
        r, g = kept_rows[p], np.intp(go_left[p])
        index[left] = r
        rights[right] = r
        left += g
        right += 1 - g
        n_left[kept_node[p]] += g
    index[left : left + right] = rights[:right]
    index[left + right] = index.size - 1
    return n_left


@numba.njit(cache=True, nogil=True)
def _route_partition(index, starts, sizes, split, column, cut, missing_left, codes, missing_bin):
    """:func:`_route_rows` and :func:`_partition_index` in one pass over the level's rows
    ``index[:starts[-1] + sizes[-1]]``, without a list of the routed rows: the
    same partition, in place, and each node's rows sent left.

    A row that goes left is written back at the next left position (never
    after the position being read); one that goes right waits in a buffer of
    the split nodes' rows, copied after the left ones.
    """
    m = 0
    for k in range(sizes.size):
        if split[k]:
            m += sizes[k]
    rights = np.empty(m, dtype=index.dtype)
    n_left = np.zeros(sizes.size, dtype=np.intp)
    left, right = 0, 0
    for k in range(sizes.size):
        if not split[k]:
            continue
        j, c, missing = column[k], cut[k], missing_left[k]
        first = left
        for q in range(starts[k], starts[k] + sizes[k]):
            r = index[q]
            b = codes[r, j]
            g = np.intp(missing if b == missing_bin else b <= c)
            index[left] = r  # no branch: written to both, kept by one
            rights[right] = r
            left += g
            right += 1 - g
        n_left[k] = left - first
    index[left : left + right] = rights[:right]
    index[left + right] = index.size - 1
    return n_left


@numba.njit(cache=True, nogil=True)
def _present_span(hist, at):
    """For node ``hist[at[t]]`` and feature ``j``: the first and last column of present
    values with rows, whether any has, and whether the missing column has rows
    (``(c, d)`` each).  Without present rows first is 0 and last ``B - 1``, as
    ``argmax`` of no True gives (the caller ignores them)."""
    c, d, B = at.size, hist.shape[1], hist.shape[2] - 1
    first = np.zeros((c, d), dtype=np.intp)
    last = np.full((c, d), B - 1, dtype=np.intp)
    present = np.zeros((c, d), dtype=np.bool_)
    missing = np.zeros((c, d), dtype=np.bool_)
    for t in range(c):
        h = hist[at[t]]
        for j in range(d):
            missing[t, j] = h[j, B, 0] > 0
            for b in range(B):
                if h[j, b, 0] > 0:
                    first[t, j] = b
                    present[t, j] = True
                    break
            for b in range(B - 1, -1, -1):
                if h[j, b, 0] > 0:
                    last[t, j] = b
                    break
    return first, last, present, missing


def _squared_summaries(fit, index_rows, w_rows, node_of_pos, starts, sizes, w_node) -> dict:
    """Squared error's level summaries (``value``, ``impurity``, ``pure``, ``node_stats``)
    as :func:`~climbing_trees._levelwise._state._regression_summaries` makes them: the same
    additions in the same order (each node's rows one by one, in index order), so the
    same bits, in one compiled pass per node."""
    unit = bool(fit.unit)
    value, node_stats, pure = _squared_kernel(fit.Y, fit.w, unit, index_rows, starts, sizes, w_node)
    impurity = impurity_from_statistics(node_stats, fit.criterion)
    return {"value": value, "impurity": impurity, "pure": pure, "node_stats": node_stats}


@numba.njit(cache=True, nogil=True, error_model="numpy")  # 0 / 0: NaN, as numpy
def _squared_kernel(Y, w, unit, index_rows, starts, sizes, w_node):
    """Per node: weighted means (values), sums ``[W, w(y-c), w(y-c)(y-c)]`` with ``c``
    the centre of :func:`climbing_trees._criteria.centring_means`, and purity.

    A node's targets (and weights) are read from their rows once, into buffers
    that the second pass reads in order.  ``unit``: every weight is 1, so
    ``w y`` is ``y`` bit for bit and the weights are not read.
    """
    n_nodes, k = sizes.size, Y.shape[1]
    value = np.empty((n_nodes, k))
    stats = np.zeros((n_nodes, 1 + 2 * k))
    pure = np.ones(n_nodes, dtype=np.bool_)
    largest = sizes.max() if n_nodes else 0
    y_here = np.empty(largest)  # the node's targets (one output), in index order
    w_here = np.ones(1 if unit else largest)  # and weights (unit: 1.0 * y is y)
    for node in range(n_nodes):
        first, size = starts[node], sizes[node]
        if not unit:
            for i in range(size):
                w_here[i] = w[index_rows[first + i]]
        for o in range(k):
            total, lo, hi = 0.0, np.inf, -np.inf
            for i in range(size):
                y = Y[index_rows[first + i], o]
                y_here[i] = y
                w_i = 1.0 if unit else w_here[i]
                total += w_i * y
                if w_i > 0:
                    lo = min(lo, y)
                    hi = max(hi, y)
            mean = total / w_node[node]
            value[node, o] = mean
            centre = lo if lo == hi else mean
            if lo < hi:
                pure[node] = False
            s1, s2 = 0.0, 0.0
            for i in range(size):
                a = (1.0 if unit else w_here[i]) * (y_here[i] - centre)
                s1 += a
                s2 += a * (y_here[i] - centre)
            stats[node, 1 + o] = s1
            stats[node, 1 + k + o] = s2
        stats[node, 0] = w_node[node]
    return value, stats, pure


@numba.njit(cache=True, nogil=True)
def _node_weights(w, index_rows, starts, sizes):
    """Each node's weight, its rows' ``w`` added one by one in index order: the sums
    of ``numpy.bincount(node_of_pos, weights=w.take(index_rows))``, bit for bit,
    without a weight and a node number per row."""
    out = np.zeros(sizes.size)
    for node in range(sizes.size):
        total = 0.0
        for p in range(starts[node], starts[node] + sizes[node]):
            total += w[index_rows[p]]
        out[node] = total
    return out


@numba.njit(cache=True, nogil=True)
def _node_fixed_weights(w, k, index_rows, starts, sizes):
    """Each node's weight in fixed point (:func:`climbing_trees._exact_weights.fixed_weights`:
    ``rint(w * 2**k)`` per row, exact integers), summed from its rows without the
    fit's column of them: the same integers whatever the order."""
    out = np.zeros(sizes.size)
    for node in range(sizes.size):
        total = 0.0
        for p in range(starts[node], starts[node] + sizes[node]):
            total += np.float64(np.int64(np.rint(np.ldexp(w[index_rows[p]], k))))
        out[node] = total
    return out


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _squared_scan(hist, nodes, drawn, msl, low, k_w, k_s, within):
    """Squared error, one output: each node's best gain (``within`` None), or the first
    candidate whose gain is at least ``within`` (the flat index over feature, side, bin).

    Mirrors :meth:`Histograms.gains`: the bins' prefix sums converted to floats
    as :meth:`_Columns.layout` does (``k_w < 0``: unit weights, the row count),
    the bounds of :func:`climbing_trees._missing.candidate_bounds` and the gain of
    :func:`climbing_trees._levelwise._gains._gains` (:func:`_squared_gain`).
    """
    c, d, width = nodes.size, hist.shape[1], hist.shape[2]
    B = width - 1
    out = np.full(c, -np.inf) if within is None else np.zeros(c)
    for t in range(c):
        node = nodes[t]
        # The node's totals (feature 0, every bin): weight and target sum.
        count_tot, w_tot_q, s_tot_q = 0, 0, 0
        for b in range(width):
            count_tot += hist[node, 0, b, 0]
            if k_w >= 0:
                w_tot_q += hist[node, 0, b, 1]
            s_tot_q += hist[node, 0, b, width_column(k_w)]
        w_node = float(count_tot) if k_w < 0 else np.ldexp(float(w_tot_q), -k_w)
        mean = np.ldexp(float(s_tot_q), -k_s) / w_node
        found = False
        for j in range(d):
            if not drawn[t, j] or found:
                continue
            n_missing = hist[node, j, B, 0]
            n_present = count_tot - n_missing
            w_miss = 0.0 if k_w < 0 else np.ldexp(float(hist[node, j, B, 1]), -k_w)
            wm = float(n_missing) if k_w < 0 else w_miss
            s_miss = np.ldexp(float(hist[node, j, B, width_column(k_w)]), -k_s) - mean * wm
            for side in range(2):
                lo, hi = bounds(n_present, n_missing, msl, side == 1)
                count, w_q, s_q = 0, 0, 0
                for b in range(B):
                    here = hist[node, j, b, 0]
                    count += here
                    if k_w >= 0:
                        w_q += hist[node, j, b, 1]
                    s_q += hist[node, j, b, width_column(k_w)]
                    position = count - 1
                    if here == 0 or position < lo or position > hi:
                        continue
                    weight = float(count) if k_w < 0 else np.ldexp(float(w_q), -k_w)
                    s_left = np.ldexp(float(s_q), -k_s) - mean * weight
                    if k_w < 0:
                        w_left = position + 1.0 + (n_missing if side == 1 else 0)
                    else:
                        w_left = weight + (w_miss if side == 1 else 0.0)
                    if side == 1:
                        s_left = s_left + s_miss
                    gain = _squared_gain(s_left, w_left, w_node, k_w < 0, low)
                    if within is None:
                        if gain > out[t]:
                            out[t] = gain
                    elif gain >= within[t]:
                        out[t] = (j * 2 + side) * B + b
                        found = True
                        break
                if found:
                    break
    return out


@numba.njit(cache=True, nogil=True)
def width_column(k_w):
    """The target sum's column in the histogram: after the count and (weighted) the weight."""
    return 1 if k_w < 0 else 2


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _squared_gain(s_left, w_left, w_node, unit, low):
    """:func:`climbing_trees._levelwise._gains._block_gains`' squared-error gain of one
    candidate (node sum centred: 0), ``-inf`` where a side's weight refuses it."""
    w_right = w_node - w_left
    if unit:
        w_right = max(w_right, 0.5)
    else:
        if w_left <= 0 or w_right <= 0 or w_left < low or w_right < low:
            return -np.inf
    part = s_left * s_left
    part /= w_left
    s_right = 0.0 - s_left
    s_right *= s_right
    s_right /= w_right
    return part + s_right


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _class_scan(hist, nodes, drawn, k, offsets, n_out, criterion, msl, low, reference):
    """Classification: each node's winner over its bins, as the compiled builder chooses.

    ``hist[nodes[t]]``: node ``t``'s histogram, columns the row count and each
    class's weight in fixed point (exponent ``k``).  The candidates of
    :meth:`Histograms.gains`, in its order (feature, missing right then
    left, bin), with the bounds of :func:`climbing_trees._missing.candidate_bounds`
    and the side refusal of :func:`climbing_trees._ties.refused_weights`
    (:func:`~climbing_trees._compiled._rules.refused_side`, the same rule),
    are ranked by the compiled builder's gain (:func:`~climbing_trees._compiled._scores.gain`)
    on the near list (:mod:`climbing_trees._compiled._choice`), whose entries
    are scored again by :func:`~climbing_trees._compiled._scores.class_children_score`,
    the port of :func:`climbing_trees._criteria.children_score`; the tie rule
    then picks the first within the tolerance of ``reference[t]`` (the node's
    impurity).  Returns each node's score (``inf``: no candidate) and its
    candidate's flat index over (feature, side, bin).
    """
    c, d, width, m = nodes.size, hist.shape[1], hist.shape[2], hist.shape[3] - 1
    B = width - 1
    score = np.full(c, np.inf)
    first = np.zeros(c, dtype=np.intp)
    total = np.empty(m)
    acc = np.empty(m)
    extra = np.empty(m)
    right = np.empty(m)
    sums = np.empty(m, dtype=np.int64)  # the bins' prefix sums, exact
    near = near_empty(m)
    for t in range(c):
        node = nodes[t]
        count_tot = 0
        for b in range(width):
            count_tot += hist[node, 0, b, 0]
        for col in range(m):
            q = 0
            for b in range(width):
                q += hist[node, 0, b, 1 + col]
            total[col] = np.ldexp(float(q), -k)
        node_weight = 0.0
        for col in range(offsets[0], offsets[1]):
            node_weight += total[col]
        constant, scale = score_constants(criterion, total, node_weight, n_out, 0.0)
        slack = gain_slack(criterion, node_weight, n_out)
        count, best = 0, np.inf
        floor = -np.inf  # gains below it cannot enter the near list (gate)
        for j in range(d):
            if not drawn[t, j]:
                continue
            n_missing = hist[node, j, B, 0]
            n_present = count_tot - n_missing
            for col in range(m):
                extra[col] = np.ldexp(float(hist[node, j, B, 1 + col]), -k)
            lo_right, hi_right = bounds(n_present, n_missing, msl, False)
            lo_left, hi_left = bounds(n_present, n_missing, msl, True)
            last = max(hi_right, hi_left)
            rows = 0
            sums[:] = 0
            for b in range(B):  # both sides in one pass (the near list takes any order)
                here = hist[node, j, b, 0]
                if here == 0:
                    continue
                rows += here
                for col in range(m):
                    sums[col] += hist[node, j, b, 1 + col]
                position = rows - 1
                if position > last:
                    break
                for side in range(2):  # missing rows right, then left
                    if side == 0 and not lo_right <= position <= hi_right:
                        continue
                    if side == 1 and not lo_left <= position <= hi_left:
                        continue
                    share = 1.0 if side == 1 else 0.0
                    for col in range(m):
                        acc[col] = np.ldexp(float(sums[col]), -k)
                    w_side = 0.0
                    for col in range(offsets[0], offsets[1]):
                        w_side += acc[col] + share * extra[col]
                    w_right = node_weight - w_side
                    if refused_side(w_side, w_right, low):
                        continue
                    g = gain(criterion, acc, extra, side == 1, total, w_side, w_right, n_out)
                    if g < floor:
                        continue
                    key = (j * 2 + side) * B + b
                    near, count, best = near_add(
                        near, count, best, reference[t], slack, (constant - g) / scale, key,
                        0.0, j, side == 1, rows + (n_missing if side == 1 else 0), w_side,
                        acc, extra, share,
                    )  # fmt: skip
                    floor = gate(best, reference[t], constant, scale, slack)
        if count == 0:
            continue
        best = near_rescore(near, count, total, node_weight, offsets, n_out, criterion, right)
        winner = near_winner(near, count, best, reference[t])
        if winner >= 0:
            score[t] = near[winner, SCORE]
            first[t] = np.intp(near[winner, KEY])
    return score, first
