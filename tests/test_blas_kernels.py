"""The same trees under every OpenBLAS kernel (principle 4 of the developers' guide).

numpy's OpenBLAS picks a kernel for the CPU at import time (Prescott, Sandybridge,
Haswell, SkylakeX, ...), and each kernel adds the terms of a matrix product in
its own order.  No quantity that decides a split may go through BLAS: then
``grow_tree`` and the level-wise builder agree, and grow the same tree, whatever
the kernel.  Each test here runs in a fresh process with ``OPENBLAS_CORETYPE``
set (the variable is read when OpenBLAS loads), checks with threadpoolctl (what
``numpy.show_runtime()`` reports) that the kernel did change, runs a focused
subset of the builder-agreement tests there, and prints a digest of the trees
of a few problems; the digests must be the same under every kernel.

Run as a script, ``python tests/test_blas_kernels.py KERNEL [pytest args]``,
this file is that child process.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

#: The kernels tried, with the CPU flags (``/proc/cpuinfo``) each one needs.
KERNELS = {
    "Prescott": {"pni"},  # SSE3
    "Sandybridge": {"avx"},
    "Haswell": {"avx2", "fma"},
    "SkylakeX": {"avx512f"},
}
#: Names OpenBLAS reports for a kernel: its x86-64 builds alias the Prescott
#: kernel's table as Katmai's, so ``openblas_get_corename`` says "Katmai".
REPORTED = {"Prescott": {"prescott", "katmai"}}

#: The builder-agreement tests run under each kernel: (test, ``-k`` keywords).
#: The categorical searches (squared error, whose nodes centre their targets
#: at a mean; the partition scan; several outputs' exhaustive search and
#: principal axis) are where a BLAS call used to decide a split.
AGREEMENT_TESTS = [
    ("test_random.py::test_builders_draw_alike_with_categorical_features", "squared_error"),
    ("test_levelwise.py::test_same_tree_with_categorical_features", "squared_error and unit"),
    ("test_multioutput.py::test_both_builders_grow_the_same_tree", "best and not poisson"),
    ("test_levelwise.py::test_same_tree_with_ten_classes", "gini"),
]
_MARK = "BLAS-KERNEL-RESULT "


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def _openblas() -> list[dict]:
    """threadpoolctl's description of every OpenBLAS loaded in this process."""
    from threadpoolctl import threadpool_info

    return [info for info in threadpool_info() if info.get("internal_api") == "openblas"]


def _kernel_params():
    flags = _cpu_flags()
    params = []
    for kernel, needs in KERNELS.items():
        missing = sorted(needs - flags)
        marks = [pytest.mark.skip(reason=f"this CPU lacks {missing}")] if missing else []
        params.append(pytest.param(kernel, marks=marks, id=kernel))
    return params


def _skip_reason() -> str | None:
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return "OPENBLAS_CORETYPE names x86-64 kernels; read from /proc/cpuinfo (Linux)"
    if not _openblas():
        return "numpy is not linked to OpenBLAS"
    return None


# --- the problems whose trees must be the same under every kernel ------------------------


def _problems():
    """(name, X, Y, w, grow_tree keyword arguments): categorical searches of each kind."""
    sys.path.insert(0, str(TESTS))
    from test_multiclass_categorical import many_level_problem
    from test_random import mixed_problem

    import climbing_trees as ct
    from climbing_trees._criteria import output_criterion
    from climbing_trees._random import RandomSplits

    for seed in range(10):  # squared error: partition scan of centred level sums
        X, Y, w, is_categorical = mixed_problem(seed, "squared_error")
        params = {
            "criterion": "squared_error",
            "is_categorical": is_categorical,
            "n_categories": np.array([0, 7, 0, 12]),
            "min_samples_leaf": 2,
            "random_splits": RandomSplits(2, "best", seed),
        }
        yield f"mixed-{seed}", X, Y, w, params
    for seed in range(3):  # 3 to 5 classes, 10 to 45 levels: every multiclass plan
        X, Y, w, is_categorical, n_categories = many_level_problem(seed)
        for budget in (16_384, 400):
            params = {
                "criterion": "gini",
                "is_categorical": is_categorical,
                "n_categories": n_categories,
                "max_depth": 6,
                "max_categorical_candidates": budget,
            }
            yield f"multiclass-{seed}-{budget}", X, Y, w, params
    rng = np.random.default_rng(7)  # several outputs: exhaustive search, principal axis
    n = 400
    codes = rng.integers(0, 9, size=(n, 2))
    X = np.column_stack([rng.normal(size=n), codes]).astype(float)
    effects = rng.integers(0, 4, size=(9, 2))
    Y = (effects[codes[:, 0]] + effects[codes[:, 1], ::-1] + rng.poisson(1.0, (n, 2))).astype(float)
    for budget in (16_384, 10):
        params = {
            "criterion": output_criterion("squared_error", (1, 1)),
            "is_categorical": np.array([False, True, True]),
            "n_categories": np.array([0, 9, 9]),
            "min_samples_leaf": 3,
            "max_categorical_candidates": budget,
        }
        yield f"two-outputs-{budget}", X, Y, rng.uniform(0.5, 2.0, n), params
    labels = np.column_stack([(Y[:, 0] > 3).astype(int), Y[:, 1].astype(int) % 3])
    Y2 = np.hstack([ct.one_hot(labels[:, 0], 2), ct.one_hot(labels[:, 1], 3)])
    params = {
        "criterion": output_criterion("entropy", (2, 3)),
        "is_categorical": np.array([False, True, True]),
        "n_categories": np.array([0, 9, 9]),
        "max_depth": 6,
    }
    yield "two-labels", X, Y2, np.ones(n), params
    for k in (3, 4, 5):  # pure levels: the class proportions' covariance has equal
        # eigenvalues, so only the eigen solver decides the principal axis
        codes = np.repeat(np.arange(k), 5)
        params = {
            "criterion": "gini",
            "is_categorical": np.array([True]),
            "n_categories": np.array([k]),
            "max_depth": 1,
        }
        yield (
            f"pure-levels-{k}",
            codes[:, None].astype(float),
            ct.one_hot(codes, k),
            np.ones(5 * k),
            params,
        )


