#!/usr/bin/env python3
"""A complete outside bot in the standard library alone (docs/bots.md).

It reads one JSON request per line on stdin and writes one JSON answer per
line on stdout. Every `choose` request lists the legal moves with the
position each leads to, so the bot needs no rules engine: this one prefers
a move that bears a piece off, then one that earns another roll, then one
that captures (the opponent has fewer pieces on the board after it), and
otherwise picks at random, seeded by the request so games replay.
"""
import json
import random
import sys


def on_board(side):
    return len(side["squares"])


def choose(request):
    moves = request["moves"]
    if not moves:
        return {"move": None}
    mover = request["position"]["turn"]
    opponent = "dark" if mover == "light" else "light"

    def score(move):
        after = move["position"]
        bears_off = move["to"] == "off"
        captures = on_board(after[opponent]) < on_board(request["position"][opponent])
        return (bears_off, move["extra_roll"], captures)

    best = max(score(m) for m in moves)
    ties = [m for m in moves if score(m) == best]
    rng = random.Random(f"{request.get('seed', 0)}/{request.get('game_id')}/{request.get('turn')}")
    # The listed move is sent back as it was given: the harness reads its
    # "from" and "to" and ignores the rest ({"from":…,"to":…} alone works too).
    return {"move": rng.choice(ties)}


def answer(request):
    cmd = request.get("cmd")
    if cmd == "hello":
        return {"name": "python-stdlib", "version": "1.0", "author": "sawah-ai examples"}
    if cmd == "choose":
        return choose(request)
    return {"error": {"kind": "unknown_command", "message": f"this bot only plays: {cmd!r}"}}


for line in sys.stdin:
    request = json.loads(line)
    reply = answer(request)
    if "id" in request:
        reply = {"id": request["id"], **reply}
    print(json.dumps(reply), flush=True)
