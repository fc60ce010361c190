"""Trees beyond one machine: a histogram tree (``splitter="hist"``) fitted on Dask.

``fit`` of :class:`~climbing_trees.DecisionTreeRegressor` or
:class:`~climbing_trees.DecisionTreeClassifier` with ``splitter="hist"``
accepts a row-chunked ``dask.array`` ``X`` (or a dask DataFrame) and grows, on the current
``distributed`` client, the tree the in-memory fit grows: the same arrays,
bit for bit, whatever the chunking, because every sum that crosses a
partition is an integer (:mod:`climbing_trees._histograms`).

How the work is split (chapter "Trees beyond one machine"):

- each worker holds a *shard*, the rows of a contiguous run of chunks, raw
  and binned, resident for the whole fit (:class:`_Shard`), and each row's
  node; one task per worker per round, never one per chunk, pinned to the
  worker that holds the shard;
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

The client keeps the target and weight columns and the level's row index and
summaries (chapter "Trees beyond one machine" measures the bytes a row): the
node values, impurities and fixed-point scales of the in-memory fit are float
sums in row order, and the client computes them with the in-memory code
(:func:`~climbing_trees._levelwise._state.level_of`), so they are the same
bits.  ``X`` never leaves the workers except the binning sample.  The client
sends each worker its rows' statistics once (straight to the worker,
``scatter``, as every large argument), and a bit a row if a zero weight
removed rows; ``fit_report_`` counts the bytes both ways, including the
arrays inside ``X``'s graph (``graph_bytes``: ``X`` made by ``da.from_array``
on the client travels with its graph; not the target or weights if they are
Dask arrays, which the client computes first).

Where a shard lives.  A shard changes every round (its rows' nodes), and
Dask's data store assumes that a value never changes: a worker short of
memory pickles values to disk at any moment and later loads that copy, which
would bring back an old shard.  So shards are not Dask data: each worker keeps
them in a registry of its own (:data:`_SHARDS`, by fit and shard), which the
memory manager counts as the process's memory (it pauses or stops a worker
as for any memory, but never spills a shard).  The chunks of ``X`` and the
statistics sent are Dask data as usual: they never change, and may spill.
The registry is emptied at the end of every fit, failed or not, and keeps
the ids of the fits released (:data:`_RELEASED`): a load still running when
its fit failed or was interrupted then drops its shard instead of keeping it
for good.  A worker paused for memory runs no task, and the shard's tasks
cannot run elsewhere: a round that waits on a worker paused for longer than
:data:`PAUSED_SECONDS` fails with an error that says so
(:func:`paused_too_long`).  Actors
(``actor=True``) would also keep a shard out of the store; a registry is
plainer: one dict, one function per call (:func:`_call`).

The estimator's own ``fit`` runs on the client over a placeholder of ``X``
(zero pages that are never written but for one column of row numbers, the
first numerical one, which tell which rows a zero weight removed, and the
codes of categorical columns): every check, target encoding,
weight rule, pruning and the fitted attributes are the in-memory fit's.  (A
zero weight makes that ``fit`` copy the placeholder's kept rows, ``8 d``
bytes a kept row on the client for the length of the fit: not avoided yet.)
Only the rows object of the histogram fit is swapped, through the hook
:data:`~climbing_trees._levelwise._binned_rows.ROWS_SOURCE`, for
:class:`RemoteRows`.

Categorical features.  A column listed in ``categorical_features`` holds
numbers, each a level.  One round collects each shard's distinct values of it
(and whether one is missing); the client takes their union, which no
partitioning changes, and lists the levels by the in-memory rule (sorted,
missing last: :func:`_categorical_levels`).  A second round turns each
shard's values into their codes and returns them: the in-memory categorical
search of a histogram fit is not binned (it sums each node's rows' float
statistics by level, in row order), so the client runs that same search on
each row's code, one small integer a row and categorical column.  The
workers route the rows of a categorical split with the in-memory rule
(:func:`~climbing_trees._levelwise._grow.set_goes_left`).  (The placeholder,
below, then holds the codes, and the estimator's encoding copies it once: ``8 d``
bytes a row on the client for the length of the fit.)

A dask DataFrame is read as the in-memory fit reads a pandas one
(:func:`frame_as_array`): ``category`` columns with known categories (each
value travels as its code), ``bool`` columns, numerical ones; the model has
the frame's column names.  ``predict`` on a dask DataFrame runs the model on
each partition, a pandas DataFrame (:func:`lazy_predict`).

Random feature subsets (``max_features``).  A node draws its features among
those not constant in it (:func:`~climbing_trees._levelwise._draws._node_draws`),
which reads each node's smallest and largest value of the features it may
draw, and whether one is missing.  Each worker returns these over its rows
(:meth:`_Shard.ranges`), and the client combines them by ``fmin``, ``fmax``
and ``or`` (:meth:`RemoteRows.needed_ranges`): a minimum of floats is one of
them, in any order, so the draws, and the tree, are the in-memory ones.  One
round a level more (two where a node's first draws are all constant and it
draws again); the client keeps no copy of ``X`` by feature.

Forests (:func:`forest_data`), two routes, by the size of ``X`` against
:data:`FOREST_SHARE` of the smallest worker's memory limit.  ``X`` that fits
a worker is computed once, sent once to every worker, and each tree grows in
memory on a worker (:func:`grow_on_workers`), any splitter.  Larger ``X``:
each tree is a histogram tree (``splitter="hist"``, else refused) grown over
the whole cluster as above, one tree after another
(:func:`grow_over_cluster`).  ``X`` is loaded onto the workers once
(:class:`DaskRows`); each tree works on a fork of every shard
(:meth:`_Shard.fork`: the same array, its own kept rows, bins and nodes),
dropped at the tree's end.  Either way the trees get the in-memory forest's
seeds and weights (bootstrap counts times sample and class weights): the
same trees, bit for bit.  Out-of-bag estimates over the cluster are summed
block by block where the blocks are (:func:`oob_sums`): the client sends a
bit a row and tree and receives each row's sums and votes.  What the client
holds while a tree grows is a tree fit's (above): the target, weights and
row index, and, since the bootstrap gives rows a zero weight, the
placeholder's kept rows (``8 d`` bytes a kept row; not avoided yet).  The
forest's ``fit_report_`` holds each tree's report and the set-up's, and their
totals (:func:`forest_report`).  The trees grow one after another, each round
carrying one tree's histograms: growing several per round is not done.

Options whose statistics cannot be summed over partitions are refused with
the alternative named (:func:`dask_refusal`).  A worker lost during a fit
makes the fit fail with a clear error (:data:`LOST`): a round watches that its
workers are still in the cluster, a restarted worker has no shard, and each
shard counts the calls it completed, so a call run twice is noticed; the
previous model stays.
"""

