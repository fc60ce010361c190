"""climbing_trees: classification and regression trees (CART), built to be read.

Each module matches a chapter of the book (``tests/test_module_map.py`` checks
that every module of the package is in this table; a subpackage is listed by
its name, and its own docstring lists its modules):

=========================== =======  ==================================================
module                      chapter  role
=========================== =======  ==================================================
``_criteria``               1        impurities, node values, sufficient statistics
``_libm``                   1        log, log2, exp of arrays: the same bits on every CPU
``_first_tree``             2        a whole tree in one page of plain Python
``_naive``                  2        the O(N^2) split search, the oracle of the others
``_growth``                 2        ``grow_tree``: greedy depth-first growth (oracle)
``_export``                 2        ``export_text``, ``export_graphviz``, ``plot_tree``
``_incremental``            3        prefix-sum split search
``_median``                 3        running medians: absolute error, one split
``_wavelet``                3        wavelet matrix: absolute error of every split
``_ties``                   4        tie rules: which split wins, where thresholds go
``_tree``                   5        ``Tree``: the fitted arrays, ``apply``, paths
``_classes``                5        the estimators (scikit-learn API)
``_validation``             5        checks on parameters and inputs, clear errors
``_monotonic``              5        monotonic constraints: candidates, bounds, values
``_categorical_encoding``   6        DataFrame columns to level codes, and back
``_categorical``            6-7      categorical searches: one-vs-rest, partitions
``_category_sets``          7        compact storage of categorical sets
``_categorical_study``      7        measuring the multiclass searches
``_pruning``                8        cost-complexity and best-first pruning, CV
``_rpart``                  8-10     rpart's reference results, read and compared
``_missing``                9        missing values: candidates, learned direction
``_surrogates``             9        CART's surrogate splits
``_fractional``             9        C4.5's fractional rows: both ways, mixed leaves
``_costs``                  10       misclassification costs, altered priors
``_importance``             10       importance with surrogates, drop-column
``_levelwise``              11       ``grow_tree_levelwise``: the fast builder
``_compiled``               12       ``grow_tree_compiled``: the loop compiled with numba
``_benchmark``              11       timings against scikit-learn
``_compiled_lesson``        12       chapter 3's scan of one feature, compiled (numba)
``_binning``                13       bins of ``splitter="hist"`` (scikit-learn's rule)
``_histograms``             13       exact integer histograms, sibling subtraction
``_dask``                   14       histogram trees fitted on a Dask cluster, bit for bit
``_random``                 15       random thresholds and feature draws
``_weights``                15       class weights, minimum leaf weights
``_exact_weights``          15       exact fixed-point sums of weights compared with bounds
``_ensemble``               15       random forests and extra trees
``_gradient_boosting``      16       gradient boosting (regression, classification)
``_hist_gradient_boosting`` 16       histogram gradient boosting: Newton trees, leaf-wise
=========================== =======  ==================================================
"""

try:  # the compiled builder's loops (a dependency since the package compiles them)
    import numba  # noqa: F401
except ImportError as error:  # tests/test_compiled.py runs this in a subprocess
    raise ImportError(
        "climbing_trees needs numba, which compiles its tree builder's loops, and it "
        "could not be imported: install it with `pip install 'numba>=0.68'` (or "
        "reinstall the package with `pip install .`, which installs its dependencies)."
    ) from error

