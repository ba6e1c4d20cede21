#!/usr/bin/env bash
# Writes docs/screenshots/<tab>.png, one per tab, by driving the real app in Debian's Chromium
# (the browser tour test takes them). Needs /usr/bin/chromium: scripts/ensure-chromium.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
.venv/bin/python -m pytest -q tests/e2e/test_browser.py -k tour
ls -1 docs/screenshots/*.png
