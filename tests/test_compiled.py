"""The compiled builder grows exactly the tree of the depth-first oracle, grow_tree."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_equivalent, assert_same_tree
from sklearn.datasets import load_diabetes, load_digits, load_iris

import climbing_trees as ct
from climbing_trees._compiled import compiled_refusal, grow_tree_compiled
from climbing_trees._criteria import output_criterion
from climbing_trees._random import RandomSplits

CRITERIA = ["gini", "entropy", "log_loss", "squared_error", "poisson"]
STOPPING = [
    {},
    {"max_depth": 1},
    {"max_depth": 3},
    {"min_samples_split": 7},
    {"min_samples_leaf": 3},
    {"min_samples_leaf": 5, "max_depth": 4},
    {"min_impurity_decrease": 0.01},
    {"min_samples_split": 4, "min_samples_leaf": 2, "min_impurity_decrease": 0.001},
    {"min_weight_leaf": 2.0},
    {"min_weight_leaf": 5.0, "min_samples_leaf": 2},
]


def make_problem(seed, criterion, *, weights, ties, missing=0.0, n_outputs=1):
    """Random (X, Y, w): 2-150 rows, ties (integer X) or not, constant columns,
    zero weights, NaN in X at rate ``missing``, several outputs."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 150))
    d = int(rng.integers(1, 6))
    if ties:
        X = rng.integers(0, int(rng.integers(1, 5)), size=(n, d)).astype(float)
    else:
        X = rng.normal(size=(n, d))
    if d > 1 and rng.random() < 0.3:
        X[:, int(rng.integers(d))] = 1.5  # a constant feature
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    if criterion in ("squared_error", "absolute_error"):
        if ties:
            Y = rng.integers(0, 4, size=(n, n_outputs)).astype(float)
        else:
            Y = rng.normal(size=(n, n_outputs)) * 10 + 3
    elif criterion == "poisson":
        Y = rng.poisson(1.0, size=(n, n_outputs)) if ties else rng.gamma(2.0, 3.0, (n, n_outputs))
        Y = np.where(rng.random((n, n_outputs)) < 0.3, 0.0, Y)
        Y[0] = 1.0 + Y[0]
    else:
        blocks = [ct.one_hot(rng.integers(0, k, size=n), k) for k in (3, 2, 4)[:n_outputs]]
        Y = np.hstack(blocks)
    if weights == "unit":
        w = np.ones(n)
    elif weights == "float":
        w = rng.uniform(0.1, 3.0, size=n)
    else:  # some rows weigh nothing
        w = rng.uniform(0.1, 3.0, size=n) * (rng.random(n) < 0.7)
        w[0] = 1.0
    if n_outputs > 1:
        widths = (3, 2, 4)[:n_outputs] if criterion in ("gini", "entropy", "log_loss") else None
        criterion = output_criterion(criterion, widths or [1] * n_outputs)
    return X, Y, w, criterion


def both(X, Y, w, criterion, **params):
    slow = ct.grow_tree(X, Y, w, criterion=criterion, **params)
    fast = grow_tree_compiled(X, Y, w, criterion=criterion, **params)
    assert_equivalent(fast, slow)
    return fast


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("weights", ["unit", "float", "zeros"])
@pytest.mark.parametrize("ties", [True, False], ids=["ties", "no-ties"])
def test_same_tree_on_random_problems(seed, criterion, weights, ties):
    X, Y, w, criterion = make_problem(seed, criterion, weights=weights, ties=ties)
    both(X, Y, w, criterion, **STOPPING[seed % len(STOPPING)])


@pytest.mark.parametrize("presort", [True, False])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
def test_presorted_and_per_node_sorting_grow_the_same_tree(seed, criterion, presort):
    X, Y, w, criterion = make_problem(seed, criterion, weights="float", ties=seed % 2 == 0)
    slow = ct.grow_tree(X, Y, w, criterion=criterion)
    assert_equivalent(grow_tree_compiled(X, Y, w, criterion=criterion, presort=presort), slow)


