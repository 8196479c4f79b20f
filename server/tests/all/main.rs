//! The integration tests of `server`, one test binary (each file a
//! module: one link instead of one per file, and tests of different
//! files run side by side).

mod attacks;
mod http;
mod openapi;
