"""Typer reads a command's options from its signature, one parameter each; a group of options
(:mod:`deltaforensics.cli.options`) is one parameter of the command's own signature.

:func:`with_option_groups` shows typer the signature with each group parameter spread, in
place, into the group's fields (so ``--help`` lists them where the group stands), and calls the
command with each group rebuilt from them. :func:`with_global_options` gives every command the
root's own group, :class:`~deltaforensics.cli.options.GlobalOptions`, as well.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

import typer

from deltaforensics.cli.invocation import invocation_of
from deltaforensics.cli.options import GlobalOptions


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


def with_global_options(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` also taking :class:`GlobalOptions` (last), recorded in the run's
    :class:`~deltaforensics.cli.invocation.Invocation` before the command runs; spread them
    with :func:`with_option_groups`."""
    hints = get_type_hints(command, include_extras=True)
    params = [
        p.replace(annotation=hints.get(p.name, p.annotation))
        for p in inspect.signature(command).parameters.values()
    ]
    takes_ctx = any(p.annotation is typer.Context for p in params)
    if not takes_ctx:
        params.insert(0, inspect.Parameter("ctx", _POSITIONAL, annotation=typer.Context))
    context = next(p.name for p in params if p.annotation is typer.Context)
    params.append(inspect.Parameter("global_options", _KEYWORD, annotation=GlobalOptions))

    @functools.wraps(command)
    def with_globals(**given: Any) -> None:
        invocation_of(given[context]).add_global_options(given.pop("global_options"))
        if not takes_ctx:
            given.pop(context)
        command(**given)

    signature = inspect.Signature(params)
    del with_globals.__wrapped__  # typer must read the signature below, not the command's
    with_globals.__signature__ = signature  # type: ignore[attr-defined]
    with_globals.__annotations__ = {p.name: p.annotation for p in params}
    return with_globals


_POSITIONAL, _KEYWORD = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY


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
