//! The named race rule sets of RULES.md §1.2, and tiny variants for tests.

use super::rules::{Cell, Marks, RuleSet, RuleSpec};

/// Names of the six named race rule sets, in the order RULES.md lists them.
pub const NAMED: [&str; 6] = [
    "sawah",
    "babylon",
    "marks-roll-only",
    "ur",
    "masters",
    "masters-5",
];

/// RoyalUr's published variants that are not Sawah's (docs/variants.md):
/// Blitz, Aseb, and the Masters rules as James Masters proposed them
/// (three dice, a throw of 0 counting 4).
pub const ROYALUR: [&str; 3] = ["blitz", "aseb", "masters-3dice"];

/// Names of the tiny presets: 1, 2 and 3 pieces on each of the three routes.
pub const TINY: [&str; 9] = [
    "sawah-1",
    "sawah-2",
    "sawah-3",
    "ur-1",
    "ur-2",
    "ur-3",
    "masters-1",
    "masters-2",
    "masters-3",
];

const STICKS: [f64; 5] = [1.0 / 16.0, 4.0 / 16.0, 6.0 / 16.0, 4.0 / 16.0, 1.0 / 16.0];

/// Three two-sided dice where a throw of 0 counts 4: 1 and 2 three times
/// in eight, 3 and 4 once.
const THREE_DICE_ZERO_IS_FOUR: [f64; 5] = [0.0, 3.0 / 8.0, 3.0 / 8.0, 1.0 / 8.0, 1.0 / 8.0];

fn cells(list: &[(u8, u8)]) -> Vec<Cell> {
    list.iter().map(|&(r, c)| Cell::new(r, c)).collect()
}

/// The Egyptian "3 × 4 + 8" board: a 3×4 block whose middle row runs on for 8 cells.
fn egyptian_board() -> Vec<Cell> {
    let mut board = Vec::new();
    for row in 0..3u8 {
        let cols = if row == 1 { 12 } else { 4 };
        for col in 0..cols {
            board.push(Cell::new(row, col));
        }
    }
    board
}

/// Light's Egyptian route: up its own row to (0,0), then the middle row to the end.
fn egyptian_route() -> Vec<Cell> {
    let mut route = cells(&[(0, 3), (0, 2), (0, 1), (0, 0)]);
    route.extend((0..12).map(|c| Cell::new(1, c)));
    route
}

/// The Ur board: 3×8 without columns 4–5 of the outer rows.
fn ur_board() -> Vec<Cell> {
    let mut board = Vec::new();
    for row in 0..3u8 {
        for col in 0..8u8 {
            if row == 1 || !(4..=5).contains(&col) {
                board.push(Cell::new(row, col));
            }
        }
    }
    board
}

/// Light's Finkel (Bell) route: 4 own, the 8 middle cells, 2 own in the small block.
fn finkel_route() -> Vec<Cell> {
    let mut route = cells(&[(0, 3), (0, 2), (0, 1), (0, 0)]);
    route.extend((0..8).map(|c| Cell::new(1, c)));
    route.extend(cells(&[(0, 7), (0, 6)]));
    route
}

/// Light's Masters route: 4 own, 7 middle cells, then round the small block
/// through dark's rosette, ending on light's own rosette by the gap.
fn masters_route() -> Vec<Cell> {
    let mut route = cells(&[(0, 3), (0, 2), (0, 1), (0, 0)]);
    route.extend((0..7).map(|c| Cell::new(1, c)));
    route.extend(cells(&[(2, 6), (2, 7), (1, 7), (0, 7), (0, 6)]));
    route
}

#[derive(Clone, Copy)]
enum Route {
    Egyptian,
    Finkel,
    Masters,
}

