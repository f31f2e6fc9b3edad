//! The kinds of background job every host knows ([`crate::app::worker`]).
//! A new kind implements [`JobKind`] beside the work it does (in the app
//! layer) and is added to this list; kept here, above both, so the worker
//! and the kinds' modules do not import each other.

use std::sync::Arc;

use crate::app::actions::batch::BatchJob;
use crate::app::webhooks::DeliverWebhooks;
use crate::app::worker::JobKind;

/// Every built-in job kind.
pub fn kinds() -> Vec<Arc<dyn JobKind>> {
    vec![Arc::new(BatchJob), Arc::new(DeliverWebhooks)]
}
