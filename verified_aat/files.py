"""Every file the tool reads or writes goes through here.

Reading (:func:`read_input`): regular files only — a FIFO would block until a writer comes, a
device such as ``/dev/zero`` never ends, a directory is no input — and the size is compared with
:data:`MAX_FILE_BYTES` before a byte is read; standard input and gzip certificates (inflated by the
kernel's reader) hold at most :func:`max_inflated_bytes` (``--max-inflated MB``).  Each file read
inside :func:`command_scope` is remembered by its identity (device and inode), so that no later
write of the same command can replace it.

Writing (:func:`check_output`, :func:`write_atomically`, :func:`write_all_atomically`): a target
that exists and is not a regular file (a device, FIFO, socket or directory) is refused, and so is
a target that is the same file as an input, given or read; then the data goes to a temporary file
beside the target, which is renamed over it, so nothing is ever written half-way.  A target that
is a symbolic link to a regular file is written through the link (the link stays).

Every refusal is an :class:`~verified_aat.errors.InputError` naming the path (exit 2).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import BinaryIO, Union

from .errors import InputError, LimitReached

MAX_FILE_BYTES = 2 << 30
Data = Union[str, bytes, Iterable[str]]  # what the writers take: text, bytes, or text in pieces (a large file)
"""The largest input file read (2 GiB on disk); past it the file is refused before it is read."""

STDIN_NAME = "<stdin>"
"""Standard input (``-``) as messages name it."""

DEFAULT_MAX_INFLATED_MB = 256
"""The most bytes (MiB) gzip data may inflate to unless ``--max-inflated MB`` raises it."""

_max_inflated_mb = DEFAULT_MAX_INFLATED_MB
_inputs_read: set[tuple[int, int]] | None = None
"""The identities of the files read inside :func:`command_scope` (``None`` outside it)."""
_stdin_read: dict[str, bytes] = {}
"""Standard input as read inside :func:`command_scope`, under what it was read as (at most one entry)."""


@contextmanager
def command_scope(max_inflated_mb: int = DEFAULT_MAX_INFLATED_MB) -> Iterator[None]:
    """One command: the ``--max-inflated`` limit in force, and every file read remembered so that no
    write replaces it; both are restored when the command ends."""
    global _inputs_read, _max_inflated_mb, _stdin_read
    if isinstance(max_inflated_mb, bool) or not isinstance(max_inflated_mb, int) or max_inflated_mb < 1:
        raise InputError(f"must be a whole number of MB >= 1, got {max_inflated_mb!r}", "--max-inflated")
    previous = _inputs_read, _max_inflated_mb, _stdin_read
    _inputs_read, _max_inflated_mb, _stdin_read = set(), max_inflated_mb, {}
    try:
        yield
    finally:
        _inputs_read, _max_inflated_mb, _stdin_read = previous


def _remember(info: os.stat_result) -> None:
    if _inputs_read is not None:
        _inputs_read.add((info.st_dev, info.st_ino))


def max_inflated_bytes() -> int:
    """The decompression limit in force, in bytes."""
    return _max_inflated_mb << 20


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _oserror(exc: OSError, path: str, what: str) -> InputError:
    return InputError(f"cannot {what}: {exc.strerror or exc}", path)


def _open_regular(path: str) -> tuple[int, os.stat_result]:
    """An open descriptor of ``path`` and its ``fstat``; O_NONBLOCK, so opening a FIFO does not wait
    for a writer (``fstat`` then tells what was opened).  Raises OSError."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    return fd, os.fstat(fd)


def read_input(path: str, what: str = "file") -> bytes:
    """The bytes of the regular file ``path`` (``what`` names it in errors); remembered as an input."""
    try:
        fd, info = _open_regular(path)
    except OSError as exc:
        raise _oserror(exc, path, f"read {what}") from None
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise InputError(f"{file_kind(info.st_mode)}, not a regular file: refusing to read it as the {what}", path)
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > MAX_FILE_BYTES:
            raise LimitReached(f"{path}: {info.st_size:,} bytes, more than the {MAX_FILE_BYTES >> 20:,} MiB an "
                               f"input may hold (the file-size limit)")
        _remember(info)
        data = _read_bounded(handle, MAX_FILE_BYTES, info.st_size)
    if len(data) > MAX_FILE_BYTES:
        raise LimitReached(f"{path}: grew past the {MAX_FILE_BYTES >> 20:,} MiB file-size limit while being read")
    return data


def read_named(path: str, what: str = "file") -> tuple[str, bytes]:
    """The bytes of ``path`` (:func:`read_input`), or of standard input for ``-`` (:func:`read_stdin`), with the
    name a message gives them (``<stdin>`` for ``-``)."""
    if path == "-":
        return STDIN_NAME, read_stdin(what, STDIN_NAME)
    return path, read_input(path, what)


