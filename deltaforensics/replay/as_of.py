"""Action frames -> the file lifecycle, and the table's state at any version.

The lifecycle has one row per *add* of a logical file (key = path + deletion-vector id): the
version it became live and the version its life ended, either by a remove of the same key or by
a re-add that superseded the record. Built with one sort and one window — no per-action loop.
A snapshot at ``v`` is a filter: ``added_version <= v`` and (``end_version`` null or ``> v``).
"""

from __future__ import annotations

import json
import time
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property

import polars as pl

from deltaforensics.errors import LogCorruptError, VersionNotFoundError
from deltaforensics.model.actions import Metadata, Protocol
from deltaforensics.model.commit_info import with_commit_info_columns
from deltaforensics.model.diagnostics import Diagnostic, info, warning
from deltaforensics.model.schemas import ActionFrames
from deltaforensics.snapshot import Snapshot

KEY = ("path", "dv_id")


def build_lifecycle(files: pl.DataFrame) -> pl.DataFrame:
    """One row per add with ``added_version``, ``end_version`` and ``end_action``.

    Sorts only the key columns and a row index (not the wide rows with their stats), takes the
    next action of the same key with a plain shift over the sorted keys (no ``over`` window,
    which hashes every key again), then gathers the add rows in that order.
    """
    order = _in_action_order(files.select(*KEY, "version", "seq", "action").with_row_index("_i"))
    same_key = _same_key_as_next()
    nxt = order.select(
        "_i",
        "action",
        pl.when(same_key).then(pl.col("version").shift(-1)).alias("end_version"),
        pl.when(same_key).then(pl.col("action").shift(-1)).alias("end_action"),
    ).filter(pl.col("action") == "add")
    return _lifecycle_rows(files, nxt["_i"], nxt["end_version"], nxt["end_action"])


def _in_action_order(keys: pl.DataFrame) -> pl.DataFrame:
    """Each key's actions in the order they took effect: by version, within a version a remove
    before an add (a re-add supersedes it), then by position in the commit."""
    return keys.with_columns((pl.col("action") == "add").cast(pl.Int8).alias("_rank")).sort(
        [*KEY, "version", "_rank", "seq"]
    )


def _lifecycle_rows(
    files: pl.DataFrame,
    adds: pl.Series,
    end_version: pl.Series | pl.Expr,
    end_action: pl.Series | pl.Expr,
) -> pl.DataFrame:
    """The rows ``adds`` (indices of add actions in ``files``) as lifecycle rows."""
    return (
        files.drop("action", "deletion_timestamp")[adds]
        .with_columns(end_version=end_version, end_action=end_action)
        .rename({"version": "added_version"})
    )


def live_at_end(files: pl.DataFrame) -> pl.DataFrame | None:
    """The lifecycle rows live at the segment's last version, without the whole lifecycle.

    At the last version a file is live when its add is the last action of its key. A
    checkpoint's adds all come before every commit, so one of them is live exactly when no
    commit touches its key: only the (few) commit rows need the lifecycle's five-key sort, and
    the (many) checkpoint rows only the (path, dv_id) sort the snapshot is ordered by anyway.
    Returns ``None`` — use the lifecycle — when that shortcut would not be exact: a key repeated
    inside the checkpoint, a null key, or checkpoint rows that do not all precede the commits.
    """
    keys = files.select(*KEY, "version", "seq", "action", "source").with_row_index("_i")
    if any(keys[k].null_count() for k in KEY):
        return None
    in_checkpoint = pl.col("source") == "checkpoint"
    checkpoint = keys.filter(in_checkpoint).select("_i", *KEY, "action", "version")
    commits = keys.filter(~in_checkpoint)
    if not _checkpoint_precedes(checkpoint, commits):
        return None
    untouched = checkpoint.join(commits.select(*KEY).unique(), on=list(KEY), how="anti")
    candidates = pl.concat(
        [untouched.select("_i", *KEY, "action"), _live_commit_adds(commits)], how="vertical"
    ).sort(*KEY)
    if candidates.select(_same_key_as_next().any()).item():
        return None
    return _lifecycle_rows(
        files,
        candidates.filter(pl.col("action") == "add")["_i"],
        pl.lit(None, dtype=files.schema["version"]),
        pl.lit(None, dtype=files.schema["action"]),
    )


