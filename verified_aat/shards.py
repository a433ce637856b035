"""Sharding the per-position derivation on Dask (``distributed``): ``--cluster local:N`` or ``tcp://HOST:PORT``.

Both derivations — the engine's in ``certify`` and the kernel's in ``check`` — split the positions into
one stripe per worker (alternate blocks of 4,096 positions, so every worker gets a share of every region
of the encoding), derive each stripe on a worker and merge the stripes' lemmas in sequential first-use
order, so the certificate and the verdict do not depend on the number of workers. ``--jobs N`` (N ≥ 2)
without a cluster uses N forked processes of this machine instead, the same interface (measured: on one
machine, pickling the inputs for a Dask worker costs about what the derivation it shares costs). The
cluster starts only when an encoding is large enough to shard (``PARALLEL_MIN_POSITIONS`` positions),
so small runs never pay for it.

The shared inputs (the circuit, T, rows, claims and argmax sets) are scattered to every worker once;
each task returns its stripe's lemma table. What the workers send back is the kernel's own derivation
run in another process: the transport (Dask's pickling and the network) is trusted as the forked child
of earlier versions was, and ``docs/scaling.md`` says what this costs.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import re
from typing import Any, Callable, Iterator, Sequence

from .errors import InputError

MAX_LOCAL_WORKERS = 64
_TCP = re.compile(r"tcp://[A-Za-z0-9.\-]+:[0-9]{1,5}\Z")


def parse_cluster(text: str) -> str:
    """``local:N`` (1 ≤ N ≤ 64) or ``tcp://HOST:PORT`` (an existing Dask scheduler); InputError otherwise."""
    if re.fullmatch(r"local:[0-9]{1,3}", text, re.ASCII) and 1 <= int(text[6:]) <= MAX_LOCAL_WORKERS:  # not "local:²"
        return text
    if _TCP.match(text):
        port = int(text.rpartition(":")[2])
        if not 1 <= port <= 65535:
            raise InputError(f"port {port} is not a TCP port (1 to 65535): {text[:80]!r}", "--cluster")
        return text
    raise InputError(f"expected local:N (1 ≤ N ≤ {MAX_LOCAL_WORKERS}) or tcp://HOST:PORT, got {text[:80]!r}",
                     "--cluster")


SCATTER_SECONDS = 60                    # a broadcast of the shared inputs that takes longer than this plus
SCATTER_BYTES_PER_SECOND = 10 * 2**20  # 10 MB/s per copy has failed: map raises, the caller derives here
GATHER_SECONDS = 600                    # stripes not all back within this plus 1 s per MB of shared inputs
GATHER_BYTES_PER_SECOND = 2**20        # (10^6 gates: 445 MB, stripes back in under 60 s) have stalled: the same


def local_cluster_options(workers: int) -> dict[str, Any]:
    """``LocalCluster``'s arguments for ``local:N``: this machine only (any free port), one thread per worker, and
    no memory limit. Dask's default limit is this machine's memory / N per worker, and a worker past 60–95% of
    it spills, pauses or is restarted; ours hold the unpickled inputs, which Dask cannot spill, so a paused
    worker never resumes and a restarted one loads them again (docs/scaling.md). The command's
    ``--max-memory`` (an address-space limit the workers inherit) bounds each worker instead."""
    return {"n_workers": workers, "threads_per_worker": 1, "processes": True, "memory_limit": 0,
            "host": "127.0.0.1", "dashboard_address": "127.0.0.1:0", "silence_logs": logging.ERROR}


