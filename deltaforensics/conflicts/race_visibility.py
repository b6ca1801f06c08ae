"""Where races cannot be seen: commits that record no read version (Delta Kernel writers, old
delta-rs releases), so "no races" means "checked, nothing found" only outside them (W304)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from deltaforensics.model.diagnostic_codes import RACES_NOT_VISIBLE
from deltaforensics.model.diagnostics import Diagnostic, warning
from deltaforensics.model.gaps import Range, count, describe, runs, version_spans

if TYPE_CHECKING:
    from deltaforensics.transactions import CommitFacts


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceVisibility:
    """The versions whose races cannot be seen (no read version recorded), as ranges, and why:
    "no races" means "checked, nothing found" only outside them."""

    unknown_versions: tuple[Range, ...]
    reason: str

    @classmethod
    def of(cls, facts: CommitFacts, in_range: pl.DataFrame) -> RaceVisibility | None:
        """``None`` when every commit of ``in_range`` (rows of ``facts``) has a known read
        version."""
        unread = in_range.filter(pl.col("read_version").is_null())
        if unread.is_empty():
            return None
        engines = sorted(
            {facts.profile_of(i).engine for i in unread.get_column("profile").unique()}
        )
        return cls(
            unknown_versions=tuple(runs(unread.get_column("version").to_list())),
            reason=f"no readVersion recorded (written by {', '.join(engines)}): whether these "
            "commits read an older snapshot cannot be checked",
        )

    def describe(self) -> str:
        """``races: unknown for v1–v13, v15``."""
        return f"races: unknown for {version_spans(self.unknown_versions)}"

    def diagnostic(self) -> Diagnostic:
        """W304: the versions without a read version, as ranges, at the first of them."""
        unknown = self.unknown_versions
        message = (
            f"{count(unknown)} commit(s) at versions {describe(unknown)} record no readVersion: "
            "whether they raced cannot be checked"
        )
        return warning(RACES_NOT_VISIBLE, message, unknown[0][0])
