//! A dense, bijective index of the valid positions of a rule set, with the
//! side to move normalised: a position with dark to move is indexed as its
//! colour-flipped twin (light to move), whose value for the side to move is
//! the same. Values of every position then live in one flat array.
//!
//! Layout: positions are grouped by the two borne-off counts (a *layer*:
//! mover's `s_m`, opponent's `s_o`), then by how many pieces each side has
//! on its private squares and on the shared cells (`k_m, m_m, k_o, m_o`).
//! Inside such a block the index is mixed-radix over four combination ranks
//! (combinatorial number system, colex order): the mover's private squares,
//! the opponent's private squares, the mover's shared cells, and the
//! opponent's shared cells among those the mover leaves free. Ranking costs a
//! few table look-ups per piece: no hash maps, no search.

mod layers;
pub(super) mod successors;

pub use layers::{LayerPair, LayerSet, LayerSetError};

use super::position::{Position, Side};
use super::rules::RuleSet;
use crate::combinatorics::{binomial, colex_rank, colex_unrank, combinations};
use crate::player::Player;

/// Where one layer sits in the index.
#[derive(Clone, Debug)]
struct Layer {
    /// First index of the layer.
    start: u64,
    /// Positions in the layer.
    len: u64,
}

/// The dense index of one rule set.
#[derive(Clone, Debug)]
pub struct PositionIndex {
    pieces: u32,
    /// Squares private to the mover (light's numbering), ascending.
    private_mover: u32,
    /// Squares private to the opponent (dark's numbering).
    private_opponent: u32,
    /// Light's shared squares (light's numbering): the shared cells.
    shared: u32,
    /// Dark's shared squares (dark's numbering).
    shared_opponent: u32,
    /// The number of shared cells and of the opponent's private squares
    /// (counted once: ranking is the solver's hot path).
    cells: u32,
    private_opponent_count: usize,
    /// layers[s_m][s_o] (None for both borne off: not a valid position).
    layers: Vec<Vec<Option<Layer>>>,
    /// The index of each block's first position, for every layer in one
    /// table (one look-up from a position's ranks: the Bellman passes rank
    /// every successor): layer `(s_m, s_o)`'s block
    /// `((k_m * (P+1) + m_m) * (P+1) + k_o) * (P+1) + m_o` at
    /// `(s_m * (P+1) + s_o) * (P+1)^4` plus that; `u64::MAX` for the layer
    /// where both have borne off, which holds no position.
    block_offsets: Vec<u64>,
    total: u64,
    rules: RuleSet,
    /// Look-up tables that rank a position without bit loops, when the
    /// rule set's masks are small enough (every named rule set).
    fast: Option<Box<FastRank>>,
}

/// Table look-ups that do [`PositionIndex::index_of_sides`]'s bit work: the
/// solver's Bellman passes rank every successor of every position, so this
/// is its hot path (`cargo bench -p sawah-engine --bench movegen -- index`).
/// Checked against the bit loops on every preset's positions.
#[derive(Clone, Debug)]
struct FastRank {
    /// Bytes of a side's squares that can hold pieces.
    bytes: usize,
    /// `mover[k][b]`: byte `k` of the mover's squares holding `b`, as its
    /// private squares packed (low 16 bits) and its shared cells packed
    /// (high 16 bits). Packing is bitwise, so a side's bytes OR together.
    mover: Vec<[u32; 256]>,
    /// `opponent[k][b]`: the same for the opponent's squares in its own
    /// numbering: its private squares packed (low), and the cells of its
    /// shared squares in the mover's numbering, packed (high).
    opponent: Vec<[u32; 256]>,
    /// `ranks[set] = colex rank << 8 | size`, for every packed set.
    ranks: Vec<u32>,
    /// `among[free6 << 6 | cells6] = compress(cells6, free6) | popcount(free6) << 8`,
    /// for packing the opponent's cells among the free ones six cells at a time.
    among: Vec<u16>,
    /// `mover_square[s]`: square `s` alone, packed as the mover's (0 for a
    /// square no piece stands on: 0 for entering, L+1 for borne off). A
    /// move changes one piece, so a successor's packing is its position's
    /// with one square's bit swapped for another's (`successors`).
    mover_square: [u32; 32],
    /// The same as the opponent's, in its own numbering.
    opponent_square: [u32; 32],
}

