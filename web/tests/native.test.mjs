// The package answers exactly as the native `sawah bot` does: for thousands
// of requests from random games of every rule set (legal moves, the move of
// every level and of other agents, evaluations, and bad requests), the
// same legal moves, the same chosen move, every value within 1e-6, the same
// errors. The native answers are made in this test run, by the binary of
// this checkout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { RULE_SETS, buildLevels, nativeAnswers, packageUrl, positionsFromPlay, recordFromPlay } from './helpers.mjs';

const { createBot } = await import(packageUrl);
const POSITIONS = Number(process.env.SAWAH_EQUALITY_POSITIONS ?? 2000);
const CHOOSERS = ['easy', 'medium', 'hard', 'random', 'heuristic:noise=0.05:seed=9', 'expectiminimax:depth=2', 'hard:seed=3'];
const EVALUATORS = ['easy', 'medium', 'hard', 'heuristic'];

const kindOnly = new Set();

function requests(bot) {
  const lines = [];
  RULE_SETS.forEach((name, r) => {
    positionsFromPlay(bot, name, POSITIONS, 1000 + r).forEach(({ position, roll }, i) => {
      lines.push(JSON.stringify({ id: lines.length, cmd: 'legal_moves', position, roll }));
      // Hard searches are the slow ones: every position gets one chooser.
      const chooser = CHOOSERS[i % CHOOSERS.length];
      lines.push(JSON.stringify({ id: lines.length, cmd: 'choose', position, roll, bot: chooser }));
      if (i % 4 === 0) {
        lines.push(JSON.stringify({ id: lines.length, cmd: 'evaluate', position, bot: EVALUATORS[(i / 4) % EVALUATORS.length] }));
      }
    });
    // Errors too: a roll out of range, a broken position, an unknown bot, a missing field.
    const start = bot.start(name);
    lines.push(JSON.stringify({ id: lines.length, cmd: 'choose', position: start, roll: 9, bot: 'hard' }));
    lines.push(JSON.stringify({ id: lines.length, cmd: 'legal_moves', position: { ...start, turn: 'blue' }, roll: 1 }));
    lines.push(JSON.stringify({ id: lines.length, cmd: 'choose', position: start, roll: 2, bot: 'grandmaster' }));
    lines.push(JSON.stringify({ id: lines.length, cmd: 'evaluate', position: start }));
    // A file the page never handed over: natively a path that does not
    // exist. The kind is the same; the messages say where each looked.
    kindOnly.add(lines.length);
    lines.push(JSON.stringify({ id: lines.length, cmd: 'choose', position: start, roll: 2, bot: 'neural:model=nowhere.safetensors' }));
  });
  // Puzzles: of the day, near a rating, answered right and wrong, refused.
  RULE_SETS.forEach((name) => {
    const asked = bot.request({ cmd: 'puzzle', rules: name, date: '2026-12-05' });
    lines.push(JSON.stringify({ id: lines.length, cmd: 'puzzle', rules: name, date: '2026-12-05' }));
    lines.push(JSON.stringify({ id: lines.length, cmd: 'puzzle', rules: name, rating: 200, seed: 3 }));
    for (const move of asked.puzzle?.moves ?? []) {
      lines.push(JSON.stringify({ id: lines.length, cmd: 'solve_puzzle', rules: name, puzzle: asked.puzzle.id, move }));
    }
  });
  lines.push('{"cmd":"puzzle","rules":"ur"}', '{"cmd":"solve_puzzle","rules":"ur","puzzle":"ur-00000000","move":{"from":1,"to":2}}');
  lines.push('not json', '[1,2]', '{"cmd":"fly"}', '{"cmd":"daily","date":"2026-02-30"}', '{"cmd":"daily","date":"2026-12-02","count":300}');
  return lines;
}

function sameValues(browser, native, where) {
  if (native === null || browser === null) {
    assert.equal(browser, native, where);
    return;
  }
  assert.equal(browser.length, native.length, where);
  browser.forEach((entry, k) => {
    assert.deepEqual([entry.from, entry.to], [native[k].from, native[k].to], where);
    assert.ok(Math.abs(entry.value - native[k].value) <= 1e-6, `${where}: ${entry.value} against ${native[k].value}`);
  });
}

