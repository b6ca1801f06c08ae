"""Rewrite the golden reports in ``tests/golden/`` from the real CLI.

    python scripts/update_golden.py          # rewrite every golden file, drop stale ones
    python scripts/update_golden.py --check  # exit 1 and list what differs (nothing written)

The cases and the normalisation live in ``tests/golden/cases.py``, shared with the test that
compares them; review the resulting ``git diff`` like code before committing it.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.golden.cases import CASES, GOLDEN, run  # noqa: E402


def main(argv: list[str]) -> int:
    check = "--check" in argv
    pinned = {c.file for c in CASES}
    stale = sorted(
        p
        for p in GOLDEN.rglob("*")
        if p.is_file()
        and p.suffix in (".json", ".txt", ".md")
        and p.name != "README.md"
        and p not in pinned
    )
    changed = []
    for case in CASES:
        text = run(case)
        if case.file.is_file() and case.file.read_text(encoding="utf-8") == text:
            continue
        changed.append(case.path)
        if not check:
            case.file.parent.mkdir(parents=True, exist_ok=True)
            case.file.write_text(text, encoding="utf-8")
    for path in stale:
        changed.append(f"{path.relative_to(GOLDEN).as_posix()} (stale)")
        if not check:
            path.unlink()
    verb = "differ" if check else "rewritten"
    for name in changed:
        print(f"{verb}: tests/golden/{name}")
    print(f"{len(CASES)} golden case(s), {len(changed)} {verb}")
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
