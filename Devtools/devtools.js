// The devtools page: reads the token from the URL's fragment, keeps it in a cookie (for the event
// stream) and sends it as a header; everything it shows is asked of the host, page by page.
'use strict';

const token = location.hash.slice(1);
document.cookie = `devtools_token=${token}; path=/; SameSite=Strict`;

const ROW = 20;
const PAGE = 200;
const $ = (id) => document.getElementById(id);

const page = {
  live: false,
  feature: null, // the key of the feature shown
  last: 0, // the last seq of its journal
  current: 0, // the seq of its current state
  selected: null,
  following: true, // the selection follows the newest seq
  skips: new Set(),
  entries: new Map(), // seq -> log entry
  pages: new Map(), // page number -> 'loading' | 'loaded'
  created: null, // when the journal was created (ms since 1970): what an action's time counts from
  marks: new Map(), // seq -> [{kind, text}] refusals and crashes after that seq
  catalogue: [],
  selecting: 0,
};

async function api(path, options = {}) {
  const response = await fetch(path, {
    ...options,
    headers: { 'X-Devtools-Token': token, ...(options.headers || {}) },
  });
  const text = await response.text();
  const isJSON = (response.headers.get('Content-Type') || '').startsWith('application/json');
  const body = isJSON && text ? JSON.parse(text) : text;
  if (!response.ok) {
    throw new Error(body && body.error ? body.error + (body.help ? `\nhelp: ${body.help}` : '') : String(text));
  }
  return body;
}

function showError(error) {
  $('error').textContent = error ? String(error.message || error) : '';
}

function query(parameters) {
  return Object.entries(parameters)
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
    .join('&');
}

// ---- the stack -------------------------------------------------------------------------------

async function loadStack() {
  const stack = await api('/api/stack');
  page.live = stack.live;
  document.body.classList.toggle('recorded', !stack.live);
  $('mode').textContent = stack.live ? 'live run' : `recorded: ${stack.file}`;
  $('open-box').hidden = stack.live;
  const list = $('stack');
  list.textContent = '';
  let focused = null;
  const keys = [];
  stack.frames.forEach((frame, index) => {
    const item = document.createElement('li');
    frame.features.forEach((feature) => {
      keys.push(feature.key);
      if (feature.focused) focused = feature.key;
      const button = document.createElement('button');
      button.textContent = `${feature.id} #${feature.key}`;
      button.dataset.key = feature.key;
      button.className = 'feature';
      button.onclick = () => showFeature(feature.key);
      item.append(button);
      if (feature.focused) {
        const mark = document.createElement('span');
        mark.className = 'focus';
        mark.textContent = ' focus';
        item.append(mark);
      }
    });
    item.title = index === stack.frames.length - 1 ? 'on screen' : 'covered';
    list.append(item);
  });
  const keep = keys.includes(page.feature) ? page.feature : focused;
  if (keep !== page.feature) await showFeature(keep);
  markSelectedFeature();
}

function markSelectedFeature() {
  for (const button of document.querySelectorAll('#stack button')) {
    button.classList.toggle('selected', Number(button.dataset.key) === page.feature);
  }
}

async function showFeature(key) {
  page.feature = key;
  page.entries.clear();
  page.pages.clear();
  page.marks.clear();
  page.skips.clear();
  page.following = true;
  markSelectedFeature();
  if (key === null || key === undefined) return;
  const [catalogue] = await Promise.all([api(`/api/catalogue?feature=${key}`), loadTail()]);
  page.catalogue = catalogue.actions;
  fillCatalogue();
  await select(page.current);
}

// ---- the log, paged from the host -------------------------------------------------------------

