"""rpart as an outside reference: pruning (chapter 8), surrogate splits (chapter 9),
misclassification costs, priors and importance (chapter 10).

R's rpart (Therneau and Atkinson) grows a classification tree and reports
its cost-complexity sequence as ``cptable``.  These helpers run rpart through
``Rscript`` on a numeric table, read back the tree it grew (``frame``) and
its ``cptable``, and turn the tree into a :class:`~climbing_trees.Tree` so
that :func:`~climbing_trees.weakest_links` can prune the very same tree.
:func:`rpart_surrogate_predict` grows rpart's regression or Gini tree with
surrogate splits, the reference of chapter 9; :func:`rpart_costs_fit` grows
its tree with a loss matrix or priors and :func:`rpart_importance` reports its
``variable.importance``, the references of chapter 10.  They need R with the
rpart package; :func:`have_rpart` says whether it is there.

The book and the tests do not need R: what they compare with is rpart's
output on problems this module generates (:func:`pruning_problem`,
:func:`surrogate_problem`, :func:`surrogate_comparison_problem`,
:func:`missing_experiment`), kept as small CSV files in
``climbing_trees/rpart_reference/`` and read by :func:`load_reference`.
Where R with rpart is installed,

    python -m climbing_trees._rpart --check    # rerun rpart, compare with the files
    python -m climbing_trees._rpart --write    # rerun rpart, rewrite the files

and ``tests/test_reference_files.py`` runs the check.
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ._pruning import weakest_links
from ._tree import TREE_LEAF, TREE_UNDEFINED, Tree

_PUT = """
put <- function(df, file) {  # doubles with 17 significant digits: exact
  df <- as.data.frame(df, check.names = FALSE)
  df[] <- lapply(df, function(v) if (is.double(v)) sprintf("%.17g", v) else v)
  write.csv(df, file, row.names = FALSE, quote = FALSE)
}
"""

_SCRIPT = _PUT + """
suppressMessages(library(rpart))
d <- read.csv("data.csv"); d$y <- factor(d$y)
fit <- rpart(y ~ ., data = d, method = "class", parms = list(split = "gini"),
             control = rpart.control(cp = 0, minsplit = 2, minbucket = 1, xval = 0,
                                     maxcompete = 0, maxsurrogate = 0, usesurrogate = 0))
fr <- fit$frame
put(data.frame(node = as.integer(rownames(fr)), var = as.character(fr$var),
               n = fr$n, dev = fr$dev, complexity = fr$complexity), "frame.csv")
put(fit$cptable, "cptable.csv")
"""


def have_rpart() -> bool:
    """Whether ``Rscript`` runs and loads rpart."""
    if shutil.which("Rscript") is None:
        return False
    done = subprocess.run(
        ["Rscript", "-e", "library(rpart)"], capture_output=True, check=False, timeout=60
    )
    return done.returncode == 0


def rpart_fit(X: np.ndarray, y: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Grow rpart's Gini tree on ``(X, y)`` with no early stopping; its frame and cptable.

    The control settings (``cp=0, minsplit=2, minbucket=1``, no surrogates,
    no cross-validation) grow as far as rpart goes.  rpart still removes,
    while growing, every split whose complexity is not above ``cp``, here
    the splits that do not lower the misclassification risk at all.
    Returns ``frame`` (rpart's node numbers: children of ``k`` are ``2k``
    and ``2k+1``, rows in depth-first preorder; ``dev`` is the number of
    misclassified rows) and ``cptable`` (columns ``CP``, ``nsplit``,
    ``rel error``).
    """
    X = np.asarray(X, dtype=float)
    columns = [f"x{j}" for j in range(X.shape[1])]
    data = pd.DataFrame(X, columns=columns).assign(y=np.asarray(y))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        data.to_csv(path / "data.csv", index=False, float_format="%.17g")
        (path / "fit.R").write_text(_SCRIPT)
        subprocess.run(
            ["Rscript", "fit.R"], cwd=folder, check=True, capture_output=True, timeout=120
        )
        frame = pd.read_csv(path / "frame.csv")
        cptable = pd.read_csv(path / "cptable.csv")
    return frame, cptable


def tree_from_rpart_frame(frame: pd.DataFrame) -> tuple[Tree, np.ndarray]:
    """rpart's tree as a :class:`Tree` (structure and counts), and each node's risk.

    The risk is rpart's scaled one, ``dev_t / dev_root``: misclassified rows
    of the node over those of the root, so that alphas on this scale are
    rpart's ``CP``.  Splits (feature, threshold) are not carried over; pruning
    needs only the structure and the risks.
    """
    numbers = frame["node"].to_numpy()
    ids = {int(k): i for i, k in enumerate(numbers)}
    n = len(numbers)
    left = np.array([ids.get(2 * int(k), TREE_LEAF) for k in numbers], dtype=np.intp)
    right = np.array([ids.get(2 * int(k) + 1, TREE_LEAF) for k in numbers], dtype=np.intp)
    internal = left != TREE_LEAF
    counts = frame["n"].to_numpy()
    dev = frame["dev"].to_numpy(dtype=float)
    error = dev / counts
    tree = Tree(
        children_left=left,
        children_right=right,
        feature=np.where(internal, 0, TREE_UNDEFINED).astype(np.intp),
        threshold=np.where(internal, 0.0, float(TREE_UNDEFINED)),
        value=np.stack([1 - error, error], axis=1)[:, None, :],
        impurity=np.zeros(n),
        n_node_samples=counts.astype(np.intp),
        weighted_n_node_samples=counts.astype(float),
    )
    return tree, dev / dev[0]


