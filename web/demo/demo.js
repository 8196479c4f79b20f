// The demo: play any rule set against the computer at any level, with the
// bot in a Web Worker. The board is drawn from the `rules` answer alone.
//
// URL options (for links and tests): ?rules=ur&level=hard&side=dark&seed=7
// &delay=0 (milliseconds the computer's move is shown before play goes on)
// &autostart=1 &tutor=1 (the tutor on) &puzzle=2026-12-05 (that day's
// puzzle at once) &models=URL (a models folder, such as one `sawah levels
// build` made, whose rule sets are listed beside the shipped ones).
//
// On a screen narrower than the board, the board is drawn turned a quarter
// (its rows become columns), so it fits a phone without sideways scrolling
// and its cells stay large enough to tap.
import { WorkerBot } from '../dist/index.js';
import { drawRoll as rollWithOdds, generator } from './dice.js';

const params = new URLSearchParams(location.search);
const delay = Number(params.get('delay') ?? 700);
const $ = (id) => document.getElementById(id);
const other = (side) => (side === 'light' ? 'dark' : 'light');
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

const game = {
  bot: null,
  rules: null,
  position: null,
  human: 'light',
  level: 'medium',
  random: generator(Number(params.get('seed') ?? Date.now())),
  throws: null, // the day's throws in a game of the day, consumed in order
  record: [], // every roll and move as tokens ("2:0-2", "0:pass"): the game record for its review
  generation: 0, // bumped by every new game, so an old game's loop stops
  review: null, // the last review, for its download
};

/** The tutor speaks up before a move that gives away this many points (a review's "mistake"). */
const TUTOR_THRESHOLD_PP = 3;

function setStatus(text) {
  $('status').textContent = text;
}

function log(text) {
  const item = document.createElement('li');
  item.textContent = text;
  $('log').prepend(item);
}

function drawRoll() {
  if (game.throws) {
    if (game.throws.length === 0) throw new Error("the day's throws ran out");
    return game.throws.shift();
  }
  return rollWithOdds(game.rules, game.random);
}

const isSenet = () => game.rules.family === 'senet';

/** The board cell of a player's square (race) or of a house (Senet). */
function cellOf(side, square) {
  if (isSenet()) return game.rules.board.houses[square - 1].cell;
  return game.rules.routes[side][square - 1].cell;
}

function cellElement([row, column]) {
  return $('board').querySelector(`[data-row="${row}"][data-column="${column}"]`);
}

function describeMove(move) {
  const from = move.from === 0 ? 'enter' : move.from;
  return `${from} → ${move.to}`;
}

function winner(position) {
  return ['light', 'dark'].find((side) => position[side].scored === game.rules.pieces) ?? null;
}

const senetSymbols = { 15: '☥', 26: '✦', 27: '≈', 28: 'III', 29: 'II', 30: '◉' };

function drawBoard() {
  const board = $('board');
  const { rows, columns } = game.rules.board;
  board.replaceChildren();
  board.style.setProperty('--rows', rows);
  board.style.setProperty('--columns', columns);
  fitBoard();
  const add = ([row, column], number, classes, title) => {
    const cell = document.createElement('div');
    cell.className = ['cell', ...classes].join(' ');
    cell.dataset.row = row;
    cell.dataset.column = column;
    cell.style.setProperty('--row', row + 1);
    cell.style.setProperty('--column', column + 1);
    if (title) cell.title = title;
    const label = document.createElement('span');
    label.className = 'number';
    label.textContent = number;
    cell.append(label);
    board.append(cell);
    return cell;
  };
  if (isSenet()) {
    for (const house of game.rules.board.houses) {
      const cell = add(house.cell, house.house, house.special ? ['special'] : [], house.special);
      if (senetSymbols[house.house] && house.special) {
        const symbol = document.createElement('span');
        symbol.className = 'symbol';
        symbol.textContent = senetSymbols[house.house];
        cell.append(symbol);
      }
    }
  } else {
    // Square numbers in the player's own numbering (the computer's where only it passes).
    const numbers = new Map();
    for (const side of [other(game.human), game.human]) {
      for (const square of game.rules.routes[side]) numbers.set(square.cell.join(), square.square);
    }
    const marks = new Set(game.rules.marks.cells.map((cell) => cell.join()));
    for (const cell of game.rules.board.cells) {
      add(cell, numbers.get(cell.join()) ?? '', marks.has(cell.join()) ? ['mark'] : []);
    }
  }
}

