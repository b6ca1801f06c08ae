"""Draw the README's terminal screenshot: ``explain`` of a sample log, as rich renders it.

    python scripts/terminal_screenshot.py          # docs/images/terminal-explain.svg and .png
    python scripts/terminal_screenshot.py --svg    # the SVG only (no Chromium needed)

The report is the README walkthrough (``merge_without_partition_literal`` with the failed job's
error text) at 100 columns, recorded by rich (``Console(record=True).save_svg``) with the
checkout's path shown as ``/lake/sales/orders``. The PNG is the SVG as headless Chromium
(``/usr/bin/chromium``) draws it, for viewers that do not show SVG.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rich.console import Console  # noqa: E402

from deltaforensics.analysis import analyze, open_store  # noqa: E402
from deltaforensics.report.document import explain_document  # noqa: E402
from deltaforensics.report.to_rich import render_explain  # noqa: E402

TABLE = REPO / "sample_logs" / "merge_without_partition_literal"
ERROR = REPO / "sample_logs" / "errors" / "orders_merge_failed.log"
SHOWN_AS = "/lake/sales/orders"
WIDTH = 100
OUT = REPO / "docs" / "images" / "terminal-explain"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def record() -> Console:
    analysis = analyze(open_store(str(TABLE)), error_texts=[(ERROR.name, ERROR.read_text())])
    text = json.dumps(explain_document(analysis).to_dict()).replace(str(TABLE), SHOWN_AS)
    console = Console(
        record=True, width=WIDTH, force_terminal=True, color_system="truecolor", file=io.StringIO()
    )
    render_explain(json.loads(text), console)
    return console


def to_png(svg: Path, png: Path, lines: int) -> None:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    height = 60 + lines * 25  # rich's SVG: ~24.4 px a line plus the window frame
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                chromium,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                f"--screenshot={png}",
                f"--window-size={WIDTH * 12 + 40},{height}",
                svg.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )


def main(argv: list[str]) -> int:
    console = record()
    lines = console.export_text(clear=False).count("\n")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    svg = OUT.with_suffix(".svg")
    console.save_svg(str(svg), title="deltaforensics explain /lake/sales/orders --error driver.log")
    print(f"wrote {svg.relative_to(REPO)}")
    if "--svg" not in argv:
        png = OUT.with_suffix(".png")
        to_png(svg, png, lines)
        print(f"wrote {png.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
