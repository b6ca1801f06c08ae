"""Failed statements harvested from Spark's records, as conflicts of analysed tables.

Pure: recognising a conflict (the ``--error`` evidence's reading), matching it to a table and
de-duplicating (:mod:`.matching`) over the values of :mod:`.records`. The readers that make
``FailedStatement`` values from event logs and driver logs are :mod:`deltaforensics.sources`.
"""

from deltaforensics.failures.matching import deduplicate, harvest_conflicts, normalize_location
from deltaforensics.failures.records import (
    CommitFacts,
    FailedStatement,
    Harvest,
    HarvestedConflict,
    SourceDiagnostic,
    SourceKind,
    TableCommits,
)

__all__ = [
    "CommitFacts",
    "FailedStatement",
    "Harvest",
    "HarvestedConflict",
    "SourceDiagnostic",
    "SourceKind",
    "TableCommits",
    "deduplicate",
    "harvest_conflicts",
    "normalize_location",
]
