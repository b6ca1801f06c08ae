"""The builder's side of what each engine records for a commit.

What a statement records in ``commitInfo`` comes from the package's one writer model,
``deltaforensics.profiles.statement_writers``, reached as ``Writer.statement_writer`` (the profile chosen
from the commit's ``engineInfo``/``clientVersion``, as for a real log): key order, whether
``isBlindAppend``/``isolationLevel``/``readVersion``/``txnId`` are written, the shape of
``operationParameters``. Kept here, because the package model does not hold them: the Delta-Spark
release gates (``isolationLevel`` from 0.5, ``operationMetrics`` from 0.6, ``txnId`` from 1.2,
the table's isolation property honoured from 2.1; Delta-Spark before 1.0 records no
``engineInfo``, so its release cannot select a profile row), Databricks ``tags`` and workspace
fields, the metrics themselves (``metrics``) and the file-action shapes ``add_action`` /
``remove_action`` / ``file_actions_in_order``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from deltaforensics.model.ids import IsolationLevel
from deltaforensics.profiles import Profile, profile_for
from deltaforensics.profiles.statement_writers import StatementWriter, arranged
from tests.support.files import Action
from tests.support.metrics import operation_metrics

_BLIND_OPERATIONS = frozenset(
    {"WRITE", "STREAMING UPDATE", "CREATE TABLE", "CREATE TABLE AS SELECT", "SET TBLPROPERTIES",
     "UNSET TBLPROPERTIES", "ADD COLUMNS", "ADD COLUMN", "DROP COLUMNS", "RENAME COLUMN",
     "CHANGE COLUMN", "UPGRADE PROTOCOL", "ADD FEATURE", "DROP CONSTRAINT", "SET TRANSACTION"}
)  # fmt: skip
_SPARK_FOR_DELTA = (
    ((4, 0), "4.0.0"), ((3, 0), "3.5.0"), ((2, 4), "3.4.0"), ((2, 1), "3.3.0"),
    ((1, 1), "3.2.0"), ((1, 0), "3.1.0"), ((0, 8), "3.0.0"),
)  # fmt: skip
_DEFAULT_VERSIONS = (
    ("databricks", "14.3"), ("delta-rs", "1.6.6"), ("kernel-java", "3.3.0"), ("spark", "3.2.0"),
)  # fmt: skip


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = tuple(int(p) for p in re.findall(r"\d+", text)[:3])
    return parts + (0,) * (3 - len(parts))


def _dotted(v: tuple[int, ...]) -> str:
    return ".".join(str(p) for p in v)


def _spark_for_delta(delta: tuple[int, ...]) -> str:
    """The Apache Spark release a given Delta-Spark release was built for."""
    return next((spark for floor, spark in _SPARK_FOR_DELTA if delta[:2] >= floor), "2.4.0")


@dataclass(frozen=True, slots=True, kw_only=True)
class Writer:
    """Which engine wrote a commit; decides the commitInfo shape (semantics doc §C).

    ``spark-<delta version>``, ``databricks-<dbr>[-photon]``, ``delta-rs-<python version>``,
    ``kernel-java[-<version>]``; a bare family name picks a recent release.
    """

    family: str  # "spark" | "databricks" | "delta-rs" | "kernel-java"
    version: tuple[int, ...]
    engine_info: str | None
    client_version: str | None = None

    @classmethod
    def parse(cls, spec: str) -> Writer:
        text = spec.strip().lower()
        for family, default in _DEFAULT_VERSIONS:
            if text == family or text.startswith(family + "-"):
                rest = text[len(family) + 1 :] or default
                break
        else:
            raise ValueError(
                f"unknown writer {spec!r}: use spark-, databricks-, delta-rs-, kernel-java"
            )
        v = _version_tuple(rest)
        if family == "spark":
            spark = f"Apache-Spark/{_spark_for_delta(v)} Delta-Lake/{_dotted(v)}"
            return cls(family=family, version=v, engine_info=spark if v >= (1, 0, 0) else None)
        if family == "databricks":
            scala = "2.13" if v[0] >= 17 else "2.12"
            photon = "photon-" if "photon" in rest else ""
            engine = f"Databricks-Runtime/{v[0]}.{v[1]}.x-{photon}scala{scala}"
            return cls(family=family, version=v, engine_info=engine)
        if family == "delta-rs":
            return cls(
                family=family,
                version=v,
                engine_info=f"delta-rs:py-{_dotted(v)}" if v >= (1, 1, 0) else None,
                client_version=f"delta-rs.py-{_dotted(v)}",
            )
        return cls(family=family, version=v, engine_info=f"Kernel-{_dotted(v)}/LogBuilder")

    @property
    def profile(self) -> Profile:
        """The package's profile of this engine, chosen from what it records, as for a real log."""
        return profile_for(self.engine_info, self.client_version)

    @property
    def statement_writer(self) -> StatementWriter:
        """The package's model of what this engine records in commitInfo."""
        return self.profile.writer

    def since(self, *delta: int) -> bool:
        """Whether it has what Delta-Spark release ``delta`` added to commitInfo. Only Delta-Spark
        is gated by release: Delta-Spark before 1.0 records no ``engineInfo``, so its release is
        not in the package's profile and the gate stays here."""
        return self.family != "spark" or self.version >= delta

    @property
    def unified_predicates(self) -> bool:
        """Delta ≥2.4 (and every Databricks runtime we model) logs ``["<simpleString>", ...]``."""
        return self.family == "databricks" or self.version >= (2, 4, 0)

    def workspace_context(self, random_below: Callable[[int], int]) -> dict[str, Any]:
        """The user, notebook and cluster a Databricks workspace records on every commit."""
        if self.family != "databricks":
            return {}
        return {
            "userId": str(4_000_000_000_000_000 + random_below(10**15)),
            "userName": "etl@example.com",
            "notebook": {"notebookId": str(10**15 + random_below(10**15))},
            "clusterId": f"0101-{random_below(10**6):06d}-abc{random_below(10**5):05d}",
        }

    def table_isolation(self, configured: str | None) -> str:
        """The isolation level a data-changing commit records for the table's property (which
        Delta-Spark ignored before 2.1), else the engine's default."""
        if configured and self.since(2, 1):
            return configured
        return self.profile.default_isolation


