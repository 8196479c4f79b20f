"""Scoring a Python agent: paired games against a level, and, on a solved
rule set, its loss per move against perfect play.

Each pair is two games with the same dice, the agent on light and then on
dark, so the luck of the dice cancels out; pair ``k`` of a run seeded with
``seed`` uses the dice seed ``pair_seed(seed, k)`` and seeds the opponent
as ``sawah match`` does, so an agent that plays like a CLI agent scores
what ``sawah match`` reports for it.
"""

from dataclasses import dataclass

from sawah._native import Agent, CoreEnv, Table, pair_seed, score_interval


@dataclass
class Score:
    """How an agent did: its score (0 to 1) with a 95% interval over pairs,
    its wins and losses, and with a table its mean loss per decision in
    percentage points of win probability (the unit of loss per move in
    every report of this project)."""

    rules: str
    opponent: str
    games: int
    wins: int
    losses: int
    score: float
    low: float
    high: float
    decisions: int = 0
    mean_loss_pp: float | None = None

    def __str__(self):
        text = (
            f"{self.score:.3f} [{self.low:.3f}, {self.high:.3f}] against {self.opponent} on {self.rules} "
            f"over {self.games} games ({self.wins} won, {self.losses} lost)"
        )
        if self.mean_loss_pp is not None:
            text += f"; mean loss {self.mean_loss_pp:.3f} points per decision over {self.decisions} decisions"
        return text


def _act(policy, core):
    if isinstance(policy, Agent):
        return policy.choose_action(core.position, core.roll)
    return int(policy(core.observe(), core.action_mask()))


def score(policy, rules="ur", opponent="hard", pairs=100, seed=0, table=None):
    """Plays ``policy`` against ``opponent`` in ``pairs`` pairs of games.

    ``policy`` is a ``sawah.Agent`` or a callable ``(observation,
    action_mask) -> action`` (observations as the environments give them).
    With ``table`` (a ``sawah.Table`` or a path to one), every decision's
    loss against perfect play is measured as well. An illegal action loses
    its game.
    """
    if pairs < 1:
        raise ValueError("pairs must be at least 1")
    if table is not None and not isinstance(table, Table):
        table = Table(str(table), rules)
    core = CoreEnv(rules, opponent, "lose")
    pair_scores, wins, losses = [], 0, 0
    decisions, total_loss = 0, 0.0
    for k in range(pairs):
        dice_seed = pair_seed(seed, k)
        pair_score = 0.0
        for seat in ("light", "dark"):
            core.reset(dice_seed, seat)
            while core.status == "playing":
                action = _act(policy, core)
                if table is not None and action in core.legal_actions():
                    total_loss += table.loss(core.position, core.roll, action)
                    decisions += 1
                core.step(action)
            if core.winner == seat:
                wins += 1
                pair_score += 0.5
            elif core.winner is not None:
                losses += 1
            else:
                pair_score += 0.25
        pair_scores.append(pair_score)
    mean, low, high = score_interval(pair_scores)
    return Score(
        rules=rules,
        opponent=opponent,
        games=2 * pairs,
        wins=wins,
        losses=losses,
        score=mean,
        low=low,
        high=high,
        decisions=decisions,
        mean_loss_pp=(100 * total_loss / decisions) if decisions else (0.0 if table is not None else None),
    )
