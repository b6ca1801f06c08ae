"""Fuzz the commit reader: arbitrary bytes give frames or a LogCorruptError, nothing else."""

from __future__ import annotations

import json
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from deltaforensics.errors import LogCorruptError
from deltaforensics.log.commit_reader import read_commits

# Bounded in CI; DELTAFORENSICS_FUZZ_EXAMPLES=20000 for a long run (docs/reliability.md).
EXAMPLES = int(os.environ.get("DELTAFORENSICS_FUZZ_EXAMPLES", "80"))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
actions = st.dictionaries(
    st.sampled_from(
        ["add", "remove", "commitInfo", "metaData", "protocol", "txn", "cdc", "domainMetadata", "x"]
    ),
    json_values,
    min_size=1,
    max_size=2,
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(st.binary(max_size=200), min_size=1, max_size=4))
def test_arbitrary_bytes_never_escape_as_other_errors(blobs: list[bytes]) -> None:
    try:
        frame = read_commits([(v, f"{v:020d}.json", b) for v, b in enumerate(blobs)])
    except LogCorruptError as exc:
        assert exc.version is not None and exc.path.endswith(".json")
    else:
        assert frame["_v"].null_count() == 0


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(st.lists(actions, max_size=5), min_size=1, max_size=4))
def test_json_actions_of_any_shape_parse_or_fail_cleanly(
    commits: list[list[dict[str, object]]],
) -> None:
    blobs = [
        (v, f"{v:020d}.json", "\n".join(json.dumps(a) for a in c).encode())
        for v, c in enumerate(commits)
    ]
    try:
        frame = read_commits(blobs)
    except LogCorruptError as exc:
        assert "wrong type" in exc.reason or "JSON" in exc.reason
    else:
        assert set(frame["_v"].to_list()) <= set(range(len(commits)))
