"""Evidence about conflicts beyond the commits themselves.

- ``error_text``: the exception text a losing transaction left in a job's output (the loser
  writes nothing to ``_delta_log``) → ``ConflictEvidence`` naming the winner. Pure: stdlib only.
- ``anomalies``: oddities visible in the log alone (imported on its own; it needs polars).
"""

from deltaforensics.evidence.conflict_evidence import ConflictEvidence
from deltaforensics.evidence.conflicting_commit import normalize_operation_parameters
from deltaforensics.evidence.error_text import extract_conflicts

__all__ = ["ConflictEvidence", "extract_conflicts", "normalize_operation_parameters"]
