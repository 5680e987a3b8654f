// sqsq console: hash routing (#/ and #/queues/NAME in the default namespace,
// #/ns/ACCOUNT/REGION/ and #/ns/ACCOUNT/REGION/queues/NAME in another, so a
// reload keeps the namespace), a refresh every second that updates the page
// in place (so focus, open details and screen readers are not disturbed),
// and the JSON API under /_sqsq/api/. No dependencies.

const API = '/_sqsq/api';
const PAGE_SIZE = 20;
const BODY_PREFIX = 65536; // bytes of each body the message list shows
const GO_DURATION = { '1s': '1s', '30s': '30s', '5m': '5m', '1h': '1h', '1d': '24h' };
const ADVANCE_LABEL = { '1s': '1 s', '30s': '30 s', '5m': '5 min', '1h': '1 h', '1d': '1 day' };
const STATE_LABEL = { available: 'available', inflight: 'in flight', delayed: 'delayed', held: 'held' };

const $ = (sel, root = document) => root.querySelector(sel);

const state = {
  route: { page: '', ns: null }, // ns: {account, region}, or null for the default namespace
  namespaces: [], // GET /namespaces
  queue: null,    // the summary of the queue page's queue
  cursors: [''],  // cursors of the message pages up to the current one
  nextCursor: '',
  errorFrom: '',  // 'poll' or 'action': what showed the error
  faultsServed: true, // false once GET /faults answered 404: the server has no fault rules
};

// h builds an element: attributes, then children (strings, nodes; null skipped).
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined && v !== false) el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c !== null && c !== undefined) el.append(c);
  }
  return el;
}

// setText changes an element's text only when it differs, so that live
// regions announce changes and nothing else.
function setText(el, text) {
  text = String(text);
  if (el.textContent !== text) el.textContent = text;
}

// api calls the JSON API and returns its answer, or throws an Error with
// the server's code and message.
async function api(method, path, body) {
  const ns = state.route.ns;
  if (ns && path.startsWith('/queues')) {
    // Every queue endpoint takes the namespace; the default needs none.
    path += (path.includes('?') ? '&' : '?') + new URLSearchParams({ account: ns.account, region: ns.region });
  }
  const opts = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const resp = await fetch(API + path, opts);
  const text = await resp.text();
  let data = null;
  try { data = JSON.parse(text); } catch { /* not JSON: a proxy's page, say */ }
  if (!resp.ok) {
    const msg = data && data.error ? `${data.code}: ${data.error}` : `HTTP ${resp.status} ${text.slice(0, 200)}`;
    throw Object.assign(new Error(msg), { status: resp.status });
  }
  return data;
}

// Formatting.

function duration(ms) {
  let s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const d = Math.floor(s / 86400), hrs = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
  s %= 60;
  if (d > 0) return `${d}d ${hrs}h`;
  if (hrs > 0) return `${hrs}h ${m}m`;
  return `${m}m ${s}s`;
}

function clockText(iso) {
  return iso.replace('T', ' ').replace(/\.\d+/, '').replace('Z', ' UTC');
}

function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  return `${(bytes / 1024).toFixed(bytes < 10240 ? 1 : 0)} KiB`;
}

function nameOfArn(arn) {
  return arn.split(':').pop();
}

