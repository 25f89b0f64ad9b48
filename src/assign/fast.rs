//! The assignors' internal maps, with rustc's fast non-cryptographic hasher (keys are small
//! integers and topic names kafkit built itself, never attacker-chosen).

pub use rustc_hash::{FxHashMap, FxHashSet};
