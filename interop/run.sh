#!/usr/bin/env bash
# Interoperability test: the AWS SDK for JavaScript v3 against cmd/sqsq,
# on the virtual clock (sqsq.test.mjs) and the real one (realclock.test.mjs),
# and sqs-consumer on it, on the real clock (consumer.test.mjs; 14.2.8, the
# newest that runs on Node.js 20: 15.x needs 22). Needs Node.js 20+, Go,
# and the npm registry (for npm ci).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
node --test