/** Turns the board a quarter when it is wider than the page (a phone). */
function fitBoard() {
  const board = $('board');
  const columns = Number(board.style.getPropertyValue('--columns') || 0);
  const room = document.documentElement.clientWidth - 32;
  board.classList.toggle('turned', columns * 60 > room);
}

function piece(side) {
  const element = document.createElement('div');
  element.className = `piece ${side}`;
  element.title = side;
  return element;
}

function drawPosition(last) {
  for (const cell of $('board').querySelectorAll('.cell')) {
    cell.querySelector('.piece')?.remove();
    cell.classList.remove('movable', 'last-from', 'last-to');
  }
  for (const side of ['light', 'dark']) {
    for (const square of game.position[side].squares) cellElement(cellOf(side, square)).append(piece(side));
    const tray = $(`tray-${side}`);
    tray.replaceChildren();
    const who = side === game.human ? 'You' : 'Computer';
    const stack = (name, count, id) => {
      const element = document.createElement('div');
      element.className = 'stack';
      element.id = id;
      const label = document.createElement('span');
      label.className = 'label';
      label.textContent = `${name} ${count}`;
      element.append(label);
      for (let i = 0; i < count; i++) element.append(piece(side));
      tray.append(element);
    };
    const title = document.createElement('strong');
    title.textContent = `${who} (${side})`;
    tray.append(title);
    if (!isSenet()) stack('waiting', game.position[side].waiting, `waiting-${side}`);
    stack('borne off', game.position[side].scored, `off-${side}`);
  }
  if (last) {
    const { side, move } = last;
    if (move.from !== 0) cellElement(cellOf(side, move.from))?.classList.add('last-from');
    if (move.to !== 'off') cellElement(cellOf(side, move.to))?.classList.add('last-to');
  }
}

/** Marks the human's legal moves on the board and as buttons. */
function offerMoves(moves, choose) {
  const list = $('moves');
  list.replaceChildren();
  moves.forEach((move, i) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = describeMove(move);
    button.dataset.move = i;
    button.addEventListener('click', () => choose(i));
    list.append(button);
    const source = move.from === 0 ? $(`waiting-${game.human}`) : cellElement(cellOf(game.human, move.from));
    source.classList.add('movable');
    source.dataset.move = i;
    source.onclick = () => choose(i);
  });
}

function clearMoves() {
  $('moves').replaceChildren();
  $('hint').replaceChildren();
  $('hint-button').disabled = true;
  $('hint-button').onclick = null;
  for (const element of document.querySelectorAll('.movable')) {
    element.classList.remove('movable');
    element.onclick = null;
    delete element.dataset.move;
  }
}

function waitForClick(button) {
  return new Promise((done) => {
    button.disabled = false;
    button.onclick = () => {
      button.disabled = true;
      button.onclick = null;
      done();
    };
  });
}

async function humanTurn(generation) {
  setStatus('Your turn: roll.');
  // Before the roll, the hint is the roll table: what each throw would give.
  const before = game.position;
  $('hint-button').disabled = false;
  $('hint-button').onclick = () => showRollTable(before);
  await waitForClick($('roll-button'));
  clearMoves();
  if (generation !== game.generation) return null;
  const roll = drawRoll();
  $('roll').textContent = `You rolled ${roll}`;
  const moves = await game.bot.legalMoves(game.position, roll);
  if (moves.length === 0) {
    log(`You rolled ${roll}: no move, the turn passes`);
    game.record.push(`${roll}:pass`);
    setStatus('No legal move: the turn passes.');
    await sleep(delay);
    return { position: { ...game.position, turn: other(game.position.turn) } };
  }
  setStatus(moves.length === 1 ? 'Your only move is marked: click it.' : 'Click a marked piece to move it.');
  const position = game.position;
  $('hint-button').disabled = false;
  $('hint-button').onclick = () => showHint(position, roll);
  const chosen = await chooseWithTutor(position, roll, moves);
  clearMoves();
  const move = moves[chosen];
  game.record.push(`${roll}:${move.from}-${move.to}`);
  log(`You rolled ${roll}: ${describeMove(move)}${move.extra_roll ? ', roll again' : ''}`);
  return { position: move.position, last: { side: game.human, move } };
}