from __future__ import annotations

import copy
import pickle
import threading
import time
import uuid

import numpy as np

from ._binning import bins_of_sample, subsample_rows
from ._histograms import node_histograms
from ._levelwise._binned_rows import ROWS_SOURCE, BinnedRows, row_index
from ._levelwise._grow import numeric_goes_left, set_goes_left
from ._random import feature_ranges

LOST = (
    "a Dask worker holding rows of this fit was lost (it died, was restarted or left "
    "the cluster, and its rows went with it); the fit is abandoned and the previous "
    "model kept: fit again (if the worker was killed for memory, give the workers "
    "more memory or add workers)"
)


def is_dask_collection(x) -> bool:
    """Whether ``x`` is a Dask collection (checked without importing dask)."""
    return type(x).__module__.split(".")[0] == "dask"


def is_dask_frame(x) -> bool:
    """Whether ``x`` is a dask DataFrame."""
    return is_dask_collection(x) and type(x).__name__ == "DataFrame"


def dask_refusal(estimator, n_features: int) -> str | None:
    """Why ``estimator`` cannot be fitted on Dask input with ``n_features`` columns,
    or None."""
    if estimator.splitter == "random":
        return (
            "splitter='random' draws each threshold between a node's smallest and "
            "largest values, read from its rows; use splitter='hist' (histograms of "
            "exact integer sums) to fit on a Dask array, or compute X into memory first."
        )
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
    if estimator.monotonic_cst is not None:
        return "monotonic_cst is not supported on Dask; use monotonic_cst=None."
    return None


# ---------------------------------------------------------------- the workers


class _Shard:
    """One worker's rows of one fit: raw values, codes, per-row statistics, each row's node.

    A shard is mutable (every round moves its rows), so it never lives in
    Dask's data store, which assumes a task's inputs never change and may
    pickle them to disk at any moment: it lives in the worker's registry
    (:data:`_SHARDS`), and every call goes through :func:`_call`.
    """

    def __init__(self, *blocks):
        X = np.concatenate(blocks) if len(blocks) > 1 else blocks[0]
        self.X = np.ascontiguousarray(X, dtype=float)
        self.calls = 0
        self.num = np.arange(self.X.shape[1])  # the numerical columns (binned)

    def levels(self, cat):
        """Each categorical column's distinct present values (sorted) and whether it
        holds a missing value: this shard's part of the fit's levels."""
        out = []
        for j in cat:
            column = self.X[:, j]
            nan = np.isnan(column)
            out.append((np.unique(column[~nan]), bool(nan.any())))
        return out

    def encode(self, cat, present):
        """Replace each categorical column ``cat[k]`` by its level codes: a value's
        place among the fit's present values ``present[k]`` (sorted), a missing
        value the last code (missing is the last level, as in memory).  Returns
        the codes, ``(rows, len(cat))``, for the client's categorical search."""
        codes = np.empty((self.X.shape[0], len(cat)), dtype=_code_type(present))
        for k, j in enumerate(cat):
            column = self.X[:, j]
            nan = np.isnan(column)
            code = np.searchsorted(present[k], column).astype(float)
            code[nan] = len(present[k])
            self.X[:, j] = code
            codes[:, k] = code
        self.num = np.setdiff1d(np.arange(self.X.shape[1]), cat)
        return codes

    def fork(self, fit_id, s):
        """Register, as shard ``s`` of fit ``fit_id`` on this worker, a shard of the same
        rows (the same array, not a copy: :meth:`keep` replaces it, never writes
        it), for another fit on them (a forest's next tree); its own calls, bins
        and nodes."""
        shared = self.X.view()
        shared.flags.writeable = False  # a write into the shared rows fails loudly
        shard = _Shard(shared)
        shard.num = self.num
        _register(fit_id, s, shard)
        return self.X.shape[0]

    def keep(self, kept_bits):
        """Keep the rows whose bit is set (the others had weight 0)."""
        kept = np.unpackbits(kept_bits, count=self.X.shape[0]).astype(bool)
        self.X = np.ascontiguousarray(self.X[kept])

    def sample(self, rows, max_bins):
        """The rows ``rows`` (None: all), and each column's distinct present values
        (None if more than ``max_bins``)."""
        X = self.X[:, self.num]  # the numerical columns are binned
        distinct = []
        for j in range(X.shape[1]):
            column = X[:, j]
            values = np.unique(column[~np.isnan(column)])
            distinct.append(values if len(values) <= max_bins else None)
        return (X if rows is None else X[rows]), distinct

    def bin(self, bins):
        """Bin the rows (:meth:`Bins.codes`); every row in the root.  Returns which
        columns have a missing value."""
        self.codes = bins.codes(self.X[:, self.num])
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
        codes, stats = self.codes, self.stats
        return node_histograms(codes, rows, starts, sizes, built, stats, width)

    def ranges(self, needed):
        """Each node's smallest and largest present value, and whether one is missing,
        of the features ``needed`` (nodes, d) marks, over this shard's rows (NaN,
        NaN, False elsewhere, and where the shard has no row of the node): the
        shard's part of :func:`~climbing_trees._random.feature_ranges`."""
        n_nodes, d = needed.shape
        lo, hi = np.full((n_nodes, d), np.nan), np.full((n_nodes, d), np.nan)
        missing = np.zeros((n_nodes, d), dtype=bool)
        inside = np.flatnonzero(self.node >= 0)
        rows = inside[np.argsort(self.node[inside], kind="stable")]
        sizes = np.bincount(self.node[inside], minlength=n_nodes)
        nonempty = np.flatnonzero(sizes)
        starts = (np.cumsum(sizes) - sizes)[nonempty]
        for j in np.flatnonzero(needed[nonempty].any(axis=0)):
            x = self.X[rows, j]
            lo[nonempty, j], hi[nonempty, j], missing[nonempty, j], _ = feature_ranges(x, starts)
        lo[~needed], hi[~needed], missing[~needed] = np.nan, np.nan, False
        return lo, hi, missing

    def route(self, split, feature, threshold, missing_left, sets=None, width=None):
        """Move the rows of the split nodes into their children (left children in
        their parents' order, then right ones; other rows leave), as the client's
        index does: ``x <= threshold`` at numerical nodes, membership of the row's
        level code in the node's set at categorical ones (``sets``, ``width``: as
        :func:`~climbing_trees._levelwise._grow.set_goes_left` reads them).
        Returns one bit per moved row (local order) and their count."""
        moved = np.flatnonzero(self.node >= 0)
        moved = moved[split[self.node[moved]]]
        node = self.node[moved]
        x = self.X[moved, feature[node]]
        go_left = numeric_goes_left(x, threshold[node], missing_left, node)
        if sets is not None:
            set_goes_left(threshold, sets, width, node, x, go_left)
        rank = np.cumsum(split) - 1  # a split node's place among them
        n_split = int(split.sum())
        children = np.full(self.X.shape[0], -1, dtype=np.intp)
        children[moved] = np.where(go_left, rank[node], n_split + rank[node])
        self.node = children  # one assignment: the old nodes stay whole until here
        return np.packbits(go_left), moved.size


