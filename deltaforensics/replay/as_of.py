"""The table as of any version: live files, metaData, protocol, app transactions, domains.

A snapshot at ``v`` is a filter of the lifecycle (:mod:`.lifecycle`): ``added_version <= v``
and (``end_version`` null or ``> v``); metaData and protocol are the last ones at or before
``v``, each action text decoded once.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar

import polars as pl

from deltaforensics.errors import LogCorruptError, VersionNotFoundError
from deltaforensics.model.actions import Metadata, Protocol
from deltaforensics.model.commit_info import DETAIL_COLUMNS
from deltaforensics.model.schemas import ActionFrames
from deltaforensics.replay.commits import commit_table, with_commit_details
from deltaforensics.replay.file_stats import with_file_stats
from deltaforensics.replay.lifecycle import build_lifecycle, live_at_end, live_count_at_end
from deltaforensics.snapshot import Snapshot

_Action = TypeVar("_Action", Metadata, Protocol)


def _live_at(version: int) -> pl.Expr:
    """Lifecycle rows live at ``version``: added by then and not ended by then."""
    return (pl.col("added_version") <= version) & (
        pl.col("end_version").is_null() | (pl.col("end_version") > version)
    )


@dataclass(frozen=True, slots=True)
class _Versioned:
    versions: list[int]
    texts: list[str]

    def at(self, version: int) -> tuple[int, str] | None:
        i = bisect_right(self.versions, version)
        return None if i == 0 else (self.versions[i - 1], self.texts[i - 1])


@dataclass(frozen=True)
class Replay:
    """Everything the segment says, indexed for "as of version v" questions."""

    uri: str
    frames: ActionFrames

    @cached_property
    def lifecycle(self) -> pl.DataFrame:
        return build_lifecycle(self.frames.all_files())

    @cached_property
    def _touched_lifecycle(self) -> pl.DataFrame:
        """The lifecycle of the files the frames hold: for the paths they cover completely
        (every path a commit names), the same rows as :attr:`lifecycle`, without reading
        the checkpoint adds no commit touches (:class:`~deltaforensics.model.deferred_files.DeferredFiles`)."""
        if self.frames.deferred is None:
            return self.lifecycle
        return build_lifecycle(self.frames.files)

    def all_files(self) -> pl.DataFrame:
        """Every file action of the segment (:meth:`ActionFrames.all_files`)."""
        return self.frames.all_files()

    @cached_property
    def _metadata(self) -> _Versioned:
        df = self.frames.metadata.sort("version", maintain_order=True)
        return _Versioned(df["version"].to_list(), df["metadata"].to_list())

    @cached_property
    def _protocols(self) -> _Versioned:
        df = self.frames.protocols.sort("version", maintain_order=True)
        return _Versioned(df["version"].to_list(), df["protocol"].to_list())

    @cached_property
    def _parsed(self) -> dict[tuple[str, int], Metadata | Protocol]:
        """Decoded metaData/protocol actions by their version: each text is decoded once, not
        once per commit that asks (a 100,000-commit history asks 200,000 times)."""
        return {}

    @cached_property
    def _domain_rows(self) -> tuple[list[int], list[tuple[str | None, str | None, bool | None]]]:
        df = self.frames.domains.sort("version", maintain_order=True)
        rows = list(df.select("domain", "configuration", "removed").iter_rows())
        return df["version"].to_list(), rows

    @property
    def first_version(self) -> int:
        return self.frames.base_version if self.frames.base_version >= 0 else 0

    @property
    def end_version(self) -> int:
        return self.frames.end_version

    def retains(self, version: int) -> bool:
        """Whether the files live at ``version`` are known: the segment starts at a checkpoint
        (or version 0) at or before it."""
        return max(self.frames.base_version, 0) <= version <= self.end_version

    def _check(self, version: int) -> None:
        if not self.frames.base_version <= version <= self.frames.end_version:
            raise VersionNotFoundError(
                self.uri,
                version,
                f"this replay covers versions {self.first_version}..{self.end_version}",
            )

    def metadata_at(self, version: int) -> Metadata:
        return self._action_at(
            version, self._metadata, Metadata, "metaData", "metaData is not valid JSON", ValueError
        )

    def protocol_at(self, version: int) -> Protocol:
        return self._action_at(
            version,
            self._protocols,
            Protocol,
            "protocol",
            "protocol action is invalid",
            (ValueError, TypeError),
        )

    def _action_at(
        self,
        version: int,
        versioned: _Versioned,
        decoded: type[_Action],
        action: str,
        invalid: str,
        errors: type[Exception] | tuple[type[Exception], ...],
    ) -> _Action:
        """The last ``action`` (metaData or protocol) at or before ``version``, decoded once."""
        self._check(version)
        found = versioned.at(version)
        if found is None:
            raise LogCorruptError(
                self.uri, f"no {action} action at or before version {version}", version
            )
        cached = self._parsed.get((action, found[0]))
        if isinstance(cached, decoded):
            return cached
        try:
            parsed = decoded.from_json(found[1])
        except errors as exc:
            raise LogCorruptError(self.uri, f"{invalid}: {exc}", found[0]) from None
        self._parsed[action, found[0]] = parsed
        return parsed

    def metadata_versions(self) -> list[int]:
        return list(self._metadata.versions)

    def protocol_versions(self) -> list[int]:
        return list(self._protocols.versions)

    def with_file_stats(self, rows: pl.DataFrame) -> pl.DataFrame:
        """``rows`` of this history's files with their statistics, read back from the log
        where the frames do not hold them (:func:`~deltaforensics.replay.file_stats.with_file_stats`)."""
        return with_file_stats(self.frames, rows)

    def live_files(self, version: int) -> pl.DataFrame:
        self._check(version)
        return self.lifecycle.filter(_live_at(version))

    def live_files_among(self, version: int, paths: pl.Series) -> pl.DataFrame:
        """The rows of :meth:`live_files` whose path is one of ``paths``.

        The lifecycle is sorted by path, so each path's rows are one range found by binary
        search: a conflict check that asks about a winner's few removed files reads those
        rows, not a filter over every file the history ever had.
        """
        self._check(version)
        wanted = paths.drop_nulls().unique().sort()
        deferred = self.frames.deferred
        if deferred is None or "lifecycle" in self.__dict__ or not deferred.covers(wanted):
            lc = self.lifecycle
        else:  # a winner's removed files are files some commit names: none is left out
            lc = self._touched_lifecycle
        column = lc["path"]
        if column.null_count():
            found = lc.filter(pl.col("path").is_in(wanted.implode()))
        else:
            first = column.search_sorted(wanted, side="left").to_list()
            end = column.search_sorted(wanted, side="right").to_list()
            rows = [i for a, b in zip(first, end, strict=True) for i in range(a, b)]
            found = lc[rows] if rows else lc.clear()
        return found.filter(_live_at(version))

    def app_transactions_at(self, version: int, *, now_ms: int | None = None) -> dict[str, int]:
        """Latest ``txn.version`` per appId; with ``delta.setTransactionRetentionDuration`` set,
        entries whose ``lastUpdated`` is older than the retention (from ``now_ms``, default the
        wall clock, as engines judge it) are expired, as Delta's log replay does."""
        txns = self.frames.txns.filter(pl.col("version") <= version).sort("version")
        latest: dict[str, tuple[int, int | None]] = {}
        for app_id, v, updated in txns.select("app_id", "txn_version", "last_updated").iter_rows():
            if app_id is not None and v is not None:
                latest[app_id] = (v, updated)
        retention = parse_interval_ms(
            self.metadata_at(version).configuration.get("delta.setTransactionRetentionDuration")
        )
        if retention is None:
            return {k: v for k, (v, _) in latest.items()}
        now = now_ms if now_ms is not None else int(time.time() * 1000)
        return {
            k: v
            for k, (v, updated) in latest.items()
            if updated is None or updated >= now - retention
        }

    def domains_at(self, version: int) -> dict[str, str]:
        versions, rows = self._domain_rows
        out: dict[str, str] = {}
        for d, conf, removed in rows[: bisect_right(versions, version)]:
            if d is None:
                continue
            if removed:
                out.pop(d, None)
            else:
                out[d] = conf or ""
        return out

    def _live_sorted(self, version: int) -> pl.DataFrame:
        """:meth:`live_files` by (path, dv_id); at the last version, before anything has asked
        for the lifecycle, without building it (a snapshot does not need the history).

        The lifecycle is already in that order: it is sorted by key first (nulls first, as
        ``sort`` puts them), and at one version each key has at most one live add.
        """
        cached = "_live_at_end" in self.__dict__
        if version == self.end_version and (cached or "lifecycle" not in self.__dict__):
            self._check(version)
            live = self._live_at_end
            if live is not None:
                return live
        return self.live_files(version)

    def num_files_at(self, version: int) -> int:
        """``snapshot_at(version).num_files``; at the last version, before anything has built
        the live files, counted without ordering them (:func:`live_count_at_end`)."""
        self._check(version)
        built = "_live_at_end" in self.__dict__ or "lifecycle" in self.__dict__
        if version == self.end_version and not built:
            count = live_count_at_end(self.frames.files)
            if count is not None:
                deferred = self.frames.deferred
                # the adds left out are live at the end: no commit touches their paths
                return count + (deferred.count if deferred is not None else 0)
        return self._live_sorted(version).height

    @cached_property
    def _live_at_end(self) -> pl.DataFrame | None:
        """:func:`live_at_end`, once: ``explain`` asks for the latest snapshot more than once."""
        return live_at_end(self.frames.all_files())

    def snapshot_at(self, version: int | None = None) -> Snapshot:
        v = self.end_version if version is None else version
        return Snapshot(
            version=v,
            protocol=self.protocol_at(v),
            metadata=self.metadata_at(v),
            files=self._live_sorted(v),
            app_transactions=self.app_transactions_at(v),
            domains=self.domains_at(v),
        )

    @cached_property
    def commits(self) -> pl.DataFrame:
        """One row per commit version in the segment: typed commitInfo fields and file counts."""
        if self._small and "core_commits" not in self.__dict__:
            return commit_table(self.frames, details=True)
        return with_commit_details(self.core_commits)

    @cached_property
    def core_commits(self) -> pl.DataFrame:
        """:attr:`commits` without the commitInfo fields only a history shows
        (``model.commit_info.DETAIL_COLUMNS``): what the transactions are built from."""
        if self._small:
            return self.commits.drop(DETAIL_COLUMNS)
        return commit_table(self.frames)

    @property
    def _small(self) -> bool:
        """Few enough commits to hold every commitInfo field: one decoding serves both tables
        (a second one cost an audit of many small tables ~8 ms each)."""
        return self.frames.commit_infos.height <= _DETAILS_HELD_UP_TO


_DETAILS_HELD_UP_TO = 65_536  # commitInfos: a slice of the 1M-commit decoding (commit_info)

_UNIT_MS = {
    "millisecond": 1,
    "second": 1000,
    "minute": 60_000,
    "hour": 3_600_000,
    "day": 86_400_000,
    "week": 604_800_000,
}


def parse_interval_ms(text: str | None) -> int | None:
    """Delta's ``interval <n> <unit>`` table-property syntax, in milliseconds."""
    if not text:
        return None
    parts = text.strip().lower().split()
    if parts and parts[0] == "interval":
        parts = parts[1:]
    if len(parts) != 2:
        return None
    try:
        amount = float(parts[0])
    except ValueError:
        return None
    unit = parts[1].rstrip("s")
    return int(amount * _UNIT_MS[unit]) if unit in _UNIT_MS else None


def replay(uri: str, frames: ActionFrames) -> Replay:
    return Replay(uri, frames)