def exact_cptable(tree: Tree, risk: np.ndarray) -> pd.DataFrame:
    """The exact weakest-link sequence as an rpart ``cptable`` (CP, nsplit, rel error).

    Row ``k``: the subtree with ``nsplit`` splits is optimal for complexity
    parameters from ``CP`` up to the ``CP`` of the row above (the first row
    is the root alone), ``rel error`` its risk over the root's.  With
    ``risk`` scaled so that the root's is 1, as :func:`tree_from_rpart_frame`
    gives, ``CP`` is rpart's complexity parameter.
    """
    links = weakest_links(tree, risk)
    path = np.maximum.accumulate(np.concatenate([[0.0], links.alphas]))
    # The last step of each run of equal alphas (to rounding), largest alpha first.
    last = np.flatnonzero(np.r_[~np.isclose(path[1:], path[:-1], rtol=1e-10, atol=0), True])
    rows = last[::-1]
    return pd.DataFrame(
        {
            "CP": path[rows],
            "nsplit": links.n_leaves[rows] - 1,
            "rel error": links.risks[rows] / links.risks[-1],
        }
    )


_SURROGATE_SCRIPT = _PUT + """
suppressMessages(library(rpart))
d <- read.csv("data.csv"); t <- read.csv("test.csv"); w <- read.csv("weights.csv")$w
cats <- scan("categorical.txt", what = "", quiet = TRUE)
for (nm in cats) {
  d[[nm]] <- factor(d[[nm]]); t[[nm]] <- factor(t[[nm]], levels = levels(d[[nm]]))
}
method <- "METHOD"
parms <- list()
if (method == "class") { d$y <- factor(d$y); parms <- list(split = "gini") }
fit <- rpart(y ~ ., data = d, weights = w, method = method, parms = parms,
             control = rpart.control(cp = CP, minsplit = MINSPLIT, minbucket = MINBUCKET,
                                     maxdepth = MAXDEPTH, xval = 0, maxcompete = 0,
                                     maxsurrogate = MAXSURROGATE, usesurrogate = 2,
                                     surrogatestyle = STYLE))
p <- if (method == "class") predict(fit, newdata = t, type = "prob") else
  predict(fit, newdata = t)
put(data.frame(p = p), "pred.csv")
"""


def rpart_surrogate_predict(
    X: np.ndarray,
    y: np.ndarray,
    X_test: np.ndarray,
    sample_weight: np.ndarray,
    *,
    max_depth: int,
    min_samples_split: int,
    min_samples_leaf: int,
    max_surrogates: int = 5,
    categorical: tuple[int, ...] = (),
    method: str = "anova",
    surrogate_style: int = 0,
) -> np.ndarray:
    """rpart's tree with surrogate splits, and its predictions for ``X_test``.

    rpart grows an ``anova`` (regression) or a ``class`` tree (Gini; ``y``
    becomes a factor) with ``cp=0``, ``minsplit``, ``minbucket`` and
    ``maxdepth`` set from the arguments, ``maxsurrogate=max_surrogates``,
    ``usesurrogate=2`` (surrogates, then the majority side),
    ``surrogatestyle=surrogate_style``, ``maxcompete=0`` and no
    cross-validation.  The package's surrogates are rpart's default style 0
    (agreement over all rows the primary placed); style 1 divides by the
    rows where the surrogate is present, as Breiman et al. do.  NaN in
    ``X`` is R's ``NA``; the columns listed in ``categorical`` (level codes)
    become R factors.  Returns the predicted values (``anova``), or the class
    probabilities with one column per class in sorted order (``class``).
    Chapter 9 and the surrogate tests compare the estimators'
    ``missing_values="surrogate"`` with it.
    """
    if method not in ("anova", "class"):
        raise ValueError(f"method={method!r}: use 'anova' or 'class'.")
    if surrogate_style not in (0, 1):
        raise ValueError(f"surrogate_style={surrogate_style!r}: use 0 or 1.")
    columns = [f"x{j}" for j in range(X.shape[1])]
    data = pd.DataFrame(X, columns=columns).assign(y=np.asarray(y, dtype=float))
    test = pd.DataFrame(X_test, columns=columns)
    script = (
        _SURROGATE_SCRIPT.replace("MINSPLIT", str(int(min_samples_split)))
        .replace("MINBUCKET", str(int(min_samples_leaf)))
        .replace("MAXDEPTH", str(int(max_depth)))
        .replace("MAXSURROGATE", str(int(max_surrogates)))
        .replace("METHOD", method)
        .replace("STYLE", str(int(surrogate_style)))
        # cp=0 would remove, while growing, the class splits that do not lower
        # the misclassification risk; cp=-1 keeps every split, as the package does.
        .replace("CP", "0" if method == "anova" else "-1")
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        data.to_csv(path / "data.csv", index=False, float_format="%.17g")
        test.to_csv(path / "test.csv", index=False, float_format="%.17g")
        pd.DataFrame({"w": sample_weight}).to_csv(
            path / "weights.csv", index=False, float_format="%.17g"
        )
        (path / "categorical.txt").write_text(" ".join(columns[j] for j in categorical))
        (path / "fit.R").write_text(script)
        subprocess.run(
            ["Rscript", "fit.R"], cwd=folder, check=True, capture_output=True, timeout=120
        )
        pred = pd.read_csv(path / "pred.csv")
    return pred["p"].to_numpy() if method == "anova" else pred.to_numpy()


# ------------------------------------------------------------------ reference files
#
# rpart's output on the problems below, committed so that the book and the tests
# compare with rpart on machines without R.  Each problem is generated here, from
# a seed, so that the files can be made again (``--write``) and checked
# (``--check``, tests/test_reference_files.py) wherever R with rpart is installed.

#: Where the reference files live (shipped with the package).
REFERENCE_DIR = Path(__file__).with_name("rpart_reference")

#: Seeds of :func:`pruning_problem` whose rpart tree and cptable are kept: 1 is the
#: tree of chapter 8 where rpart's table is not the exact sequence, 6, 8 and 11
#: trees where it is.
PRUNING_SEEDS = (1, 6, 8, 11)

#: Seeds of :func:`surrogate_problem` compared with rpart (each numerical and with a
#: categorical column, for regression and for Gini classification).
SURROGATE_SEEDS = tuple(range(15))

#: Stopping rules of the surrogate-style comparison of chapter 9's exercise.
STYLE_CONTROL = {"max_depth": 30, "min_samples_split": 40, "min_samples_leaf": 20}

#: Draws of :func:`missing_experiment` in the surrogate-style comparison.
STYLE_SEEDS = tuple(range(5))


def pruning_problem(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A noisy two-class problem on three uniform features, 40 to 199 rows."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 200))
    X = rng.uniform(size=(n, 3))
    y = ((X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=n)) > 0.8).astype(int)
    return X, y


def equicorrelated_normal(rng, size: int, d: int, shared: float, own: float) -> np.ndarray:
    """``size`` rows of ``d`` normal variables, each of variance ``shared + own``,
    any two of covariance ``shared``, the same numbers on every machine.

    numpy's ``multivariate_normal`` factors the covariance with LAPACK, and the
    eigenvectors of its repeated eigenvalue come out in another rotation on
    another CPU or BLAS kernel: other data, other trees.  This covariance,
    ``own I + shared 1 1'``, has a square root in closed form, ``sqrt(own) I +
    c 1 1'`` with ``c = (sqrt(own + d shared) - sqrt(own)) / d``: each row is
    ``sqrt(own) z + c sum(z)`` for ``d`` standard normal draws ``z``, sums and
    products of numbers, rounded alike everywhere.  It draws as many numbers as
    ``multivariate_normal`` does, so the draws after it are the same.

    >>> X = equicorrelated_normal(np.random.default_rng(0), 200_000, 3, 0.7, 0.3)
    >>> np.round(np.cov(X.T), 2).tolist()
    [[1.0, 0.7, 0.7], [0.7, 1.0, 0.7], [0.7, 0.7, 1.0]]
    """
    z = rng.standard_normal((size, d))
    total = z[:, 0].copy()
    for k in range(1, d):  # one column at a time: the same order everywhere
        total += z[:, k]
    c = (np.sqrt(own + d * shared) - np.sqrt(own)) / d
    return np.sqrt(own) * z + c * total[:, None]


def surrogate_problem(seed, n=None, categorical=False, rate=None):
    """Correlated features (so surrogates exist), a target, NaN at a random rate.

    Returns ``X, y, w, X_test, params``: ``n`` training rows (80 to 299 by
    default) with weights, 200 new rows with 30 % of their values missing, and
    stopping rules drawn from the seed.  With ``categorical`` the last column
    holds 5 levels cut from a correlated variable, without missing values.
    """
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(80, 300))
    d = int(rng.integers(2, 5))
    X = equicorrelated_normal(rng, n + 200, d, shared=0.7, own=0.3)
    if categorical:  # the last column: 5 levels cut from a correlated variable
        X[:, -1] = np.digitize(X[:, -1], [-1, -0.3, 0.3, 1])
    y = X[:, 0] + np.sin(2 * X[:, 1]) + 0.3 * rng.normal(size=n + 200)
    rate = rng.uniform(0.05, 0.4) if rate is None else rate
    holes = rng.random(X.shape) < np.r_[np.full(n, rate), np.full(200, 0.3)][:, None]
    if categorical:
        holes[:, -1] = False
    X[holes] = np.nan
    w = rng.uniform(0.5, 2.0, size=n)
    params = {"max_depth": int(rng.integers(2, 6)), "min_samples_leaf": int(rng.integers(3, 10))}
    params["min_samples_split"] = 3 * params["min_samples_leaf"]
    return X[:n], y[:n], w, X[n:], params


