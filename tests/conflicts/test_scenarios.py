"""The 44 scenarios of delta-conflict-semantics.md §E, each as a real ``_delta_log``.

One test per (scenario, engine): the builder in ``scenarios.py`` writes v0, setup commits, the
winner(s) from read version r and the loser L read at r; the checker must give the doc's outcome
and rule code for L under every table isolation level the row allows ("any" → S and WS).
Rows whose outcome depends on the engine version (20, 23, 44), on Databricks' tolerances
(12, 15, 30, 31) or on delta-rs' rules (12, 15, 33, 34) get one case per engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from deltaforensics.conflicts.checker import COMMITS, Verdict, find_races
from deltaforensics.model.ids import IsolationLevel
from tests.conflicts import scenarios as sc
from tests.conflicts.scenarios import (
    DBR,
    DBR_NO_RLC,
    DEFAULT,
    DELTA_RS,
    DELTA_RS_12,
    OSS31,
    OSS32,
    OSS41,
    WS,
    A,
    B,
    Builder,
    C,
    E,
    Race,
    S,
    Variant,
)

# Scenarios the log model cannot express: "<case id>": "reason". Each is a strict xfail.
KNOWN_GAPS: dict[str, str] = {}

APPEND, DELREAD, DELDEL = (
    "ConcurrentAppendException",
    "ConcurrentDeleteReadException",
    "ConcurrentDeleteDeleteException",
)
META, PROTO, TXN, WRITE = (
    "MetadataChangedException",
    "ProtocolChangedException",
    "ConcurrentTransactionException",
    "ConcurrentWriteException",
)
ANY = (S, WS)

Extra = Callable[[Race, Verdict], None]


@dataclass(frozen=True, slots=True)
class Expect:
    outcome: str
    code: str | None
    isolations: tuple[str, ...]
    extras: tuple[Extra, ...]


def case(
    sid: str, variant: Variant, builder: Builder, outcome: str, code: str | None = None, *,
    iso: tuple[str, ...] = (DEFAULT,), extra: tuple[Extra, ...] = (), suffix: str = "",
) -> object:  # fmt: skip
    cid = f"{sid}-{variant.key}{'-' + suffix if suffix else ''}"
    marks = [pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[cid])] if cid in KNOWN_GAPS else []
    return pytest.param(variant, builder, Expect(outcome, code, iso, extra), id=cid, marks=marks)


# --- extra assertions ------------------------------------------------------------------------


def hint(date: str) -> Extra:
    def check(_race: Race, v: Verdict) -> None:
        assert v.raised is not None and v.raised.partitions[:1] == ({"date": date},), v.raised

    return check


def no_hint(_race: Race, v: Verdict) -> None:
    assert v.raised is not None and v.raised.partitions == (), "WITHOUT_HINT expected"


def winner_at(offset: int) -> Extra:
    def check(race: Race, v: Verdict) -> None:
        assert race.loser.read.version is not None
        assert v.winner_version == race.loser.read.version + offset

    return check


def reason_has(text: str, present: bool = True) -> Extra:
    def check(_race: Race, v: Verdict) -> None:
        assert (text in v.reason) is present, v.reason

    return check


def quiet(_race: Race, v: Verdict) -> None:
    assert v.findings == (), [f.code for f in v.findings]


def loser_snapshot_isolation(race: Race, _v: Verdict) -> None:
    assert race.loser.read.isolation is IsolationLevel.SNAPSHOT_ISOLATION


def created_late(race: Race, _v: Verdict) -> None:
    """The model itself reads a CREATE TABLE after v0 as read at -1 (no readVersion is logged)."""
    assert race.loser.read.version == -1 and "creation race" in race.loser.read.version_source


def winner_is_transaction(race: Race, _v: Verdict) -> None:
    assert (
        race.winners[0].provenance.operation == "TRANSACTION"
        and not race.winners[0].provenance.has_commit_info
    )


def ict_rebased(race: Race, _v: Verdict) -> None:
    w, lo = race.winners[-1].provenance.commit_info, race.loser.provenance.commit_info
    assert lo["inCommitTimestamp"] >= w["inCommitTimestamp"] + 1
    assert lo["timestamp"] < w["inCommitTimestamp"], "L's timestamp stays its first-attempt time"


def rebased_row_ids(race: Race, _v: Verdict) -> None:
    """Row ids above the winner's are the rebase fix-up, not corruption: nothing may fire."""
    w_ids = race.winners[-1].written.added["base_row_id"].to_list()
    l_ids = race.loser.written.added["base_row_id"].to_list()
    assert w_ids and l_ids and min(l_ids) > max(w_ids)
    assert "delta.rowTracking" in race.winners[-1].written.domains & race.loser.written.domains


