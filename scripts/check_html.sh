#!/usr/bin/env bash
# Renders an HTML report in headless Chromium and fails when no screenshot comes out.
#
#   scripts/check_html.sh REPORT.html OUT.png
#
# Needs the Debian package `chromium` (apt-get install -y chromium). The page must be
# self-contained, so networking is switched off as far as Chromium allows.
set -euo pipefail

if [ "$#" -ne 2 ]; then
    echo "usage: $0 REPORT.html OUT.png" >&2
    exit 2
fi
html=$1
out=$2
if [ ! -f "$html" ]; then
    echo "$0: no such file: $html" >&2
    exit 2
fi
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "$0: chromium not found (apt-get install -y chromium)" >&2
    exit 2
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
rm -f "$out"
abs_html=$(cd "$(dirname "$html")" && pwd)/$(basename "$html")

timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --user-data-dir="$profile" --screenshot="$out" \
    --window-size="${WINDOW_SIZE:-1200,1600}" "file://$abs_html" >"$profile/log" 2>&1 || true

if [ ! -s "$out" ]; then
    echo "$0: chromium produced no screenshot of $html; its output:" >&2
    cat "$profile/log" >&2
    exit 1
fi
echo "screenshot: $out"
