// tests/browser/cdp_hall.mjs: a club evening in the real browser.
// `goscribe hall --config WORKDIR/evening.conf` records four videos at once
// (one recorder process per board, names and ranks from the OpenGotha file)
// while headless Chromium at 1920x1080
//   - watches the round page: every board's card with its players, then
//     moves appearing on each; a screenshot for the projector, its four
//     boards using the screen's width;
//   - watches board 1's page: its move list growing;
//   - corrects a move of board 2 on its director's console while the board
//     is recorded (the hall hands it to the board's recorder) and sets board
//     4's result once its recorder has ended (the hall writes the file);
// and each correction is then found in the feed and in the SGF on disk,
// with who made it, and every record holds the pairing's names;
//   - lays 1 to 16 boards out on the 1920x1080 projector: each on the
//     screen, none over another, no words cut off, the boards covering at
//     least 35% of the screen up to four boards, 25% up to sixteen;
//   - a second evening with a 90 s broadcast delay: its round page and a
//     board's page say so.
//
// usage: node cdp_hall.mjs --goscribe BIN --workdir DIR [--chromium BIN] [--shots DIR] [--profile DIR]
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { args, SLOW, STEP_MS, START_MS, children, log, sleep, fail, check, shutdown, clearHardLimit,
  startProcess, Browser, httpGet, httpPost, stopCleanly } from './cdp_lib.mjs';

if (!args.goscribe || !args.workdir) {
  console.error('usage: node cdp_hall.mjs --goscribe BIN --workdir DIR');
  process.exit(1);
}
const W = args.workdir;
const PLAYERS = [['Jörg Müller', '1k', 'Anna de Vries', '2d'], ['Chen Li', '3k', 'Bram Jansen', '1d'],
  ['Daan Bakker', '7k', 'Élodie Martin', '5k'], ['Finn Visser', '12k', 'Eva Smit & Co', '10k']];

async function startHall() {
  const hall = startProcess('goscribe hall', args.goscribe, ['hall', '--config', join(W, 'evening.conf'),
    '--token', 'director-token-123']);
  const line = await hall.waitLine(/^goscribe hall: http:\/\/127\.0\.0\.1:\d+\/ /, START_MS);
  hall.url = line.match(/(http:\/\/127\.0\.0\.1:\d+)/)[1];
  return hall;
}

const CARDS = `[...document.querySelectorAll('.card')].map(c => ({
  id: c.id, black: c.querySelector('.black .name').textContent, white: c.querySelector('.white .name').textContent,
  move: c.querySelector('.card-move').textContent, result: c.querySelector('.card-result').textContent,
  stones: c.querySelectorAll('circle.stone').length }))`;

/* Where the round page's cards and boards are, and whether each card is
 * on the screen, clear of the others, with its board and words inside. */
const GEOMETRY = `(() => {
  const rect = (e) => e.getBoundingClientRect(), W = innerWidth, H = innerHeight;
  const cards = [...document.querySelectorAll('.card')], cr = cards.map(rect);
  const boards = cards.map(c => rect(c.querySelector('.card-board')));
  const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
  const screen = {left: 0, top: 0, right: W, bottom: H};
  const bad = [];
  cards.forEach((c, i) => {
    if (!inside(cr[i], screen)) bad.push(c.id + ' off the screen');
    if (!inside(boards[i], cr[i])) bad.push(c.id + ': board outside its card');
    if (!inside(rect(c.querySelector('.card-info')), cr[i])) bad.push(c.id + ': words cut off');
    for (let j = 0; j < i; j++)
      if (Math.min(cr[i].right, cr[j].right) - Math.max(cr[i].left, cr[j].left) > 1 &&
          Math.min(cr[i].bottom, cr[j].bottom) - Math.max(cr[i].top, cr[j].top) > 1) bad.push(c.id + ' over ' + cards[j].id);
  });
  return {n: cards.length, width: Math.max(...cr.map(r => r.right)) - Math.min(...cr.map(r => r.left)),
    side: Math.round(Math.min(...boards.map(r => Math.min(r.width, r.height)))),
    cover: boards.reduce((a, r) => a + r.width * r.height, 0) / (W * H), W, H, bad};
})()`;