/// The cells of a 6-cell chunk (see [`FastRank::among`]).
const CHUNK: u32 = 6;

impl FastRank {
    /// The tables for an index's masks; `None` when a mask is too wide.
    fn new(index: &PositionIndex) -> Option<FastRank> {
        let widest = [index.private_mover, index.private_opponent, index.shared]
            .iter()
            .map(|m| m.count_ones())
            .max()?;
        if widest > 16 {
            return None;
        }
        let used =
            index.private_mover | index.shared | index.private_opponent | index.shared_opponent;
        let bytes = (32 - used.leading_zeros()).div_ceil(8) as usize;
        let tables = &index.rules.tables.light;
        let byte_tables = |side: &dyn Fn(u32) -> u32| -> Vec<[u32; 256]> {
            (0..bytes)
                .map(|k| std::array::from_fn(|b| side((b as u32) << (8 * k))))
                .collect()
        };
        let mover = byte_tables(&|squares| {
            compress(squares, index.private_mover) | compress(squares, index.shared) << 16
        });
        let opponent = byte_tables(&|squares| {
            let cells = tables.opponent_in_my_numbering(squares & index.shared_opponent);
            compress(squares, index.private_opponent) | compress(cells, index.shared) << 16
        });
        let ranks = (0..1u32 << widest)
            .map(|set| (colex_rank(set) as u32) << 8 | set.count_ones())
            .collect();
        let among = (0..1u32 << (2 * CHUNK))
            .map(|entry| {
                let (free, cells) = (entry >> CHUNK, entry & ((1 << CHUNK) - 1));
                (compress(cells, free) | free.count_ones() << 8) as u16
            })
            .collect();
        let square = |tables: &[[u32; 256]]| -> [u32; 32] {
            std::array::from_fn(|s| tables.get(s / 8).map_or(0, |table| table[1 << (s % 8)]))
        };
        Some(FastRank {
            bytes,
            mover_square: square(&mover),
            opponent_square: square(&opponent),
            mover,
            opponent,
            ranks,
            among,
        })
    }

    /// A side's squares packed as the mover's: its private squares (low 16
    /// bits) and its shared cells (high 16 bits).
    #[inline]
    fn as_mover(&self, squares: u32) -> u32 {
        (0..self.bytes).fold(0, |m, k| {
            m | self.mover[k][(squares >> (8 * k) & 0xff) as usize]
        })
    }

    /// A side's squares (in its own numbering) packed as the opponent's: its
    /// private squares (low 16 bits) and the shared cells it stands on, in
    /// the mover's numbering (high 16 bits).
    #[inline]
    fn as_opponent(&self, squares: u32) -> u32 {
        (0..self.bytes).fold(0, |o, k| {
            o | self.opponent[k][(squares >> (8 * k) & 0xff) as usize]
        })
    }

    /// `(mover's private, mover's shared, opponent's private, opponent's
    /// shared among the free cells)`, each packed.
    #[inline]
    fn packed(&self, mover: u32, opponent: u32, cells: u32) -> [u32; 4] {
        self.sets(self.as_mover(mover), self.as_opponent(opponent), cells)
    }