class Shards:
    """A Dask client, started on first use: ``map(fn, shared, parts)`` runs ``fn(shared, part)`` for each part
    on the workers (``shared`` sent once to each) and returns the results in the order of ``parts``."""

    def __init__(self, spec: str):
        self.spec = parse_cluster(spec)
        self._client: Any = None
        self._cluster: Any = None
        self.moved_bytes = 0  # pickled size of the shared inputs sent, for docs/scaling.md's measurements

    @property
    def workers(self) -> int:
        if self.spec.startswith("local:"):
            return int(self.spec[6:])
        return max(1, len(self.client().scheduler_info().get("workers", {})))

    def client(self) -> Any:
        if self._client is None:
            from distributed import Client, LocalCluster
            if self.spec.startswith("local:"):
                self._cluster = LocalCluster(**local_cluster_options(int(self.spec[6:])))
                self._client = Client(self._cluster)
                import gc
                self._client.run(gc.disable)  # our own workers: no cyclic GC over millions of unpickled objects
            else:
                self._client = Client(self.spec, timeout=30)
        return self._client

    def map(self, fn: Callable[[Any, Any], Any], shared: Any, parts: Sequence[Any]) -> list[Any]:
        client = self.client()
        payload = pickle.dumps(shared, protocol=pickle.HIGHEST_PROTOCOL)  # one bytes object: Dask moves it as
        self.moved_bytes += len(payload)                                    # is, without walking its contents
        token = f"{id(self)}-{self.moved_bytes}"
        try:
            return self._map(client, fn, token, payload, parts)
        except Exception as exc:
            logging.getLogger(__name__).warning("verified-aat: the Dask cluster failed (%s: %s); deriving in this "
                                                "process instead", type(exc).__name__, str(exc)[:200])
            raise

    def _map(self, client: Any, fn: Callable[[Any, Any], Any], token: str, payload: bytes,
             parts: Sequence[Any]) -> list[Any]:
        from distributed import wait
        # bounded: Dask retries a broadcast without end (Scheduler.replicate); past this the caller derives here
        remote = client.scatter(payload, broadcast=True, hash=False,
                                timeout=SCATTER_SECONDS + len(payload) * len(parts) / SCATTER_BYTES_PER_SECOND)
        futures = [client.submit(_call, fn, token, remote, part, pure=False) for part in parts]
        try:  # bounded too: a worker that stalls (paused, or a tcp:// worker that hangs) would hold gather forever
            wait(futures, timeout=GATHER_SECONDS + len(payload) / GATHER_BYTES_PER_SECOND)
            return client.gather(futures)
        except BaseException:
            client.cancel(futures)
            raise

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._client = self._cluster = None


_LOADED: dict[str, Any] = {}  # on a worker: the shared inputs of the current map, unpickled once


def _call(fn: Callable[[Any, Any], Any], token: str, payload: bytes, part: Any) -> Any:
    """On a worker: ``fn(shared, part)``, the shared inputs unpickled once per worker and map."""
    if token not in _LOADED:
        import gc
        enabled = gc.isenabled()
        gc.disable()  # millions of small objects: a cyclic collection over them while they load is wasted
        try:
            _LOADED.clear()
            _LOADED[token] = pickle.loads(payload)
        finally:
            if enabled:
                gc.enable()
    return fn(_LOADED[token], part)


class ForkedShards:
    """``--jobs N`` on one machine: ``fn(shared, part)`` for part 0 here and for each other part in a forked
    child, which reads ``shared`` copy-on-write (nothing is pickled on the way in) and sends its result back
    pickled. On one machine this is what pays: pickling the inputs for a Dask worker costs about as much as
    the derivation it would share (docs/scaling.md). A child that fails makes ``map`` raise, and the caller
    then derives everything in its own process."""

    moved_bytes = 0
    forked = True  # the engine's grouped derivation does not use forks (symbolic/derive.py); the kernel's does

    def __init__(self, workers: int):
        self.workers = workers

    def map(self, fn: Callable[[Any, Any], Any], shared: Any, parts: Sequence[Any]) -> list[Any]:
        if not parts:
            return []
        children = [_forked(fn, shared, part) for part in parts[1:]]
        results: list[Any] = []
        failed: Exception | None = None
        try:
            results.append(fn(shared, parts[0]))
        finally:
            for pid, read_end in children:  # every child is reaped, whatever happened here
                try:
                    results.append(_collect(pid, read_end))
                except (RuntimeError, pickle.UnpicklingError, EOFError) as exc:
                    failed = exc
        if failed is not None:
            raise failed
        return results

    def close(self) -> None:
        pass


def _forked(fn: Callable[[Any, Any], Any], shared: Any, part: Any) -> tuple[int, int]:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, and leave without running any of the parent's cleanup
        os.close(read_end)
        status = 1
        try:
            data = pickle.dumps(fn(shared, part), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _collect(pid: int, read_end: int) -> Any:
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        raise RuntimeError(f"a forked worker ended with status {status}")
    return pickle.loads(data)


@contextlib.contextmanager
def sharding(cluster: str | None, jobs: int = 1) -> Iterator[Shards | ForkedShards | None]:
    """The shards of one command: the Dask cluster ``cluster`` if given; else, when ``jobs`` ≥ 2, ``jobs``
    forked processes on this machine (a local Dask cluster where there is no fork); else None (one process).
    Closed when the command ends."""
    shards: Shards | ForkedShards | None = None
    if cluster:
        shards = Shards(cluster)
    elif jobs >= 2:
        shards = ForkedShards(jobs) if hasattr(os, "fork") else Shards(f"local:{min(jobs, MAX_LOCAL_WORKERS)}")
    try:
        yield shards
    finally:
        if shards is not None:
            shards.close()
