/* goscribe live pages: board drawing and helpers shared by the board page,
 * the referee console and the hall.  Plain browser JavaScript, no library,
 * nothing fetched from outside: it works offline. */
'use strict';
const GS = {};
GS.COLS = 'ABCDEFGHJKLMNOPQRSTUVWXYZ';
GS.coord = function (pt, size) {
  if (!pt || pt.length !== 2) return 'pass';
  const x = pt.charCodeAt(0) - 97, y = pt.charCodeAt(1) - 97;
  return GS.COLS[x] + (size - y);
};
GS.svg = function (tag, attrs) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  return e;
};
/* Draws size x size grid text ('.', 'B', 'W' row-major) into an <svg>;
 * marks = list of SGF points to ring, last = SGF point of the last move,
 * labels = write the coordinates (A-T, 1-19) around the board, so a viewer
 * can find the moves of the move list. */
GS.drawBoard = function (svg, size, grid, last, marks, labels) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const n = size, pad = 1, span = n - 1 + 2 * pad;
  svg.setAttribute('viewBox', '0 0 ' + span + ' ' + span);
  svg.appendChild(GS.svg('rect', {x: 0, y: 0, width: span, height: span, fill: '#dcb35c'}));
  for (let i = 0; i < n; i++) {
    svg.appendChild(GS.svg('line', {x1: pad, y1: pad + i, x2: pad + n - 1, y2: pad + i, stroke: '#000', 'stroke-width': 0.03}));
    svg.appendChild(GS.svg('line', {x1: pad + i, y1: pad, x2: pad + i, y2: pad + n - 1, stroke: '#000', 'stroke-width': 0.03}));
  }
  if (labels) {
    const label = function (x, y, s) {
      const t = GS.svg('text', {x: x, y: y, 'font-size': 0.42, 'text-anchor': 'middle', 'dominant-baseline': 'central',
        fill: '#333', 'font-family': 'sans-serif', 'class': 'coord'});
      t.textContent = s;
      svg.appendChild(t);
    };
    for (let i = 0; i < n; i++) {
      label(pad + i, pad - 0.65, GS.COLS[i]);
      label(pad + i, pad + n - 1 + 0.65, GS.COLS[i]);
      label(pad - 0.65, pad + i, String(n - i));
      label(pad + n - 1 + 0.65, pad + i, String(n - i));
    }
  }
  const hoshi = n === 19 ? [3, 9, 15] : n === 13 ? [3, 6, 9] : n === 9 ? [2, 4, 6] : [];
  for (const a of hoshi) for (const b of hoshi)
    if (n !== 9 || (a !== 4) === (b !== 4) || (a === 4 && b === 4))
      svg.appendChild(GS.svg('circle', {cx: pad + a, cy: pad + b, r: 0.1, fill: '#000'}));
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
    const c = grid ? grid[y * n + x] : '.';
    if (c !== 'B' && c !== 'W') continue;
    const pt = String.fromCharCode(97 + x) + String.fromCharCode(97 + y);
    svg.appendChild(GS.svg('circle', {cx: pad + x, cy: pad + y, r: 0.47, fill: c === 'B' ? '#111' : '#fafafa',
      stroke: '#000', 'stroke-width': 0.03, 'data-point': pt, 'data-color': c, 'class': 'stone'}));
  }
  const ring = function (pt, color) {
    if (!pt || pt.length !== 2) return;
    const x = pt.charCodeAt(0) - 97, y = pt.charCodeAt(1) - 97;
    svg.appendChild(GS.svg('circle', {cx: pad + x, cy: pad + y, r: 0.25, fill: 'none', stroke: color, 'stroke-width': 0.08}));
  };
  if (last) ring(last, '#d22');
  for (const m of marks || []) ring(m, '#06f');
};
GS.text = function (id, s) { const e = document.getElementById(id); if (e) e.textContent = s; };
/* The broadcast delay in words, "" without one (round.json's delay_s). */
GS.delayText = function (s) {
  if (!s) return '';
  const m = Math.floor(s / 60), r = s % 60;
  return 'moves shown ' + (m ? m + ' min' : '') + (m && r ? ' ' : '') + (r ? r + ' s' : '') + ' after they are played';
};
/* A banner shown with text s, hidden when s is empty. */
GS.alarm = function (id, s) { const e = document.getElementById(id); if (e) { e.textContent = s; e.hidden = !s; } };
GS.since = function (ms) {
  if (!ms) return '';
  const s = Math.max(0, Math.floor((Date.now() - ms) / 1000));
  return Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
};
/* EventSource that reconnects by itself, also after the server was gone.
 * With a token (a board whose pages are private) the stream is read with
 * fetch, the token in a header (never in the URL).  Returns {close}. */
