"""``--redact`` and ``report.redact``: no user name, e-mail or notebook path survives, in any format.

The CLI tests run every command and format on a real ``_delta_log`` written by ``LogBuilder``
with Databricks commitInfo naming people: a job owner, a notebook user with a workspace
notebook path, a user with a plain (non e-mail) name, e-mails in ``userMetadata`` and
``operationParameters``, plus a pasted error and an attempted statement naming more people. The
table itself lives in a folder named after a person, so even outputs that show no commitInfo
(the snapshot, the terminal report) have something to redact.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from deltaforensics.analysis import analyze, load_commits, open_store
from deltaforensics.cli import main
from deltaforensics.report.document import explain_document, history_document, whatif_document
from deltaforensics.report.redact import Redactor, redact_document, redact_json
from deltaforensics.whatif.document import compare_scenario
from deltaforensics.whatif.scenario import DeletionVectors, Scenario
from tests.report import SAMPLE_LOGS, explain_report
from tests.support import LogBuilder

ALICE = "alice.smith@corp.example"
ALICE_ID = "7000000000000042"
ALICE_NOTEBOOK_ID = "2222333344445555"
ALICE_NOTEBOOK = f"/Users/{ALICE}/etl/fix orders"
BOB = "bob-admin"  # a user name that is neither an e-mail nor a number
BOB_ID = "7000000000000099"
OWNER = "svc-orders@corp.example"
OWNER_ID = "7000000000000123"
ERIN = "erin@corp.example"
ERIN_NOTEBOOK = f"/Workspace/Users/{ERIN}/adhoc"
CAROL = "carol.jones@corp.example"  # only in userMetadata
DAVE = "dave@corp.example"  # only in operationParameters
FRANK = "frank-dev"  # only in the pasted error's /home path
GINA = "gina@corp.example"  # only in an --attempt statement
FOLDER = "owner-alice.smith@corp.example"  # the table's parent folder

IDENTITIES = [
    ALICE,
    ALICE_ID,
    ALICE_NOTEBOOK_ID,
    "/Users/",
    BOB,
    BOB_ID,
    OWNER,
    OWNER_ID,
    ERIN,
    CAROL,
    DAVE,
    FRANK,
    GINA,
    FOLDER,
    "example.com",  # LogBuilder's default Databricks context (etl@example.com)
]
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")
PSEUDONYM = re.compile(r"\b(user|email|notebook|path)#\d+\b")

ERROR_TEXT = f"""Traceback (most recent call last):
  File "/home/{FRANK}/.venv/lib/python3.11/site-packages/delta/tables.py", line 12, in merge
