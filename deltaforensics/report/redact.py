"""Pseudonymise people in report documents: user names and ids, e-mails, notebook paths.

Reports get pasted into tickets and sent to vendors; the races in them are worth sharing, the
people who ran the jobs are not. :func:`redact_document` returns a copy of any typed report
document (explain, history, snapshot, whatif, …) in which every such identity is replaced, in every
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

import dataclasses
import re
from collections.abc import Mapping
from enum import Enum
from typing import Literal, TypeVar, cast

from deltaforensics.report.document.entry import Entry, JsonValue, field_names

Kind = Literal["user", "email", "notebook", "path"]
D = TypeVar("D", bound=Entry)

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
    "notebook": "notebook",  # an explain commit's notebook path or id (an object elsewhere)
}
# Keys naming the principal of the object they sit in (one person, one pseudonym).
_PRINCIPAL_KEYS = ("userName", "user_name", "userId", "user_id")
_NOTEBOOK_KEYS = ("notebookPath", "notebook_path", "notebookId", "notebook_id", "notebook")
# One name or number as the replacement sees it: an e-mail, an id, a user name; dots only inside.
_NAME = re.compile(r"[\w%+@-]+(?:\.[\w%+@-]+)*")
_NAME_CHAR = re.compile(r"[\w.%+@-]")
_WORD_CHAR = re.compile(r"[\w%+@-]")
_IDENTITY_KEY_SET = frozenset(IDENTITY_KEYS)

_EMAIL = re.compile(
    r"(?<![\w.%+-])(?<!://)"  # not inside a longer word, not a URL's container@account
    r"[\w.%+-]+@[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}(?![\w-])"
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
        self._pattern: re.Pattern[str] | None = None  # compiled on first use after learning
        self._names: set[str] = set()
        self._phrases: list[str] = []
        self._anchors: set[str] = set()
        self._tokenless: list[str] = []

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

    def learn_commit_info(self, commit_info: Mapping[str, object]) -> None:
        """Learn the people and notebooks named by one raw ``commitInfo`` (or history row)."""
        self._learn_mapping(commit_info)
        for value in commit_info.values():
            if isinstance(value, Mapping):
                self._learn_mapping(value)

    def learn_text(self, text: str) -> None:
        """Learn what the patterns find in free text (see the module docstring)."""
        # each pattern only where its anchor occurs: a snapshot has a million file paths
        if '"' in text:
            for m in _QUOTED_FIELD.finditer(text):
                self.learn(m["text"] or m["number"], IDENTITY_KEYS[m["key"]])
        if "/Users/" in text or "/Repos/" in text:
            for m in _WORKSPACE_PATH.finditer(text):
                self.learn(m[0], "path")
                self._learn_segment(m["owner"])
        if "@" in text:
            for m in _EMAIL.finditer(text):
                self.learn(m[0], "email")
        if "/home/" in text or ":\\Users\\" in text:
            for m in _HOME_USER.finditer(text):
                self._learn_segment(m["user"])
        if "notebook " in text or "user " in text:
            for m in _LABEL.finditer(text):
                self.learn(m["value"], "notebook" if m["kind"] == "notebook" else "user")

    def redact_text(self, text: str) -> str:
        """``text`` with every identity known or found in it replaced by its pseudonym."""
        self.learn_text(text)
        return self.replace(text)

    def _learn_mapping(self, obj: Mapping[str, object]) -> None:
        if _IDENTITY_KEY_SET.isdisjoint(obj.keys()):
            return  # most objects (files, partition values) name nobody
        for group in (_PRINCIPAL_KEYS, _NOTEBOOK_KEYS):
            values = [obj.get(k) for k in group]
            # one person (notebook) per group: join a pseudonym already given to one of them
            partner = next((v for v in values if self._known(v)), None) or next(
                (v for v in values if _identity_text(v)), None
            )
            for key, value in zip(group, values, strict=True):
                self.learn(value, IDENTITY_KEYS[key], same_as=partner)
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
        """``text`` with every identity learned so far replaced (nothing new is learned).

        Only whole names and numbers are replaced: a known ``ops`` stays inside ``dev-ops``, a
        known id inside a longer number."""
        if not self._pseudonyms:
            return text
        pattern = self._pattern or self._compile()
        lowered = text.lower()
        if self._anchors.isdisjoint(_NAME.findall(lowered)) and not any(
            p in lowered for p in self._tokenless
        ):
            return text  # the common case (file paths, predicates), decided without callbacks
        return pattern.sub(self._pseudonym_of, text)

    def _compile(self) -> re.Pattern[str]:
        # identities that are one name token are looked up token by token; the rest (paths,
        # names with spaces) are tried first at each token, longest first, case-insensitively
        self._names = {k for k in self._pseudonyms if _NAME.fullmatch(k)}
        self._phrases = sorted(
            (k for k in self._pseudonyms if k not in self._names), key=len, reverse=True
        )
        # a whole phrase shows each of its name tokens as a token of the text: one will do
        self._anchors = set(self._names)
        self._tokenless = []
        for phrase in self._phrases:
            tokens = _NAME.findall(phrase)
            if tokens:
                self._anchors.add(max(tokens, key=len))
            else:
                self._tokenless.append(phrase)
        phrases = "|".join(re.escape(self._originals[k]) for k in self._phrases)
        name = _NAME.pattern
        self._pattern = re.compile(f"(?P<phrase>(?i:{phrases}))|{name}" if phrases else name)
        return self._pattern

    def _pseudonym_of(self, match: re.Match[str]) -> str:
        found = match[0]
        if match.lastgroup != "phrase":
            return self._pseudonyms.get(found.lower(), found)
        if not _is_whole(match):
            return found
        pseudonym = self._pseudonyms.get(found.lower())
        if pseudonym is None:  # (?i) and str.lower() fold a few letters differently
            pseudonym = next(
                self._pseudonyms[k]
                for k in self._phrases
                if re.fullmatch(re.escape(self._originals[k]), found, flags=re.IGNORECASE)
            )
        return pseudonym


def redact_document(doc: D, redactor: Redactor) -> D:
    """A copy of the typed document ``doc`` with every identity replaced by ``redactor``'s
    pseudonym for it.

    Only strings change (values and keys), so the copy's JSON form validates against the same
    JSON Schema as ``doc``'s. A number under an identity key (a ``jobOwnerId`` written as a JSON
    number) becomes its pseudonym, a string."""
    return cast("D", _redacted(doc, redactor))


def redact_json(value: JsonValue, redactor: Redactor) -> JsonValue:
    """:func:`redact_document` of plain JSON data (the audit's commit rows and summary)."""
    return cast("JsonValue", _redacted(value, redactor))


def _redacted(value: object, redactor: Redactor) -> object:
    named: list[Mapping[str, object]] = []
    texts: list[str] = []
    _scan(value, named, texts)
    for obj in named:  # fields first: their meaning wins over a pattern
        redactor.learn_commit_info(obj)
    for text in texts:
        redactor.learn_text(text)
    return _rewrite(value, redactor, None)


def _fields(value: object) -> dict[str, object]:
    """A typed value's fields by name, in the order its JSON form lists them."""
    return {n: getattr(value, n) for n in field_names(type(value))}


def _scan(value: object, named: list[Mapping[str, object]], texts: list[str]) -> None:
    """Collect the objects with identity keys and every string (keys too), in document order;
    a typed value is read as the object of its fields (whose names are no one's)."""
    if isinstance(value, Enum):
        return
    if isinstance(value, str):
        texts.append(value)
    elif isinstance(value, Mapping):
        if not _IDENTITY_KEY_SET.isdisjoint(value.keys()):
            named.append(value)
        for k, v in value.items():
            texts.append(str(k))
            _scan(v, named, texts)
    elif isinstance(value, list | tuple):
        for v in value:
            _scan(v, named, texts)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = _fields(value)
        if not _IDENTITY_KEY_SET.isdisjoint(fields.keys()):
            named.append(fields)
        for v in fields.values():
            _scan(v, named, texts)


def _rewrite(value: object, redactor: Redactor, key: str | None) -> object:
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return redactor.replace(value)
    if isinstance(value, Mapping):
        return {redactor.replace(str(k)): _rewrite(v, redactor, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewrite(v, redactor, None) for v in value]
    if isinstance(value, tuple):
        return tuple(_rewrite(v, redactor, None) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = _fields(value)
        changed = {}
        for name, v in fields.items():
            new = _rewrite(v, redactor, name)
            if new is not v and new != v:
                changed[name] = new
        return dataclasses.replace(value, **changed) if changed else value
    if key in IDENTITY_KEYS and isinstance(value, int) and not isinstance(value, bool):
        return redactor.replace(str(value))
    return value


def _identity_text(value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    return text or None


def _is_whole(match: re.Match[str]) -> bool:
    """Whether ``match`` is a whole name or number, not part of a longer one: an identity that
    starts (ends) with a name character must not follow (precede) one."""
    text, start, end = match.string, match.start(), match.end()
    found = match[0]
    if start > 0 and _NAME_CHAR.match(found[0]) and _NAME_CHAR.match(text[start - 1]):
        return False
    if end < len(text) and _NAME_CHAR.match(found[-1]):
        after = text[end : end + 2]
        if _WORD_CHAR.match(after[0]) or (after[0] == "." and _WORD_CHAR.match(after[1:2] or " ")):
            return False
    return True
