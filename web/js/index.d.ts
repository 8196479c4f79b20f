// Types of sawah-ai's browser package. The protocol's JSON shapes come from
// ./protocol.d.ts, generated from the OpenAPI document of `sawah serve`
// (docs/openapi.json, itself generated from the protocol's Rust types) by
// `npm run types`; the web tests fail when the two differ.
import type { components } from './protocol';

type Schemas = components['schemas'];

/** A player: light moves first. */
export type Player = Schemas['Player'];
/** One side of a position (`waiting` belongs to the race family only). */
export type SideJson = Schemas['SideJson'];
/** One side of a race (Twenty Squares, Ur) position. */
export type RaceSide = SideJson & { waiting: number };
/** One side of a Senet position (no waiting pieces: all start on the board). */
export type SenetSide = Omit<SideJson, 'waiting'>;
/** A position as JSON. */
export type PositionJson = Schemas['PositionJson'];
/** A position: JSON, or the one-line notation (`"ur light 7/-/0 7/-/0"`). */
export type Position = Schemas['PositionInput'];
/** A move: `from` 0 enters a piece (race family); `to` "off" bears it off. */
export type Move = Schemas['MoveJson'];
/** A legal move with what follows it. */
export type LegalMove = Schemas['ListedMove'];
/** A move with its value: the mover's win probability after it, as the agent sees it. */
export type MoveValue = Schemas['MoveValue'];
/** What `choose` answers. */
export type Choice = Schemas['ChooseAnswer'];
/** How a limit cut a search short: the answer comes from the deepest depth finished. */
export type Cut = Schemas['Cut'];
/**
 * An agent: a level (`"easy"`, `"medium"`, `"hard"`, with options as in
 * `"hard:seed=3"`), a spec string (`"expectiminimax:depth=2:noise=0.02"`), or
 * a spec object (`{agent: "expectiminimax", depth: 2}`).
 */
export type BotSpec = Schemas['BotSpec'];
/** The odds of one roll. */
export type RollOdds = Schemas['RollOdds'];
/** A board cell as [row, column]. */
export type Cell = Schemas['Cell'];
/** One square of a race route. */
export type RouteSquare = Schemas['RouteSquare'];
/** What a front end needs to draw and play a race rule set. */
export type RaceRules = Schemas['RaceExport'];
/** One house of the Senet board. */
export type SenetHouse = Schemas['SenetHouse'];
/** What a front end needs to draw and play Senet. */
export type SenetRules = Schemas['SenetExport'];
/** A rule set for front ends. */
export type Rules = Schemas['RulesExport'];
/** A protocol error kind. */
export type ErrorKind = Schemas['ErrorKind'];
/** The `error` field of a response. */
export type ProtocolErrorJson = Schemas['ProtocolError'];
/** A protocol request (see docs/protocol.md); `id` is echoed in the response. */
export type Request = Schemas['RequestLine'];
/** Which puzzle: by id, of the day, or near a rating. */
export type PuzzleChoice = Omit<Schemas['PuzzleRequest'], 'rules'>;
/** A puzzle's question (the answer comes from `solvePuzzle`). */
export type PuzzleQuestion = Schemas['PuzzleAnswer'];
/** A puzzle's answer checked and explained. */
export type PuzzleVerdict = Schemas['SolvePuzzleAnswer'];
/** A game as JSON (docs/protocol.md, "Game records"). */
export type GameRecord = Schemas['GameRecord'];
/** How good a move was. */
export type MoveClass = Schemas['Class'];
/** One reviewed turn (losses and luck in percentage points of win probability). */
export type ReviewedTurn = Schemas['Turn'];
/** A strength estimate on the rule set's calibration scale. */
export type Strength = Schemas['Estimate'];
/** One player's totals in a review. */
export type ReviewSummary = Schemas['Summary'];
/** The answer of `review`. */
export type Review = Schemas['Review'];
/** What a move does (docs/protocol.md, "Review, hints and strength"). */
export type MoveTag = Schemas['Tag'];
/** One ranked move of a hint. */
export type HintedMove = Schemas['HintedMove'];
/** The answer of `hint`. */
export type Hint = Schemas['HintAnswer'];
/** One roll of a roll table: its chance and the mover's win probability after it with the best move. */
export type RollChance = Schemas['RollChance'];
/** The answer of `hint` without a roll (before the dice are thrown). */
export type RollTable = Schemas['RollTableAnswer'];
/** A protocol response: the request's `id`, then the result's fields or `error`. */
export type Response = Schemas['Response'];

