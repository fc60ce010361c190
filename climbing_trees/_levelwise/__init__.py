"""Level-wise growth: every node of a depth is split at once, in numpy.

Chapter 8 of the book ("Growing trees fast") explains this module.

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
5. **Missing values** (chapter 10).  NaN sorts last, so a node's rows
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
"""

from ._absolute import levelwise_absolute_error
from ._grow import grow_tree_levelwise

__all__ = ["grow_tree_levelwise", "levelwise_absolute_error"]
