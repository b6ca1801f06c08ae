"""Counted nouns for every message the tool writes: ``1 file``, ``3 files``, never ``file(s)``.

In the lowest layer because messages are written in every layer, from the log's diagnostics to
the report's prose.
"""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word``, made plural (``many``, else ``word + "s"``) unless ``n`` is 1."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def agree(n: int, one: str, many: str) -> str:
    """The word that agrees with ``n`` things: ``agree(1, "it", "them")`` is ``it``."""
    return one if n == 1 else many
