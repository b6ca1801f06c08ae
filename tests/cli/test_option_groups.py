"""An option group is declared once and spread, in place, into each command that takes it."""

from __future__ import annotations

import inspect
from typing import Any

from deltaforensics.cli.option_groups import with_option_groups
from deltaforensics.cli.options import EngineChoice, EngineName, RedactOpt, TableArg


def test_a_group_is_spread_in_place_and_rebuilt_for_the_command() -> None:
    seen: dict[str, Any] = {}

    def command(table: TableArg, *, engine: EngineChoice, redact: RedactOpt = False) -> None:
        seen.update(table=table, engine=engine, redact=redact)

    wrapped = with_option_groups(command)
    names = list(inspect.signature(wrapped).parameters)
    assert names == ["table", "engine", "spark_master", "spark_conf", "redact"]
    assert wrapped.__name__ == "command"
    wrapped(
        table="t", engine=EngineName.spark, spark_master="local[1]", spark_conf=None, redact=True
    )
    assert seen == {
        "table": "t",
        "engine": EngineChoice(engine=EngineName.spark, spark_master="local[1]"),
        "redact": True,
    }
