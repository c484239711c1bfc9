// The operator dashboard: one page, routed by the URL fragment (#/checkouts, #/checkout/<id>, #/money,
// #/processors). It reads /dashboard/api/* with the session cookie and sends the CSRF token on every POST.
// Data regions refresh every POLL_MS (short polling); forms the operator is typing in are never redrawn.

const POLL_MS = 2000;
const STATES = ['created', 'stock_reserved', 'payment_authorized', 'payment_unknown', 'reconciliation_pending',
    'confirmed', 'capture_pending', 'awaiting_capture', 'completed', 'payment_declined', 'manual_review', 'void_pending', 'refund_requested',
    'refund_confirmed', 'stock_release_pending', 'cancellation_notice_pending', 'cancelled'];

let me = null;
let timer = null;
let listCursorStack = [];   // cursors of the pages before the current one
let listCursor = null;

const $ = (sel, root = document) => root.querySelector(sel);
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));
const money = (minor, cur) => minor == null ? '' : `${(minor / 100).toFixed(2)} ${esc(cur ?? '')}`;
const dur = (s) => {
    if (s == null) return '';
    s = Math.max(0, Math.round(s)); // the same words as the server's durations: 1 min 15 s
    if (s < 60) return `${s} s`;
    if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
    if (s < 86400) return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
    return `${Math.floor(s / 86400)} d${Math.floor((s % 86400) / 3600) ? ` ${Math.floor((s % 86400) / 3600)} h` : ''}`;
};
// ISO-8601 durations inside the services' words ("no answer within PT1S") read as the rest of the page: "1 s"
const words = (text) => text == null ? text : String(text).replace(/\bPT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.\d+)?S)?\b/g,
    (m, h, mi, se) => (h || mi || se) ? dur((+h || 0) * 3600 + (+mi || 0) * 60 + (+se || 0)) : m);
const when = (iso) => iso ? new Date(iso).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '';
const stateTag = (s) => `<span class="state ${esc(s)}">${esc(s)}</span>`;

async function api(path, options = {}) {
    const headers = {'Accept': 'application/json'};
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.method && options.method !== 'GET' && me?.csrf) headers[me.csrf.headerName] = me.csrf.token;
    const r = await fetch(path, {credentials: 'same-origin', ...options, headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body)});
    if (r.status === 401) { location.href = '/login'; throw new Error('signed out'); }
    const text = await r.text();
    const data = text ? JSON.parse(text) : null;
    if (!r.ok) {
        const msg = data?.detail || data?.title || `HTTP ${r.status}`;
        const errors = data?.errors ? ' (' + data.errors.join('; ') + ')' : '';
        throw new Error(msg + errors);
    }
    return data;
}

// ------------------------------------------------------------------------------------------------ counts header

async function refreshCounts() {
    const c = await api('/dashboard/api/counts');
    const chips = [];
    chips.push(`<span class="chip" data-filter="waiting">waiting<b id="count-waiting">${c.waiting}</b></span>`);
    chips.push(`<span class="chip ${c.stuck ? 'alert' : ''}" data-filter="stuck">stuck<b id="count-stuck">${c.stuck}</b></span>`);
    chips.push(`<span class="chip ${c.retrying ? 'warn' : ''}" data-filter="retrying">retrying<b>${c.retrying}</b></span>`);
    chips.push(`<span class="chip ${c.paymentUnknown ? 'warn' : ''}" data-filter="paymentUnknown">payment unknown<b>${c.paymentUnknown}</b></span>`);
    for (const s of STATES) {
        const n = c.byState[s];
        if (n) chips.push(`<span class="chip ${s === 'manual_review' ? 'alert' : ''}" data-state="${s}" id="count-${s}">${s}<b>${n}</b></span>`);
    }
    $('#counts').innerHTML = chips.join('');
    $('#counts').querySelectorAll('.chip').forEach(el => el.onclick = () => {
        const p = new URLSearchParams();
        if (el.dataset.state) p.set('state', el.dataset.state);
        if (el.dataset.filter) p.set(el.dataset.filter, 'true');
        location.hash = '#/checkouts?' + p;
    });
}

// ------------------------------------------------------------------------------------------------ list page

function filterFromHash() {
    const q = location.hash.split('?')[1] || '';
    return new URLSearchParams(q);
}