@pytest.mark.parametrize("params", STOPPING)
@pytest.mark.parametrize("criterion", CRITERIA)
def test_same_tree_under_each_stopping_rule(params, criterion):
    X, Y, w, criterion = make_problem(99, criterion, weights="float", ties=True)
    X, Y, w = np.vstack([X] * 3), np.vstack([Y] * 3), np.tile(w, 3)
    both(X, Y, w, criterion, **params)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("rate", [0.1, 0.4])
def test_same_tree_with_missing_values(seed, criterion, rate):
    weights = ["unit", "float", "zeros"][seed % 3]
    X, Y, w, criterion = make_problem(seed, criterion, weights=weights, ties=seed % 2 == 0,
                                      missing=rate)  # fmt: skip
    both(X, Y, w, criterion, **STOPPING[seed % len(STOPPING)])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("n_outputs", [2, 3])
def test_same_tree_with_several_outputs(seed, criterion, n_outputs):
    X, Y, w, criterion = make_problem(seed, criterion, weights=["unit", "float"][seed % 2],
                                      ties=seed % 3 == 0, missing=0.1 * (seed % 2),
                                      n_outputs=n_outputs)  # fmt: skip
    both(X, Y, w, criterion, **STOPPING[seed % len(STOPPING)])


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("splitter", ["best", "random"])
@pytest.mark.parametrize("max_features", [1, 2, 5])
def test_same_tree_with_random_draws(seed, criterion, splitter, max_features):
    weights = ["unit", "float", "zeros"][seed % 3]
    X, Y, w, criterion = make_problem(seed, criterion, weights=weights, ties=seed % 2 == 0,
                                      missing=0.15 * (seed % 3 == 2))  # fmt: skip
    k = min(max_features, X.shape[1])
    randomness = RandomSplits(k, splitter, 1000 + seed)
    params = STOPPING[seed % len(STOPPING)]
    fast = both(X, Y, w, criterion, random_splits=randomness, **params)
    for presort in (True, False):  # either search of the drawn features
        same = grow_tree_compiled(X, Y, w, criterion=criterion, random_splits=randomness,
                                  presort=presort, **params)  # fmt: skip
        assert_equivalent(same, fast)


@pytest.mark.parametrize("criterion", ["gini", "squared_error"])
def test_presorted_fit_sorting_small_subtrees_grows_the_same_tree(criterion):
    # With features drawn, the orders stop being partitioned where both children
    # have at most INSERTION_RUN rows; their subtrees sort by insertion (stably),
    # on ties, NaN and float weights, the oracle's tree.
    from climbing_trees._compiled._grow import INSERTION_RUN, _switch_size

    rng = np.random.default_rng(17)
    n, d = 700, 6
    X = rng.integers(0, 6, size=(n, d)).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    Y = (rng.integers(0, 4, size=(n, 1)).astype(float) if criterion == "squared_error"
         else ct.one_hot(rng.integers(0, 3, size=n), 3))  # fmt: skip
    w = rng.uniform(0.1, 3.0, size=n)
    randomness = RandomSplits(2, "best", 23)
    assert _switch_size(d, randomness) == INSERTION_RUN and _switch_size(d, None) == 0
    fast = both(X, Y, w, criterion, random_splits=randomness)
    assert np.sum(fast.n_node_samples <= INSERTION_RUN) > 50  # subtrees that sorted
    for presort in (True, False):
        same = grow_tree_compiled(X, Y, w, criterion=criterion, random_splits=randomness,
                                  presort=presort)  # fmt: skip
        assert_equivalent(same, fast)


