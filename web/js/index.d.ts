// Types of sawah-ai's browser package. The JSON shapes are the bot
// protocol's (docs/protocol.md in the repository).

/** A player: light moves first. */
export type Player = 'light' | 'dark';

/** One side of a race (Twenty Squares, Ur) position. */
export interface RaceSide {
  /** Pieces not yet entered. */
  waiting: number;
  /** Pieces borne off. */
  scored: number;
  /** Occupied squares, in this player's own route numbering (1..route_length). */
  squares: number[];
}

/** One side of a Senet position (no waiting pieces: all start on the board). */
export interface SenetSide {
  scored: number;
  /** Occupied houses (1..30). */
  squares: number[];
}

/** A position as JSON. */
export interface PositionJson {
  /** The rule set id (`ur`, `sawah`, `senet`, …). */
  rules: string;
  /** The side to move. */
  turn: Player;
  light: RaceSide | SenetSide;
  dark: RaceSide | SenetSide;
}

/** A position: JSON, or the one-line notation (`"ur light 7/-/0 7/-/0"`). */
export type Position = PositionJson | string;

/** A move: `from` 0 enters a piece (race family); `to` "off" bears it off. */
export interface Move {
  from: number;
  to: number | 'off';
}

/** A legal move with what follows it. */
export interface LegalMove extends Move {
  /** Whether the mover rolls again. */
  extra_roll: boolean;
  /** The position after the move, with the side to move next. */
  position: PositionJson;
}

/** A move with its value: the mover's win probability after it, as the agent sees it. */
export interface MoveValue extends Move {
  value: number;
}

/** What `choose` answers. */
export interface Choice {
  /** The move played; null when there is no legal move (the turn passes). */
  move: Move | null;
  /** Every legal move's value in legal-move order; null for agents without values (random). */
  values: MoveValue[] | null;
  /** Present only when a front door's limit cut the search short (never in the browser, which sets none). */
  cut?: Cut;
}

/** How a limit cut a search short: the answer comes from the deepest depth finished. */
export interface Cut {
  /** The limit, in words ("the node budget of 5000000 nodes a request"). */
  limit: string;
  /** The plies the search finished: the answer's depth. */
  finished_depth: number | null;
  /** The plies the bot's spec asked for. */
  depth: number;
}

/**
 * An agent: a level (`"easy"`, `"medium"`, `"hard"`, with options as in
 * `"hard:seed=3"`), a spec string (`"expectiminimax:depth=2:noise=0.02"`), or
 * a spec object (`{agent: "expectiminimax", depth: 2}`).
 */
export type BotSpec = string | ({ agent: string } & Record<string, string | number | boolean>);

/** The odds of one roll. */
export interface RollOdds {
  roll: number;
  probability: number;
}

/** A board cell as [row, column]. */
export type Cell = [number, number];

/** One square of a race route. */
export interface RouteSquare {
  square: number;
  cell: Cell;
  mark: boolean;
  shared: boolean;
  /** The opponent's number for the same cell, on shared squares. */
  opponent_square: number | null;
}

/** What a front end needs to draw and play a race rule set. */
export interface RaceRules {
  name: string;
  family: 'race';
  description: string;
  pieces: number;
  route_length: number;
  /** The square number that means "borne off". */
  off: number;
  first_player: Player;
  board: { rows: number; columns: number; cells: Cell[] };
  marks: { cells: Cell[]; extra_roll: boolean; safe: boolean; [flag: string]: unknown };
  routes: { light: RouteSquare[]; dark: RouteSquare[] };
  dice: RollOdds[];
  spec: Record<string, unknown>;
}

/** One house of the Senet board. */
export interface SenetHouse {
  house: number;
  cell: Cell;
  /** The house's name where it is special (House of Beauty, of Water, …). */
  special: string | null;
  /** Whether a piece there cannot be attacked. */
  safe: boolean;
}

/** What a front end needs to draw and play Senet. */
export interface SenetRules {
  name: string;
  family: 'senet';
  description: string;
  pieces: number;
  houses: number;
  off: number;
  first_player: Player;
  start: PositionJson;
  board: { rows: number; columns: number; houses: SenetHouse[] };
  dice: RollOdds[];
}

export type Rules = RaceRules | SenetRules;

/** A protocol error kind. */
export type ErrorKind =
  | 'invalid_json'
  | 'invalid_request'
  | 'missing_field'
  | 'invalid_field'
  | 'unknown_command'
  | 'unknown_rules'
  | 'invalid_position'
  | 'invalid_roll'
  | 'invalid_bot'
  | 'game_not_over'
  | 'unsupported'
  | 'too_large'
  | 'too_expensive';

/** The `error` field of a response. */
export interface ProtocolErrorJson {
  kind: ErrorKind;
  message: string;
}

/** A protocol request (see docs/protocol.md); `id` is echoed in the response. */
export type Request = { id?: unknown } & (
  | { cmd: 'legal_moves'; position: Position; roll: number }
  | { cmd: 'choose'; position: Position; roll: number; bot?: BotSpec }
  | { cmd: 'evaluate'; position: Position; bot?: BotSpec }
  | { cmd: 'start'; rules: string }
  | { cmd: 'rules'; rules: string }
  | { cmd: 'list_rules' }
  | { cmd: 'score'; position: Position }
  | { cmd: 'daily'; date: string; count?: number; rules?: string }
  | { cmd: 'review'; game: GameRecord; bot?: BotSpec }
  | { cmd: 'hint'; position: Position; roll?: number; bot?: BotSpec }
  | { cmd: 'hello' }
  | ({ cmd: 'puzzle'; rules: string } & PuzzleChoice)
  | { cmd: 'solve_puzzle'; rules: string; puzzle: string; move: Move }
);

