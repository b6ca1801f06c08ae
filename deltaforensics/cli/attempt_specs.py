"""``--attempt`` and its companions, checked and turned into the analysis' attempt specs;
``--error`` texts read."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from deltaforensics.cli.options import AttemptOptions
from deltaforensics.errors import UsageError


def error_texts(options: AttemptOptions) -> list[tuple[str, str]]:
    """``(name, text)`` of every ``--error`` file, in the order given."""
    return [read_error_text(e) for e in options.error or []]


def failure_input(options: AttemptOptions, storage_options: dict[str, str], window: Any) -> Any:
    """The ``--failures-from`` sources as the analysis reads them (``None``: none given), in
    the window of ``--since``/``--until`` (``window``: the chosen VersionWindow, or None); the
    analysis keeps the failures of this table (docs/failures.md)."""
    if not options.failures_from:
        return None
    from deltaforensics.analysis import FailureInput  # noqa: PLC0415

    return FailureInput(
        sources=tuple(options.failures_from),
        storage_options=storage_options,
        since_ms=getattr(window, "since_ms", None),
        until_ms=getattr(window, "until_ms", None),
    )


def read_error_text(name: str) -> tuple[str, str]:
    """At most 64 MB of the file (or stdin), with a warning on stderr when it is cut."""
    from deltaforensics.evidence.bounded import read_bounded, truncation_warning  # noqa: PLC0415

    try:
        if name == "-":
            name, (text, more) = "<stdin>", read_bounded(sys.stdin.buffer)
        else:
            with Path(name).open("rb") as fh:
                text, more = read_bounded(fh)
    except OSError as exc:
        raise UsageError(f"--error {name}: {exc.strerror or exc}") from None
    if more:
        sys.stderr.write(truncation_warning(name) + "\n")
    return name, text


def parse_time_ms(text: str, option: str = "--started-at") -> int:
    """ISO-8601 (no zone: UTC) or epoch milliseconds, as ms since the epoch."""
    from datetime import UTC, datetime  # noqa: PLC0415

    stripped = text.strip()
    if stripped.isdigit():
        return int(stripped)
    try:
        moment = datetime.fromisoformat(stripped.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"{option} {text!r}: not ISO-8601 or epoch milliseconds") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def attempt_specs(options: AttemptOptions) -> list[Any]:
    """The ``--attempt`` statements as the analysis' attempt specs, once their companions are
    checked against them; each error names the option at fault."""
    from deltaforensics.api import checked_profile  # noqa: PLC0415
    from deltaforensics.attempts.specs import AttemptSpec  # noqa: PLC0415

    checked_profile(options.attempt_profile)
    statements = options.attempt or []
    read_versions = options.read_version or []
    started = options.started_at or []
    overwrite_mode = options.partition_overwrite_mode
    if not statements:
        if (
            read_versions
            or started
            or options.writes
            or options.replace_where
            or options.txn
            or overwrite_mode
        ):
            raise UsageError(
                "--read-version, --started-at, --writes, --replace-where, --txn and --partition-overwrite-mode go with --attempt"
            )
        return []
    for name, values in (("--read-version", read_versions), ("--started-at", started)):
        if len(values) not in (0, 1, len(statements)):
            raise UsageError(f"give {name} once, or once per --attempt ({len(statements)})")
    if not read_versions and not started:
        raise UsageError("--attempt needs --read-version N or --started-at TIMESTAMP")
    written = _written_partitions(options.writes) if options.writes else None
    app = _app_transaction(options.txn) if options.txn else None
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
                profile_name=options.attempt_profile,
                writes=written,
                replace_where=options.replace_where,
                txn=app,
                partition_overwrite_mode=overwrite_mode,
            )
        )
    return specs


def _written_partitions(writes: str) -> dict[str, str]:
    """``--writes "col=value,col2=value2"`` as a mapping."""
    try:
        written = dict(part.split("=", 1) for part in writes.split(",") if part.strip())
    except ValueError:
        raise UsageError('--writes takes "col=value,col2=value2"') from None
    return {k.strip(): v.strip() for k, v in written.items()}


def _app_transaction(txn: str) -> tuple[str, int]:
    """``--txn APPID:VERSION`` as ``(app id, version)``; the app id may hold colons."""
    app_id, _, version = txn.rpartition(":")
    if not app_id or not version.isdigit():
        raise UsageError("--txn takes APPID:VERSION")
    return app_id, int(version)
