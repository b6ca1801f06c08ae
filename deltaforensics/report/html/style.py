"""The look every HTML page of the tool shares (the explain report, the audit's dashboard):
one inline stylesheet, and a Content-Security-Policy that forbids scripts and every fetch, so
a page that shows hostile log text still cannot run code or call out."""

from __future__ import annotations

CSS = """
:root{--ok:#2e7d32;--warn:#e0a100;--bad:#c62828;--conflict:#7f1d1d;--muted:#5f6b7a;--line:#d9dee5;
--bg:#fff;--fg:#1d2430;--zebra:#f6f8fa;--code:#eef1f5}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1400px;margin:0 auto;padding:20px 28px 40px}
h1{font-size:22px;margin:0 0 12px;overflow-wrap:anywhere}
h2{font-size:17px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
code,pre{font:12.5px/1.4 ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace}
code{background:var(--code);padding:1px 4px;border-radius:3px;overflow-wrap:anywhere}
pre{background:var(--code);padding:8px 10px;border-radius:4px;margin:0;white-space:pre-wrap;overflow-wrap:anywhere;
min-width:220px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:3px 16px;margin:0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
.muted{color:var(--muted)}.small{font-size:12px}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:16px 0 4px}
.card{border:1px solid var(--line);border-radius:6px;padding:8px 14px;min-width:130px}
.card b{display:block;font-size:22px}
table{border-collapse:collapse;width:100%;margin:6px 0}
th,td{border:1px solid var(--line);padding:5px 7px;text-align:left;vertical-align:top}
th{background:var(--zebra);font-weight:600}
.scroll{overflow-x:auto}
tbody tr:nth-child(even){background:#fbfcfd}
.num{font-variant-numeric:tabular-nums;white-space:nowrap}
tr.ok td:first-child{border-left:4px solid var(--ok)}
tr.warn td:first-child{border-left:4px solid var(--warn)}
tr.bad td:first-child,tr.conflict td:first-child{border-left:4px solid var(--bad)}
.badge{display:inline-block;padding:0 6px;border-radius:9px;font-size:12px;color:#fff;
background:var(--muted);white-space:nowrap}
.badge.ok,.badge.info{background:var(--ok)}.badge.warn,.badge.warning{background:var(--warn);color:#222}
.badge.bad,.badge.error,.badge.conflict{background:var(--bad)}
.badge.high{background:#1f6f43}.badge.medium{background:#8a6d00}.badge.low{background:#8b2f2f}
ul.plain{margin:0;padding-left:16px}
details summary{cursor:pointer;color:var(--muted)}
.legend{display:flex;flex-wrap:wrap;gap:16px;font-size:12px;color:var(--muted);margin:4px 0}
.sw{display:inline-block;width:22px;height:10px;border-radius:2px;vertical-align:middle;margin-right:5px}
svg.timeline{width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
svg .bar.ok{fill:var(--ok)}svg .bar.warn{fill:var(--warn)}svg .bar.bad{fill:var(--bad)}
svg .bar.conflict{fill:var(--conflict)}svg .bar.failed{fill-opacity:.55;stroke:var(--conflict);
stroke-dasharray:4 2}
svg text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:var(--fg)}
svg .grid{stroke:#eceff3}svg .axis{fill:var(--muted)}
svg .win{fill:#111}svg .missing{fill:#fff;stroke:#555;stroke-dasharray:2 1}
svg .cross{stroke:#111;stroke-width:2}
footer{margin-top:36px;color:var(--muted);font-size:12px}
"""
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)
