"""The server's Traces (and the head atlas's corpus runs), shared by every session and bounded by
bytes, not by count.

A Trace's size grows with the square of the text's length (a 512-token MiniLM Trace holds about
86 MiB, an 8-token one a few hundred KiB), so a cache bounded by entries is either small or
unbounded in memory. This one evicts the least recently used Traces once their arrays pass
`max_bytes`; the Trace just made always stays, even alone above the bound.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, Protocol, TypeVar


class Measured(Protocol):
    @property
    def nbytes(self) -> int: ...


T = TypeVar("T", bound=Measured)


class TraceCache(Generic[T]):
    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._traces: OrderedDict[Hashable, T] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()  # Streamlit runs each session in its own thread

    @property
    def nbytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._traces)

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        """The Trace cached under `key`, else `make()`'s, cached. Two sessions asking for the
        same new key at once may both run the model; the first result is kept."""
        with self._lock:
            if key in self._traces:
                self._traces.move_to_end(key)
                return self._traces[key]
        trace = make()  # outside the lock: other sessions' hits do not wait for the model
        with self._lock:
            if key in self._traces:
                return self._traces[key]
            self._traces[key] = trace
            self._bytes += trace.nbytes
            while self._bytes > self.max_bytes and len(self._traces) > 1:
                _, oldest = self._traces.popitem(last=False)
                self._bytes -= oldest.nbytes
        return trace

    def clear(self) -> None:
        with self._lock:
            self._traces.clear()
            self._bytes = 0
