"""--since/--until as versions, by Delta's timestamp time-travel rules, on real logs whose
commit files carry the modification times each test sets (os.utime)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from deltaforensics.errors import TimeWindowError
from deltaforensics.log.commit_times import Clock, read_stamp, window_versions
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.listing import list_log
from deltaforensics.log.storage import StoreWrapper
from tests.support.builder import LogBuilder

T0 = 1_790_000_000_000  # 2026-09-21T14:13:20Z
MINUTE = 60_000


def _table(tmp_path: Path, commits: int, **config: str) -> LogBuilder:
    b = LogBuilder(tmp_path / "t", partition_by=["date"], configuration=config or None)
    b.create(add=[b.file("date=A")])
    for _ in range(commits - 1):
        b.write(add=[b.file("date=A")])
    return b


def _set_mtimes(table: Path, times: dict[int, int]) -> None:
    for version, ms in times.items():
        os.utime(table / "_delta_log" / f"{version:020d}.json", ns=(ms * 1_000_000,) * 2)


class CountingStore(StoreWrapper):
    """Counts single-commit reads (a real store underneath)."""

    def __init__(self, inner: FsspecLogStore) -> None:
        super().__init__(inner)
        self.reads: list[str] = []

    def read(self, name: str) -> bytes:
        self.reads.append(name)
        return super().read(name)

    def read_many(self, names: list[str]) -> dict[str, bytes]:  # type: ignore[override]
        self.reads.extend(names)
        return super().read_many(names)

    def modification_times(self) -> dict[str, int]:
        return self._inner.modification_times()  # type: ignore[attr-defined,no-any-return]


def _window(path: Path, since: int | None, until: int | None) -> object:
    store = FsspecLogStore.from_uri(str(path))
    return window_versions(store, list_log(store), since_ms=since, until_ms=until)


def test_modification_times_place_commits_and_bounds_are_inclusive(tmp_path: Path) -> None:
    b = _table(tmp_path, 6)
    # the builder's commitInfo clock agrees (within the tolerance) with the files' times
    _set_mtimes(b.path, {v: b.time_of(v) + 2000 for v in range(6)})
    w = _window(b.path, b.time_of(2) + 2000, b.time_of(4) + 2000)
    assert (w.first_version, w.last_version, w.clock) == (2, 4, Clock.MODIFICATION)
    w = _window(b.path, b.time_of(2) + 2001, b.time_of(4) + 1999)
    assert (w.first_version, w.last_version) == (3, 3)
    assert w.describe().startswith("versions 3..3 = ")
    assert "(file modification times)" in w.describe()


def test_equal_or_slightly_backwards_times_are_made_monotonic_as_delta_does(
    tmp_path: Path,
) -> None:
    b = _table(tmp_path, 4)
    base = b.time_of(0)
    # v2's file is 10 s older than v1's (clock skew): Delta counts it as v1 + 1 ms
    _set_mtimes(
        b.path, {0: base, 1: base + MINUTE, 2: base + MINUTE - 10_000, 3: base + 3 * MINUTE}
    )
    w = _window(b.path, base + MINUTE + 1, None)
    assert (w.first_version, w.clock) == (2, Clock.MODIFICATION)
    w = _window(b.path, None, base + MINUTE)
    assert w.last_version == 1


def test_one_shared_modification_time_falls_back_to_commit_info(tmp_path: Path) -> None:
    b = _table(tmp_path, 5)
    # a copy made within the hour: every file stamped alike, near what commitInfo records
    _set_mtimes(b.path, dict.fromkeys(range(5), b.time_of(2)))
    w = _window(b.path, b.time_of(3), None)
    assert (w.first_version, w.clock) == (3, Clock.COMMIT_INFO)
    assert "all one instant" in (w.clock_note or "")


class FactCountingStore(CountingStore):
    """Lists names only and counts the files whose size and time are read (a real local
    store underneath)."""

    def __init__(self, inner: FsspecLogStore) -> None:
        super().__init__(inner)
        self.stated: list[str] = []

    def list_log_names(self) -> list[object]:
        return self._inner.list_log_names()  # type: ignore[attr-defined,no-any-return]

    def file_facts(self, names: list[str]) -> dict[str, object]:
        self.stated.extend(names)
        return self._inner.file_facts(names)  # type: ignore[attr-defined,no-any-return]


def test_a_copy_far_from_commit_info_reads_only_three_file_times(tmp_path: Path) -> None:
    b = _table(tmp_path, 40)
    _set_mtimes(b.path, dict.fromkeys(range(40), T0))  # copied years after the commits
    store = FactCountingStore(FsspecLogStore.from_uri(str(b.path)))
    listing = list_log(store)
    assert store.stated == []  # the listing itself read no file's size or time
    w = window_versions(store, listing, since_ms=b.time_of(30), until_ms=None)
    assert (w.first_version, w.clock) == (30, Clock.COMMIT_INFO)
    assert "v0 file 2026-09-21 14:13, commitInfo" in (w.clock_note or "")
    assert sorted(store.stated) == [f"{v:020d}.json" for v in (0, 20, 39)]
    # and the sizes are still there when asked for
    assert (
        listing.sizes[f"{7:020d}.json"] == (b.path / "_delta_log" / f"{7:020d}.json").stat().st_size
    )


def test_times_far_from_commit_info_fall_back_to_commit_info(tmp_path: Path) -> None:
    b = _table(tmp_path, 5)
    _set_mtimes(b.path, {v: T0 + 30 * 86_400_000 + v * 1000 for v in range(5)})  # cloned later
    w = _window(b.path, None, b.time_of(1))
    assert (w.last_version, w.clock) == (1, Clock.COMMIT_INFO)
    assert "commitInfo" in (w.clock_note or "")


def test_times_running_backwards_fall_back_to_commit_info(tmp_path: Path) -> None:
    b = _table(tmp_path, 4)
    base = b.time_of(0)
    _set_mtimes(b.path, {0: base, 1: base + 60 * MINUTE, 2: base + MINUTE, 3: base + 3 * MINUTE})
    w = _window(b.path, b.time_of(2), None)
    assert w.clock == Clock.COMMIT_INFO
    assert "v2 older than v1" in (w.clock_note or "")


def test_in_commit_timestamps_win_over_modification_times(tmp_path: Path) -> None:
    b = _table(tmp_path, 5, **{"delta.enableInCommitTimestamps": "true"})
    _set_mtimes(b.path, dict.fromkeys(range(5), T0))  # would be unreliable; never consulted
    w = _window(b.path, b.time_of(2), b.time_of(3))
    assert (w.first_version, w.last_version, w.clock) == (2, 3, Clock.IN_COMMIT)
    assert w.clock_note is None


def test_in_commit_timestamps_enabled_later_apply_from_their_version(tmp_path: Path) -> None:
    b = _table(tmp_path, 3)
    b.set_properties({"delta.enableInCommitTimestamps": "true"})  # v3
    b.write(add=[b.file("date=B")])
    b.write(add=[b.file("date=C")])
    _set_mtimes(b.path, {v: b.time_of(v) + 500 for v in range(6)})
    w = _window(b.path, b.time_of(4), None)
    assert w.first_version == 4
    assert w.clock == "file modification times before version 3, in-commit timestamps from it"
    assert _window(b.path, None, b.time_of(1) + 500).last_version == 1


def test_a_window_at_the_end_of_a_long_log_reads_a_few_commits(tmp_path: Path) -> None:
    b = _table(tmp_path, 700)
    _set_mtimes(b.path, {v: b.time_of(v) for v in range(700)})
    store = CountingStore(FsspecLogStore.from_uri(str(b.path)))
    w = window_versions(store, list_log(store), since_ms=b.time_of(690), until_ms=None)
    assert w.first_version == 690
    assert len(store.reads) <= 5, store.reads  # the newest commit and a few reliability checks
    ict = _table(tmp_path / "ict", 700, **{"delta.enableInCommitTimestamps": "true"})
    store = CountingStore(FsspecLogStore.from_uri(str(ict.path)))
    w = window_versions(store, list_log(store), since_ms=ict.time_of(690), until_ms=None)
    assert w.first_version == 690
    assert len(store.reads) <= 2 * 12, len(store.reads)  # binary searches over 700 versions


class TimesCountingStore(CountingStore):
    """Counts the store's own listings of modification times (a real store underneath)."""

    def __init__(self, inner: FsspecLogStore) -> None:
        super().__init__(inner)
        self.time_listings = 0

    def modification_times(self) -> dict[str, int]:
        self.time_listings += 1
        return super().modification_times()


