"""RGN fixtures from RoyalUr's own engine: games of RoyalUr's Python
implementation (the `royalur` package), written in RGN the way RoyalUr's
Java library writes it (RGN.java: tags, `N.` and `/` turns, tiles, `@` and
`+` off the board, `x` captures, ` *` rosettes, `#` the end, a pair of
turns a line, long turns broken at 60 characters).

The files in tests/fixtures/rgn/ must be exactly what this writes from
these seeded games; the Rust tests (engine/tests/rgn_fixtures.rs) read
each into a sawah game record and write it back to the same text.
Regenerate with SAWAH_WRITE_RGN_FIXTURES=1."""

import os
import pathlib
import random

import pytest

royalur = pytest.importorskip("royalur")

from test_royalur import VARIANTS  # noqa: E402  (the presets' RoyalUr builders)

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "rgn"
GAMES = dict(VARIANTS, ur=lambda: royalur.Game.builder().finkel())
MAX_TURN_LINE = 60


def escape(value):
    bare = value[:1].isascii() and value[:1].isalpha() and all(
        c.isascii() and (c.isalnum() or c in "_.-") for c in value[1:]
    )
    if bare:
        return value
    out = value.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "\\r").replace("\n", "\\n")
    return f'"{out}"'


def tile(t):
    return f"{chr(ord('A') + t.x - 1)}{t.y}"


def move_text(game, move):
    # royalur 0.0.6's RuleSet.paths returns nothing (no `return`); its
    # settings carry the same paths.
    paths = game.rules.settings.paths
    player = move.player
    text = chr(ord("A") + paths.get_start(player).x - 1) + "@" if move.is_introducing_piece() else tile(move.source)
    text += chr(ord("A") + paths.get_end(player).x - 1) + "+" if move.is_scoring_piece() else tile(move.dest)
    if move.is_capture():
        text += "x"
    if move.has_dest() and move.is_dest_rosette(game.rules.board_shape):
        text += " *"
    return text


def encode(game, tags):
    from royalur.rules.state import MovedGameState, RolledGameState

    out = "".join(f"[{escape(k)} {escape(v)}]\n" for k, v in tags)
    if tags:
        out += "\n"
    states = game.get_action_states()
    lines, turn_text, turn_len, turns, current = [], "", 0, 0, None
    for k, state in enumerate(states):
        nxt = states[k + 1] if k + 1 < len(states) else None
        if isinstance(state, RolledGameState) and isinstance(nxt, MovedGameState):
            continue
        action = ""
        player = state.get_turn()
        if player != current:
            turns += 1
            current = player
            action += f"{(turns + 1) // 2}. " if player.text_name == "Light" else "/ "
        if isinstance(state, MovedGameState):
            action += move_text(game, state.move)
        else:
            action += f"{state.roll.value} --"
        if nxt is None and game.is_finished():
            action += "#"
        turn_len += len(action)
        if turn_text:
            if turn_len + 1 < MAX_TURN_LINE:
                turn_text += " "
                turn_len += 1
            else:
                turn_text += "\n"
                turn_len = len(action)
        turn_text += action
        if nxt is None or (player.text_name != "Light" and nxt.get_turn() != player):
            lines.append(turn_text)
            turn_text, turn_len = "", 0
    return out + "\n".join(lines) + "\n"


def play(name, seed):
    """A game of RoyalUr's with its own dice and random moves (seeded)."""
    random.seed(seed)
    chooser = random.Random(seed + 1)
    game = GAMES[name]().build()
    while not game.is_finished():
        game.roll_dice()
        if game.is_waiting_for_move():
            moves = game.find_available_moves()
            game.make_move(moves[chooser.randrange(len(moves))])
    return game


@pytest.mark.parametrize("name", sorted(GAMES))
def test_fixtures_are_royalur_games_in_royalur_rgn(name):
    game = play(name, 2026)
    tags = [("Rules", name), ("Source", "royalur 0.0.6, random moves"), ("Seed", "2026")]
    text = encode(game, tags)
    path = FIXTURES / f"{name}.rgn"
    if os.environ.get("SAWAH_WRITE_RGN_FIXTURES"):
        FIXTURES.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.read_text() == text
    assert text.rstrip().endswith("#") and " *" in text and "x" in text.split("\n\n", 1)[1]