    /// [`FastRank::packed`] from the two sides' packings ([`FastRank::as_mover`],
    /// [`FastRank::as_opponent`]).
    #[inline]
    fn sets(&self, m: u32, o: u32, cells: u32) -> [u32; 4] {
        let (sh_m, sh_o_cells) = (m >> 16, o >> 16);
        let free = free_cells(sh_m, cells);
        let (mut sh_o, mut shift, mut chunk) = (0, 0, 0);
        while chunk < cells {
            let f = free >> chunk & ((1 << CHUNK) - 1);
            let x = sh_o_cells >> chunk & ((1 << CHUNK) - 1);
            let entry = u32::from(self.among[(f << CHUNK | x) as usize]);
            sh_o |= (entry & 0xff) << shift;
            shift += entry >> 8;
            chunk += CHUNK;
        }
        [m & 0xffff, sh_m, o & 0xffff, sh_o]
    }

    /// A packed set's colex rank and size.
    #[inline]
    fn rank(&self, set: u32) -> (u64, usize) {
        let entry = self.ranks[set as usize];
        (u64::from(entry >> 8), (entry & 0xff) as usize)
    }
}

/// The shared cells (of `cells`, packed) that the mover's (`sh_m`) leave
/// free: where the opponent's are ranked among.
#[inline]
fn free_cells(sh_m: u32, cells: u32) -> u32 {
    !sh_m & ((1u64 << cells) - 1) as u32
}

/// `value`'s bits at the positions of `mask`, packed to the low end (like BMI2 `pext`).
#[inline]
fn compress(value: u32, mask: u32) -> u32 {
    let mut out = 0;
    let mut bits = value & mask;
    while bits != 0 {
        let bit = bits.trailing_zeros();
        out |= 1 << (mask & ((1u32 << bit) - 1)).count_ones();
        bits &= bits - 1;
    }
    out
}

/// The inverse of [`compress`]: packed bits spread onto the positions of `mask`.
#[inline]
fn expand(packed: u32, mask: u32) -> u32 {
    let mut out = 0;
    let mut m = mask;
    let mut i = 0;
    while m != 0 {
        let bit = m.trailing_zeros();
        if packed >> i & 1 != 0 {
            out |= 1 << bit;
        }
        m &= m - 1;
        i += 1;
    }
    out
}

impl PositionIndex {
    /// The index of a rule set's positions.
    pub fn new(rules: &RuleSet) -> PositionIndex {
        PositionIndex::of_layers(rules, &LayerSet::whole(rules.pieces()))
    }

    /// The index of the positions in the layers of `layers` alone (a
    /// partial solve's), numbered densely in the same order as the whole
    /// index: a layer outside the set holds no positions, so its
    /// [`PositionIndex::layer_range`] is empty and it has no blocks, and
    /// [`PositionIndex::index`] of one of its positions is `u64::MAX`
    /// (check [`PositionIndex::holds`] first). The set is closed under
    /// play, so the successors of every position held are held too.
    pub fn of_layers(rules: &RuleSet, held: &LayerSet) -> PositionIndex {
        let len = rules.route_len();
        let all: u32 = ((1u64 << (len + 1)) - 2) as u32;
        let shared = (1..=len)
            .filter(|&s| rules.is_shared_square(Player::Light, s))
            .fold(0u32, |m, s| m | 1 << s);
        let shared_opponent = (1..=len)
            .filter(|&s| rules.is_shared_square(Player::Dark, s))
            .fold(0u32, |m, s| m | 1 << s);
        let p = u32::from(rules.pieces());
        let a_m = (all & !shared).count_ones() as usize;
        let a_o = (all & !shared_opponent).count_ones() as usize;
        let c = shared.count_ones() as usize;
        let mut total = 0u64;
        let mut layers = Vec::new();
        let width = (p + 1) as usize;
        let mut block_offsets = vec![u64::MAX; width.pow(6)];
        for s_m in 0..=p {
            let mut row = Vec::new();
            for s_o in 0..=p {
                if !held.contains(s_m as u8, s_o as u8) {
                    row.push(None);
                    continue;
                }
                let start = total;
                let offsets =
                    &mut block_offsets[(s_m as usize * width + s_o as usize) * width.pow(4)..];
                let (free_m, free_o) = ((p - s_m) as usize, (p - s_o) as usize);
                for k_m in 0..=free_m.min(a_m) {
                    for m_m in 0..=(free_m - k_m).min(c) {
                        for k_o in 0..=free_o.min(a_o) {
                            for m_o in 0..=(free_o - k_o).min(c - m_m) {
                                let block = ((k_m * width + m_m) * width + k_o) * width + m_o;
                                offsets[block] = total;
                                total += binomial(a_m, k_m)
                                    * binomial(a_o, k_o)
                                    * binomial(c, m_m)
                                    * binomial(c - m_m, m_o);
                            }
                        }
                    }
                }
                row.push(Some(Layer {
                    start,
                    len: total - start,
                }));
            }
            layers.push(row);
        }
        let mut index = PositionIndex {
            pieces: p,
            private_mover: all & !shared,
            private_opponent: all & !shared_opponent,
            shared,
            shared_opponent,
            cells: shared.count_ones(),
            private_opponent_count: (all & !shared_opponent).count_ones() as usize,
            layers,
            block_offsets,
            total,
            rules: rules.clone(),
            fast: None,
        };
        index.fast = FastRank::new(&index).map(Box::new);
        index
    }

