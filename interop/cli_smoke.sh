#!/usr/bin/env bash
# Real-clock smoke run of the AWS CLI against cmd/sqsq: a long poll woken by
# a send returns the message long before its 5 s wait ends. Needs Go and the
# AWS CLI (v1 speaks SQS's JSON protocol, Debian's v2.9 the Query protocol);
# set AWS_CLI to pick one.
set -euo pipefail
cd "$(dirname "$0")/.."

aws=${AWS_CLI:-aws}
command -v "$aws" >/dev/null || { echo "cli_smoke: no AWS CLI ($aws)" >&2; exit 1; }

tmp=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		local code=0
		wait "$pid" || code=$?
		if [ "$code" -ne 0 ]; then
			echo "cli_smoke: FAIL: sqsq exited with $code on SIGTERM" >&2
			rm -rf "$tmp"
			exit 1
		fi
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/sqsq" ./cmd/sqsq
: >"$tmp/out" # exists before the background job opens it
# The real clock (no -clock flag); the debug log times each request.
"$tmp/sqsq" -addr 127.0.0.1:0 -log-level debug >"$tmp/out" 2>"$tmp/err" &
pid=$!
url=""
for _ in $(seq 100); do
	url=$(grep -o 'serving SQS on http://[^ ]*' "$tmp/out" | cut -d' ' -f4) && [ -n "$url" ] && break
	kill -0 "$pid" 2>/dev/null || { cat "$tmp/err" >&2; echo "cli_smoke: sqsq exited" >&2; exit 1; }
	sleep 0.1
done
[ -n "$url" ] || { echo "cli_smoke: sqsq did not print its address" >&2; exit 1; }

# Dummy credentials, and no user config or metadata service lookups.
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=$tmp/none AWS_SHARED_CREDENTIALS_FILE=$tmp/none AWS_EC2_METADATA_DISABLED=true AWS_PAGER=""
sqs() { "$aws" --endpoint-url "$url" --cli-read-timeout 20 sqs "$@"; } # a hang guard
ms() { date +%s%3N; }

echo "cli_smoke: $("$aws" --version 2>&1) against $url"
queue=$(sqs create-queue --queue-name smoke --query QueueUrl --output text)
[ "$queue" = "$url/000000000000/smoke" ] || { echo "cli_smoke: QueueUrl $queue" >&2; exit 1; }

recv_start=$(ms)
sqs receive-message --queue-url "$queue" --wait-time-seconds 5 \
	--query 'Messages[0].[Body,ReceiptHandle]' --output text >"$tmp/received" &
recv=$!
sleep 1.5 # the CLI starts slowly; if the receive is not parked yet, it finds the message at once
send_start=$(ms)
sqs send-message --queue-url "$queue" --message-body hi >/dev/null
wait "$recv"
recv_end=$(ms)

read -r body handle <"$tmp/received" || true
[ "$body" = hi ] || { echo "cli_smoke: FAIL: the long poll returned '$(cat "$tmp/received")', want hi" >&2; exit 1; }

# The CLI's start-up (~0.5-1 s a call) blurs client-side times, so the
# server's log is the judge: the receive must end within 500 ms of the send.
# (It is logged when it ends, the send when it ends; ms precision.)
logged() { { grep -m1 "op=$1 " "$tmp/err" | grep -o "$2=[^ ]*" | head -1 | cut -d= -f2; } || true; }
recv_at=$(logged ReceiveMessage time) send_at=$(logged SendMessage time)
[ -n "$recv_at" ] && [ -n "$send_at" ] || { cat "$tmp/err" >&2; echo "cli_smoke: no request log lines" >&2; exit 1; }
gap=$(($(date -d "$recv_at" +%s%3N) - $(date -d "$send_at" +%s%3N)))
if [ "${gap#-}" -gt 500 ]; then
	echo "cli_smoke: FAIL: the long poll ended at $recv_at, ${gap} ms after the send ($send_at); want within 500 ms" >&2
	exit 1
fi
sqs delete-message --queue-url "$queue" --receipt-handle "$handle"
left=$(sqs get-queue-attributes --queue-url "$queue" --attribute-names ApproximateNumberOfMessages ApproximateNumberOfMessagesNotVisible \
	--query 'Attributes.[ApproximateNumberOfMessages,ApproximateNumberOfMessagesNotVisible]' --output text | tr '\t' ' ')
[ "$left" = "0 0" ] || { echo "cli_smoke: FAIL: after delete-message the queue holds $left" >&2; exit 1; }

echo "cli_smoke: PASS: a 5 s long poll (held $(logged ReceiveMessage duration) in the server) returned the message ${gap} ms after the send (server times; $((recv_end - send_start)) ms after the send's CLI started, $((recv_end - recv_start)) ms in all); delete-message emptied the queue"
