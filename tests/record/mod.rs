//! The record format (`kafkit::record`): vectors, real segments, round trips, corruption.

mod basics;
mod corruption;
mod dump;
mod fixtures;
mod legacy;
mod roundtrip;
mod vectors;