/** Bytes as the package accepts them. */
export type Bytes = Uint8Array | ArrayBuffer | ArrayBufferView;

/** One models folder: the shipped one, a base URL, or its manifest and files as data. */
export type ModelsSource = 'shipped' | string | URL | { manifest: Bytes | string | object; files: Record<string, Bytes> };

/** Options of `createBot` / `Bot.create`. */
export interface BotOptions {
  /**
   * The levels: `'shipped'` (default: the package's models/ folder), the base
   * URL of another models folder (with its manifest.json; a folder made by
   * `sawah levels build` carries its rule file, whose rule set then becomes
   * known), the manifest and files as data, a list of these (a later
   * folder's rule sets replace an earlier one's), or `false` for the
   * built-in presets. Each file's SHA-256 is checked against the manifest.
   */
  models?: ModelsSource | ModelsSource[] | false;
  /** Load only the models of these rule sets (others play the built-in presets). */
  rules?: string[];
  /** The WebAssembly module: bytes, URL, Response or Module (default: the package's). */
  wasm?: Bytes | URL | string | Response | WebAssembly.Module;
}

/** A protocol error thrown by the typed methods. */
export class SawahError extends Error {
  readonly kind: ErrorKind;
  readonly request: Request;
}

/** A computer opponent and rules oracle, in this thread. */
export class Bot {
  static create(options?: BotOptions): Promise<Bot>;
  /** The bot protocol: an object gives the response object, a JSON line the response line. */
  request(request: Request): Response;
  request(line: string): string;
  start(rules: string): PositionJson;
  legalMoves(position: Position, roll: number): LegalMove[];
  choose(position: Position, roll: number, bot?: BotSpec): Choice;
  evaluate(position: Position, bot?: BotSpec): number;
  rules(name: string): Rules;
  listRules(): string[];
  daily(date: string, count?: number): number[];
  score(position: Position): number;
  review(game: GameRecord, bot?: BotSpec): Review;
  hint(position: Position, roll: number, bot?: BotSpec): Hint;
  rollTable(position: Position, bot?: BotSpec): RollTable;
  puzzle(rules: string, which: PuzzleChoice): PuzzleQuestion;
  solvePuzzle(rules: string, id: string, move: Move): PuzzleVerdict;
  addModel(name: string, bytes: Bytes): void;
  addTable(name: string, bytes: Bytes): void;
  setTable(name: string | null): void;
  addWeights(name: string, json: string | object): void;
  free(): void;
}

/** A bot in a Web Worker running the package's `worker.js`: the same methods, asynchronous. */
export class WorkerBot {
  static create(worker: Worker, options?: BotOptions): Promise<WorkerBot>;
  request(request: Request | string): Promise<Response | string>;
  start(rules: string): Promise<PositionJson>;
  legalMoves(position: Position, roll: number): Promise<LegalMove[]>;
  choose(position: Position, roll: number, bot?: BotSpec): Promise<Choice>;
  evaluate(position: Position, bot?: BotSpec): Promise<number>;
  rules(name: string): Promise<Rules>;
  listRules(): Promise<string[]>;
  daily(date: string, count?: number): Promise<number[]>;
  score(position: Position): Promise<number>;
  review(game: GameRecord, bot?: BotSpec): Promise<Review>;
  hint(position: Position, roll: number, bot?: BotSpec): Promise<Hint>;
  rollTable(position: Position, bot?: BotSpec): Promise<RollTable>;
  puzzle(rules: string, which: PuzzleChoice): Promise<PuzzleQuestion>;
  solvePuzzle(rules: string, id: string, move: Move): Promise<PuzzleVerdict>;
  terminate(): void;
}

/** A bot with the shipped levels. */
export function createBot(options?: BotOptions): Promise<Bot>;

/** Loads the WebAssembly module (done by `createBot`; call it to load early or from elsewhere). */
export function init(wasm?: BotOptions['wasm']): Promise<void>;

/** The package's version. */
export function version(): Promise<string>;
