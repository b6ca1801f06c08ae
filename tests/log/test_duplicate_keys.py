"""The vectorised duplicate-key scan never misses a key repeated in one object.

Its answer is checked against :mod:`json` with an ``object_pairs_hook`` (the exact reader's
check) on generated lines: nested objects and arrays, the same name in different objects,
escaped quotes and slashes in keys and values, keys past 16 and 64 bytes, keys differing only
in their middle bytes. A line it flags without a duplicate only costs an exact read, but a
normal log must not be flagged, which the last test checks on a realistic one.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deltaforensics.log.commit_fallback import ESCAPES_POLARS_MANGLES
from deltaforensics.log.duplicate_keys import files_with_possible_duplicate_keys
from deltaforensics.log.joined_commits import join_commits

EXAMPLES = int(os.environ.get("DELTAFORENSICS_FUZZ_EXAMPLES", "150"))

# few names, so repeats are frequent; long ones share a prefix and a suffix
names = st.sampled_from(
    [
        "a",
        "path",
        "size",
        "a/b",
        'q"t',
        "x" * 20 + "1" + "y" * 20,
        "x" * 20 + "2" + "y" * 20,
        "k" * 70,
        "k" * 69 + "j",
        "é",
        "\n",
    ]
)


def _pairs(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.lists(st.tuples(names, children), max_size=5).map(_Pairs)


class _Pairs(list[tuple[str, object]]):
    """An object as its key-value pairs, so a key may occur twice."""


def _dump(value: object, slash: bool) -> str:
    if isinstance(value, _Pairs):
        inner = ",".join(f"{_dump(k, slash)}:{_dump(v, slash)}" for k, v in value)
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ",".join(_dump(v, slash) for v in value) + "]"
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("/", "\\/") if slash and isinstance(value, str) else text


values = st.recursive(
    st.none() | st.integers() | st.text(alphabet='ab"{}[]:,/\\', max_size=6),
    lambda children: st.lists(children, max_size=3) | _pairs(children),
    max_leaves=12,
)
lines = st.tuples(_pairs(values), st.booleans()).map(lambda t: _dump(t[0], t[1]))


def _repeats(line: str) -> bool:
    found = False

    def hook(pairs: list[tuple[str, object]]) -> dict[str, object]:
        nonlocal found
        found |= len({k for k, _ in pairs}) != len(pairs)
        return dict(pairs)

    json.loads(line, object_pairs_hook=hook)
    return found


def _flags(texts: list[str]) -> list[bool]:
    blobs = [(v, f"{v}.json", t.encode() + b"\n") for v, t in enumerate(texts)]
    joined = join_commits(blobs)
    data = np.frombuffer(joined.buffer, dtype=np.uint8)
    return files_with_possible_duplicate_keys(data, joined.stops).tolist()


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(lines, min_size=1, max_size=6))
def test_every_repeated_key_is_flagged(texts: list[str]) -> None:
    for text, flagged in zip(texts, _flags(texts), strict=True):
        # a file with another escape (an escaped backslash, a tab...) never reaches the scan
        if _repeats(text) and not ESCAPES_POLARS_MANGLES.search(text.encode()):
            assert flagged, text


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ('{"add":{"path":"a","size":1}}', False),
        ('{"add":{"path":"a","path":"b"}}', True),
        ('{"a":{"x":1},"b":{"x":2}}', False),  # one name in two objects
        ('{"a":{"x":1},"x":2}', False),
        ('{"a":[{"x":1},{"x":2}]}', False),  # two objects in one array
        ('{"a":{"b":{"c":1,"c":2}}}', True),
        ('{"a":"{\\"a\\":1,\\"a\\":2}"}', False),  # JSON text inside a string is a value
        ('{"' + "x" * 30 + '1":1,"' + "x" * 30 + '2":1}', False),
        ('{"a\\/b":1,"a/b":2}', True),  # one key, two spellings
        ('{"a" :1,"b":2}', True),  # not vouched for: the exact reader decides
    ],
)
def test_known_lines(text: str, flagged: bool) -> None:
    assert _flags([text]) == [flagged]


def test_a_realistic_log_is_not_flagged() -> None:
    from tests.support.builder import LogBuilder  # noqa: F401  (the writer model's key order)

    stats = json.dumps({"numRecords": 1, "minValues": {"a": 1}, "maxValues": {"a": 2}})
    add = {
        "add": {
            "path": "size=1/part-0.parquet",
            "partitionValues": {"size": "1", "path": "p"},
            "size": 10,
            "modificationTime": 1,
            "dataChange": True,
            "stats": stats,
            "tags": {"size": "s"},
        }
    }
    info = {"commitInfo": {"operation": "WRITE", "operationParameters": {"mode": "Append"}}}
    texts = [json.dumps(info, separators=(",", ":")), json.dumps(add, separators=(",", ":"))]
    assert _flags(texts * 50) == [False] * 100
