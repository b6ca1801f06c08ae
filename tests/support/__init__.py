"""Test support: ``LogBuilder`` writes realistic ``_delta_log`` folders, commit by commit.

Tests and sample tables need logs that look like what Spark, Databricks, delta-rs or Kernel
actually write, because the analyzer's whole job is to read those differences. The builder
picks those shapes from a ``writer`` string (``spark-3.2``, ``databricks-14.3``,
``delta-rs-1.6.6``, ``kernel-java``) and lets every field be overridden. Output is
deterministic: a fixed clock (``step_seconds`` per commit) and a seeded random source for
uuids, expression ids and timings, so golden tests and ``sample_logs/`` stay stable. Only a
local folder is written; ``DeltaTable(path)`` (delta-rs) loads the result even though the
parquet data files do not exist.

This lives with the tests, not in the ``deltaforensics`` package: see docs/testing.md.

Modules, from the statements down:
    builder      LogBuilder: one method per SQL statement, its operationParameters
    alter_table  ALTER TABLE statements and protocol upgrades
    table_log    TableLog: clock, seeded ids, table definition, live files, ``commit``
    writers      the writer model: Writer and the commitInfo each engine records
    metrics      operationMetrics per engine (part of the writer model)
    predicate_text  statement predicates: read with deltaforensics.predicates, printed per engine
    schema       protocol, schema fields and metaData actions
    files        data file names, partition directories, deletion vectors, live adds
    checkpoints  the classic parquet checkpoint writer
"""

from __future__ import annotations

from tests.support.builder import LogBuilder
from tests.support.table_log import DEFAULT_START_MS, CommitOptions
from tests.support.writers import Writer

__all__ = ["DEFAULT_START_MS", "CommitOptions", "LogBuilder", "Writer"]