// prettyBody pretty-prints a JSON body, and shows any other as it is.
function prettyBody(m) {
  if (!m.bodyTruncated && /^\s*[[{]/.test(m.body)) {
    try { return JSON.stringify(JSON.parse(m.body), null, 2); } catch { /* not JSON after all */ }
  }
  return m.body;
}

// nsPath is the start of the hash routes of namespace ns (null: the default).
function nsPath(ns) {
  return ns ? `#/ns/${encodeURIComponent(ns.account)}/${encodeURIComponent(ns.region)}` : '#';
}

function queueHref(name, ns = state.route.ns) {
  return `${nsPath(ns)}/queues/${encodeURIComponent(name)}`;
}

function listHref(ns = state.route.ns) {
  return `${nsPath(ns)}/`;
}

function nsKey(ns) {
  return ns ? `${ns.account}/${ns.region}` : '';
}

// shortId is the start of a message id, which the message list shows; the
// whole id is in its title and in the message's details.
function shortId(id) {
  return id.length > 12 ? id.slice(0, 8) + '…' : id;
}

// Status and errors.

function setStatus(msg) {
  setText($('#status'), msg);
}

function showError(msg, from) {
  const el = $('#error');
  if (!msg) {
    if (from === 'action' || state.errorFrom === from) {
      el.hidden = true;
      setText(el, '');
    }
    return;
  }
  state.errorFrom = from;
  setText(el, msg);
  el.hidden = false;
}

// act runs a user's action: its outcome goes to #status, its error to
// #error; then the page refreshes.
async function act(button, fn) {
  if (button) button.disabled = true;
  try {
    const msg = await fn();
    showError('', 'action');
    setStatus(msg);
  } catch (e) {
    setStatus('');
    showError(e.message, 'action');
  } finally {
    if (button) button.disabled = false;
  }
  await refresh();
}

// Keyed rows: syncRows makes tbody's rows those of items, in order, reusing
// the row of each key so that an update changes only what changed.
function syncRows(tbody, items, keyAttr, keyOf, create, update) {
  const old = new Map([...tbody.children].map((tr) => [tr.getAttribute(keyAttr), tr]));
  let prev = null;
  for (const item of items) {
    const key = keyOf(item);
    let tr = old.get(key);
    if (tr) old.delete(key); else tr = create(item);
    update(tr, item);
    const want = prev ? prev.nextSibling : tbody.firstChild;
    if (tr !== want) tbody.insertBefore(tr, want);
    prev = tr;
  }
  for (const tr of old.values()) tr.remove();
}

// setLinks fills el with links to the queues refs (a dead-letter queue or
// sources), rebuilding it only when they change.
function setLinks(el, refs, attr) {
  const key = JSON.stringify(refs);
  if (el.dataset.key === key) return;
  el.dataset.key = key;
  const parts = [];
  refs.forEach((r, i) => {
    if (i > 0) parts.push(', ');
    if (!r.url) parts.push(h('span', { [attr]: r.name }, `${r.name} (does not exist)`));
    else if (r.local) parts.push(h('a', { href: queueHref(r.name), title: r.url, [attr]: r.name }, r.name));
    else {
      // A queue of another namespace: its link opens it there.
      parts.push(h('a', { href: queueHref(r.name, { account: r.account, region: r.region }), title: r.url, [attr]: r.name },
        `${r.name} (${r.region}, ${r.account})`));
    }
  });
  el.replaceChildren(...parts);
}

// The clock.

async function loadClock() {
  const c = await api('GET', '/clock');
  setText($('#clock-mode'), c.virtual ? 'virtual' : 'real');
  setText($('#clock-now'), clockText(c.now));
  $('#clock-now').setAttribute('datetime', c.now);
  $('#clock-advance').hidden = !c.virtual;
}

// The namespaces: a picker, shown when the endpoint has more than one.

async function loadNamespaces() {
  const data = await api('GET', '/namespaces');
  state.namespaces = data.namespaces;
  const cur = state.route.ns;
  const def = data.namespaces.find((n) => n.default);
  const current = cur ? `${cur.account}/${cur.region}` : (def ? `${def.account}/${def.region}` : '');
  const items = data.namespaces.map((n) => ({ key: `${n.account}/${n.region}`, n }));
  if (cur && !items.some((it) => it.key === current)) {
    items.push({ key: current, n: { account: cur.account, region: cur.region, queues: 0, default: false } });
  }
  const sel = $('#namespace');
  const key = JSON.stringify(items);
  if (sel.dataset.key !== key) {
    sel.dataset.key = key;
    sel.replaceChildren(...items.map(({ key: k, n }) => h('option', { value: k, 'data-default': n.default ? 'true' : null },
      `${n.region}, account ${n.account}${n.default ? ' (default)' : ''}: ${n.queues} queue${n.queues === 1 ? '' : 's'}`)));
  }
  if (sel.value !== current && document.activeElement !== sel) sel.value = current;
  $('#namespace-picker').hidden = items.length <= 1;
  setText($('#queues-ns'), current.replace('/', ', region '));
}

function chooseNamespace() {
  const opt = $('#namespace').selectedOptions[0];
  if (!opt) return;
  const [account, region] = opt.value.split('/');
  location.hash = listHref(opt.dataset.default ? null : { account, region });
}

// The queues page.

function queueRow(q) {
  return h('tr', { 'data-queue': q.name },
    h('td', {}, h('a', { href: queueHref(q.name), 'data-queue-link': true }, q.name)),
    h('td', { 'data-type': true }),
    h('td', { 'data-count': 'available' }),
    h('td', { 'data-count': 'inflight' }),
    h('td', { 'data-count': 'delayed' }),
    h('td', { 'data-oldest': true }),
    h('td', { 'data-dlq': true }),
    h('td', { 'data-sources': true }));
}

// oldest is the age of q's oldest message, 0s for one just sent, and '–'
// when there is none.
function oldest(q) {
  return q.counts.available + q.counts.inflight + q.counts.delayed > 0 ? duration(q.oldestAgeMs) : '–';
}

function updateQueueRow(tr, q) {
  setText($('[data-type]', tr), q.fifo ? 'FIFO' : 'Standard');
  setText($('[data-count="available"]', tr), q.counts.available);
  setText($('[data-count="inflight"]', tr), q.counts.inflight);
  setText($('[data-count="delayed"]', tr), q.counts.delayed);
  setText($('[data-oldest]', tr), oldest(q));
  setLinks($('[data-dlq]', tr), q.deadLetterQueue ? [q.deadLetterQueue] : [], 'data-dlq-link');
  setLinks($('[data-sources]', tr), q.sources, 'data-source-link');
}

async function loadQueues() {
  const data = await api('GET', '/queues?attributes=false'); // the list shows none
  if (state.route.page !== 'queues') return;
  syncRows($('#queues-table tbody'), data.queues, 'data-queue', (q) => q.name, queueRow, updateQueueRow);
  $('#queues-empty').hidden = data.queues.length > 0;
  const others = state.namespaces.filter((n) => n.queues > 0 && nsKey(n) !== nsKey(state.route.ns ?? state.namespaces.find((d) => d.default)));
  setText($('#queues-empty'), others.length > 0
    ? `No queues in this namespace. ${others.map((n) => `${n.region} (account ${n.account})`).join(', ')} ${others.length === 1 ? 'has' : 'have'} some: choose it above.`
    : 'No queues yet.');
}

// The fault rules in force (GET /faults, served when the server injects
// faults): one line per rule, above the queue list.

function percent(p) {
  return `${+(p * 100).toFixed(2)}%`;
}

function ruleText(r) {
  const where = [r.operation || 'every operation'];
  if (r.queue) where.push(`on ${r.queue}`);
  if (r.account) where.push(`of account ${r.account}`);
  if (r.region) where.push(`in ${r.region}`);
  const what = [];
  if (r.fault) what.push(r.fault);
  if (r.error) what.push(`error ${r.error.code ?? ''}${r.error.statusCode ? ` (HTTP ${r.error.statusCode})` : ''}`);
  if (r.latencyMs) what.push(`latency ${r.latencyMs} ms`);
  const known = new Set(['operation', 'queue', 'account', 'region', 'probability', 'fault', 'error', 'latencyMs']);
  for (const [k, v] of Object.entries(r)) {
    if (!known.has(k) && v !== '' && v !== null && v !== undefined && v !== false) what.push(`${k} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  }
  const p = r.probability ?? 1;
  return `${where.join(' ')}: ${what.join(', ') || 'nothing'}, ${p >= 1 ? 'always' : `${percent(p)} of calls`}`;
}

async function loadFaults() {
  const panel = $('#faults-panel');
  if (!state.faultsServed) return;
  let data;
  try {
    data = await api('GET', '/faults');
  } catch (e) {
    if (e.status === 404) state.faultsServed = false; // not served: ask no more
    panel.hidden = true;
    return;
  }
  const rules = (data && data.rules) || [];
  panel.hidden = rules.length === 0;
  const key = JSON.stringify(data);
  if (panel.dataset.key === key) return;
  panel.dataset.key = key;
  setText($('#faults-seed'), data.seed !== undefined && data.seed !== null ? `Seed ${data.seed}: the same calls draw the same faults.` : '');
  $('#faults-rules').replaceChildren(...rules.map((r) => h('li', { 'data-fault-rule': true }, ruleText(r))));
}

// A message's delivery history (GET …/messages/ID/history): one line per
// entry, the faults injected marked.

// timeOfDay is the time of an RFC 3339 instant, with its milliseconds when
// it has any: "21:00:30" or "21:00:30.250".
function timeOfDay(iso) {
  const m = iso.match(/T(\d\d:\d\d:\d\d)(?:\.(\d{1,3}))?/);
  if (!m) return iso;
  return m[2] && Number(m[2]) !== 0 ? `${m[1]}.${m[2].padEnd(3, '0')}` : m[1];
}

// span is a duration in milliseconds, exact below a second.
function span(ms) {
  return ms > 0 && ms < 1000 ? `${ms} ms` : duration(ms);
}

function fault(text) {
  return h('mark', { class: 'fault', 'data-fault': true }, text);
}

// entryParts is what a history entry says, after its time: text and marks.
function entryParts(e, queue) {
  const parts = [];
  const handle = e.receiptHandle ? h('span', { class: 'handle', title: `receipt handle ${e.receiptHandle}` }, ` handle …${e.receiptHandle.slice(-6)}`) : null;
  const failed = e.error && !e.applied; // an error with the call applied is a lost response
  switch (e.kind) {
    case 'sent':
      parts.push('sent', e.delayMs ? ` with a delay of ${span(e.delayMs)}` : '');
      break;
    case 'received':
    case 'receiveLost':
      parts.push(`received (receive ${e.receiveCount})`, e.timeoutMs ? `, hidden for ${span(e.timeoutMs)}` : '', handle);
      if (e.duplicate) parts.push(' ', fault('duplicate (injected)'));
      if (e.endsEarlyMs) parts.push(' ', fault(`visibility ended early after ${span(e.endsEarlyMs)} (injected)`));
      if (e.kind === 'receiveLost') parts.push(' ', fault('response lost (injected): the consumer never saw it'));
      break;
    case 'visibilityChanged':
      parts.push(failed ? `visibility change to ${span(e.timeoutMs ?? 0)} failed` : `visibility set to ${span(e.timeoutMs ?? 0)}`, handle);
      break;
    case 'deleted':
      parts.push(failed ? 'delete failed' : e.removed ? 'deleted' : 'deleted: removed nothing (stale handle, or already gone)', handle);
      break;
    case 'deadLettered':
      parts.push(`moved to the dead-letter queue ${e.deadLetterQueue} (receive ${e.receiveCount})`);
      break;
    case 'redriven':
      parts.push(e.fromMessageId ? `redriven here from message ${e.fromMessageId}` : `redriven to ${e.destination} as message ${e.newMessageId}`);
      break;
    default:
      parts.push(e.kind);
  }
  if (e.error) {
    const lost = e.injected && e.applied;
    const text = lost ? `response lost (injected): ${e.error}, but applied` : `${e.error}${e.injected ? ' (injected)' : ''}`;
    parts.push(' ', e.injected ? fault(text) : h('span', { class: 'error-code' }, text));
  }
  if (e.queue && e.queue !== queue) parts.push(h('span', { class: 'muted-inline' }, ` on ${e.queue}`));
  return parts;
}

function renderHistory(box, hist) {
  const queue = state.route.name;
  const items = [];
  hist.entries.forEach((e, i) => {
    if (i === 1 && hist.dropped > 0) {
      items.push(h('li', { class: 'muted-inline', 'data-dropped': hist.dropped }, `… ${hist.dropped} older entr${hist.dropped === 1 ? 'y' : 'ies'} dropped`));
    }
    items.push(h('li', { 'data-kind': e.kind, 'data-injected': e.injected || e.duplicate || e.endsEarlyMs > 0 ? 'true' : null },
      h('time', { datetime: e.at, title: clockText(e.at) }, timeOfDay(e.at)), ' ', entryParts(e, queue)));
  });
  box.replaceChildren(h('ol', { class: 'history-list' }, items));
}

// showHistory fetches a message's history into its details; again on each
// click, for what happened since.
async function showHistory(button) {
  const id = button.dataset.history;
  const box = $(`[data-history-of="${CSS.escape(id)}"]`, button.closest('details'));
  button.disabled = true;
  try {
    const data = await api('GET', `${queuePath()}/messages/${encodeURIComponent(id)}/history`);
    renderHistory(box, data.history);
  } catch (e) {
    box.replaceChildren(h('p', { class: 'muted-inline', 'data-history-error': true }, e.message));
  } finally {
    box.hidden = false;
    button.disabled = false;
    setText(button, 'Refresh history');
  }
}

// The queue page.

function messageRow(m) {
  const attrs = Object.entries(m.messageAttributes).sort(([a], [b]) => (a < b ? -1 : 1));
  const preview = m.body.length > 60 ? m.body.slice(0, 60) + '…' : m.body;
  return h('tr', { 'data-message-id': m.messageId },
    h('td', { class: 'mono' },
      h('div', { class: 'msg-id', title: m.messageId }, shortId(m.messageId)),
      m.groupId ? h('div', {}, `group ${m.groupId}, #${m.sequenceNumber}`) : null,
      m.deadLetterSourceArn ? h('div', {}, `from ${nameOfArn(m.deadLetterSourceArn)}`) : null),
    h('td', { 'data-state': m.state }),
    h('td', { 'data-time-left': true }),
    h('td', { 'data-receive-count': true }),
    h('td', {}, h('time', { datetime: m.sentAt }, clockText(m.sentAt))),
    h('td', {},
      h('details', {},
        h('summary', {}, `${preview} (${size(m.bodySize)}${m.bodyTruncated ? ', first part shown' : ''}` +
          `${attrs.length ? `, ${attrs.length} attribute${attrs.length > 1 ? 's' : ''}` : ''})`),
        h('p', { class: 'mono' }, `Message id ${m.messageId}`),
        h('pre', { 'data-body': true }, prettyBody(m)),
        m.bodyTruncated ? h('button', { type: 'button', 'data-show-all': m.messageId }, `Show all ${size(m.bodySize)}`) : null,
        attrs.length === 0 ? null : h('dl', { 'data-attributes': true }, attrs.map(([name, a]) => [
          h('dt', {}, `${name} (${a.dataType})`),
          h('dd', { class: 'mono' }, a.binaryValue !== undefined ? `base64: ${a.binaryValue}` : a.stringValue ?? ''),
        ])),
        h('button', { type: 'button', 'data-history': m.messageId, 'aria-label': `History of message ${m.messageId}` }, 'History'),
        h('div', { class: 'history', 'data-history-of': m.messageId, 'aria-live': 'polite', hidden: true }))),
    h('td', { class: 'actions' },
      h('button', { type: 'button', 'data-delete': m.messageId, 'aria-label': `Delete message ${m.messageId}` }, 'Delete'),
      h('span', { 'data-delete-ask': m.messageId, hidden: true },
        h('button', { type: 'button', class: 'danger', 'data-delete-confirm': m.messageId, 'aria-label': `Confirm: delete message ${m.messageId}` }, 'Confirm delete'),
        h('button', { type: 'button', 'data-delete-cancel': m.messageId }, 'Cancel'))));
}

function updateMessageRow(tr, m) {
  const st = $('[data-state]', tr);
  if (st.dataset.state !== m.state) st.dataset.state = m.state;
  setText(st, STATE_LABEL[m.state] ?? m.state);
  setText($('[data-time-left]', tr), m.until ? duration(m.timeLeftMs) : '');
  setText($('[data-receive-count]', tr), m.receiveCount);
}

function renderQueue(q) {
  const first = !state.queue || state.queue.name !== q.name;
  state.queue = q;
  setText($('#queue-title'), q.name);
  setText($('#queue-type'), q.fifo ? 'FIFO' : 'Standard');
  setText($('#queue-url'), q.url);
  setText($('#queue-arn'), q.arn);
  for (const k of ['available', 'inflight', 'delayed']) setText($(`#queue-counts [data-count="${k}"]`), q.counts[k]);
  setText($('#queue-counts [data-oldest]'), oldest(q));
  const dlq = $('#queue-dlq');
  dlq.hidden = !q.deadLetterQueue;
  if (q.deadLetterQueue) {
    const key = JSON.stringify(q.deadLetterQueue);
    if (dlq.dataset.key !== key) {
      dlq.dataset.key = key;
      const link = h('span');
      setLinks(link, [q.deadLetterQueue], 'data-dlq-link');
      dlq.replaceChildren('Dead-letter queue: ', link, ` (after ${q.deadLetterQueue.maxReceiveCount} receives)`);
    }
  }
  $('#dlq-section').hidden = q.sources.length === 0;
  const items = $('#sources');
  const key = JSON.stringify(q.sources);
  if (items.dataset.key !== key) {
    items.dataset.key = key;
    items.replaceChildren(...q.sources.map((r) => {
      const li = h('li');
      setLinks(li, [r], 'data-source-link');
      return li;
    }));
  }
  if (first) {
    $('#send-fifo-fields').hidden = !q.fifo;
    $('#send-delay-field').hidden = q.fifo;
  }
}

function renderMessages(page) {
  syncRows($('#messages-table tbody'), page.messages, 'data-message-id', (m) => m.messageId, messageRow, updateMessageRow);
  $('#messages-empty').hidden = page.messages.length > 0;
  setText($('#messages-empty'), page.nextCursor ? 'No message on this page; the next page may have some.' : 'No message.');
  state.nextCursor = page.nextCursor;
  $('#messages-next').disabled = !page.nextCursor;
  $('#messages-first').disabled = state.cursors.length <= 1;
}

function renderTasks(tasks) {
  const tbody = $('#tasks-table tbody');
  const key = JSON.stringify(tasks);
  if (tbody.dataset.key === key) return;
  tbody.dataset.key = key;
  tbody.replaceChildren(...tasks.map((t) => {
    const moved = t.approximateNumberOfMessagesMoved, toMove = t.approximateNumberOfMessagesToMove;
    return h('tr', { 'data-task-status': t.status },
      h('td', {}, t.status, t.failureReason ? ` (${t.failureReason})` : ''),
      h('td', { 'data-task-progress': true },
        h('progress', { max: Math.max(toMove, 1), value: toMove ? moved : 1, 'aria-label': 'Progress' }), ` ${moved} / ${toMove}`),
      h('td', {}, t.maxNumberOfMessagesPerSecond ? `${t.maxNumberOfMessagesPerSecond}/s` : '500/s'),
      h('td', { class: 'mono' }, t.destinationArn ? nameOfArn(t.destinationArn) : 'each source'),
      h('td', {}, clockText(t.startedAt)));
  }));
}

async function loadQueuePage() {
  const name = state.route.name, path = `/queues/${encodeURIComponent(name)}`;
  const params = new URLSearchParams({ limit: PAGE_SIZE, bodyPrefix: BODY_PREFIX });
  const cursor = state.cursors[state.cursors.length - 1];
  if (cursor) params.set('cursor', cursor);
  if ($('#filter-state').value) params.set('state', $('#filter-state').value);
  if ($('#filter-group').value) params.set('group', $('#filter-group').value);
  const [q, page] = await Promise.all([api('GET', path), api('GET', `${path}/messages?${params}`)]);
  const tasks = q.sources.length > 0 ? await api('GET', `${path}/tasks`) : null;
  if (state.route.name !== name) return; // the user went elsewhere meanwhile
  renderQueue(q);
  renderMessages(page);
  if (tasks) renderTasks(tasks.tasks);
}

// Refreshing: one refresh at a time; a request for another meanwhile runs
// one more when it ends.

let refreshing = null;
let again = false;

function refresh() {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    try {
      // The namespaces first: the queue list's empty text names them.
      await Promise.all([loadClock(), loadNamespaces()]);
      await (state.route.page === 'queue' ? loadQueuePage() : Promise.all([loadQueues(), loadFaults()]));
      showError('', 'poll');
    } catch (e) {
      showError(e.message, 'poll');
    }
  })().finally(() => {
    refreshing = null;
    if (again) {
      again = false;
      refresh();
    }
  });
  return refreshing;
}

