"""``LogBuilder``: SQL statements as the commits each engine writes for them.

Every method is one statement (CREATE, WRITE, DELETE, UPDATE, MERGE, OPTIMIZE, ALTER TABLE ...)
and returns the version it wrote. It decides the statement's ``operationParameters`` for the
commit's writer and which files it removes by default; ``TableLog.commit`` does the rest.

    b = LogBuilder(tmp_path, columns={"id": "long", "date": "string"}, partition_by=["date"])
    b.create()                                                    # v0
    b.write(add=[b.file("date=A"), b.file("date=B")])             # v1, a blind append
    b.write(add=[b.file("date=A")])                               # v2, another one
    b.delete("date = 'A' AND id = 5", read_version=1,             # v3, rebased over v2
             remove=[b.live_files("date=A")[0]["path"]], add=[b.file("date=A")])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
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

    def render_predicate(
        self, operation: str, text: str | None, *, writer: Writer | None = None
    ) -> str:
        """``operationParameters.predicate`` for DELETE/UPDATE/OPTIMIZE as ``writer`` logs it."""
        w = writer or self.writer
        if w.family == "delta-rs":
            if operation == "OPTIMIZE":
                return "[]"
            return delta_rs_sql(read_statement_predicate(text)) if text else ""
        if text is None:
            return "[]"
        try:
            pred = read_statement_predicate(text)
        except ValueError:
            return dumps([text])
        parts = conjuncts(pred) if operation == "OPTIMIZE" else (pred,)
        if w.family == "kernel-java" or w.unified_predicates:
            ids = self.next_expr_ids()
            return dumps([spark_simple_string(p, ids) for p in parts])
        if operation == "UPDATE":  # Delta <2.4: bare toString, ids included
            return spark_simple_string(pred, self.next_expr_ids())
        return dumps([spark_sql(p, self.columns, w.version < (1, 0, 0)) for p in parts])

    @staticmethod
    def _clause(clause: Clause, render: Callable[[Predicate], str] | None) -> dict[str, str]:
        """A WHEN clause as logged; ``render`` prints its condition (None: keep the text)."""
        action, condition = (clause, None) if isinstance(clause, str) else clause
        if condition is None:
            return {"actionType": action}
        if render is None:
            return {"actionType": action, "predicate": condition}
        try:
            pred = read_statement_predicate(condition)
        except ValueError:
            return {"predicate": condition, "actionType": action}
        return {"predicate": render(pred), "actionType": action}

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
        """delta-rs leaves ``predicate`` out when there is none; Spark always writes one."""
        if predicate or w.family != "delta-rs":
            return {"predicate": self.render_predicate(operation, predicate, writer=w)}
        return {}

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
        clauses = {"matchedPredicates": matched, "notMatchedPredicates": not_matched,
                   "notMatchedBySourcePredicates": not_matched_by_source}  # fmt: skip
        try:
            on_pred: Predicate | None = read_statement_predicate(on)
        except ValueError:
            on_pred = None
        if w.family == "delta-rs":
            params = self._delta_rs_merge_parameters(on, on_pred, clauses, target_alias)
        else:
            params = self._spark_merge_parameters(on, on_pred, clauses, w, target_alias)
        return self.commit("MERGE", parameters=params, add=add, remove=remove, **options)

    def _delta_rs_merge_parameters(
        self,
        on: str,
        on_pred: Predicate | None,
        clauses: Mapping[str, Sequence[Clause]],
        target_alias: str,
    ) -> dict[str, Any]:
        """delta-rs logs the ON text as ``mergePredicate`` and clause conditions as written."""
        params: dict[str, Any] = {}
        literal = self._partition_literals(on_pred, target_alias)
        if literal:
            params["predicate"] = delta_rs_sql(
                And(tuple(literal)) if len(literal) > 1 else literal[0]
            )
        for key, items in clauses.items():
            params[key] = dumps([self._clause(c, None) for c in items])
        params["mergePredicate"] = on
        return params

    def _spark_merge_parameters(
        self,
        on: str,
        on_pred: Predicate | None,
        clauses: Mapping[str, Sequence[Clause]],
        w: Writer,
        target_alias: str,
    ) -> dict[str, Any]:
        """Spark logs the ON condition and clause conditions in its own predicate form."""
        params: dict[str, Any] = {}
        ids = self.next_expr_ids(target_alias)

        def condition(pred: Predicate) -> str:
            if w.unified_predicates:
                return spark_simple_string(pred, ids)
            return spark_sql(pred, self.columns, w.version < (1, 0, 0))

        if on_pred is None:
            params["predicate"] = dumps([on])
        else:  # Delta <2.4 logged the MERGE condition unwrapped
            text = condition(on_pred)
            params["predicate"] = dumps([text]) if w.unified_predicates else text
        for key, items in clauses.items():
            old_spark = w.family == "spark" and w.version < (2, 3, 0)
            if key == "notMatchedBySourcePredicates" and old_spark:
                continue
            params[key] = dumps([self._clause(c, condition) for c in items])
        if w.family == "databricks":
            params |= {"clusterBy": "[]", "statsOnLoad": False}
        return params

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
        params: dict[str, Any]
        if w.family == "delta-rs":
            params = {"predicate": "[]", "targetSize": "104857600"}
            options.setdefault("metrics", {"plannerStrategy": "zOrder"} if zorder else {})
        else:
            params = {
                "predicate": self.render_predicate("OPTIMIZE", where, writer=w),
                "zOrderBy": dumps(list(zorder)),
            }
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
