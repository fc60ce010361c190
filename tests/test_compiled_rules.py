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
    (math.log2 and numpy's log2 may differ in the last bit)."""
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
