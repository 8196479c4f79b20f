// Shared by the package's tests: paths, the native binary, seeded dice and
// positions from random games.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drawRoll, generator } from '../demo/dice.js';

export { drawRoll, generator };

export const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repository = resolve(web, '..');
export const dist = join(web, 'dist');
export const models = join(repository, 'models');

/** The package as built by build.sh (tests import it as a user would). */
export const packageUrl = new URL(`file://${join(dist, 'index.js')}`);

/**
 * The native `sawah` binary: $SAWAH_BIN, else the one `cargo test` built in
 * the target folder ($CARGO_TARGET_DIR or target/).
 */
export function nativeBinary() {
  const target = process.env.CARGO_TARGET_DIR ?? join(repository, 'target');
  const candidates = [process.env.SAWAH_BIN, join(target, 'debug', 'sawah'), join(target, 'release', 'sawah')];
  const found = candidates.find((path) => path && existsSync(path));
  if (!found) {
    throw new Error(`no native sawah binary (tried ${candidates.filter(Boolean).join(', ')}): build it with cargo build, or set SAWAH_BIN`);
  }
  return found;
}

/** Runs `sawah bot ARGS` on request lines; returns the response lines. */
export function nativeAnswers(lines, args = ['--models', models]) {
  const run = spawnSync(nativeBinary(), ['bot', ...args], {
    input: lines.join('\n') + '\n',
    maxBuffer: 1 << 30,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`sawah bot exited with ${run.status}: ${run.stderr}`);
  const answers = run.stdout.split('\n');
  answers.pop();
  return answers;
}

/**
 * `count` (position, roll) pairs from uniformly random games of `name`,
 * every position of each game, starting new games as they end.
 */
export function positionsFromPlay(bot, name, count, seed) {
  const random = generator(seed);
  const rules = bot.rules(name);
  const samples = [];
  let position = bot.start(name);
  while (samples.length < count) {
    const over = ['light', 'dark'].some((side) => position[side].scored === rules.pieces);
    if (over) {
      position = bot.start(name);
      continue;
    }
    const roll = drawRoll(rules, random);
    samples.push({ position, roll });
    const moves = bot.legalMoves(position, roll);
    position = moves.length === 0
      ? { ...position, turn: position.turn === 'light' ? 'dark' : 'light' }
      : moves[Math.floor(random() * moves.length)].position;
  }
  return samples;
}

/** The rule sets a front end plays. */
export const RULE_SETS = ['sawah', 'ur', 'babylon', 'marks-roll-only', 'masters', 'masters-5', 'senet', 'blitz', 'aseb', 'masters-3dice'];

/**
 * One uniformly random game of `name` from the start, as a game record
 * (`{rules, moves}` with results-file tokens), cut at `limit` turns.
 */
export function recordFromPlay(bot, name, seed, limit = 400) {
  const random = generator(seed);
  const rules = bot.rules(name);
  const moves = [];
  let position = bot.start(name);
  while (moves.length < limit && !['light', 'dark'].some((side) => position[side].scored === rules.pieces)) {
    const roll = drawRoll(rules, random);
    const legal = bot.legalMoves(position, roll);
    if (legal.length === 0) {
      moves.push(`${roll}:pass`);
      position = { ...position, turn: position.turn === 'light' ? 'dark' : 'light' };
    } else {
      const move = legal[Math.floor(random() * legal.length)];
      moves.push(`${roll}:${move.from}-${move.to}`);
      position = move.position;
    }
  }
  return { rules: name, moves };
}

/** The tiny rule file the levels tests build (tests/fixtures/tiny-sticks.toml). */
export const TINY_RULES = join(repository, 'tests', 'fixtures', 'tiny-sticks.toml');

/**
 * A models folder made from the tiny rule file by the native `sawah levels
 * build`, at a small effort, into web/test-results/NAME (served with web/);
 * each test file builds its own.
 */
export function buildLevels(name) {
  const out = join(web, 'test-results', name);
  for (const path of [out, `${out}.work`, `${out}.lock`]) rmSync(path, { recursive: true, force: true });
  mkdirSync(join(web, 'test-results'), { recursive: true });
  const run = spawnSync(nativeBinary(), ['levels', 'build', '--rules', TINY_RULES, '--out', out, '--effort', '0.02'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (run.status !== 0) throw new Error(`sawah levels build exited with ${run.status}: ${run.stderr}`);
  return out;
}
