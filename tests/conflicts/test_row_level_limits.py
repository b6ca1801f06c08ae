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

from deltaforensics.analysis import load, open_store
from deltaforensics.conflicts.checker import COMMITS, check
from deltaforensics.transactions import reconstruct_transactions
from tests.conflicts.scenarios import DBR, DV_PROTOCOL, load_race, seed, table
from tests.support import LogBuilder

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


@pytest.mark.parametrize(
    ("writer", "outcome"),
    [
        ("databricks-14.2", "ConcurrentAppendException"),  # no Photon: MERGE resolves by file
        ("databricks-14.2-photon", COMMITS),
        ("databricks-14.3", COMMITS),  # "14.3 LTS and above, Photon is not required"
    ],
)
def test_merge_needs_photon_for_row_level_concurrency_on_14_2(
    tmp_path: Path, writer: str, outcome: str
) -> None:
    """The page: "MERGE INTO support for row-level concurrency requires Photon in Databricks
    Runtime 14.2"; the profile of each commit is chosen from its engineInfo, as for any log."""
    b = LogBuilder(tmp_path, columns={"id": "long", "amount": "double"}, writer=writer,
                   configuration=DV, protocol=DV_PROTOCOL)  # fmt: skip
    r = seed(b, 1)
    f = b.live_files()[0]
    b.delete("id = 5", remove=[f], add=[b.with_dv(f, cardinality=1)])
    b.merge("t.id = s.id AND t.id = 7", remove=[f], add=[b.with_dv(f, cardinality=1)],
            read_version=r)  # fmt: skip
    rep = load(open_store(str(tmp_path)), mode="history").replay
    *rest, loser = reconstruct_transactions(rep)
    verdict = check(loser, [t for t in rest if t.version is not None and t.version > r],
                    history=rep)  # fmt: skip
    assert verdict.outcome == outcome, verdict.reason
