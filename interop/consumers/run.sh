#!/usr/bin/env bash
# At-least-once bugs found in other languages' consumers, over the wire:
# cmd/sqsq injects duplicate deliveries (rules.json) into an "orders" queue
# consumed by an order service in three languages, each written the way
# its library's docs show, each with two pollers (a scaled-out service):
#
#   boto3         consumer_boto3.py: the boto3 guide's receive_message /
#                 delete_message loop, in two threads
#   node          consumer_sqs_consumer.mjs: two sqs-consumer Consumers
#   go            goservice/: an aws-sdk-go-v2 receive loop and two workers
#
# For each, on one sqsq started with -seed 7 -faults rules.json:
#
# 1. The buggy variant (charge, delete, no idempotency) consumes 60 orders;
#    the step passes only if it is caught: an order charged twice in its
#    ledger, and the history of that order's message shows the injected
#    duplicate delivery. It prints the finding.
# 2. After POST /_sqsq/api/reset, the idempotent twin consumes 6 orders
#    under each of 100 seeds (PUT /_sqsq/api/faults before each): every
#    order charged exactly once, every delivery in the history handled, and
#    at least one duplicate delivery across the seeds (else the twin was
#    not tested). One consumer process serves the 100 seeds, on one queue
#    that is empty between seeds: a real service polls one queue, and an
#    interpreter started 100 times would cost more than the seeds.
#
# Why the buggy run is caught (at least 99.99 % of runs, whatever the
# seed). The rule gives a receive that finds a message in flight a
# duplicate with p = 0.3 (only those receives are decided: the duplicate
# is a message someone holds), and the buggy consumer charges every
# delivery, so one duplicate is a double charge. Each poller takes one
# message, holds it WORK_MS (20 ms) while charging, deletes it and receives
# again a few ms later. A poller's receive finds nothing in flight only if
# the other poller is in that gap between its delete and its next receive;
# the other's next receive then lands inside this poller's 20 ms hold. So
# at least every other receive is decided: 60 orders mean at least 60
# receives with a message, at least 30 decisions, and a seed whose
# decisions were independent draws would miss with probability at most
# 0.7^30 ≈ 2.3e-5. (The Go service receives while its workers hold what it
# handed them, so every receive but the first is decided: 0.7^59 ≈ 7e-10.)
# The finding prints how many receives found a message in flight: 39 to
# 80 in our runs. With the seed fixed, thread timing decides only which
# receive meets which decision, not the decisions: decision n about
# duplicates on a queue is a pure function of (seed, rule, queue, n) (see
# package chaos, "Determinism"). For seed 7 the first duplicate is decision
# 2 (counted from 0) on orders-boto3-buggy, 3 on orders-node-buggy and 7 on
# orders-go-buggy, so every run that makes 8 decisions catches all three,
# far below the 30 argued above. The twin: 6 orders a seed are at least 3
# decisions, a duplicate in a seed with probability at least 1 - 0.7^3 ≈
# 0.66; none in 100 seeds is out of the question (0.34^100).
#
# Needs Go, Node.js 20+ with interop/node_modules (npm ci is run when it is
# missing) and, for the boto3 part, a python3 that imports boto3 (Debian's
# python3-boto3; absent, that part is skipped with a message). CONSUMERS
# picks languages (default "boto3 node go"). SQSQ_BIN=path tests that sqsq
# binary instead of building ./cmd/sqsq.
set -Eeuo pipefail
[ -z "${SQSQ_BIN:-}" ] || SQSQ_BIN=$(realpath "$SQSQ_BIN") # before the cd
cd "$(dirname "$0")/../.."

say() { echo "consumers: $*"; }
fail() {
	echo "consumers: FAIL: $*" >&2
	if [ -n "${tmp:-}" ] && [ -f "$tmp/consumer.out" ]; then tail -20 "$tmp/consumer.out" >&2; fi
	exit 1
}
trap 'code=$?; echo "consumers: FAIL: line $LINENO: \`$BASH_COMMAND\` exited $code" >&2' ERR
ms() { date +%s%3N; }
script_start=$(ms)

buggy_orders=60 twin_orders=6 seeds=100 work_ms=20
rules=interop/consumers/rules.json
probability=$(grep -o '"probability": *[0-9.]*' "$rules" | grep -o '[0-9.]*$')

# Which consumers run, and what they need.
langs=() py=""
for lang in ${CONSUMERS:-boto3 node go}; do
	case $lang in
	boto3)
		for p in /usr/bin/python3 $(type -ap python3); do
			"$p" -c 'import boto3' 2>/dev/null && { py=$p; break; }
		done
		if [ -n "$py" ]; then langs+=(boto3); else say "skipping boto3: no python3 imports boto3"; fi
		;;
	node) langs+=(node) ;;
	go) langs+=(go) ;;
	*) fail "CONSUMERS: unknown consumer $lang (want boto3, node or go)" ;;
	esac
