"""What to read on this run, and how the new commits join the history kept in the state.

Pure: a listing and the prior state in, a plan out; prior and new frames in, merged frames out.
A state continues only when the log still holds the commit right after it and the commit it
ended on is unchanged (same name and size), so a replaced table or a gap is never glued on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

from deltaforensics.log.assembly import assemble, physical_partition_columns
from deltaforensics.log.commit_actions import CommitActions
from deltaforensics.log.listing import LogListing
from deltaforensics.log.segment import LogSegment
from deltaforensics.model.diagnostic_codes import AUDIT_STATE_DISCARDED
from deltaforensics.model.diagnostics import Diagnostic, warning
from deltaforensics.model.schemas import PARTITION_VALUES, ActionFrames

STATE_FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class TableState:
    """The history an earlier run kept: its frames and where in the log it stopped."""

    uri: str
    frames: ActionFrames
    last_commit: tuple[int, str, int | None] | None  # (version, file name, size) read last
    runs: int = 1
    first_seen_version: int = 0
    # the mark of the kept state this run read (None: there was none); publishing compares it
    based_on: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def end_version(self) -> int:
        return self.frames.end_version


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadPlan:
    """``full``: replay the log's history; ``incremental``: read only ``segment.commits``;
    ``unchanged``: nothing new since the state."""

    mode: Literal["full", "incremental", "unchanged"]
    segment: LogSegment | None  # None for full (the loader picks the segment) and unchanged
    reason: str
    diagnostics: tuple[Diagnostic, ...] = ()


def plan_read(listing: LogListing, prior: TableState | None) -> ReadPlan:
    if prior is None:
        return ReadPlan(mode="full", segment=None, reason="no state for this table yet")
    latest = listing.latest_version
    end = prior.end_version
    why_not = _cannot_continue(listing, prior, latest)
    if why_not:
        return ReadPlan(
            mode="full",
            segment=None,
            reason=why_not,
            diagnostics=(warning(AUDIT_STATE_DISCARDED, f"state discarded: {why_not}", end),),
        )
    if latest == end:
        return ReadPlan(mode="unchanged", segment=None, reason=f"no commits after v{end}")
    commits = tuple((v, listing.commits[v]) for v in range(end + 1, latest + 1))
    segment = LogSegment(
        uri=listing.uri, end_version=latest, base_version=end, checkpoint=None, commits=commits
    )
    return ReadPlan(
        mode="incremental",
        segment=segment,
        reason=f"{len(commits)} commit(s) after v{end}",
    )


def _cannot_continue(listing: LogListing, prior: TableState, latest: int) -> str | None:
    end = prior.end_version
    if latest < end:
        return f"the log ends at v{latest}, before the state's v{end}: the table was replaced"
    if prior.last_commit is not None:
        version, name, size = prior.last_commit
        if version in listing.commits:
            now = listing.sizes.get(listing.commits[version])
            if listing.commits[version] != name or (
                size is not None and now is not None and now != size
            ):
                return f"commit v{version} changed since the last run: the table was replaced"
    missing = listing.missing_commits(end + 1, latest)
    if missing:
        return (
            f"commits v{missing[0]}..v{missing[-1]} after the state's v{end} are no longer in the "
            "log (log cleanup ran between audits); the history restarts at the oldest checkpoint"
        )
    return None


def commit_frames(
    segment: LogSegment,
    raw: pl.DataFrame,
    triples: list[tuple[int, str, bytes]],
    prior: TableState,
) -> ActionFrames:
    """Frames of the new commits only, their partition values typed by every metaData seen so
    far (the new commits usually carry none)."""
    commits = CommitActions.from_raw(raw)
    texts = prior.frames.metadata["metadata"].to_list() + commits.metadata_texts()
    return assemble(segment, None, commits, physical_partition_columns(texts), triples)


def merge_frames(prior: ActionFrames, new: ActionFrames) -> ActionFrames:
    """Prior history followed by the new commits (which start right after it)."""
    if new.base_version != prior.end_version:
        raise ValueError(
            f"new frames start after v{new.base_version}, the state ends at v{prior.end_version}"
        )
    columns = tuple(dict.fromkeys(prior.partition_columns + new.partition_columns))
    return ActionFrames(
        base_version=prior.base_version,
        end_version=new.end_version,
        partition_columns=columns,
        files=pl.concat(
            [
                align_partition_values(prior.all_files(), columns),
                align_partition_values(new.all_files(), columns),
            ],
            how="vertical",
        ),
        commit_infos=pl.concat([prior.commit_infos, new.commit_infos], how="vertical"),
        metadata=pl.concat([prior.metadata, new.metadata], how="vertical"),
        protocols=pl.concat([prior.protocols, new.protocols], how="vertical"),
        txns=pl.concat([prior.txns, new.txns], how="vertical"),
        domains=pl.concat([prior.domains, new.domains], how="vertical"),
        cdc=pl.concat([prior.cdc, new.cdc], how="vertical"),
        unknown=pl.concat([prior.unknown, new.unknown], how="vertical"),
        commit_versions=prior.commit_versions + new.commit_versions,
    )


def align_partition_values(files: pl.DataFrame, columns: tuple[str, ...]) -> pl.DataFrame:
    """Rebuild the ``partition_values`` struct with exactly ``columns`` (missing ones null)."""
    dtype = files.schema[PARTITION_VALUES]
    have = [f.name for f in dtype.fields] if isinstance(dtype, pl.Struct) else []
    if have == list(columns):
        return files
    fields = [
        pl.col(PARTITION_VALUES).struct.field(c) if c in have else pl.lit(None, pl.String).alias(c)
        for c in columns
    ]
    return files.with_columns(
        pl.struct(fields).alias(PARTITION_VALUES)
        if columns
        else pl.lit(None, pl.Struct({})).alias(PARTITION_VALUES)
    )
