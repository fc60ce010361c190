"""The compiled builder's scalar rules equal the package's numpy rules they port."""

from __future__ import annotations

import numpy as np
import pytest

import climbing_trees as ct
from climbing_trees import _missing, _random, _ties, _wavelet
from climbing_trees._compiled import _absolute, _choice, _rules
from climbing_trees._levelwise._absolute import _absolute_error_summaries

RNG = np.random.default_rng(2026)
KEYS = np.concatenate(
    [RNG.integers(0, 2**63, size=500, dtype=np.uint64) * np.uint64(2) + np.uint64(1),
     np.array([0, 1, 2**64 - 1, 2**63], dtype=np.uint64)]
)  # fmt: skip


def test_mix_and_child_keys_hash_bit_for_bit():
    mixed = _random._mix(KEYS)
    for side in (True, False):
        children = _random.child_keys(KEYS, side)
        for key, child, m in zip(KEYS, children, mixed, strict=True):
            assert _rules.child_key(key, side) == child
            assert _rules.mix(key) == m


@pytest.mark.parametrize("stream", [_random.FEATURES, _random.THRESHOLDS, _random.MISSING])
def test_uniforms_bit_for_bit(stream):
    expected = _random.uniforms(KEYS, 13, stream)
    for i, key in enumerate(KEYS):
        got = [_rules.uniform(key, stream, j) for j in range(13)]
        assert got == expected[i].tolist()


def test_random_thresholds_bit_for_bit():
    lo = RNG.normal(size=(len(KEYS), 4)) * 10.0 ** RNG.integers(-300, 300, size=(len(KEYS), 4))
    hi = lo + np.abs(RNG.normal(size=lo.shape)) * 10.0 ** RNG.integers(-20, 5, size=lo.shape)
    lo[:5], hi[:5] = -1e308, 1e308  # extremes
    hi[5:10] = np.nextafter(lo[5:10], np.inf)  # adjacent floats: lands on hi -> lo
    expected = _random.random_thresholds(KEYS, lo, hi)
    for i, key in enumerate(KEYS):
        for j in range(4):
            u = _rules.uniform(key, _random.THRESHOLDS, j)
            assert _rules.random_threshold(u, lo[i, j], hi[i, j]) == expected[i, j]


def test_narrow_ranges_equal():
    lo = RNG.normal(size=3000) * 10.0 ** RNG.integers(-10, 40, size=3000)
    hi = lo + np.abs(RNG.normal(size=3000)) * 10.0 ** RNG.integers(-12, 0, size=3000)
    lo[:3], hi[:3] = 1e39, 1e39 + 1e30  # past float32's range
    expected = _random.narrow_ranges(lo, hi)
    got = [_rules.narrow_range(a, b) for a, b in zip(lo, hi, strict=True)]
    assert got == expected.tolist()
    assert 0 < expected.sum() < len(expected)


def test_midpoints_bit_for_bit():
    a = RNG.normal(size=2000) * 10.0 ** RNG.integers(-300, 308, size=2000)
    b = a + np.abs(a) * 10.0 ** RNG.integers(-17, 1, size=2000)
    b[:100] = np.nextafter(a[:100], np.inf)  # adjacent: the midpoint rounds onto b
    keep = b > a
    a, b = a[keep], b[keep]
    expected = _ties.midpoint_threshold(a, b)
    got = np.array([_rules.midpoint(x, y) for x, y in zip(a, b, strict=True)])
    np.testing.assert_array_equal(got, expected)
    assert np.any(expected == a)


def test_tie_tolerance_and_enough_decrease_equal():
    ref, score = RNG.normal(size=1000), RNG.normal(size=1000)
    got = [_rules.tie_tolerance(r, s) for r, s in zip(ref, score, strict=True)]
    np.testing.assert_array_equal(got, _ties.tie_tolerance(ref, score))
    node_w, total = RNG.uniform(0.1, 10, 1000), 10.0
    impurity = RNG.uniform(0, 1, 1000)
    decrease = RNG.choice([0.0, 1e-13, -1e-13, 0.1], size=1000) * impurity
    mid = RNG.choice([0.0, 0.01, 0.05], size=1000)
    expected = _ties.enough_decrease(node_w, total, impurity, impurity - decrease, mid)
    got = [
        _rules.enough_decrease(a, total, b, b - c, m)
        for a, b, c, m in zip(node_w, impurity, decrease, mid, strict=True)
    ]
    assert got == expected.tolist()


