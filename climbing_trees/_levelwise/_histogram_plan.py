"""Which nodes of a level get histograms, and how (``splitter="hist"``).

The first step of :class:`~climbing_trees._levelwise._histogram_search.Histograms`'
level: :func:`plan_histograms` says which nodes are searched from ``max_bins``-wide
histograms and which from their rows (few rows), which histograms are summed from
rows and which are a parent's minus a sibling's; :func:`pairs` and :func:`chunks`
cut a level into parts.  No rule here changes a tree: every histogram is made of
integers, however it is obtained.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ._state import Level

#: Nodes of at most this many rows are searched from their rows
#: (:func:`~climbing_trees._histograms.compact_histograms`), not from ``max_bins`` bins.
#: Chosen by measurement, 50,000 x 8 to full depth (the Histograms chapter times it):
#: squared error and gini (both compiled scans) within 5 % of their best from 64 to
#: 128, 10 % slower at 256; every node from its 255 bins about 4 times slower.
ROW_SEARCH_MAX = 128

#: Histogram cells (node, feature, bin) searched at once: bounds the search's temporaries,
#: and the histograms alive at once on a level whose histograms are not kept.
SEARCH_CELLS = 1 << 20


@dataclasses.dataclass
class HistogramPlan:
    """Which of a level's nodes get which histogram (:func:`plan_histograms`).

    ``summed``: the nodes whose histograms are summed from their rows;
    ``derived``: the nodes whose histograms are their parent's (row
    ``parent_slot`` of the previous level's block) minus their ``sibling``'s
    (a summed node); ``dense``: the nodes searched from these histograms;
    ``compact``: the nodes searched from their rows.  :meth:`slots` numbers
    the histograms of a block: the summed nodes first, then the derived.
    """

    summed: np.ndarray
    derived: np.ndarray
    parent_slot: np.ndarray
    sibling: np.ndarray
    dense: np.ndarray
    compact: np.ndarray
    n_nodes: int

    def slots(self) -> np.ndarray:
        """Each level node's row in the block of this plan's histograms (-1: none)."""
        slot = np.full(self.n_nodes, -1, dtype=np.intp)
        slot[self.summed] = np.arange(self.summed.size)
        slot[self.derived] = self.summed.size + np.arange(self.derived.size)
        return slot

    def part(self, nodes: np.ndarray) -> HistogramPlan:
        """The plan of the nodes ``nodes`` only (which hold each derived node's sibling)."""
        inside = np.zeros(self.n_nodes, dtype=bool)
        inside[nodes] = True
        derived = inside[self.derived]
        return HistogramPlan(
            self.summed[inside[self.summed]], self.derived[derived],
            self.parent_slot[derived], self.sibling[derived],
            self.dense[inside[self.dense]], self.compact[inside[self.compact]], self.n_nodes,
        )  # fmt: skip


def plan_histograms(sizes, searched, parent_slot, row_search_max: int,
                    n_bins: int) -> HistogramPlan:  # fmt: skip
    """Which nodes of a level get built histograms, and how.

    ``searched``: the nodes that will be searched (no other node needs a
    histogram of its own); ``parent_slot``: each node's parent's row in the
    previous level's block (-1: none kept).  A level lists the left
    children of the split parents, then their right children, so node
    ``i``'s sibling is ``i + n/2`` (mod ``n``).  A searched node of at most
    ``row_search_max`` rows is searched from its rows (compact).  Of the
    others, the larger of two siblings (the right one on equal sizes) is its
    parent's histogram minus its sibling's when its parent's is kept and that
    is cheaper than its own rows: when the sibling is summed anyway, or when
    it has ``n_bins`` rows more (summing the sibling and subtracting touch
    ``2 n_bins`` cells per feature more); every other searched node, and every
    sibling a subtraction needs, is summed from its rows.  Any choice gives
    the same histograms (integers): this one only decides the cost.
    """
    n = sizes.size
    index = np.arange(n)
    sibling = (index + n // 2) % n
    dense = searched & (sizes > row_search_max)
    larger = (sizes > sizes[sibling]) | ((sizes == sizes[sibling]) & (index >= n // 2))
    sibling_summed = dense[sibling] & ~larger[sibling]
    cheaper = sibling_summed | (sizes - sizes[sibling] >= n_bins)
    derive = dense & larger & (parent_slot >= 0) & cheaper & (n > 1)
    summed = dense & ~derive
    summed[sibling[derive]] = True
    derived = np.flatnonzero(derive)
    return HistogramPlan(
        np.flatnonzero(summed), derived, parent_slot[derived], sibling[derived],
        np.flatnonzero(dense), np.flatnonzero(searched & ~dense), n,
    )  # fmt: skip


def pairs(level: Level, per: int) -> list:
    """The level's nodes, a few pairs of siblings (at most ``per`` nodes) at a time."""
    n = level.n_nodes
    if n == 1:
        return [np.array([0])]
    left = np.arange(n // 2)
    return [np.concatenate([t, t + n // 2]) for t in chunks(left, per // 2)]


def chunks(nodes: np.ndarray, per: int) -> list:
    """``nodes`` in consecutive chunks of at most ``per`` (at least one) each."""
    per = max(int(per), 1)
    return [nodes[i : i + per] for i in range(0, nodes.size, per)]