io.delta.exceptions.ConcurrentAppendException: [DELTA_CONCURRENT_APPEND] ConcurrentAppendException: Files were added to partition [date=2024-03-01] by a concurrent update. Please try the operation again.
Conflicting commit: {{"userId":"{ALICE_ID}","userName":"{ALICE}","operation":"UPDATE","notebook":{{"notebookId":"{ALICE_NOTEBOOK_ID}"}},"readVersion":2,"isolationLevel":"WriteSerializable","isBlindAppend":false}}
Refer to https://docs.delta.io/latest/concurrency-control.html for more details.
"""


def _build(path: Path) -> None:
    b = LogBuilder(path, writer="databricks-14.3", partition_by=["date"], seed=7)
    b.create()
    job = LogBuilder.job_context(
        811, 1, job_name="orders_ingest", user_id=OWNER_ID, user_name=OWNER
    )
    b.write(add=[b.file("date=2024-03-01"), b.file("date=2024-03-02")], commit_info_extra=job)
    b.write(add=[b.file("date=2024-03-02")], commit_info_extra=job)
    b.write(add=[b.file("date=2024-03-02")], commit_info_extra=job)
    alice = {
        "userId": ALICE_ID,
        "userName": ALICE,
        "notebook": {"notebookId": ALICE_NOTEBOOK_ID, "notebookPath": ALICE_NOTEBOOK},
    }
    b.update(  # v4: raced the appends v3
        "date = '2024-03-01' AND id = 7",
        read_version=2,
        remove=[b.live_files("date=2024-03-01")[0]["path"]],
        add=[b.file("date=2024-03-01")],
        commit_info_extra=alice,
    )
    b.merge(  # v5: raced alice's UPDATE
        "t.id = s.id AND t.date = s.date",
        read_version=3,
        remove=[b.live_files("date=2024-03-02")[0]["path"]],
        add=[b.file("date=2024-03-02")],
        commit_info_extra={"userId": BOB_ID, "userName": BOB, "notebook": None},
    )
    b.commit(
        "WRITE",
        parameters={"mode": "Append", "partitionBy": '["date"]', "comment": f"backfill for {DAVE}"},
        add=[b.file("date=2024-03-03")],
        read_version=4,
        commit_info_extra={
            "userId": "7000000000000555",
            "userName": ERIN,
            "userMetadata": f"approved by {CAROL}",
            "notebook": {"notebookPath": ERIN_NOTEBOOK},
        },
    )


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("redact") / FOLDER / "orders"
    _build(root)
    (root.parent / "failed.log").write_text(ERROR_TEXT, encoding="utf-8")
    return root


def _evidence(table: Path) -> list[str]:
    return [
        "--error",
        str(table.parent / "failed.log"),
        "--attempt",
        f"DELETE FROM orders WHERE date = '2024-03-04' AND owner = '{GINA}'",
        "--read-version",
        "5",
    ]


RUNS = [
    pytest.param("explain", "json", id="explain-json"),
    pytest.param("explain", "rich", id="explain-rich"),
    pytest.param("explain", "html", id="explain-html"),
    pytest.param("explain", "markdown", id="explain-markdown"),
    pytest.param("whatif", "json", id="whatif-json"),
    pytest.param("whatif", "markdown", id="whatif-markdown"),
    pytest.param("history", "json", id="history-json"),
    pytest.param("history", "table", id="history-table"),
    pytest.param("snapshot", "json", id="snapshot-json"),
    pytest.param("snapshot", "table", id="snapshot-table"),
]


def _argv(command: str, fmt: str, table: Path) -> list[str]:
    argv = [command, str(table), "--format", fmt]
    if command in ("explain", "whatif"):
        argv += _evidence(table)
    if command == "whatif":
        argv += ["--isolation", "Serializable"]
    return argv


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out + err


def _leaks(text: str) -> list[str]:
    return [i for i in IDENTITIES if i.lower() in text.lower()]


@pytest.mark.parametrize(("command", "fmt"), RUNS)
def test_without_redact_the_output_names_people(
    capsys: pytest.CaptureFixture[str], table: Path, command: str, fmt: str
) -> None:
    text = _run(capsys, _argv(command, fmt, table))
    assert _leaks(text), "the fixture must put identities into this output, or the test is void"
    assert not PSEUDONYM.search(text)


@pytest.mark.parametrize(("command", "fmt"), RUNS)
def test_redact_removes_every_identity_from_every_format(
    capsys: pytest.CaptureFixture[str], table: Path, command: str, fmt: str
) -> None:
    text = _run(capsys, [*_argv(command, fmt, table), "--redact"])
    assert _leaks(text) == []
    assert EMAIL.search(text) is None
    assert PSEUDONYM.search(text)


def test_redact_covers_a_report_written_with_output(
    capsys: pytest.CaptureFixture[str], table: Path, tmp_path: Path
) -> None:
    for fmt in ("html", "rich"):
        target = tmp_path / f"report.{fmt}"
        _run(capsys, [*_argv("explain", fmt, table), "--output", str(target), "--redact"])
        written = target.read_text(encoding="utf-8")
        assert str(table.parent.parent) in written  # the report is there...
        assert _leaks(written) == []  # ...without the people


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("explain", "explain"),
        ("whatif", "whatif"),
        ("history", "history"),
        ("snapshot", "snapshot"),
    ],
)
def test_redacted_documents_still_match_their_schema(
    capsys: pytest.CaptureFixture[str], table: Path, command: str, kind: Any
) -> None:
    pytest.importorskip("jsonschema")
    from deltaforensics.report.validate import schema_errors

    doc = json.loads(_run(capsys, [*_argv(command, "json", table), "--redact"]))
    assert schema_errors(doc, kind) == []


def test_history_pseudonyms_are_consistent_within_a_run(
    capsys: pytest.CaptureFixture[str], table: Path
) -> None:
    doc = json.loads(_run(capsys, ["history", str(table), "--format", "json", "--redact"]))
    commits = {c["version"]: c for c in doc["commits"]}
    owners = {commits[v]["job"]["jobOwnerId"] for v in (1, 2, 3)}
    runners = {commits[v]["user_id"] for v in (1, 2, 3)} | {
        commits[v]["user_name"] for v in (1, 2, 3)
    }
    assert len(owners) == 1 and owners == runners  # one person: the job owner who ran it
    alice = commits[4]
    assert alice["user_name"] == alice["user_id"] != commits[5]["user_name"]
    assert alice["notebook"]["notebookId"] == alice["notebook"]["notebookPath"]
    assert re.fullmatch(r"notebook#\d+", alice["notebook"]["notebookPath"])
    assert re.fullmatch(r"user#\d+", commits[5]["user_name"])
    assert commits[5]["user_name"] == commits[5]["user_id"]
    assert owners.isdisjoint({alice["user_name"], commits[5]["user_name"]})
    erin = commits[6]
    assert re.fullmatch(r"notebook#\d+", erin["notebook"]["notebookPath"])
    assert erin["notebook"]["notebookPath"] != alice["notebook"]["notebookPath"]
    assert re.fullmatch(r"approved by email#\d+", erin["user_metadata"])
    assert re.fullmatch(r"backfill for email#\d+", erin["operation_parameters"]["comment"])


def test_explain_prose_uses_one_pseudonym_per_writer(
    capsys: pytest.CaptureFixture[str], table: Path
) -> None:
    label = r"\b(user|notebook) ({})"
    plain = _run(capsys, _argv("explain", "json", table))
    out = _run(capsys, [*_argv("explain", "json", table), "--redact"])
    writers = set(re.findall(label.format(r"[\w@./-]*[\w-]"), plain))  # a path too
    mentions = re.findall(label.format(r"(?:user|notebook)#\d+"), out)
    assert len(mentions) >= 4  # the writers are named again and again...
    assert len(set(mentions)) == len(writers)  # ...each always by the same pseudonym
    assert {kind for kind, _ in writers} == {"user", "notebook"}
    statement = json.loads(out)["attempts"][0]["statement"]
    assert re.fullmatch(
        r"DELETE FROM orders WHERE date = '2024-03-04' AND owner = 'email#\d+'", statement
    )


def test_redact_also_covers_error_messages(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / ALICE / "missing"
    assert main(["snapshot", str(missing)]) == 3
    assert ALICE in capsys.readouterr().err
    assert main(["snapshot", str(missing), "--redact"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert ALICE not in err and "email#1" in err


def test_sample_log_identities_are_redacted(capsys: pytest.CaptureFixture[str]) -> None:
    sample = SAMPLE_LOGS / "duplicate_streaming_query"
    plain = _run(capsys, ["history", str(sample), "--format", "json"])
    assert "svc-etl@example.com" in plain and "3355799113355779" in plain
    redacted = _run(capsys, ["history", str(sample), "--format", "json", "--redact"])
    for identity in (
        "svc-etl@example.com",
        "dev@example.com",
        "4000000000000001",
        "3355799113355779",
    ):
        assert identity not in redacted
    assert "readings_sink" in redacted and "0215-101010-devint42" in redacted  # processes stay


# -- the module ----------------------------------------------------------------------------------


def test_pseudonyms_are_counters_by_kind_in_order_of_first_appearance() -> None:
    r = Redactor()
    doc = {
        "a": "mail alice@corp.example and bob@corp.example",
        "b": {"userName": "carl", "userId": "123456", "notebook": {"notebookPath": "/Repos/x/nb"}},
    }
    out = redact_json(doc, r)
    # fields first (their meaning wins over a pattern), then patterns in document order
    assert out["b"] == {
        "userName": "user#1",
        "userId": "user#1",
        "notebook": {"notebookPath": "notebook#1"},
    }
    assert out["a"] == "mail email#1 and email#2"
    assert all(PSEUDONYM.fullmatch(p) for p in r.pseudonyms.values())


def test_pseudonyms_are_not_hashes_of_the_identity() -> None:
    out = redact_json({"userName": "alice@corp.example"}, Redactor())
    assert out == {"userName": "user#1"}
    assert redact_json({"userName": "zed@corp.example"}, Redactor()) == out


def test_one_redactor_keeps_pseudonyms_across_documents() -> None:
    r = Redactor()
    first = redact_json({"userName": "a1@corp.example"}, r)
    second = redact_json({"x": "b2@corp.example wrote after A1@Corp.Example"}, r)
    assert first == {"userName": "user#1"}
    assert second == {"x": "email#1 wrote after user#1"}  # e-mails compare case-insensitively


def test_redact_document_returns_a_copy_and_leaves_the_input_alone() -> None:
    doc = explain_report()
    doc["races"][0]["reason"] = "v11 WRITE by user alice@corp.example"
    before = copy.deepcopy(doc)
    out = redact_json(doc, Redactor())
    assert doc == before
    assert out["races"][0]["reason"] == "v11 WRITE by user email#1"
    assert out["races"][1:] == doc["races"][1:] and out["table"] == doc["table"]


def test_storage_urls_and_lookalikes_are_not_people() -> None:
    r = Redactor()
    text = (
        "abfss://sales@contoso.dfs.core.windows.net/tables/orders read by ann@corp.example; "
        "txn 7a2f15f0-1887-4255-a2c8-f4c158347f96, date#1482 = 2024-03-01, /mnt/data/Users/x"
    )
    assert r.redact_text(text) == text.replace("ann@corp.example", "email#1")


def test_a_known_id_is_not_replaced_inside_a_longer_number_or_name() -> None:
    r = Redactor()
    r.learn("123456", "user")
    r.learn("ops", "user")
    assert r.redact_text("123456 91234567 1234567 ops dev-ops ops_x (ops)") == (
        "user#1 91234567 1234567 user#2 dev-ops ops_x (user#2)"
    )


def test_workspace_and_home_paths_are_removed_with_their_owner() -> None:
    r = Redactor()
    text = (
        "see dbfs:/Users/ann@corp.example/t1, /Repos/bjorn/proj/etl.py and /Workspace/Users/cy@x.io/nb. "
        "File /home/dora/.venv/x.py; C:\\Users\\egon\\a.log; bjorn again"
    )
    assert r.redact_text(text) == (
        "see path#1, path#2 and path#3. File /home/user#2/.venv/x.py; C:\\Users\\user#3\\a.log; "
        "user#1 again"
    )


def test_commit_info_quoted_in_an_error_text_teaches_its_fields() -> None:
    r = Redactor()
    text = 'Conflicting commit: {"userId":"8000000000000001","userName":"svc","notebook":{"notebookPath":"/Users/svc/nb"}}'
    out = r.redact_text(text + " svc ran it")
    assert (
        out
        == 'Conflicting commit: {"userId":"user#1","userName":"user#2","notebook":{"notebookPath":"notebook#1"}} user#2 ran it'
    )


def test_writer_labels_in_prose_are_learned() -> None:
    r = Redactor()
    assert r.redact_text("v7 UPDATE by notebook 1524277128226821, then user 4000000000000777") == (
        "v7 UPDATE by notebook notebook#1, then user user#1"
    )
    assert r.redact_text("a user names the notebook") == "a user names the notebook"


def test_numbers_and_flags_stay_but_a_numeric_owner_id_becomes_a_pseudonym() -> None:
    doc = {"job": {"jobOwnerId": 4000000000000001, "jobId": 811}, "n": 4000000000000001, "ok": True}
    out = redact_json(doc, Redactor())
    assert out == {"job": {"jobOwnerId": "user#1", "jobId": 811}, "n": 4000000000000001, "ok": True}


def test_object_keys_are_redacted_too() -> None:
    out = redact_json({"by": {"ann@corp.example": 3}}, Redactor())
    assert out == {"by": {"email#1": 3}}


def test_a_hand_built_explain_report_with_identities_still_validates() -> None:
    pytest.importorskip("jsonschema")
    from deltaforensics.report.validate import validate

    doc = explain_report()
    doc["table"]["uri"] = "dbfs:/Users/ann@corp.example/orders"
    doc["conflicts"][1]["loser"]["statement"] = "DELETE FROM t WHERE owner = 'ann@corp.example'"
    doc["anomalies"][1]["reason"] = "userName ann@corp.example is whatever the caller said"
    out = redact_json(doc, Redactor())
    validate(out, "explain")
    assert "ann@corp.example" not in json.dumps(out)
    assert out["table"]["uri"] == "path#1"


def test_non_ascii_addresses_and_service_principals_are_redacted() -> None:
    r = Redactor()
    text = "by José.García@corp.example, then user 8c3f2a10-5b7e-4d2a-9f00-1a2b3c4d5e6f"
    assert r.redact_text(text) == "by email#1, then user user#1"


def test_a_snapshot_sized_document_is_redacted_in_seconds() -> None:
    import time

    files = [
        {"path": f"date=2024-01-{i % 28:02d}/part-{i:05d}-0dfc080d-c000.snappy.parquet", "size": i}
        for i in range(100_000)
    ]
    people = [
        {
            "userName": f"u{i}@corp.example",
            "notebook": {"notebookPath": f"/Users/u{i}@corp.example/nb"},
        }
        for i in range(50)
    ]
    doc = {"table": "/Users/u1@corp.example/t", "files": files, "commits": people}
    started = time.perf_counter()
    out = redact_json(doc, Redactor())
    assert time.perf_counter() - started < 20  # a regex of every identity per string took 50 s
    assert out["files"] == files and out["table"] == "path#1"
    assert "corp.example" not in json.dumps(out["commits"])


def _audit_outputs(
    tmp_path: Path, table: Path, capsys: pytest.CaptureFixture[str], *flags: str
) -> str:
    """Everything an audit writes: stdout, stderr, summary, reports and every dataset cell."""
    import polars as pl

    tmp_path.mkdir(parents=True)
    config = tmp_path / "audit.toml"
    config.write_text(
        f'output = "out"\n[[tables]]\nname = "orders"\nuri = "{table}"\n'
        f'[[tables]]\nname = "gone"\nuri = "{tmp_path / FOLDER / "missing"}"\n'
    )
    code = main(["--quiet", "audit", str(config), "--state", str(tmp_path / "state"), *flags])
    out, err = capsys.readouterr()
    assert code == 3, err  # the missing table fails, the other is audited
    texts = [out, err]
    texts += [p.read_text() for p in (tmp_path / "out").rglob("*.json")]
    for part in (tmp_path / "out" / "datasets").rglob("*.parquet"):
        texts.append(pl.read_parquet(part).write_csv())
    return "\n".join(texts)


def test_audit_redact_covers_summary_reports_and_datasets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: Path
) -> None:
    plain = _audit_outputs(tmp_path / "plain", table, capsys)
    assert _leaks(plain), "the fixture must put identities into the audit outputs"
    redacted = _audit_outputs(tmp_path / "redacted", table, capsys, "--redact")
    assert _leaks(redacted) == []
    assert not EMAIL.search(redacted)
    assert PSEUDONYM.search(redacted)


@pytest.mark.parametrize("sample", sorted(p.parent.name for p in SAMPLE_LOGS.glob("*/_delta_log")))
def test_a_typed_document_is_redacted_as_its_json_form_is(sample: str) -> None:
    """Redaction is a transform of typed values; what it gives is, field for field, what
    redacting the document's JSON form gives (the form ``--redact`` rewrote before #30), with
    the same pseudonyms in the same order."""
    analysis = analyze(open_store(str(SAMPLE_LOGS / sample)))
    infos = list(analysis.transactions.commit_infos())
    _, commits, diagnostics = load_commits(open_store(str(SAMPLE_LOGS / sample)))
    documents = [
        explain_document(analysis),
        whatif_document(analysis, compare_scenario(analysis, Scenario.of(DeletionVectors()))),
        history_document(str(SAMPLE_LOGS / sample), commits, diagnostics),
    ]
    for doc in documents:
        typed, plain = Redactor(), Redactor()
        for info in infos:
            typed.learn_commit_info(info)
            plain.learn_commit_info(info)
        redacted = redact_document(doc, typed)
        assert type(redacted) is type(doc)
        as_json = json.loads(json.dumps(redacted.to_dict(), default=str))
        expected = json.loads(json.dumps(redact_json(doc.to_dict(), plain), default=str))
        assert as_json == expected
        assert typed.pseudonyms == plain.pseudonyms