/** The person's choice; with the tutor on, a costly one is questioned first. */
async function chooseWithTutor(position, roll, moves) {
  for (;;) {
    const chosen = await new Promise((done) => offerMoves(moves, done));
    if (!$('tutor').checked || moves.length < 2) return chosen;
    const hint = await game.bot.hint(position, roll);
    const same = (a, b) => a.from === b.from && a.to === b.to;
    const mine = hint.moves.find((m) => same(m, moves[chosen]));
    if (!mine || mine.loss_pp < TUTOR_THRESHOLD_PP || mine.loss_pp <= 0) return chosen;
    const best = hint.moves[0];
    const better = best.words.filter((w) => w && !mine.words.includes(w));
    let text = `The tutor: ${describeMove(mine)} gives away ${mine.loss_pp.toFixed(1)} points (you would win ${percent(mine.value)} instead of ${percent(best.value)}). Better: ${describeMove(best)}.`;
    if (better.length) text += ` The better move ${better.join("; ")}.`;
    if ((mine.hit_chance ?? 0) > (best.hit_chance ?? 0) + 0.05) {
      text += ` Yours can be hit ${percent(mine.hit_chance)} of the time, the better one ${percent(best.hit_chance ?? 0)}.`;
    }
    $('tutor-text').textContent = text;
    $('tutor-says').hidden = false;
    document.body.dataset.tutor = 'spoke';
    const keep = await new Promise((done) => {
      $('tutor-keep').onclick = () => done(true);
      $('tutor-again').onclick = () => done(false);
    });
    $('tutor-says').hidden = true;
    if (keep) return chosen;
    clearMoves();
    $('hint-button').disabled = false;
    $('hint-button').onclick = () => showHint(position, roll);
  }
}

async function computerTurn() {
  const side = game.position.turn;
  const roll = drawRoll();
  $('roll').textContent = `The computer rolled ${roll}`;
  setStatus('The computer is thinking…');
  const choice = await game.bot.choose(game.position, roll, game.level);
  if (!choice.move) {
    log(`Computer rolled ${roll}: no move, the turn passes`);
    game.record.push(`${roll}:pass`);
    await sleep(delay);
    return { position: { ...game.position, turn: other(side) } };
  }
  const moves = await game.bot.legalMoves(game.position, roll);
  const move = moves.find((m) => m.from === choice.move.from && m.to === choice.move.to);
  game.record.push(`${roll}:${move.from}-${move.to}`);
  const value = choice.values?.find((v) => v.from === move.from && v.to === move.to)?.value;
  const odds = value === undefined ? '' : ` (its chances ${(100 * value).toFixed(0)}%)`;
  log(`Computer rolled ${roll}: ${describeMove(move)}${odds}${move.extra_roll ? ', rolls again' : ''}`);
  setStatus(`The computer moved ${describeMove(move)}.`);
  return { position: move.position, last: { side, move } };
}

async function play(generation) {
  while (generation === game.generation) {
    const won = winner(game.position);
    if (won) {
      let text = won === game.human ? 'You won!' : 'The computer won.';
      if (isSenet()) text += ` Score for light: ${await game.bot.score(game.position)}.`;
      setStatus(text);
      log(text);
      $('review-button').hidden = false;
      $('review-button').onclick = () => showReview(generation);
      $('save-record').hidden = false;
      document.body.dataset.over = won;
      return;
    }
    const turn = game.position.turn === game.human ? await humanTurn(generation) : await computerTurn();
    if (!turn || generation !== game.generation) return;
    game.position = turn.position;
    drawPosition(turn.last);
    if (turn.last && turn.last.side !== game.human) await sleep(delay);
  }
}

