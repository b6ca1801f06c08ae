"""SDK exceptions -> one-line reasons, and which of them fsspec_store.py retries. No server needed."""

from __future__ import annotations

import socket

import pytest
from azure.core.exceptions import (
    ClientAuthenticationError,
    HttpResponseError,
    ServiceRequestError,
    ServiceResponseError,
)

from deltaforensics.log.azure import AzureErrorClassifier
from deltaforensics.log.fsspec_store import _transient

SECRET = "c2VjcmV0a2V5c2VjcmV0a2V5"
CLASSIFY = AzureErrorClassifier(
    host="acct.blob.core.windows.net",
    credential="account key from storage options",
    anonymous=False,
    secrets={"account_key": SECRET},
)


def _http(status: int, code: str, message: str = "Server said no.") -> HttpResponseError:
    exc = HttpResponseError(message=f"{message}\nRequestId:5003-a429\nErrorCode:{code}")
    exc.status_code = status
    exc.error_code = code
    return exc


def _request_error(inner: BaseException) -> ServiceRequestError:
    return ServiceRequestError("Cannot connect to host", error=inner)


@pytest.mark.parametrize(
    ("exc", "reason", "retried"),
    [
        (_http(403, "AuthenticationFailed"), "authentication failed: account key from storage options was rejected", False),
        (_http(403, "AuthorizationFailure", "Server failed to authenticate the request."),
         "authentication failed: account key from storage options was rejected", False),
        (_http(403, "AuthenticationFailed", "Signature not valid in the specified time frame"),
         "authentication failed: account key from storage options was rejected (expired or not yet valid)", False),
        (_http(403, "AuthorizationPermissionMismatch"),
         "not authorised: account key from storage options lacks permission for this (AuthorizationPermissionMismatch)", False),
        (_http(403, "AuthorizationFailure", "This request is not authorized to perform this operation."),
         "not authorised: account key from storage options lacks permission for this (AuthorizationFailure)", False),
        (_http(404, "ContainerNotFound"), "container not found", False),
        (_http(404, "BlobNotFound"), "path not found", False),
        (_http(503, "ServerBusy"), "service temporarily unavailable (HTTP 503 ServerBusy)", True),
        (_http(500, "InternalError"), "service temporarily unavailable (HTTP 500 InternalError)", True),
        (_http(429, "TooManyRequests"), "service temporarily unavailable (HTTP 429 TooManyRequests)", True),
        (_http(400, "InvalidQueryParameterValue", "Value for one of the query parameters is invalid."),
         "HTTP 400 InvalidQueryParameterValue: Value for one of the query parameters is invalid.", False),
        (ClientAuthenticationError("DefaultAzureCredential failed to retrieve a token.\nAttempted: ..."),
         "authentication failed: account key from storage options could not get a token "
         "(DefaultAzureCredential failed to retrieve a token.)", False),
        (_request_error(socket.gaierror(-2, "Name or service not known")),
         "cannot reach acct.blob.core.windows.net: host name not found (check the account name)", False),
        (_request_error(ConnectionRefusedError(111, "Connection refused")),
         "cannot reach acct.blob.core.windows.net: connection refused", False),
        (_request_error(TimeoutError()), "cannot reach acct.blob.core.windows.net: connection timed out", True),
        (ServiceResponseError("Connection reset by peer"),
         "connection reset by acct.blob.core.windows.net while reading", True),
    ],
)  # fmt: skip
def test_sdk_errors_become_one_line_reasons_and_only_transient_ones_are_retried(
    exc: BaseException, reason: str, retried: bool
) -> None:
    text = CLASSIFY(exc)
    assert text == reason
    assert _transient(CLASSIFY.io_error(exc)) is retried


def test_anonymous_refusals_ask_for_credentials() -> None:
    anonymous = AzureErrorClassifier(
        host="h", credential="anonymous access", anonymous=True, secrets={}
    )
    assert anonymous(_http(401, "NoAuthenticationInformation")) == (
        "authentication failed: anonymous access was refused; pass credentials"
    )


def test_a_secret_echoed_by_the_service_is_redacted() -> None:
    exc = _http(400, "InvalidHeaderValue", f"The value {SECRET} of header x-ms-foo is invalid.")
    assert SECRET not in CLASSIFY(exc)
    assert "***" in CLASSIFY(exc)


def test_the_classifier_repr_shows_no_secret() -> None:
    assert SECRET not in repr(CLASSIFY)
