// Interoperability test: the AWS SDK for JavaScript v3 (@aws-sdk/client-sqs,
// which speaks the AWS JSON 1.0 protocol) drives cmd/sqsq in virtual-clock
// mode. Run with `bash interop/run.sh` (npm ci && node --test), which also
// runs realclock.test.mjs: the clock-free cases of shared.mjs against the
// real clock.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  SendMessageCommand,
  ReceiveMessageCommand,
  ChangeMessageVisibilityCommand,
  StartMessageMoveTaskCommand,
  ListMessageMoveTasksCommand,
  ListDeadLetterSourceQueuesCommand,
  SetQueueAttributesCommand,
  TagQueueCommand,
  UntagQueueCommand,
  AddPermissionCommand,
  RemovePermissionCommand,
  DeleteMessageCommand,
  PurgeQueueCommand,
  DeleteQueueCommand,
} from "@aws-sdk/client-sqs";
import { useServer, clockCases } from "./shared.mjs";

const env = useServer(["-clock", "virtual"]);
env.now = async () => (await env.admin("GET", "/_sqsq/clock")).unixMillis; // stands still
const advance = (duration) => env.admin("POST", "/_sqsq/clock/advance", { duration });

clockCases(env, "virtual");

test("change visibility on the virtual clock", async () => {
  const { sqs } = env;
  const QueueUrl = await env.createQueue("js-visibility", { VisibilityTimeout: "30" });
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "v" }));
  const first = (await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages[0];
  assert.deepEqual(await env.counts(QueueUrl), [0, 1]);

  await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: first.ReceiptHandle, VisibilityTimeout: 120 }));
  await advance("119s");
  assert.equal((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages, undefined, "hidden until 120 s");
  await advance("1s");
  const second = (await sqs.send(new ReceiveMessageCommand({ QueueUrl, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }))).Messages[0];
  assert.equal(second.Attributes.ApproximateReceiveCount, "2");
});

test("a long poll parks on the virtual clock", async () => {
  const { sqs } = env;
  const QueueUrl = await env.createQueue("js-longpoll");
  const polling = sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }));
  assert.equal((await env.admin("GET", "/_sqsq/queues/js-longpoll/receivers?atLeast=1")).parked, 1);
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "wake" }));
  const { Messages } = await polling;
  assert.equal(Messages[0].Body, "wake", "a send wakes the parked receive");
});

test("FIFO queue: the deduplication window ends after 5 minutes", async () => {
  const { sqs } = env;
  const QueueUrl = await env.createQueue("js-window.fifo", { FifoQueue: "true" });
  const first = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "1", MessageGroupId: "g", MessageDeduplicationId: "a" }));
  assert.equal((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages[0].Body, "1");
  await advance("6m"); // past the visibility timeout and the dedup window
  const later = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "1 later", MessageGroupId: "h", MessageDeduplicationId: "a" }));
  assert.notEqual(later.MessageId, first.MessageId, "the id is new after the window");
  assert.deepEqual(await env.counts(QueueUrl), [2, 0], "one back from flight, one new after the window");
});

test("dead-letter queue: redrive policy and a move task", async () => {
  const { sqs } = env;
  const dlq = await env.createQueue("js-dlq");
  const dlqArn = await env.arnOf(dlq);
  const src = await env.createQueue("js-src", {
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
  assert.equal(dead.Attributes.DeadLetterQueueSourceArn, await env.arnOf(src));

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
  assert.deepEqual(await env.counts(dlq), [0, 0]);
});

test("operations without output members answer with an empty body", async () => {
  // AWS answers them with a 200 and no body at all, not {}: the SDK must
  // take that as success (and the raw response must be empty).
  const { sqs } = env;
  const QueueUrl = await env.createQueue("js-empty-outputs");
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "x" }));
  const { ReceiptHandle } = (await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages[0];
  const commands = [
    new SetQueueAttributesCommand({ QueueUrl, Attributes: { DelaySeconds: "1" } }),
    new TagQueueCommand({ QueueUrl, Tags: { a: "b" } }),
    new UntagQueueCommand({ QueueUrl, TagKeys: ["a"] }),
    new AddPermissionCommand({ QueueUrl, Label: "l", AWSAccountIds: ["111122223333"], Actions: ["SendMessage"] }),
    new RemovePermissionCommand({ QueueUrl, Label: "l" }),
    new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle, VisibilityTimeout: 60 }),
    new DeleteMessageCommand({ QueueUrl, ReceiptHandle }),
    new PurgeQueueCommand({ QueueUrl }),
    new DeleteQueueCommand({ QueueUrl }),
  ];
  for (const command of commands) {
    const { $metadata, ...rest } = await sqs.send(command);
    assert.equal($metadata.httpStatusCode, 200, command.constructor.name);
    assert.ok($metadata.requestId, `${command.constructor.name}: the request id survives`);
    assert.deepEqual(rest, {}, command.constructor.name);
  }
  const raw = await fetch(env.baseURL, {
    method: "POST",
    headers: { "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.TagQueue" },
    body: JSON.stringify({ QueueUrl: await env.createQueue("js-empty-raw"), Tags: { a: "b" } }),
  });
  assert.equal(raw.status, 200);
  assert.equal(await raw.text(), "", "the body is empty");
});
