"""_sum_last: numpy's rounding of a sum along the last axis, part by part."""

import numpy as np
import pytest

from climbing_trees._levelwise._gains import _sum_last


@pytest.mark.parametrize("n_parts", range(2, 21))
def test_sum_last_is_the_stacked_sum_bit_for_bit(n_parts):
    # Magnitudes from 1e-8 to 1e8: any other order of additions rounds differently.
    rng = np.random.default_rng(n_parts)
    parts = [rng.normal(size=(50, 40)) * 10.0 ** rng.integers(-8, 9, size=(50, 40))
             for _ in range(n_parts)]  # fmt: skip
    expected = np.stack(parts, axis=-1).sum(axis=-1)
    np.testing.assert_array_equal(_sum_last(parts), expected)
    assert _sum_last(parts).tobytes() == expected.tobytes()


def test_a_left_to_right_sum_of_eight_parts_rounds_differently():
    # The branch at 8 parts matters: adding from left to right is not numpy's sum there.
    rng = np.random.default_rng(0)
    parts = [rng.normal(size=2000) * 10.0 ** rng.integers(-8, 9, size=2000) for _ in range(8)]
    left_to_right = parts[0]
    for part in parts[1:]:
        left_to_right = left_to_right + part
    assert (left_to_right != np.stack(parts, axis=-1).sum(axis=-1)).any()
