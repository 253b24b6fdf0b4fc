// tests/browser/cdp_test.mjs: browser test of the live pages (broadcast/web).
//
// Drives headless Chromium through the DevTools protocol over a pipe
// (--remote-debugging-pipe: NUL-separated JSON on fds 3 and 4), so it needs
// no npm package and no WebSocket client; it runs on Debian's Node 18 too.
// It starts its own stand-in recorders (tests/drivers/serve_driver.c) and a
// `goscribe hall`, and kills every child it started on any exit path.
//
// usage: node cdp_test.mjs --goscribe BIN --driver BIN [--chromium BIN]
//                          [--shots DIR] [--profile DIR] [--verbose]
// --profile: Chromium's (empty) user data directory; a temporary one by default.
// Exit 0 = every check passed; 1 = a check failed (the message says which).
import { args, SLOW, STEP_MS, START_MS, children, log, vlog, sleep, fail, check, shutdown, clearHardLimit,
  startProcess, Browser, httpGet, httpPost, stopCleanly, checkRebinding } from './cdp_lib.mjs';

if (!args.goscribe || !args.driver) { console.error('usage: node cdp_test.mjs --goscribe BIN --driver BIN'); process.exit(1); }

async function startDriver(name, extra) {
  const d = startProcess(name, args.driver, ['--name', name, '--timeout', '100', ...extra]);
  d.url = (await d.waitLine(/^url /, START_MS)).slice(4).trim();
  d.token = (await d.waitLine(/^token /)).slice(6).trim();
  return d;
}

// ------------------------------------------------------------ the scripted game

// Must match tests/drivers/serve_driver.c.
const SCRIPT = ['cc', 'cg', 'gc', 'gg', 'ec', 'eg', 'ce', 'ge', 'dc', 'dg', 'fc', 'fg', 'ee'];
const VIOLATION = 'ed';     // Black's second stone in a row, shown as move 14
const INSTEAD = 'hh';       // White's move 14 once the referee voided it
const COLS = 'ABCDEFGHJKLMNOPQRSTUVWXYZ';
const coord = (pt, size) => COLS[pt.charCodeAt(0) - 97] + (size - (pt.charCodeAt(1) - 97));
const expectedMoves = (size) => SCRIPT.map((pt, i) => (i % 2 ? 'W ' : 'B ') + coord(pt, size));
const stonesOf = (extra) => SCRIPT.map((pt, i) => (i % 2 ? 'W' : 'B') + pt).concat(extra).sort();
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

const BOARD_STATE = `(() => ({
  stones: [...document.querySelectorAll('#board circle.stone')].map(c => c.dataset.color + c.dataset.point).sort(),
  moves: [...document.querySelectorAll('#moves li')].map(li => li.textContent),
  moveNumber: document.getElementById('move-number').textContent,
  conn: document.getElementById('conn').textContent }))()`;

