#!/usr/bin/env bash
# Real AWS clients against cmd/sqsq on the real clock: every distinct AWS CLI
# on PATH (Debian's awscli 2.9 speaks SQS's Query protocol, a v1 from pip
# its JSON protocol), then interop/clients_boto3.py with every distinct
# Python that imports boto3 (Debian's python3-boto3 1.26 speaks Query, a
# recent pip boto3 JSON). Each client creates standard and FIFO queues, sets
# and reads back a RedrivePolicy, round-trips String, Number and Binary
# message attributes with their MD5s, has a long poll woken by a send,
# changes visibility, dead-letters a message, batches, tags, purges and
# deletes; each CLI then meets injected faults (an error, a duplicate, a
# lost delete response) through the fault API, in its own protocol. A client that is absent is skipped with a message; none at all
# fails, as does a sqsq that does not exit 0 on SIGTERM.
#
# Needs Go. AWS_CLI=path or BOTO3_PYTHON=path picks one CLI or one Python
# (set either to "none" to skip that client). SQSQ_BIN=path tests that sqsq
# binary (a release binary, the one of the container image) instead of
# building ./cmd/sqsq.
set -Eeuo pipefail
[ -z "${SQSQ_BIN:-}" ] || SQSQ_BIN=$(realpath "$SQSQ_BIN") # before the cd
cd "$(dirname "$0")/.."

say() { echo "clients: $*"; }
fail() { echo "clients: FAIL: $*" >&2; exit 1; }
# A command that fails outside a check (a client's error) says where.
trap 'code=$?; echo "clients: FAIL: line $LINENO: \`$BASH_COMMAND\` exited $code" >&2' ERR
ms() { date +%s%3N; }
script_start=$(ms)

# The clients, each kind deduplicated by version (/bin/aws is /usr/bin/aws).
clis=() seen=""
if [ -n "${AWS_CLI:-}" ]; then
	[ "$AWS_CLI" = none ] || { command -v "$AWS_CLI" >/dev/null || fail "no AWS CLI $AWS_CLI"; clis=("$AWS_CLI"); }
else
	for c in $(type -ap aws); do
		v=$("$c" --version 2>&1 | cut -d' ' -f1) || continue
		case " $seen " in *" $v "*) continue ;; esac
		seen="$seen $v" clis+=("$c")
	done
fi
pythons=() seen=""
if [ -n "${BOTO3_PYTHON:-}" ]; then
	[ "$BOTO3_PYTHON" = none ] || { "$BOTO3_PYTHON" -c 'import boto3' || fail "$BOTO3_PYTHON does not import boto3"; pythons=("$BOTO3_PYTHON"); }
else
	# Debian's first (python3-boto3), then whichever python3 is on PATH.
	for py in /usr/bin/python3 $(type -ap python3); do
		v=$("$py" -c 'import boto3, botocore; print(boto3.__version__, botocore.__version__)' 2>/dev/null) || continue
		case " $seen " in *" $v "*) continue ;; esac
		seen="$seen $v" pythons+=("$py")
	done
