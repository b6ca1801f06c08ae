"""Engine profiles: everything that differs between engines and their versions, as data.

Which checks run in which order (:mod:`.checks`), how each engine version's checker and
reader behave (:mod:`.profile`, rows in :mod:`.versions`), how isolation levels are spelled
and defaulted (:mod:`.isolation`) and what a statement records in ``commitInfo``
(:mod:`.statement_writers`). It sits below ``transactions``: a profile is chosen per commit from its
``engineInfo`` / ``clientVersion`` (semantics doc §C), overridable with ``--profile``.
"""

from __future__ import annotations

from deltaforensics.profiles.checks import Check
from deltaforensics.profiles.isolation import parse_isolation, table_isolation
from deltaforensics.profiles.profile import Profile
from deltaforensics.profiles.versions import (
    ENGINES,
    ROWS,
    databricks,
    delta_rs,
    delta_spark,
    engine_of_commit,
    kernel,
    profile_by_name,
    profile_for,
    profile_of,
    written_on_databricks,
)

__all__ = [
    "ENGINES",
    "ROWS",
    "Check",
    "Profile",
    "databricks",
    "delta_rs",
    "delta_spark",
    "engine_of_commit",
    "kernel",
    "parse_isolation",
    "profile_by_name",
    "profile_for",
    "profile_of",
    "table_isolation",
    "written_on_databricks",
]
