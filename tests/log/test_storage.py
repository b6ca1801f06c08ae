"""Reading and listing a local log in slices and on fast paths gives what the slow ones give."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from deltaforensics.analysis import open_store
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.listing import list_log
from deltaforensics.log.storage import (
    ReportingStore,
    StoreWrapper,
    SupportsChunkedReads,
    SupportsFileFacts,
    SupportsLocalFiles,
    SupportsModificationTimes,
    SupportsNameListing,
    read_chunks,
)


def _log(tmp_path: Path, names: list[str]) -> FsspecLogStore:
    log = tmp_path / "_delta_log"
    log.mkdir()
    for name in names:
        (log / name).write_text(f'{{"commitInfo":{{"name":"{name}"}}}}\n')
    return FsspecLogStore.from_uri(str(tmp_path))


def test_slices_come_in_order_and_progress_counts_over_all_of_them(tmp_path: Path) -> None:
    names = [f"{v:020d}.json" for v in range(5)]
    seen: list[tuple[int, int]] = []
    store = ReportingStore(_log(tmp_path, names), lambda done, total: seen.append((done, total)))
    store.CHUNK = 2
    got = list(read_chunks(store, names, 3))
    assert [list(part) for part in got] == [names[:3], names[3:]]
    assert all(data.startswith(b'{"commitInfo"') for part in got for data in part.values())
    assert seen == [(2, 5), (3, 5), (5, 5)]
    assert list(store.read_many(names)) == names
    assert seen[-1] == (5, 5)


def test_a_store_without_slices_of_its_own_is_read_slice_by_slice(tmp_path: Path) -> None:
    names = [f"{v:020d}.json" for v in range(4)]
    got = list(read_chunks(_log(tmp_path, names), names, 3))
    assert [list(part) for part in got] == [names[:3], names[3:]]
    assert list(read_chunks(FsspecLogStore.from_uri(str(tmp_path)), [], 3)) == []


def test_commit_names_with_other_digits_are_classified_as_the_patterns_do(tmp_path: Path) -> None:
    """ASCII digits only, in the listing's shortcut and in the patterns alike (issue #19): a
    superscript or an Arabic-Indic digit makes a junk name, not a commit."""
    plain, superscript, arabic = (
        "0" * 20 + ".json",
        "0" * 19 + "\u00b2.json",
        "\u0661" * 20 + ".json",
    )
    listing = list_log(_log(tmp_path, [plain, superscript, arabic]))
    assert listing.commits == {0: plain}
    assert set(listing.junk) == {superscript, arabic}


def test_reading_nothing_reports_nothing(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    store = ReportingStore(_log(tmp_path, []), lambda done, total: seen.append((done, total)))
    assert store.read_many([]) == {}
    assert seen == []


@pytest.mark.parametrize("size", [0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20)])
def test_a_local_file_is_read_whole_whatever_its_size(tmp_path: Path, size: int) -> None:
    log = tmp_path / "t" / "_delta_log"
    log.mkdir(parents=True)
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    (log / "00000000000000000000.json").write_bytes(data)
    store = FsspecLogStore.from_uri(str(tmp_path / "t"))
    assert store.read_many(["00000000000000000000.json"]) == {"00000000000000000000.json": data}


def test_names_alone_name_folders_as_the_full_listing_does(tmp_path: Path) -> None:
    """``list_log_names`` asks only names without a file extension whether they are folders:
    delta-rs's ``.tmp`` and a stray folder still come back as ``name/``, nested ones as their
    files, exactly as ``list_log`` (a stat per entry) names them."""
    log = tmp_path / "_delta_log"
    for folder in (".tmp", "stray", "_sidecars"):
        (log / folder).mkdir(parents=True)
    (log / "_sidecars" / "a.parquet").write_bytes(b"x")
    (log / ".tmp" / "partial.json").write_text("{}")
    for name in (f"{0:020d}.json", ".00000000000000000000.json.crc", "_last_checkpoint", "x.txt"):
        (log / name).write_text("{}\n")
    store = open_store(str(tmp_path))
    assert isinstance(store, FsspecLogStore)
    names = store.list_log_names()
    assert names is not None
    assert sorted(names) == sorted(f.name for f in store.list_log())
    assert {".tmp/", "stray/", "_sidecars/a.parquet", "x.txt"} <= set(names)


CAPABILITIES = (
    SupportsFileFacts,
    SupportsNameListing,
    SupportsModificationTimes,
    SupportsLocalFiles,
    SupportsChunkedReads,
)


class _Bare(StoreWrapper):
    """The four members every store has, and nothing else (as a store of a test or a fleet)."""


def test_the_fsspec_store_has_every_capability_but_its_own_slices(tmp_path: Path) -> None:
    """Every store built on :class:`FsspecLogStore` (ADLS today) gets them; the slices with
    progress are the reporting wrapper's."""
    store = _log(tmp_path, ["00000000000000000000.json"])
    assert [c.__name__ for c in CAPABILITIES if not isinstance(store, c)] == [
        "SupportsChunkedReads"
    ]
    log = str(tmp_path / "_delta_log")
    assert store.local_log_dir() == log
    assert store.local_file("00000000000000000000.json") == f"{log}/00000000000000000000.json"
    assert store.local_file("00000000000000000001.json") is None
    assert store.list_log_names() == ["00000000000000000000.json"]
    facts = store.file_facts(["00000000000000000000.json", "gone.json"])
    assert list(facts) == ["00000000000000000000.json"]
    assert facts["00000000000000000000.json"].size == len('{"commitInfo":{"name":"x"}}\n') + 24
    assert set(store.modification_times()) == {"00000000000000000000.json"}