async function newGame({ daily = null } = {}) {
  const generation = ++game.generation;
  const name = $('rules').value;
  game.level = daily ? 'medium' : $('level').value;
  game.human = daily ? 'light' : $('side').value;
  game.rules = await game.bot.rules(name);
  game.throws = daily ? await game.bot.daily(daily, 5000) : null;
  game.position = await game.bot.start(name);
  delete document.body.dataset.over;
  delete document.body.dataset.reviewed;
  game.record = [];
  game.review = null;
  $('puzzle').hidden = true;
  $('tutor-says').hidden = true;
  $('save-record').hidden = true;
  $('save-review').hidden = true;
  $('review-button').hidden = true;
  $('review').replaceChildren();
  $('log').replaceChildren();
  $('roll').textContent = '';
  $('roll-button').disabled = true;
  clearMoves();
  drawBoard();
  drawPosition();
  $('about').textContent = game.rules.description;
  log(daily ? `Game of the day ${daily} against medium` : `New game of ${name} against ${game.level}`);
  await play(generation);
}

const percent = (p) => `${(100 * p).toFixed(0)}%`;

/** The moves for this roll ranked by the computer's strongest view, with what each does. */
async function showHint(position, roll) {
  $('hint-button').disabled = true;
  const hint = await game.bot.hint(position, roll);
  const list = document.createElement('ol');
  for (const move of hint.moves.slice(0, 4)) {
    const item = document.createElement('li');
    const risk = move.hit_chance ? `; can be hit ${percent(move.hit_chance)}` : '';
    item.textContent = `${describeMove(move)}: wins ${percent(move.value)}${move.words.length ? ` (${move.words.join('; ')}${risk})` : risk ? ` (${risk.slice(2)})` : ''}`;
    list.append(item);
  }
  $('hint').replaceChildren(list);
}

/** Before the roll: every throw's chance and what the best move after it leaves you. */
async function showRollTable(position) {
  $('hint-button').disabled = true;
  const table = await game.bot.rollTable(position);
  const total = document.createElement('p');
  total.textContent = `Before the roll: ${percent(table.value)} to win.`;
  const list = document.createElement('ul');
  for (const row of table.rolls) {
    const item = document.createElement('li');
    const best = row.move === 'pass' ? 'no move' : `best ${describeMove(row.move)}`;
    item.textContent = `${row.roll} (${percent(row.probability)} of throws): wins ${percent(row.value)}, ${best}`;
    list.append(item);
  }
  $('hint').replaceChildren(total, list);
}

const SVG = 'http://www.w3.org/2000/svg';

function svgElement(name, attributes) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

