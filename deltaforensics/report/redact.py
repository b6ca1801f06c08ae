"""Pseudonymise people in report documents: user names and ids, e-mails, notebook paths.

Reports get pasted into tickets and sent to vendors; the races in them are worth sharing, the
people who ran the jobs are not. :func:`redact_document` returns a copy of any report document
(explain, history, snapshot, whatif, …) in which every such identity is replaced, in every
string and object key, by a pseudonym that is stable within one :class:`Redactor`:
``user#1``, ``email#1``, ``notebook#1``, ``path#1``. Pseudonyms are counters in order of first
appearance, never hashes: a hash of an e-mail address is reversed by hashing guesses.

Identities are learned from the document itself, in two passes so that a field's meaning wins
over a pattern:

1. Fields: ``userName``/``userId`` (and the history document's ``user_name``/``user_id``),
   ``job.jobOwnerId``/``runAsUserName``, ``notebook.notebookPath``/``notebookId``. The user
   fields of one object name one person and share one pseudonym, as do a notebook's id and path.
2. Patterns in any string: e-mail addresses (not the ``container@account`` of a storage URL);
   Databricks workspace paths (``/Users/…``, ``/Repos/…``, ``/Workspace/…``, with ``dbfs:``);
   the user segment of ``/home/<user>/`` and ``C:\\Users\\<user>\\``; commitInfo fields quoted as
   JSON inside text (``"userName":"…"`` in a pasted ``Conflicting commit: {…}``); and the
   writer labels the reports print (``notebook 1524277128226821``, ``user <id>``).

Callers holding the raw ``commitInfo`` of the commits (``explain`` does) should also pass it to
:meth:`Redactor.learn_commit_info`, which catches a user name that is neither an e-mail nor a
number where the report mentions it only in prose.

Kept on purpose: job names and ids, cluster ids, table locations outside workspace folders,
query ids and txn ids — they identify processes, not people, and the forensics need them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

Kind = Literal["user", "email", "notebook", "path"]

MIN_SEGMENT_NAME = 3  # a path's user segment is learned as a name from this length on

# Object keys whose value names a person or a notebook, and what it is.
IDENTITY_KEYS: dict[str, Kind] = {
    "userName": "user",
    "userId": "user",
    "user_name": "user",
    "user_id": "user",
    "jobOwnerId": "user",
    "job_owner_id": "user",
    "runAsUserName": "user",
    "run_as_user_name": "user",
    "creatorUserName": "user",
    "creator_user_name": "user",
    "notebookPath": "notebook",
    "notebook_path": "notebook",
    "notebookId": "notebook",
    "notebook_id": "notebook",
}
# Keys naming the principal of the object they sit in (one person, one pseudonym).
_PRINCIPAL_KEYS = ("userName", "user_name", "userId", "user_id")
_NOTEBOOK_KEYS = ("notebookPath", "notebook_path", "notebookId", "notebook_id")

_EMAIL = re.compile(
    r"(?<![\w.%+-])(?<!://)"  # not inside a longer word, not a URL's container@account
    r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])"
)
_PATH_END = r"[^\s\"'`<>|,;()\[\]{}]*[^\s\"'`<>|,;()\[\]{}.:]"
_SEGMENT = r"[^\s/\"'`<>|,;()\[\]{}]*[^\s/\"'`<>|,;()\[\]{}.:]"
_WORKSPACE_PATH = re.compile(
    r"(?<![\w/.-])(?:dbfs:|file:|workspace:)?(?:/dbfs)?(?:/Workspace)?/(?:Users|Repos)/"
    r"(?P<owner>" + _SEGMENT + r")(?:/" + _PATH_END + ")?"
)
_HOME_USER = re.compile(
    r"(?:(?<![\w/.-])/home/|(?<![\w])[A-Za-z]:\\Users\\)(?P<user>[^\s/\\\"'`<>|,;()\[\]{}]+)"
)
_QUOTED_FIELD = re.compile(
    r"\\*\"(?P<key>" + "|".join(IDENTITY_KEYS) + r")\\*\"\s*:\s*"
    r"(?:\\*\"(?P<text>[^\"\\]+)\\*\"|(?P<number>\d+))"
)
# Writer labels from Transaction.who: "notebook <id>", "user <name>" (an id or a UUID only:
# "user <word>" is also plain English).
_LABEL = re.compile(
    r"\b(?P<kind>notebook|user) (?P<value>\d{6,}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
    r"-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\b"
)


class Redactor:
    """Identities seen so far and their pseudonyms; use one per run so they stay consistent."""

    def __init__(self) -> None:
        self._pseudonyms: dict[str, str] = {}  # lower-cased identity -> pseudonym
        self._originals: dict[str, str] = {}  # lower-cased identity -> first spelling seen
        self._counts: dict[Kind, int] = {}
        self._pattern: re.Pattern[str] | None = None

    @property
    def pseudonyms(self) -> dict[str, str]:
        """Every identity learned (as first spelled) and its pseudonym; for tests and audits."""
        return {self._originals[k]: v for k, v in self._pseudonyms.items()}

    def learn(self, value: object, kind: Kind, *, same_as: object = None) -> str | None:
        """Remember ``value`` as an identity; return its pseudonym (``None`` for blanks).

        ``same_as`` names an identity of the same person or notebook: ``value`` then shares its
        pseudonym when that one is already known."""
        text = _identity_text(value)
        if text is None:
            return None
        key = text.lower()
        if key in self._pseudonyms:
            return self._pseudonyms[key]
        partner = _identity_text(same_as)
        pseudonym = self._pseudonyms.get(partner.lower()) if partner else None
        if pseudonym is None:
            self._counts[kind] = self._counts.get(kind, 0) + 1
            pseudonym = f"{kind}#{self._counts[kind]}"
        self._pseudonyms[key] = pseudonym
        self._originals[key] = text
        self._pattern = None
        return pseudonym

    def learn_commit_info(self, commit_info: Mapping[str, Any]) -> None:
        """Learn the people and notebooks named by one raw ``commitInfo`` (or history row)."""
        self._learn_mapping(commit_info)
        for value in commit_info.values():
            if isinstance(value, Mapping):
                self._learn_mapping(value)

    def learn_text(self, text: str) -> None:
        """Learn what the patterns find in free text (see the module docstring)."""
        for m in _QUOTED_FIELD.finditer(text):
            self.learn(m["text"] or m["number"], IDENTITY_KEYS[m["key"]])
        for m in _WORKSPACE_PATH.finditer(text):
            self.learn(m[0], "path")
            self._learn_segment(m["owner"])
        for m in _EMAIL.finditer(text):
            self.learn(m[0], "email")
        for m in _HOME_USER.finditer(text):
            self._learn_segment(m["user"])
        for m in _LABEL.finditer(text):
            self.learn(m["value"], "notebook" if m["kind"] == "notebook" else "user")

    def redact_text(self, text: str) -> str:
        """``text`` with every identity known or found in it replaced by its pseudonym."""
        self.learn_text(text)
        return self.replace(text)

    def _learn_mapping(self, obj: Mapping[str, Any]) -> None:
        principal = next((obj[k] for k in _PRINCIPAL_KEYS if _identity_text(obj.get(k))), None)
        notebook = next((obj[k] for k in _NOTEBOOK_KEYS if _identity_text(obj.get(k))), None)
        # a known partner first, so that a later field joins the pseudonym of an earlier one
        for group, first in ((_PRINCIPAL_KEYS, principal), (_NOTEBOOK_KEYS, notebook)):
            known = next((obj[k] for k in group if self._known(obj.get(k))), first)
            for k in group:
                self.learn(obj.get(k), IDENTITY_KEYS[k], same_as=known)
        for key, kind in IDENTITY_KEYS.items():
            if key not in _PRINCIPAL_KEYS and key not in _NOTEBOOK_KEYS:
                self.learn(obj.get(key), kind)

    def _learn_segment(self, name: str) -> None:
        """A user name found as a path segment; too short a one would hit ordinary words."""
        if len(name) >= MIN_SEGMENT_NAME:
            self.learn(name, "email" if "@" in name else "user")

    def _known(self, value: object) -> bool:
        text = _identity_text(value)
        return text is not None and text.lower() in self._pseudonyms

    def replace(self, text: str) -> str:
        """``text`` with every identity learned so far replaced (nothing new is learned)."""
        if not self._pseudonyms:
            return text
        if self._pattern is None:
            # longest first, so a notebook path wins over the e-mail inside it
            alternatives = sorted(self._originals.values(), key=len, reverse=True)
            self._pattern = re.compile(
                "|".join(_bounded(a) for a in alternatives), flags=re.IGNORECASE
            )
        return self._pattern.sub(self._pseudonym_of, text)

    def _pseudonym_of(self, match: re.Match[str]) -> str:
        found = self._pseudonyms.get(match[0].lower())
        if found is not None:
            return found
        # the regex folds case differently from str.lower() for a few letters: look it up whole
        for key, pseudonym in self._pseudonyms.items():
            if re.fullmatch(re.escape(self._originals[key]), match[0], flags=re.IGNORECASE):
                return pseudonym
        return "redacted"  # pragma: no cover - every match comes from a known identity


def redact_document(doc: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """A copy of ``doc`` with every identity replaced by ``redactor``'s pseudonym for it.

    Only strings change (values and keys); numbers, booleans and the shape stay, so the copy
    validates against the same JSON Schema as ``doc``. A number under an identity key (a
    ``jobOwnerId`` written as a JSON number) becomes its pseudonym, a string."""
    for obj in _mappings(doc):
        redactor.learn_commit_info(obj)
    for text in _strings(doc):
        redactor.learn_text(text)
    redacted: dict[str, Any] = _rewrite(doc, redactor, None)
    return redacted


def _rewrite(value: Any, redactor: Redactor, key: str | None) -> Any:
    if isinstance(value, Mapping):
        return {redactor.replace(str(k)): _rewrite(v, redactor, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rewrite(v, redactor, None) for v in value]
    if isinstance(value, str):
        return redactor.replace(value)
    if key in IDENTITY_KEYS and isinstance(value, int) and not isinstance(value, bool):
        return redactor.replace(str(value))
    return value


def _mappings(value: Any) -> Iterable[Mapping[str, Any]]:
    if isinstance(value, Mapping):
        yield value
        for v in value.values():
            yield from _mappings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _mappings(v)


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, str):
        yield value


def _identity_text(value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    return text or None


def _bounded(identity: str) -> str:
    """``identity`` as a regex that matches only whole: not inside a longer name or number."""
    head = r"(?<![\w.%+-])" if re.match(r"[\w.%+-]", identity) else ""
    tail = r"(?![\w-]|\.\w)" if re.search(r"[\w-]$", identity) else ""
    return head + re.escape(identity) + tail
