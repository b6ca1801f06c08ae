"""``LogBuilder``: SQL statements as the commits each engine writes for them.

Every method is one statement (CREATE, WRITE, DELETE, UPDATE, MERGE, OPTIMIZE, ALTER TABLE ...)
and returns the version it wrote. It decides which files a statement removes by default and
prints its conditions (``predicate_text``); the shape of DELETE/UPDATE/MERGE/OPTIMIZE
``operationParameters`` comes from the package's writer model (``Writer.statement_writer``),
the one the attempt simulator uses. Builder-side, as release details the model does not hold:
Spark before 2.4 printing conditions unwrapped (MERGE) or bare (UPDATE), no
``notMatchedBySourcePredicates`` before Delta 2.3, ``clusterBy``/``auto`` from 3.1, Databricks
``clusterBy``/``statsOnLoad``, and CREATE/WRITE parameters. ``TableLog.commit`` does the rest.

    b = LogBuilder(tmp_path, columns={"id": "long", "date": "string"}, partition_by=["date"])
    b.create()                                                    # v0
    b.write(add=[b.file("date=A"), b.file("date=B")])             # v1, a blind append
    b.write(add=[b.file("date=A")])                               # v2, another one
    b.delete("date = 'A' AND id = 5", read_version=1,             # v3, rebased over v2
             remove=[b.live_files("date=A")[0]["path"]], add=[b.file("date=A")])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Unpack

from deltaforensics.predicates import And, Column, Compare, Literal, Predicate
from tests.support.alter_table import AlterTable
from tests.support.files import Action, dumps, stats_rows
from tests.support.predicate_text import (
    conjuncts,
    delta_rs_sql,
    read_statement_predicate,
    spark_simple_string,
    spark_sql,
)
from tests.support.table_log import CommitOptions
from tests.support.writers import Writer, databricks_job_context

_DBR_STATS_ON_LOAD_OPS = frozenset({"WRITE", "CREATE TABLE", "CREATE TABLE AS SELECT", "MERGE"})
Clause = str | tuple[str, str]  # an action type, or (action type, condition)


@dataclass(frozen=True, slots=True, kw_only=True)
class WhenClause:
    """A WHEN clause as the package's writer model reads one (``MergeClause``)."""

    kind: str  # "matched" | "not_matched" | "not_matched_by_source"
    action: str
    condition: str | None  # as the writer prints it
    original: str | None  # as written


@dataclass(frozen=True, slots=True, kw_only=True)
class MergeParts:
    """A MERGE as the package's writer model reads one (``MergeStatement``)."""

    condition: str | None  # the ON condition as the writer prints it
    target_only_on: str | None  # its target-partition = literal conjuncts (delta-rs' predicate)
    merge_on: str | None  # as written
    clauses: tuple[WhenClause, ...]
    has_not_matched_by_source: bool


