"""The rules through the bindings: every rule set, positions, moves, JSON,
notation, observations and masks, and clear errors for bad input."""

import numpy as np
import pytest

import sawah

RULE_SETS = ["sawah", "ur", "babylon", "marks-roll-only", "masters", "masters-5", "senet", "blitz", "aseb", "masters-3dice"]


def random_game(game, rng, max_turns=5000):
    """Plays random legal moves from the start; yields (position, roll, moves)."""
    position = game.start()
    probabilities = np.array(game.roll_probabilities)
    for _ in range(max_turns):
        if game.winner(position) is not None:
            return
        roll = int(rng.choice(len(probabilities), p=probabilities))
        moves = game.legal_moves(position, roll)
        yield position, roll, moves
        if not moves:
            position = game.pass_turn(position)
        else:
            position, _ = game.apply(position, moves[int(rng.integers(len(moves)))])


def test_every_rule_set_is_known():
    assert set(RULE_SETS) <= set(sawah.rule_sets())


@pytest.mark.parametrize("rules", RULE_SETS)
def test_random_games_keep_moves_masks_and_observations_consistent(rules):
    game = sawah.Game(rules)
    rng = np.random.default_rng(7)
    turns = 0
    for position, roll, moves in random_game(game, rng):
        turns += 1
        actions = [m.action for m in moves]
        assert len(set(actions)) == len(actions), "an action names one move"
        mask = game.legal_mask(position, roll)
        assert mask.dtype == bool and mask.shape == (game.action_size,)
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(actions)
        assert game.legal_actions(position, roll) == sorted(actions)
        observation = game.observe(position, roll)
        assert observation.dtype == np.float32 and observation.shape == (game.observation_size,)
        assert set(np.unique(observation)) <= {0.0, 1.0}
        roll_part = observation[-(game.max_roll + 1) :]
        assert roll_part.sum() == 1 and roll_part[roll] == 1
        for move in moves:
            by_move = game.apply(position, move)
            assert game.apply(position, move.action, roll) == by_move
        # JSON and notation give the same position back.
        assert game.position(position.to_json()) == position
        assert game.position(position.notation) == position
        assert hash(game.position(position.notation)) == hash(position)
    assert turns > 10


@pytest.mark.parametrize("rules", ["ur", "senet"])
def test_batch_observations_are_the_single_ones(rules):
    game = sawah.Game(rules)
    rng = np.random.default_rng(3)
    samples = [(p, r) for p, r, _ in random_game(game, rng)][:50]
    batch = game.observe_batch([p for p, _ in samples], [r for _, r in samples])
    expected = np.stack([game.observe(p, r) for p, r in samples])
    assert np.array_equal(batch, expected)
    masks = game.legal_masks([p for p, _ in samples], [r for _, r in samples])
    assert np.array_equal(masks, np.stack([game.legal_mask(p, r) for p, r in samples]))
    with pytest.raises(ValueError, match="2 positions but 1 rolls"):
        game.legal_masks([samples[0][0], samples[1][0]], [1])


def test_observations_are_seen_from_the_side_to_move():
    game = sawah.Game("ur")
    position = game.position("ur light 6/2/0 7/-/0")
    as_light = game.observe(position)
    as_dark = game.observe(position, view="dark")
    mirrored = game.position("ur light 7/-/0 6/2/0")
    assert np.array_equal(as_dark, game.observe(mirrored))
    assert not np.array_equal(as_light, as_dark)


def test_start_and_first_moves_of_ur():
    game = sawah.Game("ur")
    start = game.start()
    assert start.notation == "ur light 7/-/0 7/-/0"
    assert start.turn == "light"
    assert game.action_size == 15 and game.observation_size == 60 + 5
    assert game.roll_probabilities == [1 / 16, 4 / 16, 6 / 16, 4 / 16, 1 / 16]
    assert game.legal_moves(start, 0) == []
    (move,) = game.legal_moves(start, 4)
    assert (move.from_square, move.to_square, move.action) == (0, 4, 0)
    after, extra = game.apply(start, move)
    assert extra, "square 4 is a rosette: the mover rolls again"
    assert after.turn == "light"
    assert move.to_json() == {"from": 0, "to": 4}


def test_bad_input_is_a_value_error_with_the_reason():
    with pytest.raises(ValueError, match="unknown rule set"):
        sawah.Game("chess")
    game = sawah.Game("ur")
    with pytest.raises(ValueError, match="position"):
        game.position({"rules": "ur", "turn": "light"})
    with pytest.raises(ValueError, match="cannot roll 9"):
        game.legal_moves(game.start(), 9)
    with pytest.raises(ValueError, match="not legal"):
        game.apply(game.start(), 5, 2)
    with pytest.raises(ValueError, match="needs the roll"):
        game.apply(game.start(), 0)
    senet = sawah.Game("senet")
    with pytest.raises(ValueError, match="senet's, not ur's"):
        game.legal_moves(senet.start(), 1)
    with pytest.raises(ValueError, match="not a player"):
        game.observe(game.start(), view="white")
