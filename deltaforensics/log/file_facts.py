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

    def __init__(self, commits: Mapping[int, str], others: Sequence[str], read: Reader) -> None:
        # the commits' own map names them: a list or set of every name would hold the
        # log's names again (~75 MB at 1,000,000 commits)
        self._commits, self._others, self._other_set = commits, others, frozenset(others)
        self._read = read
        self._got: dict[str, StoredFile | None] = {}

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name in self._other_set:
            return True
        head = name[:20]
        return (
            len(name) == 25
            and head.isascii()
            and head.isdigit()
            and self._commits.get(int(head)) == name
        )

    def __iter__(self) -> Iterator[str]:
        """The commits in version order, then the other names in listing order."""
        yield from self._plain()
        yield from self._others

    def __len__(self) -> int:
        return sum(1 for _ in self._plain()) + len(self._others)

    def _plain(self) -> Iterator[str]:
        """The commits named as their versions (an odd spelling is among the others)."""
        return (name for name in self._commits.values() if name not in self._other_set)

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
