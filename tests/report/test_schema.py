from __future__ import annotations

import copy
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.audit.run import SUMMARY_FORMAT_VERSION
from deltaforensics.errors import DeltaForensicsError
from deltaforensics.report.document.entry import FORMAT_VERSION
from deltaforensics.report.validate import (
    KINDS,
    SCHEMA_FILES,
    ReportValidationError,
    load_schema,
    schema_errors,
    validate,
)
from tests.report import SAMPLE_LOGS, SAMPLES, cli_json, explain_report, whatif_report

jsonschema = pytest.importorskip("jsonschema")

REPO = Path(__file__).resolve().parents[2]

# The contracts, written out once more by hand: every key whose absence must fail validation.
TABLE_KEYS = [
    "uri",
    "first_version",
    "latest_version",
    "partition_columns",
    "clustering_columns",
    "isolation_level",
    "isolation_level.value",
    "isolation_level.source",
    "features",
    "engines_seen",
    "num_commits",
    "num_files",
]
EVALUATED_ON = ["races", "errors", "attempts", "writer_pairs"]
DIAGNOSTIC = ["code", "severity", "message", "version"]
EXPLAIN_REQUIRED = {
    "format_version",
    "generator",
    "generator.name",
    "generator.version",
    "table",
    *(f"table.{k}" for k in TABLE_KEYS),
    "races",
    "conflicts",
    "attempts",
    "anomalies",
    "recommendations",
    "diagnostics",
    *(
        f"races[].{k}"
        for k in [
            "version",
            "read_version",
            "winners",
            "profile",
            "outcome",
            "code",
            "reason",
            "operation",
            "isolation_level",
            "isolation_level.value",
            "isolation_level.source",
            "read_predicate",
            "read_reason",
            "confidence",
            "missing_winners",
            "fragile_under",
            "fragile_under[].change",
            "fragile_under[].outcome",
            "fragile_under[].winner_version",
        ]
    ),
    *(
        f"conflicts[].{k}"
        for k in [
            "source",
            "loser",
            "loser.version",
            "loser.statement",
            "loser.read_version",
            "winner_version",
            "candidates",
            "exception",
            "code",
            "reason",
            "partitions",
            "files",
            "confidence",
        ]
    ),
    *(
        f"attempts[].{k}"
        for k in [
            "statement",
            "read_version",
            "profile",
            "outcome",
            "winner_version",
            "code",
            "reason",
        ]
    ),
    *(f"anomalies[].{k}" for k in ["code", "kind", "severity", "versions", "files", "reason"]),
    *(
        f"recommendations[].{k}"
        for k in [
            "change",
            "change.kind",
            "conflicts_avoided",
            "conflicts_introduced",
            "evaluated_on",
            *(f"evaluated_on.{e}" for e in EVALUATED_ON),
            "confidence",
            "rationale",
            "apply",
        ]
    ),
    *(f"diagnostics[].{k}" for k in DIAGNOSTIC),
}
WHATIF_REQUIRED = {
    "format_version",
    "table",
    *(f"table.{k}" for k in TABLE_KEYS),
    "scenario",
    "scenario.changes",
    "scenario.changes[].kind",
    "baseline",
    "baseline.conflicts",
    "baseline.fragile_races",
    "result",
    "result.conflicts",
    "result.fragile_races",
    "conflicts_avoided",
    "conflicts_introduced",
    "evaluated_on",
    *(f"evaluated_on.{e}" for e in EVALUATED_ON),
    "pairs",
    "pairs[].loser",
    "pairs[].loser.version",
    "pairs[].loser.attempt",
    "pairs[].winner_version",
    "pairs[].before",
    "pairs[].after",
    "pairs[].reason",
    "confidence",
    "diagnostics",
    *(f"diagnostics[].{k}" for k in DIAGNOSTIC),
}


def _key_paths(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, key)
            yield from _key_paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _key_paths(value, (*path, i))


def _name(path: tuple[Any, ...]) -> str:
    out = ""
    for part in path:
        out += "[]" if isinstance(part, int) else f".{part}"
    return out.lstrip(".")


def _without(doc: dict[str, Any], path: tuple[Any, ...]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    node: Any = doc
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]
    return doc


def _keys_whose_removal_fails(doc: dict[str, Any], kind: Any) -> set[str]:
    failing, seen = set(), set()
    for path in _key_paths(doc):
        name = _name(path)
        if name in seen:
            continue
        seen.add(name)
        if schema_errors(_without(doc, path), kind):
            failing.add(name)
    return failing


@pytest.mark.parametrize("kind", KINDS)
def test_every_shipped_schema_is_a_valid_draft_2020_12_schema(kind: Any) -> None:
    schema = load_schema(kind)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is True
    # the audit summary keeps its own version; the report documents share FORMAT_VERSION
    version = SUMMARY_FORMAT_VERSION if kind == "audit" else FORMAT_VERSION
    assert schema["properties"]["format_version"] == {
        **schema["properties"]["format_version"],
        "const": version,
    }
    # the file, its $id and its title name the format it requires (issue #30)
    stem = SCHEMA_FILES[kind].removesuffix(".json")
    assert stem.endswith(f"-v{version}")
    assert schema["$id"].endswith((f":{stem}", f"/{stem}.json"))
    assert schema["title"].endswith((f"format_version {version})", f"format {version}"))


def test_the_hand_built_explain_report_validates() -> None:
    assert schema_errors(explain_report(), "explain") == []
    validate(explain_report(), "explain")


