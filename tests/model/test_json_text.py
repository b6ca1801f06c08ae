"""json_text.loads gives exactly json.loads' values, including where orjson alone would not."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deltaforensics.model.json_text import loads


def _outcome(decode: Any, text: str) -> tuple[str, str, str]:
    """What a decoder made of ``text``, compared by repr and type (so 1 != 1.0, -0.0 != 0.0,
    and a NaN equals itself)."""
    try:
        value = decode(text)
    except ValueError:
        return ("ValueError", "", "")
    return ("ok", repr(value), _types(value))


def _types(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_types(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_types(v) for v in value) + "]"
    return type(value).__name__


@pytest.mark.parametrize(
    "text",
    [
        '{"x": NaN}',
        "[Infinity, -Infinity]",
        "[1e400, -1e400]",
        "[1.7976931348623159e308]",
        "[123456789012345678901234567890]",
        "[18446744073709551616]",
        "[-9223372036854775809]",
        "[9223372036854775807, -9223372036854775808, 999999999999999999]",
        '"\\ud800"',
        '["\\ud83d\\ude00", "\\udc00x"]',
        '{"a": 1, "a": 2, "b": 3}',
        "[-0, -0.0, 1E2, 0.1, 5e-324, 1e-400]",
        '{"a": {"b": [1, 2, {"c": null, "d": true}]}}',
        "[9007199254740993.0, 1.0000000000000000000000000000001]",
        "  {}\n",
        "",
        "\ufeff{}",
        '"a\x01b"',
        "[1,]",
        "01",
        "[1] [2]",
        '{"operationParameters": {"predicate": "id > 12345678901234567890"}}',
    ],
)
def test_same_value_as_json(text: str) -> None:
    assert _outcome(loads, text) == _outcome(json.loads, text)


def test_wide_integers_stay_integers() -> None:
    assert loads('{"n": 123456789012345678901234567890}') == {"n": 123456789012345678901234567890}
    assert type(loads("[18446744073709551616]")[0]) is int


def test_lenient_numbers_decode_as_json_does() -> None:
    assert math.isnan(loads('{"x": NaN}')["x"])
    assert loads("[1e400, -Infinity]") == [math.inf, -math.inf]


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(_JSON_VALUES)
def test_any_dumped_value_decodes_as_json_does(value: Any) -> None:
    texts = (
        json.dumps(value),
        json.dumps(value, ensure_ascii=False),
        json.dumps(value, separators=(",", ":")),  # as Delta writes its log
        json.dumps(value, indent=1),  # numbers after a line break
    )
    for text in texts:
        assert _outcome(loads, text) == _outcome(json.loads, text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet='{}[]",:0123456789.eE+-\\ ntruflsaNIy\ud800', max_size=40))
def test_any_text_decodes_or_fails_as_json_does(text: str) -> None:
    assert _outcome(loads, text) == _outcome(json.loads, text)
