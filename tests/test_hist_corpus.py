"""Histogram trees (``splitter="hist"``) grow the saved corpus bit for bit.

``tests/hist_corpus.py`` makes every problem from its seed and hashes each
array of its tree and its predictions; ``tests/corpus/hist_trees.json``
holds the hashes recorded before the histogram fit's memory was cut.  A
change that alters any bit of any tree fails here, naming the problem and
the array.
"""

from __future__ import annotations

import json

import hist_corpus as corpus
import pytest

SAVED = json.loads(corpus.PATH.read_text())
GROW = corpus.problems()


def test_the_corpus_lists_every_problem():
    assert sorted(SAVED) == sorted(GROW)


@pytest.mark.parametrize("name", sorted(GROW))
def test_same_tree_as_saved(name):
    now = GROW[name]()
    changed = [array for array in SAVED[name] if now.get(array) != SAVED[name][array]]
    assert sorted(now) == sorted(SAVED[name]), f"{name}: the Tree's fields changed"
    assert not changed, f"{name}: the arrays {changed} differ from the saved corpus"
