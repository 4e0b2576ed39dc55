"""The command line's shared parts: the options made from the run request's fields (cpsolve.options: `Options` and
`Outputs`), so that each is written once: its name (`max_solutions` is `--max-solutions`), its
help (the field's description and bounds), its metavar and its default. Nothing is checked here
beyond the type: the values go to the models, whose refusals are the library's and the studio's
one-line messages.

A command takes fields of the request with `with_request(names...)`: its function declares its own
arguments and takes the fields as keywords (`**values`). The options are made when typer builds
the command (`__signature__`, read by typer once), never at import: `cpsolve --help` lists the
commands without making them (cpsolve.cli.command_line), so it imports neither pydantic nor the
models.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand

from cpsolve.errors import EXIT_BAD_INPUT, CpsolveError, printable

if TYPE_CHECKING:
    from cpsolve.options import Options

UNBOUNDED = 1e9  # an upper bound this high is no bound a user needs to read (typer's own ranges)
WHOLE_PROCESS = "whole_process"  # set by the program's entry point: this process runs one command

Command = Callable[..., None]


def fail(error: CpsolveError) -> typer.Exit:
    """Print a user error as its own lines on stderr and give the exit to raise."""
    typer.echo(printable(str(error), keep="\n"), err=True)
    return typer.Exit(code=EXIT_BAD_INPUT)


def checked_options(values: dict[str, Any]) -> Options:
    """A command's run options checked as `cpsolve run` checks them (its one-line refusals)."""
    from cpsolve.options import Options

    try:
        checked: Options = Options.of(values)
    except CpsolveError as error:
        raise fail(error) from None
    return checked


def whole_process(context: typer.Context) -> bool:
    """Whether this process runs one command and ends (the program, not a test or a notebook)."""
    return isinstance(context.obj, dict) and bool(context.obj.get(WHOLE_PROCESS))


class WithRequest:
    """A command's function with fields of the run request as its options (see the module's
    docstring); called as the function is."""

    def __init__(self, function: Command, names: Sequence[str], defaults: Mapping[str, Any]) -> None:
        self.function = function
        self.names = tuple(names)
        self.defaults = dict(defaults)
        self.__name__ = function.__name__
        self.__doc__ = function.__doc__
        self.__module__ = function.__module__

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self.function(*args, **kwargs)

    @cached_property
    def __signature__(self) -> inspect.Signature:
        own = [
            p for p in inspect.signature(self.function, eval_str=True).parameters.values() if p.kind != p.VAR_KEYWORD
        ]
        names = self.names or tuple(request_fields())  # every field: looked up only now, never at import
        return inspect.Signature([*own, *(request_parameter(name, self.defaults) for name in names)])

    @property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]  # typer reads the types from here
        return {name: parameter.annotation for name, parameter in self.__signature__.parameters.items()}

    def listed(self) -> Command:
        """The command as `cpsolve --help` lists it: its name and help, none of its options."""

        def listed() -> None:
            raise AssertionError("a listed command is never run")

        listed.__doc__ = self.__doc__
        return listed


def with_request(*names: str, **defaults: Any) -> Callable[[Command], WithRequest]:
    """Give a command the run request's fields `names` as options (every field of Options and
    Outputs where none is named), with `defaults` in place of the models' own."""

    def wrap(function: Command) -> WithRequest:
        return WithRequest(function, names, defaults)

    return wrap


def request_fields() -> dict[str, Any]:
    """Every field of the run request by name (pydantic's FieldInfo), options first."""
    from cpsolve.options import Options, Outputs

    return {**Options.model_fields, **Outputs.model_fields}


def request_parameter(name: str, defaults: Mapping[str, Any]) -> inspect.Parameter:
    """One field of the request as a typer option: `--name` (`--name/--no-name` for a field that
    is on by default), its description with its bounds as help, its metavar."""
    from cpsolve.options import flag

    info = request_fields()[name]
    default = defaults.get(name, info.default)
    annotation = _command_line_type(info.annotation)
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    decls = [flag(name) if annotation is not bool or not default else f"{flag(name)}/--no-{flag(name)[2:]}"]
    option = typer.Option(*decls, help=help_text(info), metavar=extra.get("metavar"), show_default=default is not None)
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[annotation, option]
    )


def _command_line_type(annotation: Any) -> Any:
    """The type typer parses a field's value as: a choice as text (the model checks it)."""
    if typing.get_origin(annotation) is typing.Literal:
        return str
    arguments = typing.get_args(annotation)
    if typing.get_origin(annotation) in (types.UnionType, typing.Union) and type(None) in arguments:
        inner = [argument for argument in arguments if argument is not type(None)]
        return _command_line_type(inner[0]) | None
    return annotation


def help_text(info: Any) -> str:
    """A field's help: its description, the other fields it names in backquotes spelled as the
    command line spells them (`first` as --first), and its bounds."""
    from cpsolve.options import bounds_text

    described = re.sub(r"`([a-z_]+)`", _spelled, info.description)
    limits = bounds_text(info)
    return f"{described} [{limits}]" if limits else described


def _spelled(match: re.Match[str]) -> str:
    """A field's name in a description, as the command line spells it; other quoted words as they are."""
    word = match.group(1)
    return f"--{word.replace('_', '-')}" if word in request_fields() else match.group(0)


class HelpCommand(TyperCommand):
    """A command whose help names its arguments as a user types them: typer writes a required
    argument in braces in the usage line (`cpsolve run [OPTIONS] {PUZZLE}`) and puts its Python
    type beside it (`PATH <list[Path]>`); here the usage says `PUZZLE` or `[PATH]...` and the
    Arguments section gives each argument's name and help alone (typer's own sections otherwise)."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:  # click's Context, which typer keeps private
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = _argument_name(param)
                pieces.append(name if param.required else f"[{name[:-3]}]..." if name.endswith("...") else f"[{name}]")
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                arguments.append((_argument_name(param), _plain_ranges(record[1])))
            else:
                options.append((_plain_metavars(record[0]), _plain_ranges(record[1])))
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


# typer's names of Python types beside an option without a metavar of its own, as a user reads them
PLAIN_METAVARS = {
    "<int range>": "N",
    "<int>": "N",
    "<float range>": "NUMBER",
    "<float>": "NUMBER",
    "<str>": "TEXT",
    "<path>": "PATH",
}


def _plain_metavars(names: str) -> str:
    for typed, plain in PLAIN_METAVARS.items():
        names = names.replace(typed, plain)
    return names


def _plain_ranges(help_text: str) -> str:
    """typer's `0.0<=x<=1000000000.0` and `x>=1` (an option of a command's own with min= or max=)
    as `at least 0` and `at least 1`."""

    def number(text: str) -> str:
        return text.removesuffix(".0")

    def between(match: re.Match[str]) -> str:
        low, high = match.group(1), match.group(2)
        return f"at least {number(low)}" if float(high) >= UNBOUNDED else f"{number(low)} to {number(high)}"

    help_text = re.sub(r"(-?[0-9.]+)<=x<=(-?[0-9.]+)", between, help_text)
    help_text = re.sub(r"x>=(-?[0-9.]+)", lambda m: f"at least {number(m.group(1))}", help_text)
    return re.sub(r"x<=(-?[0-9.]+)", lambda m: f"at most {number(m.group(1))}", help_text)


def _argument_name(param: Any) -> str:
    """An argument as the help spells it: its metavar or upper-case name, `...` where it takes many."""
    name = str(param.metavar or (param.name or "").upper())
    return name + ("..." if param.nargs != 1 else "")