def stdin_read_as(what: str) -> bool:
    """Whether this command has read standard input as ``what`` (so that reading it again gives those bytes)."""
    return what in _stdin_read


def shown(path: str) -> str:
    """``path`` as a message names it: ``-`` is standard input."""
    return STDIN_NAME if path == "-" else path


def _read_bounded(handle: BinaryIO, limit: int, expected: int = 0) -> bytes:
    """At most ``limit + 1`` bytes of ``handle``, read in steps: ``read(n)`` allocates n bytes up front,
    so one big read would cost the limit in memory even for a small file (and fail under --max-memory)."""
    chunks = [handle.read(min(expected, limit) + 1)] if expected else []
    total = sum(map(len, chunks))
    while total <= limit:
        chunk = handle.read(min(1 << 16, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def read_stdin(what: str = "input", name: str = STDIN_NAME) -> bytes:
    """Standard input's bytes, refused past :func:`max_inflated_bytes` (``... < /dev/zero`` ends).  Inside a command
    (:func:`command_scope`) it is read once: read again as the same ``what`` (a construction document a command
    resolves twice) it is the same bytes; as something else (``run - --encoding -``) it is bad input."""
    import sys

    for before, data in _stdin_read.items():
        if before == what:
            return data
        raise InputError(f"standard input is read as the {before} already: it cannot also be the {what} "
                         f"(give one of them as a file)", name)
    if sys.stdin is None:  # `<&-`: no descriptor 0 at all
        raise InputError(f"standard input is closed: nothing to read as the {what}", name)
    limit = max_inflated_bytes()
    try:  # a file redirected into standard input is an input too: never an output target (``certify - -o in.circ``)
        _remember(os.fstat(sys.stdin.fileno()))
    except (OSError, ValueError, AttributeError):
        pass
    try:
        data = _read_bounded(sys.stdin.buffer, limit)
    except OSError as exc:  # `< /` (a directory), a descriptor opened for writing only
        raise InputError(f"cannot read standard input as the {what}: {exc.strerror or exc}", name) from None
    if len(data) > limit:
        raise LimitReached(f"{name}: more than {_max_inflated_mb:,} MiB on standard input as the {what} "
                           f"(--max-inflated MB raises the limit)")
    if _inputs_read is not None:
        _stdin_read[what] = data
    return data


def read_head(path: str, size: int) -> bytes:
    """The first ``size`` bytes of ``path`` for sniffing its format; empty for anything but a
    readable regular file (the reader that follows names the problem)."""
    try:
        fd, info = _open_regular(path)
    except OSError:
        return b""
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        return b""
    with os.fdopen(fd, "rb") as handle:
        return handle.read(size)


def remember_input(path: str) -> None:
    """Count ``path`` among the inputs (for a file read by code that cannot use :func:`read_input`)."""
    try:
        info = os.stat(path)
    except OSError:
        return
    _remember(info)


def _same_file(path: str, inputs: Iterable[str]) -> str | None:
    """Which input ``path`` is, in words (``os.path.samefile`` with a given one, or a file read), else None."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    for given in inputs:
        if given == "-" and _is_standard_input(info):
            return "the file on standard input"
        if given in (None, "-"):
            continue
        try:
            if os.path.samefile(path, given):
                return f"the input {given}"
        except OSError:
            continue
    read = _inputs_read is not None and (info.st_dev, info.st_ino) in _inputs_read
    return "a file this command has read" if read else None


def _is_standard_input(info: os.stat_result) -> bool:
    try:
        given = os.fstat(0)
    except OSError:
        return False
    return stat.S_ISREG(given.st_mode) and (given.st_dev, given.st_ino) == (info.st_dev, info.st_ino)


def check_output(path: str, inputs: Sequence[str] = (), directory: bool = False) -> None:
    """Refuse ``path`` as an output target: not a regular file (or, with ``directory``, not a
    directory), or the same file as one of ``inputs`` or as a file read so far."""
    if _through_a_descriptor(path):
        raise InputError("names an open file of this process (/dev/stdout, /dev/fd/N, /proc/…/fd/N): refusing to "
                         "replace the file behind it (certify writes to standard output with -o -)", path)
    if os.path.islink(path):  # written through, it would replace (or make) a file wherever it points
        raise InputError(f"a symbolic link (to {os.readlink(path)!r}): refusing to write through it (name the "
                         "file itself, or remove the link)", path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return _check_writable_directory(os.path.dirname(os.path.abspath(path)), path)
    except OSError as exc:
        raise _oserror(exc, path, "write") from None
    wanted = stat.S_ISDIR(info.st_mode) if directory else stat.S_ISREG(info.st_mode)
    if not wanted:
        if directory:
            raise InputError("exists and is not a directory: cannot write the output files into it", path)
        raise InputError(f"{file_kind(info.st_mode)}, not a regular file: refusing to write over it", path)
    _check_writable_directory(path if directory else os.path.dirname(os.path.abspath(path)), path)
    if not directory:
        same = _same_file(path, inputs)
        if same is not None:
            raise InputError(f"is {same}: refusing to overwrite an input (choose another output file)", path)
        if not info.st_mode & 0o222 or not os.access(path, os.W_OK):  # renamed over, its protection would not hold
            raise InputError("a read-only file: refusing to replace it (make it writable, or choose another output "
                             "file)", path)


def _check_writable_directory(where: str, path: str) -> None:
    """Refuse to write into a directory without write permission: the superuser could, past its protection."""
    try:
        info = os.stat(where)
    except OSError:
        return  # a missing directory: the write itself says so, before anything is written
    if stat.S_ISDIR(info.st_mode) and (not info.st_mode & 0o222 or not os.access(where, os.W_OK)):
        raise InputError(f"{'is' if where == path else 'is in'} a read-only directory: refusing to write into it "
                         "(make it writable, or choose another place)", path)


def _through_a_descriptor(path: str) -> bool:
    """Whether ``path``, or a link on its way, is a file-descriptor link: ``-o /dev/stdout >> log`` resolved to
    log, and the temporary file renamed over it lost the log's earlier lines (red team, round 7)."""
    for _ in range(40):  # as the system's own limit on a chain of links
        where = os.path.abspath(path)
        if where.startswith(("/proc/", "/dev/fd/")) or where in ("/dev/stdin", "/dev/stdout", "/dev/stderr"):
            return True
        if not os.path.islink(where):
            return False
        path = os.path.join(os.path.dirname(where), os.readlink(where))
    return True


def write_atomically(path: str, data: Data, inputs: Sequence[str] = ()) -> None:
    """Write ``data`` (UTF-8 text, bytes, or text in pieces) to ``path`` after :func:`check_output`, via a temporary
    file beside it and :func:`os.replace`."""
    write_all_atomically([(path, data)], inputs)


def write_all_atomically(files: Sequence[tuple[str, Data]], inputs: Sequence[str] = ()) -> None:
    """Write several files: every target is checked before the first is written, every file is written in full
    to a temporary file beside its target, and only then are they renamed into place, with SIGINT and SIGTERM
    held meanwhile: a full disk or a signal leaves the old files, never a new one beside an old one."""
    for path, _ in files:
        check_output(path, inputs)
    staged: list[tuple[str, str]] = []  # (temporary file, target)
    try:
        for path, data in files:
            staged.append((_stage(path, data, shown=path), path))
        with _signals_held():
            for temp, target in staged:
                check_output(target)  # once more, just before the rename: nothing non-regular appeared meanwhile
                os.replace(temp, target)
    finally:
        for temp, _ in staged:
            try:
                os.unlink(temp)
            except OSError:
                pass


@contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block ends (the renames take microseconds)."""
    import signal
    held = {signal.SIGINT, signal.SIGTERM}
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def check_directory_targets(directory: str, names: Sequence[str]) -> list[str]:
    """The paths of ``names`` in ``directory``, after checking the directory and each of them as an output
    (:func:`check_output`); nothing is written. A command that writes something else first checks here."""
    check_output(directory, directory=True)
    from pathlib import Path
    targets = [str(Path(directory) / name) for name in names]
    for path in targets:
        check_output(path)
    return targets


def write_into_directory(directory: str, files: Sequence[tuple[str, Data]]) -> list[str]:
    """Write ``files`` (name, data) into ``directory``, made if missing; the directory and every target
    are checked before the directory is made or anything is written.  Returns the paths written."""
    targets = list(zip(check_directory_targets(directory, [name for name, _ in files]), (d for _, d in files)))
    os.makedirs(directory, exist_ok=True)
    write_all_atomically(targets)
    return [path for path, _ in targets]


def _stage(path: str, data: Data, shown: str) -> str:
    """``data`` written in full and synced to a new temporary file beside ``path``; its name."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        handle, temp = tempfile.mkstemp(prefix=".tmp-", suffix=os.path.basename(path), dir=directory)
    except OSError as exc:  # name the user's path, not the temporary file's
        raise _oserror(exc, shown, "write") from None
    try:
        with os.fdopen(handle, "wb") as out:
            for piece in (data,) if isinstance(data, (str, bytes)) else data:  # text in pieces: never all at once
                out.write(piece.encode("utf-8") if isinstance(piece, str) else piece)
            out.flush()
            os.fsync(out.fileno())
        umask = os.umask(0)
        os.umask(umask)
        try:  # a file replaced keeps its permissions (a 0600 certificate stays private)
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = 0o666 & ~umask  # what open() would give, not mkstemp's 0600
        os.chmod(temp, mode)
        return temp
    except BaseException as exc:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(exc, OSError):  # a full disk: name the user's file
            raise _oserror(exc, shown, "write") from None
        raise