def _code_type(present):
    """The smallest unsigned integers that hold every level code of ``present``'s columns
    (the missing level's code included)."""
    most = max((len(p) for p in present), default=0)
    return np.uint8 if most < 255 else np.uint16 if most < 65_535 else np.uint32


def register_sizeof() -> None:
    """Size a shard by its arrays for ``dask.sizeof`` (run on each worker, once).

    A worker's memory manager sizes its data with ``dask.sizeof``.  A shard is
    not Dask data during a fit, but should one ever be (a task returning it),
    its size is its arrays', not the 56 bytes of the object.  Registered when
    a shard is loaded, so that importing the package does not import dask."""
    from dask.sizeof import sizeof

    @sizeof.register(_Shard)
    def _sizeof_shard(shard) -> int:
        arrays = [v for v in vars(shard).values() if isinstance(v, np.ndarray)]
        return sum(a.nbytes for a in arrays) + 64


#: On each worker process: the shards of the fits running there, by worker id
#: (a restarted worker has a new id and an empty registry), then by
#: ``(fit id, shard number)``.  Kept outside Dask's data store because a shard
#: changes every round (Dask would spill a snapshot of it and later load that).
_SHARDS: dict[str, dict[tuple[str, int], _Shard]] = {}
#: On each worker process: the fits released there, newest last (a few thousand
#: ids).  A load still running when its fit is released (a fit that failed, or was
#: interrupted, while loading) finds its fit here and drops its shard.
_RELEASED: dict[str, dict[str, None]] = {}
_KEEP_RELEASED = 4096
#: Guards the registries: a load runs in a task thread, a release on the
#: worker's event loop.
_LOCK = threading.Lock()


def _worker_id(worker=None) -> str:
    if worker is None:
        from distributed import get_worker

        worker = get_worker()
    return worker.id


def _load(fit_id, s, *blocks):
    """Make shard ``s`` of fit ``fit_id`` from its row blocks, in this worker's registry.

    Returns its row count and which columns hold an infinite value (the in-memory
    check of numerical columns; a categorical column may hold ``inf`` as a level).
    A fit already released (it failed while this shard loaded) gets no shard."""
    register_sizeof()
    shard = _Shard(*blocks)
    _register(fit_id, s, shard)
    return shard.X.shape[0], np.isinf(shard.X).any(axis=0)


def _register(fit_id, s, shard) -> None:
    """Keep ``shard`` as shard ``s`` of fit ``fit_id`` in this worker's registry, unless
    the fit was released meanwhile (it failed while the shard was made)."""
    worker = _worker_id()
    with _LOCK:
        if fit_id in _RELEASED.get(worker, ()):
            raise RuntimeError(f"fit {fit_id} was released while shard {s} loaded")
        _SHARDS.setdefault(worker, {})[fit_id, s] = shard


def _call(fit_id, s, call, method, *args):
    """Run ``method(*args)`` of shard ``s`` of fit ``fit_id`` if it is its call number
    ``call``; a missing shard (a worker restarted) or another number: :data:`LOST`."""
    with _LOCK:
        shard = _SHARDS.get(_worker_id(), {}).get((fit_id, s))
    if shard is None or shard.calls != call:
        raise RuntimeError(LOST)
    result = getattr(shard, method)(*args)
    shard.calls += 1  # counted once done: a call cut short is not counted
    return result


def held_shards(dask_worker=None) -> list:
    """The ``(fit id, shard)`` keys of the shards this worker holds: none between fits
    (``client.run(held_shards)`` asks every worker)."""
    with _LOCK:
        return sorted(_SHARDS.get(_worker_id(dask_worker), {}))


def _release(fit_id, dask_worker=None):
    """Drop this worker's shards of fit ``fit_id`` (run at the end of every fit), and
    remember the fit, so that a load of it still running keeps nothing."""
    worker = _worker_id(dask_worker)
    with _LOCK:
        released = _RELEASED.setdefault(worker, {})
        released[fit_id] = None
        while len(released) > _KEEP_RELEASED:  # the oldest first
            del released[next(iter(released))]
        registry = _SHARDS.get(worker, {})
        for key in list(registry):  # a copy: other fits may load meanwhile
            if key[0] == fit_id:
                del registry[key]


# ---------------------------------------------------------------- the client

#: Arrays larger than this travel straight to their worker (``scatter``),
#: not inside the task through the scheduler.
SCATTER_BYTES = 1 << 16
#: How often (seconds) a round that is still running checks that its workers live.
WATCH_SECONDS = 0.25
#: How long (seconds) a round waits for a worker paused for memory before it fails.
PAUSED_SECONDS = 30.0


def paused_too_long(worker: str, rows: int, seconds: float) -> str:
    """The error of a fit whose shard's worker stayed paused for memory."""
    return (
        f"the Dask worker {worker}, which holds (or loads) {rows:,} rows of this fit, "
        f"has been paused for {seconds:.0f} s because its memory is above its pause threshold "
        "(distributed.worker.memory.pause); its tasks cannot run on another worker, "
        "and its shard is not Dask data that could spill to disk.  The fit is "
        "abandoned and the previous model kept: give the workers more memory "
        "(memory_limit) or add workers, so that each holds fewer rows"
    )


def _workers(client) -> dict:
    """The cluster's workers (address: their state), asked of the scheduler now.

    Not ``client.scheduler_info()``: that returns the client's cached copy, which
    the client refreshes every few seconds *without* the workers, so that it can
    come back empty (a fit would then take every worker for lost)."""
    return client.sync(client.scheduler.identity, n_workers=-1)["workers"]


