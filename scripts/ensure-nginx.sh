#!/usr/bin/env bash
# The proxy test (tests/e2e/test_proxy.py) puts Debian's nginx in front of several app processes;
# install it when it is missing. The test runs nginx as the current user with its own prefix
# directory, so the package's own service need not run (it is left as the package sets it up).
set -euo pipefail
if [ -x /usr/sbin/nginx ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "Installing Debian's nginx for the proxy test…"
# Another installer (e.g. ensure-chromium.sh in a parallel session) may hold dpkg's lock: wait.
WAIT_FOR_LOCK="-o DPkg::Lock::Timeout=600"
$SUDO apt-get $WAIT_FOR_LOCK update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get $WAIT_FOR_LOCK install -y -qq nginx >/dev/null
