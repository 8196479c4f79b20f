// The demo page in a real browser: Debian's Chromium, headless, driven by
// playwright-core. Serves web/ on 127.0.0.1, plays whole games of ur, sawah
// and senet (and Senet's game of the day) by clicking the roll button and
// the marked pieces while the computer answers from its Web Worker, checks
// that no console error occurred, asks for a hint and the review of each
// finished game (the chart has one point per turn) and downloads the game
// and its review; plays a game with the tutor on and the puzzle of the day;
// draws every rule set at a phone's 390 px without sideways scrolling; and
// saves a screenshot of each in web/test-results/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../scripts/serve.mjs';
import { RULE_SETS, buildLevels, repository, web } from './helpers.mjs';

const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const results = join(web, 'test-results');
let browser;
let server;
let base;

before(async () => {
  assert.ok(existsSync(executablePath), `no Chromium at ${executablePath} (apt-get install chromium, or set CHROMIUM)`);
  ({ server, url: base } = await serve(0));
  browser = await chromium.launch({
    executablePath,
    args: [
      '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  mkdirSync(results, { recursive: true });
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** Plays one whole game on the demo page; returns the final status line.
 * With `review`, asks for the roll table once before a roll, a hint once
 * during the game and for the review at its end, and checks all three. */
/** A new page that collects console errors, page errors and failed requests in `problems`. */
async function openPage(query, viewport = { width: 1100, height: 700 }) {
  const page = await browser.newPage({ viewport, acceptDownloads: true });
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request: ${request.url()} ${request.failure()?.errorText}`));
  await page.goto(`${base}demo/?${query}`);
  return { page, problems };
}

/** Clicks `button` and returns the JSON file it downloads. */
async function downloaded(page, button) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return JSON.parse(readFileSync(await file.path(), 'utf8'));
}

async function playGame(query, screenshot, { review = false, tutor = false } = {}) {
  const { page, problems } = await openPage(query);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  const rules = new URLSearchParams(query).get('rules');
  const deadline = Date.now() + 5 * 60_000;
  let humanMoves = 0;
  let computerMoves = 0;
  let cellsChecked = false;
  let hinted = !review;
  let tabled = !review;
  let tutored = 0;
  while (!(await page.getAttribute('body', 'data-over'))) {
    assert.ok(Date.now() < deadline, `the ${rules} game did not end in 5 minutes`);
    assert.deepEqual(problems, []);
    if (!cellsChecked && (await page.locator('.cell').count()) > 0) {
      // The board is drawn from the rules answer: one cell per board cell.
      const folder = new URLSearchParams(query).get('models');
      const expected = await page.evaluate(async ([name, folder]) => {
        const { createBot } = await import('../dist/index.js');
        const models = folder ? [new URL(folder, location.href).href] : false;
        const rules = (await createBot({ models })).rules(name);
        return rules.family === 'senet' ? rules.board.houses.length : rules.board.cells.length;
      }, [rules, folder]);
      assert.equal(await page.locator('.cell').count(), expected, `${rules}: one cell per board cell`);
      cellsChecked = true;
    }
    const roll = page.locator('#roll-button:enabled');
    const movable = page.locator('.movable');
    if (tutor && (await page.locator('#tutor-says:not([hidden])').count())) {
      // The tutor spoke: keep the move every other time, else choose again.
      assert.match(await page.textContent('#tutor-text'), /^The tutor: .* gives away [\d.]+ points .* Better: /);
      tutored += 1;
      await page.click(tutored % 2 ? '#tutor-again' : '#tutor-keep');
      continue;
    }
    if (!tabled && (await roll.count()) && (await page.locator('#hint-button:enabled').count())) {
      // Before the roll, the hint is the roll table.
      await page.click('#hint-button');
      await page.waitForSelector('#hint li', { timeout: 30_000 });
      assert.match(await page.textContent('#hint p'), /Before the roll: \d+% to win/);
      assert.match(await page.textContent('#hint li'), /of throws\): wins \d+%/);
      tabled = true;
    } else if (await roll.count()) {
      await roll.click({ timeout: 5_000 }).catch(() => {});
    } else if (!hinted && (await page.locator('#hint-button:enabled').count()) && (await movable.count())) {
      await page.click('#hint-button');
      await page.waitForSelector('#hint li', { timeout: 30_000 });
      const first = await page.textContent('#hint li');
      assert.match(first, /wins \d+%/, 'the hint gives each move its chances');
      hinted = true;
    } else if (await movable.count()) {
      const count = await movable.count();
      const clicked = await movable.nth((humanMoves * 7) % count).click({ timeout: 5_000 }).then(() => true, () => false);
      if (clicked) humanMoves += 1;
    } else {
      await page.waitForTimeout(10);
    }
    computerMoves = await page.locator('#log li', { hasText: /^Computer rolled \d: [^n]/ }).count();
  }
  const status = await page.textContent('#status');
  if (review) {
    await page.click('#review-button');
    await page.waitForSelector('body[data-reviewed="true"]', { timeout: 60_000 });
    const turns = Number(await page.getAttribute('#review svg', 'data-turns'));
    const points = (await page.getAttribute('#review svg polyline', 'points')).trim().split(/\s+/).length;
    assert.ok(turns > 10, `${turns} turns reviewed`);
    assert.equal(points, turns, 'the chart has one point per turn');
    assert.match(await page.textContent('#review'), /per decision over \d+ decisions/);
    // The game and its review download as files `sawah review` reads.
    const record = await downloaded(page, '#save-record');
    assert.equal(record.rules, rules);
    assert.ok(record.moves.length > 10 && record.moves.every((m) => /^\d:(pass|\d+-(\d+|off))$/.test(m)), 'record moves');
    const saved = await downloaded(page, '#save-review');
    assert.deepEqual(saved.record, record);
    assert.equal(saved.review.turns.length, record.moves.length);
  }
  if (tutor) assert.ok(tutored >= 2, `the tutor spoke ${tutored} times`);
  await page.screenshot({ path: join(results, screenshot), fullPage: true });
  assert.deepEqual(problems, [], 'no console error, page error or failed request');
  assert.ok(humanMoves > 0, `${rules}: the player moved`);
  assert.ok(computerMoves > 0, `${rules}: the computer moved`);
  await page.close();
  return status;
}

for (const [query, screenshot] of [
  ['rules=ur&level=hard&seed=1&delay=0&autostart=1', 'demo-ur.png'],
  ['rules=sawah&level=medium&side=dark&seed=2&delay=0&autostart=1', 'demo-sawah.png'],
  ['rules=senet&level=easy&seed=3&delay=0&autostart=1', 'demo-senet.png'],
]) {
  test(`a whole game in the demo, with a hint and the review: ${query}`, { timeout: 6 * 60_000 }, async () => {
    const status = await playGame(query, screenshot, { review: true });
    assert.match(status, /^(You won!|The computer won\.)/);
    if (query.includes('senet')) assert.match(status, /Score for light: \d+\./);
  });
}

test('a game with the tutor on: it speaks before costly moves, and the player keeps the move or chooses again', { timeout: 6 * 60_000 }, async () => {
  const status = await playGame('rules=ur&level=easy&seed=4&delay=0&tutor=1&autostart=1', 'demo-ur-tutor.png', { tutor: true });
  assert.match(status, /^(You won!|The computer won\.)/);
});

test('the puzzle of the day, as every front door gives it, and another after it', { timeout: 3 * 60_000 }, async () => {
  const fixture = JSON.parse(readFileSync(join(repository, 'tests', 'fixtures', 'daily-puzzles.json'), 'utf8'));
  for (const rules of ['ur', 'senet']) {
    const { page, problems } = await openPage(`rules=${rules}&puzzle=${fixture.date}`);
    await page.waitForSelector('#puzzle:not([hidden])', { timeout: 30_000 });
    await page.waitForSelector('.movable', { timeout: 30_000 });
    assert.match(await page.textContent('#puzzle-text'), new RegExp(`^Puzzle ${fixture.ids[rules]} \\(rating`));
    await page.locator('.movable').first().click();
    await page.waitForSelector('body[data-puzzle]', { timeout: 30_000 });
    assert.match(await page.textContent('#puzzle'), /(Correct|Not this one).*Themes: /s);
    await page.screenshot({ path: join(results, `demo-puzzle-${rules}.png`), fullPage: true });
    await page.click('#next-puzzle');
    await page.waitForSelector('.movable', { timeout: 30_000 });
    assert.doesNotMatch(await page.textContent('#puzzle-text'), new RegExp(fixture.ids[rules]));
    assert.deepEqual(problems, [], 'no console error, page error or failed request');
    await page.close();
  }
});

test('on a phone (390 px) every board fits without sideways scrolling, with cells large enough to tap', { timeout: 3 * 60_000 }, async () => {
  for (const rules of RULE_SETS) {
    const { page, problems } = await openPage(`rules=${rules}&seed=5&delay=0&autostart=1`, { width: 390, height: 844 });
    await page.waitForSelector('#roll-button:enabled', { timeout: 30_000 });
    const sizes = await page.evaluate(() => {
      const cell = document.querySelector('.cell').getBoundingClientRect();
      const board = document.getElementById('board').getBoundingClientRect();
      return { page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth, cell: cell.width, right: board.right };
    });
    assert.ok(sizes.page <= sizes.view, `${rules}: the page is ${sizes.page} px wide in a ${sizes.view} px viewport`);
    assert.ok(sizes.right <= sizes.view, `${rules}: the board ends at ${sizes.right} px`);
    assert.ok(sizes.cell >= 44, `${rules}: cells of ${sizes.cell} px are too small to tap`);
    await page.click('#roll-button');
    await page.screenshot({ path: join(results, `demo-phone-${rules}.png`), fullPage: true });
    assert.deepEqual(problems, [], 'no console error, page error or failed request');
    await page.close();
  }
});

test("Senet's game of the day plays with the day's throws", { timeout: 6 * 60_000 }, async () => {
  const status = await playGame('rules=senet&daily=2026-12-02&delay=0&autostart=1', 'demo-senet-daily.png');
  assert.match(status, /Score for light: \d+\./);
});

test('a models folder made by `sawah levels build`: its rule set is listed beside the shipped ones, its hard level plays a whole game, and the footer follows the choice', { timeout: 6 * 60_000 }, async () => {
  buildLevels('levels-browser');
  const folder = '../test-results/levels-browser/';
  const status = await playGame(`models=${folder}&rules=tiny-sticks&level=hard&seed=6&delay=0&autostart=1`, 'demo-levels-tiny-sticks.png');
  assert.match(status, /^(You won!|The computer won\.)/);
  const { page, problems } = await openPage(`models=${folder}&rules=ur`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  const names = await page.locator('#rules option').allTextContents();
  assert.ok(names.includes('tiny-sticks') && names.includes('ur') && names.includes('senet'), names.join(', '));
  const ur = await page.textContent('#about');
  await page.selectOption('#rules', 'tiny-sticks');
  await page.waitForFunction((before) => document.getElementById('about').textContent !== before, ur);
  assert.equal(await page.textContent('#about'), 'Finkel route, 3 pieces, three sticks (a test rule file)');
  assert.deepEqual(problems, [], 'no console error, page error or failed request');
  await page.close();
});
