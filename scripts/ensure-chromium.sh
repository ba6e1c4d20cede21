#!/usr/bin/env bash
# The browser tests and the slide export drive Debian's Chromium; install it (and its driver)
# when it is missing, with Noto fonts for Chinese, Japanese, Korean and colour emoji, which a
# lecturer's typed text may hold: without them Chromium draws each such character as a box.
set -euo pipefail
wanted=()
[ -x /usr/bin/chromium ] || wanted+=(chromium chromium-driver)
# a font for 注 (U+6CE8) and for 🧠 (U+1F9E0)
[ -n "$(fc-list :charset=6ce8 2>/dev/null)" ] || wanted+=(fonts-noto-cjk)
[ -n "$(fc-list :charset=1f9e0 2>/dev/null)" ] || wanted+=(fonts-noto-color-emoji)
if [ ${#wanted[@]} -eq 0 ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "Installing Debian's ${wanted[*]} for the browser tests and the slide export…"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${wanted[@]}" >/dev/null
