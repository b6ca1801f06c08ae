"""Unity Catalog names on the command line, resolved through the catalog STAND-IN
(tests/catalog/standin.py: the real server is not served by any registry reachable here) over
real local Delta logs."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path

import pytest

from deltaforensics.catalog.names import parse_schema_name, parse_table_name
from tests.catalog.standin import StandInCatalog
from tests.log.test_time_window_cli import run_cli, stamped_table
from tests.support.builder import LogBuilder

DAY = 86_400_000
TOKEN = "dapi0123456789abcdef-SECRET-TOKEN"


def recent_table(path: Path, commits: int = 20) -> LogBuilder:
    """A table whose commits span the last ten days, files stamped at their commit times."""
    start = int(time.time() * 1000) - 10 * DAY
    return stamped_table(path, commits, step_seconds=43_200, start_ms=start)


def test_names_parse_with_backquotes() -> None:
    name = parse_table_name("main.`sales.eu`.orders")
    assert name is not None
    assert (name.catalog, name.schema, name.table) == ("main", "sales.eu", "orders")
    assert name.full_name == "main.sales.eu.orders"
    assert str(name) == "main.`sales.eu`.orders"
    assert parse_table_name("sales/orders") is None
    assert parse_table_name("a.b") is None
    assert parse_table_name("a.b.c.d") is None
    schema = parse_schema_name("main.sales")
    assert schema is not None and str(schema.table("x")) == "main.sales.x"


def test_explain_a_catalog_name_since_7d(
    capsys: pytest.CaptureFixture[str], uc: StandInCatalog, tmp_path: Path
) -> None:
    b = recent_table(tmp_path / "orders")
    uc.register("main.sales.orders", b.path.as_uri())
    code, out, err = run_cli(
        capsys, "explain", "main.sales.orders", "--since", "7d", "--catalog-url", uc.url,
        "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    assert doc["table"]["uri"] == str(b.path)
    window = doc["time_window"]
    # commits every 12 hours from 10 days ago: the first within 7 days is v6 or v7
    assert window["first_version"] in (6, 7)
    assert window["last_version"] == 19
    assert window["clock"] == "file modification times"
    assert [r[1] for r in uc.requests] == ["/api/2.1/unity-catalog/tables/main.sales.orders"]


@pytest.mark.parametrize("command", ["history", "snapshot", "whatif"])
def test_every_table_command_takes_a_catalog_name(
    capsys: pytest.CaptureFixture[str],
    uc: StandInCatalog,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    b = recent_table(tmp_path / "orders", commits=4)
    uc.register("main.sales.orders", str(b.path))
    monkeypatch.setenv("DELTAFORENSICS_UC_URL", uc.url)
    extra = ["--isolation", "Serializable"] if command == "whatif" else ["--format", "json"]
    code, out, err = run_cli(capsys, command, "main.sales.orders", *extra)
    assert code == 0, err
    table = json.loads(out)["table"]
    assert (table if isinstance(table, str) else table["uri"]) == str(b.path)


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        ({"table_type": "VIEW"}, "main.sales.orders: a view, not a Delta table"),
        ({"data_source_format": "CSV"}, "main.sales.orders: not a Delta table (format CSV)"),
        ({"forbidden": True}, "main.sales.orders: permission denied (403"),
        ({"missing": True}, "main.sales.orders: no such table in the catalog (404)"),
    ],
)
def test_what_the_catalog_refuses_is_one_line_and_exit_3(
    capsys: pytest.CaptureFixture[str],
    uc: StandInCatalog,
    tmp_path: Path,
    setup: dict[str, object],
    expected: str,
) -> None:
    b = recent_table(tmp_path / "orders", commits=2)
    kind = {k: str(v) for k, v in setup.items() if k in ("table_type", "data_source_format")}
    if not setup.get("missing"):
        uc.register("main.sales.orders", str(b.path), **kind)
    if setup.get("forbidden"):
        uc.forbidden.add("main.sales.orders")
    code, out, err = run_cli(capsys, "explain", "main.sales.orders", "--catalog-url", uc.url)
    assert code == 3
    assert out == ""
    assert err.startswith(f"error: {expected}")
    assert len(err.strip().splitlines()) == 1


def test_databricks_auth_from_the_environment_and_profiles_never_shows_the_token(
    capsys: pytest.CaptureFixture[str],
    uc: StandInCatalog,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    b = recent_table(tmp_path / "orders", commits=3)
    uc.register("main.sales.orders", str(b.path))
    uc.token = TOKEN
    monkeypatch.setenv("DATABRICKS_HOST", uc.url)
    monkeypatch.setenv("DATABRICKS_TOKEN", TOKEN)
    code, out, err = run_cli(capsys, "--debug", "history", "main.sales.orders", "--format", "json")
    assert code == 0, err
    assert err == ""
    assert uc.requests[-1][2]["Authorization"] == f"Bearer {TOKEN}"
    assert TOKEN not in out + err
    # a wrong token: the catalog refuses, and the message names the table, not the token
    monkeypatch.setenv("DATABRICKS_TOKEN", "dapi-wrong-" + TOKEN)
    code, out, err = run_cli(capsys, "--debug", "history", "main.sales.orders")
    assert code == 3
    assert "main.sales.orders: not signed in to the catalog (401" in err
    assert TOKEN not in out + err
    # a ~/.databrickscfg profile
    monkeypatch.delenv("DATABRICKS_HOST")
    monkeypatch.delenv("DATABRICKS_TOKEN")
    config = Path(os.environ["DATABRICKS_CONFIG_FILE"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[ci]\nhost = {uc.url}\ntoken = {TOKEN}\n")
    code, out, err = run_cli(
        capsys, "--debug", "history", "main.sales.orders", "--catalog-profile", "ci"
    )
    assert code == 0, err
    assert TOKEN not in out + err


def test_without_any_catalog_configured_the_name_says_what_to_set(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_cli(capsys, "explain", "main.sales.orders")
    assert code == 3
    assert err.startswith("error: main.sales.orders: no catalog to ask: set DATABRICKS_HOST")


def test_an_existing_local_path_wins_over_a_catalog_name(
    capsys: pytest.CaptureFixture[str],
    uc: StandInCatalog,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recent_table(tmp_path / "main.sales.orders", commits=2)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(
        capsys, "history", "main.sales.orders", "--catalog-url", uc.url, "--format", "json"
    )
    assert code == 0, err
    assert json.loads(out)["table"] == str(tmp_path / "main.sales.orders")
    assert uc.requests == []


def _stage_last_commit(b: LogBuilder) -> dict[str, object]:
    """Move the newest commit to _staged_commits/: ratified by the catalog, not published."""
    log = b.path / "_delta_log"
    version = b.version
    staged_dir = log / "_staged_commits"
    staged_dir.mkdir()
    name = f"{version:020d}.{uuid.uuid4()}.json"
    published = log / f"{version:020d}.json"
    (staged_dir / name).write_bytes(published.read_bytes())
    published.unlink()
    return {
        "version": version,
        "timestamp": b.time_of(version),
        "file_name": name,
        "file_size": (staged_dir / name).stat().st_size,
        "file_modification_timestamp": b.time_of(version),
    }


def test_a_catalog_managed_table_reads_ratified_commits_from_the_commits_api(
    capsys: pytest.CaptureFixture[str], uc: StandInCatalog, tmp_path: Path
) -> None:
    b = recent_table(tmp_path / "orders", commits=5)
    ratified = _stage_last_commit(b)
    info = uc.register(
        "main.sales.orders",
        str(b.path),
        table_type="MANAGED",
        properties={"delta.feature.catalogManaged": "supported"},
    )
    uc.commits = {info["table_id"]: [ratified]}
    code, out, err = run_cli(
        capsys, "history", "main.sales.orders", "--catalog-url", uc.url, "--format", "json"
    )
    assert code == 0, err
    assert [c["version"] for c in json.loads(out)["commits"]] == [0, 1, 2, 3, 4]


def test_without_a_commits_api_explain_says_which_versions_it_cannot_see(
    capsys: pytest.CaptureFixture[str], uc: StandInCatalog, tmp_path: Path
) -> None:
    b = recent_table(tmp_path / "orders", commits=5)
    _stage_last_commit(b)
    uc.register(
        "main.sales.orders",
        str(b.path),
        table_type="MANAGED",
        properties={"delta.feature.catalogOwned-preview": "supported"},
    )
    code, out, err = run_cli(
        capsys, "explain", "main.sales.orders", "--catalog-url", uc.url, "--format", "json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["table"]["latest_version"] == 3
    notes = [d["message"] for d in doc["diagnostics"] if d["code"] == "W110"]
    assert any("versions after 3" in n and "no commits API" in n for n in notes), notes
