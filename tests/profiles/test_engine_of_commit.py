"""One answer to "which engine wrote this commit": ``engine_of_commit`` reads ``engineInfo`` and
``clientVersion`` as ``profile_for`` does, and knows Databricks by the fields only it writes."""

from __future__ import annotations

import pytest

from deltaforensics.profiles import engine_of_commit, profile_for, written_on_databricks

# engineInfo / clientVersion as the engines write them (corpus tables and Delta's own tests)
RECORDED = [
    ({"engineInfo": "Databricks-Runtime/13.3.x-photon-scala2.12"}, "databricks"),
    ({"engineInfo": "Apache-Spark/3.5.0 Delta-Lake/3.2.0"}, "delta-spark"),
    ({"clientVersion": "delta-rs.0.17.0"}, "delta-rs"),
    ({"engineInfo": "delta-rs:py-0.25.5"}, "delta-rs"),
    ({"engineInfo": "Kernel-3.2.0/Delta Standalone"}, "kernel"),
    ({}, "delta-spark"),
]


@pytest.mark.parametrize(("commit_info", "engine"), RECORDED)
def test_engine_of_commit_agrees_with_profile_for(
    commit_info: dict[str, object], engine: str
) -> None:
    info, client = commit_info.get("engineInfo"), commit_info.get("clientVersion")
    assert engine_of_commit(commit_info) == engine
    assert (
        profile_for(
            info if isinstance(info, str) else None, client if isinstance(client, str) else None
        ).engine
        == engine
    )


@pytest.mark.parametrize("field", ["clusterId", "job", "notebook", "userId", "userName"])
def test_a_field_only_databricks_writes_means_databricks(field: str) -> None:
    """A Databricks conflict message prints the winner's commitInfo without its engineInfo."""
    commit_info = {"operation": "WRITE", field: None}
    assert written_on_databricks(commit_info)
    assert not written_on_databricks({"operation": "WRITE", "txnId": "x"})
    assert engine_of_commit({"engineInfo": "Apache-Spark/3.5.0 Delta-Lake/3.2.0"}) == "delta-spark"