def surrogate_classes(y: np.ndarray) -> np.ndarray:
    """Three classes cut from a numeric target at its 33 % and 66 % quantiles."""
    return np.digitize(y, np.quantile(y, [0.33, 0.66]))


def surrogate_comparison_problem() -> dict:
    """Chapter 9's comparison with rpart: 400 rows, a quarter of the values missing.

    Three correlated features, a numeric target and three classes cut from it,
    weights; the trees are grown on the first 300 rows and predict all 400.
    Returns a dict with ``X``, ``y``, ``classes``, ``w`` and ``control`` (the
    stopping rules).
    """
    from ._benchmark import with_missing

    rng = np.random.default_rng(5)
    X = equicorrelated_normal(rng, 400, 3, shared=0.7, own=0.3)
    y = X[:, 0] + np.sin(2 * X[:, 1]) + 0.3 * rng.normal(size=400)
    X = with_missing(X, 0.25, seed=6)
    w = rng.uniform(0.5, 2.0, size=400)
    classes = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    control = {"max_depth": 4, "min_samples_split": 24, "min_samples_leaf": 8}
    return {"X": X, "y": y, "classes": classes, "w": w, "control": control}


def missing_experiment(seed: int, n: int, rate: float, mechanism: str):
    """Chapter 9's experiment data: four features of correlation 0.85, float32-rounded.

    Returns ``X_holes, X_full, y``.  A fraction ``rate`` of the values is
    missing completely at random (``"mcar"``, ``"test"``); with ``"target"``
    the first feature goes missing more often where ``y`` is high.
    """
    from ._benchmark import as_float32

    rng = np.random.default_rng(seed)
    X = as_float32(equicorrelated_normal(rng, n, 4, shared=0.85, own=0.15))
    y = X[:, 0] + np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n)
    holes = rng.random(X.shape) < rate
    if mechanism == "target":
        high = y > np.quantile(y, 0.6)
        holes[:, 0] = rng.random(n) < np.where(high, 2.2 * rate, 0.2 * rate)
    return np.where(holes, np.nan, X), X, y


def _pruning_references() -> dict[str, pd.DataFrame]:
    frames, cptables = [], []
    for seed in PRUNING_SEEDS:
        frame, cptable = rpart_fit(*pruning_problem(seed))
        frames.append(frame.assign(seed=seed))
        cptables.append(cptable.assign(seed=seed))
    return {
        "pruning_frames": pd.concat(frames, ignore_index=True),
        "pruning_cptables": pd.concat(cptables, ignore_index=True),
    }


