"""An audit over a whole Unity Catalog schema: 20 registered tables (real local logs) through
the catalog STAND-IN (tests/catalog/standin.py; the real server is not served by any registry
reachable here), run twice: the second run reads incrementally, picks up a new table and
reports a dropped one while keeping its state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltaforensics.cli import main
from deltaforensics.report.validate import schema_errors
from tests.catalog.standin import StandInCatalog
from tests.support.builder import LogBuilder


def _table(path: Path, commits: int) -> LogBuilder:
    b = LogBuilder(path, partition_by=["date"], seed=len(path.name))
    b.create(add=[b.file("date=A")])
    for v in range(1, commits):
        b.write(add=[b.file("date=A" if v % 2 else "date=B")])
    return b


def _audit(capsys: pytest.CaptureFixture[str], config: Path, state: Path) -> dict[str, object]:
    code = main(["audit", str(config), "--state", str(state), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def test_a_schema_of_20_tables_audited_incrementally_twice(
    capsys: pytest.CaptureFixture[str], uc: StandInCatalog, tmp_path: Path
) -> None:
    tables = {f"t{i:02d}": _table(tmp_path / "lake" / f"t{i:02d}", 3) for i in range(20)}
    for name, b in tables.items():
        uc.register(f"main.sales.{name}", b.path.as_uri())
    uc.register("main.sales.v_orders", str(tmp_path / "lake" / "t00"), table_type="VIEW")
    uc.register("main.sales.raw_csv", str(tmp_path / "lake"), data_source_format="CSV")
    uc.register("main.other.elsewhere", str(tables["t00"].path))
    config = tmp_path / "audit.toml"
    config.write_text(
        f'output = "out"\n[catalog]\nurl = "{uc.url}"\n[[tables]]\nschema = "main.sales"\n'
    )
    state = tmp_path / "state"

    first = _audit(capsys, config, state)
    names = sorted(t["name"] for t in first["tables"])  # type: ignore[attr-defined]
    assert names == [f"main.sales.t{i:02d}" for i in range(20)]
    assert {t["read"]["mode"] for t in first["tables"]} == {"full"}  # type: ignore[attr-defined]
    (schema,) = first["schemas"]  # type: ignore[misc]
    assert (schema["new"], schema["disappeared"]) == ([], [])

    tables["t03"].write(add=[tables["t03"].file("date=C")])  # one table moved on
    uc.register("main.sales.t20", _table(tmp_path / "lake" / "t20", 2).path.as_uri())
    uc.drop("main.sales.t07")
    kept = state / "_tables" / "main.sales.t07.json"
    assert kept.exists()

    second = _audit(capsys, config, state)
    by_name = {t["name"]: t for t in second["tables"]}  # type: ignore[attr-defined]
    assert "main.sales.t07" not in by_name
    assert by_name["main.sales.t20"]["read"]["mode"] == "full"
    assert by_name["main.sales.t03"]["read"]["mode"] == "incremental"
    assert by_name["main.sales.t03"]["read"]["commit_files_read"] == 1
    assert by_name["main.sales.t03"]["latest_version"] == 3
    others = {
        n: t["read"]["mode"]
        for n, t in by_name.items()
        if n not in ("main.sales.t03", "main.sales.t20")
    }
    assert set(others.values()) == {"unchanged"}, others
    assert schema_errors(second, "audit") == []
    (schema,) = second["schemas"]  # type: ignore[misc]
    assert schema["new"] == ["main.sales.t20"]
    assert schema["disappeared"] == [{"name": "main.sales.t07", "state_kept": str(kept)}]
    assert kept.exists()  # the dropped table's state is retained

    code = main(["audit", str(config), "--state", str(state)])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "main.sales.t07 is no longer in main.sales; its kept state is retained" in out


def test_a_glob_picks_tables_of_a_schema(
    capsys: pytest.CaptureFixture[str], uc: StandInCatalog, tmp_path: Path
) -> None:
    for name in ("orders_eu", "orders_us", "customers"):
        uc.register(f"main.sales.{name}", _table(tmp_path / name, 2).path.as_uri())
    config = tmp_path / "audit.toml"
    config.write_text(
        f'[catalog]\nurl = "{uc.url}"\n[[tables]]\nschema = "main.sales"\nmatch = "orders_*"\n'
        '[[tables]]\nuri = "main.sales.customers"\n'
    )
    summary = _audit(capsys, config, tmp_path / "state")
    names = [t["name"] for t in summary["tables"]]  # type: ignore[attr-defined]
    assert names == ["main.sales.customers", "main.sales.orders_eu", "main.sales.orders_us"]


def test_a_schema_entry_must_name_catalog_and_schema(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "audit.toml"
    config.write_text('[[tables]]\nschema = "sales"\n')
    code = main(["audit", str(config)])
    _, err = capsys.readouterr()
    assert code == 2
    assert "tables[1].schema must be a catalog.schema name like main.sales" in err