    /// The number of indexed positions (= [`super::valid_position_count`]
    /// for the whole index).
    pub fn len(&self) -> u64 {
        self.total
    }

    /// Whether `position` is in one of the indexed layers (always, for the
    /// whole index).
    #[inline]
    pub fn holds(&self, position: &Position) -> bool {
        let [light, dark] = &position.sides;
        self.layers[usize::from(light.scored)][usize::from(dark.scored)].is_some()
    }

    /// Whether there are no positions (never, for a valid rule set).
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The index range of the layer where the mover has borne off `s_m` and
    /// the opponent `s_o` (empty for `s_m = s_o = P`).
    pub fn layer_range(&self, s_m: u8, s_o: u8) -> std::ops::Range<u64> {
        match &self.layers[s_m as usize][s_o as usize] {
            Some(layer) => layer.start..layer.start + layer.len,
            None => 0..0,
        }
    }

    /// The index ranges of a layer pair, in order: its layer, then the
    /// mirror layer when that is another one.
    pub fn pair_ranges(&self, pair: LayerPair) -> Vec<std::ops::Range<u64>> {
        let LayerPair { mover, opponent } = pair;
        let mut ranges = vec![self.layer_range(mover, opponent)];
        if !pair.is_own_mirror() {
            ranges.push(self.layer_range(opponent, mover));
        }
        ranges
    }

    /// The blocks of a layer pair: the layer's, then its mirror's when that
    /// is another layer.
    pub fn pair_blocks(&self, pair: LayerPair) -> Vec<Block> {
        let LayerPair { mover, opponent } = pair;
        let mut blocks = self.blocks(mover, opponent);
        if !pair.is_own_mirror() {
            blocks.extend(self.blocks(opponent, mover));
        }
        blocks
    }

    /// Positions in a layer pair (the layer and its mirror).
    pub fn pair_len(&self, pair: LayerPair) -> u64 {
        self.pair_ranges(pair).iter().map(|r| r.end - r.start).sum()
    }

    /// The index of a position (after normalising the side to move to light).
    #[inline]
    pub fn index(&self, position: &Position) -> u64 {
        let normal = if position.turn == Player::Light {
            *position
        } else {
            position.flipped()
        };
        self.index_of_sides(&normal.sides[0], &normal.sides[1])
    }

    /// The index of the position with `mover` to move against `opponent`,
    /// each side in its own numbering (mover = light's numbering).
    #[inline]
    pub fn index_of_sides(&self, mover: &Side, opponent: &Side) -> u64 {
        self.index_with(mover, opponent, self.fast.as_deref())
    }

