"""The commit reader keeps free-form JSON exactly, whatever it contains."""

from __future__ import annotations

import json

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
