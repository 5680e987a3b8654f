// sqs-consumer (the BBC's long-polling consumer, on the AWS SDK for
// JavaScript v3) against cmd/sqsq on the real clock: its 20 s long polls
// are woken by sends, a handler that throws once gets the message again at
// once (terminateVisibilityTimeout gives it back with visibility 0), one
// that always throws sends the message to the dead-letter queue after
// maxReceiveCount (2) receives, and the source queue ends empty. Bounds
// are tolerant (a loaded 2-core CI machine), never instants.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { SQSClient, SendMessageCommand, ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { Consumer } from "sqs-consumer";
import { useServer } from "./shared.mjs";

const env = useServer([]); // no -clock flag: the real clock

// until polls check every 20 ms until it holds or ms pass.
async function until(what, check, ms) {
  for (const deadline = Date.now() + ms; !(await check()); await sleep(20)) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms} ms`);
  }
}

test("sqs-consumer: woken long polls, a retry and a dead letter (real clock)", async (t) => {
  const dlq = await env.createQueue("consumer-dlq");
  const src = await env.createQueue("consumer-src", {
    VisibilityTimeout: "30", // a failed message comes back only because the consumer gives it back
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: await env.arnOf(dlq), maxReceiveCount: 2 }),
  });

  const calls = new Map(); // body -> [{ at, count }], one per handler call
  const processed = new Set(); // bodies the consumer deleted
  const processingErrors = []; // [body, ApproximateReceiveCount]
  const sqsErrors = [];
  // The consumer has a client of its own, as a separate service would.
  const client = new SQSClient({
    region: "us-east-1", endpoint: env.baseURL, credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  const consumer = Consumer.create({
    queueUrl: src,
    sqs: client,
    waitTimeSeconds: 20,
    terminateVisibilityTimeout: true, // on a handler error: ChangeMessageVisibility 0
    messageSystemAttributeNames: ["ApproximateReceiveCount"],
    handleMessage: async (message) => {
      const count = Number(message.Attributes.ApproximateReceiveCount);
      if (!calls.has(message.Body)) calls.set(message.Body, []);
      calls.get(message.Body).push({ at: Date.now(), count });
      if (message.Body === "poison") throw new Error("always fails");
      if (message.Body === "flaky" && count === 1) throw new Error("fails once");
      return message; // acknowledged: the consumer deletes it
    },
  });
  consumer.on("message_processed", (m) => processed.add(m.Body));
  consumer.on("processing_error", (err, m) => processingErrors.push([m.Body, m.Attributes.ApproximateReceiveCount]));
  consumer.on("error", (err) => sqsErrors.push(err));
  consumer.start();
  t.after(() => {
    consumer.stop({ abort: true }); // cancels the parked long poll
    client.destroy();
  });

  // Sends at intervals, each while the consumer is parked in a long poll.
  const bodies = ["m1", "flaky", "m2", "poison", "m3", "m4"];
  const sentAt = new Map(); // body -> when its SendMessage returned
  await sleep(500);
  for (const body of bodies) {
    const { MessageId } = await env.sqs.send(new SendMessageCommand({ QueueUrl: src, MessageBody: body }));
    sentAt.set(body, { at: Date.now(), id: MessageId });
    await sleep(600);
  }

  const normal = ["m1", "m2", "m3", "m4", "flaky"];
  await until("every message but poison handled and deleted", () => normal.every((b) => processed.has(b)), 5000);
  await until("poison in the dead-letter queue", async () => (await env.counts(dlq))[0] === 1, 5000);
  assert.deepEqual(sqsErrors, [], "no SQS errors while consuming");

  // Each message was handled within 1 s of its send (send returned to
  // handler start; the long poll's answer may even come first).
  const wakes = [];
  for (const body of bodies) {
    const wake = calls.get(body)[0].at - sentAt.get(body).at;
    wakes.push(`${body} ${wake} ms`);
    assert.ok(wake < 1000, `${body} was handled ${wake} ms after its send, want < 1000 ms`);
  }
  t.diagnostic(`handler start after the send returned: ${wakes.join(", ")}`);
  for (const body of ["m1", "m2", "m3", "m4"]) {
    assert.deepEqual(calls.get(body).map((c) => c.count), [1], `${body}: handled once, on its first delivery`);
  }
  // The throw-once message is handled again on its second delivery, given
  // back at once by the consumer rather than after the 30 s visibility.
  const flaky = calls.get("flaky");
  assert.deepEqual(flaky.map((c) => c.count), [1, 2], "flaky: delivered twice, ApproximateReceiveCount 1 then 2");
  assert.ok(flaky[1].at - flaky[0].at < 1000, `flaky came back ${flaky[1].at - flaky[0].at} ms after its failure`);
  // The always-failing one: two deliveries, then the receive past
  // maxReceiveCount moves it to the dead-letter queue.
  assert.deepEqual(calls.get("poison").map((c) => c.count), [1, 2], "poison: delivered maxReceiveCount (2) times");
  assert.deepEqual(processingErrors, [["flaky", "1"], ["poison", "1"], ["poison", "2"]]);
  t.diagnostic(`flaky redelivered after ${flaky[1].at - flaky[0].at} ms; poison's deliveries ${calls.get("poison")[1].at - calls.get("poison")[0].at} ms apart`);

  const dead = await env.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq, MessageSystemAttributeNames: ["All"] }));
  assert.equal(dead.Messages?.length, 1);
  assert.equal(dead.Messages[0].Body, "poison");
  assert.equal(dead.Messages[0].MessageId, sentAt.get("poison").id, "it keeps its MessageId in the dead-letter queue");
  assert.deepEqual(await env.counts(src), [0, 0], "the source queue ends empty");
});
