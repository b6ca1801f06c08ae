"""``explain --attempt``: would this statement have committed, had it read version N?

A losing transaction leaves nothing in ``_delta_log`` (semantics doc, key finding 1), so the
user tells us what they ran. :func:`attempt_transaction` turns the SQL into the
:class:`~deltaforensics.transactions.Transaction` its commit would have been:

- the ``operation`` and ``operationParameters`` the profile's engine would have written for it
  (Spark: ``DELETE`` + ``predicate`` array, ``WRITE`` + ``mode``/``replaceWhere``/
  ``isDynamicPartitionOverwrite``, ``MERGE`` + clause lists …; delta-rs: plain SQL predicates,
  the derived MERGE target filter, no ``isBlindAppend``), read through the *same* helper as
  committed operations (``transactions.reads_of``), so an attempt and the equivalent commit read
  exactly the same;
- its writes estimated from the snapshot at the read version: DELETE/UPDATE/MERGE remove the
  live files their condition may match (partition values and min/max stats; the whole table
  without one), OPTIMIZE the files it would compact, an INSERT adds one file per partition it
  writes (``writes=``, the PARTITION clause, or literal values in VALUES/SELECT).

:func:`check_attempt` runs the checker against every commit after the read version (the
report turns its verdict into the ``attempts`` entry, and the ``conflicts`` entry of a failing
one); :func:`read_version_at` serves ``--started-at``.

Layout: ``transaction`` (the entry point and its steps), ``context`` (what a plan is made
against), one planner per statement family (``write``: INSERT/overwrite/replaceWhere,
``delete_update``, ``merge``, ``optimize``, ``ddl``: ALTER/TRUNCATE/REPLACE), ``files`` and
``insert_rows`` (the file rows it synthesises), ``verdict``, ``read_version`` and ``specs`` (the
CLI's ``--attempt`` options → verdicts). A sibling of ``evidence`` and ``whatif``: it needs the
checker and the transaction builder, and nothing of either.
"""

from deltaforensics.attempts.files import ATTEMPT_SOURCE, HIVE_NULL
from deltaforensics.attempts.read_version import read_version_at
from deltaforensics.attempts.transaction import attempt_transaction
from deltaforensics.attempts.verdict import check_attempt, writes_nothing

__all__ = [
    "ATTEMPT_SOURCE",
    "HIVE_NULL",
    "attempt_transaction",
    "check_attempt",
    "read_version_at",
    "writes_nothing",
]