def _same_key_as_next() -> pl.Expr:
    return pl.all_horizontal(pl.col(k).eq_missing(pl.col(k).shift(-1)) for k in KEY)


def _checkpoint_precedes(checkpoint: pl.DataFrame, commits: pl.DataFrame) -> bool:
    """Checkpoint rows share one version, older than every commit row's."""
    if checkpoint.is_empty():
        return True
    first, last = checkpoint["version"].min(), checkpoint["version"].max()
    if first != last:
        return False
    return commits.is_empty() or bool(commits["version"].min() > last)  # type: ignore[operator]


def _live_commit_adds(commits: pl.DataFrame) -> pl.DataFrame:
    """Commit adds that are the last action of their key (``_i``, key, ``action``)."""
    return (
        _in_action_order(commits)
        .filter(~_same_key_as_next() & (pl.col("action") == "add"))
        .select("_i", *KEY, "action")
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
        return build_lifecycle(self.frames.files)

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
        self._check(version)
        found = self._metadata.at(version)
        if found is None:
            raise LogCorruptError(
                self.uri, f"no metaData action at or before version {version}", version
            )
        cached = self._parsed.get(("metaData", found[0]))
        if isinstance(cached, Metadata):
            return cached
        try:
            parsed = Metadata.from_json(found[1])
        except ValueError as exc:
            raise LogCorruptError(
                self.uri, f"metaData is not valid JSON: {exc}", found[0]
            ) from None
        self._parsed["metaData", found[0]] = parsed
        return parsed

    def protocol_at(self, version: int) -> Protocol:
        self._check(version)
        found = self._protocols.at(version)
        if found is None:
            raise LogCorruptError(
                self.uri, f"no protocol action at or before version {version}", version
            )
        cached = self._parsed.get(("protocol", found[0]))
        if isinstance(cached, Protocol):
            return cached
        try:
            parsed = Protocol.from_json(found[1])
        except (ValueError, TypeError) as exc:
            raise LogCorruptError(
                self.uri, f"protocol action is invalid: {exc}", found[0]
            ) from None
        self._parsed["protocol", found[0]] = parsed
        return parsed

    def metadata_versions(self) -> list[int]:
        return list(self._metadata.versions)

    def protocol_versions(self) -> list[int]:
        return list(self._protocols.versions)

    def live_files(self, version: int) -> pl.DataFrame:
        self._check(version)
        return self.lifecycle.filter(
            (pl.col("added_version") <= version)
            & (pl.col("end_version").is_null() | (pl.col("end_version") > version))
        )

    def live_files_among(self, version: int, paths: pl.Series) -> pl.DataFrame:
        """The rows of :meth:`live_files` whose path is one of ``paths``.

        The lifecycle is sorted by path, so each path's rows are one range found by binary
        search: a conflict check that asks about a winner's few removed files reads those
        rows, not a filter over every file the history ever had.
        """
        self._check(version)
        lc = self.lifecycle
        wanted = paths.drop_nulls().unique().sort()
        column = lc["path"]
        if column.null_count():
            found = lc.filter(pl.col("path").is_in(wanted.implode()))
        else:
            first = column.search_sorted(wanted, side="left").to_list()
            end = column.search_sorted(wanted, side="right").to_list()
            rows = [i for a, b in zip(first, end, strict=True) for i in range(a, b)]
            found = lc[rows] if rows else lc.clear()
        return found.filter(
            (pl.col("added_version") <= version)
            & (pl.col("end_version").is_null() | (pl.col("end_version") > version))
        )

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

    @cached_property
    def _live_at_end(self) -> pl.DataFrame | None:
        """:func:`live_at_end`, once: ``explain`` asks for the latest snapshot more than once."""
        return live_at_end(self.frames.files)

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
        versions = pl.DataFrame(
            {"version": list(self.frames.commit_versions)}, schema={"version": pl.Int64}
        )
        infos = with_commit_info_columns(
            self.frames.commit_infos.unique("version", keep="first", maintain_order=True)
        )
        files = self.frames.files.filter(pl.col("source") == "commit")
        counts = files.group_by("version").agg(
            (pl.col("action") == "add").sum().cast(pl.Int64).alias("num_added_files"),
            (pl.col("action") == "remove").sum().cast(pl.Int64).alias("num_removed_files"),
            pl.col("size")
            .filter(pl.col("action") == "add")
            .sum()
            .cast(pl.Int64)
            .alias("bytes_added"),
            pl.col("size")
            .filter(pl.col("action") == "remove")
            .sum()
            .cast(pl.Int64)
            .alias("bytes_removed"),
        )
        marks = (
            pl.DataFrame(
                {
                    "version": self.frames.metadata["version"].to_list(),
                },
                schema={"version": pl.Int64},
            )
            .unique()
            .with_columns(pl.lit(True).alias("changes_metadata"))
        )
        pmarks = (
            pl.DataFrame(
                {"version": self.frames.protocols["version"].to_list()},
                schema={"version": pl.Int64},
            )
            .unique()
            .with_columns(pl.lit(True).alias("changes_protocol"))
        )
        return (
            versions.join(infos, on="version", how="left")
            .join(counts, on="version", how="left")
            .join(marks, on="version", how="left")
            .join(pmarks, on="version", how="left")
            .with_columns(
                pl.col(
                    "num_added_files", "num_removed_files", "bytes_added", "bytes_removed"
                ).fill_null(0),
                pl.col("changes_metadata", "changes_protocol").fill_null(False),
                pl.col("commit_info").is_not_null().alias("has_commit_info"),
            )
            .sort("version")
        )


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


def content_diagnostics(rep: Replay) -> list[Diagnostic]:
    """Remarks on what the actions say (not the layout): read around, never fatal."""
    out: list[Diagnostic] = []
    frames = rep.frames
    for v, raw in frames.unknown.iter_rows():
        out.append(info("W201", f"unknown action kept, not interpreted: {raw[:120]}", v))
    # W202 needs only which versions lack commitInfo; building Replay.commits for it (typed
    # commitInfo columns, file counts, joins) cost more than the rest of a history load.
    infos = frames.commit_infos
    with_info = set(infos.filter(pl.col("commit_info").is_not_null())["version"].to_list())
    missing = [v for v in frames.commit_versions if v not in with_info]
    if missing:
        shown = ", ".join(str(v) for v in missing[:10]) + (" …" if len(missing) > 10 else "")
        out.append(
            info("W202", f"{len(missing)} commit(s) without commitInfo: {shown}", missing[0])
        )
    seen_features: set[str] = set()
    for v, text in frames.protocols.iter_rows():
        try:
            p = Protocol.from_json(text)
        except (ValueError, TypeError):
            out.append(warning("W205", "protocol action is not valid JSON", v))
            continue
        if p.reader_features is not None and p.min_reader_version != 3:
            out.append(
                warning(
                    "W205",
                    f"readerFeatures present with minReaderVersion {p.min_reader_version} (must be 3)",
                    v,
                )
            )
        if p.writer_features is not None and p.min_writer_version != 7:
            out.append(
                warning(
                    "W205",
                    f"writerFeatures present with minWriterVersion {p.min_writer_version} (must be 7)",
                    v,
                )
            )
        if "catalogManaged" in p.features and "catalogManaged" not in seen_features:
            out.append(
                warning(
                    "W110",
                    "catalog-managed table: the catalog ratifies commits, so the published log may lag it; "
                    "only published commits are analysed",
                    v,
                )
            )
        seen_features.update(p.features)
    for v, text in frames.metadata.iter_rows():
        try:
            doc = json.loads(text)
        except ValueError:
            out.append(warning("W206", "metaData action is not valid JSON", v))
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("schemaString"), str):
            out.append(
                warning("W206", "metaData action has no schemaString; file lists are still read", v)
            )
    return out


def replay(uri: str, frames: ActionFrames) -> Replay:
    return Replay(uri, frames)


def operation_parameters(text: str | None) -> dict[str, object]:
    """Decode ``operationParameters`` JSON text; values keep their JSON type."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
