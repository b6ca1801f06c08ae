"""Storage options: spellings, the environment, flags and files, and redaction."""

from __future__ import annotations

from pathlib import Path

import pytest

from deltaforensics.errors import UsageError
from deltaforensics.log.options import (
    ALIASES,
    canonical_key,
    load_storage_options,
    normalize_storage_options,
    redact,
    storage_options_from_env,
)

KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
SIG = "c2VjcmV0K3NpZy8%3D"  # url-encoded "c2VjcmV0K3NpZy8="
SAS = f"sv=2024-08-04&sr=c&sp=rl&se=2030-01-01&sig={SIG}"


@pytest.mark.parametrize(
    ("key", "canonical"),
    [
        ("account_name", "account_name"), ("AZURE_STORAGE_ACCOUNT_NAME", "account_name"),
        ("account_key", "account_key"), ("azure_storage_account_key", "account_key"),
        ("Azure_Storage_Access_Key", "account_key"), ("master_key", "account_key"),
        ("sas_token", "sas_token"), ("azure_storage_sas_token", "sas_token"), ("sas_key", "sas_token"),
        ("connection_string", "connection_string"), ("azure_storage_connection_string", "connection_string"),
        ("tenant_id", "tenant_id"), ("azure_tenant_id", "tenant_id"), ("azure_authority_id", "tenant_id"),
        ("client_id", "client_id"), ("azure_client_id", "client_id"),
        ("client_secret", "client_secret"), ("AZURE_CLIENT_SECRET", "client_secret"),
        ("anon", "anon"), ("azure_skip_signature", "anon"),
        ("use_emulator", "use_emulator"), ("azure_storage_use_emulator", "use_emulator"),
        ("azure_storage_endpoint", "endpoint"), ("azure_endpoint", "endpoint"),
        ("allow_http", "allow_http"), ("azure_allow_http", "allow_http"),
        ("max_concurrency", "max_concurrency"), ("timeout", "read_timeout"),
        (" account_name ", "account_name"),
    ],
)  # fmt: skip
def test_every_spelling_maps_to_one_canonical_name(key: str, canonical: str) -> None:
    assert canonical_key(key) == canonical
    assert normalize_storage_options({key: "v"}) == {canonical: "v"}


def test_two_spellings_may_repeat_a_value_but_not_contradict_it() -> None:
    agreed = {"account_key": KEY, "AZURE_STORAGE_ACCOUNT_KEY": KEY}
    assert normalize_storage_options(agreed) == {"account_key": KEY}
    with pytest.raises(UsageError) as info:
        normalize_storage_options({"account_key": KEY, "azure_storage_account_key": "b3RoZXI="})
    assert "'account_key' and 'azure_storage_account_key'" in str(info.value)
    assert KEY not in str(info.value) and "b3RoZXI=" not in str(info.value)


def test_an_unknown_option_is_named_with_a_hint() -> None:
    with pytest.raises(UsageError, match="unknown Azure storage option 'acount_key'") as info:
        normalize_storage_options({"acount_key": KEY})
    assert any("account_key" in note for note in info.value.__notes__)
    with pytest.raises(UsageError, match="'<not a name>'"):
        normalize_storage_options({"sv=2024&sig=abc": "x"})


def test_the_environment_gives_both_families_and_ignores_unrelated_azure_variables() -> None:
    env = {
        "AZURE_STORAGE_ACCOUNT": "acct",  # Azure CLI
        "AZURE_STORAGE_KEY": KEY,  # Azure CLI
        "AZURE_CLIENT_ID": "app",  # azure-identity / delta-rs
        "AZURE_SUBSCRIPTION_ID": "sub",  # unrelated
        "ACCOUNT_KEY": "nope",  # no AZURE_ prefix
        "AZURE_STORAGE_SAS_TOKEN": "",  # empty means unset
    }
    assert storage_options_from_env(env) == {
        "account_name": "acct",
        "account_key": KEY,
        "client_id": "app",
    }
    with pytest.raises(UsageError, match="environment variables 'AZURE_STORAGE_KEY' and"):
        storage_options_from_env(
            {"AZURE_STORAGE_KEY": KEY, "AZURE_STORAGE_ACCOUNT_KEY": "b3RoZXI="}
        )


def test_pairs_keep_everything_after_the_first_equals_sign() -> None:
    got = load_storage_options(
        [f"azure_storage_sas_token={SAS}", "account_key=abc==", "x.y-z= 1 "], None
    )
    assert got == {"azure_storage_sas_token": SAS, "account_key": "abc==", "x.y-z": "1"}


