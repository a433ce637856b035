"""Pausing Python's cyclic garbage collector around the big passes.

Certify and check build millions of small objects (rows, roles, claims, argmax sets) that
live until the pass ends.  With the collector on, every full collection walks all of them
again: at 10⁶ gates that was a third of certify's time and half of writing the certificate.
The passes make no reference cycles worth collecting early, so the collector is paused for
their duration and restored (not forced) afterwards.
"""

from __future__ import annotations

import functools
import gc
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def gc_paused(fn: F) -> F:
    """Run ``fn`` with the cyclic collector disabled (reference counting still frees memory)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()

    return wrapper  # type: ignore[return-value]
