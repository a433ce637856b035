"""Sharding the per-position derivation on Dask (``distributed``): ``--cluster local:N`` or ``tcp://HOST:PORT``.

Both derivations — the engine's in ``certify`` and the kernel's in ``check`` — split the positions into
one stripe per worker (alternate blocks of 4,096 positions, so every worker gets a share of every region
of the encoding), derive each stripe on a worker and merge the stripes' lemmas in sequential first-use
order, so the certificate and the verdict do not depend on the number of workers. ``--jobs N`` (N ≥ 2)
is a local cluster of N worker processes. The cluster starts only when an encoding is large enough to
shard (``PARALLEL_MIN_POSITIONS`` positions), so small runs never pay for it.

The shared inputs (the circuit, T, rows, claims and argmax sets) are scattered to every worker once;
each task returns its stripe's lemma table. What the workers send back is the kernel's own derivation
run in another process: the transport (Dask's pickling and the network) is trusted as the forked child
of earlier versions was, and ``docs/scaling.md`` says what this costs.
"""

from __future__ import annotations

import contextlib
import logging
import re
from typing import Any, Callable, Iterator, Sequence

from .errors import InputError

MAX_LOCAL_WORKERS = 64
_TCP = re.compile(r"tcp://[A-Za-z0-9.\-]+:[0-9]{1,5}\Z")


def parse_cluster(text: str) -> str:
    """``local:N`` (1 ≤ N ≤ 64) or ``tcp://HOST:PORT`` (an existing Dask scheduler); InputError otherwise."""
    if text.startswith("local:") and text[6:].isdigit() and 1 <= int(text[6:]) <= MAX_LOCAL_WORKERS:
        return text
    if _TCP.match(text):
        return text
    raise InputError(f"expected local:N (1 ≤ N ≤ {MAX_LOCAL_WORKERS}) or tcp://HOST:PORT, got {text[:80]!r}",
                     "--cluster")


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
                self._cluster = LocalCluster(n_workers=int(self.spec[6:]), threads_per_worker=1, processes=True,
                                             host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                             silence_logs=logging.ERROR)  # this machine only, any free port
                self._client = Client(self._cluster)
            else:
                self._client = Client(self.spec, timeout=30)
        return self._client

    def map(self, fn: Callable[[Any, Any], Any], shared: Any, parts: Sequence[Any]) -> list[Any]:
        client = self.client()
        import pickle
        self.moved_bytes += len(pickle.dumps(shared, protocol=pickle.HIGHEST_PROTOCOL))
        remote = client.scatter(shared, broadcast=True, hash=False)
        futures = [client.submit(fn, remote, part, pure=False) for part in parts]
        return client.gather(futures)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._client = self._cluster = None


@contextlib.contextmanager
def sharding(cluster: str | None, jobs: int = 1) -> Iterator[Shards | None]:
    """The shards of one command: ``cluster`` if given, else a local cluster of ``jobs`` workers when
    ``jobs`` ≥ 2, else None (one process). Closed when the command ends."""
    shards = Shards(cluster) if cluster else Shards(f"local:{jobs}") if jobs >= 2 else None
    try:
        yield shards
    finally:
        if shards is not None:
            shards.close()
