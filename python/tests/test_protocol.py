"""The protocol through Python answers exactly as `sawah bot` does."""

import json
import subprocess

import sawah

REQUESTS = [
    {"cmd": "start", "rules": "ur"},
    {"cmd": "legal_moves", "position": "ur light 7/-/0 7/-/0", "roll": 2},
    {"cmd": "choose", "position": "ur light 7/-/0 7/-/0", "roll": 2, "bot": "hard"},
    {"cmd": "choose", "position": "senet light 1,3,5,7,9/0 2,4,6,8,10/0", "roll": 3, "bot": "medium"},
    {"cmd": "evaluate", "position": "masters light 7/-/0 7/-/0", "bot": "easy"},
    {"cmd": "list_rules"},
    {"cmd": "choose", "position": "ur light 7/-/0 7/-/0", "roll": 9, "bot": "hard"},
    {"cmd": "dance"},
    {"cmd": "hint", "position": "ur light 5/2,6/0 6/7/0", "roll": 2},
    {"cmd": "review", "game": {"rules": "ur", "moves": ["2:0-2", "0:pass", "4:0-4", "1:4-5"]}, "bot": "medium"},
    {"cmd": "review", "game": {"rules": "ur", "moves": ["2:0-9"]}},
    {"cmd": "puzzle", "rules": "masters", "rating": 250, "seed": 4},
    {"cmd": "solve_puzzle", "rules": "ur", "puzzle": "ur-eb0d40ab", "move": {"from": 11, "to": "off"}},
    {"cmd": "puzzle", "rules": "ur"},
]


def test_answers_are_dicts_and_errors_are_answers():
    answer = sawah.request({"cmd": "legal_moves", "position": "ur light 7/-/0 7/-/0", "roll": 2})
    assert [(m["from"], m["to"]) for m in answer["moves"]] == [(0, 2)]
    error = sawah.request({"cmd": "dance"})
    assert error["error"]["kind"] == "unknown_command"
    assert sawah.request("not json")["error"]["kind"] == "invalid_json"


def test_python_answers_what_sawah_bot_answers(sawah_bin):
    lines = "\n".join(json.dumps(r) for r in REQUESTS) + "\n"
    result = subprocess.run(
        [sawah_bin, "bot", "--models", _models_dir()],
        input=lines,
        capture_output=True,
        text=True,
        check=True,
    )
    expected = result.stdout.splitlines()
    bot = sawah.Bot()
    assert len(expected) == len(REQUESTS)
    for request, line in zip(REQUESTS, expected):
        assert bot.handle_line(json.dumps(request)) == line, request
        assert sawah.request(request) == json.loads(line)


def test_the_puzzle_of_the_day_is_the_one_every_front_door_gives():
    import pathlib

    fixture = json.loads(
        (pathlib.Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "daily-puzzles.json").read_text()
    )
    for rules, puzzle_id in fixture["ids"].items():
        answer = sawah.request({"cmd": "puzzle", "rules": rules, "date": fixture["date"]})
        assert answer["puzzle"]["id"] == puzzle_id, rules
    verdict = sawah.request(
        {"cmd": "solve_puzzle", "rules": "ur", "puzzle": "ur-eb0d40ab", "move": {"from": 11, "to": "off"}}
    )
    assert verdict["correct"] is True and verdict["loss_pp"] == 0


def _models_dir():
    import pathlib

    return str(pathlib.Path(__file__).resolve().parents[2] / "models")
