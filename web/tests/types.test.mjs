// The package's TypeScript types: js/protocol.d.ts is what openapi-typescript
// makes of docs/openapi.json (the server's OpenAPI document, generated from
// the protocol's Rust types and checked against it by the server's tests),
// so the types cannot drift from the Rust ones; and index.d.ts, which names
// them, type-checks under `tsc --strict` with code a front end would write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(web, 'node_modules', '.bin', name);

test('js/protocol.d.ts is generated from docs/openapi.json as committed', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'sawah-types-'));
  try {
    const generated = join(scratch, 'protocol.d.ts');
    execFileSync(bin('openapi-typescript'), [join(web, '..', 'docs', 'openapi.json'), '-o', generated], { stdio: 'pipe' });
    const committed = readFileSync(join(web, 'js', 'protocol.d.ts'), 'utf8');
    assert.ok(
      readFileSync(generated, 'utf8') === committed,
      'web/js/protocol.d.ts differs from what docs/openapi.json generates: run `npm run types` in web/',
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('the package types check under tsc --strict with a front end using them', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'sawah-tsc-'));
  try {
    for (const file of ['index.d.ts', 'protocol.d.ts']) {
      copyFileSync(join(web, 'js', file), join(scratch, file));
    }
    writeFileSync(join(scratch, 'game.ts'), `
      import type { Bot, Choice, Move, PositionJson, Review, RollTable, Request, Rules } from './index';
      export function play(bot: Bot, position: PositionJson, roll: number): Move | null {
        const choice: Choice = bot.choose(position, roll, 'hard');
        const to: number | 'off' | undefined = choice.move?.to;
        void to;
        return choice.move;
      }
      export function summary(review: Review): string {
        return review.light.strength?.text ?? String(review.light.mean_loss_pp);
      }
      export function best(table: RollTable): number {
        return Math.max(...table.rolls.map((r) => r.value));
      }
      export const ask: Request = { id: 1, cmd: 'choose', position: 'ur light 7/-/0 7/-/0', roll: 2, bot: 'hard' };
      export function family(rules: Rules): string { return rules.family; }
    `);
    execFileSync(bin('tsc'), ['--strict', '--noEmit', '--skipLibCheck', '--lib', 'es2022,dom', '--module', 'es2022', '--moduleResolution', 'bundler', join(scratch, 'game.ts')], { stdio: 'pipe' });
  } catch (error) {
    assert.fail(`tsc: ${error.stdout ?? ''}${error.stderr ?? ''}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
