"""A transaction is read through its parts: no flat name is read anywhere in the package.

Until issue #30 a :class:`~deltaforensics.transactions.Transaction` answered to 37 flat names
(``t.read_predicate``, ``t.added``, ``t.operation`` …) besides its four parts, and
``t.revised(read_predicate=…)`` edited it by string. They are retired: callers read the parts
(``t.read.reads.partition_predicate``, ``t.written.added``, ``t.provenance.operation``) and edit
with ``dataclasses.replace`` of a part or a named edit (``with_reads``, ``reading_version``).

Strict mypy rejects a flat name read on a value it knows is a transaction; this scan also
catches one read where the value travels untyped. It is an ``ast`` scan, so it finds the
transaction values from what the source says: names annotated ``Transaction``, fields of
classes annotated so (``loser``, ``winner`` …), what functions annotated to return one return,
the elements of collections annotated to hold them, and names bound from any of these.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from deltaforensics.transactions import Transaction

PACKAGE = Path(__file__).resolve().parents[2] / "deltaforensics"

# Names Delta's ConflictChecker reads a transaction by that are kept as flat names. None is:
# the parts already speak its words (``read.reads``, ``written``, ``provenance``), and
# ``RuleContext`` (conflicts/rule.py) answers ``read_predicate`` / ``read_whole_table`` for the
# loser with the what-if overrides applied, which is a context's question, not a transaction's.
KEPT: frozenset[str] = frozenset()

# Every retired name, with the part that answers it now.
RETIRED: dict[str, str] = {
    "read_version": "read.version",
    "read_version_source": "read.version_source",
    "isolation": "read.isolation",
    "isolation_source": "read.isolation_source",
    "blind": "read.reads.blind",
    "read_predicate": "read.reads.partition_predicate",
    "full_predicate": "read.reads.full_predicate",
    "read_whole_table": "read.reads.whole_table",
    "registers_read_files": "read.reads.registers_files",
    "read_reason": "read.reads.reason",
    "confidence": "read.reads.confidence",
    "partition_columns": "table.partition_columns",
    "physical_names": "table.physical_names",
    "column_types": "table.column_types",
    "has_deletion_vectors": "table.has_deletion_vectors",
    "clustered": "table.clustered",
    "added": "written.added",
    "removed": "written.removed",
    "file_counts": "written.file_counts",
    "has_data_change": "written.has_data_change",
    "changes_metadata": "written.changes_metadata",
    "changes_protocol": "written.changes_protocol",
    "metadata_change_keys": "written.metadata_change.keys",
    "metadata_change_other": "written.metadata_change.other",
    "metadata_change_values": "written.metadata_change.values",
    "identity_only_metadata": "written.metadata_change.identity_only",
    "protocol_drops_features": "written.protocol_drops_features",
    "app_ids": "written.app_ids",
    "domains": "written.domains",
    "dynamic_partition_overwrite": "written.dynamic_partition_overwrite",
    "z_order": "written.z_order",
    "operation": "provenance.operation",
    "parameters": "provenance.parameters",
    "profile": "provenance.profile",
    "is_blind_append": "provenance.is_blind_append",
    "is_commit_large": "provenance.is_commit_large",
    "commit_info": "provenance.commit_info",
    "has_commit_info": "provenance.has_commit_info",
    "timestamp": "provenance.timestamp",
    "statement": "provenance.statement",
    "writer": "provenance.writer",
    "who": "provenance.who",
    "revised": "dataclasses.replace of a part, or Transaction.with_reads / reading_version",
}

_OPTIONAL = re.compile(r"^\(?\s*['\"]?(\w+)['\"]?\s*(\|\s*None)?\s*\)?$")
_ELEMENT = re.compile(r"^[\w.]+\[\s*['\"]?(\w+)['\"]?\s*(,\s*\.\.\.\s*)?\]$")

# A value's kind: "one" (a transaction), "many" (a collection of them), "C:Name" (an instance
# of the package's class Name), "M:Name" (a collection of those), or None (not known).
Kind = str | None


def _kind(annotation: ast.expr | None) -> Kind:
    """The kind an annotation gives (``Transaction | None`` is one, ``Sequence[Race]`` many)."""
    if annotation is None:
        return None
    text = ast.unparse(annotation)
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        text = annotation.value
    if m := _OPTIONAL.match(text):
        return "one" if m[1] == "Transaction" else f"C:{m[1]}"
    if m := _ELEMENT.match(text):
        return "many" if m[1] == "Transaction" else f"M:{m[1]}"
    return None


def _element(kind: Kind) -> Kind:
    if kind == "many":
        return "one"
    return f"C:{kind[2:]}" if kind is not None and kind.startswith("M:") else None


def _first(kinds: set[Kind]) -> Kind:
    """A name some class or function annotates as a transaction is taken for one when the
    receiver's class is not known: the scan errs towards counting (a false count shows here;
    a missed read would not)."""
    for kind in ("one", "many"):
        if kind in kinds:
            return kind
    return next(iter(kinds)) if len(kinds) == 1 else None


@dataclass
class _Known:
    """What the whole package says holds transactions, by class and by name."""

    classes: dict[str, dict[str, Kind]] = field(default_factory=dict)  # class -> field -> kind
    fields: dict[str, set[Kind]] = field(default_factory=dict)  # any class's field -> kinds
    returns: dict[str, set[Kind]] = field(default_factory=dict)  # function -> kinds

    def kind_of_field(self, owner: Kind, name: str) -> Kind:
        if owner is not None and owner.startswith("C:") and owner[2:] in self.classes:
            own = self.classes[owner[2:]]
            if name in own:
                return own[name]
        return _first(self.fields.get(name, set()))

    def kind_of_call(self, name: str) -> Kind:
        if name in self.classes:
            return f"C:{name}"
        return _first(self.returns.get(name, set()))

    def add_field(self, owner: str, name: str, kind: Kind) -> None:
        self.classes.setdefault(owner, {})[name] = kind
        self.fields.setdefault(name, set()).add(kind)


def _modules() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _known(modules: list[tuple[Path, ast.Module]]) -> _Known:
    known = _Known()
    for _path, tree in modules:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                known.classes.setdefault(node.name, {})
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        known.add_field(node.name, item.target.id, _kind(item.annotation))
                    elif isinstance(item, ast.FunctionDef) and any(
                        isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list
                    ):
                        known.add_field(node.name, item.name, _kind(item.returns))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                known.returns.setdefault(node.name, set()).add(_kind(node.returns))
    return known


# calls whose value has the kind of their first argument
_SAME = frozenset({"replace", "sorted", "reversed", "list", "tuple", "set", "frozenset"})


class _Scan(ast.NodeVisitor):
    """Flat-name reads on transaction values, one function (or module body) at a time."""

    def __init__(self, known: _Known) -> None:
        self.known = known
        self.scopes: list[dict[str, str]] = [{}]
        self.classes: list[str] = []
        self.hits: list[tuple[int, str]] = []

    def kind(self, node: ast.expr) -> Kind:
        if isinstance(node, ast.Name):
            if node.id == "self" and self.classes:
                return f"C:{self.classes[-1]}"
            return self.scopes[-1].get(node.id)
        if isinstance(node, ast.Attribute):
            return self.known.kind_of_field(self.kind(node.value), node.attr)
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in _SAME and node.args:
                return self.kind(node.args[0])
            return self.known.kind_of_call(name) if isinstance(name, str) else None
        if isinstance(node, ast.Subscript):
            kind = self.kind(node.value)
            return kind if isinstance(node.slice, ast.Slice) else _element(kind)
        if isinstance(node, ast.IfExp):
            return self.kind(node.body) or self.kind(node.orelse)
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            kind = self.kind(node.elt)
            return "many" if kind == "one" else f"M:{kind[2:]}" if kind else None
        if isinstance(node, ast.BoolOp):
            return _first({self.kind(v) for v in node.values})
        return None

    def bind(self, target: ast.expr, kind: Kind) -> None:
        if isinstance(target, ast.Name) and kind is not None:
            self.scopes[-1][target.id] = kind

    def bind_value(self, target: ast.expr, value: ast.expr) -> None:
        """``target = value``, also ``a, b = x, y`` element by element."""
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            for t, v in zip(target.elts, value.elts, strict=False):
                self.bind_value(t, v)
        else:
            self.bind(target, self.kind(value))

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        scope = dict(self.scopes[-1])
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            kind = _kind(arg.annotation)
            if kind is not None:
                scope[arg.arg] = kind
        self.scopes.append(scope)
        # bindings first (flow-insensitive), then the reads
        for _ in range(2):
            for child in ast.walk(node):
                self._binding(child)
        self.generic_visit(node)
        self.scopes.pop()

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            self._function(node)
        else:
            super().visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()

    def _binding(self, node: ast.AST) -> None:
        if isinstance(node, ast.AnnAssign):
            self.bind(node.target, _kind(node.annotation) or self.kind_or_none(node.value))
        elif isinstance(node, ast.Assign | ast.NamedExpr):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                self.bind_value(target, node.value)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            target, values = node.target, node.iter
            if (
                isinstance(values, ast.Call)
                and isinstance(values.func, ast.Name)
                and values.func.id == "enumerate"
                and values.args
                and isinstance(target, ast.Tuple)
                and len(target.elts) == 2
            ):
                target, values = target.elts[1], values.args[0]
            self.bind(target, _element(self.kind(values)))

    def kind_or_none(self, node: ast.expr | None) -> Kind:
        return None if node is None else self.kind(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if (
            node.attr in RETIRED
            and node.attr not in KEPT
            and isinstance(node.ctx, ast.Load)
            and self.kind(node.value) == "one"
        ):
            self.hits.append((node.lineno, f"{ast.unparse(node)} -> {RETIRED[node.attr]}"))
        self.generic_visit(node)


def flat_name_reads(modules: list[tuple[Path, ast.Module]] | None = None) -> list[str]:
    """``path:line: read -> the part to read`` for every flat-name read on a transaction."""
    modules = list(_modules()) if modules is None else modules
    known = _known(list(_modules()))
    out: list[str] = []
    for path, tree in modules:
        scan = _Scan(known)
        for _ in range(2):
            for node in tree.body:
                scan._binding(node)
        scan.visit(tree)
        rel = path.relative_to(PACKAGE.parent)
        out += [f"{rel}:{line}: {what}" for line, what in sorted(scan.hits)]
    return out


def test_no_flat_name_is_read_on_a_transaction() -> None:
    reads = flat_name_reads()
    assert len(reads) == 0, "read the parts instead:\n" + "\n".join(reads)


def test_the_transaction_has_only_its_parts() -> None:
    """The retired names are gone from the class itself, so a read fails at once."""
    assert not {n for n in RETIRED if hasattr(Transaction, n)}
    assert set(Transaction.__dataclass_fields__) == {
        "version",
        "read",
        "table",
        "written",
        "provenance",
    }


def test_the_part_paths_exist() -> None:
    """Each retired name's part path names a real field or property of the parts."""
    from deltaforensics.transactions import parts

    owners = {"read": parts.Read, "table": parts.TableAtRead, "written": parts.Writes,
              "provenance": parts.Provenance}  # fmt: skip
    nested = {"reads": parts.Reads, "metadata_change": parts.MetadataChange}
    for name, path in RETIRED.items():
        if name == "revised":
            continue
        first, *rest = path.split(".")
        owner: type = owners[first]
        for step in rest:
            assert hasattr(owner, step) or step in owner.__dataclass_fields__, (name, path)
            owner = nested.get(step, owner)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(t: Transaction):\n    return t.read_predicate\n", 1),
        ("def f(t: Transaction | None):\n    return t.operation\n", 1),
        ("def f(t: Transaction):\n    return t.provenance.operation\n", 0),
        ("def f(ts: list[Transaction]):\n    return [t.added for t in ts]\n", 1),
        ("def f(ts: list[Transaction]):\n    x = ts[-1]\n    return x.isolation\n", 1),
        ("def f(v: Verdict):\n    return v.loser.profile\n", 1),  # Verdict.loser: Transaction
        ("def f(v: Verdict):\n    return v.loser.provenance.profile\n", 0),
        ("def f(t: Transaction):\n    return t.revised(blind=True)\n", 1),
        ("def f(md: Metadata):\n    return md.partition_columns\n", 0),
    ],
)
def test_the_scan_finds_flat_names(tmp_path: Path, source: str, expected: int) -> None:
    """The scan can fail: a flat name read on a transaction value is counted."""
    path = PACKAGE / "scratch.py"  # never written: only its name is reported
    assert len(flat_name_reads([(path, ast.parse(source))])) == expected
