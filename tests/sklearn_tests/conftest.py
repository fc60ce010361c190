"""Fixtures the copied scikit-learn tests use, and the marks of ``adapt.py``'s lists."""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from .adapt import SKIPS, XFAILS

HERE = Path(__file__).resolve().parent


@pytest.fixture
def global_random_seed():
    """scikit-learn's default seed of this fixture (its CI can run seeds 0-99)."""
    return 42


@pytest.fixture
def pyplot():
    """matplotlib's pyplot with the Agg backend; figures closed before and after."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.close("all")
    yield plt
    plt.close("all")


def _reason(table: dict, copy: str, name: str) -> str | None:
    """The reason ``table`` gives for the test ``name`` of the file ``copy``, if any."""
    for (file, pattern), reason in table.items():
        if file == copy and fnmatchcase(name, pattern.replace("[", "[[]")):
            return reason
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(str(item.fspath))
        if path.parent != HERE:
            continue
        if (reason := _reason(SKIPS, path.name, item.name)) is not None:
            item.add_marker(pytest.mark.skip(reason=reason))
        elif (reason := _reason(XFAILS, path.name, item.name)) is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