/** The player's chances before every turn, with luck bars and the mistakes and blunders marked. */
function chancesChart(review, view) {
  const [width, height, pad] = [360, 160, 8];
  const turns = review.turns;
  const x = (k) => pad + ((width - 2 * pad) * (k + 0.5)) / Math.max(turns.length, 1);
  const y = (p) => pad + (height - 2 * pad) * (1 - p);
  const svg = svgElement('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'data-turns': turns.length });
  svg.append(svgElement('line', { x1: pad, x2: width - pad, y1: y(0.5), y2: y(0.5), stroke: '#bbb' }));
  const chances = turns.map((t) => {
    const before = t.value_best - t.luck_pp / 100;
    return t.player === view ? before : 1 - before;
  });
  turns.forEach((t, k) => {
    const helped = (t.player === view ? t.luck_pp : -t.luck_pp) / 100;
    const [top, bottom] = [y(0.5 + Math.max(helped, 0)), y(0.5 + Math.min(helped, 0))];
    svg.append(svgElement('rect', { class: 'luck', x: x(k) - 1, y: top, width: 2, height: Math.max(bottom - top, 0.5), fill: helped >= 0 ? '#7c7' : '#d7d' }));
  });
  svg.append(svgElement('polyline', { class: 'chances', points: chances.map((p, k) => `${x(k).toFixed(1)},${y(p).toFixed(1)}`).join(' '), fill: 'none', stroke: '#24c', 'stroke-width': 2 }));
  turns.forEach((t, k) => {
    if (t.class === 'mistake' || t.class === 'blunder') {
      svg.append(svgElement('circle', { class: t.class, cx: x(k), cy: y(chances[k]), r: 4, fill: t.class === 'blunder' ? '#d22' : '#f80' }));
    }
  });
  return svg;
}

/** The game reviewed: the player's totals and strength, luck on both sides, the chart and the costly moves. */
async function showReview(generation) {
  $('review-button').disabled = true;
  setStatus('Reviewing the game…');
  const review = await game.bot.review({ rules: game.rules.name, moves: game.record });
  if (generation !== game.generation) return;
  const mine = review[game.human];
  const theirs = review[other(game.human)];
  const box = $('review');
  const line = (text) => {
    const p = document.createElement('p');
    p.textContent = text;
    box.append(p);
  };
  box.replaceChildren();
  line(`You gave away ${mine.mean_loss_pp.toFixed(2)} points of win probability per decision over ${mine.decisions} decisions (${mine.mistakes} mistakes, ${mine.blunders} blunders); the computer ${theirs.mean_loss_pp.toFixed(2)}.`);
  if (mine.strength) line(`You ${mine.strength.text}.`);
  line(`Luck: the dice gave you ${mine.luck_pp >= 0 ? '+' : ''}${mine.luck_pp.toFixed(1)} points, the computer ${theirs.luck_pp >= 0 ? '+' : ''}${theirs.luck_pp.toFixed(1)}.`);
  box.append(chancesChart(review, game.human));
  const costly = review.turns.filter((t) => t.player === game.human && (t.class === 'mistake' || t.class === 'blunder'));
  if (costly.length) {
    const list = document.createElement('ul');
    for (const t of costly) {
      const item = document.createElement('li');
      item.textContent = `Turn ${t.turn}, rolled ${t.roll}: you played ${t.played.split(':')[1]}, best was ${t.best.split(':')[1]} (${t.class}, ${t.loss_pp.toFixed(1)} points)`;
      list.append(item);
    }
    box.append(list);
  }
  const reference = document.createElement('p');
  reference.className = 'reference';
  reference.textContent = `Measured against ${review.reference}.`;
  box.append(reference);
  game.review = review;
  $('save-review').hidden = false;
  setStatus('The review is below the moves.');
  $('review-button').disabled = false;
  document.body.dataset.reviewed = 'true';
}

/** The game record (docs/protocol.md), which `sawah review` and the protocol's `review` read. */
function gameRecord() {
  const you = 'you';
  const computer = game.throws ? 'medium' : game.level;
  return {
    rules: game.rules.name,
    light: game.human === 'light' ? you : computer,
    dark: game.human === 'dark' ? you : computer,
    moves: game.record,
  };
}

/** Offers `value` as a JSON file called `name`. */
function download(name, value) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2) + '\n'], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A puzzle: the question by `which` ({date} or {rating, seed}), then the answer explained. */
async function showPuzzle(which) {
  const generation = ++game.generation;
  const name = $('rules').value;
  game.rules = await game.bot.rules(name);
  const { puzzle } = await game.bot.puzzle(name, which);
  if (generation !== game.generation) return;
  game.position = puzzle.position;
  game.human = puzzle.position.turn;
  game.throws = null;
  delete document.body.dataset.over;
  delete document.body.dataset.puzzle;
  $('review-button').hidden = true;
  $('save-record').hidden = true;
  $('save-review').hidden = true;
  $('tutor-says').hidden = true;
  $('review').replaceChildren();
  $('log').replaceChildren();
  clearMoves();
  drawBoard();
  drawPosition();
  const bound = { at_most: 'at most ', at_least: 'at least ' }[puzzle.rating_bound] ?? '';
  $('puzzle-text').textContent = `Puzzle ${puzzle.id} (rating ${bound}${Math.round(puzzle.rating)}): you play ${puzzle.position.turn} with a roll of ${puzzle.roll}. Find the best move.`;
  $('puzzle').hidden = false;
  $('next-puzzle').hidden = true;
  $('roll').textContent = `You rolled ${puzzle.roll}`;
  setStatus('Puzzle: click the piece to move.');
  log(which.date ? `Puzzle of the day ${which.date}` : `Puzzle near ${Math.round(which.rating)}`);
  const moves = await game.bot.legalMoves(puzzle.position, puzzle.roll);
  const chosen = await new Promise((done) => offerMoves(moves, done));
  clearMoves();
  if (generation !== game.generation) return;
  const move = moves[chosen];
  const verdict = await game.bot.solvePuzzle(name, puzzle.id, { from: move.from, to: move.to });
  game.position = move.position;
  drawPosition({ side: game.human, move });
  const text = document.createElement('p');
  text.textContent = `${verdict.explanation} Themes: ${verdict.themes.map((t) => t.replace('_', ' ')).join(', ')}.`;
  $('puzzle').insertBefore(text, $('next-puzzle'));
  setStatus(verdict.correct ? 'Solved!' : 'Not the best move: see why below.');
  document.body.dataset.puzzle = verdict.correct ? 'solved' : 'missed';
  $('next-puzzle').hidden = false;
  $('next-puzzle').onclick = () => {
    for (const p of [...$('puzzle').querySelectorAll('p')].slice(1)) p.remove();
    showPuzzle({ rating: puzzle.rating + (verdict.correct ? 40 : -40), seed: Math.floor(game.random() * 1e6) + 1 });
  };
}