function renderListPage() {
    const f = filterFromHash();
    const opts = ['<option value="">any state</option>'].concat(STATES.map(s =>
        `<option value="${s}" ${f.get('state') === s ? 'selected' : ''}>${s}</option>`)).join('');
    const check = (name, label) => `<label class="check"><input type="checkbox" id="f-${name}" ${f.get(name) === 'true' ? 'checked' : ''}>${label}</label>`;
    const dt = (v) => v ? v.replace(/Z$/, '').slice(0, 16) : '';
    $('#main').innerHTML = `
      <div class="card">
        <form class="filters" id="filters">
          <label>Search<input id="f-q" placeholder="checkout id, Idempotency-Key or provider reference" size="44" value="${esc(f.get('q'))}"></label>
          <label>State<select id="f-state">${opts}</select></label>
          <label>Tenant<input id="f-tenant" size="10" value="${esc(f.get('tenant'))}"></label>
          <label>Created from (UTC)<input type="datetime-local" id="f-from" value="${esc(dt(f.get('from')))}"></label>
          <label>to<input type="datetime-local" id="f-to" value="${esc(dt(f.get('to')))}"></label>
          ${check('waiting', 'waiting')} ${check('stuck', 'stuck')} ${check('retrying', 'retrying')} ${check('paymentUnknown', 'payment unknown')}
          <button type="submit" class="primary" id="apply-filter">Apply</button>
          <button type="button" id="clear-filter">Clear</button>
        </form>
      </div>
      <div class="card"><div id="list"><p class="muted">Loading…</p></div>
        <div class="pager"><button id="prev-page">Newer</button><button id="next-page">Older</button><span id="took" class="muted"></span></div>
      </div>
      <div class="card" id="bulk-card"></div>`;
    $('#filters').onsubmit = (e) => {
        e.preventDefault();
        const p = new URLSearchParams();
        const v = (id) => $('#' + id).value.trim();
        if (v('f-q')) p.set('q', v('f-q'));
        if (v('f-state')) p.set('state', v('f-state'));
        if (v('f-tenant')) p.set('tenant', v('f-tenant'));
        if (v('f-from')) p.set('from', new Date(v('f-from') + 'Z').toISOString());
        if (v('f-to')) p.set('to', new Date(v('f-to') + 'Z').toISOString());
        for (const n of ['waiting', 'stuck', 'retrying', 'paymentUnknown']) if ($('#f-' + n).checked) p.set(n, 'true');
        location.hash = '#/checkouts?' + p;
    };
    $('#clear-filter').onclick = () => location.hash = '#/checkouts';
    $('#next-page').onclick = () => { if (lastPage?.nextCursor) { listCursorStack.push(listCursor); listCursor = lastPage.nextCursor; refreshList(); } };
    $('#prev-page').onclick = () => { if (listCursorStack.length) { listCursor = listCursorStack.pop(); refreshList(); } };
    renderBulk();
}

let lastPage = null;

async function refreshList() {
    const f = filterFromHash();
    if (listCursor) f.set('cursor', listCursor);
    const page = await api('/dashboard/api/checkouts?' + f);
    lastPage = page;
    const rows = page.rows.map(r => `
      <tr class="${r.stuck ? 'stuck' : ''}" data-id="${esc(r.checkoutId)}">
        <td class="mono"><a href="#/checkout/${encodeURIComponent(r.checkoutId)}" class="open">${esc(r.checkoutId)}</a></td>
        <td>${esc(r.tenantId)}</td>
        <td>${stateTag(r.state)}${r.stuck ? '<span class="badge stuck">stuck</span>' : ''}</td>
        <td class="num">${money(r.amountMinor, r.currency)}</td>
        <td class="num">${dur(r.ageSeconds)}</td>
        <td class="num">${r.terminal ? '' : dur(r.inStateSeconds)}</td>
        <td>${esc(when(r.nextDeadline))}</td>
        <td class="waiting-for">${r.terminal ? '' : esc(words(r.waitingReason) ?? '')}</td>
        <td class="cancel">${r.cancellationRequested && r.state !== 'cancelled' ? '<span class="badge">cancellation requested</span> ' : ''}${esc(r.cancelReason ?? '')}</td>
        <td>${esc(words(r.lastFailure) ?? '')}</td>
      </tr>`).join('');
    $('#list').innerHTML = page.rows.length === 0 ? '<p class="muted" id="empty">No checkout matches.</p>' : `
      <table id="checkouts"><thead><tr><th>Checkout</th><th>Tenant</th><th>State</th><th class="num">Amount</th>
      <th class="num">Age</th><th class="num">In state</th><th>Next deadline</th><th>Waiting for</th><th>Cancel reason</th><th>Last failure</th></tr></thead>
      <tbody>${rows}</tbody></table>`;
    $('#next-page').disabled = !page.nextCursor;
    $('#prev-page').disabled = listCursorStack.length === 0;
    $('#took').textContent = `${page.rows.length} shown · server ${(page.tookMicros / 1000).toFixed(1)} ms`;
}

