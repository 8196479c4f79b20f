// The browser package's figures (docs/BENCHMARKS.md): the size of the .wasm
// (raw and gzipped) and of the package, and the p50/p99 time of `choose` at
// every level of every rule set in headless Chromium, next to the native
// time for the same requests (`sawah bench-protocol`, one thread, same run)
// and to the package in Node.
//
//   web/build.sh --pack && SAWAH_BIN=target/release/sawah node web/scripts/bench.mjs [POSITIONS]
//
// With SAWAH_BENCH_MODELS=DIR (a models folder, such as one `sawah levels
// build` made, its rule files included) the levels are that folder's, for
// the rule sets in SAWAH_BENCH_RULES (comma-separated), in all three: the
// native bot (`--models DIR`), Node and Chromium (the folder's files handed
// over as data).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';
import { RULE_SETS, dist, models, nativeBinary, packageUrl, positionsFromPlay, web } from '../tests/helpers.mjs';

const POSITIONS = Number(process.argv[2] ?? 500);
const LEVELS = ['easy', 'medium', 'hard'];
const FOLDER = process.env.SAWAH_BENCH_MODELS;
const ruleSets = FOLDER ? (process.env.SAWAH_BENCH_RULES ?? '').split(',').filter(Boolean) : RULE_SETS;
if (FOLDER && ruleSets.length === 0) throw new Error('SAWAH_BENCH_MODELS needs SAWAH_BENCH_RULES, the rule sets to time');
// The folder's files as base64 (what page.evaluate can carry), and as bytes.
const folderFiles = FOLDER
  ? Object.fromEntries(readdirSync(FOLDER, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => [entry.name, readFileSync(join(FOLDER, entry.name)).toString('base64')]))
  : null;
const asSource = (files) => ({
  manifest: Buffer.from(files['manifest.json'], 'base64').toString('utf8'),
  files: Object.fromEntries(Object.entries(files).map(([name, data]) => [name, Buffer.from(data, 'base64')])),
});
const { createBot } = await import(packageUrl);
const bot = await createBot(folderFiles ? { models: ['shipped', asSource(folderFiles)] } : undefined);

// Requests: POSITIONS positions with a choice per rule set, every level on each.
const groups = [];
const lines = [];
ruleSets.forEach((name, r) => {
  const samples = positionsFromPlay(bot, name, POSITIONS * 4, 77 + r)
    .filter(({ position, roll }) => bot.legalMoves(position, roll).length >= 2)
    .slice(0, POSITIONS);
  for (const level of LEVELS) {
    const group = { name, level, from: lines.length };
    for (const { position, roll } of samples) lines.push(JSON.stringify({ cmd: 'choose', position, roll, bot: level }));
    group.to = lines.length;
    groups.push(group);
  }
});

const folder = mkdtempSync(join(tmpdir(), 'sawah-bench-'));
const file = join(folder, 'requests.jsonl');
writeFileSync(file, lines.join('\n') + '\n');
const native = execFileSync(nativeBinary(), ['bench-protocol', file, '--models', FOLDER ?? models], { encoding: 'utf8', maxBuffer: 1 << 28 })
  .trim().split('\n').map((line) => JSON.parse(line).micros);
rmSync(folder, { recursive: true, force: true });

const node = (() => {
  for (const line of lines) bot.request(line);
  return lines.map((line) => {
    const start = performance.now();
    bot.request(line);
    return (performance.now() - start) * 1000;
  });
})();

const { server, url } = await serve(0);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage();
await page.goto(`${url}scripts/bench.html`);
await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
const isolated = await page.evaluate(() => window.isolated);
const chromiumMicros = await page.evaluate(([requests, files]) => window.runBench(requests, files), [lines, folderFiles]);
const chromiumVersion = browser.version();
await browser.close();
server.close();

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.round((sorted.length - 1) * q)];
};
const ms = (micros) => (micros / 1000).toFixed(micros < 100 ? 3 : 2);

const wasm = readFileSync(join(dist, 'wasm', 'sawah_wasm_bg.wasm'));
const tarball = readdirSync(web).find((name) => /^sawah-ai-.*\.tgz$/.test(name));
const unpacked = (dir) => readdirSync(dir, { withFileTypes: true })
  .reduce((sum, entry) => sum + (entry.isDirectory() ? unpacked(join(dir, entry.name)) : statSync(join(dir, entry.name)).size), 0);

console.log(`sizes: .wasm ${wasm.length} bytes raw, ${gzipSync(wasm, { level: 9 }).length} gzipped (-9); ` +
  `package ${tarball ? statSync(join(web, tarball)).size : '?'} bytes packed (${tarball}), ${unpacked(dist)} unpacked`);
console.log(`choose, ${POSITIONS} positions with a choice per rule set and level, one untimed pass first; ` +
  `${chromiumVersion} headless (cross-origin isolated: ${isolated}), Node ${process.versions.node}; milliseconds\n`);
console.log('| rule set | level | native p50 | native p99 | Chromium p50 | Chromium p99 | Node p50 | Node p99 | Chromium/native p99 |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
for (const { name, level, from, to } of groups) {
  const [n, c, j] = [native, chromiumMicros, node].map((all) => all.slice(from, to));
  const cells = [quantile(n, 0.5), quantile(n, 0.99), quantile(c, 0.5), quantile(c, 0.99), quantile(j, 0.5), quantile(j, 0.99)];
  console.log(`| ${name} | ${level} | ${cells.map(ms).join(' | ')} | ${(cells[3] / cells[1]).toFixed(2)}× |`);
}
