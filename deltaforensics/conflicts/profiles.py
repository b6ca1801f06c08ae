"""Engine profiles: which checker ran for a committing transaction, and how it behaves.

Chosen per transaction from ``engineInfo`` / ``clientVersion`` (semantics doc §C), overridable.
Eras of Delta-Spark follow the rule-order history (§A.8) and metadata tolerances (§A.5 rule 2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from deltaforensics.model.ids import IsolationLevel

ENGINES = ("delta-spark", "databricks", "delta-rs", "kernel")


@dataclass(frozen=True, slots=True, kw_only=True)
class Profile:
    name: str
    engine: str
    version: tuple[int, ...] = ()
    rule_order: tuple[str, ...] = ()
    default_isolation: IsolationLevel = IsolationLevel.SERIALIZABLE
    metadata_allow_list: bool = False  # OSS >= 4.1 lets allow-listed property changes pass
    identity_tolerance: bool = False  # OSS >= 3.3 lets identity-high-water-mark winners pass
    row_level_concurrency: bool = False  # Databricks >= 14.2 on DV tables w/o partitions, liquid
    dv_optimize_tolerance: bool = False  # Databricks: OPTIMIZE vs DML on DV tables only with ZORDER
    stats_matching: bool = False  # delta-rs prunes winner adds with min/max stats
    appends_read_all_files: bool = False  # delta-rs: no predicate => read files = every file
    data_change_removes_only: bool = (
        False  # delta-rs >= python-v1.3.0 ignores dataChange=false removes
    )
    camel_case_isolation_only: bool = False  # delta-rs parses delta.isolationLevel camelCase only
    checks_added_files: bool = True  # Kernel-Java does no added/read-file checks
    checks_read_files: bool = True
    blind_loser_shortcut: bool = (
        True  # Spark >= 3.1: a blind-append loser skips the added-files check
    )
    inferred: bool = True  # chosen from commitInfo, not forced by --profile

    @property
    def label(self) -> str:
        return self.name

    def forced(self) -> Profile:
        return replace(self, inferred=False)


SPARK_ORDER_32 = ("DC005", "DC001", "DC002", "DC003", "DC004", "DC010", "DC011", "DC012")
SPARK_ORDER_30 = ("DC005", "DC001", "DC002", "DC010", "DC011", "DC012", "DC004", "DC003")
SPARK_ORDER_OLD = ("DC005", "DC001", "DC002", "DC010", "DC011", "DC012", "DC004")
DELTA_RS_ORDER = ("DC001", "DC002", "DC010", "DC011", "DC012", "DC004")
KERNEL_ORDER = ("DC001", "DC002", "DC003", "DC004", "DC012")


def delta_spark(version: tuple[int, ...] = (4, 1)) -> Profile:
    v = version or (4, 1)
    order = SPARK_ORDER_32 if v >= (3, 2) else SPARK_ORDER_30 if v >= (3, 0) else SPARK_ORDER_OLD
    era = "≥4.1" if v >= (4, 1) else "3.2–4.0" if v >= (3, 2) else "≤3.1"
    return Profile(
        name=f"delta-spark {'.'.join(map(str, v))} ({era})",
        engine="delta-spark",
        version=v,
        rule_order=order,
        metadata_allow_list=v >= (4, 1),
        identity_tolerance=v >= (3, 3),
        blind_loser_shortcut=v >= (3, 1),
    )


def databricks(version: tuple[int, ...] = (15, 4)) -> Profile:
    v = version or (15, 4)
    return Profile(
        name=f"databricks {'.'.join(map(str, v))}",
        engine="databricks",
        version=v,
        rule_order=SPARK_ORDER_32,
        default_isolation=IsolationLevel.WRITE_SERIALIZABLE,
        row_level_concurrency=v >= (14, 2),
        dv_optimize_tolerance=True,
    )


def delta_rs(version: tuple[int, ...] = (1, 6)) -> Profile:
    v = version or (1, 6)
    return Profile(
        name=f"delta-rs {'.'.join(map(str, v))}",
        engine="delta-rs",
        version=v,
        rule_order=DELTA_RS_ORDER,
        stats_matching=True,
        appends_read_all_files=True,
        data_change_removes_only=v >= (1, 3),
        camel_case_isolation_only=True,
        blind_loser_shortcut=False,
    )


def kernel(version: tuple[int, ...] = ()) -> Profile:
    return Profile(
        name="delta-kernel",
        engine="kernel",
        version=version,
        rule_order=KERNEL_ORDER,
        checks_added_files=False,
        checks_read_files=False,
        blind_loser_shortcut=False,
    )


def _numbers(text: str) -> tuple[int, ...]:
    m = re.match(r"(\d+(?:\.\d+)*)", text)
    return tuple(int(x) for x in m.group(1).split(".")) if m else ()


def profile_for(engine_info: str | None, client_version: str | None = None) -> Profile:
    """The checker that most likely ran for a commit, from what the writer recorded."""
    info = engine_info or ""
    client = client_version or ""
    if m := re.search(r"Databricks-Runtime/(\S+)", info):
        return databricks(_numbers(m.group(1)))
    if m := re.search(r"Delta-Lake/(\S+)", info):
        return delta_spark(_numbers(m.group(1)))
    if m := re.search(r"delta-rs[:.](?:py-)?(\S+)", info + " " + client):
        return delta_rs(_numbers(m.group(1)))
    if info.startswith("Kernel") or "kernel" in info.lower():
        return kernel()
    return delta_spark()


def profile_by_name(name: str) -> Profile:
    """``--profile`` values: ``delta-spark[-X.Y]``, ``databricks[-X.Y]``, ``delta-rs[-X.Y]``, ``kernel``."""
    m = re.fullmatch(
        r"(delta-spark|databricks|delta-rs|kernel)(?:[-@ ]?(\d+(?:\.\d+)*))?", name.strip().lower()
    )
    if not m:
        raise ValueError(
            f"unknown profile {name!r}; use delta-spark[-X.Y], databricks[-X.Y], delta-rs[-X.Y] or kernel"
        )
    version = _numbers(m.group(2) or "")
    factory = {
        "delta-spark": delta_spark,
        "databricks": databricks,
        "delta-rs": delta_rs,
        "kernel": kernel,
    }[m.group(1)]
    return factory(version).forced()


def parse_isolation(value: str | None, profile: Profile) -> IsolationLevel | None:
    """How this engine parses a ``delta.isolationLevel`` value; ``None`` = not honoured."""
    if value is None:
        return None
    if profile.camel_case_isolation_only:
        return {
            "serializable": IsolationLevel.SERIALIZABLE,
            "writeSerializable": IsolationLevel.WRITE_SERIALIZABLE,
            "snapshotIsolation": IsolationLevel.SNAPSHOT_ISOLATION,
        }.get(value)
    lowered = value.strip().lower()
    for level in (IsolationLevel.SERIALIZABLE, IsolationLevel.WRITE_SERIALIZABLE):
        if lowered == level.value.lower():
            return level
    return None
