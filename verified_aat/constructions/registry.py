"""Constructions by their stable names: the seven built-ins, each read from its shipped document.

``CONSTRUCTIONS[name]`` is a :class:`~.interpreted.DocumentConstruction` of
``verified_aat/data/constructions/<name>.json``, loaded (and validated) on first use and cached.
The Python classes (:mod:`.python_builtins`) only write those documents; tests keep the two equal.
"""

from __future__ import annotations

from functools import cache
from typing import Iterator, Mapping

from ..errors import InputError
from .base import Construction
from .document import BUILTIN_NAMES


@cache
def _builtin(name: str) -> Construction:
    from .document import builtin_document_path
    from .interpreted import DocumentConstruction

    return DocumentConstruction.load(builtin_document_path(name))


class _Builtins(Mapping[str, Construction]):
    """The built-ins by name; a document is read only when its construction is asked for."""

    def __getitem__(self, name: str) -> Construction:
        if not isinstance(name, str) or name not in BUILTIN_NAMES:
            raise KeyError(name)
        return _builtin(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in BUILTIN_NAMES

    def __iter__(self) -> Iterator[str]:
        return iter(BUILTIN_NAMES)

    def __len__(self) -> int:
        return len(BUILTIN_NAMES)


CONSTRUCTIONS: Mapping[str, Construction] = _Builtins()


def get_construction(name: str) -> Construction:
    try:
        return CONSTRUCTIONS[name]
    except KeyError:
        raise InputError(f"unknown construction {name!r}; known: {', '.join(sorted(CONSTRUCTIONS))}") from None


def construction_choice(value: str) -> str:
    """The ``-c`` option's type: a built-in name or a construction document ``FILE.json`` (``-``: read from
    standard input), validated later by :func:`resolve_construction`, so that its errors name file:line."""
    import argparse

    if value in CONSTRUCTIONS or value.endswith(".json") or value == "-":
        return value
    raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from {', '.join(sorted(CONSTRUCTIONS))}, "
                                     "or a construction document FILE.json)")


def resolve_construction(name_or_path: str) -> Construction:
    """A built-in by NAME, or the construction a document FILE.json (``-``: standard input) states (validated)."""
    if (name_or_path.endswith(".json") or name_or_path == "-") and name_or_path not in CONSTRUCTIONS:
        from .interpreted import DocumentConstruction
        return DocumentConstruction.load(name_or_path)
    return get_construction(name_or_path)


def construction_of_record(name: str, document: object = None) -> Construction:
    """The construction a result or certificate is about: its embedded document (a user's), else a built-in
    by name or a construction document by path."""
    if document is not None:
        from .document import parse_document
        from .interpreted import DocumentConstruction
        return DocumentConstruction(parse_document(document, f"the construction document embedded for {name}"))
    return resolve_construction(name)


def document_data(construction: Construction) -> object:
    """The construction's document as JSON data: its own, or the shipped one of a built-in Python class
    (None: a Python construction with no document, which the kernel cannot read)."""
    document = getattr(construction, "document", None)
    if document is not None:
        return document.data
    return CONSTRUCTIONS[construction.name].document.data if construction.name in BUILTIN_NAMES else None  # type: ignore[attr-defined]


def embedded_document(construction: Construction) -> object:
    """The document a certificate must embed for the kernel to read the construction: a user's document
    (None for a built-in's own document, which the kernel reads from the shipped file)."""
    data = document_data(construction)
    if data is None or (construction.name in BUILTIN_NAMES
                        and CONSTRUCTIONS[construction.name].document.data == data):  # type: ignore[attr-defined]
        return None
    return data
