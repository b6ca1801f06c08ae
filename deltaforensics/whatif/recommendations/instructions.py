"""How to apply a change to *this* table, in the spelling its writers' engines understand.

Engine facts this module encodes (semantics doc §A.4, §A.9, §A.11, §F; field notes §3.4):

- delta-rs parses ``delta.isolationLevel`` camelCase only: ``WriteSerializable`` is silently
  ignored (the table stays Serializable), ``writeSerializable`` is honoured; Spark parses the
  value case-insensitively, so ``writeSerializable`` is the spelling every engine reads.
- delta-rs never writes ``isBlindAppend``; WriteSerializable skips its appends only when they
  pass ``CommitProperties(custom_metadata={"isBlindAppend": True})``.
- open-source Delta (≥ 2.1) validates the property when it is *set* and accepts only
  ``Serializable``; it honours ``WriteSerializable`` already present in the metadata.
- row-level concurrency is Databricks-only; changing partitioning or clustering of a
  partitioned table rewrites it (a metadata commit that fails concurrent writers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deltaforensics.model.ids import IsolationLevel
from deltaforensics.predicates.ir import (
    And,
    Column,
    Compare,
    Literal,
    Predicate,
    conjuncts,
    map_columns,
    quote_identifier,
)
from deltaforensics.predicates.partition import written_partitions_predicate
from deltaforensics.profiles import Profile
from deltaforensics.replay import Replay
from deltaforensics.transactions import Transaction
from deltaforensics.whatif.scenario import (
    Change,
    DeletionVectors,
    ExplicitMergePredicates,
    IsolationChange,
    Liquid,
    MarkBlindAppends,
    PartitionBy,
    SeparateSchedules,
)
from deltaforensics.whatif.transaction_edits import touched_partitions

QUIET_WINDOW = "-- run in a quiet window: this commit fails every writer running concurrently\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class TableFacts:
    """What advice depends on: the table's name and which engines write to it."""

    name: str  # a SQL name: metadata name or delta.`<uri>`
    uri: str
    profiles: tuple[Profile, ...]  # the distinct writer profiles after table creation
    partition_columns: tuple[str, ...]
    columns: tuple[str, ...]
    isolation_property: str | None
    deletion_vectors: bool
    clustered: bool

    @classmethod
    def of(cls, replay: Replay, transactions: Sequence[Transaction]) -> TableFacts:
        snap = replay.snapshot_at(replay.end_version)
        md = snap.metadata
        name = md.name or f"delta.`{replay.uri.replace('`', '``')}`"
        return cls(
            name=name,
            uri=replay.uri,
            profiles=tuple(
                {
                    t.provenance.profile.name: t.provenance.profile
                    for t in transactions
                    if t.version != 0
                }.values()
            ),
            partition_columns=md.partition_columns,
            columns=tuple(md.column_types),
            isolation_property=md.configuration.get("delta.isolationLevel"),
            deletion_vectors=md.configuration.get("delta.enableDeletionVectors", "").lower()
            == "true",
            clustered=bool(snap.clustering_columns),
        )

    @property
    def delta_rs(self) -> bool:
        """A writer reads only the camelCase spelling of ``delta.isolationLevel`` (delta-rs)."""
        return any(p.camel_case_isolation_only for p in self.profiles)

    @property
    def spark(self) -> bool:
        """A writer changes the table with Spark SQL DDL."""
        return any(p.spark_sql for p in self.profiles)

    @property
    def oss_only(self) -> bool:
        """Spark writers are all open-source Delta (nothing can *set* WriteSerializable)."""
        return any(p.refuses_to_set_write_serializable for p in self.profiles) and not any(
            p.default_isolation is IsolationLevel.WRITE_SERIALIZABLE for p in self.profiles
        )


def isolation_value(facts: TableFacts) -> str:
    """The spelling of WriteSerializable every writer of this table parses."""
    return "writeSerializable" if facts.delta_rs else "WriteSerializable"


def _cols(columns: Sequence[str]) -> str:
    return ", ".join(quote_identifier(c) for c in columns)


def _rewrite(facts: TableFacts, layout: str) -> str:
    """Replace the table with itself under a new layout (advice text, never executed here)."""
    sql = f"REPLACE TABLE {facts.name} USING DELTA {layout} AS SELECT * FROM {facts.name}"  # noqa: S608
    return QUIET_WINDOW + sql


def rewrites_table(change: Change, partition_columns: Sequence[str]) -> bool:
    """Whether applying ``change`` rewrites every file of the table (a commit that fails every
    writer running concurrently): a new partitioning (``REPLACE TABLE … PARTITIONED BY`` / a
    delta-rs overwrite), and liquid clustering of a partitioned table (Delta cannot ``ALTER`` a
    partitioned table to clustering; ``REPLACE TABLE … CLUSTER BY``). ``ALTER TABLE … CLUSTER
    BY`` on an unpartitioned table only records the clustering columns (later writes and
    OPTIMIZE cluster), and table properties, statements and schedules rewrite nothing."""
    if isinstance(change, PartitionBy):
        return True
    return isinstance(change, Liquid) and bool(partition_columns)


