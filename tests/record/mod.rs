//! The record format (`kafkit::record`): vectors, real segments, round trips, corruption.

mod basics;
mod dump;
mod vectors;