GS.stream = function (url, onMessage, onStatus, token) {
  let es = null, ctl = null, closed = false;
  const deliver = function (data) { try { onMessage(JSON.parse(data)); } catch (err) { /* ignore bad message */ } };
  const openFetch = function () {
    ctl = new AbortController();
    fetch(url, {headers: {'X-Goscribe-Token': token}, signal: ctl.signal}).then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      onStatus(true);
      const reader = r.body.getReader(), dec = new TextDecoder();
      let buf = '';
      const pump = function () {
        return reader.read().then(function (x) {
          if (x.done) throw new Error('closed');
          buf += dec.decode(x.value, {stream: true});
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const msg = buf.slice(0, i); buf = buf.slice(i + 2);
            const data = msg.split('\n').filter(l => l.startsWith('data: ')).map(l => l.slice(6)).join('\n');
            if (data) deliver(data);
          }
          return pump();
        });
      };
      return pump();
    }).catch(function () { onStatus(false); if (!closed) setTimeout(openFetch, 2000); });
  };
  const open = function () {
    es = new EventSource(url);
    es.onopen = function () { onStatus(true); };
    es.onmessage = function (e) { deliver(e.data); };
    es.onerror = function () {
      onStatus(false);
      if (es.readyState === EventSource.CLOSED && !closed) setTimeout(open, 2000);
    };
  };
  if (token) openFetch(); else open();
  return {close: function () { closed = true; if (es) es.close(); if (ctl) ctl.abort(); }};
};
/* "Q16" -> "pd" on a size n board, "" for "pass"; null when it is neither. */
GS.sgfPoint = function (s, n) {
  s = String(s).trim().toUpperCase();
  if (s === 'PASS') return '';
  const m = /^([A-HJ-Z])([0-9]{1,2})$/.exec(s);
  if (!m) return null;
  const x = GS.COLS.indexOf(m[1]), y = n - Number(m[2]);
  if (x < 0 || x >= n || y < 0 || y >= n) return null;
  return String.fromCharCode(97 + x) + String.fromCharCode(97 + y);
};
/* The corrections form (a misread move, the result) in element el: size()
 * gives the board size, post(body) sends a correction and resolves to
 * {status, json}; what happened is listed under the form. */
GS.corrections = function (el, size, post) {
  el.innerHTML = '<h2>Corrections</h2>' +
    '<form class="fix-move">Move <input class="move-number" type="number" min="1" size="4"> was at ' +
    '<input class="move-point" size="5" placeholder="Q16 or pass"> <button>Correct the move</button></form>' +
    '<form class="fix-result">Result <input class="result" size="8" placeholder="B+R, W+3.5"> ' +
    '<button>Set the result</button></form>' +
    '<label>Your name <input class="by" size="14"></label> <label>Note <input class="fix-note" size="20"></label>' +
    '<ul class="fix-log"></ul>';
  const by = el.querySelector('.by');
  by.value = sessionStorage.getItem('gs-by') || '';
  const say = function (text, ok) {
    const li = document.createElement('li'); li.textContent = text; li.className = ok ? 'ok' : 'refused';
    el.querySelector('.fix-log').appendChild(li);
  };
  const send = function (body) {
    sessionStorage.setItem('gs-by', by.value);
    body.by = by.value;
    const note = el.querySelector('.fix-note').value;
    if (note) body.note = note;
    post(body).then(function (r) {
      if (r.status === 200) say('correction recorded (' + body.ruling + ')', true);
      else say('refused (' + r.status + '): ' + (r.json && r.json.error), false);
    }).catch(function (e) { say('failed: ' + e, false); });
  };
  el.querySelector('.fix-move').onsubmit = function (ev) {
    ev.preventDefault();
    const n = Number(el.querySelector('.move-number').value);
    const pt = GS.sgfPoint(el.querySelector('.move-point').value, size());
    if (!(n >= 1) || pt === null) { say('a move number and a point such as Q16 (or pass) are needed', false); return; }
    send({ruling: 'move', move_number: n, point: pt});
  };
  el.querySelector('.fix-result').onsubmit = function (ev) {
    ev.preventDefault();
    send({ruling: 'result', result: el.querySelector('.result').value.trim()});
  };
};
