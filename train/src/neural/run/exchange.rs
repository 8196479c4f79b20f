//! A run's self-play shared out to other processes, on this machine or on
//! others (a Slurm job array, a Kubernetes Indexed Job), through files in
//! the run folder's `exchange/` on storage they share.
//!
//! Round by round: the learner publishes the network that plays round r
//! (`round-R.weights`); shard K of N plays its share of round r's games (a
//! fixed, contiguous range of game numbers, each game seeded by its number
//! as on one machine, [`share`]) and writes their samples
//! (`round-R.shard-K-of-N.samples`); the learner reads the shares in game
//! order. So the samples are the ones a one-machine run plays, sample for
//! sample, and the trained weights are the same to the bit.
//!
//! Nothing waits without bound. Each shard beats (`shard-K-of-N.alive`, a
//! counter it raises every second) while it runs; the learner waits for a
//! share only while its shard's beat moves (or, for a shard not heard from
//! yet, during the run's first [`BEAT_TIMEOUT`]), at most `wait` after
//! publishing, and plays any share that has not come itself (said at the
//! end). A shard that starts late joins at the next round. A lost, slow or never-started shard costs time, never the result.
//! A samples file is read only whole (written atomically), with a header
//! naming the rule set, round, share and the SHA-256 of the weights that
//! played it; one that does not match is left out and its share played
//! again, never merged.

use super::error::{TrainError, file_error, write_atomically};
use crate::neural::selfplay::Sample;
use sawah_eval::arena::tournament::Shard;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The folder in a run folder where the rounds are exchanged.
pub const EXCHANGE_FOLDER: &str = "exchange";
/// The exchange's description, written by the learner.
const DESCRIPTION_FILE: &str = "exchange.json";
/// Written by the learner when the run has ended: its shards stop.
const FINISHED_FILE: &str = "finished";
/// What the description's `format` says.
pub const DESCRIPTION_FORMAT: &str = "sawah-exchange";
/// The description format this build reads and writes.
pub const DESCRIPTION_VERSION: u32 = 1;
/// The first bytes of a samples file.
pub const SAMPLES_MAGIC: &[u8; 8] = b"SAWAHSMP";
/// The samples file format this build reads and writes.
pub const SAMPLES_VERSION: u32 = 1;
/// The last bytes of a samples file (a file cut short is refused).
const SAMPLES_END: &[u8; 8] = b"SMPLSEND";
/// The largest samples file read (a round of 200 games of expert iteration
/// on a long route is about 50 MB).
pub const MAX_SAMPLES_BYTES: u64 = 2 << 30;
/// The largest description or weights file read.
const MAX_SMALL_FILE_BYTES: u64 = 64 << 20;
/// How long a shard's beat may stand still before the learner stops
/// waiting for its share.
pub const BEAT_TIMEOUT: Duration = Duration::from_secs(20);
/// How often the learner looks for shares.
const POLL: Duration = Duration::from_millis(50);

/// What a shard needs to know besides the run's own record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Description {
    /// Always [`DESCRIPTION_FORMAT`].
    pub format: String,
    /// Always [`DESCRIPTION_VERSION`].
    pub format_version: u32,
    /// The rule set.
    pub rules: String,
    /// A race rule set's description, so that a shard plays a rule file's
    /// rule set without the file.
    pub rules_spec: Option<sawah_engine::race::RuleSpec>,
    /// How many shards share each round.
    pub shards: u64,
    /// Games a round.
    pub games_per_round: u64,
}

/// The games of a round that shard `shard` plays: a contiguous range, the
/// ranges of shards 1 to N in order covering `0..games` once.
pub fn share(games: u64, shard: Shard) -> Range<u64> {
    let at = |k: u64| (u128::from(games) * u128::from(k) / u128::from(shard.count)) as u64;
    at(shard.index - 1)..at(shard.index)
}

/// The exchange folder of the run folder `run`.
pub fn folder_of(run: &Path) -> PathBuf {
    run.join(EXCHANGE_FOLDER)
}

fn weights_path(dir: &Path, round: u64) -> PathBuf {
    dir.join(format!("round-{round:06}.weights"))
}

/// Where shard `shard` writes its share of `round`.
pub fn samples_path(dir: &Path, round: u64, shard: Shard) -> PathBuf {
    dir.join(format!(
        "round-{round:06}.shard-{}-of-{}.samples",
        shard.index, shard.count
    ))
}

/// Where shard `shard` beats.
pub fn beat_path(dir: &Path, shard: Shard) -> PathBuf {
    dir.join(format!("shard-{}-of-{}.alive", shard.index, shard.count))
}

