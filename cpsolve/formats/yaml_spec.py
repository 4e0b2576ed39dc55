"""cpsolve's own format: a YAML spec (docs/spec.md), read with the line of every field.

A spec is parsed once, with libyaml's C parser where PyYAML has it. Before the document is built,
a pass over its events refuses what would blow up later: containers nested past MAX_YAML_DEPTH
(the composer and constructor recurse), and documents whose anchors and aliases expand to more
than MAX_YAML_VALUES values ("billion laughs": a few lines that every later step would walk as
billions). Keys given twice, keys that are lists or maps, and integers of more than
MAX_NUMBER_DIGITS digits are refused with their line.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import yaml

from cpsolve.errors import SpecError
from cpsolve.limits import MAX_NUMBER_DIGITS, MAX_YAML_DEPTH, MAX_YAML_VALUES
from cpsolve.spec import LoadedSpec, Source

from .base import Document, PuzzleFile, ReadOptions

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class SpecLoader(_Loader):  # type: ignore[valid-type,misc]
    """The safe loader that also refuses duplicate keys, keys that are containers, and long numbers.

    It remembers the tag of each plain scalar's text: PyYAML resolves every scalar with a series of
    regular expressions, which took 94 % of composing a generated 256x256 tiles board (1.5 MB); a
    spec repeats the same few numbers and names over and over.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._plain_tags: dict[str, str] = {}

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode and implicit[0] and isinstance(value, str):
            tag = self._plain_tags.get(value)
            if tag is None:
                tag = self._plain_tags[value] = super().resolve(kind, value, implicit)
            return tag
        resolved: str = super().resolve(kind, value, implicit)
        return resolved

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    None, None, "a key must be a plain value, not a list or a map", key_node.start_mark
                )
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first given on line {seen[key]})", key_node.start_mark
                )
            seen[key] = key_node.start_mark.line + 1
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        digits = sum(character.isdigit() for character in str(node.value))
        if digits > MAX_NUMBER_DIGITS:
            raise yaml.constructor.ConstructorError(
                None, None, f"a number of {digits} digits; cpsolve reads at most {MAX_NUMBER_DIGITS}", node.start_mark
            )
        value: int = super().construct_yaml_int(node)
        return value


SpecLoader.add_constructor("tag:yaml.org,2002:int", SpecLoader.construct_yaml_int)


def check_structure(text: str, path: str) -> None:
    """Refuse deep nesting and alias bombs from the event stream, before any node is built.

    Each value counts once per place it appears once aliases are expanded: an alias adds the
    expanded size of its anchor's value.
    """
    depth = 0
    total = 0
    sizes: dict[str, int] = {}
    open_sizes: list[tuple[int, str | None]] = []  # (values so far, anchor) per open container
    for event in yaml.parse(text, Loader=_Loader):
        line = event.start_mark.line + 1 if event.start_mark is not None else 0
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise SpecError([f"{path}:{line}: lists and maps nested more than {MAX_YAML_DEPTH} deep"])
            open_sizes.append((total, event.anchor))
            total += 1
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
            start, anchor = open_sizes.pop()
            if anchor is not None:
                sizes[anchor] = total - start
        elif isinstance(event, yaml.ScalarEvent):
            total += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            if event.anchor not in sizes:
                raise SpecError([f"{path}:{line}: the alias *{event.anchor} stands inside its own anchor's value"])
            total += sizes[event.anchor]
        if total > MAX_YAML_VALUES:
            raise SpecError(
                [
                    f"{path}:{line}: the document expands to more than {MAX_YAML_VALUES:,} values"
                    " (anchors and aliases are expanded); cpsolve reads fewer"
                ]
            )


@contextmanager
def cyclic_collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for a while (as it was before, afterwards).

    Parsing makes hundreds of thousands of objects and no cycles (an alias inside its own anchor
    is refused first); each pass of the collector walks all of them again. A generated 256x256
    tiles board (1.5 MB) took 4.4 s to parse with it running and 1.4 s without.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse_yaml(text: str, path: str) -> tuple[Any, Source]:
    """The data of a YAML document and the line of each field in it, parsed once."""
    with cyclic_collector_paused():
        return _parse_yaml(text, path)


def _parse_yaml(text: str, path: str) -> tuple[Any, Source]:
    try:
        check_structure(text, path)
        loader = SpecLoader(text)
        try:
            root = loader.get_single_node()
            data = None if root is None else loader.construct_document(root)
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError([f"{path}{line}: not valid YAML: {reason}"]) from None
    source = Source(path)
    if root is not None:
        _index_lines(root, (), source.lines, set())
    return data, source


def _index_lines(
    node: yaml.Node, path: tuple[str | int, ...], lines: dict[tuple[str | int, ...], int], seen: set[int]
) -> None:
    """The line of every field; a node reached again through an alias is not walked twice."""
    lines.setdefault(path, node.start_mark.line + 1)
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key_path = (*path, str(key_node.value))
            lines[key_path] = key_node.start_mark.line + 1
            _index_lines(value_node, key_path, lines, seen)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _index_lines(item, (*path, index), lines, seen)


def load_spec(file: PuzzleFile, options: ReadOptions | None = None) -> Document:
    """A YAML spec file, validated."""
    data, source = parse_yaml(file.text(), file.name)
    families = (options or ReadOptions()).families
    return Document.single(LoadedSpec(families.validate(data, source), source))