def test_float32_narrow_features_are_constant_under_draws():
    rng = np.random.default_rng(3)
    X = np.column_stack([1.0 + rng.integers(0, 2, 60) * 2e-8, rng.normal(size=60)])
    Y = ct.one_hot((X[:, 0] > 1.0).astype(int), 2)
    for splitter in ("best", "random"):
        both(X, Y, np.ones(60), "gini", random_splits=RandomSplits(1, splitter, 5))


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_digits(criterion):
    X, y = load_digits(return_X_y=True)
    Y = ct.one_hot(y, 10)
    w = np.ones(len(y))
    both(X, Y, w, criterion)
    both(X, Y, w, criterion, random_splits=RandomSplits(8, "best", 7), min_samples_leaf=2)
    both(X, Y, w, criterion, random_splits=RandomSplits(8, "random", 7))


@pytest.mark.parametrize("n_classes", [2, 5, 16])
def test_random_splitter_counts_classes_in_packed_fields_exactly(n_classes):
    # With unit weights and one output of at most 16 classes, the random splitter
    # counts each class sent left in a field of one integer (64 // n_classes bits,
    # emptied every 2**bits - 1 rows: every 15 rows for 16 classes): the oracle's sums.
    rng = np.random.default_rng(n_classes)
    n = 900
    X = rng.normal(size=(n, 4))
    X[:, 3] = rng.integers(0, 3, n)  # ties
    y = (X[:, 0] > 0) * rng.integers(0, n_classes, n)  # skewed: long runs of class 0
    Y = ct.one_hot(y, n_classes)
    for seed in range(3):
        both(X, Y, np.ones(n), "gini", random_splits=RandomSplits(2, "random", seed))
    both(X, Y, np.ones(n), "entropy", random_splits=RandomSplits(4, "random", 9))


def test_iris_with_weights():
    X, y = load_iris(return_X_y=True)
    w = np.random.default_rng(0).integers(0, 4, len(y)).astype(float)
    both(X, ct.one_hot(y, 3), w, "gini")
    both(X, ct.one_hot(y, 3), w, "entropy", max_depth=3)


@pytest.mark.parametrize("criterion", ["squared_error", "poisson"])
def test_diabetes(criterion):
    X, y = load_diabetes(return_X_y=True)
    both(X, y[:, None], np.ones(len(y)), criterion, max_depth=8)
    both(X, y[:, None], np.ones(len(y)), criterion, min_samples_leaf=5)
    randomness = RandomSplits(3, "random", 11)
    both(X, y[:, None], np.ones(len(y)), criterion, random_splits=randomness)


def test_fortran_and_c_ordered_X_grow_the_same_tree():
    X, y = load_diabetes(return_X_y=True)
    Y = y[:, None]
    C = grow_tree_compiled(np.ascontiguousarray(X), Y, np.ones(len(y)), criterion="squared_error")
    F = grow_tree_compiled(np.asfortranarray(X), Y, np.ones(len(y)), criterion="squared_error")
    assert_equivalent(C, F)


def test_refused_options_raise_with_the_reason():
    X, Y = np.zeros((4, 1)), np.ones((4, 1))
    with pytest.raises(ValueError, match="absolute_error.*splitter='best'"):
        grow_tree_compiled(X, Y, np.ones(4), criterion="absolute_error",
                           random_splits=RandomSplits(1, "random", 0))  # fmt: skip
    with pytest.raises(ValueError, match="monotonic_cst with criterion='absolute_error'"):
        grow_tree_compiled(X, Y, np.ones(4), criterion="absolute_error",
                           monotonic_cst=np.array([1]))  # fmt: skip
    with pytest.raises(ValueError, match="categorical"):
        grow_tree_compiled(X, Y, np.ones(4), criterion="squared_error",
                           is_categorical=np.array([True]))  # fmt: skip
    assert compiled_refusal("gini", missing_values="surrogate") is not None


