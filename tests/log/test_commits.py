"""The commit reader keeps free-form JSON exactly, whatever it contains."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deltaforensics.log.commits import read_commits


def test_json_text_nested_in_strings_survives(tmp_path: object) -> None:
    """polars re-serialises objects without escaping backslashes; such files take the exact path."""
    params = {
        "metadata": json.dumps({"schemaString": json.dumps({"fields": [{"name": 'a"b\\c'}]})})
    }
    info = {"operation": "CREATE TABLE", "operationParameters": params}
    blobs = [
        (0, "0.json", json.dumps({"commitInfo": info}).encode()),
        (
            1,
            "1.json",
            b'{"commitInfo":{"operation":"WRITE"}}\n{"add":{"path":"x","partitionValues":{"d":"a\\\\b"},"size":1}}',
        ),
        (2, "2.json", b'{"commitInfo":{"operation":"WRITE"}}'),
    ]
    frame = read_commits(blobs)
    assert frame["_v"].to_list() == [0, 1, 1, 2]
    assert json.loads(frame["commitInfo"][0]) == info
    assert json.loads(frame["add"][2]["partitionValues"]) == {"d": "a\\b"}


text_values = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30
)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.text(max_size=10), text_values | st.integers() | st.booleans(), max_size=5)
)
def test_any_commit_info_round_trips_exactly(params: dict[str, object]) -> None:
    info = {"operation": "WRITE", "operationParameters": params}
    frame = read_commits([(0, "0.json", json.dumps({"commitInfo": info}).encode())])
    assert json.loads(frame["commitInfo"][0]) == info


@pytest.mark.parametrize(
    "info",
    [
        {"operation": "WRITE", "operationParameters": {'"': ""}},
        {'k"': 1, "v": 'a"b'},
        {'a"b': {"c": 'd"e'}, "list": ['"', ""]},
    ],
    ids=["quote-key", "quote-key-end", "nested"],
)
def test_a_quote_inside_an_object_key_survives(info: dict[str, object]) -> None:
    """polars 2.1 re-serialises object keys without escaping quotes; such files are re-read."""
    line = json.dumps({"commitInfo": info}).encode() + b"\n"
    other = json.dumps({"commitInfo": {"operation": "WRITE", "p": '["date"]'}}).encode() + b"\n"
    frame = read_commits([(0, "0.json", other), (1, "1.json", line)])
    assert frame["_v"].to_list() == [0, 1]
    assert json.loads(frame["commitInfo"][1]) == info
    assert json.loads(frame["commitInfo"][0])["p"] == '["date"]'