/// Whether the learner of the exchange in `dir` has finished.
pub fn finished(dir: &Path) -> bool {
    dir.join(FINISHED_FILE).exists()
}

/// Says the exchange in `dir` has finished (its shards stop), or, with
/// `done` false, that it has not.
pub fn mark_finished(dir: &Path, done: bool) -> Result<(), TrainError> {
    let path = dir.join(FINISHED_FILE);
    if done {
        std::fs::create_dir_all(dir).map_err(|e| file_error(dir, e))?;
        write_atomically(&path, b"finished\n")
    } else if path.exists() {
        std::fs::remove_file(&path).map_err(|e| file_error(&path, e))
    } else {
        Ok(())
    }
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, TrainError> {
    sawah_engine::files::read_bounded(path, limit).map_err(|e| file_error(path, e))
}

/// Reads the exchange's description.
pub fn read_description(dir: &Path) -> Result<Description, TrainError> {
    let path = dir.join(DESCRIPTION_FILE);
    let bytes = read_bounded(&path, MAX_SMALL_FILE_BYTES)?;
    let description: Description =
        serde_json::from_slice(&bytes).map_err(|e| file_error(&path, e))?;
    if description.format != DESCRIPTION_FORMAT || description.format_version != DESCRIPTION_VERSION
    {
        return Err(file_error(
            &path,
            format!(
                "format {:?} version {}; this build reads {DESCRIPTION_FORMAT:?} version {DESCRIPTION_VERSION}",
                description.format, description.format_version
            ),
        ));
    }
    if description.shards == 0 {
        return Err(file_error(&path, "shards is 0"));
    }
    Ok(description)
}

/// The newest round whose weights the learner has published, with the
/// weights' bytes, or `None`.
pub fn newest_round(dir: &Path) -> Result<Option<(u64, Vec<u8>)>, TrainError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    let newest = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("round-")?
                .strip_suffix(".weights")?
                .parse::<u64>()
                .ok()
        })
        .max();
    let Some(round) = newest else {
        return Ok(None);
    };
    // The learner removes a round's weights once it has its samples: gone
    // between the listing and the read is a round already over.
    match sawah_engine::files::read_bounded(&weights_path(dir, round), MAX_SMALL_FILE_BYTES) {
        Ok(bytes) => Ok(Some((round, bytes))),
        Err(_) => Ok(None),
    }
}

/// What identifies a share: it is merged only where all of it matches.
#[derive(Clone, Debug, PartialEq)]
pub struct ShareHeader {
    /// The rule set.
    pub rules: String,
    /// The round.
    pub round: u64,
    /// The shard that played it.
    pub shard: Shard,
    /// The games it holds.
    pub games: Range<u64>,
    /// The SHA-256 (hex) of the weights that played them.
    pub weights_sha256: String,
}

/// A share's samples as a file's bytes: magic, version, header, the
/// samples, an end mark.
pub fn encode_samples(header: &ShareHeader, samples: &[Sample]) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + samples.len() * 64);
    out.extend_from_slice(SAMPLES_MAGIC);
    out.extend_from_slice(&SAMPLES_VERSION.to_le_bytes());
    let text = |out: &mut Vec<u8>, s: &str| {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    };
    text(&mut out, &header.rules);
    for n in [
        header.round,
        header.shard.index,
        header.shard.count,
        header.games.start,
        header.games.end,
    ] {
        out.extend_from_slice(&n.to_le_bytes());
    }
    text(&mut out, &header.weights_sha256);
    out.extend_from_slice(&(samples.len() as u64).to_le_bytes());
    for sample in samples {
        out.extend_from_slice(&(sample.active.len() as u32).to_le_bytes());
        for &a in &sample.active {
            out.extend_from_slice(&a.to_le_bytes());
        }
        out.extend_from_slice(&sample.target.to_le_bytes());
        out.extend_from_slice(&sample.predicted.to_le_bytes());
        out.extend_from_slice(&(sample.features.len() as u32).to_le_bytes());
        for &f in &sample.features {
            out.extend_from_slice(&f.to_le_bytes());
        }
    }
    out.extend_from_slice(SAMPLES_END);
    out
}

