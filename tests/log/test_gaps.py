"""Missing versions as ranges (``model/gaps.py``): the column-wise search against the plain
definition, on any set of versions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from deltaforensics.model.gaps import missing_ranges


def _by_definition(present: set[int], start: int, end: int) -> list[tuple[int, int]]:
    missing = [v for v in range(start, end + 1) if v not in present]
    out: list[tuple[int, int]] = []
    for v in missing:
        if out and v == out[-1][1] + 1:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(min_value=-3, max_value=60), max_size=40),
    st.integers(min_value=-3, max_value=60),
    st.integers(min_value=-5, max_value=70),
)
def test_missing_ranges_are_the_versions_not_present(
    present: list[int], start: int, end: int
) -> None:
    assert missing_ranges(present, start, end) == _by_definition(set(present), start, end)


def test_a_version_beyond_64_bits_is_still_counted() -> None:
    assert missing_ranges({0: "a", 2: "b", 10**30: "c"}, 0, 4) == [(1, 1), (3, 4)]
    assert missing_ranges(iter([0, 10**30, 3]), 0, 4) == [(1, 2), (4, 4)]
    assert missing_ranges(iter(range(1_000_000)), 0, 999_999) == []