done
[ ${#langs[@]} -gt 0 ] || fail "no consumer to run"
[ -d interop/node_modules/sqs-consumer ] || (cd interop && npm ci --no-audit --no-fund >/dev/null)

tmp=$(mktemp -d)
# shellcheck source=interop/server.sh
. interop/server.sh
cpid=""
trap '[ -z "$cpid" ] || kill "$cpid" 2>/dev/null || true; stop_sqsq; rm -rf "$tmp"' EXIT
if [ -z "${SQSQ_BIN:-}" ]; then # once, rather than in each start_sqsq
	go build -o "$tmp/sqsq-bin" ./cmd/sqsq
	SQSQ_BIN=$tmp/sqsq-bin
fi
go build -o "$tmp/goservice" ./interop/consumers/goservice

# Dummy credentials; no user config, profile or endpoint from this machine.
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=$tmp/none AWS_SHARED_CREDENTIALS_FILE=$tmp/none AWS_EC2_METADATA_DISABLED=true
unset AWS_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_SQS AWS_SESSION_TOKEN

# create_queue NAME creates a standard queue with a 30 s visibility timeout
# (only injected faults redeliver) and prints its URL. sqsq checks no
# signature, so curl speaks SQS's JSON protocol as is.
create_queue() {
	curl -sS --fail-with-body -H 'Content-Type: application/x-amz-json-1.0' -H 'X-Amz-Target: AmazonSQS.CreateQueue' \
		--data-binary "{\"QueueName\":\"$1\",\"Attributes\":{\"VisibilityTimeout\":\"30\"}}" "$url/" |
		sed -n 's/.*"QueueUrl":"\([^"]*\)".*/\1/p'
}

# harness MODE ... runs harness.mjs (sending, waiting, judging) against this
# server and the current consumer's queue, ledger and process.
harness() {
	local mode=$1
	shift
	node interop/consumers/harness.mjs "$mode" --url "$url" --queue-url "$q" --ledger "$ledger" --pid "${cpid:-0}" "$@"
}

# start_consumer LANG MODE QUEUE_URL LEDGER runs one in the background
# (exec: cpid is the consumer's own process, which gets the SIGTERM).
start_consumer() {
	local lang=$1 mode=$2 q=$3 ledger=$4
	case $lang in
	boto3) QUEUE_URL=$q SQS_ENDPOINT=$url LEDGER=$ledger MODE=$mode WORK_MS=$work_ms exec "$py" interop/consumers/consumer_boto3.py ;;
	node) QUEUE_URL=$q SQS_ENDPOINT=$url LEDGER=$ledger MODE=$mode WORK_MS=$work_ms exec node interop/consumers/consumer_sqs_consumer.mjs ;;
	go)
		local flags=()
		[ "$mode" = buggy ] || flags=(-idempotent)
		exec "$tmp/goservice" -endpoint "$url" -queue-url "$q" -ledger "$ledger" -work "${work_ms}ms" "${flags[@]}"
		;;
	esac >"$tmp/consumer.out" 2>&1 &
	cpid=$!
}

# stop_consumer sends SIGTERM: the consumer finishes the messages it holds
# (a late duplicate charge included) and must exit 0.
stop_consumer() {
	local p=$cpid code=0
	cpid=""
	kill -TERM "$p" 2>/dev/null || true
	wait "$p" || code=$?
	[ "$code" -eq 0 ] || fail "the consumer exited with $code on SIGTERM"
}

part() {
	local lang=$1 start buggy_ms finding verdict q ledger
	start=$(ms)
	start_sqsq -seed 7 -history -faults "$rules"

	# 1. The buggy consumer, caught.
	ledger=$tmp/$lang-buggy.ledger
	q=$(create_queue "orders-$lang-buggy")
	start_consumer "$lang" buggy "$q" "$ledger"
	harness orders --orders "$buggy_orders"
	stop_consumer
	finding=$(harness buggy --orders "$buggy_orders" --seed 7 --probability "$probability") ||
		fail "$lang: the buggy consumer was not caught"
	buggy_ms=$(($(ms) - start))
	say "$lang (buggy, caught in $buggy_ms ms): $finding"

	# 2. The idempotent twin under 100 seeds, after a reset: no queue,
	# message, rule or history is left of step 1.
	curl -sS --fail-with-body -X POST "$url/_sqsq/api/reset" >/dev/null
	ledger=$tmp/$lang-twin.ledger
	q=$(create_queue "orders-$lang-twin")
	start_consumer "$lang" idempotent "$q" "$ledger"
	harness seeds --orders "$twin_orders" --seeds "$seeds" --rules "$rules"
	stop_consumer
	verdict=$(harness twin --orders "$twin_orders" --seeds "$seeds") || fail "$lang: the idempotent twin failed"
	say "$lang (idempotent twin, $(($(ms) - start - buggy_ms)) ms): $verdict"

	# No request may have made the server fail: this run injects no errors.
	if grep -E "(^| )status=5[0-9][0-9]( |$)" "$tmp/err" >&2; then fail "$lang: sqsq answered 5xx (above)"; fi
	stop_sqsq
	say "$lang: PASS in $(($(ms) - start)) ms"
}

for lang in "${langs[@]}"; do part "$lang"; done
say "PASS: ${langs[*]}: each buggy consumer caught, each idempotent twin clean over $seeds seeds; $(($(ms) - script_start)) ms in all"
