-- Example queries over the views of views.sql (replace __SCHEMA__ as there). Each starts with
-- a `-- name:` line; the dashboard's datasets (deltaforensics-audit.lvdash.json) are these
-- queries, word for word.

-- name: fleet_totals
-- One row: the numbers of dashboard.html's cards (a table with no commit in the datasets,
-- e.g. one read from its checkpoint alone, is audited but not counted here).
SELECT
  (SELECT count(DISTINCT `table`) FROM __SCHEMA__.commits) AS tables_with_commits,
  (SELECT count(*) FROM __SCHEMA__.commits) AS commits,
  count(*) AS races,
  count_if(fragile) AS fragile_races,
  count_if(predicted_conflict) AS predicted_conflicts,
  (SELECT count(*) FROM __SCHEMA__.conflicts) AS seen_conflicts,
  (SELECT count(*) FROM __SCHEMA__.anomalies) AS anomalies,
  (SELECT count(*) FROM __SCHEMA__.recommendations) AS recommendations
FROM __SCHEMA__.race_status;

-- name: races_over_time
-- Races per table and day, by outcome.
SELECT
  `table`,
  date_trunc('DAY', committed_at) AS day,
  CASE
    WHEN predicted_conflict THEN 'predicted conflict'
    WHEN fragile THEN 'fragile'
    ELSE 'commits safely'
  END AS outcome,
  count(*) AS races
FROM __SCHEMA__.race_status
GROUP BY ALL;

-- name: tables
-- One row per table: commits, races by outcome, seen conflicts, anomalies, recommendations.
SELECT
  c.`table`,
  count(*) AS commits,
  min(timestamp_millis(c.timestamp)) AS first_commit,
  max(timestamp_millis(c.timestamp)) AS last_commit,
  coalesce(max(r.races), 0) AS races,
  coalesce(max(r.fragile_races), 0) AS fragile_races,
  coalesce(max(r.predicted_conflicts), 0) AS predicted_conflicts,
  coalesce(max(s.seen_conflicts), 0) AS seen_conflicts,
  coalesce(max(a.anomalies), 0) AS anomalies,
  coalesce(max(x.recommendations), 0) AS recommendations
FROM __SCHEMA__.commits c
LEFT JOIN (
  SELECT `table`, count(*) AS races, count_if(fragile) AS fragile_races,
    count_if(predicted_conflict) AS predicted_conflicts
  FROM __SCHEMA__.race_status GROUP BY `table`
) r ON r.`table` = c.`table`
LEFT JOIN (
  SELECT `table`, count(*) AS seen_conflicts FROM __SCHEMA__.conflicts GROUP BY `table`
) s ON s.`table` = c.`table`
LEFT JOIN (
  SELECT `table`, count(*) AS anomalies FROM __SCHEMA__.anomalies GROUP BY `table`
) a ON a.`table` = c.`table`
LEFT JOIN (
  SELECT `table`, count(*) AS recommendations FROM __SCHEMA__.recommendations GROUP BY `table`
) x ON x.`table` = c.`table`
GROUP BY c.`table`;

-- name: writer_pairs
-- Who raced whom: the racing commit's writer × the writer of the commits it was rebased over.
-- A race counts once for each distinct writer among its winners.
SELECT
  r.writer AS racing_writer,
  w.writer AS committed_first,
  count(DISTINCT r.`table`, r.version) AS races,
  count(DISTINCT CASE WHEN r.fragile THEN concat(r.`table`, ':', r.version) END) AS fragile_races,
  count(DISTINCT CASE WHEN r.predicted_conflict THEN concat(r.`table`, ':', r.version) END)
    AS predicted_conflicts
FROM (
  SELECT *, explode(from_json(winners, 'array<bigint>')) AS winner_version
  FROM __SCHEMA__.race_status
) r
JOIN __SCHEMA__.commit_writers w ON w.`table` = r.`table` AND w.version = r.winner_version
GROUP BY ALL;

-- name: fragile_writers
-- Each racing writer, worst first: predicted conflicts, then fragile races, then races.
SELECT
  writer,
  array_join(array_sort(collect_set(`table`)), ', ') AS tables,
  count(*) AS races,
  count_if(fragile) AS fragile_races,
  count_if(predicted_conflict) AS predicted_conflicts,
  sum(fragile_under) AS changes_that_would_fail_a_race
FROM __SCHEMA__.race_status
GROUP BY writer
ORDER BY predicted_conflicts DESC, fragile_races DESC, races DESC, writer;

-- name: anomalies
SELECT `table`, severity, code, kind, first_version, versions, reason
FROM __SCHEMA__.anomalies
ORDER BY `table`, first_version, code;

-- name: recommendations
-- What each recommendation would change, measured on the table's own history.
SELECT
  `table`, rank, change, conflicts_avoided, conflicts_introduced, confidence, rationale, apply
FROM __SCHEMA__.recommendations
ORDER BY `table`, rank;
