"""Readers of the records Spark keeps outside a table: event logs and driver logs.

I/O at the edge: files come through :class:`deltaforensics.log.file_tree.FileTree` (local paths,
``abfss://`` …), are decoded in pieces (:mod:`.codecs`: zstd, Spark's lz4/snappy/lzf framing,
gzip) and scanned (:mod:`.eventlog`, :mod:`.driverlog`) into
:class:`deltaforensics.failures.FailedStatement` values; :func:`harvest` hands them to the pure
matching of :mod:`deltaforensics.failures`.
"""

from deltaforensics.sources.harvest import (
    LogGroup,
    SourceReading,
    group_files,
    harvest,
    read_failures,
)

__all__ = ["LogGroup", "SourceReading", "group_files", "harvest", "read_failures"]