async function testBoard(browser, drv, size) {
  const page = await browser.newPage('board');
  await page.navigate(drv.url + '/');
  await page.waitFor(`document.getElementById('conn').textContent === 'live'`, 'the live stream to connect');
  await page.waitFor(`document.getElementById('name').textContent === 'Table 1'`, 'the board name');
  let s = await page.eval(BOARD_STATE);
  await check(s.stones.length === 0 && s.moves.length === 0 && s.moveNumber === '0',
    'board page before the game: expected an empty board, got ' + JSON.stringify(s));

  // start the game and watch it arrive move by move: the page records the
  // number of stones each time it redraws the board
  await page.eval(`window.gsCounts = []; new MutationObserver(() => gsCounts.push(
    document.querySelectorAll('#board circle.stone').length)).observe(document.getElementById('board'), {childList: true}); 0`);
  drv.send('go');
  const end = Date.now() + 15000 * SLOW;
  for (;;) {
    s = await page.eval(BOARD_STATE);
    if (s.stones.length === SCRIPT.length && s.moves.length === SCRIPT.length && s.moveNumber === String(SCRIPT.length)) break;
    if (Date.now() > end) return fail('board page: the moves did not all appear; last seen ' + JSON.stringify(s));
    await sleep(40);
  }
  const counts = [...new Set(await page.eval('gsCounts'))].sort((a, b) => a - b);
  vlog('stone counts drawn while the game was played: ' + counts.join(','));
  await check(counts.length >= SCRIPT.length - 2,
    'board page: the moves did not appear one by one (stone counts drawn: ' + counts.join(',') + ')');
  const want = stonesOf([]);
  await check(same(s.stones, want), 'board page: stones ' + JSON.stringify(s.stones) + ', expected ' + JSON.stringify(want));
  await check(JSON.stringify(s.moves) === JSON.stringify(expectedMoves(size)),
    'board page: move list ' + JSON.stringify(s.moves) + ', expected ' + JSON.stringify(expectedMoves(size)));
  await page.waitFor(`(() => { const e = document.querySelector('#board circle[stroke="#d22"]'); return !!e; })()`, 'the last-move mark');

  // the seeded violation: Black's second stone shows, and so does the event
  drv.send('violate');
  await drv.waitLine(/^event 1$/);
  const movesWithViolation = expectedMoves(size).concat(['B ' + coord(VIOLATION, size)]);
  await page.waitFor(`(() => { const e = document.getElementById('event-1'); return e && /double_move/.test(e.textContent); })()`,
    'the double_move event on the board page');
  await page.waitFor(`document.querySelectorAll('#moves li').length === ${SCRIPT.length + 1}`, 'the double move in the move list');
  s = await page.eval(BOARD_STATE);
  await check(same(s.stones, stonesOf(['B' + VIOLATION])) && same(s.moves, movesWithViolation),
    'board page after the double move: ' + JSON.stringify(s));

  // a viewer arriving late rebuilds the move list from the record and still
  // gets the referee events published before it came
  await page.navigate(drv.url + '/?late');
  await page.waitFor(`document.querySelectorAll('#moves li').length === ${SCRIPT.length + 1}`, 'the move list after a reload');
  s = await page.eval(BOARD_STATE);
  await check(same(s.moves, movesWithViolation),
    'board page after a reload: move list ' + JSON.stringify(s.moves) + ', expected ' + JSON.stringify(movesWithViolation));
  await check(s.stones.length === SCRIPT.length + 1, 'board page after a reload: ' + s.stones.length + ' stones');
  await page.waitFor(`(() => { const e = document.getElementById('event-1'); return e && /double_move/.test(e.textContent); })()`,
    'the double_move event on the board page after a reload');

  // the camera frame
  await page.click('#show-cam');
  await page.waitFor(`(() => { const i = document.getElementById('cam'); return i.style.display !== 'none' && i.complete && i.naturalWidth > 0; })()`,
    'the camera frame to show');
  await page.noErrors();
  return page;
}