class _Cluster:
    """The shards of one fit: their workers, first rows, and the fit report."""

    def __init__(self, client, fit_id, workers, firsts, lengths):
        self.client, self.fit_id, self.workers = client, fit_id, workers
        self.firsts, self.lengths = firsts, lengths
        self.calls = 0
        self.report = {
            "workers": len(workers), "rounds": 0, "setup_rounds": 0, "bytes": 0,
            "sent_bytes": 0, "graph_bytes": 0, "levels": [],
        }  # fmt: skip

    def _argument(self, arg, worker):
        """``arg`` as a task argument, and the bytes it sends: a large array goes
        straight to ``worker``."""
        if isinstance(arg, np.ndarray):
            if arg.nbytes > SCATTER_BYTES:
                future = self.client.scatter(arg, workers=[worker], direct=True, hash=False)
                return future, arg.nbytes
            return arg, arg.nbytes
        return arg, len(pickle.dumps(arg))

    def submit(self, function, args_of):
        """One task per shard, pinned to the shard's worker, and the bytes sent."""
        tasks, sent = [], 0
        for s, worker in enumerate(self.workers):
            args = []
            for arg in args_of(s):
                arg, size = self._argument(arg, worker)
                args.append(arg)
                sent += size
            tasks.append(
                self.client.submit(function, *args, workers=[worker],
                                   allow_other_workers=False, pure=False)
            )  # fmt: skip
        return tasks, sent

    def gather(self, tasks):
        """The tasks' results, in order; :data:`LOST` if a shard's worker leaves,
        :func:`paused_too_long` if one stays paused for memory.

        A round's tasks are pinned to their workers: a task of a worker that
        died, or that is paused, would wait for it for ever, so the wait watches
        the workers, and so does fetching the results (a worker can die between
        the two)."""
        from distributed import wait

        paused_since = {}
        try:
            while True:
                try:
                    wait(tasks, timeout=WATCH_SECONDS)
                    break
                except TimeoutError:
                    self.watch(tasks, paused_since)
            results = []
            for task in tasks:
                while True:
                    try:
                        results.append(task.result(timeout=WATCH_SECONDS))
                        break
                    except TimeoutError:
                        self.watch(tasks, paused_since)
            return results
        finally:
            self.client.cancel(tasks)  # nothing of a round stays on the cluster

    def watch(self, tasks, paused_since):
        """Raise :data:`LOST` if a shard's worker left the cluster, or
        :func:`paused_too_long` if a worker whose task has not finished has been
        paused (for memory) for over :data:`PAUSED_SECONDS`; ``paused_since``: when
        each worker was first seen paused."""
        workers = _workers(self.client)
        if not set(self.workers) <= set(workers):
            raise RuntimeError(LOST) from None
        now = time.monotonic()
        for s, (worker, task) in enumerate(zip(self.workers, tasks, strict=True)):
            if workers[worker].get("status") != "paused" or task.done():
                paused_since.pop(worker, None)
                continue
            since = paused_since.setdefault(worker, now)
            if now - since > PAUSED_SECONDS:
                raise RuntimeError(
                    paused_too_long(worker, int(self.lengths[s]), now - since)
                ) from None

    def fork(self) -> _Cluster:
        """Another fit on the same shards (:meth:`_Shard.fork` on each worker: nothing
        is copied or sent but the fit's id), with its own calls and report; one
        round, counted in this fit's report."""
        fork = _Cluster(self.client, uuid.uuid4().hex, self.workers, self.firsts,
                        self.lengths)  # fmt: skip
        try:
            lengths = self.round("fork", lambda s: (fork.fit_id, s))
            if lengths != self.lengths.tolist():
                raise RuntimeError(LOST)
        except BaseException:
            fork.release()  # the forks made leave their workers
            raise
        return fork

    def release(self):
        """Drop the fit's shards from the workers that are still there."""
        try:  # a worker that left took its shards (and would not answer)
            alive = set(_workers(self.client))
            workers = [worker for worker in self.workers if worker in alive]
            if workers:
                self.client.run(_release, self.fit_id, workers=workers, on_error="ignore")
        except Exception:  # noqa: BLE001 - a failed clean-up must not hide the fit's error
            pass

    def round(self, method, args_of, depth=None):
        """``method`` on every shard (``args_of(s)``: shard ``s``'s arguments)."""
        start = time.perf_counter()
        call = self.calls
        tasks, sent = self.submit(_call, lambda s: (self.fit_id, s, call, method, *args_of(s)))
        results = self.gather(tasks)
        self.calls += 1
        self.count(results, sent, time.perf_counter() - start, depth)
        return results

    def count(self, results, sent, seconds, depth):
        """Add a round to the report (to its level's entry if ``depth`` is given)."""
        received = sum(_nbytes(r) for r in results)
        report = self.report
        report["rounds"] += 1
        report["bytes"] += received
        report["sent_bytes"] += sent
        if depth is None:
            report["setup_rounds"] += 1
            return
        levels = report["levels"]
        if len(levels) <= depth:
            levels.append(
                {"depth": depth, "rounds": 0, "bytes": 0, "sent_bytes": 0,
                 "seconds": 0.0, "built_nodes": 0, "histogram_bytes": 0}
            )  # fmt: skip
        entry = levels[depth]
        entry["rounds"] += 1
        entry["bytes"] += received
        entry["sent_bytes"] += sent
        entry["seconds"] += seconds


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
        self.width = fit.width  # of the categorical sets
        n = fit.n
        # The placeholder's row numbers, in its first numerical column.
        kept = fit.X[:, fit.num_features[0]].astype(np.int64)
        # The fit's rows held by each shard: a contiguous run (X[keep] keeps order).
        bounds = np.searchsorted(kept, np.append(cluster.firsts, np.iinfo(np.int64).max))
        self.bounds = bounds
        if kept.size < cluster.lengths.sum():  # a zero weight removed rows: one bit a row
            cluster.round("keep", lambda s: (_kept_bits(kept, bounds, cluster, s),))
        drawn = subsample_rows(n, random_state)
        if drawn is None:  # every row
            wanted = [None] * (len(bounds) - 1)
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
        """The histograms of ``nodes``, the nodes the plan sums (as the in-memory
        ``Histograms.built_histograms`` asks): each worker sums them over its rows,
        the client adds the parts into ``out``."""
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

    def needed_ranges(self, level, needed):
        """The ranges of the features ``needed`` (nodes, d) marks in each node of the
        level, for the random draws of ``max_features``
        (:func:`~climbing_trees._levelwise._draws._node_draws`): each worker's
        :meth:`_Shard.ranges`, combined by ``fmin``, ``fmax`` and ``or``, which
        neither the order of the shards nor of the rows changes (the smallest of
        floats is one of them, not a rounded sum): the in-memory ranges."""
        parts = self.cluster.round("ranges", lambda s: (needed,), level.depth)
        lo = np.fmin.reduce([part[0] for part in parts])
        hi = np.fmax.reduce([part[1] for part in parts])
        missing = np.logical_or.reduce([part[2] for part in parts])
        return lo, hi, missing

    def routes(self, level, made, split):
        """The rows of split nodes (index order), their nodes and sides, from the
        workers' bits: ``_routes``' result, without ``X``."""
        node_of_pos = level.positions_nodes()
        keep = split[node_of_pos]
        kept_rows = np.compress(keep, level.index_rows)
        kept_node = np.compress(keep, node_of_pos)
        args = (split, made.feature, made.threshold, made.missing_left)
        if np.isnan(made.threshold[split]).any():  # categorical splits: their sets
            sets = (made.unseen_left, made.set_node, made.set_level)
            args = (*args, sets, self.width)
        parts = self.cluster.round("route", lambda s: args, level.depth)
        if sum(count for _, count in parts) != kept_rows.size:
            raise RuntimeError(LOST)
        go = np.concatenate(
            [np.unpackbits(bits, count=count).astype(bool) for bits, count in parts]
        )
        by_row = np.zeros(self.index.shape[1], dtype=bool)
        by_row[np.sort(kept_rows)] = go  # the shards hold the rows in order
        return kept_rows, kept_node, by_row[kept_rows]


