"""Databricks row-level concurrency where the page limits it, on real ``_delta_log`` folders.

"Limitations for row-level concurrency" on the page "Isolation levels and write conflicts on
Azure Databricks": "Commands with complex conditional clauses" (complex types,
non-deterministic expressions, subqueries) resolve "following normal concurrency", that is as
in the matrix without row-level concurrency. The matrix cell is "with row-level concurrency",
row and column "UPDATE, DELETE, MERGE INTO": two DELETEs marking different rows of one file
commit together, unless one condition is of that kind.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deltaforensics.conflicts.checker import COMMITS
from tests.conflicts.scenarios import DBR, DV_PROTOCOL, load_race, seed, table

DV = {"delta.enableDeletionVectors": "true"}


@pytest.mark.parametrize(
    ("condition", "outcome"),
    [
        ("id = 7", COMMITS),  # another row of the same file: row-level concurrency resolves it
        ("rand() < 0.1", "ConcurrentAppendException"),  # non-deterministic: file level
        ("element_at(tags, 'k') = 'v'", "ConcurrentAppendException"),  # a map: file level
    ],
)
def test_a_condition_the_page_lists_as_complex_resolves_file_by_file(
    tmp_path: Path, condition: str, outcome: str
) -> None:
    b = table(tmp_path, DBR, partitioned=False, configuration=DV, protocol=DV_PROTOCOL)
    r = seed(b, 1)
    f = b.live_files()[0]
    b.delete("id = 5", remove=[f], add=[b.with_dv(f, cardinality=1)])
    b.delete(condition, remove=[f], add=[b.with_dv(f, cardinality=2)], read_version=r)
    verdict = load_race(tmp_path, DBR, r).check()
    assert verdict.outcome == outcome, verdict.reason
