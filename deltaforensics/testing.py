"""``LogBuilder``: write realistic ``_delta_log`` commits into a local folder, like a timeline.

Tests and sample tables need logs that look like what Spark, Databricks, delta-rs or Kernel
actually write, because the analyzer's whole job is to read those differences: Spark records
``readVersion``/``isolationLevel``/``isBlindAppend``/``txnId`` and predicates with expression ids
(``(date#123 = A)``), delta-rs records none of the first three and plain SQL predicates, Kernel-Java
always says ``isBlindAppend: false`` (delta-conflict-semantics.md §B and §C). The builder picks those
shapes from a ``writer`` string and lets every field be overridden.

Output is deterministic: a fixed clock (``step_seconds`` per commit) and a seeded random source for
uuids, expression ids and timings, so golden tests stay stable.

    b = LogBuilder(tmp_path, columns={"id": "long", "date": "string"}, partition_by=["date"])
    b.create()                                                    # v0
    b.write(add=[b.file("date=A"), b.file("date=B")])             # v1, a blind append
    b.write(add=[b.file("date=A")])                               # v2, another one
    b.delete("date = 'A' AND id = 5", read_version=1,             # v3, rebased over v2
             remove=[b.live_files("date=A")[0]["path"]], add=[b.file("date=A")])

Only a local folder is written; ``DeltaTable(path)`` (delta-rs) loads the result even though the
parquet data files do not exist.
"""

from __future__ import annotations

import json
import random
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack
from urllib.parse import quote

import pyarrow as pa
import pyarrow.parquet as pq

from deltaforensics.log.paths import commit_name
from deltaforensics.model.actions import Protocol
from deltaforensics.model.ids import IsolationLevel, dv_unique_id

Action = dict[str, Any]
DEFAULT_START_MS = 1_704_067_200_000  # 2024-01-01T00:00:00Z
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"

# ---------------------------------------------------------------------------------------------
# Writers


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = tuple(int(p) for p in re.findall(r"\d+", text)[:3])
    return parts + (0,) * (3 - len(parts))


def _dotted(v: tuple[int, ...]) -> str:
    return ".".join(str(p) for p in v)


def _spark_for_delta(delta: tuple[int, ...]) -> str:
    """The Apache Spark release a given Delta-Spark release was built for."""
    table = (
        ((4, 0), "4.0.0"),
        ((3, 0), "3.5.0"),
        ((2, 4), "3.4.0"),
        ((2, 1), "3.3.0"),
        ((1, 1), "3.2.0"),
        ((1, 0), "3.1.0"),
        ((0, 8), "3.0.0"),
    )
    for floor, spark in table:
        if delta[:2] >= floor:
            return spark
    return "2.4.0"


@dataclass(frozen=True, slots=True, kw_only=True)
class Writer:
    """Which engine wrote a commit; decides the commitInfo shape (semantics doc §C).

    ``spark-<delta version>``, ``databricks-<dbr>[-photon]``, ``delta-rs-<python version>``,
    ``kernel-java[-<version>]``; a bare family name picks a recent release.
    """

    family: str  # "spark" | "databricks" | "delta-rs" | "kernel-java"
    version: tuple[int, ...]
    engine_info: str | None
    client_version: str | None = None

    @classmethod
    def parse(cls, spec: str) -> Writer:
        text = spec.strip().lower()
        for family, default in (
            ("databricks", "14.3"),
            ("delta-rs", "1.6.6"),
            ("kernel-java", "3.3.0"),
            ("spark", "3.2.0"),
        ):
            if text == family or text.startswith(family + "-"):
                rest = text[len(family) + 1 :] or default
                break
        else:
            raise ValueError(
                f"unknown writer {spec!r}: use spark-, databricks-, delta-rs-, kernel-java"
            )
        v = _version_tuple(rest)
        if family == "spark":
            spark = f"Apache-Spark/{_spark_for_delta(v)} Delta-Lake/{_dotted(v)}"
            return cls(family=family, version=v, engine_info=spark if v >= (1, 0, 0) else None)
        if family == "databricks":
            scala = "2.13" if v[0] >= 17 else "2.12"
            photon = "photon-" if "photon" in rest else ""
            engine = f"Databricks-Runtime/{v[0]}.{v[1]}.x-{photon}scala{scala}"
            return cls(family=family, version=v, engine_info=engine)
        if family == "delta-rs":
            return cls(
                family=family,
                version=v,
                engine_info=f"delta-rs:py-{_dotted(v)}" if v >= (1, 1, 0) else None,
                client_version=f"delta-rs.py-{_dotted(v)}",
            )
        return cls(family=family, version=v, engine_info=f"Kernel-{_dotted(v)}/LogBuilder")

    @property
    def is_spark_like(self) -> bool:
        return self.family in ("spark", "databricks")

    @property
    def unified_predicates(self) -> bool:
        """Delta ≥2.4 (and every Databricks runtime we model) logs ``["<simpleString>", ...]``."""
        return self.family == "databricks" or self.version >= (2, 4, 0)


# ---------------------------------------------------------------------------------------------
# A tiny SQL predicate subset, rendered the way each writer logs it


@dataclass(frozen=True, slots=True)
class _Col:
    qualifier: str | None
    name: str


@dataclass(frozen=True, slots=True)
class _Lit:
    value: str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class _Cmp:
    op: str
    left: _Expr
    right: _Expr


@dataclass(frozen=True, slots=True)
class _Bool:
    op: str  # "AND" | "OR"
    items: tuple[_Expr, ...]


@dataclass(frozen=True, slots=True)
class _Not:
    child: _Expr


@dataclass(frozen=True, slots=True)
class _In:
    child: _Expr
    items: tuple[_Lit, ...]
    negated: bool


@dataclass(frozen=True, slots=True)
class _IsNull:
    child: _Expr
    negated: bool


_Expr = _Col | _Lit | _Cmp | _Bool | _Not | _In | _IsNull
_TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+(?:\.\d+)?)"
    r"|(?P<ident>`[^`]+`|\"[^\"]+\"|[A-Za-z_][A-Za-z0-9_]*)|(?P<op><=|>=|<>|!=|=|<|>|\(|\)|,|\.|-))"
)
_KEYWORDS = {"AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE"}


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        pos, text = 0, text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                raise ValueError(f"cannot parse predicate near {text[pos:]!r}")
            kind = m.lastgroup or ""
            value = m.group(kind)
            if kind == "ident" and value.upper() in _KEYWORDS:
                kind, value = "kw", value.upper()
            elif kind == "ident" and value[0] in '`"':
                value = value[1:-1]
            self.tokens.append((kind, value))
            pos = m.end()
        self.i = 0

    def parse(self) -> _Expr:
        expr = self._bool("OR")
        if self.i != len(self.tokens):
            raise ValueError(f"unexpected {self.tokens[self.i][1]!r}")
        return expr

    def _peek(self, value: str) -> bool:
        return self.i < len(self.tokens) and self.tokens[self.i][1] == value

    def _take(self, value: str) -> None:
        if not self._peek(value):
            raise ValueError(f"expected {value!r}")
        self.i += 1

    def _bool(self, op: str) -> _Expr:
        items = [self._bool("AND") if op == "OR" else self._not()]
        while self._peek(op):
            self.i += 1
            items.append(self._bool("AND") if op == "OR" else self._not())
        return items[0] if len(items) == 1 else _Bool(op, tuple(items))

    def _not(self) -> _Expr:
        if self._peek("NOT"):
            self.i += 1
            return _Not(self._not())
        return self._predicate()

    def _predicate(self) -> _Expr:
        left = self._operand()
        if self.i >= len(self.tokens):
            return left
        kind, value = self.tokens[self.i]
        if kind == "op" and value in ("=", "!=", "<>", "<", "<=", ">", ">="):
            self.i += 1
            return _Cmp("!=" if value == "<>" else value, left, self._operand())
        negated = (
            self._peek("NOT")
            and self.i + 1 < len(self.tokens)
            and self.tokens[self.i + 1][1] == "IN"
        )
        if negated:
            self.i += 1
        if self._peek("IN"):
            self.i += 1
            self._take("(")
            items = [self._literal()]
            while self._peek(","):
                self.i += 1
                items.append(self._literal())
            self._take(")")
            return _In(left, tuple(items), negated)
        if self._peek("IS"):
            self.i += 1
            is_not = self._peek("NOT")
            if is_not:
                self.i += 1
            self._take("NULL")
            return _IsNull(left, is_not)
        return left

    def _operand(self) -> _Expr:
        if self._peek("("):
            self.i += 1
            inner = self._bool("OR")
            self._take(")")
            return inner
        kind, value = self.tokens[self.i] if self.i < len(self.tokens) else ("", "")
        if kind == "ident":
            self.i += 1
            if self._peek("."):
                self.i += 1
                name = self.tokens[self.i][1]
                self.i += 1
                return _Col(value, name)
            return _Col(None, value)
        return self._literal()

    def _literal(self) -> _Lit:
        if self.i >= len(self.tokens):
            raise ValueError("predicate ends early")
        negative = self._peek("-")
        if negative:
            self.i += 1
        kind, value = self.tokens[self.i]
        self.i += 1
        if kind == "str":
            return _Lit(value[1:-1].replace("''", "'"))
        if kind == "num":
            number: int | float = float(value) if "." in value else int(value)
            return _Lit(-number if negative else number)
        if kind == "kw" and value in ("TRUE", "FALSE", "NULL"):
            return _Lit(None if value == "NULL" else value == "TRUE")
        raise ValueError(f"expected a literal, got {value!r}")


