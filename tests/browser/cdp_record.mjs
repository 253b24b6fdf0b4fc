// tests/browser/cdp_record.mjs: end-to-end browser test of the real
// recorder's live broadcast: `goscribe record VIDEO --serve 127.0.0.1:0`
// records a rendered game with a seeded double move (paced like a live
// camera with --frame-delay) while headless Chromium
//   - watches the moves appear on the board page and the camera frame;
//   - is refused by the referee API and console without the token (and with
//     a wrong one);
//   - with the token sees the seeded double move (with its evidence) in the
//     console and rules "void" with a warning and a note;
// and the ruling is then found in /game.sgf and in the SGF file on disk
// (comment with the time and the warning count, GSRL property).
//
// usage: node cdp_record.mjs --goscribe BIN --video FILE.avi --workdir DIR
//        [--frame-delay MS] [--chromium BIN] [--shots DIR] [--profile DIR] [--verbose]
// Exit 0 = every check passed; 1 = a check failed (the message says which).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { args, SLOW, STEP_MS, START_MS, children, log, sleep, fail, check, shutdown, clearHardLimit,
  startProcess, Browser, httpGet, httpPost, stopCleanly, checkRebinding } from './cdp_lib.mjs';

if (!args.goscribe || !args.video || !args.workdir) {
  console.error('usage: node cdp_record.mjs --goscribe BIN --video FILE --workdir DIR');
  process.exit(1);
}
const SGF_PATH = join(args.workdir, 'game.sgf');
const NOTE = 'second stone taken off';
const RULING_RE = new RegExp('Referee \\([0-9:]+ UTC\\): move void, warning to Black \\(warning 1\\)\\. ' + NOTE);
const GSRL_RE = /GSRL\[void:B:1:0:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\]/;

const BOARD_STATE = `(() => ({
  stones: document.querySelectorAll('#board circle.stone').length,
  moves: [...document.querySelectorAll('#moves li')].map(li => li.textContent),
  moveNumber: document.getElementById('move-number').textContent,
  conn: document.getElementById('conn').textContent }))()`;

/* Starts the recorder; its stderr tells the live URL (the real port) and
 * the referee token. */
async function startRecorder() {
  const rec = startProcess('goscribe record', args.goscribe, ['record', args.video, '-o', SGF_PATH, '--serve', '127.0.0.1:0',
    '--board-name', 'Table 7', '--frame-delay', String(args['frame-delay'] || 90), '--no-stdin', '--linger', '60', '-q',
    '--count-anyway']);
  const end = Date.now() + START_MS;
  for (;;) {
    const live = rec.stderr().match(/^goscribe record: live (http:\/\/127\.0\.0\.1:(\d+))\/$/m);
    const ref = rec.stderr().match(/^goscribe record: referee (http:\/\/\S+)\/referee token ([0-9A-Za-z]+)$/m);
    if (live && ref) {
      await check(live[2] !== '0' && ref[1] === live[1], 'the URL lines do not tell the real port: ' + rec.stderr());
      rec.url = live[1];
      rec.token = ref[2];
      return rec;
    }
    if (Date.now() > end) return fail('goscribe record printed no live URL and token: ' + rec.stderr());
    await sleep(50);
  }
}

async function watchBoard(browser, rec) {
  const page = await browser.newPage('board');
  await page.navigate(rec.url + '/');
  await page.waitFor(`document.getElementById('conn').textContent === 'live'`, 'the live stream to connect');
  await page.waitFor(`document.getElementById('name').textContent === 'Table 7'`, 'the board name');
  // the page notes the number of moves listed each time the list changes
  await page.eval(`window.gsCounts = [document.querySelectorAll('#moves li').length]; new MutationObserver(() => gsCounts.push(
    document.querySelectorAll('#moves li').length)).observe(document.getElementById('moves'), {childList: true}); 0`);
  await page.waitFor(`document.querySelectorAll('#moves li').length >= 3`, 'three moves on the board page', 20000 * SLOW);
  const s = await page.eval(BOARD_STATE);
  await check(/^B [A-HJ][1-9]$/.test(s.moves[0]) && /^W /.test(s.moves[1]), 'board page: odd first moves ' + JSON.stringify(s.moves));
  await check(s.stones >= 3, 'board page: ' + s.stones + ' stones drawn for ' + s.moves.length + ' moves');
  // the camera frame with the grid
  const jpg = await fetch(rec.url + '/frame.jpg', { signal: AbortSignal.timeout(5000) });
  const bytes = Buffer.from(await jpg.arrayBuffer());
  await check(jpg.status === 200 && bytes[0] === 0xff && bytes[1] === 0xd8, '/frame.jpg: ' + jpg.status + ', not a JPEG');
  await page.click('#show-cam');
  await page.waitFor(`(() => { const i = document.getElementById('cam'); return i.style.display !== 'none' && i.complete && i.naturalWidth === 640; })()`,
    'the camera frame to show');
  return page;
}