from ._categorical import (
    CategoricalSplit,
    absolute_error_split,
    auto_split,
    best_categorical_split,
    brute_force_categorical_split,
    categories_left_row,
    level_order,
    level_statistics,
    multiclass_plan,
    one_vs_rest_split,
    partition_split,
    pool_rare_levels,
    pool_rare_pairs,
)
from ._categorical_encoding import encode_categorical
from ._classes import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)
from ._compiled import grow_tree_compiled
from ._costs import prior_class_weight
from ._criteria import (
    OutputLayout,
    absolute_error,
    class_proportions,
    entropy,
    gini,
    impurity_from_statistics,
    node_impurity,
    node_statistics,
    node_value,
    one_hot,
    output_criterion,
    poisson_deviance,
    squared_error,
    weighted_median,
)
from ._ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
    bootstrap_counts,
)
from ._export import export_graphviz, export_text, plot_tree
from ._first_tree import (
    Node,
    first_best_split,
    first_impurity,
    grow_first_tree,
    predict_first_tree,
)
from ._gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor
from ._growth import grow_tree, is_pure
from ._hist_gradient_boosting import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    grow_hist_tree,
    grow_hist_tree_reference,
)
from ._importance import drop_column_importances, surrogate_importances
from ._incremental import incremental_best_split, prefix_sum_best_split
from ._levelwise import grow_tree_levelwise
from ._median import RunningMedian, prefix_absolute_errors, running_median_best_split
from ._missing import ColumnCandidates, column_candidates
from ._naive import Split, naive_best_split
from ._pruning import (
    best_first_subtree,
    ccp_subtree,
    cost_complexity_path,
    node_risk,
    prune,
    select_ccp_alpha,
    subtree_mask,
    weakest_links,
    weakest_links_scan,
)
from ._random import RandomSplits
from ._ties import (
    TIE_RTOL,
    choose_best,
    enough_decrease,
    midpoint_threshold,
    split_positions,
)
from ._tree import TREE_LEAF, TREE_UNDEFINED, Tree
from ._wavelet import WaveletMatrix, node_ranks, split_absolute_errors, wavelet_best_split

__version__ = "0.1.0"

__all__ = [
    "CategoricalSplit",
    "RunningMedian",
    "WaveletMatrix",
    "auto_split",
    "best_categorical_split",
    "brute_force_categorical_split",
    "categories_left_row",
    "encode_categorical",
    "level_order",
    "level_statistics",
    "multiclass_plan",
    "one_vs_rest_split",
    "partition_split",
    "pool_rare_levels",
    "pool_rare_pairs",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ExtraTreeClassifier",
    "ExtraTreeRegressor",
    "ExtraTreesClassifier",
    "ExtraTreesRegressor",
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
    "HistGradientBoostingClassifier",
    "HistGradientBoostingRegressor",
    "grow_hist_tree",
    "grow_hist_tree_reference",
    "RandomForestClassifier",
    "RandomForestRegressor",
    "RandomSplits",
    "bootstrap_counts",
    "Split",
    "TIE_RTOL",
    "TREE_LEAF",
    "TREE_UNDEFINED",
    "Tree",
    "absolute_error",
    "absolute_error_split",
    "choose_best",
    "class_proportions",
    "ColumnCandidates",
    "column_candidates",
    "enough_decrease",
    "entropy",
    "export_graphviz",
    "export_text",
    "first_best_split",
    "first_impurity",
    "gini",
    "grow_first_tree",
    "grow_tree",
    "grow_tree_levelwise",
    "grow_tree_compiled",
    "impurity_from_statistics",
    "incremental_best_split",
    "is_pure",
    "midpoint_threshold",
    "naive_best_split",
    "node_impurity",
    "node_statistics",
    "Node",
    "node_value",
    "one_hot",
    "OutputLayout",
    "output_criterion",
    "plot_tree",
    "predict_first_tree",
    "poisson_deviance",
    "prefix_absolute_errors",
    "prefix_sum_best_split",
    "running_median_best_split",
    "split_positions",
    "squared_error",
    "best_first_subtree",
    "ccp_subtree",
    "cost_complexity_path",
    "node_risk",
    "prune",
    "select_ccp_alpha",
    "subtree_mask",
    "weakest_links",
    "weakest_links_scan",
    "node_ranks",
    "wavelet_best_split",
    "weighted_median",
    "drop_column_importances",
    "prior_class_weight",
    "surrogate_importances",
    "split_absolute_errors",
    "__version__",
]