def _surrogate_references() -> dict[str, pd.DataFrame]:
    # A tree predicts one of few values: keep each problem's distinct predictions
    # (``value``) and, for its rows in order, which one each gets (``codes``).
    values = {"anova": [], "class": []}
    codes = {"anova": [], "class": []}
    for method in ("anova", "class"):
        for categorical in (False, True):
            for seed in SURROGATE_SEEDS:
                X, y, w, X_test, params = surrogate_problem(seed, categorical=categorical)
                target = surrogate_classes(y) if method == "class" else y
                rows = np.vstack([X, X_test])
                cat = (X.shape[1] - 1,) if categorical else ()
                pred = rpart_surrogate_predict(
                    X, target, rows, w, **params, categorical=cat, method=method
                )
                distinct, code = np.unique(
                    pred.reshape(len(rows), -1), axis=0, return_inverse=True
                )
                table = pd.DataFrame(distinct)
                table.columns = ["p"] if method == "anova" else [f"p{k}" for k in table.columns]
                keys = {"categorical": int(categorical), "seed": seed}
                values[method].append(
                    pd.DataFrame({**keys, "value": np.arange(len(distinct))}).join(table)
                )
                codes[method].append({**keys, "codes": " ".join(map(str, code.ravel()))})
    out = {}
    for method in ("anova", "class"):
        out[f"surrogates_{method}_values"] = pd.concat(values[method], ignore_index=True)
        out[f"surrogates_{method}_rows"] = pd.DataFrame(codes[method])
    return out


def _chapter10_references() -> dict[str, pd.DataFrame]:
    problem = surrogate_comparison_problem()
    X, w, control = problem["X"], problem["w"], problem["control"]
    anova = rpart_surrogate_predict(X[:300], problem["y"][:300], X, w[:300], **control)
    proba = rpart_surrogate_predict(
        X[:300], problem["classes"][:300], X, w[:300], method="class", **control
    )
    comparison = pd.DataFrame({"row": np.arange(len(X)), "anova": anova})
    for k in range(proba.shape[1]):
        comparison[f"class{k}"] = proba[:, k]
    styles = []
    for style in (0, 1):
        for seed in STYLE_SEEDS:
            X_holes, _, y = missing_experiment(seed, 4000, 0.3, "mcar")
            pred = rpart_surrogate_predict(
                X_holes[:2000],
                y[:2000],
                X_holes[2000:],
                np.ones(2000),
                surrogate_style=style,
                **STYLE_CONTROL,
            )
            mse = float(np.mean((pred - y[2000:]) ** 2))
            styles.append({"surrogatestyle": style, "seed": seed, "held_out_mse": mse})
    return {"ch10_comparison": comparison, "ch10_styles": pd.DataFrame(styles)}


# ------------------------------------------------------------------ costs and priors
#
# Chapter 10: rpart's ``parms = list(loss = L)`` and ``list(prior = p)`` on
# random two- and three-class problems, and ``variable.importance`` of trees
# with surrogate splits.

_COSTS_SCRIPT = _PUT + """
suppressMessages(library(rpart))
d <- read.csv("data.csv"); t <- read.csv("test.csv"); w <- read.csv("weights.csv")$w
d$y <- factor(d$y)
parms <- list(split = "gini")
L <- read.csv("loss.csv")$L  # column by column
if (length(L) > 0) parms$loss <- matrix(L, nlevels(d$y))
prior <- read.csv("prior.csv")$p
if (length(prior) > 0) parms$prior <- prior
fit <- rpart(y ~ ., data = d, weights = w, method = "class", parms = parms,
             control = rpart.control(cp = -1, minsplit = MINSPLIT, minbucket = MINBUCKET,
                                     maxdepth = MAXDEPTH, xval = 0, maxcompete = 0,
                                     maxsurrogate = MAXSURROGATE, usesurrogate = USESURROGATE,
                                     surrogatestyle = 0))
fr <- fit$frame
inner <- fr$var != "<leaf>"
index <- rep(NA_real_, nrow(fr)); ncat <- rep(0L, nrow(fr))
# Each split node's rows of fit$splits: the primary, then its surrogates.
first <- cumsum(c(1, head(1 + fr$ncompete[inner] + fr$nsurrogate[inner], -1)))
index[inner] <- fit$splits[first, "index"]
ncat[inner] <- as.integer(fit$splits[first, "ncat"])
put(data.frame(node = as.integer(rownames(fr)), var = as.character(fr$var), n = fr$n,
               wt = fr$wt, dev = fr$dev, yval = as.integer(fr$yval), index = index,
               ncat = ncat), "frame.csv")
p <- predict(fit, newdata = t, type = "prob")
put(data.frame(class = as.integer(predict(fit, newdata = t, type = "class")), p = p),
    "pred.csv")
vi <- fit$variable.importance
put(data.frame(variable = names(vi), importance = as.numeric(vi)), "importance.csv")
"""

_IMPORTANCE_SCRIPT = _SURROGATE_SCRIPT.replace(
    'put(data.frame(p = p), "pred.csv")',
    "vi <- fit$variable.importance\n"
    'put(data.frame(variable = names(vi), importance = as.numeric(vi)), "importance.csv")',
)

#: Seeds of :func:`cost_problem` compared with rpart.
COST_SEEDS = tuple(range(24))