function renderBulk() {
    const card = $('#bulk-card');
    if (!me?.canRepair) {
        card.innerHTML = '<h2>Bulk repair</h2><p class="muted">Signed in read-only.</p>';
        return;
    }
    card.innerHTML = `<h2>Bulk repair on this filter</h2>
      <div class="filters">
        <label>Action<select id="bulk-action"><option value="retry">retry (manual review only)</option><option value="cancel">cancel</option></select></label>
        <label>Reason (recorded on every checkout)<input id="bulk-reason" size="40"></label>
        <button id="bulk-preview">Preview</button>
      </div><div id="bulk-result"></div>`;
    $('#bulk-preview').onclick = async () => {
        const body = bulkBody();
        try {
            const p = await api('/dashboard/api/bulk/preview', {method: 'POST', body});
            const states = Object.entries(p.byState).map(([s, n]) => `${s}: ${n}`).join(', ') || 'none';
            $('#bulk-result').innerHTML = `<div class="preview" id="bulk-preview-box">
              <p><b id="bulk-count">${p.willActOn}</b> checkout(s) will get <b>${esc(p.action)}</b>
              (${p.matching} match the filter: ${esc(states)}; at most ${p.limit} per run).</p>
              <button class="danger" id="bulk-confirm" ${p.willActOn ? '' : 'disabled'}>${esc(p.action)} ${p.willActOn} checkout(s)</button></div>`;
            $('#bulk-confirm').onclick = async () => {
                try {
                    const job = await api('/dashboard/api/bulk', {method: 'POST', body: {...body, expectedCount: p.willActOn}});
                    watchJob(job.jobId);
                } catch (e) { $('#bulk-result').innerHTML = `<p class="error">${esc(e.message)}</p>`; }
            };
        } catch (e) { $('#bulk-result').innerHTML = `<p class="error">${esc(e.message)}</p>`; }
    };
}

function bulkBody() {
    const f = filterFromHash();
    const body = {action: $('#bulk-action').value, reason: $('#bulk-reason').value};
    for (const [k, v] of f.entries()) body[k] = (v === 'true') ? true : v;
    return body;
}

async function watchJob(jobId) {
    const job = await api('/dashboard/api/bulk/' + jobId);
    const handled = job.done + job.skipped + job.failed;
    const pct = job.total ? Math.round(100 * handled / job.total) : 100;
    $('#bulk-result').innerHTML = `<div class="preview" id="bulk-job"><p>${esc(job.action)}: ${handled} of ${job.total}
      (done ${job.done}, skipped ${job.skipped}, failed ${job.failed})${job.finished ? ' · finished' : ''}</p>
      <div class="progress"><div id="bulk-progress"></div></div>
      ${job.problems.map(p => `<div class="muted mono">${esc(p)}</div>`).join('')}</div>`;
    $('#bulk-progress').style.width = pct + '%'; // set through the DOM: the CSP allows no inline style attributes
    if (!job.finished) setTimeout(() => watchJob(jobId), 500);
}

// ------------------------------------------------------------------------------------------------ one checkout

let detailId = null;
let providerView = null;

function renderDetailPage(id) {
    detailId = id;
    providerView = null;
    offeredActions = null;
    $('#main').innerHTML = `
      <p><a href="#/checkouts">← all checkouts</a></p>
      <div id="detail-summary"><p class="muted">Loading…</p></div>
      <div class="card" id="repair-card"></div>
      <div id="detail-body"></div>
      <div class="card" id="replay-card"><h2>Bundle and replay</h2>
        <p><a id="bundle-link" href="/dashboard/api/checkouts/${encodeURIComponent(id)}/bundle" download>Export the history bundle</a>
        (personal fields redacted) · <button id="replay-run">Replay with today's code</button></p>
        <div id="replay-result"></div></div>`;
    $('#replay-run').onclick = runReplay;
    renderRepair();
    askProvider();
}

async function runReplay() {
    const out = $('#replay-result');
    out.innerHTML = '<p class="muted">Replaying…</p>';
    try {
        const r = await api(`/dashboard/api/checkouts/${encodeURIComponent(detailId)}/replay`);
        const ok = r.verdict === 'identical';
        out.innerHTML = `<p id="replay-verdict" class="${ok ? 'ok' : 'mismatch'}">Verdict: ${esc(r.verdict)} (${r.events} events)</p>
          ${r.problem ? `<p class="error">${esc(r.problem)}</p>` : ''}
          ${r.divergence ? `<pre>${esc(JSON.stringify(r.divergence, null, 2))}</pre><p>${esc(r.consequence ?? '')}</p>` : ''}
          <details><summary>Report</summary><pre>${esc(r.report)}</pre></details>`;
    } catch (e) { out.innerHTML = `<p class="error">${esc(e.message)}</p>`; }
}

