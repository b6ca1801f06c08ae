"""Remarks on what the actions say (W201, W202, W205, W206, W207, W110), not on the log's
layout."""

from __future__ import annotations

import json

import polars as pl

from deltaforensics.model.actions import Protocol
from deltaforensics.model.commit_info import epoch_ms, json_integer
from deltaforensics.model.diagnostic_codes import (
    CATALOG_MANAGED_TABLE,
    INVALID_PROTOCOL,
    METADATA_WITHOUT_SCHEMA,
    MISSING_COMMIT_INFO,
    TIMESTAMP_OUT_OF_RANGE,
    UNKNOWN_ACTION,
)
from deltaforensics.model.diagnostics import Diagnostic, info, warning
from deltaforensics.replay.as_of import Replay


def content_diagnostics(rep: Replay) -> list[Diagnostic]:
    """Remarks on what the actions say (not the layout): read around, never fatal."""
    out: list[Diagnostic] = []
    frames = rep.frames
    for v, raw in frames.unknown.iter_rows():
        out.append(info(UNKNOWN_ACTION, f"unknown action kept, not interpreted: {raw[:120]}", v))
    # W202 needs only which versions lack commitInfo; building Replay.commits for it (typed
    # commitInfo columns, file counts, joins) cost more than the rest of a history load.
    infos = frames.commit_infos
    with_info = set(infos.filter(pl.col("commit_info").is_not_null())["version"].to_list())
    missing = [v for v in frames.commit_versions if v not in with_info]
    if missing:
        shown = ", ".join(str(v) for v in missing[:10]) + (" …" if len(missing) > 10 else "")
        out.append(
            info(
                MISSING_COMMIT_INFO,
                f"{len(missing)} commit(s) without commitInfo: {shown}",
                missing[0],
            )
        )
    seen_features: set[str] = set()
    for v, text in frames.protocols.iter_rows():
        try:
            p = Protocol.from_json(text)
        except (ValueError, TypeError):
            out.append(warning(INVALID_PROTOCOL, "protocol action is not valid JSON", v))
            continue
        if p.reader_features is not None and p.min_reader_version != 3:
            out.append(
                warning(
                    INVALID_PROTOCOL,
                    f"readerFeatures present with minReaderVersion {p.min_reader_version} (must be 3)",
                    v,
                )
            )
        if p.writer_features is not None and p.min_writer_version != 7:
            out.append(
                warning(
                    INVALID_PROTOCOL,
                    f"writerFeatures present with minWriterVersion {p.min_writer_version} (must be 7)",
                    v,
                )
            )
        if "catalogManaged" in p.features and "catalogManaged" not in seen_features:
            out.append(
                warning(
                    CATALOG_MANAGED_TABLE,
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
            out.append(warning(METADATA_WITHOUT_SCHEMA, "metaData action is not valid JSON", v))
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("schemaString"), str):
            out.append(
                warning(
                    METADATA_WITHOUT_SCHEMA,
                    "metaData action has no schemaString; file lists are still read",
                    v,
                )
            )
    return out


def unreadable_times(commits: pl.DataFrame) -> list[Diagnostic]:
    """W207 per commit whose ``commitInfo.timestamp`` or ``inCommitTimestamp`` is a number no
    date shows (nanoseconds, 2^63), which the commit table reads as missing
    (:func:`~deltaforensics.model.commit_info.epoch_ms`).

    Only the commits the table left without a time are parsed again: none in a sound log (an
    in-commit time is looked for only where other commits have one)."""
    suspects = pl.col("timestamp").is_null()
    if commits["in_commit_timestamp"].null_count() < commits.height:
        suspects = suspects | pl.col("in_commit_timestamp").is_null()
    rows = commits.filter(suspects & pl.col("commit_info").is_not_null())
    out: list[Diagnostic] = []
    for version, text in rows.select("version", "commit_info").iter_rows():
        try:
            info = json.loads(text)
        except ValueError:
            continue
        for key in ("timestamp", "inCommitTimestamp"):
            value = info.get(key) if isinstance(info, dict) else None
            number = json_integer(value)
            if number is not None and epoch_ms(number) is None:
                shown = str(value)[:40] + ("…" if len(str(value)) > 40 else "")
                out.append(
                    warning(
                        TIMESTAMP_OUT_OF_RANGE,
                        f"commitInfo.{key} {shown} is not a time in epoch milliseconds; "
                        "read as missing",
                        version,
                    )
                )
    return out