def _kept_bits(kept, bounds, cluster, s) -> np.ndarray:
    """Shard ``s``'s rows that ``kept`` (the fit's row numbers) keeps, one bit each."""
    mask = np.zeros(cluster.lengths[s], dtype=bool)
    mask[kept[bounds[s] : bounds[s + 1]] - cluster.firsts[s]] = True
    return np.packbits(mask)


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
    """One shard per worker, each a contiguous run of ``X``'s row chunks, loaded into
    the workers' registries (:func:`_load`).  Returns the fit's :class:`_Cluster` and
    which columns of ``X`` hold an infinite value."""
    workers = sorted(_workers(client))
    blocks = X.to_delayed().ravel().tolist()
    sizes = np.asarray(X.chunks[0], dtype=np.int64)
    n_blocks = len(blocks)
    owner = np.arange(n_blocks) * len(workers) // n_blocks  # contiguous runs
    starts = np.concatenate([[0], np.cumsum(sizes)])
    mine = [np.flatnonzero(owner == w) for w in range(len(workers))]
    holders = [w for w in range(len(workers)) if mine[w].size]
    cluster = _Cluster(
        client, uuid.uuid4().hex, [workers[w] for w in holders],
        np.array([starts[mine[w][0]] for w in holders], dtype=np.int64),
        np.array([sizes[mine[w]].sum() for w in holders], dtype=np.int64),
    )  # fmt: skip
    try:  # from here on, whatever happens, the shards leave their workers
        block_futures = client.compute(blocks)  # the chunks, wherever Dask computes them
        start = time.perf_counter()
        tasks = [
            client.submit(_load, cluster.fit_id, s, *[block_futures[i] for i in mine[w]],
                          workers=[cluster.workers[s]], allow_other_workers=False,
                          pure=False)
            for s, w in enumerate(holders)
        ]  # fmt: skip
        del block_futures  # the loads hold them; released once loaded
        loaded = cluster.gather(tasks)
        # Sent at set-up: the arrays inside X's graph (X made by da.from_array on
        # the client travels with its graph), none if X is made on the workers.
        graph = _graph_bytes(X)
        cluster.report["graph_bytes"] = graph
        cluster.count(loaded, graph, time.perf_counter() - start, None)
        if [rows for rows, _ in loaded] != cluster.lengths.tolist():
            raise RuntimeError(LOST)
    except BaseException:
        cluster.release()  # the shards already loaded leave their workers
        raise
    return cluster, np.logical_or.reduce([infinite for _, infinite in loaded])


def _graph_bytes(X) -> int:
    """The bytes of the numpy arrays, and pandas frames and series (a dask DataFrame
    made by ``from_pandas``: their memory, index included), held inside ``X``'s task
    graph."""
    total = 0
    for value in dict(X.__dask_graph__()).values():
        if type(value).__name__ == "DataNode":
            value = value.value
        if isinstance(value, np.ndarray):
            total += value.nbytes
        elif type(value).__name__ in ("DataFrame", "Series") and hasattr(value, "memory_usage"):
            total += int(np.sum(value.memory_usage(deep=True, index=True)))
    return total


def _categorical_mask(estimator, d: int) -> np.ndarray:
    """The categorical columns of a dask array with ``d`` columns: the in-memory rule
    (:func:`~climbing_trees._categorical_encoding.resolve_categorical_features`) on
    float columns (``"auto"`` finds none: an array of numbers has no text)."""
    from ._categorical_encoding import resolve_categorical_features

    if isinstance(estimator.categorical_features, str):
        return np.zeros(d, dtype=bool)  # "auto" on floats (another string: fit says)
    columns = [None] * d  # only their number is read
    return resolve_categorical_features(
        estimator.categorical_features, columns, list(range(d)), False
    )


def _categorical_levels(cluster, cat, level_of=None):
    """Each categorical column's levels over every shard, and its codes by row.

    One round collects each shard's distinct present values of the columns
    ``cat`` (and whether any is missing); the client takes their union, an
    order-free result, and lists the levels as the in-memory fit does
    (:func:`~climbing_trees._categorical_encoding._levels_of`: sorted, missing
    last), so the codes do not depend on the partitioning.  A second round
    replaces each shard's values by their codes and returns them: the client's
    categorical search reads each row's code, as in memory.  ``level_of[k]``:
    the level a value of column ``cat[k]`` stands for (a DataFrame's column:
    :func:`frame_as_array`), None for the value itself.  Returns
    ``(categories, codes)``: the levels of each column of ``cat``, and
    ``codes`` (n, len(cat)).
    """
    from ._categorical_encoding import _levels_of

    parts = cluster.round("levels", lambda s: (cat,))
    present, categories = [], []
    for k in range(len(cat)):
        values = np.unique(np.concatenate([part[k][0] for part in parts]))
        missing = any(part[k][1] for part in parts)
        present.append(values)
        convert = None if level_of is None else level_of[k]
        # Python floats, as np.asarray(column, dtype=object) gives them in memory.
        observed = values.tolist() if convert is None else [convert(v) for v in values]
        objects = np.empty(len(observed) + missing, dtype=object)
        objects[: len(observed)] = observed
        if missing:
            objects[-1] = np.nan
        # The values' order is the levels' (a category's codes: its own order).
        categories.append(_levels_of(None, objects) if convert is None else objects)
    codes = cluster.round("encode", lambda s: (cat, present))
    return categories, np.concatenate(codes)


