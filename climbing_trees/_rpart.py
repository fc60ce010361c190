"""rpart as an outside reference: pruning (chapter 9) and surrogate splits (chapter 10).

R's rpart (Therneau and Atkinson) grows a classification tree and reports
its cost-complexity sequence as ``cptable``.  These helpers run rpart through
``Rscript`` on a numeric table, read back the tree it grew (``frame``) and
its ``cptable``, and turn the tree into a :class:`~climbing_trees.Tree` so
that :func:`~climbing_trees.weakest_links` can prune the very same tree.
:func:`rpart_surrogate_predict` grows rpart's regression or Gini tree with
surrogate splits, the reference of chapter 10.  They need R with the rpart
package; :func:`have_rpart` says whether it is there.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ._pruning import weakest_links
from ._tree import TREE_LEAF, TREE_UNDEFINED, Tree

_SCRIPT = """
suppressMessages(library(rpart))
d <- read.csv("data.csv"); d$y <- factor(d$y)
fit <- rpart(y ~ ., data = d, method = "class", parms = list(split = "gini"),
             control = rpart.control(cp = 0, minsplit = 2, minbucket = 1, xval = 0,
                                     maxcompete = 0, maxsurrogate = 0, usesurrogate = 0))
fr <- fit$frame
write.csv(data.frame(node = as.integer(rownames(fr)), var = as.character(fr$var),
                     n = fr$n, dev = fr$dev, complexity = fr$complexity),
          "frame.csv", row.names = FALSE)
write.csv(fit$cptable, "cptable.csv", row.names = FALSE)
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


_SURROGATE_SCRIPT = """
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
write.csv(data.frame(p = p), "pred.csv", row.names = FALSE)
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
    Chapter 10 and the surrogate tests compare the estimators'
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
