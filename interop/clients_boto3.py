"""boto3 against cmd/sqsq on the real clock; run by interop/clients.sh.

Usage: python3 interop/clients_boto3.py URL [SERVER_LOG]

URL is cmd/sqsq's address; SERVER_LOG, its debug log (-log-level debug),
adds the server's own timing of the long poll. Queue names carry the
botocore version, so several Pythons can share one server. botocore checks
no SQS digests itself, so this script computes each MD5 from the bytes.
Works with Debian's python3-boto3 (1.26, SQS's Query protocol) and with a
recent boto3 (JSON protocol); exits 1 with what it got on the first failure.
"""

import hashlib
import json
import re
import struct
import sys
import threading
import time
from datetime import datetime

import boto3
import botocore
from botocore.config import Config
from botocore.exceptions import ClientError

ACCOUNT, REGION = "000000000000", "us-east-1"


class Failed(Exception):
    pass


def expect(what, got, want):
    if got != want:
        raise Failed(f"{what}: got {got!r}, want {want!r}")


def now_ms():
    return time.time_ns() // 1_000_000


def md5(data):
    return hashlib.md5(data).hexdigest()


def md5_of_attributes(attrs):
    """SQS's digest of message attributes: names sorted, each as
    length-prefixed name, data type, a transport byte (1 string or number,
    2 binary) and the length-prefixed value."""
    out = b""

    def lp(b):
        return struct.pack(">I", len(b)) + b

    for name in sorted(attrs):
        a = attrs[name]
        out += lp(name.encode()) + lp(a["DataType"].encode())
        if "BinaryValue" in a:
            out += b"\x02" + lp(a["BinaryValue"])
        else:
            out += b"\x01" + lp(a["StringValue"].encode())
    return md5(out)


def logged(log, start_line, op):
    """The time and duration of the first request OP logged after
    start_line, from the server's debug log (each request is logged when
    it ends)."""
    with open(log, encoding="utf-8") as f:
        for line in f.readlines()[start_line:]:
            if re.search(rf"(^| )op={op}( |$)", line):
                t = re.search(r"(?:^| )time=(\S+)", line).group(1)
                d = re.search(r" duration=(\S+)", line)
                return datetime.fromisoformat(t), d and d.group(1)
    return None, None


def log_lines(log):
    with open(log, encoding="utf-8") as f:
        return len(f.readlines())


