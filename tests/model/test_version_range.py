"""A reversed version range is refused by every command (issue #31 item 5), not read as a
clean, empty history."""

from __future__ import annotations

import pytest

from deltaforensics.analysis import analyze, open_store
from deltaforensics.cli import main
from deltaforensics.errors import UsageError
from deltaforensics.model.version_range import VersionRange
from tests.conftest import REPO

SAMPLE = str(REPO / "sample_logs" / "merge_without_partition_literal")


@pytest.mark.parametrize("command", ["explain", "history"])
def test_a_reversed_range_exits_2(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([command, SAMPLE, "--from-version", "30", "--to-version", "10", "--format", "json"])
    _, err = capsys.readouterr()
    assert code == 2, err
    assert "--from-version must not be greater than --to-version" in err


def test_the_core_refuses_it_whoever_calls() -> None:
    with pytest.raises(UsageError):
        analyze(open_store(SAMPLE), from_version=30, to_version=10, recommendations=False)
    with pytest.raises(UsageError, match="0 or more"):
        VersionRange(-1, None)
    assert VersionRange(10, 10) == VersionRange(10, 10)
