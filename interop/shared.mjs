// Shared by the interop test files (not itself a test file: node --test
// runs only *.test.mjs here): starting cmd/sqsq, digests, and the cases
// that need no clock control, run against both the virtual and the real
// clock.
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
  QueueDoesNotExist,
} from "@aws-sdk/client-sqs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");

// useServer registers before/after hooks that build cmd/sqsq (or take the
// binary of $SQSQ_BIN, an absolute path), start it on a free port with args, and stop it with SIGTERM (a graceful shutdown: it
// must exit 0). It returns the env the hooks fill in: baseURL, the SDK
// client sqs, admin(method, path, body) for the virtual clock, shutdown()
// and a few SQS helpers.
export function useServer(args) {
  const env = {};
  let server, workDir;
  before(async () => {
    workDir = mkdtempSync(join(tmpdir(), "sqsq-interop-"));
    let bin = process.env.SQSQ_BIN;
    if (!bin) {
      bin = join(workDir, "sqsq");
      execFileSync("go", ["build", "-o", bin, "./cmd/sqsq"], { cwd: repo, stdio: "inherit" });
    }
    server = spawn(bin, ["-addr", "127.0.0.1:0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
    // Its first line on stdout names the address.
    env.baseURL = await new Promise((resolve, reject) => {
      let out = "";
      server.stdout.on("data", (chunk) => {
        out += chunk;
        const m = out.match(/serving SQS on (http:\/\/\S+)/);
        if (m) resolve(m[1]);
      });
      server.on("exit", (code) => reject(new Error(`sqsq exited with ${code} before serving`)));
    });
    env.sqs = new SQSClient({
      region: "us-east-1",
      endpoint: env.baseURL,
      credentials: { accessKeyId: "test", secretAccessKey: "test" }, // signed, and ignored
    });
  });
  // shutdown sends SIGTERM and resolves to the exit code.
  env.shutdown = async () => {
    if (server.exitCode !== null) return server.exitCode;
    const exited = new Promise((resolve) => server.on("exit", (code) => resolve(code)));
    server.kill("SIGTERM");
    return exited;
  };
  after(async () => {
    env.sqs?.destroy();
    if (server) assert.equal(await env.shutdown(), 0, "sqsq exits 0 on SIGTERM");
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });
  env.admin = async (method, path, body) => {
    const res = await fetch(env.baseURL + path, { method, body: body && JSON.stringify(body) });
    assert.equal(res.status, 200, `${method} ${path}`);
    return res.json();
  };
  env.createQueue = async (QueueName, Attributes) => {
    const { QueueUrl } = await env.sqs.send(new CreateQueueCommand({ QueueName, Attributes }));
    assert.equal(QueueUrl, `${env.baseURL}/000000000000/${QueueName}`);
    return QueueUrl;
  };
  env.arnOf = async (QueueUrl) => {
    const { Attributes } = await env.sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["QueueArn"] }));
    return Attributes.QueueArn;
  };
  env.counts = async (QueueUrl) => {
    const { Attributes } = await env.sqs.send(new GetQueueAttributesCommand({
      QueueUrl, AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    }));
    return [Number(Attributes.ApproximateNumberOfMessages), Number(Attributes.ApproximateNumberOfMessagesNotVisible)];
  };
  return env;
}

// md5OfAttributes is SQS's digest of message attributes, computed here
// independently of the server: names sorted, each as length-prefixed name,
// data type, a transport byte (1 string/number, 2 binary) and the value.
export function md5OfAttributes(attrs) {
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
export const md5 = (s) => createHash("md5").update(s, "utf8").digest("hex");

// clockCases registers the cases that need no clock control, so they hold
// on either clock. env.now() is the server's time in ms: the virtual
// clock's (which stands still), or Date.now() on the real clock.
export function clockCases(env, clockName) {
  test(`send, receive with attributes, delete (${clockName} clock)`, async () => {
    const { sqs } = env;
    const QueueUrl = await env.createQueue("js-basic");
    const MessageAttributes = {
      city: { DataType: "String", StringValue: "Zürich" },
      count: { DataType: "Number", StringValue: "42" },
      blob: { DataType: "Binary", BinaryValue: new Uint8Array([0, 1, 2, 255]) },
    };
    const body = "héllo, wörld ✓\n";
    const before = await env.now();
    const sent = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body, MessageAttributes }));
    const after = await env.now();
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
    const ts = Number(m.Attributes.SentTimestamp);
    assert.ok(before <= ts && ts <= after, `SentTimestamp ${ts} is the server clock's, in ms, during the send [${before}, ${after}]`);

    // A filter by prefix returns fewer attributes, and the digest covers only those.
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 }));
    const again = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MessageAttributeNames: ["ci.*", "count"] }));
    const filtered = again.Messages[0].MessageAttributes;
    assert.deepEqual(Object.keys(filtered).sort(), ["city", "count"]);
    assert.equal(again.Messages[0].MD5OfMessageAttributes, md5OfAttributes(filtered));
    assert.notEqual(again.Messages[0].ReceiptHandle, m.ReceiptHandle, "each receive has its own handle");

    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: again.Messages[0].ReceiptHandle }));
    assert.deepEqual(await env.counts(QueueUrl), [0, 0]);
    const empty = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
    assert.equal(empty.Messages, undefined, "an empty receive has no Messages member");
  });

  test(`visibility 0 leaves a message visible (${clockName} clock)`, async () => {
    const { sqs } = env;
    const QueueUrl = await env.createQueue("js-visible", { VisibilityTimeout: "30" });
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "v" }));
    const first = (await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages[0];
    assert.deepEqual(await env.counts(QueueUrl), [0, 1]);
    // An explicit VisibilityTimeout of 0 (the Go SDK cannot send it) leaves
    // the message visible at once.
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: first.ReceiptHandle, VisibilityTimeout: 0 }));
    const second = await sqs.send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0 }));
    assert.equal(second.Messages.length, 1);
    const third = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 0, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }));
    assert.equal(third.Messages.length, 1, "visibility 0 on receive left it visible");
    assert.equal(third.Messages[0].Attributes.ApproximateReceiveCount, "3");
  });

  test(`FIFO queue: order and deduplication (${clockName} clock)`, async () => {
    const { sqs } = env;
    const QueueUrl = await env.createQueue("js-orders.fifo", { FifoQueue: "true" });
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
  });

  test(`errors are the SDK's typed errors, with SQS's legacy codes (${clockName} clock)`, async () => {
    const { sqs } = env;
    await assert.rejects(
      sqs.send(new SendMessageCommand({ QueueUrl: `${env.baseURL}/000000000000/nope`, MessageBody: "x" })),
      (err) => err instanceof QueueDoesNotExist && err.Code === "AWS.SimpleQueueService.NonExistentQueue" &&
        err.message === "The specified queue does not exist." && err.$metadata.httpStatusCode === 400,
    );
    // An explicit MaxNumberOfMessages of 0 is sent by this SDK, and refused.
    const QueueUrl = await env.createQueue("js-errors");
    await assert.rejects(
      sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 0 })),
      (err) => err.name === "InvalidParameterValue" && err.$fault === "client" &&
        err.message === "Value 0 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.",
    );
  });
}