def frame_as_array(estimator, X):
    """A dask DataFrame ``X`` as the fit reads it: ``(array, categorical mask, level_of,
    column names)``, ``level_of`` as :func:`_categorical_levels` reads it.

    The in-memory rule for a pandas DataFrame
    (:func:`~climbing_trees._categorical_encoding.encode_categorical`):
    ``categorical_features="auto"`` takes the ``category`` and ``bool`` columns,
    or the columns listed.  A ``category`` column must have known categories
    (its levels, in their order, are the levels; each value travels as its
    code, a missing one as NaN); a ``bool`` one has the levels False and True;
    a numerical column listed is categorical with its values as levels.  Text
    (``object``, ``string``) columns are refused: their levels are not known
    without a pass over the data, which ``X.categorize(columns=[...])`` (or
    ``.astype("category").cat.as_known()``) makes once.  The other columns must
    be numbers.
    """
    import pandas as pd

    from ._categorical_encoding import _is_categorical_column, resolve_categorical_features

    meta = X._meta
    names = list(X.columns)
    columns = [meta.iloc[:, j] for j in range(len(names))]
    if isinstance(estimator.categorical_features, str) and estimator.categorical_features == "auto":
        mask = np.array([_is_categorical_column(c, True) for c in columns], dtype=bool)
    else:
        mask = resolve_categorical_features(estimator.categorical_features, columns, names,
                                            True)  # fmt: skip
    level_of = {}
    for j, (name, column) in enumerate(zip(names, columns, strict=True)):
        dtype = column.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            if not mask[j]:
                raise ValueError(
                    f"Column {name!r} of the dask DataFrame is a category but not listed "
                    "in categorical_features; list it there (or leave categorical_features="
                    '"auto"), or make it numbers.'
                )
            if not X[name].cat.known:
                raise ValueError(
                    f"Column {name!r} of the dask DataFrame is categorical with unknown "
                    "categories, so its levels (and codes) would depend on the partitions; "
                    f"make them known first: X = X.categorize(columns=[{name!r}]) (or "
                    f"X[{name!r}] = X[{name!r}].cat.as_known())."
                )
            levels = list(dtype.categories)
            level_of[j] = lambda code, levels=levels: levels[int(code)]
        elif dtype.kind in "biuf":
            if mask[j] and dtype.kind != "f":  # the levels as in memory: bools, ints
                level_of[j] = bool if dtype.kind == "b" else int
        else:
            raise ValueError(
                f"Column {name!r} of the dask DataFrame holds {dtype} values; on Dask a "
                "column must be numbers, bool, or a pandas category with known "
                f"categories: X = X.categorize(columns=[{name!r}]) (a pass over the data "
                f"to find the levels; or X[{name!r}].astype('category').cat.as_known()), "
                "or numbers."
            )

    def as_floats(part):
        out = np.empty(part.shape, dtype=float)
        for j in range(part.shape[1]):
            column = part.iloc[:, j]
            if isinstance(column.dtype, pd.CategoricalDtype):
                codes = column.cat.codes.to_numpy()
                out[:, j] = np.where(codes < 0, np.nan, codes)
            else:
                out[:, j] = column.to_numpy(dtype=float, na_value=np.nan)
        return out

    array = X.map_partitions(as_floats, meta=np.empty((0, len(names))))
    cat = np.flatnonzero(mask)
    return array, mask, [level_of.get(j) for j in cat], names


class DaskRows:
    """A row-chunked dask array or DataFrame ``X`` on the workers, loaded once: its
    shards (:class:`_Shard`), categorical levels and the client's placeholder, for
    one tree's fit (:func:`fit_on_dask`) or for the trees of a forest, one after
    another (:func:`grow_over_cluster`).

    ``estimator``: a tree with the fit's options (refusals, categorical columns).
    Nothing is loaded until :meth:`load`; :meth:`release` drops the shards.
    """

    def __init__(self, estimator, X):
        self.source = X  # as given: the out-of-bag predictions read its blocks
        names, level_of = None, None
        if is_dask_frame(X):
            refusal = dask_refusal(estimator, len(X.columns))
            if refusal is not None:
                raise ValueError(refusal)
            X, is_categorical, level_of, names = frame_as_array(estimator, X)
        elif type(X).__name__ != "Array":
            raise TypeError(
                f"fit on Dask takes a row-chunked dask.array or a dask DataFrame X, not a "
                f"{type(X).__name__}; make it one (for example dask.array.from_delayed)."
            )
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features); got {X.ndim} dimensions.")
        refusal = dask_refusal(estimator, X.shape[1])
        if refusal is not None:
            raise ValueError(refusal)
        if names is None:
            is_categorical = _categorical_mask(estimator, X.shape[1])
        self.client = _client()
        if any(np.isnan(c) for c in X.chunks[0]):
            X = X.compute_chunk_sizes()
        self.X = X.rechunk({1: -1})  # whole rows in each chunk
        self.names, self.level_of, self.is_categorical = names, level_of, is_categorical
        self.cluster, self.seconds = None, 0.0

    @property
    def shape(self) -> tuple[int, int]:
        return self.X.shape

    @property
    def nbytes(self) -> int:
        return self.X.nbytes

    def load(self) -> None:
        """Load the shards onto the workers; collect the categorical levels; make the
        placeholder (:func:`fit_on_dask` says what it holds)."""
        n, d = self.X.shape
        is_categorical = self.is_categorical
        cat, num = np.flatnonzero(is_categorical), np.flatnonzero(~is_categorical)
        self.cluster, infinite = _shards(self.client, self.X)
        try:
            if infinite[num].any():  # a categorical column may hold inf as a level
                raise ValueError(
                    "Input X contains infinity or a value too large for dtype('float64')."
                )
            categories = [None] * d
            # The placeholder: zero pages (never written, so never allocated), the row
            # numbers in the first numerical column and each categorical column's codes,
            # Fortran order so that only those columns are written.
            placeholder = np.zeros((n, d), order="F")
            if cat.size:
                levels, codes = _categorical_levels(self.cluster, cat, self.level_of)
                for k, j in enumerate(cat):
                    categories[j] = levels[k]
                    placeholder[:, j] = codes[:, k]
            if num.size:
                placeholder[:, num[0]] = np.arange(n)
            if self.names is not None:  # a DataFrame's fit: its names, checked as in memory
                import pandas as pd

                placeholder = pd.DataFrame(placeholder, columns=self.names, copy=False)
        except BaseException:
            self.release()
            raise
        self.categories, self.placeholder, self.cat, self.num = categories, placeholder, cat, num

    def release(self) -> None:
        """Drop the shards from the workers (after the last fit, failed or not)."""
        if self.cluster is not None:
            self.cluster.release()

    def fit(self, estimator, y, sample_weight, shared: bool = False):
        """``estimator.fit(X, y, sample_weight)`` on the loaded shards (:meth:`load`).

        ``shared``: other fits follow on the same shards (a forest's trees), so
        this one works on a fork of each (:meth:`_Shard.fork`: the same rows on
        the same worker, not copied nor sent again), dropped at its end; its
        ``fit_report_`` counts its own rounds.
        """
        cluster = self.cluster.fork() if shared else self.cluster
        made = []

        def rows_source(fit, max_bins, random_state):
            made.append(RemoteRows(fit, max_bins, random_state, cluster))
            return made[-1]

        learner = copy.copy(estimator)  # shares random_state: a RandomState advances
        learner.categorical_features = self.is_categorical if self.cat.size else None
        token = ROWS_SOURCE.set(rows_source) if self.num.size else None
        try:
            learner.fit(self.placeholder, y, sample_weight)
        finally:
            if token is not None:
                ROWS_SOURCE.reset(token)
            if shared:
                cluster.release()
        if self.num.size and not made:
            raise RuntimeError(
                "the Dask fit did not reach the histogram builder (an option sent it to "
                "another one); this is a bug in climbing_trees: please report it."
            )
        learner.categories_ = self.categories  # the levels, not the codes fitted on
        learner.fit_report_ = cluster.report
        estimator._adopt_fitted_state(learner)  # no attribute of a former fit stays
        return estimator


