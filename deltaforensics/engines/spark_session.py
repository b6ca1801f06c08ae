"""The Spark session the engine reads with, and the read-tuning confs it sets for one read.

A session is a process-wide resource: started once here (local: 127.0.0.1, no UI, ERROR logs)
or taken as the caller has it (a notebook's, a cluster's), whose own settings are restored
after each read.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

READ_CONF = {"spark.sql.files.openCostInBytes": "8192"}  # pack many tiny files per task
LOCAL_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    **READ_CONF,
}

_SESSION_LOCK = threading.Lock()


def spark_session(master: str = "local[2]", conf: Mapping[str, str] | None = None) -> Any:
    """The process-wide session: started once (local: 127.0.0.1, no UI, ERROR logs), then reused.

    An active session (a notebook's, a cluster's) is returned as is; ``master`` and ``conf`` only
    shape a session this function starts.
    """
    from pyspark.sql import SparkSession  # noqa: PLC0415 - pyspark is an optional extra

    with _SESSION_LOCK:
        active = SparkSession.getActiveSession()
        if active is not None:
            return active
        local = master.startswith("local")
        if local:
            os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = SparkSession.builder.master(master).appName("deltaforensics")
        for key, value in {**(LOCAL_CONF if local else READ_CONF), **(conf or {})}.items():
            builder = builder.config(key, value)
        session = builder.getOrCreate()  # the default session, if one is running
        session.sparkContext.setLogLevel("ERROR")
        return session


@contextmanager
def runtime_conf(spark: Any, conf: Mapping[str, str]) -> Iterator[None]:
    """Set read-tuning SQL confs for one read, then restore the session's own values."""
    before = {k: spark.conf.get(k, None) for k in conf}
    for key, value in conf.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


__all__ = ["LOCAL_CONF", "READ_CONF", "runtime_conf", "spark_session"]
