// tests/browser/cdp_count.mjs: the count page on a phone, in the real
// browser.  Headless Chromium as a 390x844 touch screen (touch events
// through CDP, Input.dispatchTouchEvent):
//   - three visible photos where `goscribe count` alone is unsure (exit 3),
//     chosen now, not named in advance (a better reader has fewer doubts:
//     when fewer than three originals are unsure, changed copies are made
//     in the browser: darker, smaller, recompressed); for each, `count PHOTO
//     --serve` opens the page, the test taps every point whose colour
//     differs from the truth (NAME.txt) until it is right, long-presses
//     (or, in dead mode, taps) each chain whose life differs from the count
//     of the true grid, and confirms: the SGF's RE is the true grid's count;
//   - a photo the finder refuses (a visible photo turned in the browser):
//     four taps on its corners give a read board, mostly the truth;
//   - a screenshot of the page (GS_SHOTS_DIR/goscribe-count-page.png).
//
// usage: node cdp_count.mjs --goscribe BIN --data DIR --workdir DIR [--chromium BIN] [--shots DIR] [--profile DIR]
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join, basename } from 'node:path';

import { args, STEP_MS, START_MS, children, log, sleep, fail, check, shutdown, clearHardLimit,
  startProcess, Browser } from './cdp_lib.mjs';

if (!args.goscribe || !args.data || !args.workdir) {
  console.error('usage: node cdp_count.mjs --goscribe BIN --data DIR --workdir DIR');
  process.exit(1);
}
const W = args.workdir;
const TOKEN = 'count-test-token';
const GW = join(args.data, 'photos', 'goban-watcher');

/* The count page's address that `count --serve` says on stderr. */
async function pageUrl(proc) {
  const end = Date.now() + START_MS;
  for (;;) {
    const m = proc.stderr().match(/^goscribe count: page (http:\/\/127\.0\.0\.1:\d+\/) token /m);
    if (m) return m[1];
    if (Date.now() > end) return fail('count --serve said no address: ' + proc.stderr());
    await sleep(50);
  }
}

/* Runs goscribe; resolves {code, out, err}. */
function goscribe(argv) {
  return new Promise((resolve) => {
    execFile(args.goscribe, argv, { maxBuffer: 1 << 24 }, (e, out, err) =>
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, out, err }));
  });
}
const truthGrid = (txt) => readFileSync(txt, 'utf8').split(/\s+/).filter((t) => t).join('');
const sgfOf = (i, n) => String.fromCharCode(97 + (i % n)) + String.fromCharCode(97 + Math.floor(i / n));

/* ------------------------------------------------------------ the phone */

