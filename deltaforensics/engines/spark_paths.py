"""Where Spark finds a table's ``_delta_log``, and how a Spark read names its folders and files.

Hadoop paths are globs, so every name handed to Spark is escaped (:func:`escape_glob`); files
Spark returns carry a URL-encoded ``_metadata.file_path``, so a folder is compared in one
canonical form on both sides (:func:`log_dir_key` on the driver, :func:`spark_dir_key` in a
Spark expression).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from deltaforensics.log.storage import LOG_DIR, LogStore, SupportsLocalFiles

HADOOP_SCHEMES = ("abfss", "abfs", "wasbs", "wasb", "s3a", "s3", "gs", "hdfs", "dbfs")
COMMIT_GLOB = "?" * 20 + ".json"  # 20-digit commits; not checkpoints, compactions or junk
# Hadoop's LocalFileSystem verifies ``.<name>.crc`` files, and copied logs carry stale ones.
LOCAL_FS_OPTIONS = {
    "fs.file.impl": "org.apache.hadoop.fs.RawLocalFileSystem",
    "fs.file.impl.disable.cache": "true",
}
_SCHEME = "^([A-Za-z][A-Za-z0-9+.-]*):/*"


def spark_log_uri(store: LogStore) -> str | None:
    """Where Spark can read the store's ``_delta_log``, or None when it certainly cannot."""
    log_path = store.local_log_dir() if isinstance(store, SupportsLocalFiles) else None
    if log_path is not None:
        # A plain path: Hadoop would re-encode a percent-encoded URI, and it expands globs.
        return "file://" + escape_glob(Path(log_path).resolve().as_posix())
    scheme = store.uri.split("://", 1)[0].lower() if "://" in store.uri else ""
    if scheme in HADOOP_SCHEMES:
        return f"{store.uri.rstrip('/')}/{LOG_DIR}"
    return None


def escape_glob(path: str) -> str:
    """``path`` with Hadoop's glob characters escaped, so it names exactly one file."""
    return re.sub(r"([\\\[\]{}*?])", r"\\\1", path)


def spark_reader(spark: Any, *log_uris: str) -> Any:
    """``spark.read`` for files under these folders (local ones without Hadoop's checksums)."""
    if any(u.startswith("file:") for u in log_uris):
        return spark.read.options(**LOCAL_FS_OPTIONS)
    return spark.read


def log_dir_key(log_uri: str) -> str:
    """A folder URI as :func:`spark_dir_key` renders its files' folder."""
    plain = re.sub(r"\\(.)", r"\1", log_uri.rstrip("/"))  # glob escapes
    return re.sub(_SCHEME, r"\1:", plain)


def spark_dir_key(file_path: Any) -> Any:
    """``_metadata.file_path`` (a URL-encoded URI) -> its folder as :func:`log_dir_key` renders it."""
    from pyspark.sql import functions as F  # noqa: N812, PLC0415

    folder = F.regexp_replace(file_path, "/[^/]*$", "")
    decoded = F.url_decode(F.regexp_replace(folder, r"\+", "%2B"))
    return F.regexp_replace(decoded, _SCHEME, "$1:")


__all__ = [
    "COMMIT_GLOB",
    "HADOOP_SCHEMES",
    "LOCAL_FS_OPTIONS",
    "escape_glob",
    "log_dir_key",
    "spark_dir_key",
    "spark_log_uri",
    "spark_reader",
]