def cost_problem(seed: int) -> dict:
    """A random two- (even seeds) or three-class problem with a loss matrix or priors.

    80 to 299 training rows on 2 to 4 features, 100 new rows, class sizes
    unequal; weights of 1, or drawn in [0.5, 2] for every third seed.  The
    ``kind`` cycles over ``"loss"`` (a loss matrix of off-diagonal costs from
    0 to 10, each row positive), ``"prior"`` (priors in sixteenths) and
    ``"both"``, with ``"loss"`` twice as often, each for two and three
    classes.  Returns a dict with ``X``, ``y``, ``w``, ``X_test``, ``loss``
    (``None`` or a matrix), ``prior`` (``None`` or a vector) and ``params``
    (the stopping rules).
    """
    rng = np.random.default_rng(3100 + seed)
    k = 2 + seed % 2
    n, d = int(rng.integers(80, 300)), int(rng.integers(2, 5))
    X = rng.normal(size=(n + 100, d))
    score = X[:, 0] + 0.7 * np.sin(2 * X[:, 1]) + 0.6 * rng.normal(size=n + 100)
    cuts = np.sort(rng.uniform(0.15, 0.85, size=k - 1))
    y = np.digitize(score, np.quantile(score[:n], cuts))
    w = np.ones(n) if seed % 3 else rng.uniform(0.5, 2.0, size=n)
    kind = ("loss", "prior", "loss", "both")[seed // 2 % 4]
    loss = prior = None
    if kind in ("loss", "both"):
        loss = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0], size=(k, k))
        np.fill_diagonal(loss, 0.0)
        for i in np.flatnonzero(loss.sum(axis=1) == 0):
            loss[i, (i + 1) % k] = 1.0
    if kind in ("prior", "both"):
        parts = rng.multinomial(16 - k, np.ones(k) / k) + 1  # sixteenths: an exact sum
        prior = parts / 16.0
    # Leaves of 5 rows or more: in smaller nodes two splits often send the same
    # weight of every class each way, and rpart's rounding, not a rule, picks one.
    params = {"max_depth": int(rng.integers(2, 5)), "min_samples_leaf": int(rng.integers(5, 12))}
    params["min_samples_split"] = 2 * params["min_samples_leaf"] + int(rng.integers(0, 5))
    return {
        "X": X[:n],
        "y": y[:n],
        "w": w,
        "X_test": X[n:],
        "loss": loss,
        "prior": prior,
        "params": params,
    }


#: Seeds of :func:`cost_surrogate_problem` compared with rpart.
COST_SURROGATE_SEEDS = tuple(range(8))


def cost_surrogate_problem(seed: int) -> dict:
    """A three-class problem with a loss matrix, NaN and correlated features.

    300 training and 100 new rows on 4 features, ``x1`` a noisy copy of ``x0``
    (so that surrogates exist), 15% of the values of each set NaN, weights of
    1 (even seeds) or drawn in [0.5, 2] (odd seeds), a loss matrix of
    off-diagonal costs from 0.5 to 6.  The dict of :func:`cost_problem`, with
    ``surrogates=True``: rpart and the package grow it with surrogate splits.
    """
    rng = np.random.default_rng(3200 + seed)
    n = 300
    X = rng.normal(size=(n + 100, 4))
    X[:, 1] = X[:, 0] + 0.5 * rng.normal(size=n + 100)
    score = X[:, 0] + 0.8 * X[:, 2] + 0.7 * rng.normal(size=n + 100)
    y = np.digitize(score, np.quantile(score[:n], [0.5, 0.8]))
    X[rng.uniform(size=X.shape) < 0.15] = np.nan
    w = np.ones(n) if seed % 2 == 0 else rng.uniform(0.5, 2.0, size=n)
    loss = rng.choice([0.5, 1.0, 2.0, 4.0, 6.0], size=(3, 3))
    np.fill_diagonal(loss, 0.0)
    params = {"max_depth": 3, "min_samples_leaf": 7, "min_samples_split": 20}
    return {
        "X": X[:n],
        "y": y[:n],
        "w": w,
        "X_test": X[n:],
        "loss": loss,
        "prior": None,
        "params": params,
        "surrogates": True,
    }


def costs_model(problem: dict):
    """The package's tree for a :func:`cost_problem`: rpart's settings as parameters.

    ``loss_matrix`` is the problem's loss, ``class_weight`` makes its priors
    (:func:`~climbing_trees._costs.prior_class_weight`), and
    ``ccp_risk="misclassification"`` makes the node risk rpart's ``dev``.
    """
    from ._classes import DecisionTreeClassifier
    from ._costs import prior_class_weight

    y, w = problem["y"], problem["w"]
    prior = problem["prior"]
    class_weight = None if prior is None else prior_class_weight(y, prior, w)
    model = DecisionTreeClassifier(
        **problem["params"],
        loss_matrix=problem["loss"],
        class_weight=class_weight,
        ccp_risk="misclassification",
    )
    if problem.get("surrogates"):
        model.set_params(missing_values="surrogate", max_surrogates=5)
    return model.fit(problem["X"], y, sample_weight=w)


def rpart_costs_fit(problem: dict, importance: bool = False):
    """rpart's Gini tree on a :func:`cost_problem`: its frame and its predictions.

    ``cp=-1`` (every split kept), the problem's ``minsplit``, ``minbucket`` and
    ``maxdepth``, no surrogates or competitors.  The frame has rpart's node
    numbers, ``var``, ``n``, ``wt``, ``dev`` (the node's risk, weighted by the
    loss and the priors), ``yval`` (the class of least expected cost, 1-based),
    and for splits ``index`` (the threshold) and ``ncat`` (-1: ``x < index``
    goes to the left child ``2 node``; +1: it goes right).  The predictions:
    ``class`` (1-based) and the class probabilities for the new rows.  A
    problem with ``surrogates=True`` is grown with five surrogates per split
    (``usesurrogate=2``, ``surrogatestyle=0``); ``importance=True`` adds a
    third table, rpart's ``variable.importance``.
    """
    X, params = problem["X"], problem["params"]
    columns = [f"x{j}" for j in range(X.shape[1])]
    data = pd.DataFrame(X, columns=columns).assign(y=problem["y"])
    script = (
        _COSTS_SCRIPT.replace("MINSPLIT", str(params["min_samples_split"]))
        .replace("MINBUCKET", str(params["min_samples_leaf"]))
        .replace("MAXDEPTH", str(params["max_depth"]))
        .replace("MAXSURROGATE", "5" if problem.get("surrogates") else "0")
        .replace("USESURROGATE", "2" if problem.get("surrogates") else "0")
    )
    loss = problem["loss"]
    loss = pd.DataFrame({"L": [] if loss is None else loss.ravel(order="F")})
    prior = pd.DataFrame({"p": [] if problem["prior"] is None else problem["prior"]})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        data.to_csv(path / "data.csv", index=False, float_format="%.17g")
        pd.DataFrame(problem["X_test"], columns=columns).to_csv(
            path / "test.csv", index=False, float_format="%.17g"
        )
        pd.DataFrame({"w": problem["w"]}).to_csv(
            path / "weights.csv", index=False, float_format="%.17g"
        )
        loss.to_csv(path / "loss.csv", index=False, float_format="%.17g")
        prior.to_csv(path / "prior.csv", index=False, float_format="%.17g")
        (path / "fit.R").write_text(script)
        subprocess.run(
            ["Rscript", "fit.R"], cwd=folder, check=True, capture_output=True, timeout=120
        )
        out = pd.read_csv(path / "frame.csv"), pd.read_csv(path / "pred.csv")
        if importance:
            out += (pd.read_csv(path / "importance.csv"),)
        return out


