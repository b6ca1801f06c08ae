"""``--attempt`` specifications as the CLI gives them, and the checker's verdict on each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deltaforensics.errors import UsageError
from deltaforensics.replay import Replay

if TYPE_CHECKING:
    from deltaforensics.conflicts.checker import Verdict
    from deltaforensics.transactions import Transaction


@dataclass(frozen=True, slots=True, kw_only=True)
class AttemptSpec:
    """One ``--attempt``: the SQL and how to read it."""

    sql: str
    read_version: int | None = None
    started_at_ms: int | None = None
    profile_name: str | None = None
    writes: dict[str, str] | None = None
    replace_where: str | None = None
    txn: tuple[str, int] | None = None
    partition_overwrite_mode: str | None = None


def attempt_verdicts(
    specs: Sequence[AttemptSpec], txns: Sequence[Transaction], rep: Replay
) -> list[Verdict]:
    """The checker's verdict on each attempted statement."""
    if not specs:
        return []
    from deltaforensics import attempts as att  # noqa: PLC0415
    from deltaforensics.profiles import profile_by_name  # noqa: PLC0415

    verdicts: list[Verdict] = []
    for spec in specs:
        if spec.read_version is not None:
            rv, rv_source = spec.read_version, "--read-version"
        elif spec.started_at_ms is not None:
            try:
                rv, rv_source = att.read_version_at(rep, spec.started_at_ms), "--started-at"
            except ValueError as exc:
                raise UsageError(f"--started-at: {exc}") from None
        else:
            raise UsageError("--attempt needs --read-version N or --started-at TIMESTAMP")
        if spec.profile_name:
            profile = profile_by_name(spec.profile_name)
        else:
            recent = [
                t.provenance.profile
                for t in txns[-20:]
                if t.provenance.has_commit_info and not t.read.reads.blind
            ]
            recent = recent or [
                t.provenance.profile for t in txns[-20:] if t.provenance.has_commit_info
            ]
            profile = recent[-1] if recent else profile_by_name("delta-spark")
        try:
            attempt = att.attempt_transaction(
                spec.sql,
                rep,
                read_version=rv,
                profile=profile,
                writes=spec.writes,
                replace_where=spec.replace_where,
                txn=spec.txn,
                partition_overwrite_mode=spec.partition_overwrite_mode,
                read_version_source=rv_source,
            )
        except ValueError as exc:
            raise UsageError(f"--attempt {spec.sql[:60]!r}: {exc}") from None
        verdicts.append(att.check_attempt(attempt, txns, rep))
    return verdicts
