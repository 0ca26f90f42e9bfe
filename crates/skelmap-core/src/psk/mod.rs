//! Unreal PSK and PSA (ActorX chunks): skeletal meshes of points, wedges and faces with a
//! reference skeleton and raw weights (`.psk`, `.pskx`), and skeletal animations of
//! sequences of keys (`.psa`).
//!
//! - [`raw`]: the on-disk structs, as ActorX's `Vertebrate.h` declares them;
//! - [`Psk`], [`Psa`]: the validated zero-copy views ([`Parse`](crate::Parse)); [`Pair`]: a
//!   PSK with the PSA of the same name beside it, its bones matched by name;
//! - [`write`](mod@write): [`Builder`], which writes both files.
//!
//! ## Semantics worth knowing
//!
//! - Unreal's axes are left-handed (`+X` forward, `+Y` right, `+Z` up). Every coordinate is
//!   mirrored where it is read (`Y` negated) and faces are reported in the reverse of their
//!   stored order, so a model keeps its shape and front in right-handed axes (`+Z` up,
//!   facing `+X`, as the Quake lineage); the writer mirrors back.
//! - Bone 0's orientation is stored as its rotation, every other bone's (and key's)
//!   conjugated, as Unreal and UE Viewer read them.
//! - A wedge is a vertex: a point, a texture coordinate, a material. Faces are drawn in a
//!   submesh per material. Weights are per point: each point keeps its 8 heaviest, normalised
//!   (a point without weights is bound to bone 0), gathered on the first skinning.
//! - A PSA's frames are keys ÷ bones; each `ANIMINFO` sequence is a clip.
//!
//! ## What validation guarantees
//!
//! Every rule of `docs/formats/psk.md` § Validation: the chunk walk (each header whole, sizes
//! not negative, records inside the file, a known chunk's record size, no chunk twice,
//! unknown chunks skipped with a warning); the chunks the file needs; counts within
//! [`Limits`](crate::Limits); every point, normal and key finite; wedge → point, face →
//! wedge and material, weight → point and bone in range; parents before children; per-wedge
//! and per-point extras of the right count; each sequence within the keys.

mod companion;
pub mod raw;
mod validate;
mod view;
pub mod write;

pub use view::{DEFAULT_RATE, Faces, MAX_EXTRA_UVS, Pair, Psa, Psk, Sequence};
pub use write::{BoneDef, Builder, FaceDef, SequenceDef, WedgeDef, WeightDef};