def test_flags_override_the_file_and_later_flags_override_earlier_ones(tmp_path: Path) -> None:
    file = tmp_path / "so.json"
    file.write_text('{"account_name": "fromfile", "use_emulator": true, "max_concurrency": 8}')
    got = load_storage_options(["account_name=a", "account_name=b"], file)
    assert got == {"account_name": "b", "use_emulator": "true", "max_concurrency": "8"}


def test_toml_files_and_a_storage_options_table(tmp_path: Path) -> None:
    flat = tmp_path / "so.toml"
    flat.write_text('azure_storage_account_name = "acct"\nallow_http = false\ntimeout = 2.5\n')
    assert load_storage_options([], flat) == {
        "azure_storage_account_name": "acct",
        "allow_http": "false",
        "timeout": "2.5",
    }
    nested = tmp_path / "nested.toml"
    nested.write_text('[storage_options]\naccount_name = "acct"\n')
    assert load_storage_options([], nested) == {"account_name": "acct"}
    guessed = tmp_path / "options.conf"
    guessed.write_text('account_name = "acct"\n')
    assert load_storage_options([], guessed) == {"account_name": "acct"}


@pytest.mark.parametrize(
    ("pairs", "content", "suffix", "message"),
    [
        (["c2VjcmV0c2VjcmV0"], None, "", "--storage-option #1 has no '=': expected KEY=VALUE"),
        ([KEY], None, "", "--storage-option #1: the part before '=' must be an option name"),
        (["ok=1", "=x"], None, "", "--storage-option #2: the part before '=' must be an option name"),
        ([], '{"account_name": ', ".json", "not valid JSON (Expecting value at line 1 column 18)"),
        ([], "[1, 2]", ".json", "expected a JSON object of options"),
        ([], 'account_name = \n', ".toml", "not valid TOML (Invalid value"),
        ([], '{"account_name": {"nested": 1}}', ".json", "'account_name' must be a string, number or boolean"),
        ([], "a = [1]\n", ".toml", "'a' must be a string, number or boolean"),
        ([], "garbage ]]", ".txt", "not valid JSON (Expecting value at line 1 column 1); not valid TOML"),
    ],
)  # fmt: skip
def test_bad_syntax_is_one_line_and_never_quotes_a_value(
    pairs: list[str], content: str | None, suffix: str, message: str, tmp_path: Path
) -> None:
    file = None
    if content is not None:
        file = tmp_path / f"options{suffix}"
        file.write_text(content)
    with pytest.raises(UsageError) as info:
        load_storage_options(pairs, file)
    text = str(info.value)
    assert message in text
    assert "\n" not in text
    assert KEY not in text and "c2VjcmV0c2VjcmV0" not in text


def test_a_missing_options_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"storage options file .*nope.json does not exist"):
        load_storage_options([], tmp_path / "nope.json")


def test_redact_removes_secrets_in_every_encoding_and_keeps_the_rest() -> None:
    options = {"account_name": "acct", "azure_storage_account_key": KEY, "sas_token": SAS}
    text = f"acct failed: key {KEY} url https://acct/c?{SAS} raw c2VjcmV0K3NpZy8= q {SIG}"
    out = redact(text, options)
    assert KEY not in out and "c2VjcmV0K3NpZy8" not in out
    assert out.startswith("acct failed: key *** url https://acct/c?")


def test_redact_finds_the_key_inside_a_connection_string() -> None:
    cs = f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={KEY};EndpointSuffix=core.windows.net"
    out = redact(f"bad key {KEY[:40]}... no: {KEY}", {"connection_string": cs})
    assert KEY not in out


def test_redact_scrubs_secret_shapes_even_without_options() -> None:
    text = (
        "GET /c?sv=1&sig=abcDEF%2B1 AccountKey=Zm9vYmFy; SharedAccessSignature=sv=1;"
        " Authorization: Bearer eyJhbGciOi.payload.sig"
    )
    out = redact(text, {})
    for secret in ("abcDEF", "Zm9vYmFy", "eyJhbGciOi"):
        assert secret not in out
    assert "sig=***" in out and "AccountKey=***" in out


def test_redact_accepts_a_list_of_secret_values() -> None:
    assert redact(f"x {KEY} y", [KEY, "short"]) == "x *** y"


def test_every_canonical_name_is_its_own_alias() -> None:
    assert all(canonical_key(name) == name for name in ALIASES)
