// The package's API, as a front-end developer uses it: the typed methods,
// protocol errors, the shipped levels and their checksums, files handed over
// as bytes, and the packed tarball installed into a fresh project.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dist, models, nativeAnswers, nativeBinary, packageUrl, repository, web } from './helpers.mjs';

const sawah = await import(packageUrl);
const { createBot, SawahError } = sawah;
const bot = await createBot();

test('the typed methods answer for every rule set', () => {
  for (const name of bot.listRules()) {
    const rules = bot.rules(name);
    assert.equal(rules.name, name);
    const start = bot.start(name);
    assert.equal(start.rules, name);
    assert.equal(start.turn, rules.first_player);
    const roll = rules.dice.find((d) => d.probability > 0 && d.roll > 0).roll;
    const moves = bot.legalMoves(start, roll);
    assert.ok(moves.length > 0, `${name}: a first move for ${roll}`);
    const choice = bot.choose(start, roll, 'easy');
    assert.ok(moves.some((m) => m.from === choice.move.from && m.to === choice.move.to), name);
    const value = bot.evaluate(start, 'medium');
    assert.ok(value > 0 && value < 1, `${name}: ${value}`);
  }
});

test('the roll table weighs every roll of the dice', () => {
  const table = bot.rollTable('ur light 7/-/0 7/-/0', 'medium');
  assert.deepEqual(table.rolls.map((r) => r.roll), [0, 1, 2, 3, 4]);
  const total = table.rolls.reduce((sum, r) => sum + r.probability, 0);
  assert.ok(Math.abs(total - 1) < 1e-12, `chances sum to ${total}`);
  const mean = table.rolls.reduce((sum, r) => sum + r.probability * r.value, 0);
  assert.ok(Math.abs(mean - table.value) < 1e-12, 'the value before the roll is their weighted mean');
  assert.equal(table.rolls[0].move, 'pass', 'nothing moves on a 0');
});

test('positions may be written in notation', () => {
  const choice = bot.choose('ur light 7/-/0 7/-/0', 4, 'hard');
  assert.deepEqual(choice.move, { from: 0, to: 4 }, 'the rosette on 4');
});

test('protocol errors come back as responses from request and are thrown by the typed methods', () => {
  const response = bot.request({ id: 'x', cmd: 'choose', position: 'ur light 7/-/0 7/-/0', roll: 9, bot: 'hard' });
  assert.equal(response.id, 'x');
  assert.equal(response.error.kind, 'invalid_roll');
  assert.throws(() => bot.legalMoves('ur light 8/-/0 7/-/0', 1), (error) => error instanceof SawahError && error.kind === 'invalid_position');
  assert.throws(() => bot.choose('ur light 7/-/0 7/-/0', 1, 'grandmaster'), (error) => error.kind === 'invalid_bot' && /grandmaster/.test(error.message));
  assert.throws(() => bot.score('ur light 7/-/0 7/-/0'), (error) => error.kind === 'unsupported');
  const line = bot.request('{"cmd":"list_rules","id":3}');
  assert.equal(typeof line, 'string');
  assert.equal(JSON.parse(line).id, 3);
});

test("the game of the day has the documented throws", () => {
  const documented = readFileSync(join(repository, 'docs', 'senet.md'), 'utf8').match(/^2026-11-30: ([\d ]+)$/m)[1].split(' ').map(Number);
  assert.deepEqual(bot.daily('2026-11-30', documented.length), documented);
  assert.throws(() => bot.daily('2026-13-01'), (error) => error.kind === 'invalid_field');
});

test('the puzzle of the day is the one every front door gives, and answers are explained', () => {
  const fixture = JSON.parse(readFileSync(join(repository, 'tests', 'fixtures', 'daily-puzzles.json'), 'utf8'));
  for (const [rules, id] of Object.entries(fixture.ids)) {
    assert.equal(bot.puzzle(rules, { date: fixture.date }).puzzle.id, id, rules);
  }
  const { puzzle } = bot.puzzle('ur', { puzzle: 'ur-eb0d40ab' });
  const verdicts = puzzle.moves.map((move) => bot.solvePuzzle('ur', puzzle.id, move));
  assert.equal(verdicts.filter((v) => v.correct).length, 1);
  assert.ok(verdicts.every((v) => typeof v.explanation === 'string' && v.themes.length > 0));
  assert.throws(() => bot.puzzle('ur', {}), (error) => error.kind === 'missing_field');
  assert.throws(() => bot.solvePuzzle('ur', 'ur-00000000', puzzle.moves[0]), (error) => error.kind === 'invalid_field');
});

test('the shipped levels are the manifest models, and without models the built-in presets play', async () => {
  const presets = await createBot({ models: false });
  const request = { cmd: 'choose', position: 'masters light 4/11,13/1 5/14,16/0', roll: 3 };
  // Hard's spec as the manifest gives it, so the test follows a retrained model.
  const manifest = JSON.parse(readFileSync(join(models, 'manifest.json'), 'utf8'));
  const hard = manifest.levels.find((level) => level.rules === 'masters' && level.level === 'hard');
  assert.match(hard.spec, /^neural:model=[\w.-]+\.safetensors/);
  const shipped = bot.request({ ...request, bot: 'hard' });
  const named = bot.request({ ...request, bot: hard.spec });
  assert.deepEqual(shipped, named, 'hard on masters is the manifest spec');
  assert.notDeepEqual(shipped, bot.request({ ...request, bot: 'neural:model=masters.safetensors' }), 'hard is not the plain network');
  const preset = presets.request({ ...request, bot: 'hard' });
  assert.deepEqual(preset, presets.request({ ...request, bot: 'expectiminimax:depth=2' }));
  const only = await createBot({ rules: ['ur'] });
  assert.deepEqual(only.request({ ...request, bot: 'hard' }), preset, 'masters models not loaded: the preset');
  assert.equal(only.request({ ...request, bot: 'neural:model=masters.safetensors' }).error.kind, 'invalid_bot');
});