async function watchRound(browser, hall) {
  const page = await browser.newPage('round', 1920, 1080);
  await page.navigate(hall.url + '/');
  await page.waitFor(`document.getElementById('conn').textContent === 'live'`, 'the round stream to connect');
  await page.waitFor(`document.querySelectorAll('.card').length === 4`, 'four boards on the round page');
  let cards = await page.eval(CARDS);
  for (let i = 0; i < 4; i++) {
    const [b, br, w, wr] = PLAYERS[i];
    await check(cards[i].id === 'table-' + (i + 1) && cards[i].black === b + ' ' + br && cards[i].white === w + ' ' + wr,
      'round page, board ' + (i + 1) + ': ' + JSON.stringify(cards[i]));
  }
  await check(/Spring Club Cup/.test(await page.eval(`document.getElementById('title').textContent`)), 'round page title');
  // moves arrive on every board while it is recorded
  await page.waitFor(`[...document.querySelectorAll('.card-move')].every(e => /^Move ([3-9]|1\\d)/.test(e.textContent))`,
    'three moves or more on every board', 40000 * SLOW);
  cards = await page.eval(CARDS);
  log('round page: ' + cards.map(c => c.id + ' ' + c.move).join('; '));
  log('screenshot ' + await page.screenshot('hall-round'));
  // the projector's width is used: the cards span it, the boards are large
  const g = await page.eval(GEOMETRY);
  log('round page, four boards: cards across ' + Math.round(g.width) + ' of ' + g.W + ' px, boards of ' + g.side +
    ' px covering ' + Math.round(100 * g.cover) + '% of the screen');
  await check(g.n === 4 && g.width >= 0.97 * g.W && g.cover >= 0.35 && g.bad.length === 0,
    'the round page does not use the screen: ' + JSON.stringify(g));
  return page;
}

/* 1 to 16 boards on the projector (the round's boards copied to more
 * tables, the stream quiet: every game has ended): each laid out whole,
 * together covering the screen. */
async function checkLayouts(browser, hall) {
  const page = await browser.newPage('layout', 1920, 1080);
  await page.navigate(hall.url + '/');
  await page.waitFor(`document.querySelectorAll('.card').length === 4`, 'four boards on the layout page');
  const sizes = [];
  for (let n = 1; n <= 16; n++) {
    const g = await page.eval(`(async () => {
      const r = await (await fetch('/round.json')).json();
      cards.clear(); document.getElementById('boards').replaceChildren();
      for (let t = 1; t <= ${n}; t++) showBoard(Object.assign({}, r.boards[(t - 1) % r.boards.length], {table: String(t)}));
      await new Promise(ok => requestAnimationFrame(() => requestAnimationFrame(ok)));
      return ${GEOMETRY};
    })()`);
    sizes.push(n + ': ' + g.side + ' px ' + Math.round(100 * g.cover) + '%');
    await check(g.n === n && g.bad.length === 0 && g.cover >= (n <= 4 ? 0.35 : 0.25),
      'the round page with ' + n + ' boards: ' + JSON.stringify(g));
    if (n === 2 || n === 9 || n === 16) log('screenshot ' + await page.screenshot('hall-round-' + n));
  }
  log('layouts at 1920x1080 (boards: side, share of the screen): ' + sizes.join('; '));
  await page.noErrors();
}

/* An evening with a broadcast delay: the round page and a board's page
 * state it. */
async function checkDelay(browser) {
  const hall = startProcess('goscribe hall (delayed)', args.goscribe, ['hall', '--config', join(W, 'delayed.conf')]);
  const line = await hall.waitLine(/^goscribe hall: http:\/\/127\.0\.0\.1:\d+\/ /, START_MS);
  const url = line.match(/(http:\/\/127\.0\.0\.1:\d+)/)[1];
  const said = 'moves shown 1 min 30 s after they are played';
  const page = await browser.newPage('delayed', 1920, 1080);
  await page.navigate(url + '/board/1');
  await page.waitFor(`document.getElementById('delay').textContent === ${JSON.stringify(said)}`, 'the delay on a board\'s page');
  await page.navigate(url + '/');
  await page.waitFor(`document.getElementById('delay').textContent === ${JSON.stringify(said)}`, 'the delay on the round page');
  log('the delayed evening: "' + said + '" on the round page and a board\'s page');
  await page.noErrors();
  await stopCleanly('goscribe hall (delayed)', hall, () => hall.proc.kill('SIGINT'));
}

async function watchBoard(browser, hall) {
  const page = await browser.newPage('board', 1920, 1080);
  await page.navigate(hall.url + '/board/1');
  await page.waitFor(`document.getElementById('black').textContent === 'Jörg Müller 1k' &&
    document.getElementById('white').textContent === 'Anna de Vries 2d'`, 'the names on board 1\'s page');
  await page.waitFor(`document.querySelectorAll('#moves li').length >= 4`, 'board 1\'s move list', 30000 * SLOW);
  const first = await page.eval(`[...document.querySelectorAll('#moves li')].slice(0, 2).map(li => li.textContent)`);
  await check(JSON.stringify(first) === '["B E5","W C7"]', 'board 1\'s first moves: ' + JSON.stringify(first));
  return page;
}

/* A correction typed into board T's director console. */
async function correct(browser, hall, table, fill) {
  const page = await browser.newPage('console-' + table);
  await page.navigate(hall.url + '/board/' + table + '/console');
  await page.type('#token', 'director-token-123');
  await page.click('#token-form button');
  await page.type('#corrections .by', 'Tess Director');
  await fill(page);
  await page.waitFor(`document.querySelector('#corrections .fix-log li')`, 'an answer to the correction');
  const said = await page.eval(`document.querySelector('#corrections .fix-log li').textContent`);
  await check(/correction recorded/.test(said), 'board ' + table + '\'s console: ' + said);
  await page.noErrors();
}

