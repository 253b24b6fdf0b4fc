// tests/browser/cdp_lib.mjs: the harness shared by the browser tests
// (cdp_test.mjs: the live pages against a stand-in recorder; cdp_record.mjs:
// the real `goscribe record --serve`).  It drives headless Chromium through
// the DevTools protocol over a pipe (--remote-debugging-pipe: NUL-separated
// JSON on fds 3 and 4), so it needs no npm package and no WebSocket client;
// it runs on Debian's Node 18 too.  Every child started through it is killed
// on any exit path, and the whole test has a hard time limit.
//
// Common arguments: --chromium BIN --shots DIR --profile DIR --verbose
// --name NAME (prefix of the messages) --total-ms MS (hard limit, 90000).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--verbose') args.verbose = true;
  else if (a.startsWith('--') && i + 1 < process.argv.length) args[a.slice(2)] = process.argv[++i];
  else { console.error('cdp: bad argument ' + a); process.exit(1); }
}
const NAME = args.name || 'browser_serve';
const CHROMIUM = args.chromium || '/usr/bin/chromium';
const SHOTS = args.shots || tmpdir();
// Generous limits: CI runs this beside the other tests, and the sanitizer
// build (GS_SANITIZED=1) starts and serves more slowly.
export const SLOW = process.env.GS_SANITIZED ? 1.5 : 1;
const TOTAL_MS = Number(args['total-ms']) || 90000;  // hard limit for the whole test
export const STEP_MS = 10000 * SLOW;    // default limit for one wait
export const START_MS = 30000;          // limit for a program to start

export const children = [];
const tmpDirs = [];
let failed = false;

const T0 = Date.now();
export function log(...m) { console.log(NAME + ': [' + ((Date.now() - T0) / 1000).toFixed(1) + ' s]', ...m); }
export function vlog(...m) { if (args.verbose) log(...m); }

// The name the browser resolves to 127.0.0.1 (a site rebinding its name).
export const REBIND_HOST = 'rebind.goscribe.test';
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const running = (c) => c.exitCode === null && c.signalCode === null;
/* Ends every child (SIGTERM, then SIGKILL after 2 s), then removes the
 * temporary directories once nothing writes to them any more. */
let shuttingDown = null;
export function shutdown(code) {
  if (!shuttingDown) {
    shuttingDown = (async () => {
      for (const c of children) if (running(c)) { try { c.kill('SIGTERM'); } catch { /* gone */ } }
      for (let i = 0; i < 40 && children.some(running); i++) await sleep(50);
      for (const c of children) if (running(c)) { try { c.kill('SIGKILL'); } catch { /* gone */ } }
      for (let i = 0; i < 20 && children.some(running); i++) await sleep(50);
      for (const d of tmpDirs) { try { rmSync(d, { recursive: true, force: true }); } catch { /* the wrapper removes it */ } }
      process.exit(code);
    })();
  }
  return new Promise(() => {}); // never resolves: stops the caller
}
export function fail(msg) {
  if (!failed) {
    failed = true;
    console.error(NAME + ': FAIL: ' + msg);
  }
  return shutdown(1);
}
export function check(cond, msg) { if (!cond) return fail(msg); return null; }

process.on('SIGTERM', () => fail('killed (SIGTERM)'));
process.on('SIGINT', () => fail('interrupted'));
process.on('unhandledRejection', (e) => fail('unexpected error: ' + (e && e.stack || e)));
const hardLimit = setTimeout(() => fail('the whole test took more than ' + TOTAL_MS / 1000 + ' s'), TOTAL_MS);
export function clearHardLimit() { clearTimeout(hardLimit); }

// ------------------------------------------------------------ children

/* Starts a process whose stdout is read line by line; waitLine(re) waits
 * for a line matching re (already seen lines count). */
export function startProcess(name, bin, argv) {
  const p = spawn(bin, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(p);
  const lines = [];
  const waiters = [];
  let buf = '';
  let stderr = '';
  p.stdout.on('data', (d) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(line);
      vlog(name + ': ' + line);
      for (const w of waiters.slice()) if (w.re.test(line)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(line); }
    }
  });
  p.stderr.on('data', (d) => { stderr += d.toString(); if (stderr.length > 20000) stderr = stderr.slice(-10000); });
  p.on('error', (e) => fail(name + ': cannot start ' + bin + ': ' + e.message));
  p.on('exit', (code, sig) => {
    if (!failed && !p.expectExit) fail(name + ' exited early (code ' + code + ', signal ' + sig + '): ' + stderr.trim().slice(-500));
  });
  p.stdin.on('error', () => { /* the child may be gone */ });
  return {
    proc: p, lines,
    stderr: () => stderr,
    send: (text) => p.stdin.write(text + '\n'),
    waitLine(re, ms = STEP_MS) {
      const seen = lines.find((l) => re.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => {
        const w = { re, resolve };
        waiters.push(w);
        setTimeout(() => {
          if (waiters.includes(w)) fail(name + ': no line matching ' + re + ' within ' + ms + ' ms; stderr: ' + stderr.trim().slice(-500));
        }, ms);
      });
    },
  };
}