@pytest.mark.parametrize(
    "first_row",
    [[0.5, 0.5, 0.0], [1.0, 1e-17, -1e-17], [0.0, 0.0, 0.0], [1.0, 1.0, -1.0], [np.nan, 1.0, 0.0]],
    ids=["halves", "sums to one", "no class", "two ones", "NaN"],
)
def test_labels_that_are_not_one_hot_are_refused(first_row):
    # One 1.0 and zeros elsewhere, in every output's block; a row whose entries only
    # sum to 1 with a largest entry of 1 is not one-hot.
    X = np.arange(4.0)[:, None]
    Y = np.array([first_row, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match="one-hot"):
        grow_tree_compiled(X, Y, np.ones(4), criterion="gini")
    second = np.array([first_row[:2], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    Y2 = np.hstack([np.eye(3)[[0, 1, 2, 0]], second])  # the second output's block
    with pytest.raises(ValueError, match="one-hot"):
        grow_tree_compiled(X, Y2, np.ones(4), criterion=output_criterion("gini", [3, 2]))


@pytest.mark.parametrize("seed", range(6))
def test_sort_pairs_sorts_values_with_their_rows(seed):
    from climbing_trees._compiled._grow import _sort_pairs

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 3000))
    values = rng.integers(0, [3, 50, 10**9][seed % 3], size=n).astype(float)
    rows = np.arange(n, dtype=np.int32)
    original = values.copy()
    _sort_pairs(values, rows, 0, n, np.empty((64, 2), dtype=np.intp))
    np.testing.assert_array_equal(values, np.sort(original))
    np.testing.assert_array_equal(original[rows], values)  # each value kept its row
    assert sorted(rows.tolist()) == list(range(n))


def test_sorted_rows_are_a_stable_argsort():
    # A node's rows by one feature, present values sorted with ties in index order,
    # then the missing rows in index order: by counting where the values are
    # integers spanning fewer values than rows, by _sort_pairs elsewhere (a
    # fraction among integers, a tiny value that rounds to one, a wide span).
    from climbing_trees._compiled._grow import INSERTION_RUN, _sorted_rows

    tried = {True: 0, False: 0}
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n_all, d = int(rng.integers(1, 400)), 3
        X = rng.integers(-7, [5, 20, 900][seed % 3], size=(n_all, d)).astype(float)
        X[rng.random(X.shape) < [0.0, 0.1][seed % 2]] = np.nan
        if seed % 5 == 3:
            X[rng.integers(n_all), 1] = 0.5
        if seed % 5 == 4:
            X[rng.integers(n_all), 1] = 1e-20  # 1e-20 - (-7) rounds to 7
        rows = np.sort(rng.choice(n_all, size=int(rng.integers(1, n_all + 1)), replace=False))
        rows = rows.astype(np.int32)
        for j in range(d):
            flat, rs, cs = X.ravel(), d, 1
            out = np.empty(len(rows), dtype=np.int32)
            n_present = _sorted_rows(
                rows, j, flat, rs, cs, out, np.empty(len(rows)), np.empty((64, 2), dtype=np.intp),
                np.empty(len(rows) + 1, dtype=np.int32), np.empty(len(rows), dtype=np.int32),
            )  # fmt: skip
            x = X[rows, j]
            present = x[~np.isnan(x)]
            assert n_present == len(present)
            np.testing.assert_array_equal(out[n_present:], rows[np.isnan(x)])
            np.testing.assert_array_equal(X[out[:n_present], j], np.sort(present))
            assert sorted(out.tolist()) == rows.tolist()
            counted = (n_present > INSERTION_RUN and np.all(present == np.floor(present))
                       and np.ptp(present) < n_present)  # fmt: skip
            if counted or n_present <= INSERTION_RUN:  # stable: ties in index order
                stable = rows[~np.isnan(x)][np.argsort(present, kind="stable")]
                np.testing.assert_array_equal(out[:n_present], stable)
            tried[counted] += 1
    assert tried[True] > 10 and tried[False] > 10  # both sorts


@pytest.mark.parametrize("seed", range(40))
def test_presorted_orders_are_a_stable_argsort(seed):
    # Columns of small integers are sorted as int16 (by radix): the same order.
    # Beside it, the ranks of the sorted values among the distinct ones (-0.0 and
    # 0.0 equal, as x < x_next compares them), where present.
    from climbing_trees._compiled._grow import _presorted
    from climbing_trees._levelwise._orders import _in_place

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    X = rng.integers(-5, 5, size=(n, 5)).astype(float)
    X[:, 1] = rng.integers(-40_000, 40_000, size=n)  # beyond int16
    X[:, 2] += 0.5 * (rng.random(n) < 0.02)  # now and then a fraction
    X[:, 4] = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, size=n)  # by radix
    X[rng.random((n, 5)) < 0.1 * (seed % 3)] = [np.nan, np.inf, -0.0, 0.0, -np.inf][seed % 5]
    X[rng.random((n, 5)) < 0.05 * (seed % 2)] = -np.nan  # NaN with its sign bit set
    X = np.asfortranarray(X) if seed % 2 else X
    stable = np.stack([np.argsort(X[:, j], kind="stable") for j in range(5)])
    order, ranks = _presorted(X, *_in_place(X)[1:])
    np.testing.assert_array_equal(order, stable)
    for j in range(5):
        values = X[order[j], j]
        present = ~np.isnan(values)
        distinct = np.unique(values[present])
        expected = np.searchsorted(distinct, values[present])
        np.testing.assert_array_equal(ranks[j, present], expected)


