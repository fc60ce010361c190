"""Trees beyond one machine: a histogram tree (``splitter="hist"``) fitted on Dask.

``fit`` of :class:`~climbing_trees.DecisionTreeRegressor` or
:class:`~climbing_trees.DecisionTreeClassifier` with ``splitter="hist"``
accepts a row-chunked ``dask.array`` ``X`` and grows, on the current
``distributed`` client, the tree the in-memory fit grows: the same arrays,
bit for bit, whatever the chunking, because every sum that crosses a
partition is an integer (:mod:`climbing_trees._histograms`).

How the work is split (chapter "Trees beyond one machine"):

- each worker holds a *shard*, the rows of a contiguous run of chunks, raw
  and binned, resident for the whole fit (:class:`_Shard`), and each row's
  node; one task per worker per round, never one per chunk;
- the bins come from the rows :func:`climbing_trees._binning.subsample_rows`
  draws (every row up to 200,000; beyond, the same global row numbers as the
  in-memory fit), gathered once, and :func:`~climbing_trees._binning.bins_of_sample`;
- per level, two rounds: each worker returns the int64 histograms of the
  nodes the in-memory plan sums
  (:func:`~climbing_trees._levelwise._histogram_plan.plan_histograms`: the
  root, then mostly the smaller child of each pair) over its rows; the
  client adds them (integer addition: any order) and derives the others by
  subtraction, as in memory (a last level too wide to hold at once is summed
  a few pairs at a time, one round each); the level-wise loop runs its own search,
  tie rule and stopping rules on them
  (:class:`~climbing_trees._levelwise._histogram_search.Histograms`); then
  each worker routes its rows of the split nodes
  (:func:`~climbing_trees._levelwise._grow.numeric_goes_left`, the in-memory
  rule) and returns one bit per row.

The client keeps the target and weight columns and the level's row index
(about 20 bytes a row, against ``8 d`` for ``X``): the node values,
impurities and fixed-point scales of the in-memory fit are float sums in
row order, and the client computes them with the in-memory code
(:func:`~climbing_trees._levelwise._state.level_of`), so they are the same
bits.  ``X`` never leaves the workers except the binning sample.

The estimator's own ``fit`` runs on the client over a placeholder of ``X``
(zero pages that are never written but for one column of row numbers, which
tell which rows a zero weight removed): every check, target encoding,
weight rule, pruning and the fitted attributes are the in-memory fit's.
Only the rows object of the histogram fit is swapped, through the hook
:data:`~climbing_trees._levelwise._binned_rows.ROWS_SOURCE`, for
:class:`RemoteRows`.

Options whose statistics cannot be summed over partitions are refused with
the alternative named (:func:`dask_refusal`).  A worker lost during a fit
makes the fit fail with a clear error (each shard counts its calls, so a
shard recomputed from scratch is noticed); the previous model stays.
"""

from __future__ import annotations

import copy
import time

import numpy as np

from ._binning import bins_of_sample, subsample_rows
from ._histograms import node_histograms
from ._levelwise._binned_rows import ROWS_SOURCE, BinnedRows, row_index
from ._levelwise._grow import numeric_goes_left

LOST = (
    "a Dask worker holding rows of this fit was lost (its rows were recomputed "
    "without their nodes); the fit is abandoned and the previous model kept: fit again"
)


def is_dask_collection(x) -> bool:
    """Whether ``x`` is a Dask collection (checked without importing dask)."""
    return type(x).__module__.split(".")[0] == "dask"


def dask_refusal(estimator) -> str | None:
    """Why ``estimator`` cannot be fitted on Dask input, or None."""
    if estimator.splitter != "hist":
        return (
            f"splitter={estimator.splitter!r} sorts each node's rows, which cannot be "
            "done across partitions; use splitter='hist' (histograms of exact integer "
            "sums) to fit on a Dask array, or compute X into memory first."
        )
    if estimator.criterion == "absolute_error":
        return (
            "criterion='absolute_error' needs medians, which are not sums and cannot be "
            "added over partitions; use criterion='squared_error' (or 'poisson') on Dask."
        )
    if estimator.missing_values != "learn":
        return (
            f"missing_values={estimator.missing_values!r} is not available on Dask "
            "(surrogates and fractional rows are not sums of per-row statistics); use "
            "missing_values='learn'."
        )
    if estimator.categorical_features not in (None, "auto"):
        return (
            "categorical_features are not supported on a Dask array yet; encode the "
            "categories as numbers, or compute X into memory first."
        )
    if estimator.max_features is not None:
        return (
            f"max_features={estimator.max_features!r} (random feature subsets) is not "
            "supported on Dask yet; use max_features=None."
        )
    if estimator.monotonic_cst is not None:
        return "monotonic_cst is not supported on Dask; use monotonic_cst=None."
    return None


