"""The fleet dashboard: one self-contained HTML page over the audit's parquet datasets.

:mod:`.fleet` reads the datasets and counts (races, conflicts, writers, anomalies,
recommendations), :mod:`.writers` names who wrote a commit row, :mod:`.charts` draws the
timelines and the writer heatmap, :mod:`.page` assembles and writes ``dashboard.html``.
"""