def _radix_passes(x):
    """How many of the radix sort's passes move rows for column ``x`` (its keys'
    11-bit digits that are not all equal)."""
    from climbing_trees._compiled._grow import RADIX_BITS

    bits = np.where(x == 0.0, 0.0, x).view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    keys = np.where(bits & sign, ~bits, bits | sign)
    keys[np.isnan(x)] = ~np.uint64(0)
    digits = [(keys >> np.uint64(p * RADIX_BITS)) & np.uint64(2**RADIX_BITS - 1)
              for p in range(-(-64 // RADIX_BITS))]  # fmt: skip
    return sum(len(d) > 0 and not np.all(d == d[0]) for d in digits)


def test_radix_order_after_each_number_of_passes():
    # The rows move between order and ranks at each pass that moves any; after an
    # odd number they end in ranks.  Columns built for every count, 0 to 6.
    from climbing_trees._compiled._grow import _radix_order

    rng = np.random.default_rng(0)
    low = np.abs(rng.normal(size=300)).view(np.uint64) & ~np.uint64(0x7FF)
    columns = [
        np.empty(0), np.array([3.5]), np.full(50, 1.25), np.full(7, np.nan),  # 0 passes
        rng.choice([2.0, 4.0], size=200),  # 1 pass: the exponent's digit only
        np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0]),
        np.array([1.0, -np.nan, np.nan, -np.inf, np.inf, -0.0, 0.0]),
        rng.integers(-40_000, 40_000, size=300).astype(float),
        rng.normal(size=300).astype(np.float32).astype(float),
        float(2**40) + rng.integers(0, 3, size=300) * 2.0**20,  # 2 passes
        np.abs(rng.normal(size=300)).astype(np.float32).astype(float),  # 4
        low.view(np.float64),  # the lowest digit constant: 5 passes
        rng.normal(size=300) * 10.0 ** rng.integers(-300, 300, size=300),  # 6
    ]  # fmt: skip
    counts = set()
    for x in columns:
        n = len(x)
        order = np.full(n, -7, dtype=np.int32)
        ranks = np.full(n, -7, dtype=np.int32)
        _radix_order(x, 1, 1, 0, order, ranks)
        np.testing.assert_array_equal(order, np.argsort(x, kind="stable"))
        values = x[order]
        present = ~np.isnan(values)
        distinct = np.unique(values[present])
        np.testing.assert_array_equal(ranks[present], np.searchsorted(distinct, values[present]))
        assert np.all(ranks[~present] == len(distinct))  # one above every present value
        counts.add(_radix_passes(x))
    assert {0, 1, 2, 4, 5, 6} <= counts  # odd and even, none and all


@pytest.mark.parametrize("seed", range(6))
def test_partition_ranked_moves_the_ranks_with_their_rows(seed):
    from climbing_trees._compiled._grow import _partition, _partition_ranked

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 500))
    piece = rng.permutation(n).astype(np.int32)
    rank = rng.integers(0, 50, size=n).astype(np.int32)
    rank_of = dict(zip(piece.tolist(), rank.tolist(), strict=True))
    goes_left = rng.random(n) < [0.0, 0.3, 1.0][seed % 3]
    expected = piece.copy()
    n_left = _partition(expected, goes_left, np.empty(n, dtype=np.int32))
    got = _partition_ranked(piece, rank, goes_left, np.empty((2, n), dtype=np.int32))
    assert got == n_left == goes_left.sum()
    np.testing.assert_array_equal(piece, expected)  # the same stable partition
    assert rank.tolist() == [rank_of[row] for row in piece.tolist()]


