"""A fleet table's outcome on its way back from an executor: packed, chunked, rebuilt.

Each table's outcome (its work's value or the exception it raised, and the files it missed) is
pickled, LZ4-compressed and cut into chunks: one huge binary value would have to fit a JVM
buffer whole (a 100,000-commit table's frames did not, in a 1 GiB heap). Exceptions travel as
their type and text (:func:`portable_error`), since not every exception of the core survives
pickling.
"""

from __future__ import annotations

import importlib
import pickle
from dataclasses import dataclass
from typing import Any

RESULT_SCHEMA = "table string, part int, size long, payload binary"
CHUNK_BYTES = 16 << 20


@dataclass(frozen=True, slots=True)
class FleetResult:
    """A table's result: the work's value, or the exception it raised, and what it missed."""

    value: Any = None
    error: BaseException | None = None
    missed: tuple[str, ...] = ()


def pack_outcome(key: str, outcome: tuple[str, Any, list[str]]) -> Any:
    """``("ok", value, missed)`` or ``("error", portable_error(exc), missed)`` as the rows of
    ``RESULT_SCHEMA`` (an Arrow table) that carry it to the driver."""
    import pyarrow as pa  # noqa: PLC0415

    raw = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
    packed: bytes = pa.compress(raw, codec="lz4", asbytes=True)
    pieces = [packed[i : i + CHUNK_BYTES] for i in range(0, len(packed), CHUNK_BYTES)] or [b""]
    return pa.table(
        {
            "table": [key] * len(pieces),
            "part": list(range(len(pieces))),
            "size": [len(raw)] * len(pieces),
            "payload": pieces,
        },
        schema=pa.schema(
            [
                ("table", pa.string()),
                ("part", pa.int32()),
                ("size", pa.int64()),
                ("payload", pa.binary()),
            ]
        ),
    )


def unpack_results(result: Any) -> dict[str, FleetResult]:
    """Every table's :class:`FleetResult` from the collected ``RESULT_SCHEMA`` rows (Arrow)."""
    chunks: dict[str, list[tuple[int, int, bytes]]] = {}
    for key, part, size, payload in zip(
        *(result.column(c).to_pylist() for c in ("table", "part", "size", "payload")), strict=True
    ):
        chunks.setdefault(key, []).append((part, size, payload))
    out: dict[str, FleetResult] = {}
    for key, parts in chunks.items():
        parts.sort()
        status, value, missed = pickle.loads(  # noqa: S301 - our own job's output
            _decompress(b"".join(p for _, _, p in parts), parts[0][1])
        )
        error = rebuild_error(*value) if status == "error" else None
        out[key] = FleetResult(
            value=None if error is not None else value, error=error, missed=tuple(missed)
        )
    return out


def _decompress(data: bytes, size: int) -> bytes:
    import pyarrow as pa  # noqa: PLC0415

    out: bytes = pa.decompress(data, decompressed_size=size, codec="lz4", asbytes=True)
    return out


def portable_error(exc: BaseException) -> tuple[str, str, str, list[str]]:
    """An exception as (module, class name, text, notes): every exception survives that."""
    notes = [str(n) for n in getattr(exc, "__notes__", [])]
    return (type(exc).__module__, type(exc).__qualname__, str(exc), notes)


def rebuild_error(module: str, name: str, text: str, notes: list[str]) -> BaseException:
    """The exception :func:`portable_error` described: its class, its text, its notes."""
    try:
        cls = getattr(importlib.import_module(module), name)
        if not (isinstance(cls, type) and issubclass(cls, Exception)):
            raise TypeError(name)
        exc: BaseException = cls.__new__(cls)
        Exception.__init__(exc, text)
    except Exception:  # a class that cannot be rebuilt keeps its name in the text
        exc = RuntimeError(f"{name}: {text}")
    for note in notes:
        exc.add_note(note)
    return exc


__all__ = [
    "RESULT_SCHEMA",
    "FleetResult",
    "pack_outcome",
    "portable_error",
    "rebuild_error",
    "unpack_results",
]
