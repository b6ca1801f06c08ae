"""What explain shows of the recommendations: only with evidence, within a budget, the best
few (issue #20).

A history with no race, error or attempt has nothing to prevent, and nothing is evaluated. On a
long log the recommendation step keeps a fixed budget: the races are sampled evenly down to
:data:`RACE_BUDGET` and the writer matrix keeps the writer pairs that really overlapped, and
the note says so. A report shows :data:`MAX_SHOWN`; ``--all`` shows the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deltaforensics.whatif.document import AnalysisLike
from deltaforensics.whatif.evaluation import DEFAULT_SAMPLES
from deltaforensics.whatif.recommendations.candidates import Recommendation, recommend

MAX_SHOWN = 3  # recommendations a report shows; the rest behind --all
RACE_BUDGET = 200  # races a recommendation is measured on: a long log is sampled evenly
NOTHING_TO_PREVENT = (
    "nothing to prevent: no race, error or attempt in this history, so no change is recommended"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Advice:
    """What explain shows: the best recommendations, how many more ``--all`` would show, and
    why there is none or that the evaluation sampled."""

    entries: tuple[Recommendation, ...]
    more: int = 0
    note: str | None = None


def advise(
    analysis: AnalysisLike,
    errors: Sequence[Any] | None = None,
    attempts: Sequence[Any] = (),
    *,
    limit: int | None = MAX_SHOWN,
    samples: int = DEFAULT_SAMPLES,
) -> Advice:
    """:func:`recommend` within a fixed budget, cut to ``limit`` (None: all).

    Only evidence earns a recommendation: a history with no race, error or attempt has
    nothing to prevent, and none is evaluated. On a long log the races are sampled evenly
    down to :data:`RACE_BUDGET`, and the note says so."""
    races = tuple(analysis.races)
    unmeasured = analysis.unmeasured_errors()
    if errors is None:  # the analysis' own: pasted (--error) and harvested failures
        errors = analysis.observed_errors()
    if not races and not errors and not attempts and not unmeasured:
        return Advice(entries=(), note=NOTHING_TO_PREVENT)
    note = None
    if len(races) > RACE_BUDGET:
        step = len(races) / RACE_BUDGET
        races = tuple(races[int(i * step)] for i in range(RACE_BUDGET))
        note = (
            f"measured on {RACE_BUDGET:,} of the {len(analysis.races):,} races, sampled evenly "
            "over the history, and on the writer pairs that really overlapped"
        )
    found = recommend(
        _Sampled(analysis, races),
        errors,
        attempts,
        samples=samples,
        unmeasured=unmeasured,
        overlapping_writers_only=note is not None,
    )
    if found and found[0].rewrite_for_nothing_seen:
        # then every entry is such a rewrite: rewriting the table (a commit that fails every
        # concurrent writer) for no conflict seen is not advice; ``whatif`` still measures it
        note = note or _rewrites_only(found)
        found = []
    shown = found if limit is None else found[:limit]
    if not found:
        note = note or (
            "no change measured here avoids a conflict seen in this history without "
            "introducing as many"
        )
    return Advice(entries=tuple(shown), more=len(found) - len(shown), note=note)


def _rewrites_only(found: Sequence[Recommendation]) -> str:
    options = " or ".join(
        f"--{e.change.kind} {','.join(getattr(e.change, 'columns', ()))}" for e in found[:2]
    )
    return (
        "no change measured here avoids a conflict seen in this history; the only ones that "
        "help (fragile races, writer pairs that could overlap) force a table rewrite, which "
        f"is not recommended for that (whatif {options} measures it)"
    )


@dataclass(frozen=True, slots=True)
class _Sampled:
    """An analysis with its races cut to a sample (an :class:`AnalysisLike`)."""

    analysis: AnalysisLike
    sample: tuple[Any, ...]

    @property
    def loaded(self) -> Any:
        return self.analysis.loaded

    @property
    def transactions(self) -> Sequence[Any]:
        return self.analysis.transactions

    @property
    def races(self) -> tuple[Any, ...]:
        return self.sample

    def observed_errors(self) -> Sequence[Any]:
        return self.analysis.observed_errors()

    def unmeasured_errors(self) -> int:
        return self.analysis.unmeasured_errors()