def fit_on_dask(estimator, X, y, sample_weight=None):
    """``estimator.fit(X, y, sample_weight)`` with ``X`` a row-chunked dask array.

    Categorical columns (``categorical_features``) hold numbers, each a level:
    their levels are collected from every shard (:func:`_categorical_levels`),
    the workers keep their codes, and the client, which runs the categorical
    search from each row's code as the in-memory fit does, receives them (one
    small integer a row and categorical column).  Without a numerical column
    the client then holds the whole of ``X`` (its codes) and grows the tree in
    memory: there is nothing left to bin on the workers."""
    rows = DaskRows(estimator, X)
    y, sample_weight = _as_numpy(y), _as_numpy(sample_weight)
    rows.load()
    try:  # the shards leave the workers, whatever happens
        return rows.fit(estimator, y, sample_weight)
    finally:
        rows.release()


#: A forest's trees grow in memory on the workers when ``X`` takes at most this share
#: of the smallest worker's memory limit (each worker holds a copy of it); above, as
#: histogram trees over the cluster (:func:`forest_data`).
FOREST_SHARE = 0.25


def forest_data(forest, X, y, sample_weight):
    """``X``, ``y`` and ``sample_weight`` of a forest's fit on Dask, and the route.

    Returns ``(X, y, sample_weight, rows)``.  Two routes, by the size of ``X``
    against :data:`FOREST_SHARE` of the smallest worker's memory limit:

    - ``X`` fits a worker (or the workers have no limit): ``rows`` is None and
      ``X`` is computed once on the client (a numpy array, or a pandas DataFrame
      for a dask DataFrame), which holds it for the out-of-bag estimates and
      the trees' shared checks; it is sent once to every worker and each tree
      grows in memory on one (:func:`grow_on_workers`), any splitter;
    - ``X`` is larger: each tree is a histogram tree grown over the cluster
      (:func:`grow_over_cluster`), one after another, so the trees must have
      ``splitter='hist'`` (else the error says so).  ``rows``
      (:class:`DaskRows`) is ``X`` on the workers; the ``X`` returned is a
      stand-in of zeros with ``X``'s shape (and column names), never written,
      for the forest's checks; the out-of-bag estimates are summed chunk by
      chunk on the workers (:func:`oob_sums`).

    A dask DataFrame is sized by its rows (counted: one pass over its
    partitions) times 8 bytes a column, as its fit reads it.
    """
    tree = forest._tree_class(**forest._tree_params())
    name, forest_name = type(tree).__name__, type(forest).__name__
    frame = is_dask_frame(X)
    if not frame and type(X).__name__ != "Array":
        raise TypeError(
            f"{forest_name} fits on a row-chunked dask.array or a dask DataFrame, not a "
            f"{type(X).__name__}; make it one, or compute X to fit the forest in memory."
        )
    client = _client()
    limits = [w.get("memory_limit") or 0 for w in _workers(client).values()]
    limit = min(limits) if limits and all(limits) else None
    y, sample_weight = _as_numpy(y), _as_numpy(sample_weight)
    # A frame's size: its rows counted, 8 bytes a column (as the fit reads it).
    nbytes = len(X) * len(X.columns) * 8 if frame else X.nbytes
    if limit is None or nbytes <= FOREST_SHARE * limit:
        computed = X.compute()
        return (computed if frame else np.asarray(computed)), y, sample_weight, None
    if tree.splitter != "hist":
        raise ValueError(
            f"{forest_name} on Dask grows each tree in memory on a worker when X fits "
            f"one, and X ({nbytes:,} bytes) is over {FOREST_SHARE:.0%} of a worker's "
            f"memory limit ({limit:,} bytes); above, each tree grows over the cluster "
            f"as a histogram tree: set splitter='hist' (trees {name}(splitter='hist')), "
            "or give the workers more memory."
        )
    rows = DaskRows(tree, X)  # refuses the options histogram trees cannot sum
    stand_in = np.zeros(rows.shape)  # zero pages, never written
    if rows.names is not None:
        import pandas as pd

        stand_in = pd.DataFrame(stand_in, columns=rows.names, copy=False)
    return stand_in, y, sample_weight, rows


def grow_over_cluster(rows: DaskRows, trees: list, y, weights) -> list:
    """Fit each tree of ``trees`` (histogram trees) on ``rows``, one after another over
    the whole cluster, with ``weights(tree.random_state)``, its weights in the
    in-memory forest: the same trees.

    ``X`` is loaded onto the workers once (:meth:`DaskRows.load`); each tree
    works on a fork of the shards (its own rows, those of non-zero weight, and
    its own bins) and drops it at its end; the shards leave the workers at
    the end, whatever happens.  Each tree's ``fit_report_`` counts its rounds;
    :func:`forest_report` adds them up, with the seconds of the whole (``seconds``)."""
    if not trees:  # warm_start with no tree more: nothing to load
        return trees
    start = time.perf_counter()
    rows.load()
    try:
        for tree in trees:
            rows.fit(tree, y, weights(tree.random_state), shared=True)
    finally:
        rows.release()
    rows.seconds = time.perf_counter() - start
    return trees


def forest_report(rows: DaskRows, trees: list) -> dict:
    """A forest's ``fit_report_`` over the cluster: the set-up's report (``setup``: the
    load, the categorical levels, a fork round per tree) and each tree's
    (``tree_reports``), their totals (rounds, bytes both ways), the seconds of
    the trees' levels (``tree_seconds``) and of the whole growth (``seconds``),
    and the out-of-bag round's (``oob``: None without ``oob_score``; its
    bytes and round are in the totals)."""
    setup = rows.cluster.report
    reports = [tree.fit_report_ for tree in trees]
    total = {key: setup[key] + sum(r[key] for r in reports)
             for key in ("rounds", "setup_rounds", "bytes", "sent_bytes")}  # fmt: skip
    seconds = sum(level["seconds"] for r in reports for level in r["levels"])
    oob = getattr(rows, "oob_report", None)
    if oob is not None:  # the out-of-bag round (oob_sums)
        total["rounds"] += 1
        total["bytes"] += oob["bytes"]
        total["sent_bytes"] += oob["sent_bytes"]
    return {"workers": setup["workers"], "trees": len(trees), **total,
            "graph_bytes": setup["graph_bytes"], "tree_seconds": seconds,
            "seconds": rows.seconds, "oob": oob,
            "setup": setup, "tree_reports": reports}  # fmt: skip