// ------------------------------------------------------------ CDP over a pipe

export class Browser {
  constructor() {
    let profile = args.profile;
    if (!profile) {
      profile = mkdtempSync(join(tmpdir(), 'goscribe-chromium-'));
      tmpDirs.push(profile);
    }
    const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-default-apps', '--disable-dev-shm-usage', '--disable-extensions', '--mute-audio', '--hide-scrollbars',
      '--window-size=1200,900', '--remote-debugging-pipe', '--user-data-dir=' + profile,
      // a foreign site whose name resolves to loopback, as DNS rebinding makes it (see checkRebinding)
      '--host-resolver-rules=MAP ' + REBIND_HOST + ' 127.0.0.1', 'about:blank'];
    this.proc = spawn(CHROMIUM, flags, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    children.push(this.proc);
    this.stderr = '';
    this.proc.stderr.on('data', (d) => { this.stderr = (this.stderr + d.toString()).slice(-20000); });
    this.proc.on('error', (e) => fail('cannot start ' + CHROMIUM + ': ' + e.message));
    this.proc.on('exit', (code, sig) => {
      if (!failed && !this.closing) fail('chromium exited (code ' + code + ', signal ' + sig + '): ' + this.stderr.trim().slice(-1500));
    });
    this.out = this.proc.stdio[3];
    this.out.on('error', () => { /* chromium gone; the exit handler reports it */ });
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    let buf = Buffer.alloc(0);
    this.proc.stdio[4].on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      let i;
      while ((i = buf.indexOf(0)) >= 0) {
        const msg = JSON.parse(buf.subarray(0, i).toString('utf8'));
        buf = buf.subarray(i + 1);
        this.dispatch(msg);
      }
    });
  }

  dispatch(msg) {
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.error) p.reject(new Error(p.method + ': ' + msg.error.message));
      else p.resolve(msg.result);
      return;
    }
    for (const l of this.listeners) l(msg);
  }

  send(method, params = {}, sessionId = undefined, ms = STEP_MS) {
    const id = this.nextId++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error('no answer to ' + method + ' within ' + ms + ' ms'));
      }, ms);
      this.pending.set(id, { resolve, reject, timer, method });
      this.out.write(JSON.stringify(msg) + '\0');
    });
  }

  async newPage(label, width = 1200, height = 900) {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    const page = new Page(this, sessionId, label);
    await page.cmd('Page.enable');
    await page.cmd('Runtime.enable');
    await page.cmd('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
    return page;
  }

  async close() {
    this.closing = true;
    try { await this.send('Browser.close', {}, undefined, 3000); } catch { /* killed below anyway */ }
  }
}

export class Page {
  constructor(browser, sessionId, label) {
    this.b = browser;
    this.sid = sessionId;
    this.label = label;
    this.errors = [];
    browser.listeners.push((m) => {
      if (m.sessionId !== sessionId) return;
      if (m.method === 'Runtime.exceptionThrown') {
        const d = m.params.exceptionDetails;
        const text = (d.exception && d.exception.description) || d.text;
        this.errors.push(text + ' at ' + d.url + ':' + d.lineNumber);
        log(label + ': JavaScript exception: ' + text);
      } else if (m.method === 'Runtime.consoleAPICalled' && (m.params.type === 'error' || m.params.type === 'assert')) {
        const text = m.params.args.map((a) => a.value !== undefined ? a.value : a.description).join(' ');
        this.errors.push('console.' + m.params.type + ': ' + text);
        log(label + ': console error: ' + text);
      }
    });
  }

  cmd(method, params = {}) { return this.b.send(method, params, this.sid); }

  async navigate(url) {
    const r = await this.cmd('Page.navigate', { url });
    if (r.errorText) return fail(this.label + ': cannot open ' + url + ': ' + r.errorText);
    await this.waitFor('document.readyState === "complete" && location.href === ' + JSON.stringify(url), 'page ' + url + ' loaded');
    return null;
  }