def test_presorts_chooses_by_the_share_of_features_drawn():
    from climbing_trees._compiled import presorts

    assert presorts(100, 64, None)
    assert presorts(100, 8, RandomSplits(2, "best", 0))
    assert not presorts(100, 64, RandomSplits(8, "best", 0))


def test_import_without_numba_says_how_to_install_it():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['numba'] = None\n"  # import numba now raises ImportError
        "try:\n    import climbing_trees\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "climbing_trees needs numba" in out.stdout and "pip install" in out.stdout


@pytest.mark.parametrize("criterion", ["entropy", "gini"])
@pytest.mark.parametrize("seed", [2, 11, 20])
def test_nearly_pure_mirrored_features_tie_as_in_grow_tree(criterion, seed):
    """X = [x, -x] with 3 minority rows in 20,000: the two features' best splits are
    the same partition, an exact tie that feature 0 wins.  Entropy's gains cancel
    there (sum c ln c - W ln W); the near list scores its entries as grow_tree does."""
    rng = np.random.default_rng(seed)
    n = 20_000
    x = rng.normal(size=n)
    X = np.c_[x, -x]
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, 3, replace=False)] = 1
    Y, w = ct.one_hot(y, 2), rng.uniform(0.5, 2.0, n)
    slow = ct.grow_tree(X, Y, w, criterion=criterion, max_depth=1)
    assert slow.feature[0] == 0
    for presort in (True, False):
        fast = grow_tree_compiled(X, Y, w, criterion=criterion, max_depth=1, presort=presort)
        assert_equivalent(fast, slow)


# Absolute error (climbing_trees._compiled._absolute): the same trees as grow_tree, and
# bit for bit the level-wise builder's, which grew them before (same medians, impurities
# and weights: the same sums in the same order).
def both_absolute(X, Y, w, criterion, **params):
    fast = both(X, Y, w, criterion, **params)
    assert_same_tree(fast, ct.grow_tree_levelwise(X, Y, w, criterion=criterion, **params))
    return fast


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("weights", ["unit", "float", "zeros"])
@pytest.mark.parametrize("ties", [True, False], ids=["ties", "no-ties"])
def test_absolute_error_same_tree_on_random_problems(seed, weights, ties):
    X, Y, w, criterion = make_problem(seed, "absolute_error", weights=weights, ties=ties)
    both_absolute(X, Y, w, criterion, **STOPPING[seed % len(STOPPING)])


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("rate", [0.1, 0.4])
def test_absolute_error_same_tree_with_missing_values(seed, rate):
    weights = ["unit", "float", "zeros"][seed % 3]
    X, Y, w, criterion = make_problem(seed, "absolute_error", weights=weights,
                                      ties=seed % 2 == 0, missing=rate)  # fmt: skip
    both_absolute(X, Y, w, criterion, **STOPPING[seed % len(STOPPING)])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_outputs", [2, 3])
def test_absolute_error_same_tree_with_several_outputs(seed, n_outputs):
    X, Y, w, criterion = make_problem(seed, "absolute_error", weights=["unit", "zeros"][seed % 2],
                                      ties=seed % 3 == 0, missing=0.1 * (seed % 2),
                                      n_outputs=n_outputs)  # fmt: skip
    both_absolute(X, Y, w, criterion, **STOPPING[seed % len(STOPPING)])


