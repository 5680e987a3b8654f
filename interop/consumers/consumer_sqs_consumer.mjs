// An order consumer on sqs-consumer, as its README writes one
// (Consumer.create({ queueUrl, handleMessage, sqs }), the handler returning
// the message so it is deleted), run by interop/consumers/run.sh against
// cmd/sqsq with injected duplicates.
//
//   QUEUE_URL=... SQS_ENDPOINT=... LEDGER=file [MODE=idempotent] \
//   [POLLERS=2] [WORK_MS=25] node consumer_sqs_consumer.mjs
//
// POLLERS Consumer instances, each with an SQSClient of its own, as two
// instances of a scaled-out service would. Each charge appends a line
// "charge <orderId> <messageId>" to LEDGER. MODE=buggy (the default)
// charges every delivery, so a duplicate charges twice; MODE=idempotent
// charges an order once however often it is delivered (it records the
// skip as "skip <orderId> <messageId>"). Runs until SIGTERM or SIGINT, then
// lets the handlers finish (the README's graceful shutdown) and exits 0;
// 1 on an error.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { SQSClient } from "@aws-sdk/client-sqs";
import { Consumer } from "sqs-consumer";

const { QUEUE_URL, SQS_ENDPOINT, LEDGER, MODE = "buggy", POLLERS = "2", WORK_MS = "25" } = process.env;
if (!QUEUE_URL || !SQS_ENDPOINT || !LEDGER) fail("QUEUE_URL, SQS_ENDPOINT and LEDGER are required");
if (MODE !== "buggy" && MODE !== "idempotent") fail(`MODE=${MODE}: want buggy or idempotent`);

function fail(why) {
  console.error(`consumer_sqs_consumer: ${why}`);
  process.exit(1);
}

// The payment side: an append-only file, and the orders it charged (read
// back at start, so a restarted consumer stays idempotent). The check and
// the charge run with no await between them, so they are one step.
const charged = new Set();
if (existsSync(LEDGER)) {
  for (const line of readFileSync(LEDGER, "utf8").split("\n")) {
    const [kind, orderId] = line.split(" ");
    if (kind === "charge") charged.add(orderId);
  }
}
function charge(orderId, messageId) {
  const kind = MODE === "idempotent" && charged.has(orderId) ? "skip" : "charge";
  appendFileSync(LEDGER, `${kind} ${orderId} ${messageId}\n`);
  charged.add(orderId);
}

const consumers = [];
for (let i = 0; i < Number(POLLERS); i++) {
  const app = Consumer.create({
    queueUrl: QUEUE_URL,
    waitTimeSeconds: 1,
    visibilityTimeout: 30,
    pollingCompleteWaitTimeMs: 10_000, // on stop, let the last poll and handler finish
    handleMessage: async (message) => {
      const { orderId } = JSON.parse(message.Body);
      await sleep(Number(WORK_MS)); // the payment provider's round trip
      charge(orderId, message.MessageId);
      return message; // acknowledged: sqs-consumer deletes it
    },
    sqs: new SQSClient({
      region: "us-east-1",
      endpoint: SQS_ENDPOINT,
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
    }),
  });
  app.on("error", (err) => fail(`error: ${err.message}`));
  app.on("processing_error", (err) => fail(`processing error: ${err.message}`));
  consumers.push(app);
}

const shutdown = () => {
  let running = consumers.length;
  for (const app of consumers) {
    app.once("stopped", () => --running === 0 && process.exit(0));
    app.stop();
  }
};
process.once("SIGTERM", shutdown);
process.once("SIGINT", shutdown);
for (const app of consumers) app.start();
