"""Files the audit writes while other runs may write the same ones: atomic, never shared.

A file is written to a temporary name that no other run can choose — ``.<name>.<pid>-<random>.tmp``
in the target's own directory, hidden from ``*.parquet`` globs and from Spark's readers — and
then renamed over the target with :func:`os.replace` (atomic within one filesystem), so a reader
sees the old file or the new one, and one run never renames another's half-written file. A run
killed mid-write leaves its temporary behind; the next write beside it removes temporaries older
than :data:`STALE_TEMPORARY_SECONDS`. :func:`locked` serialises the publishing of one table's
state between processes.
"""

from __future__ import annotations

import glob
import os
import secrets
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

# A temporary this old belongs to a run that died: writing one takes seconds, not an hour.
STALE_TEMPORARY_SECONDS = 3600.0
TEMPORARY_SUFFIX = ".tmp"


def temporary_beside(path: Path) -> Path:
    """A fresh temporary name for ``path`` in the same directory, unique to this process."""
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(6)}{TEMPORARY_SUFFIX}")


def write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """``write(temporary)``, then rename the temporary over ``path``; on failure, no litter."""
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path.parent, f".{glob.escape(path.name)}.*{TEMPORARY_SUFFIX}")
    tmp = temporary_beside(path)
    try:
        write(tmp)
        tmp.replace(path)  # os.replace: atomic, over an existing file too
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def remove_stale_temporaries(directory: Path, pattern: str = f".*{TEMPORARY_SUFFIX}") -> None:
    """Remove the temporaries in ``directory`` (matching ``pattern``) that runs which died left
    behind: those older than :data:`STALE_TEMPORARY_SECONDS`."""
    cutoff = time.time() - STALE_TEMPORARY_SECONDS
    for litter in directory.glob(pattern):
        with suppress(OSError):  # another run may remove it first
            if litter.stat().st_mtime < cutoff:
                litter.unlink()


@contextmanager
def locked(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_file`` (created if needed) between processes.

    ``flock`` (``msvcrt.locking`` on Windows) is released by the kernel when the holder exits, even
    by SIGKILL, so a dead run never leaves a stale lock behind.
    """
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if sys.platform == "win32":
            import msvcrt  # noqa: PLC0415

            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
        else:
            import fcntl  # noqa: PLC0415

            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
