//! The saver's optimisations: see the crate docs.