/// Reads bytes front to back, every read checked against what is left.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.bytes.len() < n {
            return Err("cut short".into());
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().map_err(|_| "cut short")?,
        ))
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().map_err(|_| "cut short")?,
        ))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().map_err(|_| "cut short")?,
        ))
    }
    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_bits(self.u32()?))
    }
    /// A length of items of `size` bytes each, refused when the bytes left
    /// cannot hold them (so a damaged length allocates nothing).
    fn len(&mut self, size: usize) -> Result<usize, String> {
        let n = self.u32()? as usize;
        if n.saturating_mul(size) > self.bytes.len() {
            return Err(format!("a length of {n} past the end"));
        }
        Ok(n)
    }
    fn text(&mut self) -> Result<String, String> {
        let n = self.len(1)?;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| "text that is not UTF-8".into())
    }
}

/// Reads a share's bytes, refusing any that are not the share `expected`
/// names (another rule set, round, range or network).
pub fn decode_samples(bytes: &[u8], expected: &ShareHeader) -> Result<Vec<Sample>, String> {
    let mut r = Reader { bytes };
    if r.take(8).ok() != Some(SAMPLES_MAGIC.as_slice()) {
        return Err("not a samples file (no SAWAHSMP magic)".into());
    }
    let version = r.u32()?;
    if version != SAMPLES_VERSION {
        return Err(format!(
            "samples format version {version}; this build reads {SAMPLES_VERSION}"
        ));
    }
    let rules = r.text()?;
    let [round, index, count, start, end] = [r.u64()?, r.u64()?, r.u64()?, r.u64()?, r.u64()?];
    let weights_sha256 = r.text()?;
    let found = ShareHeader {
        rules,
        round,
        shard: Shard { index, count },
        games: start..end,
        weights_sha256,
    };
    if found != *expected {
        return Err(format!(
            "holds {} round {} games {}..{} of shard {}/{} played by weights {}, not the share expected ({} round {} games {}..{} of shard {}/{} by weights {})",
            found.rules,
            found.round,
            found.games.start,
            found.games.end,
            found.shard.index,
            found.shard.count,
            found.weights_sha256,
            expected.rules,
            expected.round,
            expected.games.start,
            expected.games.end,
            expected.shard.index,
            expected.shard.count,
            expected.weights_sha256
        ));
    }
    let count = r.u64()?;
    // Every sample takes at least 16 bytes.
    if count.saturating_mul(16) > r.bytes.len() as u64 {
        return Err(format!("{count} samples past the end"));
    }
    let mut samples = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let n = r.len(2)?;
        let active = (0..n).map(|_| r.u16()).collect::<Result<Vec<_>, _>>()?;
        let target = r.f32()?;
        let predicted = r.f32()?;
        let n = r.len(4)?;
        let features = (0..n).map(|_| r.f32()).collect::<Result<Vec<_>, _>>()?;
        samples.push(Sample {
            active,
            target,
            predicted,
            features,
        });
    }
    if r.take(8)? != SAMPLES_END.as_slice() || !r.bytes.is_empty() {
        return Err("no end mark where the samples end".into());
    }
    Ok(samples)
}

/// Writes a share's samples atomically.
pub fn write_samples(
    path: &Path,
    header: &ShareHeader,
    samples: &[Sample],
) -> Result<(), TrainError> {
    write_atomically(path, &encode_samples(header, samples))
}

/// How the rounds of a run were shared, for the log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shares {
    /// Shares the shards played.
    pub from_shards: u64,
    /// Shares the learner played itself (no shard in time, or a file that
    /// did not match).
    pub played_here: u64,
}

/// The learner's side of an exchange.
pub struct Exchange {
    dir: PathBuf,
    description: Description,
    wait: Duration,
    opened: Instant,
    /// Each shard's last beat seen, and when it was first seen (learner's
    /// clock: machines' clocks may differ).
    beats: std::sync::Mutex<BTreeMap<u64, (Vec<u8>, Instant)>>,
}

impl Exchange {
    /// Opens the exchange of the run folder `run` afresh: rounds left by
    /// an earlier process are removed (the learner publishes again from
    /// its checkpoint), the description written.
    pub fn open(
        run: &Path,
        description: Description,
        wait: Duration,
    ) -> Result<Exchange, TrainError> {
        let dir = folder_of(run);
        if dir.exists() {
            for entry in std::fs::read_dir(&dir).map_err(|e| file_error(&dir, e))? {
                let path = entry.map_err(|e| file_error(&dir, e))?.path();
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                if name.is_some_and(|n| n.starts_with("round-") || n == FINISHED_FILE) {
                    std::fs::remove_file(&path).map_err(|e| file_error(&path, e))?;
                }
            }
        }
        std::fs::create_dir_all(&dir).map_err(|e| file_error(&dir, e))?;
        let text = serde_json::to_string_pretty(&description)
            .map_err(|e| TrainError::Config(e.to_string()))?;
        write_atomically(&dir.join(DESCRIPTION_FILE), text.as_bytes())?;
        Ok(Exchange {
            dir,
            description,
            wait,
            opened: Instant::now(),
            beats: std::sync::Mutex::new(BTreeMap::new()),
        })
    }

