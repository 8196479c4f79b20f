// Prints the package.json of the npm package for the version given (the
// Rust workspace's), so the package and the crates always agree.
const version = process.argv[2];
if (!/^\d+\.\d+\.\d+/.test(version ?? '')) {
  console.error(`usage: node package-json.mjs VERSION (got ${JSON.stringify(version)})`);
  process.exit(2);
}
const manifest = {
  name: 'sawah-ai',
  version,
  description:
    "Computer opponents for Sawah's ancient race games (Twenty Squares, the Royal Game of Ur, Senet), in WebAssembly: exact rules, calibrated levels, the bot protocol",
  keywords: ['royal game of ur', 'senet', 'twenty squares', 'board game', 'ai', 'webassembly'],
  license: 'MIT OR Apache-2.0',
  type: 'module',
  main: './index.js',
  types: './index.d.ts',
  exports: {
    '.': { types: './index.d.ts', default: './index.js' },
    './worker': './worker.js',
    './worker.js': './worker.js',
    './models/*': './models/*',
    './wasm/*': './wasm/*',
    './package.json': './package.json',
  },
  files: ['index.js', 'index.d.ts', 'protocol.d.ts', 'worker.js', 'wasm/', 'models/', 'README.md'],
  sideEffects: ['./worker.js'],
  engines: { node: '>=20' },
};
console.log(JSON.stringify(manifest, null, 2));