test('the package gives the native answers on random positions of every rule set', { timeout: 30 * 60_000 }, async () => {
  const bot = await createBot();
  const lines = requests(bot);
  const started = Date.now();
  const browser = lines.map((line) => JSON.parse(bot.request(line)));
  const wasmSeconds = (Date.now() - started) / 1000;
  const nativeStarted = Date.now();
  const native = nativeAnswers(lines).map((line) => JSON.parse(line));
  const nativeSeconds = (Date.now() - nativeStarted) / 1000;
  assert.equal(native.length, lines.length, 'one native answer per line');
  let differences = 0;
  let compared = 0;
  lines.forEach((line, i) => {
    const where = `request ${line.slice(0, 300)}`;
    const [mine, theirs] = [browser[i], native[i]];
    try {
      if (kindOnly.has(i)) {
        assert.equal(mine.error?.kind, theirs.error?.kind, where);
      } else if ('values' in theirs && theirs.values !== undefined) {
        assert.deepEqual(mine.move, theirs.move, where);
        sameValues(mine.values, theirs.values, where);
        assert.deepEqual(Object.keys(mine), Object.keys(theirs), where);
      } else if ('value' in theirs) {
        assert.ok(Math.abs(mine.value - theirs.value) <= 1e-6, `${where}: ${mine.value} against ${theirs.value}`);
      } else {
        assert.deepEqual(mine, theirs, where);
      }
      compared += 1;
    } catch (error) {
      differences += 1;
      if (differences <= 5) console.error(error.message);
    }
  });
  console.log(`${compared} requests answered alike; wasm ${wasmSeconds.toFixed(1)} s, native ${nativeSeconds.toFixed(1)} s`);
  assert.equal(differences, 0, `${differences} of ${lines.length} answers differ from native`);
  const kinds = new Set(browser.filter((r) => r.error).map((r) => r.error.kind));
  for (const kind of ['invalid_roll', 'invalid_position', 'invalid_bot', 'missing_field', 'invalid_json', 'invalid_request', 'unknown_command', 'invalid_field']) {
    assert.ok(kinds.has(kind), `the requests include a ${kind} error`);
  }
});

test('reviews and hints are the native ones for every rule set', { timeout: 30 * 60_000 }, async () => {
  const bot = await createBot();
  const lines = [];
  RULE_SETS.forEach((name, r) => {
    // A short game each (the default reference searches deeper than hard).
    const record = recordFromPlay(bot, name, 500 + r, 40);
    lines.push(JSON.stringify({ id: lines.length, cmd: 'review', game: record }));
    lines.push(JSON.stringify({ id: lines.length, cmd: 'review', game: record, bot: 'medium' }));
    positionsFromPlay(bot, name, 20, 700 + r).forEach(({ position, roll }, k) => {
      lines.push(JSON.stringify({ id: lines.length, cmd: 'hint', position, roll }));
      // Before the roll: the roll table.
      if (k < 3) lines.push(JSON.stringify({ id: lines.length, cmd: 'hint', position }));
    });
  });
  lines.push(JSON.stringify({ id: lines.length, cmd: 'review', game: { rules: 'ur', moves: ['2:0-2', '3:0-9'] } }));
  lines.push(JSON.stringify({ id: lines.length, cmd: 'review', game: { rules: 'ur', moves: ['2:0-2'] }, bot: 'random' }));
  const browser = lines.map((line) => JSON.parse(bot.request(line)));
  const native = nativeAnswers(lines).map((line) => JSON.parse(line));
  assert.equal(native.length, lines.length, 'one native answer per line');
  // Win probabilities within 1e-6; percentage points within 1e-4 (the same).
  const close = (a, b, where, tolerance = 1e-6) => assert.ok(Math.abs(a - b) <= tolerance, `${where}: ${a} against ${b}`);
  lines.forEach((line, i) => {
    const where = `request ${line.slice(0, 200)}`;
    const [mine, theirs] = [browser[i], native[i]];
    if (theirs.error) {
      assert.deepEqual(mine, theirs, where);
    } else if (theirs.turns) {
      assert.equal(mine.reference, theirs.reference, where);
      assert.equal(mine.turns.length, theirs.turns.length, where);
      mine.turns.forEach((turn, k) => {
        for (const key of ['player', 'roll', 'played', 'best', 'class']) assert.equal(turn[key], theirs.turns[k][key], `${where}: turn ${k + 1} ${key}`);
        for (const key of ['value_played', 'value_best']) close(turn[key], theirs.turns[k][key], `${where}: turn ${k + 1} ${key}`);
        for (const key of ['loss_pp', 'luck_pp']) close(turn[key], theirs.turns[k][key], `${where}: turn ${k + 1} ${key}`, 1e-4);
      });
      for (const side of ['light', 'dark']) close(mine[side].mean_loss_pp, theirs[side].mean_loss_pp, `${where}: ${side}`, 1e-4);
    } else if (theirs.rolls) {
      assert.equal(mine.reference, theirs.reference, where);
      assert.deepEqual(mine.rolls.map((r) => [r.roll, r.probability]), theirs.rolls.map((r) => [r.roll, r.probability]), where);
      mine.rolls.forEach((r, k) => close(r.value, theirs.rolls[k].value, `${where}: roll ${r.roll}`));
      close(mine.value, theirs.value, where);
    } else {
      assert.equal(mine.reference, theirs.reference, where);
      assert.equal(mine.moves.length, theirs.moves.length, where);
      // Moves of equal value may rank in either order: matched by squares.
      mine.moves.forEach((move) => {
        const other = theirs.moves.find((m) => m.from === move.from && m.to === move.to);
        assert.deepEqual([move.from, move.to, move.tags, move.words, move.hit_chance], [other.from, other.to, other.tags, other.words, other.hit_chance], where);
        close(move.value, other.value, where);
      });
    }
  });
  assert.equal(browser.at(-2).error.kind, 'invalid_field');
  assert.match(browser.at(-2).error.message, /move 2 \("3:0-9"\)/);
  assert.equal(browser.at(-1).error.kind, 'invalid_bot');
});

