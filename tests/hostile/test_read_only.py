"""The tool never writes under a table's location: every command runs against a filesystem
that fails on any write, delete or rename, and the table's files are unchanged afterwards."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import fsspec
import pytest
from fsspec.implementations.local import LocalFileSystem

from deltaforensics.cli import main
from tests.conftest import SAMPLE_LOGS

WRITES: list[str] = []
READS: list[str] = []  # every path opened for reading (the audit tests count them)


class GuardedFileSystem(LocalFileSystem):
    """Local files, but every mutating call is recorded and refused (and reads recorded)."""

    protocol = ("guarded",)
    root_marker = "/"

    @classmethod
    def _strip_protocol(cls, path: str) -> str:
        if isinstance(path, str) and path.startswith("guarded://"):
            path = path[len("guarded://") :]
        return super()._strip_protocol(path)

    def _refuse(self, what: str, *args: object, **kwargs: object) -> None:
        WRITES.append(f"{what} {args[:1]}")
        raise PermissionError(f"read-only guard: {what}")

    def open(self, path, mode="rb", **kwargs):  # type: ignore[no-untyped-def,override]
        if any(c in mode for c in "wax+"):
            self._refuse("open-for-write", path)
        return super().open(path, mode, **kwargs)

    def _open(self, path, mode="rb", **kwargs):  # type: ignore[no-untyped-def,override]
        if any(c in mode for c in "wax+"):
            self._refuse("open-for-write", path)
        READS.append(str(path))
        return super()._open(path, mode, **kwargs)

    def cat_file(self, path, start=None, end=None, **kwargs):  # type: ignore[no-untyped-def,override]
        READS.append(str(path))
        return super().cat_file(path, start=start, end=end, **kwargs)

    def pipe_file(self, *a, **k):
        self._refuse("pipe_file", *a)  # type: ignore[no-untyped-def,override]

    def put_file(self, *a, **k):
        self._refuse("put_file", *a)  # type: ignore[no-untyped-def,override]

    def rm(self, *a, **k):
        self._refuse("rm", *a)  # type: ignore[no-untyped-def,override]

    def rm_file(self, *a, **k):
        self._refuse("rm_file", *a)  # type: ignore[no-untyped-def,override]

    def rmdir(self, *a, **k):
        self._refuse("rmdir", *a)  # type: ignore[no-untyped-def,override]

    def mv(self, *a, **k):
        self._refuse("mv", *a)  # type: ignore[no-untyped-def,override]

    def mkdir(self, *a, **k):
        self._refuse("mkdir", *a)  # type: ignore[no-untyped-def,override]

    def makedirs(self, *a, **k):
        self._refuse("makedirs", *a)  # type: ignore[no-untyped-def,override]

    def touch(self, *a, **k):
        self._refuse("touch", *a)  # type: ignore[no-untyped-def,override]

    def cp_file(self, *a, **k):
        self._refuse("cp_file", *a)  # type: ignore[no-untyped-def,override]

    def copy(self, *a, **k):
        self._refuse("copy", *a)  # type: ignore[no-untyped-def,override]


fsspec.register_implementation("guarded", GuardedFileSystem, clobber=True)


def _fingerprint(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        + f":{p.stat().st_mtime_ns}"
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


COMMANDS = [
    ["history", "{t}"],
    ["history", "{t}", "--format", "json"],
    ["snapshot", "{t}"],
    ["snapshot", "{t}", "--format", "json", "--version", "3"],
    ["explain", "{t}", "--format", "json"],
    ["explain", "{t}", "--format", "rich"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:1] + a[2:]))
@pytest.mark.parametrize(
    "sample", ["merge_without_partition_literal", "deltars_concurrent_optimize"]
)
def test_every_command_is_read_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sample: str, args: list[str]
) -> None:
    table = tmp_path / sample
    shutil.copytree(SAMPLE_LOGS / sample, table)
    before = _fingerprint(table)
    WRITES.clear()
    url = f"guarded://{table}"
    code = main([a.format(t=url) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert WRITES == []
    assert _fingerprint(table) == before
    assert out


def test_the_guard_itself_refuses_writes(tmp_path: Path) -> None:
    fs = GuardedFileSystem()
    with pytest.raises(PermissionError):
        fs.pipe_file(str(tmp_path / "x"), b"1")
    with pytest.raises(PermissionError):
        fs.open(str(tmp_path / "y"), "wb")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_the_audit_with_state_is_read_only_on_its_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["merge_without_partition_literal", "deltars_concurrent_optimize"]
    for name in names:
        shutil.copytree(SAMPLE_LOGS / name, tmp_path / "lake" / name)
    before = _fingerprint(tmp_path / "lake")
    config = tmp_path / "audit.toml"
    config.write_text(
        'output = "out"\nstate = "state"\n'
        + "".join(f'[[tables]]\nuri = "guarded://{tmp_path / "lake" / n}"\n' for n in names)
    )
    WRITES.clear()
    for _ in range(2):  # a full run, then one that reads from the state
        code = main(["--quiet", "audit", str(config)])
        _, err = capsys.readouterr()
        assert code == 0, err
    assert WRITES == []
    assert _fingerprint(tmp_path / "lake") == before
    assert (tmp_path / "state" / "_tables" / f"{names[0]}.json").is_file()
