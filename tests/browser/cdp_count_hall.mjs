// tests/browser/cdp_count_hall.mjs: "count this board" in a club evening,
// on a phone.  `goscribe hall --config WORKDIR/evening.conf` records one
// rendered 9x9 game; once its recorder has ended, headless Chromium as a
// 390x844 touch screen
//   - opens the board's page, types the director's token and gives the
//     upload field (accept image/*, capture) a photo of the finished board
//     (the render's last frame): the board's count page opens;
//   - kills a chain with a long press (the result moves) and confirms;
// and the confirmed result, with who confirmed it and when, is then in
// /round.sgf, in the board's file and in a message of the round's SSE
// stream (/round/events).
//
// usage: node cdp_count_hall.mjs --goscribe BIN --workdir DIR --photo PNG [--chromium BIN] [--shots DIR] [--profile DIR]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { args, STEP_MS, START_MS, children, log, sleep, fail, check, shutdown, clearHardLimit,
  startProcess, Browser, httpGet, stopCleanly } from './cdp_lib.mjs';

if (!args.goscribe || !args.workdir || !args.photo) {
  console.error('usage: node cdp_count_hall.mjs --goscribe BIN --workdir DIR --photo PNG');
  process.exit(1);
}
const W = args.workdir;
const TOKEN = 'director-token-456';

async function startHall() {
  const hall = startProcess('goscribe hall', args.goscribe, ['hall', '--config', join(W, 'evening.conf'), '--token', TOKEN]);
  const line = await hall.waitLine(/^goscribe hall: http:\/\/127\.0\.0\.1:\d+\/ /, START_MS);
  hall.url = line.match(/(http:\/\/127\.0\.0\.1:\d+)/)[1];
  return hall;
}

/* The round's SSE stream read by the test (node's fetch): every message's
 * JSON kept in msgs. */
function listen(url) {
  const msgs = [], ctl = new AbortController();
  fetch(url + '/round/events', { signal: ctl.signal }).then(async (r) => {
    const dec = new TextDecoder();
    let buf = '';
    for await (const chunk of r.body) {
      buf += dec.decode(chunk, { stream: true });
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const data = buf.slice(0, i).split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
        buf = buf.slice(i + 2);
        if (data) msgs.push(JSON.parse(data));
      }
    }
  }).catch(() => { /* aborted at the end */ });
  return { msgs, close: () => ctl.abort() };
}

