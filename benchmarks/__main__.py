"""Print the benchmark table, or with ``--scaling`` the time-against-n exponent.

Run from the repository root::

    python -m benchmarks                 # every case: scikit-learn's small data sets,
                                         # synthetic ones, pruning (chapter 8), criteria,
                                         # missing values (chapter 9), randomised trees
                                         # ("From one tree to many"), two outputs;
                                         # medians of 5 runs, then the median and
                                         # maximum ratios
    python -m benchmarks --repeats 9     # more runs per case
    python -m benchmarks --forests       # the forest section only: random forests and
                                         # extra trees, 100 trees, digits and 20,000 x 20,
                                         # n_jobs=1 and -1 (threads)
    python -m benchmarks --scaling       # 1,000 to 1,000,000 rows, exponent and peak memory
    python -m benchmarks --memory        # peak extra memory of a fit, both libraries,
                                         # each fit in a fresh process (medians of 3)
    python -m benchmarks --high-cardinality   # high-cardinality categorical fits: peak
                                         # memory of a fresh process, pickle size, fit time
    python -m benchmarks --high-cardinality --cases 1000000:100000   # other rows:levels
    python -m benchmarks --hist          # splitter="hist" against LightGBM and scikit-learn's
                                         # HistGradientBoosting, one tree, one thread, binning
                                         # included: 1,000,000 x 8 at depths 8 and 12, then
                                         # peak extra memory at depth 8 (fresh processes)
    python -m benchmarks --hist-arrays   # where splitter="hist"'s memory goes on that case:
                                         # the arrays alive at the traced peak, by line
    python -m benchmarks --boosting      # HistGradientBoosting* against scikit-learn's and
                                         # LightGBM: 200,000 x 20 regression and binary
                                         # classification, 100 iterations, one thread;
                                         # --repeats data seeds (benchmarks/boosting.py);
                                         # also 3 categorical features of 20-500 levels
    python -m benchmarks --boosting --boosting-cases categorical   # that case only

The timing code lives in :mod:`climbing_trees._benchmark` so that chapter 11
of the book can run it too.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeRegressor as SklearnRegressor

from climbing_trees import DecisionTreeRegressor
from climbing_trees._benchmark import (
    FIT_MEMORY_CASES,
    arrays_at_peak,
    benchmark_cases,
    benchmark_table,
    fit_memory,
    fitted_exponent,
    forest_table,
    hist_memory,
    hist_timings,
    memory_case,
    numba_start,
    peak_memory,
    scaling,
    synthetic_regression,
)


def _load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average unknown"


def run_suite(repeats: int) -> None:
    cases = benchmark_cases(
        pruning=True,
        criteria=True,
        missing=True,
        randomised=True,
        outputs=True,
        small=True,
        wide=True,
    )
    table = benchmark_table(cases, repeats)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    print()
    # Randomised trees (max_features, splitter="random") are drawn differently by
    # the two libraries: equally random trees, not the same tree.
    for kind in ("fit", "predict"):
        ratios = table[f"{kind} ratio"]
        worst = table.loc[ratios.idxmax()]
        print(
            f"{kind} ratio: median {ratios.median():.3f}, maximum {ratios.max():.3f} "
            f"({worst['case']}, {worst['params']}); {int((ratios > 1).sum())} of "
            f"{len(table)} cases above 1"
        )
    print(f"({repeats} alternating runs per library and case; {_load()}, {os.cpu_count()} CPUs)")
    print()
    run_forests(3)


def run_forests(repeats: int) -> None:
    table = forest_table(repeats=repeats)
    print("Forests (fit only): median wall-clock seconds, n_jobs threads in both libraries")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    for jobs, part in table.groupby("n_jobs", sort=False):
        worst = part.loc[part["fit ratio"].idxmax()]
        print(
            f"forest fit ratio at n_jobs={jobs}: maximum {worst['fit ratio']:.3f} "
            f"({worst['forest']}, {worst['data']}); {int((part['fit ratio'] > 1).sum())} of "
            f"{len(part)} above 1"
        )
    print(f"({repeats} alternating runs per library and case; {_load()}, {os.cpu_count()} CPUs)")


def row_visits(tree) -> int:
    """The rows of every split node of ``tree`` (either library's), summed."""
    return int(tree.n_node_samples[tree.children_left >= 0].sum())


def run_scaling(repeats: int, max_n: int) -> None:
    sizes = [n for n in (1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000) if n <= max_n]
    fitted = {}  # (library, n) -> its last tree, read after the timings

    def keeping(name, make):
        def fit(X, y):
            fitted[name, len(X)] = model = make().fit(X, y)
            return model

        return fit

    builders = {
        "climbing_trees": keeping(
            "climbing_trees", lambda: DecisionTreeRegressor(min_samples_leaf=5)
        ),
        "scikit-learn": keeping("scikit-learn", lambda: SklearnRegressor(min_samples_leaf=5)),
    }
    table = scaling(sizes, builders, repeats=repeats)
    wide = table.pivot(index="n", columns="builder", values="seconds")
    for name in builders:  # time per row visit: flat where time grows as the work does
        visits = wide.index.map(lambda n, name=name: row_visits(fitted[name, n].tree_))
        wide[f"{name} ns/visit"] = wide[name] / visits.to_numpy() * 1e9
    wide["row visits"] = wide.index.map(lambda n: row_visits(fitted["climbing_trees", n].tree_))
    print("synthetic regression, 8 features, min_samples_leaf=5: median fit seconds;")
    print("row visits: the rows of every split node of our tree, summed (each row is")
    print("searched and routed there); ns/visit: each library's time over its own tree's")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(wide.to_string(float_format=lambda x: f"{x:.4g}"))
    for name in builders:
        part = table[table.builder == name]
        slope = fitted_exponent(part.n.to_numpy(), part.seconds.to_numpy())
        print(f"{name}: time grows like n**{slope:.2f}")
    work = fitted_exponent(wide.index.to_numpy(), wide["row visits"].to_numpy(dtype=float))
    print(f"row visits grow like n**{work:.2f} (the trees deepen as n grows)")
    X, y = synthetic_regression(sizes[-1])
    for name, fit in builders.items():
        peak = peak_memory(lambda fit=fit: fit(X, y))
        data = X.nbytes + y.nbytes
        print(
            f"{name}: peak memory while fitting n={sizes[-1]:,}: {peak / 2**20:.0f} MiB "
            f"({peak / data:.1f}x the {data / 2**20:.0f} MiB of X and y)"
        )
    print("(tracemalloc counts numpy arrays; memory that scikit-learn's Cython code takes")
    print(" with malloc, and climbing_trees' memory-mapped node buffers, are not seen, so")
    print(" the figures are lower bounds; --memory measures resident memory)")
    print(f"({_load()})")


def run_fit_memory(runs: int) -> None:
    libraries = ("climbing_trees", "scikit-learn")
    rows = []
    for name in FIT_MEMORY_CASES:
        got = {library: [] for library in libraries}
        for _ in range(runs):  # alternately, each fit in a fresh process
            for library in libraries:
                got[library].append(fit_memory(name, library))

        def median(library, key, got=got):
            return float(np.median([run[key] for run in got[library]]))

        if not all(run["reset"] for done in got.values() for run in done):
            print("(the kernel's peak resident size could not be reset: the figures may")
            print(" include memory taken while the data was built)")
        params = "full depth" + (", 50 levels (sklearn: one-hot)" if name == "categorical" else "")
        ours, theirs = median("climbing_trees", "extra"), median("scikit-learn", "extra")
        rows.append(
            {
                "case": name,
                "params": params,
                "our X (MiB)": median("climbing_trees", "X") / 2**20,
                "our peak (MiB)": ours / 2**20,
                "sklearn peak (MiB)": theirs / 2**20,
                "ratio": ours / theirs,
                "our fit (s)": median("climbing_trees", "seconds"),
                "sklearn fit (s)": median("scikit-learn", "seconds"),
            }
        )
        print(f"{name} done", flush=True)
    table = pd.DataFrame(rows)
    print("Peak extra memory during fit: the kernel's high-water mark of resident memory")
    print("(VmHWM) after fit minus the resident size just before fit (data built, both")
    print("libraries imported and warmed up, garbage collected), each fit in a fresh process;")
    print(f"medians of {runs} runs per library and case; in the first fit case nothing was")
    print("fitted before (as in a user's first fit: climbing_trees' then includes numba's")
    print("start and the loading of its compiled functions)")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    numba_start()  # (where its compiled code is not cached yet, this call caches it)
    start = float(np.median([numba_start() for _ in range(runs)]))
    print(
        f"numba's start (the first call of any compiled function in a process, once): "
        f"{start / 2**20:.1f} MiB"
    )
    print(f"({_load()})")


#: rows:levels of ``--high-cardinality`` (the table of the high-cardinality issue).
MEMORY_CASES = ("20000:1000", "50000:5000", "100000:20000")


def run_high_cardinality(cases: list[str]) -> None:
    rows = []
    for case in cases:
        n, levels = (int(part) for part in case.split(":"))
        rows.append(memory_case(n, levels))
        print(f"{n:,} rows, {levels:,} levels done", flush=True)
    table = pd.DataFrame(rows)
    print("DecisionTreeRegressor(min_samples_leaf=5), one categorical and one numerical column,")
    print("each case fitted in a fresh process (peak memory: VmHWM of that process)")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    print(f"({_load()})")


def run_hist(repeats: int, max_n: int) -> None:
    n = min(max_n, 1_000_000)
    table = hist_timings(n, depths=(8, 12), repeats=repeats)
    print(f"One regression tree, synthetic {n:,} x 8, binning included, one thread")
    print("(OpenMP and BLAS limited by threadpoolctl, LightGBM num_threads=1); best of")
    print(f"{repeats} alternating runs.  hist: DecisionTreeRegressor(splitter='hist'),")
    print("255 bins; exact: splitter='best'; lightgbm: LGBMRegressor(n_estimators=1,")
    print("num_leaves=2**depth, learning_rate=1, min_child_samples=1, min_child_weight=0,")
    print("reg_lambda=0); hgb: HistGradientBoostingRegressor(max_iter=1, max_leaf_nodes=None,")
    print("min_samples_leaf=1, l2_regularization=0, early_stopping=False)")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.3g}"))
    rows = []
    for library in ("hist", "lightgbm", "hgb", "exact"):
        runs = [hist_memory(library, n, 8) for _ in range(3)]
        extra = float(np.median([run["extra"] for run in runs]))
        rows.append({"library": library, "peak extra (MiB)": extra / 2**20,
                     "X (MiB)": runs[0]["X"] / 2**20})  # fmt: skip
    print("Peak extra resident memory of one fit at depth 8 (VmHWM after minus the size")
    print("before, each fit in a fresh process, median of 3):")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda x: f"{x:.0f}"))
    print(f"({_load()})")