async function phone(browser, label) {
  const page = await browser.newPage(label, 390, 844);
  await page.cmd('Emulation.setDeviceMetricsOverride', { width: 390, height: 844, deviceScaleFactor: 2, mobile: true });
  await page.cmd('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
  return page;
}
/* A finger on (x, y) CSS px, lifted after holdMs. */
async function touch(page, x, y, holdMs = 40) {
  await page.cmd('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
  await sleep(holdMs);
  await page.cmd('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}
/* A finger on an element (scrolled into view first). */
async function touchElement(page, sel) {
  const box = await page.eval(`(() => { const e = document.querySelector(${JSON.stringify(sel)});
    e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();
    return {x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width}; })()`);
  await check(box && box.w > 0, sel + ' is not visible');
  await touch(page, box.x, box.y);
}
const STATE = 'window.GSCOUNT && GSCOUNT.state';
/* Taps point pt (SGF) of the board as the page places it; waits for the
 * recount.  holdMs 700: a long press (its chain dead or alive). */
async function tapPoint(page, pt, holdMs = 40) {
  const v = await page.eval('GSCOUNT.state.version');
  const at = await page.eval(`(() => { window.scrollTo(0, 0);
    return GSCOUNT.pointOnScreen(${JSON.stringify(pt)}); })()`);
  await touch(page, at.x, at.y, holdMs);
  await page.waitFor(`GSCOUNT.state.version > ${v} && !GSCOUNT.busy`, 'the recount after a tap on ' + pt);
  if (args.verbose) log('tap ' + pt + ' at ' + JSON.stringify(at) + ': ' + await page.eval(`document.getElementById('say').textContent + JSON.stringify(GSCOUNT.lastDown) + ' top now ' + view.getBoundingClientRect().top`));
}

/* Opens the count page of a `count --serve` at url, the token typed. */
async function openPage(page, url) {
  await page.navigate(url);
  await page.waitFor(`!document.getElementById('token-form').hidden`, 'the page to ask for the token');
  await page.type('#token', TOKEN);
  await page.click('#token-form button');
  await page.waitFor(`${STATE} && document.getElementById('token-form').hidden`, 'the count on the page');
}

/* ------------------------------------------------------ choosing photos */

/* Changed copies of a photo, made by the browser's canvas: darker, half
 * the size, recompressed hard. */
async function changedCopies(page, photo) {
  const data = readFileSync(photo).toString('base64');
  const outs = [];
  for (const [tag, scale, dark, quality] of [['dark', 1, 0.55, 0.9], ['small', 0.5, 1, 0.9], ['jpeg', 1, 1, 0.25]]) {
    const b64 = await page.eval(`new Promise((ok) => { const im = new Image(); im.onload = () => {
      const c = document.createElement('canvas'); c.width = Math.round(im.width * ${scale}); c.height = Math.round(im.height * ${scale});
      const g = c.getContext('2d'); g.filter = 'brightness(${dark})'; g.drawImage(im, 0, 0, c.width, c.height);
      ok(c.toDataURL('image/jpeg', ${quality}).split(',')[1]); }; im.src = 'data:image/jpeg;base64,${data}'; })`);
    const out = join(W, basename(photo, '.jpg') + '-' + tag + '.jpg');
    writeFileSync(out, Buffer.from(b64, 'base64'));
    outs.push({ photo: out, txt: photo.replace(/\.jpg$/, '.txt') });
  }
  return outs;
}

/* Whether photo is one to fix: count exits 3, the board read (not every
 * point in doubt) and at most 12 points from the truth. */
async function unsure(c) {
  const r = await goscribe(['count', c.photo, '--json']);
  if (r.code !== 3) return false;
  const j = JSON.parse(r.out);
  if (j.range_unbounded || j.size !== 19) return false;
  const read = await goscribe(['scan', c.photo]);
  const grid = read.out.replace(/\?/g, '').split(/\s+/).filter((t) => t).join('');
  const truth = truthGrid(c.txt);
  let wrong = 0;
  for (let i = 0; i < truth.length; i++) wrong += grid[i] !== truth[i];
  return grid.length === truth.length && wrong <= 12;
}

async function choosePhotos(page) {
  const all = [];
  for (const game of ['game1', 'game2', 'game3'])
    for (const f of readdirSync(join(GW, game)).sort())
      if (f.endsWith('.jpg') && existsSync(join(GW, game, f.replace(/\.jpg$/, '.txt'))))
        all.push({ photo: join(GW, game, f), txt: join(GW, game, f.replace(/\.jpg$/, '.txt')) });
  // every third photo of the three finished games, the first first
  const order = all.filter((_, i) => i % 3 === 0);
  const chosen = [];
  for (const c of order) {
    if (chosen.length === 3) break;
    if (await unsure(c)) chosen.push(c);
  }
  for (const c of order) {
    if (chosen.length === 3) break;
    for (const copy of await changedCopies(page, c.photo))
      if (chosen.length < 3 && await unsure(copy)) chosen.push(copy);
  }
  await check(chosen.length === 3, 'fewer than three photos (or changed copies) where count is unsure: ' +
    JSON.stringify(chosen));
  return chosen;
}

/* -------------------------------------------------------- fixing a count */

/* Taps every point whose colour differs from the truth until it is right
 * (empty, black, white in turn); returns the points tapped. */
async function fixPoints(page, truth) {
  const cycle = '.BW', tapped = new Set();
  for (let round = 0; round < 3; round++) {
    const s = await page.eval(STATE);
    const wrong = [];
    for (let i = 0; i < truth.length; i++) if (s.grid[i] !== truth[i]) wrong.push(i);
    if (!wrong.length) return tapped;
    for (const i of wrong) {
      const now = (await page.eval(STATE)).grid[i];
      const steps = (cycle.indexOf(truth[i]) - cycle.indexOf(now) + 3) % 3;
      for (let k = 0; k < steps; k++) await tapPoint(page, sgfOf(i, s.size));
      tapped.add(sgfOf(i, s.size));
    }
  }
  const s = await page.eval(STATE), left = [];
  for (let i = 0; i < truth.length; i++) if (s.grid[i] !== truth[i])
    left.push(sgfOf(i, s.size) + ' ' + s.grid[i] + '/' + truth[i] + ' at ' + JSON.stringify(await page.eval(`GSCOUNT.pointOnScreen('${sgfOf(i, s.size)}')`)));
  return fail('points still differ from the truth after three rounds of taps: ' + left.join(', '));
}

/* Sets each chain whose life differs from the true grid's count: the first
 * by a long press, the others by a tap in dead mode; returns how many. */
async function fixLives(page, truthDead) {
  let n = 0;
  for (let round = 0; round < 40; round++) {
    const s = await page.eval(STATE);
    const dead = new Set(s.dead_points);
    let bad = -1;
    for (let i = 0; i < s.size * s.size && bad < 0; i++)
      if (s.grid[i] !== '.' && dead.has(sgfOf(i, s.size)) !== truthDead.has(sgfOf(i, s.size))) bad = i;
    if (bad < 0) return n;
    if (n === 1) { await touchElement(page, '#dead-mode'); await page.waitFor('GSCOUNT.deadMode', 'dead mode'); }
    await tapPoint(page, sgfOf(bad, s.size), n === 0 ? 700 : 40);
    n++;
  }
  return fail('chains still differ in life from the true grid after 40 taps');
}

/* A chain alive on the true board killed by a long press (the result
 * moves), then brought back by a tap in dead mode (the result is back). */
async function killAndRevive(page, truthDead) {
  const s = await page.eval(STATE);
  let i = 0;
  while (i < s.size * s.size && (s.grid[i] === '.' || truthDead.has(sgfOf(i, s.size)) ||
    s.dead_points.includes(sgfOf(i, s.size)))) i++;
  const pt = sgfOf(i, s.size);
  await tapPoint(page, pt, 700);
  const dead = await page.eval(STATE);
  await check(dead.dead_by_hand.includes(pt) && dead.dead_points.includes(pt) && dead.result !== s.result,
    'a long press on ' + pt + ' did not kill its chain: ' + dead.score_line);
  await touchElement(page, '#dead-mode');
  await page.waitFor('GSCOUNT.deadMode', 'dead mode');
  await tapPoint(page, pt);
  const back = await page.eval(STATE);
  await check(back.alive_by_hand.includes(pt) && !back.dead_points.includes(pt) && back.result === s.result,
    'a tap in dead mode on ' + pt + ' did not bring its chain back: ' + back.score_line);
  await touchElement(page, '#dead-mode');
  await page.waitFor('!GSCOUNT.deadMode', 'dead mode off');
  log('chain at ' + pt + ' killed by a long press (' + dead.result + '), brought back in dead mode (' + back.result + ')');
}

/* The page for the manual: a finger slid onto a point (a finger that
 * moved makes no long press), the magnifier over it; the touch then
 * cancelled: nothing changes. */
async function screenshotWithLoupe(page, pt) {
  const at = await page.eval(`(() => { window.scrollTo(0, 0); return GSCOUNT.pointOnScreen(${JSON.stringify(pt)}); })()`);
  await page.cmd('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: at.x + 12, y: at.y + 12 }] });
  await page.cmd('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: at.x, y: at.y }] });
  await sleep(100);
  const sent = await page.eval('GSCOUNT.sent');
  log('screenshot ' + await page.screenshot('count-page'));
  await page.cmd('Input.dispatchTouchEvent', { type: 'touchCancel', touchPoints: [] });
  await sleep(100);
  await check(await page.eval('GSCOUNT.sent') === sent, 'the held finger changed the count');
}

async function fixPhoto(browser, c, k) {
  const truth = truthGrid(c.txt);
  const t = await goscribe(['count', c.txt, '--json']);
  await check(t.code === 0 || t.code === 3, 'count of the true grid ' + c.txt + ': exit ' + t.code + ' ' + t.err);
  const want = JSON.parse(t.out);
  const sgf = join(W, 'fixed-' + k + '.sgf');
  const proc = startProcess('count --serve ' + k, args.goscribe, ['count', c.photo, '--serve', '127.0.0.1:0', '--token',
    TOKEN, '--sgf', sgf, '--json']);
  const page = await phone(browser, 'count-' + k);
  await openPage(page, await pageUrl(proc));
  const before = await page.eval(STATE);
  if (args.verbose) log('viewport: ' + JSON.stringify(await page.eval(`({sw: document.documentElement.scrollWidth, iw: innerWidth, scale: visualViewport.scale, vw: visualViewport.width})`)));
  await check(!before.result_sure && !/\(sure\)/.test(before.score_line),
    basename(c.photo) + ': the page does not show the doubt count said: ' + before.score_line);
  const tapped = await fixPoints(page, truth);
  if (k === 0) await killAndRevive(page, new Set(want.dead_points));
  const lives = await fixLives(page, new Set(want.dead_points));
  const s = await page.eval(STATE);
  log(basename(c.photo) + ': ' + tapped.size + ' points set, ' + lives + ' chains, recount ' + s.recount_cpu_ms +
    ' ms; ' + s.score_line + ' (truth ' + want.result + ')');
  if (k === 0) await screenshotWithLoupe(page, s.read_uncertain[0] || 'jj');
  await check(s.result === want.result, basename(c.photo) + ': the page counts ' + s.result + ', the true grid ' + want.result);
  proc.proc.expectExit = true;
  await page.type('#by', 'Test Referee');
  await touchElement(page, '#confirm');
  await page.waitFor(`GSCOUNT.state.confirmed`, 'the confirmation');
  const code = await new Promise((ok) => proc.proc.exitCode !== null ? ok(proc.proc.exitCode) : proc.proc.on('exit', ok));
  await check(code === 0, 'count --serve ended with ' + code + ': ' + proc.stderr());
  const out = JSON.parse(proc.lines.join('\n'));
  const text = readFileSync(sgf, 'utf8');
  const re = (text.match(/RE\[([^\]]*)\]/) || [])[1];
  await check(re === want.result && out.result === want.result && out.confirmed && out.confirmed_by === 'Test Referee',
    basename(c.photo) + ': RE[' + re + '], printed ' + out.result + ', the true grid counts ' + want.result);
  for (const pt of tapped)
    await check(text.includes('GSFX') && new RegExp('GSFX(\\[[a-s]{2}\\])*\\[' + pt + '\\]').test(text),
      basename(c.photo) + ': GSFX lacks ' + pt);
  await check(/Confirmed by hand on the count page by Test Referee/.test(text), 'the SGF does not say who confirmed');
  await page.noErrors();
}

/* ------------------------------------------------- the finder refuses */

/* A visible photo turned by the browser until the finder refuses it; its
 * board's corners (as scan found them on the original) turned alike. */
async function refusedPhoto(page, photo) {
  const scan = JSON.parse((await goscribe(['scan', photo, '--json'])).out);
  const data = readFileSync(photo).toString('base64');
  for (const deg of [30, 45, 60, 15]) {
    const r = await page.eval(`new Promise((ok) => { const im = new Image(); im.onload = () => {
      const a = ${deg} * Math.PI / 180, w = im.width, h = im.height;
      const W = Math.ceil(w * Math.abs(Math.cos(a)) + h * Math.abs(Math.sin(a))), H = Math.ceil(w * Math.abs(Math.sin(a)) + h * Math.abs(Math.cos(a)));
      const c = document.createElement('canvas'); c.width = W; c.height = H; const g = c.getContext('2d');
      g.fillStyle = '#fff'; g.fillRect(0, 0, W, H); g.translate(W / 2, H / 2); g.rotate(a); g.drawImage(im, -w / 2, -h / 2);
      const turn = (p) => [W / 2 + Math.cos(a) * (p[0] - w / 2) - Math.sin(a) * (p[1] - h / 2),
                           H / 2 + Math.sin(a) * (p[0] - w / 2) + Math.cos(a) * (p[1] - h / 2)];
      ok({b64: c.toDataURL('image/jpeg', 0.92).split(',')[1], corners: ${JSON.stringify(scan.corners)}.map(turn)}); };
      im.src = 'data:image/jpeg;base64,${data}'; })`);
    const out = join(W, 'turned-' + deg + '.jpg');
    writeFileSync(out, Buffer.from(r.b64, 'base64'));
    const c = await goscribe(['count', out]);
    if (c.code === 2) return { photo: out, corners: r.corners, deg };
  }
  return fail('no turned copy of ' + photo + ' that the finder refuses');
}

async function cornersByHand(browser, photo) {
  const page0 = await phone(browser, 'turn');
  await page0.navigate('about:blank');
  const r = await refusedPhoto(page0, photo.photo);
  const proc = startProcess('count --serve turned', args.goscribe, ['count', r.photo, '--serve', '127.0.0.1:0', '--token',
    TOKEN, '--sgf', join(W, 'turned.sgf')]);
  const page = await phone(browser, 'corners');
  await openPage(page, await pageUrl(proc));
  await check(!(await page.eval('GSCOUNT.state.found')), 'the turned photo was read without its corners');
  for (const q of r.corners) {
    const at = await page.eval(`(() => { window.scrollTo(0, 0);
      return GSCOUNT.screenOf(${q[0]}, ${q[1]}); })()`);
    await touch(page, at.x, at.y);
    await sleep(50);
  }
  await page.waitFor('GSCOUNT.corners.length === 4', 'four corners tapped');
  await touchElement(page, '#read-corners');
  await page.waitFor(`GSCOUNT.state.found && !GSCOUNT.busy`, 'the board read on the corners given', STEP_MS * 2);
  const s = await page.eval(STATE), truth = truthGrid(photo.txt);
  let same = 0;
  for (let i = 0; i < truth.length; i++) same += s.grid[i] === truth[i];
  log('turned ' + r.deg + ' degrees, refused by the finder; four taps on its corners: ' + same + ' of 361 points as the truth');
  await check(s.size === 19 && same >= 340, 'the board read on the corners tapped matches the truth on ' + same + ' of 361 points');
  await page.noErrors();
  proc.proc.expectExit = true;
  proc.proc.kill('SIGINT');
}

async function main() {
  const t0 = Date.now();
  const browser = new Browser();
  await browser.send('Browser.getVersion', {}, undefined, START_MS);
  const scratch = await phone(browser, 'copies');
  await scratch.navigate('about:blank');
  const photos = await choosePhotos(scratch);
  log('photos where count is unsure: ' + photos.map((c) => basename(c.photo)).join(', '));
  for (let k = 0; k < photos.length; k++) await fixPhoto(browser, photos[k], k);
  await cornersByHand(browser, { photo: join(GW, 'game1', '1_jwerth_1.jpg'), txt: join(GW, 'game1', '1_jwerth_1.txt') });
  for (const c of children) c.expectExit = true;
  await browser.close();
  clearHardLimit();
  log('passed in ' + ((Date.now() - t0) / 1000).toFixed(1) + ' s');
  await shutdown(0);
}

main().catch((e) => fail(e && e.stack || String(e)));
