"""Sizes and modification times of listed log files, read when first asked for.

A local disk names a folder's files without a ``stat`` each, and a ``stat`` of each of
1,000,000 commit files took ~10 s here (issue #23), while an analysis asks about a handful
of files (an audit about the newest commit's size) and a time window about a few more
(:mod:`deltaforensics.log.commit_times`). A :class:`~deltaforensics.log.listing.LogListing`
of such a store holds :class:`ListedSizes` and :class:`ListedTimes` instead of dictionaries:
the same mappings to a reader, with one ``stat`` giving a file both its size and its time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from deltaforensics.log.storage import StoredFile

Reader = Callable[[Sequence[str]], dict[str, StoredFile]]


class FileFacts:
    """The listed names, and the facts read so far (``None``: a folder, or gone since)."""

    def __init__(
        self, names: list[str], commits: Mapping[int, str], others: frozenset[str], read: Reader
    ) -> None:
        # membership is asked of the commits' own map and the few other names: a set of
        # every name would hold the log's size again
        self._names, self._commits, self._others = names, commits, others
        self._read = read
        self._got: dict[str, StoredFile | None] = {}

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name in self._others:
            return True
        head = name[:20]
        return (
            len(name) == 25
            and head.isascii()
            and head.isdigit()
            and self._commits.get(int(head)) == name
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def fetch(self, names: Sequence[str]) -> None:
        """Read, in one call, the facts of every listed file of ``names`` not read yet."""
        wanted = [n for n in names if n not in self._got and n in self and not n.endswith("/")]
        if wanted:
            found = self._read(wanted)
            self._got.update({n: found.get(n) for n in wanted})

    def file(self, name: str) -> StoredFile | None:
        if name not in self._got:
            self.fetch([name])
        return self._got.get(name)


class ListedSizes(Mapping[str, "int | None"]):
    """Every listed name, with its size (``None`` for a folder)."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts

    def __getitem__(self, name: str) -> int | None:
        if name not in self.facts:
            raise KeyError(name)
        found = self.facts.file(name)
        return None if found is None else found.size

    def __contains__(self, name: object) -> bool:
        return name in self.facts

    def __iter__(self) -> Iterator[str]:
        return iter(self.facts)

    def __len__(self) -> int:
        return len(self.facts)


class ListedTimes(Mapping[str, int]):
    """The listed files whose modification time the store reports, with it (ms)."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts

    def __getitem__(self, name: str) -> int:
        found = self.facts.file(name) if name in self.facts else None
        if found is None or found.modified_ms is None:
            raise KeyError(name)
        return found.modified_ms

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str) or name not in self.facts:
            return False
        found = self.facts.file(name)
        return found is not None and found.modified_ms is not None

    def __iter__(self) -> Iterator[str]:
        names = list(self.facts)
        self.facts.fetch(names)
        return iter([n for n in names if n in self])

    def __len__(self) -> int:
        return sum(1 for _ in self)


def fetch_facts(mapping: Mapping[str, object], names: Sequence[str]) -> None:
    """Read the facts of ``names`` in one call when ``mapping`` is a listing's
    :class:`ListedSizes` or :class:`ListedTimes` (nothing to do for one that had them)."""
    facts = getattr(mapping, "facts", None)
    if isinstance(facts, FileFacts):
        facts.fetch(names)
