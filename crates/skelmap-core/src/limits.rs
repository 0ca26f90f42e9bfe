//! Denial-of-service bounds applied while validating untrusted files.
//!
//! Validation is already linear in the file size; these limits additionally bound the work
//! and memory that *later* stages (pose sampling, skinning preparation, export) may spend on a
//! file. Exceeding one gives [`Error::Limit`](crate::Error::Limit), never a panic or an
//! allocation.
//!
//! The defaults accept every real file: a bound a real file exceeds is a bug, not protection.
//! What protects a reader is that the work a file asks for is paid for in its bytes: every
//! bone, vertex, triangle and frame is a record the file must hold (checked against the bytes
//! left before anything is reserved), and sampling a frame is linear in the bones and the
//! records it stores. The counts below are budgets on the totals a caller may tighten
//! ([`max_file_size`](Limits::max_file_size) bounds them all).

/// Configurable upper bounds on counts read from a file.
///
/// The defaults follow the historical engine and tool limits (cited per field) and are
/// generous enough for every real file we know of.
///
/// ```
/// use skelmap_core::Limits;
/// let strict = Limits { max_bones: 128, ..Limits::default() };
/// assert_eq!(strict.max_frames, 65_536);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Maximum bones in a skeleton. Default 65 535, the most the 16-bit bone indices skelmap
    /// keeps (palettes, parent tables, GPU joints) can name: GameStudio exports level geometry
    /// as one MDL7 of 338–488 bones, past the 256 of dpmodel's `MAX_BONES`. Each bone is a
    /// record of the file, so its bytes pay for it.
    pub max_bones: u32,
    /// Maximum meshes in a model. Default 65 536: each mesh is a record the file must hold,
    /// so its bytes pay for it. dpmodel's `MAX_SHADERS` (256) bounds one tool, not the
    /// formats: a glTF scene of 501 meshes (`many-cubes.gltf`) converts to an IQM of 501.
    pub max_meshes: u32,
    /// Maximum animation frames. Default 65 536 (dpmodel `MAX_FRAMES`, Qfusion's cap).
    pub max_frames: u32,
    /// Maximum vertices in one mesh. Default 4 194 304 (2²²; dpmodel itself stops at 196 608).
    pub max_vertices_per_mesh: u32,
    /// Maximum triangles in one mesh. Default 4 194 304.
    pub max_triangles_per_mesh: u32,
    /// Maximum bone influences on one vertex. Default 16 (dpmodel `MAX_INFLUENCES`).
    pub max_influences_per_vertex: u32,
    /// Maximum influence records summed over all meshes. Default 2²⁶ (2 GiB of records).
    pub max_total_influences: u64,
    /// Maximum size of the data handed to a parser, in bytes. Default 2 GiB.
    pub max_file_size: u64,
    /// Maximum skins in a model: GameStudio MDL, HMP and MDL7 skins, Quake and MD2 skins,
    /// Half-Life textures, skin references and skin families. Default 256.
    pub max_skins: u32,
    /// Maximum width or height of a skin, in texels. Default 65 536, the bound DarkPlaces
    /// puts on a Quake MDL's skin (real mods ship 8192-texel skins). Each skin's texels must
    /// also be in the file, which bounds what a skin costs by the file's size.
    pub max_skin_dimension: u32,
}

impl Limits {
    /// The default limits (see each field).
    pub const DEFAULT: Limits = Limits {
        max_bones: 65_535,
        max_meshes: 65_536,
        max_frames: 65_536,
        max_vertices_per_mesh: 1 << 22,
        max_triangles_per_mesh: 1 << 22,
        max_influences_per_vertex: 16,
        max_total_influences: 1 << 26,
        max_file_size: 2 << 30,
        max_skins: 256,
        max_skin_dimension: 65_536,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}
