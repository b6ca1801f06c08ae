"""A table URL this tool does not read is refused at once, naming its scheme (exit 2): issue #19
saw ``http://`` fail with a 403 from the client (exit 4). ``s3://`` and ``gs://`` are read since
issue #36 (tests/stores/)."""

from __future__ import annotations

import pytest

from deltaforensics.cli import main
from deltaforensics.errors import UsageError
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.location import resolve_remote


@pytest.mark.parametrize(
    ("uri", "named"),
    [
        ("s3n://bucket/table", "URL scheme 's3n://'"),
        ("http://example.com/table", "URL scheme 'http://'"),
        ("ftp://example.com/table", "URL scheme 'ftp://'"),
        ("hdfs://namenode/table", "URL scheme 'hdfs://'"),
        ("https://example.com/table", "https:// host 'example.com'"),
        ("https://user:secret@example.com/t?sig=abc", "https:// host 'example.com'"),
    ],
)
def test_an_unsupported_location_is_refused_naming_its_scheme(uri: str, named: str) -> None:
    with pytest.raises(UsageError) as caught:
        resolve_remote(uri, {})
    message = str(caught.value)
    assert named in message and "\n" not in message
    assert "abfss://" in message and "az://" in message and "file://" in message
    assert "s3://" in message and "gs://" in message
    assert "secret" not in message and "sig=" not in message


@pytest.mark.parametrize("command", ["history", "snapshot", "explain"])
@pytest.mark.parametrize("uri", ["http://127.0.0.1:9/t", "hdfs://namenode/t", "s3n://bucket/t"])
def test_the_cli_exits_2_with_one_line(
    command: str, uri: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, uri]) == 2
    out, err = capsys.readouterr()
    scheme = uri.partition("://")[0]
    assert out == "" and err.count("\n") == 1
    assert err.startswith("error: unsupported table location") and f"'{scheme}://'" in err


def test_azure_https_and_memory_locations_still_resolve() -> None:
    store = FsspecLogStore.from_uri("memory://location-test/t", {})
    assert store.display_uri == "memory://location-test/t"
    resolved = resolve_remote(
        "https://acct.dfs.core.windows.net/lake/t", {"account_key": "a2V5", "anon": "false"}
    )
    assert resolved.display_uri.startswith("https://acct.dfs.core.windows.net/lake/t")