async function askProvider() {
    try {
        providerView = await api(`/dashboard/api/checkouts/${encodeURIComponent(detailId)}/provider`);
    } catch (e) {
        providerView = {error: e.message};
    }
    const el = $('#provider-view');
    if (el) el.innerHTML = providerHtml();
}

function providerHtml() {
    if (!providerView) return '<p class="muted">Asking the provider…</p>';
    if (providerView.error) return `<p class="error">${esc(providerView.error)}</p>`;
    const p = providerView;
    return `<dl class="kv">
      <dt>Operation asked about</dt><dd class="mono">${esc(p.operationId)}</dd>
      <dt>The checkout says</dt><dd>${esc(p.checkoutSays)} ${p.checkoutReference ? `(reference ${esc(p.checkoutReference)})` : ''}</dd>
      <dt>The provider says</dt><dd id="provider-says">${esc(p.providerSays ?? '—')} ${p.providerReference ? `(reference ${esc(p.providerReference)})` : ''}</dd>
      <dt>Detail</dt><dd>${esc(p.detail ?? '')}</dd>
      <dt>Agreement</dt><dd>${p.mismatch ? '<span class="mismatch" id="mismatch">MISMATCH: the two disagree</span>' : `<span class="ok" id="agreement">${esc(p.agreement ?? 'no contradiction')}</span>`}</dd>
    </dl><button id="ask-provider">Ask again</button>`;
}

