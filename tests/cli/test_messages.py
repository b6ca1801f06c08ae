"""Issue #32 item 10: messages a user reads when an option is wrong, in the tool's words."""

from __future__ import annotations

import pytest

from deltaforensics.cli import main
from deltaforensics.model.words import agree
from tests.conftest import SAMPLE_LOGS

TABLE = str(SAMPLE_LOGS / "duplicate_streaming_query")


def _err(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert out == ""
    return code, err


@pytest.mark.parametrize("value", ["7x", "yesterday", "99999999999999d", "999999999999999999"])
@pytest.mark.parametrize("option", ["--since", "--until"])
def test_a_time_not_understood_names_the_forms_that_are(
    capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    code, err = _err(capsys, "history", TABLE, option, value)
    assert code == 2
    assert err == (
        f"error: {option} {value!r}: give an age (7d, 36h), an ISO-8601 time or epoch ms\n"
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("explain", TABLE, "--format", "bad"), "Invalid value for '--format': 'bad' is not one"),
        (("explain", TABLE, "--fail-on", "x"), "Invalid value for '--fail-on': 'x' is not one"),
    ],
    ids=["format", "fail-on"],
)
def test_a_refused_value_does_not_leak_pydantics_prefix(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], said: str
) -> None:
    code, err = _err(capsys, *argv)
    assert code == 2
    assert said in err and "Value error" not in err, err


def test_words_agree_with_their_count() -> None:
    assert (agree(1, "it", "them"), agree(2, "it", "them"), agree(0, "is", "are")) == (
        "it",
        "them",
        "are",
    )
