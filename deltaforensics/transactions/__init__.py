"""Per commit: what the transaction read and wrote, as far as the log can tell.

- :mod:`.record`: the :class:`Transaction`; :mod:`.parts`: its parts (:class:`Read`,
  :class:`TableAtRead`, :class:`Writes`, :class:`Provenance`), which callers read;
- :mod:`.builder`: the one place transactions are made, for committed commits and attempted
  statements alike; :mod:`.committed`: a history's transactions, made when asked for, and
  :mod:`.facts`: the same history as columns, for questions about every commit;
- the semantics it uses: :mod:`.commits` (the commit table's rows, read versions),
  :mod:`.isolation`, :mod:`.reads` (read predicates), :mod:`.metadata_change`,
  :mod:`.operations`;
- the speed memos, apart: :mod:`.memos` (pure caches, ``AsOf``) and :mod:`.commit_history` (the
  per-history lookups);
"""

from deltaforensics.transactions.builder import attempted_transaction
from deltaforensics.transactions.committed import CommittedTransactions, reconstruct_transactions
from deltaforensics.transactions.facts import CommitFacts
from deltaforensics.transactions.isolation import effective_isolation
from deltaforensics.transactions.operations import (
    CHANGES_DATA,
    COMMIT_LARGE_OPERATIONS,
    WHOLE_TABLE_OPERATIONS,
)
from deltaforensics.transactions.parts import (
    MetadataChange,
    Provenance,
    Read,
    Reads,
    TableAtRead,
    Writes,
)
from deltaforensics.transactions.reads import reads_matching, reads_of
from deltaforensics.transactions.record import Transaction

__all__ = [
    "CHANGES_DATA",
    "COMMIT_LARGE_OPERATIONS",
    "WHOLE_TABLE_OPERATIONS",
    "CommitFacts",
    "CommittedTransactions",
    "MetadataChange",
    "Provenance",
    "Read",
    "Reads",
    "TableAtRead",
    "Transaction",
    "Writes",
    "attempted_transaction",
    "effective_isolation",
    "reads_matching",
    "reads_of",
    "reconstruct_transactions",
]
