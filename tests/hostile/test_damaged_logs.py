"""Damaged input the wanted version depends on is an error naming the file; what can be read
around correctly is a diagnostic. Never a traceback, never a wrong answer shown as right."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltaforensics.cli import main

PROTOCOL = {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}
METADATA = {
    "metaData": {
        "id": "t",
        "format": {"provider": "parquet", "options": {}},
        "schemaString": '{"type":"struct","fields":[]}',
        "partitionColumns": [],
        "configuration": {},
    }
}


def add(path: str) -> dict[str, object]:
    return {
        "add": {
            "path": path,
            "partitionValues": {},
            "size": 1,
            "modificationTime": 1,
            "dataChange": True,
        }
    }


def write(root: Path, commits: list[bytes]) -> Path:
    log = root / "_delta_log"
    log.mkdir(parents=True)
    for v, data in enumerate(commits):
        (log / f"{v:020d}.json").write_bytes(data)
    return root


def lines(*actions: dict[str, object]) -> bytes:
    return ("\n".join(json.dumps(a) for a in actions) + "\n").encode()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 3, err
    assert "Traceback" not in err
    first = err.strip().splitlines()[0]
    for n in needles:
        assert n in first, (n, first)


@pytest.mark.parametrize(
    ("payload", "what"),
    [
        (lines(add("a")).rstrip(b"\n")[:-5], "truncated JSON"),
        (b'{"add": {"path": "a", "size": 1, "partitionValues": {}}}\n{not json}\n', "invalid JSON"),
        (b"\x00\xff\xfe garbage \x89PNG", "not UTF-8"),
        (b'["an", "array"]\n', "not a JSON object"),
        (b'{"add": {"path": "a", "size": "big", "partitionValues": {}}}\n', "wrong type"),
        (b"[" * 5000 + b"]" * 5000 + b"\n", "JSON"),
    ],
    ids=[
        "truncated-last-line",
        "invalid-line",
        "binary-garbage",
        "not-an-object",
        "wrong-type",
        "deeply-nested",
    ],
)
def test_damaged_commit_is_an_error_naming_file_and_version(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, payload: bytes, what: str
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), payload])
    for command in ("snapshot", "history"):
        code, out, err = run(capsys, command, str(root))
        _one_line_error(code, err, "00000000000000000001.json", "version 1", what)
        assert out == ""


def test_an_empty_commit_file_is_read_with_a_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), b"", lines(add("b"))])
    code, out, _ = run(capsys, "history", str(root), "--format", "json")
    assert code == 0
    assert any(d["code"] == "W204" for d in json.loads(out)["diagnostics"])


def test_a_missing_commit_in_the_middle_is_an_error_with_a_hint(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a")), lines(add("b"))])
    (root / "_delta_log" / f"{1:020d}.json").unlink()
    code, _, err = run(capsys, "snapshot", str(root))
    _one_line_error(code, err, "version 2", "commit(s) 1 missing")
    assert "hint: --to-version 0" in err
    code, out, _ = run(capsys, "snapshot", str(root), "--version", "0", "--format", "json")
    assert code == 0 and json.loads(out)["files"] == []


def test_last_checkpoint_pointing_nowhere_is_a_diagnostic(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a"))])
    (root / "_delta_log" / "_last_checkpoint").write_text('{"version": 7, "size": 3}')
    code, out, _ = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0 and [f["path"] for f in json.loads(out)["files"]] == ["a"]
    assert "W103" in {d["code"] for d in json.loads(out)["diagnostics"]}
    (root / "_delta_log" / "_last_checkpoint").write_text("{corrupt")
    code, out, _ = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0 and "W104" in {d["code"] for d in json.loads(out)["diagnostics"]}


def test_a_corrupt_checkpoint_falls_back_to_version_zero(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a")), lines(add("b"))])
    (root / "_delta_log" / f"{1:020d}.checkpoint.parquet").write_bytes(b"PAR1 this is not parquet")
    code, out, _ = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert sorted(f["path"] for f in doc["files"]) == ["a", "b"]
    assert "W102" in {d["code"] for d in doc["diagnostics"]}


def test_a_corrupt_checkpoint_without_fallback_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a")), lines(add("b"))])
    log = root / "_delta_log"
    (log / f"{1:020d}.checkpoint.parquet").write_bytes(b"garbage")
    (log / f"{0:020d}.json").unlink()
    (log / f"{1:020d}.json").unlink()
    code, _, err = run(capsys, "snapshot", str(root))
    _one_line_error(code, err, "version 2")
    assert "unreadable checkpoint" in err


def test_a_multi_part_checkpoint_missing_a_part_is_ignored(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a"))])
    (root / "_delta_log" / f"{1:020d}.checkpoint.0000000001.0000000002.parquet").write_bytes(b"x")
    code, out, _ = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0 and "W108" in {d["code"] for d in json.loads(out)["diagnostics"]}


def test_junk_and_unknown_actions_are_kept_not_fatal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a"), {"futureAction": {"x": 1}})])
    (root / "_delta_log" / "notes.txt").write_text("hello")
    (root / "_delta_log" / ".00000000000000000001.json.crc").write_text("crc")
    code, out, _ = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0
    codes = {d["code"] for d in json.loads(out)["diagnostics"]}
    assert {"W106", "W201"} <= codes


def test_percent_encoded_and_unicode_paths_are_kept_exactly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    weird = ["x=A%252FA/part-0.parquet", "ü ñ/ファイル.parquet", "a%20b.parquet"]
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(*(add(p) for p in weird))])
    code, out, _ = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0 and sorted(f["path"] for f in json.loads(out)["files"]) == sorted(weird)


def test_a_symlink_loop_in_the_log_folder_does_not_hang(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a"))])
    (root / "_delta_log" / "loop").symlink_to(root / "_delta_log", target_is_directory=True)
    code, out, _ = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0 and [f["path"] for f in json.loads(out)["files"]] == ["a"]


def test_huge_stats_strings_are_read_and_kept_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stats = json.dumps(
        {"numRecords": 1, "minValues": {"s": "x" * 2_000_000}, "maxValues": {"s": "y" * 2_000_000}}
    )
    big = {
        "add": {
            "path": "a",
            "partitionValues": {},
            "size": 1,
            "modificationTime": 1,
            "dataChange": True,
            "stats": stats,
        }
    }
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(big)])
    code, out, _ = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0 and [f["path"] for f in json.loads(out)["files"]] == ["a"]


def test_a_checkpoint_with_a_wrong_schema_falls_back(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a")), lines(add("b"))])
    pq.write_table(
        pa.table({"add": ["not a struct"], "protocol": ["nor this"]}),
        root / "_delta_log" / f"{1:020d}.checkpoint.parquet",
    )
    code, out, _ = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert sorted(f["path"] for f in doc["files"]) == ["a", "b"]
    assert any(
        d["code"] == "W102" and "expected a struct" in d["message"] for d in doc["diagnostics"]
    )


def test_unknown_reader_features_are_reported_not_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    protocol = {
        "protocol": {
            "minReaderVersion": 3,
            "minWriterVersion": 7,
            "readerFeatures": ["futureFeatureX"],
            "writerFeatures": ["futureFeatureX"],
        }
    }
    root = write(tmp_path, [lines(protocol, METADATA), lines(add("a"))])
    code, out, _ = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["protocol"]["reader_features"] == ["futureFeatureX"] and [
        f["path"] for f in doc["files"]
    ] == ["a"]
