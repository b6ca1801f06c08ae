"""Secrets an event log or a driver log holds never reach any output of ``explain
--failures-from`` or of an audit with ``[[failures]]`` sources (reports in every format, the
audit's datasets, summary and state); ``--redact`` covers the harvested statements and users.

Real components: the zstd application's event log and the Databricks-layout driver log Spark
4.2.0 wrote (tests/sources/fixtures/spark-4.2), given back the configuration events Spark
writes (an environment update, job properties, an execution's modified configs, a
configuration dump in the driver log) carrying secrets, and a statement naming a person."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest

from deltaforensics.cli import main
from deltaforensics.sources.codecs import decoded_pieces
from tests.sources.support import FIXTURES, WRITTEN_AT
from tests.sources.test_secrets import KEY, SAS, SECRETS, TOKEN

PERSON = "alice.jones@example.com"
APP = "local-1795858444023"


def _event(line: bytes, tables: Path) -> bytes:
    if not line.strip():
        return line
    event = json.loads(line)
    if event.get("Event") == "SparkListenerJobStart":
        event["Properties"] = {**event.get("Properties", {}), **SECRETS}
    if "modifiedConfigs" in event:
        event["modifiedConfigs"] = SECRETS
    if str(event.get("Event", "")).endswith("SQLExecutionStart"):
        event["description"] = f"-- /Users/{PERSON}/etl\nDELETE FROM t WHERE user = '{PERSON}'"
    return json.dumps(event, separators=(",", ":")).replace(WRITTEN_AT, str(tables)).encode()


def _sources(tmp_path: Path) -> tuple[Path, Path]:
    """Table zstd_t0 under ``tmp_path/tables`` and a folder of logs holding secrets."""
    tables = tmp_path / "tables"
    for name in ("zstd_t0", "plain_t0"):  # plain_t0: the driver log's table
        shutil.copytree(FIXTURES / "tables" / name, tables / name)
    logs = tmp_path / "logs"
    logs.mkdir()
    with (FIXTURES / "eventlogs" / f"{APP}.zstd").open("rb") as stream:
        lines = b"".join(decoded_pieces(stream)).splitlines()
    environment = {"Event": "SparkListenerEnvironmentUpdate", "Spark Properties": SECRETS}
    lines.insert(2, json.dumps(environment).encode())
    (logs / APP).write_bytes(b"\n".join(_event(line, tables) for line in lines) + b"\n")
    driver = logs / "driver"
    driver.mkdir()
    log = (FIXTURES / "dbx" / "0101-120000-abcd1234" / "driver" / "log4j-active.log").read_text()
    log = log.replace(WRITTEN_AT, str(tables))
    dump = "".join(f"\\1 INFO SparkContext: {k}={v}\n" for k, v in SECRETS.items())
    # a configuration dump at the top, and right above each conflict's record (same time)
    log = re.sub(
        r"^(\d\d/\d\d/\d\d \d\d:\d\d:\d\d) ERROR app:", dump + r"\1 ERROR app:", log, flags=re.M
    )
    with gzip.open(driver / "log4j-2026-11-28-09-9.log.gz", "wt") as out:
        out.write(dump.replace("\\1", "26/11/28 09:30:00") + log)
    return tables / "zstd_t0", logs


def _assert_clean(text: str) -> None:
    for secret in (KEY, SAS, TOKEN, "VerySecretSignature", "fs.azure.account.key"):
        assert secret not in text


@pytest.mark.parametrize("fmt", ["json", "markdown", "html", "rich"])
def test_explain_failures_from_leaks_no_secret_and_redacts_people(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, logs = _sources(tmp_path)
    args = ["explain", str(table), "--failures-from", str(logs), "--format", fmt]
    assert main(args) == 0
    plain = "".join(capsys.readouterr())
    _assert_clean(plain)
    if fmt == "json":  # the statement is there, with the person's name, until --redact
        assert PERSON in plain
        assert [c["source"] for c in json.loads(plain)["conflicts"]] == ["eventlog"] * 3
    assert main([*args, "--redact"]) == 0
    redacted = "".join(capsys.readouterr())
    _assert_clean(redacted)
    assert PERSON not in redacted and "alice" not in redacted


def test_audit_failures_sources_leak_no_secret_anywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, logs = _sources(tmp_path)
    config = tmp_path / "audit.toml"
    config.write_text(
        f'output = "out"\nstate = "state"\n[[tables]]\nname = "t0"\nuri = "{table}"\n'
        f'[[tables]]\nname = "p0"\nuri = "{table.parent / "plain_t0"}"\n'
        f'[[failures]]\npath = "{logs}"\n'
    )
    assert main(["--quiet", "audit", str(config), "--redact"]) == 0
    _assert_clean("".join(capsys.readouterr()))
    written = [p for d in ("out", "state") for p in (tmp_path / d).rglob("*") if p.is_file()]
    assert any(p.suffix == ".parquet" for p in written)
    report = json.loads((tmp_path / "out" / "reports" / "t0.json").read_text())
    assert [c["source"] for c in report["conflicts"]] == ["eventlog"] * 3
    report = json.loads((tmp_path / "out" / "reports" / "p0.json").read_text())
    assert [c["source"] for c in report["conflicts"]] == ["driverlog"] * 3
    for path in written:
        data = path.read_bytes()
        for secret in (KEY, SAS, TOKEN, "VerySecretSignature", PERSON):
            assert secret.encode() not in data, path
