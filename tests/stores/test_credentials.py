"""Every S3 and GCS credential channel the emulators can carry, read like the local copy.

ADLS's channels are tests/azure/test_credentials.py (Azurite checks keys and SAS; these
emulators check nothing, so here what is checked is which credential reached the request:
the STS call of an assumed role, the bearer token a service account's key was exchanged for,
and that the secret is in no repr and no message). moto's server and gcp-storage-emulator
are EMULATORS; the token endpoint is the tests' own fault proxy (tests/stores/fault_proxy.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from deltaforensics.cli import main
from deltaforensics.errors import StorageError
from deltaforensics.log.fsspec_store import FsspecLogStore
from tests.stores.conftest import Store, emulators

pytestmark = [pytest.mark.objectstore, pytest.mark.corpus]

TABLE = "deltars__checkpoint_with_partitions"
SECRET = emulators.S3_SECRET


@pytest.fixture
def s3(servers: Callable[[str], Store], corpus_on: Callable[[Store], dict[str, Path]]) -> Store:
    found = servers("s3")
    found.proxy.clear()
    corpus_on(found)
    return found


@pytest.fixture
def gcs(servers: Callable[[str], Store], corpus_on: Callable[[Store], dict[str, Path]]) -> Store:
    found = servers("gcs")
    found.proxy.clear()
    corpus_on(found)
    return found


def _reads_like_local(store: FsspecLogStore, corpus_dir: Path) -> None:
    local = FsspecLogStore.from_uri(str(corpus_dir / TABLE))
    assert sorted(f.name for f in store.list_log()) == sorted(f.name for f in local.list_log())
    assert store.read("00000000000000000002.json") == local.read("00000000000000000002.json")


# --- S3 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"),  # delta-rs
        ("aws_access_key_id", "aws_secret_access_key"),  # object_store
        ("access_key_id", "secret_access_key"),  # object_store, short
        ("key", "secret"),  # s3fs
    ],
)
def test_s3_key_pair_in_every_spelling(key: str, secret: str, s3: Store, corpus_dir: Path) -> None:
    options = {
        key: emulators.S3_KEY_ID,
        secret: SECRET,
        "aws_endpoint": s3.endpoint,
        "aws_allow_http": "true",
    }
    remote = FsspecLogStore.from_uri(f"s3a://corpus/tables/{TABLE}", options)
    assert remote.fs.connection.credential == "access key"
    _reads_like_local(remote, corpus_dir)
    assert SECRET not in repr(remote)


def test_s3_temporary_credentials_and_region_from_the_environment(
    s3: Store, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", emulators.S3_KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_SESSION_TOKEN", "FwoGZXIvYXdzEPHONYSESSIONTOKEN")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3.endpoint)
    monkeypatch.setenv("AWS_ALLOW_HTTP", "true")
    remote = FsspecLogStore.from_uri(f"s3://corpus/tables/{TABLE}", {})
    conn = remote.fs.connection
    assert (conn.credential, conn.credential_source, conn.region) == (
        "temporary credentials",
        "environment",
        "eu-west-1",
    )
    _reads_like_local(remote, corpus_dir)
    assert "PHONYSESSIONTOKEN" not in repr(remote)


def test_s3_profile_from_a_shared_credentials_file(
    s3: Store, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    credentials = tmp_path / "credentials"
    credentials.write_text(
        f"[lake]\naws_access_key_id = {emulators.S3_KEY_ID}\naws_secret_access_key = {SECRET}\n"
    )
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    options = {"AWS_PROFILE": "lake", "AWS_ENDPOINT_URL": s3.endpoint, "AWS_ALLOW_HTTP": "1"}
    remote = FsspecLogStore.from_uri(f"s3://corpus/tables/{TABLE}", options)
    assert remote.fs.connection.describe_credential() == "profile 'lake' from storage options"
    _reads_like_local(remote, corpus_dir)


def test_s3_default_chain_finds_the_default_profile(
    s3: Store, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    credentials = tmp_path / "credentials"
    credentials.write_text(
        f"[default]\naws_access_key_id = {emulators.S3_KEY_ID}\naws_secret_access_key = {SECRET}\n"
    )
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    options = {"AWS_ENDPOINT_URL": s3.endpoint, "AWS_ALLOW_HTTP": "1"}
    remote = FsspecLogStore.from_uri(f"s3://corpus/tables/{TABLE}", options)
    assert remote.fs.connection.credential == "default credential chain"
    _reads_like_local(remote, corpus_dir)


@pytest.mark.parametrize("name", ["AWS_IAM_ROLE_ARN", "aws_s3_assume_role_arn", "role_arn"])
def test_s3_assumed_role_through_sts(name: str, s3: Store, corpus_dir: Path) -> None:
    """moto's server also serves STS: AssumeRole answers a temporary key pair, used for S3."""
    role = "arn:aws:iam::123456789012:role/lake-reader"
    options = {**s3.proxied_options, name: role, "AWS_IAM_ROLE_SESSION_NAME": "audit"}
    remote = FsspecLogStore.from_uri(f"s3://corpus/tables/{TABLE}", options)
    assert remote.fs.connection.describe_credential() == f"the role {role} from storage options"
    assert any("POST /" in p for p in s3.proxy.paths)  # the STS call went to the endpoint
    granted = remote.fs.key
    assert granted and granted != emulators.S3_KEY_ID
    _reads_like_local(remote, corpus_dir)
    signed = [a for a in s3.proxy.authorizations if "Credential=" in a]
    assert signed[-1].split("Credential=")[1].startswith(granted)


