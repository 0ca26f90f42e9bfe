//! Enemy Territory skeletal models: the MDM mesh (`MDMW`, version 3) and the MDX skeleton
//! and animation (`MDXW`, version 2) it is played by (`docs/formats/mdm.md` for the layouts,
//! the rules, the bone model and the sources: ET:Legacy's `qfiles.h`, `tr_model.c`,
//! `tr_animation_mdm.c`).
//!
//! - [`raw`]: the on-disk records, with ET's names (the vertex and weight records are MD4's,
//!   which MDR keeps too: [`md4`](crate::md4) holds them, with the surface over them, its
//!   records and its validation walk);
//! - [`Mdm`]: the validated mesh: [`Surface`]s of weighted vertices, each with its collapse
//!   map (ET's levels of detail: [`Surface::lod_vertices`], [`Surface::lod_triangles`]) and
//!   bone references, and [`Tag`]s on bones;
//! - [`Mdx`]: the validated skeleton: bones (name, parent, torso weight, parent distance)
//!   and [`Frame`]s of compressed angles, placed as ET places them
//!   ([`Mdx::bone_transform`]); opened alone ([`MdxFile`]), a skeleton without meshes whose
//!   clips are the `.aninc` file of its stem beside it, when there is one;
//! - [`Pair`]: an MDM with its MDX, the view a model of an `.mdm` holds (the one given, the
//!   `.mdx` of the same stem beside it, or the first animation file of the animation group
//!   that a character file under the game's `characters/` folder gives the mesh, whose clips
//!   are then the model's: `companion.rs`, as ET:Legacy's `bg_character.c` and
//!   `bg_animgroup.c` read them);
//! - [`write`](mod@write): [`Builder`], both files, for fixtures and seeds.
//!
//! A bone is not stored as a local transform: its model-space rotation comes from three
//! 16-bit angles, and its position is its parent's plus `parent_dist` along a direction
//! given by two more angles (a root sits at the frame's `parent_offset`). The sampler gets
//! parent-relative poses from that placement, so that the palette is ET's at every frame.
//! Each surface's weights become pre-weighted records on its first skinning
//! ([`Surface::records`]), which the record kernels sum as ET's `RB_MDM_SurfaceAnim` does.
//!
//! ## Validation rules
//!
//! Each rule has a test in `tests/integration/mdm/rules.rs` asserting its error and offset.
//!
//! MDM:
//! 1. The magic is `MDMW` and the version 3.
//! 2. `ofs_end` is not negative and not past the file (checked first); short of the
//!    structures or of the data, a warning.
//! 3. `lod_scale` and `lod_bias` are finite; `num_surfaces` (as meshes) and `num_tags` (as
//!    bones) not negative and within [`Limits`](crate::Limits); past ET's 32 surfaces or 128
//!    tags, a warning.
//! 4. The surfaces are a chain from `ofs_surfaces` (past the header), each header inside the
//!    file, `ofs_end` not negative, name and shader terminated.
//! 5. Vertex, triangle and bone-reference counts not negative and within the limits (past
//!    ET's 6000 vertices or 20000 triangles, a warning).
//! 6. Every vertex and its weights lie inside the file, 1 to `max_influences_per_vertex`
//!    weights, all surfaces' weights within `max_total_influences`; normals, texture
//!    coordinates, weights and offsets finite; bones not negative. Weights not summing to 1,
//!    a warning.
//! 7. The triangles lie inside the file, every index in `0..num_verts`.
//! 8. The collapse map (`num_verts` entries) lies inside the file, every entry in
//!    `0..num_verts`; the bone references lie inside the file, none negative.
//! 9. The tags are a chain from `ofs_tags` (past the header), each inside the file, name
//!    terminated, axes and offset finite, bone and bone references not negative and inside
//!    the file, `ofs_end` not negative.
//!
//! MDX:
//! 1. The magic is `MDXW` and the version 2.
//! 2. `ofs_end` as the MDM's.
//! 3. `num_frames` and `num_bones` at least 1 and within the limits; past ET's 128 bones, a
//!    warning.
//! 4. The frames lie at `ofs_frames` (past the header) inside the file, every float of each
//!    summary finite.
//! 5. The bones lie at `ofs_bones` (past the header) inside the file, each name terminated,
//!    parent -1 or an earlier bone, `torso_weight` and `parent_dist` finite.
//! 6. `torso_parent` is -1 or a bone.
//!
//! Pair: 1. every bone the MDM names (weights, bone references, tags) is a bone of the MDX.

mod companion;
pub mod raw;
mod validate;
mod view;
pub mod write;

pub use view::{
    CLIP_FPS, Frame, Mdm, Mdx, MdxFile, Pair, Surface, SurfaceArrays, Tag, TagPose, Vertex,
    Vertices, angles_rotation, offset_direction,
};
pub use write::Builder;