def test_a_wrapper_passes_on_no_capability_it_does_not_declare(tmp_path: Path) -> None:
    bare = _Bare(_log(tmp_path, ["00000000000000000000.json"]))
    assert [c.__name__ for c in CAPABILITIES if isinstance(bare, c)] == []


def test_the_reporting_store_keeps_its_store_s_capabilities_and_invents_none(
    tmp_path: Path,
) -> None:
    """Over an fsspec store it answers as that store does; over a bare one, as a store that
    can tell nothing: no names alone, no facts, no times, no local files."""
    inner = _log(tmp_path, ["00000000000000000000.json"])
    over_fsspec = ReportingStore(inner, lambda done, total: None)
    assert over_fsspec.list_log_names() == inner.list_log_names()
    assert over_fsspec.file_facts(["00000000000000000000.json"]) == inner.file_facts(
        ["00000000000000000000.json"]
    )
    assert over_fsspec.modification_times() == inner.modification_times()
    assert over_fsspec.local_log_dir() == inner.local_log_dir()
    over_bare = ReportingStore(_Bare(inner), lambda done, total: None)
    assert over_bare.list_log_names() is None
    assert over_bare.file_facts(["00000000000000000000.json"]) == {}
    assert over_bare.modification_times() == {}
    assert over_bare.local_log_dir() is None
    assert over_bare.local_file("00000000000000000000.json") is None
    assert list_log(over_bare).commits == list_log(over_fsspec).commits


def test_no_module_probes_a_store_with_getattr() -> None:
    """A store's optional members are the capabilities of :mod:`deltaforensics.log.storage`,
    asked for with ``isinstance``: a ``getattr``/``hasattr`` on a store (or a wrapper's inner
    store) is an undeclared capability. fsspec's own filesystems are fsspec's business."""
    package = Path(__file__).resolve().parents[2] / "deltaforensics"
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and node.args
                and any(word in ast.unparse(node.args[0]) for word in ("store", "_inner"))
            ):
                found.append(f"{path.relative_to(package.parent)}:{node.lineno}")
    assert found == []