def rpart_importance(seed: int, method: str) -> pd.DataFrame:
    """rpart's ``variable.importance`` of its surrogate tree on :func:`surrogate_problem`.

    The tree of :func:`rpart_surrogate_predict` (``method="class"``: on
    :func:`surrogate_classes` of the target); columns ``variable``, ``importance``.
    """
    X, y, w, _, params = surrogate_problem(seed)
    target = surrogate_classes(y) if method == "class" else y
    columns = [f"x{j}" for j in range(X.shape[1])]
    data = pd.DataFrame(X, columns=columns).assign(y=np.asarray(target, dtype=float))
    script = (
        _IMPORTANCE_SCRIPT.replace("MINSPLIT", str(params["min_samples_split"]))
        .replace("MINBUCKET", str(params["min_samples_leaf"]))
        .replace("MAXDEPTH", str(params["max_depth"]))
        .replace("MAXSURROGATE", "5")
        .replace("METHOD", method)
        .replace("STYLE", "0")
        .replace("CP", "0" if method == "anova" else "-1")
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        data.to_csv(path / "data.csv", index=False, float_format="%.17g")
        data.drop(columns="y").to_csv(path / "test.csv", index=False, float_format="%.17g")
        pd.DataFrame({"w": w}).to_csv(path / "weights.csv", index=False, float_format="%.17g")
        (path / "categorical.txt").write_text("")
        (path / "fit.R").write_text(script)
        subprocess.run(
            ["Rscript", "fit.R"], cwd=folder, check=True, capture_output=True, timeout=120
        )
        return pd.read_csv(path / "importance.csv")


def _costs_references() -> dict[str, pd.DataFrame]:
    frames, preds, importances = [], [], []
    for seed in COST_SEEDS:
        frame, pred = rpart_costs_fit(cost_problem(seed))
        frames.append(frame.assign(seed=seed))
        pred.columns = ["class"] + [f"p{k}" for k in range(pred.shape[1] - 1)]
        preds.append(pred.assign(seed=seed))
    for method in ("anova", "class"):
        for seed in SURROGATE_SEEDS:
            importances.append(rpart_importance(seed, method).assign(method=method, seed=seed))
    s_frames, s_preds, s_importances = [], [], []
    for seed in COST_SURROGATE_SEEDS:
        frame, pred, vi = rpart_costs_fit(cost_surrogate_problem(seed), importance=True)
        s_frames.append(frame.assign(seed=seed))
        pred.columns = ["class"] + [f"p{k}" for k in range(pred.shape[1] - 1)]
        s_preds.append(pred.assign(seed=seed))
        s_importances.append(vi.assign(seed=seed))
    return {
        "costs_surrogate_frames": pd.concat(s_frames, ignore_index=True),
        "costs_surrogate_predictions": pd.concat(s_preds, ignore_index=True),
        "costs_surrogate_importance": pd.concat(s_importances, ignore_index=True),
        "costs_frames": pd.concat(frames, ignore_index=True),
        "costs_predictions": pd.concat(preds, ignore_index=True),
        "importance_surrogates": pd.concat(importances, ignore_index=True),
    }


def make_references() -> dict[str, pd.DataFrame]:
    """Run rpart on every reference problem: the tables of the reference files, by name.

    ``pruning_frames`` and ``pruning_cptables``: :func:`rpart_fit` on
    :func:`pruning_problem` for each of :data:`PRUNING_SEEDS` (column ``seed``).
    ``surrogates_anova_*`` and ``surrogates_class_*``:
    :func:`rpart_surrogate_predict` on :func:`surrogate_problem` for each of
    :data:`SURROGATE_SEEDS`, with and without a categorical column, predicting
    the training rows then the new ones; ``*_values`` holds each problem's
    distinct predictions, ``*_rows`` (``codes``) which of them each row gets
    (:func:`reference_surrogate_predict` puts them together).
    ``ch10_comparison``: chapter 9's regression and Gini trees on
    :func:`surrogate_comparison_problem`.  ``ch10_styles``: the held-out mean
    squared error of rpart's regression tree on :func:`missing_experiment`
    (``"mcar"``, 2,000 training and 2,000 new rows) with ``surrogatestyle`` 0
    and 1.  ``costs_frames``, ``costs_predictions``: :func:`rpart_costs_fit` on
    :func:`cost_problem` for each of :data:`COST_SEEDS`;
    ``importance_surrogates``: :func:`rpart_importance`; and
    ``costs_surrogate_frames``, ``_predictions``, ``_importance``: the same
    with surrogates on :func:`cost_surrogate_problem` for each of
    :data:`COST_SURROGATE_SEEDS`.  Needs R with rpart.
    """
    if not have_rpart():
        raise RuntimeError(
            "R with rpart is needed to make the reference files: install R and its "
            "rpart package (Debian: apt-get install r-base-core r-cran-rpart)."
        )
    return {
        **_pruning_references(),
        **_surrogate_references(),
        **_chapter10_references(),
        **_costs_references(),
    }


def load_reference(name: str) -> pd.DataFrame:
    """The committed reference table ``name`` (see :func:`make_references`)."""
    path = REFERENCE_DIR / f"{name}.csv"
    if not path.exists():
        known = sorted(p.stem for p in REFERENCE_DIR.glob("*.csv"))
        raise ValueError(f"no reference table {name!r}; the tables are {known}.")
    return pd.read_csv(path, keep_default_na=False, na_values=[])


def reference_fit(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """rpart's frame and cptable for :func:`pruning_problem` ``(seed)``, from the files.

    What :func:`rpart_fit` returns for that problem, without R.
    """
    if seed not in PRUNING_SEEDS:
        raise ValueError(f"seed={seed!r}: the reference files hold seeds {PRUNING_SEEDS}.")
    out = []
    for name in ("pruning_frames", "pruning_cptables"):
        table = load_reference(name)
        table = table[table["seed"] == seed].drop(columns="seed")
        out.append(table.reset_index(drop=True))
    return out[0], out[1]


def reference_surrogate_predict(seed: int, categorical: bool, method: str) -> np.ndarray:
    """rpart's predictions for :func:`surrogate_problem`, from the files.

    What :func:`rpart_surrogate_predict` returns for the problem's training rows
    followed by its new rows (``method="class"``: on :func:`surrogate_classes`
    of the target), without R.
    """
    if method not in ("anova", "class"):
        raise ValueError(f"method={method!r}: use 'anova' or 'class'.")
    values = load_reference(f"surrogates_{method}_values")
    rows = load_reference(f"surrogates_{method}_rows")
    here = (rows["seed"] == seed) & (rows["categorical"] == int(categorical))
    if not here.any():
        raise ValueError(f"seed={seed!r}: the reference files hold seeds {SURROGATE_SEEDS}.")
    codes = np.array(rows.loc[here, "codes"].item().split(), dtype=np.intp)
    here = (values["seed"] == seed) & (values["categorical"] == int(categorical))
    table = values[here].set_index("value").sort_index()
    distinct = table.drop(columns=["categorical", "seed"]).to_numpy(dtype=float)
    return distinct[codes, 0] if method == "anova" else distinct[codes]


def reference_costs(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """rpart's frame and predictions for :func:`cost_problem` ``(seed)``, from the files.

    What :func:`rpart_costs_fit` returns for that problem, without R.
    """
    if seed not in COST_SEEDS:
        raise ValueError(f"seed={seed!r}: the reference files hold seeds {COST_SEEDS}.")
    out = []
    for name in ("costs_frames", "costs_predictions"):
        table = load_reference(name)
        table = table[table["seed"] == seed].drop(columns="seed")
        table = table.replace("", np.nan).dropna(axis=1, how="all")  # leaves; 2 classes
        numeric = [c for c in table.columns if c != "var"]
        out.append(table.astype(dict.fromkeys(numeric, float)).reset_index(drop=True))
    return out[0], out[1]


def reference_costs_surrogates(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    """rpart's frame, predictions and importance for :func:`cost_surrogate_problem`.

    What :func:`rpart_costs_fit` returns for that problem with
    ``importance=True``, from the files; the importance as a Series indexed
    by feature number.
    """
    if seed not in COST_SURROGATE_SEEDS:
        raise ValueError(
            f"seed={seed!r}: the reference files hold seeds {COST_SURROGATE_SEEDS}."
        )
    out = []
    for name in ("costs_surrogate_frames", "costs_surrogate_predictions"):
        table = load_reference(name)
        table = table[table["seed"] == seed].drop(columns="seed")
        table = table.replace("", np.nan).dropna(axis=1, how="all")
        numeric = [c for c in table.columns if c != "var"]
        out.append(table.astype(dict.fromkeys(numeric, float)).reset_index(drop=True))
    table = load_reference("costs_surrogate_importance")
    table = table[table["seed"] == seed]
    index = [int(name[1:]) for name in table["variable"]]
    importance = pd.Series(table["importance"].to_numpy(), index=index, name="importance")
    return out[0], out[1], importance


def reference_importance(seed: int, method: str) -> pd.Series:
    """rpart's ``variable.importance`` for :func:`rpart_importance`, from the files.

    A Series indexed by feature number, in rpart's order (largest first).
    """
    table = load_reference("importance_surrogates")
    table = table[(table["seed"] == seed) & (table["method"] == method)]
    if table.empty:
        raise ValueError(f"seed={seed!r}: the reference files hold seeds {SURROGATE_SEEDS}.")
    index = [int(name[1:]) for name in table["variable"]]
    return pd.Series(table["importance"].to_numpy(), index=index, name="importance")


def compare_with_rpart_frame(model, frame: pd.DataFrame, X, y, sample_weight) -> dict:
    """Node by node: does a classifier fitted on ``(X, y, sample_weight)`` grow rpart's tree?

    Walks both trees from the root; rpart's node ``k`` has children ``2k`` and
    ``2k + 1``, the first of which holds ``x < index`` when ``ncat`` is -1 and
    ``x >= index`` when it is +1.  rpart's ``dev`` is the node's risk times
    the training weight.  Returns the counts of ``nodes`` compared and of
    those with the same ``split`` (both leaves, or the same feature and
    threshold to 1e-9), ``n`` (rows), ``class`` (least expected cost) and
    ``risk`` (to 1e-9; a class counts as the same when its expected cost
    equals the least to ``TIE_RTOL``: on an exact tie of costs rpart's
    rounding picks a class, the package the lowest); ``tied``, the splits
    that differ but send exactly the same weight of every class to each side
    (equally good for any criterion: rpart's rounding picks one, the
    package's tie rule, the lowest feature, another); and ``same_tree``
    (every node agrees, ties aside, and both trees have as many nodes).
    """
    tree = model.tree_
    weight = float(np.sum(sample_weight))
    X, codes = np.asarray(X, dtype=float), np.searchsorted(model.classes_, y)
    reach = model.decision_path(X).tocsc()
    risk = model._node_risk(tree) if model.ccp_risk == "misclassification" else None
    if risk is None:
        raise ValueError("compare a model fitted with ccp_risk='misclassification'.")
    from ._costs import expected_costs
    from ._ties import TIE_RTOL

    value, costs = tree.value[:, 0, :], getattr(model, "_costs_", None)
    loss = 1 - np.eye(value.shape[1]) if costs is None else costs.loss.matrix
    expected = expected_costs(value if costs is None else costs.proba(value), loss)
    least = expected.min(axis=1)
    rows = {int(k): r for r, k in enumerate(frame["node"])}
    counts = dict.fromkeys(("nodes", "split", "tied", "n", "class", "risk"), 0)
    todo = [(1, 0)]
    while todo:
        k, t = todo.pop()
        if k not in rows:
            continue
        r = frame.iloc[rows[k]]
        counts["nodes"] += 1
        rpart_leaf = r["var"] == "<leaf>"
        leaf = tree.children_left[t] == TREE_LEAF
        if rpart_leaf and leaf:
            counts["split"] += 1
        elif not rpart_leaf and not leaf:
            feature = int(r["var"][1:])
            same = feature == tree.feature[t] and np.isclose(
                r["index"], tree.threshold[t], rtol=1e-9, atol=0
            )
            counts["split"] += bool(same)
            if not same:
                here = reach[:, [t]].nonzero()[0]
                goes = (
                    X[here, feature] < r["index"],
                    X[here, tree.feature[t]] <= tree.threshold[t],
                )
                sides = [
                    sorted(
                        tuple(
                            math.fsum(sample_weight[here][(codes[here] == c) & side])
                            for c in range(len(model.classes_))
                        )
                        for side in (g, ~g)
                    )
                    for g in goes
                ]
                counts["tied"] += sides[0] == sides[1]
            left, right = tree.children_left[t], tree.children_right[t]
            if r["ncat"] > 0:
                left, right = right, left
            todo += [(2 * k, left), (2 * k + 1, right)]
        counts["n"] += int(r["n"] == tree.n_node_samples[t])
        cost = expected[t, int(r["yval"]) - 1]
        counts["class"] += bool(cost <= least[t] + TIE_RTOL * abs(least[t]))
        counts["risk"] += bool(np.isclose(r["dev"], risk[t] * weight, rtol=1e-9, atol=1e-9))
    nodes = counts["nodes"]
    counts["same_tree"] = (
        counts["split"] + counts["tied"] == nodes
        and counts["n"] == counts["class"] == counts["risk"] == nodes
        and nodes == len(frame) == tree.node_count
    )
    return counts


def _differences(made: dict[str, pd.DataFrame], rtol: float = 1e-12) -> list[str]:
    """How the freshly made tables differ from the committed files (empty: they agree).

    Numbers agree to a relative ``rtol``: rpart's output is exact in the files, and
    the inputs are the same numbers on every machine (:func:`equicorrelated_normal`);
    the tolerance absorbs the printing of R's numbers.
    """
    problems = []
    committed = {p.stem for p in REFERENCE_DIR.glob("*.csv")}
    for name in sorted(committed - set(made)):
        problems.append(f"{name}.csv is committed but no longer made")
    for name, table in made.items():
        if name not in committed:
            problems.append(f"{name}.csv is missing")
            continue
        # Compare what was made as it reads back from a file.
        old, new = load_reference(name), _round_trip(table)
        if list(old.columns) != list(new.columns) or len(old) != len(new):
            problems.append(
                f"{name}.csv: columns {list(old.columns)} and {len(old)} rows, "
                f"rpart now gives {list(new.columns)} and {len(new)} rows"
            )
            continue
        for column in old.columns:
            a, b = old[column].to_numpy(), new[column].to_numpy()
            if a.dtype.kind in "fi" and b.dtype.kind in "fi":
                same = np.isclose(a, b, rtol=rtol, atol=0) | (np.isnan(a) & np.isnan(b))
            else:
                same = a.astype(str) == b.astype(str)
            if not same.all():
                i = int(np.flatnonzero(~same)[0])
                old_value, new_value = (getattr(v, "item", lambda v=v: v)() for v in (a[i], b[i]))
                problems.append(
                    f"{name}.csv, column {column!r}: {int((~same).sum())} values differ "
                    f"(row {i}: {old_value!r} committed, {new_value!r} from rpart)"
                )
    return problems


def _round_trip(table: pd.DataFrame) -> pd.DataFrame:
    import io

    buffer = io.StringIO()
    table.to_csv(buffer, index=False)
    buffer.seek(0)
    return pd.read_csv(buffer, keep_default_na=False, na_values=[])


def write_references(made: dict[str, pd.DataFrame]) -> None:
    """Write the tables as ``REFERENCE_DIR/<name>.csv`` (floats in shortest exact form)."""
    REFERENCE_DIR.mkdir(exist_ok=True)
    for old in REFERENCE_DIR.glob("*.csv"):
        if old.stem not in made:
            old.unlink()
    for name, table in made.items():
        table.to_csv(REFERENCE_DIR / f"{name}.csv", index=False, lineterminator="\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m climbing_trees._rpart",
        description="Make rpart's reference files again (needs R with rpart).",
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help="rewrite the files")
    group.add_argument("--check", action="store_true", help="compare with the files")
    args = parser.parse_args(argv)
    made = make_references()
    if args.write:
        write_references(made)
        print(f"wrote {len(made)} tables to {REFERENCE_DIR}")
        return 0
    problems = _differences(made)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print("rpart's output changed: rerun with --write and review the diff.", file=sys.stderr)
        return 1
    print(f"rpart's output equals the {len(made)} committed tables in {REFERENCE_DIR}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
