"""A library's log lines held back while the tool reports the same thing in its own words."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def quiet_logger(name: str) -> Iterator[None]:
    """Only errors from the logger ``name`` (and its children) while the block runs: sqlglot's
    fallback warning, the databricks-sdk's failed host-metadata probe."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)
