//! Doom 3 models (`MD5Version 10` text): a skeletal mesh (`.md5mesh`) and the animations
//! played on it (`.md5anim`), as described in `docs/formats/md5.md`.
//!
//! - [`write`](mod@write): `Builder`, which writes both kinds of file from an asset.

pub mod write;
