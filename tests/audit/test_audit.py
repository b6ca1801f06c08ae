"""``deltaforensics audit``: many tables, one command; kept state read incrementally; datasets."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from deltalake import DeltaTable, write_deltalake

from deltaforensics.audit.datasets import DATASETS, schema
from deltaforensics.cli import main
from deltaforensics.report.validate import validate
from tests.conflicts.deltars_harness import rows
from tests.conftest import SAMPLE_LOGS, corpus_tables
from tests.hostile.test_read_only import READS, WRITES


def write_config(path: Path, tables: list[dict[str, str]], **top: Any) -> Path:
    lines = [f"{k} = {json.dumps(v)}" for k, v in top.items()]
    for t in tables:
        lines.append("[[tables]]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in t.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def failing_fleet_config(tmp_path: Path) -> Path:
    """Three tables: ``missing`` (no such folder), ``damaged`` (a truncated commit 3) and
    ``good``; the audit must report the first two and still audit the third."""
    damaged = tmp_path / "damaged"
    shutil.copytree(SAMPLE_LOGS / "optimize_vs_delete", damaged)
    (damaged / "_delta_log" / f"{3:020d}.json").write_text('{"add": {"path": ')
    return write_config(
        tmp_path / "a.toml",
        [
            {"name": "missing", "uri": str(tmp_path / "nowhere")},
            {"name": "damaged", "uri": str(damaged)},
            {"name": "good", "uri": str(SAMPLE_LOGS / "merge_without_partition_literal")},
        ],
    )


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--quiet", *args])
    out, err = capsys.readouterr()
    return code, out, err


def summary_of(out_dir: Path) -> dict[str, Any]:
    doc = json.loads((out_dir / "summary.json").read_text())
    validate(doc, "audit")
    return doc


def entry(summary: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in summary["tables"] if t["name"] == name)


def report(out_dir: Path, name: str) -> dict[str, Any]:
    return json.loads((out_dir / "reports" / f"{name}.json").read_text())


def dataset(out_dir: Path, name: str, table: str) -> pl.DataFrame:
    return pl.read_parquet(out_dir / "datasets" / name / f"table={table}" / "part-0.parquet")


# --------------------------------------------------------------------------- the whole fleet


def test_one_command_audits_every_corpus_table_and_sample_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = [{"name": p.name, "uri": str(p)} for p in corpus_tables()]
    samples = sorted(p for p in SAMPLE_LOGS.iterdir() if (p / "_delta_log").is_dir())
    tables += [{"name": f"sample.{p.name}", "uri": str(p)} for p in samples]
    assert len(tables) >= 80 + 6
    config = write_config(tmp_path / "audit.toml", tables, output="out", recommendations=False)
    code, out, err = run(capsys, "audit", str(config), "--format", "json")
    summary = json.loads(out)
    assert summary == summary_of(tmp_path / "out")
    assert summary["totals"]["tables"] == len(tables)
    failed = [t for t in summary["tables"] if t["status"] != "ok"]
    # only tables whose latest version cannot be rebuilt (documented in tests/corpus) may fail
    assert all("cannot be reconstructed" in t["error"] for t in failed), failed
    assert len(failed) <= 3
    assert code == (3 if failed else 0), err
    for t in summary["tables"]:
        if t["status"] != "ok":
            assert "\n" not in t["error"] and t["exit_code"] == 3
            continue
        doc = report(tmp_path / "out", t["name"])
        validate(doc, "explain")
        assert t["counts"]["races"] == len(doc["races"])
        assert t["read"]["mode"] == "full" and t["read"]["commit_files_read"] > 0
        commits = dataset(tmp_path / "out", "commits", t["name"])
        assert commits.schema == pl.Schema(schema("commits"))
        assert commits.height == doc["table"]["num_commits"]
        assert set(commits["table"]) <= {t["name"]}
        assert dataset(tmp_path / "out", "races", t["name"]).height == len(doc["races"])
        assert dataset(tmp_path / "out", "anomalies", t["name"]).height == len(doc["anomalies"])


def test_the_datasets_read_as_one_table_partitioned_by_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["merge_without_partition_literal", "optimize_vs_delete", "deltars_concurrent_optimize"]
    config = write_config(
        tmp_path / "a.toml", [{"uri": str(SAMPLE_LOGS / n)} for n in names], output="out"
    )
    code, _, err = run(capsys, "audit", str(config))
    assert code == 0, err
    for name in DATASETS:
        frame = pl.read_parquet(
            tmp_path / "out" / "datasets" / name / "**/*.parquet", hive_partitioning=True
        )
        assert set(frame.columns) >= {c.name for c in DATASETS[name]}
    races = pl.read_parquet(tmp_path / "out" / "datasets" / "races" / "**/*.parquet")
    assert races.group_by("table").len().sort("table")["len"].to_list() == [
        len(report(tmp_path / "out", n)["races"]) for n in sorted(names)
    ]
    recs = pl.read_parquet(tmp_path / "out" / "datasets" / "recommendations" / "**/*.parquet")
    merge = recs.filter(pl.col("table") == "merge_without_partition_literal").sort("rank")
    # nothing failed in this log: the only change that helps is a table rewrite avoiding no
    # seen conflict, which is never recommended (issue #31)
    assert merge.is_empty()


# --------------------------------------------------------------------------- state


def _deltars_table(path: Path, commits: int) -> None:
    for i in range(commits):
        write_deltalake(
            str(path),
            rows(f"2024-01-0{1 + i % 3}", range(10 * i, 10 * i + 5)),
            mode="append",
            partition_by=["date"],
        )


def test_a_second_run_with_state_reads_only_the_new_commits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "lake" / "events"
    _deltars_table(table, 5)
    config = write_config(
        tmp_path / "audit.toml", [{"name": "events", "uri": f"guarded://{table}"}], output="out"
    )
    state = tmp_path / "state"
    READS.clear()
    WRITES.clear()
    code, _, err = run(capsys, "audit", str(config), "--state", str(state))
    assert code == 0, err
    first = entry(summary_of(tmp_path / "out"), "events")
    assert first["read"]["mode"] == "full" and first["read"]["commit_files_read"] == 5
    assert len({p for p in READS if "_delta_log/" in p and p.endswith(".json")}) == 5

    write_deltalake(str(table), rows("2024-01-02", range(500, 505)), mode="append")
    DeltaTable(str(table)).delete("date = '2024-01-01'")
    write_deltalake(str(table), rows("2024-01-03", range(600, 605)), mode="append")
    READS.clear()
    code, _, err = run(capsys, "audit", str(config), "--state", str(state))
    assert code == 0, err
    second = entry(summary_of(tmp_path / "out"), "events")
    assert second["read"] == {
        "mode": "incremental",
        "reason": "3 commit(s) after v4",
        "commit_files_read": 3,
        "from_version": 5,
        "to_version": 7,
    }
    opened_commits = sorted({Path(p).name for p in READS if "_delta_log/" in p})
    assert opened_commits == [f"{v:020d}.json" for v in (5, 6, 7)]
    assert WRITES == []

    # the incremental report is the report a fresh, stateless audit writes
    fresh = write_config(
        tmp_path / "fresh.toml", [{"name": "events", "uri": f"guarded://{table}"}], output="fresh"
    )
    code, _, err = run(capsys, "audit", str(fresh))
    assert code == 0, err
    assert report(tmp_path / "out", "events") == report(tmp_path / "fresh", "events")
    commits = dataset(tmp_path / "out", "commits", "events")
    assert commits["version"].to_list() == list(range(8))
    assert commits["operation"].to_list()[-2:] == ["DELETE", "WRITE"]


def test_history_outlives_log_retention(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "events"
    _deltars_table(table, 6)
    config = write_config(tmp_path / "a.toml", [{"name": "events", "uri": str(table)}])
    state = tmp_path / "state"
    assert run(capsys, "audit", str(config), "--state", str(state))[0] == 0
    # log cleanup: a checkpoint at v5, then the commits before it expire
    DeltaTable(str(table)).create_checkpoint()
    for v in range(5):
        (table / "_delta_log" / f"{v:020d}.json").unlink()
    write_deltalake(str(table), rows("2024-01-01", range(900, 905)), mode="append")

    assert run(capsys, "audit", str(config), "--state", str(state))[0] == 0
    kept = report(tmp_path / "audit-out", "events")
    assert kept["table"]["first_version"] == 0 and kept["table"]["num_commits"] == 7
    assert any(d["code"] == "W702" for d in kept["diagnostics"])
    entry_ = entry(summary_of(tmp_path / "audit-out"), "events")
    assert entry_["read"]["mode"] == "incremental" and entry_["read"]["commit_files_read"] == 1

    without = write_config(tmp_path / "b.toml", [{"name": "events", "uri": str(table)}], output="b")
    assert run(capsys, "audit", str(without))[0] == 0
    assert report(tmp_path / "b", "events")["table"]["first_version"] == 5


def test_a_replaced_table_discards_its_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "events"
    _deltars_table(table, 4)
    config = write_config(tmp_path / "a.toml", [{"name": "events", "uri": str(table)}])
    state = tmp_path / "state"
    assert run(capsys, "audit", str(config), "--state", str(state))[0] == 0
    shutil.rmtree(table)
    _deltars_table(table, 2)
    code, _, err = run(capsys, "audit", str(config), "--state", str(state))
    assert code == 0, err
    doc = report(tmp_path / "audit-out", "events")
    assert doc["table"]["num_commits"] == 2
    assert any(d["code"] == "W701" and "replaced" in d["message"] for d in doc["diagnostics"])
    assert entry(summary_of(tmp_path / "audit-out"), "events")["read"]["mode"] == "full"


def test_an_unreadable_state_names_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(
        tmp_path / "a.toml", [{"name": "m", "uri": str(SAMPLE_LOGS / "optimize_vs_delete")}]
    )
    state = tmp_path / "state"
    assert run(capsys, "audit", str(config), "--state", str(state))[0] == 0
    part = next((state / "files" / "table=m").glob("*.parquet"))
    part.write_bytes(b"not parquet")
    code, out, _ = run(capsys, "audit", str(config), "--state", str(state), "--format", "json")
    assert code == 2
    failed = entry(json.loads(out), "m")
    assert failed["status"] == "failed" and "_tables/m.json" in failed["error"]


# --------------------------------------------------------------------------- exit codes, errors


def test_a_failing_table_does_not_stop_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = failing_fleet_config(tmp_path)
    code, out, err = run(capsys, "audit", str(config))
    assert code == 3
    summary = summary_of(tmp_path / "audit-out")
    assert [t["status"] for t in summary["tables"]] == ["failed", "failed", "ok"]
    assert "nowhere" in entry(summary, "missing")["error"]
    damaged_error = entry(summary, "damaged")["error"]
    assert "00000000000000000003.json" in damaged_error and "version 3" in damaged_error
    assert (tmp_path / "audit-out" / "reports" / "good.json").is_file()
    assert "FAILED" in out and "Traceback" not in out + err


@pytest.mark.parametrize(
    ("fail_on", "code"), [([], 0), (["anomaly"], 1), (["conflict"], 0), (["disagreement"], 0)]
)
def test_fail_on_sets_exit_code_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fail_on: list[str], code: int
) -> None:
    config = write_config(
        tmp_path / "a.toml", [{"uri": str(SAMPLE_LOGS / "deltars_concurrent_optimize")}]
    )
    flags = [x for f in fail_on for x in ("--fail-on", f)]
    got, out, err = run(capsys, "audit", str(config), *flags, "--format", "json")
    assert got == code, err
    assert json.loads(out)["tables"][0]["fail_on_hits"] == (["anomaly"] if code else [])


def test_fail_on_from_the_config_and_the_flag_overrides_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(
        tmp_path / "a.toml",
        [{"uri": str(SAMPLE_LOGS / "deltars_concurrent_optimize")}],
        fail_on=["anomaly"],
    )
    assert run(capsys, "audit", str(config))[0] == 1
    assert run(capsys, "audit", str(config), "--fail-on", "conflict")[0] == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tables = [", "not valid TOML"),
        ('output = "x"\n', "no tables"),
        ('[[tables]]\nname = "a"\n', "tables[1].uri is missing"),
        ('[[tables]]\nuri = "x"\nbogus = 1\n', "unknown key tables[1].bogus"),
        ('colour = 1\n[[tables]]\nuri = "x"\n', "unknown key colour"),
        (
            '[[tables]]\nuri = "/a/t"\n[[tables]]\nuri = "/b/t"\n',
            "'t' is already used by tables[1]",
        ),
        ('[[tables]]\nuri = "x"\nname = "a b"\n', "tables[1].name 'a b'"),
        ('[[tables]]\nuri = "x"\nstorage = "lake"\n', "tables[1].storage 'lake' is not"),
        (
            '[storage.lake]\naccount_key = { env = "DF_TEST_UNSET_KEY" }\n[[tables]]\nuri = "x"\n',
            "storage.lake.account_key reads the environment variable DF_TEST_UNSET_KEY",
        ),
        ('fail_on = ["everything"]\n[[tables]]\nuri = "x"\n', "fail_on 'everything'"),
        ('recommendations = "yes"\n[[tables]]\nuri = "x"\n', "recommendations must be"),
        ('[[tables]]\nuri = "x"\nprofile = "oracle-9"\n', "tables[1].profile: "),
    ],
)
def test_config_mistakes_are_one_line_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    config = tmp_path / "audit.toml"
    config.write_text(text)
    code, out, err = run(capsys, "audit", str(config))
    assert code == 2 and out == ""
    assert message in err and str(config) in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_missing_config_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "audit", str(tmp_path / "none.toml"))
    assert code == 2 and "none.toml" in err and "cannot read" in err


def test_outputs_inside_a_table_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t"
    shutil.copytree(SAMPLE_LOGS / "optimize_vs_delete", table)
    config = write_config(tmp_path / "a.toml", [{"uri": str(table)}], output="t/reports")
    code, _, err = run(capsys, "audit", str(config))
    assert code == 2 and "never writes under a table's location" in err
    assert not (table / "reports").exists()


def test_storage_secrets_from_the_environment_never_reach_the_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "c2VjcmV0LWtleS12YWx1ZS1mb3ItdGVzdGluZy0xMjM0NTY3ODkw"
    monkeypatch.setenv("DF_AUDIT_TEST_KEY", secret)
    text = (
        '[storage.lake]\naccount_name = "devstoreaccount1"\n'
        'account_key = { env = "DF_AUDIT_TEST_KEY" }\n'
        '[[tables]]\nname = "remote"\nuri = "az://nocontainer/t"\nstorage = "lake"\n'
        f'[[tables]]\nuri = "{SAMPLE_LOGS / "optimize_vs_delete"}"\n'
    )
    config = tmp_path / "a.toml"
    config.write_text(text)
    code, out, err = run(capsys, "audit", str(config), "--format", "json")
    assert code == 3
    written = "".join(p.read_text() for p in (tmp_path / "audit-out").rglob("*.json"))
    assert secret not in out + err + written
    assert entry(json.loads(out), "remote")["status"] == "failed"


def _truncate(log: Path, keep_through: int) -> None:
    """The log as it was at ``keep_through``: later commits and checkpoints removed."""
    for f in log.iterdir():
        head = f.name.split(".", 1)[0]
        if (head.isdigit() and int(head) > keep_through) or f.name == "_last_checkpoint":
            f.unlink() if f.is_file() else shutil.rmtree(f)


def _commit_versions(table: Path) -> list[int]:
    log = table / "_delta_log"
    return sorted(int(f.name[:20]) for f in log.glob("*.json") if f.name[:20].isdigit())


# every sample and corpus table whose log starts at v0 with three commits or more
SPLIT_TABLES = [
    p
    for p in [
        *(p for p in sorted(SAMPLE_LOGS.iterdir()) if (p / "_delta_log").is_dir()),
        *corpus_tables(),
    ]
    if _commit_versions(p)[:1] == [0] and len(_commit_versions(p)) >= 3
]


@pytest.mark.parametrize("source", SPLIT_TABLES, ids=lambda p: p.name)
def test_an_incremental_report_equals_a_full_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: Path
) -> None:
    commits = _commit_versions(source)
    table = tmp_path / "t"
    shutil.copytree(source, table)
    _truncate(table / "_delta_log", commits[len(commits) // 2])
    config = write_config(tmp_path / "a.toml", [{"name": "t", "uri": str(table)}])
    state = tmp_path / "state"
    code, out, err = run(capsys, "audit", str(config), "--state", str(state), "--format", "json")
    assert code == 0, out + err
    first = entry(json.loads(out), "t")
    shutil.rmtree(table)
    shutil.copytree(source, table)
    fresh = write_config(tmp_path / "b.toml", [{"name": "t", "uri": str(table)}], output="fresh")
    fresh_code, fresh_out, _ = run(capsys, "audit", str(fresh), "--format", "json")
    code, out, err = run(capsys, "audit", str(config), "--state", str(state), "--format", "json")
    second = entry(json.loads(out), "t")
    if fresh_code != 0:  # a log the full read rejects is rejected with state too
        assert (code, second["error"]) == (fresh_code, entry(json.loads(fresh_out), "t")["error"])
        return
    assert code == 0, out + err
    kept = report(tmp_path / "audit-out", "t")
    if second["read"]["mode"] == "full":  # a gap after the state: it restarts, and says so
        assert "no longer in the log" in second["read"]["reason"]
        assert kept["diagnostics"][0]["code"] == "W701"
        kept["diagnostics"] = kept["diagnostics"][1:]
    else:
        expected = (
            "unchanged" if first["latest_version"] == second["latest_version"] else "incremental"
        )
        assert second["read"]["mode"] == expected, second["read"]
    assert kept == report(tmp_path / "fresh", "t")
    for name in DATASETS:
        assert dataset(tmp_path / "audit-out", name, "t").equals(
            dataset(tmp_path / "fresh", name, "t")
        ), name
