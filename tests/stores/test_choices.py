"""S3 and GCS URL forms, option spellings, credential choice and error wording: pure, no server
(the twins of tests/azure/test_urls.py, test_options.py and test_classify.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, NoCredentialsError
from gcsfs.retry import HttpError

from deltaforensics.errors import UsageError
from deltaforensics.log.buckets import parse_bucket_url
from deltaforensics.log.fsspec_store import FsspecLogStore
from deltaforensics.log.gcs.gcs_connection import connect as gcs_connect
from deltaforensics.log.gcs.gcs_filesystem import GcsErrorClassifier
from deltaforensics.log.s3.s3_connection import connect as s3_connect
from deltaforensics.log.s3.s3_filesystem import S3ErrorClassifier

SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@pytest.mark.parametrize(
    ("uri", "bucket", "path", "display"),
    [
        ("s3://lake/tables/t", "lake", "tables/t", "s3://lake/tables/t"),
        ("s3a://lake/tables/t/", "lake", "tables/t", "s3a://lake/tables/t/"),
        ("s3://lake/tables/t/_delta_log", "lake", "tables/t", "s3://lake/tables/t/_delta_log"),
        ("gs://lake/t", "lake", "t", "gs://lake/t"),
        ("gcs://lake/dir%20with%20space/t", "lake", "dir with space/t", "gcs://lake/dir%20with%20space/t"),
        ("s3://lake", "lake", "", "s3://lake"),
    ],
)  # fmt: skip
def test_bucket_urls_give_bucket_and_path(uri: str, bucket: str, path: str, display: str) -> None:
    url = parse_bucket_url(uri)
    assert (url.bucket, url.path, url.display_uri) == (bucket, path, display)


def test_credentials_in_the_url_are_refused_without_being_repeated() -> None:
    with pytest.raises(UsageError) as info:
        parse_bucket_url(f"s3://AKIA:{SECRET}@lake/t")
    assert SECRET not in str(info.value) and str(info.value).startswith("s3://lake/t:")
    with pytest.raises(UsageError, match="names no bucket"):
        parse_bucket_url("gs:///t")


def _s3(options: dict[str, str], env: dict[str, str] | None = None) -> object:
    return s3_connect(parse_bucket_url("s3://lake/t"), options, env or {})


@pytest.mark.parametrize(
    ("options", "env", "kind", "source"),
    [
        ({"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s"}, {}, "access key", "storage options"),
        ({"key": "a", "secret": "s", "token": "t"}, {}, "temporary credentials", "storage options"),
        ({}, {"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s"}, "access key", "environment"),
        ({}, {"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "AWS_SESSION_TOKEN": "t"},
         "temporary credentials", "environment"),
        # explicit credentials replace the environment's wholesale: no key from one, token from other
        ({"aws_access_key_id": "a", "aws_secret_access_key": "s"}, {"AWS_SESSION_TOKEN": "t"},
         "access key", "storage options"),
        ({"aws_profile": "lake"}, {"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s"}, "profile", "storage options"),
        ({}, {"AWS_PROFILE": "lake"}, "profile", "environment"),
        ({"AWS_IAM_ROLE_ARN": "arn:aws:iam::1:role/r"}, {}, "assumed role", "storage options"),
        ({"aws_skip_signature": "true"}, {"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s"},
         "anonymous access", "storage options"),
        ({}, {"AWS_ROLE_ARN": "arn:aws:iam::1:role/web", "AWS_WEB_IDENTITY_TOKEN_FILE": "/t"},
         "default credential chain", "ambient"),  # web identity: botocore's own chain
        ({}, {}, "default credential chain", "ambient"),
    ],
)  # fmt: skip
def test_the_s3_credential_is_picked_from_options_before_the_environment(
    options: dict[str, str], env: dict[str, str], kind: str, source: str
) -> None:
    conn = _s3(options, env)
    assert (conn.credential, conn.credential_source) == (kind, source)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"AWS_ACCESS_KEY_ID": "a"}, "needs both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"),
        ({"AWS_SESSION_TOKEN": "t"}, "AWS_SESSION_TOKEN is given without the key pair"),
        ({"AWS_ENDPOINT_URL": "http://minio:9000"}, "plain http; set allow_http=true"),
        ({"AWS_ENDPOINT_URL": "minio:9000"}, "must be an http(s) URL"),
        ({"aws_acess_key_id": "a"}, "unknown S3 storage option 'aws_acess_key_id'"),
        ({"account_key": SECRET}, "unknown S3 storage option 'account_key'"),
        ({"AWS_REGION": "a", "region": "b"}, "give different values for region"),
        ({"max_concurrency": "0"}, "max_concurrency"),
        ({"AWS_ALLOW_HTTP": "maybe"}, "must be true or false"),
    ],
)
def test_unusable_s3_options_are_one_line_usage_errors(
    options: dict[str, str], message: str
) -> None:
    with pytest.raises(UsageError, match=re.escape(message)) as info:
        _s3(options)
    assert SECRET not in str(info.value) and "\n" not in str(info.value)


def test_s3_endpoint_region_and_writer_options() -> None:
    conn = _s3(
        {
            "AWS_ENDPOINT_URL": "https://s3.example.com/",
            "AWS_REGION": "eu-central-1",
            "AWS_S3_LOCKING_PROVIDER": "dynamodb",  # delta-rs, for writers: accepted, unused
            "aws_virtual_hosted_style_request": "true",
            "timeout": "2m",
        }
    )
    assert (conn.endpoint, conn.region, conn.host, conn.addressing_style, conn.read_timeout) == (  # type: ignore[attr-defined]
        "https://s3.example.com",
        "eu-central-1",
        "s3.example.com",
        "virtual",
        120.0,
    )
    assert _s3({"AWS_REGION": "us-west-2"}).host == "s3.us-west-2.amazonaws.com"  # type: ignore[attr-defined]


def test_no_s3_secret_reaches_a_repr() -> None:
    store = FsspecLogStore.from_uri(
        "s3://lake/t", {"AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": SECRET}
    )
    assert SECRET not in repr(store) and SECRET not in repr(store.fs.connection)


def _gcs(
    options: dict[str, str], env: dict[str, str] | None = None, uri: str = "gs://lake/t"
) -> object:
    return gcs_connect(parse_bucket_url(uri), options, env or {})


def _account(tmp_path: Path) -> tuple[str, Path]:
    doc = {
        "type": "service_account",
        "client_email": "r@p.iam.gserviceaccount.com",
        "private_key": f"-----BEGIN PRIVATE KEY-----\n{SECRET}\n-----END PRIVATE KEY-----\n",
        "token_uri": "https://oauth2.googleapis.com/token",
        "project_id": "p",
    }
    path = tmp_path / "sa.json"
    path.write_text(json.dumps(doc))
    return json.dumps(doc), path


def test_the_gcs_credential_is_picked_from_options_before_the_environment(
    tmp_path: Path,
) -> None:
    text, path = _account(tmp_path)
    key = _gcs({"GOOGLE_SERVICE_ACCOUNT_KEY": text}, {"GOOGLE_APPLICATION_CREDENTIALS": "/x"})
    assert key.describe_credential() == (  # type: ignore[attr-defined]
        "service account key (r@p.iam.gserviceaccount.com) from storage options"
    )
    assert key.project == "p"  # type: ignore[attr-defined]
    for name in ("google_service_account", "GOOGLE_SERVICE_ACCOUNT_PATH", "service_account"):
        assert _gcs({name: str(path)}).credential == "service account file"  # type: ignore[attr-defined]
    adc = _gcs({}, {"GOOGLE_APPLICATION_CREDENTIALS": str(path)})
    assert (adc.credential, adc.credential_source) == ("credentials file", "environment")  # type: ignore[attr-defined]
    assert _gcs({"google_oauth_token": "ya29.x"}).credential == "OAuth token"  # type: ignore[attr-defined]
    assert _gcs({}).credential == "application-default credentials"  # type: ignore[attr-defined]
    emulated = _gcs({}, {"STORAGE_EMULATOR_HOST": "localhost:9023"})
    assert (emulated.credential, emulated.endpoint) == ("anonymous access", "http://localhost:9023")  # type: ignore[attr-defined]
    assert _gcs({"google_skip_signature": "1"}).credential == "anonymous access"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"GOOGLE_SERVICE_ACCOUNT_KEY": f"not json {SECRET}"}, "GOOGLE_SERVICE_ACCOUNT_KEY is not JSON"),
        ({"GOOGLE_SERVICE_ACCOUNT_KEY": '{"a": 1}'}, "not a Google credentials JSON"),
        ({"GOOGLE_SERVICE_ACCOUNT_KEY": '{"type": "service_account"}'}, "lacks client_email"),
        ({"google_service_account": "/no/such/sa.json"}, "the service account file cannot be read"),
        ({"google_endpoint": "ftp://x"}, "must be an http(s) URL"),
        ({"azure_storage_account_key": SECRET}, "unknown GCS storage option"),
    ],
)  # fmt: skip
def test_unusable_gcs_options_are_one_line_usage_errors(
    options: dict[str, str], message: str
) -> None:
    with pytest.raises(UsageError, match=re.escape(message)) as info:
        _gcs(options)
    assert SECRET not in str(info.value) and "\n" not in str(info.value)


def _client_error(status: int, code: str, message: str = "m") -> ClientError:
    return ClientError(
        {
            "Error": {"Code": code, "Message": message},
            "ResponseMetadata": {"HTTPStatusCode": status},
        },
        "ListObjectsV2",
    )


S3_CLASSIFY = S3ErrorClassifier(
    host="s3.eu-west-1.amazonaws.com",
    credential="access key from storage options",
    anonymous=False,
    secrets={"secret_access_key": SECRET},
)


@pytest.mark.parametrize(
    ("exc", "reason", "retried"),
    [
        (_client_error(503, "SlowDown", "Please reduce your request rate."),
         "service temporarily unavailable (HTTP 503 SlowDown)", True),
        (_client_error(500, "InternalError"), "service temporarily unavailable (HTTP 500 InternalError)", True),
        (_client_error(403, "AccessDenied", "Access Denied"),
         "not authorised: access key from storage options lacks permission for this (AccessDenied)", False),
        (_client_error(400, "ExpiredToken", "The provided token has expired."),
         "authentication failed: access key from storage options has expired (ExpiredToken)", False),
        (_client_error(403, "InvalidAccessKeyId"),
         "authentication failed: access key from storage options was rejected (InvalidAccessKeyId)", False),
        (_client_error(403, "SignatureDoesNotMatch"),
         "authentication failed: access key from storage options was rejected (SignatureDoesNotMatch)", False),
        (_client_error(404, "NoSuchBucket"), "bucket not found", False),
        (_client_error(400, "InvalidArgument", f"bad header {SECRET}"), "HTTP 400 InvalidArgument: bad header ***", False),
        (NoCredentialsError(), "no credentials: access key from storage options found none (set "
         "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or skip_signature=true for a public bucket)", False),
        (EndpointConnectionError(endpoint_url="https://s3.eu-west-1.amazonaws.com/lake"),
         "cannot reach s3.eu-west-1.amazonaws.com: Could not connect to the endpoint URL: \"https://s3.eu-west-1.amazonaws.com/lake\"", False),
    ],
)  # fmt: skip
def test_s3_errors_become_one_line_reasons_and_only_transient_ones_are_retried(
    exc: BaseException, reason: str, retried: bool
) -> None:
    wrapped = PermissionError("translated by s3fs")
    wrapped.__cause__ = exc
    assert S3_CLASSIFY(wrapped) == reason or S3_CLASSIFY(exc) == reason
    assert S3_CLASSIFY.io_error(exc).transient is retried


GCS_CLASSIFY = GcsErrorClassifier(
    host="storage.googleapis.com",
    credential="OAuth token from storage options",
    anonymous=False,
    secrets={"oauth_token": "ya29.secret-token"},
)


@pytest.mark.parametrize(
    ("exc", "reason", "retried"),
    [
        (HttpError({"code": 503, "message": "Backend Error"}), "service temporarily unavailable (HTTP 503)", True),
        (HttpError({"code": 429, "message": "rate"}), "service temporarily unavailable (HTTP 429)", True),
        (HttpError({"code": 401, "message": "Invalid Credentials"}),
         "authentication failed: OAuth token from storage options was rejected or has expired (401)", False),
        (OSError("Forbidden: b/lake/o\nr@p does not have storage.objects.list access"),
         "not authorised: OAuth token from storage options lacks permission for this (403)", False),
        (HttpError({"code": 400, "message": "token ya29.secret-token is bad"}), "HTTP 400: token *** is bad", False),
    ],
)  # fmt: skip
def test_gcs_errors_become_one_line_reasons_and_only_transient_ones_are_retried(
    exc: BaseException, reason: str, retried: bool
) -> None:
    assert GCS_CLASSIFY(exc) == reason
    assert GCS_CLASSIFY.io_error(exc).transient is retried
