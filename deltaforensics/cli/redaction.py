"""What ``--redact`` and the user's secrets take out of documents and error messages."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from deltaforensics.cli.invocation import Invocation

if TYPE_CHECKING:
    from deltaforensics.report.document import Entry
    from deltaforensics.report.redact import Redactor

D = TypeVar("D", bound="Entry")


def redacted(doc: D, redact: bool, commit_infos: Iterable[Mapping[str, Any]] = ()) -> D:
    """``doc`` with identities pseudonymised when ``--redact`` was given (before any rendering)."""
    if not redact:
        return doc
    from deltaforensics.report.redact import Redactor, redact_document  # noqa: PLC0415

    redactor = Redactor()
    for commit_info in commit_infos:
        redactor.learn_commit_info(commit_info)
    return redact_document(doc, redactor)


def document_redactor() -> Redactor:
    """One redactor for the whole run: a person keeps one pseudonym across every table."""
    from deltaforensics.report.redact import Redactor  # noqa: PLC0415

    return Redactor()


def secrets_of(options: Any) -> set[str]:
    from deltaforensics.log.options import secret_values  # noqa: PLC0415

    return set(secret_values(options))


def redact_message(text: str, invocation: Invocation) -> str:
    """Remove every secret the user gave us (options, options file, environment)."""
    from deltaforensics.log.options import redact, secret_values, storage_options_from_env  # noqa: PLC0415

    secrets = set(secret_values(storage_options_from_env(os.environ)))
    secrets.update(s for s in invocation.secrets if s)
    text = redact(text, sorted(secrets))
    if invocation.redact:  # --redact covers error messages too (paths under /Users/<e-mail>/…)
        from deltaforensics.report.redact import Redactor  # noqa: PLC0415

        text = Redactor().redact_text(text)
    return text
