"""Trees do not depend on how numpy rounds a logarithm (principle 4 of the guide).

numpy's float64 ``log``, ``log2`` and ``exp`` call the C library on most CPUs
and numpy's own vectorised code where the CPU has AVX-512; the two differ in
the last bit of some results.  Entropy, log loss and Poisson trees, and
boosting's losses, take their logarithms and exponentials from
:mod:`climbing_trees._libm` instead, which calls the C library everywhere.

The tests here play the other CPU: they replace numpy's functions by ones
whose every result is one unit in the last place off, and check that the
trees, their impurities and the boosted models' predictions keep every bit.
They fail if a builder takes a logarithm through numpy again.
"""

from __future__ import annotations

import math

import hist_corpus
import levelwise_corpus
import numpy as np
import pytest

import climbing_trees as ct
from climbing_trees import _libm

# The corpus entries that differed between an AVX-512 CPU and one without, when
# the builders took their logarithms through numpy (entropy, log loss, Poisson).
HIST_SEEDS = [37, 92, 127, 139, 184, 207, 216, 226, 272, 389]
LEVELWISE_SEEDS = [112, 146, 205, 268, 272]


def play_other_cpu(monkeypatch):
    """numpy's log, log2 and exp, each result moved one unit in the last place."""

    def nudged(ufunc):
        def call(x, *args, **kwargs):
            result = ufunc(x, *args, **kwargs)
            return np.nextafter(result, np.inf) if np.isfinite(result).any() else result

        return call

    for name in ("log", "log2", "exp"):
        monkeypatch.setattr(np, name, nudged(getattr(np, name)))


@pytest.fixture
def other_cpu(monkeypatch):
    play_other_cpu(monkeypatch)


VALUES = np.concatenate([
    np.random.default_rng(0).uniform(0.0, 1.0, 2000),
    np.random.default_rng(1).lognormal(0.0, 20.0, 2000),
    [0.0, -0.0, 1.0, 2.0, 5e-324, 1e-310, 1e308, np.inf, -1.0, np.nan],
])  # fmt: skip


@pytest.mark.parametrize(
    ("ours", "reference"),
    [(_libm.log, math.log), (_libm.log2, math.log2), (_libm.exp, math.exp)],
)
def test_each_value_is_the_c_librarys(ours, reference):
    def expected(v):
        try:
            return reference(v)
        except ValueError:  # math refuses log(0) and log(-1): numpy's -inf and nan
            return -math.inf if v == 0 else math.nan
        except OverflowError:
            return math.inf

    values = -VALUES if reference is math.exp else VALUES
    got = ours(values.reshape(-1, 2)).ravel()  # any shape, element by element
    want = np.array([expected(v) for v in values])
    assert np.array_equal(got, want, equal_nan=True)
    assert got.tobytes() == want.tobytes() or np.isnan(want).any()


def test_the_nudge_reaches_numpy(other_cpu):
    x = np.array([0.3, 7.0])
    assert not np.array_equal(np.log(x), _libm.log(x))


@pytest.mark.parametrize("seed", HIST_SEEDS)
def test_histogram_trees_keep_their_bits(seed, monkeypatch):
    plain = hist_corpus.fitted_hashes(*hist_corpus.problem(seed))
    play_other_cpu(monkeypatch)
    assert hist_corpus.fitted_hashes(*hist_corpus.problem(seed)) == plain


@pytest.mark.parametrize("seed", LEVELWISE_SEEDS)
def test_levelwise_trees_keep_their_bits(seed, monkeypatch):
    plain = levelwise_corpus.tree_hashes(levelwise_corpus.grow_direct(seed))
    play_other_cpu(monkeypatch)
    assert levelwise_corpus.tree_hashes(levelwise_corpus.grow_direct(seed)) == plain


def _data(n=600, seed=3):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 4)), 1)
    classes = np.digitize(X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=n), [-0.5, 0.5])
    counts = rng.poisson(np.exp(0.5 * X[:, 0] + 0.3 * X[:, 3]))
    return X, classes, counts.astype(float), rng.uniform(0.5, 2.0, n)


@pytest.mark.parametrize(
    "make",
    [
        lambda: ct.DecisionTreeClassifier(criterion="entropy", random_state=0),
        lambda: ct.DecisionTreeClassifier(criterion="log_loss", max_features=2, random_state=0),
        lambda: ct.DecisionTreeRegressor(criterion="poisson", min_samples_leaf=3),
        lambda: ct.GradientBoostingClassifier(n_estimators=5, max_depth=3, random_state=0),
        lambda: ct.GradientBoostingClassifier(loss="exponential", n_estimators=5),
        lambda: ct.HistGradientBoostingClassifier(max_iter=5, random_state=0),
        lambda: ct.HistGradientBoostingRegressor(loss="poisson", max_iter=5),
        lambda: ct.HistGradientBoostingRegressor(loss="gamma", max_iter=5),
    ],
)
def test_estimators_keep_their_bits(make, monkeypatch):
    X, classes, counts, w = _data()
    model = make()
    binary = getattr(model, "loss", None) == "exponential"
    if hasattr(model, "predict_proba"):
        y = (classes > 0).astype(int) if binary else classes
    else:
        y = counts + (model.get_params().get("loss") == "gamma")

    def outputs():
        fitted = make().fit(X, y, sample_weight=w)
        out = fitted.predict_proba(X) if hasattr(fitted, "predict_proba") else fitted.predict(X)
        return out.tobytes()

    plain = outputs()
    play_other_cpu(monkeypatch)
    assert outputs() == plain


@pytest.mark.parametrize("criterion", ["entropy", "poisson"])
def test_grow_tree_keeps_its_bits(criterion, monkeypatch):
    X, classes, counts, w = _data(300)
    Y = ct.one_hot(classes, 3) if criterion == "entropy" else counts[:, None]

    def grown():
        tree = ct.grow_tree(X, Y, w, criterion=criterion, min_samples_leaf=2)
        return levelwise_corpus.tree_hashes(tree)

    plain = grown()
    play_other_cpu(monkeypatch)
    assert grown() == plain