def test_candidate_bounds_and_missing_direction_equal():
    for n_present in range(0, 9):
        for n_missing in range(0, 5):
            for msl in range(1, 6):
                for left in (False, True):
                    expected = _missing.candidate_bounds(n_present, n_missing, msl, left)
                    assert _rules.bounds(n_present, n_missing, msl, left) == expected
                    for n_left in range(0, n_present + n_missing + 1):
                        rows = n_present + n_missing
                        goes = _missing.missing_goes_left(n_missing, left, n_left, rows)
                        assert _rules.missing_left_of(n_missing, left, n_left, rows) == goes


NO_STATS = np.zeros(0)


@pytest.mark.parametrize("seed", range(40))
def test_near_list_picks_choose_best_winner(seed):
    """The streaming choice equals choose_best on the full list, in any arrival order."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    parent = float(rng.uniform(0.5, 2.0))
    base = rng.uniform(0, 1, size=n)
    base[rng.random(n) < 0.5] = base[0]  # exact ties
    scores = base + rng.choice([0.0, 1e-14, -1e-14, 5e-13, 3e-12], size=n) * parent
    scores[rng.random(n) < 0.1] = np.inf  # refused
    expected = _ties.choose_best(np.where(np.isfinite(scores), scores, np.nan), parent)
    arrival = rng.permutation(n)
    near, count, best = _choice.near_empty(0), 0, np.inf
    for i in arrival:
        near, count, best = _choice.near_add(
            near, count, best, parent, 0.0, scores[i], float(i), 0.0, 0, False, 0, 0.0,
            NO_STATS, NO_STATS, 0.0,
        )  # fmt: skip
    winner = _choice.near_winner(near, count, best, parent)
    got = -1 if winner < 0 else int(near[winner, _choice.KEY])
    assert got == expected


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("widths", [(2,), (3,), (9,), (3, 2), (2, 4, 3)])
def test_class_children_score_equals_children_score(criterion, widths):
    """The near list's rescoring is children_score, to a few units of rounding
    (numpy's sum adds eight or more classes' terms in another order)."""
    from climbing_trees._compiled import _scores
    from climbing_trees._criteria import children_score, output_criterion

    layout = criterion if len(widths) == 1 else output_criterion(criterion, list(widths))
    code = _scores.CRITERION_CODES[criterion]
    offsets = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
    m = int(offsets[-1])
    for _ in range(300):  # class weights of rows, one class per output, some rows left
        n = int(RNG.integers(2, 40))
        w = RNG.uniform(0.1, 1e4, size=n) * (RNG.random(n) < 0.9)
        goes_left = RNG.random(n) < RNG.uniform(0.05, 0.95)
        Y = np.hstack([ct.one_hot(RNG.integers(0, k, size=n), k) for k in widths])
        left, total = (Y * w[:, None])[goes_left].sum(axis=0), (Y * w[:, None]).sum(axis=0)
        right = total - left
        if left[: widths[0]].sum() <= 0 or right[: widths[0]].sum() <= 0:
            continue
        expected = float(children_score(left, right, layout, total[: widths[0]].sum())[0])
        got = _scores.class_children_score(
            left, total, 0.0, offsets, len(widths), code, np.empty(m)
        )
        np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-300)


def _scan_problem(seed):
    """A scan of ``m`` rows: ranks by ``y``, values shifted, weights with zeros and ties."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 70))
    y = rng.integers(0, 5, m).astype(float) if seed % 2 else rng.normal(size=m) * 7
    w = [np.ones(m), rng.uniform(0.1, 3, m), rng.integers(0, 3, m).astype(float)][seed % 3]
    w[0] = max(w[0], 1.0)
    ranks = _wavelet.node_ranks(y)
    return m, ranks, y - y[np.argmax(ranks == m // 2)], w


@pytest.mark.parametrize("seed", range(30))
def test_wavelet_walk_and_range_error_bit_for_bit(seed):
    """The compiled wavelet matrix (levels, walk, error) gives split_absolute_errors' bits."""
    m, ranks, y, w = _scan_problem(seed)
    positions = np.arange(m)
    left, right, cumulative = _wavelet.split_absolute_errors(
        ranks[None], y[None], w[None], positions
    )
    work = _absolute.absolute_workspace(m, 1, True)
    zeros, sums, levels, level_ranks = work[2], work[3], work[4], work[5]
    level_ranks[0, :m], levels[0, :m], levels[1, :m] = ranks, w, y
    last = _absolute.wavelet_levels(m, level_ranks, levels, zeros, sums)
    b = _absolute.n_levels(m)
    cw = np.concatenate([[0.0], np.cumsum(w)])
    cy = np.concatenate([[0.0], np.cumsum(w * y)])
    for p in positions:
        cut = p + 1
        w_left, w_right = cw[cut], cw[m] - cw[cut]
        assert cw[cut] == cumulative[0, cut].real and cy[cut] == cumulative[0, cut].imag
        sides = [(0, cut, w_left, cy[cut], left), (cut, m, w_right, cy[m] - cy[cut], right)]
        for a, stop, weight, total, expected in sides:
            if weight > 0:
                y_k, c_k, s_k = _absolute.median_sums(
                    a, stop, 0.5 * weight, b, m, zeros, sums, levels, last
                )
                got = _absolute.range_error(y_k, c_k, s_k, weight, total)
                assert got == expected[0, p]
        if w_left > 0 and w_right > 0:  # both walks together: the same numbers
            pair = _absolute.median_sums_pair(
                cut, m, 0.5 * w_left, 0.5 * w_right, b, zeros, sums, levels, last
            )
            one = _absolute.median_sums(0, cut, 0.5 * w_left, b, m, zeros, sums, levels, last)
            other = _absolute.median_sums(cut, m, 0.5 * w_right, b, m, zeros, sums, levels, last)
            assert pair == one + other


@pytest.mark.parametrize("seed", range(30))
def test_absolute_summary_equals_the_levelwise_summaries(seed):
    """Medians (node_medians), impurity, ranks and shifted targets, bit for bit."""
    m, _, y, w = _scan_problem(seed)
    rng = np.random.default_rng(seed)
    Y = np.column_stack([y, rng.integers(0, 3, m).astype(float)])
    index_rows = np.arange(m)
    node_of_pos, starts, sizes = np.zeros(m, np.intp), np.array([0]), np.array([m])
    w_node = np.bincount(node_of_pos, weights=w, minlength=1)
    value, impurity, ranks, shifted = _absolute_error_summaries(
        Y, w, node_of_pos, starts, sizes, w_node
    )
    work = _absolute.absolute_workspace(m, 2, True)
    got_value = np.empty(2)
    unit = bool(np.all(w == 1.0))
    weight, got_impurity, _ = _absolute.absolute_summary(
        index_rows.astype(np.int32), Y, w, unit, 2, got_value, np.empty(m), work
    )
    assert weight == w_node[0]
    assert got_value.tolist() == value[0].tolist()
    assert got_impurity == impurity[0]
    assert work[0].tolist() == ranks.tolist()
    assert work[1].tolist() == shifted.tolist()


def _node_of(seed: int, criterion: str):
    """A random node (every row of a small problem) as the compiled builder sees it:
    its flat ``X``, statistics and summary (``_summarise``), for the search's inputs."""
    from climbing_trees._compiled._grow import _class_codes, _poisson_statistics, _summarise
    from climbing_trees._compiled._scores import CRITERION_CODES
    from climbing_trees._exact_weights import fixed_leaf_weight, fixed_weights, leaf_minimum

    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(4, 60)), 3
    X = rng.integers(0, 6, size=(n, d)).astype(float)
    X[rng.random((n, d)) < 0.15] = np.nan
    unit = bool(rng.integers(2))
    w = np.ones(n) if unit else rng.choice([0.5, 1.0, 2.0, 3.0], size=n)
    classes = criterion in ("gini", "entropy")
    if classes:
        m = int(rng.integers(2, 5))
        Y = np.eye(m)[rng.integers(0, m, size=n)]
        offsets = np.array([0, m], dtype=np.int64)
        cls, phi, n_out, n_stats = _class_codes(Y, offsets), np.zeros((1, 1)), 1, m
    else:
        n_out = int(rng.integers(1, 3))
        Y = rng.integers(0, 5, size=(n, n_out)).astype(float) + (criterion == "poisson")
        offsets = np.zeros(n_out + 1, dtype=np.int64)
        cls = np.zeros((1, 1), dtype=np.int32)
        if criterion == "poisson":
            phi, n_stats = _poisson_statistics(Y, w), 3 * n_out
        else:
            phi, n_stats = np.zeros((n, n_out)), n_out
    code = CRITERION_CODES[criterion]
    leaf = leaf_minimum(1, 0.0, w)
    q = fixed_weights(w, leaf)
    rows = np.arange(n, dtype=np.int32)
    total, value = np.empty(n_stats), np.empty(offsets[-1] if classes else n_out)
    node_weight, impurity, _, constant, scale = _summarise(
        rows, code, classes, cls, offsets, Y, w, unit, phi, n_out, total, value
    )
    return dict(
        X=X, rows=rows, w=w, unit=unit, classes=classes, cls=cls, offsets=offsets, phi=phi,
        n_out=n_out, n_stats=n_stats, code=code, q=q, low=fixed_leaf_weight(leaf),
        total=total, node_weight=node_weight, impurity=impurity, constant=constant,
        scale=scale, rng=rng,
    )  # fmt: skip


def _assert_scores_are_gains(node, near, count):
    """Each candidate kept in the near list scores ``(constant - gain) / scale`` with
    ``_scores.gain`` of its own left side, bit for bit: the searches write the
    gain out in their loops, and this pins those copies to the one rule."""
    from climbing_trees._compiled import _scores

    assert count > 0
    n_stats, total = node["n_stats"], node["total"]
    for i in range(count):
        left = near[i, _choice.N_FIELDS : _choice.N_FIELDS + n_stats].copy()
        w_left = near[i, _choice.W_LEFT]
        g = _scores.gain(
            node["code"], left, np.zeros(n_stats), False, total, w_left,
            node["node_weight"] - w_left, node["n_out"],
        )  # fmt: skip
        assert near[i, _choice.SCORE] == (node["constant"] - g) / node["scale"]


@pytest.mark.parametrize("ranked", [False, True])
@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error", "poisson"])
@pytest.mark.parametrize("seed", range(40))
def test_the_sorted_scan_scores_candidates_with_the_gain_rule(seed, criterion, ranked):
    """scan_sorted's gains (written out in its loop) are _scores.gain's."""
    from climbing_trees._compiled._grow import _presorted
    from climbing_trees._compiled._scan import scan_sorted
    from climbing_trees._compiled._scores import gain_slack

    node = _node_of(seed, criterion)
    X = node["X"]
    n, d = X.shape
    Xf = X.ravel()
    order, ranks = _presorted(X, Xf, d, 1)
    if not ranked:
        ranks = np.zeros((1, 1), dtype=np.int32)
    n_presents = (~np.isnan(X)).sum(axis=0).astype(np.intp)
    slack = gain_slack(node["code"], node["node_weight"], node["n_out"]) * node["classes"]
    scalars = tuple(
        float(v) for v in (
            node["node_weight"], node["impurity"], node["constant"], node["scale"], slack,
            node["q"].sum(), node["low"], -np.inf, np.inf, 0.0,
        )
    )  # fmt: skip
    n_stats = node["n_stats"]
    near, count, _ = scan_sorted(
        order, ranks, 0, n, np.arange(d), np.arange(d), n_presents, d, Xf, d, 1, node["w"],
        node["unit"], node["classes"], node["cls"], node["offsets"], node["phi"],
        node["code"], node["total"], scalars, 1, node["q"], np.empty(n_stats),
        np.empty(n_stats), _choice.near_empty(n_stats), 0, np.inf,
        np.zeros(d, dtype=np.int64), np.zeros(1),
    )  # fmt: skip
    if count == 0:
        pytest.skip("no candidate in this node (every feature constant or missing)")
    _assert_scores_are_gains(node, near, count)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error", "poisson"])
@pytest.mark.parametrize("seed", range(40))
def test_drawn_thresholds_score_candidates_with_the_gain_rule(seed, criterion):
    """drawn_thresholds' gains (written out in its loop) are _scores.gain's."""
    from climbing_trees._compiled._scan import drawn_thresholds
    from climbing_trees._compiled._scores import gain_slack

    node = _node_of(seed, criterion)
    X, rng = node["X"], node["rng"]
    n, d = X.shape
    values = np.ascontiguousarray(X.T)  # each drawn feature's values at the rows
    lo, hi = np.nanmin(values, axis=1), np.nanmax(values, axis=1)
    present = ~np.isnan(lo)
    mask = present & (lo < hi)
    if not mask.any():
        pytest.skip("every feature constant or missing in this node")
    thresholds = np.where(mask, lo + rng.random(d) * (hi - lo), 0.0)
    has_missing = np.isnan(values).any(axis=1)
    sides = has_missing & (rng.random(d) < 0.5)
    n_stats = node["n_stats"]
    slack = gain_slack(node["code"], node["node_weight"], node["n_out"]) * node["classes"]
    assert slack >= 0.0
    near = np.empty((max(d, _choice.near_empty(n_stats).shape[0]), _choice.N_FIELDS + n_stats))
    count, _ = drawn_thresholds(
        node["rows"], mask, thresholds, sides, has_missing, values, np.arange(d),
        node["w"], node["unit"], node["cls"], node["offsets"], node["phi"], node["code"],
        node["total"], node["node_weight"], node["impurity"], node["constant"],
        node["scale"], 1, node["q"], float(node["q"].sum()), node["low"],
        np.empty(n_stats), np.zeros(n_stats), near, np.zeros(d, dtype=np.int64),
        -np.inf, np.inf, np.zeros(1), np.empty(n, dtype=np.int32),
    )  # fmt: skip
    if count == 0:
        pytest.skip("no drawn candidate allowed in this node")
    _assert_scores_are_gains(node, near, count)
