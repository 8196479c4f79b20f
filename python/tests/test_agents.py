"""Agents, solved tables and the solver through the bindings."""

import numpy as np
import pytest

import sawah


def test_levels_come_from_the_shipped_models():
    levels = {(rules, level): spec for rules, level, spec in sawah.levels()}
    for rules in ["sawah", "ur", "babylon", "marks-roll-only", "masters", "masters-5", "senet", "blitz", "aseb", "masters-3dice"]:
        for level in ["easy", "medium", "hard"]:
            assert (rules, level) in levels
    agent = sawah.Agent("hard", "ur")
    # The level resolves to the manifest's spec (options may come in another order).
    assert sorted(agent.spec.split(":")) == sorted(levels[("ur", "hard")].split(":"))


@pytest.mark.parametrize("rules", ["ur", "senet"])
def test_agents_choose_legal_moves_and_pass_when_nothing_moves(rules):
    game = sawah.Game(rules)
    rng = np.random.default_rng(1)
    agents = [sawah.Agent(spec, rules) for spec in ["random", "easy", "hard", "heuristic"]]
    position = game.start()
    for _ in range(60):
        if game.winner(position) is not None:
            break
        roll = int(rng.choice(len(game.roll_probabilities), p=game.roll_probabilities))
        moves = game.legal_moves(position, roll)
        for agent in agents:
            chosen = agent.choose(position, roll)
            assert (chosen is None) == (not moves)
            assert chosen is None or chosen in moves
        if moves:
            position, _ = game.apply(position, agents[2].choose(position, roll))
        else:
            position = game.pass_turn(position)
    value = agents[2].evaluate(game.start())
    assert value is not None and 0.3 < value < 0.7


def test_a_bad_spec_is_a_value_error():
    with pytest.raises(ValueError, match="chess-master"):
        sawah.Agent("chess-master", "ur")
    with pytest.raises(ValueError, match="unknown rule set"):
        sawah.Agent("hard", "draughts")
    with pytest.raises(ValueError):
        sawah.Agent("perfect:table=/nonexistent/ur.table", "ur")


def test_the_solved_table_satisfies_the_bellman_equation(ur2_table):
    path, start_value = ur2_table
    table = sawah.Table(str(path))
    assert table.rules == "ur-2"
    game = sawah.Game("ur-2")
    start = game.start()
    assert abs(table.value(start) - start_value) < 1e-6
    rng = np.random.default_rng(5)
    position = start
    checked = 0
    for _ in range(200):
        if game.winner(position) is not None:
            position = start
        expected = 0.0
        for roll, probability in enumerate(game.roll_probabilities):
            moves = game.legal_moves(position, roll)
            if moves:
                best = max(table.move_values(position, roll))
                losses = [table.loss(position, roll, m) for m in moves]
                assert min(losses) == 0.0 and all(loss >= 0 for loss in losses)
            else:
                best = 1.0 - table.value(game.pass_turn(position))
            expected += probability * best
        assert abs(table.value(position) - expected) < 1e-5
        checked += 1
        roll = int(rng.choice(5, p=game.roll_probabilities))
        moves = game.legal_moves(position, roll)
        position = game.apply(position, moves[int(rng.integers(len(moves)))])[0] if moves else game.pass_turn(position)
    assert checked == 200
    values = table.values([start, game.pass_turn(start)])
    assert values.shape == (2,) and abs(values[0] - table.value(start)) < 1e-12


def test_perfect_play_from_the_table_loses_nothing(ur2_table):
    path, _ = ur2_table
    table = sawah.Table(str(path))
    perfect = sawah.Agent(f"perfect:table={path}", "ur-2")
    game = sawah.Game("ur-2")
    position = game.start()
    for roll in range(1, 5):
        move = perfect.choose(position, roll)
        assert table.loss(position, roll, move) == 0.0


def test_a_table_refuses_a_file_that_is_not_one(tmp_path):
    bad = tmp_path / "bad.table"
    bad.write_bytes(b"not a table at all")
    with pytest.raises(ValueError, match="bad.table"):
        sawah.Table(str(bad), "ur-2")
    with pytest.raises(ValueError, match="missing.table"):
        sawah.Table(str(tmp_path / "missing.table"))
    with pytest.raises(ValueError, match="only race rule sets"):
        sawah.solve("senet", str(tmp_path / "senet.table"))
