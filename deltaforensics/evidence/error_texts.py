"""The ``--error`` texts as read once: the Delta exceptions each holds, when they were logged,
and the conflicts among them explained against the history."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from deltaforensics.evidence.conflict_evidence import ConflictEvidence
from deltaforensics.evidence.error_text import extract_conflicts
from deltaforensics.evidence.failed_loser import InferredLoser, infer_loser
from deltaforensics.evidence.winners import ErrorConflict, explain_error, match_winner
from deltaforensics.model.diagnostic_codes import (
    COMMIT_RETRIES_EXHAUSTED,
    NO_EXCEPTION_IN_ERROR_TEXT,
)
from deltaforensics.model.diagnostics import Diagnostic, info, warning
from deltaforensics.replay import Replay


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorText:
    """An ``--error`` text as read once: its name and the Delta exceptions found in it."""

    source: str
    found: tuple[ConflictEvidence, ...]
    # the text itself: the failed job's name may stand before its exception
    # (:mod:`deltaforensics.evidence.failed_loser`)
    text: str = ""

    @classmethod
    def read(cls, source: str, text: str) -> ErrorText:
        return cls(source=source, found=tuple(extract_conflicts(text, source=source)), text=text)


def read_error_texts(texts: Iterable[tuple[str, str] | ErrorText]) -> tuple[ErrorText, ...]:
    """``(name, text)`` pairs parsed (texts parsed already kept as they are)."""
    return tuple(t if isinstance(t, ErrorText) else ErrorText.read(*t) for t in texts)


def error_times(texts: Sequence[ErrorText]) -> tuple[int, ...]:
    """When the texts' exceptions were logged, for the window around them; none when a text
    names its winner's version (the analysis finds it by number) or no time was logged."""
    found = [c for t in texts for c in t.found]
    if not found or any(c.winner_version is not None for c in found):
        return ()
    return tuple(c.observed_at for c in found if c.observed_at is not None)


def error_evidence(
    texts: Sequence[ErrorText],
    txns: Sequence[Any],
    rep: Replay,
    diags: list[Diagnostic],
) -> tuple[list[Any], list[ErrorConflict], list[InferredLoser | None]]:
    """Every exception found in the texts, the conflicts among them explained, and each
    conflict's failed statement inferred from the job the text names (or None)."""
    found: list[Any] = []
    conflicts: list[ErrorConflict] = []
    losers: list[InferredLoser | None] = []
    for text in texts:
        source = text.source
        if not text.found:
            diags.append(
                warning(
                    NO_EXCEPTION_IN_ERROR_TEXT, f"no Delta concurrency exception found in {source}"
                )
            )
        for ev in text.found:
            found.append(ev)
            if ev.kind != "conflict":
                retried = f"{ev.exception} (commit retries exhausted, not a conflict)"
                diags.append(info(COMMIT_RETRIES_EXHAUSTED, f"{source} line {ev.line}: {retried}"))
                continue
            match = match_winner(ev, txns, rep.first_version)
            conflicts.append(explain_error(ev, match, txns))
            winner = match.winner
            losers.append(None if winner is None else infer_loser(text.text, ev, winner, txns))
    return found, conflicts, losers
