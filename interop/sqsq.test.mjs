// Interoperability test: the AWS SDK for JavaScript v3 (@aws-sdk/client-sqs,
// which speaks the AWS JSON 1.0 protocol) drives cmd/sqsq in virtual-clock
// mode. Run with `bash interop/run.sh` (npm ci && node --test).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import {
  SQSClient,
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
  SendMessageBatchCommand,
  ReceiveMessageCommand,
  DeleteMessageCommand,
  ChangeMessageVisibilityCommand,
  StartMessageMoveTaskCommand,
  ListMessageMoveTasksCommand,
  ListDeadLetterSourceQueuesCommand,
  QueueDoesNotExist,
} from "@aws-sdk/client-sqs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
let server, baseURL, sqs, workDir;

// Build cmd/sqsq and start it on a free port with the virtual clock; its
// first line on stdout names the address.
before(async () => {
  workDir = mkdtempSync(join(tmpdir(), "sqsq-interop-"));
  const bin = join(workDir, "sqsq");
  execFileSync("go", ["build", "-o", bin, "./cmd/sqsq"], { cwd: repo, stdio: "inherit" });
  server = spawn(bin, ["-addr", "127.0.0.1:0", "-clock", "virtual"], { stdio: ["ignore", "pipe", "inherit"] });
  baseURL = await new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/serving SQS on (http:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    server.on("exit", (code) => reject(new Error(`sqsq exited with ${code} before serving`)));
  });
  sqs = new SQSClient({
    region: "us-east-1",
    endpoint: baseURL,
    credentials: { accessKeyId: "test", secretAccessKey: "test" }, // signed, and ignored
  });
});

// SIGTERM shuts the server down gracefully: it exits 0.
after(async () => {
  sqs?.destroy();
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.on("exit", (code, signal) => resolve({ code, signal })));
    server.kill("SIGTERM");
    const { code } = await exited;
    assert.equal(code, 0, "sqsq exits 0 on SIGTERM");
  }
  rmSync(workDir, { recursive: true, force: true });
});

// admin calls the virtual clock's admin endpoint.
async function admin(method, path, body) {
  const res = await fetch(baseURL + path, { method, body: body && JSON.stringify(body) });
  assert.equal(res.status, 200, `${method} ${path}`);
  return res.json();
}
const advance = (duration) => admin("POST", "/_sqsq/clock/advance", { duration });

// md5OfAttributes is SQS's digest of message attributes, computed here
// independently of the server: names sorted, each as length-prefixed name,
// data type, a transport byte (1 string/number, 2 binary) and the value.
function md5OfAttributes(attrs) {
  const parts = [];
  const lp = (buf) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(buf.length);
    parts.push(len, buf);
  };
  for (const name of Object.keys(attrs).sort()) {
    const a = attrs[name];
    lp(Buffer.from(name, "utf8"));
    lp(Buffer.from(a.DataType, "utf8"));
    if (a.BinaryValue !== undefined) {
      parts.push(Buffer.from([2]));
      lp(Buffer.from(a.BinaryValue));
    } else {
      parts.push(Buffer.from([1]));
      lp(Buffer.from(a.StringValue, "utf8"));
    }
  }
  return createHash("md5").update(Buffer.concat(parts)).digest("hex");
}
const md5 = (s) => createHash("md5").update(s, "utf8").digest("hex");

async function createQueue(QueueName, Attributes) {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName, Attributes }));
  assert.equal(QueueUrl, `${baseURL}/000000000000/${QueueName}`);
  return QueueUrl;
}

async function arnOf(QueueUrl) {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["QueueArn"] }));
  return Attributes.QueueArn;
}

async function counts(QueueUrl) {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({
    QueueUrl, AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
  }));
  return [Number(Attributes.ApproximateNumberOfMessages), Number(Attributes.ApproximateNumberOfMessagesNotVisible)];
}