@pytest.mark.parametrize("params", STOPPING)
def test_absolute_error_same_tree_under_each_stopping_rule(params):
    X, Y, w, criterion = make_problem(99, "absolute_error", weights="float", ties=True)
    X, Y, w = np.vstack([X] * 3), np.vstack([Y] * 3), np.tile(w, 3)
    both_absolute(X, Y, w, criterion, **params)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("max_features", [1, 2])
def test_absolute_error_same_tree_with_drawn_features(seed, max_features):
    weights = ["unit", "float", "zeros"][seed % 3]
    missing = 0.15 * (seed % 3 == 2)
    X, Y, w, criterion = make_problem(seed, "absolute_error", weights=weights,
                                      ties=seed % 2 == 0, missing=missing)  # fmt: skip
    randomness = RandomSplits(min(max_features, X.shape[1]), "best", 500 + seed)
    params = STOPPING[seed % len(STOPPING)]
    fast = both_absolute(X, Y, w, criterion, random_splits=randomness, **params)
    for presort in (True, False):  # either search of the drawn features
        same = grow_tree_compiled(X, Y, w, criterion=criterion, random_splits=randomness,
                                  presort=presort, **params)  # fmt: skip
        assert_same_tree(same, fast)


def test_absolute_error_diabetes():
    X, y = load_diabetes(return_X_y=True)
    both_absolute(X, y[:, None], np.ones(len(y)), "absolute_error", max_depth=8,
                  min_samples_leaf=16)  # fmt: skip
    w = np.random.default_rng(1).integers(0, 3, len(y)).astype(float)
    both_absolute(X, y[:, None], w, "absolute_error", min_samples_leaf=3, min_weight_leaf=5.0)


def test_prefetch_row_is_a_hint_that_reads_nothing():
    # The scan's cache hint compiles for its float and integer statistics, in
    # either memory order, and changes no result, even for rows past the end.
    import numba

    from climbing_trees._compiled._prefetch import prefetch_row

    @numba.njit
    def summed(array, rows):
        total = 0.0
        for i in range(rows.shape[0]):
            prefetch_row(array, rows[i] + 1000)  # beyond the last row: harmless
            total += array[rows[i], 0]
        return total

    rows = np.array([3, 0, 2], dtype=np.int32)
    phi = np.arange(8.0).reshape(4, 2)
    cls = np.arange(8, dtype=np.int32).reshape(4, 2)
    assert summed(phi, rows) == 6.0 + 0.0 + 4.0
    assert summed(np.asfortranarray(phi), rows) == 10.0
    assert summed(cls, rows) == 10.0


@pytest.mark.parametrize("presort", [True, False])
def test_the_scan_that_prefetches_grows_the_levelwise_tree(presort):
    """Above PREFETCH_BYTES of row statistics (about 131,000 rows of one regression
    output) the sorted scan asks for each row's statistics ahead of time: the
    shallow tree of 140,000 rows, with ties and missing values, is still the
    level-wise builder's (itself checked against grow_tree)."""
    from climbing_trees._compiled._prefetch import PREFETCH_BYTES
    from climbing_trees._levelwise import grow_tree_levelwise

    n = 140_000
    assert n * 8 > PREFETCH_BYTES  # phi: one float a row
    rng = np.random.default_rng(3)
    X = rng.integers(0, 50, size=(n, 2)).astype(float)
    X[rng.random((n, 2)) < 0.05] = np.nan
    Y = (np.nan_to_num(X[:, :1]) + rng.normal(size=(n, 1))).round(1)
    w = np.ones(n)
    options = dict(criterion="squared_error", max_depth=3)
    fast = grow_tree_compiled(X, Y, w, presort=presort, **options)
    assert_equivalent(fast, grow_tree_levelwise(X, Y, w, **options))
