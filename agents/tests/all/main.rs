//! The integration tests of `agents`, one test binary (each file a
//! module: one link instead of one per file, and tests of different
//! files run side by side).

mod focus;
mod imports;
mod manifest;
mod neural;
mod search;
mod stop;
mod table;
mod writes;
