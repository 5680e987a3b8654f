// The HTTP side of interop/consumers/run.sh, which starts and stops the
// server and the consumers: it sends orders, waits until a consumer has
// charged them all and the queue is empty, drives the seeds, and judges
// by the consumer's ledger (lines "charge <orderId> <messageId>" and
// "skip <orderId> <messageId>") and cmd/sqsq's delivery history. It talks
// to sqsq over SQS's JSON protocol and the developer API with fetch, so
// the 100-seed loop costs milliseconds a seed, not a process per request.
//
//   node harness.mjs orders --url U --queue-url Q --ledger L --pid P --orders N
//     Sends orders o-1 to o-N and waits (60 s at most) until all are
//     charged and Q holds no message, visible or in flight. P is the
//     consumer's process id: if it exits, so does this, with 1.
//   node harness.mjs seeds --url U --queue-url Q --ledger L --pid P --orders N --seeds S --rules FILE
//     For each seed 1 to S: PUT /_sqsq/api/faults (FILE's rules, that
//     seed), then orders s<seed>-o-1 to s<seed>-o-N as above (20 s each).
//   node harness.mjs buggy --url U --queue-url Q --ledger L --orders N --seed SEED --probability P
//     The buggy consumer must be caught: an order charged twice whose
//     message the history shows delivered again as an injected duplicate.
//     Prints the finding; exits 1 if there is none.
//   node harness.mjs twin --url U --queue-url Q --ledger L --orders N --seeds S
//     The idempotent twin must pass: each order s<seed>-o-<i> charged
//     exactly once, every delivery in the history handled (a charge or a
//     skip each), and at least one injected duplicate across the seeds, so
//     the twin was really tested. Prints the verdict; exits 1 if it fails.
import { existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";

const { positionals, values: opt } = parseArgs({
  allowPositionals: true,
  options: Object.fromEntries(
    ["url", "queue-url", "ledger", "pid", "orders", "seeds", "seed", "rules", "probability"].map((k) => [k, { type: "string" }]),
  ),
});
const mode = positionals[0];
const url = opt.url;
const queueUrl = opt["queue-url"];
const queue = queueUrl?.split("/").pop();

function fail(why) {
  console.error(`harness: FAIL: ${why}`);
  process.exit(1);
}

async function call(method, path, init = {}) {
  const res = await fetch(url + path, { method, ...init });
  const body = await res.text();
  if (!res.ok) fail(`${method} ${path}${init.body ? ` ${init.body}` : ""}: ${res.status} ${body}`);
  try {
    return JSON.parse(body);
  } catch {
    fail(`${method} ${path}: not JSON: ${body.slice(0, 200)}`);
  }
}

const api = (method, path, body) => call(method, `/_sqsq/api/${path}`, body === undefined ? {} : { body: JSON.stringify(body) });

// sqs calls sqsq in SQS's JSON protocol (it checks no signature).
const sqs = (action, input) =>
  call("POST", "/", {
    headers: { "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": `AmazonSQS.${action}` },
    body: JSON.stringify(input),
  });

// ledger reads the file: charges and skips as { orderId, messageId, line }.
function ledger() {
  const charges = [];
  const skips = [];
  if (!existsSync(opt.ledger)) return { charges, skips };
  // The consumer may be writing a line as we read: only lines that end in a
  // newline are whole, so the text after the last newline is left for the
  // next read.
  const lines = readFileSync(opt.ledger, "utf8").split("\n");
  lines.pop();
  lines.forEach((text, i) => {
    const [kind, orderId, messageId] = text.split(" ");
    if (kind === "charge") charges.push({ orderId, messageId, line: i + 1 });
    else if (kind === "skip") skips.push({ orderId, messageId, line: i + 1 });
    else if (text !== "") fail(`${opt.ledger}:${i + 1}: not a ledger line: ${text}`);
  });
  return { charges, skips };
}

function byOrder(charges) {
  const m = new Map();
  for (const c of charges) m.set(c.orderId, [...(m.get(c.orderId) ?? []), c]);
  return m;
}

// consume sends orders prefix1..n, then waits until each is charged and
// the queue holds no message (the last deletes done).
async function consume(prefix, n, timeoutMs) {
  for (let i = 1; i <= n; i += 10) {
    const entries = [];
    for (let j = i; j < i + 10 && j <= n; j++) {
      entries.push({ Id: String(j), MessageBody: JSON.stringify({ orderId: prefix + j, amountCents: 1000 + j }) });
    }
    const out = await sqs("SendMessageBatch", { QueueUrl: queueUrl, Entries: entries });
    if (out.Successful?.length !== entries.length) fail(`SendMessageBatch: ${JSON.stringify(out)}`);
  }
  const pid = Number(opt.pid);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const charged = new Set(ledger().charges.filter((c) => c.orderId.startsWith(prefix)).map((c) => c.orderId));
    if (charged.size === n) {
      const { Attributes: a } = await sqs("GetQueueAttributes", {
        QueueUrl: queueUrl,
        AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
      });
      if (a.ApproximateNumberOfMessages === "0" && a.ApproximateNumberOfMessagesNotVisible === "0") return;
    }
    try {
      process.kill(pid, 0);
    } catch {
      fail(`the consumer (process ${pid}) exited`);
    }
    if (Date.now() > deadline) fail(`orders ${prefix}1..${n}: ${charged.size} charged, not all charged and deleted within ${timeoutMs / 1000} s`);
    await sleep(5);
  }
}