async function refreshDetail() {
    const d = await api(`/dashboard/api/checkouts/${encodeURIComponent(detailId)}`);
    const v = d.view;
    currentVersion = v.version;
    currentState = v.state;
    currentCurrency = v.amount?.currency ?? null;
    const w = v.waiting || {};
    const mr = v.manualReview;
    const inState = v.stateSince ? Math.round((Date.now() - Date.parse(v.stateSince)) / 1000) : null;
    $('#detail-summary').innerHTML = `<div class="card"><h2 class="mono">${esc(v.checkoutId)}
        <span class="state ${esc(v.state)}" id="detail-state">${esc(v.state)}</span></h2>
      <div class="grid2"><dl class="kv">
        <dt>Tenant</dt><dd>${esc(v.tenantId)}</dd>
        <dt>Amount</dt><dd>${money(v.amount?.minor, v.amount?.currency)}</dd>
        <dt>Items</dt><dd>${(v.items || []).map(i => `${esc(i.sku)} × ${i.quantity}`).join(', ')}</dd>
        <dt>Idempotency-Key</dt><dd class="mono">${esc(v.idempotencyKey)}</dd>
        <dt>Created</dt><dd>${esc(when(v.createdAt))}</dd>
        <dt>In this state for</dt><dd>${v.terminal ? '—' : dur(inState)} (threshold ${esc(d.thresholds[v.state] ?? '—')})</dd>
        ${d.cancellation ? `<dt>Cancellation</dt><dd id="cancellation" class="${d.cancellation.pending ? 'mismatch' : ''}">requested${d.cancellation.requestedBy ? ' by ' + esc(d.cancellation.requestedBy) : ''} (${esc(d.cancellation.reason)}${d.cancellation.detail ? ': ' + esc(d.cancellation.detail) : ''}) · ${esc(d.cancellation.status)}</dd>` : ''}
        <dt>Version</dt><dd id="detail-version">${v.version}</dd>
      </dl><dl class="kv">
        <dt>Waiting for</dt><dd>${esc(w.reason ?? (v.terminal ? 'nothing: finished' : ''))}</dd>
        <dt>Next deadline</dt><dd>${esc(when(w.nextDeadline))}</dd>
        <dt>Then</dt><dd>${esc(w.onDeadline ?? '')}</dd>
        <dt>Known</dt><dd>${esc(words(w.known) ?? '')}</dd>
        <dt>Not known</dt><dd>${esc(words(w.unknown) ?? '')}</dd>
        ${mr ? `<dt>Manual review</dt><dd class="mismatch">${esc(mr.blockedStep)}: ${esc(words(mr.reason))}<br><span class="muted">${esc(words(mr.evidence))}</span></dd>` : ''}
        ${v.reason ? `<dt>Reason</dt><dd>${esc(v.reason)} ${esc(v.reasonDetail ?? '')}</dd>` : ''}
      </dl></div></div>`;
    const acts = d.activities.map(a => `<tr><td>${esc(a.step)}</td>
      <td class="mono">${esc(a.operationId)}</td><td class="num">${a.attempt}</td><td class="num">${a.fencingToken}</td>
      <td>${esc(when(a.leaseExpiresAt))}</td><td>${esc(a.status)}</td><td>${esc(words(a.lastOutcome) ?? '')}</td><td>${esc(when(a.retryAt))}</td></tr>`).join('');
    const dls = d.deadlines.map(x => `<tr><td>${esc(x.deadline ?? x.task_name)}</td><td>${esc(when(x.execution_time))}</td>
      <td>${x.picked ? 'running on ' + esc(x.picked_by) : 'waiting'}</td><td class="num">${x.consecutive_failures ?? 0}</td></tr>`).join('');
    const lookups = d.lookups.map(l => `<tr><td class="num">${l.lookup}</td><td>${esc(when(l.issuedAt))}</td>
      <td class="mono">${esc(l.about)}</td><td class="num">${l.fencingToken}</td><td>${esc(words(l.answer) ?? '(in flight or conclusive)')}</td></tr>`).join('');
    const ops = d.paymentOperations.map(o => `<tr><td class="mono">${esc(o.operation_id)}</td><td>${esc(o.kind)}</td>
      <td>${esc(o.status)}</td><td class="num">${o.fencing_token}</td><td class="num">${o.attempts}</td><td>${esc(o.provider_reference ?? '')}</td><td>${esc(o.detail ?? '')}</td></tr>`).join('');
    const full = $('#timeline-full')?.checked;
    const tl = d.timeline.map(t => `<tr><td class="num">${t.sequence}</td><td>${esc(when(t.timestamp))}</td>
      <td>${esc(t.type)}</td><td>${t.stateAfter ? stateTag(t.stateAfter) : ''}</td>
      <td>${t.who ? esc(t.who) + (t.why ? ': ' + esc(t.why) : '') : ''}</td>
      <td>${full ? `<pre>${esc(JSON.stringify({payload: t.payload, metadata: t.metadata}, null, 2))}</pre>` : esc(compact(t.payload))}</td></tr>`).join('');
    const keepFull = full ? 'checked' : '';
    $('#detail-body').innerHTML = `
      <div class="card"><h2>Activities</h2><table id="activities"><thead><tr><th>Step</th><th>Operation id</th><th class="num">Attempt</th>
        <th class="num">Fencing token</th><th>Lease expires</th><th>Status</th><th>Last outcome</th><th>Retry at</th></tr></thead><tbody>${acts}</tbody></table></div>
      <div class="grid2">
        <div class="card"><h2>Pending deadlines (db-scheduler)</h2>${dls ? `<table id="deadlines"><thead><tr><th>Deadline</th><th>Due</th><th>Status</th><th class="num">Failures</th></tr></thead><tbody>${dls}</tbody></table>` : '<p class="muted" id="deadlines">none</p>'}</div>
        <div class="card"><h2>Provider's view beside the checkout's</h2><div id="provider-view">${providerHtml()}</div></div>
      </div>
      ${d.deadLetters.length ? `<div class="card"><h2 class="mismatch">Parked events (dead letters)</h2>${d.deadLetters.map(x => `<div>${esc(x.processor)}: ${x.parked} parked since ${esc(when(x.since))}, first ${esc(x.eventType)}: <span class="error">${esc(x.cause)}</span> (<a href="#/processors">retry or evict</a>)</div>`).join('')}</div>` : ''}
      <div class="card"><h2>Reconciliation lookups</h2>${lookups ? `<table><thead><tr><th class="num">#</th><th>Issued</th><th>About</th><th class="num">Token</th><th>Answer</th></tr></thead><tbody>${lookups}</tbody></table>` : '<p class="muted">none</p>'}
        <h3>Payment service records</h3>${ops ? `<table><thead><tr><th>Operation</th><th>Kind</th><th>Status</th><th class="num">Token</th><th class="num">Attempts</th><th>Reference</th><th>Detail</th></tr></thead><tbody>${ops}</tbody></table>` : '<p class="muted">none</p>'}
        ${d.providerNotifications.length ? '<h3>Provider notifications</h3>' + d.providerNotifications.map(n => `<div class="mono">${esc(n.notification_id)}: ${esc(n.status)} ×${n.deliveries}</div>`).join('') : ''}</div>
      <div class="card"><h2>Timeline <label class="check small"><input type="checkbox" id="timeline-full" ${keepFull}> full JSON</label></h2>
        <table id="timeline"><thead><tr><th class="num">#</th><th>At</th><th>Event</th><th>State after</th><th>Who / why</th><th>What</th></tr></thead><tbody>${tl}</tbody></table></div>`;
    $('#timeline-full').onchange = () => refreshDetail();
    const ask = $('#ask-provider');
    if (ask) ask.onclick = () => askProvider();
    updateRepairButtons(d.actions);
}

