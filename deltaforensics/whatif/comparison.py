"""What a what-if comparison found: each pair's verdict before and after one scenario, and the
totals the report shows.

Values only: :mod:`deltaforensics.whatif.evaluation` computes them and
:mod:`deltaforensics.whatif.assess` grades how far to trust them, so both import this module and
neither imports the other for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from deltaforensics.conflicts.checker import COMMITS
from deltaforensics.model.diagnostics import Diagnostic
from deltaforensics.transactions import Transaction
from deltaforensics.whatif.matrix import MatrixCell
from deltaforensics.whatif.scenario import Scenario


@dataclass(frozen=True, slots=True, kw_only=True)
class Observed:
    """A pair seen outside the log: the loser of a pasted error or an attempted statement, the
    commits it was checked against, and what really happened (``commits`` or the exception)."""

    loser: Transaction
    winners: tuple[Transaction, ...]
    outcome: str
    source: str = "attempt"  # "error" | "attempt"
    label: str = ""
    # how the loser was inferred when the failed statement is not known ("" when it is)
    inferred: str = ""


def as_observed(item: Any, source: str, index: int) -> Observed:
    """Accept :class:`Observed` or a ``(loser, winners, outcome)`` tuple."""
    if isinstance(item, Observed):
        return item if item.source == source else replace(item, source=source)
    loser, winners, outcome = item
    label = loser.provenance.statement or f"{source} {index + 1}"
    return Observed(
        loser=loser, winners=tuple(winners), outcome=str(outcome), source=source, label=label
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class PairResult:
    source: str  # "race" | "error" | "attempt"
    loser: Transaction
    label: str
    winner_version: int | None
    before: str
    after: str | None  # None: the footprint under the scenario is unknown
    reason: str
    trusted: bool = True  # the model reproduces the baseline
    fragile_before: bool = False
    fragile_after: bool = False

    @property
    def avoided(self) -> bool:
        return self.trusted and self.after == COMMITS and self.before != COMMITS

    @property
    def introduced(self) -> bool:
        return self.trusted and self.after not in (None, COMMITS) and self.before == COMMITS

    @property
    def loser_version(self) -> int | None:
        """The committed loser's version; ``None`` for an error's or an attempt's loser (then
        :attr:`label` names it)."""
        return self.loser.version if self.source == "race" else None

    @property
    def known(self) -> bool:
        """Whether the outcome under the scenario is known."""
        return self.after is not None

    @property
    def outcome_after(self) -> str:
        """The outcome under the scenario, the baseline's when it is unknown."""
        return self.after if self.after is not None else self.before

    @property
    def counted(self) -> bool:
        """Whether the pair counts in the totals: the model reproduces it and its outcome
        under the scenario is known."""
        return self.trusted and self.after is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class Balance:
    """Conflicts and fragile races, before or after the scenario."""

    conflicts: int
    fragile_races: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Comparison:
    scenario: Scenario
    pairs: tuple[PairResult, ...]
    matrix: tuple[MatrixCell, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    confidence: str = "high"
    # conflicts seen in error texts whose failed statement is not known: counted as seen (in
    # ``evaluated_on.errors``, the baseline and ``unknown``), their outcome under any change
    # unknown
    unmeasured_errors: int = 0

    def _count(self, source: str) -> int:
        return sum(1 for p in self.pairs if p.source == source)

    @property
    def evaluated_on(self) -> dict[str, int]:
        return {
            "races": self._count("race"),
            "errors": self._count("error") + self.unmeasured_errors,
            "attempts": self._count("attempt"),
            "writer_pairs": len(self.matrix),
        }

    def tally(self, source: str) -> dict[str, int]:
        """avoided / introduced / unknown / excluded for ``race``, ``error``, ``attempt`` or
        ``writer-matrix``."""
        items: Sequence[PairResult | MatrixCell] = (
            self.matrix
            if source == "writer-matrix"
            else [p for p in self.pairs if p.source == source]
        )
        unmeasured = self.unmeasured_errors if source == "error" else 0
        return {
            "avoided": sum(1 for p in items if p.avoided),
            "introduced": sum(1 for p in items if p.introduced),
            "unknown": sum(1 for p in items if p.after is None) + unmeasured,
            "excluded": sum(1 for p in items if isinstance(p, PairResult) and not p.trusted),
        }

    @property
    def conflicts_avoided(self) -> int:
        """Conflicts *seen* (errors, attempts, races in the log) the change avoids; the
        writer matrix is hypothetical and counted apart (:attr:`hypothetical`)."""
        return sum(1 for p in self.pairs if p.avoided)

    @property
    def conflicts_introduced(self) -> int:
        return sum(1 for p in self.pairs if p.introduced)

    @property
    def baseline(self) -> Balance:
        return Balance(
            conflicts=sum(1 for p in self.pairs if p.before != COMMITS) + self.unmeasured_errors,
            fragile_races=sum(1 for p in self.pairs if p.fragile_before),
        )

    @property
    def hypothetical(self) -> dict[str, int]:
        """The writer matrix as exposure: ordered writer pairs that conflict if they
        overlap, before and after the change, and how often the pairs the change flips
        really overlapped in the history (races and evidence between them)."""
        flipped = [c for c in self.matrix if c.avoided or c.introduced]
        return {
            "writer_pairs": len(self.matrix),
            "conflicting_before": sum(1 for c in self.matrix if c.before != COMMITS),
            "avoided": sum(1 for c in self.matrix if c.avoided),
            "introduced": sum(1 for c in self.matrix if c.introduced),
            "unknown": sum(1 for c in self.matrix if c.after is None),
            "overlapped": sum(c.overlapped for c in flipped),
        }

    @property
    def result(self) -> Balance:
        base = self.baseline
        return Balance(
            conflicts=base.conflicts - self.conflicts_avoided + self.conflicts_introduced,
            fragile_races=sum(
                1
                for p in self.pairs
                if (p.fragile_after if p.after is not None else p.fragile_before)
            ),
        )

    @property
    def unknown(self) -> int:
        """Seen pairs whose outcome under the change is unknown (with the unmeasured errors)."""
        return sum(1 for p in self.pairs if p.after is None) + self.unmeasured_errors

    def by_source(self) -> dict[str, dict[str, int]]:
        return {s: self.tally(s) for s in ("race", "error", "attempt", "writer-matrix")}