def oob_sums(forest, trees: list, rows: DaskRows, shape, out_of_bag):
    """The forest's out-of-bag sums (:meth:`_Forest._oob_sums`) of ``X`` on the
    workers, block by block: each block's rows are predicted where they are, by
    the trees that did not draw them (``out_of_bag(i)``: tree ``i``'s rows, all
    of them), and only the sums and votes (``shape``: the votes', rows by
    outputs) come back; per row the trees add in tree order, as in memory.

    The blocks are computed from ``X``'s graph once more (the loaded shards
    are gone by then, and their categorical columns hold codes), so an ``X``
    whose graph carries its values sends them again.  The client sends each
    block one bit a row and tree (which trees' bags left the row out), made
    a tree at a time, and the trees once.  What crossed is ``rows.oob_report``
    (:func:`forest_report` adds it to the forest's)."""
    from sklearn.base import clone

    start = time.perf_counter()
    client = rows.client
    sizes = rows.X.chunks[0]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    bits = [[] for _ in sizes]  # per block, each tree's packed bits
    mask = np.zeros(shape[0], dtype=bool)
    for i in range(len(trees)):
        mask[:] = False
        mask[out_of_bag(i)] = True
        for b, (first, size) in enumerate(zip(starts, sizes, strict=True)):
            bits[b].append(np.packbits(mask[first : first + size]))
    bits = [np.stack(block) for block in bits]
    source = rows.source
    blocks = source.to_delayed() if is_dask_frame(source) else rows.X.to_delayed().ravel()
    payload = (clone(forest), trees)  # the trees once (not the forest's earlier fit)
    sent = len(pickle.dumps(payload, protocol=5)) + sum(b.nbytes for b in bits)
    sent += _graph_bytes(source)
    [shared] = client.scatter([payload], hash=False)
    futures = client.compute(list(blocks))
    tasks = [
        client.submit(_oob_block, shared, block, packed, (size, *shape[1:]), pure=False)
        for block, packed, size in zip(futures, bits, sizes, strict=True)
    ]
    try:
        parts = client.gather(tasks)
    finally:
        client.cancel([*tasks, *futures, shared])
    rows.oob_report = {
        "sent_bytes": sent,
        "bytes": sum(_nbytes(v) + (0 if t is None else _nbytes(t)) for t, v in parts),
        "seconds": time.perf_counter() - start,
    }
    votes = np.concatenate([v for _, v in parts])
    made = [t for t, _ in parts if t is not None]
    if not made:
        return None, votes
    total = np.concatenate([
        np.zeros((v.shape[0], *made[0].shape[1:])) if t is None else t for t, v in parts
    ])  # fmt: skip
    return total, votes


def _oob_block(shared, block, bits, shape):
    """One block's out-of-bag sums: :meth:`_Forest._oob_sums` of its rows."""
    forest, trees = shared
    bags = np.unpackbits(bits, axis=1, count=shape[0]).astype(bool)
    return forest._oob_sums(trees, block, shape, lambda i: np.flatnonzero(bags[i]))


def grow_on_workers(grow, trees, fitted, X, Y, weights) -> list:
    """``grow(tree, fitted, X, Y, w)`` of each tree (``weights``: each tree's ``w``) as
    one task on the cluster; ``X`` and ``Y`` are sent once to every worker.  The
    trees come back grown, in order: the in-memory forest's trees, whose seeds
    and weights they carry."""
    client = _client()
    X_f, Y_f = client.scatter([X, Y], broadcast=True, hash=False)
    tasks = [
        client.submit(grow, tree, fitted, X_f, Y_f, w, pure=False)
        for tree, w in zip(trees, weights, strict=True)
    ]
    try:
        return client.gather(tasks)
    finally:
        client.cancel([*tasks, X_f, Y_f])


def lazy_predict(estimator, method: str, X):
    """``estimator.method`` over each row chunk of a dask array, or each partition of a
    dask DataFrame (each a pandas DataFrame, read as in memory): a lazy dask array."""
    function = getattr(estimator, method)
    if is_dask_frame(X):
        return _lazy_frame_predict(function, method, X)
    X = X.rechunk({1: -1})
    meta = function(np.zeros((1, X.shape[1])))
    if isinstance(meta, list):  # one array per output
        raise ValueError(
            f"{method} of several outputs returns a list, which has no lazy form here; "
            "call it on each chunk (X.to_delayed()) or on X.compute()."
        )
    if meta.ndim == 1:
        return X.map_blocks(function, drop_axis=1, dtype=meta.dtype)
    return X.map_blocks(function, chunks=(X.chunks[0], meta.shape[1:]), dtype=meta.dtype)


def _lazy_frame_predict(function, method: str, X):
    """:func:`lazy_predict` of a dask DataFrame: one task a partition, rows unknown until
    computed (``nan`` chunk sizes, as a DataFrame's own arrays have)."""
    import warnings

    import dask
    import dask.array as da

    with warnings.catch_warnings():  # a made-up row may hold a level unseen at fit
        warnings.simplefilter("ignore")
        meta = function(X._meta_nonempty.iloc[:1])
    if isinstance(meta, list):  # one array per output
        raise ValueError(
            f"{method} of several outputs returns a list, which has no lazy form here; "
            "call it on each partition (X.to_delayed()) or on X.compute()."
        )
    call = dask.delayed(function, pure=True)
    parts = [
        da.from_delayed(call(part), shape=(np.nan, *meta.shape[1:]), dtype=meta.dtype)
        for part in X.to_delayed()
    ]
    return da.concatenate(parts, axis=0)


def stacked_decision_path(estimator, X):
    """``estimator.decision_path`` of each row chunk of a dask array, computed on the
    workers and stacked: a sparse matrix has no lazy form, but ``X`` is never
    gathered (the matrix, one entry per row and depth, is)."""
    import dask
    from scipy import sparse

    blocks = X.to_delayed() if is_dask_frame(X) else X.rechunk({1: -1}).to_delayed().ravel()
    path = dask.delayed(estimator.decision_path)
    parts = dask.compute(*[path(block) for block in blocks])
    return sparse.vstack(parts, format="csr")