/* Waits until the feed of board T holds re (the delay is 0). */
async function feedHas(hall, table, re, what) {
  const end = Date.now() + STEP_MS * 2;
  for (;;) {
    const r = await httpGet(hall.url + '/board/' + table + '.sgf');
    if (re.test(r.text)) return r.text;
    if (Date.now() > end) return fail('board ' + table + '\'s feed lacks ' + what + ': ' + r.text.slice(0, 800));
    await sleep(150);
  }
}

async function main() {
  const t0 = Date.now();
  const browser = new Browser();
  const [hall] = await Promise.all([startHall(), browser.send('Browser.getVersion', {}, undefined, START_MS)]);
  log('hall at ' + hall.url);
  const round = await watchRound(browser, hall);
  const board = await watchBoard(browser, hall);
  // board 2 is being recorded: its move 1 (Black C7) was read at B8 says the director
  await correct(browser, hall, 2, async (p) => {
    await p.type('#corrections .move-number', '1');
    await p.type('#corrections .move-point', 'B8');
    await p.click('#corrections .fix-move button');
  });
  await feedHas(hall, 2, /;B\[bb\][^;]*Correction by Tess Director \(\d\d:\d\d:\d\d UTC\): move 1 is Black B8 \(the record had C7\)/,
    'the move correction');
  log('board 2: move 1 corrected live (via its recorder), in the feed');
  // every board ends (both players confirm): the results come in
  await round.waitFor(`[...document.querySelectorAll('.card-result')].every(e => /^[BW0]/.test(e.textContent))`,
    'a result on every board', 60000 * SLOW);
  // its recorder gone (the hall says so on its stderr), the file is final
  for (const end = Date.now() + STEP_MS; !/^\[table 4\] recorder ended/m.test(hall.stderr());) {
    if (Date.now() > end) return fail('table 4\'s recorder did not end: ' + hall.stderr().slice(-800));
    await sleep(100);
  }
  await correct(browser, hall, 4, async (p) => {
    await p.type('#corrections .result', 'B+R');
    await p.click('#corrections .fix-result button');
  });
  await feedHas(hall, 4, /RE\[B\+R\][\s\S]*Correction by Tess Director \(\d\d:\d\d:\d\d UTC\): result B\+R \(the record had [BW]\+/,
    'the result correction');
  log('board 4: result set after its recorder ended (into the file), in the feed');
  await round.waitFor(`document.querySelector('#table-4 .card-result').textContent === 'B+R'`, 'B+R on the round page');
  await board.waitFor(`/^Result [BW]\\+/.test(document.getElementById('result').textContent)`, 'board 1\'s result');
  log('screenshot ' + await board.screenshot('hall-board'));
  log('screenshot ' + await round.screenshot('hall-round-end'));
  await round.noErrors();
  await board.noErrors();

  // the files on disk: the pairing's names and the corrections
  for (let i = 0; i < 4; i++) {
    const sgf = readFileSync(join(W, 'games', 'round-3-table-' + (i + 1) + '.sgf'), 'utf8');
    const [b, br, w, wr] = PLAYERS[i];
    for (const prop of ['PB[' + b + ']', 'BR[' + br + ']', 'PW[' + w + ']', 'WR[' + wr + ']', 'EV[Spring Club Cup]',
      'RO[3]', 'PC[Utrecht]', 'DT['])
      await check(sgf.includes(prop), 'table ' + (i + 1) + '\'s SGF lacks ' + prop + ': ' + sgf.slice(0, 400));
    await check(/RE\[/.test(sgf), 'table ' + (i + 1) + '\'s SGF has no result');
  }
  const t3 = readFileSync(join(W, 'games', 'round-3-table-3.sgf'), 'utf8');
  await check(t3.includes('HA[2]') && t3.includes('KM[0.5]'), 'table 3 (handicap 2): ' + t3.slice(0, 300));
  await check(readFileSync(join(W, 'games', 'round-3-table-2.sgf'), 'utf8').includes('Correction by Tess Director'),
    'the move correction is not in table 2\'s file');
  await checkLayouts(browser, hall);
  await checkDelay(browser);
  const feed = await httpGet(hall.url + '/round.sgf');
  await check(feed.status === 200 && (feed.text.match(/GSST\[ended\]/g) || []).length === 4, 'round.sgf: ' + feed.text.slice(0, 300));
  writeFileSync(join(W, 'round.sgf'), feed.text);

  await stopCleanly('goscribe hall', hall, () => hall.proc.kill('SIGINT'));
  for (const c of children) c.expectExit = true;
  await browser.close();
  clearHardLimit();
  log('passed in ' + ((Date.now() - t0) / 1000).toFixed(1) + ' s');
  await shutdown(0);
}

main().catch((e) => fail(e && e.stack || String(e)));
