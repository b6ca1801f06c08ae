"""Secrets an event log or a driver log holds never reach a harvested value.

A real fixture application's event log gets the configuration events Spark writes for it back,
carrying secrets (an environment update, job properties, an execution's modified configs), and
the driver log a configuration dump; nothing the harvest returns may contain them.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from deltaforensics.sources import harvest
from deltaforensics.sources.codecs import decoded_pieces
from tests.sources.support import FIXTURES, fixture_tables

KEY = "c3VwZXItc2VjcmV0LWFjY291bnQta2V5LTAxMjM0NTY3ODlhYmNkZWY="
SAS = "sv=2024-01-01&ss=b&srt=sco&sp=rl&se=2030-01-01&sig=VerySecretSignature1234567890%3D"
TOKEN = "dapi0123456789abcdef0123456789abcdef"
SECRETS = {
    "spark.hadoop.fs.azure.account.key.acct.dfs.core.windows.net": KEY,
    "spark.hadoop.fs.azure.sas.logs.acct.blob.core.windows.net": SAS,
    "spark.databricks.token": TOKEN,
}


def _with_secrets(line: bytes) -> bytes:
    if not line.strip():
        return line
    event = json.loads(line)
    if event.get("Event") == "SparkListenerJobStart":
        event["Properties"] = {**event.get("Properties", {}), **SECRETS}
    if "modifiedConfigs" in event:
        event["modifiedConfigs"] = SECRETS
    return json.dumps(event).encode()


def test_no_secret_from_configuration_events_or_driver_logs_reaches_the_harvest(
    tmp_path: Path,
) -> None:
    source = FIXTURES / "eventlogs" / "local-1795858444023.zstd"
    with source.open("rb") as stream:
        lines = b"".join(decoded_pieces(stream)).splitlines()
    environment = {"Event": "SparkListenerEnvironmentUpdate", "Spark Properties": SECRETS}
    lines.insert(2, json.dumps(environment).encode())
    (tmp_path / "local-1795858444023").write_bytes(
        b"\n".join(_with_secrets(line) for line in lines) + b"\n"
    )
    driver = tmp_path / "driver"
    driver.mkdir()
    log = (FIXTURES / "dbx" / "0101-120000-abcd1234" / "driver" / "log4j-active.log").read_text()
    dump = "".join(f"26/11/28 09:34:00 INFO SparkContext: {k}={v}\n" for k, v in SECRETS.items())
    # right above each conflict's log record, and at the top
    log = log.replace(
        "ERROR app: statement failed",
        "INFO x: y\n" + dump + "26/11/28 09:34:00 ERROR app: statement failed",
    )
    with gzip.open(driver / "log4j-2026-11-28-09-9.log.gz", "wt") as out:
        out.write(dump + log)
    result = harvest([str(tmp_path)], fixture_tables())
    assert len(result.conflicts) >= 9  # the failures are all still found
    text = repr(result)
    for secret in (KEY, SAS, TOKEN, "fs.azure.account.key"):
        assert secret not in text


def test_openlineage_configuration_facets_never_reach_a_harvested_value(tmp_path: Path) -> None:
    """Every event gets the facets the Spark listener fills with the configuration back."""
    from deltaforensics.sources import read_failures
    from tests.sources.openlineage_events import write_events

    written = tmp_path / "written.ndjson"
    write_events(
        read_failures(str(FIXTURES / "eventlogs" / "local-1795858444023.zstd")).failures, written
    )
    lines = []
    for line in written.read_text().splitlines():
        event = json.loads(line)
        event["run"]["facets"]["spark_properties"] = {"properties": SECRETS}
        event["run"]["facets"]["environment-properties"] = {"environment-properties": SECRETS}
        lines.append(json.dumps(event))
    target = tmp_path / "events.ndjson"
    target.write_text("\n".join(lines) + "\n")
    result = harvest([f"openlineage:{target}"], fixture_tables())
    assert len(result.conflicts) == 9
    text = repr(result)
    for secret in SECRETS.values():
        assert secret not in text
