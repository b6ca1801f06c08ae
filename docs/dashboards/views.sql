-- Views over the parquet datasets of `deltaforensics audit` (docs/audit.md, "Datasets").
-- Replace __AUDIT_OUTPUT__ with the audit's output directory (the `output` of its config, e.g.
-- abfss://ops@account.dfs.core.windows.net/deltaforensics) and __SCHEMA__ with the catalog and
-- schema the views go in (e.g. main.deltaforensics); run once in a Databricks SQL warehouse.
-- The dashboard (deltaforensics-audit.lvdash.json) and queries.sql read these views.
-- Each dataset folder holds one part per table (table=<name>/part-0.parquet); every file also
-- carries `table` itself, so the partition folder and the column agree.

CREATE OR REPLACE VIEW __SCHEMA__.commits AS
SELECT * FROM parquet.`__AUDIT_OUTPUT__/datasets/commits`;

CREATE OR REPLACE VIEW __SCHEMA__.races AS
SELECT * FROM parquet.`__AUDIT_OUTPUT__/datasets/races`;

CREATE OR REPLACE VIEW __SCHEMA__.conflicts AS
SELECT * FROM parquet.`__AUDIT_OUTPUT__/datasets/conflicts`;

CREATE OR REPLACE VIEW __SCHEMA__.anomalies AS
SELECT * FROM parquet.`__AUDIT_OUTPUT__/datasets/anomalies`;

CREATE OR REPLACE VIEW __SCHEMA__.recommendations AS
SELECT * FROM parquet.`__AUDIT_OUTPUT__/datasets/recommendations`;

-- Versions whose races cannot be seen (no readVersion recorded, W304), per table.
CREATE OR REPLACE VIEW __SCHEMA__.race_visibility AS
SELECT * FROM parquet.`__AUDIT_OUTPUT__/datasets/race_visibility`;

-- Who wrote each commit, spelled as the explain report and dashboard.html spell it: the job
-- (its name, else its id), else the notebook's path, else the user, else the notebook's id; a
-- commit naming none is called by its cluster, else by its engine.
CREATE OR REPLACE VIEW __SCHEMA__.commit_writers AS
SELECT
  `table`,
  version,
  timestamp,
  operation,
  coalesce(
    'job ' || coalesce(get_json_object(job, '$.jobName'), get_json_object(job, '$.jobId')),
    'notebook ' || get_json_object(notebook, '$.notebookPath'),
    'user ' || nullif(user_name, ''),
    'notebook ' || get_json_object(notebook, '$.notebookId'),
    'cluster ' || nullif(cluster_id, ''),
    'unnamed writer (' || split(coalesce(engine_info, client_version), ' ')[0] || ')',
    'unnamed writer'
  ) AS writer
FROM __SCHEMA__.commits;

-- Races with the colours of the explain report: a predicted conflict (the replayed checker
-- raises), a fragile race (it committed, but a plausible change would have failed it), else
-- safe; with the racing commit's time and writer.
CREATE OR REPLACE VIEW __SCHEMA__.race_status AS
SELECT
  r.*,
  r.outcome <> 'commits' AS predicted_conflict,
  r.outcome = 'commits' AND r.fragile_under > 0 AS fragile,
  timestamp_millis(c.timestamp) AS committed_at,
  c.writer
FROM __SCHEMA__.races r
LEFT JOIN __SCHEMA__.commit_writers c ON c.`table` = r.`table` AND c.version = r.version;
