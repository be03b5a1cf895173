/* beamcore report: draws the data beamcore embedded in this page (the
 * "bc-data" element: the commands' JSON, gzip'd, in base64, docs/report.md). Nothing is computed
 * here that a command computes; text is set with textContent, never parsed as
 * markup, so a label holding <script> is shown, not run. No request leaves
 * the page (its Content-Security-Policy forbids them). */
'use strict';
/* the data block: base64 of gzip'd JSON (a million processes in a few MB);
 * undone in the page, no request: Blob and Response are local */
async function pageData() {
  const e = document.getElementById('bc-data');
  const text = e.textContent.trim();
  if (e.dataset.encoding !== 'gzip+base64') return JSON.parse(text);
  let bin;
  if (Uint8Array.fromBase64) bin = Uint8Array.fromBase64(text);
  else {
    const s = atob(text);
    bin = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) bin[i] = s.charCodeAt(i);
  }
  const stream = new Blob([bin]).stream().pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text());
}
(async function () {
let D;
try { D = await pageData(); } catch (err) {
  document.getElementById('app').textContent = 'beamcore report: the page\'s data could not be read in this browser (' +
    err + '); it needs DecompressionStream (Chromium 80, Firefox 113, Safari 16.4 or later)';
  return;
}
window.beamcoreReport = { dataMs: performance.now() };
const S = D.sections || {};
const P = D.processes || { count: 0, columns: [], sort_keys: [] };
const app = document.getElementById('app');

/* ---- small helpers ---- */
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function add(parent, ...kids) { for (const k of kids) if (k) parent.appendChild(k); return parent; }
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
function bytes(v) {
  if (v === null || v === undefined) return '?';
  let i = 0, x = v;
  while (x >= 1024 && i < UNITS.length - 1) { x /= 1024; i++; }
  return i ? x.toFixed(1) + ' ' + UNITS[i] : v + ' B';
}
function count(v) { return v === null || v === undefined ? '?' : Number(v).toLocaleString('en-US'); }
const WS = P.word_size || 8;
function words(v) { return v === null || v === undefined ? '?' : count(v) + ' w'; }
function fmt(kind, v) {
  if (kind === 'bytes') return bytes(v);
  if (kind === 'words') return words(v);
  if (kind === 'str') return v === null || v === undefined ? '' : v;
  return count(v);
}
/* strcasestr's case folding (the TUI's filter): ASCII letters only */
function lowerAscii(s) { return s.replace(/[A-Z]+/g, (m) => m.toLowerCase()); }

/* ---- the processes (columns in pid order) ---- */
const COL = {};
for (const c of P.columns) COL[c.json] = c;
const N = P.count;
function cell(name, r) {
  const c = COL[name];
  if (!c) return null;
  const v = c.values[r];
  if (v === null || v === undefined) return null;
  return c.dict ? c.dict[v] : v;
}
let pidRow = null;
function rowOf(pid) {
  if (!pidRow) { pidRow = new Map(); const v = COL.pid ? COL.pid.values : []; for (let r = 0; r < v.length; r++) pidRow.set(v[r], r); }
  const r = pidRow.get(pid);
  return r === undefined ? -1 : r;
}
/* the label as the LABEL column shows it (a term's short form); the whole
 * term: cell('label', r) */
function label(r) {
  const c = COL.label;
  if (!c || c.values[r] === null) return '';
  return (c.shown ? c.shown[c.values[r]] : c.dict[c.values[r]]) || '';
}

/* procs --sort's rule (procs.c): numbers largest first, unknown last (words
 * unknown: ranked by memory in words, after a known equal value); text keys
 * by their class, which beamcore numbered in the key's order; ties by pid
 * (the row order). */
function sortRows(rows, keyName) {
  const key = P.sort_keys.find((k) => k.name === keyName) || P.sort_keys[0];
  if (!key || key.name === 'pid') { rows.sort((a, b) => a - b); return rows; }
  const c = COL[key.column];
  if (!c) return rows;
  if (key.text) {
    const v = c.values;
    rows.sort((a, b) => (v[a] - v[b]) || (a - b));
    return rows;
  }
  const n = rows.length, val = new Float64Array(N), unk = new Uint8Array(N);
  const mem = COL.memory ? COL.memory.values : null;
  for (let i = 0; i < n; i++) {
    const r = rows[i], x = c.values[r];
    if (x !== null) { val[r] = x; continue; }
    if (key.by_memory && mem && mem[r] !== null) { val[r] = Math.floor(mem[r] / WS); unk[r] = 1; } else unk[r] = 2;
  }
  rows.sort((a, b) => {
    const ua = unk[a] === 2, ub = unk[b] === 2;
    if (ua !== ub) return ua ? 1 : -1;
    if (!ua && val[a] !== val[b]) return val[b] - val[a];
    return (unk[a] - unk[b]) || (a - b);
  });
  return rows;
}
function filterRows(text) {
  const all = new Uint32Array(N);
  let n = 0;
  const f = lowerAscii(text);
  for (let r = 0; r < N; r++) {
    if (!f) { all[n++] = r; continue; }
    const pid = cell('pid', r) || '', lab = label(r), cur = cell('current_function', r) || '';
    if (lowerAscii(pid).includes(f) || lowerAscii(lab).includes(f) || lowerAscii(cur).includes(f)) all[n++] = r;
  }
  return all.subarray(0, n);
}

/* ---- views ---- */
const views = {};
let current = null;
const nav = el('nav', 'bc-nav');
const main = el('main', 'bc-main');
function view(name, title, draw) {
  const b = el('button', 'bc-tab', title);
  b.dataset.view = name;
  b.addEventListener('click', () => go(name));
  nav.appendChild(b);
  views[name] = { draw, node: null, button: b };
}
function go(name, arg) {
  const v = views[name];
  if (!v) return;
  for (const k in views) {
    views[k].button.classList.toggle('on', k === name);
    if (views[k].node) views[k].node.hidden = k !== name;
  }
  if (!v.node) { v.node = el('section', 'bc-view'); v.node.id = 'view-' + name; main.appendChild(v.node); v.draw(v.node); }
  v.node.hidden = false;
  current = name;
  window.scrollTo(0, 0);
  if (v.open) v.open(arg);
  document.body.dataset.view = name;
}

/* A table of JSON rows (the commands' tables), every column they have. */
function jsonTable(rows, opts) {
  opts = opts || {};
  const kinds = opts.kinds || {};
  const t = el('table', 'bc-table');
  if (!rows || !rows.length) { return el('p', 'bc-empty', opts.empty || 'none'); }
  const keys = [];
  for (const r of rows.slice(0, 50)) for (const k in r) if (!keys.includes(k) && (!opts.skip || !opts.skip.includes(k))) keys.push(k);
  const head = add(el('thead'), add(el('tr'), ...keys.map((k) => el('th', null, k))));
  const body = el('tbody');
  const max = opts.max || 500;
  for (const r of rows.slice(0, max)) {
    const tr = el('tr');
    for (const k of keys) {
      const v = r[k];
      let text;
      /* null: unknown ("?"), but a text column's null is none (no name) */
      if (v === null || v === undefined) text = v === null && kinds[k] !== 'str' ? '?' : '';
      else if (Array.isArray(v)) text = v.map((x) => typeof x === 'object' ? JSON.stringify(x) : x).join(', ');
      else if (typeof v === 'object') text = JSON.stringify(v);
      else if (typeof v === 'number' && kinds[k]) text = fmt(kinds[k], v);
      else if (typeof v === 'number' && /(^|_)bytes$/.test(k)) text = bytes(v);
      else text = typeof v === 'number' ? count(v) : v;
      const td = el('td', typeof v === 'number' ? 'num' : null, text);
      if (typeof v === 'number') td.dataset.value = v;
      if (typeof v === 'string' && /^<\d+\.\d+\.\d+>$/.test(v) && rowOf(v) >= 0) {
        td.classList.add('bc-link');
        td.addEventListener('click', () => openProc(v));
      }
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  add(t, head, body);
  const wrap = el('div', 'bc-table-wrap');
  wrap.appendChild(t);
  if (rows.length > max) wrap.appendChild(el('p', 'bc-cut', 'the first ' + max + ' of ' + count(rows.length) + ' rows shown'));
  return wrap;
}
function kvList(obj, kinds) {
  const dl = el('dl', 'bc-kv');
  for (const k in obj) {
    const v = obj[k];
    if (v !== null && typeof v === 'object') continue;
    const dd = el('dd', typeof v === 'number' ? 'num' : null,
      typeof v === 'number' ? (kinds === 'bytes' ? bytes(v) : count(v)) : v === null ? '?' : String(v));
    if (typeof v === 'number') dd.dataset.value = v;
    dd.dataset.key = k;
    add(dl, el('dt', null, k), dd);
  }
  return dl;
}
/* every table (array of objects) of a command's output, under its key */
function sectionTables(node, sec, skip) {
  if (!sec) { node.appendChild(el('p', 'bc-empty', 'not in this report')); return; }
  if (sec.error) { node.appendChild(el('p', 'bc-error', sec.error)); return; }
  if (sec.not_recorded) { node.appendChild(el('p', 'bc-empty', 'not in this input: ' + sec.not_recorded)); return; }
  const ck = sec.column_kinds || {};
  for (const k in sec) {
    if ((skip && skip.includes(k)) || k === 'column_kinds' || k === 'rows_cut') continue;
    const v = sec[k];
    const h = el('h3', null, k);
    h.dataset.key = k;
    if (Array.isArray(v) && v.length && typeof v[0] === 'object' && k !== 'findings') {
      node.appendChild(h);
      const t = jsonTable(v, { kinds: ck[k] });
      t.dataset.key = k;
      node.appendChild(t);
      const cut = sec.rows_cut && sec.rows_cut[k];
      if (cut) node.appendChild(el('p', 'bc-cut', 'the first ' + count(cut.shown) + ' of ' + count(cut.of) + ' rows (the command\'s --json lists them all)'));
    } else if (Array.isArray(v) && !v.length && k !== 'findings') {
      node.appendChild(h);
      node.appendChild(el('p', 'bc-empty', 'none'));
    } else if (v && typeof v === 'object' && !Array.isArray(v)) {
      node.appendChild(h);
      node.appendChild(kvList(v, ck[k] === 'bytes' ? 'bytes' : null));
    }
  }
  findingsList(node, sec.findings);
}
function findingsList(node, fs) {
  if (!fs || !fs.length) return;
  const ul = el('ul', 'bc-findings');
  for (const f of fs) {
    const li = el('li', 'sev-' + (f.severity || 'info'));
    li.appendChild(el('span', 'bc-sev', f.severity || 'info'));
    const a = el('a', 'bc-finding', f.text);
    a.href = '#';
    a.addEventListener('click', (e) => { e.preventDefault(); followFinding(f); });
    li.appendChild(a);
    ul.appendChild(li);
  }
  node.appendChild(ul);
}
/* the view that shows what a finding is about */
function followFinding(f) {
  const k = f.kind || 'note';
  if (/deadlock|bottleneck|wait|call/.test(k)) return go('waits');
  if (/port/.test(k)) return go('waits');
  if (/binar/.test(k)) return go('tables', 'binaries');
  if (/ets/.test(k)) return go('tables', 'ets');
  if (/subtree|tree|supervis/.test(k)) return go('tree');
  if (/stack/.test(k)) return go('stacks');
  if (f.pid && rowOf(f.pid) >= 0) return openProc(f.pid);
  if (/memory|garbage|kind|atom/.test(k)) return go('memory');
  return go('overview');
}

/* ---- Overview: what the target is, how it died, the findings, what is missing ---- */
view('overview', 'Overview', (node) => {
  const t = D.target || {};
  const h = el('div', 'bc-header');
  h.appendChild(el('h1', null, (t.node || 'unnamed node') + ' \u2014 ' + (t.kind || '?')));
  const facts = {
    node: t.node, otp_release: t.otp_release, erts_version: t.erts_version,
    flavor: t.jit === null || t.jit === undefined ? '?' : t.jit ? 'jit' : 'emu',
    path: t.path, executable: t.executable, arch: t.arch,
    time: t.time ? new Date(t.time * 1000).toISOString() : null,
    processes: count(t.process_count), process_limit: t.process_limit, schedulers: t.schedulers,
    atoms: t.atom_count, signal: t.signal,
  };
  h.appendChild(kvList(facts));
  const death = deathLine(t);
  if (death) h.appendChild(el('p', 'bc-death', death));
  if (D.target_a) {
    const a = el('p', 'bc-link', 'this is B, compared with A: ' + (D.target_a.path || '?') + ' (the Changes view: what diff A B says)');
    a.id = 'overview-changes';
    a.addEventListener('click', () => go('changes'));
    h.appendChild(a);
  }
  node.appendChild(h);
  node.appendChild(el('h2', null, 'Findings'));
  const sum = S.summary || {};
  if (sum.findings && sum.findings.length) findingsList(node, sum.findings);
  else node.appendChild(el('p', 'bc-empty', 'no findings'));
  node.appendChild(el('h2', null, 'What this report could not read'));
  const miss = (D.missing || []).concat(D.missing_report || []);
  if (!miss.length) node.appendChild(el('p', 'bc-complete', 'nothing: the report is complete'));
  else {
    const ul = el('ul', 'bc-missing');
    for (const m of miss) ul.appendChild(el('li', null, m));
    node.appendChild(ul);
    if (D.missing_total > (D.missing || []).length)
      node.appendChild(el('p', 'bc-cut', (D.missing_total - D.missing.length) + ' more not listed'));
  }
  /* the summary's own tables (its top processes and the like) */
  sectionTables(node, sum, ['findings']);
});
function deathLine(t) {
  const d = t.death;
  if (d && typeof d === 'object') {
    /* the summary's death lines: slogan, meaning, what ran */
    const parts = [];
    if (d.slogan) parts.push('Slogan: ' + d.slogan);
    if (d.meaning) parts.push(d.meaning);
    if (d.culprit) parts.push('culprit ' + d.culprit + (d.culprit_scheduler ? ' on ' + d.culprit_scheduler : ''));
    for (const r of d.running || []) parts.push('running ' + r.pid + ' on ' + r.scheduler);
    return parts.join(' \u2014 ');
  }
  if (t.signal) return 'killed by ' + t.signal + (t.signal_sender ? ' sent by pid ' + t.signal_sender : '');
  return t.kind === 'core' ? 'no fatal signal: a live snapshot (gcore)' : null;
}

/* ---- Memory: erlang:memory(), allocators, the treemap ---- */
/* ---- Changes (report A B): what diff A B says, drawn; the other views are B's ---- */
function sbytes(v) { return v === null || v === undefined ? '?' : (v < 0 ? '-' : '+') + bytes(Math.abs(v)); }
function swords(v) { return v === null || v === undefined ? '?' : (v < 0 ? '-' : '+') + words(Math.abs(v)); }
function scount(v) { return v === null || v === undefined ? '?' : (v < 0 ? '-' : '+') + count(Math.abs(v)); }
/* rows of [name, a, b, delta, relative, format]: a table with the change as a bar */
function changeTable(rows, fmtv, fmtd, id) {
  const t = el('table', 'bc-table bc-changes');
  if (id) t.id = id;
  add(t, add(el('thead'), add(el('tr'), ...['', 'A', 'B', 'change', '', ''].map((h) => el('th', null, h)))));
  const body = el('tbody');
  const most = Math.max(1, ...rows.map((r) => Math.abs(r[3] || 0)));
  for (const [name, a, b, d, rel] of rows) {
    const tr = el('tr');
    const bar = el('div', 'bc-delta ' + ((d || 0) < 0 ? 'down' : 'up'));
    bar.style.width = Math.round(160 * Math.abs(d || 0) / most) + 'px';
    const tdName = el('td', null, name);
    add(tr, tdName, el('td', 'num', fmtv(a)), el('td', 'num', fmtv(b)), el('td', 'num', fmtd(d)),
      el('td', 'num', rel === null || rel === undefined ? '' : (rel >= 0 ? '+' : '') + (100 * rel).toFixed(1) + '%'), add(el('td'), bar));
    tr.dataset.key = name;
    tr.dataset.delta = d;
    body.appendChild(tr);
  }
  t.appendChild(body);
  return add(el('div', 'bc-table-wrap'), t);
}
if (S.diff) view('changes', 'Changes', (node) => {
  const d = S.diff;
  if (d.error) { node.appendChild(el('p', 'bc-error', d.error)); return; }
  const A = D.target_a || {}, B = D.target || {}, iv = d.interval || {};
  node.appendChild(el('h2', null, 'A \u2192 B: ' + (iv.seconds !== null && iv.seconds !== undefined ? iv.seconds.toFixed(1) + ' s apart' : 'interval unknown')));
  node.appendChild(kvList({ A: (A.kind || '') + ' ' + (A.path || ''), B: (B.kind || '') + ' ' + (B.path || ''),
    'A processes': A.process_count, 'B processes': B.process_count }));
  findingsList(node, d.findings);
  if (d.memory) {
    node.appendChild(el('h3', null, 'erlang:memory()'));
    node.appendChild(changeTable(Object.entries(d.memory).map(([k, v]) => [k, v.a, v.b, v.delta, v.relative]), bytes, sbytes, 'changes-memory'));
  }
  const groups = (rows, what, metric, fv, fd, id, total) => {
    if (!Array.isArray(rows)) return;
    node.appendChild(el('h3', null, what + ' (' + count(total !== undefined ? total : rows.length) + ' in both), largest ' + metric + ' growth first'));
    node.appendChild(changeTable(rows.map((r) => [r.name || r.key, r.a && r.a[metric], r.b && r.b[metric], r.delta && r.delta[metric], r.relative && r.relative[metric]]), fv, fd, id));
    if (total !== undefined && total > rows.length) node.appendChild(el('p', 'bc-cut', 'the first ' + count(rows.length) + ' of ' + count(total) + ' (diff --json lists them all)'));
  };
  groups(d.processes, 'Process groups', 'memory', bytes, sbytes, 'changes-processes', d.processes_total);
  groups(d.ets, 'ETS tables', 'memory', words, swords, 'changes-ets', d.ets_total);  /* (ets:info's memory: words) */
  for (const [k, title] of [['only_in_a', 'Only in A (gone)'], ['only_in_b', 'Only in B (new)']]) {
    node.appendChild(el('h3', null, title));
    node.appendChild(jsonTable(d[k] || [], { kinds: (d.column_kinds || {})[k] }));
  }
});

view('memory', 'Memory', (node) => {
  const mem = S.memory || {};
  const grid = el('div', 'bc-cols');
  const left = el('div'), right = el('div');
  left.appendChild(el('h2', null, 'erlang:memory()'));
  const mk = mem.column_kinds || {};
  for (const k in mem) if (mem[k] && typeof mem[k] === 'object' && !Array.isArray(mem[k]) && k !== 'column_kinds') {
    left.appendChild(el('h3', null, k));
    const kv = kvList(mem[k], mk[k] === 'bytes' ? 'bytes' : null);
    kv.id = 'memory-' + k;
    left.appendChild(kv);
  }
  for (const k in mem) if (Array.isArray(mem[k]) && mem[k].length && typeof mem[k][0] === 'object' && k !== 'findings') {
    right.appendChild(el('h3', null, k));
    right.appendChild(jsonTable(mem[k], { kinds: mk[k] }));
  }
  add(grid, left, right);
  node.appendChild(grid);
  node.appendChild(el('h2', null, 'Process memory'));
  const bar = el('div', 'bc-toolbar');
  const by = el('select', 'bc-group');
  by.id = 'treemap-by';
  for (const [v, t] of [['tree', 'by supervision subtree'], ['label', 'by kind (label)'], ['initial_call', 'by kind (initial call)']]) {
    const o = el('option', null, t); o.value = v; by.appendChild(o);
  }
  const crumbs = el('span', 'bc-crumbs');
  add(bar, by, crumbs);
  node.appendChild(bar);
  const box = el('div', 'bc-treemap');
  box.id = 'treemap';
  node.appendChild(box);
  let stack = [];
  function redraw() {
    const root = stack[stack.length - 1];
    crumbs.textContent = '';
    stack.forEach((n, i) => {
      const a = el('a', 'bc-crumb', n.name + ' (' + bytes(n.size) + ')'); a.href = '#';
      a.addEventListener('click', (e) => { e.preventDefault(); stack = stack.slice(0, i + 1); redraw(); });
      crumbs.appendChild(a);
    });
    drawTreemap(box, root, (n) => {
      if (n.row !== undefined && (!n.kids || !n.kids.length)) openProc(cell('pid', n.row));
      else if (n.kids && n.kids.length) { stack.push(n); redraw(); }
    });
  }
  by.addEventListener('change', () => { stack = [memTree(by.value)]; redraw(); });
  stack = [memTree('tree')];
  requestAnimationFrame(redraw);
  node.appendChild(el('p', 'bc-cut', 'Hatched: the garbage proc estimated (garbage_bytes), of the processes this page holds the detail of; a subtree\'s is at least theirs.'));
  if (S.summary && S.summary.findings) {
    const g = S.summary.findings.filter((f) => /garbage/.test(f.kind || '') || /garbage/.test(f.text));
    if (g.length) { node.appendChild(el('h3', null, 'Garbage')); findingsList(node, g); }
  }
});
/* process memory as a tree: by supervisor (processes.parent), or grouped by a
 * column's text */
/* the garbage proc estimated of a process the page holds the detail of
 * (null: not estimated) */
function garbageOf(r) {
  const d = D.details && D.details[cell('pid', r)];
  const g = d && d.process && d.process.garbage_bytes;
  return typeof g === 'number' ? g : null;
}
function memTree(by) {
  const mem = COL.memory ? COL.memory.values : [];
  const root = { name: by === 'tree' ? 'all processes' : 'all processes by ' + by, size: 0, kids: [] };
  if (by === 'tree' && P.parent) {
    const nodes = new Array(N);
    for (let r = 0; r < N; r++) nodes[r] = { name: (cell('registered_name', r) || label(r) || cell('pid', r)) + ' ' + cell('pid', r), row: r, own: mem[r] || 0, size: 0, kids: [], ownGarbage: garbageOf(r) || 0 };
    const loose = { name: 'not under a supervisor', size: 0, kids: [] };
    for (let r = 0; r < N; r++) {
      const p = P.parent[r];
      if (p >= 0 && p < N && p !== r) nodes[p].kids.push(nodes[r]);
    }
    for (let r = 0; r < N; r++) if (!(P.parent[r] >= 0)) (nodes[r].kids.length ? root.kids : loose.kids).push(nodes[r]);
    const sum = (n) => { let s = n.own || 0; n.garbage = n.ownGarbage; for (const k of n.kids) { s += sum(k); n.garbage += k.garbage; } n.size = s; return s; };
    for (const k of root.kids) sum(k);
    for (const k of loose.kids) sum(k);
    loose.size = loose.kids.reduce((a, k) => a + k.size, 0);
    loose.garbage = loose.kids.reduce((a, k) => a + k.garbage, 0);
    if (loose.kids.length) root.kids.push(loose);
    /* a supervisor is a cell of its own too (its own memory beside its children) */
    const self = (n) => { if (n.kids.length) { if (n.own) n.kids.push({ name: n.name + ' (itself)', row: n.row, size: n.own, kids: [], garbage: n.ownGarbage }); n.kids.forEach(self); } };
    root.kids.forEach(self);
  } else {
    const groups = new Map();
    for (let r = 0; r < N; r++) {
      const k = (by === 'tree' ? '' : cell(by, r)) || '(none)';
      let g = groups.get(k);
      if (!g) { g = { name: k, size: 0, kids: [], garbage: 0 }; groups.set(k, g); }
      const garbage = garbageOf(r) || 0;
      g.kids.push({ name: (label(r) || '') + ' ' + cell('pid', r), row: r, size: mem[r] || 0, kids: [], garbage });
      g.size += mem[r] || 0;
      g.garbage += garbage;
    }
    root.kids = Array.from(groups.values());
  }
  root.size = root.kids.reduce((a, k) => a + k.size, 0);
  return root;
}
/* squarified treemap of node's children (the largest 400; the rest one cell) */
function drawTreemap(box, node, onClick) {
  box.textContent = '';
  const W = box.clientWidth || 900, H = box.clientHeight || 480;
  let kids = node.kids.filter((k) => k.size > 0).sort((a, b) => b.size - a.size);
  if (kids.length > 400) {
    const rest = kids.slice(400);
    kids = kids.slice(0, 400);
    kids.push({ name: rest.length + ' more', size: rest.reduce((a, k) => a + k.size, 0), kids: rest });
  }
  const total = kids.reduce((a, k) => a + k.size, 0);
  if (!total) { box.appendChild(el('p', 'bc-empty', 'no process memory known')); return; }
  const scale = (W * H) / total;
  let x = 0, y = 0, w = W, h = H, i = 0;
  const worst = (row, side) => {
    const s = row.reduce((a, k) => a + k.size * scale, 0);
    let m = 0;
    for (const k of row) { const a = k.size * scale; m = Math.max(m, (side * side * a) / (s * s), (s * s) / (side * side * a)); }
    return m;
  };
  while (i < kids.length) {
    const side = Math.min(w, h);
    let row = [kids[i]], j = i + 1;
    while (j < kids.length && worst(row.concat([kids[j]]), side) <= worst(row, side)) { row.push(kids[j]); j++; }
    const s = row.reduce((a, k) => a + k.size * scale, 0);
    const thick = s / side;
    let off = 0;
    for (const k of row) {
      const len = (k.size * scale) / thick;
      const c = el('div', 'bc-cell' + (k.kids && k.kids.length ? ' group' : ''));
      const cx = w >= h ? x : x + off, cy = w >= h ? y + off : y;
      const cw = w >= h ? thick : len, ch = w >= h ? len : thick;
      Object.assign(c.style, { left: cx + 'px', top: cy + 'px', width: Math.max(cw - 1, 0) + 'px', height: Math.max(ch - 1, 0) + 'px' });
      c.style.background = 'hsl(' + (hash(k.name) % 360) + ',45%,' + (k.kids && k.kids.length ? 72 : 82) + '%)';
      c.title = k.name + ': ' + bytes(k.size);
      if (cw > 40 && ch > 14) c.textContent = k.name + ' ' + bytes(k.size);
      if (k.garbage > 0) {  /* hatched from the bottom: its share of garbage */
        c.title += ', garbage ' + (k.kids && k.kids.length ? 'at least ' : '') + bytes(k.garbage) + ' (estimated)';
        c.dataset.garbage = k.garbage;
        const g = el('div', 'bc-garbage');
        g.style.height = Math.min(100, (100 * k.garbage) / k.size) + '%';
        c.appendChild(g);
      }
      if (k.row !== undefined) c.dataset.pid = cell('pid', k.row);
      c.addEventListener('click', () => onClick(k));
      box.appendChild(c);
      off += len;
    }
    if (w >= h) { x += thick; w -= thick; } else { y += thick; h -= thick; }
    i = j;
  }
}
function hash(s) { let h = 0; for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0; return h; }

/* ---- Processes: every row, sorted and filtered, virtual scrolling ---- */
const SHOWN = [['pid', 'PID'], ['label', 'LABEL'], ['memory', 'MEMORY'], ['total_heap_size', 'TOTAL_HEAP'],
  ['heap_size', 'HEAP'], ['stack_size', 'STACK'], ['message_queue_len', 'MSGQ'], ['reductions', 'REDS'],
  ['status', 'STATUS'], ['current_function', 'CURRENT FUNCTION']];
const RH = 22;
const procs = { rows: null, key: 'total_heap_size', filter: '' };
view('processes', 'Processes', (node) => {
  const bar = el('div', 'bc-toolbar');
  const f = el('input', 'bc-filter'); f.id = 'proc-filter'; f.placeholder = 'filter: pid, label or current function';
  const s = el('select', 'bc-sort'); s.id = 'proc-sort';
  for (const k of P.sort_keys) { const o = el('option', null, 'sort: ' + k.name); o.value = k.name; s.appendChild(o); }
  s.value = procs.key;
  const info = el('span', 'bc-info'); info.id = 'proc-count';
  add(bar, f, s, info);
  node.appendChild(bar);
  const head = el('div', 'bc-vhead');
  for (const [k, t] of SHOWN) {
    const h = el('span', 'c-' + k, t);
    if (P.sort_keys.find((x) => x.name === k || (k === 'label' && x.name === 'name'))) {
      h.classList.add('sortable');
      h.addEventListener('click', () => { s.value = k === 'label' ? 'name' : k; s.dispatchEvent(new Event('change')); });
    }
    head.appendChild(h);
  }
  node.appendChild(head);
  const vp = el('div', 'bc-viewport'); vp.id = 'proc-viewport';
  const spacer = el('div', 'bc-spacer');
  vp.appendChild(spacer);
  node.appendChild(vp);
  const detail = el('div', 'bc-detail'); detail.id = 'proc-detail';
  node.appendChild(detail);
  function refresh() {
    const t0 = performance.now();
    procs.rows = sortRows(Array.from(filterRows(procs.filter)), procs.key);
    procs.ms = performance.now() - t0;
    info.textContent = count(procs.rows.length) + ' of ' + count(N) + ' processes';
    spacer.style.height = procs.rows.length * RH + 'px';
    vp.scrollTop = 0;
    paint();
  }
  function paint() {
    for (const r of Array.from(spacer.children)) r.remove();
    const first = Math.max(0, Math.floor(vp.scrollTop / RH) - 5);
    const last = Math.min(procs.rows.length, first + Math.ceil((vp.clientHeight || 600) / RH) + 10);
    for (let i = first; i < last; i++) {
      const r = procs.rows[i];
      const line = el('div', 'bc-row');
      line.style.top = i * RH + 'px';
      line.dataset.pid = cell('pid', r);
      for (const [k] of SHOWN) {
        const c = COL[k];
        const v = k === 'label' ? label(r) : cell(k, r);
        line.appendChild(el('span', 'c-' + k + (c && c.kind !== 'str' ? ' num' : ''), c ? fmt(c.kind, v) : ''));
      }
      line.addEventListener('click', () => showProc(detail, r));
      spacer.appendChild(line);
    }
  }
  vp.addEventListener('scroll', () => requestAnimationFrame(paint));
  let timer = 0;
  f.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => { procs.filter = f.value; refresh(); }, 120); });
  s.addEventListener('change', () => { procs.key = s.value; refresh(); });
  views.processes.open = (pid) => { if (pid) showProc(detail, rowOf(pid)); };
  refresh();
});
/* the page's state for a test or a script: the rows in the order shown */
Object.assign(window.beamcoreReport, {
  data: D,
  shownPids: () => (procs.rows || []).map((r) => cell('pid', r)),
  sort: (key) => { const s = document.getElementById('proc-sort'); s.value = key; s.dispatchEvent(new Event('change')); return procs.ms; },
  filter: (text) => { procs.filter = text; const f = document.getElementById('proc-filter'); f.value = text; f.dispatchEvent(new Event('input')); },
});
function openProc(pid) { go('processes', pid); }
function showProc(node, r) {
  node.textContent = '';
  if (r < 0) return;
  const pid = cell('pid', r);
  node.dataset.pid = pid;
  const close = el('button', 'bc-close', '\u00d7');
  close.addEventListener('click', () => { node.textContent = ''; delete node.dataset.pid; });
  node.appendChild(close);
  node.appendChild(el('h2', null, pid + ' ' + (cell('label', r) || '')));
  const facts = {};
  for (const c of P.columns) facts[c.json] = fmt(c.kind, cell(c.json, r));
  if (P.parent && P.parent[r] >= 0) facts.supervisor = cell('pid', P.parent[r]);
  node.appendChild(kvList(facts));
  const d = D.details && D.details[pid];
  if (!d) {
    node.appendChild(el('p', 'bc-cut', 'its links, monitors, stack and terms are not in this report (only the first ' +
      (D.details_per_key || 0) + ' by each sort key are: beamcore report --details N)'));
    return;
  }
  if (d.error) { node.appendChild(el('p', 'bc-error', d.error)); return; }
  for (const k in d) {
    const v = d[k];
    if (k === 'findings') continue;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const f in v) {
        const x = v[f];
        if (Array.isArray(x)) {
          node.appendChild(el('h3', null, f));
          if (x.length && typeof x[0] === 'object') node.appendChild(jsonTable(x));
          else { const pre = el('pre', 'bc-list'); pre.textContent = x.map((i) => typeof i === 'object' ? JSON.stringify(i) : i).join('\n') || '(none)'; node.appendChild(pre); }
        } else if (x && typeof x === 'object') { node.appendChild(el('h3', null, f)); node.appendChild(kvList(x)); }
      }
      const scal = {};
      for (const f in v) if (v[f] === null || typeof v[f] !== 'object') scal[f] = v[f];
      node.insertBefore(kvList(scal), node.children[3] || null);
    } else if (Array.isArray(v) && v.length && typeof v[0] === 'object') {
      node.appendChild(el('h3', null, k));
      node.appendChild(jsonTable(v));
    }
  }
  findingsList(node, d.findings);
}