  /* Evaluates an expression in the page; returns its value (JSON-able). */
  async eval(expr) {
    const r = await this.cmd('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) {
      const d = r.exceptionDetails;
      throw new Error('evaluating ' + expr.slice(0, 80) + ': ' + ((d.exception && d.exception.description) || d.text));
    }
    return r.result.value;
  }

  /* Polls expr until it is truthy; fails the test after ms. */
  async waitFor(expr, what, ms = STEP_MS) {
    const end = Date.now() + ms;
    let last = null;
    for (;;) {
      try {
        const v = await this.eval(expr);
        if (v) return v;
      } catch (e) { last = e.message; /* e.g. the context is being replaced */ }
      if (Date.now() > end) {
        const shot = await this.screenshot('failure-' + this.label).catch(() => null);
        return fail(this.label + ': timed out waiting for ' + what + (last ? ' (' + last + ')' : '') + (shot ? '; screenshot ' + shot : ''));
      }
      await sleep(50);
    }
  }

  /* A real mouse click in the middle of the element (so it must be visible
   * and not covered), after scrolling it into view. */
  async click(selector) {
    const box = await this.eval(`(() => { const e = document.querySelector(${JSON.stringify(selector)});
      if (!e) return null; e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();
      return {x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height}; })()`);
    if (!box || box.w <= 0 || box.h <= 0) return fail(this.label + ': ' + selector + ' is missing or not visible');
    const hit = await this.eval(`(() => { const e = document.elementFromPoint(${box.x}, ${box.y});
      const t = document.querySelector(${JSON.stringify(selector)}); return !!e && (e === t || t.contains(e)); })()`);
    if (!hit) return fail(this.label + ': ' + selector + ' is covered by another element');
    for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased'])
      await this.cmd('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: type === 'mouseMoved' ? 0 : 1 });
    return null;
  }

  async type(selector, text) {
    await this.click(selector);
    await this.eval(`document.querySelector(${JSON.stringify(selector)}).value = ''`);
    await this.cmd('Input.insertText', { text });
  }

  async screenshot(name) {
    await this.cmd('Page.bringToFront'); // a page in the background is not painted
    const r = await this.cmd('Page.captureScreenshot', { format: 'png' });
    const path = join(SHOTS, 'goscribe-' + name + '.png');
    writeFileSync(path, Buffer.from(r.data, 'base64'));
    return path;
  }

  noErrors() { return check(this.errors.length === 0, this.label + ': the page raised JavaScript errors: ' + this.errors.join(' | ')); }
}

// A page of a foreign site whose name was made to resolve to the server's
// address (DNS rebinding) must read nothing: every path answers 421.
export async function checkRebinding(browser, url, paths) {
  const page = await browser.newPage('rebind');
  const foreign = url.replace('127.0.0.1', REBIND_HOST);
  await page.navigate(foreign + '/');
  const got = await page.eval(`Promise.all(${JSON.stringify(paths)}.map(p => fetch(p).then(r => r.status)))`);
  await check(got.every((s) => s === 421), 'a page of ' + REBIND_HOST + ' (resolved to loopback) read ' +
    JSON.stringify(paths) + ': statuses ' + JSON.stringify(got) + ', expected 421 for each');
}

export async function httpGet(url, headers = {}) {
  const r = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
  return { status: r.status, text: await r.text() };
}
export async function httpPost(url, body, headers = {}) {
  const r = await fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers }, signal: AbortSignal.timeout(5000) });
  return { status: r.status, text: await r.text() };
}

/* Stops a child the polite way and checks it ended cleanly (exit code
 * `code`, 0 unless said), so that under the sanitizer build its leak check
 * runs and counts. */
export async function stopCleanly(name, child, how, code = 0) {
  child.proc.expectExit = true;
  const exited = new Promise((resolve) => {
    if (!running(child.proc)) resolve();
    else child.proc.on('exit', resolve);
  });
  how();
  const ok = await Promise.race([exited.then(() => true), sleep(15000).then(() => false)]);
  if (!ok) return fail(name + ' did not stop within 15 s');
  const err = child.stderr();
  await check(child.proc.exitCode === code && !/Sanitizer|runtime error/.test(err),
    name + ' ended with code ' + child.proc.exitCode + ' signal ' + child.proc.signalCode + ': ' + err.trim().slice(-2000));
  return null;
}