async function phone(browser, label) {
  const page = await browser.newPage(label, 390, 844);
  await page.cmd('Emulation.setDeviceMetricsOverride', { width: 390, height: 844, deviceScaleFactor: 2, mobile: true });
  await page.cmd('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
  return page;
}
async function touch(page, x, y, holdMs = 40) {
  await page.cmd('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
  await sleep(holdMs);
  await page.cmd('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

/* The photo given to the board page's upload field, as a phone's camera
 * would; the count page opens. */
async function uploadPhoto(page, hall) {
  await page.navigate(hall.url + '/board/1');
  await check(await page.eval(`(() => { const f = document.getElementById('count-photo');
    return f.accept === 'image/*' && f.getAttribute('capture') === 'environment'; })()`),
    'the board page has no photo field with capture');
  await page.waitFor(`document.getElementById('black').textContent === 'Ann Black'`, 'the board page loaded');
  await page.eval(`document.getElementById('count-token').value = ${JSON.stringify(TOKEN)}`);
  const { root } = await page.cmd('DOM.getDocument', {});
  const { nodeId } = await page.cmd('DOM.querySelector', { nodeId: root.nodeId, selector: '#count-photo' });
  await page.cmd('DOM.setFileInputFiles', { nodeId, files: [args.photo] });
  await page.waitFor(`location.pathname === '/board/1/count/' && document.readyState === 'complete'`,
    'the count page after the upload', STEP_MS * 2);
  await page.waitFor('window.GSCOUNT && GSCOUNT.state', 'the count on the count page');
}

/* A long press on a stone of a chain the count keeps alive: its result. */
async function killAChain(page) {
  const s = await page.eval('GSCOUNT.state');
  await check(s.found && s.size === 9, 'the photo of the 9x9 board was not read: ' + JSON.stringify(s).slice(0, 300));
  let i = 0;
  while (i < 81 && (s.grid[i] === '.' || s.dead_points.includes(String.fromCharCode(97 + i % 9) + String.fromCharCode(97 + Math.floor(i / 9))))) i++;
  const pt = String.fromCharCode(97 + i % 9) + String.fromCharCode(97 + Math.floor(i / 9));
  const at = await page.eval(`(() => { window.scrollTo(0, 0); return GSCOUNT.pointOnScreen('${pt}'); })()`);
  await touch(page, at.x, at.y, 700);
  await page.waitFor(`GSCOUNT.state.version > ${s.version} && !GSCOUNT.busy`, 'the recount after the long press');
  const after = await page.eval('GSCOUNT.state');
  await check(after.dead_by_hand.includes(pt) && after.result !== s.result,
    'the long press on ' + pt + ' changed nothing: ' + after.score_line);
  log('count page of board 1: ' + s.result + ', chain at ' + pt + ' killed: ' + after.result);
  return after.result;
}

async function confirm(page) {
  await page.type('#by', 'Tess Director');
  const box = await page.eval(`(() => { const e = document.getElementById('confirm'); e.scrollIntoView({block: 'center'});
    const r = e.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`);
  await touch(page, box.x, box.y);
  await page.waitFor('GSCOUNT.state.confirmed', 'the confirmation', STEP_MS * 2);
}

/* Waits until the feed's round.sgf holds re. */
async function feedHas(hall, re, what) {
  const end = Date.now() + STEP_MS * 2;
  for (;;) {
    const r = await httpGet(hall.url + '/round.sgf');
    if (re.test(r.text)) return r.text;
    if (Date.now() > end) return fail('round.sgf lacks ' + what + ': ' + r.text.slice(0, 1200));
    await sleep(150);
  }
}

async function main() {
  const t0 = Date.now();
  const browser = new Browser();
  const [hall] = await Promise.all([startHall(), browser.send('Browser.getVersion', {}, undefined, START_MS)]);
  log('hall at ' + hall.url);
  for (const end = Date.now() + 60000; !/^\[table 1\] recorder ended/m.test(hall.stderr());) {
    if (Date.now() > end) return fail('table 1\'s recorder did not end: ' + hall.stderr().slice(-800));
    await sleep(100);
  }
  const stream = listen(hall.url);
  const page = await phone(browser, 'hall-count');
  await uploadPhoto(page, hall);
  const result = await killAChain(page);
  const esc = result.replace('+', '\\+').replace('.', '\\.');
  await confirm(page);
  const feed = await feedHas(hall, new RegExp('RE\\[' + esc + '\\][\\s\\S]*Correction by Tess Director \\(\\d\\d:\\d\\d:\\d\\d UTC; ' +
    'counted from a photo on the count page: Black [^)]*\\): result ' + esc), 'the confirmed result ' + result);
  log('round.sgf: RE[' + result + '] with the correction\'s words');
  await check(/GSRL\[result:-:/.test(feed), 'round.sgf: no GSRL of the result: ' + feed.slice(0, 600));
  const file = readFileSync(join(W, 'games', 'round-1-table-1.sgf'), 'utf8');
  await check(file.includes('RE[' + result + ']') && file.includes('Correction by Tess Director'),
    'the board\'s file lacks the result: ' + file.slice(0, 600));
  for (const end = Date.now() + STEP_MS; !stream.msgs.some((m) => m.type === 'board' && Number(m.table) === 1 && m.result === result);) {
    if (Date.now() > end) return fail('no SSE message of board 1 with ' + result + ': ' + JSON.stringify(stream.msgs).slice(0, 800));
    await sleep(100);
  }
  log('the round\'s SSE stream said board 1 ' + result);
  stream.close();
  await page.noErrors();
  await stopCleanly('goscribe hall', hall, () => hall.proc.kill('SIGINT'));
  for (const c of children) c.expectExit = true;
  await browser.close();
  clearHardLimit();
  log('passed in ' + ((Date.now() - t0) / 1000).toFixed(1) + ' s');
  await shutdown(0);
}

main().catch((e) => fail(e && e.stack || String(e)));