# fmt: off
CASES = [
    case("E01", OSS41, sc.e01, COMMITS, iso=ANY, extra=(quiet,)),
    case("E01", DBR, sc.e01, COMMITS, iso=ANY),
    case("E02", OSS41, sc.e02, APPEND, "DC010", iso=(S,), extra=(no_hint,)),
    case("E02", OSS32, sc.e02, APPEND, "DC010", iso=(S,), extra=(no_hint,)),  # era B text: "the root of the table"
    case("E02", OSS31, sc.e02, APPEND, "DC010", iso=(S,), extra=(no_hint,)),  # era A text
    case("E03", OSS41, sc.e03, COMMITS, iso=(WS,)),
    case("E03", DBR, sc.e03, COMMITS),  # DBR default WriteSerializable
    case("E04", OSS41, sc.e04, COMMITS, iso=(S,)),
    case("E05", OSS41, sc.e05, APPEND, "DC010", iso=(S,), extra=(hint(A),)),
    case("E06", OSS41, sc.e06, COMMITS, iso=(WS,)),
    case("E06", DBR, sc.e06, COMMITS),
    case("E07", OSS41, sc.e07, COMMITS, iso=ANY, extra=(quiet,)),
    case("E08", OSS41, sc.e08, APPEND, "DC010", iso=ANY, extra=(hint(A),)),
    case("E09", OSS41, sc.e09, APPEND, "DC010", iso=ANY, extra=(hint(B),)),
    case("E10", OSS41, sc.e10, COMMITS, iso=ANY, extra=(quiet,)),
    case("E11", OSS41, sc.e11, DELREAD, "DC011", iso=ANY, extra=(hint(B),)),
    case("E12", OSS41, sc.e12, APPEND, "DC010", iso=ANY, extra=(hint(A),)),
    case("E12", DBR, sc.e12, APPEND, "DC010", iso=(DEFAULT, S)),  # no DVs: can conflict
    case("E12", DBR, sc.e12_dv, COMMITS, suffix="dv"),  # DVs, no ZORDER BY: documented no conflict
    case("E12", DELTA_RS, sc.e12, APPEND, "DC010"),  # stats cannot exclude the compacted file
    case("E13", OSS41, sc.e13, COMMITS, iso=ANY, extra=(loser_snapshot_isolation,)),
    case("E14", OSS41, sc.e14, DELREAD, "DC011", iso=ANY, extra=(hint(A),)),
    case("E14", OSS41, sc.e14_disjoint, COMMITS, iso=ANY, suffix="not-an-input"),
    case("E15", OSS41, sc.e15, DELREAD, "DC011", iso=ANY),
    case("E15", DBR, sc.e15, DELREAD, "DC011"),
    case("E15", DBR, sc.e15_dv, COMMITS, suffix="dv"),
    # Doc §E says ConcurrentDeleteDelete; the real deltalake 1.6.6 commits both (field notes O5,
    # test_deltars_agreement "O5"): dataChange=false removes are skipped by every check.
    case("E15", DELTA_RS, sc.e15, COMMITS),
    case("E15", DELTA_RS_12, sc.e15, DELREAD, "DC011"),  # before python-v1.3.0 they counted
    case("E16", OSS41, sc.e16, META, "DC002"),
    case("E16", OSS32, sc.e16, META, "DC002"),
    case("E16", OSS31, sc.e16, META, "DC002"),
    case("E16", DBR, sc.e16, META, "DC002"),
    case("E17", OSS41, sc.e17, COMMITS, extra=(quiet,)),
    case("E17", DELTA_RS, sc.e17, COMMITS, extra=(quiet,)),
    case("E18", OSS41, sc.e18, APPEND, "DC010", iso=(WS,), extra=(no_hint,)),
    case("E19", OSS41, sc.e19, APPEND, "DC010", iso=(WS,), extra=(no_hint,)),
    case("E19", OSS41, sc.e19_no_evolution, COMMITS, iso=(WS,), suffix="no-evolution"),
    case("E20", OSS41, sc.e20, COMMITS, iso=ANY),
    case("E20", OSS32, sc.e20, META, "DC002"),
    case("E20", OSS31, sc.e20, META, "DC002"),
    case("E20", DBR, sc.e20, META, "DC002"),
    case("E20", OSS41, sc.e20_both_change, META, "DC002", suffix="loser-changes-metadata"),
    case("E20", OSS41, sc.e20_disable, META, "DC002", suffix="disable"),
    case("E20", OSS41, sc.e20_column_mapping, COMMITS, suffix="column-mapping"),
    case("E20", OSS32, sc.e20_column_mapping, META, "DC002", suffix="column-mapping"),
    case("E21", OSS41, sc.e21, META, "DC002", iso=ANY),
    case("E21", DBR, sc.e21, META, "DC002"),
    case("E21", OSS41, sc.e21_isolation, META, "DC002", iso=(WS,), suffix="isolation-level"),
    case("E22", OSS41, sc.e22, META, "DC002", iso=ANY),
    case("E22", DBR, sc.e22, META, "DC002"),
    case("E23", OSS41, sc.e23, COMMITS, iso=(WS,), suffix="ws"),
    case("E23", OSS41, sc.e23, APPEND, "DC010", iso=(S,), extra=(no_hint,), suffix="s"),
    case("E23", OSS32, sc.e23, META, "DC002", iso=(WS,)),
    case("E23", OSS31, sc.e23, META, "DC002", iso=(WS,)),
    case("E24", OSS41, sc.e24, TXN, "DC004", iso=ANY),
    case("E24", OSS31, sc.e24, TXN, "DC004", iso=ANY),
    case("E24", DBR, sc.e24, TXN, "DC004"),
    case("E25", OSS41, sc.e25, COMMITS, iso=ANY, extra=(quiet,)),
    case("E26", OSS41, sc.e26, COMMITS, iso=(WS,), suffix="ws"),
    case("E26", OSS41, sc.e26, APPEND, "DC010", iso=(S,), extra=(hint(A),), suffix="s"),
    case("E26", OSS41, sc.e26_other_partition, COMMITS, iso=ANY, suffix="other-partition"),
    case("E27", OSS41, sc.e27, DELDEL, "DC012", iso=ANY, extra=(hint(A),)),
    case("E28", OSS41, sc.e28, APPEND, "DC010", iso=ANY, extra=(hint(C),)),
    case("E28", OSS41, sc.e28_disjoint, COMMITS, iso=ANY, suffix="disjoint-ranges"),
    case("E29", OSS41, sc.e29, APPEND, "DC010", iso=ANY, extra=(hint(E),)),
    case("E29", OSS41, sc.e29_extractable, COMMITS, iso=ANY, suffix="extractable"),
    case("E30", OSS41, sc.e30, APPEND, "DC010", iso=ANY, extra=(no_hint,)),
    case("E30", DBR, sc.e30, COMMITS),  # row-level concurrency: different rows
    case("E30", DBR_NO_RLC, sc.e30, APPEND, "DC010", extra=(no_hint,)),
    case("E30", DBR, sc.e30_same_row, APPEND, "DC010", suffix="same-row"),  # class undocumented
    case("E31", OSS41, sc.e31, APPEND, "DC010", iso=ANY, extra=(no_hint,)),
    case("E31", DBR, sc.e31, COMMITS),
    case("E31", DBR_NO_RLC, sc.e31, COMMITS),  # DVs: OPTIMIZE only conflicts with ZORDER BY
    case("E31", DBR, sc.e31_zorder, APPEND, "DC010", suffix="zorder"),
    case("E31", OSS41, sc.e31_liquid, APPEND, "DC010", suffix="liquid"),
    case("E31", DBR, sc.e31_liquid, COMMITS, suffix="liquid"),
    case("E32", OSS41, sc.e32, APPEND, "DC010", iso=(WS,), extra=(no_hint, reason_has("no isBlindAppend"))),
    case("E32", OSS32, sc.e32, APPEND, "DC010", iso=(WS,), extra=(no_hint, reason_has("no isBlindAppend"))),
    case("E32", OSS41, sc.e32_kernel, APPEND, "DC010", iso=(WS,), extra=(reason_has("no isBlindAppend", False),),
         suffix="kernel-java"),
    case("E33", DELTA_RS, sc.e33, DELREAD, "DC011"),
    case("E33", OSS41, sc.e33, COMMITS, iso=ANY),  # a Spark append in the same spot
    case("E33", DELTA_RS, sc.e33_optimize, COMMITS, suffix="optimize"),
    case("E33", DELTA_RS_12, sc.e33_optimize, DELREAD, "DC011", suffix="optimize"),
    case("E34", OSS41, sc.e34, PROTO, "DC001", extra=(winner_at(1), reason_has("empty directory"), created_late)),
    case("E34", DELTA_RS, sc.e34, COMMITS, extra=(reason_has("table-creation race"),)),  # reloads at v0 and writes v1 without a check
    case("E35", OSS41, sc.e35, PROTO, "DC001", iso=ANY),
    case("E35", OSS31, sc.e35, PROTO, "DC001"),
    case("E35", DBR, sc.e35, PROTO, "DC001"),
    case("E36", OSS41, sc.e36, WRITE, "DC005", iso=ANY),
    case("E36", OSS31, sc.e36, WRITE, "DC005"),
    case("E36", DBR, sc.e36, WRITE, "DC005"),
    case("E36", OSS41, sc.e36_clone, WRITE, "DC005", suffix="clone"),
    case("E36", OSS41, sc.e36_restore_winner, APPEND, "DC010", iso=ANY, extra=(hint(A),), suffix="restore-wins"),
    case("E37", OSS41, sc.e37, COMMITS, iso=ANY, extra=(quiet, rebased_row_ids)),
    case("E38", OSS41, sc.e38, COMMITS, iso=ANY, extra=(quiet, ict_rebased)),
    case("E39", OSS41, sc.e39, APPEND, "DC010", iso=(WS,), extra=(no_hint,)),
    case("E39", DBR, sc.e39, APPEND, "DC010"),
    case("E39", OSS41, sc.e39_serializable, COMMITS, iso=(S,), extra=(quiet, reason_has("not recorded")),
         suffix="s-elided"),
    case("E40", OSS41, sc.e40, TXN, "DC004", iso=ANY),
    case("E40", OSS31, sc.e40, TXN, "DC004"),
    case("E40", DBR, sc.e40, TXN, "DC004"),
    case("E41", OSS41, sc.e41, APPEND, "DC010", iso=ANY, extra=(hint(B),)),
    case("E42", OSS41, sc.e42, APPEND, "DC010", iso=ANY, extra=(hint(A), winner_is_transaction)),
    case("E43", OSS41, sc.e43, APPEND, "DC010", iso=ANY, extra=(hint(A), winner_at(2))),
    case("E44", OSS41, sc.e44, TXN, "DC004", iso=ANY),
    case("E44", OSS32, sc.e44, TXN, "DC004", iso=ANY),
    case("E44", OSS31, sc.e44, APPEND, "DC010", iso=ANY, extra=(hint(A),)),
]
# fmt: on


