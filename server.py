"""The app's server: `streamlit run server.py` (what `make app` does) serves the page `app.py`,
having loaded the default model and run it on the opening text before it answers its first
request, so the first visitor after a start waits no longer than the next ones. Streamlit's
`st.App` runs the `lifespan` below once, before the server's health check says "ok".

Memory: one process serves every student, whose texts come and go through the shared, bounded
Trace cache. glibc's allocator would keep the freed multi-MiB arrays of past runs resident (its
threshold for giving large blocks back to the kernel rises with every such block freed), so the
server's memory grew past the cache's bound (tests/e2e/test_memory_bound.py: +412 MiB under a
160 MiB bound). Here blocks of 1 MiB and more always come from, and go back to, the kernel, and
torch asks for huge pages for its large tensors, so taking fresh memory for a run stays cheap."""

import contextlib
import ctypes
import ctypes.util
import faulthandler
import os
import signal

# Before torch is imported: torch reads it once, at its first allocation.
os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")
M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter; a fixed value turns the rising one off
LARGE_BLOCK_BYTES = 1 << 20
_libc = ctypes.CDLL(ctypes.util.find_library("c"))
if hasattr(_libc, "mallopt"):  # glibc; other C libraries keep their own policy
    _libc.mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK_BYTES)

# `kill -USR1 <pid>` writes every thread's stack to the server's stderr (its log): how a page
# that never draws is diagnosed (a failed browser test sends it, tests/e2e/conftest.py).
if hasattr(signal, "SIGUSR1"):
    faulthandler.register(signal.SIGUSR1, all_threads=True)

import argparse  # noqa: E402
import sys  # noqa: E402

import streamlit as st  # noqa: E402  (after the allocator settings above)

from runtime.local import add_model_dirs  # noqa: E402
from ui import state  # noqa: E402  (imports torch)

# `streamlit run server.py -- --models DIR`: a folder of models (or of such folders) offered
# beside the Hugging Face cache's, as ATLAS_MODEL_DIRS (docs/deploy.md). Only this configuration
# decides what is read: a browser chooses among the names found and never sends a path.
_options = argparse.ArgumentParser(prog="server.py")
_options.add_argument("--models", metavar="DIR", action="append", default=[])
add_model_dirs(_options.parse_known_args(sys.argv[1:])[0].models)


@contextlib.asynccontextmanager
async def lifespan(_app):
    state.preload()
    yield


app = st.App("app.py", lifespan=lifespan)
