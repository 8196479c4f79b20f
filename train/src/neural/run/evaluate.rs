//! The evaluations during a run: the network against fixed opponents in
//! paired-dice matches, the extra measures, and the learned heuristic
//! against the default one.

use crate::neural::config::TrainConfig;
use crate::neural::run::error::TrainError;
use crate::neural::run::folder::{Counters, Evaluation};
use crate::neural::run::options::RunOptions;
use crate::neural::run::seeds::mix;
use sawah_agents::AgentSpec;
use sawah_agents::heuristic::HasHeuristic;
use sawah_agents::neural::NeuralNet;
use std::path::Path;

/// The Elo difference a score stands for (`400 · log10(s / (1 − s))`),
/// `None` at 0 and 1, where it is unbounded.
pub(super) fn elo_of_score(score: f64) -> Option<f64> {
    (score > 0.0 && score < 1.0).then(|| 400.0 * (score / (1.0 - score)).log10())
}
/// The network at `model_path` (`net` in memory) evaluated as the run's
/// settings say.
pub(super) fn evaluate<G: HasHeuristic + Sync + 'static>(
    game: &G,
    model_path: &Path,
    net: &NeuralNet,
    options: &RunOptions<'_, G>,
    config: &TrainConfig,
    counters: &Counters,
) -> Result<Evaluation, TrainError> {
    let me = AgentSpec::parse(
        &format!("neural:model={}", model_path.display()),
        game.name(),
    )
    .map_err(|e| TrainError::Config(e.to_string()))?;
    let mut results = Vec::new();
    for (k, opponent) in options.opponents.iter().enumerate() {
        let spec = AgentSpec::parse(opponent, game.name())
            .map_err(|e| TrainError::Config(format!("opponent {opponent}: {e}")))?;
        let result = sawah_eval::arena::matches::play_match(
            game,
            &me.clone().into(),
            &spec.into(),
            config.eval_games,
            mix(config.seed, 0xe7a1, k as u64),
        )
        .map_err(|e| TrainError::Config(format!("opponent {opponent}: {e}")))?;
        let score = result.score();
        results.push((opponent.clone(), score.mean, score.low, score.high));
    }
    let mut measures = options
        .measures
        .map(|m| m(net, model_path))
        .unwrap_or_default();
    if config.heuristic_learning_rate > 0.0 {
        let learned = AgentSpec::parse(
            &format!(
                "expectiminimax:depth=1:weights={}",
                options.folder.heuristic().display()
            ),
            game.name(),
        )
        .map_err(|e| TrainError::Config(e.to_string()))?;
        let default = AgentSpec::parse("expectiminimax:depth=1", game.name())
            .map_err(|e| TrainError::Config(e.to_string()))?;
        let result = sawah_eval::arena::matches::play_match(
            game,
            &learned.into(),
            &default.into(),
            config.eval_games,
            mix(config.seed, 0xe7a2, 0),
        )
        .map_err(|e| TrainError::Config(format!("learned heuristic: {e}")))?;
        measures.push((
            "learned_heuristic_score_vs_default".to_string(),
            result.score().mean,
        ));
    }
    Ok(Evaluation {
        games: counters.games,
        results,
        measures,
    })
}

#[cfg(test)]
mod tests {
    use super::elo_of_score;

    #[test]
    fn scores_become_elo_differences() {
        assert_eq!(elo_of_score(0.5), Some(0.0));
        // 3 to 1 is 400 · log10(3) ≈ 190.85 Elo.
        assert!((elo_of_score(0.75).unwrap() - 190.848_501_887_864_9).abs() < 1e-9);
        assert!((elo_of_score(0.25).unwrap() + 190.848_501_887_864_9).abs() < 1e-9);
        assert_eq!(elo_of_score(0.0), None);
        assert_eq!(elo_of_score(1.0), None);
    }
}
