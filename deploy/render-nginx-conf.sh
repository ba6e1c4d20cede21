#!/usr/bin/env bash
# Fills deploy/nginx.conf.template and prints the result: the nginx config for N Streamlit
# processes of the app on 127.0.0.1 behind one sub-path. Used by docs/deploy.md and by
# tests/e2e/test_proxy.py, so what the test runs is what a department installs.
#
#   deploy/render-nginx-conf.sh --base-path /atlas --listen 127.0.0.1:8080 \
#       --access-log /var/log/nginx/atlas.access.log 8501 8502 8503 > /etc/nginx/conf.d/atlas.conf
#
# --fail-timeout SECONDS (default 10): how long new browsers skip a process that refused a
# connection before nginx tries it again (the template's fail_timeout).
set -euo pipefail
usage() {
    echo "usage: $0 --base-path /atlas --listen HOST:PORT --access-log PATH [--fail-timeout SECONDS] PORT [PORT...]" >&2
    exit 2
}
TEMPLATE="$(dirname "$0")/nginx.conf.template"
BASE_PATH="" LISTEN="" ACCESS_LOG="" FAIL_TIMEOUT=10 PORTS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --base-path) BASE_PATH="${2:-}"; shift 2 ;;
        --listen) LISTEN="${2:-}"; shift 2 ;;
        --access-log) ACCESS_LOG="${2:-}"; shift 2 ;;
        --fail-timeout) FAIL_TIMEOUT="${2:-}"; shift 2 ;;
        -h | --help) usage ;;
        *) PORTS+=("$1"); shift ;;
    esac
done
# The values go into nginx syntax and into an awk replacement: allow only plain characters.
[[ "$BASE_PATH" =~ ^(/[A-Za-z0-9._-]+)+$ ]] || { echo "--base-path: like /atlas (no trailing /)" >&2; usage; }
LISTEN_PATTERN='^([A-Za-z0-9.:]+|\[[0-9A-Fa-f:]+\]:[0-9]+)$'  # host:port, port, or [ipv6]:port
[[ "$LISTEN" =~ $LISTEN_PATTERN ]] || { echo "--listen: like 127.0.0.1:8080" >&2; usage; }
[[ "$ACCESS_LOG" =~ ^[A-Za-z0-9._/-]+$ ]] || { echo "--access-log: a plain file path" >&2; usage; }
[[ "$FAIL_TIMEOUT" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "--fail-timeout: whole seconds, 1 to 9999" >&2; usage; }
[ ${#PORTS[@]} -gt 0 ] || { echo "give the port of at least one Streamlit process" >&2; usage; }
for port in "${PORTS[@]}"; do
    [[ "$port" =~ ^[0-9]+$ ]] || { echo "not a port: $port" >&2; usage; }
done
if [ "$(printf '%s\n' "${PORTS[@]}" | sort | uniq -d)" ]; then echo "a port given twice" >&2; usage; fi
# Process n (from 1) is the n-th port. See the template for what each generated part is for.
server_line() { echo "    server 127.0.0.1:$1 $2;"; }
UPSTREAMS="upstream atlas_new {"$'\n'"    zone atlas_new 64k;"$'\n'
for port in "${PORTS[@]}"; do
    UPSTREAMS+="$(server_line "$port" "max_fails=1 fail_timeout=${FAIL_TIMEOUT}s")"$'\n'
done
UPSTREAMS+="}"
ROUTE_MAP="" SERVED_MAP=""
for n in "${!PORTS[@]}"; do
    number=$((n + 1)) own="${PORTS[$n]}"
    UPSTREAMS+=$'\n'"upstream atlas_$number {"$'\n'"    zone atlas_$number 64k;"$'\n'
    UPSTREAMS+="$(server_line "$own" "max_fails=0")"$'\n'
    for port in "${PORTS[@]}"; do
        [ "$port" = "$own" ] || UPSTREAMS+="$(server_line "$port" "backup max_fails=0")"$'\n'
    done
    UPSTREAMS+="}"
    ROUTE_MAP+="    $number atlas_$number;"$'\n'
    SERVED_MAP+="    \"~(^|, )127\\.0\\.0\\.1:$own\$\" $number;"$'\n'
done
# Backslashes in awk -v values are escapes: double them so the map's regex keeps its own.
SERVED_MAP="${SERVED_MAP//\\/\\\\}"
awk -v base="$BASE_PATH" -v listen="$LISTEN" -v access_log="$ACCESS_LOG" \
    -v upstreams="$UPSTREAMS" -v route_map="${ROUTE_MAP%$'\n'}" -v served_map="${SERVED_MAP%$'\n'}" '
    $0 == "@UPSTREAMS@" { print upstreams; next }
    $0 == "@ROUTE_MAP@" { print route_map; next }
    $0 == "@SERVED_MAP@" { print served_map; next }
    {
        gsub(/@BASE_PATH@/, base); gsub(/@LISTEN@/, listen); gsub(/@ACCESS_LOG@/, access_log)
        if ($0 ~ /@[A-Z_]+@/) { print "unfilled placeholder: " $0 > "/dev/stderr"; exit 1 }
        print
    }' "$TEMPLATE"
