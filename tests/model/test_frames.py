"""slices_by groups rows exactly as partition_by does, without copying them; its deferred
rows and column-dropped copy are the same groups."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from deltaforensics.model.frames import Deferred, frame_of, slices_by

_ROWS = st.lists(
    st.tuples(
        st.one_of(st.none(), st.integers(0, 4)),
        st.sampled_from(["add", "remove", None]),
        st.integers(-1000, 1000),
    ),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(_ROWS)
def test_slices_equal_partition_by(rows: list[tuple[int | None, str | None, int]]) -> None:
    frame = pl.DataFrame(
        rows, schema={"version": pl.Int64, "action": pl.String, "n": pl.Int64}, orient="row"
    )
    for keys in (("version",), ("version", "action")):
        got = slices_by(frame, *keys)
        expected = frame.partition_by(list(keys), maintain_order=True, as_dict=True)
        want = {(k[0] if len(keys) == 1 else k): g for k, g in expected.items()}
        assert got.keys() == want.keys()
        for k, g in want.items():
            assert got[k].equals(g), k
            assert got.get(k, frame.clear()).equals(g), k
        missing = 99 if len(keys) == 1 else (99, "add")
        assert got.get(missing) is None
        assert got.get(missing, frame.clear()).is_empty()
        assert missing not in got
        bare = got.without("n")
        empty = frame.clear()
        for k, g in want.items():
            assert bare[k].equals(g.drop("n")), k
            rows_of_k = got.deferred(k, empty)
            assert isinstance(rows_of_k, Deferred) and rows_of_k.height == g.height
            assert frame_of(rows_of_k).equals(g), k
        assert got.deferred(missing, empty) is empty and got.height_of(missing) == 0


@settings(max_examples=200, deadline=None)
@given(_ROWS, st.sampled_from(["add", "remove"]))
def test_slices_where_equal_partition_by_of_the_filtered_rows(
    rows: list[tuple[int | None, str | None, int]], kind: str
) -> None:
    """Groups of the rows a condition picks, cut from the unfiltered frame (slices where the
    rows are consecutive, gathered where not), are the filtered frame's groups."""
    frame = pl.DataFrame(
        rows, schema={"version": pl.Int64, "action": pl.String, "n": pl.Int64}, orient="row"
    )
    where = pl.col("action") == kind
    got = slices_by(frame, "version", where=where)
    want = frame.filter(where).partition_by("version", maintain_order=True, as_dict=True)
    assert set(got) == {k[0] for k in want} and len(got) == len(want)
    for (k,), g in want.items():
        assert got[k].equals(g), k
        assert got.height_of(k) == g.height
    assert 99 not in got and got.get(99) is None
