"""User-facing errors and the command line's exit codes.

Bad user input (a malformed file, a wrong number of inputs, a circuit outside
a construction's class) raises :class:`InputError`.  The command line prints
it as one line ``file:line: what is wrong`` and exits with
:data:`EXIT_BAD_INPUT`; internal invariants use ``assert`` instead.
"""

from __future__ import annotations

EXIT_PROVED = 0
EXIT_OK = 0
EXIT_REFUTED = 1
EXIT_BAD_INPUT = 2
EXIT_UNKNOWN = 3




def one_line(text: str) -> str:
    """``text`` with each character that is not printable (every line break, a control or format character, a
    separator other than the space) written as its Python escape (``\\n``, ``\\x1b``, ``\\u202e``): a message is one
    line whatever a name holds, and no ANSI escape of a file's name or a forged certificate's value reaches the
    terminal."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class InputError(ValueError):
    """Bad user input, located at ``file:line`` when those are known."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line

    def located(self, file: str | None = None, line: int | None = None) -> "InputError":
        """Return a copy that names ``file`` (and ``line``) unless already set."""
        return InputError(self.message, self.file or file, self.line if self.line is not None else line)

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        # one line whatever a quoted name holds: escape everything str.splitlines breaks at
        return one_line(f"{where}: {self.message}")


class LimitReached(BaseException):
    """The run passed a limit (``--max-time``, a reading or size limit): it stops as *unknown* (exit 3).

    A :class:`BaseException`, so that no ``except Exception`` in the engine or the kernel swallows it
    and turns it into a verdict."""