    /// [`PositionIndex::index_of_sides`] with the table look-ups of `fast`,
    /// or with bit loops (the reference for the tables, and the way for
    /// masks too wide for them).
    #[inline]
    fn index_with(&self, mover: &Side, opponent: &Side, fast: Option<&FastRank>) -> u64 {
        let c = self.cells;
        // Each side's private squares and shared cells (the opponent's among
        // those the mover leaves free), ranked, with their sizes.
        let ranks = match fast {
            Some(fast) => fast
                .packed(mover.squares, opponent.squares, c)
                .map(|set| fast.rank(set)),
            None => {
                let tables = &self.rules.tables.light;
                let sh_m = compress(mover.squares, self.shared);
                let opp_shared_in_mine =
                    tables.opponent_in_my_numbering(opponent.squares & self.shared_opponent);
                let free = free_cells(sh_m, c);
                [
                    compress(mover.squares, self.private_mover),
                    sh_m,
                    compress(opponent.squares, self.private_opponent),
                    compress(compress(opp_shared_in_mine, self.shared), free),
                ]
                .map(|set| (colex_rank(set), set.count_ones() as usize))
            }
        };
        self.index_of_ranks((mover.scored, opponent.scored), ranks)
    }

    /// The index of the position in the layer `scored` (mover's, opponent's)
    /// whose four sets ([`FastRank::packed`]) have these colex ranks and sizes.
    /// Inlined into the successors' loop: as a call, its ranks went
    /// through the stack.
    #[inline(always)]
    fn index_of_ranks(&self, (s_m, s_o): (u8, u8), ranks: [(u64, usize); 4]) -> u64 {
        let c = self.cells;
        let [(r_pm, k_m), (r_sm, m_m), (r_po, k_o), (r_so, m_o)] = ranks;
        let width = (self.pieces + 1) as usize;
        let a_o = self.private_opponent_count;
        let layer = usize::from(s_m) * width + usize::from(s_o);
        let block = (((layer * width + k_m) * width + m_m) * width + k_o) * width + m_o;
        let within = ((r_pm * binomial(a_o, k_o) + r_po) * binomial(c as usize, m_m) + r_sm)
            * binomial(c as usize - m_m, m_o)
            + r_so;
        // Both borne off (not a valid position) stays u64::MAX.
        self.block_offsets[block].saturating_add(within)
    }

    /// The position (light to move) at `index`; `None` past the end.
    pub fn position(&self, index: u64) -> Option<Position> {
        if index >= self.total {
            return None;
        }
        let (s_m, s_o) = self.layers.iter().enumerate().find_map(|(s_m, row)| {
            row.iter().enumerate().find_map(|(s_o, layer)| {
                let layer = layer.as_ref()?;
                (layer.start..layer.start + layer.len)
                    .contains(&index)
                    .then_some((s_m as u8, s_o as u8))
            })
        })?;
        let block = self
            .blocks(s_m, s_o)
            .into_iter()
            .find(|block| (block.start..block.start + block.len).contains(&index))?;
        self.position_in_block(&block, index - block.start)
    }

