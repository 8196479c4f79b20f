//! The race family: Twenty Squares and the Royal Game of Ur (RULES.md §1).

mod count;
mod index;
mod moves;
mod position;
pub mod presets;
mod rules;

pub use count::{layer_sizes, valid_position_count};
pub use index::successors::Successors;
pub use index::{Block, LayerPair, LayerSet, LayerSetError, PositionIndex};
pub use moves::{Move, Outcome};
pub use position::{Position, PositionError, Setup, Side, SideSetup};
pub use presets::{
    NAMED as NAMED_RULE_SETS, ROYALUR as ROYALUR_RULE_SETS, TINY as TINY_RULE_SETS,
    all_preset_names, preset, preset_spec,
};
pub use rules::{
    Cell, MAX_PIECES, MAX_ROUTE_LEN, MAX_RULE_FILE_BYTES, Marks, RuleError, RuleFileError,
    RuleFileFormat, RuleSet, RuleSpec,
};