# ---------------------------------------------------------------- the workers


class _Shard:
    """One worker's rows: raw values, codes, per-row statistics and each row's node.

    Every call goes through :func:`_call`, which checks the call's number:
    a shard that was lost and recomputed from its chunks starts again at 0.
    """

    def __init__(self, *blocks):
        X = np.concatenate(blocks) if len(blocks) > 1 else blocks[0]
        self.X = np.ascontiguousarray(X, dtype=float)
        self.calls = 0

    def check(self):
        """Whether any value is infinite (as the in-memory ``fit`` checks)."""
        return bool(np.isinf(self.X).any())

    def keep(self, kept):
        """Keep the rows ``kept`` (local numbers; the others had weight 0)."""
        if kept.size != self.X.shape[0]:
            self.X = np.ascontiguousarray(self.X[kept])

    def sample(self, rows, max_bins):
        """The rows ``rows``, and each column's distinct present values (None if
        more than ``max_bins``)."""
        distinct = []
        for j in range(self.X.shape[1]):
            column = self.X[:, j]
            values = np.unique(column[~np.isnan(column)])
            distinct.append(values if len(values) <= max_bins else None)
        return self.X[rows], distinct

    def bin(self, bins):
        """Bin the rows (:meth:`Bins.codes`); every row in the root.  Returns which
        columns have a missing value."""
        self.codes = bins.codes(self.X)
        self.node = np.zeros(self.X.shape[0], dtype=np.intp)
        return (self.codes == bins.missing_bin).any(axis=0)

    def histograms(self, built, width, n_nodes, stats=None):
        """The int64 histograms of the nodes ``built`` over this shard's rows."""
        if stats is not None:
            self.stats = stats
        inside = np.flatnonzero(self.node >= 0)
        rows = inside[np.argsort(self.node[inside], kind="stable")]
        sizes = np.bincount(self.node[inside], minlength=n_nodes)
        starts = np.zeros(n_nodes, dtype=np.intp)
        np.cumsum(sizes[:-1], out=starts[1:])
        return node_histograms(self.codes, rows, starts, sizes, built, self.stats, width)

    def route(self, split, feature, threshold, missing_left):
        """Move the rows of the split nodes into their children (left children in
        their parents' order, then right ones; other rows leave), as the client's
        index does.  Returns one bit per moved row (local order) and their count."""
        moved = np.flatnonzero(self.node >= 0)
        moved = moved[split[self.node[moved]]]
        node = self.node[moved]
        x = self.X[moved, feature[node]]
        go_left = numeric_goes_left(x, threshold[node], missing_left, node)
        rank = np.cumsum(split) - 1  # a split node's place among them
        n_split = int(split.sum())
        self.node[:] = -1
        self.node[moved] = np.where(go_left, rank[node], n_split + rank[node])
        return np.packbits(go_left), moved.size


def _call(shard, call, method, *args):
    """Run ``shard.method(*args)`` if it is the shard's call number ``call``."""
    if shard.calls != call:
        raise RuntimeError(LOST)
    shard.calls += 1
    return getattr(shard, method)(*args)


# ---------------------------------------------------------------- the client


class _Cluster:
    """The shards of one fit: their futures, workers, first rows, and the fit report."""

    def __init__(self, client, futures, workers, firsts, lengths):
        self.client, self.futures, self.workers = client, futures, workers
        self.firsts, self.lengths = firsts, lengths
        self.calls = 0
        self.report = {"rounds": 0, "bytes": 0, "levels": [], "workers": len(futures)}

    def round(self, method, args_of, depth=None):
        """One task per shard (``args_of(s)``: shard ``s``'s arguments), gathered in order."""
        start = time.perf_counter()
        tasks = [
            self.client.submit(
                _call,
                future,
                self.calls,
                method,
                *args_of(s),
                workers=[worker],
                allow_other_workers=True,
                pure=False,
            )
            for s, (future, worker) in enumerate(zip(self.futures, self.workers, strict=True))
        ]
        results = self.client.gather(tasks)
        self.calls += 1
        seconds = time.perf_counter() - start
        received = sum(_nbytes(r) for r in results)
        self.report["rounds"] += 1
        self.report["bytes"] += received
        if depth is not None:
            levels = self.report["levels"]
            if len(levels) <= depth:
                levels.append(
                    {"depth": depth, "rounds": 0, "bytes": 0, "seconds": 0.0,
                     "built_nodes": 0, "histogram_bytes": 0}
                )  # fmt: skip
            entry = levels[depth]
            entry["rounds"] += 1
            entry["bytes"] += received
            entry["seconds"] += seconds
        return results


