"""numba's cache of the compiled builder is cleared when its sources change."""

from __future__ import annotations

from pathlib import Path

from climbing_trees._compiled import _cache


def fake_cache(directory):
    names = ["_grow._grow_nodes-400.py311.nbi", "_grow._grow_nodes-400.py311.1.nbc",
             "_rules.mix-40.py311.nbi", "_other_module.f-1.py311.nbi", "keep.txt"]  # fmt: skip
    for name in names:
        (directory / name).write_text("x")
    return names


def test_a_changed_stamp_clears_the_package_cache(tmp_path):
    names = fake_cache(tmp_path)
    assert _cache.refresh_cache(tmp_path, "old", ["_grow", "_rules"])
    assert not {"_grow._grow_nodes-400.py311.nbi", "_rules.mix-40.py311.nbi"} & {
        p.name for p in tmp_path.iterdir()
    }
    kept = {p.name for p in tmp_path.iterdir()}
    assert kept == {"_other_module.f-1.py311.nbi", "keep.txt", _cache.STAMP_NAME}
    # The same stamp again: nothing is deleted.
    fake_cache(tmp_path)
    assert not _cache.refresh_cache(tmp_path, "old", ["_grow", "_rules"])
    assert set(names) <= {p.name for p in tmp_path.iterdir()}
    # A new stamp (a source changed): cleared again.
    assert _cache.refresh_cache(tmp_path, "new", ["_grow", "_rules"])
    assert "_grow._grow_nodes-400.py311.nbi" not in {p.name for p in tmp_path.iterdir()}
    assert (tmp_path / _cache.STAMP_NAME).read_text() == "new"


def test_the_stamp_covers_the_rule_modules_the_package_imports(tmp_path):
    names = {p.name for p in _cache.stamp_sources()}
    assert {"_grow.py", "_scan.py", "_rules.py", "_choice.py", "_scores.py"} <= names
    assert {"_ties.py", "_random.py", "_tree.py", "_criteria.py"} <= names
    # An edit of a rule module changes the stamp.
    package = tmp_path / "pkg"
    (package / "_compiled").mkdir(parents=True)
    (package / "_compiled" / "_a.py").write_text("from .._rule import X\n")
    (package / "_rule.py").write_text("X = 1\n")
    sources = _cache.stamp_sources(package / "_compiled")
    assert [p.name for p in sources] == ["_a.py", "_rule.py"]
    before = _cache.source_stamp(sources)
    (package / "_rule.py").write_text("X = 2\n")
    assert _cache.source_stamp(sources) != before


def test_import_leaves_the_current_stamp():
    from climbing_trees._compiled import _rules

    stamp = _cache.source_stamp(_cache.stamp_sources())
    marker = Path(_rules.mix._cache._cache_path) / _cache.STAMP_NAME
    assert marker.read_text() == stamp
