// The page of `coderag serve`: plain DOM over the JSON API, no build step. The token is asked once and kept in
// sessionStorage (this tab only).
'use strict';

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = 'coderag-token';
const TYPE_COLOURS = { direct_match: '#2456c8', partial_match: '#1f8a5b', reference: '#c77d12', utility: '#8a8a99' };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === 'text') node.textContent = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function svgEl(tag, attrs = {}, text) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function showError(message) {
  $('error').textContent = message ? `Error: ${message}` : '';
}

function status(message) {
  $('status').textContent = message;
}

function askToken() {
  return new Promise((resolve) => {
    const dialog = $('token-dialog');
    const form = $('token-form');
    const done = (event) => {
      event.preventDefault();
      const token = $('token').value.trim();
      if (!token) return;
      form.removeEventListener('submit', done);
      sessionStorage.setItem(TOKEN_KEY, token);
      $('forget-token').hidden = false;
      dialog.close();
      resolve(token);
    };
    form.addEventListener('submit', done);
    dialog.showModal();
    $('token').focus();
  });
}

/** GET or POST the API with the session's token; a 401 asks for the token again once. */
async function api(route, params, retried = false) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== '' && v !== undefined && v !== null));
  const url = `/api/${route}?${query}`;
  const response =
    url.length > 8000 && route === 'search'
      ? await fetch('/api/search', { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(Object.fromEntries(query)) })
      : await fetch(url, { headers });
  if (response.status === 401 && !retried) {
    sessionStorage.removeItem(TOKEN_KEY);
    await askToken();
    return api(route, params, true);
  }
  const body = await response.json().catch(() => ({ status: 'error', message: `HTTP ${response.status}` }));
  if (!response.ok || body.status === 'error') {
    const wait = response.headers.get('Retry-After');
    throw new Error(`${body.message || `HTTP ${response.status}`}${wait ? ` (retry in ${wait} s)` : ''}`);
  }
  return body;
}

async function runSearch(event) {
  event?.preventDefault();
  const text = $('query').value.trim();
  const target = $('target').value.trim();
  if (!text && !target) return;
  showError('');
  status('Searching…');
  const started = performance.now();
  try {
    const scope = { path: $('path').value.trim(), exclude_tests: $('no-tests').checked ? 'true' : '' };
    const answer = await api('search', { query: text, target, repo: $('repo').value, ...scope, max_results: $('max').value, granularity: 'file' });
    renderResults(answer);
    status(`${answer.references.length} file(s) in ${Math.round(performance.now() - started)} ms${answer.notice ? ` — ${answer.notice}` : ''}`);
    if (answer.relationships && answer.relationships.length) renderPicture([{ repo_name: 'target', relationships: answer.relationships }], `Relationships of ${answer.target_file}`);
  } catch (error) {
    status('');
    showError(error.message);
  }
}

function renderResults(answer) {
  const list = $('results');
  list.replaceChildren();
  if (answer.references.length === 0) {
    list.append(el('li', { class: 'muted', text: 'No files matched.' }));
    return;
  }
  for (const ref of answer.references) {
    const symbols = el('ul', { class: 'symbols' });
    for (const s of (ref.symbols || []).slice(0, 8)) {
      symbols.append(el('li', {}, el('span', { class: 'path', text: `${s.name}` }), el('span', { class: 'muted', text: ` ${s.kind}, lines ${s.start_line}–${s.end_line}` })));
    }
    const functions = (ref.main_functions || []).slice(0, 8).join(', ');
    list.append(
      el(
        'li',
        { class: 'result' },
        el('button', { type: 'button', class: 'link path', text: ref.file_path, title: 'Show the outline', onclick: () => showOutline(ref.repo_name, ref.file_path) }),
        el('span', { class: 'repo', text: `  ${ref.repo_name} · score ${Number(ref.score).toFixed(2)}` }),
        ref.summary ? el('p', { class: 'summary', text: ref.summary }) : null,
        functions ? el('div', { class: 'muted', text: `functions: ${functions}` }) : null,
        symbols.childElementCount ? symbols : null,
      ),
    );
  }
  list.querySelector('button')?.focus();
}

function side(title, ...nodes) {
  $('side-title').textContent = title;
  $('side-body').replaceChildren(...nodes);
}

async function showOutline(repo, file) {
  showError('');
  try {
    const outline = await api('outline', { repo, path: file });
    const rows = outline.symbols.map((s) =>
      // Each enclosing symbol indents the row.
      el('tr', {}, el('td', { class: 'path', text: s.name, title: s.qualified_name || s.name, style: `padding-left:${0.4 + 1.2 * Math.max(0, Number(s.depth) || 0)}rem` }), el('td', { text: s.kind }), el('td', { text: `${s.start_line}–${s.end_line}` })),
    );
    side(
      `Outline of ${outline.file_path}`,
      el('p', { class: 'muted', text: `${outline.repo_name} · ${outline.total_symbols} symbol(s)${outline.summary ? ` · ${outline.summary}` : ''}` }),
      el('table', { id: 'outline' }, el('thead', {}, el('tr', {}, el('th', { text: 'symbol' }), el('th', { text: 'kind' }), el('th', { text: 'lines' }))), el('tbody', {}, ...rows)),
    );
    $('side').scrollIntoView({ block: 'nearest' });
  } catch (error) {
    showError(error.message);
  }
}

