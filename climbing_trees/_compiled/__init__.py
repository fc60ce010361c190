"""Compiled depth-first growth with numba: :func:`grow_tree_compiled`.

:func:`climbing_trees.grow_tree` is the book's loop in Python; this package
is the same loop compiled (``numba.njit(cache=True, nogil=True)``), so that
a tree fits at scikit-learn's speed and forests can grow trees in threads.
It grows, node for node, :func:`climbing_trees.grow_tree`'s tree, and it
follows the package's rules rather than restating them.

The modules:

- ``_grow``: the loop (:func:`grow_tree_compiled`): node summaries,
  stopping rules, the search of each node's features, the stable partitions,
  and the choice between presorted orders and sorting at each node.
- ``_scan``: the search of one feature at one node: the sorted forward scan
  with scalar sums (missing values both ways), and the random splitter's
  drawn threshold.
- ``_scores``: the criteria as gains ranked in the scan, and node impurities.
- ``_absolute``: absolute error, a node's medians and each feature's
  candidates through a compiled wavelet matrix, with the sums of
  :mod:`climbing_trees._wavelet` in their order (the same bits).
- ``_choice``: the tie rule over all of a node's candidates, kept as a short
  list of near-best candidates while they stream past.
- ``_rules``: scalar numba ports of the package's rules (tie tolerance,
  midpoints, candidate bounds, missing direction, narrow ranges, the
  per-node random keys and draws, the refused sides on exact fixed-point
  weights of :mod:`climbing_trees._exact_weights`, the three rules of
  monotonic constraints of :mod:`climbing_trees._monotonic`), each pinned equal to its
  numpy rule by a test.  The constant-feature test, the drawn missing side
  and purity are restated in ``_grow`` and ``_scan``, checked through whole
  trees against :func:`climbing_trees.grow_tree`.
- ``_prefetch``: a cache hint (:func:`._prefetch.prefetch_row`) with which the
  scan asks for the statistics of rows a few positions ahead.
- ``_support``: which options this builder grows (:func:`compiled_refusal`).
- ``_tables``: compiled per-tree work around the loop: predict's lookup tables
  (:meth:`climbing_trees._tree.Tree.flat_tables`) in a few passes over the nodes,
  and what a forest's trees share (:class:`._tables.ForestRows`): the presorted
  orders, cut down to each tree's rows, and the class codes.
- ``_cache``: numba's on-disk cache, cleared at import when this package's
  sources or the rule modules they import from change
  (:func:`._cache.clear_stale_cache`).

The random draws are the per-node keys of :mod:`climbing_trees._random`:
every number a node draws depends only on its path from the root, so this
builder, the level-wise one and :func:`climbing_trees.grow_tree` draw the
same numbers in any visiting order.
"""

from ._cache import clear_stale_cache

clear_stale_cache()  # before any compiled function loads its cache

from ._grow import grow_tree_compiled, presorts  # noqa: E402
from ._support import compiled_refusal  # noqa: E402

__all__ = ["compiled_refusal", "grow_tree_compiled", "presorts"]