    /// The position (light to move) `offset` places into `block` (one of
    /// this index's [`PositionIndex::blocks`]); `None` past its end.
    /// Unranks the block's four combinations, without the search for the
    /// block that [`PositionIndex::position`] makes.
    pub fn position_in_block(&self, block: &Block, offset: u64) -> Option<Position> {
        if offset >= block.len {
            return None;
        }
        let p = self.pieces as u8;
        let a_m = self.private_mover.count_ones() as usize;
        let a_o = self.private_opponent.count_ones() as usize;
        let c = self.shared.count_ones() as usize;
        let [k_m, m_m, k_o, m_o] = [block.k_m, block.m_m, block.k_o, block.m_o].map(usize::from);
        let mut within = offset;
        let r_sh_o = within % binomial(c - m_m, m_o);
        within /= binomial(c - m_m, m_o);
        let r_sh_m = within % binomial(c, m_m);
        within /= binomial(c, m_m);
        let r_priv_o = within % binomial(a_o, k_o);
        let r_priv_m = within / binomial(a_o, k_o);
        let priv_m = expand(colex_unrank(r_priv_m, a_m, k_m), self.private_mover);
        let priv_o = expand(colex_unrank(r_priv_o, a_o, k_o), self.private_opponent);
        let sh_m = colex_unrank(r_sh_m, c, m_m);
        let free = free_cells(sh_m, c as u32);
        let sh_o_cells = expand(colex_unrank(r_sh_o, c - m_m, m_o), free);
        let mover_squares = priv_m | expand(sh_m, self.shared);
        let opp_in_mine = expand(sh_o_cells, self.shared);
        // Back to dark's numbering: light's square s is dark's opp_square[s].
        let tables = &self.rules.tables.light;
        let opp_shared = crate::bits::squares_of(opp_in_mine)
            .fold(0u32, |m, s| m | 1 << tables.opp_square[s as usize]);
        let mover = Side {
            squares: mover_squares,
            waiting: p - block.s_m - mover_squares.count_ones() as u8,
            scored: block.s_m,
        };
        let opponent_squares = priv_o | opp_shared;
        let opponent = Side {
            squares: opponent_squares,
            waiting: p - block.s_o - opponent_squares.count_ones() as u8,
            scored: block.s_o,
        };
        Some(Position {
            sides: [mover, opponent],
            turn: Player::Light,
        })
    }
}

/// A block of the index: the positions of one layer with given counts of
/// pieces on private squares and shared cells, stored contiguously.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// Index of the block's first position.
    pub start: u64,
    /// Positions in the block.
    pub len: u64,
    s_m: u8,
    s_o: u8,
    k_m: u8,
    m_m: u8,
    k_o: u8,
    m_o: u8,
}

impl Block {
    /// A progress measure of the block's positions: entering a piece or
    /// moving it from a private square onto the shared cells raises it; it
    /// never falls on the Egyptian and Masters routes except by a capture
    /// (on the Finkel route the last two squares are private again).
    pub fn stage(&self) -> u32 {
        u32::from(self.k_m + 2 * self.m_m + self.k_o + 2 * self.m_o)
    }
}

impl PositionIndex {
    /// The blocks of the layer (mover borne off `s_m`, opponent `s_o`), in index order.
    pub fn blocks(&self, s_m: u8, s_o: u8) -> Vec<Block> {
        if self.layers[s_m as usize][s_o as usize].is_none() {
            return Vec::new();
        }
        let p = self.pieces as usize;
        let width = p + 1;
        let layer = usize::from(s_m) * width + usize::from(s_o);
        let layer_offsets = &self.block_offsets[layer * width.pow(4)..];
        let a_m = self.private_mover.count_ones() as usize;
        let a_o = self.private_opponent.count_ones() as usize;
        let c = self.shared.count_ones() as usize;
        let (free_m, free_o) = (p - s_m as usize, p - s_o as usize);
        let mut blocks = Vec::new();
        for k_m in 0..=free_m.min(a_m) {
            for m_m in 0..=(free_m - k_m).min(c) {
                for k_o in 0..=free_o.min(a_o) {
                    for m_o in 0..=(free_o - k_o).min(c - m_m) {
                        let id = ((k_m * width + m_m) * width + k_o) * width + m_o;
                        blocks.push(Block {
                            start: layer_offsets[id],
                            len: binomial(a_m, k_m)
                                * binomial(a_o, k_o)
                                * binomial(c, m_m)
                                * binomial(c - m_m, m_o),
                            s_m,
                            s_o,
                            k_m: k_m as u8,
                            m_m: m_m as u8,
                            k_o: k_o as u8,
                            m_o: m_o as u8,
                        });
                    }
                }
            }
        }
        blocks
    }

    /// Calls `f(index, position)` for every position of `block`, in index
    /// order (light to move).
    pub fn for_each_in_block(&self, block: &Block, f: impl FnMut(u64, &Position)) {
        self.walk_block(block, false, f);
    }