def parse_predicate(text: str) -> _Expr:
    """Parse the SQL subset tests use: comparisons, AND/OR/NOT, [NOT] IN, IS [NOT] NULL."""
    return _Parser(text).parse()


def _lit_text(lit: _Lit, *, quoted: bool) -> str:
    v = lit.value
    if v is None:
        return "NULL" if quoted else "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'" if quoted else v
    return str(v)


class _ExprIds:
    """Spark expression ids for one query: every column gets a fresh ``#<id>`` per query."""

    def __init__(self, base: int, types: Mapping[str, str], target_alias: str | None) -> None:
        self.next, self.types, self.target = base, types, target_alias
        self.ids: dict[tuple[bool, str], int] = {}

    def attr(self, col: _Col) -> str:
        is_source = col.qualifier is not None and col.qualifier != self.target
        key = (is_source, col.name)
        if key not in self.ids:
            self.ids[key] = self.next
            self.next += 1 + (self.next % 3)
        suffix = "L" if self.types.get(col.name) == "long" else ""
        return f"{col.name}#{self.ids[key]}{suffix}"


def _spark_simple(e: _Expr, ids: _ExprIds) -> str:
    """Catalyst ``simpleString`` as Delta ≥2.4 logs it: ``((date#12 = A) AND (id#45L = 5))``."""
    match e:
        case _Col():
            return ids.attr(e)
        case _Lit():
            return _lit_text(e, quoted=False)
        case _Cmp(op="!="):
            return f"NOT ({_spark_simple(e.left, ids)} = {_spark_simple(e.right, ids)})"
        case _Cmp():
            return f"({_spark_simple(e.left, ids)} {e.op} {_spark_simple(e.right, ids)})"
        case _Bool():
            text = _spark_simple(e.items[0], ids)
            for item in e.items[1:]:
                text = f"({text} {e.op} {_spark_simple(item, ids)})"
            return text
        case _Not():
            return f"NOT {_spark_simple(e.child, ids)}"
        case _In():
            body = f"{_spark_simple(e.child, ids)} IN ({','.join(_lit_text(i, quoted=False) for i in e.items)})"
            return f"NOT {body}" if e.negated else body
        case _IsNull():
            return f"{'isnotnull' if e.negated else 'isnull'}({_spark_simple(e.child, ids)})"
    raise AssertionError(e)  # pragma: no cover - exhaustive


def _spark_sql(e: _Expr, types: Mapping[str, str], backticks: bool, long_ctx: bool = False) -> str:
    """``Expression.sql`` as Delta <2.4 logged DELETE/OPTIMIZE (and MERGE, unwrapped)."""
    match e:
        case _Col():
            name = (
                f"`{e.name}`" if backticks or not re.fullmatch(r"[A-Za-z_]\w*", e.name) else e.name
            )
            return f"{e.qualifier}.{name}" if e.qualifier else name
        case _Lit():
            text = _lit_text(e, quoted=True)
            return f"{text}L" if long_ctx and isinstance(e.value, int) else text
        case _Cmp():
            is_long = any(
                isinstance(s, _Col) and types.get(s.name) == "long" for s in (e.left, e.right)
            )
            left, right = (_spark_sql(s, types, backticks, is_long) for s in (e.left, e.right))
            return f"(NOT ({left} = {right}))" if e.op == "!=" else f"({left} {e.op} {right})"
        case _Bool():
            text = _spark_sql(e.items[0], types, backticks)
            for item in e.items[1:]:
                text = f"({text} {e.op} {_spark_sql(item, types, backticks)})"
            return text
        case _Not():
            return f"(NOT {_spark_sql(e.child, types, backticks)})"
        case _In():
            items = ", ".join(_lit_text(i, quoted=True) for i in e.items)
            body = f"({_spark_sql(e.child, types, backticks)} IN ({items}))"
            return f"(NOT {body})" if e.negated else body
        case _IsNull():
            return f"({_spark_sql(e.child, types, backticks)} IS {'NOT ' if e.negated else ''}NULL)"
    raise AssertionError(e)  # pragma: no cover - exhaustive


def _delta_rs_sql(e: _Expr, parent: str | None = None) -> str:
    """delta-rs ``fmt_expr_to_sql``: no redundant parentheses, ``IN`` expanded, ``<>`` as ``!=``."""
    match e:
        case _Col():
            return e.name
        case _Lit():
            return _lit_text(e, quoted=True)
        case _Cmp():
            return f"{_delta_rs_sql(e.left)} {e.op} {_delta_rs_sql(e.right)}"
        case _Bool():
            text = f" {e.op} ".join(_delta_rs_sql(i, e.op) for i in e.items)
            return f"({text})" if e.op == "OR" and parent in ("AND", "NOT") else text
        case _Not():
            return f"NOT {_delta_rs_sql(e.child, 'NOT')}"
        case _In():
            op, joiner = ("!=", "AND") if e.negated else ("=", "OR")
            expanded = _Bool(joiner, tuple(_Cmp(op, e.child, i) for i in e.items))
            return _delta_rs_sql(expanded if len(e.items) > 1 else expanded.items[0], parent)
        case _IsNull():
            return f"{_delta_rs_sql(e.child)} IS {'NOT ' if e.negated else ''}NULL"
    raise AssertionError(e)  # pragma: no cover - exhaustive


def _conjuncts(e: _Expr) -> tuple[_Expr, ...]:
    return e.items if isinstance(e, _Bool) and e.op == "AND" else (e,)


def _evaluate(e: _Expr, values: Mapping[str, str | None]) -> bool | None:
    """Three-valued evaluation over logical partition values; raises KeyError on data columns."""

    def scalar(x: _Expr) -> str | int | float | bool | None:
        if isinstance(x, _Col):
            return values[x.name]
        if isinstance(x, _Lit):
            return x.value
        raise KeyError("nested boolean in a comparison")

    def compare(op: str, a: Any, b: Any) -> bool | None:
        if a is None or b is None:
            return None
        if isinstance(a, str) != isinstance(b, str):
            try:
                a, b = float(a), float(b)
            except ValueError:
                a, b = str(a), str(b)
        ops = {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}
        return bool(ops[op])

    match e:
        case _Cmp():
            return compare(e.op, scalar(e.left), scalar(e.right))
        case _Bool():
            results = [_evaluate(i, values) for i in e.items]
            decisive = e.op == "OR"
            if decisive in results:
                return decisive
            return None if None in results else not decisive
        case _Not():
            inner = _evaluate(e.child, values)
            return None if inner is None else not inner
        case _In():
            v = scalar(e.child)
            hits = [compare("=", v, i.value) for i in e.items]
            found = True if True in hits else (None if None in hits else False)
            return found if not e.negated or found is None else not found
        case _IsNull():
            return (scalar(e.child) is None) != e.negated
        case _:
            v = scalar(e)
            return None if v is None else bool(v)


# ---------------------------------------------------------------------------------------------
# Small helpers


_Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"