def databricks_job_context(
    job_id: int | str,
    run_id: int | str,
    *,
    job_name: str = "job",
    cluster_id: str = "0101-120000-jobcl001",
    user_id: str = "4000000000000001",
    user_name: str = "svc-etl@example.com",
    trigger_type: str = "cron",
) -> dict[str, Any]:
    """Databricks commitInfo fields of a job run; pass as ``commit_info_extra``."""
    return {
        "userId": user_id,
        "userName": user_name,
        "job": {
            "jobId": str(job_id),
            "jobName": job_name,
            "jobRunId": str(run_id),
            "runId": str(run_id),
            "jobOwnerId": user_id,
            "triggerType": trigger_type,
        },
        "notebook": None,
        "clusterId": cluster_id,
    }


class TableView(Protocol):
    """What the writer model needs from the table being written (the builder provides it)."""

    @property
    def configuration(self) -> Mapping[str, str]: ...

    def uuid(self) -> str: ...

    def random_below(self, n: int) -> int: ...

    def sources_of(self, removes: Sequence[Action]) -> list[Action]:
        """The live add actions the removes name (their stats count removed rows)."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitDraft:
    """One commit before its commitInfo: the actions and the caller's overrides."""

    version: int
    operation: str
    parameters: Mapping[str, Any]
    adds: Sequence[Action]
    removes: Sequence[Action]
    body: Sequence[Action]  # every action but commitInfo, in file order
    timestamp: int
    read_version: int | None
    context: Mapping[str, Any]  # workspace fields (Databricks userId, notebook, clusterId)
    in_commit_timestamp: int | None
    isolation: str | None = None  # None: what the writer derives
    blind: bool | None = None
    metrics: Mapping[str, Any] | None = None  # merged into operationMetrics
    extra: Mapping[str, Any] | None = None  # merged into commitInfo; a None value drops the key


def add_action(a: Mapping[str, Any], ts: int, writer: Writer, data_change: bool, i: int) -> Action:
    """An add as ``writer`` writes it: Databricks insertion tags, delta-rs explicit nulls."""
    add = {**a, "modificationTime": a.get("modificationTime") or ts, "dataChange": data_change}
    if writer.family == "databricks" and not add.get("tags"):
        t = str(ts * 1000 + i)
        add["tags"] = {
            "INSERTION_TIME": t,
            "MIN_INSERTION_TIME": t,
            "MAX_INSERTION_TIME": t,
            "OPTIMIZE_TARGET_SIZE": "268435456",
        }
    if writer.family == "delta-rs":
        for key in ("tags", "baseRowId", "defaultRowCommitVersion", "clusteringProvider"):
            add.setdefault(key, None)
        return add
    return {k: v for k, v in add.items() if v is not None or k == "stats"}


