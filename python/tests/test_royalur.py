"""RoyalUr's variants checked move for move against RoyalUr's own Python
implementation (the `royalur` package): Blitz, Aseb and the Masters rules
with three dice. In random games of RoyalUr's, at every roll, the legal
moves of `sawah` must be exactly RoyalUr's, and each move must lead to the
same position with the same player to move (an extra roll after a rosette,
or after a capture in Blitz)."""

import random

import pytest
import sawah

royalur = pytest.importorskip("royalur")

POSITIONS = 10_000


def blitz():
    return (
        royalur.Game.builder()
        .masters()
        .starting_piece_count(5)
        .safe_rosettes(False)
        .captures_grant_extra_rolls(True)
    )


def aseb():
    return royalur.Game.builder().aseb()


def masters_three_dice():
    # RoyalUr's three dice where 0 counts 4, as a factory: royalur 0.0.6's
    # with_dice rebinds the name its closure reads when given the DiceType,
    # and its BinaryDice0AsMax reads `max_roll_value`, which it never sets
    # (it sets `_max_roll_value`). The probabilities and rolls are its own.
    from royalur.model.dice import BinaryDice0AsMax

    class ZeroIsFour(BinaryDice0AsMax):
        __slots__ = ()

        @property
        def max_roll_value(self):
            return self._max_roll_value

    return royalur.Game.builder().masters().dice(lambda: ZeroIsFour("ThreeBinary0Max", 3))


VARIANTS = {"blitz": blitz, "aseb": aseb, "masters-3dice": masters_three_dice}


def position_of(rules, game, turn):
    """The game's position as sawah's JSON, `turn` to move."""
    board = game.get_board()
    squares = {"light": [], "dark": []}
    for ix in range(board.width):
        for iy in range(board.height):
            if not board.contains_indices(ix, iy):
                continue
            piece = board.get_by_indices(ix, iy)
            if piece is not None:
                squares[piece.owner.text_name.lower()].append(piece.path_index + 1)
    side = lambda name, state: {
        "waiting": state.piece_count,
        "scored": state.score,
        "squares": sorted(squares[name]),
    }
    return {
        "rules": rules,
        "turn": turn,
        "light": side("light", game.get_light_player()),
        "dark": side("dark", game.get_dark_player()),
    }


def move_of(move, off):
    """A RoyalUr move as sawah's (from, to): RoyalUr counts a path's board
    tiles from 0, sawah its squares from 1 (0 entering, `off` borne off)."""
    source = move.source_piece
    dest = move.dest_piece
    return (source.path_index + 1 if source is not None else 0, dest.path_index + 1 if dest is not None else off)


@pytest.mark.parametrize("rules", sorted(VARIANTS))
def test_every_move_matches_royalur(rules):
    description = sawah.request({"cmd": "rules", "rules": rules})["rules"]
    off = description["off"]
    rng = random.Random(2026)
    random.seed(2026)  # RoyalUr's dice roll from the module's generator
    checked = captures = extra_rolls = 0
    while checked < POSITIONS:
        game = VARIANTS[rules]().build()
        while not game.is_finished() and checked < POSITIONS:
            turn = game.get_turn().text_name.lower()
            before = position_of(rules, game, turn)
            roll = game.roll_dice().value
            answer = sawah.request({"cmd": "legal_moves", "position": before, "roll": roll})
            assert "error" not in answer, (before, roll, answer)
            ours = {(m["from"], 0 if m["to"] == "off" else m["to"]) for m in answer["moves"]}
            ours = {(f, off if t == 0 else t) for f, t in ours}
            if not game.is_waiting_for_move():
                assert ours == set(), (before, roll, ours)
                continue
            theirs = {move_of(m, off): m for m in game.find_available_moves()}
            assert ours == set(theirs), (before, roll, ours, set(theirs))
            checked += 1
            key = rng.choice(sorted(theirs))
            chosen = next(m for m in answer["moves"] if (m["from"], off if m["to"] == "off" else m["to"]) == key)
            captures += theirs[key].captured_piece is not None
            game.make_move(theirs[key])
            if game.is_finished():
                after = position_of(rules, game, chosen["position"]["turn"])
            else:
                after = position_of(rules, game, game.get_turn().text_name.lower())
                extra_rolls += chosen["extra_roll"]
                assert chosen["extra_roll"] == (after["turn"] == turn), (before, roll, key)
            assert chosen["position"] == after, (before, roll, key)
    assert captures > 100 and extra_rolls > 100, (captures, extra_rolls)