// A log entry, with the refusals and crashes the journal holds after its seq: they replace the
// ones pushed live for that seq (the same ones, as journaled).
function takeEntry(entry) {
  page.entries.set(entry.seq, entry);
  if (!entry.crashes && !entry.refusals) return;
  const marks = [];
  for (const refusal of entry.refusals || []) {
    const action = typeof refusal.action === 'string' ? refusal.action : JSON.stringify(refusal.action);
    const at = refusal.at === undefined ? '' : ` at +${(refusal.at / 1000).toFixed(3)} s`;
    marks.push({ kind: 'refused', text: `${action}${at}: ${refusal.error}` });
  }
  for (const crash of entry.crashes || []) {
    const applying = crash.action ? ` applying ${crash.action}` : '';
    marks.push({ kind: 'crash', text: `${crash.loss} during ${crash.call || 'no call'}${applying}` });
  }
  page.marks.set(entry.seq, marks);
}

async function loadPage(number, force = false) {
  if (!force && page.pages.has(number)) return;
  page.pages.set(number, 'loading');
  const feature = page.feature;
  const log = await api(`/api/log?${query({ feature, from: number * PAGE, count: PAGE })}`);
  if (feature !== page.feature) return;
  for (const entry of log.entries) takeEntry(entry);
  page.created = log.created ? Date.parse(log.created) : null;
  page.pages.set(number, 'loaded');
  setLast(log.last, log.current);
  renderRows();
}

async function loadTail() {
  // The last page first tells how long the log is.
  const log = await api(`/api/log?${query({ feature: page.feature, from: Math.max(0, page.last - PAGE + 1), count: PAGE })}`);
  setLast(log.last, log.current);
  for (const entry of log.entries) takeEntry(entry);
  const first = Math.floor(Math.max(0, log.last - PAGE + 1) / PAGE);
  await loadPage(Math.floor(log.last / PAGE), true);
  if (first !== Math.floor(log.last / PAGE)) await loadPage(first, true);
}

function setLast(last, current) {
  const grew = last !== page.last;
  page.last = last;
  page.current = current;
  $('slider').max = String(last);
  $('log-count').textContent = `(seqs 0–${last.toLocaleString()})`;
  $('log-space').style.height = `${(last + 1) * ROW}px`;
  if (grew && page.following) $('log').scrollTop = $('log').scrollHeight;
}

function renderRows() {
  const log = $('log');
  const space = $('log-space');
  const first = Math.max(0, Math.floor(log.scrollTop / ROW) - 5);
  const count = Math.ceil(log.clientHeight / ROW) + 10;
  const end = Math.min(page.last, first + count);
  for (let number = Math.floor(first / PAGE); number <= Math.floor(end / PAGE); number++) {
    if (!page.pages.has(number)) loadPage(number).catch(showError);
  }
  space.textContent = '';
  for (let seq = first; seq <= end; seq++) space.append(row(seq));
}

function row(seq) {
  const entry = page.entries.get(seq);
  const div = document.createElement('div');
  div.className = 'row';
  div.style.top = `${seq * ROW}px`;
  div.dataset.seq = seq;
  if (seq === page.selected) div.classList.add('selected');
  const cell = (kind, text) => {
    const span = document.createElement('span');
    span.className = kind;
    span.textContent = text;
    div.append(span);
    return span;
  };
  cell('seq', `#${seq}`);
  if (!entry) {
    cell('json', '…');
    return div;
  }
  if (entry.kind === 'action') {
    const skip = document.createElement('input');
    skip.type = 'checkbox';
    skip.className = 'skip';
    skip.title = 'skip: see the states after it without this action';
    skip.checked = page.skips.has(seq);
    skip.onclick = (event) => {
      event.stopPropagation();
      toggleSkip(seq);
    };
    div.prepend(skip);
    cell(`source ${entry.source}`, entry.source);
    if (!entry.effective) div.classList.add('undone');
    if (page.skips.has(seq)) div.classList.add('skipped');
  } else {
    const spacer = document.createElement('span');
    spacer.className = 'noskip';
    div.prepend(spacer);
    if (entry.kind === 'travel') cell('source travel', entry.travel);
    else cell('source lifecycle', 'start');
  }
  // An action's time since the journal began (journals older than action times have none); the
  // clock time as its tooltip.
  const time = cell('time', entry.at === undefined ? '' : `+${(entry.at / 1000).toFixed(3)} s`);
  if (entry.at !== undefined && page.created !== null) time.title = new Date(page.created + entry.at).toLocaleString();
  if (entry.kind === 'action') cell('json', JSON.stringify(entry.action));
  else if (entry.kind === 'travel') cell('json', entry.to === null ? 'loaded a state' : `to seq ${entry.to}`);
  else cell('json', 'the state before the first action');
  const marks = page.marks.get(seq);
  if (marks) {
    const span = cell('marks', '');
    for (const mark of marks) {
      const item = document.createElement('span');
      item.className = mark.kind;
      item.textContent = `${mark.kind === 'refused' ? '⛔ refused' : '✖ crash'} ${mark.text}`;
      item.title = item.textContent;
      span.append(item);
    }
  }
  div.onclick = () => {
    page.following = seq === page.last;
    select(seq).catch(showError);
  };
  return div;
}

