"""Typer reads a command's options from its signature, one parameter each; a group of options
(:mod:`deltaforensics.cli.options`) is one parameter of the command's own signature.

:func:`with_option_groups` shows typer the signature with each group parameter spread, in
place, into the group's fields (so ``--help`` lists them where the group stands), and calls the
command with each group rebuilt from them.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Any, get_type_hints


def with_option_groups(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` as typer should see it: every option group parameter spread into its fields."""
    hints = get_type_hints(command, include_extras=True)
    groups: dict[str, type[Any]] = {}
    spread: list[inspect.Parameter] = []
    for param in inspect.signature(command).parameters.values():
        hint = hints.get(param.name, param.annotation)
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            groups[param.name] = hint
            spread += _fields_as_parameters(hint)
        else:
            spread.append(
                param.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=hint)
            )

    @functools.wraps(command)
    def with_groups(**given: Any) -> None:
        for name, group in groups.items():
            given[name] = group(**{f.name: given.pop(f.name) for f in dataclasses.fields(group)})
        command(**given)

    signature = inspect.Signature(spread)
    with_groups.__signature__ = signature  # type: ignore[attr-defined]
    with_groups.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    return with_groups


def _fields_as_parameters(group: type[Any]) -> list[inspect.Parameter]:
    hints = get_type_hints(group, include_extras=True)
    return [
        inspect.Parameter(
            field.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=field.default,
            annotation=hints[field.name],
        )
        for field in dataclasses.fields(group)
    ]
