"""Denied, expired, throttled, missing: one line each (exit code 3), the same on every store.

The emulators check no credential and never throttle, so these failures come from the
FAULT-INJECTING PROXY of tests/stores/fault_proxy.py (the tests' own stand-in) in front of
each emulator, with the status and error code the real service sends.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from deltaforensics.cli import main
from deltaforensics.errors import NotADeltaTableError, StorageError
from deltaforensics.log.fsspec_store import FsspecLogStore
from tests.stores.conftest import Store
from tests.stores.test_report_parity import storage_args

pytestmark = [pytest.mark.objectstore, pytest.mark.corpus]

TABLE = "deltars__checkpoint_with_partitions"
# (status, error code, message) as each service words it
FAULTS = {
    "throttled": {
        "s3": (503, "SlowDown", "Please reduce your request rate."),
        "gcs": (503, "backendError", "We encountered an internal error. Please try again."),
        "adls": (503, "ServerBusy", "The server is currently unable to receive requests."),
    },
    "denied": {
        "s3": (403, "AccessDenied", "Access Denied"),
        "gcs": (403, "forbidden", "does not have storage.objects.list access to the bucket."),
        "adls": (403, "AuthorizationPermissionMismatch", "This request is not authorized to perform this operation using this permission."),
    },
    "expired": {
        "s3": (400, "ExpiredToken", "The provided token has expired."),
        "gcs": (401, "authError", "Invalid Credentials"),
        "adls": (403, "AuthenticationFailed", "Server failed to authenticate the request. Signature not valid in the specified time frame."),
    },
}  # fmt: skip
CREDENTIAL = {
    "s3": "access key from storage options",
    "gcs": "OAuth token from storage options",
    "adls": "account key from emulator default",
}


def _options(store: Store) -> dict[str, str]:
    """Through the proxy, with a named credential (GCS: a token the emulator ignores)."""
    if store.kind == "gcs":
        return {**store.proxied_options, "google_oauth_token": "ya29.emulated-token"}
    return store.proxied_options


def _open(store: Store, corpus: Callable[[Store], dict[str, Path]]) -> FsspecLogStore:
    corpus(store)
    uri = store.url(f"tables/{TABLE}")
    return FsspecLogStore.from_uri(uri, _options(store), backoff_seconds=0.01)


def _failure(store: FsspecLogStore) -> str:
    with pytest.raises(StorageError) as info:
        store.list_log()
    message = str(info.value)
    assert "\n" not in message, message
    return message


def test_throttling_is_retried_until_the_store_answers(
    store: Store, corpus_on: Callable[[Store], dict[str, Path]]
) -> None:
    remote = _open(store, corpus_on)
    store.proxy.inject(*FAULTS["throttled"][store.kind], times=2)
    local = FsspecLogStore.from_uri(str(corpus_on(store)[TABLE]))
    assert sorted(remote.list_log(), key=lambda f: f.name) == sorted(
        local.list_log(), key=lambda f: f.name
    )
    assert store.proxy.served_faults == 2


def test_throttling_that_does_not_end_is_one_line_after_a_bounded_number_of_tries(
    store: Store, corpus_on: Callable[[Store], dict[str, Path]]
) -> None:
    remote = _open(store, corpus_on)
    store.proxy.inject(*FAULTS["throttled"][store.kind])
    message = _failure(remote)
    assert message.startswith(f"{remote.uri}: listing _delta_log: ")
    assert "service temporarily unavailable (HTTP 503" in message
    # storage.py's retries only: no SDK's own retry loop multiplies them
    assert store.proxy.served_faults == remote.retries + 1


def test_access_denied_names_the_credential(
    store: Store, corpus_on: Callable[[Store], dict[str, Path]]
) -> None:
    remote = _open(store, corpus_on)
    store.proxy.inject(*FAULTS["denied"][store.kind])
    message = _failure(remote)
    assert f"not authorised: {CREDENTIAL[store.kind]} lacks permission for this" in message
    assert store.proxy.served_faults == 1  # not retried


def test_an_expired_credential_says_so(
    store: Store, corpus_on: Callable[[Store], dict[str, Path]]
) -> None:
    remote = _open(store, corpus_on)
    store.proxy.inject(*FAULTS["expired"][store.kind])
    message = _failure(remote)
    assert f"authentication failed: {CREDENTIAL[store.kind]}" in message
    assert "expired" in message
    assert store.proxy.served_faults == 1


@pytest.mark.parametrize("fault", ["denied", "expired"])
def test_the_cli_exits_3_with_one_line(
    fault: str,
    store: Store,
    corpus_on: Callable[[Store], dict[str, Path]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    corpus_on(store)
    store.proxy.inject(*FAULTS[fault][store.kind])
    uri = store.url(f"tables/{TABLE}")
    code = main(["history", uri, *storage_args(_options(store))])
    out, err = capsys.readouterr()
    assert code == 3, err
    assert out == "" and err.count("\n") == 1 and uri in err


def test_a_missing_bucket(store: Store) -> None:
    remote = FsspecLogStore.from_uri(store.url("tables/t", bucket="no-such-bucket"), store.options)
    message = _failure(remote)
    what = "container" if store.kind == "adls" else "bucket"
    assert f"{what} 'no-such-bucket' not found" in message, message


def test_a_missing_path_in_an_existing_bucket(
    store: Store, corpus_on: Callable[[Store], dict[str, Path]]
) -> None:
    corpus_on(store)
    uri = store.url("tables/no-such-table")
    assert _failure(FsspecLogStore.from_uri(uri, store.options)) == f"{uri}: path not found"


def test_an_existing_folder_without_a_log_is_not_a_delta_table(
    store: Store, corpus_on: Callable[[Store], dict[str, Path]]
) -> None:
    corpus_on(store)
    with pytest.raises(NotADeltaTableError, match="no _delta_log folder"):
        FsspecLogStore.from_uri(store.url("tables"), store.options).list_log()


def test_nothing_listening_is_cannot_reach_host(store: Store) -> None:
    closed = {
        "s3": {**store.options, "AWS_ENDPOINT_URL": "http://127.0.0.1:9"},
        "gcs": {**store.options, "google_endpoint": "http://127.0.0.1:9"},
        "adls": {**store.options, "azure_storage_endpoint": "http://127.0.0.1:9/devstoreaccount1"},
    }[store.kind]
    remote = FsspecLogStore.from_uri(store.url("tables/t"), closed, backoff_seconds=0.01)
    assert _failure(remote).endswith("cannot reach 127.0.0.1:9: connection refused")
