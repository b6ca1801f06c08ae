"""What ``--redact`` and the user's secrets take out of error messages."""

from __future__ import annotations

from deltaforensics.cli.invocation import Invocation
from deltaforensics.commands.tables import without_secrets


def redact_message(text: str, invocation: Invocation) -> str:
    """Remove every secret the user gave us (options, options file, environment)."""
    text = without_secrets(text, invocation.secrets)
    if invocation.redact:  # --redact covers error messages too (paths under /Users/<e-mail>/…)
        from deltaforensics.report.redact import Redactor  # noqa: PLC0415

        text = Redactor().redact_text(text)
    return text
