"""docs/dashboards: the Databricks AI/BI (Lakeview) dashboard over the audit's datasets.

No Databricks workspace runs in the tests, so this checks what can be checked offline: the
definition has the shape of Databricks' own published ``.lvdash.json`` files (datasets with a
``query``; pages whose ``layout`` places widgets with ``queries`` and a versioned ``spec`` on
a six-column grid), every widget reads a field its query declares, and each dataset is the
same-named query of ``queries.sql``, word for word, over columns the datasets really have.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.audit.datasets import DATASETS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "dashboards"
# Spec versions as Databricks' published dashboards write them (databricks/bundle-examples).
SPEC_VERSIONS = {"counter": 2, "bar": 3, "heatmap": 3, "table": 1}
GRID_COLUMNS = 6


def named_queries() -> dict[str, str]:
    text = (DOCS / "queries.sql").read_text(encoding="utf-8")
    found = {}
    for block in re.split(r"^-- name: ", text, flags=re.M)[1:]:
        name, rest = block.split("\n", 1)
        body = "\n".join(line for line in rest.splitlines() if not line.startswith("--"))
        found[name.strip()] = body.strip().rstrip(";").strip()
    return found


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(
        (DOCS / "deltaforensics-audit.lvdash.json").read_text(encoding="utf-8")
    )
    return doc


def widgets(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for page in doc["pages"] for item in page["layout"]]


def test_each_dataset_is_the_named_query_of_queries_sql(dashboard: dict[str, Any]) -> None:
    assert set(dashboard) == {"datasets", "pages"}
    queries = named_queries()
    assert [d["name"] for d in dashboard["datasets"]] == list(queries)
    for d in dashboard["datasets"]:
        assert set(d) == {"name", "displayName", "query"}
        assert d["query"] == queries[d["name"]]


def test_every_widget_reads_fields_its_query_declares(dashboard: dict[str, Any]) -> None:
    datasets = {d["name"]: d["query"] for d in dashboard["datasets"]}
    charts = 0
    for item in widgets(dashboard):
        widget = item["widget"]
        if "textbox_spec" in widget:
            continue
        spec = widget["spec"]
        assert spec["version"] == SPEC_VERSIONS[spec["widgetType"]], widget["name"]
        (q,) = widget["queries"]
        query = q["query"]
        declared = {f["name"] for f in query["fields"]}
        for f in query["fields"]:  # every column it aggregates is one the dataset returns
            for column in re.findall(r"`([^`]+)`", f["expression"]):
                assert re.search(rf"\b{re.escape(column)}\b", datasets[query["datasetName"]])
        encodings = spec["encodings"]
        used = [e["fieldName"] for e in encodings.get("columns", [])]
        used += [v["fieldName"] for k, v in encodings.items() if k != "columns"]
        assert used and set(used) <= declared, widget["name"]
        charts += 1
    assert charts >= 8


def test_widgets_sit_on_the_grid_without_overlapping(dashboard: dict[str, Any]) -> None:
    taken: set[tuple[int, int]] = set()
    for item in widgets(dashboard):
        p = item["position"]
        assert p["x"] >= 0 and p["x"] + p["width"] <= GRID_COLUMNS
        cells = {
            (x, y)
            for x in range(p["x"], p["x"] + p["width"])
            for y in range(p["y"], p["y"] + p["height"])
        }
        assert not cells & taken, item["widget"]["name"]
        taken |= cells


def test_the_views_read_only_columns_the_datasets_have() -> None:
    views = (DOCS / "views.sql").read_text(encoding="utf-8")
    for name in DATASETS:
        assert f"parquet.`__AUDIT_OUTPUT__/datasets/{name}`" in views
    commits = {c.name for c in DATASETS["commits"]}
    writers = views.split("commit_writers AS", 1)[1].split(";", 1)[0]
    used = set(re.findall(r"\b([a-z_]+)\b(?=[,)\s])", writers)) & (
        commits | {c.name for c in DATASETS["races"]}
    )
    assert used <= commits
    assert {"job", "notebook", "user_name", "cluster_id", "engine_info"} <= used
