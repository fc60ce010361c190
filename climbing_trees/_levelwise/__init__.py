"""Level-wise growth: every node of a depth is split at once, in numpy.

Chapter 11 of the book ("Growing trees fast") explains this module.

:func:`climbing_trees.grow_tree` visits one node at a time, so its Python
overhead grows with the number of nodes.  :func:`grow_tree_levelwise` builds
the same tree (the same arrays, node for node) but pays the overhead once per
*level* of the tree:

1. **Presorting.**  Every feature is sorted once, at the root.  The array
   ``order[j]`` lists the rows by increasing ``X[:, j]``.
2. **Partitioned orders.**  At every level, ``order[j]`` holds the rows of
   each node of the level in one contiguous *segment*, still sorted by
   feature ``j``.  Splitting a node keeps this true with a *stable
   partition*: each segment becomes its left rows then its right rows, each
   in their old relative order.  No feature is ever sorted again.
3. **Segmented prefix sums.**  A prefix sum that restarts at each segment
   gives the left child's statistics of every candidate threshold, of every
   node and every feature, in one numpy call.  Segments of similar length are
   padded into one rectangle, so the prefix sum restarts exactly at each node
   and the numbers are the ones the depth-first search computes.
4. **Vectorised choice.**  Scores of all candidates are computed together,
   and each node takes its winner under the tie rule of
   :func:`climbing_trees.choose_best`.
5. **Missing values** (chapter 9).  NaN sorts last, so a node's rows
   missing feature ``j`` end its segment of ``order[j]``.  Their number and
   summed statistics per node come from the list of missing cells, made once
   (:func:`_missing_sums`); a second scan adds
   those sums to every left child (missing rows left), and the position
   between the present and the missing rows is the split "missing alone on
   the right".  The candidates and their order are those of
   :func:`climbing_trees.column_candidates`.
6. **Categorical features.**  One sort finds the (node, level) pairs
   present at the level, and one ``bincount`` over them gives the level
   statistics of all its nodes, so memory follows the rows, never nodes
   times levels; nodes with similar numbers of present levels are padded
   into one block, and the sorted-scan and one-vs-rest candidates of
   :mod:`climbing_trees._categorical` are scored block by block.  The
   winners' sets stay compact (:mod:`climbing_trees._category_sets`).

Finally the nodes, numbered level by level (breadth first), are renumbered in
depth-first preorder so the :class:`Tree` equals ``grow_tree``'s.

The pieces
----------
The builder is a few small modules, one role each (the book's appendix "The
level-wise builder's engineering" shows this map).

- ``_grow``: the loop, :func:`grow_tree_levelwise`: one level's summaries,
  stopping rules, searches and routing, level after level.
- ``_state``: the state in three objects: ``FitData`` (fixed for the fit:
  X read in place, Y, weights, options, kinds of features), ``Level`` (one
  depth's nodes: sizes, rows, statistics, impurity, values, draws) and
  ``LevelSplits`` (each node's winner, what every search returns).
- ``_orders``: ``Orders``, the sorted orders behind one object (presort,
  the level's rows, a block's rows sorted by feature, missing cells, stable
  partition), and the blocks of nodes of similar sizes (``_size_classes``).
- ``_searches``: one object per search variant, each with ``search``
  returning ``LevelSplits`` (a categorical search adds its features to the
  numerical winners ``found``), chosen once per fit by ``searches_for(fit)``.
- ``_prefix``: the prefix-sum search of numerical features, its fit's
  settings made once (``_scan_settings``), a block of nodes at a time
  (``_Block``).
- ``_gains``: scores of many candidates at once: segmented prefix sums,
  cheap gains for ranking, the exact score, run counts.
- ``_absolute``: absolute error, every candidate through a wavelet matrix.
- ``_thresholds``: the random splitter's drawn thresholds.
- ``_bounds``: monotonic constraints, ``LevelBounds``: each level's bounds,
  handed from the split nodes to their children, and its clipped values (the
  searches refuse the candidates that break a constraint, by the rule of
  :mod:`climbing_trees._monotonic`).
- ``_draws``: each node's random draws (features, thresholds, missing sides).
- ``_categorical_search``: categorical features, the (node, level) pairs
  present, searched by block; the random sets.
- ``_histogram_search``: ``splitter="hist"``: the ``Histograms`` search
  (exact integer histograms, the smaller sibling summed, the other
  subtracted; bins scanned with the exact search's candidates and tie rule).
- ``_binned_rows``: its rows object ``BinnedRows`` (the binned codes and each
  node's rows in index order; sums the histograms the plan asks for), and
  ``ROWS_SOURCE``, the hook a Dask fit sets to its own (``climbing_trees._dask``).
- ``_histogram_plan``: which of a level's nodes get histograms (only the
  searched ones; small ones searched from their rows), which are summed and
  which subtracted, and the parts a level is made in.
- ``_histogram_kernels``: its compiled loops (numba): the partition of the
  rows, squared error's level summaries and bin scan, each the twin of a
  numpy version.
- ``_nodes``: the node buffers and the Tree they become, in preorder.
- ``_support``: which options this builder grows (the estimators ask it).

The rules are the package's, written once: the tie rule
(:func:`climbing_trees._ties.first_within`, through ``choose_best_rows`` on
scores and ``choose_best_gains`` on gains, the row forms of
:func:`climbing_trees.choose_best`), the missing-value direction
(:func:`climbing_trees._missing.missing_goes_left`), the criteria
(:mod:`climbing_trees._criteria`).  :func:`climbing_trees.grow_tree` keeps its
own loop and shares these rules, so comparing the two builders still proves
something.
"""

from ._grow import grow_tree_levelwise
from ._support import levelwise_absolute_error, levelwise_refusal

__all__ = ["grow_tree_levelwise", "levelwise_absolute_error", "levelwise_refusal"]