    /// Round `round`'s samples: publishes `weights` (the network that
    /// plays it), gathers the shards' shares in game order, and plays with
    /// `play` each share that did not come (none while a shard beats and
    /// the wait lasts).
    pub fn round(
        &self,
        round: u64,
        weights: &[u8],
        play: impl Fn(Range<u64>) -> Vec<Sample>,
    ) -> Result<(Vec<Sample>, Shares), TrainError> {
        let published = Instant::now();
        write_atomically(&weights_path(&self.dir, round), weights)?;
        let sha = sha256_hex(weights);
        let count = self.description.shards;
        let shards: Vec<Shard> = (1..=count).map(|index| Shard { index, count }).collect();
        let header = |shard: Shard| ShareHeader {
            rules: self.description.rules.clone(),
            round,
            shard,
            games: share(self.description.games_per_round, shard),
            weights_sha256: sha.clone(),
        };
        let mut got: BTreeMap<u64, Vec<Sample>> = BTreeMap::new();
        let mut beats = self
            .beats
            .lock()
            .map_err(|_| TrainError::Config("the exchange's beats were poisoned".into()))?;
        let mut given_up: Vec<u64> = Vec::new();
        loop {
            for &shard in &shards {
                if got.contains_key(&shard.index) || given_up.contains(&shard.index) {
                    continue;
                }
                let path = samples_path(&self.dir, round, shard);
                if path.exists() {
                    let read = read_bounded(&path, MAX_SAMPLES_BYTES)
                        .map_err(|e| e.to_string())
                        .and_then(|bytes| decode_samples(&bytes, &header(shard)));
                    match read {
                        Ok(samples) => {
                            got.insert(shard.index, samples);
                        }
                        Err(why) => {
                            eprintln!(
                                "{}: {why}; the learner plays that share itself",
                                path.display()
                            );
                            given_up.push(shard.index);
                        }
                    }
                    continue;
                }
                // Waiting only while the shard's beat moves, or, for a
                // shard not heard from yet, in the first moments of the
                // run (shards started with the learner).
                // A beat is a counter: a file past a few bytes is not one
                // and counts as no beat.
                let beat = sawah_engine::files::read_bounded(&beat_path(&self.dir, shard), 64)
                    .unwrap_or_default();
                let now = Instant::now();
                let alive = if beat.is_empty() {
                    !beats.contains_key(&shard.index)
                        && now.duration_since(self.opened) < BEAT_TIMEOUT
                } else {
                    let entry = beats.entry(shard.index).or_insert((beat.clone(), now));
                    if entry.0 != beat {
                        *entry = (beat, now);
                    }
                    now.duration_since(entry.1) < BEAT_TIMEOUT
                };
                if !alive || published.elapsed() >= self.wait {
                    given_up.push(shard.index);
                }
            }
            if got.len() + given_up.len() == shards.len() {
                break;
            }
            std::thread::sleep(POLL);
        }
        let mut samples = Vec::new();
        let mut shares = Shares::default();
        for shard in shards {
            match got.remove(&shard.index) {
                Some(share) => {
                    samples.extend(share);
                    shares.from_shards += 1;
                }
                None => {
                    samples.extend(play(share(self.description.games_per_round, shard)));
                    shares.played_here += 1;
                }
            }
            let _ = std::fs::remove_file(samples_path(&self.dir, round, shard));
        }
        let _ = std::fs::remove_file(weights_path(&self.dir, round));
        Ok((samples, shares))
    }