// nanos reads an RFC 3339 instant with up to nine fractional digits, as
// nanoseconds since the first instant read (so a Number holds it exactly).
let base;
function nanos(at) {
  const m = /^(.*?:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(at);
  if (!m) fail(`history: not an RFC 3339 time: ${at}`);
  const s = Date.parse(m[1] + m[3]) / 1000;
  base ??= s;
  return (s - base) * 1e9 + Number((m[2] ?? "").padEnd(9, "0"));
}

const received = (h) => h.entries.filter((e) => e.kind === "received");

// inflightReceives counts the receives that found a message in flight,
// the ones that drew the duplicate rule (the fault delivers again only a
// message someone holds). Receives that returned nothing drew too but are
// in no history, so this is a floor.
function inflightReceives(messages) {
  const spans = messages.map((h) => {
    const gone = h.entries.find((e) => e.kind === "deleted" && e.removed);
    return { from: Math.min(...received(h).map((e) => nanos(e.at))), to: gone ? nanos(gone.at) : Infinity };
  });
  let n = 0;
  for (const h of messages) {
    for (const e of received(h)) {
      const t = nanos(e.at);
      if (spans.some((s) => s.from < t && t < s.to)) n++;
    }
  }
  return n;
}

const ordinal = (n) => {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return n + suffix;
};
const times = (n) => (n === 2 ? "twice" : `${n} times`);
const list = (xs) => (xs.length < 2 ? String(xs[0]) : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`);
const chance = (p) => (p < 1e-12 ? "below 1e-12" : p.toExponential(1));

switch (mode) {
  case "orders":
    await consume("o-", Number(opt.orders), 60_000);
    break;

  case "seeds": {
    const rules = JSON.parse(readFileSync(opt.rules, "utf8"));
    for (let seed = 1; seed <= Number(opt.seeds); seed++) {
      await api("PUT", "faults", { ...rules, seed });
      await consume(`s${seed}-o-`, Number(opt.orders), 20_000);
    }
    break;
  }

  case "buggy": {
    const orders = Number(opt.orders);
    const { charges } = ledger();
    const charged = byOrder(charges);
    for (let i = 1; i <= orders; i++) if (!charged.has(`o-${i}`)) fail(`order o-${i} was never charged`);
    // The order charged more than once first, by the line of its second charge.
    const twice = [...charged.values()].filter((cs) => cs.length > 1).sort((a, b) => a[1].line - b[1].line);
    if (twice.length === 0) {
      fail(`the buggy consumer was not caught: ${charges.length} charges for ${orders} orders, none twice (seed ${opt.seed})`);
    }
    const cs = twice[0];
    const { orderId, messageId } = cs[1];
    const path = `queues/${encodeURIComponent(queue)}/messages/${encodeURIComponent(messageId)}/history`;
    const { history } = await api("GET", path);
    const deliveries = received(history);
    const dups = deliveries.flatMap((e, i) => (e.duplicate ? [i] : []));
    if (dups.length === 0) {
      fail(`order ${orderId} was charged ${cs.length} times, but the history of message ${messageId} shows no injected duplicate: ${JSON.stringify(history)}`);
    }
    const { messages } = await api("GET", `queues/${encodeURIComponent(queue)}/history`);
    const injected = messages.reduce((n, h) => n + received(h).filter((e) => e.duplicate).length, 0);
    const k = inflightReceives(messages);
    const p = Number(opt.probability);
    const d = deliveries[dups[0]];
    const what =
      dups.length === 1
        ? `the ${ordinal(dups[0] + 1)} a duplicate delivery injected at ${d.at} (receive count ${d.receiveCount}) while the ${ordinal(dups[0])} was still in flight`
        : `the ${list(dups.map((i) => ordinal(i + 1)))} duplicate deliveries injected while an earlier one was still in flight, the first at ${d.at} (receive count ${d.receiveCount})`;
    console.log(
      `order ${orderId} charged ${times(cs.length)} (ledger lines ${list(cs.map((c) => c.line))}): its message ${history.messageId} ` +
        `was received ${times(deliveries.length)}, ${what}, and the consumer charged ${deliveries.length === 2 ? "both" : "each"} (seed ${opt.seed}). ` +
        `In all ${twice.length} of ${orders} orders were charged more than once, after ${injected} injected duplicate deliveries; ` +
        `${k} receives found a message in flight, each a duplicate decision at p=${p}: ` +
        `missing on all of them has probability ${+(1 - p).toFixed(3)}^${k}, ${chance((1 - p) ** k)}.`,
    );
    break;
  }

  case "twin": {
    const orders = Number(opt.orders);
    const seeds = Number(opt.seeds);
    const { charges, skips } = ledger();
    const charged = byOrder(charges);
    for (let s = 1; s <= seeds; s++) {
      for (let i = 1; i <= orders; i++) {
        const cs = charged.get(`s${s}-o-${i}`) ?? [];
        if (cs.length !== 1) fail(`order s${s}-o-${i} was charged ${cs.length} times (ledger lines: ${cs.map((c) => c.line).join(", ") || "none"})`);
      }
    }
    if (charged.size !== orders * seeds) fail(`${charged.size} orders charged, want ${orders * seeds}`);
    const { messages } = await api("GET", `queues/${encodeURIComponent(queue)}/history`);
    const deliveries = messages.reduce((n, h) => n + received(h).length, 0);
    if (deliveries !== charges.length + skips.length) {
      fail(`the history shows ${deliveries} deliveries, the ledger ${charges.length} charges and ${skips.length} skips: a delivery was not handled, or handled twice`);
    }
    let dups = 0;
    const seedsWithDup = new Set();
    for (const h of messages) {
      const n = received(h).filter((e) => e.duplicate).length;
      if (n > 0) {
        dups += n;
        seedsWithDup.add(/"orderId":"s(\d+)-/.exec(h.body)?.[1]);
      }
    }
    if (dups === 0) fail(`no injected duplicate in ${seeds} seeds: the twin was not tested`);
    console.log(
      `${seeds} seeds, ${orders * seeds} orders each charged exactly once; the history shows ${dups} injected duplicate ` +
        `deliveries in ${seedsWithDup.size} of the ${seeds} seeds, and the ledger a skip for each (${skips.length}).`,
    );
    break;
  }

  default:
    fail("usage: node harness.mjs orders|seeds|buggy|twin --url URL --queue-url URL --ledger FILE ...");
}