async function testReferee(browser, drv, boardPage, size) {
  // the API refuses everything without the right token
  const u = drv.url;
  const good = { event_id: 1, ruling: 'void', color: 'B', warning: true };
  const cases = [
    ['GET /api/events, no token', await httpGet(u + '/api/events')],
    ['GET /api/events, wrong token', await httpGet(u + '/api/events', { 'X-Goscribe-Token': 'not-the-token' })],
    ['GET /api/events?token=wrong', await httpGet(u + '/api/events?token=' + 'x'.repeat(drv.token.length))],
    ['GET /api/events?token=RIGHT (never in a URL)', await httpGet(u + '/api/events?token=' + drv.token)],
    ['GET /api/evidence?token=RIGHT', await httpGet(u + '/api/evidence/1/before.jpg?token=' + drv.token)],
    ['GET /api/evidence, no token', await httpGet(u + '/api/evidence/1/before.jpg')],
    ['POST /api/ruling, no token', await httpPost(u + '/api/ruling', JSON.stringify(good))],
    ['POST /api/ruling, wrong token', await httpPost(u + '/api/ruling', JSON.stringify(good), { Authorization: 'Bearer ' + drv.token.slice(0, -1) })],
    ['POST /api/ruling, token prefix', await httpPost(u + '/api/ruling', JSON.stringify(good), { 'X-Goscribe-Token': drv.token + 'x' })],
  ];
  for (const [what, r] of cases) await check(r.status === 403, what + ': expected 403, got ' + r.status + ' ' + r.text.slice(0, 200));
  await sleep(300); // the driver polls rulings every 50 ms
  await check(!drv.lines.some((l) => l.startsWith('ruling')), 'a ruling reached the recorder without the token');
  const sgf0 = await httpGet(u + '/game.sgf');
  await check(sgf0.status === 200 && !/Referee \(/.test(sgf0.text), 'the SGF has a ruling before any was made');

  // the console without the token: refused, nothing listed; a token in
  // the console's URL is not taken either
  const page = await browser.newPage('referee');
  await page.navigate(u + '/referee?token=' + drv.token);
  await page.waitFor(`document.getElementById('auth').textContent === 'token refused'`, 'the console to ignore a token in its URL');
  await page.navigate(u + '/referee');
  await page.waitFor(`document.getElementById('auth').textContent === 'token refused'`, 'the console to say the token is refused');
  await check(await page.eval(`document.querySelectorAll('#list .event').length`) === 0, 'referee console lists events without the token');

  // a wrong token is refused too
  await page.type('#token', 'wrong-token-123');
  await page.click('#token-form button');
  await sleep(300);
  await page.waitFor(`document.getElementById('auth').textContent === 'token refused'`, 'a wrong token to be refused');
  await check(await page.eval(`document.querySelectorAll('#list .event').length`) === 0, 'referee console lists events with a wrong token');
  // and a ruling tried with it is refused, and said so
  await page.click('button[data-general="warn"][data-color="W"]');
  await page.waitFor(`[...document.querySelectorAll('#log li.refused')].some(li => /403/.test(li.textContent))`,
    'the console to report a refused ruling');
  await sleep(300);
  await check(!drv.lines.some((l) => l.startsWith('ruling')), 'a ruling made with a wrong token reached the recorder');

  // the right token: the seeded violation with its evidence
  await page.type('#token', drv.token);
  await page.click('#token-form button');
  await page.waitFor(`document.getElementById('auth').textContent === 'token accepted'`, 'the token to be accepted');
  await page.waitFor(`(() => { const e = document.getElementById('ref-event-1'); return e && /double_move/.test(e.textContent) && /twice/.test(e.textContent); })()`,
    'the double_move event in the referee console');
  const ev = await page.eval(`(() => { const e = document.getElementById('ref-event-1'); return {
    suggested: [...e.querySelectorAll('button.suggested')].map(b => b.dataset.ruling),
    boards: [...e.querySelectorAll('svg.mini')].map(s => s.querySelectorAll('circle.stone').length),
    rings: [...e.querySelectorAll('svg.mini circle[stroke="#06f"]')].length,
    imgs: [...e.querySelectorAll('.evidence img')].map(i => i.complete && i.naturalWidth > 0) }; })()`);
  await check(JSON.stringify(ev.suggested) === '["void"]', 'referee console: suggested ruling ' + JSON.stringify(ev.suggested) + ', expected void');
  await check(same(ev.boards, [SCRIPT.length, SCRIPT.length + 1]),
    'referee console: evidence boards hold ' + JSON.stringify(ev.boards) + ' stones, expected ' + SCRIPT.length + ' and ' + (SCRIPT.length + 1));
  await check(ev.rings >= 1, 'referee console: the violating point ' + VIOLATION + ' is not marked');
  await page.waitFor(`[...document.querySelectorAll('#ref-event-1 .evidence img')].every(i => i.complete && i.naturalWidth > 0) &&
    document.querySelectorAll('#ref-event-1 .evidence img').length === 2`, 'the evidence frames to load');

  // the ruling: void the second move, with a warning (the suggestion) and a note
  const NOTE = 'second stone taken off';
  await page.type('#ref-event-1 .note', NOTE);
  await page.eval(`document.getElementById('ref-event-1').dataset.mark = 'same box'`);
  await page.click('#ref-event-1 button[data-ruling="void"]');
  await page.waitFor(`[...document.querySelectorAll('#log li.ok')].some(li => /recorded/.test(li.textContent))`, 'the ruling to be accepted');
  const line = await drv.waitLine(/^ruling 1 /);
  await check(/^ruling 1 void .*move void.*warning.*Black/.test(line), 'the recorder got an unexpected ruling: ' + line);
  let sgf = null;
  const end = Date.now() + 5000;
  for (;;) {
    sgf = await httpGet(u + '/game.sgf');
    if (sgf.status === 200 && /Referee \([0-9:]+ UTC\): move void, warning to Black \(warning 1\)\. second stone taken off/.test(sgf.text)) break;
    if (Date.now() > end) return fail('the ruling is not in /game.sgf: ' + sgf.status + ' ' + sgf.text.slice(-400));
    await sleep(100);
  }
  await check(/GSEV\[double_move/.test(sgf.text), 'the SGF lacks the GSEV of the flagged event');
  // the referee voided the stone: it goes, and White's move 14 follows
  await drv.waitLine(/^move 14$/);
  const movesAfter = expectedMoves(size).concat(['W ' + coord(INSTEAD, size)]);
  const end2 = Date.now() + STEP_MS;
  for (;;) {
    sgf = await httpGet(u + '/game.sgf');
    if (sgf.status === 200 && /second stone taken off\][\s\n]*;W\[hh\]/.test(sgf.text)) break;
    if (Date.now() > end2) return fail('White\'s move 14 does not follow the ruling in /game.sgf: ' + sgf.text.slice(-400));
    await sleep(100);
  }
  await boardPage.waitFor(`(() => { const s = ${BOARD_STATE}; return s.moveNumber === '14' && s.moves.length === 14 &&
    s.moves[13] === ${JSON.stringify(movesAfter[13])}; })()`, 'the board page to replace the voided move');
  const sb = await boardPage.eval(BOARD_STATE);
  await check(same(sb.stones, stonesOf(['W' + INSTEAD])) && same(sb.moves, movesAfter),
    'board page after the void ruling: ' + JSON.stringify(sb) + ', expected moves ' + JSON.stringify(movesAfter));
  await page.waitFor(`/\\[ruled\\]/.test(document.getElementById('ref-event-1').textContent) && document.getElementById('warn-b').textContent === '1'`,
    'the console to show the event as ruled and one warning for Black');
  await check(await page.eval(`(() => { const e = document.getElementById('ref-event-1');
    return e.dataset.mark === 'same box' && e.querySelector('.note').value === ${JSON.stringify(NOTE)}; })()`),
    'referee console: the event box was rebuilt after the ruling, losing what the referee typed');
  const shot = await page.screenshot('referee');
  log('screenshot ' + shot);
  // every viewer hears of it
  await boardPage.waitFor(`[...document.querySelectorAll('#events li.ruling')].some(li => /move void/.test(li.textContent)) &&
    document.getElementById('event-1').classList.contains('ruled')`, 'the ruling on the board page');
  await boardPage.waitFor(`document.getElementById('warn-b').textContent === '1'`, 'the board page to count the warning');
  const boardShot = await boardPage.screenshot('board');
  log('screenshot ' + boardShot);
  await page.noErrors();
  await boardPage.noErrors();
}

async function testHall(browser, drvA, drvB) {
  await drvB.waitLine(/^done$/, 15000);
  const hall = startProcess('hall', args.goscribe, ['hall', '--serve', '127.0.0.1:0', '--board', drvA.url, '--board', drvB.url, '--poll-ms', '200']);
  const line = await hall.waitLine(/^goscribe hall: http:/, START_MS);
  const url = line.match(/(http:\/\/[^ ]+)/)[1].replace(/\/$/, '');
  hall.url = url;
  const page = await browser.newPage('hall');
  await page.navigate(url + '/');
  await page.waitFor(`document.querySelectorAll('#boards tr').length === 2`, 'two boards in the hall');
  const rows = await page.waitFor(`(() => { const r = [...document.querySelectorAll('#boards tr')].map(tr => ({
      name: tr.cells[0].textContent, href: tr.querySelector('a') && tr.querySelector('a').href,
      move: tr.cells[3].textContent, stones: tr.querySelectorAll('svg circle.stone').length }))
      .sort((a, b) => a.name < b.name ? -1 : 1);
    return r.length === 2 && r[0].stones === ${SCRIPT.length + 1} && r[1].stones === ${SCRIPT.length} ? r : null; })()`,
    'both boards drawn in the hall');
  const want = [{ name: 'Table 1', href: drvA.url + '/', move: String(SCRIPT.length + 1), stones: SCRIPT.length + 1 },
    { name: 'Table 2', href: drvB.url + '/', move: String(SCRIPT.length), stones: SCRIPT.length }];
  await check(JSON.stringify(rows) === JSON.stringify(want), 'hall rows ' + JSON.stringify(rows) + ', expected ' + JSON.stringify(want));
  await page.waitFor(`document.getElementById('count').textContent === '2 boards'`, 'the hall to count two boards');
  const shot = await page.screenshot('hall');
  log('screenshot ' + shot);
  // the link leads to the board's own live page
  await page.click('#boards tr:nth-child(' + (await page.eval(`[...document.querySelectorAll('#boards tr')].findIndex(tr => tr.cells[0].textContent === 'Table 2')`) + 1) + ') a');
  await page.waitFor(`location.href === ${JSON.stringify(drvB.url + '/')} && document.getElementById('name').textContent === 'Table 2' &&
    document.querySelectorAll('#moves li').length === ${SCRIPT.length}`, 'the hall link to open Table 2');
  await page.noErrors();
  return hall;
}

async function main() {
  const t0 = Date.now();
  const size = 13; // not 19, so a coordinate computed for the wrong size shows
  // the three start in parallel (each takes a second or two to load)
  const browser = new Browser();
  const [drvA, drvB, version] = await Promise.all([
    startDriver('Table 1', ['--size', String(size), '--wait-go', '--interval-ms', '150']),
    startDriver('Table 2', ['--size', '19', '--interval-ms', '20']),
    browser.send('Browser.getVersion', {}, undefined, START_MS)]);
  log('boards at ' + drvA.url + ' and ' + drvB.url + '; browser ' + version.product);

  const boardPage = await testBoard(browser, drvA, size);
  log('board page: moves appear live, coordinates and stones right, reload and camera work');
  await checkRebinding(browser, drvA.url, ['/', '/app.js', '/state.json', '/game.sgf', '/frame.jpg', '/events', '/referee']);
  log('a foreign site resolved to the board\'s address (DNS rebinding) reads nothing: 421');
  await testReferee(browser, drvA, boardPage, size);
  log('referee: refused without the token (API and page), event shown with evidence, ruling recorded in the SGF');
  const hall = await testHall(browser, drvA, drvB);
  log('hall: both boards listed, drawn and linked');
  await checkRebinding(browser, hall.url, ['/', '/state.json']);
  log('hall: a foreign site resolved to its address reads nothing: 421');
  // the recording ends before the game does: the page must not call the game over
  drvA.send('unfinished');
  await boardPage.waitFor(`document.getElementById('status').textContent === 'recording ended: no result (game unfinished)' &&
    document.getElementById('to-move').textContent === 'nobody to play: the recording ended before the game did'`,
    'the board page to say the recording ended with the game unfinished');
  log('a recording that ends before the game: the page says unfinished, no result');
  await Promise.all([stopCleanly('Table 1', drvA, () => drvA.send('quit')),
    stopCleanly('Table 2', drvB, () => drvB.send('quit')),
    stopCleanly('goscribe hall', hall, () => hall.proc.kill('SIGTERM'))]);
  // viewers notice when the recorder is gone
  await boardPage.waitFor(`document.getElementById('conn').textContent === 'reconnecting'`, 'the board page to notice the server is gone');
  log('recorders and hall stopped cleanly; the board page says it is reconnecting');

  for (const c of children) c.expectExit = true;
  await browser.close();
  clearHardLimit();
  log('passed in ' + ((Date.now() - t0) / 1000).toFixed(1) + ' s');
  await shutdown(0);
}

main().catch((e) => fail(e && e.stack || String(e)));
