"""numba's on-disk cache of the compiled builder, kept in step with its sources.

``cache=True`` keys each compiled function's cache by its own source file
(modification time and size; numba's "Notes on Caching").  A compiled
function that calls another module's function, or reads another module's
constant (``_ties.TIE_RTOL``, ``_random``'s hash constants), has that code
frozen into its cached machine code: after an edit of the other module the
cache is stale and numba does not notice.  So at import,
:func:`clear_stale_cache` hashes the sources of this package and of every
package module they import from (:func:`stamp_sources`, read from their
``from ..`` lines), keeps the hash in a stamp file next to the cache, and
deletes this package's cache files when the hash changes.  Hashing a dozen
small files costs well under a millisecond; nothing is compiled.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

#: The stamp file, in the cache directory.
STAMP_NAME = "climbing_trees_compiled.stamp"
_HERE = Path(__file__).resolve().parent
_PACKAGE = _HERE.parent
_IMPORT = re.compile(r"^\s*from \.\.([\w.]*) import", re.MULTILINE)


def stamp_sources(here: Path = _HERE) -> list[Path]:
    """This package's modules and the package modules they import from, sorted."""
    own = sorted(here.glob("*.py"))
    others = set()
    for path in own:
        for name in _IMPORT.findall(path.read_text()):
            target = here.parent.joinpath(*name.split("."))
            module = target.with_suffix(".py")
            others.add(module if module.exists() else target / "__init__.py")
    return own + sorted(others)


def source_stamp(paths) -> str:
    """A hash of the files' names and contents."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(Path(path).name.encode())
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()


def refresh_cache(cache_dir, stamp: str, modules) -> bool:
    """Delete the cache files of ``modules`` in ``cache_dir`` unless its stamp is ``stamp``.

    Returns whether files were deleted (or the stamp written anew).  A
    directory that cannot be read or written is left alone: numba then
    compiles as it would without a cache.
    """
    cache_dir = Path(cache_dir)
    marker = cache_dir / STAMP_NAME
    try:
        if marker.read_text() == stamp:
            return False
    except OSError:
        pass
    try:
        if cache_dir.is_dir():
            prefixes = tuple(f"{m}." for m in modules)
            for entry in os.scandir(cache_dir):
                if entry.name.startswith(prefixes) and entry.name.endswith((".nbi", ".nbc")):
                    os.remove(entry.path)
        cache_dir.mkdir(parents=True, exist_ok=True)
        marker.write_text(stamp)
    except OSError:
        return False
    return True


def clear_stale_cache() -> bool:
    """:func:`refresh_cache` for this package, in numba's cache directory for it."""
    from ._rules import mix  # any compiled function of the package names the directory

    cache = getattr(mix, "_cache", None)
    cache_dir = getattr(cache, "_cache_path", None)
    if cache_dir is None:  # caching off, or numba's internals moved
        return False
    sources = stamp_sources()
    modules = [p.stem for p in sources if p.parent == _HERE]
    return refresh_cache(cache_dir, source_stamp(sources), modules)
