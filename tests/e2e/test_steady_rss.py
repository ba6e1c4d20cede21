"""harness.steady_rss: a server's memory read once it has stopped moving, not after a fixed sleep."""

import subprocess
import sys
import time

import harness

# Grows by 8 MiB every 0.1 s for 0.8 s, then holds still.
GROWING = """
import time
held = []
print("started", flush=True)
for _ in range(8):
    held.append(bytearray(8 * 2**20))
    time.sleep(0.1)
print("done", flush=True)
time.sleep(60)
"""


def test_memory_is_read_once_it_has_stopped_growing():
    process = subprocess.Popen([sys.executable, "-c", GROWING], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "started"
        start = harness.vm_rss(process.pid)
        settled = harness.run_async(harness.steady_rss(process.pid, quiet_s=0.4))
        assert process.stdout.readline().strip() == "done"  # it had finished growing
        assert settled - start >= 7 * 8 * 2**20
        assert abs(harness.vm_rss(process.pid) - settled) < harness.RSS_STEADY_BYTES
    finally:
        process.kill()
        process.wait()


def test_memory_that_never_settles_is_read_at_the_time_limit():
    churn = (
        "import time\nheld = []\nwhile True:\n    held.append(bytearray(2**21)); time.sleep(0.05)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", churn])
    try:
        started = time.monotonic()
        harness.run_async(harness.steady_rss(process.pid, quiet_s=0.5, timeout_s=1.0))
        assert 1.0 <= time.monotonic() - started < 3.0
    finally:
        process.kill()
        process.wait()