function toggleSkip(seq) {
  if (page.skips.has(seq)) page.skips.delete(seq);
  else page.skips.add(seq);
  renderRows();
  select(page.selected).catch(showError);
}

// ---- the selected state ------------------------------------------------------------------------

async function select(seq) {
  if (seq === null || seq === undefined || page.feature === null) return;
  const ticket = ++page.selecting;
  page.selected = seq;
  $('slider').value = String(seq);
  $('seq-label').textContent = `seq ${seq}`;
  renderRows();
  const skip = [...page.skips].join(',');
  // The view now, as the terminal shows it, or the one after another seq, drawn for the page.
  const now = page.live && seq === page.current && !skip;
  const viewQuery = now ? query({ feature: page.feature }) : query({ feature: page.feature, seq, skip });
  const [states, view] = await Promise.all([
    api(`/api/state?${query({ feature: page.feature, seq, skip })}`),
    api(`/api/view?${viewQuery}`),
  ]);
  if (ticket !== page.selecting) return;
  $('state-seq').textContent = String(seq);
  $('view-label').textContent = now ? 'now, as the terminal shows it' : `after ${seq}${skip ? ' (skipping)' : ''}`;
  $('skip-note').textContent = states.skipping.length ? `(without seq ${states.skipping.join(', ')})` : '';
  const tree = $('state');
  tree.textContent = '';
  tree.append(jsonTree(null, states.state));
  tree.dataset.json = JSON.stringify(states.state);
  renderDiff(states.before, states.state);
  renderView(view);
  showError(null);
}

// The view as the terminal shows it: its lines, and its images as thumbnails the host serves
// (their alt line while one is loading or cannot be had).
function renderView(view) {
  const pane = $('view');
  pane.textContent = '';
  pane.dataset.images = view.items ? 'yes' : '';
  if (!view.items) {
    pane.textContent = view.text;
    return;
  }
  for (const item of view.items) {
    if (item.text !== undefined) {
      pane.append(`${item.text}\n`);
      continue;
    }
    const figure = document.createElement('span');
    figure.className = 'image';
    const image = document.createElement('img');
    image.alt = item.image.alt;
    image.dataset.url = item.image.url;
    image.title = item.image.alt;
    const alt = document.createElement('span');
    alt.className = 'alt';
    alt.textContent = item.image.alt;
    image.onload = () => {
      alt.hidden = true;
      image.hidden = false;
    };
    image.onerror = () => {
      image.hidden = true;
      alt.hidden = false;
    };
    image.hidden = true;
    image.src = thumbnailURL(item.image.url);
    figure.append(image, alt, '\n');
    pane.append(figure);
  }
}

function thumbnailURL(url, again = false) {
  return `/api/thumbnail?${query({ url })}${again ? `&again=${Date.now()}` : ''}`;
}

