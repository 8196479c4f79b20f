"""A models folder made by `sawah levels build` from a rule file plays in
Python: its rule set becomes known and its hard level chooses moves."""
import pathlib
import subprocess

import pytest

import sawah

RULE_FILE = pathlib.Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "tiny-sticks.toml"


@pytest.fixture(scope="module")
def tiny_levels(sawah_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("levels") / "tiny"
    subprocess.run(
        [sawah_bin, "levels", "build", "--rules", str(RULE_FILE), "--out", str(out), "--effort", "0.02"],
        check=True,
        capture_output=True,
    )
    yield out
    sawah.use_models(None)


def test_a_built_folder_plays_its_rule_file_s_hard_level(tiny_levels):
    assert "tiny-sticks" not in sawah.rule_sets()
    assert sawah.use_models(tiny_levels) == ["tiny-sticks"]
    assert "tiny-sticks" in sawah.rule_sets()
    game = sawah.Game("tiny-sticks")
    hard = sawah.Agent("hard", "tiny-sticks", seed=1)
    assert "tiny-sticks-hard.safetensors" in hard.spec
    position = game.start()
    move = hard.choose(position, 2)
    assert move is not None
    answer = sawah.request(
        {"cmd": "choose", "bot": "hard", "roll": 2, "position": "tiny-sticks light 3/-/0 3/-/0"}
    )
    assert "move" in answer, answer
    levels = [(rules, level) for rules, level, _ in sawah.levels()]
    assert levels == [("tiny-sticks", "easy"), ("tiny-sticks", "medium"), ("tiny-sticks", "hard")]
    sawah.use_models(None)
    assert "tiny-sticks" not in sawah.rule_sets()
    assert any(rules == "ur" for rules, _, _ in sawah.levels())


def test_a_folder_that_is_not_a_models_folder_is_refused(tmp_path):
    with pytest.raises(ValueError, match="manifest.json"):
        sawah.use_models(tmp_path)
