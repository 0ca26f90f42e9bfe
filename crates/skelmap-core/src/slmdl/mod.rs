//! The "SL" engine's `mdl` mesh and `.anim` animation pair.
//!
//! ## `mdl`: interleaved vertices with a declared layout
//!
//! A 0x34-byte little-endian header, then `count × size` bytes of interleaved vertices and
//! nothing else:
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 4 | magic `mdl\0` (lower case: GameStudio's `MDL3/4/5` differ) |
//! | 4 | 4 | `u32` vertex count |
//! | 8 | 4 | `u32` vertex size in bytes |
//! | 12 | 4 | `f32` bounding-sphere radius |
//! | 16 | 4 | `u32` attribute count (at most 16) |
//! | 20 | 16 | `u8` attribute types |
//! | 36 | 16 | `u8` attribute sizes in bytes |
//!
//! Attributes are laid out in declaration order inside each vertex. Type codes:
//!
//! | code | [`AttributeKind`] | element | allowed sizes |
//! |---:|---|---|---|
//! | 1 | position | `f32 × 3` | 12 |
//! | 2 | normal | `f32 × 3` | 12 |
//! | 3 | texcoord | `f32 × 1..=4` | 4, 8, 12, 16 |
//! | 4 | blend weights | `f32 × 1..=3` | 4, 8, 12 |
//! | 5 | blend indices | `u8 × 4` (D3DCOLOR) | 4 |
//! | 6 | colour | `u8 × 4` RGBA | 4 |
//!
//! The D3D9 declaration the format's document uses (position, normal, three blend weights,
//! four blend indices, one texcoord) is **48** bytes per vertex: 12 + 12 + 12 + 4 + 8. (The
//! issue that introduced the format said 44, which does not add up; the header's sizes are
//! authoritative and validation checks they sum to the vertex size.)
//!
//! Skinning is dual-quaternion with up to four influences per vertex: the blend indices name
//! four bones, the stored weights the first ones, and the last weight is `1 − Σ` the others
//! ([`Mesh::influences`]).
//!
//! ## `.anim`: independent bone keys with easing
//!
//! No magic; opened explicitly. Little-endian: `u32` bone count, `u32` keyframe count, then per
//! keyframe `f32` start time (seconds), `u32` easing id, and per bone a quaternion
//! `(x, y, z, w)` and a translation `(x, y, z)` (28 bytes). Bones are independent: there is no
//! hierarchy. The easing of keyframe `k` shapes the blend from `k` to `k + 1`:
//! 0 linear, 1 ease-in (`f²`), 2 ease-out (`1 − (1 − f)²`), 3 ease-in-out (`3f² − 2f³`),
//! 4 step (hold `k` until `k + 1`).
//!
//! ## What validation guarantees
//!
//! `mdl`: magic; attribute count ≤ 16; every declared type known and its size allowed; the
//! sizes summing to the vertex size, which is not 0 when there are vertices; `count × size` (checked) exactly filling the rest of the
//! file; a finite, non-negative radius; every float attribute finite; stored blend weights
//! each in `0..=1` and summing to at most 1 (so the implied last weight is not negative). `.anim`: at least one
//! bone and keyframe, within [`Limits`](crate::Limits); the file exactly
//! `8 + keyframes × (8 + 28 × bones)` bytes; times finite and non-decreasing; easing ids known;
//! every value finite.

pub mod raw;
mod validate;
mod view;
pub mod write;

pub use raw::{AnimHeader, BoneKey, Header, KeyframeHead, MAX_ATTRIBUTES, SLMDL_MAGIC};
pub use view::{Animation, AttributeKind, Easing, Mesh, Pair, Strided, WEIGHT_TOLERANCE};
pub use write::{AnimationBuilder, KeyframeDef, MeshBuilder, VertexDef};