fi
[ ${#clis[@]} -gt 0 ] || say "skipping the AWS CLI: no aws on PATH"
[ ${#pythons[@]} -gt 0 ] || say "skipping boto3: no python3 imports boto3"
[ $((${#clis[@]} + ${#pythons[@]})) -gt 0 ] || fail "no client to run (install awscli and python3-boto3)"

tmp=$(mktemp -d)
# shellcheck source=interop/server.sh
. interop/server.sh
trap 'stop_sqsq; rm -rf "$tmp"' EXIT
start_sqsq # the real clock (no -clock flag); the debug log times each request
acct=000000000000 region=us-east-1

# Dummy credentials, and no user config or metadata service lookups.
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=$region
export AWS_CONFIG_FILE=$tmp/none AWS_SHARED_CREDENTIALS_FILE=$tmp/none AWS_EC2_METADATA_DISABLED=true AWS_PAGER=""
unset AWS_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_SQS AWS_SESSION_TOKEN

# expect fails unless got equals want.
expect() { [ "$2" = "$3" ] || fail "$tag: $1: got '$2', want '$3'"; }

# Server-side times from the debug log: each request is logged when it
# ends. logged OP KEY FROM prints KEY of the first OP line after line FROM.
loglines() { wc -l <"$tmp/err"; }
logged() { { tail -n +$(($3 + 1)) "$tmp/err" | grep -m1 -E "(^| )op=$1( |\$)" | grep -o -E "(^| )$2=[^ ]*" | sed 's/^ //' | head -1 | cut -d= -f2; } || true; }
logms() { date -d "$1" +%s%3N; }

# attr_md5 is SQS's MD5 of message attributes, computed here from the bytes:
# names sorted, each as length-prefixed name, data type, a transport byte (1
# string or number, 2 binary) and the length-prefixed value. Arguments are
# name type value triples, sorted by name; values take printf %b escapes.
u32() { printf "\\x$(printf %02x $(($1 >> 24 & 255)))\\x$(printf %02x $(($1 >> 16 & 255)))\\x$(printf %02x $(($1 >> 8 & 255)))\\x$(printf %02x $(($1 & 255)))"; }
lp() { u32 "$(printf %b "$1" | wc -c)"; printf %b "$1"; }
attr_md5() {
	while [ $# -gt 0 ]; do
		lp "$1"; lp "$2"
		if [ "$2" = Binary ]; then printf '\x02'; else printf '\x01'; fi
		lp "$3"; shift 3
	done | md5sum | cut -d' ' -f1
}

# cli_part runs the sequence with one AWS CLI; queue names start with the
# CLI's tag, so the CLIs share one server.
cli_part() {
	local aws=$1 version part_start
	version=$("$aws" --version 2>&1) || fail "$aws --version: $version"
	tag=cli${version:8:1} # cli1 or cli2
	part_start=$(ms)
	sqs() { "$aws" --endpoint-url "$url" --cli-read-timeout 25 --output json sqs "$@"; } # a hang guard
	txt() { sqs "$@" --output text; }
	# Which protocol it speaks, from its own debug output.
	local proto
	proto=$(sqs list-queues --debug 2>&1 >/dev/null | grep -o -m1 -E "application/x-amz-json-1.0|application/x-www-form-urlencoded" || true)
	case $proto in
	*json*) proto=JSON ;;
	*form*) proto=Query ;;
	*) fail "$tag: cannot tell the protocol of $aws" ;;
	esac
	say "$tag: $version ($aws, $proto protocol) against $url"

	# Queues, a RedrivePolicy set and read back.
	local dlq src dlq_arn policy
	dlq=$(txt create-queue --queue-name "$tag-dlq" --query QueueUrl)
	expect "create-queue QueueUrl" "$dlq" "$url/$acct/$tag-dlq"
	dlq_arn=$(txt get-queue-attributes --queue-url "$dlq" --attribute-names QueueArn --query Attributes.QueueArn)
	expect "QueueArn" "$dlq_arn" "arn:aws:sqs:$region:$acct:$tag-dlq"
	src=$(txt create-queue --queue-name "$tag-src" --attributes VisibilityTimeout=30 --query QueueUrl)
	expect "create-queue QueueUrl" "$src" "$url/$acct/$tag-src"
	policy="{\"deadLetterTargetArn\":\"$dlq_arn\",\"maxReceiveCount\":2}"
	sqs set-queue-attributes --queue-url "$src" --attributes "{\"RedrivePolicy\":\"${policy//\"/\\\"}\"}"
	# SQS answers maxReceiveCount as a number, whatever was sent.
	expect "RedrivePolicy, VisibilityTimeout" \
		"$(txt get-queue-attributes --queue-url "$src" --attribute-names RedrivePolicy VisibilityTimeout --query 'Attributes.[RedrivePolicy,VisibilityTimeout]')" \
		"$policy	30"
	expect "list-dead-letter-source-queues" "$(txt list-dead-letter-source-queues --queue-url "$dlq" --query 'queueUrls[]')" "$src"

	# Message attributes of each type. The CLI v2 takes a blob as base64,
	# v1 as the text itself; both print it as base64.
	local body='héllo, wörld ✓' blob blob_bytes blob_b64 want_attr_md5 sent_before sent_after sent
	if [ "$tag" = cli2 ]; then blob=AAEC/w== blob_bytes='\x00\x01\x02\xff' blob_b64=AAEC/w==
	else blob=raw-bytes blob_bytes=raw-bytes blob_b64=cmF3LWJ5dGVz; fi
	want_attr_md5=$(attr_md5 blob Binary "$blob_bytes" city String 'Zürich' count Number 42)
	sent_before=$(ms)
	sent=$(txt send-message --queue-url "$src" --message-body "$body" \
		--message-attributes "{\"city\":{\"DataType\":\"String\",\"StringValue\":\"Zürich\"},\"count\":{\"DataType\":\"Number\",\"StringValue\":\"42\"},\"blob\":{\"DataType\":\"Binary\",\"BinaryValue\":\"$blob\"}}" \
		--query '[MessageId,MD5OfMessageBody,MD5OfMessageAttributes]')
	sent_after=$(ms)
	local id sent_body_md5 sent_attr_md5
	IFS=$'\t' read -r id sent_body_md5 sent_attr_md5 <<<"$sent"
	expect "send-message MD5OfMessageBody" "$sent_body_md5" "$(printf %s "$body" | md5sum | cut -d' ' -f1)"
	expect "send-message MD5OfMessageAttributes" "$sent_attr_md5" "$want_attr_md5"

	# Receive with all attributes: each round-trips, with its digests.
	local got f
	got=$(txt receive-message --queue-url "$src" --attribute-names All --message-attribute-names All --query \
		'Messages[0].[MessageId,Body,MD5OfBody,MD5OfMessageAttributes,MessageAttributes.city.StringValue,MessageAttributes.city.DataType,MessageAttributes.count.StringValue,MessageAttributes.count.DataType,MessageAttributes.blob.BinaryValue,MessageAttributes.blob.DataType,Attributes.ApproximateReceiveCount,Attributes.SenderId,Attributes.SentTimestamp,ReceiptHandle]')
	IFS=$'\t' read -r -a f <<<"$got"
	expect "received MessageId" "${f[0]:-}" "$id"
	expect "received Body" "${f[1]:-}" "$body"
	expect "received MD5OfBody" "${f[2]:-}" "$sent_body_md5"
	expect "received MD5OfMessageAttributes" "${f[3]:-}" "$want_attr_md5"
	expect "received attributes (city, count, blob)" "${f[*]:4:6}" "Zürich String 42 Number $blob_b64 Binary"
	expect "ApproximateReceiveCount, SenderId" "${f[*]:10:2}" "1 $acct"
	[ "${f[12]:-0}" -ge "$sent_before" ] && [ "${f[12]:-0}" -le "$sent_after" ] ||
		fail "$tag: SentTimestamp ${f[12]:-} is not during the send [$sent_before, $sent_after] ms"

	# Visibility 0 gives it back; the receive past maxReceiveCount (2)
	# moves it to the dead-letter queue instead.
	sqs change-message-visibility --queue-url "$src" --receipt-handle "${f[13]}" --visibility-timeout 0
	got=$(txt receive-message --queue-url "$src" --attribute-names ApproximateReceiveCount --query 'Messages[0].[MessageId,Attributes.ApproximateReceiveCount,ReceiptHandle]')
	IFS=$'\t' read -r -a f <<<"$got"
	expect "second receive (MessageId, ApproximateReceiveCount)" "${f[*]:0:2}" "$id 2"
	sqs change-message-visibility --queue-url "$src" --receipt-handle "${f[2]}" --visibility-timeout 0
	expect "third receive, past maxReceiveCount" "$(txt receive-message --queue-url "$src" --query 'Messages[0].MessageId')" None
	expect "the dead-letter queue (visible, in flight)" \
		"$(txt get-queue-attributes --queue-url "$dlq" --attribute-names ApproximateNumberOfMessages ApproximateNumberOfMessagesNotVisible --query 'Attributes.[ApproximateNumberOfMessages,ApproximateNumberOfMessagesNotVisible]')" \
		"1	0"

	# A long poll woken by a send. The CLI's start-up (~0.5-1 s a call)
	# blurs client-side times, so the server's log is the judge: the receive
	# must end within 500 ms of the send.
	local from recv_start send_start recv_end body2 handle recv_at send_at gap
	from=$(loglines)
	recv_start=$(ms)
	txt receive-message --queue-url "$src" --wait-time-seconds 5 --query 'Messages[0].[Body,ReceiptHandle]' >"$tmp/received" &
	local recv=$!
	sleep 1.5 # the CLI starts slowly; if the receive is not parked yet, it finds the message at once
	send_start=$(ms)
	sqs send-message --queue-url "$src" --message-body wake >/dev/null
	wait "$recv"
	recv_end=$(ms)
	read -r body2 handle <"$tmp/received" || true
	expect "the long poll's message" "$body2" wake
	recv_at=$(logged ReceiveMessage time "$from") send_at=$(logged SendMessage time "$from")
	[ -n "$recv_at" ] && [ -n "$send_at" ] || { cat "$tmp/err" >&2; fail "$tag: no request log lines for the long poll"; }
	gap=$(($(logms "$recv_at") - $(logms "$send_at")))
	[ "${gap#-}" -le 500 ] || fail "$tag: the long poll ended at $recv_at, ${gap} ms after the send ($send_at); want within 500 ms"
	say "$tag: a 5 s long poll (held $(logged ReceiveMessage duration "$from") in the server) returned the message ${gap} ms after the send (server times; $((recv_end - send_start)) ms after the send's CLI started, $((recv_end - recv_start)) ms in all)"
	sqs delete-message --queue-url "$src" --receipt-handle "$handle"

	# Batches: send three, receive them all, delete them in one call.
	expect "send-message-batch (Successful Ids, Failed)" \
		"$(txt send-message-batch --queue-url "$src" --entries Id=a,MessageBody=one Id=b,MessageBody=two Id=c,MessageBody=three \
			--query '[join(`,`, sort(Successful[].Id)), length(Failed || `[]`)]')" "a,b,c	0"
	local entries="" n=0 bodies="" b h
	for _ in 1 2 3 4 5; do # a standard queue may answer with fewer than are there
		while IFS=$'\t' read -r b h; do
			[ -n "$b" ] && [ "$b" != None ] || continue
			entries="$entries{\"Id\":\"m$n\",\"ReceiptHandle\":\"$h\"}," n=$((n + 1)) bodies="$bodies $b"
		done < <(txt receive-message --queue-url "$src" --max-number-of-messages 10 --query 'Messages[].[Body,ReceiptHandle]')
		[ "$n" -lt 3 ] || break
	done
	expect "received batch bodies" "$(tr ' ' '\n' <<<"$bodies" | sort | xargs)" "one three two"
	expect "delete-message-batch (Successful, Failed)" \
		"$(txt delete-message-batch --queue-url "$src" --entries "[${entries%,}]" --query '[length(Successful), length(Failed || `[]`)]')" "3	0"
	expect "the source queue after the batch delete" \
		"$(txt get-queue-attributes --queue-url "$src" --attribute-names ApproximateNumberOfMessages ApproximateNumberOfMessagesNotVisible --query 'Attributes.[ApproximateNumberOfMessages,ApproximateNumberOfMessagesNotVisible]')" \
		"0	0"

	# Tags.
	sqs tag-queue --queue-url "$src" --tags team=core,env=ci
	expect "list-queue-tags" "$(txt list-queue-tags --queue-url "$src" --query '[Tags.team, Tags.env]')" "core	ci"
	sqs untag-queue --queue-url "$src" --tag-keys env
	expect "list-queue-tags after untag-queue" "$(sqs list-queue-tags --queue-url "$src" --query 'Tags' --output json | tr -d ' \n')" '{"team":"core"}'

	# Purge.
	sqs send-message-batch --queue-url "$src" --entries Id=a,MessageBody=x Id=b,MessageBody=y >/dev/null
	expect "messages before purge-queue" "$(txt get-queue-attributes --queue-url "$src" --attribute-names ApproximateNumberOfMessages --query Attributes.ApproximateNumberOfMessages)" 2
	sqs purge-queue --queue-url "$src"
	expect "messages after purge-queue" "$(txt get-queue-attributes --queue-url "$src" --attribute-names ApproximateNumberOfMessages --query Attributes.ApproximateNumberOfMessages)" 0

	# FIFO: group and deduplication ids, order, a duplicate.
	local fifo first dup
	fifo=$(txt create-queue --queue-name "$tag-orders.fifo" --attributes FifoQueue=true --query QueueUrl)
	expect "create-queue QueueUrl" "$fifo" "$url/$acct/$tag-orders.fifo"
	first=$(txt send-message --queue-url "$fifo" --message-body 1 --message-group-id g --message-deduplication-id d1 --query MessageId)
	expect "send-message-batch to the FIFO queue (Successful, Failed)" \
		"$(txt send-message-batch --queue-url "$fifo" --entries Id=b,MessageBody=2,MessageGroupId=g,MessageDeduplicationId=d2 Id=c,MessageBody=3,MessageGroupId=g,MessageDeduplicationId=d3 \
			--query '[length(Successful), length(Failed || `[]`)]')" "2	0"
	dup=$(txt send-message --queue-url "$fifo" --message-body "1 again" --message-group-id g --message-deduplication-id d1 --query MessageId)
	expect "a duplicate's MessageId (the first's)" "$dup" "$first"
	got=$(txt receive-message --queue-url "$fifo" --max-number-of-messages 10 --attribute-names All --query 'Messages[].[Body,Attributes.MessageGroupId,Attributes.MessageDeduplicationId]')
	expect "FIFO receive (Body, MessageGroupId, MessageDeduplicationId)" "$(tr '\t\n' ', ' <<<"$got")" "1,g,d1 2,g,d2 3,g,d3 "

	# Delete the queues; then they are gone.
	sqs delete-queue --queue-url "$src"
	sqs delete-queue --queue-url "$dlq"
	sqs delete-queue --queue-url "$fifo"
	expect "list-queues after delete-queue" "$(txt list-queues --queue-name-prefix "$tag" --query 'length(QueueUrls || `[]`)')" 0
	local err code=0
	err=$(sqs get-queue-url --queue-name "$tag-src" 2>&1 >/dev/null) || code=$?
	[ "$code" -ne 0 ] && grep -q "(AWS.SimpleQueueService.NonExistentQueue)" <<<"$err" ||
		fail "$tag: get-queue-url of a deleted queue: exit $code, '$err'; want an AWS.SimpleQueueService.NonExistentQueue error"
	faults_part
	say "$tag: PASS in $(($(ms) - part_start)) ms"
}

# faults_part injects faults through the fault API and sees them as the CLI
# sees them, in its protocol: an error answered instead of a send, a
# duplicate delivery, a delete applied whose response is lost. The CLI
# retries both errors by default: one attempt here.
faults_part() {
	local q rules a b got code=0 err
	q=$(txt create-queue --queue-name "$tag-chaos" --query QueueUrl)
	rules='{"seed": 1, "rules": [
		{"operation": "SendMessage", "queue": "'$tag'-chaos", "error": {"code": "ThrottlingException"}}]}'
	curl -sf -X PUT --data "$rules" "$url/_sqsq/api/faults" >/dev/null || fail "$tag: PUT /_sqsq/api/faults"
	err=$(AWS_MAX_ATTEMPTS=1 sqs send-message --queue-url "$q" --message-body x 2>&1 >/dev/null) || code=$?
	[ "$code" -ne 0 ] && grep -q "(ThrottlingException)" <<<"$err" ||
		fail "$tag: send-message under an error rule: exit $code, '$err'; want ThrottlingException"
	rules='{"seed": 1, "rules": [
		{"operation": "ReceiveMessage", "queue": "'$tag'-chaos", "fault": "duplicate"},
		{"operation": "DeleteMessage", "queue": "'$tag'-chaos", "fault": "lostResponse"}]}'
	curl -sf -X PUT --data "$rules" "$url/_sqsq/api/faults" >/dev/null || fail "$tag: PUT /_sqsq/api/faults"
	a=$(txt send-message --queue-url "$q" --message-body a --query MessageId)
	txt send-message --queue-url "$q" --message-body b --query MessageId >/dev/null
	expect "first receive" "$(txt receive-message --queue-url "$q" --query 'Messages[0].MessageId')" "$a"
	got=$(txt receive-message --queue-url "$q" --max-number-of-messages 10 --query 'Messages[].[MessageId,ReceiptHandle]')
	grep -q "^$a	" <<<"$got" || fail "$tag: the second receive ($got) has no duplicate of $a, held in flight"
	b=$(grep "^$a	" <<<"$got" | cut -f2)
	code=0
	err=$(AWS_MAX_ATTEMPTS=1 sqs delete-message --queue-url "$q" --receipt-handle "$b" 2>&1 >/dev/null) || code=$?
	[ "$code" -ne 0 ] && grep -q "(ServiceUnavailable)" <<<"$err" ||
		fail "$tag: delete-message under lostResponse: exit $code, '$err'; want ServiceUnavailable"
	curl -sf -X DELETE "$url/_sqsq/api/faults" >/dev/null || fail "$tag: DELETE /_sqsq/api/faults"
	expect "in flight after the lost delete (b only: a is gone)" \
		"$(txt get-queue-attributes --queue-url "$q" --attribute-names ApproximateNumberOfMessagesNotVisible --query Attributes.ApproximateNumberOfMessagesNotVisible)" 1
	sqs delete-queue --queue-url "$q"
}

for c in "${clis[@]}"; do cli_part "$c"; done

for py in "${pythons[@]}"; do
	"$py" interop/clients_boto3.py "$url" "$tmp/err"
done

# No client request may have made the server fail, but the lost deletes
# faults_part asked for.
if grep -E "(^| )status=5[0-9][0-9]( |$)" "$tmp/err" | grep -v -E "op=DeleteMessage .*queue=cli[12]-chaos" >&2; then fail "sqsq answered 5xx (above)"; fi
requests=$(grep -c " msg=request " "$tmp/err" || true)
stop_sqsq
say "PASS: $requests requests from ${#clis[@]} AWS CLI(s), ${#pythons[@]} boto3(s); sqsq exited 0 on SIGTERM; $(($(ms) - script_start)) ms in all"