function compact(p) {
    if (!p) return '';
    const parts = [];
    if (p.step) parts.push(p.step);
    if (p.lease) parts.push(`${p.lease.operationId?.value ?? p.lease.operationId} attempt ${p.lease.attempt} token ${p.lease.fencingToken?.value ?? p.lease.fencingToken}`);
    for (const k of ['reason', 'detail', 'outcome', 'lastAnswer', 'resolution', 'providerReference', 'lookupNumber', 'note']) {
        if (p[k] != null && typeof p[k] !== 'object') parts.push(`${k}: ${p[k]}`);
    }
    return words(parts.join(' · '));
}

let currentVersion = null;
let currentState = null;
let currentCurrency = null;

function renderRepair() {
    const card = $('#repair-card');
    if (!me?.canRepair) {
        card.innerHTML = '<h2>Repair</h2><p class="muted">Signed in read-only: repairs need the repair role.</p>';
        return;
    }
    card.innerHTML = `<h2>Repair</h2>
      <div class="filters">
        <label>Action<select id="repair-action"><option value="" selected disabled>loading…</option></select></label>
        <label>Provider reference (authorized)<input id="repair-reference" size="18"></label>
        <label>Refund amount (minor units)<input id="repair-amount" size="8" inputmode="numeric"></label>
        <label>Reason (required, recorded)<input id="repair-reason" size="40"></label>
        <button id="repair-preview" class="primary">Preview</button>
      </div><div id="repair-result"></div>`;
    $('#repair-preview').onclick = previewRepair;
}

let offeredActions = null;

// Only what the workflow's rules allow in this state (the server says which), and no action chosen in advance.
function updateRepairButtons(actions) {
    const select = $('#repair-action');
    if (!select || !actions) return;
    const key = actions.map(a => a.value).join(',');
    if (key === offeredActions) return;
    offeredActions = key;
    const chosen = select.value;
    select.innerHTML = actions.length === 0
        ? '<option value="" selected disabled>none: no operator action changes this checkout now</option>'
        : '<option value="" selected disabled>choose an action…</option>' + actions.map(a =>
            `<option value="${esc(a.value)}" ${a.value === chosen ? 'selected' : ''}>${esc(a.label)}</option>`).join('');
    $('#repair-preview').disabled = actions.length === 0;
}

function repairBody() {
    const a = $('#repair-action').value;
    const body = {reason: $('#repair-reason').value.trim(), version: currentVersion};
    if (!a) return body;
    if (a.startsWith('resolve-')) {
        body.action = 'resolve';
        body.resolution = a.substring('resolve-'.length);
        body.providerReference = $('#repair-reference').value.trim() || null;
    } else {
        body.action = a;
    }
    if (a === 'refund') {
        const minor = $('#repair-amount').value.trim();
        body.amount = {minor: minor === '' ? null : Number(minor), currency: currentCurrency};
    }
    return body;
}

async function previewRepair() {
    const body = repairBody();
    const out = $('#repair-result');
    if (!body.action) { out.innerHTML = '<p class="error" id="repair-error">Choose an action first.</p>'; return; }
    if (!body.reason) { out.innerHTML = '<p class="error" id="repair-error">A reason is required: it is recorded with the action.</p>'; return; }
    try {
        const p = await api(`/dashboard/api/checkouts/${encodeURIComponent(detailId)}/preview`, {method: 'POST', body});
        if (!p.allowed) {
            out.innerHTML = `<div class="preview refused" id="repair-preview-box"><b>Refused</b> in state ${esc(p.state)}: ${esc(p.refusal)}</div>`;
            return;
        }
        const items = p.events.map(e => `<li>${esc(e.type)}${e.operationId ? ` — <span class="mono op">${esc(e.operationId)}</span> attempt ${e.attempt}, token ${e.fencingToken}` : ''}</li>`).join('');
        out.innerHTML = `<div class="preview" id="repair-preview-box"><p>On version ${p.version} (state ${esc(p.state)}), <b>${esc(body.action)}</b> will append:</p>
          <ul id="preview-events">${items || '<li>nothing (acknowledged, no change)</li>'}</ul>
          ${p.operationIds.length ? `<p>Work it issues: <span class="mono" id="preview-operations">${p.operationIds.map(esc).join(', ')}</span></p>` : ''}
          <button class="danger" id="repair-confirm">Confirm ${esc(body.action)}</button> <button id="repair-dismiss">Dismiss</button></div>`;
        $('#repair-dismiss').onclick = () => out.innerHTML = '';
        $('#repair-confirm').onclick = async () => {
            try {
                const v = await api(`/dashboard/api/checkouts/${encodeURIComponent(detailId)}/actions`, {method: 'POST', body: {...body, version: p.version}});
                out.innerHTML = `<p class="ok" id="repair-done">${esc(body.action)} recorded by ${esc(me.name)} (version ${v.version}); the page follows the checkout as it moves.</p>`;
                refreshDetail();
            } catch (e) { out.innerHTML = `<p class="error" id="repair-error">${esc(e.message)}</p>`; }
        };
    } catch (e) { out.innerHTML = `<p class="error" id="repair-error">${esc(e.message)}</p>`; }
}

