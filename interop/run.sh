#!/usr/bin/env bash
# Interoperability test: the AWS SDK for JavaScript v3 against cmd/sqsq,
# on the virtual clock (sqsq.test.mjs) and the real one (realclock.test.mjs),
# and sqs-consumer on it, on the real clock (consumer.test.mjs; 14.2.8, the
# newest that runs on Node.js 20: 15.x needs 22). Needs Node.js 20+, Go,
# and the npm registry (for npm ci). SQSQ_BIN=path tests that sqsq binary
# (a release binary, the one of the container image) instead of building
# ./cmd/sqsq.
set -euo pipefail
if [ -n "${SQSQ_BIN:-}" ]; then
	SQSQ_BIN=$(realpath "$SQSQ_BIN") # before the cd
	[ -f "$SQSQ_BIN" ] && [ -x "$SQSQ_BIN" ] || { echo "interop: SQSQ_BIN=$SQSQ_BIN is not an executable file" >&2; exit 1; }
	export SQSQ_BIN
	echo "interop: sqsq $SQSQ_BIN ($("$SQSQ_BIN" -version))"
fi
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
node --test