def _z85(data: bytes) -> str:
    """Z85 (ZeroMQ RFC 32), which Delta uses to encode deletion-vector file uuids."""
    out = []
    for i in range(0, len(data), 4):
        value = int.from_bytes(data[i : i + 4], "big")
        out.append("".join(_Z85[(value // 85**k) % 85] for k in range(4, -1, -1)))
    return "".join(out)


def _hive_escape(value: str) -> str:
    special = set("\"#%'*/:=?\\\x7f{[]^") | {chr(c) for c in range(0x20)}
    return "".join(f"%{ord(c):02X}" if c in special else c for c in value)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _parse_partition(spec: str | Mapping[str, str | None] | None) -> dict[str, str | None]:
    if spec is None:
        return {}
    if isinstance(spec, Mapping):
        return dict(spec)
    out: dict[str, str | None] = {}
    for part in spec.strip("/").split("/"):
        key, sep, value = part.partition("=")
        if not sep:
            raise ValueError(f"partition {spec!r}: expected col=value[/col=value]")
        out[key] = None if value == HIVE_NULL else value
    return out


def _stats_rows(f: Mapping[str, Any]) -> int:
    try:
        return int(json.loads(f.get("stats") or "{}").get("numRecords", 0))
    except (TypeError, ValueError):
        return 0


def _file_key(f: Mapping[str, Any]) -> tuple[str, str]:
    dv = f.get("deletionVector") or {}
    return f["path"], dv_unique_id(
        dv.get("storageType"), dv.get("pathOrInlineDv"), dv.get("offset")
    )


_SPARK_CI_ORDER = (
    "inCommitTimestamp", "timestamp", "userId", "userName", "operation", "operationParameters",
    "job", "notebook", "clusterId", "readVersion", "isolationLevel", "isBlindAppend",
    "operationMetrics", "userMetadata", "tags", "engineInfo", "txnId",
)  # fmt: skip
_DELTA_RS_CI_ORDER = (
    "timestamp", "operation", "operationParameters", "readVersion", "isolationLevel",
    "isBlindAppend", "engineInfo", "operationMetrics", "clientVersion", "userMetadata",
)  # fmt: skip
_KERNEL_CI_ORDER = (
    "inCommitTimestamp", "timestamp", "engineInfo", "operation", "operationParameters",
    "isBlindAppend", "txnId", "operationMetrics",
)  # fmt: skip
_BLIND_OPERATIONS = frozenset(
    {"WRITE", "STREAMING UPDATE", "CREATE TABLE", "CREATE TABLE AS SELECT", "SET TBLPROPERTIES",
     "UNSET TBLPROPERTIES", "ADD COLUMNS", "ADD COLUMN", "DROP COLUMNS", "RENAME COLUMN",
     "CHANGE COLUMN", "UPGRADE PROTOCOL", "ADD FEATURE", "DROP CONSTRAINT", "SET TRANSACTION"}
)  # fmt: skip
_DELTA_RS_READ_VERSION_OPS = frozenset({"DELETE", "UPDATE", "MERGE", "OPTIMIZE", "RESTORE"})
_DBR_STATS_ON_LOAD_OPS = frozenset({"WRITE", "CREATE TABLE", "CREATE TABLE AS SELECT", "MERGE"})


class CommitOptions(TypedDict, total=False):
    """Keyword options every operation accepts (all optional)."""

    read_version: int | None  # default: the previous version (no race); None for creates
    isolation: str | IsolationLevel | None  # default: derived per writer and table property
    blind: bool | None  # isBlindAppend; default: all file actions are adds and nothing was read
    timestamp: int | None  # commitInfo.timestamp in ms; default: the builder's clock
    actions: Sequence[Action]  # extra actions (txn, domainMetadata, cdc ...) added as given
    commit_info_extra: Mapping[str, Any]  # merged into commitInfo; a None value drops the key
    omit_commit_info: bool  # write no commitInfo at all (third-party writers, scenario 42)
    writer: str  # this commit only, e.g. a delta-rs append into a Spark table
    metrics: Mapping[str, Any]  # merged into operationMetrics


# ---------------------------------------------------------------------------------------------
# The builder


class LogBuilder:
    """Write a ``_delta_log`` commit by commit; every method returns the version it wrote.

    File actions come from :meth:`file` (fresh adds) and :meth:`live_files` (what is there to
    remove). ``remove=`` takes paths of live files or add dicts; an add dict is removed even if
    it is no longer live, which is how a double remove (silent duplication) is written.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        columns: Mapping[str, str] | None = None,
        partition_by: Sequence[str] = (),
        writer: str = "spark-3.2.0",
        configuration: Mapping[str, str] | None = None,
        protocol: Mapping[str, Any] | None = None,
        table_name: str | None = None,
        start_ms: int = DEFAULT_START_MS,
        step_seconds: float = 60,
        seed: int = 0,
        checkpoint_interval: int | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> None:
        self.path = Path(path)
        self.log_dir = self.path / "_delta_log"
        self.writer = Writer.parse(writer)
        self.partition_by = tuple(partition_by)
        self.columns = dict(columns or {"id": "long", **dict.fromkeys(self.partition_by, "string")})
        missing = [c for c in self.partition_by if c not in self.columns]
        if missing:
            raise ValueError(f"partition columns {missing} are not in columns")
        self.table_name = table_name
        self.configuration = dict(configuration or {})
        self.checkpoint_interval = checkpoint_interval
        self.version = -1
        self.commits: list[list[Action]] = []
        self.timestamps: list[int] = []
        self._rng = random.Random(seed)  # noqa: S311 - reproducible test data, not secrets
        self._now = start_ms
        self._step_ms = int(step_seconds * 1000)
        self._part = 0
        self._expr_ids = 100 + self._rng.randrange(900)
        self._physical: dict[str, str] = {}
        self._max_column_id = 0
        self._explicit_protocol = dict(protocol) if protocol else None
        self._last_ict: int | None = None
        self._context = dict(context) if context is not None else self._default_context()
        self.metadata = self._metadata_action(self.columns, self.configuration)
        self.protocol = self._protocol_action()

    # -- clock, ids and context ---------------------------------------------------------------

    def uuid(self) -> str:
        """A seeded uuid4 string (file names, txnIds, query ids)."""
        return str(uuid.UUID(int=self._rng.getrandbits(128), version=4))

    def advance(self, seconds: float) -> None:
        """Move the clock forward (an idle period between jobs)."""
        self._now += int(seconds * 1000)

    def time_of(self, version: int) -> int:
        return self.timestamps[version]

    def _default_context(self) -> dict[str, Any]:
        if self.writer.family != "databricks":
            return {}
        return {
            "userId": str(4_000_000_000_000_000 + self._rng.randrange(10**15)),
            "userName": "etl@example.com",
            "notebook": {"notebookId": str(10**15 + self._rng.randrange(10**15))},
            "clusterId": f"0101-{self._rng.randrange(10**6):06d}-abc{self._rng.randrange(10**5):05d}",
        }

    @staticmethod
    def job_context(
        job_id: int | str,
        run_id: int | str,
        *,
        job_name: str = "job",
        cluster_id: str = "0101-120000-jobcl001",
        user_id: str = "4000000000000001",
        user_name: str = "svc-etl@example.com",
        trigger_type: str = "cron",
    ) -> dict[str, Any]:
        """Databricks commitInfo fields of a job run; pass as ``commit_info_extra``."""
        return {
            "userId": user_id,
            "userName": user_name,
            "job": {
                "jobId": str(job_id),
                "jobName": job_name,
                "jobRunId": str(run_id),
                "runId": str(run_id),
                "jobOwnerId": user_id,
                "triggerType": trigger_type,
            },
            "notebook": None,
            "clusterId": cluster_id,
        }

    # -- schema, metadata, protocol -------------------------------------------------------

    @property
    def column_mapping(self) -> str:
        return self.configuration.get("delta.columnMapping.mode", "none").lower()

    def physical_name(self, logical: str) -> str:
        return self._physical.get(logical, logical) if self.column_mapping != "none" else logical

    def _field(self, name: str, type_name: str) -> dict[str, Any]:
        metadata: dict[str, Any] = {}
        if self.column_mapping != "none":
            self._max_column_id += 1
            self._physical.setdefault(name, f"col-{self.uuid()}")
            metadata = {
                "delta.columnMapping.id": self._max_column_id,
                "delta.columnMapping.physicalName": self._physical[name],
            }
        return {"name": name, "type": type_name, "nullable": True, "metadata": metadata}

    def _metadata_action(self, columns: Mapping[str, str], config: Mapping[str, str]) -> Action:
        fields = [self._field(n, t) for n, t in columns.items()]
        self._fields = fields
        conf = dict(config)
        if self.column_mapping != "none":
            conf["delta.columnMapping.maxColumnId"] = str(self._max_column_id)
        self.configuration = conf
        return {
            "id": self.uuid(),
            "name": self.table_name,
            "description": None,
            "format": {"provider": "parquet", "options": {}},
            "schemaString": _dumps({"type": "struct", "fields": fields}),
            "partitionColumns": list(self.partition_by),
            "configuration": conf,
            "createdTime": self._now,
        }

    def _protocol_action(self) -> Action:
        if self._explicit_protocol is not None:
            return dict(self._explicit_protocol)
        conf = {k: v.lower() for k, v in self.configuration.items()}
        reader: list[str] = []
        writer: list[str] = []
        if conf.get("delta.enableDeletionVectors") == "true":
            reader.append("deletionVectors")
            writer.append("deletionVectors")
        if self.column_mapping != "none":
            reader.append("columnMapping")
            writer.append("columnMapping")
        legacy = [
            (conf.get("delta.appendOnly") == "true", "appendOnly", 2),
            (any(k.startswith("delta.constraints.") for k in conf), "checkConstraints", 3),
            (conf.get("delta.enableChangeDataFeed") == "true", "changeDataFeed", 4),
        ]
        if "deletionVectors" in reader or conf.get("delta.enableRowTracking") == "true":
            writer += [name for on, name, _ in legacy if on]
            if conf.get("delta.enableRowTracking") == "true":
                writer += ["domainMetadata", "rowTracking"]
            return {
                "minReaderVersion": 3 if reader else 1,
                "minWriterVersion": 7,
                **({"readerFeatures": reader} if reader else {}),
                "writerFeatures": writer,
            }
        min_writer = max([2] + [level for on, _, level in legacy if on])
        if self.column_mapping != "none":
            return {"minReaderVersion": 2, "minWriterVersion": 5}
        return {"minReaderVersion": 1, "minWriterVersion": min_writer}

    def _refresh_metadata(self, columns: Mapping[str, str], config: Mapping[str, str]) -> Action:
        """New metaData keeping id and createdTime; new columns get mapping ids if enabled."""
        self.configuration = dict(config)
        for name, type_name in columns.items():
            if name not in self.columns:
                self._fields.append(self._field(name, type_name))
        self.columns.update(columns)
        if self.column_mapping != "none":
            self.configuration["delta.columnMapping.maxColumnId"] = str(self._max_column_id)
        return {
            **self.metadata,
            "schemaString": _dumps({"type": "struct", "fields": self._fields}),
            "configuration": dict(self.configuration),
        }

    def _table_isolation(self, writer: Writer) -> str:
        configured = self.configuration.get("delta.isolationLevel")
        if writer.family == "databricks":
            return configured or IsolationLevel.WRITE_SERIALIZABLE
        if writer.family == "spark" and writer.version >= (2, 1, 0) and configured:
            return configured
        return IsolationLevel.SERIALIZABLE

    # -- files --------------------------------------------------------------------------------

    def file(
        self,
        partition: str | Mapping[str, str | None] | None = None,
        *,
        size: int | None = None,
        rows: int | None = None,
        stats: Mapping[str, Any] | None = None,
        dv: int | Mapping[str, Any] | None = None,
        tags: Mapping[str, str] | None = None,
        path: str | None = None,
    ) -> Action:
        """A fresh add action; ``partition`` is ``"date=A"`` (logical names) or a dict.

        ``stats`` keys are logical column names (mapped to physical ones under column mapping);
        ``numRecords`` defaults to ``rows``. ``dv`` is a cardinality or a full descriptor.
        """
        values = _parse_partition(partition)
        if set(values) != set(self.partition_by):
            raise ValueError(
                f"partition {partition!r} does not match partition_by {self.partition_by}"
            )
        rows = rows if rows is not None else 1000 + self._rng.randrange(99_000)
        body: dict[str, Any] = {"numRecords": rows, **(stats or {})}
        for key in ("minValues", "maxValues", "nullCount"):
            if isinstance(body.get(key), Mapping):
                body[key] = {self.physical_name(k): v for k, v in body[key].items()}
        if path is None:
            path = self._new_path(values)
        add: Action = {
            "path": path,
            "partitionValues": {self.physical_name(c): values[c] for c in self.partition_by},
            "size": size if size is not None else max(600, rows * 24 + self._rng.randrange(4096)),
            "modificationTime": None,  # stamped by the commit
            "dataChange": True,
            "stats": _dumps(body),
            "tags": dict(tags) if tags else None,
        }
        if dv is not None:
            add = (
                self.with_dv(add, cardinality=dv)
                if isinstance(dv, int)
                else {**add, "deletionVector": dict(dv)}
            )
        return add

    def _new_path(self, values: Mapping[str, str | None]) -> str:
        name_uuid = self.uuid()
        n = self._part
        self._part += 1
        if self.writer.family == "databricks":
            name = f"part-{n:05d}-{name_uuid}.c000.snappy.parquet"
        else:
            name = f"part-{n:05d}-{name_uuid}-c000.snappy.parquet"
        if self.column_mapping != "none":  # Spark writes random prefixes instead of hive dirs
            alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
            prefix = "".join(self._rng.choice(alphabet) for _ in range(2))
            return f"{prefix}/{name}"
        dirs = [
            f"{c}={HIVE_NULL if values[c] is None else _hive_escape(str(values[c]))}"
            for c in self.partition_by
        ]
        return quote("/".join([*dirs, name]), safe="/=-_.~!$&'()*+,;:@")

    def with_dv(
        self, file: Mapping[str, Any], *, cardinality: int, storage_type: str = "u"
    ) -> Action:
        """The same file re-added with a new deletion vector (stats bounds become loose)."""
        dv_id = uuid.UUID(self.uuid()).bytes
        if storage_type == "u":
            descriptor: dict[str, Any] = {
                "storageType": "u",
                "pathOrInlineDv": _z85(dv_id),
                "offset": 1,
                "sizeInBytes": 34 + 2 * cardinality,
                "cardinality": cardinality,
            }
        else:
            descriptor = {
                "storageType": "i",
                "pathOrInlineDv": _z85(dv_id[:12]),
                "sizeInBytes": 12,
                "cardinality": cardinality,
            }
        stats = json.loads(file.get("stats") or "{}")
        stats["tightBounds"] = False
        return {
            **file,
            "modificationTime": None,
            "stats": _dumps(stats),
            "deletionVector": descriptor,
        }

    def live_files(
        self, partition: str | Mapping[str, str | None] | None = None, *, version: int | None = None
    ) -> list[Action]:
        """Add actions live at ``version`` (default: latest), optionally in one partition."""
        state: dict[tuple[str, str], Action] = {}
        upto = self.version if version is None else version
        for actions in self.commits[: upto + 1]:
            for a in actions:
                if "remove" in a:
                    state.pop(_file_key(a["remove"]), None)
            for a in actions:
                if "add" in a:
                    state[_file_key(a["add"])] = a["add"]
        files = list(state.values())
        if partition is not None:
            want = {self.physical_name(k): v for k, v in _parse_partition(partition).items()}
            files = [
                f for f in files if all(f["partitionValues"].get(k) == v for k, v in want.items())
            ]
        return [dict(f) for f in files]

    def matching_files(self, predicate: str | None, *, version: int | None = None) -> list[Action]:
        """Live files whose partition values satisfy a partition-only SQL predicate."""
        files = self.live_files(version=version)
        if predicate is None:
            return files
        expr = parse_predicate(predicate)
        out = []
        for f in files:
            logical = {
                c: f["partitionValues"].get(self.physical_name(c)) for c in self.partition_by
            }
            try:
                if _evaluate(expr, logical):
                    out.append(f)
            except KeyError:
                raise ValueError(
                    f"{predicate!r} is not partition-only; pass remove= explicitly"
                ) from None
        return out

    # -- action helpers -----------------------------------------------------------------------

    def txn(self, app_id: str, version: int, *, last_updated: int | None = None) -> Action:
        """A SetTransaction action (streaming sink, idempotent ``txnAppId``/``txnVersion``);
        pass it in ``actions=``. ``lastUpdated`` defaults to the commit's timestamp."""
        return {"txn": {"appId": app_id, "version": version, "lastUpdated": last_updated}}

    def domain(
        self, domain: str, configuration: str | Mapping[str, Any], *, removed: bool = False
    ) -> Action:
        conf = configuration if isinstance(configuration, str) else _dumps(configuration)
        return {"domainMetadata": {"domain": domain, "configuration": conf, "removed": removed}}

    # -- the generic commit -------------------------------------------------------------------

    def commit(
        self,
        operation: str,
        *,
        parameters: Mapping[str, Any] | None = None,
        add: Iterable[Mapping[str, Any]] = (),
        remove: Iterable[str | Mapping[str, Any]] = (),
        metadata: Mapping[str, Any] | None = None,
        protocol: Mapping[str, Any] | None = None,
        data_change: bool = True,
        **options: Unpack[CommitOptions],
    ) -> int:
        """Write the next version with ``operationParameters`` exactly as given."""
        version = self.version + 1
        writer = Writer.parse(options["writer"]) if options.get("writer") else self.writer
        explicit_ts = options.get("timestamp")
        ts = self._tick() if explicit_ts is None else explicit_ts
        removes = [self._remove_action(r, ts, writer, data_change) for r in remove]
        adds = [self._add_action(a, ts, writer, data_change, i) for i, a in enumerate(add)]
        actions_extra = [
            {"txn": {**a["txn"], "lastUpdated": a["txn"].get("lastUpdated") or ts}}
            if "txn" in a
            else dict(a)
            for a in options.get("actions", ())
        ]
        params = dict(parameters or {})
        body: list[Action] = []
        if metadata is not None:
            body.append({"metaData": dict(metadata)})
        if protocol is not None:
            body.insert(
                0 if writer.family != "databricks" else len(body), {"protocol": dict(protocol)}
            )
        body += actions_extra
        if (
            writer.family == "delta-rs"
            and operation != "OPTIMIZE"
            and params.get("mode") != "Overwrite"
        ):
            files: list[Action] = [{"add": a} for a in adds] + [{"remove": r} for r in removes]
        else:
            files = [{"remove": r} for r in removes] + [{"add": a} for a in adds]
        body += files
        actions = body
        if not options.get("omit_commit_info"):
            info = self._commit_info(
                version, operation, params, adds, removes, body, ts, writer, options
            )
            actions = [{"commitInfo": info}, *body]
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with (self.log_dir / commit_name(version)).open("x", encoding="utf-8") as out:
            text = "\n".join(_dumps(a) for a in actions)
            out.write(text if writer.family == "delta-rs" else text + "\n")  # as each engine does
        self.version = version
        self.commits.append(actions)
        self.timestamps.append(ts)
        self._part = 0
        if metadata is not None:
            self.metadata = dict(metadata)
        if protocol is not None:
            self.protocol = dict(protocol)
        if self.checkpoint_interval and version > 0:
            offset = 1 if writer.family == "delta-rs" else 0
            if (version + offset) % self.checkpoint_interval == 0:
                self.checkpoint(version)
        return version

    def _tick(self) -> int:
        if self.version >= 0:
            self._now += self._step_ms
        return self._now

    def _add_action(
        self, a: Mapping[str, Any], ts: int, writer: Writer, data_change: bool, i: int
    ) -> Action:
        add = {**a, "modificationTime": a.get("modificationTime") or ts, "dataChange": data_change}
        if writer.family == "databricks" and not add.get("tags"):
            t = str(ts * 1000 + i)
            add["tags"] = {
                "INSERTION_TIME": t,
                "MIN_INSERTION_TIME": t,
                "MAX_INSERTION_TIME": t,
                "OPTIMIZE_TARGET_SIZE": "268435456",
            }
        if writer.family == "delta-rs":
            for key in ("tags", "baseRowId", "defaultRowCommitVersion", "clusteringProvider"):
                add.setdefault(key, None)
            return add
        return {k: v for k, v in add.items() if v is not None or k == "stats"}

    def _remove_action(
        self, r: str | Mapping[str, Any], ts: int, writer: Writer, data_change: bool
    ) -> Action:
        if isinstance(r, str):
            live = [f for f in self.live_files() if f["path"] == r]
            if not live:
                raise ValueError(f"cannot remove {r!r}: not live at v{self.version}")
            src: Mapping[str, Any] = live[0]
        else:
            src = r
        if writer.family == "delta-rs":
            out: Action = {"path": src["path"], "dataChange": data_change, "deletionTimestamp": ts}
        else:
            out = {"path": src["path"], "deletionTimestamp": ts, "dataChange": data_change}
        out |= {
            "extendedFileMetadata": True,
            "partitionValues": src.get("partitionValues", {}),
            "size": src.get("size"),
        }
        if src.get("deletionVector"):
            out["deletionVector"] = src["deletionVector"]
        return out

    def _isolation_and_blind(
        self,
        operation: str,
        params: Mapping[str, Any],
        adds: list[Action],
        removes: list[Action],
        body: list[Action],
        writer: Writer,
        options: CommitOptions,
    ) -> tuple[str | None, bool]:
        """Delta-Spark's choices (semantics doc A.3/A.4) unless the caller overrides them."""
        isolation = options.get("isolation")
        if isolation is None and writer.is_spark_like:
            only_files = all("add" in a or "remove" in a for a in body)
            files = adds + removes
            no_data_change = bool(files) and only_files and not any(f["dataChange"] for f in files)
            isolation = (
                IsolationLevel.SNAPSHOT_ISOLATION
                if no_data_change
                else self._table_isolation(writer)
            )
        blind = options.get("blind")
        if blind is None:
            reads = (
                operation not in _BLIND_OPERATIONS
                or params.get("mode") == "Overwrite"
                or params.get("outputMode") == "Complete"
            )
            blind = not removes and not reads and writer.family != "kernel-java"
        return (None if isolation is None else str(isolation)), blind

    def _commit_info(
        self,
        version: int,
        operation: str,
        params: dict[str, Any],
        adds: list[Action],
        removes: list[Action],
        body: list[Action],
        ts: int,
        writer: Writer,
        options: CommitOptions,
    ) -> Action:
        read_version = options.get("read_version", version - 1 if version > 0 else None)
        isolation, blind = self._isolation_and_blind(
            operation, params, adds, removes, body, writer, options
        )
        metrics = self._metrics(operation, adds, removes, writer, version, read_version)
        metrics |= dict(options.get("metrics") or {})
        info: dict[str, Any] = {
            "timestamp": ts,
            "operation": operation,
            "operationParameters": params,
        }
        order: tuple[str, ...]
        if writer.is_spark_like:
            info |= {k: v for k, v in self._context.items() if v is not None}
            if read_version is not None and read_version >= 0:
                info["readVersion"] = read_version
            if writer.family == "databricks" or writer.version >= (0, 5, 0):
                info["isolationLevel"] = str(isolation)
            info["isBlindAppend"] = bool(blind)
            if writer.family == "databricks" or writer.version >= (0, 6, 0):
                info["operationMetrics"] = metrics
            if writer.family == "databricks":
                appended = operation in ("WRITE", "STREAMING UPDATE") and adds and not removes
                info["tags"] = {"restoresDeletedRows": "false"} | (
                    {"noRowsCopied": "true"} if appended else {}
                )
            if writer.family == "databricks" or writer.version >= (1, 2, 0):
                info["txnId"] = self.uuid()
            order = _SPARK_CI_ORDER
        elif writer.family == "delta-rs":
            info["operationParameters"] = {
                k: v if isinstance(v, str) else _dumps(v) for k, v in params.items()
            }
            if operation in _DELTA_RS_READ_VERSION_OPS and read_version is not None:
                info["readVersion"] = read_version
            if metrics:
                info["operationMetrics"] = metrics
            info["clientVersion"] = writer.client_version
            order = _DELTA_RS_CI_ORDER
        else:
            info |= {"isBlindAppend": bool(blind), "txnId": self.uuid()}
            order = _KERNEL_CI_ORDER
        if writer.engine_info:
            info["engineInfo"] = writer.engine_info
        if not writer.is_spark_like:  # engines that never write these: only when asked for
            info |= (
                {"isolationLevel": str(isolation)} if options.get("isolation") is not None else {}
            )
            info |= {"isBlindAppend": bool(blind)} if options.get("blind") is not None else {}
        if self.configuration.get("delta.enableInCommitTimestamps", "").lower() == "true":
            ict = ts if self._last_ict is None else max(ts, self._last_ict + 1)
            info["inCommitTimestamp"] = self._last_ict = ict
        for key, value in (options.get("commit_info_extra") or {}).items():
            if value is None:
                info.pop(key, None)
            else:
                info[key] = value
        rank = {k: i for i, k in enumerate(order)}
        return dict(sorted(info.items(), key=lambda kv: rank.get(kv[0], len(rank))))

    def _metrics(
        self,
        operation: str,
        adds: list[Action],
        removes: list[Action],
        writer: Writer,
        version: int,
        read_version: int | None,
    ) -> dict[str, Any]:
        n_add, n_rm = len(adds), len(removes)
        add_rows = sum(_stats_rows(a) for a in adds)
        rm_rows = sum(_stats_rows(r) for r in removes) or sum(
            _stats_rows(f) for f in self._removed_sources(removes)
        )
        add_bytes, rm_bytes = (
            sum(a["size"] or 0 for a in adds),
            sum(r.get("size") or 0 for r in removes),
        )
        changed = (
            (rm_rows - add_rows if rm_rows > add_rows else max(1, rm_rows // 20)) if n_rm else 0
        )
        ms = 200 + self._rng.randrange(20_000)
        scan = ms // 2
        if writer.family == "delta-rs":
            if operation == "OPTIMIZE":
                sizes = [a["size"] for a in adds] or [0]
                return {
                    "numFilesAdded": n_add, "numFilesRemoved": n_rm,
                    "filesAdded": _dumps({"avg": sum(sizes) / len(sizes), "max": max(sizes), "min": min(sizes), "totalFiles": n_add, "totalSize": add_bytes}),
                    "filesRemoved": _dumps({"avg": rm_bytes / max(1, n_rm), "max": max([r.get("size") or 0 for r in removes] or [0]), "min": min([r.get("size") or 0 for r in removes] or [0]), "totalFiles": n_rm, "totalSize": rm_bytes}),
                    "partitionsOptimized": len({_dumps(a["partitionValues"]) for a in adds}), "numBatches": 1,
                    "totalConsideredFiles": n_rm, "totalFilesSkipped": 0, "preserveInsertionOrder": True,
                    "plannerStrategy": "preserveLocality",
                }  # fmt: skip
            if operation in ("WRITE", "STREAMING UPDATE", "CREATE TABLE"):
                retries = (
                    version - 1 - read_version if read_version is not None and version > 0 else 0
                )
                return {
                    "num_added_files": n_add, "num_removed_files": n_rm, "num_partitions": 0,
                    "num_added_rows": add_rows, "execution_time_ms": ms % 50, "num_retries": max(0, retries),
                }  # fmt: skip
            if operation in ("DELETE", "UPDATE"):
                key = "num_deleted_rows" if operation == "DELETE" else "num_updated_rows"
                return {
                    "num_added_files": n_add, "num_removed_files": n_rm, key: changed,
                    "num_copied_rows": max(0, add_rows - (changed if operation == "UPDATE" else 0)),
                    "execution_time_ms": ms % 50, "scan_time_ms": scan % 20, "rewrite_time_ms": 0,
                }  # fmt: skip
            if operation == "MERGE":
                return {
                    "num_source_rows": changed + 10, "num_target_rows_inserted": 10, "num_target_rows_updated": changed,
                    "num_target_rows_deleted": 0, "num_target_rows_copied": max(0, add_rows - changed - 10),
                    "num_output_rows": add_rows, "num_target_files_scanned": n_rm, "num_target_files_skipped_during_scan": 0,
                    "num_target_files_added": n_add, "num_target_files_removed": n_rm,
                    "execution_time_ms": ms % 50, "scan_time_ms": scan % 20, "rewrite_time_ms": 0,
                }  # fmt: skip
            return {}
        if writer.family == "kernel-java":
            return {}
        s = str
        if operation in ("WRITE", "CREATE TABLE AS SELECT"):
            return {
                "numFiles": s(n_add),
                "numOutputRows": s(add_rows),
                "numOutputBytes": s(add_bytes),
            }
        if operation == "STREAMING UPDATE":
            return {
                "numRemovedFiles": s(n_rm),
                "numOutputRows": s(add_rows),
                "numOutputBytes": s(add_bytes),
                "numAddedFiles": s(n_add),
            }
        dvs = sum(1 for a in adds if a.get("deletionVector"))
        if operation in ("DELETE", "UPDATE"):
            out = {
                "numRemovedFiles": s(n_rm - dvs), "numRemovedBytes": s(rm_bytes), "numCopiedRows": s(max(0, add_rows - changed)),
                "numDeletionVectorsAdded": s(dvs), "numDeletionVectorsRemoved": "0", "numAddedChangeFiles": "0",
                "executionTimeMs": s(ms), "numDeletionVectorsUpdated": "0", "scanTimeMs": s(scan),
                "numAddedFiles": s(n_add - dvs), "numAddedBytes": s(add_bytes), "rewriteTimeMs": s(ms - scan),
            }  # fmt: skip
            out["numDeletedRows" if operation == "DELETE" else "numUpdatedRows"] = s(changed)
            return out
        if operation == "MERGE":
            return {
                "numTargetRowsCopied": s(max(0, add_rows - changed)), "numTargetRowsDeleted": "0",
                "numTargetFilesAdded": s(n_add), "numTargetBytesAdded": s(add_bytes), "numTargetBytesRemoved": s(rm_bytes),
                "numTargetRowsMatchedUpdated": s(changed), "executionTimeMs": s(ms), "numTargetRowsInserted": "10",
                "numTargetRowsMatchedDeleted": "0", "scanTimeMs": s(scan), "numTargetRowsUpdated": s(changed),
                "numOutputRows": s(add_rows), "numTargetRowsNotMatchedBySourceUpdated": "0", "numTargetChangeFilesAdded": "0",
                "numSourceRows": s(changed + 10), "numTargetFilesRemoved": s(n_rm), "numTargetRowsNotMatchedBySourceDeleted": "0",
                "rewriteTimeMs": s(ms - scan),
            }  # fmt: skip
        if operation == "OPTIMIZE":
            sizes = sorted(a["size"] for a in adds) or [0]
            pct = [sizes[min(len(sizes) - 1, len(sizes) * q // 4)] for q in (1, 2, 3)]
            return {
                "numRemovedFiles": s(n_rm), "numRemovedBytes": s(rm_bytes), "p25FileSize": s(pct[0]),
                "numDeletionVectorsRemoved": s(sum(1 for r in removes if r.get("deletionVector"))),
                "minFileSize": s(sizes[0]), "numAddedFiles": s(n_add), "maxFileSize": s(sizes[-1]),
                "p75FileSize": s(pct[2]), "p50FileSize": s(pct[1]), "numAddedBytes": s(add_bytes),
            }  # fmt: skip
        return {}

    def _removed_sources(self, removes: list[Action]) -> list[Action]:
        paths = {r["path"] for r in removes}
        return [f for f in self.live_files() if f["path"] in paths]

    # -- predicates in the writer's form -------------------------------------------------------

    def _next_ids(self, target_alias: str | None = None) -> _ExprIds:
        self._expr_ids += 40 + self._rng.randrange(900)
        return _ExprIds(self._expr_ids, self.columns, target_alias)

    def render_predicate(
        self, operation: str, text: str | None, *, writer: Writer | None = None
    ) -> str:
        """``operationParameters.predicate`` for DELETE/UPDATE/OPTIMIZE as ``writer`` logs it."""
        w = writer or self.writer
        if w.family == "delta-rs":
            if operation == "OPTIMIZE":
                return "[]"
            return _delta_rs_sql(parse_predicate(text)) if text else ""
        if text is None:
            return "[]"
        try:
            expr = parse_predicate(text)
        except ValueError:
            return _dumps([text])
        parts = _conjuncts(expr) if operation == "OPTIMIZE" else (expr,)
        if w.family == "kernel-java" or w.unified_predicates:
            ids = self._next_ids()
            return _dumps([_spark_simple(p, ids) for p in parts])
        if operation == "UPDATE":  # Delta <2.4: bare toString, ids included
            return _spark_simple(expr, self._next_ids())
        return _dumps([_spark_sql(p, self.columns, w.version < (1, 0, 0)) for p in parts])

    # -- operations ---------------------------------------------------------------------------

    def create(
        self,
        *,
        add: Iterable[Mapping[str, Any]] = (),
        operation: str | None = None,
        mode: str = "ErrorIfExists",
        **options: Unpack[CommitOptions],
    ) -> int:
        """Version 0: commitInfo + protocol + metaData (+ adds for CTAS / first write)."""
        if self.version >= 0:
            raise ValueError("table already created")
        adds = list(add)
        w = Writer.parse(options["writer"]) if options.get("writer") else self.writer
        op = operation or ("WRITE" if adds else "CREATE TABLE")
        partition_by = _dumps(list(self.partition_by))
        params: dict[str, Any]
        if op == "WRITE":
            params = {"mode": mode, "partitionBy": partition_by}
        elif w.family == "delta-rs":
            params = {
                "mode": mode,
                "protocol": _dumps(self.protocol),
                "metadata": _dumps(self.metadata),
            }
        else:
            params = {"partitionBy": partition_by}
            if w.family == "databricks" or w.version >= (3, 1, 0):
                params["clusterBy"] = "[]"
            params |= {
                "description": None,
                "isManaged": "false",
                "properties": _dumps(self.configuration),
            }
        if w.family == "databricks" and op in _DBR_STATS_ON_LOAD_OPS:
            params["statsOnLoad"] = False
        options.setdefault("read_version", None)
        return self.commit(
            op,
            parameters=params,
            add=adds,
            metadata=self.metadata,
            protocol=self.protocol,
            **options,
        )

    def write(
        self,
        *,
        add: Iterable[Mapping[str, Any]] = (),
        remove: Iterable[str | Mapping[str, Any]] | None = None,
        mode: str = "Append",
        predicate: str | None = None,
        dynamic_partition_overwrite: bool = False,
        **options: Unpack[CommitOptions],
    ) -> int:
        """WRITE (DataFrame write / INSERT). ``mode="Overwrite"`` with ``remove=None`` removes
        what was live at ``read_version`` (so a stale overwrite leaves newer files alive),
        restricted to ``predicate`` (replaceWhere) or to the partitions written (dynamic)."""
        adds = list(add)
        at = options.get("read_version")
        if remove is None:
            if mode != "Overwrite":
                remove = ()
            elif dynamic_partition_overwrite:
                wanted = {_dumps(a["partitionValues"]) for a in adds}
                remove = [
                    f for f in self.live_files(version=at) if _dumps(f["partitionValues"]) in wanted
                ]
            else:
                remove = self.matching_files(predicate, version=at)
        w = Writer.parse(options["writer"]) if options.get("writer") else self.writer
        params: dict[str, Any] = {"mode": mode, "partitionBy": _dumps(list(self.partition_by))}
        if predicate is not None:
            params["predicate"] = (
                _delta_rs_sql(parse_predicate(predicate)) if w.family == "delta-rs" else predicate
            )
        if dynamic_partition_overwrite:
            params["isDynamicPartitionOverwrite"] = True
        if w.family == "databricks":
            params["statsOnLoad"] = False
        return self.commit("WRITE", parameters=params, add=adds, remove=remove, **options)

    def streaming_update(
        self,
        query_id: str,
        epoch_id: int,
        *,
        add: Iterable[Mapping[str, Any]] = (),
        remove: Iterable[str | Mapping[str, Any]] = (),
        output_mode: str = "Append",
        **options: Unpack[CommitOptions],
    ) -> int:
        """A streaming micro-batch: ``STREAMING UPDATE`` + ``txn(appId=query_id, version=epoch)``."""
        params = {"outputMode": output_mode, "queryId": query_id, "epochId": str(epoch_id)}
        options["actions"] = [self.txn(query_id, epoch_id), *options.get("actions", ())]
        return self.commit("STREAMING UPDATE", parameters=params, add=add, remove=remove, **options)

    def delete(
        self,
        predicate: str | None = None,
        *,
        remove: Iterable[str | Mapping[str, Any]] | None = None,
        add: Iterable[Mapping[str, Any]] = (),
        **options: Unpack[CommitOptions],
    ) -> int:
        """DELETE; ``remove=None`` needs a partition-only predicate (a metadata-only delete)."""
        if remove is None:
            remove = self.matching_files(predicate, version=options.get("read_version"))
        w = Writer.parse(options["writer"]) if options.get("writer") else self.writer
        params = (
            {"predicate": self.render_predicate("DELETE", predicate, writer=w)}
            if predicate or w.family != "delta-rs"
            else {}
        )
        return self.commit("DELETE", parameters=params, add=add, remove=remove, **options)

    def update(
        self,
        predicate: str | None = None,
        *,
        remove: Iterable[str | Mapping[str, Any]] = (),
        add: Iterable[Mapping[str, Any]] = (),
        **options: Unpack[CommitOptions],
    ) -> int:
        w = Writer.parse(options["writer"]) if options.get("writer") else self.writer
        params = (
            {"predicate": self.render_predicate("UPDATE", predicate, writer=w)}
            if predicate or w.family != "delta-rs"
            else {}
        )
        return self.commit("UPDATE", parameters=params, add=add, remove=remove, **options)

    def merge(
        self,
        on: str,
        *,
        remove: Iterable[str | Mapping[str, Any]] = (),
        add: Iterable[Mapping[str, Any]] = (),
        matched: Sequence[str | tuple[str, str]] = ("update",),
        not_matched: Sequence[str | tuple[str, str]] = ("insert",),
        not_matched_by_source: Sequence[str | tuple[str, str]] = (),
        target_alias: str = "t",
        source_alias: str = "s",
        **options: Unpack[CommitOptions],
    ) -> int:
        """MERGE INTO target ``t`` USING source ``s`` ON ``on``; clauses are action types or
        ``(action, condition)`` pairs, e.g. ``matched=[("delete", "s.op = 'D'"), "update"]``."""
        del source_alias  # any qualifier other than the target alias is the source
        w = Writer.parse(options["writer"]) if options.get("writer") else self.writer
        clauses = {"matchedPredicates": matched, "notMatchedPredicates": not_matched,
                   "notMatchedBySourcePredicates": not_matched_by_source}  # fmt: skip
        try:
            on_expr: _Expr | None = parse_predicate(on)
        except ValueError:
            on_expr = None
        params: dict[str, Any] = {}
        if w.family == "delta-rs":
            literal = [
                c for c in _conjuncts(on_expr) if isinstance(c, _Cmp) and c.op == "=" and any(
                    isinstance(s, _Col) and s.qualifier == target_alias and s.name in self.partition_by for s in (c.left, c.right)
                ) and any(isinstance(s, _Lit) for s in (c.left, c.right))
            ] if on_expr is not None else []  # fmt: skip
            if literal:
                params["predicate"] = _delta_rs_sql(
                    _Bool("AND", tuple(literal)) if len(literal) > 1 else literal[0]
                )
            for key, items in clauses.items():
                params[key] = _dumps([self._clause(c, w, None, target_alias) for c in items])
            params["mergePredicate"] = on
        else:
            ids = self._next_ids(target_alias)
            if on_expr is None:
                params["predicate"] = _dumps([on])
            elif w.unified_predicates:
                params["predicate"] = _dumps([_spark_simple(on_expr, ids)])
            else:
                params["predicate"] = _spark_sql(on_expr, self.columns, w.version < (1, 0, 0))
            for key, items in clauses.items():
                if (
                    key == "notMatchedBySourcePredicates"
                    and w.family == "spark"
                    and w.version < (2, 3, 0)
                ):
                    continue
                params[key] = _dumps([self._clause(c, w, ids, target_alias) for c in items])
            if w.family == "databricks":
                params |= {"clusterBy": "[]", "statsOnLoad": False}
        return self.commit("MERGE", parameters=params, add=add, remove=remove, **options)

    def _clause(
        self, clause: str | tuple[str, str], w: Writer, ids: _ExprIds | None, target_alias: str
    ) -> dict[str, str]:
        action, condition = (clause, None) if isinstance(clause, str) else clause
        if condition is None:
            return {"actionType": action}
        if ids is None:
            return {"actionType": action, "predicate": condition}
        try:
            expr = parse_predicate(condition)
        except ValueError:
            return {"predicate": condition, "actionType": action}
        text = (
            _spark_simple(expr, ids)
            if w.unified_predicates
            else _spark_sql(expr, self.columns, w.version < (1, 0, 0))
        )
        return {"predicate": text, "actionType": action}

    def optimize(
        self,
        where: str | None = None,
        *,
        zorder: Sequence[str] = (),
        remove: Iterable[str | Mapping[str, Any]] | None = None,
        add: Iterable[Mapping[str, Any]] | None = None,
        auto: bool = False,
        **options: Unpack[CommitOptions],
    ) -> int:
        """OPTIMIZE [WHERE] [ZORDER BY]: dataChange=false everywhere, SnapshotIsolation, not blind.

        Defaults compact every live file matching ``where`` into one new file per partition.
        """
        removes = list(
            self.matching_files(where, version=options.get("read_version"))
            if remove is None
            else remove
        )
        if add is None:
            groups: dict[str, list[Mapping[str, Any]]] = {}
            for r in removes:
                src = (
                    r
                    if isinstance(r, Mapping)
                    else next(f for f in self.live_files() if f["path"] == r)
                )
                groups.setdefault(_dumps(src["partitionValues"]), []).append(src)
            add = []
            for members in groups.values():
                logical = {
                    c: members[0]["partitionValues"].get(self.physical_name(c))
                    for c in self.partition_by
                }
                rows = sum(_stats_rows(m) for m in members)
                add.append(
                    self.file(
                        logical, rows=rows, size=sum(m.get("size") or 0 for m in members) * 9 // 10
                    )
                )
        if not removes:
            raise ValueError("nothing to compact: no live files match")
        w = Writer.parse(options["writer"]) if options.get("writer") else self.writer
        params: dict[str, Any]
        if w.family == "delta-rs":
            params = {"predicate": "[]", "targetSize": "104857600"}
            options.setdefault("metrics", {"plannerStrategy": "zOrder"} if zorder else {})
        else:
            params = {
                "predicate": self.render_predicate("OPTIMIZE", where, writer=w),
                "zOrderBy": _dumps(list(zorder)),
            }
            if w.family == "databricks" or w.version >= (3, 1, 0):
                params |= {"clusterBy": "[]", "auto": auto}
        return self.commit(
            "OPTIMIZE", parameters=params, add=add, remove=removes, data_change=False, **options
        )

    def set_properties(
        self, properties: Mapping[str, str], **options: Unpack[CommitOptions]
    ) -> int:
        """ALTER TABLE SET TBLPROPERTIES: new metaData (+ protocol when a feature needs it)."""
        metadata = self._refresh_metadata({}, {**self.configuration, **properties})
        protocol = self._upgraded_protocol()
        params = {"properties": _dumps(dict(properties))}
        return self.commit(
            "SET TBLPROPERTIES", parameters=params, metadata=metadata, protocol=protocol, **options
        )

    def _upgraded_protocol(self) -> Action | None:
        """The protocol the new configuration needs, if it is more than the current one.

        Feature lists only grow: moving from legacy versions to table features keeps what the
        legacy versions implied (PROTOCOL.md), as Spark and delta-rs do.
        """
        if self._explicit_protocol is not None:
            return None
        old, new = self.protocol, self._protocol_action()
        old_features = set(Protocol.from_json(_dumps(old)).features)
        if "writerFeatures" in new:
            new["writerFeatures"] = sorted(set(new["writerFeatures"]) | old_features)
            if "readerFeatures" in new:
                new["readerFeatures"] = sorted(
                    set(new["readerFeatures"]) | set(old.get("readerFeatures") or ())
                )
        grows = (
            new["minReaderVersion"] > old["minReaderVersion"]
            or new["minWriterVersion"] > old["minWriterVersion"]
            or bool(set(new.get("writerFeatures") or ()) - old_features)
        )
        return new if grows else None

    def add_columns(
        self,
        columns: Mapping[str, str] | Sequence[tuple[str, str]],
        **options: Unpack[CommitOptions],
    ) -> int:
        """ALTER TABLE ADD COLUMNS (Spark) / ``ADD COLUMN`` (delta-rs ``alter.add_columns``);
        ``columns`` is ``{"name": "type"}`` or ``[("name", "type"), ...]``."""
        columns = dict(columns)
        metadata = self._refresh_metadata(columns, self.configuration)
        fields = [f for f in self._fields if f["name"] in columns]
        w = Writer.parse(options["writer"]) if options.get("writer") else self.writer
        if w.family == "delta-rs":
            return self.commit(
                "ADD COLUMN", parameters={"fields": _dumps(fields)}, metadata=metadata, **options
            )
        params = {"columns": _dumps([{"column": f} for f in fields])}
        return self.commit("ADD COLUMNS", parameters=params, metadata=metadata, **options)

    def add_constraint(self, name: str, expr: str, **options: Unpack[CommitOptions]) -> int:
        """ALTER TABLE ADD CONSTRAINT: reads the whole table, so never a blind commit."""
        metadata = self._refresh_metadata(
            {}, {**self.configuration, f"delta.constraints.{name}": expr}
        )
        protocol = self._upgraded_protocol()
        w = Writer.parse(options["writer"]) if options.get("writer") else self.writer
        params = (
            {"constraints": _dumps([{"name": name, "expr": expr}])}
            if w.family == "delta-rs"
            else {"name": name, "expr": expr}
        )
        return self.commit(
            "ADD CONSTRAINT", parameters=params, metadata=metadata, protocol=protocol, **options
        )

    def upgrade_protocol(
        self,
        min_reader: int,
        min_writer: int,
        *,
        reader_features: Sequence[str] | None = None,
        writer_features: Sequence[str] | None = None,
        **options: Unpack[CommitOptions],
    ) -> int:
        protocol: Action = {"minReaderVersion": min_reader, "minWriterVersion": min_writer}
        if reader_features is not None:
            protocol["readerFeatures"] = list(reader_features)
        if writer_features is not None:
            protocol["writerFeatures"] = list(writer_features)
        self._explicit_protocol = protocol
        w = Writer.parse(options["writer"]) if options.get("writer") else self.writer
        if w.family == "delta-rs":
            params = {
                "name": _dumps(list(writer_features or ())),
                "allowProtocolVersionsIncrease": "true",
            }
            return self.commit("ADD FEATURE", parameters=params, protocol=protocol, **options)
        return self.commit(
            "UPGRADE PROTOCOL",
            parameters={"newProtocol": _dumps(protocol)},
            protocol=protocol,
            **options,
        )

    # -- checkpoints --------------------------------------------------------------------------

    def checkpoint(self, version: int | None = None) -> Path:
        """A classic single-file parquet checkpoint at ``version`` plus ``_last_checkpoint``."""
        v = self.version if version is None else version
        if not 0 <= v <= self.version:
            raise ValueError(f"no version {v} to checkpoint")
        protocol: Action | None = None
        metadata: Action | None = None
        txns: dict[str, Action] = {}
        domains: dict[str, Action] = {}
        tombstones: dict[tuple[str, str], Action] = {}
        for actions in self.commits[: v + 1]:
            for a in actions:
                protocol = a.get("protocol", protocol)
                metadata = a.get("metaData", metadata)
                if "txn" in a:
                    txns[a["txn"]["appId"]] = a["txn"]
                if "domainMetadata" in a:
                    domains[a["domainMetadata"]["domain"]] = a["domainMetadata"]
                if "remove" in a:
                    tombstones[_file_key(a["remove"])] = a["remove"]
        assert protocol is not None and metadata is not None
        live = self.live_files(version=v)
        live_paths = {f["path"] for f in live}
        rows: list[dict[str, Any]] = [{"protocol": protocol}, {"metaData": metadata}]
        rows += [{"txn": t} for t in txns.values()]
        rows += [{"domainMetadata": d} for d in domains.values() if not d.get("removed")]
        rows += [{"add": {**f, "dataChange": False}} for f in live]
        rows += [{"remove": r} for r in tombstones.values() if r["path"] not in live_paths]
        table = pa.Table.from_pylist(
            [_checkpoint_row(r) for r in rows], schema=_checkpoint_schema(bool(domains))
        )
        target = self.log_dir / f"{v:020d}.checkpoint.parquet"
        pq.write_table(table, target)
        last = self.log_dir / "_last_checkpoint"
        previous = json.loads(last.read_text()).get("version", -1) if last.exists() else -1
        if v >= previous:
            info = {
                "version": v,
                "size": len(rows),
                "sizeInBytes": target.stat().st_size,
                "numOfAddFiles": len(live),
            }
            last.write_text(_dumps(info))
        return target


# ---------------------------------------------------------------------------------------------
# Checkpoint layout (PROTOCOL.md "Checkpoint Schema"; maps as lists of key/value pairs)

_MAP = pa.map_(pa.string(), pa.string())
_DV = pa.struct([("storageType", pa.string()), ("pathOrInlineDv", pa.string()), ("offset", pa.int32()),
                 ("sizeInBytes", pa.int32()), ("cardinality", pa.int64())])  # fmt: skip


def _checkpoint_schema(with_domains: bool) -> pa.Schema:
    fields = [
        ("txn", pa.struct([("appId", pa.string()), ("version", pa.int64()), ("lastUpdated", pa.int64())])),
        ("add", pa.struct([
            ("path", pa.string()), ("partitionValues", _MAP), ("size", pa.int64()),
            ("modificationTime", pa.int64()), ("dataChange", pa.bool_()), ("tags", _MAP),
            ("deletionVector", _DV), ("baseRowId", pa.int64()), ("defaultRowCommitVersion", pa.int64()),
            ("stats", pa.string()),
        ])),
        ("remove", pa.struct([
            ("path", pa.string()), ("deletionTimestamp", pa.int64()), ("dataChange", pa.bool_()),
            ("extendedFileMetadata", pa.bool_()), ("partitionValues", _MAP), ("size", pa.int64()),
            ("deletionVector", _DV),
        ])),
        ("metaData", pa.struct([
            ("id", pa.string()), ("name", pa.string()), ("description", pa.string()),
            ("format", pa.struct([("provider", pa.string()), ("options", _MAP)])),
            ("schemaString", pa.string()), ("partitionColumns", pa.list_(pa.string())),
            ("configuration", _MAP), ("createdTime", pa.int64()),
        ])),
        ("protocol", pa.struct([
            ("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32()),
            ("readerFeatures", pa.list_(pa.string())), ("writerFeatures", pa.list_(pa.string())),
        ])),
    ]  # fmt: skip
    if with_domains:
        fields.append(
            (
                "domainMetadata",
                pa.struct(
                    [
                        ("domain", pa.string()),
                        ("configuration", pa.string()),
                        ("removed", pa.bool_()),
                    ]
                ),
            )
        )
    return pa.schema(fields)


def _checkpoint_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """Turn JSON objects that are parquet maps into lists of (key, value) pairs."""
    out = {}
    for kind, action in row.items():
        body = dict(action)
        for key in ("partitionValues", "tags", "configuration"):
            if isinstance(body.get(key), Mapping):
                body[key] = [(k, None if v is None else str(v)) for k, v in body[key].items()]
        if kind == "metaData":
            body["format"] = {
                **body["format"],
                "options": list(body["format"].get("options", {}).items()),
            }
        out[kind] = body
    return out


__all__ = ["DEFAULT_START_MS", "CommitOptions", "LogBuilder", "Writer", "parse_predicate"]
