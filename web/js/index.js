// sawah-ai in the browser: the computer opponents of Twenty Squares, the
// Royal Game of Ur and Senet, compiled to WebAssembly. Every answer is the
// bot protocol's (docs/protocol.md): the same request gets the same response
// as from `sawah bot`. Works in browsers, in Web Workers and in Node 20.

import initWasm, { WasmBot, version as wasmVersion } from './wasm/sawah_wasm.js';

let loaded = null;

/** Reads a file of the package (or any URL): fetch on the web, the file system in Node. */
async function readBytes(url) {
  if (url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    return new Uint8Array(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`${url}: HTTP ${response.status}`);
  }
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * Loads and instantiates the WebAssembly module once. `wasm` may be the
 * module's bytes, a URL, a Response or a WebAssembly.Module; by default the
 * package's own `wasm/sawah_wasm_bg.wasm` is read.
 */
export function init(wasm) {
  loaded ??= (async () => {
    const source = wasm ?? (await readBytes(new URL('./wasm/sawah_wasm_bg.wasm', import.meta.url)));
    await initWasm({ module_or_path: source });
  })();
  return loaded;
}

/** The package's version (the Rust workspace's). */
export async function version() {
  await init();
  return wasmVersion();
}

/** A protocol error thrown by the typed methods: `kind` is the protocol's error kind. */
export class SawahError extends Error {
  constructor(error, request) {
    super(`${error.kind}: ${error.message}`);
    this.name = 'SawahError';
    this.kind = error.kind;
    this.request = request;
  }
}

function asBytes(data) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (typeof data === 'string') return new TextEncoder().encode(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError('expected bytes (Uint8Array or ArrayBuffer) or text');
}

/** One models folder: its manifest (parsed) and a reader of its files by name. */
async function modelSource(models) {
  if (models === 'shipped' || models === undefined || models === true) {
    const base = new URL('./models/', import.meta.url);
    const manifest = JSON.parse(new TextDecoder().decode(await readBytes(new URL('manifest.json', base))));
    return { manifest, read: (name) => readBytes(new URL(name, base)) };
  }
  if (typeof models === 'string' || models instanceof URL) {
    const base = new URL(models.toString().endsWith('/') ? models : `${models}/`, globalThis.location?.href);
    const manifest = JSON.parse(new TextDecoder().decode(await readBytes(new URL('manifest.json', base))));
    return { manifest, read: (name) => readBytes(new URL(name, base)) };
  }
  const text = models.manifest;
  const manifest = typeof text === 'object' && !ArrayBuffer.isView(text) && !(text instanceof ArrayBuffer)
    ? text
    : JSON.parse(new TextDecoder().decode(asBytes(text)));
  const read = async (name) => {
    const file = models.files?.[name];
    if (file === undefined) throw new Error(`${name}, named by the manifest, was not handed over`);
    return asBytes(file);
  };
  return { manifest, read };
}

/** The manifest's lists that hold entries by rule set. */
const BY_RULES = ['levels', 'anchors', 'dial', 'puzzles', 'rule_files'];

/** The files a manifest names: models, puzzle sets and rule files. */
function namedFiles(manifest) {
  return [
    ...(manifest.levels ?? []).map((level) => level.model).filter(Boolean),
    ...(manifest.puzzles ?? []).map((set) => set.file),
    ...(manifest.rule_files ?? []).map((file) => file.file),
  ];
}

/**
 * The manifest and files of `options.models` (one models folder, or several
 * in a list: a later folder's rule sets replace an earlier one's), as bytes.
 */
async function modelFiles(models, rules) {
  const sources = await Promise.all((Array.isArray(models) ? models : [models]).map(modelSource));
  const merged = { format: 'sawah-models', format_version: 1 };
  for (const key of BY_RULES) merged[key] = [];
  const files = new Map();
  for (const { manifest, read } of sources) {
    if (manifest.format !== merged.format || manifest.format_version !== merged.format_version) {
      merged.format = manifest.format;
      merged.format_version = manifest.format_version; // refused, with the reason, by loadModels
    }
    const theirs = new Set(BY_RULES.flatMap((key) => (manifest[key] ?? []).map((entry) => entry.rules)));
    for (const key of BY_RULES) {
      merged[key] = merged[key].filter((entry) => !theirs.has(entry.rules)).concat(manifest[key] ?? []);
    }
    for (const name of namedFiles(manifest)) files.set(name, read);
  }
  if (rules) {
    const wanted = new Set(rules);
    for (const key of BY_RULES) merged[key] = merged[key].filter((entry) => wanted.has(entry.rules));
  }
  for (const key of BY_RULES) if (merged[key].length === 0) delete merged[key];
  const names = [...new Set(namedFiles(merged))];
  const bytes = await Promise.all(names.map(async (name) => [name, await files.get(name)(name)]));
  return { manifest: new TextEncoder().encode(JSON.stringify(merged)), files: bytes };
}

/**
 * A computer opponent and rules oracle. Create one with `await createBot()`.
 *
 * `request` is the bot protocol itself; the other methods are typed
 * conveniences that throw a `SawahError` where the protocol answers an error.
 */
export class Bot {
  #inner;
  #nextId = 0;

  constructor(inner) {
    this.#inner = inner;
  }

  /**
   * Options: `models` ('shipped' by default: the levels of the package's
   * models/ folder; a base URL of another models folder, such as one
   * `sawah levels build` made, whose rule files then make its rule sets
   * known; `{manifest, files}` with bytes; a list of these, a later
   * folder's rule sets replacing an earlier one's, as in
   * `['shipped', 'https://example.org/my-levels/']`; or false for the
   * built-in presets), `rules` (only load the models of these rule sets),
   * `wasm` (see `init`).
   */
  static async create(options = {}) {
    await init(options.wasm);
    const inner = new WasmBot();
    if (options.models !== false && options.models !== null) {
      const { manifest, files } = await modelFiles(options.models, options.rules);
      for (const [name, bytes] of files) inner.stageFile(name, bytes);
      inner.loadModels(manifest);
    }
    return new Bot(inner);
  }

  /**
   * Answers one protocol request: an object gives the response object, a
   * string (one JSON line) gives the response line.
   */
  request(request) {
    if (typeof request === 'string') return this.#inner.handleLine(request);
    return JSON.parse(this.#inner.handleLine(JSON.stringify(request)));
  }

  #ask(request) {
    const response = this.request({ id: this.#nextId++, ...request });
    if (response.error) throw new SawahError(response.error, request);
    delete response.id;
    return response;
  }

  /** The starting position of a rule set. */
  start(rules) {
    return this.#ask({ cmd: 'start', rules }).position;
  }

  /** Every legal move for `roll`, each with the position after it and whether it earns an extra roll. */
  legalMoves(position, roll) {
    return this.#ask({ cmd: 'legal_moves', position, roll }).moves;
  }

  /** The move `bot` plays (`{move, values}`; `move` is null when the turn passes). */
  choose(position, roll, bot) {
    const request = { cmd: 'choose', position, roll };
    if (bot !== undefined) request.bot = bot;
    return this.#ask(request);
  }

  /** The win probability of the side to move, before its roll, by `bot`. */
  evaluate(position, bot) {
    const request = { cmd: 'evaluate', position };
    if (bot !== undefined) request.bot = bot;
    return this.#ask(request).value;
  }

  /** Everything a front end needs to draw and play a rule set. */
  rules(name) {
    return this.#ask({ cmd: 'rules', rules: name }).rules;
  }

  /** The names of every rule set. */
  listRules() {
    return this.#ask({ cmd: 'list_rules' }).rules;
  }

  /** The throws of Senet's game of the day (`date` as YYYY-MM-DD). */
  daily(date, count = 100) {
    return this.#ask({ cmd: 'daily', date, count }).throws;
  }

  /** Sawah's single-player score of a finished Senet game, for the first player. */
  score(position) {
    return this.#ask({ cmd: 'score', position }).score;
  }

  /**
   * A game reviewed move by move (`game`: a game record, docs/protocol.md):
   * every turn's loss, class and luck, each player's totals and strength,
   * measured against `bot` (default: perfect play with a table, else hard
   * searching one ply deeper).
   */
  review(game, bot) {
    const request = { cmd: 'review', game };
    if (bot !== undefined) request.bot = bot;
    return this.#ask(request);
  }

  /** Every legal move for `roll`, best first, with its win probability, tags and the chance to be hit. */
  hint(position, roll, bot) {
    const request = { cmd: 'hint', position, roll };
    if (bot !== undefined) request.bot = bot;
    return this.#ask(request);
  }

  /** Before the roll: every roll's chance and the win probability after it with the best move. */
  rollTable(position, bot) {
    const request = { cmd: 'hint', position };
    if (bot !== undefined) request.bot = bot;
    return this.#ask(request);
  }

  /**
   * A puzzle's question (id, position, roll, moves, rating): by `{puzzle: id}`, the
   * puzzle of the day by `{date}` (YYYY-MM-DD; the same everywhere), or
   * near `{rating}` (with `seed` picking among the ten nearest).
   */
  puzzle(rules, which) {
    return this.#ask({ cmd: 'puzzle', rules, ...which });
  }

  /** Checks a move against a puzzle's answer and explains it. */
  solvePuzzle(rules, id, move) {
    return this.#ask({ cmd: 'solve_puzzle', rules, puzzle: id, move });
  }

  /** Holds a model file under `name`, for specs such as `neural:model=NAME`. */
  addModel(name, bytes) {
    this.#inner.addModel(name, asBytes(bytes));
  }

  /** Holds a solved table's bytes under `name`, for `perfect:table=NAME`. */
  addTable(name, bytes) {
    this.#inner.addTable(name, asBytes(bytes));
  }

  /** The table that plays when a request names no bot, and that `perfect` uses by default. */
  setTable(name) {
    this.#inner.setTable(name ?? undefined);
  }

  /** Holds a heuristic weights file (JSON text) under `name`, for `heuristic:weights=NAME`. */
  addWeights(name, json) {
    this.#inner.addWeights(name, typeof json === 'string' ? json : JSON.stringify(json));
  }

  /** Releases the WebAssembly memory this bot holds. */
  free() {
    this.#inner.free();
  }
}

/** A bot with the shipped levels (see `Bot.create` for the options). */
export function createBot(options) {
  return Bot.create(options);
}

/**
 * A bot running in a Web Worker (the package's `worker.js`): the same
 * protocol, answered asynchronously, so a deep search never freezes the page.
 */
export class WorkerBot {
  #worker;
  #pending = new Map();
  #nextId = 0;

  constructor(worker) {
    this.#worker = worker;
    worker.addEventListener('message', ({ data }) => {
      const pending = this.#pending.get(data?.id);
      if (!pending) return;
      this.#pending.delete(data.id);
      if (data.ok) pending.resolve(data.response);
      else pending.reject(new Error(data.error));
    });
    worker.addEventListener('error', (event) => {
      const error = new Error(`the bot worker failed: ${event.message ?? event}`);
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    });
  }

  /** Starts a bot in `worker` with `Bot.create`'s options. */
  static async create(worker, options = {}) {
    const bot = new WorkerBot(worker);
    await bot.#post({ type: 'init', options });
    return bot;
  }

  #post(message) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, ...message });
    });
  }

  /** Answers one protocol request (an object, or a JSON line as a string). */
  request(request) {
    return this.#post({ type: 'request', request });
  }

  async #ask(request) {
    const response = await this.request(request);
    if (response.error) throw new SawahError(response.error, request);
    return response;
  }

  /** See `Bot.start`. */
  async start(rules) {
    return (await this.#ask({ cmd: 'start', rules })).position;
  }

  /** See `Bot.legalMoves`. */
  async legalMoves(position, roll) {
    return (await this.#ask({ cmd: 'legal_moves', position, roll })).moves;
  }

  /** See `Bot.choose`. */
  choose(position, roll, bot) {
    return this.#ask(bot === undefined ? { cmd: 'choose', position, roll } : { cmd: 'choose', position, roll, bot });
  }

  /** See `Bot.evaluate`. */
  async evaluate(position, bot) {
    const request = bot === undefined ? { cmd: 'evaluate', position } : { cmd: 'evaluate', position, bot };
    return (await this.#ask(request)).value;
  }

  /** See `Bot.rules`. */
  async rules(name) {
    return (await this.#ask({ cmd: 'rules', rules: name })).rules;
  }

  /** See `Bot.listRules`. */
  async listRules() {
    return (await this.#ask({ cmd: 'list_rules' })).rules;
  }

  /** See `Bot.daily`. */
  async daily(date, count = 100) {
    return (await this.#ask({ cmd: 'daily', date, count })).throws;
  }

  /** See `Bot.score`. */
  async score(position) {
    return (await this.#ask({ cmd: 'score', position })).score;
  }

  /** See `Bot.review`. */
  review(game, bot) {
    return this.#ask(bot === undefined ? { cmd: 'review', game } : { cmd: 'review', game, bot });
  }

  /** See `Bot.hint`. */
  hint(position, roll, bot) {
    return this.#ask(bot === undefined ? { cmd: 'hint', position, roll } : { cmd: 'hint', position, roll, bot });
  }

  /** See `Bot.rollTable`. */
  rollTable(position, bot) {
    return this.#ask(bot === undefined ? { cmd: 'hint', position } : { cmd: 'hint', position, bot });
  }

  /** See `Bot.puzzle`. */
  puzzle(rules, which) {
    return this.#ask({ cmd: 'puzzle', rules, ...which });
  }

  /** See `Bot.solvePuzzle`. */
  solvePuzzle(rules, id, move) {
    return this.#ask({ cmd: 'solve_puzzle', rules, puzzle: id, move });
  }

  /** Stops the worker. */
  terminate() {
    this.#worker.terminate();
  }
}