test('a model that does not match its checksum is refused, with the native message', async () => {
  const manifest = readFileSync(join(models, 'manifest.json'));
  const files = {};
  // Every file the manifest names: the models and the puzzle sets.
  for (const name of readdirSync(models).filter((n) => n.endsWith('.safetensors') || n.endsWith('.puzzles.jsonl'))) {
    files[name] = new Uint8Array(readFileSync(join(models, name)));
  }
  files['ur.safetensors'][100] ^= 1;
  await assert.rejects(createBot({ models: { manifest, files } }), (error) => {
    assert.match(error.message, /^manifest\.json: ur (easy|medium|hard): model ur\.safetensors: SHA-256 [0-9a-f]{64}, the manifest says [0-9a-f]{64}$/);
    // The same folder natively: the same words after the manifest's path.
    const folder = mkdtempSync(join(tmpdir(), 'sawah-tampered-'));
    try {
      cpSync(models, folder, { recursive: true });
      writeFileSync(join(folder, 'ur.safetensors'), files['ur.safetensors']);
      const run = spawnSync(nativeBinary(), ['bot', '--models', folder], { input: '', encoding: 'utf8' });
      assert.notEqual(run.status, 0, 'the native bot refuses to start');
      const tail = error.message.slice('manifest.json'.length);
      assert.ok(run.stderr.includes(`manifest.json${tail}`), `native: ${run.stderr}\nbrowser: ${error.message}`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    return true;
  });
});

test('models and solved tables handed over as bytes play as natively from files', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'sawah-table-'));
  try {
    const table = join(folder, 'ur-2.sawah');
    execFileSync(nativeBinary(), ['solve', '--rules', 'ur-2', '--out', table], { stdio: 'pipe' });
    const local = await createBot({ models: false });
    local.addTable('ur-2.sawah', readFileSync(table));
    local.setTable('ur-2.sawah');
    local.addModel('mine.safetensors', readFileSync(join(models, 'ur-hard.safetensors')));
    const lines = [
      '{"cmd":"evaluate","position":"ur-2 light 2/-/0 2/-/0"}',
      '{"cmd":"choose","position":"ur-2 light 1/3/0 1/5/0","roll":2}',
      '{"cmd":"choose","position":"ur-2 dark 1/3/0 1/5/0","roll":1,"bot":"perfect"}',
    ];
    const native = nativeAnswers(lines, ['--table', table]);
    assert.deepEqual(lines.map((line) => local.request(line)), native);
    assert.ok(Math.abs(JSON.parse(native[0]).value - 0.5185729075) < 1e-7, 'the documented start value of ur-2');
    assert.deepEqual(
      local.choose('ur light 7/-/0 7/-/0', 2, 'neural:model=mine.safetensors:depth=3:focus=2'),
      bot.choose('ur light 7/-/0 7/-/0', 2, 'hard'),
    );
    assert.throws(() => local.addModel('bad.safetensors', new Uint8Array([1, 2, 3])), /bad\.safetensors/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('the packed tarball installs into a fresh project and gives a hard Ur opponent', () => {
  const tarballs = readdirSync(web).filter((name) => /^sawah-ai-.*\.tgz$/.test(name));
  assert.equal(tarballs.length, 1, `one packed tarball in web/ (web/build.sh --pack): ${tarballs}`);
  const project = mkdtempSync(join(tmpdir(), 'sawah-project-'));
  try {
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-game', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', join(web, tarballs[0])], { cwd: project, stdio: 'pipe' });
    assert.ok(existsSync(join(project, 'node_modules', 'sawah-ai', 'models', 'manifest.json')));
    writeFileSync(join(project, 'play.js'), `
      import { createBot } from 'sawah-ai';
      const bot = await createBot();
      const position = bot.start('ur');
      const { move, values } = bot.choose(position, 2, 'hard');
      console.log(JSON.stringify({ move, moves: values.length }));
    `);
    const output = execFileSync('node', ['play.js'], { cwd: project, encoding: 'utf8' });
    assert.deepEqual(JSON.parse(output), { move: { from: 0, to: 2 }, moves: 1 });
    const types = readFileSync(join(project, 'node_modules', 'sawah-ai', 'index.d.ts'), 'utf8');
    assert.match(types, /export function createBot/);
    const packageJson = JSON.parse(readFileSync(join(dist, 'package.json'), 'utf8'));
    const cargo = readFileSync(join(repository, 'Cargo.toml'), 'utf8').match(/\[workspace\.package\]\s*\nversion = "([^"]+)"/)[1];
    assert.equal(packageJson.version, cargo, 'the package has the workspace version');
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});
