//! The record format (`kafkit::record`): vectors, real segments, round trips, corruption.

mod basics;
mod corruption;
mod dump;
mod fixtures;
pub(crate) mod legacy;
mod roundtrip;
mod vectors;