def main():
    url = sys.argv[1]
    log = sys.argv[2] if len(sys.argv) > 2 else None
    started = now_ms()
    # One attempt per call (no retries hiding a failure); reads outlast a 20 s long poll.
    sqs = boto3.client(
        "sqs", endpoint_url=url, region_name=REGION,
        aws_access_key_id="test", aws_secret_access_key="test",
        config=Config(retries={"total_max_attempts": 1, "mode": "standard"}, read_timeout=40, connect_timeout=5),
    )
    proto = sqs.meta.service_model.protocol
    tag = "boto3-" + botocore.__version__.replace(".", "-")
    print(f"clients: {tag}: boto3 {boto3.__version__}, botocore {botocore.__version__} "
          f"(Python {sys.version.split()[0]}, {sys.executable}, {proto} protocol) against {url}", flush=True)

    def create(name, **attrs):
        q = sqs.create_queue(QueueName=name, Attributes=attrs)["QueueUrl"]
        expect(f"create_queue({name}) QueueUrl", q, f"{url}/{ACCOUNT}/{name}")
        return q

    def counts(q):
        a = sqs.get_queue_attributes(QueueUrl=q, AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
        return int(a["ApproximateNumberOfMessages"]), int(a["ApproximateNumberOfMessagesNotVisible"])

    # Queues, and a RedrivePolicy set at creation (maxReceiveCount as a
    # string, as AWS's guide writes it) read back with it as a JSON number.
    dlq = create(f"{tag}-dlq")
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    expect("QueueArn", dlq_arn, f"arn:aws:sqs:{REGION}:{ACCOUNT}:{tag}-dlq")
    src = create(f"{tag}-src", VisibilityTimeout="30",
                 RedrivePolicy=json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "2"}))
    attrs = sqs.get_queue_attributes(QueueUrl=src, AttributeNames=["All"])["Attributes"]
    policy = json.loads(attrs["RedrivePolicy"])
    expect("RedrivePolicy", policy, {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 2})
    expect("RedrivePolicy maxReceiveCount's JSON type", type(policy["maxReceiveCount"]), int)
    expect("VisibilityTimeout", attrs["VisibilityTimeout"], "30")
    expect("list_dead_letter_source_queues", sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"], [src])

    # Message attributes of each type, with their digests.
    body = "héllo, wörld ✓\n"
    message_attrs = {
        "city": {"DataType": "String", "StringValue": "Zürich"},
        "count": {"DataType": "Number", "StringValue": "42"},
        "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01\x02\xff"},
    }
    before = now_ms()
    sent = sqs.send_message(QueueUrl=src, MessageBody=body, MessageAttributes=message_attrs)
    after = now_ms()
    expect("send_message MD5OfMessageBody", sent["MD5OfMessageBody"], md5(body.encode()))
    expect("send_message MD5OfMessageAttributes", sent["MD5OfMessageAttributes"], md5_of_attributes(message_attrs))

    got = sqs.receive_message(QueueUrl=src, AttributeNames=["All"], MessageAttributeNames=["All"], MaxNumberOfMessages=10)
    expect("messages received", len(got.get("Messages", [])), 1)
    m = got["Messages"][0]
    expect("received MessageId", m["MessageId"], sent["MessageId"])
    expect("received Body", m["Body"], body)
    expect("received MD5OfBody", m["MD5OfBody"], md5(body.encode()))
    expect("received MessageAttributes", m["MessageAttributes"], message_attrs)
    expect("received MD5OfMessageAttributes (of what was received)", m["MD5OfMessageAttributes"], md5_of_attributes(m["MessageAttributes"]))
    expect("received MD5OfMessageAttributes (as sent)", m["MD5OfMessageAttributes"], sent["MD5OfMessageAttributes"])
    a = m["Attributes"]
    expect("ApproximateReceiveCount", a["ApproximateReceiveCount"], "1")
    expect("SenderId", a["SenderId"], ACCOUNT)
    sent_ts, first_ts = int(a["SentTimestamp"]), int(a["ApproximateFirstReceiveTimestamp"])
    if not before <= sent_ts <= after:
        raise Failed(f"SentTimestamp {sent_ts} is not during the send [{before}, {after}] ms")
    if not sent_ts <= first_ts <= now_ms():
        raise Failed(f"ApproximateFirstReceiveTimestamp {first_ts} is not between the send ({sent_ts}) and now")

    # Visibility 0 gives it back; the receive past maxReceiveCount (2) moves
    # it to the dead-letter queue, attributes and all.
    sqs.change_message_visibility(QueueUrl=src, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=0)
    again = sqs.receive_message(QueueUrl=src, AttributeNames=["ApproximateReceiveCount"])["Messages"][0]
    expect("second receive (MessageId, ApproximateReceiveCount)",
           (again["MessageId"], again["Attributes"]["ApproximateReceiveCount"]), (sent["MessageId"], "2"))
    sqs.change_message_visibility(QueueUrl=src, ReceiptHandle=again["ReceiptHandle"], VisibilityTimeout=0)
    expect("third receive, past maxReceiveCount", sqs.receive_message(QueueUrl=src).get("Messages"), None)
    expect("source queue (visible, in flight)", counts(src), (0, 0))
    expect("dead-letter queue (visible, in flight)", counts(dlq), (1, 0))
    dead = sqs.receive_message(QueueUrl=dlq, MessageAttributeNames=["All"])["Messages"][0]
    expect("dead-lettered (MessageId, Body, MessageAttributes)", (dead["MessageId"], dead["Body"], dead["MessageAttributes"]),
           (sent["MessageId"], body, message_attrs))
    expect("dead-lettered MD5OfMessageAttributes", dead["MD5OfMessageAttributes"], sent["MD5OfMessageAttributes"])
    sqs.delete_message(QueueUrl=dlq, ReceiptHandle=dead["ReceiptHandle"])

    # A 20 s long poll in a thread, woken by a send 1 s later: the message
    # arrives within 1 s of the send (client-side, send returned to
    # receive returned; it may even come first).
    from_line = log_lines(log) if log else 0
    polled = {}

    def poll():
        try:
            polled["out"] = sqs.receive_message(QueueUrl=src, WaitTimeSeconds=20)
        except Exception as e:  # reported by the main thread
            polled["err"] = e
        polled["at"] = now_ms()

    poll_start = now_ms()
    t = threading.Thread(target=poll, daemon=True)
    t.start()
    time.sleep(1)
    send_start = now_ms()
    sqs.send_message(QueueUrl=src, MessageBody="wake")
    sent_at = now_ms()
    t.join(25)
    if t.is_alive() or "err" in polled:
        raise Failed(f"the long poll did not return: {polled.get('err', 'still running after 25 s')}")
    msgs = polled["out"].get("Messages", [])
    expect("the long poll's messages", [x["Body"] for x in msgs], ["wake"])
    wake = polled["at"] - sent_at
    if wake >= 1000:
        raise Failed(f"the long poll returned {wake} ms after the send returned (at {polled['at'] - poll_start} ms of its 20 s); want < 1000 ms")
    server = ""
    if log:
        recv_t, held = logged(log, from_line, "ReceiveMessage")
        send_t, _ = logged(log, from_line, "SendMessage")
        if recv_t and send_t:
            server = f"; in the server it ended {round((recv_t - send_t).total_seconds() * 1000)} ms after the send, held {held}"
    print(f"clients: {tag}: a 20 s long poll returned the message {wake} ms after the send returned "
          f"({polled['at'] - send_start} ms after it started, {polled['at'] - poll_start} ms in all{server})", flush=True)
    sqs.delete_message(QueueUrl=src, ReceiptHandle=msgs[0]["ReceiptHandle"])

    # Change the visibility of a batch, then batches of sends and deletes.
    entries = [{"Id": "a", "MessageBody": "one"}, {"Id": "b", "MessageBody": "two"},
               {"Id": "c", "MessageBody": "three", "MessageAttributes": {"n": {"DataType": "Number", "StringValue": "3"}}}]
    out = sqs.send_message_batch(QueueUrl=src, Entries=entries)
    expect("send_message_batch Failed", out.get("Failed", []), [])
    ok = {e["Id"]: e for e in out["Successful"]}
    expect("send_message_batch Successful Ids", sorted(ok), ["a", "b", "c"])
    for e in entries:
        expect(f"send_message_batch {e['Id']} MD5OfMessageBody", ok[e["Id"]]["MD5OfMessageBody"], md5(e["MessageBody"].encode()))
    expect("send_message_batch c MD5OfMessageAttributes", ok["c"].get("MD5OfMessageAttributes"), md5_of_attributes(entries[2]["MessageAttributes"]))
    expect("send_message_batch a MD5OfMessageAttributes (none sent)", ok["a"].get("MD5OfMessageAttributes"), None)
    got = []
    for _ in range(5):  # a standard queue may answer with fewer than are there
        got += sqs.receive_message(QueueUrl=src, MaxNumberOfMessages=10).get("Messages", [])
        if len(got) >= 3:
            break
    expect("received batch bodies", sorted(x["Body"] for x in got), ["one", "three", "two"])
    out = sqs.change_message_visibility_batch(QueueUrl=src, Entries=[
        {"Id": f"v{i}", "ReceiptHandle": x["ReceiptHandle"], "VisibilityTimeout": 60} for i, x in enumerate(got)])
    expect("change_message_visibility_batch (Successful, Failed)", (len(out["Successful"]), out.get("Failed", [])), (3, []))
    out = sqs.delete_message_batch(QueueUrl=src, Entries=[
        {"Id": f"d{i}", "ReceiptHandle": x["ReceiptHandle"]} for i, x in enumerate(got)])
    expect("delete_message_batch (Successful, Failed)", (sorted(e["Id"] for e in out["Successful"]), out.get("Failed", [])), (["d0", "d1", "d2"], []))
    expect("source queue after the batch delete", counts(src), (0, 0))

    # Tags.
    sqs.tag_queue(QueueUrl=src, Tags={"team": "core", "env": "ci"})
    expect("list_queue_tags", sqs.list_queue_tags(QueueUrl=src).get("Tags"), {"team": "core", "env": "ci"})
    sqs.untag_queue(QueueUrl=src, TagKeys=["env"])
    expect("list_queue_tags after untag_queue", sqs.list_queue_tags(QueueUrl=src).get("Tags"), {"team": "core"})

    # Purge.
    sqs.send_message_batch(QueueUrl=src, Entries=[{"Id": "x", "MessageBody": "x"}, {"Id": "y", "MessageBody": "y"}])
    expect("before purge_queue", counts(src), (2, 0))
    sqs.purge_queue(QueueUrl=src)
    expect("after purge_queue", counts(src), (0, 0))
    expect("a receive after purge_queue", sqs.receive_message(QueueUrl=src).get("Messages"), None)

    # FIFO: group and deduplication ids, a duplicate, order within a group.
    fifo = create(f"{tag}-orders.fifo", FifoQueue="true")
    sends = [sqs.send_message(QueueUrl=fifo, MessageBody=b, MessageGroupId=g, MessageDeduplicationId=d)
             for b, g, d in [("1", "g", "d1"), ("2", "g", "d2"), ("x", "h", "dx"), ("3", "g", "d3")]]
    seqs = [int(s["SequenceNumber"]) for s in sends]
    expect("SequenceNumbers increase", seqs, sorted(set(seqs)))
    dup = sqs.send_message(QueueUrl=fifo, MessageBody="1 again", MessageGroupId="g", MessageDeduplicationId="d1")
    expect("a duplicate's MessageId (the first's)", dup["MessageId"], sends[0]["MessageId"])
    got = sqs.receive_message(QueueUrl=fifo, MaxNumberOfMessages=10, AttributeNames=["All"]).get("Messages", [])
    in_g = [(x["Body"], x["Attributes"]["MessageDeduplicationId"], x["Attributes"]["SequenceNumber"])
            for x in got if x["Attributes"]["MessageGroupId"] == "g"]
    expect("group g in order (Body, MessageDeduplicationId, SequenceNumber)", in_g,
           [("1", "d1", sends[0]["SequenceNumber"]), ("2", "d2", sends[1]["SequenceNumber"]), ("3", "d3", sends[3]["SequenceNumber"])])
    expect("all received", sorted(x["Body"] for x in got), ["1", "2", "3", "x"])
    expect("a receive while both groups are in flight", sqs.receive_message(QueueUrl=fifo).get("Messages"), None)
    out = sqs.delete_message_batch(QueueUrl=fifo, Entries=[{"Id": f"d{i}", "ReceiptHandle": x["ReceiptHandle"]} for i, x in enumerate(got)])
    expect("FIFO delete_message_batch Failed", out.get("Failed", []), [])
    expect("FIFO queue after the deletes", counts(fifo), (0, 0))

    # Delete the queues; then they are gone.
    for q in (src, dlq, fifo):
        sqs.delete_queue(QueueUrl=q)
    expect("list_queues after delete_queue", sqs.list_queues(QueueNamePrefix=tag).get("QueueUrls", []), [])
    try:
        sqs.get_queue_url(QueueName=f"{tag}-src")
        raise Failed("get_queue_url of a deleted queue succeeded")
    except sqs.exceptions.QueueDoesNotExist as e:
        expect("get_queue_url of a deleted queue: error code", e.response["Error"]["Code"], "AWS.SimpleQueueService.NonExistentQueue")
        expect("get_queue_url of a deleted queue: HTTP status", e.response["ResponseMetadata"]["HTTPStatusCode"], 400)
    print(f"clients: {tag}: PASS in {now_ms() - started} ms", flush=True)


if __name__ == "__main__":
    try:
        main()
    except (Failed, ClientError, botocore.exceptions.BotoCoreError) as e:
        print(f"clients: FAIL: boto3 {boto3.__version__} (botocore {botocore.__version__}): {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
