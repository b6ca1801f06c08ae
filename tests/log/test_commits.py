"""The commit reader keeps free-form JSON exactly, whatever it contains."""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deltaforensics.errors import LogCorruptError
from deltaforensics.log.commit_actions import CommitActions
from deltaforensics.log.commit_fallback import ESCAPES_POLARS_MANGLES, read_in_general
from deltaforensics.log.commit_reader import read_commit_chunks, read_commits
from deltaforensics.log.joined_commits import escaped_files, join_commits


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
        {"operation": "WRITE", "operationParameters": {"\n": ""}},
        {"a\nb": {"c\n": "d\ne"}},
    ],
    ids=["quote-key", "quote-key-end", "nested", "newline-key", "nested-newline-key"],
)
def test_a_quote_inside_an_object_key_survives(info: dict[str, object]) -> None:
    """polars 2.1 re-serialises object keys without escaping quotes; such files are re-read."""
    line = json.dumps({"commitInfo": info}).encode() + b"\n"
    other = json.dumps({"commitInfo": {"operation": "WRITE", "p": '["date"]'}}).encode() + b"\n"
    frame = read_commits([(0, "0.json", other), (1, "1.json", line)])
    assert frame["_v"].to_list() == [0, 1]
    assert json.loads(frame["commitInfo"][1]) == info
    assert json.loads(frame["commitInfo"][0])["p"] == '["date"]'


# Lines and file endings that decide which way a file is read: plain, with a newline added,
# with an escape polars mangles (`\t`, `\\`, a trailing backslash), blank, BOM, not an object.
_LINES = [
    b'{"add":{"path":"a","size":1,"partitionValues":{"x":"1"},"stats":"{\\"n\\":1}"}}',
    b'{"remove":{"path":"a\\/b","deletionTimestamp":5}}',
    b'{"commitInfo":{"op":"W\\tX"}}',
    b'{"commitInfo":{"a":"b\\\\"}}',
    b'{"commitInfo":{"k\\"q":1}}',
    b'{"txn":{"appId":"q","version":3}}',
    b'{"foo":1}',
    b' {"commitInfo":{"a":1e5}}',  # exact path: 100000.0, polars: 100000
    b"{}",
    b"",
    b"\xef\xbb\xbf{}",
    b"[1]",
    b'{"add":{"path":"z"}}\\',
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(_LINES), max_size=4),
            st.sampled_from([b"", b"\n", b"\n\n"]),
        ),
        max_size=6,
    ),
    st.integers(min_value=1, max_value=6),
)
def test_the_fast_path_and_chunks_read_as_the_general_path(
    files: list[tuple[list[bytes], bytes]], chunk: int
) -> None:
    """The vectorised checks route every file as the per-file checks do, chunk by chunk too:
    same frame, or the same error naming the same file."""
    blobs = [(v, f"{v}.json", b"\n".join(lines) + end) for v, (lines, end) in enumerate(files)]

    def outcome(read: Callable[[], pl.DataFrame]) -> object:
        try:
            frame = read()
        except LogCorruptError as exc:
            return str(exc)
        return frame.schema, frame.rows()

    expected = outcome(lambda: read_in_general(blobs))
    assert outcome(lambda: read_commits(blobs)) == expected
    chunks = [join_commits(blobs[at : at + chunk]) for at in range(0, len(blobs), chunk)]
    in_general = actions_outcome(lambda: CommitActions.from_raw(read_in_general(blobs)))
    assert actions_outcome(lambda: read_commit_chunks(chunks, lambda: blobs)[0]) == in_general


def actions_outcome(read: Callable[[], CommitActions]) -> object:
    """Every frame of the actions (their rows, in order), or the error."""
    try:
        actions = read()
    except LogCorruptError as exc:
        return str(exc)
    return actions_rows(actions)


def actions_rows(actions: CommitActions) -> object:
    kinds = ("commit_infos", "metadata", "protocols", "txns", "domains", "cdc")
    return (
        actions.files(("d",)).rows(),
        [getattr(actions, k).rows() for k in kinds],
        actions.unknown_versions,
        actions.rows,
    )


@pytest.mark.parametrize(
    "files",
    [
        [b'{"a":"x"}\\', b'{"b":1}'],  # ends in a backslash: the added newline is no escape
        [b'{"a":"x"}\\\n', b'{"b":1}'],  # a backslash, then the file's own newline: one
        [b'{"a":"\\\\"}\n', b'{"b":"\\/"}\n{"c":"\\n\\""}'],
        [b"", b'{"a":"\\u0041"}', b""],
    ],
)
def test_escapes_are_found_in_the_file_they_are_in(files: list[bytes]) -> None:
    """Joined, a file's last byte is followed by a newline the join added or by the next
    file's first byte; neither may make an escape of a backslash ending the file."""
    joined = join_commits([(v, f"{v}.json", data) for v, data in enumerate(files)])
    found = escaped_files(np.frombuffer(joined.buffer, np.uint8), joined.ends, joined.stops)
    assert found.tolist() == [bool(ESCAPES_POLARS_MANGLES.search(data)) for data in files]


def test_a_line_not_starting_with_a_brace_is_read_as_before() -> None:
    """Such a file leaves the fast path (the general path reads it exactly: ``1e5`` stays a
    float there, polars would write ``100000``)."""
    blobs = [(0, "0.json", b'{"add":{"path":"a","size":1}}\n {"commitInfo":{"a":1e5}}')]
    assert read_commits(blobs).rows() == read_in_general(blobs).rows()
    assert read_commits(blobs)["commitInfo"][1] == '{"a": 100000.0}'


def test_chunks_let_go_of_every_file_but_those_kept_verbatim() -> None:
    """Issue #23: a clean log's bytes are not held to the end; only the files with an action
    Delta does not define come back (the assembly keeps their lines), and nothing is read
    again."""
    add = (
        b'{"add":{"path":"a","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}'
    )
    blobs = [
        (0, "0.json", b'{"commitInfo":{"operation":"WRITE"}}\n' + add + b"\n"),
        (1, "1.json", b'{"commitInfo":{"operation":"WRITE"}}\n{"futureAction":{"x":1}}\n'),
        (2, "2.json", b'{"commitInfo":{"operation":"WRITE"}}\n'),
    ]

    def must_not_read_again() -> list[tuple[int, str, bytes]]:
        raise AssertionError("a clean log is not read twice")

    chunks = [join_commits(blobs[at : at + 1]) for at in range(3)]
    actions, kept = read_commit_chunks(chunks, must_not_read_again)
    assert kept == [blobs[1]]
    in_general = CommitActions.from_raw(read_in_general(blobs))
    assert actions_rows(actions) == actions_rows(in_general)


def test_a_declined_chunk_reads_the_whole_log_the_general_way() -> None:
    """A chunk the fast path declines (here a BOM) sends every file the general way, read
    again in one go, as one read of everything would."""
    blobs = [
        (0, "0.json", b'{"commitInfo":{"a":1e5}}\n'),
        (1, "1.json", b'\xef\xbb\xbf{"commitInfo":{"b":2}}\n'),
    ]
    reads: list[int] = []

    def every_file() -> list[tuple[int, str, bytes]]:
        reads.append(1)
        return blobs

    chunks = [join_commits(blobs[at : at + 1]) for at in range(2)]
    actions, kept = read_commit_chunks(chunks, every_file)
    assert reads == [1]
    assert kept == blobs
    in_general = CommitActions.from_raw(read_in_general(blobs))
    assert actions_rows(actions) == actions_rows(in_general)
