"""A validated, replayable slice of the log.

Guarantees of a :class:`LogSegment` (nothing downstream re-checks them):

- ``commits`` are contiguous: ``base_version + 1 .. end_version`` with no gap;
- ``checkpoint`` is complete (every part listed) and sits at ``base_version``;
- without a checkpoint, ``base_version == -1`` and the commits start at version 0;
- ``diagnostics`` name everything the listing had that was read around (gaps before the base,
  a stale or unreadable ``_last_checkpoint``, staged commits, junk files, skipped checkpoints).

Whether a checkpoint's *content* is readable is only known when it is read; the loader retries
with ``exclude`` naming the bad one, which yields the next older usable base.
"""

from __future__ import annotations

from dataclasses import dataclass

from deltaforensics.errors import VersionNotFoundError
from deltaforensics.log.commit_names import commits_between
from deltaforensics.log.listing import CheckpointFiles, LogListing
from deltaforensics.model.diagnostic_codes import (
    CHECKPOINT_FALLBACK,
    COMMIT_GAP,
    COMPACTED_FILE_IGNORED,
    INCOMPLETE_CHECKPOINT,
    JUNK_FILES_IGNORED,
    LAST_CHECKPOINT_STALE,
    LAST_CHECKPOINT_UNREADABLE,
    LOG_STARTS_AFTER_ZERO,
    STAGED_COMMITS_PRESENT,
)
from deltaforensics.model.diagnostics import Diagnostic, info, warning
from deltaforensics.model.gaps import describe


@dataclass(frozen=True, slots=True, kw_only=True)
class LogSegment:
    uri: str
    end_version: int
    base_version: int
    checkpoint: CheckpointFiles | None
    commits: tuple[tuple[int, str], ...]
    diagnostics: tuple[Diagnostic, ...] = ()

    @classmethod
    def for_version(
        cls,
        listing: LogListing,
        version: int | None = None,
        *,
        exclude: frozenset[tuple[str, ...]] = frozenset(),
    ) -> LogSegment:
        """The cheapest segment for one snapshot: the newest usable checkpoint at or below."""
        end = _end(listing, version)
        for cp in _checkpoints_at_or_below(listing, end, exclude):
            if not listing.missing_commits(cp.version + 1, end):
                return cls._build(listing, end, cp, exclude)
        if not listing.missing_commits(0, end):
            return cls._build(listing, end, None, exclude)
        raise _unreconstructable(listing, end, exclude)

    @classmethod
    def for_history(
        cls,
        listing: LogListing,
        version: int | None = None,
        *,
        exclude: frozenset[tuple[str, ...]] = frozenset(),
    ) -> LogSegment:
        """The longest contiguous chain ending at ``version``: from v0 if retained, else the
        earliest usable checkpoint inside the retained run of commits."""
        end = _end(listing, version)
        # the run of commits ending at ``end``, found by binary search (a loop asked the
        # listing about each of 1,000,000 versions)
        low = listing.first_of_run(end) if end in listing.commits else end + 1
        if low == 0 and 0 in listing.commits:
            return cls._build(listing, end, None, exclude)
        usable = [
            cp for cp in _checkpoints_at_or_below(listing, end, exclude) if cp.version >= low - 1
        ]
        if usable:
            return cls._build(listing, end, min(usable, key=lambda c: c.version), exclude)
        return cls.for_version(listing, end, exclude=exclude)

    @classmethod
    def for_window(
        cls,
        listing: LogListing,
        first: int,
        version: int | None = None,
        *,
        lookback: int,
        exclude: frozenset[tuple[str, ...]] = frozenset(),
    ) -> LogSegment:
        """A window's history (``--since``): from the newest usable checkpoint at least
        ``lookback`` commits before ``first``, so that the window's transactions find the
        winners they were rebased over without the whole log being read; the longest chain
        when there is no such checkpoint."""
        end = _end(listing, version)
        for cp in _checkpoints_at_or_below(listing, min(first - 1 - lookback, end), exclude):
            if not listing.missing_commits(cp.version + 1, end):
                return cls._build(listing, end, cp, exclude)
        return cls.for_history(listing, end, exclude=exclude)

    @classmethod
    def _build(
        cls,
        listing: LogListing,
        end: int,
        cp: CheckpointFiles | None,
        exclude: frozenset[tuple[str, ...]],
    ) -> LogSegment:
        base = cp.version if cp else -1
        commits = tuple(commits_between(listing.commits, base + 1, end))
        if len(commits) != end - base:  # a gap: name the missing version as before
            commits = tuple((v, listing.commits[v]) for v in range(base + 1, end + 1))
        return cls(
            uri=listing.uri,
            end_version=end,
            base_version=base,
            checkpoint=cp,
            commits=commits,
            diagnostics=tuple(diagnose_listing(listing, end, cp, exclude)),
        )


def _end(listing: LogListing, version: int | None) -> int:
    latest = listing.latest_version
    if version is None:
        return latest
    if version < 0:
        raise VersionNotFoundError(listing.uri, version, "versions start at 0")
    if version > latest:
        raise VersionNotFoundError(listing.uri, version, f"the latest version is {latest}")
    return version


