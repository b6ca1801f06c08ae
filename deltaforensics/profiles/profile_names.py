"""``--profile`` names: an engine, and optionally one of its releases this version knows.

A name that is not an engine, or a release no engine had (``databricks-99``), is refused with
the nearest name that exists, so that a typo is not silently read as some other checker.
The release lines are public facts: Delta Lake's releases (delta-io/delta, 0.1 to 4.4),
the Databricks Runtime releases in Databricks' release notes (7.0 to 17.3), and delta-rs's
(the Rust crate's 0.x and the Python ``deltalake`` package's 0.x and 1.x). A newer release is
added here together with its row in :mod:`.versions`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from types import MappingProxyType

ENGINE_NAMES = ("delta-spark", "databricks", "delta-rs", "kernel")
_SHAPE = re.compile(r"([a-z][a-z_-]*?)(?:[-@ _]?(\d+(?:\.\d+)*))?")


def _lines(*spans: tuple[int, int, int]) -> tuple[tuple[int, int], ...]:
    """``(major, first minor, last minor)`` spans as every ``(major, minor)`` they hold."""
    return tuple((major, minor) for major, lo, hi in spans for minor in range(lo, hi + 1))


RELEASES: Mapping[str, tuple[tuple[int, int], ...]] = MappingProxyType(
    {
        "delta-spark": _lines((0, 1, 8), (1, 0, 2), (2, 0, 4), (3, 0, 4), (4, 0, 4)),
        "databricks": _lines(
            (7, 0, 6),
            (8, 0, 4),
            (9, 0, 1),
            (10, 0, 5),
            (11, 0, 3),
            (12, 0, 2),
            (13, 0, 3),
            (14, 0, 3),
            (15, 0, 4),
            (16, 0, 4),
            (17, 0, 3),
        ),
        "delta-rs": _lines((0, 1, 29), (1, 0, 6)),
    }
)
USAGE = "use delta-spark[-X.Y], databricks[-X.Y], delta-rs[-X.Y] or kernel"


def parse_profile_name(name: str) -> tuple[str, tuple[int, ...]]:
    """``(engine, version)`` of a ``--profile`` name; ``ValueError`` naming the nearest name
    that exists when the engine or the release is unknown."""
    text = name.strip().lower()
    m = _SHAPE.fullmatch(text)
    engine = m.group(1).rstrip("-_ ") if m else text
    version = tuple(int(x) for x in m.group(2).split(".")) if m and m.group(2) else ()
    if engine not in ENGINE_NAMES:
        close = difflib.get_close_matches(engine, ENGINE_NAMES, n=1, cutoff=0.6)
        hint = f"did you mean {_name(close[0], version)}? " if close else ""
        raise ValueError(f"unknown profile {name!r}; {hint}{USAGE}")
    known = RELEASES.get(engine)
    if version and known and not _is_known(version, known):
        nearest = min(known, key=lambda line: _distance(line, version))
        newest = ".".join(map(str, known[-1]))
        raise ValueError(
            f"unknown profile {name!r}: {engine} has no release {'.'.join(map(str, version))} "
            f"(known: {'.'.join(map(str, known[0]))} to {newest}); "
            f"did you mean {_name(engine, nearest)}?"
        )
    return engine, version


def _is_known(version: tuple[int, ...], known: tuple[tuple[int, int], ...]) -> bool:
    if len(version) == 1:
        return any(major == version[0] for major, _ in known)
    return (version[0], version[1]) in known


def _distance(line: tuple[int, int], version: tuple[int, ...]) -> tuple[int, int]:
    """Nearest major first; within it the nearest minor, or the newest when the major differs."""
    if line[0] != version[0] or len(version) == 1:
        return abs(line[0] - version[0]), -line[1]
    return 0, abs(line[1] - version[1])


def _name(engine: str, version: tuple[int, ...]) -> str:
    return f"{engine}-{'.'.join(map(str, version))}" if version else engine