async function showOverview() {
  showError('');
  try {
    const answer = await api('overview', {});
    const repos = Object.values(answer.overview.repositories);
    const select = $('repo');
    const chosen = select.value;
    select.replaceChildren(el('option', { value: '', text: 'all' }), ...repos.map((r) => el('option', { value: r.repo_name, text: r.repo_name })));
    select.value = chosen;
    const rows = repos.map((r) =>
      el(
        'tr',
        {},
        el('td', { text: r.repo_name }),
        el('td', { text: String(r.total_files) }),
        el('td', { text: Object.entries(r.languages).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([l, n]) => `${l} ${n}`).join(', ') }),
        el('td', { text: String(r.total_relationships) }),
        el('td', { text: r.main_concepts.slice(0, 6).join(', ') }),
      ),
    );
    side(
      'Overview',
      el('table', { id: 'overview' }, el('thead', {}, el('tr', {}, ...['repository', 'files', 'languages', 'relationships', 'main concepts'].map((t) => el('th', { text: t })))), el('tbody', {}, ...rows)),
    );
  } catch (error) {
    showError(error.message);
  }
}

async function showRelationships() {
  showError('');
  try {
    const answer = await api('relationships', { repo: $('repo').value });
    const withAny = answer.repositories.filter((r) => r.relationships.length);
    if (!withAny.length) return side('Relationships', el('p', { class: 'muted', text: 'No index here was related to a target structure (coderag index --target-structure).' }));
    renderPicture(withAny, 'Relationships to the target structure');
  } catch (error) {
    showError(error.message);
  }
}

/** Target files on the right, the reference files related to them on the left, one line per relationship. */
function renderPicture(repositories, title) {
  const relationships = repositories.flatMap((r) => r.relationships).slice(0, 60);
  const targets = [...new Set(relationships.map((r) => r.target_file_path))];
  const references = [...new Set(relationships.map((r) => r.repo_file_path))];
  const rowHeight = 22;
  const width = 640;
  const height = Math.max(targets.length, references.length) * rowHeight + 30;
  const leftX = 230;
  const rightX = width - 230;
  const yOf = (list, item) => 24 + list.indexOf(item) * rowHeight * (Math.max(targets.length, references.length) / list.length);
  const svg = svgEl('svg', { id: 'relationships', viewBox: `0 0 ${width} ${height}`, width: '100%', role: 'img', 'aria-label': `${relationships.length} relationships between ${references.length} reference files and ${targets.length} target files` });
  svg.append(svgEl('text', { x: leftX - 6, y: 12, 'text-anchor': 'end', 'font-weight': 'bold' }, 'reference files'), svgEl('text', { x: rightX + 6, y: 12, 'font-weight': 'bold' }, 'target files'));
  for (const r of relationships) {
    const line = svgEl('path', {
      d: `M${leftX},${yOf(references, r.repo_file_path)} C${(leftX + rightX) / 2},${yOf(references, r.repo_file_path)} ${(leftX + rightX) / 2},${yOf(targets, r.target_file_path)} ${rightX},${yOf(targets, r.target_file_path)}`,
      fill: 'none',
      stroke: TYPE_COLOURS[r.relationship_type] || '#999',
      'stroke-width': 1 + 3 * r.confidence_score,
      'stroke-opacity': 0.75,
      class: 'relationship',
    });
    line.append(svgEl('title', {}, `${r.repo_file_path} → ${r.target_file_path}: ${r.relationship_type} (${r.confidence_score})${r.helpful_aspects?.length ? `\n${r.helpful_aspects.join('; ')}` : ''}`));
    svg.append(line);
  }
  const label = (x, y, text, anchor) => svgEl('text', { x, y: y + 4, 'text-anchor': anchor }, text.length > 34 ? `…${text.slice(-33)}` : text);
  for (const f of references) svg.append(svgEl('circle', { cx: leftX, cy: yOf(references, f), r: 3.5 }), label(leftX - 8, yOf(references, f), f, 'end'));
  for (const f of targets) svg.append(svgEl('circle', { cx: rightX, cy: yOf(targets, f), r: 4.5 }), label(rightX + 8, yOf(targets, f), f, 'start'));
  const legend = el('p', { class: 'legend' }, ...Object.entries(TYPE_COLOURS).map(([type, colour]) => el('span', {}, el('i', { class: 'swatch', style: `background:${colour}` }), type.replace('_', ' '))));
  side(title, svg, legend, el('p', { class: 'muted', text: 'Thicker lines: more confident. Hover a line for what the reference offers.' }));
}

$('search-form').addEventListener('submit', runSearch);
$('query').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) runSearch(event);
});
$('show-overview').addEventListener('click', showOverview);
$('show-relationships').addEventListener('click', showRelationships);
$('forget-token').addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  $('forget-token').hidden = true;
});
document.addEventListener('keydown', (event) => {
  if (event.key === '/' && !['TEXTAREA', 'INPUT', 'SELECT'].includes(document.activeElement?.tagName)) {
    event.preventDefault();
    $('query').focus();
  }
});
$('forget-token').hidden = !sessionStorage.getItem(TOKEN_KEY);
showOverview();
