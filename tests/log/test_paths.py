from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from deltaforensics.log.paths import LogFileKind, LogPath, format_log_path, parse_log_path

# Delta versions are a signed 64-bit long (issue #19: beyond it a name is junk)
versions = st.integers(min_value=0, max_value=2**63 - 1 - 1000)
uuids = st.uuids().map(str)


@st.composite
def log_paths(draw: st.DrawFn) -> LogPath:
    kind = draw(st.sampled_from([k for k in LogFileKind if k not in (LogFileKind.SIDECAR,)]))
    v = draw(versions)
    match kind:
        case LogFileKind.CHECKPOINT_PART:
            total = draw(st.integers(1, 9999))
            part = draw(st.integers(1, total))
            return LogPath(
                name="", kind=kind, version=v, part=part, num_parts=total, file_format="parquet"
            )
        case LogFileKind.CHECKPOINT_V2:
            return LogPath(
                name="",
                kind=kind,
                version=v,
                uuid=draw(uuids),
                file_format=draw(st.sampled_from(["json", "parquet"])),
            )
        case LogFileKind.COMPACTED:
            return LogPath(
                name="", kind=kind, version=v, end_version=v + draw(st.integers(0, 1000))
            )
        case LogFileKind.LAST_CHECKPOINT:
            return LogPath(name="", kind=kind)
        case LogFileKind.STAGED_COMMIT:
            return LogPath(name="", kind=kind, version=v, uuid=draw(uuids))
        case LogFileKind.CHECKPOINT:
            return LogPath(name="", kind=kind, version=v, file_format="parquet")
        case _:
            return LogPath(name="", kind=kind, version=v)


@given(log_paths())
def test_log_file_names_format_and_parse_round_trip(path: LogPath) -> None:
    name = format_log_path(path)
    parsed = parse_log_path(name)
    assert parsed is not None
    assert format_log_path(parsed) == name
    assert (parsed.kind, parsed.version, parsed.part, parsed.num_parts, parsed.end_version) == (
        path.kind,
        path.version,
        path.part,
        path.num_parts,
        path.end_version,
    )


@given(st.text(max_size=80))
def test_arbitrary_names_never_crash_the_parser(name: str) -> None:
    parsed = parse_log_path(name)
    if parsed is not None:
        assert format_log_path(parsed) == name or parsed.kind is LogFileKind.CHECKPOINT_V2


def test_junk_is_not_recognised() -> None:
    for junk in [
        ".00000000000000000000.json.crc",
        "00000000000000000001.json.tmp",
        "_delta_log",
        "0000000000000000001.json",
        "00000000000000000002.checkpoint.0000000003.0000000002.parquet",
        "00000000000000000005.00000000000000000003.compacted.json",
        ".s3-optimization-0",
    ]:
        assert parse_log_path(junk) is None, junk


def test_history_ending_on_a_checkpoint_without_its_commit_does_not_crash(tmp_path: Path) -> None:
    """Commits 0..29 and a checkpoint at 30 whose JSON is gone: the history ends at 30."""
    import shutil

    from deltaforensics.analysis import load, open_store
    from tests.conftest import SAMPLE_LOGS

    table = tmp_path / "t"
    shutil.copytree(SAMPLE_LOGS / "merge_without_partition_literal", table)
    for f in sorted((table / "_delta_log").glob("*.json"))[30:]:
        f.unlink()
    loaded = load(open_store(str(table)), mode="history")
    assert loaded.replay.end_version == 30
    assert loaded.segment.checkpoint is not None and loaded.segment.checkpoint.version == 30


def test_every_kind_of_log_file_has_a_name_format() -> None:
    sidecar = LogPath(name="_sidecars/a.parquet", kind=LogFileKind.SIDECAR, file_format="parquet")
    assert format_log_path(sidecar) == "_sidecars/a.parquet"
    assert parse_log_path(format_log_path(sidecar)) == sidecar
    for kind in LogFileKind:
        path = LogPath(name="n", kind=kind, version=3, part=1, num_parts=2, end_version=4, uuid="u")
        assert format_log_path(path)


def test_names_beyond_int64_or_with_non_ascii_digits_are_not_log_files() -> None:
    assert parse_log_path(f"{2**63 - 1:020d}.json") is not None
    assert parse_log_path(f"{2**63:020d}.json") is None
    assert parse_log_path("99999999999999999999.checkpoint.parquet") is None
    assert parse_log_path("0" * 19 + "\u0662.json") is None
    assert parse_log_path("0" * 19 + "1.checkpoint.000000000\uff11.0000000001.parquet") is None
