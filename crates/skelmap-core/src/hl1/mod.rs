//! Half-Life 1 studio models (`IDST`, version 10): bones with default values and scales,
//! run-length-encoded sequences, body parts of triangle strips and fans, 8-bit textures with
//! their own palettes, and the companion files beside them.
//!
//! - [`raw`]: the on-disk structs, as in Valve's `engine/studio.h`;
//! - [`Hl1`]: the validated zero-copy view of one studio file ([`Parse`](crate::Parse));
//! - [`Pair`]: a model with its texture file (`<stem>T.mdl` or `<stem>t.mdl`) and sequence
//!   groups (`<stem>01.mdl` …), what [`Model`](crate::Model) holds;
//! - [`write`](mod@write): [`Builder`], which writes models, texture files and group files,
//!   and makes a model of any [`Asset`](crate::asset::Asset) ([`Builder::from_asset`]).
//!
//! ## Semantics worth knowing
//!
//! - A bone's pose at a frame is, per channel (X, Y, Z, roll, pitch, yaw), its default
//!   `value` plus the decoded run-length value times its `scale`; the angles become a rotation
//!   as the engine's `AngleQuaternion` makes one ([`angle_quaternion`]). Bone controllers
//!   (a turning head, an opening mouth) add to their channels where the model is sampled
//!   through [`Pair::controlled`] with their [`Controls`]; sampled directly, the model has
//!   none applied. The bind pose is the defaults alone.
//! - The model's one mesh is the model each body part shows for the body value (0, as
//!   parsed: every part's first; [`Hl1::with_body`] picks others); each studio mesh is a
//!   submesh.
//!   Its vertices are the triangle commands' vertices in order (each a position, a normal and
//!   texels), rigid on the position's bone; strips alternate their winding as GL draws them,
//!   and triangles are reported counter-clockwise. Texture coordinates are the texels divided
//!   by the texture's size.
//! - Each texture carries its own palette ([`Skin::palette`](crate::alias::skin::Skin::palette)).
//!
//! ## What validation guarantees
//!
//! Every rule of `docs/formats/hl1.md` § Validation: the magic and version 10; the declared
//! length; every count not negative and within [`Limits`](crate::Limits); every array in
//! bounds; parents before children, every bone, controller, sequence group, vertex, normal
//! and texture index in range; every float that is read finite; every animation channel's
//! runs with `1 ≤ valid ≤ total`, covering the sequence's frames, in bounds (so that the walk
//! is bounded); every triangle command of at least 3 vertices, ending with a 0 within the
//! file. An `IDSQ` file opened alone is [`Error::Unsupported`](crate::Error::Unsupported):
//! it is a model's companion.

mod channels;
mod companion;
pub mod raw;
mod validate;
mod view;
pub mod write;

pub use companion::{MAX_GROUP_FILES, group_model, group_path, texture_paths};
pub use validate::{ENGINE_MAX_ATTACHMENTS, MAX_BLENDS};
pub use view::{
    Command, Controlled, Controls, Hl1, MeshInfo, Pair, angle_quaternion, channel_value,
};
pub use write::{
    AttachmentDef, BodyPartDef, BoneDef, Builder, CommandDef, ControllerDef, ENGINE_MAX_BODYPARTS,
    ENGINE_MAX_VERTICES, MAX_BONES, MeshDef, ModelDef, PLACEHOLDER_SIDE, SequenceDef, TextureDef,
    TrivertDef, VertexDef,
};
