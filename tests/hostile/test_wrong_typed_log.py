"""Issue #19 §2–3: names and field values no writer produces. Each is an exit 3 whose one line
names the file, version and field, or — where the rest of the log still reads correctly — a
diagnostic the report shows. Never a traceback, a hang, or a quietly different table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile.test_damaged_logs import METADATA, PROTOCOL, add, lines, run, write


def _error(code: int, err: str, *needles: str) -> None:
    assert code == 3, err
    assert "Traceback" not in err
    first = err.strip().splitlines()[0]
    for n in needles:
        assert n in first, (n, first)


def _snapshot(capsys: pytest.CaptureFixture[str], root: Path) -> dict[str, object]:
    code, out, err = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0, err
    doc: dict[str, object] = json.loads(out)
    return doc


def _codes(doc: dict[str, object]) -> set[str]:
    return {d["code"] for d in doc["diagnostics"]}  # type: ignore[attr-defined,index]


@pytest.mark.parametrize(
    "name",
    ["99999999999999999999.json", "09223372036854775808.json", "99999999999999999999.crc"],
)
def test_a_version_beyond_int64_is_junk_with_a_diagnostic(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a"))])
    (root / "_delta_log" / name).write_bytes(lines(add("junk")))
    doc = _snapshot(capsys, root)
    assert doc["version"] == 1
    assert [f["path"] for f in doc["files"]] == ["a"]  # type: ignore[attr-defined,index]
    assert "W106" in _codes(doc)
    code, out, err = run(capsys, "history", str(root), "--format", "json")
    assert code == 0, err
    assert [c["version"] for c in json.loads(out)["commits"]] == [0, 1]


@pytest.mark.parametrize("digit", ["\u0662", "\uff12"], ids=["arabic-indic", "fullwidth"])
def test_non_ascii_digits_are_junk_not_commits(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, digit: str
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a"))])
    (root / "_delta_log" / ("0" * 19 + digit + ".json")).write_bytes(lines(add("junk")))
    doc = _snapshot(capsys, root)
    assert doc["version"] == 1
    assert [f["path"] for f in doc["files"]] == ["a"]  # type: ignore[attr-defined,index]
    assert "W106" in _codes(doc)


ADD = {"path": "a", "partitionValues": {}, "size": 1, "modificationTime": 1, "dataChange": True}


def _with(kind: str, **fields: object) -> bytes:
    action = {**ADD, **fields}
    for k in [k for k, v in fields.items() if v is _DROP]:
        del action[k]
    return lines({kind: action})


_DROP = object()


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (
            b'{"add":{"path":"a","partitionValues":{},"size":Infinity,"dataChange":true}}',
            "add.size",
        ),
        (_with("add", size=2**63), "add.size"),
        (_with("add", size=10**30), "add.size"),
        (_with("add", size=1e30), "add.size"),
        (_with("add", partitionValues={"date": {"x": 1}}), "add.partitionValues.date"),
        (_with("add", partitionValues=["date", "x"]), "add.partitionValues"),
        (_with("add", partitionValues="date=x"), "add.partitionValues"),
        (_with("add", path=["a", "b"]), "add.path"),
        (_with("add", path={"a": 1}), "add.path"),
        # Jackson would read 5 as "5"; issue #32: refused in every command, as delta-rs does
        (_with("add", path=5), "add.path"),
        (_with("remove", path=5.5), "remove.path"),
        (_with("add", path=None), "add.path"),
        (_with("add", path=_DROP), "add.path"),
        (_with("remove", path=_DROP), "remove.path"),
        (
            b'{"add":{"path":"a","path":"b","partitionValues":{},"size":1}}\n',
            "'path' appears twice",
        ),
    ],
    ids=[
        "size-infinity",
        "size-2^63",
        "size-10^30",
        "size-1e30-float",
        "nested-partition-value",
        "partition-values-list",
        "partition-values-string",
        "path-list",
        "path-object",
        "path-number",
        "remove-path-number",
        "path-null",
        "add-without-path",
        "remove-without-path",
        "duplicate-key",
    ],
)
def test_a_wrong_typed_field_is_an_error_naming_file_version_and_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, line: bytes, field: str
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("b")), line])
    for command in ("snapshot", "history"):
        code, out, err = run(capsys, command, str(root))
        _error(code, err, "00000000000000000002.json", "version 2", field)
        assert out == ""


def test_a_duplicate_key_on_the_exact_path_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a tab escape sends the file through the line-by-line reader, which refuses the repeated key
    line = b'{"add":{"path":"a","path":"b","partitionValues":{},"size":1,"stats":"\\t"}}\n'
    root = write(tmp_path, [lines(PROTOCOL, METADATA), line])
    code, _, err = run(capsys, "snapshot", str(root))
    _error(code, err, "00000000000000000001.json", "version 1", "'path' appears twice")


_DUPLICATES = {
    "top-level-add": b'{"add":{"path":"a","partitionValues":{},"size":1},'
    b'"add":{"path":"b","partitionValues":{},"size":1}}',
    "add-size": b'{"add":{"path":"a","partitionValues":{},"size":1,"size":2}}',
    "partition-value": b'{"add":{"path":"a","partitionValues":{"d":"1","d":"2"},"size":1}}',
    "deletion-vector": b'{"add":{"path":"a","partitionValues":{},"size":1,"deletionVector":'
    b'{"storageType":"u","pathOrInlineDv":"x","sizeInBytes":1,"cardinality":1,"cardinality":2}}}',
    "remove-path": b'{"remove":{"path":"a","path":"b","deletionTimestamp":1,"dataChange":true}}',
    "txn-version": b'{"txn":{"appId":"app","version":1,"version":2}}',
    "commit-info": b'{"commitInfo":{"timestamp":1,"operation":"WRITE","operation":"DELETE"}}',
    "metadata-configuration": b'{"metaData":{"id":"t","format":{"provider":"parquet",'
    b'"options":{}},"schemaString":"{}","partitionColumns":[],"configuration":'
    b'{"delta.appendOnly":"true","delta.appendOnly":"false"}}}',
    "protocol": b'{"protocol":{"minReaderVersion":1,"minWriterVersion":2,"minWriterVersion":7}}',
}


@pytest.mark.parametrize("line", list(_DUPLICATES.values()), ids=list(_DUPLICATES))
def test_a_key_twice_in_any_action_object_is_an_error_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, line: bytes
) -> None:
    # the commit is otherwise plain, so it goes through the polars fast path with its neighbours
    plain = [lines(add(f"p{i}")) for i in range(3)]
    root = write(tmp_path, [lines(PROTOCOL, METADATA), *plain, line + b"\n", *plain])
    code, out, err = run(capsys, "history", str(root))
    _error(code, err, "00000000000000000004.json", "version 4", "appears twice")
    assert out == ""


def test_the_same_name_in_two_objects_of_one_line_is_no_duplicate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a partition column named like an add field, a tag named like a stats key: all legal
    line = (
        b'{"add":{"path":"size=1/a","partitionValues":{"size":"1","path":"x"},"size":7,'
        b'"modificationTime":1,"dataChange":true,"tags":{"size":"s","tags":"t"},'
        b'"stats":"{\\"numRecords\\":1}"}}\n'
    )
    metadata = {"metaData": {**METADATA["metaData"], "partitionColumns": ["size", "path"]}}  # type: ignore[dict-item]
    root = write(tmp_path, [lines(PROTOCOL, metadata), line])
    doc = _snapshot(capsys, root)
    files = doc["files"]
    assert [(f["path"], f["size"]) for f in files] == [("size=1/a", 7)]  # type: ignore[attr-defined,index]


@pytest.mark.parametrize(
    ("action", "field"),
    [
        ({"metaData": {**METADATA["metaData"], "partitionColumns": "date"}}, "partitionColumns"),  # type: ignore[dict-item]
        ({"metaData": {**METADATA["metaData"], "configuration": ["a", "b"]}}, "configuration"),  # type: ignore[dict-item]
        ({"protocol": {"minReaderVersion": 10**20, "minWriterVersion": 2}}, "minReaderVersion"),
    ],
    ids=["partition-columns-string", "configuration-list", "min-reader-version-huge"],
)
def test_a_wrong_typed_metadata_or_protocol_is_an_error_naming_version_and_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, action: dict[str, object], field: str
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(action, add("a"))])
    for command in ("snapshot", "explain"):
        code, out, err = run(capsys, command, str(root))
        _error(code, err, "version 1", field)
        assert out == ""


def _commit_info(read_version: int | None) -> dict[str, object]:
    return {
        "commitInfo": {
            "timestamp": 1,
            "operation": "WRITE",
            "operationParameters": {"mode": "Append"},
            "readVersion": read_version,
            "isolationLevel": "Serializable",
            "isBlindAppend": False,
        }
    }


def test_a_long_gap_is_reported_as_ranges_and_no_false_all_clear(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.support.checkpoints import write_checkpoint

    root = write(tmp_path, [lines(PROTOCOL, METADATA)])
    log = root / "_delta_log"
    write_checkpoint(log, 9998, [[PROTOCOL, METADATA]], [])
    for v in (9999, 10000):
        (log / f"{v:020d}.json").write_bytes(lines(_commit_info(9), add(f"f{v}")))
    code, out, err = run(capsys, "explain", str(root), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    w101 = [d["message"] for d in doc["diagnostics"] if d["code"] == "W101"]
    assert w101 and "1-9998" in w101[0] and len(w101[0]) < 200, w101
    gaps = [a for a in doc["anomalies"] if a["code"] == "AN008"]
    assert gaps and gaps[0]["versions"] == [1, 9998] and "1-9998" in gaps[0]["reason"], gaps
    w302 = [d["message"] for d in doc["diagnostics"] if d["code"] == "W302"]
    assert w302 and all("10-9998" in m and len(m) < 200 for m in w302), w302
    assert [r["missing_winners"] for r in doc["races"]] == [[[10, 9998]], [[10, 9998]]]
    for fmt in ("rich", "markdown", "html"):
        code, out, err = run(capsys, "explain", str(root), "--format", fmt)
        assert code == 0, err
        assert "every commit read the version just before it" not in out, fmt
        assert "v10–v9998 missing" in out, fmt
        assert "v11" not in out, fmt  # no version of the gap listed one by one


def test_a_commit_with_a_huge_version_is_a_prompt_error_naming_the_gap(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a"))])
    (root / "_delta_log" / f"{2**63 - 1:020d}.json").write_bytes(lines(add("b")))
    code, _, err = run(capsys, "snapshot", str(root))
    _error(code, err, f"version {2**63 - 1}", f"2-{2**63 - 2} missing")
    code, out, err = run(capsys, "history", str(root), "--format", "json")  # what it can read
    assert code == 0, err
    assert any(f"2-{2**63 - 2} missing" in d["message"] for d in json.loads(out)["diagnostics"])


def test_a_checkpoint_without_an_add_column_falls_back_not_no_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    from tests.support.checkpoints import write_checkpoint

    adds = [add(f"f{i}") for i in range(5)]
    root = write(tmp_path, [lines(PROTOCOL, METADATA, *adds[:3]), lines(*adds[3:]), lines()])
    log = root / "_delta_log"
    target = write_checkpoint(log, 1, [[PROTOCOL, METADATA, *adds]], [a["add"] for a in adds])
    pq.write_table(pq.read_table(target).drop_columns(["add"]), target)
    doc = _snapshot(capsys, root)
    assert sorted(f["path"] for f in doc["files"]) == [f"f{i}" for i in range(5)]  # type: ignore[attr-defined,index]
    assert any(
        d["code"] == "W102" and "no add column" in d["message"]
        for d in doc["diagnostics"]  # type: ignore[attr-defined]
    )
    (log / f"{0:020d}.json").unlink()  # nothing to fall back to: an error naming the file
    code, _, err = run(capsys, "snapshot", str(root))
    _error(code, err, "version 2", "00000000000000000001.checkpoint.parquet")


def test_no_all_clear_when_the_checkpoint_hides_the_only_commit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # commits 1..9998 missing; commit 9999 read version 9 but its checkpoint covers it, so no
    # commit is analysed: "every commit read the version just before it" would be false
    from tests.support.checkpoints import write_checkpoint

    root = write(tmp_path, [lines(PROTOCOL, METADATA)])
    log = root / "_delta_log"
    (log / f"{9999:020d}.json").write_bytes(lines(_commit_info(9), add("f")))
    write_checkpoint(log, 9999, [[PROTOCOL, METADATA]], [add("f")["add"]])  # type: ignore[list-item]
    for fmt in ("rich", "markdown", "html"):
        code, out, err = run(capsys, "explain", str(root), "--format", fmt)
        assert code == 0, err
        assert "every commit read the version just before it" not in out, fmt
        assert "no commit was analysed" in out, fmt


@pytest.mark.parametrize("where", ["path", "user"])
def test_a_lone_surrogate_is_an_error_naming_it_and_a_pair_reads(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str
) -> None:
    # JSON can escape half a surrogate pair; no UTF-8 text can hold it (delta-rs refuses it)
    text = "a\ud800" if where == "path" else "b"
    info = {"commitInfo": {"timestamp": 1, "userName": "\udc00" if where == "user" else "u"}}
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(info, add(text))])
    code, out, err = run(capsys, "snapshot", str(root))
    _error(code, err, "00000000000000000001.json", "version 1", "lone surrogate")
    assert out == ""
    pair = write(tmp_path / "pair", [lines(PROTOCOL, METADATA), lines(add("a\U000c205a"))])
    assert [f["path"] for f in _snapshot(capsys, pair)["files"]] == ["a\U000c205a"]  # type: ignore[attr-defined,index]


def test_a_race_over_a_gap_of_2_63_versions_is_judged_from_the_versions_present(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a checkpoint at 2^63-2 and a commit after it that read version 0: counting the winners
    # from readVersion up (the checker, the unmarked-appends anomaly) never finished
    from tests.support.checkpoints import write_checkpoint

    first = [PROTOCOL, METADATA, add("a")]
    root = write(tmp_path, [lines(*first)])
    log = root / "_delta_log"
    write_checkpoint(log, 2**63 - 2, [first], [add("a")["add"]])  # type: ignore[list-item]
    (log / f"{2**63 - 1:020d}.json").write_bytes(lines(_commit_info(0), add("b")))
    code, out, err = run(capsys, "explain", str(root), "--format", "json")
    assert code == 0, err
    assert [r["missing_winners"] for r in json.loads(out)["races"]] == [[[1, 2**63 - 2]]]
    for command in ("history", "snapshot", "whatif"):
        extra = ["--isolation", "WriteSerializable"] if command == "whatif" else []
        code, _, err = run(capsys, command, str(root), *extra)
        assert code == 0, (command, err)
