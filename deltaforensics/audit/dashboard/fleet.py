"""What the fleet dashboard shows, counted from the audit's parquet datasets and nothing else.

A race is *safe*, *fragile* (it committed, but a plausible change — Serializable isolation, the
other commit order — would have made it fail) or a *predicted conflict* (the replayed checker
raises); these are the explain report's three colours. A *seen conflict* is a row of the
``conflicts`` dataset (an error text). Every number on the page is one of the values here, so
a test can count the same parquet files with polars and compare.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from deltaforensics.audit.dashboard.writers import with_writer
from deltaforensics.audit.datasets import DATASETS, schema

TOP_WRITERS = 12  # heatmap rows and columns; the fragile-writer list shows twice as many
MAX_BUCKETS = 30
# Bucket widths a reader knows (ms): the smallest that keeps a table's span within MAX_BUCKETS.
_SECONDS = (1, 10, 30, 60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600)
_DAYS = (1, 7, 30, 91, 365)
BUCKET_WIDTHS = tuple(s * 1000 for s in _SECONDS) + tuple(d * 86_400_000 for d in _DAYS)


@dataclass(frozen=True, slots=True, kw_only=True)
class RaceCounts:
    races: int = 0
    fragile: int = 0
    predicted: int = 0
    seen: int = 0  # seen conflicts (error texts)

    @property
    def conflicts(self) -> int:
        return self.predicted + self.seen


@dataclass(frozen=True, slots=True, kw_only=True)
class TableRow:
    name: str
    uri: str
    commits: int
    first_timestamp: int | None
    last_timestamp: int | None
    counts: RaceCounts
    anomalies: int
    anomaly_errors: int
    recommendations: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Bucket:
    start: int  # epoch ms, inclusive
    end: int  # exclusive
    commits: int
    counts: RaceCounts


@dataclass(frozen=True, slots=True, kw_only=True)
class TableTimeline:
    table: str
    width: int  # bucket width, ms
    buckets: tuple[Bucket, ...]
    undated: int  # races and seen conflicts whose commit has no timestamp


@dataclass(frozen=True, slots=True, kw_only=True)
class WriterPair:
    """Commits of ``racer`` that committed over commits of ``winner`` they never read."""

    racer: str
    winner: str
    counts: RaceCounts


@dataclass(frozen=True, slots=True, kw_only=True)
class WriterRisk:
    writer: str
    tables: tuple[str, ...]
    counts: RaceCounts
    changes_away: int  # plausible changes that would have made one of its races fail


@dataclass(frozen=True, slots=True, kw_only=True)
class Fleet:
    tables: tuple[TableRow, ...]
    timelines: tuple[TableTimeline, ...]
    pairs: tuple[WriterPair, ...]
    writers: tuple[WriterRisk, ...]
    anomalies: pl.DataFrame
    recommendations: pl.DataFrame

    @property
    def totals(self) -> TableRow:
        rows = self.tables
        return TableRow(
            name="all tables",
            uri="",
            commits=sum(t.commits for t in rows),
            first_timestamp=min(
                (t.first_timestamp for t in rows if t.first_timestamp), default=None
            ),
            last_timestamp=max((t.last_timestamp for t in rows if t.last_timestamp), default=None),
            counts=_sum(t.counts for t in rows),
            anomalies=sum(t.anomalies for t in rows),
            anomaly_errors=sum(t.anomaly_errors for t in rows),
            recommendations=sum(t.recommendations for t in rows),
        )


def _sum(counts: Iterable[RaceCounts]) -> RaceCounts:
    found = list(counts)
    return RaceCounts(
        races=sum(c.races for c in found),
        fragile=sum(c.fragile for c in found),
        predicted=sum(c.predicted for c in found),
        seen=sum(c.seen for c in found),
    )


def read_datasets(datasets: Path, tables: Sequence[str]) -> dict[str, pl.DataFrame]:
    """Every dataset's rows for ``tables``, as the audit wrote them (a table whose part is
    missing contributes no rows)."""
    out = {}
    for name in DATASETS:
        paths = [
            path
            for t in tables
            if (path := datasets / name / f"table={t}" / "part-0.parquet").is_file()
        ]
        out[name] = _read_parts(paths, schema(name))
    return out


def _read_parts(paths: Sequence[Path], columns: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """The parts as one frame: one scan when every part has the dataset's schema (the audit
    writes them so), else part by part, cast to it (a part an older release wrote)."""
    if not paths:
        return pl.DataFrame(schema=columns)
    try:
        return pl.scan_parquet(list(paths), schema=columns, hive_partitioning=False).collect()
    except (pl.exceptions.PolarsError, OSError):
        parts = [pl.read_parquet(path) for path in paths]
        return pl.concat(parts, how="vertical_relaxed").cast(dict(columns))  # type: ignore[arg-type]


def status_of(races: pl.DataFrame) -> pl.DataFrame:
    """``races`` with boolean ``predicted`` and ``fragile`` (the explain report's colours)."""
    predicted = pl.col("outcome") != "commits"
    return races.with_columns(
        predicted.alias("predicted"),
        (~predicted & (pl.col("fragile_under") > 0)).alias("fragile"),
    )


def fleet(frames: Mapping[str, pl.DataFrame], tables: Sequence[str]) -> Fleet:
    """Count everything the page shows, ``tables`` in the order given."""
    commits = with_writer(frames["commits"])
    races = _races(frames["races"], commits)
    seen = _seen_conflicts(frames["conflicts"], commits)
    of_table = {
        "commits": _by_table(commits),
        "races": _by_table(races),
        "seen": _by_table(seen),
        "anomalies": _by_table(frames["anomalies"]),
        "recommendations": _by_table(frames["recommendations"]),
    }
    return Fleet(
        tables=tuple(_table_rows(of_table, tables)),
        timelines=tuple(_timelines(of_table, tables)),
        pairs=tuple(_pairs(races, seen)),
        writers=tuple(_writer_risks(races, seen)),
        anomalies=frames["anomalies"].sort(["table", "first_version", "code"]),
        recommendations=frames["recommendations"].sort(["table", "rank"]),
    )


def _races(races: pl.DataFrame, commits: pl.DataFrame) -> pl.DataFrame:
    """Races with their status, their commit's time and writer, and their winners' writers."""
    facts = commits.select("table", "version", "timestamp", "writer")
    out = status_of(races).join(facts, on=["table", "version"], how="left")
    winners = (
        out.select("table", "version", pl.col("winners").str.json_decode(pl.List(pl.Int64)))
        .explode("winners")
        .drop_nulls("winners")
        .join(
            facts.select("table", pl.col("version").alias("winners"), pl.col("writer").alias("w")),
            on=["table", "winners"],
            how="left",
        )
        .group_by("table", "version")
        .agg(
            pl.col("w").fill_null("a commit no longer in the log").unique().alias("winner_writers")
        )
    )
    return out.join(winners, on=["table", "version"], how="left").with_columns(
        pl.col("writer").fill_null("a commit no longer in the log"),
        pl.col("winner_writers").fill_null([]),
    )


def _seen_conflicts(conflicts: pl.DataFrame, commits: pl.DataFrame) -> pl.DataFrame:
    """Seen conflicts with the loser's and the winner's writer, and a time: the loser's commit
    when it committed, else the winner's."""
    loser = conflicts.with_columns(
        pl.col("loser").str.json_path_match("$.version").cast(pl.Int64).alias("loser_version")
    )
    facts = commits.select("table", "version", "timestamp", "writer")
    out = loser.join(
        facts.rename({"version": "loser_version", "timestamp": "t1", "writer": "writer"}),
        on=["table", "loser_version"],
        how="left",
    ).join(
        facts.rename({"version": "winner_version", "timestamp": "t2", "writer": "winner"}),
        on=["table", "winner_version"],
        how="left",
    )
    return out.with_columns(
        pl.coalesce("t1", "t2").alias("timestamp"),
        pl.col("writer").fill_null("a statement that never committed"),
        pl.col("winner").fill_null("an unidentified commit"),
    )


def _counts(df: pl.DataFrame, seen: int = 0) -> RaceCounts:
    return RaceCounts(
        races=df.height,
        fragile=int(df["fragile"].sum()),
        predicted=int(df["predicted"].sum()),
        seen=seen,
    )


ByTable = Callable[[str], pl.DataFrame]


def _by_table(df: pl.DataFrame) -> ByTable:
    """``df``'s rows of a table (none: an empty frame), split by its ``table`` column once:
    filtering the whole frame for every table made the page's cost grow with tables × rows."""
    parts = {str(key[0]): part for key, part in df.partition_by("table", as_dict=True).items()}
    empty = df.clear()
    return lambda name: parts.get(name, empty)


def _table_rows(of_table: Mapping[str, ByTable], tables: Sequence[str]) -> Iterable[TableRow]:
    for name in tables:
        mine = {k: rows_of(name) for k, rows_of in of_table.items()}
        uris = mine["commits"]["table_uri"].unique().to_list()
        times = mine["commits"]["timestamp"].drop_nulls()
        found = mine["anomalies"]
        yield TableRow(
            name=name,
            uri=uris[0] if uris else "",
            commits=mine["commits"].height,
            first_timestamp=times.min() if times.len() else None,  # type: ignore[arg-type]
            last_timestamp=times.max() if times.len() else None,  # type: ignore[arg-type]
            counts=_counts(mine["races"], mine["seen"].height),
            anomalies=found.height,
            anomaly_errors=found.filter(pl.col("severity") == "error").height,
            recommendations=mine["recommendations"].height,
        )


def bucket_width(first: int, last: int) -> int:
    """The narrowest of :data:`BUCKET_WIDTHS` that spans ``first``..``last`` in at most
    :data:`MAX_BUCKETS` buckets aligned to multiples of the width."""
    for width in BUCKET_WIDTHS:
        if last // width - first // width + 1 <= MAX_BUCKETS:
            return width
    return BUCKET_WIDTHS[-1] * (-(-(last - first) // (BUCKET_WIDTHS[-1] * (MAX_BUCKETS - 1))))


def _timelines(of_table: Mapping[str, ByTable], tables: Sequence[str]) -> Iterable[TableTimeline]:
    """One timeline per table with a race or a seen conflict: commits, races by status and
    seen conflicts per bucket of the table's own time span."""
    for name in tables:
        r, s = of_table["races"](name), of_table["seen"](name)
        if r.is_empty() and s.is_empty():
            continue
        times = of_table["commits"](name)["timestamp"].drop_nulls()
        undated = r["timestamp"].null_count() + s["timestamp"].null_count()
        stamps = pl.concat([times, s["timestamp"].drop_nulls()])
        if stamps.is_empty():
            yield TableTimeline(table=name, width=0, buckets=(), undated=undated)
            continue
        lo, hi = int(stamps.min()), int(stamps.max())  # type: ignore[arg-type]
        width = bucket_width(lo, hi)
        per_commit = _per_bucket(times.to_frame(), width, pl.len().alias("commits"))
        per_race = _per_bucket(
            r,
            width,
            pl.len().alias("races"),
            pl.col("fragile").sum().alias("fragile"),
            pl.col("predicted").sum().alias("predicted"),
        )
        per_seen = _per_bucket(s, width, pl.len().alias("seen"))
        buckets = []
        for k in range(lo // width, hi // width + 1):
            race = per_race.get(k, {})
            buckets.append(
                Bucket(
                    start=k * width,
                    end=(k + 1) * width,
                    commits=int(per_commit.get(k, {}).get("commits", 0)),
                    counts=RaceCounts(
                        races=int(race.get("races", 0)),
                        fragile=int(race.get("fragile", 0)),
                        predicted=int(race.get("predicted", 0)),
                        seen=int(per_seen.get(k, {}).get("seen", 0)),
                    ),
                )
            )
        yield TableTimeline(table=name, width=width, buckets=tuple(buckets), undated=undated)


def _per_bucket(df: pl.DataFrame, width: int, *counts: pl.Expr) -> dict[int, dict[str, int]]:
    """``counts`` of the dated rows of ``df`` per bucket index (``timestamp // width``: the
    bucket ``[k·width, (k+1)·width)``)."""
    grouped = (
        df.drop_nulls("timestamp")
        .group_by((pl.col("timestamp") // width).alias("bucket"))
        .agg(*counts)
    )
    return {row.pop("bucket"): row for row in grouped.iter_rows(named=True)}


def _pairs(races: pl.DataFrame, seen: pl.DataFrame) -> Iterable[WriterPair]:
    """Racer × winner writer: a race counts once for each distinct writer among its winners."""
    by_pair = (
        races.explode("winner_writers")
        .drop_nulls("winner_writers")
        .group_by("writer", "winner_writers")
        .agg(
            pl.len().alias("races"),
            pl.col("fragile").sum().alias("fragile"),
            pl.col("predicted").sum().alias("predicted"),
        )
    )
    counted = {
        (row["writer"], row["winner_writers"]): RaceCounts(
            races=row["races"], fragile=row["fragile"], predicted=row["predicted"]
        )
        for row in by_pair.iter_rows(named=True)
    }
    for row in seen.group_by("writer", "winner").len().iter_rows(named=True):
        key = (row["writer"], row["winner"])
        was = counted.get(key, RaceCounts())
        counted[key] = RaceCounts(
            races=was.races, fragile=was.fragile, predicted=was.predicted, seen=row["len"]
        )
    for (racer, winner), counts in sorted(counted.items()):
        yield WriterPair(racer=racer, winner=winner, counts=counts)


def _writer_risks(races: pl.DataFrame, seen: pl.DataFrame) -> list[WriterRisk]:
    """Each writer whose commits raced or lost, worst first: conflicts, then fragile races,
    then races."""
    risks = []
    lost = dict(seen.group_by("writer").len().iter_rows())
    seen_tables = seen.group_by("writer").agg(pl.col("table").unique()).rows()
    tables_of: dict[str, set[str]] = {w: set(t) for w, t in seen_tables}
    for writer, mine in races.group_by("writer"):
        name = str(writer[0])
        tables_of.setdefault(name, set()).update(mine["table"].to_list())
        risks.append(
            WriterRisk(
                writer=name,
                tables=(),
                counts=_counts(mine, lost.pop(name, 0)),
                changes_away=int(mine["fragile_under"].sum()),
            )
        )
    risks += [
        WriterRisk(writer=w, tables=(), counts=RaceCounts(seen=n), changes_away=0)
        for w, n in lost.items()
    ]
    ranked = sorted(
        risks,
        key=lambda r: (-r.counts.conflicts, -r.counts.fragile, -r.counts.races, r.writer),
    )
    return [
        WriterRisk(
            writer=r.writer,
            tables=tuple(sorted(tables_of.get(r.writer, ()))),
            counts=r.counts,
            changes_away=r.changes_away,
        )
        for r in ranked
    ]


def json_list(text: str | None) -> list[object]:
    """A JSON-list column's value as a list ([] for null)."""
    value = json.loads(text) if text else []
    return value if isinstance(value, list) else [value]