def test_the_hand_built_whatif_result_validates() -> None:
    assert schema_errors(whatif_report(), "whatif") == []


def test_removing_exactly_the_contract_keys_fails_an_explain_report() -> None:
    assert _keys_whose_removal_fails(explain_report(), "explain") == EXPLAIN_REQUIRED


def test_removing_exactly_the_contract_keys_fails_a_whatif_result() -> None:
    assert _keys_whose_removal_fails(whatif_report(), "whatif") == WHATIF_REQUIRED


def test_a_missing_required_key_is_named_with_its_json_path() -> None:
    doc = explain_report()
    del doc["races"][2]["outcome"]
    with pytest.raises(ReportValidationError) as info:
        validate(doc, "explain")
    assert "$.races[2]: 'outcome' is a required property" in str(info.value)
    assert "report-v2.json" in str(info.value)
    assert info.value.errors == ["$.races[2]: 'outcome' is a required property"]
    assert isinstance(info.value, DeltaForensicsError)


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    node: Any = doc
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    ("path", "value"),
    [
        pytest.param(("format_version",), FORMAT_VERSION + 1, id="format-version-next"),
        pytest.param(("races", 0, "missing_winners"), [38], id="missing-winners-not-ranges"),
        pytest.param(("races", 0, "missing_winners"), [[38]], id="missing-winners-half-range"),
        pytest.param(("races", 0, "outcome"), "Commits", id="outcome-case"),
        pytest.param(("races", 0, "outcome"), "CommitFailedError", id="outcome-not-delta"),
        pytest.param(
            ("races", 0, "fragile_under", 0, "outcome"), "commits", id="fragile-outcome-commits"
        ),
        pytest.param(("races", 0, "winners"), ["11"], id="winner-as-string"),
        pytest.param(("races", 0, "confidence"), "certain", id="confidence"),
        pytest.param(("conflicts", 0, "source"), "log", id="conflict-source"),
        pytest.param(("conflicts", 0, "loser", "version"), "12", id="loser-version-string"),
        pytest.param(("conflicts", 0, "partitions"), [{"date": 1}], id="partition-value-int"),
        pytest.param(("anomalies", 0, "severity"), "fatal", id="anomaly-severity"),
        pytest.param(("diagnostics", 0, "severity"), "critical", id="diagnostic-severity"),
        pytest.param(("recommendations", 0, "conflicts_avoided"), -1, id="negative-count"),
        pytest.param(
            ("recommendations", 0, "change"), {"columns": ["date"]}, id="change-without-kind"
        ),
        pytest.param(("table", "num_files"), None, id="num-files-null"),
    ],
)
def test_wrong_types_and_values_outside_the_enums_fail(path: tuple[Any, ...], value: Any) -> None:
    doc = _set(explain_report(), path, value)
    with pytest.raises(ReportValidationError):
        validate(doc, "explain")


def test_new_keys_are_allowed_everywhere_without_a_version_bump() -> None:
    doc = explain_report()
    doc["whatif"] = []
    doc["table"]["row_tracking"] = True
    doc["races"][0]["txn_id"] = "abc"
    doc["conflicts"][0]["loser"]["job"] = {"jobId": "7"}
    doc["recommendations"][0]["evaluated_on"]["streams"] = 1
    validate(doc, "explain")


def test_whatif_pair_loser_needs_a_version_or_an_attempt() -> None:
    doc = whatif_report()
    doc["pairs"][0]["loser"] = {"statement": "MERGE …"}
    assert schema_errors(doc, "whatif")


def test_every_exception_a_rule_raises_is_an_allowed_outcome() -> None:
    from deltaforensics.conflicts.registry import RULES

    schema = load_schema("explain")
    allowed = set(schema["$defs"]["outcome"]["enum"])
    assert {rule.exception for rule in RULES} <= allowed
    assert set(schema["$defs"]["exception"]["enum"]) == allowed - {"commits"}


def test_shared_definitions_do_not_drift_between_schemas() -> None:
    explain, whatif = load_schema("explain"), load_schema("whatif")
    for name in ("table", "isolation_level", "change", "evaluated_on", "outcome", "confidence"):
        assert whatif["$defs"][name] == explain["$defs"][name], name
    for kind in KINDS:
        assert load_schema(kind)["$defs"]["diagnostic"] == explain["$defs"]["diagnostic"], kind


def test_unknown_kind_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown document kind"):
        validate({}, "nonsense")  # type: ignore[arg-type]


def test_a_missing_jsonschema_gives_an_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    with pytest.raises(DeltaForensicsError, match="needs the jsonschema package") as info:
        validate(explain_report(), "explain")
    assert any("pip install" in note for note in info.value.__notes__)


def test_the_schemas_are_declared_as_package_data() -> None:
    """The wheel must ship them: pyproject's package-data has to match every schema file."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["deltaforensics"]
    package = REPO / "deltaforensics"
    shipped = {path for pattern in globs for path in package.glob(pattern)}  # setuptools globs too
    for name in SCHEMA_FILES.values():
        path = package / "report" / "schema" / name
        assert path.is_file()
        assert path in shipped, f"report/schema/{name} is not matched by package-data {globs}"


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_emitted_document_validates(sample: str, capsys: pytest.CaptureFixture[str]) -> None:
    table = str(SAMPLE_LOGS / sample)
    validate(cli_json(capsys, "explain", table), "explain")
    validate(cli_json(capsys, "history", table), "history")
    validate(cli_json(capsys, "snapshot", table), "snapshot")