test('a models folder made by `sawah levels build` from a rule file: the same answers as `sawah bot --models` for its rule set', async () => {
  const folder = buildLevels('levels-native');
  const bot = await createBot({ models: ['shipped', pathToFileURL(`${folder}/`)] });
  assert.ok(bot.listRules().includes('tiny-sticks'), 'the rule file travels with the folder');
  const lines = [];
  positionsFromPlay(bot, 'tiny-sticks', 60, 7).forEach(({ position, roll }, i) => {
    const chooser = ['easy', 'medium', 'hard', 'elo=200'][i % 4];
    lines.push(JSON.stringify({ id: lines.length, cmd: 'choose', position, roll, bot: chooser }));
    lines.push(JSON.stringify({ id: lines.length, cmd: 'evaluate', position, bot: 'hard' }));
  });
  lines.push(JSON.stringify({ id: lines.length, cmd: 'rules', rules: 'tiny-sticks' }));
  lines.push(JSON.stringify({ id: lines.length, cmd: 'puzzle', rules: 'tiny-sticks', rating: 100, seed: 1 }));
  const native = nativeAnswers(lines, ['--models', folder]);
  // Moves, words and errors the same; numbers within 1e-6, as above (the
  // browser's expf may round a leaf one unit apart from the native one).
  const same = (mine, theirs, where) => {
    if (typeof mine === 'number' && typeof theirs === 'number') {
      assert.ok(Math.abs(mine - theirs) <= 1e-6, `${where}: ${mine} against ${theirs}`);
    } else if (mine && theirs && typeof mine === 'object' && typeof theirs === 'object') {
      assert.deepEqual(Object.keys(mine).sort(), Object.keys(theirs).sort(), where);
      for (const key of Object.keys(mine)) same(mine[key], theirs[key], `${where}.${key}`);
    } else {
      assert.deepEqual(mine, theirs, where);
    }
  };
  lines.forEach((line, i) => same(JSON.parse(bot.request(line)), JSON.parse(native[i]), line));
  // The shipped rule sets keep their levels beside the folder's.
  const ur = bot.request({ cmd: 'choose', position: 'ur light 7/-/0 7/-/0', roll: 2, bot: 'hard' });
  assert.ok(ur.move, JSON.stringify(ur));
});