/* ---- Stacks: an icicle of the grouped Erlang stacks ---- */
view('stacks', 'Stacks', (node) => {
  const sec = S.stacks || {};
  let groups = null;
  for (const k in sec) if (Array.isArray(sec[k]) && sec[k].length && sec[k][0].current_stacktrace !== undefined) groups = sec[k];
  if (sec.error) { node.appendChild(el('p', 'bc-error', sec.error)); return; }
  if (!groups) { node.appendChild(el('p', 'bc-empty', 'no stacks in this input')); return; }
  const bar = el('div', 'bc-toolbar');
  const w = el('select'); w.id = 'flame-weight';
  for (const k of ['count', 'memory', 'total_heap_size', 'message_queue_len', 'binary']) { const o = el('option', null, 'weight: ' + k); o.value = k; w.appendChild(o); }
  const q = el('input', 'bc-filter'); q.id = 'flame-search'; q.placeholder = 'search frames';
  const crumbs = el('span', 'bc-crumbs');
  add(bar, w, q, crumbs);
  node.appendChild(bar);
  const box = el('div', 'bc-flame'); box.id = 'flame';
  node.appendChild(box);
  /* the weight of a group: stacks' sums over its processes (null: some
   * process's is not in the input, counted as 0 and said below) */
  const unknownNote = el('p', 'bc-cut');
  function weight(g, k) {
    const v = g[k];
    if (v === null || v === undefined) { unknownNote.textContent = 'some groups\' ' + k + ' is unknown in this input (a crash dump does not record binaries): they weigh 0 here'; return 0; }
    return v;
  }
  function build(k) {
    const root = { name: 'all', value: 0, kids: new Map() };
    for (const g of groups) {
      const v = weight(g, k);
      const frames = (g.current_stacktrace || []).slice().reverse();
      if (!frames.length) frames.push(g.hibernating ? 'hibernating ' + (g.initial_call || '') : '(no stack)');
      if (g.status) frames.unshift('[' + g.status + ']');
      let n = root; n.value += v;
      for (const f of frames) {
        let c = n.kids.get(f);
        if (!c) { c = { name: f, value: 0, kids: new Map() }; n.kids.set(f, c); }
        c.value += v; n = c;
      }
    }
    return root;
  }
  let root = build('count'), focus = root;
  function draw() {
    box.textContent = '';
    const W = box.clientWidth || 900, needle = lowerAscii(q.value);
    let depth = 0;
    function place(n, x, wpx, d) {
      if (wpx < 1) return;
      depth = Math.max(depth, d);
      const b = el('div', 'bc-frame' + (needle && lowerAscii(n.name).includes(needle) ? ' hit' : ''));
      Object.assign(b.style, { left: x + 'px', top: d * 20 + 'px', width: Math.max(wpx - 1, 0) + 'px' });
      b.style.background = 'hsl(' + (20 + hash(n.name.split(':')[0]) % 40) + ',80%,' + (60 + hash(n.name) % 20) + '%)';
      b.title = n.name + ': ' + count(n.value);
      if (wpx > 30) b.textContent = n.name;
      b.addEventListener('click', () => { focus = n; draw(); });
      box.appendChild(b);
      let off = x;
      for (const c of Array.from(n.kids.values()).sort((a, b2) => b2.value - a.value)) {
        const cw = n.value ? (c.value / n.value) * wpx : 0;
        place(c, off, cw, d + 1);
        off += cw;
      }
    }
    place(focus, 0, W, 0);
    box.style.height = (depth + 1) * 20 + 4 + 'px';
    crumbs.textContent = focus === root ? '' : 'zoomed: ' + focus.name + ' (click the top bar to go back)';
    if (focus !== root) box.firstChild.addEventListener('click', () => { focus = root; draw(); }, { once: true });
  }
  node.appendChild(unknownNote);
  w.addEventListener('change', () => { unknownNote.textContent = ''; root = build(w.value); focus = root; draw(); });
  q.addEventListener('input', draw);
  requestAnimationFrame(draw);
  node.appendChild(el('h3', null, 'Groups'));
  node.appendChild(jsonTable(groups.map((g) => ({ count: g.count, memory: g.memory, total_heap_size: g.total_heap_size, status: g.status, stack: (g.current_stacktrace || []).join(' <- ') })), { max: 200 }));
});

