"""An evidence file (``--error``) read up to a bound: a job's output is kilobytes, and an
endless or huge input (``/dev/zero``, a multi-gigabyte log) must not fill memory (issue #32).
The last conflict in a driver log is near its end, but a file too large to read whole is the
wrong input anyway; its first ``MAX_EVIDENCE_BYTES`` are read and the caller warns."""

from __future__ import annotations

from typing import BinaryIO

MAX_EVIDENCE_BYTES = 64 * 1024 * 1024
_CHUNK = 1 << 20


def read_bounded(stream: BinaryIO, limit: int = MAX_EVIDENCE_BYTES) -> tuple[str, bool]:
    """At most ``limit`` bytes of ``stream`` as text (bad UTF-8 replaced), and whether more
    followed. Read in chunks, so a pipe or a device is read no further than the bound."""
    chunks: list[bytes] = []
    got = 0
    while got < limit:
        chunk = stream.read(min(_CHUNK, limit - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    more = got >= limit and bool(stream.read(1))
    return b"".join(chunks).decode("utf-8", errors="replace"), more


def truncation_warning(name: str, limit: int = MAX_EVIDENCE_BYTES) -> str:
    """The one line that says an evidence file was cut."""
    return f"warning: --error {name}: only its first {limit // (1024 * 1024)} MB were read"
