"""Sawah's ancient race games for reinforcement learning.

The rules of Twenty Squares, the Royal Game of Ur and Senet, the shipped
opponents (``easy``, ``medium``, ``hard`` and any agent spec), solved
tables with exact win probabilities, the bot protocol, and Gymnasium and
PettingZoo environments. Everything runs in the same Rust as the ``sawah``
command line, the HTTP server and the browser package.

>>> import sawah
>>> game = sawah.Game("ur")
>>> position = game.start()
>>> [m.action for m in game.legal_moves(position, 2)]
[0]
>>> request({"cmd": "legal_moves", "position": "ur light 7/-/0 7/-/0", "roll": 2})["moves"][0]["to"]
2
"""

from sawah._native import (
    Agent,
    Bot,
    Game,
    Move,
    Position,
    Table,
    levels,
    pair_seed,
    rule_sets,
    solve,
    version,
)
from sawah import _native
from sawah.scoring import Score, score

try:  # Registers the Gymnasium environment ids when Gymnasium is installed.
    import sawah.envs as _envs  # noqa: F401
except ImportError:
    pass

__version__ = version()

_default_bot = None


def request(message):
    """Answers one bot-protocol request (a dict, or JSON text) with the
    protocol's response as a dict, exactly as ``sawah bot`` answers it
    (errors are answers too: ``{"error": {"kind": ..., "message": ...}}``).
    """
    global _default_bot
    if _default_bot is None:
        _default_bot = Bot()
    return _default_bot.request(message)


def use_models(path=None):
    """Plays the levels from the models folder ``path`` from now on, as
    ``sawah --models DIR`` does: its levels, strength dial and puzzles, and
    the rule sets its rule files define, known by name (``None``: back to
    the shipped models). A folder made by ``sawah levels build`` carries
    everything needed. Returns the rule sets its rule files add. Raises
    ``ValueError`` when the folder does not load.
    """
    global _default_bot
    added = _native.use_models(None if path is None else str(path))
    _default_bot = None
    return added


def __getattr__(name):
    # The environments need gymnasium (and pettingzoo); import them lazily so
    # that the rules and agents work without either installed.
    if name in ("SawahEnv", "SawahVectorEnv"):
        from sawah import envs

        return getattr(envs, name)
    if name == "SawahAECEnv":
        from sawah import pettingzoo

        return pettingzoo.SawahAECEnv
    raise AttributeError(f"module 'sawah' has no attribute {name!r}")


__all__ = [
    "Agent",
    "Bot",
    "Game",
    "Move",
    "Position",
    "SawahAECEnv",
    "SawahEnv",
    "SawahVectorEnv",
    "Score",
    "Table",
    "levels",
    "pair_seed",
    "request",
    "rule_sets",
    "score",
    "solve",
    "version",
]
