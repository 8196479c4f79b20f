#!/usr/bin/env python3
"""An outside bot on the `sawah` wheel (docs/bots.md): a one-ply search.

Every `choose` request lists the legal moves with the position each leads
to. This bot values each of those positions with the package's evaluator
(`sawah.Agent("heuristic", rules).evaluate`, the win probability of the
side to move there) and plays the move best for itself: the value as it
is when the move earns another roll, one minus it when the opponent moves
next. Install the wheel first (python/README.md), then:

    sawah check-bot py-wheel --bots examples/bots/bots.toml
"""
import json
import sys

import sawah

games = {}
evaluators = {}


def value_for_mover(rules, mover, move):
    after = move["position"]
    game = games.setdefault(rules, sawah.Game(rules))
    position = game.position(after)
    winner = game.winner(position)
    if winner is not None:
        return 1.0 if winner == mover else 0.0
    evaluator = evaluators.setdefault(rules, sawah.Agent("heuristic", rules))
    value = evaluator.evaluate(position)
    return value if after["turn"] == mover else 1.0 - value


def choose(request):
    moves = request["moves"]
    if not moves:
        return {"move": None}
    rules = request["position"]["rules"]
    mover = request["position"]["turn"]
    # The listed move as it was given: only its "from" and "to" are read.
    return {"move": max(moves, key=lambda m: value_for_mover(rules, mover, m))}


def answer(request):
    if request.get("cmd") == "hello":
        return {"name": "python-wheel", "version": sawah.__version__, "author": "sawah-ai examples"}
    if request.get("cmd") == "choose":
        return choose(request)
    return {"error": {"kind": "unknown_command", "message": "this bot only plays"}}


for line in sys.stdin:
    request = json.loads(line)
    reply = answer(request)
    if "id" in request:
        reply = {"id": request["id"], **reply}
    print(json.dumps(reply), flush=True)