def _checkpoints_at_or_below(
    listing: LogListing, end: int, exclude: frozenset[tuple[str, ...]]
) -> list[CheckpointFiles]:
    """Complete, not excluded checkpoints, newest first."""
    out: list[CheckpointFiles] = []
    for version in sorted((v for v in listing.checkpoints if v <= end), reverse=True):
        out.extend(c for c in listing.checkpoints[version] if c.complete and c.names not in exclude)
    return out


def _unreconstructable(
    listing: LogListing, end: int, exclude: frozenset[tuple[str, ...]]
) -> VersionNotFoundError:
    missing = listing.missing_commits(0, end)
    shown = describe(missing)
    reason = f"commit(s) {shown} missing and no usable checkpoint covers them"
    if exclude:
        names = ", ".join(sorted(n[0] for n in exclude)[:3])
        reason += f" ({len(exclude)} checkpoint(s) unreadable: {names})"
    err = VersionNotFoundError(listing.uri, end, reason)
    before = missing[0][0] - 1
    if before >= 0 and not listing.missing_commits(0, before):
        err.add_note(f"hint: --to-version {before} reads what precedes the gap")
    return err


def diagnose_listing(
    listing: LogListing,
    end: int,
    cp: CheckpointFiles | None,
    exclude: frozenset[tuple[str, ...]],
) -> list[Diagnostic]:
    """Everything in ``listing`` that a segment ending at ``end`` on ``cp`` reads around."""
    return [
        *_commit_gaps(listing, end, cp),
        *(
            warning(
                CHECKPOINT_FALLBACK,
                f"checkpoint {names[0]} is unreadable; fell back to an older base",
            )
            for names in sorted(exclude)
        ),
        *_incomplete_checkpoints(listing),
        *_last_checkpoint_remarks(listing),
        *_ignored_files(listing),
    ]


def _commit_gaps(listing: LogListing, end: int, cp: CheckpointFiles | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    versions = listing.commit_versions
    if not versions:
        return out
    missing = listing.missing_commits(versions[0], min(versions[-1], end))
    if missing:
        covered = cp is not None and missing[-1][1] <= cp.version
        out.append(
            warning(
                COMMIT_GAP,
                f"commit(s) {describe(missing)} missing from the log"
                + (f"; read around them from checkpoint {cp.version}" if cp and covered else ""),
                missing[0][0],
            )
        )
    if versions[0] > 0:
        out.append(
            info(
                LOG_STARTS_AFTER_ZERO,
                f"the retained log starts at version {versions[0]} "
                "(older commits were cleaned up); history before it is unknown",
                versions[0],
            )
        )
    return out


def _incomplete_checkpoints(listing: LogListing) -> list[Diagnostic]:
    return [
        warning(
            INCOMPLETE_CHECKPOINT,
            f"multi-part checkpoint at version {version} has {len(c.names)} of "
            f"{c.expected_parts} parts; ignored",
            version,
        )
        for version, cps in sorted(listing.checkpoints.items())
        for c in cps
        if not c.complete
    ]


def _last_checkpoint_remarks(listing: LogListing) -> list[Diagnostic]:
    hint = listing.last_checkpoint
    if hint is None:
        return []
    if hint.version is None:
        return [
            warning(
                LAST_CHECKPOINT_UNREADABLE,
                f"_last_checkpoint is {hint.problem}; listed the log instead",
            )
        ]
    if hint.version not in listing.checkpoints:
        return [
            warning(
                LAST_CHECKPOINT_STALE,
                f"_last_checkpoint points to version {hint.version}, which has no checkpoint",
                hint.version,
            )
        ]
    newest = max(v for v in listing.checkpoints)
    if hint.version < newest:
        return [
            info(
                LAST_CHECKPOINT_STALE,
                f"_last_checkpoint names version {hint.version}; a newer checkpoint "
                f"exists at {newest}",
                hint.version,
            )
        ]
    return []


def _ignored_files(listing: LogListing) -> list[Diagnostic]:
    """Staged commits, junk and log compactions: listed, never read."""
    out: list[Diagnostic] = []
    if listing.staged_commits:
        staged = ", ".join(p.name for p in listing.staged_commits[:5])
        out.append(
            info(
                STAGED_COMMITS_PRESENT,
                f"{len(listing.staged_commits)} staged commit(s) under _staged_commits/ "
                f"(catalog-managed table; not treated as committed): {staged}",
            )
        )
    if listing.junk:
        shown = ", ".join(listing.junk[:5])
        more = f" (+{len(listing.junk) - 5} more)" if len(listing.junk) > 5 else ""
        out.append(
            info(
                JUNK_FILES_IGNORED, f"{len(listing.junk)} non-Delta file(s) ignored: {shown}{more}"
            )
        )
    if listing.compacted:
        out.append(
            info(
                COMPACTED_FILE_IGNORED,
                f"{len(listing.compacted)} log compaction file(s) ignored; commits read directly",
            )
        )
    return out