def _digests() -> tuple[dict[str, str], list[str]]:
    """Per problem, a digest of the exact fields of the trees both builders grew; and
    the problems where the two builders disagree."""
    from conftest import EXACT_FIELDS, SET_FIELDS, assert_equivalent

    import climbing_trees as ct
    from climbing_trees._levelwise import grow_tree_levelwise

    digests, disagree = {}, []
    for name, X, Y, w, params in _problems():
        slow = ct.grow_tree(X, Y, w, **params)
        fast = grow_tree_levelwise(X, Y, w, **params)
        try:
            assert_equivalent(fast, slow)
        except AssertionError:
            disagree.append(name)
        h = hashlib.sha256()
        for tree in (slow, fast):
            for field in (*EXACT_FIELDS, *SET_FIELDS, "threshold"):
                h.update(np.ascontiguousarray(getattr(tree, field)).tobytes())
        digests[name] = h.hexdigest()[:16]
    return digests, disagree


def _child(kernel: str, pytest_args: list[str]) -> int:
    """Run in the child process: check the kernel, run the tests, report the digests."""
    expected = REPORTED.get(kernel, {kernel.lower()})

    def kernels_now():
        return sorted({str(info.get("architecture")) for info in _openblas()})

    report = {"requested": kernel, "before": kernels_now()}
    if not report["before"] or any(k.lower() not in expected for k in report["before"]):
        print(_MARK + json.dumps(report), flush=True)
        return 3
    code = int(pytest.main(pytest_args))
    report["digests"], report["disagree"] = _digests()
    # Every OpenBLAS loaded by now (scipy's too, through scikit-learn) ran this kernel.
    report["after"] = kernels_now()
    print(_MARK + json.dumps(report), flush=True)
    if any(k.lower() not in expected for k in report["after"]):
        return 3
    return code


# --- the tests -----------------------------------------------------------------------------


def _run_under(kernel: str) -> tuple[subprocess.CompletedProcess, dict]:
    env = dict(os.environ, OPENBLAS_CORETYPE=kernel)
    env.pop("OPENBLAS_VERBOSE", None)
    selected = [str(TESTS / name) for name, _ in AGREEMENT_TESTS]
    keywords = " or ".join(
        f"({name.split('::')[1]} and {words})" for name, words in AGREEMENT_TESTS
    )
    args = [*selected, "-k", keywords, "-q", "-p", "no:cacheprovider", "--no-header"]
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), kernel, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith(_MARK)]
    report = json.loads(lines[-1][len(_MARK) :]) if lines else {}
    return proc, report


_RUNS: dict[str, tuple[subprocess.CompletedProcess, dict]] = {}


def _run_once(kernel: str):
    if kernel not in _RUNS:
        _RUNS[kernel] = _run_under(kernel)
    return _RUNS[kernel]


@pytest.fixture(scope="module", autouse=True)
def _platform():
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)


@pytest.mark.parametrize("kernel", _kernel_params())
def test_builders_agree_under_each_openblas_kernel(kernel):
    proc, report = _run_once(kernel)
    tail = (proc.stdout[-6000:] + proc.stderr[-3000:]).strip()
    assert report, f"the child process under {kernel} reported nothing:\n{tail}"
    expected = REPORTED.get(kernel, {kernel.lower()})
    assert report["before"] and all(k.lower() in expected for k in report["before"]), (
        f"OPENBLAS_CORETYPE={kernel} did not take effect: OpenBLAS runs {report['before']}"
    )
    assert all(k.lower() in expected for k in report["after"]), report
    assert proc.returncode == 0, f"builder-agreement tests under {kernel}:\n{tail}"
    assert not report["disagree"], f"the builders disagree under {kernel}: {report['disagree']}"


def test_the_same_trees_under_every_openblas_kernel():
    flags = _cpu_flags()
    kernels = [k for k, needs in KERNELS.items() if needs <= flags]
    if len(kernels) < 2:
        pytest.skip("this CPU runs fewer than two of the kernels")
    digests = {}
    for kernel in kernels:
        proc, report = _run_once(kernel)
        assert "digests" in report, (proc.stdout[-4000:] + proc.stderr[-2000:]).strip()
        digests[kernel] = report["digests"]
    first = kernels[0]
    for kernel in kernels[1:]:
        differ = sorted(k for k in digests[first] if digests[first][k] != digests[kernel][k])
        assert not differ, f"trees differ between {first} and {kernel}: {differ}"


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1], sys.argv[2:]))
