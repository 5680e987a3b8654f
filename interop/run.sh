#!/usr/bin/env bash
# Interoperability test: the AWS SDK for JavaScript v3 against cmd/sqsq,
# on the virtual clock (sqsq.test.mjs) and the real one (realclock.test.mjs).
# Needs Node.js 20+, Go, and the npm registry (for npm ci).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
node --test
