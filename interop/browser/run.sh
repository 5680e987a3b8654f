#!/usr/bin/env bash
# Browser tests of cmd/sqsq's web console (/_sqsq/ui/): headless Chromium,
# driven by github.com/chromedp/chromedp, against the cmd/sqsq binary, with
# the AWS SDK for Go v2 as the application beside it. In this module of its
# own so that sqsq's go.mod keeps its go directive (chromedp needs Go 1.25)
# and gains no dependency. Needs Chromium: Debian's chromium package at
# /usr/bin/chromium, or $SQSQ_CHROMIUM; .ci/run installs it when missing.
# A failing test leaves a screenshot and the page's HTML in
# $SQSQ_ARTIFACTS (default interop/browser/artifacts/) and prints the paths.
set -euo pipefail
cd "$(dirname "$0")"

chromium=${SQSQ_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
	echo "browser: no Chromium at $chromium: install Debian's chromium package (apt-get install chromium) or set SQSQ_CHROMIUM" >&2
	exit 1
fi
# Debian's launcher script prints shell warnings on some machines: keep
# only the version line.
echo "browser: $("$chromium" --version 2>/dev/null | head -n1), chromedp $(go list -m -f '{{.Version}}' github.com/chromedp/chromedp)"

go vet ./...
# SQSQ_BROWSER_REQUIRED: a missing browser fails the run instead of
# skipping the tests.
SQSQ_CHROMIUM=$chromium SQSQ_BROWSER_REQUIRED=1 go test -count=1 -timeout 180s ./...

# The README's screenshot command still renders its scene (into a scratch
# file: docs/console.png changes only when someone reruns it on purpose).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SQSQ_CHROMIUM=$chromium go run ./cmd/screenshot -o "$tmp/console.png"
