"""The builders grow the saved corpora of trees bit for bit.

``tests/levelwise_corpus.py``, ``tests/hist_corpus.py`` and
``tests/compiled_corpus.py`` make every problem from its seed and hash each
array of its tree (the histogram corpus, its predictions too);
``tests/corpus/levelwise_trees.json`` holds the hashes of the trees grown
before the level-wise builder was cut into pieces,
``tests/corpus/hist_trees.json`` those recorded before the histogram fit's
memory was cut, and ``tests/corpus/compiled_trees.json`` those of the compiled
builder recorded before its random splitter was made faster.  A change
that alters any bit of any tree fails here, naming the corpus, the problem
and the array.
"""

from __future__ import annotations

import json

import compiled_corpus
import hist_corpus
import levelwise_corpus
import pytest

# Each corpus: its saved hashes, its problems, and how a problem becomes hashes.
CORPORA = {
    "levelwise": (levelwise_corpus, lambda grow: levelwise_corpus.tree_hashes(grow())),
    "hist": (hist_corpus, lambda grow: grow()),
    "compiled": (compiled_corpus, lambda grow: grow()),
}
SAVED = {name: json.loads(module.PATH.read_text()) for name, (module, _) in CORPORA.items()}
GROW = {name: module.problems() for name, (module, _) in CORPORA.items()}


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_the_corpus_lists_every_problem(corpus):
    assert sorted(SAVED[corpus]) == sorted(GROW[corpus])


@pytest.mark.parametrize(
    ("corpus", "name"), [(corpus, name) for corpus in sorted(GROW) for name in sorted(GROW[corpus])]
)
def test_same_tree_as_saved(corpus, name):
    saved, now = SAVED[corpus][name], CORPORA[corpus][1](GROW[corpus][name])
    changed = [array for array in saved if now.get(array) != saved[array]]
    assert sorted(now) == sorted(saved), f"{corpus} {name}: the Tree's fields changed"
    assert not changed, f"{corpus} {name}: the arrays {changed} differ from the saved corpus"
