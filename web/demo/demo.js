// The demo: play any rule set against the computer at any level, with the
// bot in a Web Worker. The board is drawn from the `rules` answer alone.
//
// URL options (for links and tests): ?rules=ur&level=hard&side=dark&seed=7
// &delay=0 (milliseconds the computer's move is shown before play goes on)
// &autostart=1.
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
};

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
  board.style.gridTemplateColumns = `repeat(${columns}, 56px)`;
  board.style.gridTemplateRows = `repeat(${rows}, 56px)`;
  const add = ([row, column], number, classes, title) => {
    const cell = document.createElement('div');
    cell.className = ['cell', ...classes].join(' ');
    cell.dataset.row = row;
    cell.dataset.column = column;
    cell.style.gridRow = row + 1;
    cell.style.gridColumn = column + 1;
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
  const chosen = await new Promise((done) => offerMoves(moves, done));
  clearMoves();
  const move = moves[chosen];
  game.record.push(`${roll}:${move.from}-${move.to}`);
  log(`You rolled ${roll}: ${describeMove(move)}${move.extra_roll ? ', roll again' : ''}`);
  return { position: move.position, last: { side: game.human, move } };
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
  setStatus('The review is below the moves.');
  $('review-button').disabled = false;
  document.body.dataset.reviewed = 'true';
}

function showDailyControls() {
  $('daily-controls').hidden = $('rules').value !== 'senet';
}

async function main() {
  try {
    const worker = new Worker(new URL('../dist/worker.js', import.meta.url), { type: 'module' });
    game.bot = await WorkerBot.create(worker);
    const names = (await game.bot.listRules()).filter((name) => !/-\d$/.test(name) || name === 'masters-5');
    for (const name of names) $('rules').append(new Option(name, name));
    $('rules').value = params.get('rules') ?? 'ur';
    $('level').value = params.get('level') ?? 'medium';
    $('side').value = params.get('side') ?? 'light';
    $('daily-date').value = new Date().toISOString().slice(0, 10);
    showDailyControls();
    $('rules').addEventListener('change', showDailyControls);
    $('setup').addEventListener('submit', (event) => {
      event.preventDefault();
      newGame();
    });
    $('daily').addEventListener('click', () => newGame({ daily: $('daily-date').value }));
    document.body.dataset.ready = 'true';
    setStatus('Pick a game and a level, then New game.');
    if (params.get('autostart')) {
      await newGame(params.get('daily') ? { daily: params.get('daily') } : {});
    }
  } catch (error) {
    setStatus(`Something went wrong: ${error.message}`);
    console.error(error);
  }
}

main();
