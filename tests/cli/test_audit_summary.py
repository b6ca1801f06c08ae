"""``audit``'s summary on stdout fits 80 columns and names a failed table with its error; the
exit code is said on stderr, not in the summary (issue #32, item 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deltaforensics.cli.app import main
from tests.conftest import SAMPLE_LOGS

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def test_the_summary_fits_80_columns_and_the_exit_code_goes_to_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = {
        "sample.merge_without_partition_literal": SAMPLE_LOGS / "merge_without_partition_literal",
        "delta__versions-not-contiguous": CORPUS / "delta__versions-not-contiguous",
    }
    lines = [f'output = "{tmp_path / "out"}"']
    for name, uri in tables.items():
        lines += ["[[tables]]", f"name = {json.dumps(name)}", f"uri = {json.dumps(str(uri))}"]
    config = tmp_path / "audit.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["audit", str(config), "--no-recommendations"]) == 3
    out, err = capsys.readouterr()
    assert max(len(line) for line in out.splitlines()) <= 80, out
    assert "exit code" not in out and "exit code 3" in err
    failed = out.split("delta__versions-not-contiguous: FAILED:", 1)[1]
    assert "cannot be reconstructed" in " ".join(failed.split())
    assert "sample.merge_without_partition_literal: full read of v0..v37" in out
