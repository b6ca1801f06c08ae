"""``--attempt`` and its companions, checked and turned into the analysis' attempt specs;
``--error`` texts read."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from deltaforensics.errors import UsageError


def read_error_text(name: str) -> tuple[str, str]:
    if name == "-":
        return "<stdin>", sys.stdin.read()
    path = Path(name)
    try:
        return name, path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"--error {name}: {exc.strerror or exc}") from None


def parse_time_ms(text: str) -> int:
    from datetime import UTC, datetime  # noqa: PLC0415

    stripped = text.strip()
    if stripped.isdigit():
        return int(stripped)
    try:
        moment = datetime.fromisoformat(stripped.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--started-at {text!r}: not ISO-8601 or epoch milliseconds") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def attempt_specs(
    statements: list[str],
    read_versions: list[int],
    started: list[str],
    profile: str | None,
    writes: str | None,
    replace_where: str | None,
    txn: str | None,
    overwrite_mode: str | None,
) -> list[Any]:
    from deltaforensics.analysis import AttemptSpec  # noqa: PLC0415

    if not statements:
        if read_versions or started or writes or replace_where or txn or overwrite_mode:
            raise UsageError(
                "--read-version, --started-at, --writes, --replace-where, --txn and --partition-overwrite-mode go with --attempt"
            )
        return []
    for name, values in (("--read-version", read_versions), ("--started-at", started)):
        if len(values) not in (0, 1, len(statements)):
            raise UsageError(f"give {name} once, or once per --attempt ({len(statements)})")
    if not read_versions and not started:
        raise UsageError("--attempt needs --read-version N or --started-at TIMESTAMP")
    written = None
    if writes:
        try:
            written = dict(part.split("=", 1) for part in writes.split(",") if part.strip())
        except ValueError:
            raise UsageError('--writes takes "col=value,col2=value2"') from None
        written = {k.strip(): v.strip() for k, v in written.items()}
    app = None
    if txn:
        app_id, _, version = txn.rpartition(":")
        if not app_id or not version.isdigit():
            raise UsageError("--txn takes APPID:VERSION")
        app = (app_id, int(version))
    if overwrite_mode is not None and overwrite_mode.lower() not in ("dynamic", "static"):
        raise UsageError("--partition-overwrite-mode is dynamic or static")
    specs = []
    for i, sql in enumerate(statements):
        rv = read_versions[i if len(read_versions) > 1 else 0] if read_versions else None
        at = (
            parse_time_ms(started[i if len(started) > 1 else 0]) if started and rv is None else None
        )
        specs.append(
            AttemptSpec(
                sql=sql,
                read_version=rv,
                started_at_ms=at,
                profile_name=profile,
                writes=written,
                replace_where=replace_where,
                txn=app,
                partition_overwrite_mode=overwrite_mode,
            )
        )
    return specs
