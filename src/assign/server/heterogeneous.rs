//! `UniformHeterogeneousAssignmentBuilder` (Kafka 4.0 rewrite, spec §5.3).

use super::{AssignError, ServerAssignment, Spec};

pub(crate) fn build(_spec: &Spec) -> Result<ServerAssignment, AssignError> {
    Err(AssignError::PartitionAssignor(
        "heterogeneous uniform assignment is not implemented yet".into(),
    ))
}