def test_a_window_takes_the_commits_times_from_the_listing_not_a_second_one(
    tmp_path: Path,
) -> None:
    b = _table(tmp_path, 6)
    _set_mtimes(b.path, {v: b.time_of(v) + 2000 for v in range(6)})
    store = TimesCountingStore(FsspecLogStore.from_uri(str(b.path)))
    listing = list_log(store)
    assert listing.modified[f"{3:020d}.json"] == b.time_of(3) + 2000
    w = window_versions(store, listing, since_ms=b.time_of(2) + 2001, until_ms=None)
    assert (w.first_version, w.clock, store.time_listings) == (3, Clock.MODIFICATION, 0)
    # a listing without the times (another store's) still asks the store for them
    bare = replace(listing, modified={})
    w = window_versions(store, bare, since_ms=b.time_of(2) + 2001, until_ms=None)
    assert (w.first_version, w.clock, store.time_listings) == (3, Clock.MODIFICATION, 1)


def test_windows_outside_the_retained_log_name_the_edge(tmp_path: Path) -> None:
    b = _table(tmp_path, 3)
    _set_mtimes(b.path, {v: b.time_of(v) for v in range(3)})
    with pytest.raises(TimeWindowError, match="before the earliest retained commit, version 0"):
        _window(b.path, None, b.time_of(0) - 1)
    with pytest.raises(TimeWindowError, match=r"no commit since .* the newest, version 2"):
        _window(b.path, b.time_of(2) + 1, None)