def _nbytes(result) -> int:
    if isinstance(result, np.ndarray):
        return result.nbytes
    if isinstance(result, (tuple, list)):
        return sum(_nbytes(r) for r in result)
    return 8 if result is not None else 0


class RemoteRows(BinnedRows):
    """:class:`BinnedRows` whose codes live on the workers (:class:`_Shard`).

    Which histograms a level sums and which it derives by subtraction is the
    in-memory plan's (:func:`~climbing_trees._levelwise._histogram_plan.plan_histograms`);
    only the sums come from the workers.  Without codes on the client no node
    is searched from its rows (``local_codes``): the plan treats every searched
    node as one of bins, which gives the same tree.

    The client keeps the level's row index (the level's rows node by node, as
    in memory), so the loop's node summaries are the in-memory fit's; the
    histograms and the routing of rows come from the workers.
    """

    local_codes = False  # the codes are on the workers

    def __init__(self, fit, max_bins: int, random_state, cluster: _Cluster):
        self.cluster = cluster
        n = fit.n
        kept = fit.X[:, 0].astype(np.int64)  # the placeholder's row numbers
        # The fit's rows held by each shard: a contiguous run (X[keep] keeps order).
        bounds = np.searchsorted(kept, np.append(cluster.firsts, np.iinfo(np.int64).max))
        self.bounds = bounds
        cluster.round("keep", lambda s: (kept[bounds[s] : bounds[s + 1]] - cluster.firsts[s],))
        drawn = subsample_rows(n, random_state)
        if drawn is None:
            wanted = [np.arange(bounds[s + 1] - bounds[s]) for s in range(len(bounds) - 1)]
        else:
            wanted = [
                drawn[(drawn >= bounds[s]) & (drawn < bounds[s + 1])] - bounds[s]
                for s in range(len(bounds) - 1)
            ]
        parts = cluster.round("sample", lambda s: (wanted[s], max_bins))
        sample = np.concatenate([rows for rows, _ in parts])  # quantiles: any row order
        distinct = None
        if drawn is not None:
            columns = list(zip(*(d for _, d in parts), strict=True))

            def distinct(j):
                if any(values is None for values in columns[j]):
                    return None
                full = np.unique(np.concatenate(columns[j]))
                return full if len(full) <= max_bins else None

        self.bins = bins_of_sample(sample, max_bins, distinct)
        missing = cluster.round("bin", lambda s: (self.bins,))
        self.has_missing = np.logical_or.reduce(missing)
        self.index = row_index(n)
        self.last_split = None
        self.codes = None  # on the workers
        self.stats_sent = False

    def built_histograms(self, level, nodes, stats, out) -> None:
        """The histograms of ``nodes`` (the plan's summed nodes,
        :meth:`~climbing_trees._levelwise._histogram_search.Histograms.built_histograms`):
        each worker sums them over its rows, the client adds the parts into ``out``."""
        if not nodes.size:
            return
        width, n_nodes = out.shape[2], level.n_nodes
        bounds = self.bounds
        if self.stats_sent:

            def args(s):
                return nodes, width, n_nodes
        else:

            def args(s):  # the first round: each shard's statistics travel once
                return nodes, width, n_nodes, stats[bounds[s] : bounds[s + 1]]

        parts = self.cluster.round("histograms", args, level.depth)
        self.stats_sent = True
        out[...] = parts[0]
        for part in parts[1:]:
            out += part  # integers: the order of the shards does not matter
        entry = self.cluster.report["levels"][level.depth]
        entry["built_nodes"] += int(nodes.size)
        entry["histogram_bytes"] += sum(part.nbytes for part in parts)

    def routes(self, level, made, split):
        """The rows of split nodes (index order), their nodes and sides, from the
        workers' bits: ``_routes``' result, without ``X``."""
        keep = split[level.node_of_pos]
        kept_rows = np.compress(keep, level.index_rows)
        kept_node = np.compress(keep, level.node_of_pos)
        args = (split, made.feature, made.threshold, made.missing_left)
        parts = self.cluster.round("route", lambda s: args, level.depth)
        if sum(count for _, count in parts) != kept_rows.size:
            raise RuntimeError(LOST)
        go = np.concatenate(
            [np.unpackbits(bits, count=count).astype(bool) for bits, count in parts]
        )
        by_row = np.zeros(self.index.shape[1], dtype=bool)
        by_row[np.sort(kept_rows)] = go  # the shards hold the rows in order
        return kept_rows, kept_node, by_row[kept_rows]


