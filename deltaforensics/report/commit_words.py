"""A commit in words, as a reader recognises it: what it did, who wrote it, when and where
(``v3, a WRITE by job orders_ingest at 2024-03-04 06:12 UTC into date=2024-03-04``), and a run of
winners by one writer folded into one phrase. The findings' sentences (:mod:`.prose`) name
commits with these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from itertools import groupby, pairwise

from deltaforensics.report.document.explain import Commit


def when(timestamp: int | None, *, date: bool = True) -> str:
    if timestamp is None:
        return "at an unknown time"
    moment = datetime.fromtimestamp(timestamp / 1000, UTC)
    clock = moment.strftime("%H:%M:%S" if moment.second else "%H:%M")
    return f"{moment:%Y-%m-%d} {clock} UTC" if date else f"{clock} UTC"


def who(commit: Commit) -> str:
    """The writer without its cluster: ``job orders_ingest``, ``notebook 1524…``."""
    return commit.writer.split(", cluster ")[0] or commit.engine or "an unknown writer"


def partitions_words(commit: Commit) -> str:
    """``date=2024-03-04`` or ``date=2024-03-03, date=2024-03-04 and 3 more``."""
    shown = [",".join(f"{k}={v}" for k, v in p.items()) for p in commit.partitions[:3]]
    more = len(commit.partitions) - len(shown) + commit.more_partitions
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def commit_words(commit: Commit | None, version: int) -> str:
    """``v3, a WRITE by job orders_ingest at 2024-03-04 06:12 UTC into date=2024-03-04``."""
    if commit is None:
        return f"v{version} (no longer in the log)"
    where = partitions_words(commit)
    into = f" {_preposition(commit)} {where}" if where else ""
    return f"v{version}, {_article(commit.operation)} {commit.operation} by {who(commit)} " + (
        f"at {when(commit.timestamp)}{into}"
    )


def _preposition(commit: Commit) -> str:
    return "into" if commit.num_removed_files == 0 else "in"


def _article(word: str) -> str:
    return "an" if word[:1].upper() in "AEIOU" else "a"


def winners_words(versions: Sequence[int], commits: Mapping[int | None, Commit]) -> str:
    """The winners grouped by writer and operation: ``v2–v4, 3 WRITEs by job orders_ingest
    06:08–06:16 UTC into date=2024-03-04``; a lone winner as :func:`commit_words`."""
    groups: list[str] = []
    known = [(v, commits.get(v)) for v in versions]
    for _, run in groupby(known, key=lambda vc: group_key(vc[1])):
        items = list(run)
        first_v, first = items[0]
        if len(items) == 1 or first is None:
            groups.extend(commit_words(c, v) for v, c in items)
            continue
        last_v, last = items[-1]
        assert last is not None
        spread = _time_range(first.timestamp, last.timestamp)
        parts = sorted({partitions_words(c) for _, c in items if c is not None} - {""})
        where = f" into {'; '.join(parts)}" if parts else ""
        span = (
            f"v{first_v}–v{last_v}"
            if _consecutive([v for v, _ in items])
            else (", ".join(f"v{v}" for v, _ in items))
        )
        groups.append(f"{span}, {len(items)} {first.operation}s by {who(first)} {spread}{where}")
    return "; ".join(groups)


def group_key(commit: Commit | None) -> tuple[str, str] | None:
    """What makes commits one group in words: the same operation by the same writer."""
    return None if commit is None else (commit.operation, who(commit))


def _consecutive(versions: Sequence[int]) -> bool:
    return all(b == a + 1 for a, b in pairwise(versions))


def _time_range(first: int | None, last: int | None) -> str:
    if first is None or last is None:
        return "at unknown times"
    start, end = when(first), when(last, date=False)
    return f"{start.removesuffix(' UTC')}–{end}"