def remove_action(src: Mapping[str, Any], ts: int, writer: Writer, data_change: bool) -> Action:
    """A remove of the add ``src``, keys in ``writer``'s order."""
    if writer.family == "delta-rs":
        out: Action = {"path": src["path"], "dataChange": data_change, "deletionTimestamp": ts}
    else:
        out = {"path": src["path"], "deletionTimestamp": ts, "dataChange": data_change}
    out |= {
        "extendedFileMetadata": True,
        "partitionValues": src.get("partitionValues", {}),
        "size": src.get("size"),
    }
    if src.get("deletionVector"):
        out["deletionVector"] = src["deletionVector"]
    return out


def file_actions_in_order(
    writer: Writer, operation: str, mode: object, adds: list[Action], removes: list[Action]
) -> list[Action]:
    """delta-rs writes adds first except for OPTIMIZE and overwrites; Spark removes first."""
    if writer.family == "delta-rs" and operation != "OPTIMIZE" and mode != "Overwrite":
        return [{"add": a} for a in adds] + [{"remove": r} for r in removes]
    return [{"remove": r} for r in removes] + [{"add": a} for a in adds]


def _isolation_and_blind(
    draft: CommitDraft, writer: Writer, w: StatementWriter, table: TableView
) -> tuple[str | None, bool | None]:
    """Delta-Spark's choices (semantics doc A.3/A.4) unless the caller overrides them; a
    ``None`` blind value is one the engine does not record."""
    isolation = draft.isolation
    if isolation is None and w.records_isolation_level:
        only_files = all("add" in a or "remove" in a for a in draft.body)
        files = [*draft.adds, *draft.removes]
        no_data_change = bool(files) and only_files and not any(f["dataChange"] for f in files)
        configured = table.configuration.get("delta.isolationLevel")
        isolation = (
            IsolationLevel.SNAPSHOT_ISOLATION
            if no_data_change
            else writer.table_isolation(configured)
        )
    blind = draft.blind
    if blind is None:
        params = draft.parameters
        reads = (
            draft.operation not in _BLIND_OPERATIONS
            or params.get("mode") == "Overwrite"
            or params.get("outputMode") == "Complete"
        )
        blind = w.recorded_blind(not draft.removes and not reads)
    return (None if isolation is None else str(isolation)), blind


def _workspace_fields(
    draft: CommitDraft, writer: Writer, isolation: str | None, metrics: Mapping[str, Any] | None
) -> dict[str, Any]:
    """What Delta-Spark and Databricks add to every commit, by the release that added it."""
    info: dict[str, Any] = {k: v for k, v in draft.context.items() if v is not None}
    if writer.since(0, 5):
        info["isolationLevel"] = str(isolation)
    if writer.since(0, 6):
        info["operationMetrics"] = metrics
    if writer.family == "databricks":
        appended = draft.operation in ("WRITE", "STREAMING UPDATE") and draft.adds
        no_copy = {"noRowsCopied": "true"} if appended and not draft.removes else {}
        info["tags"] = {"restoresDeletedRows": "false"} | no_copy
    return info


def commit_info(draft: CommitDraft, writer: Writer, table: TableView) -> Action:
    """The commitInfo ``writer`` records for ``draft``, keys in the engine's order."""
    w = writer.statement_writer
    isolation, blind = _isolation_and_blind(draft, writer, w, table)
    metrics = operation_metrics(draft, writer, table)
    if metrics is not None:
        metrics |= dict(draft.metrics or {})
    info: dict[str, Any] = {
        "timestamp": draft.timestamp,
        "operation": draft.operation,
        "operationParameters": w.operation_parameters(draft.parameters),
    }
    rv = draft.read_version
    if rv is not None and rv >= 0 and w.records_read_version(draft.operation):
        info["readVersion"] = rv
    if w.records_isolation_level:
        info |= _workspace_fields(draft, writer, isolation, metrics)
    else:  # engines that never write an isolation level: only when asked for
        info |= {"isolationLevel": str(isolation)} if draft.isolation is not None else {}
        info |= {"operationMetrics": metrics} if metrics else {}
    if blind is not None:
        info["isBlindAppend"] = bool(blind)
    if w.records_txn_id and writer.since(1, 2):
        info["txnId"] = table.uuid()
    if writer.client_version is not None:
        info["clientVersion"] = writer.client_version
    if writer.engine_info:
        info["engineInfo"] = writer.engine_info
    if draft.in_commit_timestamp is not None:
        info["inCommitTimestamp"] = draft.in_commit_timestamp
    for key, value in (draft.extra or {}).items():
        if value is None:
            info.pop(key, None)
        else:
            info[key] = value
    return arranged(w, info)