async function referee(browser, rec) {
  const u = rec.url;
  const good = { event_id: 1, ruling: 'void', color: 'B', warning: true };
  const cases = [
    ['GET /api/events, no token', await httpGet(u + '/api/events')],
    ['GET /api/events, wrong token', await httpGet(u + '/api/events', { 'X-Goscribe-Token': 'x'.repeat(rec.token.length) })],
    ['POST /api/ruling, no token', await httpPost(u + '/api/ruling', JSON.stringify(good))],
    ['POST /api/ruling, wrong token', await httpPost(u + '/api/ruling', JSON.stringify(good), { Authorization: 'Bearer ' + rec.token.slice(0, -1) })],
  ];
  for (const [what, r] of cases) await check(r.status === 403, what + ': expected 403, got ' + r.status + ' ' + r.text.slice(0, 200));

  const page = await browser.newPage('referee');
  await page.navigate(u + '/referee');
  await page.waitFor(`document.getElementById('auth').textContent === 'token refused'`, 'the console to say the token is refused');
  await page.type('#token', 'wrong-token-123');
  await page.click('#token-form button');
  await sleep(300);
  await page.waitFor(`document.getElementById('auth').textContent === 'token refused'`, 'a wrong token to be refused');
  await check(await page.eval(`document.querySelectorAll('#list .event').length`) === 0, 'referee console lists events with a wrong token');
  await sleep(200);
  await check(!rec.lines.some((l) => /Referee \(/.test(l)), 'a ruling reached the recorder without the token');

  // the right token: the seeded double move, flagged by the real recorder
  await page.type('#token', rec.token);
  await page.click('#token-form button');
  await page.waitFor(`document.getElementById('auth').textContent === 'token accepted'`, 'the token to be accepted');
  await page.waitFor(`(() => { const e = document.getElementById('ref-event-1'); return e && /double_move/.test(e.textContent) && /twice/.test(e.textContent); })()`,
    'the seeded double move in the referee console', 30000 * SLOW);
  await page.waitFor(`document.querySelectorAll('#ref-event-1 .evidence img').length === 2 &&
    [...document.querySelectorAll('#ref-event-1 .evidence img')].every(i => i.complete && i.naturalWidth > 0)`, 'the evidence frames to load');
  const ev = await page.eval(`(() => { const e = document.getElementById('ref-event-1'); return {
    suggested: [...e.querySelectorAll('button.suggested')].map(b => b.dataset.ruling),
    boards: [...e.querySelectorAll('svg.mini')].map(s => s.querySelectorAll('circle.stone').length) }; })()`);
  await check(JSON.stringify(ev.suggested) === '["void"]', 'referee console: suggested ruling ' + JSON.stringify(ev.suggested));
  await check(ev.boards.length === 2 && ev.boards[1] > ev.boards[0], 'referee console: evidence boards ' + JSON.stringify(ev.boards));
  const stdoutBefore = rec.lines.length;
  await page.type('#ref-event-1 .note', NOTE);
  await page.click('#ref-event-1 button[data-ruling="void"]');
  await page.waitFor(`[...document.querySelectorAll('#log li.ok')].some(li => /recorded/.test(li.textContent))`, 'the ruling to be accepted');
  // the recorder applies it between two frames and says so
  const line = await rec.waitLine(RULING_RE, STEP_MS);
  await check(rec.lines.indexOf(line) >= stdoutBefore, 'ruling line out of order');
  let sgf = null;
  const end = Date.now() + STEP_MS;
  for (;;) {
    sgf = await httpGet(u + '/game.sgf');
    if (sgf.status === 200 && RULING_RE.test(sgf.text) && GSRL_RE.test(sgf.text)) break;
    if (Date.now() > end) return fail('the ruling is not in /game.sgf: ' + sgf.status + ' ' + sgf.text.slice(-600));
    await sleep(100);
  }
  await check(/GSEV\[double_move/.test(sgf.text), '/game.sgf lacks the GSEV of the flagged event');
  await page.waitFor(`document.getElementById('warn-b').textContent === '1'`, 'the console to count one warning for Black');
  log('screenshot ' + await page.screenshot('record-referee'));
  await page.noErrors();
  return line;
}

async function main() {
  const t0 = Date.now();
  const browser = new Browser();
  const [rec, version] = await Promise.all([startRecorder(), browser.send('Browser.getVersion', {}, undefined, START_MS)]);
  log('recording at ' + rec.url + '; browser ' + version.product);

  const board = await watchBoard(browser, rec);
  log('board page: the first moves appeared live, camera frame shown');
  await checkRebinding(browser, rec.url, ['/', '/state.json', '/game.sgf', '/frame.jpg', '/events']);
  log('a foreign site resolved to the recorder\'s address (DNS rebinding) reads nothing: 421');
  await referee(browser, rec);
  log('referee: refused without the token, double move shown with the token, void ruling in /game.sgf');

  // the recording goes on to the end of the video; the page follows it
  await rec.waitLine(/^\[[0-9:.]+\] (count|end of the game)/, 40000 * SLOW);
  // the log line may come a moment before the final state is published
  let st = null;
  for (const end = Date.now() + STEP_MS; ;) {
    st = JSON.parse((await httpGet(rec.url + '/state.json')).text);
    if ((st.status === 'ended' && /^[BW]\+/.test(st.result)) || Date.now() > end) break;
    await sleep(100);
  }
  await check(st.status === 'ended' && /^[BW]\+/.test(st.result),
    '/state.json at the end: status ' + JSON.stringify(st.status) + ', result ' + JSON.stringify(st.result));
  await board.waitFor(`document.getElementById('move-number').textContent === '${st.move_number}' &&
    document.querySelectorAll('#moves li').length === ${st.move_number}`, 'the board page to list all ' + st.move_number + ' moves');
  const counts = [...new Set(await board.eval('gsCounts'))];
  await check(counts.length >= 6, 'board page: the moves did not appear one by one (list lengths seen: ' + counts.join(',') + ')');
  const moveLines = rec.lines.filter((l) => /\] move \d+: /.test(l)).length;
  await check(st.move_number === moveLines, 'state.json has ' + st.move_number + ' moves, the recorder printed ' + moveLines);
  await board.waitFor(`[...document.querySelectorAll('#events li.ruling')].some(li => /move void/.test(li.textContent))`, 'the ruling on the board page');
  log('screenshot ' + await board.screenshot('record-board'));
  await board.noErrors();

  // the file on disk holds the ruling and the result
  const disk = readFileSync(SGF_PATH, 'utf8');
  await check(RULING_RE.test(disk) && GSRL_RE.test(disk), 'the ruling is not in ' + SGF_PATH + ': ' + disk.slice(-600));
  await check(disk.includes('RE[' + st.result + ']'), SGF_PATH + ' lacks RE[' + st.result + ']');
  const served = (await httpGet(rec.url + '/game.sgf')).text;
  await check(served === disk, '/game.sgf differs from the file on disk at the end');
  log('end: ' + st.move_number + ' moves, result ' + st.result + '; the SGF on disk holds the ruling');

  // 3: the 12 moves counted anyway (--count-anyway) do not look like a
  // finished game, so that count is not sure
  await stopCleanly('goscribe record', rec, () => rec.proc.kill('SIGINT'), 3);
  for (const c of children) c.expectExit = true;
  await browser.close();
  clearHardLimit();
  log('passed in ' + ((Date.now() - t0) / 1000).toFixed(1) + ' s');
  await shutdown(0);
}

main().catch((e) => fail(e && e.stack || String(e)));