    /// Says the run has ended: its shards stop.
    pub fn finish(&self) -> Result<(), TrainError> {
        mark_finished(&self.dir, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn header() -> ShareHeader {
        ShareHeader {
            rules: "ur-2".into(),
            round: 7,
            shard: Shard { index: 2, count: 3 },
            games: 4..8,
            weights_sha256: "ab".repeat(32),
        }
    }

    fn sample(k: u16) -> Sample {
        Sample {
            active: vec![k, k + 3],
            target: 0.25 + f32::from(k),
            predicted: f32::from_bits(0x3f12_3456 + u32::from(k)),
            features: vec![1.5, -0.0],
        }
    }

    #[test]
    fn shares_cover_the_games_once_in_order() {
        for games in [0, 1, 7, 200, 201] {
            for count in 1..=9 {
                let mut next = 0;
                for index in 1..=count {
                    let range = share(games, Shard { index, count });
                    assert_eq!(range.start, next);
                    next = range.end;
                }
                assert_eq!(next, games);
            }
        }
    }

    #[test]
    fn a_share_reads_back_bit_for_bit_and_only_as_the_share_it_is() {
        let samples: Vec<Sample> = (0..5).map(sample).collect();
        let bytes = encode_samples(&header(), &samples);
        let read = decode_samples(&bytes, &header()).unwrap();
        assert_eq!(read.len(), 5);
        for (a, b) in read.iter().zip(&samples) {
            assert_eq!(a.active, b.active);
            assert_eq!(a.target.to_bits(), b.target.to_bits());
            assert_eq!(a.predicted.to_bits(), b.predicted.to_bits());
            assert_eq!(
                a.features.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
                b.features.iter().map(|f| f.to_bits()).collect::<Vec<_>>()
            );
        }
        let mut other = header();
        other.weights_sha256 = "cd".repeat(32);
        let error = decode_samples(&bytes, &other).err().unwrap();
        assert!(error.contains("not the share expected"), "{error}");
        let error = decode_samples(&bytes[..bytes.len() - 3], &header())
            .err()
            .unwrap();
        assert!(
            error.contains("cut short") || error.contains("end"),
            "{error}"
        );
        let error = decode_samples(b"SAWAHSMQ", &header()).err().unwrap();
        assert!(error.contains("magic"), "{error}");
    }

    proptest! {
        /// Any bytes are refused or read, never a panic or a huge
        /// allocation; a cut or changed byte of a real file never reads as
        /// other samples silently unless it is a sample's own value.
        #[test]
        fn damaged_share_files_are_refused_not_panicked_on(
            cut in 0usize..400,
            flip in 0usize..400,
            bit in 0u8..8,
        ) {
            let samples: Vec<Sample> = (0..4).map(sample).collect();
            let bytes = encode_samples(&header(), &samples);
            let cut = cut.min(bytes.len());
            prop_assert!(decode_samples(&bytes[..cut], &header()).is_err() || cut == bytes.len());
            let mut changed = bytes.clone();
            let at = flip % changed.len();
            changed[at] ^= 1 << bit;
            let _ = decode_samples(&changed, &header());
        }
    }

    #[test]
    fn the_learner_plays_a_share_no_shard_beats_for_and_merges_in_game_order() {
        let run = std::env::temp_dir().join(format!("sawah-exchange-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&run);
        let description = Description {
            format: DESCRIPTION_FORMAT.into(),
            format_version: DESCRIPTION_VERSION,
            rules: "ur-2".into(),
            rules_spec: None,
            shards: 3,
            games_per_round: 6,
        };
        let exchange = Exchange::open(&run, description, Duration::from_secs(60)).unwrap();
        let dir = folder_of(&run);
        assert_eq!(read_description(&dir).unwrap().shards, 3);
        let weights = b"weights".to_vec();
        // Shard 2 has delivered round 0 already; shards 1 and 3 never beat.
        let shard = Shard { index: 2, count: 3 };
        let mut given = header();
        given.round = 0;
        given.shard = shard;
        given.games = share(6, shard);
        given.weights_sha256 = sha256_hex(&weights);
        write_samples(
            &samples_path(&dir, 0, shard),
            &given,
            &[sample(20), sample(30)],
        )
        .unwrap();
        // No beat and past the first moments: no wait.
        let exchange = Exchange {
            opened: Instant::now() - BEAT_TIMEOUT,
            ..exchange
        };
        let started = Instant::now();
        let (samples, shares) = exchange
            .round(0, &weights, |games| {
                games.map(|g| sample(g as u16 * 10)).collect()
            })
            .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no wait without a beat"
        );
        assert_eq!(
            shares,
            Shares {
                from_shards: 1,
                played_here: 2
            }
        );
        let order: Vec<u16> = samples.iter().map(|s| s.active[0]).collect();
        assert_eq!(order, [0, 10, 20, 30, 40, 50]);
        assert!(
            newest_round(&dir).unwrap().is_none(),
            "the round is cleared"
        );
        assert!(!finished(&dir));
        exchange.finish().unwrap();
        assert!(finished(&dir));
        std::fs::remove_dir_all(&run).unwrap();
    }
}
