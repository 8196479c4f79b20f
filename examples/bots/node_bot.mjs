// An outside bot in Node on the npm package `sawah-ai` (docs/bots.md): it
// plays the package's `medium` level, compiled to WebAssembly, for every
// rule set. One JSON request per line on stdin, one answer per line on
// stdout. SAWAH_AI may name the package to import (a path or file URL, as
// the tests give the freshly built one); by default it is `sawah-ai`.
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const where = process.env.SAWAH_AI;
const sawah = await import(where ? (where.startsWith('file:') ? where : pathToFileURL(where).href) : 'sawah-ai');
const bot = await sawah.createBot();
const level = process.env.SAWAH_LEVEL ?? 'medium';

function answer(request) {
  switch (request.cmd) {
    case 'hello':
      return { name: 'node-sawah-ai', version: packageVersion, author: 'sawah-ai examples' };
    case 'choose': {
      if (request.moves.length === 0) return { move: null };
      const { move } = bot.choose(request.position, request.roll, level);
      // The request's listed move that the package chose, sent back as it
      // was given: the harness reads its `from` and `to` and ignores the rest.
      return { move: request.moves.find((m) => m.from === move.from && m.to === move.to) ?? move };
    }
    default:
      return { error: { kind: 'unknown_command', message: `this bot only plays, not ${request.cmd}` } };
  }
}

const packageVersion = await sawah.version();
for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  const reply = answer(request);
  process.stdout.write(JSON.stringify('id' in request ? { id: request.id, ...reply } : reply) + '\n');
}
