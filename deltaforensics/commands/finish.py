"""The last steps of every document inside the layer: redaction, the time window."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from deltaforensics.report.document import Entry

D = TypeVar("D", bound=Entry)


def redacted(doc: D, redact: bool, commit_infos: Iterable[Any] = ()) -> D:
    """``doc`` with identities pseudonymised when ``redact`` (before any rendering); the
    commit infos teach the redactor who wrote what."""
    if not redact:
        return doc
    from deltaforensics.report.redact import Redactor, redact_document  # noqa: PLC0415

    redactor = Redactor()
    for commit_info in commit_infos:
        redactor.learn_commit_info(commit_info)
    # THE DICT BOUNDARY (issue #30): report/redact.py rewrites a document's JSON form; once it
    # transforms typed values this round trip goes
    return type(doc).from_dict(redact_document(doc.to_dict(), redactor))