function poll() {
  if (!document.hidden) refresh();
  setTimeout(poll, 1000);
}

// Routing.

function route() {
  const m = location.hash.match(/^#(?:\/ns\/([^/]+)\/([^/]+))?(?:\/queues\/([^/]+))?\/?$/);
  const ns = m && m[1] ? { account: decodeURIComponent(m[1]), region: decodeURIComponent(m[2]) } : null;
  const next = m && m[3] ? { page: 'queue', name: decodeURIComponent(m[3]), ns } : { page: 'queues', ns };
  const changed = next.page !== state.route.page || next.name !== state.route.name || nsKey(next.ns) !== nsKey(state.route.ns);
  const initial = state.route.page === '';
  state.route = next;
  $('#queues-page').hidden = next.page !== 'queues';
  $('#queue-page').hidden = next.page !== 'queue';
  if (changed) {
    state.queue = null;
    state.cursors = [''];
    askPurge(false);
    $('#home-link').setAttribute('href', listHref());
    $('#queue-dlq').dataset.key = '';
    $('#sources').dataset.key = '';
    $('#back-link').setAttribute('href', listHref());
    $('#queues-table tbody').replaceChildren();
    $('#messages-table tbody').replaceChildren();
    $('#tasks-table tbody').replaceChildren();
    $('#tasks-table tbody').dataset.key = '';
    $('#filter-state').value = '';
    $('#filter-group').value = '';
    setText($('#queue-title'), next.name ?? '');
    document.title = next.page === 'queue' ? `${next.name} – sqsq console` : 'sqsq console';
    if (!initial) $(next.page === 'queue' ? '#queue-title' : '#queues-heading').focus();
  }
  refresh();
}

// The forms and buttons.

function buildAttributeRows() {
  const fs = $('#send-attrs');
  for (let n = 1; n <= 3; n++) {
    fs.append(h('div', { class: 'attr-row' },
      h('label', { for: `send-attr-name-${n}`, class: 'sr-only' }, `Attribute ${n} name`),
      h('input', { id: `send-attr-name-${n}`, placeholder: `attribute ${n} name`, autocomplete: 'off' }),
      h('label', { for: `send-attr-type-${n}`, class: 'sr-only' }, `Attribute ${n} type`),
      h('select', { id: `send-attr-type-${n}` }, ['String', 'Number', 'Binary'].map((t) => h('option', { value: t }, t))),
      h('label', { for: `send-attr-value-${n}`, class: 'sr-only' }, `Attribute ${n} value`),
      h('input', { id: `send-attr-value-${n}`, placeholder: 'value', autocomplete: 'off' })));
  }
}

function sendBody() {
  const body = { body: $('#send-body').value, messageAttributes: {} };
  if (state.queue && state.queue.fifo) {
    body.groupId = $('#send-group').value;
    body.deduplicationId = $('#send-dedup').value;
  } else if ($('#send-delay').value !== '') {
    body.delaySeconds = Number($('#send-delay').value);
  }
  for (let n = 1; n <= 3; n++) {
    const name = $(`#send-attr-name-${n}`).value.trim();
    if (!name) continue;
    const type = $(`#send-attr-type-${n}`).value, value = $(`#send-attr-value-${n}`).value;
    body.messageAttributes[name] = type === 'Binary' ? { dataType: type, binaryValue: value } : { dataType: type, stringValue: value };
  }
  return body;
}

// askPurge shows (or hides) the purge confirmation.
function askPurge(ask) {
  $('#purge').hidden = ask;
  $('#purge-ask').hidden = !ask;
  if (ask) {
    setText($('#purge-question'), `Delete every message of ${state.route.name}?`);
    $('#purge-cancel').focus();
  }
}

// askDelete shows (or hides) a message's delete confirmation, in its cell.
function askDelete(td, ask) {
  $('button[data-delete]', td).hidden = ask;
  $('[data-delete-ask]', td).hidden = !ask;
  $(ask ? 'button[data-delete-cancel]' : 'button[data-delete]', td).focus();
}

// showAll replaces a body cut at BODY_PREFIX by the whole body, fetched for
// this one message.
async function showAll(button) {
  const id = button.dataset.showAll;
  button.disabled = true;
  try {
    const m = await api('GET', `${queuePath()}/messages/${encodeURIComponent(id)}`);
    setText($('pre[data-body]', button.closest('details')), prettyBody(m));
    button.remove();
    showError('', 'action');
  } catch (e) {
    button.disabled = false;
    showError(e.message, 'action');
  }
}

function queuePath() {
  return `/queues/${encodeURIComponent(state.route.name)}`;
}

function wire() {
  buildAttributeRows();
  $('#create-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const name = $('#create-name').value.trim(), fifo = $('#create-fifo').checked;
    act($('#create-submit'), async () => {
      await api('POST', '/queues', { name, fifo });
      $('#create-form').reset();
      return `Created queue ${name}.`;
    });
  });
  $('#send-form').addEventListener('submit', (e) => {
    e.preventDefault();
    act($('#send-submit'), async () => {
      const res = await api('POST', `${queuePath()}/messages`, sendBody());
      $('#send-body').value = '';
      return `Sent message ${res.messageId}.`;
    });
  });
  // Purge and delete ask first, in the page: a second button confirms.
  $('#purge').addEventListener('click', () => askPurge(true));
  $('#purge-cancel').addEventListener('click', () => askPurge(false));
  $('#purge-confirm').addEventListener('click', (e) => act(e.currentTarget, async () => {
    askPurge(false);
    await api('POST', `${queuePath()}/purge`);
    return `Purged ${state.route.name}.`;
  }));
  $('#namespace').addEventListener('change', chooseNamespace);
  $('#redrive-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const body = {};
    if ($('#redrive-rate').value !== '') body.rate = Number($('#redrive-rate').value);
    if ($('#redrive-dest').value.trim()) body.destinationArn = $('#redrive-dest').value.trim();
    act($('#redrive-submit'), async () => {
      await api('POST', `${queuePath()}/redrive`, body);
      return `Started a redrive of ${state.route.name}.`;
    });
  });
  $('#messages-next').addEventListener('click', () => {
    if (!state.nextCursor) return;
    state.cursors.push(state.nextCursor);
    refresh();
  });
  $('#messages-first').addEventListener('click', () => {
    state.cursors = [''];
    refresh();
  });
  for (const id of ['#filter-state', '#filter-group']) {
    $(id).addEventListener('change', () => {
      state.cursors = [''];
      refresh();
    });
  }
  document.addEventListener('click', (e) => {
    const adv = e.target.closest('button[data-advance]');
    if (adv) {
      const d = adv.dataset.advance;
      act(adv, async () => {
        await api('POST', '/clock/advance', { duration: GO_DURATION[d] });
        return `Advanced the clock by ${ADVANCE_LABEL[d]}.`;
      });
    }
    const del = e.target.closest('button[data-delete]');
    if (del) askDelete(del.closest('td'), true);
    const cancel = e.target.closest('button[data-delete-cancel]');
    if (cancel) askDelete(cancel.closest('td'), false);
    const confirmDel = e.target.closest('button[data-delete-confirm]');
    if (confirmDel) {
      const id = confirmDel.dataset.deleteConfirm;
      act(confirmDel, async () => {
        await api('DELETE', `${queuePath()}/messages/${encodeURIComponent(id)}`);
        return `Deleted message ${id}.`;
      });
    }
    const all = e.target.closest('button[data-show-all]');
    if (all) showAll(all);
    const hist = e.target.closest('button[data-history]');
    if (hist) showHistory(hist);
  });
  window.addEventListener('hashchange', route);
}

wire();
route();
setTimeout(poll, 1000);
