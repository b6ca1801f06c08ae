"""The writer matrix: would writer A fail if a commit of writer B landed while A ran?

Commits are grouped into writers (:mod:`deltaforensics.whatif.writers`). For every ordered pair
(A, B) up to ``n`` commits of A, spread over the history, are checked against the nearest
commit of B as a hypothetical winner, A reading the snapshot just before B committed. A writer
is paired with itself when two of its runs overlapped in the log or it ran from more than one
place at once. Each ordered pair is one cell: "A loses to B" and "B loses to A" are two
conflicts, as they would be two failed jobs.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deltaforensics.conflicts.checker import COMMITS, Verdict, check
from deltaforensics.replay import Replay
from deltaforensics.transactions import Transaction
from deltaforensics.whatif.transform import Rewriter, decide, with_evidence
from deltaforensics.whatif.writers import runs_in_parallel, writer_of

Cells = dict[tuple[str, str], list["Sample"]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Sample:
    loser: Transaction  # with the hypothetical read version (just before the winner)
    winner: Transaction
    before: Verdict


@dataclass(frozen=True, slots=True, kw_only=True)
class MatrixCell:
    """Does ``writer_a``'s commit fail when a commit of ``writer_b`` lands while it runs?"""

    writer_a: str  # the would-be loser
    writer_b: str  # the would-be winner
    samples: int
    before: str
    after: str | None  # None: unknown under the scenario
    conflicting_before: int
    conflicting_after: int
    unknown: int
    example: tuple[int, int] | None = None  # (loser, winner) versions of a conflict
    reason: str = ""
    overlapped: int = 0  # how often a commit of A really ran while one of B landed

    @property
    def avoided(self) -> bool:
        return self.after == COMMITS and self.before != COMMITS

    @property
    def introduced(self) -> bool:
        return self.after not in (None, COMMITS) and self.before == COMMITS

    @property
    def known(self) -> bool:
        """Whether the outcome under the scenario is known."""
        return self.after is not None

    @property
    def outcome_after(self) -> str:
        """The outcome under the scenario, the baseline's when it is unknown."""
        return self.after if self.after is not None else self.before


def writer_pairs(
    writers: Mapping[str, Sequence[Transaction]],
    races: Sequence[Any],
    by_version: Mapping[int, Transaction],
) -> list[tuple[str, str]]:
    """Ordered (loser writer, winner writer) pairs."""
    names = sorted(writers)
    pairs = [(a, b) for a in names for b in names if a != b]
    raced_self = {
        writer_of(r.verdict.loser)
        for r in races
        if any(
            writer_of(by_version[w]) == writer_of(r.verdict.loser)
            for w in r.verdict.winners
            if w in by_version
        )
    }
    pairs += [(n, n) for n in names if n in raced_self or runs_in_parallel(writers[n])]
    return pairs


def sample_cells(
    writers: Mapping[str, Sequence[Transaction]],
    pairs: Sequence[tuple[str, str]],
    replay: Replay,
    n: int,
) -> Cells:
    """Up to ``n`` hypothetical overlaps per ordered writer pair, with their baseline verdicts."""
    cells: Cells = {}
    first = max(replay.frames.base_version, 0)
    versions = {name: [c.version or 0 for c in commits] for name, commits in writers.items()}
    for a, b in pairs:
        seen: set[tuple[int, int]] = set()
        samples: list[Sample] = []
        for lo in _spread(writers[a], n):
            w = _nearest(writers[b], lo, versions[b])
            if w is None or w.version is None or lo.version is None:
                continue
            key = (lo.version, w.version)
            if key in seen or w.version - 1 < first:
                continue
            seen.add(key)
            hypothetical = lo.reading_version(w.version - 1, "what-if overlap")
            before = check(hypothetical, [w], profile=lo.provenance.profile, history=replay)
            samples.append(Sample(loser=hypothetical, winner=w, before=before))
        if samples:
            cells[(a, b)] = samples
    return cells


def evaluate_cell(
    rw: Rewriter, a: str, b: str, samples: Sequence[Sample], overlapped: int = 0
) -> MatrixCell:
    """``overlapped``: how often writers ``a`` and ``b`` really overlapped (:func:`overlaps`)."""
    before_hits = [s for s in samples if s.before.outcome != COMMITS]
    after: list[tuple[Sample, str | None, str]] = []
    for s in samples:
        pair = rw.pair(s.loser, [s.winner])
        if pair.unchanged:
            after.append((s, s.before.outcome, "unchanged by the scenario"))
        else:
            verdict, reason = decide(pair)
            decided = verdict.outcome if verdict is not None else None
            after.append((s, decided, with_evidence(reason, pair)))
    hits = [x for x in after if x[1] not in (None, COMMITS)]
    unknown = [x for x in after if x[1] is None]
    if hits:
        outcome: str | None = hits[0][1]
        reason = f"v{hits[0][0].loser.version} vs v{hits[0][0].winner.version}: {hits[0][2]}"
    elif unknown:
        outcome, reason = None, unknown[0][2]
    elif before_hits:
        first = next(x for x in after if x[0] is before_hits[0])
        outcome = COMMITS
        reason = f"v{first[0].loser.version} vs v{first[0].winner.version} now commits: {first[2]}"
    else:
        outcome, reason = COMMITS, "no sampled overlap conflicts"
    shown = before_hits[0] if before_hits else hits[0][0] if hits else None
    return MatrixCell(
        writer_a=a,
        writer_b=b,
        samples=len(samples),
        before=before_hits[0].before.outcome if before_hits else COMMITS,
        after=outcome,
        conflicting_before=len(before_hits),
        conflicting_after=len(hits),
        unknown=len(unknown),
        example=(shown.loser.version or 0, shown.winner.version or 0) if shown else None,
        reason=reason,
        overlapped=overlapped,
    )


def overlaps(
    races: Sequence[Any], by_version: Mapping[int, Transaction]
) -> Counter[tuple[str, str]]:
    """(loser writer, winner writer) -> how many times a commit of the first was rebased
    over a commit of the second: overlaps that really happened, not sampled ones."""
    found: Counter[tuple[str, str]] = Counter()
    for r in races:
        mine = writer_of(r.verdict.loser)
        for w in r.verdict.winners:
            if w in by_version:
                found[(mine, writer_of(by_version[w]))] += 1
    return found


def _spread(commits: Sequence[Transaction], n: int) -> list[Transaction]:
    """Up to ``n`` commits spread evenly over the history (first and last included)."""
    if len(commits) <= n:
        return list(commits)
    if n == 1:
        return [commits[-1]]
    step = (len(commits) - 1) / (n - 1)
    return [commits[round(i * step)] for i in range(n)]


def _nearest(
    commits: Sequence[Transaction], t: Transaction, versions: Sequence[int]
) -> Transaction | None:
    """The commit of ``commits`` (whose versions are ``versions``) closest in version to ``t``
    (not ``t`` itself)."""
    v = t.version or 0
    i = bisect_left(versions, v)
    best: Transaction | None = None
    for j in (i - 2, i - 1, i, i + 1):
        if 0 <= j < len(commits) and commits[j].version != v and (commits[j].version or 0) > 0:
            c = commits[j]
            if best is None or abs((c.version or 0) - v) < abs((best.version or 0) - v):
                best = c
    return best
