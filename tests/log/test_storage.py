"""Reading and listing a local log in slices and on fast paths gives what the slow ones give."""

from __future__ import annotations

from pathlib import Path

from deltaforensics.log.listing import list_log
from deltaforensics.log.storage import FsspecLogStore


def _log(tmp_path: Path, names: list[str]) -> FsspecLogStore:
    log = tmp_path / "_delta_log"
    log.mkdir()
    for name in names:
        (log / name).write_text(f'{{"commitInfo":{{"name":"{name}"}}}}\n')
    return FsspecLogStore.from_uri(str(tmp_path))


def test_commit_names_with_other_digits_are_classified_as_the_patterns_do(tmp_path: Path) -> None:
    """The listing's shortcut takes ASCII digits only: a superscript digit is no digit to the
    patterns (junk), an Arabic-Indic one is (a commit)."""
    plain, superscript, arabic = (
        "0" * 20 + ".json",
        "0" * 19 + "\u00b2.json",
        "\u0661" * 20 + ".json",
    )
    listing = list_log(_log(tmp_path, [plain, superscript, arabic]))
    assert listing.commits == {0: plain, 11111111111111111111: arabic}
    assert listing.junk == (superscript,)