/** Which puzzle: by id, of the day, or near a rating. */
export type PuzzleChoice = { puzzle: string } | { date: string } | { rating: number; seed?: number };

/** A puzzle's question (the answer comes from `solvePuzzle`). */
export interface PuzzleQuestion {
  puzzle: {
    id: string;
    rules: string;
    position: Position;
    roll: number;
    moves: Move[];
    /** Elo on the rule set's scale at which the strength dial finds the answer half the time. */
    rating: number;
    /** Set when the rating is at a bound of the dial. */
    rating_bound: 'at_most' | 'at_least' | null;
  };
  /** How many puzzles the set holds. */
  count: number;
}

/** A puzzle's answer checked and explained. */
export interface PuzzleVerdict {
  puzzle: string;
  correct: boolean;
  move: Move;
  value: number;
  best: Move;
  best_value: number;
  loss_pp: number;
  margin_pp: number;
  themes: string[];
  natural: { move: Move; by: string[] };
  rating: number;
  explanation: string;
  moves: { move: Move; value: number; loss_pp: number }[];
}

/** A game as JSON (docs/protocol.md, "Game records"). */
export type GameRecord = {
  rules: string;
  /** The position the game started from; the rule set's start when left out. */
  start?: Position;
} & (
  | { turns: { roll: number; move: { from: number; to: number | 'off' } | 'pass' }[] }
  /** Moves as tournament results write them: `"2:0-2"`, `"0:pass"`. */
  | { moves: string[] }
);

/** How good a move was. */
export type MoveClass = 'forced' | 'best' | 'good' | 'inaccuracy' | 'mistake' | 'blunder';

/** One reviewed turn (losses and luck in percentage points of win probability). */
export interface ReviewedTurn {
  turn: number;
  player: Player;
  roll: number;
  played: string;
  best: string;
  value_played: number;
  value_best: number;
  loss_pp: number;
  class: MoveClass;
  luck_pp: number;
}

/** A strength estimate on the rule set's calibration scale. */
export interface Strength {
  elo: number;
  low: number;
  high: number;
  text: string;
}

/** One player's totals in a review. */
export interface ReviewSummary {
  decisions: number;
  total_loss_pp: number;
  mean_loss_pp: number;
  loss_sd_pp: number;
  best: number;
  good: number;
  inaccuracies: number;
  mistakes: number;
  blunders: number;
  luck_pp: number;
  /** Only for exact reviews (perfect play) of calibrated rule sets. */
  strength?: Strength;
}

/** The answer of `review`. */
export interface Review {
  rules: string;
  reference: string;
  exact: boolean;
  turns: ReviewedTurn[];
  light: ReviewSummary;
  dark: ReviewSummary;
  winner: Player | null;
  /** Who played, when the record named them (`sawah review` of a tournament's results line). */
  players?: { light: string; dark: string };
}

/** What a move does (docs/protocol.md, "Review, hints and strength"). */
export type MoveTag =
  | 'enters' | 'captures' | 'rolls_again' | 'safe' | 'protected' | 'forms_wall'
  | 'beauty' | 'water' | 'backward' | 'bears_off' | 'wins';

/** One ranked move of a hint. */
export interface HintedMove {
  from: number;
  to: number | 'off';
  value: number;
  loss_pp: number;
  tags: MoveTag[];
  words: string[];
  /** The chance the opponent's next roll can hit one of the mover's pieces; null when the mover rolls again. */
  hit_chance: number | null;
}

/** The answer of `hint`. */
export interface Hint {
  moves: HintedMove[];
  reference: string;
  exact: boolean;
}

/** One roll of a roll table: its chance and the mover's win probability after it with the best move. */
export interface RollChance {
  roll: number;
  probability: number;
  value: number;
  /** The best move's squares, or "pass" when the roll has no legal move. */
  move: { from: number | string; to: number | string } | 'pass';
}

/** The answer of `hint` without a roll (before the dice are thrown). */
export interface RollTable {
  rolls: RollChance[];
  /** The position's value before the roll: the rolls' values weighted by their chances. */
  value: number;
  reference: string;
  exact: boolean;
}

/** A protocol response: the request's `id`, then the result's fields or `error`. */
export type Response = { id?: unknown; error?: ProtocolErrorJson } & Record<string, unknown>;

/** Bytes as the package accepts them. */
export type Bytes = Uint8Array | ArrayBuffer | ArrayBufferView;

/** Options of `createBot` / `Bot.create`. */
export interface BotOptions {
  /**
   * The levels: `'shipped'` (default: the package's models/ folder), the base
   * URL of another models folder (with its manifest.json), the manifest and
   * files as data, or `false` for the built-in presets. Each model's SHA-256
   * is checked against the manifest.
   */
  models?: 'shipped' | string | URL | false | { manifest: Bytes | string | object; files: Record<string, Bytes> };
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
