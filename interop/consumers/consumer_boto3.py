"""An order consumer on boto3, as the boto3 SQS guide writes one
(receive_message, handle each message, delete_message), run by
interop/consumers/run.sh against cmd/sqsq with injected duplicates.

Usage: QUEUE_URL=... SQS_ENDPOINT=... LEDGER=file [MODE=idempotent]
       [POLLERS=2] [WORK_MS=25] python3 consumer_boto3.py

POLLERS threads each run the guide's loop with a client of their own, as
two instances of a scaled-out service would. Each charge appends a line
"charge <orderId> <messageId>" to LEDGER. MODE=buggy (the default)
charges every delivery, so a duplicate charges twice; MODE=idempotent
charges an order once however often it is delivered (it records the skip
as "skip <orderId> <messageId>"). Runs until SIGTERM or SIGINT, then
finishes the messages it holds and exits 0; 1 on an error.
"""

import json
import os
import signal
import sys
import threading
import time

import boto3


class Ledger:
    """The payment side: an append-only file, and the orders it charged
    (read back at start, so a restarted consumer stays idempotent). The
    check and the charge are one step under a lock."""

    def __init__(self, path):
        self.lock = threading.Lock()
        self.charged = set()
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                for line in f:
                    fields = line.split()
                    if len(fields) == 3 and fields[0] == "charge":
                        self.charged.add(fields[1])
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def charge(self, order_id, message_id, idempotent):
        with self.lock:
            kind = "skip" if idempotent and order_id in self.charged else "charge"
            os.write(self.fd, f"{kind} {order_id} {message_id}\n".encode())
            self.charged.add(order_id)
            return kind == "charge"


def poller(queue_url, endpoint, ledger, idempotent, work, stop, errors):
    sqs = boto3.session.Session().client(
        "sqs", region_name="us-east-1", endpoint_url=endpoint,
        aws_access_key_id="test", aws_secret_access_key="test")
    try:
        while not stop.is_set():
            response = sqs.receive_message(
                QueueUrl=queue_url,
                MaxNumberOfMessages=1,
                VisibilityTimeout=30,
                WaitTimeSeconds=1,
            )
            for message in response.get("Messages", []):
                order = json.loads(message["Body"])
                time.sleep(work)  # the payment provider's round trip
                ledger.charge(order["orderId"], message["MessageId"], idempotent)
                sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
    except Exception as e:  # noqa: BLE001 - any failure ends the consumer with 1
        errors.append(e)
        stop.set()


def main():
    queue_url, endpoint = os.environ["QUEUE_URL"], os.environ["SQS_ENDPOINT"]
    mode = os.environ.get("MODE", "buggy")
    if mode not in ("buggy", "idempotent"):
        sys.exit(f"consumer_boto3: MODE={mode}: want buggy or idempotent")
    ledger = Ledger(os.environ["LEDGER"])
    work = int(os.environ.get("WORK_MS", "25")) / 1000
    stop, errors = threading.Event(), []
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threads = [
        threading.Thread(target=poller, args=(queue_url, endpoint, ledger, mode == "idempotent", work, stop, errors))
        for _ in range(int(os.environ.get("POLLERS", "2")))
    ]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.1)  # in steps, so the main thread runs the signal handlers
    if errors:
        sys.exit(f"consumer_boto3: {errors[0]!r}")


if __name__ == "__main__":
    main()