function showDailyControls() {
  $('daily-controls').hidden = $('rules').value !== 'senet';
}

/** The footer describes the rule set chosen, from the moment it is chosen. */
async function describeChosen() {
  const name = $('rules').value;
  const rules = await game.bot.rules(name);
  if ($('rules').value === name) $('about').textContent = rules.description;
}

async function main() {
  try {
    const worker = new Worker(new URL('../dist/worker.js', import.meta.url), { type: 'module' });
    const folder = params.get('models');
    game.bot = await WorkerBot.create(worker, folder ? { models: ['shipped', new URL(folder, location.href).href] } : {});
    const names = (await game.bot.listRules()).filter((name) => !/-\d$/.test(name) || name === 'masters-5');
    for (const name of names) $('rules').append(new Option(name, name));
    $('rules').value = params.get('rules') ?? 'ur';
    $('level').value = params.get('level') ?? 'medium';
    $('side').value = params.get('side') ?? 'light';
    $('daily-date').value = new Date().toISOString().slice(0, 10);
    showDailyControls();
    await describeChosen();
    $('rules').addEventListener('change', () => {
      showDailyControls();
      describeChosen();
    });
    $('setup').addEventListener('submit', (event) => {
      event.preventDefault();
      newGame();
    });
    $('daily').addEventListener('click', () => newGame({ daily: $('daily-date').value }));
    $('tutor').checked = params.get('tutor') === '1';
    const today = () => new Date().toISOString().slice(0, 10);
    $('puzzle-of-the-day').addEventListener('click', () => {
      for (const p of [...$('puzzle').querySelectorAll('p')].slice(1)) p.remove();
      showPuzzle({ date: today() });
    });
    $('save-record').addEventListener('click', () => download(`${game.rules.name}-game.json`, gameRecord()));
    $('save-review').addEventListener('click', () => download(`${game.rules.name}-review.json`, { record: gameRecord(), review: game.review }));
    window.addEventListener('resize', fitBoard);
    document.body.dataset.ready = 'true';
    setStatus('Pick a game and a level, then New game.');
    if (params.get('puzzle')) {
      await showPuzzle({ date: params.get('puzzle') });
    } else if (params.get('autostart')) {
      await newGame(params.get('daily') ? { daily: params.get('daily') } : {});
    }
  } catch (error) {
    setStatus(`Something went wrong: ${error.message}`);
    console.error(error);
  }
}

main();
