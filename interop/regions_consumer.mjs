// sqs-consumer's minimal example, as its README gives it, with no region
// configured: it builds its own SQS client (region AWS_REGION, else
// eu-west-1) and sends to the queue URL's host. interop/regions.sh runs it
// with QUEUE_URL, a us-east-1 queue holding two messages; it exits 0 once
// both are handled, 1 on an error or after 20 s.
import { Consumer } from "sqs-consumer";

const want = new Set(["from-cli", "from-boto3"]);
const app = Consumer.create({
  queueUrl: process.env.QUEUE_URL,
  handleMessage: async (message) => {
    want.delete(message.Body);
    if (want.size === 0) {
      app.stop();
      clearTimeout(timer);
    }
  },
});
const fail = (what, err) => {
  console.error(`sqs-consumer: ${what}:`, err?.message ?? err);
  process.exit(1);
};
app.on("error", (err) => fail("error", err));
app.on("processing_error", (err) => fail("processing error", err));
const timer = setTimeout(() => fail("timeout", `still waiting for ${[...want]}`), 20_000);
app.start();