class LogBuilder(AlterTable):
    """Write a ``_delta_log`` commit by commit; every method returns the version it wrote.

    File actions come from :meth:`file` (fresh adds) and :meth:`live_files` (what is there to
    remove). ``remove=`` takes paths of live files or add dicts; an add dict is removed even if
    it is no longer live, which is how a double remove (silent duplication) is written.
    """

    job_context = staticmethod(databricks_job_context)

    # -- action helpers -----------------------------------------------------------------------

    def txn(self, app_id: str, version: int, *, last_updated: int | None = None) -> Action:
        """A SetTransaction action (streaming sink, idempotent ``txnAppId``/``txnVersion``);
        pass it in ``actions=``. ``lastUpdated`` defaults to the commit's timestamp."""
        return {"txn": {"appId": app_id, "version": version, "lastUpdated": last_updated}}

    def domain(
        self, domain: str, configuration: str | Mapping[str, Any], *, removed: bool = False
    ) -> Action:
        conf = configuration if isinstance(configuration, str) else dumps(configuration)
        return {"domainMetadata": {"domain": domain, "configuration": conf, "removed": removed}}

    # -- predicates in the writer's form -------------------------------------------------------

    def _printed(self, operation: str, text: str, w: Writer) -> list[str] | str:
        """A DELETE/UPDATE/OPTIMIZE condition as ``w`` prints it: one entry (one per conjunct
        for Spark's OPTIMIZE), or the bare text Delta <2.4 logged for UPDATE."""
        if w.family == "delta-rs":
            return [delta_rs_sql(read_statement_predicate(text))] if text else []
        try:
            pred = read_statement_predicate(text)
        except ValueError:
            return [text]
        parts = conjuncts(pred) if operation == "OPTIMIZE" else (pred,)
        if w.family == "kernel-java" or w.unified_predicates:
            ids = self.next_expr_ids()
            return [spark_simple_string(p, ids) for p in parts]
        if operation == "UPDATE":  # Delta <2.4: bare toString, ids included
            return spark_simple_string(pred, self.next_expr_ids())
        return [spark_sql(p, self.columns, w.version < (1, 0, 0)) for p in parts]

    @staticmethod
    def _when(kind: str, clause: Clause, printer: Callable[[str], str] | None) -> WhenClause:
        """A WHEN clause; ``printer`` prints its condition as the writer logs it (None: as written)."""
        action, condition = (clause, None) if isinstance(clause, str) else clause
        printed = printer(condition) if printer and condition is not None else condition
        return WhenClause(kind=kind, action=action, condition=printed, original=condition)

    def _partition_literals(self, on: Predicate | None, target_alias: str) -> list[Predicate]:
        """The ON conjuncts delta-rs turns into its ``predicate``: target partition = literal."""

        def target_partition(s: object) -> bool:
            return (
                isinstance(s, Column)
                and s.qualifier == target_alias
                and s.name in self.partition_by
            )

        return [
            c
            for c in (conjuncts(on) if on is not None else ())
            if isinstance(c, Compare)
            and c.op == "="
            and any(target_partition(s) for s in (c.left, c.right))
            and any(isinstance(s, Literal) for s in (c.left, c.right))
        ]

    # -- operations ---------------------------------------------------------------------------

    def create(
        self,
        *,
        add: Iterable[Mapping[str, Any]] = (),
        operation: str | None = None,
        mode: str = "ErrorIfExists",
        **options: Unpack[CommitOptions],
    ) -> int:
        """Version 0: commitInfo + protocol + metaData (+ adds for CTAS / first write)."""
        if self.version >= 0:
            raise ValueError("table already created")
        adds = list(add)
        w = self.writer_for(options)
        op = operation or ("WRITE" if adds else "CREATE TABLE")
        partition_by = dumps(list(self.partition_by))
        params: dict[str, Any]
        if op == "WRITE":
            params = {"mode": mode, "partitionBy": partition_by}
        elif w.family == "delta-rs":
            params = {
                "mode": mode,
                "protocol": dumps(self.protocol),
                "metadata": dumps(self.metadata),
            }
        else:
            params = {"partitionBy": partition_by}
            if w.family == "databricks" or w.version >= (3, 1, 0):
                params["clusterBy"] = "[]"
            params |= {
                "description": None,
                "isManaged": "false",
                "properties": dumps(self.configuration),
            }
        if w.family == "databricks" and op in _DBR_STATS_ON_LOAD_OPS:
            params["statsOnLoad"] = False
        options.setdefault("read_version", None)
        return self.commit(
            op,
            parameters=params,
            add=adds,
            metadata=self.metadata,
            protocol=self.protocol,
            **options,
        )

    def write(
        self,
        *,
        add: Iterable[Mapping[str, Any]] = (),
        remove: Iterable[str | Mapping[str, Any]] | None = None,
        mode: str = "Append",
        predicate: str | None = None,
        dynamic_partition_overwrite: bool = False,
        **options: Unpack[CommitOptions],
    ) -> int:
        """WRITE (DataFrame write / INSERT). ``mode="Overwrite"`` with ``remove=None`` removes
        what was live at ``read_version`` (so a stale overwrite leaves newer files alive),
        restricted to ``predicate`` (replaceWhere) or to the partitions written (dynamic)."""
        adds = list(add)
        at = options.get("read_version")
        if remove is None:
            if mode != "Overwrite":
                remove = ()
            elif dynamic_partition_overwrite:
                wanted = {dumps(a["partitionValues"]) for a in adds}
                remove = [
                    f for f in self.live_files(version=at) if dumps(f["partitionValues"]) in wanted
                ]
            else:
                remove = self.matching_files(predicate, version=at)
        w = self.writer_for(options)
        params: dict[str, Any] = {"mode": mode, "partitionBy": dumps(list(self.partition_by))}
        if predicate is not None:
            params["predicate"] = (
                delta_rs_sql(read_statement_predicate(predicate))
                if w.family == "delta-rs"
                else predicate
            )
        if dynamic_partition_overwrite:
            params["isDynamicPartitionOverwrite"] = True
        if w.family == "databricks":
            params["statsOnLoad"] = False
        return self.commit("WRITE", parameters=params, add=adds, remove=remove, **options)

    def streaming_update(
        self,
        query_id: str,
        epoch_id: int,
        *,
        add: Iterable[Mapping[str, Any]] = (),
        remove: Iterable[str | Mapping[str, Any]] = (),
        output_mode: str = "Append",
        **options: Unpack[CommitOptions],
    ) -> int:
        """A streaming micro-batch: ``STREAMING UPDATE`` + ``txn(appId=query_id, version=epoch)``."""
        params = {"outputMode": output_mode, "queryId": query_id, "epochId": str(epoch_id)}
        options["actions"] = [self.txn(query_id, epoch_id), *options.get("actions", ())]
        return self.commit("STREAMING UPDATE", parameters=params, add=add, remove=remove, **options)

    def delete(
        self,
        predicate: str | None = None,
        *,
        remove: Iterable[str | Mapping[str, Any]] | None = None,
        add: Iterable[Mapping[str, Any]] = (),
        **options: Unpack[CommitOptions],
    ) -> int:
        """DELETE; ``remove=None`` needs a partition-only predicate (a metadata-only delete)."""
        if remove is None:
            remove = self.matching_files(predicate, version=options.get("read_version"))
        params = self._predicate_parameter("DELETE", predicate, self.writer_for(options))
        return self.commit("DELETE", parameters=params, add=add, remove=remove, **options)

    def update(
        self,
        predicate: str | None = None,
        *,
        remove: Iterable[str | Mapping[str, Any]] = (),
        add: Iterable[Mapping[str, Any]] = (),
        **options: Unpack[CommitOptions],
    ) -> int:
        params = self._predicate_parameter("UPDATE", predicate, self.writer_for(options))
        return self.commit("UPDATE", parameters=params, add=add, remove=remove, **options)

    def _predicate_parameter(
        self, operation: str, predicate: str | None, w: Writer
    ) -> dict[str, Any]:
        """DELETE/UPDATE parameters: the condition printed by the builder, shaped by the
        package's writer model."""
        if predicate is None:
            return w.statement_writer.condition_parameters(None)
        printed = self._printed(operation, predicate, w)
        if isinstance(printed, str):
            return {"predicate": printed}
        return w.statement_writer.condition_parameters(printed[0] if printed else None)

    def merge(
        self,
        on: str,
        *,
        remove: Iterable[str | Mapping[str, Any]] = (),
        add: Iterable[Mapping[str, Any]] = (),
        matched: Sequence[Clause] = ("update",),
        not_matched: Sequence[Clause] = ("insert",),
        not_matched_by_source: Sequence[Clause] = (),
        target_alias: str = "t",
        source_alias: str = "s",
        **options: Unpack[CommitOptions],
    ) -> int:
        """MERGE INTO target ``t`` USING source ``s`` ON ``on``; clauses are action types or
        ``(action, condition)`` pairs, e.g. ``matched=[("delete", "s.op = 'D'"), "update"]``."""
        del source_alias  # any qualifier other than the target alias is the source
        w = self.writer_for(options)
        try:
            on_pred: Predicate | None = read_statement_predicate(on)
        except ValueError:
            on_pred = None
        printer = None if w.family == "delta-rs" else self._spark_printer(w, target_alias)
        literal = self._partition_literals(on_pred, target_alias)
        statement = MergeParts(
            condition=printer(on) if printer else on,
            target_only_on=(
                delta_rs_sql(And(tuple(literal)) if len(literal) > 1 else literal[0])
                if literal
                else None
            ),
            merge_on=on,
            clauses=tuple(
                self._when(kind, c, printer)
                for kind, items in (
                    ("matched", matched),
                    ("not_matched", not_matched),
                    ("not_matched_by_source", not_matched_by_source),
                )
                for c in items
            ),
            has_not_matched_by_source=bool(not_matched_by_source),
        )
        params = w.statement_writer.merge_parameters(statement)
        if printer is not None:
            params |= self._spark_merge_era(w, statement, parsed=on_pred is not None)
            if w.family == "spark" and w.version < (2, 3, 0):  # no NOT MATCHED BY SOURCE yet
                params.pop("notMatchedBySourcePredicates")
        return self.commit("MERGE", parameters=params, add=add, remove=remove, **options)

    def _spark_printer(self, w: Writer, target_alias: str) -> Callable[[str], str]:
        """How Spark prints one MERGE condition (fresh expression ids for the query)."""
        ids = self.next_expr_ids(target_alias)

        def printed(text: str) -> str:
            try:
                pred = read_statement_predicate(text)
            except ValueError:
                return text
            if w.unified_predicates:
                return spark_simple_string(pred, ids)
            return spark_sql(pred, self.columns, w.version < (1, 0, 0))

        return printed

    @staticmethod
    def _spark_merge_era(w: Writer, statement: MergeParts, *, parsed: bool) -> dict[str, Any]:
        """What a Spark MERGE logs beyond the package's model: Delta <2.4 its ON condition
        unwrapped, Databricks ``clusterBy`` and ``statsOnLoad``."""
        out: dict[str, Any] = {}
        if not w.unified_predicates and parsed:
            out["predicate"] = statement.condition
        if w.family == "databricks":
            out |= {"clusterBy": "[]", "statsOnLoad": False}
        return out

    def optimize(
        self,
        where: str | None = None,
        *,
        zorder: Sequence[str] = (),
        remove: Iterable[str | Mapping[str, Any]] | None = None,
        add: Iterable[Mapping[str, Any]] | None = None,
        auto: bool = False,
        **options: Unpack[CommitOptions],
    ) -> int:
        """OPTIMIZE [WHERE] [ZORDER BY]: dataChange=false everywhere, SnapshotIsolation, not blind.

        Defaults compact every live file matching ``where`` into one new file per partition.
        """
        at = options.get("read_version")
        removes = list(self.matching_files(where, version=at) if remove is None else remove)
        if add is None:
            add = self._compacted(removes)
        if not removes:
            raise ValueError("nothing to compact: no live files match")
        w = self.writer_for(options)
        params = w.statement_writer.optimize_parameters(None, zorder)
        if w.family == "delta-rs":
            options.setdefault("metrics", {"plannerStrategy": "zOrder"} if zorder else {})
        else:
            if where is not None:  # Spark logs its WHERE one entry per conjunct
                params["predicate"] = dumps(self._printed("OPTIMIZE", where, w))
            if w.family == "databricks" or w.version >= (3, 1, 0):
                params |= {"clusterBy": "[]", "auto": auto}
        return self.commit(
            "OPTIMIZE", parameters=params, add=add, remove=removes, data_change=False, **options
        )

    def _compacted(self, removes: Sequence[str | Mapping[str, Any]]) -> list[Action]:
        """One new file per partition holding the rows of ``removes`` (paths or add dicts)."""
        groups: dict[str, list[Mapping[str, Any]]] = {}
        for r in removes:
            src = (
                r
                if isinstance(r, Mapping)
                else next(f for f in self.live_files() if f["path"] == r)
            )
            groups.setdefault(dumps(src["partitionValues"]), []).append(src)
        out = []
        for members in groups.values():
            logical = {
                c: members[0]["partitionValues"].get(self.physical_name(c))
                for c in self.partition_by
            }
            rows = sum(stats_rows(m) for m in members)
            size = sum(m.get("size") or 0 for m in members) * 9 // 10
            out.append(self.file(logical, rows=rows, size=size))
        return out
