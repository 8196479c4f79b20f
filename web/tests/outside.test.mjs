// The Node example bot (examples/bots/node_bot.mjs), built on this package,
// entered as an outside bot into a short tournament of the native harness
// against random and easy (docs/bots.md): every game played, no forfeit,
// its hello recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nativeBinary, packageUrl, repository } from './helpers.mjs';

test('the Node example bot plays random and easy through the harness without a forfeit', () => {
  const folder = mkdtempSync(join(tmpdir(), 'sawah-node-bot-'));
  try {
    const bot = join(repository, 'examples', 'bots', 'node_bot.mjs');
    writeFileSync(
      join(folder, 'bots.toml'),
      `[[bot]]\nname = "node"\ncommand = ["node", ${JSON.stringify(bot)}]\nenv = { SAWAH_AI = ${JSON.stringify(packageUrl.href)} }\n`,
    );
    const out = join(folder, 't');
    const run = spawnSync(
      nativeBinary(),
      ['tournament', '--rules', 'ur-2', '--agents', 'node,random,easy', '--games', '10', '--out', out, '--bots', join(folder, 'bots.toml'), '--move-time', '30'],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    const lines = readFileSync(join(out, 'results.jsonl'), 'utf8').trim().split('\n');
    const header = JSON.parse(lines[0]);
    assert.equal(header.identities[0].name, 'node-sawah-ai');
    const games = lines.slice(1).map((line) => JSON.parse(line));
    assert.equal(games.length, 30);
    assert.deepEqual(games.filter((g) => g.failure), [], 'no forfeits');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