def apply_text(
    change: Change, facts: TableFacts, transactions: Sequence[Transaction]
) -> str | None:
    """The exact SQL / code to apply ``change``; None when it cannot be applied as such."""
    if isinstance(change, IsolationChange):
        return _isolation(change, facts)
    if isinstance(change, ExplicitMergePredicates):
        return _merge(transactions, facts)
    if isinstance(change, PartitionBy):
        spark = _rewrite(facts, f"PARTITIONED BY ({_cols(change.columns)})")
        rs = (
            f"# in a quiet window (the overwrite fails every concurrent writer)\n"
            f"write_deltalake({facts.uri!r}, DeltaTable({facts.uri!r}).to_pyarrow_table(), "
            f'mode="overwrite", partition_by={list(change.columns)!r}, schema_mode="overwrite")'
        )
        return spark if facts.spark else rs
    if isinstance(change, Liquid):
        if facts.partition_columns:
            return _rewrite(facts, f"CLUSTER BY ({_cols(change.columns)})")
        return f"ALTER TABLE {facts.name} CLUSTER BY ({_cols(change.columns)})"
    if isinstance(change, DeletionVectors):
        return f"ALTER TABLE {facts.name} SET TBLPROPERTIES ('delta.enableDeletionVectors' = true)"
    if isinstance(change, SeparateSchedules):
        return schedule_text(change)
    if isinstance(change, MarkBlindAppends):
        return (
            "# only for appends that read nothing from the table\n"
            'write_deltalake(table, data, mode="append", '
            'commit_properties=CommitProperties(custom_metadata={"isBlindAppend": True}))'
        )
    return None


def _isolation(change: IsolationChange, facts: TableFacts) -> str | None:
    value = change.level
    if facts.oss_only and value.lower() == "writeserializable":
        return None  # open-source Delta refuses to set it
    rs_line = (
        f"DeltaTable({facts.uri!r}).alter.set_table_properties("
        f'{{"delta.isolationLevel": "{value}"}})'
    )
    sql = f"ALTER TABLE {facts.name} SET TBLPROPERTIES ('delta.isolationLevel' = '{value}')"
    if facts.delta_rs and facts.spark:
        return f"{sql}\n# or from Python (delta-rs reads only this camelCase spelling):\n{rs_line}"
    return rs_line if facts.delta_rs else sql


def schedule_text(change: SeparateSchedules) -> str:
    a, b = change.writer_a, change.writer_b
    if a == b:
        return (
            f"Never run two instances of {a} at once: one running query per checkpoint "
            "(stop the duplicate), or max_concurrent_runs = 1 for a job."
        )
    return (
        f"Schedule {a} and {b} so they never overlap: chain them in one workflow (one task "
        "depends on the other) or give them disjoint time windows."
    )


def _qualified(pred: Predicate, alias: str) -> Predicate:
    return map_columns(pred, lambda c: Column(c.name, alias))


def _on_clause(t: Transaction) -> str:
    """The MERGE ON condition as written by the user, as far as the log shows it."""
    recorded = t.provenance.parameters.get("mergePredicate")
    if isinstance(recorded, str) and recorded:
        return recorded  # delta-rs keeps the original ON text
    pred = t.read.reads.full_predicate
    if pred is None:
        return "<your ON condition>"

    def requalify(p: Predicate) -> Predicate:
        if (
            isinstance(p, Compare)
            and isinstance(p.left, Column)
            and isinstance(p.right, Column)
            and p.left.qualifier is None
            and p.right.qualifier is None
        ):
            return Compare(p.op, Column(p.left.name, "t"), Column(p.right.name, "s"))
        return p

    parts = [requalify(c) for c in conjuncts(pred)]
    return (And(tuple(parts)) if len(parts) > 1 else parts[0]).to_sql() if parts else "TRUE"


def _merge(transactions: Sequence[Transaction], facts: TableFacts) -> str | None:
    merges = [t for t in transactions if t.provenance.operation == "MERGE"]
    if not merges or not facts.partition_columns:
        return None
    # a commit or a statement the user gave, not the stand-in of an error's failed statement
    named = [t for t in merges if t.version is not None or t.provenance.statement]
    last = (named or merges)[-1]
    touched = touched_partitions(last)
    if not touched:
        return None
    literal = _qualified(written_partitions_predicate(touched), "t")
    if len(touched) > 1 and len(facts.partition_columns) == 1:
        col = facts.partition_columns[0]
        values = ", ".join(Literal(row.get(col)).to_sql() for row in touched)
        literal_sql = f"t.{quote_identifier(col)} IN ({values})"
    else:
        literal_sql = literal.to_sql()
    on = f"{_on_clause(last)} AND {literal_sql}"
    note = (
        f"-- {last.name} touched {', '.join(_part(r) for r in touched)}; derive the literal "
        "from each batch (SELECT DISTINCT of the partition column of the source) and inline it:\n"
        "-- Delta prunes only on literal conjuncts on partition columns, not on join columns"
    )
    if not last.provenance.profile.sql_statements:
        return (
            f"# {last.name} touched {', '.join(_part(r) for r in touched)}\n"
            f'dt.merge(source, predicate={on!r}, source_alias="s", target_alias="t")'
        )
    return f"{note}\nMERGE INTO {facts.name} t USING <source> s\nON {on}"


def _part(row: dict[str, str | None]) -> str:
    return ", ".join(f"{k}={'null' if v in (None, '') else v}" for k, v in row.items())
