//! glTF 2.0 in: see the crate docs.
