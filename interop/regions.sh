#!/usr/bin/env bash
# The region trap, as three real clients meet it on one cmd/sqsq (real
# clock): the AWS CLI in us-east-1 creates a queue and sends to it; boto3 in
# eu-west-1 sends to the URL the CLI got, creates a queue of its own (whose
# URL names eu-west-1) and is told, by name, where the CLI's queue is;
# sqs-consumer's minimal example, with no region set at all (it falls back
# to eu-west-1), consumes the CLI's queue by its URL; and the CLI reads the
# eu-west-1 queue by its URL. The server's log names each request's
# namespace and carries the hint.
#
# Needs Go, Node.js with interop/node_modules (npm ci), an AWS CLI and a
# Python with boto3. SQSQ_BIN=path uses that server binary instead of
# building one.
set -Eeuo pipefail
cd "$(dirname "$0")/.."

say() { echo "regions: $*"; }
fail() { echo "regions: FAIL: $*" >&2; [ -n "${tmp:-}" ] && [ -f "$tmp/err" ] && tail -20 "$tmp/err" >&2; exit 1; }
trap 'code=$?; echo "regions: FAIL: line $LINENO: \`$BASH_COMMAND\` exited $code" >&2' ERR

aws=$(command -v aws) || fail "no AWS CLI on PATH"
py=""
for p in /usr/bin/python3 $(type -ap python3); do
	"$p" -c 'import boto3' 2>/dev/null && { py=$p; break; }
done
[ -n "$py" ] || fail "no python3 imports boto3"
[ -d interop/node_modules/sqs-consumer ] || (cd interop && npm ci --no-audit --no-fund >/dev/null)

tmp=$(mktemp -d)
# shellcheck source=interop/server.sh
. interop/server.sh
trap 'stop_sqsq; rm -rf "$tmp"' EXIT
start_sqsq

# Dummy credentials; no user config, profile or region from this machine.
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test
export AWS_CONFIG_FILE=$tmp/none AWS_SHARED_CREDENTIALS_FILE=$tmp/none AWS_EC2_METADATA_DISABLED=true AWS_PAGER=""
unset AWS_PROFILE AWS_REGION AWS_DEFAULT_REGION AWS_ENDPOINT_URL AWS_ENDPOINT_URL_SQS AWS_SESSION_TOKEN

expect() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }
cli() { AWS_DEFAULT_REGION=us-east-1 "$aws" --endpoint-url "$url" --cli-read-timeout 25 --output text sqs "$@"; }

# 1. The AWS CLI in us-east-1: the default namespace, AWS's URL shape.
orders=$(cli create-queue --queue-name orders --query QueueUrl)
expect "the CLI's queue URL" "$orders" "$url/000000000000/orders"
cli send-message --queue-url "$orders" --message-body from-cli >/dev/null
say "aws $("$aws" --version 2>&1 | cut -d' ' -f1) in us-east-1 created $orders"

# 2. boto3 in eu-west-1.
west=$(URL=$url ORDERS=$orders "$py" - <<'PY'
import os, sys, boto3, botocore
sqs = boto3.client("sqs", region_name="eu-west-1", endpoint_url=os.environ["URL"])
url, orders = os.environ["URL"], os.environ["ORDERS"]
# The URL the CLI got reaches the us-east-1 queue from eu-west-1.
sqs.send_message(QueueUrl=orders, MessageBody="from-boto3")
# A queue of its own: its URL names its region.
west = sqs.create_queue(QueueName="west-jobs")["QueueUrl"]
assert west == url + "/queue/eu-west-1/000000000000/west-jobs", west
sqs.send_message(QueueUrl=west, MessageBody="from-eu-west-1")
# By name, eu-west-1 has no "orders": AWS's error, and where it is.
try:
    sqs.get_queue_url(QueueName="orders")
    sys.exit("get_queue_url(orders) in eu-west-1 succeeded")
except botocore.exceptions.ClientError as e:
    msg = e.response["Error"]["Message"]
    code = e.response["Error"]["Code"]
    assert code in ("AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist"), code
    want = "exists in us-east-1 (account 000000000000): " + orders
    assert "this request is signed for" in msg and want in msg, msg
print(west)
PY
) || fail "boto3 in eu-west-1"
say "boto3 $("$py" -c 'import boto3; print(boto3.__version__)') in eu-west-1 sent to the CLI's URL and created $west"

# 3. sqs-consumer's minimal example, no region anywhere: it signs for
# eu-west-1 and sends to the queue URL's host.
QUEUE_URL=$orders node interop/regions_consumer.mjs || fail "sqs-consumer with no region"
say "sqs-consumer $(node -p 'require("./interop/node_modules/sqs-consumer/package.json").version') with no region consumed both messages of $orders"

# 4. The CLI in us-east-1 reads the eu-west-1 queue by its URL.
body=$(cli receive-message --queue-url "$west" --wait-time-seconds 5 --query 'Messages[0].Body')
expect "the CLI receiving from $west" "$body" from-eu-west-1

# 5. The log names each request's namespace, and the hint once at warn.
grep -q 'level=WARN msg=request .*op=GetQueueUrl account=000000000000 region=eu-west-1 queue=orders .*hint="sqsq: no queue orders in eu-west-1' "$tmp/err" ||
	fail "no warn line with the hint in the log"
grep -q 'op=ReceiveMessage account=000000000000 region=eu-west-1 queue=west-jobs status=200' "$tmp/err" ||
	fail "no log line of the CLI's receive in eu-west-1's namespace"
stop_sqsq
say "ok: the AWS CLI (us-east-1), boto3 (eu-west-1) and sqs-consumer (no region) share queues by URL"
