"""The last steps of every document inside the layer: redaction, the time window."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from deltaforensics.report.document import Entry

D = TypeVar("D", bound=Entry)


def redacted(doc: D, redact: bool, commit_infos: Iterable[Mapping[str, Any]] = ()) -> D:
    """``doc`` with identities pseudonymised when ``redact`` (before any rendering); the
    commit infos teach the redactor who wrote what."""
    if not redact:
        return doc
    from deltaforensics.report.redact import Redactor, redact_document  # noqa: PLC0415

    redactor = Redactor()
    for commit_info in commit_infos:
        redactor.learn_commit_info(commit_info)
    return redact_document(doc, redactor)