// ------------------------------------------------------------------------------------------------ money at risk

function renderMoneyPage() {
    $('#main').innerHTML = '<div id="money"><p class="muted">Loading…</p></div>';
}

async function refreshMoney() {
    const m = await api('/dashboard/api/money-at-risk');
    const rows = m.byStateAndAge.map(r => `<tr><td>${stateTag(r.state)}</td><td>${esc(r.age)}</td><td class="num">${r.count}</td>
      <td class="num">${money(r.amountMinor, r.currency)}</td></tr>`).join('');
    const totals = {};
    m.byStateAndAge.forEach(r => totals[r.currency] = (totals[r.currency] || 0) + r.amountMinor);
    const old = m.oldestUnknown.map(r => `<tr><td class="mono"><a href="#/checkout/${encodeURIComponent(r.checkoutId)}">${esc(r.checkoutId)}</a></td>
      <td>${stateTag(r.state)}</td><td class="num">${money(r.amountMinor, r.currency)}</td><td class="num">${dur(r.unknownForSeconds ?? r.inStateSeconds)}</td><td>${esc(r.lastFailure ?? r.waitingReason ?? '')}</td></tr>`).join('');
    $('#money').innerHTML = `<div class="card"><h2>Money in checkouts not finished: ${Object.entries(totals).map(([c, v]) => money(v, c)).join(', ') || 'none'}</h2>
      <table id="money-table"><thead><tr><th>State</th><th>In state for</th><th class="num">Checkouts</th><th class="num">Amount</th></tr></thead><tbody>${rows}</tbody></table></div>
      <div class="card"><h2>Authorized, not captured: by when the hold lapses</h2>${(m.authorizedNotCaptured || []).length
        ? `<table id="holds-table"><thead><tr><th>Hold</th><th class="num">Checkouts</th><th class="num">Amount</th></tr></thead><tbody>${
          m.authorizedNotCaptured.map(h => `<tr><td>${esc(h.hold)}</td><td class="num">${h.count}</td><td class="num">${money(h.amountMinor, h.currency)}</td></tr>`).join('')}</tbody></table>`
        : '<p class="muted">none</p>'}</div>
      <div class="card"><h2>Oldest payments whose outcome is not known</h2>${old ? `<table><thead><tr><th>Checkout</th><th>State</th><th class="num">Amount</th><th class="num">Unknown for</th><th>Why</th></tr></thead><tbody>${old}</tbody></table>` : '<p class="muted">none</p>'}</div>`;
}

// ------------------------------------------------------------------------------------------------ processors

function renderProcessorsPage() {
    $('#main').innerHTML = '<div id="processors"><p class="muted">Loading…</p></div><div class="card" id="dead-letters"></div>';
}

