//! The job kinds every host knows. A new kind implements
//! [`JobKind`](super::JobKind) in the app layer and is added to the list.

use std::sync::Arc;

use super::JobKind;
use crate::app::actions::batch::BatchJob;

/// Every built-in job kind.
pub fn kinds() -> Vec<Arc<dyn JobKind>> {
    vec![Arc::new(BatchJob)]
}
