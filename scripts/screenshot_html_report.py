"""Write docs/images/explain-report.png: the HTML explain report of a sample log, as headless
Chromium renders it (the README shows it).

    python scripts/screenshot_html_report.py [SAMPLE] [--height PX]

The sample's report (the CLI's JSON, its location made relative) is rendered as HTML and
photographed through Chromium's DevTools protocol (tests/support/browser.py), the top
``--height`` pixels of a 1400-pixel-wide window.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from deltaforensics.cli import main as cli  # noqa: E402
from deltaforensics.report.to_html import to_html  # noqa: E402
from tests.support.browser import chromium, find_chromium  # noqa: E402

OUT = REPO / "docs" / "images" / "explain-report.png"
WIDTH = 1400


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sample", nargs="?", default="merge_without_partition_literal")
    parser.add_argument("--height", type=int, default=1150)
    args = parser.parse_args()
    exe = find_chromium()
    if exe is None:
        print("headless Chromium is not installed (apt-get install -y chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown):
            code = cli(["explain", str(REPO / "sample_logs" / args.sample), "--format", "json"])
        if code not in (0, 1):
            return code
        doc = json.loads(shown.getvalue())
        # The location relative to the checkout, so the picture names no one's folders.
        doc["table"]["uri"] = f"sample_logs/{args.sample}"
        page.write_text(to_html(doc), encoding="utf-8")
        with chromium(exe, Path(tmp) / "profile") as browser, browser.open(page) as tab:
            clip = {"x": 0, "y": 0, "width": WIDTH, "height": args.height, "scale": 1}
            shot = browser.call(
                "Page.captureScreenshot",
                {"format": "png", "captureBeyondViewport": True, "clip": clip},
                session=tab.session,
            )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(base64.b64decode(shot["data"]))
    print(f"wrote {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