def test_a_log_written_by_deltalake_is_placed_by_its_file_times(tmp_path: Path) -> None:
    import pyarrow as pa
    from deltalake import write_deltalake

    path = tmp_path / "dl"
    for i in range(4):
        write_deltalake(str(path), pa.table({"id": [i]}), mode="append")
    base = 1_800_000_000_000
    _set_mtimes(path, {v: base + v * 10 * MINUTE for v in range(4)})
    store = FsspecLogStore.from_uri(str(path))
    recorded = [read_stamp(store.read(f"{v:020d}.json")).commit_info_timestamp for v in range(4)]
    assert all(r is not None and abs(r - base) > 3_600_000 for r in recorded)
    # the commits were written now, so their commitInfo disagrees with the times set above
    w = window_versions(store, list_log(store), since_ms=recorded[2], until_ms=None)
    assert (w.first_version, w.clock) == (2, Clock.COMMIT_INFO)
    # with times that agree with what deltalake recorded, the files' times are used
    _set_mtimes(path, {v: (recorded[v] or 0) + 200 for v in range(4)})
    w = window_versions(store, list_log(store), since_ms=None, until_ms=(recorded[1] or 0) + 200)
    assert (w.last_version, w.clock) == (1, Clock.MODIFICATION)


def test_explaining_a_window_at_the_end_reads_from_a_checkpoint_shortly_before_it(
    tmp_path: Path,
) -> None:
    from deltaforensics.analysis import WINDOW_LOOKBACK, analyze

    b = LogBuilder(tmp_path / "t", partition_by=["date"], checkpoint_interval=50)
    b.create(add=[b.file("date=A")])
    for v in range(1, 700):
        # every tenth commit races its predecessor (read two versions back)
        b.write(add=[b.file("date=A")], read_version=v - 2 if v % 10 == 0 else v - 1)
    windowed = CountingStore(FsspecLogStore.from_uri(str(b.path)))
    part = analyze(windowed, from_version=650, window_from=650, recommendations=False)
    whole = analyze(
        CountingStore(FsspecLogStore.from_uri(str(b.path))), from_version=650, recommendations=False
    )
    commits_read = [n for n in windowed.reads if n.endswith(".json") and "checkpoint" not in n]
    # from the checkpoint at 350 (650 - 1 - 250 = 399 -> the newest at or below is 350)
    assert WINDOW_LOOKBACK == 250
    assert len(commits_read) == 699 - 350
    assert [(r.version, r.verdict.raised, r.missing_winners) for r in part.races] == [
        (r.version, r.verdict.raised, r.missing_winners) for r in whole.races
    ]
    assert [r.version for r in part.races] == list(range(650, 700, 10))