async function refreshProcessors() {
    const p = await api('/dashboard/api/processors');
    $('#processors').innerHTML = `<p class="muted">Head of the event store: position ${p.headPosition}</p>` + p.processors.map(x => `
      <div class="card processor"><h2>${esc(x.name)} ${x.error ? '<span class="mismatch">error</span>' : x.running ? '<span class="ok">running</span>' : '<span class="muted">not running here</span>'}
        <span class="muted small">lag ${x.lagEvents} events, ${dur(x.lagSeconds)}</span></h2>
        <table><thead><tr><th class="num">Segment</th><th>Claimed by</th><th>Claim renewed</th><th class="num">Position</th><th class="num">Lag (events)</th>
        <th class="num">Lag</th><th>Here</th><th>Error</th></tr></thead><tbody>${x.segments.map(s => `<tr>
          <td class="num">${s.segment}</td><td class="mono">${esc(s.owner ?? 'unclaimed')}</td><td>${esc(when(s.claimedAt))}</td>
          <td class="num">${s.position ?? '—'}</td><td class="num">${s.lagEvents}</td><td class="num">${dur(s.lagSeconds)}</td>
          <td>${s.heldHere ? (s.replaying ? 'replaying' : s.caughtUp ? 'caught up' : 'catching up') : ''}</td>
          <td class="error">${esc(s.lastError ?? '')}</td></tr>`).join('')}</tbody></table></div>`).join('');
    const dl = await api('/dashboard/api/dead-letters');
    const card = $('#dead-letters');
    if (card.contains(document.activeElement)) return; // the operator is typing a reason: do not redraw
    const rows = dl.deadLetters.map(d => `<tr data-dl="${esc(d.processor)}|${esc(d.checkoutId)}">
      <td>${esc(d.processor)}</td><td class="mono"><a href="#/checkout/${encodeURIComponent(d.checkoutId)}">${esc(d.checkoutId)}</a></td>
      <td class="num">${d.parked}</td><td>${esc(d.eventType)}</td><td class="error">${esc(d.cause)}</td><td>${esc(when(d.since))}</td>
      <td>${me?.canRepair ? '<button class="dl-retry">Retry</button> <button class="dl-evict danger">Evict</button>' : ''}</td></tr>`).join('');
    card.innerHTML = `<h2>Dead letters (${dl.deadLetters.length})</h2>
      <p class="muted">Events a processor could not handle, parked per checkout (queues: ${dl.processors.map(esc).join(', ')}).
      Retry once the cause is fixed; evict gives them up for good (reason required).</p>
      ${rows ? `<table id="dead-letter-table"><thead><tr><th>Processor</th><th>Checkout</th><th class="num">Parked</th><th>First event</th><th>Cause</th><th>Since</th><th></th></tr></thead><tbody>${rows}</tbody></table>
      <label>Reason for evicting <input id="dl-reason" size="40"></label>` : '<p class="muted" id="no-dead-letters">none</p>'}
      <div id="dl-result"></div>`;
    card.querySelectorAll('tr[data-dl]').forEach(tr => {
        const [processor, checkoutId] = tr.dataset.dl.split('|');
        const base = `/dashboard/api/dead-letters/${encodeURIComponent(processor)}/${encodeURIComponent(checkoutId)}`;
        const report = (text, bad) => $('#dl-result').innerHTML = `<p class="${bad ? 'error' : 'ok'}">${esc(text)}</p>`;
        tr.querySelector('.dl-retry')?.addEventListener('click', async () => {
            try { const r = await api(base + '/retry', {method: 'POST', body: {}}); report(r.handled ? 'handled' : 'failed again: still parked', !r.handled); }
            catch (e) { report(e.message, true); }
        });
        tr.querySelector('.dl-evict')?.addEventListener('click', async () => {
            try { const r = await api(base + '/evict', {method: 'POST', body: {reason: $('#dl-reason').value}}); report(`evicted ${r.evicted}`); }
            catch (e) { report(e.message, true); }
        });
    });
}

// ------------------------------------------------------------------------------------------------ routing

function route() {
    clearInterval(timer);
    const h = location.hash || '#/checkouts';
    document.querySelectorAll('header nav a').forEach(a => a.classList.remove('active'));
    let refresh;
    if (h.startsWith('#/checkout/')) {
        renderDetailPage(decodeURIComponent(h.substring('#/checkout/'.length)));
        refresh = refreshDetail;
    } else if (h.startsWith('#/money')) {
        $('#nav-money').classList.add('active');
        renderMoneyPage();
        refresh = refreshMoney;
    } else if (h.startsWith('#/processors')) {
        $('#nav-processors').classList.add('active');
        renderProcessorsPage();
        refresh = refreshProcessors;
    } else {
        $('#nav-checkouts').classList.add('active');
        listCursor = null;
        listCursorStack = [];
        renderListPage();
        refresh = refreshList;
    }
    const tick = async () => {
        try {
            await Promise.all([refresh(), refreshCounts()]);
            $('#updated').textContent = 'updated ' + new Date().toISOString().replace('T', ' ').slice(0, 19) + 'Z';
        } catch (e) {
            $('#updated').innerHTML = `<span class="error">${esc(e.message)}</span>`;
        }
    };
    tick();
    timer = setInterval(tick, POLL_MS);
}

async function start() {
    me = await api('/dashboard/api/me');
    $('#who').textContent = `${me.name}${me.canRepair ? ' (repair)' : ' (read-only)'}`;
    if (me.csrf) $('#logout-csrf').value = me.csrf.token;
    window.addEventListener('hashchange', route);
    route();
}

start();
