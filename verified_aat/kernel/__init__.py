"""The trusted kernel: ``check_certificate`` accepts, rejects, or says *not checked*.

This module reads a certificate file into a JSON value (``load_certificate``, ``parse_certificate``) and
re-exports the entry (``entry.py``). Reading is not counted in the trusted base: the checks judge whatever
value was read, and every theorem names the hashes of the objects it is about, as they were read.

Everything the verdict rests on is in this package, and it imports nothing
else from ``verified_aat`` — only the standard library, the solvers (z3,
cvc5) and, for the defence interpreter alone, gmpy2 (fast exact rationals).  The argument it checks
is docs/soundness.md; every check in ``checks.py`` names its step there.
"""

from __future__ import annotations

import functools
import gc
import json
import zlib
from typing import Any

from .agreement import VERSION
from .entry import check_certificate as check
from .problems import Rejection
from .report import ACCEPTED, NOT_CHECKED, REJECTED, Options, Report

def _gc_paused(fn: Any) -> Any:
    """Run ``fn`` with the cyclic garbage collector paused: a check builds millions of objects that
    live until it ends, and full collections re-walking them cost a third of the time at 10⁶ gates."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()

    return wrapper


class CertificateFileError(ValueError):
    """The certificate file cannot be read as JSON at all (bad input, exit 2)."""


class CertificateTooLarge(CertificateFileError):
    """The certificate is past a reading limit (file size, decompressed size): not checked (exit 3)."""


MAX_CERTIFICATE_BYTES = 256 << 20
"""The most bytes a gzip-compressed certificate may inflate to, unless the caller raises it."""
MAX_FILE_BYTES = 2 << 30
"""The largest certificate file read (2 GiB on disk)."""


def load_certificate(path: str, max_inflated: int | None = None) -> dict[str, Any]:
    """Read a certificate file as JSON (no semantics yet: the checks judge the content).

    Only a regular file is read (a FIFO would block, a device never ends), and only after its size
    is known to be at most :data:`MAX_FILE_BYTES`."""
    import os
    import stat

    try:  # O_NONBLOCK: opening a FIFO does not wait for a writer; fstat then tells what was opened
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise CertificateFileError(f"{path}: not a regular file (a FIFO, device or directory): refusing "
                                       f"to read it as a certificate")
        with os.fdopen(fd, "rb") as handle:
            if info.st_size > MAX_FILE_BYTES:
                raise CertificateTooLarge(f"{path}: not checked: more than {MAX_FILE_BYTES >> 20:,} MiB "
                                          f"(the file-size limit)")
            raw = handle.read()
    except OSError as exc:
        raise CertificateFileError(f"{path}: {exc.strerror or exc}") from None
    return parse_certificate(raw, path, max_inflated)


def _gunzip(raw: bytes, path: str, limit: int) -> bytes:
    """A gzip-compressed certificate's text, decompressed in bounded steps (no zip bomb)."""
    inflater = zlib.decompressobj(wbits=31)
    try:
        text = inflater.decompress(raw, limit)
        if inflater.unconsumed_tail:
            raise CertificateTooLarge(f"{path}: not checked: inflates to more than {limit >> 20:,} MiB "
                                       f"(the decompression limit; --max-inflated MB raises it)")
        if not inflater.eof:
            raise CertificateFileError(f"{path}: not a certificate: truncated gzip data")
    except zlib.error as exc:
        raise CertificateFileError(f"{path}: not a certificate: bad gzip data ({exc})") from None
    if inflater.unused_data:
        raise CertificateFileError(f"{path}: not a certificate: trailing bytes after the gzip stream")
    return text


@_gc_paused
def parse_certificate(raw: bytes, path: str = "<certificate>", max_inflated: int | None = None) -> dict[str, Any]:
    """Parse JSON text, or gzip-compressed JSON text (recognised by its magic bytes) that inflates to at
    most ``max_inflated`` bytes (default :data:`MAX_CERTIFICATE_BYTES`)."""
    if raw.startswith(b"\x1f\x8b"):
        raw = _gunzip(raw, path, MAX_CERTIFICATE_BYTES if max_inflated is None else max_inflated)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CertificateFileError(f"{path}: not a certificate (not UTF-8 text)") from None
    try:
        doc = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:  # two readings: a reader that keeps the first value sees another certificate
        key = exc.args[0]
        raise CertificateFileError(f"{path}: not a certificate: an object names "
                                   f"{f'the key {key!r}' if len(key) <= 80 else 'a key'} twice") from None
    except json.JSONDecodeError as exc:
        raise CertificateFileError(f"{path}:{exc.lineno}: not a certificate: invalid JSON ({exc.msg})") from None
    except RecursionError:
        raise CertificateFileError(f"{path}: not a certificate: JSON nested too deeply") from None
    except ValueError as exc:  # an int past Python's 4,300-digit limit: our words, not its set_int_max_str_digits()
        raise CertificateFileError(f"{path}: not a certificate: {'a number has more than 4,300 digits (the digits limit)' if 'integer string' in str(exc) else exc}") from None
    if not isinstance(doc, dict):
        raise CertificateFileError(f"{path}: not a certificate: the top level is not a JSON object")
    if "\\u" in text and not _is_text(doc, path):  # a lone \udXXX escape decodes to no character at all
        raise CertificateFileError(f"{path}: not a certificate: a string holds a lone UTF-16 surrogate (not text)")
    return doc


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    doc = dict(pairs)
    if len(doc) != len(pairs):
        raise _DuplicateKey(next(k for i, (k, _) in enumerate(pairs) if any(k == j for j, _ in pairs[:i])))
    return doc


def _is_text(doc: dict[str, Any], path: str) -> bool:
    try:
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    except RecursionError:  # the encoder's stack is shallower than the decoder's
        raise CertificateFileError(f"{path}: not a certificate: JSON nested too deeply") from None
    return True


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _checked(doc: Any, options: Options | None = None) -> Report:
    """``entry.check_certificate`` for any Python value: one that is no JSON object (a list, a string) is rejected
    here, by S1's first rule, as a file whose top level is no object is (``parse_certificate``); it can only reject."""
    if type(doc) is dict:
        return check(doc, options)
    report = Report()  # outcome: rejected
    report.rejections = [Rejection("the certificate is {kind}, not a JSON object", {"kind": type(doc).__name__},
                                   check="document", step="S1", rule="a certificate is a JSON object")]
    return report


check_certificate = _gc_paused(_checked)
check_certificate.__doc__ = """The kernel's verdict on a certificate (``entry.py``: its format chooses the checker)."""


__all__ = ["ACCEPTED", "NOT_CHECKED", "REJECTED", "VERSION", "CertificateFileError", "Options", "Report",
           "check_certificate", "load_certificate", "parse_certificate"]