function jsonTree(key, value) {
  const label = (target) => {
    if (key !== null) {
      const name = document.createElement('span');
      name.className = 'key';
      name.textContent = `${key}: `;
      target.append(name);
    }
  };
  if (value !== null && typeof value === 'object') {
    const details = document.createElement('details');
    details.open = true;
    const summary = document.createElement('summary');
    label(summary);
    const entries = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
    summary.append(Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`);
    details.append(summary);
    // A long array opens its first items; the rest on demand.
    for (const [childKey, child] of entries.slice(0, 500)) details.append(jsonTree(childKey, child));
    if (entries.length > 500) details.append(`… ${entries.length - 500} more`);
    return details;
  }
  const leaf = document.createElement('div');
  leaf.className = 'leaf';
  label(leaf);
  const text = document.createElement('span');
  text.className = typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'literal';
  text.textContent = JSON.stringify(value);
  leaf.append(text);
  return leaf;
}

function differences(path, before, after, out) {
  const isObject = (value) => value !== null && typeof value === 'object';
  if (isObject(before) && isObject(after) && Array.isArray(before) === Array.isArray(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of keys) differences(path ? `${path}.${key}` : key, before[key], after[key], out);
    return;
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  out.push({ path: path || '(state)', before, after });
}

function renderDiff(before, after) {
  const diff = $('diff');
  diff.textContent = '';
  if (before === null) {
    diff.innerHTML = '<div class="none">the first state</div>';
    return;
  }
  const changes = [];
  differences('', before, after, changes);
  if (!changes.length) diff.innerHTML = '<div class="none">no change</div>';
  for (const change of changes) {
    if (change.before !== undefined) {
      const line = document.createElement('div');
      line.className = 'removed';
      line.textContent = `- ${change.path}: ${JSON.stringify(change.before)}`;
      diff.append(line);
    }
    if (change.after !== undefined) {
      const line = document.createElement('div');
      line.className = 'added';
      line.textContent = `+ ${change.path}: ${JSON.stringify(change.after)}`;
      diff.append(line);
    }
  }
}

// ---- commands -----------------------------------------------------------------------------------

async function command(name, parameters = {}, body) {
  showError(null);
  await api(`/api/${name}?${query({ feature: page.feature, ...parameters })}`, { method: 'POST', body });
}

function fillCatalogue() {
  const list = $('catalogue');
  list.textContent = '';
  for (const action of page.catalogue) {
    const template = [action.type, ...action.arguments.map((argument) => `${argument.name}=`)].join(' ');
    for (const value of new Set([action.type, template])) {
      const option = document.createElement('option');
      option.value = value;
      option.label = action.help;
      list.append(option);
    }
  }
}

$('dispatch-input').addEventListener('input', () => {
  const name = $('dispatch-input').value.trim().split(/\s+/)[0];
  const action = page.catalogue.find((candidate) => candidate.type === name);
  $('dispatch-help').textContent = action
    ? `${action.type}: ${action.help}` +
      action.arguments.map((argument) => ` ${argument.name}=<${argument.kind}>${argument.required ? '' : '?'}`).join('')
    : '';
});

$('dispatch').addEventListener('submit', (event) => {
  event.preventDefault();
  const line = $('dispatch-input').value.trim();
  if (!line) return;
  page.following = true;
  command('dispatch', {}, line)
    .then(() => {
      $('dispatch-input').value = '';
    })
    .catch(showError);
});

for (const name of ['undo', 'redo', 'pause', 'resume']) {
  $(`${name}-button`).onclick = () => {
    page.following = true;
    command(name).catch(showError);
  };
}

let sliderTimer = null;
$('slider').addEventListener('input', () => {
  const seq = Number($('slider').value);
  $('seq-label').textContent = `seq ${seq}`;
  page.following = false;
  clearTimeout(sliderTimer);
  sliderTimer = setTimeout(() => travel(seq), 80);
});

// Moving the slider travels there (as :goto) in a live run; in a recorded one it only selects.
async function travel(seq) {
  try {
    if (page.live && seq !== page.current) await command('goto', { seq });
    page.following = false;
    await select(seq);
  } catch (error) {
    showError(error);
  }
}

$('export-button').onclick = () => {
  const link = document.createElement('a');
  link.href = `/api/export?feature=${page.feature}`;
  link.download = '';
  document.body.append(link);
  link.click();
  link.remove();
};

$('open-button').onclick = () => {
  api('/api/open', { method: 'POST', body: $('open-path').value })
    .then(() => {
      page.feature = null;
      return loadStack();
    })
    .catch(showError);
};

$('log').addEventListener('scroll', () => requestAnimationFrame(renderRows));

// Up and down move the selection through the log, as the slider does without travelling.
$('log').addEventListener('keydown', (event) => {
  const step = { ArrowUp: -1, ArrowDown: 1 }[event.key];
  if (!step || page.selected === null) return;
  event.preventDefault();
  const seq = Math.min(page.last, Math.max(0, page.selected + step));
  page.following = seq === page.last;
  const log = $('log');
  if (seq * ROW < log.scrollTop) log.scrollTop = seq * ROW;
  if ((seq + 1) * ROW > log.scrollTop + log.clientHeight) log.scrollTop = (seq + 1) * ROW - log.clientHeight;
  select(seq).catch(showError);
});

// ---- pushed events ------------------------------------------------------------------------------

let refreshTimer = null;
// Many events in a burst cost one refresh.
function refreshSoon() {
  if (refreshTimer) return;
  refreshTimer = setTimeout(async () => {
    refreshTimer = null;
    try {
      await loadTail();
      await select(page.following ? page.last : page.selected);
    } catch (error) {
      showError(error);
    }
  }, 30);
}

// Resolves once the stream is open (or after a bound): what the page loads next is then either
// in what it loads or in an event it hears (a thumbnail that arrives meanwhile is not missed).
function connect() {
  const events = new EventSource('/api/events');
  let connectedBefore = false;
  let opened;
  const open = new Promise((resolve) => {
    opened = resolve;
    setTimeout(resolve, 3000);
  });
  events.addEventListener('hello', () => {
    opened();
    $('connection').textContent = 'connected';
    $('connection').className = 'on';
    // Back after a break: what was pushed meanwhile is fetched.
    if (connectedBefore) loadStack().then(refreshSoon).catch(showError);
    connectedBefore = true;
  });
  events.onerror = () => {
    $('connection').textContent = 'disconnected';
    $('connection').className = 'off';
  };
  const mine = (data) => data.feature === page.feature;
  events.addEventListener('applied', (message) => {
    const data = JSON.parse(message.data);
    if (!mine(data)) return;
    refreshSoon();
  });
  for (const kind of ['refused', 'crash']) {
    events.addEventListener(kind, (message) => {
      const data = JSON.parse(message.data);
      if (!mine(data)) return;
      const text = kind === 'refused' ? `${data.action}: ${data.error}` : `${data.loss} during ${data.call}`;
      const marks = page.marks.get(page.last) || [];
      marks.push({ kind, text });
      page.marks.set(page.last, marks);
      renderRows();
    });
  }
  events.addEventListener('view', (message) => {
    const data = JSON.parse(message.data);
    if (!mine(data) || !page.following) return;
    // A view with images is asked again, items and all; a text view is the text pushed.
    if ($('view').dataset.images) refreshSoon();
    else $('view').textContent = data.text;
  });
  events.addEventListener('thumbnail', (message) => {
    const url = JSON.parse(message.data).url;
    for (const image of document.querySelectorAll('#view img')) {
      if (image.dataset.url === url) image.src = thumbnailURL(url, true);
    }
  });
  events.addEventListener('changed', (message) => {
    if (mine(JSON.parse(message.data))) refreshSoon();
  });
  events.addEventListener('stack', () => loadStack().catch(showError));
  events.addEventListener('resync', () => refreshSoon());
  return open;
}

connect()
  .then(loadStack)
  .catch(showError);