test("send, receive with attributes, delete", async () => {
  const QueueUrl = await createQueue("js-basic");
  const MessageAttributes = {
    city: { DataType: "String", StringValue: "Zürich" },
    count: { DataType: "Number", StringValue: "42" },
    blob: { DataType: "Binary", BinaryValue: new Uint8Array([0, 1, 2, 255]) },
  };
  const body = "héllo, wörld ✓\n";
  const sent = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body, MessageAttributes }));
  assert.equal(sent.MD5OfMessageBody, md5(body));
  assert.equal(sent.MD5OfMessageAttributes, md5OfAttributes(MessageAttributes));

  const { Messages } = await sqs.send(new ReceiveMessageCommand({
    QueueUrl, MessageAttributeNames: ["All"], MessageSystemAttributeNames: ["All"], MaxNumberOfMessages: 10,
  }));
  assert.equal(Messages.length, 1);
  const [m] = Messages;
  assert.equal(m.Body, body);
  assert.equal(m.MessageId, sent.MessageId);
  assert.equal(m.MD5OfBody, md5(body)); // also checked by the SDK itself
  assert.equal(m.MessageAttributes.city.StringValue, "Zürich");
  assert.equal(m.MessageAttributes.count.DataType, "Number");
  assert.deepEqual([...m.MessageAttributes.blob.BinaryValue], [0, 1, 2, 255]);
  assert.equal(m.MD5OfMessageAttributes, md5OfAttributes(m.MessageAttributes));
  assert.equal(m.MD5OfMessageAttributes, sent.MD5OfMessageAttributes);
  assert.equal(m.Attributes.ApproximateReceiveCount, "1");
  assert.equal(m.Attributes.SenderId, "000000000000");
  const now = (await admin("GET", "/_sqsq/clock")).unixMillis;
  assert.equal(Number(m.Attributes.SentTimestamp), now, "SentTimestamp is the virtual clock's, in ms");

  // A filter by prefix returns fewer attributes, and the digest covers only those.
  await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 }));
  const again = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MessageAttributeNames: ["ci.*", "count"] }));
  const filtered = again.Messages[0].MessageAttributes;
  assert.deepEqual(Object.keys(filtered).sort(), ["city", "count"]);
  assert.equal(again.Messages[0].MD5OfMessageAttributes, md5OfAttributes(filtered));
  assert.notEqual(again.Messages[0].ReceiptHandle, m.ReceiptHandle, "each receive has its own handle");

  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: again.Messages[0].ReceiptHandle }));
  assert.deepEqual(await counts(QueueUrl), [0, 0]);
  const empty = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
  assert.equal(empty.Messages, undefined, "an empty receive has no Messages member");
});

test("change visibility on the virtual clock", async () => {
  const QueueUrl = await createQueue("js-visibility", { VisibilityTimeout: "30" });
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "v" }));
  const first = (await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages[0];
  assert.deepEqual(await counts(QueueUrl), [0, 1]);

  await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: first.ReceiptHandle, VisibilityTimeout: 120 }));
  await advance("119s");
  assert.equal((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages, undefined, "hidden until 120 s");
  await advance("1s");
  const second = (await sqs.send(new ReceiveMessageCommand({ QueueUrl, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }))).Messages[0];
  assert.equal(second.Attributes.ApproximateReceiveCount, "2");

  // An explicit VisibilityTimeout of 0 (the Go SDK cannot send it) leaves
  // the message visible at once.
  await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: second.ReceiptHandle, VisibilityTimeout: 0 }));
  const third = await sqs.send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0 }));
  assert.equal(third.Messages.length, 1);
  const fourth = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 0 }));
  assert.equal(fourth.Messages.length, 1, "visibility 0 on receive left it visible");
});

test("a long poll parks on the virtual clock", async () => {
  const QueueUrl = await createQueue("js-longpoll");
  const polling = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
  assert.equal((await admin("GET", "/_sqsq/queues/js-longpoll/receivers?atLeast=1")).parked, 1);
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "wake" }));
  const { Messages } = await polling;
  assert.equal(Messages[0].Body, "wake", "a send wakes the parked receive");
});