    /// [`PositionIndex::for_each_in_block`] from the last position to the first.
    pub fn for_each_in_block_rev(&self, block: &Block, f: impl FnMut(u64, &Position)) {
        self.walk_block(block, true, f);
    }

    fn walk_block(&self, block: &Block, reverse: bool, mut f: impl FnMut(u64, &Position)) {
        let p = self.pieces as u8;
        let a_m = self.private_mover.count_ones();
        let a_o = self.private_opponent.count_ones();
        let c = self.shared.count_ones();
        let tables = &self.rules.tables.light;
        let ordered = |n: u32, k: u32| -> Vec<u32> {
            let mut all: Vec<u32> = combinations(n, k).collect();
            if reverse {
                all.reverse();
            }
            all
        };
        let sh_o_sets = ordered(c - u32::from(block.m_m), u32::from(block.m_o));
        let mut index = if reverse {
            block.start + block.len
        } else {
            block.start
        };
        for priv_m in ordered(a_m, u32::from(block.k_m)) {
            let priv_m = expand(priv_m, self.private_mover);
            for priv_o in ordered(a_o, u32::from(block.k_o)) {
                let priv_o = expand(priv_o, self.private_opponent);
                for sh_m in ordered(c, u32::from(block.m_m)) {
                    let mover_squares = priv_m | expand(sh_m, self.shared);
                    let mover = Side {
                        squares: mover_squares,
                        waiting: p - block.s_m - block.k_m - block.m_m,
                        scored: block.s_m,
                    };
                    let free = free_cells(sh_m, c);
                    for &sh_o in &sh_o_sets {
                        let in_mine = expand(expand(sh_o, free), self.shared);
                        let theirs = crate::bits::squares_of(in_mine)
                            .fold(0u32, |m, s| m | 1 << tables.opp_square[s as usize]);
                        let opponent = Side {
                            squares: priv_o | theirs,
                            waiting: p - block.s_o - block.k_o - block.m_o,
                            scored: block.s_o,
                        };
                        if reverse {
                            index -= 1;
                        }
                        f(
                            index,
                            &Position {
                                sides: [mover, opponent],
                                turn: Player::Light,
                            },
                        );
                        if !reverse {
                            index += 1;
                        }
                    }
                }
            }
        }
        debug_assert_eq!(
            index,
            if reverse {
                block.start
            } else {
                block.start + block.len
            }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_enumerate_every_index_in_order() {
        let rules = crate::race::preset("masters-2").unwrap();
        let index = PositionIndex::new(&rules);
        let mut next = 0;
        for s_m in 0..=2 {
            for s_o in 0..=2 {
                for block in index.blocks(s_m, s_o) {
                    index.for_each_in_block(&block, |i, position| {
                        assert_eq!(i, next);
                        assert_eq!(index.index(position), i);
                        next += 1;
                    });
                }
            }
        }
        assert_eq!(next, index.len());
        // And backwards.
        for s_m in 0..=2 {
            for s_o in 0..=2 {
                for block in index.blocks(s_m, s_o) {
                    let mut expected = block.start + block.len;
                    index.for_each_in_block_rev(&block, |i, position| {
                        expected -= 1;
                        assert_eq!(i, expected);
                        assert_eq!(index.index(position), i);
                    });
                    assert_eq!(expected, block.start);
                }
            }
        }
    }

    /// A partial index numbers the held layers' positions densely, in the
    /// whole index's order, and every move from a held position (and a
    /// pass) stays in the held layers.
    #[test]
    fn an_index_of_some_layers_holds_them_in_order_and_is_closed_under_play() {
        for name in ["ur-2", "ur-3", "masters-3"] {
            let rules = crate::race::preset(name).unwrap();
            let whole = PositionIndex::new(&rules);
            let p = rules.pieces();
            for d in 0..=2 * p {
                let set = LayerSet::from_diagonal(p, d);
                let part = PositionIndex::of_layers(&rules, &set);
                let mut next = 0;
                for i in 0..whole.len() {
                    let position = whole.position(i).unwrap();
                    let [light, dark] = &position.sides;
                    let held = set.contains(light.scored, dark.scored);
                    assert_eq!(part.holds(&position), held, "{name} {d} {i}");
                    if !held {
                        assert_eq!(part.index(&position), u64::MAX);
                        continue;
                    }
                    assert_eq!(part.index(&position), next, "{name} {d}");
                    assert_eq!(part.position(next), Some(position));
                    next += 1;
                    if i % 7 != 0 || rules.winner(&position).is_some() {
                        continue;
                    }
                    assert!(part.holds(&rules.pass(&position)));
                    for roll in 0..=4 {
                        for &mv in rules.legal_moves(&position, roll).iter() {
                            let after = rules.apply(&position, mv).position;
                            assert!(part.holds(&after), "{name} {d}: {position:?} {mv:?}");
                        }
                    }
                }
                assert_eq!(next, part.len(), "{name} {d}");
            }
        }
    }

    #[test]
    fn layer_pairs_cover_every_unfinished_layer_once() {
        for name in ["ur-1", "ur-2", "ur-3", "masters-2"] {
            let rules = crate::race::preset(name).unwrap();
            let index = PositionIndex::new(&rules);
            let p = rules.pieces();
            let pairs = LayerPair::all(p);
            assert_eq!(
                pairs.len(),
                usize::from(p) * usize::from(p + 1) / 2,
                "{name}"
            );
            let in_pairs: u64 = pairs.iter().map(|&pair| index.pair_len(pair)).sum();
            let unfinished: u64 = (0..p)
                .flat_map(|a| (0..p).map(move |b| (a, b)))
                .map(|(a, b)| {
                    let range = index.layer_range(a, b);
                    range.end - range.start
                })
                .sum();
            assert_eq!(in_pairs, unfinished, "{name}");
            for pair in pairs {
                let blocks: u64 = index.pair_blocks(pair).iter().map(|b| b.len).sum();
                assert_eq!(blocks, index.pair_len(pair), "{name} {pair}");
                assert_eq!(
                    index.pair_ranges(pair).len(),
                    if pair.is_own_mirror() { 1 } else { 2 }
                );
            }
        }
    }

    /// The table look-ups against the bit loops: every position of the
    /// tiny presets, and positions spread over every block of every layer
    /// of the named rule sets (so every combination of counts).
    #[test]
    fn table_ranking_agrees_with_bit_loops() {
        let check = |index: &PositionIndex, i: u64| {
            let position = index.position(i).unwrap();
            let [mover, opponent] = &position.sides;
            assert_eq!(index.index_of_sides(mover, opponent), i);
            assert_eq!(index.index_with(mover, opponent, None), i);
        };
        for name in crate::race::presets::TINY {
            let index = PositionIndex::new(&crate::race::preset(name).unwrap());
            assert!(index.fast.is_some(), "{name}");
            (0..index.len()).for_each(|i| check(&index, i));
        }
        for name in crate::race::presets::NAMED
            .into_iter()
            .chain(crate::race::presets::ROYALUR)
        {
            let index = PositionIndex::new(&crate::race::preset(name).unwrap());
            assert!(index.fast.is_some(), "{name}");
            let p = index.pieces as u8;
            for (s_m, s_o) in (0..=p).flat_map(|a| (0..=p).map(move |b| (a, b))) {
                for block in index.blocks(s_m, s_o) {
                    for k in 0..7 {
                        check(&index, block.start + block.len * k / 7);
                    }
                    check(&index, block.start + block.len - 1);
                }
            }
        }
    }

    #[test]
    fn compress_and_expand_are_inverse() {
        let mask = 0b1011_0110;
        for value in 0..256u32 {
            let packed = compress(value, mask);
            assert_eq!(expand(packed, mask), value & mask);
        }
    }
}