@pytest.mark.parametrize(("variant", "builder", "expect"), CASES)
def test_scenario(tmp_path: Path, variant: Variant, builder: Builder, expect: Expect) -> None:
    for iso in expect.isolations:
        race = sc.build(tmp_path / iso, variant, builder, iso)
        verdict = race.check()
        got = (verdict.outcome, verdict.code)
        assert got == (expect.outcome, expect.code), f"isolation {iso}: {verdict.reason}"
        for extra in expect.extras:
            extra(race, verdict)


def _ids() -> list[str]:
    return [p.id for p in CASES]  # type: ignore[attr-defined]


def test_every_section_e_row_has_a_case() -> None:
    rows = {i.split("-")[0] for i in _ids()}
    assert rows == {f"E{n:02d}" for n in range(1, 45)}


def test_case_ids_are_unique_and_gaps_are_real_cases() -> None:
    ids = _ids()
    assert len(ids) == len(set(ids))
    assert set(KNOWN_GAPS) <= set(ids)


def test_find_races_reports_a_lost_creation_race(tmp_path: Path) -> None:
    """E34 as the analyzer sees it: delta-rs' second create (v1) was rebased over v0 unchecked."""
    race = sc.build(tmp_path, DELTA_RS, sc.e34)
    (found,) = find_races(race.txns, race.replay)
    assert (found.version, found.verdict.winners, found.verdict.outcome) == (1, (0,), COMMITS)
    assert "table-creation race" in found.verdict.reason


def test_find_races_reports_a_spark_shaped_late_create(tmp_path: Path) -> None:
    """The same race with a commitInfo the reader parses: the analyzer finds it by itself."""
    race = sc.build(tmp_path, OSS41, sc.e34)
    (found,) = find_races(race.txns, race.replay)
    assert (found.version, found.verdict.winners, found.verdict.code) == (1, (0,), "DC001")
