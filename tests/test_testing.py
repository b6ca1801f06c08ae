"""LogBuilder writes logs that look like each engine's and that a real engine (delta-rs) accepts."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support import LogBuilder, Writer

REPO = Path(__file__).resolve().parent.parent
SAMPLE_LOGS = REPO / "sample_logs"
WRITERS = ["spark-3.2", "spark-2.2", "databricks-14.3", "delta-rs-1.6.6", "kernel-java"]
COLUMNS = {"id": "long", "date": "string", "amount": "double"}


def read_log(path: Path) -> list[list[dict[str, Any]]]:
    files = sorted((path / "_delta_log").glob("*.json"))
    versions = [int(f.name[:20]) for f in files]
    assert versions == list(range(len(files))), f"versions not contiguous: {versions}"
    out = []
    for f in files:
        lines = f.read_text().splitlines()
        assert lines and all(line.strip() for line in lines), f"{f.name}: empty line"
        out.append([json.loads(line) for line in lines])
    return out


def commit_info(commits: list[list[dict[str, Any]]], version: int) -> dict[str, Any]:
    first = commits[version][0]
    assert set(first) == {"commitInfo"}, "commitInfo must be the first action"
    return first["commitInfo"]


def timeline(b: LogBuilder) -> dict[str, int]:
    """One of every operation; returns the version of each."""
    v = {"create": b.create()}
    v["append"] = b.write(add=[b.file("date=A", rows=10), b.file("date=B", rows=10)])
    v["append2"] = b.write(add=[b.file("date=A", rows=5)])
    v["delete"] = b.delete(
        "date = 'A' AND id = 5",
        read_version=v["append"],
        remove=[b.live_files("date=A", version=v["append"])[0]["path"]],
        add=[b.file("date=A", rows=9)],
    )
    v["update"] = b.update(
        "date IN ('A', 'B') OR amount > 100",
        remove=[b.live_files("date=B")[0]["path"]],
        add=[b.file("date=B")],
    )
    v["merge"] = b.merge(
        "t.id = s.id AND t.date = 'A'",
        matched=[("delete", "s.op = 'D'"), "update"],
        remove=[b.live_files("date=A")[0]["path"]],
        add=[b.file("date=A")],
    )
    v["optimize"] = b.optimize("date = 'A'", zorder=["id"])
    v["properties"] = b.set_properties({"delta.logRetentionDuration": "interval 60 days"})
    v["columns"] = b.add_columns({"note": "string"})
    v["stream"] = b.streaming_update("q-1", 7, add=[b.file("date=C")])
    v["overwrite"] = b.write(mode="Overwrite", add=[b.file("date=A")], read_version=v["columns"])
    return v


@pytest.fixture(params=WRITERS)
def built(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, LogBuilder, dict[str, int]]:
    b = LogBuilder(tmp_path / "t", writer=request.param, partition_by=["date"], columns=COLUMNS)
    return request.param, b, timeline(b)


def test_every_commit_is_ndjson_with_commit_info_first_and_contiguous_versions(built) -> None:
    _, b, versions = built
    commits = read_log(b.path)
    assert len(commits) == max(versions.values()) + 1 == b.version + 1
    for v in range(len(commits)):
        info = commit_info(commits, v)
        assert info["timestamp"] == b.time_of(v)
        assert info["operation"]
    timestamps = [commit_info(commits, v)["timestamp"] for v in range(len(commits))]
    assert timestamps == sorted(timestamps) and len(set(timestamps)) == len(timestamps)
    assert {k for a in commits[0] for k in a} >= {"commitInfo", "protocol", "metaData"}


def test_paths_are_unique_and_agree_with_partition_values(built) -> None:
    _, b, _ = built
    adds = [a["add"] for actions in read_log(b.path) for a in actions if "add" in a]
    assert len({a["path"] for a in adds}) == len(adds)
    for a in adds:
        date = a["partitionValues"]["date"]
        assert a["path"].startswith(f"date={date}/part-")
        assert a["path"].endswith(".snappy.parquet")
        assert isinstance(a["stats"], str) and json.loads(a["stats"])["numRecords"] >= 0


@pytest.mark.parametrize("writer", ["spark-3.2", "databricks-14.3"])
def test_spark_commit_info_has_read_version_isolation_blind_append_and_txn_id(
    writer: str, tmp_path: Path
) -> None:
    b = LogBuilder(tmp_path, writer=writer, partition_by=["date"], columns=COLUMNS)
    v = timeline(b)
    commits = read_log(tmp_path)
    default = "WriteSerializable" if writer.startswith("databricks") else "Serializable"
    for name, version in v.items():
        info = commit_info(commits, version)
        assert re.fullmatch(r"[0-9a-f-]{36}", info["txnId"])
        assert isinstance(info["isBlindAppend"], bool)
        assert info["engineInfo"].startswith(
            ("Apache-Spark/3.5.0 Delta-Lake/3.2.0", "Databricks-Runtime/14.3.x")
        )
        assert all(isinstance(x, str) for x in info["operationMetrics"].values())
        assert ("readVersion" in info) == (name != "create")
        expected = "SnapshotIsolation" if name == "optimize" else default
        assert info["isolationLevel"] == expected, name
    blind = {n for n, ver in v.items() if commit_info(commits, ver)["isBlindAppend"]}
    assert blind == {"create", "append", "append2", "properties", "columns", "stream"}
    assert commit_info(commits, v["delete"])["readVersion"] == v["append"]
    assert commit_info(commits, v["update"])["readVersion"] == v["delete"]


def test_databricks_commit_info_carries_workspace_context_and_job_overrides(tmp_path: Path) -> None:
    b = LogBuilder(tmp_path, writer="databricks-14.3-photon", columns={"id": "long"})
    b.create()
    job = LogBuilder.job_context(811, 4001, job_name="ingest", cluster_id="0101-000000-abc")
    v = b.write(add=[b.file()], commit_info_extra=job)
    commits = read_log(tmp_path)
    created, appended = commit_info(commits, 0), commit_info(commits, v)
    assert created["engineInfo"] == "Databricks-Runtime/14.3.x-photon-scala2.12"
    assert {"userId", "userName", "notebook", "clusterId"} <= created.keys()
    assert created["operationParameters"]["statsOnLoad"] is False
    assert appended["job"]["jobId"] == "811" and appended["clusterId"] == "0101-000000-abc"
    assert "notebook" not in appended
    assert list(appended) == [k for k in ("timestamp", "userId", "userName", "operation",
        "operationParameters", "job", "clusterId", "readVersion", "isolationLevel", "isBlindAppend",
        "operationMetrics", "tags", "engineInfo", "txnId") if k in appended]  # fmt: skip
    add = commits[v][1]["add"]
    assert add["path"].endswith(".c000.snappy.parquet") and "INSERTION_TIME" in add["tags"]


def test_delta_rs_commit_info_has_no_isolation_or_blind_append_and_only_string_parameters(
    tmp_path: Path,
) -> None:
    b = LogBuilder(tmp_path, writer="delta-rs-1.6.6", partition_by=["date"], columns=COLUMNS)
    v = timeline(b)
    commits = read_log(tmp_path)
    for name, version in v.items():
        info = commit_info(commits, version)
        assert not {"isolationLevel", "isBlindAppend", "txnId"} & info.keys(), name
        assert info["engineInfo"] == "delta-rs:py-1.6.6"
        assert info["clientVersion"] == "delta-rs.py-1.6.6"
        assert all(isinstance(p, str) for p in info["operationParameters"].values()), name
        has_read_version = name in ("delete", "update", "merge", "optimize")
        assert ("readVersion" in info) == has_read_version, name
    add = next(a["add"] for a in commits[v["append"]] if "add" in a)
    assert {"tags", "baseRowId", "defaultRowCommitVersion", "clusteringProvider"} <= add.keys()
    assert not (tmp_path / "_delta_log" / f"{v['append']:020d}.json").read_text().endswith("\n")
    optimize = commit_info(commits, v["optimize"])
    assert optimize["operationParameters"] == {"predicate": "[]", "targetSize": "104857600"}


def test_kernel_java_never_claims_a_blind_append(tmp_path: Path) -> None:
    b = LogBuilder(tmp_path, writer="kernel-java", columns={"id": "long"})
    b.create()
    v = b.write(add=[b.file()])
    info = commit_info(read_log(tmp_path), v)
    assert info["isBlindAppend"] is False
    assert info["engineInfo"].startswith("Kernel-3.3.0/")
    assert "readVersion" not in info and "isolationLevel" not in info


def test_predicates_are_rendered_in_each_writers_form(tmp_path: Path) -> None:
    logged = {}
    for writer in ("spark-3.2", "spark-2.2", "delta-rs-1.6.6"):
        b = LogBuilder(tmp_path / writer, writer=writer, partition_by=["date"], columns=COLUMNS)
        v = timeline(b)
        commits = read_log(b.path)
        logged[writer] = {n: commit_info(commits, v[n])["operationParameters"] for n in v}
    spark = logged["spark-3.2"]
    (delete,) = json.loads(spark["delete"]["predicate"])
    assert re.fullmatch(r"\(\(date#\d+ = A\) AND \(id#\d+L = 5\)\)", delete)
    merge_on = r'\["\(\(id#\d+L = id#\d+L\) AND \(date#\d+ = A\)\)"\]'
    assert re.fullmatch(merge_on, spark["merge"]["predicate"])
    matched = json.loads(spark["merge"]["matchedPredicates"])
    assert matched[1] == {"actionType": "update"} and re.fullmatch(
        r"\(op#\d+ = D\)", matched[0]["predicate"]
    )
    assert re.fullmatch(r'\["\(date#\d+ = A\)"\]', spark["optimize"]["predicate"])
    assert spark["optimize"]["zOrderBy"] == '["id"]' and spark["optimize"]["auto"] is False
    old = logged["spark-2.2"]
    assert old["delete"]["predicate"] == "[\"((date = 'A') AND (id = 5L))\"]"
    assert re.fullmatch(
        r"\(date#\d+ IN \(A,B\) OR \(amount#\d+ > 100\)\)", old["update"]["predicate"]
    )
    assert old["merge"]["predicate"] == "((t.id = s.id) AND (t.date = 'A'))"
    assert "notMatchedBySourcePredicates" not in old["merge"]
    rs = logged["delta-rs-1.6.6"]
    assert rs["delete"]["predicate"] == "date = 'A' AND id = 5"
    assert rs["update"]["predicate"] == "date = 'A' OR date = 'B' OR amount > 100"
    assert rs["merge"]["mergePredicate"] == "t.id = s.id AND t.date = 'A'"
    assert rs["merge"]["predicate"] == "date = 'A'"  # delta-rs derives the literal partition filter
    assert json.loads(rs["merge"]["matchedPredicates"])[0] == {
        "actionType": "delete",
        "predicate": "s.op = 'D'",
    }


def test_optimize_is_a_no_data_change_commit_that_rewrites_the_where_partition(
    tmp_path: Path,
) -> None:
    b = LogBuilder(tmp_path, partition_by=["date"], columns=COLUMNS)
    b.create()
    b.write(add=[b.file("date=A", rows=10, size=1000) for _ in range(3)] + [b.file("date=B")])
    inputs = {f["path"] for f in b.live_files("date=A")}
    v = b.optimize("date = 'A'")
    actions = read_log(tmp_path)[v]
    removed = {a["remove"]["path"] for a in actions if "remove" in a}
    added = [a["add"] for a in actions if "add" in a]
    assert removed == inputs
    assert len(added) == 1 and json.loads(added[0]["stats"])["numRecords"] == 30
    assert not any(a[k]["dataChange"] for a in actions for k in ("add", "remove") if k in a)
    info = actions[0]["commitInfo"]
    assert (info["isolationLevel"], info["isBlindAppend"]) == ("SnapshotIsolation", False)


def test_stale_overwrite_removes_only_what_its_read_version_saw(tmp_path: Path) -> None:
    b = LogBuilder(tmp_path, writer="delta-rs", partition_by=["date"], columns=COLUMNS)
    b.create()
    old = b.write(add=[b.file("date=A"), b.file("date=B")])
    newer = b.write(add=[b.file("date=A")])
    b.write(mode="Overwrite", add=[b.file("date=C")], read_version=old)
    survivors = {f["path"] for f in b.live_files()}
    newer_path = next(a["add"]["path"] for a in b.commits[newer] if "add" in a)
    assert newer_path in survivors and len(survivors) == 2
    assert b.live_files("date=C")[0]["path"] in survivors


def test_deletion_vector_update_removes_and_re_adds_the_same_path(tmp_path: Path) -> None:
    conf = {"delta.enableDeletionVectors": "true"}
    b = LogBuilder(tmp_path, configuration=conf, columns={"id": "long"}, writer="databricks-14.3")
    b.create()
    b.write(add=[b.file(rows=100)])
    f = b.live_files()[0]
    v = b.delete("id = 7", remove=[f["path"]], add=[b.with_dv(f, cardinality=1)])
    actions = read_log(tmp_path)[v]
    (rm,) = [a["remove"] for a in actions if "remove" in a]
    (add,) = [a["add"] for a in actions if "add" in a]
    assert rm["path"] == add["path"] == f["path"] and "deletionVector" not in rm
    dv = add["deletionVector"]
    assert dv["storageType"] == "u" and len(dv["pathOrInlineDv"]) == 20 and dv["cardinality"] == 1
    assert json.loads(add["stats"])["tightBounds"] is False
    assert read_log(tmp_path)[0][2]["protocol"]["readerFeatures"] == ["deletionVectors"]
    g = b.live_files()[0]
    b.delete("id = 8", remove=[g["path"]], add=[b.with_dv(g, cardinality=2)])
    (rm2,) = [a["remove"] for a in read_log(tmp_path)[-1] if "remove" in a]
    assert rm2["deletionVector"] == dv
    assert len(b.live_files()) == 1


def test_column_mapping_uses_physical_names_in_partition_values_and_stats(tmp_path: Path) -> None:
    conf = {"delta.columnMapping.mode": "name"}
    b = LogBuilder(tmp_path, configuration=conf, partition_by=["date"], columns=COLUMNS)
    b.create()
    b.write(add=[b.file("date=A", stats={"minValues": {"id": 1}, "maxValues": {"id": 9}})])
    b.add_columns({"note": "string"})
    commits = read_log(tmp_path)
    protocol = next(a["protocol"] for a in commits[0] if "protocol" in a)
    assert (protocol["minReaderVersion"], protocol["minWriterVersion"]) == (2, 5)
    date, ident = b.physical_name("date"), b.physical_name("id")
    assert date.startswith("col-") and ident.startswith("col-")
    add = commits[1][1]["add"]
    assert add["partitionValues"] == {date: "A"}
    assert json.loads(add["stats"])["minValues"] == {ident: 1}
    assert not add["path"].startswith("date=")  # Spark uses random prefixes under column mapping
    meta = next(a["metaData"] for a in commits[2] if "metaData" in a)
    assert meta["configuration"]["delta.columnMapping.maxColumnId"] == "4"
    assert b.live_files("date=A")[0]["path"] == add["path"]


def test_output_is_deterministic_for_a_seed(tmp_path: Path) -> None:
    for name in ("one", "two"):
        timeline(
            LogBuilder(
                tmp_path / name, writer="databricks-14.3", partition_by=["date"], columns=COLUMNS
            )
        )
    for f in sorted((tmp_path / "one" / "_delta_log").iterdir()):
        assert f.read_bytes() == (tmp_path / "two" / "_delta_log" / f.name).read_bytes(), f.name


def test_commit_info_can_be_overridden_or_left_out(tmp_path: Path) -> None:
    b = LogBuilder(tmp_path, partition_by=["date"], columns=COLUMNS)
    b.create()
    v1 = b.write(add=[b.file("date=A")], omit_commit_info=True)
    v2 = b.write(add=[b.file("date=A")], commit_info_extra={"txnId": None, "userMetadata": "hi"},
                 isolation="WriteSerializable", blind=False, timestamp=42)  # fmt: skip
    v3 = b.write(add=[b.file("date=A")], writer="delta-rs-1.6.6")
    commits = read_log(tmp_path)
    assert not any("commitInfo" in a for a in commits[v1])
    info = commit_info(commits, v2)
    assert "txnId" not in info and info["userMetadata"] == "hi" and info["timestamp"] == 42
    assert (info["isolationLevel"], info["isBlindAppend"]) == ("WriteSerializable", False)
    assert commit_info(commits, v3)["engineInfo"] == "delta-rs:py-1.6.6"


def test_streaming_update_writes_a_set_transaction(tmp_path: Path) -> None:
    b = LogBuilder(tmp_path, columns={"id": "long"})
    b.create()
    v = b.streaming_update("query-1", 41, add=[b.file()])
    w = b.write(add=[b.file()], actions=[b.txn("batch-app", 7)])
    commits = read_log(tmp_path)
    assert commits[v][1] == {
        "txn": {"appId": "query-1", "version": 41, "lastUpdated": b.time_of(v)}
    }
    assert commit_info(commits, v)["operationParameters"] == {
        "outputMode": "Append",
        "queryId": "query-1",
        "epochId": "41",
    }
    assert {"txn": {"appId": "batch-app", "version": 7, "lastUpdated": b.time_of(w)}} in commits[w]


def test_removing_a_file_that_is_not_live_is_refused_unless_given_as_an_action(
    tmp_path: Path,
) -> None:
    b = LogBuilder(tmp_path, columns={"id": "long"})
    b.create()
    b.write(add=[b.file(), b.file()])
    f = b.live_files()[0]
    b.optimize(remove=[f["path"]], add=[b.file()])
    with pytest.raises(ValueError, match="not live"):
        b.optimize(remove=[f["path"]], add=[b.file()])
    v = b.optimize(remove=[f], add=[b.file()])  # a double remove: silent duplication (O5)
    assert read_log(tmp_path)[v][1]["remove"]["path"] == f["path"]


def test_writer_strings_parse_to_engine_info() -> None:
    assert Writer.parse("spark-2.4").engine_info == "Apache-Spark/3.4.0 Delta-Lake/2.4.0"
    assert Writer.parse("spark-0.6").engine_info is None
    assert Writer.parse("databricks-17.3").engine_info == "Databricks-Runtime/17.3.x-scala2.13"
    assert Writer.parse("delta-rs-1.0.0").engine_info is None
    with pytest.raises(ValueError, match="unknown writer"):
        Writer.parse("flink-1.0")


def test_a_predicate_outside_the_printable_subset_is_logged_as_written(tmp_path: Path) -> None:
    b = LogBuilder(tmp_path, partition_by=["date"], columns=COLUMNS)
    b.create()
    b.write(add=[b.file("date=A")])
    v = b.update("date LIKE 'A%'", remove=[b.live_files()[0]["path"]], add=[b.file("date=A")])
    logged = commit_info(read_log(tmp_path), v)["operationParameters"]["predicate"]
    assert json.loads(logged) == ["date LIKE 'A%'"]


def test_the_builder_reads_a_statement_predicate_as_the_analyzer_reads_it_back(
    tmp_path: Path,
) -> None:
    from deltaforensics.predicates import parse_operation_predicates, parse_predicate

    b = LogBuilder(tmp_path, writer="delta-rs", partition_by=["date"], columns=COLUMNS)
    v = timeline(b)
    params = commit_info(read_log(tmp_path), v["delete"])["operationParameters"]
    read_back = parse_operation_predicates("DELETE", params).predicate
    assert read_back == parse_predicate("date = 'A' AND id = 5")


# -- cross-checks against the real engine -------------------------------------------------------


def _relative_uris(dt: Any, root: Path) -> set[str]:
    prefix = str(root.resolve()) + "/"
    return {u.removeprefix("file://").removeprefix(prefix) for u in dt.file_uris()}


@pytest.mark.engine
def test_deltalake_loads_a_builder_table_and_sees_the_same_live_files(built) -> None:
    deltalake = pytest.importorskip("deltalake")
    import pyarrow as pa

    writer, b, versions = built
    for version in sorted(versions.values()):
        dt = deltalake.DeltaTable(str(b.path), version=version)
        expected = {f["path"] for f in b.live_files(version=version)}
        assert _relative_uris(dt, b.path) == expected, (writer, version)
        assert set(pa.table(dt.get_add_actions(flatten=True))["path"].to_pylist()) == expected
    history = deltalake.DeltaTable(str(b.path)).history()
    assert [h["version"] for h in history] == list(range(b.version, -1, -1))


@pytest.mark.engine
@pytest.mark.parametrize("writer", ["spark-3.2", "delta-rs-1.6.6"])
def test_a_builder_checkpoint_loads_in_deltalake_without_the_commits_before_it(
    writer: str, tmp_path: Path
) -> None:
    deltalake = pytest.importorskip("deltalake")
    conf = {"delta.enableDeletionVectors": "true"}
    b = LogBuilder(
        tmp_path / "t", writer=writer, partition_by=["date"], columns=COLUMNS, configuration=conf
    )
    timeline(b)
    f = b.live_files()[0]
    b.delete(
        "id = 1", remove=[f["path"]], add=[b.with_dv(f, cardinality=1)], actions=[b.txn("app", 3)]
    )
    cp = b.checkpoint()
    at = b.version
    b.write(add=[b.file("date=D")])
    assert json.loads((b.log_dir / "_last_checkpoint").read_text())["version"] == at
    only_cp = tmp_path / "only_checkpoint"
    shutil.copytree(b.path, only_cp)
    for v in range(at + 1):
        (only_cp / "_delta_log" / f"{v:020d}.json").unlink()
    for root in (b.path, only_cp):
        dt = deltalake.DeltaTable(str(root), version=at)
        assert _relative_uris(dt, root) == {x["path"] for x in b.live_files(version=at)}
        latest = deltalake.DeltaTable(str(root))
        assert latest.version() == at + 1
        assert _relative_uris(latest, root) == {x["path"] for x in b.live_files()}
    assert cp.name == f"{at:020d}.checkpoint.parquet"


def test_our_own_reader_replays_a_builder_table_like_the_builder(tmp_path: Path) -> None:
    from deltaforensics.analysis import load, open_store

    b = LogBuilder(tmp_path, writer="databricks-14.3", partition_by=["date"], columns=COLUMNS,
                   checkpoint_interval=5)  # fmt: skip
    timeline(b)
    replay = load(open_store(str(tmp_path)), mode="history").replay
    for v in range(b.version + 1):
        assert set(replay.live_files(v)["path"].to_list()) == {
            f["path"] for f in b.live_files(version=v)
        }


# -- the committed sample logs ------------------------------------------------------------------


def sample_dirs() -> list[Path]:
    return (
        sorted(p for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir())
        if SAMPLE_LOGS.is_dir()
        else []
    )


def test_there_are_sample_logs_and_the_readme_describes_each() -> None:
    samples = sample_dirs()
    assert len(samples) >= 5
    readme = (SAMPLE_LOGS / "README.md").read_text()
    for p in samples:
        assert f"## {p.name}" in readme
        facts = json.loads((p / "expected.json").read_text())
        assert facts["findings"], p.name
        assert 15 <= facts["commits"] <= 80, p.name


@pytest.mark.engine
@pytest.mark.parametrize("sample", sample_dirs(), ids=lambda p: p.name)
def test_each_sample_log_loads_in_deltalake_and_its_races_are_real(sample: Path) -> None:
    deltalake = pytest.importorskip("deltalake")
    commits = read_log(sample)
    dt = deltalake.DeltaTable(str(sample))
    assert dt.version() == len(commits) - 1
    facts = json.loads((sample / "expected.json").read_text())
    for f in facts["findings"]:
        if f["kind"] == "survived-race":
            assert (
                commit_info(commits, f["version"])["readVersion"]
                == f["read_version"]
                < f["version"] - 1
            )


@pytest.mark.engine
def test_the_delta_rs_sample_shows_duplicated_rows_and_the_overwrite_survivor() -> None:
    deltalake = pytest.importorskip("deltalake")
    sample = SAMPLE_LOGS / "deltars_concurrent_optimize"
    facts = {f["kind"]: f for f in json.loads((sample / "expected.json").read_text())["findings"]}
    commits = read_log(sample)
    dup = facts["duplicate-remove"]

    def removed(v: int) -> set[str]:
        return {a["remove"]["path"] for a in commits[v] if "remove" in a}

    assert removed(dup["version"]) == removed(dup["other_version"]) != set()
    stale = facts["stale-overwrite"]
    survivor = {a["add"]["path"] for a in commits[stale["survivor_version"]] if "add" in a}
    live = _relative_uris(deltalake.DeltaTable(str(sample), version=stale["version"]), sample)
    assert survivor <= live
    table = deltalake.DeltaTable(str(sample), version=dup["version"]).to_pyarrow_table()
    assert table.num_rows == 2 * len(set(table["user_id"].to_pylist()))


def test_table_level_changes_write_metadata_and_only_ever_grow_the_protocol(tmp_path: Path) -> None:
    b = LogBuilder(tmp_path, partition_by=["date"], columns=COLUMNS)
    b.create()
    cons = b.add_constraint("positive", "amount > 0")
    cols = b.add_columns([("note", "string")])
    dvs = b.set_properties({"delta.enableDeletionVectors": "true"})
    plain = b.set_properties({"delta.logRetentionDuration": "interval 60 days"})
    dom = b.write(add=[b.file("date=A")], actions=[b.domain("app.watermark", {"ts": 1})])
    up = b.upgrade_protocol(
        3,
        7,
        reader_features=["deletionVectors"],
        writer_features=["deletionVectors", "v2Checkpoint"],
    )
    commits = read_log(tmp_path)

    def kinds(v: int) -> set[str]:
        return {k for a in commits[v] for k in a}

    assert commit_info(commits, cons)["operationParameters"] == {
        "name": "positive",
        "expr": "amount > 0",
    }
    assert commit_info(commits, cons)["isBlindAppend"] is False  # ADD CONSTRAINT reads the table
    assert next(a["protocol"] for a in commits[cons] if "protocol" in a)["minWriterVersion"] == 3
    assert kinds(cols) == {"commitInfo", "metaData"}
    assert "note" in next(a["metaData"] for a in commits[cols] if "metaData" in a)["schemaString"]
    upgraded = next(a["protocol"] for a in commits[dvs] if "protocol" in a)
    assert upgraded["readerFeatures"] == ["deletionVectors"]
    assert {"appendOnly", "invariants", "checkConstraints", "deletionVectors"} <= set(
        upgraded["writerFeatures"]
    )
    assert kinds(plain) == {"commitInfo", "metaData"}
    meta = next(a["metaData"] for a in commits[plain] if "metaData" in a)
    assert meta["configuration"]["delta.constraints.positive"] == "amount > 0"
    assert meta["id"] == next(a["metaData"] for a in commits[0] if "metaData" in a)["id"]
    assert {
        "domainMetadata": {"domain": "app.watermark", "configuration": '{"ts":1}', "removed": False}
    } in commits[dom]
    info = commit_info(commits, up)
    assert (
        info["operation"] == "UPGRADE PROTOCOL"
        and json.loads(info["operationParameters"]["newProtocol"])["minWriterVersion"] == 7
    )
