"""``onnx.checker.check_model`` where a time limit can stop it.

The checker is C++ that does not return to the interpreter until it is done, so ``--max-time`` (a SIGALRM whose
handler raises in this process) could not stop it: about 2.2 µs a node (0.43 s CPU for 192,005 nodes), so up to
about 45 s at the 2·10⁷-node limit.  While a timer is pending (``signal.getitimer``), the check runs in a forked
child and this process waits for its answer in Python, where the alarm's exception is raised; the child is then
killed and reaped.  Without a timer (the API, no ``--max-time``) it runs here, as before.
"""

from __future__ import annotations

import os
import signal
from typing import Any


def check_model(model: Any) -> None:
    """``onnx.checker.check_model(model)``; its ``ValidationError`` (or any error) is raised here either way."""
    import onnx

    if not hasattr(os, "fork") or signal.getitimer(signal.ITIMER_REAL)[0] <= 0:
        onnx.checker.check_model(model)
        return
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no timer (not inherited), no cleanup of the parent's; only the answer, then exit
        status = 1
        try:
            os.close(read)
            try:
                onnx.checker.check_model(model)
                answer = b""
            except Exception as exc:  # noqa: BLE001 - the parent raises it as the checker's error
                answer = (str(exc) or type(exc).__name__).encode("utf-8", "replace")[:100_000]
            os.write(write, b"ok" if not answer else b"no" + answer)
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    chunks: list[bytes] = []
    try:
        while chunk := os.read(read, 1 << 16):  # interrupted by the alarm's exception (PEP 475 retries otherwise)
            chunks.append(chunk)
        _, status = os.waitpid(pid, 0)
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    finally:
        os.close(read)
    answer = b"".join(chunks)
    if status != 0 or answer[:2] not in (b"ok", b"no"):
        raise RuntimeError(f"the ONNX checker's process ended without an answer (wait status {status})")
    if answer[:2] == b"no":
        raise onnx.checker.ValidationError(answer[2:].decode("utf-8", "replace"))
