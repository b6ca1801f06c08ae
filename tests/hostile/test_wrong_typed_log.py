"""Issue #19 §2–3: names and field values no writer produces. Each is an exit 3 whose one line
names the file, version and field, or — where the rest of the log still reads correctly — a
diagnostic the report shows. Never a traceback, a hang, or a quietly different table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile.test_damaged_logs import METADATA, PROTOCOL, add, lines, run, write


def _error(code: int, err: str, *needles: str) -> None:
    assert code == 3, err
    assert "Traceback" not in err
    first = err.strip().splitlines()[0]
    for n in needles:
        assert n in first, (n, first)


def _snapshot(capsys: pytest.CaptureFixture[str], root: Path) -> dict[str, object]:
    code, out, err = run(capsys, "snapshot", str(root), "--format", "json")
    assert code == 0, err
    doc: dict[str, object] = json.loads(out)
    return doc


def _codes(doc: dict[str, object]) -> set[str]:
    return {d["code"] for d in doc["diagnostics"]}  # type: ignore[attr-defined,index]


@pytest.mark.parametrize(
    "name",
    ["99999999999999999999.json", "09223372036854775808.json", "99999999999999999999.crc"],
)
def test_a_version_beyond_int64_is_junk_with_a_diagnostic(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a"))])
    (root / "_delta_log" / name).write_bytes(lines(add("junk")))
    doc = _snapshot(capsys, root)
    assert doc["version"] == 1
    assert [f["path"] for f in doc["files"]] == ["a"]  # type: ignore[attr-defined,index]
    assert "W106" in _codes(doc)
    code, out, err = run(capsys, "history", str(root), "--format", "json")
    assert code == 0, err
    assert [c["version"] for c in json.loads(out)["commits"]] == [0, 1]


@pytest.mark.parametrize("digit", ["\u0662", "\uff12"], ids=["arabic-indic", "fullwidth"])
def test_non_ascii_digits_are_junk_not_commits(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, digit: str
) -> None:
    root = write(tmp_path, [lines(PROTOCOL, METADATA), lines(add("a"))])
    (root / "_delta_log" / ("0" * 19 + digit + ".json")).write_bytes(lines(add("junk")))
    doc = _snapshot(capsys, root)
    assert doc["version"] == 1
    assert [f["path"] for f in doc["files"]] == ["a"]  # type: ignore[attr-defined,index]
    assert "W106" in _codes(doc)
