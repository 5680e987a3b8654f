// Interoperability on the real clock, cmd/sqsq's default: the clock-free
// cases of shared.mjs, plus long polls, a move task and shutdown in real
// time. Bounds are tolerant (a loaded 2-core CI machine), never instants.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import {
  SendMessageCommand,
  ReceiveMessageCommand,
  ChangeMessageVisibilityCommand,
  StartMessageMoveTaskCommand,
  ListMessageMoveTasksCommand,
} from "@aws-sdk/client-sqs";
import { useServer, clockCases } from "./shared.mjs";

const env = useServer([]); // no -clock flag: the real clock
env.now = async () => Date.now();

clockCases(env, "real");

test("a send wakes a long poll on the real clock", async () => {
  const { sqs } = env;
  const QueueUrl = await env.createQueue("js-real-longpoll");
  const start = Date.now();
  const polling = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 5 }))
    .then((out) => ({ out, at: Date.now() }));
  await sleep(300); // no receivers endpoint on the real clock; if still not parked, it finds the message at once
  const sentAt = Date.now();
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "wake" }));
  const { out, at } = await polling;
  assert.equal(out.Messages?.[0]?.Body, "wake", "the long poll returns the message");
  assert.ok(at - sentAt < 1000, `the long poll answered ${at - sentAt} ms after the send, want < 1000 ms`);
  assert.ok(at - start < 4000, `the long poll took ${at - start} ms in all, well before its 5 s wait ends`);
});

test("a long poll on an empty queue waits out its time on the real clock", async () => {
  const QueueUrl = await env.createQueue("js-real-empty");
  const start = Date.now();
  const out = await env.sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
  const took = Date.now() - start;
  assert.equal(out.Messages, undefined);
  assert.ok(took >= 1000 && took < 2500, `a 1 s long poll took ${took} ms`);
});

test("redrive and a move task on the real clock", async () => {
  const { sqs } = env;
  const dlq = await env.createQueue("js-real-dlq");
  const dlqArn = await env.arnOf(dlq);
  const src = await env.createQueue("js-real-src", {
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }),
  });
  await sqs.send(new SendMessageCommand({ QueueUrl: src, MessageBody: "poison" }));
  for (let i = 1; i <= 2; i++) {
    const [m] = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: src }))).Messages;
    // The consumer fails, and gives the message back at once.
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: src, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 }));
  }
  assert.equal((await sqs.send(new ReceiveMessageCommand({ QueueUrl: src }))).Messages, undefined, "moved at maxReceiveCount");
  assert.deepEqual(await env.counts(dlq), [1, 0]);

  // At the default rate (500 per second) one message moves at once; the
  // task advances on calls, so polling the list drives it.
  await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlqArn }));
  let status;
  for (const deadline = Date.now() + 3000; Date.now() < deadline; await sleep(50)) {
    ({ Status: status } = (await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlqArn }))).Results[0]);
    if (status === "COMPLETED") break;
  }
  assert.equal(status, "COMPLETED", "the move task completes within 3 s");
  assert.equal((await sqs.send(new ReceiveMessageCommand({ QueueUrl: src }))).Messages?.[0]?.Body, "poison");
});

// Last: it stops the server.
test("SIGTERM answers a parked long poll and exits 0", async () => {
  const QueueUrl = await env.createQueue("js-real-bye");
  const polling = env.sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }))
    .then((out) => ({ out, at: Date.now() }));
  await sleep(300);
  const stoppedAt = Date.now();
  const code = await env.shutdown();
  const { out, at } = await polling;
  assert.equal(out.Messages, undefined, "an empty result, not an error");
  assert.ok(at - stoppedAt < 1000, `the long poll answered ${at - stoppedAt} ms after SIGTERM`);
  assert.equal(code, 0, "sqsq exits 0 on SIGTERM");
});