test("FIFO queue: order and deduplication", async () => {
  const QueueUrl = await createQueue("js-orders.fifo", { FifoQueue: "true" });
  const sent = [];
  for (const [body, dedup] of [["1", "a"], ["2", "b"], ["1 again", "a"], ["3", "c"]]) {
    sent.push(await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body, MessageGroupId: "g", MessageDeduplicationId: dedup })));
  }
  assert.equal(sent[2].MessageId, sent[0].MessageId, "a duplicate within 5 minutes returns the first message's id");
  assert.ok(BigInt(sent[1].SequenceNumber) > BigInt(sent[0].SequenceNumber));

  const batch = await sqs.send(new SendMessageBatchCommand({
    QueueUrl,
    Entries: [
      { Id: "x", MessageBody: "4", MessageGroupId: "g", MessageDeduplicationId: "d" },
      { Id: "y", MessageBody: "5", MessageGroupId: "g", MessageDeduplicationId: "e" },
    ],
  }));
  assert.equal(batch.Successful.length, 2);

  const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ["All"] }));
  assert.deepEqual(Messages.map((m) => m.Body), ["1", "2", "3", "4", "5"]);
  assert.ok(Messages.every((m) => m.Attributes.MessageGroupId === "g"));
  assert.equal((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages, undefined, "the group is locked while in flight");

  await advance("6m"); // past the visibility timeout and the dedup window
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "1 later", MessageGroupId: "h", MessageDeduplicationId: "a" }));
  const [counted] = await counts(QueueUrl);
  assert.equal(counted, 6, "five back from flight, one new after the window");
});

test("dead-letter queue: redrive policy and a move task", async () => {
  const dlq = await createQueue("js-dlq");
  const dlqArn = await arnOf(dlq);
  const src = await createQueue("js-src", {
    VisibilityTimeout: "30",
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }),
  });
  const sources = await sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: dlq }));
  assert.deepEqual(sources.queueUrls, [src]);

  const sent = await sqs.send(new SendMessageCommand({ QueueUrl: src, MessageBody: "poison" }));
  for (let i = 1; i <= 2; i++) {
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: src, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }));
    assert.equal(Messages[0].Attributes.ApproximateReceiveCount, String(i));
    await advance("31s"); // the consumer fails: the visibility timeout ends
  }
  // The third receive finds maxReceiveCount reached: the message moves.
  assert.equal((await sqs.send(new ReceiveMessageCommand({ QueueUrl: src }))).Messages, undefined);
  const dead = (await sqs.send(new ReceiveMessageCommand({
    QueueUrl: dlq, VisibilityTimeout: 0, MessageSystemAttributeNames: ["DeadLetterQueueSourceArn"],
  }))).Messages[0];
  assert.equal(dead.MessageId, sent.MessageId, "a redriven message keeps its id");
  assert.equal(dead.Attributes.DeadLetterQueueSourceArn, await arnOf(src));

  // Move it back, at one message per second of virtual time.
  const { TaskHandle } = await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlqArn, MaxNumberOfMessagesPerSecond: 1 }));
  assert.ok(TaskHandle);
  let { Results } = await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlqArn }));
  assert.equal(Results[0].Status, "RUNNING");
  assert.equal(Results[0].ApproximateNumberOfMessagesToMove, 1);
  await advance("2s");
  ({ Results } = await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlqArn })));
  assert.equal(Results[0].Status, "COMPLETED");
  assert.equal(Results[0].ApproximateNumberOfMessagesMoved, 1);
  const back = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: src }))).Messages[0];
  assert.equal(back.Body, "poison");
  assert.notEqual(back.MessageId, sent.MessageId, "a move task sends a new message");
  assert.deepEqual(await counts(dlq), [0, 0]);
});

test("errors are the SDK's typed errors, with SQS's legacy codes", async () => {
  await assert.rejects(
    sqs.send(new SendMessageCommand({ QueueUrl: `${baseURL}/000000000000/nope`, MessageBody: "x" })),
    (err) => err instanceof QueueDoesNotExist && err.Code === "AWS.SimpleQueueService.NonExistentQueue" &&
      err.message === "The specified queue does not exist." && err.$metadata.httpStatusCode === 400,
  );
  // An explicit MaxNumberOfMessages of 0 is sent by this SDK, and refused.
  const QueueUrl = await createQueue("js-errors");
  await assert.rejects(
    sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 0 })),
    (err) => err.name === "InvalidParameterValue" && err.$fault === "client" &&
      err.message === "Value 0 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.",
  );
});