def _client():
    try:
        from distributed import get_client
    except ImportError as error:  # pragma: no cover - dask is an optional extra
        raise ImportError(
            "fitting on a Dask array needs dask and distributed: pip install 'climbing-trees[dask]'"
        ) from error
    try:
        return get_client()
    except ValueError as error:
        raise ValueError(
            "fitting on a Dask array needs a distributed client: start one first "
            "(distributed.Client() or Client(LocalCluster()))."
        ) from error


def _as_numpy(a):
    if a is None:
        return None
    return np.asarray(a.compute()) if is_dask_collection(a) else a


def _shards(client, X):
    """One shard per worker, each a contiguous run of ``X``'s row chunks."""
    workers = sorted(client.scheduler_info()["workers"])
    blocks = X.to_delayed().ravel().tolist()
    sizes = np.asarray(X.chunks[0], dtype=np.int64)
    n_blocks = len(blocks)
    owner = np.arange(n_blocks) * len(workers) // n_blocks  # contiguous runs
    block_futures = client.compute(blocks)
    futures, addresses, firsts, lengths = [], [], [], []
    starts = np.concatenate([[0], np.cumsum(sizes)])
    for w, address in enumerate(workers):
        mine = np.flatnonzero(owner == w)
        if not mine.size:
            continue
        futures.append(
            client.submit(
                _Shard,
                *[block_futures[i] for i in mine],
                workers=[address],
                allow_other_workers=True,
                pure=False,
            )
        )
        addresses.append(address)
        firsts.append(int(starts[mine[0]]))
        lengths.append(int(sizes[mine].sum()))
    del block_futures
    return _Cluster(client, futures, addresses, np.array(firsts), np.array(lengths))


def fit_on_dask(estimator, X, y, sample_weight=None):
    """``estimator.fit(X, y, sample_weight)`` with ``X`` a row-chunked dask array."""
    refusal = dask_refusal(estimator)
    if refusal is not None:
        raise ValueError(refusal)
    if type(X).__name__ != "Array":
        raise TypeError(
            f"fit on Dask takes a row-chunked dask.array X, not a {type(X).__name__}; "
            "for a dask DataFrame of numerical columns pass df.to_dask_array(lengths=True)."
        )
    client = _client()
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features); got {X.ndim} dimensions.")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    X = X.rechunk({1: -1})  # whole rows in each chunk
    y, sample_weight = _as_numpy(y), _as_numpy(sample_weight)
    n, d = X.shape
    cluster = _shards(client, X)
    if any(cluster.round("check", lambda s: ())):
        raise ValueError("Input X contains infinity or a value too large for dtype('float64').")
    # The placeholder: zero pages (never written, so never allocated) and the
    # row numbers in column 0, Fortran order so that only that column is written.
    placeholder = np.zeros((n, d), order="F")
    if d:
        placeholder[:, 0] = np.arange(n)
    made = []

    def rows_source(fit, max_bins, random_state):
        made.append(RemoteRows(fit, max_bins, random_state, cluster))
        return made[-1]

    learner = copy.copy(estimator)  # shares random_state: a RandomState advances
    token = ROWS_SOURCE.set(rows_source)
    try:
        learner.fit(placeholder, y, sample_weight)
    finally:
        ROWS_SOURCE.reset(token)
        client.cancel(cluster.futures)
    if not made:
        raise RuntimeError(
            "the Dask fit did not reach the histogram builder (an option sent it to "
            "another one); this is a bug in climbing_trees: please report it."
        )
    learner.fit_report_ = cluster.report
    estimator._adopt_fitted_state(learner)  # no attribute of a former fit stays
    return estimator


def lazy_predict(estimator, method: str, X):
    """``estimator.method`` over each row chunk of a dask array: a lazy dask array."""
    X = X.rechunk({1: -1})
    function = getattr(estimator, method)
    meta = function(np.zeros((1, X.shape[1])))
    if isinstance(meta, list):  # one array per output
        raise ValueError(
            f"{method} of several outputs returns a list, which has no lazy form here; "
            "call it on each chunk (X.to_delayed()) or on X.compute()."
        )
    if meta.ndim == 1:
        return X.map_blocks(function, drop_axis=1, dtype=meta.dtype)
    return X.map_blocks(function, chunks=(X.chunks[0], meta.shape[1:]), dtype=meta.dtype)