fn spec(name: &str, description: &str, pieces: u8, route: Route, safe: bool) -> RuleSpec {
    let (board, light_route, marks) = match route {
        Route::Egyptian => (
            egyptian_board(),
            egyptian_route(),
            cells(&[(0, 0), (2, 0), (1, 3), (1, 7), (1, 11)]),
        ),
        Route::Finkel => (
            ur_board(),
            finkel_route(),
            cells(&[(0, 0), (2, 0), (1, 3), (0, 6), (2, 6)]),
        ),
        Route::Masters => (
            ur_board(),
            masters_route(),
            cells(&[(0, 0), (2, 0), (1, 3), (0, 6), (2, 6)]),
        ),
    };
    RuleSpec {
        name: name.to_string(),
        description: description.to_string(),
        pieces,
        board,
        light_route,
        dark_route: None,
        marks: Marks {
            cells: marks,
            extra_roll: true,
            safe,
        },
        dice: STICKS.to_vec(),
        capture_extra_roll: false,
    }
}

/// RoyalUr's variants ([`ROYALUR`]), from its settings classes: `None`
/// for another name.
fn royalur_spec(name: &str) -> Option<RuleSpec> {
    Some(match name {
        "blitz" => RuleSpec {
            capture_extra_roll: true,
            ..spec(
                name,
                "RoyalUr's Blitz: the Masters route, 5 pieces, rosettes not safe, a capture gives another roll",
                5,
                Route::Masters,
                false,
            )
        },
        "aseb" => spec(
            name,
            "RoyalUr's Aseb: the Egyptian 3x4+8 board and route, 5 pieces, rosettes safe and give another roll",
            5,
            Route::Egyptian,
            true,
        ),
        "masters-3dice" => RuleSpec {
            dice: THREE_DICE_ZERO_IS_FOUR.to_vec(),
            ..spec(
                name,
                "RoyalUr's Masters rules as James Masters proposed them: the Masters route, 7 pieces, three dice (a throw of 0 counts 4), rosettes not safe",
                7,
                Route::Masters,
                false,
            )
        },
        _ => return None,
    })
}

/// The description of a named or tiny preset, or `None` for an unknown name.
pub fn preset_spec(name: &str) -> Option<RuleSpec> {
    let named = match name {
        "sawah" => spec(
            name,
            "Twenty Squares, Sawah rules: Egyptian 3x4+8 board, 7 pieces, marks safe and give another roll",
            7,
            Route::Egyptian,
            true,
        ),
        "babylon" => spec(
            name,
            "Twenty Squares after the Babylonian tablet BM 33333B: as sawah with 5 pieces",
            5,
            Route::Egyptian,
            true,
        ),
        "marks-roll-only" => spec(
            name,
            "Twenty Squares, marks give only a roll: as sawah, but marks are not safe",
            7,
            Route::Egyptian,
            false,
        ),
        "ur" => spec(
            name,
            "Twenty Squares on the Ur board = Royal Game of Ur, Finkel (Bell) rules: 14-square route, rosettes on 4, 8, 14",
            7,
            Route::Finkel,
            true,
        ),
        "masters" => spec(
            name,
            "Royal Game of Ur on the Masters route: 16 squares round the small block, rosettes on 4, 8, 12, 16, 7 pieces",
            7,
            Route::Masters,
            true,
        ),
        "masters-5" => spec(
            name,
            "Royal Game of Ur on the Masters route with 5 pieces",
            5,
            Route::Masters,
            true,
        ),
        _ => return royalur_spec(name).or_else(|| tiny_spec(name)),
    };
    Some(named)
}

fn tiny_spec(name: &str) -> Option<RuleSpec> {
    let (base, count) = name.rsplit_once('-')?;
    let pieces: u8 = match count {
        "1" => 1,
        "2" => 2,
        "3" => 3,
        _ => return None,
    };
    let route = match base {
        "sawah" => Route::Egyptian,
        "ur" => Route::Finkel,
        "masters" => Route::Masters,
        _ => return None,
    };
    let description = format!("tiny test variant: {base} with {pieces} piece(s) a side");
    Some(spec(name, &description, pieces, route, true))
}

/// A named or tiny preset, or `None` for an unknown name.
pub fn preset(name: &str) -> Option<RuleSet> {
    preset_spec(name).map(|spec| RuleSet::new(spec).expect("every preset is a valid rule set"))
}

/// Every preset name: the named rule sets, then the tiny ones.
pub fn all_preset_names() -> impl Iterator<Item = &'static str> {
    NAMED.into_iter().chain(ROYALUR).chain(TINY)
}