/* ---- Waits: who waits on whom, cycles marked; ports ---- */
view('waits', 'Waits', (node) => {
  const sec = S.waits || {};
  if (sec.error) { node.appendChild(el('p', 'bc-error', sec.error)); return; }
  findingsList(node, sec.findings);
  /* waits' cycles: each a list of pids, each waiting in a call on the next */
  const cycles = Array.isArray(sec.cycles) ? sec.cycles.map((c) => Array.isArray(c) ? c : (c && c.pids) || []).filter((c) => c.length) : [];
  const cyc = new Set();
  cycles.forEach((c) => c.forEach((p) => cyc.add(p)));
  const svgNS = 'http://www.w3.org/2000/svg';
  const svgEl = (tag, attrs, text) => {
    const e = document.createElementNS(svgNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const pidName = (pid) => { const r = rowOf(pid); return pid + (r >= 0 && label(r) ? ' ' + label(r) : ''); };
  if (cycles.length) {
    /* each cycle a ring of its processes, an arrow from each to the one it
     * waits on (the first 20 cycles; each of at most 24 drawn) */
    node.appendChild(el('h2', null, 'Deadlocks: ' + count(cycles.length) + ' cycle' + (cycles.length === 1 ? '' : 's') + ' of calls'));
    const box = el('div', 'bc-cycles'); box.id = 'wait-cycles';
    cycles.slice(0, 20).forEach((c, ci) => {
      const ring = c.slice(0, 24), n = ring.length;
      const R = n <= 2 ? 70 : Math.min(200, 40 + n * 14), W = 2 * R + 320, H = 2 * R + 60;
      const svg = svgEl('svg', { viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, class: 'bc-cycle' });
      const mid = 'arrow' + ci;
      const d = svgEl('defs', {});
      const m = svgEl('marker', { id: mid, viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: 'auto-start-reverse' });
      m.appendChild(svgEl('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'cycle' }));
      d.appendChild(m); svg.appendChild(d);
      const cx = W / 2, cy = H / 2;
      const at = (i) => { const a = -Math.PI / 2 + (2 * Math.PI * i) / n; return [cx + R * Math.cos(a), cy + R * Math.sin(a)]; };
      for (let i = 0; i < n; i++) {
        const [x1, y1] = at(i), [x2, y2] = at((i + 1) % n);
        const dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy) || 1, k = 9 / len;
        /* two processes: the arrows bend apart, as the two calls */
        const bend = n === 2 ? 30 : 0;
        const mx = (x1 + x2) / 2 - (dy / len) * bend, my = (y1 + y2) / 2 + (dx / len) * bend;
        svg.appendChild(svgEl('path', { d: 'M ' + (x1 + dx * k) + ' ' + (y1 + dy * k) + ' Q ' + mx + ' ' + my + ' ' + (x2 - dx * k) + ' ' + (y2 - dy * k),
          class: 'edge cycle', fill: 'none', 'marker-end': 'url(#' + mid + ')' }));
      }
      ring.forEach((pid, i) => {
        const [x, y] = at(i);
        svg.appendChild(svgEl('circle', { cx: x, cy: y, r: 6, class: 'cycle' }));
        const t = svgEl('text', { x: x + (x >= cx ? 10 : -10), y: y + 4, 'text-anchor': x >= cx ? 'start' : 'end', class: 'cycle cycle-node' }, pidName(pid));
        t.dataset.pid = pid;
        if (rowOf(pid) >= 0) t.addEventListener('click', () => openProc(pid));
        svg.appendChild(t);
      });
      box.appendChild(svg);
      box.appendChild(el('p', 'bc-cycle-text', ring.map(pidName).join(' \u2192 ') + ' \u2192 ' + pidName(ring[0]) +
        (c.length > n ? ' (' + count(c.length - n) + ' more in the cycle not drawn)' : '')));
    });
    if (cycles.length > 20) box.appendChild(el('p', 'bc-cut', 'the first 20 cycles of ' + count(cycles.length)));
    node.appendChild(box);
  }
  /* the callees by waiters: waits' groups (each callee, its count, via) */
  const callees = Array.isArray(sec.groups) ? sec.groups.filter((g) => g && g.callee) : [];
  if (callees.length) {
    node.appendChild(el('h2', null, 'Call-wait graph'));
    const ncallees = sec.rows_cut && sec.rows_cut.groups ? sec.rows_cut.groups.of : callees.length;
    const list = callees.slice().sort((a, b) => (b.count || 0) - (a.count || 0)).slice(0, 60).map((g) => [g.callee, g]);
    const H = Math.max(list.length * 28 + 20, 60), W = 900;
    const svg = document.createElementNS(svgNS, 'svg');
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H); svg.setAttribute('width', W); svg.setAttribute('height', H);
    svg.id = 'wait-graph';
    list.forEach(([callee, g], i) => {
      const y = 20 + i * 28;
      const line = document.createElementNS(svgNS, 'line');
      line.setAttribute('x1', 330); line.setAttribute('y1', y); line.setAttribute('x2', 560); line.setAttribute('y2', y);
      line.setAttribute('class', cyc.has(callee) ? 'edge cycle' : 'edge');
      svg.appendChild(line);
      const a = document.createElementNS(svgNS, 'text');
      a.setAttribute('x', 320); a.setAttribute('y', y + 4); a.setAttribute('text-anchor', 'end');
      a.textContent = count(g.count) + ' waiter' + (g.count === 1 ? '' : 's') + (g.via ? ' via ' + g.via : '');
      svg.appendChild(a);
      const b = document.createElementNS(svgNS, 'text');
      b.setAttribute('x', 570); b.setAttribute('y', y + 4);
      b.setAttribute('class', cyc.has(callee) ? 'cycle' : '');
      const r = rowOf(callee);
      b.textContent = pidName(callee) + (cyc.has(callee) ? ' (deadlock)' : '');
      if (r >= 0) b.addEventListener('click', () => openProc(callee));
      svg.appendChild(b);
    });
    node.appendChild(svg);
    if (ncallees > list.length) node.appendChild(el('p', 'bc-cut', 'the 60 callees most waited on of ' + count(ncallees)));
  }
  sectionTables(node, sec, ['findings', 'cycles']);
  node.appendChild(el('h2', null, 'Ports'));
  sectionTables(node, S.ports, []);
});

/* ---- Tree: the supervision tree, collapsible, each subtree rolled up ---- */
view('tree', 'Tree', (node) => {
  const sec = S.tree || {};
  if (sec.error) { node.appendChild(el('p', 'bc-error', sec.error)); return; }
  findingsList(node, sec.findings);
  const trees = sec.trees || (sec.tree && sec.tree.trees) || [];
  if (!trees.length) { node.appendChild(el('p', 'bc-empty', 'no supervision tree in this input')); }
  const ul = el('ul', 'bc-tree');
  /* the leaves (children without children of their own: tree lists them by
   * count, "leaves") are the processes table's rows whose parent is the node,
   * largest memory first */
  let leafRows = null;
  function leavesOf(pid) {
    if (!leafRows) {
      leafRows = new Map();
      const par = P.parent || [], has = new Uint8Array(N);
      for (let r = 0; r < N; r++) if (par[r] >= 0) has[par[r]] = 1;
      for (let r = 0; r < N; r++) if (par[r] >= 0 && !has[r]) { const a = leafRows.get(par[r]) || []; a.push(r); leafRows.set(par[r], a); }
    }
    const rows = leafRows.get(rowOf(pid)) || [];
    return rows.sort((a, b) => (cell('memory', b) || 0) - (cell('memory', a) || 0));
  }
  const LEAVES_SHOWN = 200;
  function leaf(r) {
    const li = el('li');
    const head = el('span', 'bc-node bc-link', '  ' + cell('pid', r) + ' ' + (label(r) || '') + ' \u2014 ' + bytes(cell('memory', r)));
    head.addEventListener('click', () => openProc(cell('pid', r)));
    li.appendChild(head);
    return li;
  }
  function item(t) {
    const li = el('li');
    const s = t.subtree || {};
    const kids = t.children || [], nleaves = t.leaves || 0, nkids = kids.length + nleaves;
    const head = el('span', 'bc-node' + (nkids ? ' open' : ''));
    head.textContent = (nkids ? '\u25be ' : '  ') + t.pid + ' ' + (t.registered_name || t.label || '') + (t.type === 'supervisor' ? ' (supervisor)' : '') +
      (nkids ? ' \u2014 ' + count(s.processes) + ' processes, ' + bytes(s.memory) + ', msgq ' + count(s.message_queue_len) : ' \u2014 ' + bytes(s.memory));
    li.appendChild(head);
    if (nkids) {
      const sub = el('ul');
      let filled = false;
      const fill = () => {
        if (filled) return;
        filled = true;
        for (const c of kids) sub.appendChild(item(c));
        if (!nleaves) return;
        const rows = leavesOf(t.pid);
        for (const r of rows.slice(0, LEAVES_SHOWN)) sub.appendChild(leaf(r));
        if (rows.length > LEAVES_SHOWN)
          sub.appendChild(el('li', 'bc-cut', 'the ' + LEAVES_SHOWN + ' largest of ' + count(rows.length) + ' workers here (the Processes view lists every one)'));
      };
      head.addEventListener('click', () => { fill(); sub.hidden = !sub.hidden; head.textContent = (sub.hidden ? '\u25b8' : '\u25be') + head.textContent.slice(1); });
      if (nkids < 50) fill(); else { sub.hidden = true; head.textContent = '\u25b8' + head.textContent.slice(1); }
      li.appendChild(sub);
    } else {
      head.classList.add('bc-link');
      head.addEventListener('click', () => openProc(t.pid));
    }
    return li;
  }
  for (const t of trees) ul.appendChild(item(t));
  node.appendChild(ul);
  if (sec.coverage) { node.appendChild(el('h3', null, 'coverage')); node.appendChild(kvList(sec.coverage)); }
});

/* ---- The rest: ETS, binaries, ports, nodes, threads ---- */
view('tables', 'ETS, binaries, nodes, threads', (node) => {
  for (const [k, title] of [['ets', 'ETS tables'], ['binaries', 'Binaries'], ['nodes', 'Nodes'], ['threads', 'Threads']]) {
    const h = el('h2', null, title); h.id = 'tables-' + k;
    node.appendChild(h);
    if (k === 'binaries') binBar(node, S.binaries);
    sectionTables(node, S[k], []);
  }
  views.tables.open = (which) => { const h = document.getElementById('tables-' + which); if (h) h.scrollIntoView(); };
});
/* erlang:memory(binary) by holder: a bar */
function binBar(node, sec) {
  if (!sec) return;
  let split = null;
  for (const k in sec) if (sec[k] && typeof sec[k] === 'object' && !Array.isArray(sec[k]) && 'processes' in sec[k]) split = sec[k];
  if (!split) return;
  const parts = Object.entries(split).filter(([, v]) => typeof v === 'number' && v > 0);
  const total = parts.reduce((a, [, v]) => a + v, 0);
  if (!total) return;
  const bar = el('div', 'bc-bar');
  for (const [k, v] of parts) {
    const s = el('span', 'bc-bar-part', k + ' ' + bytes(v));
    s.style.width = (100 * v / total) + '%';
    s.style.background = 'hsl(' + hash(k) % 360 + ',50%,75%)';
    s.title = k + ': ' + bytes(v);
    bar.appendChild(s);
  }
  node.appendChild(bar);
}

add(app, nav, main);
document.title = 'beamcore: ' + ((D.target && D.target.node) || (D.target && D.target.path) || 'report');
const first = (location.hash.match(/^#(\w+)/) || [])[1];
go(views[first] ? first : 'overview');
/* when the first view was drawn, in ms since the page's navigation began */
window.beamcoreReport.readyMs = performance.now();
document.body.dataset.ready = '1';
})();
