//! `--shards N` and `--shard-wait`, as `sawah train` and `sawah levels
//! build` both take them: a run's rounds shared out among shard processes
//! (`sawah train-shard`), which changes where games are played, never
//! what is trained (docs/training.md, "Past one machine").

/// How a training run shares its rounds out.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ShardingArgs {
    /// Share the training games (self-play, and the positions labelled by
    /// search) among N shard processes, `sawah train-shard FOLDER --shard
    /// K/N` on machines sharing the folder; the weights are the same as
    /// without (docs/training.md, "Past one machine").
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub shards: Option<u64>,
    /// With --shards: the longest to wait for a shard's share of a round
    /// (while the shard runs) before playing it here.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 600,
        requires = "shards"
    )]
    pub shard_wait: u64,
}

impl ShardingArgs {
    /// The `sawah train` arguments that pass the sharing on (none without
    /// `--shards`).
    pub fn train_arguments(&self) -> Vec<String> {
        match self.shards {
            Some(shards) => vec![
                "--shards".into(),
                shards.to_string(),
                "--shard-wait".into(),
                self.shard_wait.to_string(),
            ],
            None => Vec::new(),
        }
    }
}