def run_hist_arrays(max_n: int) -> None:
    n = min(max_n, 1_000_000)
    X, y = synthetic_regression(n)
    model = DecisionTreeRegressor(splitter="hist", max_depth=8)
    model.fit(X[:2000], y[:2000])  # compilation and caches, paid before
    found = arrays_at_peak(lambda: model.fit(X, y))
    rows = [{"line": line, "MiB": size / 2**20} for line, size in found["lines"].items()]
    table = pd.DataFrame(rows).sort_values("MiB", ascending=False)
    print(f"DecisionTreeRegressor(splitter='hist', max_depth=8) on synthetic {n:,} x 8:")
    print(f"traced peak {found['peak'] / 2**20:.1f} MiB; at the highest Python call or return")
    print(f"({found['seen'] / 2**20:.1f} MiB) these allocations were alive (>= 0.25 MiB),")
    print("by the package line that made them (numba's own buffers are not traced):")
    print(table[table["MiB"] >= 0.25].to_string(index=False, float_format=lambda x: f"{x:.1f}"))


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--repeats", type=int, default=5, help="runs per library and case")
    parser.add_argument("--scaling", action="store_true", help="fit 1,000 to 1,000,000 rows")
    parser.add_argument("--max-n", type=int, default=1_000_000, help="largest n of --scaling")
    parser.add_argument(
        "--memory", action="store_true", help="peak extra memory of a fit, both libraries"
    )
    parser.add_argument(
        "--memory-runs", type=int, default=3, help="fresh processes per library and case"
    )
    parser.add_argument(
        "--forests", action="store_true", help="the forest section only (100 trees)"
    )
    parser.add_argument(
        "--hist", action="store_true", help="splitter='hist' against LightGBM and HGB"
    )
    parser.add_argument(
        "--hist-arrays", action="store_true", help="splitter='hist': the arrays at the peak"
    )
    parser.add_argument(
        "--boosting", action="store_true", help="histogram boosting against HGB and LightGBM"
    )
    parser.add_argument(
        "--boosting-cases",
        nargs="+",
        default=None,
        help="cases of --boosting (default: all), e.g. categorical",
    )
    parser.add_argument(
        "--high-cardinality",
        action="store_true",
        help="high-cardinality fits: memory and pickle size",
    )
    parser.add_argument(
        "--cases",
        nargs="+",
        default=list(MEMORY_CASES),
        help="rows:levels of --high-cardinality",
    )
    args = parser.parse_args()
    np.seterr(all="ignore")
    if args.forests:
        run_forests(args.repeats)
    elif args.hist:
        run_hist(args.repeats, args.max_n)
    elif args.hist_arrays:
        run_hist_arrays(args.max_n)
    elif args.boosting:
        from benchmarks.boosting import run_boosting

        run_boosting(args.repeats, args.boosting_cases)
    elif args.memory:
        run_fit_memory(args.memory_runs)
    elif args.high_cardinality:
        run_high_cardinality(args.cases)
    elif args.scaling:
        run_scaling(args.repeats, args.max_n)
    else:
        run_suite(args.repeats)


if __name__ == "__main__":
    main()
