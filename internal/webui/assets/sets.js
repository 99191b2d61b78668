// The console of Windows' Performance Monitor around the graph: the node
// tree on the left (Monitoring Tools > Performance Monitor; Data
// Collector Sets > User Defined, System; Reports > User Defined, and each
// set under it) switching the right pane. Data Collector Sets lists the
// server's sets (GET /v1/sets: the serving user's, and root's system
// sets), starts, stops, deletes, creates (from the graph's counters or
// from scratch) and changes them (POST /v1/sets, PATCH and DELETE
// /v1/sets/{name}), each value in the syntax of its logman option. A
// caller of the monitor role sees them and has every button that changes
// them disabled (the server answers 403 anyway). Reports lists each
// counter set's logs (GET /v1/sets/{name}/runs); Open downloads one and
// opens it in log mode as "Open log…" does, with the set's counters; the
// file a running set writes is reopened every few seconds while it is
// shown (Follow), so its graph follows the recording.

const $ = (id) => document.getElementById(id);

// FOLLOW_MIN is the least time between two reloads of a followed log, in
// seconds (the set's sample interval when longer).
const FOLLOW_MIN = 3;

// initConsole wires the tree and the sets and reports panes. app is what
// they need of app.js: state, api(path, init), setStatus(text, error),
// addPaths(paths), logs (logs.js: open(info, uploaded), active(),
// close()), render().
export function initConsole(app) {
  const con = {
    node: 'perfmon',   // the tree node shown: perfmon, sets-user, sets-system, reports, report:NAME
    sets: [],          // GET /v1/sets's entries
    canChange: false,  // the caller's role may change sets (log)
    error: '',         // why the sets could not be listed
    runs: new Map(),   // set name -> its runs (GET /v1/sets/{name}/runs)
    editing: null,     // the entry the dialog edits; null: a new set
    follow: null,      // {set, file, timer, info}: the followed log
    refresh: 0,
    setsKey: '',       // what the sets pane shows (renderSets)
    reportsKey: '',    // what the reports pane shows (renderReports)
  };

  function canChange() { return con.canChange; }

  // ---- tree ----------------------------------------------------------------

  function select(node) {
    con.node = node;
    for (const b of document.querySelectorAll('#tree button[data-node]')) {
      if (b.dataset.node === node) b.setAttribute('aria-current', 'page');
      else b.removeAttribute('aria-current');
    }
    const perfmon = node === 'perfmon';
    $('perfmon-pane').hidden = !perfmon;
    $('toolbar').hidden = !perfmon;
    $('sets-pane').hidden = !node.startsWith('sets-');
    $('reports-pane').hidden = !(node === 'reports' || node.startsWith('report:'));
    document.body.dataset.node = node.startsWith('report:') ? 'reports' : node;
    if (perfmon) app.render();
    else refresh();
  }

  function renderTree() {
    const ul = $('tree-reports');
    const counterSets = con.sets.filter((s) => s.type !== 'Alert');
    const key = counterSets.map((s) => s.name).join('\n');
    if (ul.dataset.key !== key) {
      ul.dataset.key = key;
      ul.replaceChildren(...counterSets.map((s) => {
        const li = document.createElement('li');
        const b = document.createElement('button');
        b.type = 'button';
        b.dataset.node = 'report:' + s.name;
        b.textContent = s.name;
        li.append(b);
        return li;
      }));
      select(con.node);
    }
  }

  // ---- the sets ------------------------------------------------------------

  async function load() {
    try {
      const ans = await app.api('/v1/sets');
      con.sets = ans.sets || [];
      con.error = '';
    } catch (e) {
      con.sets = [];
      con.error = String(e.message || e);
    }
    renderTree();
  }

  async function refresh() {
    const seq = ++con.refresh;
    await load();
    if (seq !== con.refresh) return;
    if (con.node.startsWith('sets-')) renderSets();
    else if (con.node === 'reports' || con.node.startsWith('report:')) await renderReports();
  }

  function when(t) {
    if (!t) return '';
    const d = new Date(t);
    return Number.isNaN(d.getTime()) ? '' : d.toLocaleString();
  }

  function cell(tr, text, cls) {
    const td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    tr.append(td);
    return td;
  }

  function actionButton(label, act, set, enabled, why) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.dataset.act = act;
    b.dataset.set = set.name;
    b.disabled = !enabled;
    if (!enabled && why) b.title = why;
    return b;
  }

  // renderSets redraws the sets pane when what it shows changed (a
  // refresh that changed nothing leaves the buttons and the focus alone).
  function renderSets() {
    const system = con.node === 'sets-system';
    const key = JSON.stringify([con.node, con.canChange, con.error, con.sets]);
    if (key === con.setsKey) return;
    con.setsKey = key;
    $('sets-title').textContent = system ? 'Data Collector Sets > System' : 'Data Collector Sets > User Defined';
    const readOnly = !canChange();
    for (const id of ['set-new-graph', 'set-new', 'set-new-alert']) {
      $(id).disabled = readOnly || system;
      $(id).title = readOnly ? 'Changing collector sets needs the log role' : '';
    }
    $('sets-note').textContent = con.error ? `The sets could not be listed: ${con.error}`
      : readOnly ? 'Read only: changing collector sets needs the log role (Performance Log Users).'
      : system ? 'The system sets are root\'s: only a server run by root changes them.' : '';
    $('sets-note').classList.toggle('error', !!con.error);
    const rows = con.sets.filter((s) => !!s.system === system).map((s) => {
      const tr = document.createElement('tr');
      tr.dataset.set = s.name;
      tr.dataset.state = s.running ? 'running' : 'stopped';
      const name = document.createElement('th');
      name.scope = 'row';
      name.textContent = s.name;
      tr.append(name);
      cell(tr, s.type || 'Counter');
      cell(tr, s.running ? 'Running' : 'Stopped', 'state');
      cell(tr, s.running ? `since ${when(s.lastStart)}` : s.lastStart ? `${when(s.lastStart)} to ${when(s.lastStop) || '(ended without a clean stop)'}` : 'never');
      cell(tr, when(s.nextStart) || (s.definition?.begin ? '' : 'manual'));
      const out = cell(tr, s.type === 'Alert' ? alertText(s) : (s.output || ''), s.type === 'Alert' ? 'alerts' : 'output');
      if (s.detail) out.title = s.detail;
      const acts = document.createElement('td');
      acts.className = 'acts';
      const may = canChange() && !s.system;
      const why = canChange() ? 'a system set: root\'s' : 'needs the log role';
      acts.append(
        actionButton('Start', 'start', s, may && !s.running, s.running ? '' : why),
        actionButton('Stop', 'stop', s, may && s.running, s.running ? why : ''),
        actionButton('Properties…', 'edit', s, true),
        actionButton('Delete', 'delete', s, may && !s.running, s.running ? 'Stop it first' : why),
      );
      if (s.type !== 'Alert') acts.append(actionButton('Reports', 'reports', s, true));
      tr.append(acts);
      return tr;
    });
    $('sets-rows').replaceChildren(...rows);
    $('sets-empty').hidden = rows.length > 0;
  }

  // alertText sums up an alert set's thresholds as its collector judged
  // them last.
  function alertText(s) {
    const firing = (s.alerts || []).filter((a) => a.firing);
    const th = s.definition?.thresholds || [];
    if (firing.length) return `FIRING: ${firing.map((a) => `${a.counter} = ${a.value} (${a.threshold})`).join('; ')}`;
    return th.join('; ');
  }

  async function act(name, action) {
    const set = con.sets.find((s) => s.name === name);
    try {
      if (action === 'start' || action === 'stop') {
        app.setStatus(`${action === 'start' ? 'Starting' : 'Stopping'} ${name}…`);
        await app.api(`/v1/sets/${encodeURIComponent(name)}/${action}`, { method: 'POST' });
        app.setStatus(`${name} ${action === 'start' ? 'started' : 'stopped'}.`);
      } else if (action === 'delete') {
        if (!window.confirm(`Delete the Data Collector Set ${name}? Its logs stay.`)) return;
        await app.api(`/v1/sets/${encodeURIComponent(name)}`, { method: 'DELETE' });
        app.setStatus(`${name} deleted.`);
      } else if (action === 'edit') {
        openDialog(set, null);
        return;
      } else if (action === 'reports') {
        select('report:' + name);
        return;
      }
    } catch (e) {
      app.setStatus(`${name}: ${e.message || e}`, true);
    }
    await refresh();
  }

  // ---- the set's properties -----------------------------------------------

  const fields = ['name', 'type', 'counters', 'thresholds', 'interval', 'format', 'output', 'version', 'max', 'newFile', 'begin', 'end', 'repeat', 'runFor', 'samples'];

  function lines(text) { return text.split('\n').map((l) => l.trim()).filter((l) => l); }

  // openDialog opens the set dialog: set's properties (change), or a new
  // set of type with counters (create).
  function openDialog(set, type, counters) {
    con.editing = set;
    const d = set?.definition || {};
    const f = $('set-form');
    f.reset();
    const t = set ? (set.type || 'Counter') : type;
    f.elements.name.value = set ? set.name : '';
    f.elements.name.disabled = !!set;
    f.elements.type.value = t;
    f.elements.type.disabled = !!set;
    f.elements.counters.value = (set ? d.counters || [] : counters || []).join('\n');
    f.elements.thresholds.value = (d.thresholds || []).join('\n');
    f.elements.interval.value = d.interval ?? (set ? '' : '15');
    f.elements.format.value = d.format ?? 'bin';
    f.elements.output.value = d.output ?? '';
    f.elements.version.value = d.version ?? '';
    f.elements.max.value = d.max ?? '';
    f.elements.newFile.value = d.newFile ?? '';
    f.elements.begin.value = d.begin ?? '';
    f.elements.end.value = d.end ?? '';
    f.elements.repeat.checked = !!d.repeat;
    f.elements.runFor.value = d.runFor ?? '';
    f.elements.samples.value = d.samples ?? '';
    $('set-dialog-title').textContent = set ? `${set.name} Properties` : t === 'Alert' ? 'New alert Data Collector Set' : 'New Data Collector Set';
    $('set-status').textContent = set?.running ? 'The set is running: a change applies when it next starts.' : '';
    $('set-status').classList.remove('error');
    $('set-ok').disabled = !canChange() || !!set?.system;
    $('set-ok').title = canChange() ? '' : 'Changing collector sets needs the log role';
    typeChanged();
    $('setdialog').showModal();
  }

  function typeChanged() {
    const alert = $('set-form').elements.type.value === 'Alert';
    for (const el of document.querySelectorAll('#set-form .counter-only')) el.hidden = alert;
    for (const el of document.querySelectorAll('#set-form .alert-only')) el.hidden = !alert;
  }

  // definition is what the dialog says: for a new set every value given,
  // for a change the values that differ from the set's ("" clears one).
  function definition() {
    const f = $('set-form').elements;
    const alert = f.type.value === 'Alert';
    const old = con.editing?.definition;
    const def = {};
    const put = (key, v, isList) => {
      if (old) {
        const was = old[key];
        const same = isList ? JSON.stringify(was || []) === JSON.stringify(v) : (was ?? '') === v;
        if (!same) def[key] = v;
      } else if (isList ? v.length : v !== '') def[key] = v;
    };
    if (!con.editing) def.type = f.type.value;
    if (alert) put('thresholds', lines(f.thresholds.value), true);
    else {
      put('counters', lines(f.counters.value), true);
      put('format', f.format.value);
      put('output', f.output.value.trim());
      put('version', f.version.value);
      put('max', f.max.value.trim());
      put('newFile', f.newFile.value.trim());
      put('samples', f.samples.value.trim());
    }
    put('interval', f.interval.value.trim());
    put('begin', f.begin.value.trim());
    put('end', f.end.value.trim());
    put('runFor', f.runFor.value.trim());
    if (old ? !!old.repeat !== f.repeat.checked : f.repeat.checked) def.repeat = f.repeat.checked;
    return def;
  }

  async function submit() {
    const f = $('set-form').elements;
    const def = definition();
    const status = $('set-status');
    try {
      if (con.editing) {
        const name = con.editing.name;
        await app.api(`/v1/sets/${encodeURIComponent(name)}`, {
          method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(def),
        });
        app.setStatus(`${name} changed${con.editing.running ? ': the change applies when it next starts' : ''}.`);
      } else {
        const name = f.name.value.trim();
        await app.api('/v1/sets', {
          method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, ...def }),
        });
        app.setStatus(`${name} created.`);
      }
      $('setdialog').close();
      await refresh();
    } catch (e) {
      status.textContent = String(e.message || e);
      status.classList.add('error');
    }
  }

  // ---- reports ---------------------------------------------------------------

  function size(n) {
    if (n < 1024) return `${n} bytes`;
    if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KB`;
    return `${(n / (1 << 20)).toFixed(1)} MB`;
  }

  async function renderReports() {
    const only = con.node.startsWith('report:') ? con.node.slice(7) : null;
    $('reports-title').textContent = only ? `Reports > User Defined > ${only}` : 'Reports > User Defined';
    const sets = con.sets.filter((s) => s.type !== 'Alert' && (!only || s.name === only));
    const seq = con.refresh;
    const sections = [];
    for (const s of sets) {
      let runs = [];
      let err = '';
      try {
        runs = (await app.api(`/v1/sets/${encodeURIComponent(s.name)}/runs`)).runs || [];
      } catch (e) {
        err = String(e.message || e);
      }
      if (seq !== con.refresh) return;
      con.runs.set(s.name, runs);
      const sec = document.createElement('section');
      sec.className = 'set-runs';
      sec.dataset.set = s.name;
      const h = document.createElement('h3');
      h.textContent = `${s.name}${s.running ? ' (running)' : ''}`;
      sec.append(h);
      if (err || !runs.length) {
        const p = document.createElement('p');
        p.className = 'muted';
        p.textContent = err || 'No logs yet: start the set to record one.';
        sec.append(p);
      } else {
        const table = document.createElement('table');
        for (const r of runs.slice().reverse()) {
          const tr = document.createElement('tr');
          tr.dataset.file = r.file;
          const th = document.createElement('th');
          th.scope = 'row';
          th.textContent = r.file;
          tr.append(th);
          cell(tr, size(r.size), 'num');
          cell(tr, when(r.modified));
          cell(tr, r.current ? 'recording now' : '');
          const td = document.createElement('td');
          const b = document.createElement('button');
          b.type = 'button';
          b.textContent = r.current ? 'Open (follow live)' : 'Open';
          b.dataset.run = r.file;
          b.dataset.set = s.name;
          td.append(b);
          tr.append(td);
          table.append(tr);
        }
        sec.append(table);
      }
      sections.push(sec);
    }
    const key = JSON.stringify([con.node, sets.map((s) => [s.name, s.running, con.runs.get(s.name)])]);
    if (key === con.reportsKey) return;
    con.reportsKey = key;
    $('reports-list').replaceChildren(...sections);
    $('reports-empty').hidden = sections.length > 0;
  }

  // openRun opens a set's log in log mode with the set's counters; the
  // file a running set writes is reopened every few seconds while it
  // stays open (follow).
  async function openRun(name, file) {
    stopFollow();
    const set = con.sets.find((s) => s.name === name);
    const run = (con.runs.get(name) || []).find((r) => r.file === file);
    const info = await load1(name, file);
    if (!info) return;
    select('perfmon');
    app.logs.open(info, true);
    app.addPaths(set?.definition?.counters || []);
    if (run?.current && set?.running) {
      const every = Math.max(FOLLOW_MIN, Number(set.definition?.interval) || 0) * 1000;
      con.follow = { set: name, file, info, every, timer: 0 };
      $('log-follow').hidden = false;
      con.follow.timer = setTimeout(followTick, every);
    }
  }

  async function load1(name, file) {
    app.setStatus(`Reading ${file}…`);
    try {
      const r = await fetch(`/v1/sets/${encodeURIComponent(name)}/runs/${encodeURIComponent(file)}`, { credentials: 'same-origin' });
      if (!r.ok) {
        let reason = `${r.status} ${r.statusText}`;
        try { reason = (await r.json()).error.reason || reason; } catch { /* not JSON */ }
        throw new Error(reason);
      }
      const body = await r.blob();
      return await app.api(`/v1/logs?name=${encodeURIComponent(file)}`, {
        method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body,
      });
    } catch (e) {
      app.setStatus(`${file}: not opened, ${e.message || e}`, true);
      return null;
    }
  }

  // followTick reopens the followed log when it is still the one shown,
  // keeping the page's counters; it ends when the set stops.
  async function followTick() {
    const f = con.follow;
    if (!f) return;
    if (!app.logs.active() || window.perfmon.log().id !== f.info.id) { stopFollow(); return; }
    await load();
    const set = con.sets.find((s) => s.name === f.set);
    const paths = app.state.requests.map((q) => q.path);
    const info = await load1(f.set, f.file);
    if (con.follow !== f) return;
    if (info && app.logs.active() && window.perfmon.log().id === f.info.id) {
      f.info = info;
      app.logs.open(info, true);
      app.addPaths(paths);
      app.setStatus(`${f.file}: following ${f.set}'s recording (${info.samples} samples).`);
    }
    if (!set?.running) {
      app.setStatus(`${f.set} stopped: ${f.file} is complete (${info?.samples ?? '?'} samples).`);
      stopFollow();
      return;
    }
    f.timer = setTimeout(followTick, f.every);
  }

  function stopFollow() {
    if (con.follow) clearTimeout(con.follow.timer);
    con.follow = null;
    $('log-follow').hidden = true;
  }

  // ---- wiring --------------------------------------------------------------

  $('tree').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-node]');
    if (b) select(b.dataset.node);
  });
  $('sets-rows').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-act]');
    if (b && !b.disabled) act(b.dataset.set, b.dataset.act);
  });
  $('reports-list').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-run]');
    if (b) openRun(b.dataset.set, b.dataset.run);
  });
  $('set-new-graph').addEventListener('click', () => {
    const counters = app.logs.active() ? [] : app.state.requests.map((q) => q.path);
    openDialog(null, 'Counter', counters);
  });
  $('set-new').addEventListener('click', () => openDialog(null, 'Counter', []));
  $('set-new-alert').addEventListener('click', () => openDialog(null, 'Alert', []));
  $('set-form').elements.type.addEventListener('change', typeChanged);
  $('set-form').addEventListener('submit', (e) => {
    if (e.submitter?.value === 'cancel') return;
    e.preventDefault();
    submit();
  });
  $('sets-refresh').addEventListener('click', refresh);
  $('reports-refresh').addEventListener('click', refresh);
  $('close-log').addEventListener('click', stopFollow);
  // The panes refresh themselves while shown (a set's state, a log that
  // grows).
  setInterval(() => { if (con.node !== 'perfmon' && !$('setdialog').open) refresh(); }, 5000);

  // start learns the caller's role and lists the sets.
  function start(host) {
    con.canChange = host?.role === 'log';
    load();
  }

  window.perfmon.console = () => ({
    node: con.node, canChange: con.canChange, following: con.follow ? `${con.follow.set}/${con.follow.file}` : null,
    sets: con.sets.map((s) => ({ name: s.name, running: s.running, type: s.type, system: !!s.system })),
  });
  window.perfmon.select = select;

  return { start, select, refresh };
}
