"""``TableLog``: one table's ``_delta_log`` as a timeline, written commit by commit.

It owns what every statement shares: the deterministic clock and random source (so golden
tests stay stable), the table definition (columns, column mapping, metaData, protocol), the
files live at each version, and ``commit``, which turns actions into the next version file.
The statements (``create``, ``delete``, ``merge`` ...) are ``LogBuilder``'s, in ``builder``.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict, Unpack

from deltaforensics.log.paths import commit_name
from deltaforensics.model.ids import IsolationLevel
from tests.support.checkpoints import write_checkpoint
from tests.support.files import (
    Action,
    data_file_path,
    dumps,
    dv_descriptor,
    live_adds,
    parse_partition,
    random_prefix,
)
from tests.support.predicate_text import ExprIds, matches_partition, read_statement_predicate
from tests.support.schema import grown_protocol, metadata_action, protocol_for, schema_field
from tests.support.writers import (
    CommitDraft,
    Writer,
    add_action,
    commit_info,
    file_actions_in_order,
    remove_action,
)

DEFAULT_START_MS = 1_704_067_200_000  # 2024-01-01T00:00:00Z


class CommitOptions(TypedDict, total=False):
    """Keyword options every operation accepts (all optional)."""

    read_version: int | None  # default: the previous version (no race); None for creates
    isolation: str | IsolationLevel | None  # default: derived per writer and table property
    blind: bool | None  # isBlindAppend; default: all file actions are adds and nothing was read
    timestamp: int | None  # commitInfo.timestamp in ms; default: the builder's clock
    actions: Sequence[Action]  # extra actions (txn, domainMetadata, cdc ...) added as given
    commit_info_extra: Mapping[str, Any]  # merged into commitInfo; a None value drops the key
    omit_commit_info: bool  # write no commitInfo at all (third-party writers, scenario 42)
    writer: str  # this commit only, e.g. a delta-rs append into a Spark table
    metrics: Mapping[str, Any]  # merged into operationMetrics


class TableLog:
    """A table's log under ``path``; ``commit`` writes the next version and returns it."""

    def __init__(
        self,
        path: str | Path,
        *,
        columns: Mapping[str, str] | None = None,
        partition_by: Sequence[str] = (),
        writer: str = "spark-3.2.0",
        configuration: Mapping[str, str] | None = None,
        protocol: Mapping[str, Any] | None = None,
        table_name: str | None = None,
        start_ms: int = DEFAULT_START_MS,
        step_seconds: float = 60,
        seed: int = 0,
        checkpoint_interval: int | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> None:
        self.path = Path(path)
        self.log_dir = self.path / "_delta_log"
        self.writer = Writer.parse(writer)
        self.partition_by = tuple(partition_by)
        self.columns = dict(columns or {"id": "long", **dict.fromkeys(self.partition_by, "string")})
        missing = [c for c in self.partition_by if c not in self.columns]
        if missing:
            raise ValueError(f"partition columns {missing} are not in columns")
        self.table_name = table_name
        self.configuration = dict(configuration or {})
        self.checkpoint_interval = checkpoint_interval
        self.version = -1
        self.commits: list[list[Action]] = []
        self.timestamps: list[int] = []
        self._rng = random.Random(seed)
        self._now = start_ms
        self._step_ms = int(step_seconds * 1000)
        self._part = 0
        self._expr_ids = 100 + self._rng.randrange(900)
        self._physical: dict[str, str] = {}
        self._max_column_id = 0
        self.explicit_protocol = dict(protocol) if protocol else None
        self._last_ict: int | None = None
        self._context = (
            dict(context)
            if context is not None
            else self.writer.workspace_context(self.random_below)
        )
        self.metadata = self._metadata_action(self.columns, self.configuration)
        self.protocol = self.protocol_action()

    # -- clock, ids and context ---------------------------------------------------------------

    def uuid(self) -> str:
        """A seeded uuid4 string (file names, txnIds, query ids)."""
        return str(uuid.UUID(int=self._rng.getrandbits(128), version=4))

    def random_below(self, n: int) -> int:
        """A seeded random integer in ``[0, n)`` (sizes, timings)."""
        return self._rng.randrange(n)

    def advance(self, seconds: float) -> None:
        """Move the clock forward (an idle period between jobs)."""
        self._now += int(seconds * 1000)

    def time_of(self, version: int) -> int:
        return self.timestamps[version]

    def writer_for(self, options: CommitOptions) -> Writer:
        """The writer of one commit: ``writer=`` if given, else the table's."""
        spec = options.get("writer")
        return Writer.parse(spec) if spec else self.writer

    def next_expr_ids(self, target_alias: str | None = None) -> ExprIds:
        """Fresh Spark expression ids for one query, well above the last query's."""
        self._expr_ids += 40 + self._rng.randrange(900)
        return ExprIds(self._expr_ids, self.columns, target_alias)

    # -- schema, metadata, protocol -------------------------------------------------------

    @property
    def column_mapping(self) -> str:
        return self.configuration.get("delta.columnMapping.mode", "none").lower()

    def physical_name(self, logical: str) -> str:
        return self._physical.get(logical, logical) if self.column_mapping != "none" else logical

    def _field(self, name: str, type_name: str) -> dict[str, Any]:
        if self.column_mapping == "none":
            return schema_field(name, type_name, None)
        self._max_column_id += 1
        self._physical.setdefault(name, f"col-{self.uuid()}")
        return schema_field(name, type_name, (self._max_column_id, self._physical[name]))

    def _metadata_action(self, columns: Mapping[str, str], config: Mapping[str, str]) -> Action:
        self._fields = [self._field(n, t) for n, t in columns.items()]
        conf = dict(config)
        if self.column_mapping != "none":
            conf["delta.columnMapping.maxColumnId"] = str(self._max_column_id)
        self.configuration = conf
        return metadata_action(
            table_id=self.uuid(),
            name=self.table_name,
            fields=self._fields,
            partition_by=self.partition_by,
            configuration=conf,
            created_ms=self._now,
        )

    def protocol_action(self) -> Action:
        """The protocol the table's configuration needs (or the one given explicitly)."""
        if self.explicit_protocol is not None:
            return dict(self.explicit_protocol)
        return protocol_for(self.configuration, self.column_mapping != "none")

    def refresh_metadata(self, columns: Mapping[str, str], config: Mapping[str, str]) -> Action:
        """New metaData keeping id and createdTime; new columns get mapping ids if enabled."""
        self.configuration = dict(config)
        for name, type_name in columns.items():
            if name not in self.columns:
                self._fields.append(self._field(name, type_name))
        self.columns.update(columns)
        if self.column_mapping != "none":
            self.configuration["delta.columnMapping.maxColumnId"] = str(self._max_column_id)
        return {
            **self.metadata,
            "schemaString": dumps({"type": "struct", "fields": self._fields}),
            "configuration": dict(self.configuration),
        }

    def fields_named(self, names: Iterable[str]) -> list[dict[str, Any]]:
        """The schema fields of ``names``, in schema order."""
        wanted = set(names)
        return [f for f in self._fields if f["name"] in wanted]

    def upgraded_protocol(self) -> Action | None:
        """The protocol the new configuration needs, if it is more than the current one."""
        if self.explicit_protocol is not None:
            return None
        return grown_protocol(self.protocol, self.protocol_action())

    # -- files --------------------------------------------------------------------------------

    def file(
        self,
        partition: str | Mapping[str, str | None] | None = None,
        *,
        size: int | None = None,
        rows: int | None = None,
        stats: Mapping[str, Any] | None = None,
        dv: int | Mapping[str, Any] | None = None,
        tags: Mapping[str, str] | None = None,
        path: str | None = None,
    ) -> Action:
        """A fresh add action; ``partition`` is ``"date=A"`` (logical names) or a dict.

        ``stats`` keys are logical column names (mapped to physical ones under column mapping);
        ``numRecords`` defaults to ``rows``. ``dv`` is a cardinality or a full descriptor.
        """
        values = parse_partition(partition)
        if set(values) != set(self.partition_by):
            raise ValueError(
                f"partition {partition!r} does not match partition_by {self.partition_by}"
            )
        rows = rows if rows is not None else 1000 + self._rng.randrange(99_000)
        body: dict[str, Any] = {"numRecords": rows, **(stats or {})}
        for key in ("minValues", "maxValues", "nullCount"):
            if isinstance(body.get(key), Mapping):
                body[key] = {self.physical_name(k): v for k, v in body[key].items()}
        if path is None:
            path = self._new_path(values)
        add: Action = {
            "path": path,
            "partitionValues": {self.physical_name(c): values[c] for c in self.partition_by},
            "size": size if size is not None else max(600, rows * 24 + self._rng.randrange(4096)),
            "modificationTime": None,  # stamped by the commit
            "dataChange": True,
            "stats": dumps(body),
            "tags": dict(tags) if tags else None,
        }
        if dv is None:
            return add
        if isinstance(dv, int):
            return self.with_dv(add, cardinality=dv)
        return {**add, "deletionVector": dict(dv)}

    def _new_path(self, values: Mapping[str, str | None]) -> str:
        name_uuid = self.uuid()
        n = self._part
        self._part += 1
        sep = "." if self.writer.family == "databricks" else "-"
        name = f"part-{n:05d}-{name_uuid}{sep}c000.snappy.parquet"
        # Spark writes random prefixes instead of Hive directories under column mapping
        prefix = random_prefix(self._rng.choice) if self.column_mapping != "none" else None
        return data_file_path(values, self.partition_by, name=name, random_prefix=prefix)

    def with_dv(
        self, file: Mapping[str, Any], *, cardinality: int, storage_type: str = "u"
    ) -> Action:
        """The same file re-added with a new deletion vector (stats bounds become loose)."""
        descriptor = dv_descriptor(uuid.UUID(self.uuid()).bytes, cardinality, storage_type)
        stats = json.loads(file.get("stats") or "{}")
        stats["tightBounds"] = False
        return {
            **file,
            "modificationTime": None,
            "stats": dumps(stats),
            "deletionVector": descriptor,
        }

    def live_files(
        self, partition: str | Mapping[str, str | None] | None = None, *, version: int | None = None
    ) -> list[Action]:
        """Add actions live at ``version`` (default: latest), optionally in one partition."""
        upto = self.version if version is None else version
        files = live_adds(self.commits[: upto + 1])
        if partition is None:
            return files
        want = {self.physical_name(k): v for k, v in parse_partition(partition).items()}
        return [f for f in files if all(f["partitionValues"].get(k) == v for k, v in want.items())]

    def matching_files(self, predicate: str | None, *, version: int | None = None) -> list[Action]:
        """Live files whose partition values satisfy a partition-only SQL predicate."""
        files = self.live_files(version=version)
        if predicate is None:
            return files
        pred = read_statement_predicate(predicate)
        out = []
        for f in files:
            values = {c: f["partitionValues"].get(self.physical_name(c)) for c in self.partition_by}
            try:
                if matches_partition(pred, values, self.columns):
                    out.append(f)
            except KeyError:
                raise ValueError(
                    f"{predicate!r} is not partition-only; pass remove= explicitly"
                ) from None
        return out

    def sources_of(self, removes: Sequence[Action]) -> list[Action]:
        paths = {r["path"] for r in removes}
        return [f for f in self.live_files() if f["path"] in paths]

    # -- the generic commit -------------------------------------------------------------------

    def commit(
        self,
        operation: str,
        *,
        parameters: Mapping[str, Any] | None = None,
        add: Iterable[Mapping[str, Any]] = (),
        remove: Iterable[str | Mapping[str, Any]] = (),
        metadata: Mapping[str, Any] | None = None,
        protocol: Mapping[str, Any] | None = None,
        data_change: bool = True,
        **options: Unpack[CommitOptions],
    ) -> int:
        """Write the next version with ``operationParameters`` exactly as given."""
        version = self.version + 1
        writer = self.writer_for(options)
        explicit_ts = options.get("timestamp")
        ts = self._tick() if explicit_ts is None else explicit_ts
        removes = [remove_action(self._live_source(r), ts, writer, data_change) for r in remove]
        adds = [add_action(a, ts, writer, data_change, i) for i, a in enumerate(add)]
        params = dict(parameters or {})
        body: list[Action] = []
        if metadata is not None:
            body.append({"metaData": dict(metadata)})
        if protocol is not None:
            at = 0 if writer.family != "databricks" else len(body)
            body.insert(at, {"protocol": dict(protocol)})
        body += [self._stamped(a, ts) for a in options.get("actions", ())]
        body += file_actions_in_order(writer, operation, params.get("mode"), adds, removes)
        actions = body
        if not options.get("omit_commit_info"):
            draft = CommitDraft(
                version=version,
                operation=operation,
                parameters=params,
                adds=adds,
                removes=removes,
                body=body,
                timestamp=ts,
                read_version=options.get("read_version", version - 1 if version > 0 else None),
                context=self._context,
                in_commit_timestamp=self._in_commit_timestamp(ts),
                isolation=options.get("isolation"),
                blind=options.get("blind"),
                metrics=options.get("metrics"),
                extra=options.get("commit_info_extra"),
            )
            actions = [{"commitInfo": commit_info(draft, writer, self)}, *body]
        self._write_version(version, actions, writer, ts)
        if metadata is not None:
            self.metadata = dict(metadata)
        if protocol is not None:
            self.protocol = dict(protocol)
        if self.checkpoint_interval and version > 0:
            offset = 1 if writer.family == "delta-rs" else 0
            if (version + offset) % self.checkpoint_interval == 0:
                self.checkpoint(version)
        return version

    def _write_version(self, version: int, actions: list[Action], writer: Writer, ts: int) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with (self.log_dir / commit_name(version)).open("x", encoding="utf-8") as out:
            text = "\n".join(dumps(a) for a in actions)
            out.write(text if writer.family == "delta-rs" else text + "\n")  # as each engine does
        self.version = version
        self.commits.append(actions)
        self.timestamps.append(ts)
        self._part = 0

    def _tick(self) -> int:
        if self.version >= 0:
            self._now += self._step_ms
        return self._now

    def _in_commit_timestamp(self, ts: int) -> int | None:
        """Monotonic in-commit timestamps when the table property enables them."""
        if self.configuration.get("delta.enableInCommitTimestamps", "").lower() != "true":
            return None
        self._last_ict = ts if self._last_ict is None else max(ts, self._last_ict + 1)
        return self._last_ict

    @staticmethod
    def _stamped(action: Mapping[str, Any], ts: int) -> Action:
        if "txn" not in action:
            return dict(action)
        return {"txn": {**action["txn"], "lastUpdated": action["txn"].get("lastUpdated") or ts}}

    def _live_source(self, r: str | Mapping[str, Any]) -> Mapping[str, Any]:
        if not isinstance(r, str):
            return r
        live = [f for f in self.live_files() if f["path"] == r]
        if not live:
            raise ValueError(f"cannot remove {r!r}: not live at v{self.version}")
        return live[0]

    # -- checkpoints --------------------------------------------------------------------------

    def checkpoint(self, version: int | None = None) -> Path:
        """A classic single-file parquet checkpoint at ``version`` plus ``_last_checkpoint``."""
        v = self.version if version is None else version
        if not 0 <= v <= self.version:
            raise ValueError(f"no version {v} to checkpoint")
        return write_checkpoint(self.log_dir, v, self.commits[: v + 1], self.live_files(version=v))
