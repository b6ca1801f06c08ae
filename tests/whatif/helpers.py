"""Build what-if inputs from LogBuilder logs: the analysis of a log up to some version, and a
later commit of the same log turned into the attempt that lost (it left no trace)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from deltaforensics.analysis import ConflictAnalysis, analyze, load, open_store
from deltaforensics.report.document import whatif_document
from deltaforensics.transactions import Transaction, reconstruct_transactions
from deltaforensics.whatif.comparison import Observed
from deltaforensics.whatif.document import compare_scenario
from deltaforensics.whatif.evaluation import DEFAULT_SAMPLES
from deltaforensics.whatif.scenario import Scenario


def analysis_until(path: Path, version: int) -> ConflictAnalysis:
    """The analysis of ``path``'s log cut after ``version`` (in a sibling folder)."""
    cut = path.parent / f"{path.name}-until-{version}"
    (cut / "_delta_log").mkdir(parents=True)
    for v in range(version + 1):
        name = f"{v:020d}.json"
        shutil.copy(path / "_delta_log" / name, cut / "_delta_log" / name)
    return analyze(open_store(str(cut)))


def transaction(path: Path, version: int) -> Transaction:
    rep = load(open_store(str(path)), mode="history").replay
    return next(t for t in reconstruct_transactions(rep) if t.version == version)


def lost(
    path: Path, version: int, analysis: ConflictAnalysis, outcome: str, label: str
) -> Observed:
    """Commit ``version`` of ``path`` as an attempt that lost against the commits after its
    read version in ``analysis`` (which ends before it)."""
    t = transaction(path, version)
    attempt = replace(t, version=None, provenance=replace(t.provenance, statement=label))
    rv = t.read.version if t.read.version is not None else -1
    winners = tuple(w for w in analysis.transactions if w.version is not None and w.version > rv)
    return Observed(loser=attempt, winners=winners, outcome=outcome, source="attempt", label=label)


def whatif_json(
    analysis: ConflictAnalysis,
    scenario: Scenario,
    errors: Sequence[Any] = (),
    attempts: Sequence[Any] = (),
    *,
    samples: int = DEFAULT_SAMPLES,
) -> dict[str, Any]:
    """The ``whatif-v2`` document's JSON form for ``scenario`` on ``analysis``."""
    comparison = compare_scenario(analysis, scenario, errors, attempts, samples=samples)
    return whatif_document(analysis, comparison).to_dict()  # type: ignore[return-value]
