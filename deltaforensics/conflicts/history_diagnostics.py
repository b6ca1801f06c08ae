"""What the replayed history says of itself: commits that claim to have read themselves, races
the replayed checker decides otherwise than the log, winners the log no longer holds, and
writers newer than every release measured."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from deltaforensics.model.diagnostic_codes import (
    MODEL_DISAGREEMENT,
    READ_VERSION_NOT_BEFORE_VERSION,
    READ_VERSION_UNKNOWN,
    UNRELEASED_BEHAVIOUR,
)
from deltaforensics.model.diagnostics import Diagnostic, info, warning
from deltaforensics.model.gaps import count, describe, runs

if TYPE_CHECKING:
    from deltaforensics.transactions import CommitFacts


def history_diagnostics(
    facts: CommitFacts, in_range: pl.DataFrame, races: Sequence[Any]
) -> Iterator[Diagnostic]:
    """W303 for a commit claiming to have read itself or later; W401 where the replayed checker
    disagrees with the log; W302 for winners the log no longer holds; W402 per writer release
    newer than every release the model was measured against (``in_range``: the rows of
    ``facts`` reported on)."""
    yield from _unreleased_writers(facts, in_range)
    rv = pl.col("read_version")
    for version, read_version in (
        in_range.filter(rv.is_not_null() & (rv >= pl.col("version")))
        .select("version", "read_version")
        .iter_rows()
    ):
        message = f"readVersion {read_version} is not before the commit's version"
        yield warning(READ_VERSION_NOT_BEFORE_VERSION, message, version)
    for r in races:
        v = r.verdict
        if v.outcome != "commits":
            message = (
                f"model predicts {v.outcome} ({v.code}) against v{v.winner_version} under "
                f"{v.profile.name}, but v{r.version} committed: {v.reason}"
            )
            yield warning(MODEL_DISAGREEMENT, message, r.version)
        if r.missing_winners:
            gone = r.missing_winners
            message = (
                f"{count(gone)} winner(s) {describe(gone)} of v{r.version} are not in the "
                "retained log"
            )
            yield info(READ_VERSION_UNKNOWN, message, r.version)


def _unreleased_writers(facts: CommitFacts, in_range: pl.DataFrame) -> Iterator[Diagnostic]:
    unreleased = [i for i, p in enumerate(facts.profiles) if p.unreleased_behaviour]
    by_profile: dict[str, list[int]] = {}
    rows = in_range.filter(pl.col("profile").is_in(unreleased)).select("version", "profile")
    for version, index in rows.iter_rows():
        by_profile.setdefault(facts.profile_of(index).name, []).append(version)
    for name, versions in sorted(by_profile.items()):
        written = runs(versions)
        message = (
            f"{count(written)} commit(s) at versions {describe(written)} were written by {name}: "
            "newer than every release measured, so their checker is modelled on its main branch"
        )
        yield info(UNRELEASED_BEHAVIOUR, message, versions[0])
