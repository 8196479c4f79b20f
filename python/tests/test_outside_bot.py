"""The example bot on this wheel (examples/bots/python_wheel.py), entered as
an outside bot into a short tournament of the native harness against random
and easy (docs/bots.md): every game played, no forfeit, its hello recorded.
"""

import json
import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]


def test_the_wheel_example_bot_plays_random_and_easy_without_a_forfeit(sawah_bin, tmp_path):
    bot = REPOSITORY / "examples" / "bots" / "python_wheel.py"
    bots = tmp_path / "bots.toml"
    bots.write_text(
        f"[[bot]]\nname = \"py-wheel\"\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(bot))}]\n"
    )
    out = tmp_path / "t"
    run = subprocess.run(
        [sawah_bin, "tournament", "--rules", "ur-2", "--agents", "py-wheel,random,easy",
         "--games", "20", "--out", str(out), "--bots", str(bots)],
        capture_output=True, text=True, check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    lines = (out / "results.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    assert header["identities"][0]["name"] == "python-wheel"
    games = [json.loads(line) for line in lines[1:]]
    assert len(games) == 60
    assert [g for g in games if "failure" in g] == []
    wins = sum(
        1 for g in games
        if g["winner"] is not None and g[g["winner"]] == "py-wheel"
    )
    # One ply of search wins more than it loses against random and easy on ur-2.
    assert wins > 20, wins