def test_s3_skip_signature_sends_unsigned_requests_and_a_refusal_asks_for_credentials(
    s3: Store,
) -> None:
    """moto's server refuses an unsigned GET of a private object with 403 AccessDenied."""
    options = {
        "AWS_ENDPOINT_URL": s3.proxy.url,
        "AWS_ALLOW_HTTP": "true",
        "AWS_SKIP_SIGNATURE": "true",
    }
    remote = FsspecLogStore.from_uri(f"s3://corpus/tables/{TABLE}", options, backoff_seconds=0.01)
    assert remote.fs.connection.credential == "anonymous access"
    with pytest.raises(StorageError) as info:
        remote.read("00000000000000000002.json")
    assert str(info.value).endswith("access denied to anonymous access; pass credentials")
    assert s3.proxy.paths and not any("Credential=" in a for a in s3.proxy.authorizations)


def test_s3_delta_rs_writer_options_are_accepted_and_unused(s3: Store, corpus_dir: Path) -> None:
    options = {**s3.options, "AWS_S3_LOCKING_PROVIDER": "dynamodb", "aws_conditional_put": "etag"}
    _reads_like_local(FsspecLogStore.from_uri(f"s3://corpus/tables/{TABLE}", options), corpus_dir)


# --- GCS ---------------------------------------------------------------------------------------


def _service_account(token_uri: str) -> dict[str, str]:
    """A real service-account key's shape, with a real RSA key made here (the token endpoint
    is the tests' proxy, which checks nothing)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    return {
        "type": "service_account",
        "project_id": "lake-project",
        "private_key_id": "0123456789abcdef",
        "private_key": pem,
        "client_email": "reader@lake-project.iam.gserviceaccount.com",
        "client_id": "1234567890",
        "token_uri": token_uri,
    }


@pytest.mark.parametrize("channel", ["key option", "path option", "ADC variable"])
def test_gcs_service_account_is_exchanged_for_a_token_that_reaches_the_store(
    channel: str, gcs: Store, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    account = _service_account(f"{gcs.proxy.url}/token")
    path = tmp_path / "sa.json"
    path.write_text(json.dumps(account))
    options = dict(gcs.proxied_options)
    if channel == "key option":
        options["GOOGLE_SERVICE_ACCOUNT_KEY"] = json.dumps(account)
    elif channel == "path option":
        options["google_service_account"] = str(path)
    else:
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    remote = FsspecLogStore.from_uri(f"gs://corpus/tables/{TABLE}", options)
    assert (
        "reader@lake-project.iam.gserviceaccount.com" in remote.fs.connection.describe_credential()
    )
    _reads_like_local(remote, corpus_dir)
    assert gcs.proxy.tokens_issued >= 1
    assert f"Bearer {gcs.proxy.access_token}" in gcs.proxy.authorizations
    assert account["private_key"] not in repr(remote)


def test_gcs_emulator_host_from_the_environment(
    gcs: Store, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", gcs.endpoint.removeprefix("http://"))
    remote = FsspecLogStore.from_uri(f"gcs://corpus/tables/{TABLE}", {})
    assert remote.fs.connection.credential == "anonymous access"
    _reads_like_local(remote, corpus_dir)


def test_gcs_oauth_token_is_sent_as_a_bearer_token(gcs: Store, corpus_dir: Path) -> None:
    options = {**gcs.proxied_options, "google_oauth_token": "ya29.a-vended-token"}
    _reads_like_local(FsspecLogStore.from_uri(f"gs://corpus/tables/{TABLE}", options), corpus_dir)
    assert "Bearer ya29.a-vended-token" in gcs.proxy.authorizations


def test_gcs_a_key_that_is_not_json_is_a_usage_error_that_never_quotes_it(
    gcs: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "history",
            f"gs://corpus/tables/{TABLE}",
            "--storage-option",
            f"google_endpoint={gcs.endpoint}",
            "--storage-option",
            "GOOGLE_SERVICE_ACCOUNT_KEY=-----BEGIN PRIVATE KEY-----not-json-secret",
        ]
    )
    _, err = capsys.readouterr()
    assert code == 2
    assert "GOOGLE_SERVICE_ACCOUNT_KEY is not JSON" in err and "not-json-secret" not in err
