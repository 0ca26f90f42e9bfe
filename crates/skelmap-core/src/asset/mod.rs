//! The asset: one owned, format-neutral model in memory, the single explicit copy that
//! exporting and converting need.
//!
//! Every reader gives one ([`Model::to_asset`](crate::model::Model::to_asset); glTF through
//! `skelmap-author`), and every writer takes one (glTF, OBJ and PNG in `skelmap-export`; each
//! format's `from_asset` in its `write.rs`). It holds:
//!
//! - a [`Skeleton`]: joint names, parents, parent-relative transforms with scale, and the
//!   model-space transform each vertex is bound with; [`Skeleton::attachments`] lists joints
//!   kept though no vertex uses them;
//! - [`Mesh`]es: positions, normals, texture coordinates, colours, triangles, any number of
//!   [`Influences`] per vertex, a [`Material`] with its decoded [`Image`] or texture file, and
//!   [`MorphTarget`]s (vertex-animation frames);
//! - [`Clip`]s: name, rate, loop, and per-joint keys or morph targets per frame;
//! - [`Tag`]s: attachment points stored per vertex frame (MD3's, MDC's).
//!
//! Building one costs O(vertices + frames × joints); the model's views stay zero-copy. The
//! meshes are posed at one frame ([`Options::frame`], the bind pose unless asked), and the
//! skeleton's [`Joint::world`] is the transform at that frame: the meshes' bind.

use glam::{Affine3A, Quat, Vec3};

pub mod cut;
mod pose;
mod write;

pub use pose::{
    BoneTag, FrameKeys, MAX_BAKED_NAME, MAX_COORDINATE, MAX_RESAMPLED_FRAMES, PosedMesh,
};
pub(crate) use pose::{free_name_among, rotation_translation};
pub use write::{Place, WriteError, WriteOptions, Writer, Written, WrittenFile, framegroups_text};

use crate::alias::idp3_write::cut_name;
use crate::name::CodePage;
use crate::pose::LocalPose;
use crate::pose::framegroups::FrameGroup;
use crate::view::DeformError;
pub use crate::view::UpAxis;

/// The joint index [`Influences`] use for "bound to no joint: stays where the asset put it".
pub const UNBOUND: u16 = u16::MAX;

/// Most animation keys an asset holds, over every clip: frames × joints (4 Mi keys are
/// 112 MiB), or frames × morph targets for vertex animation.
pub const MAX_CLIP_KEYS: u64 = 1 << 22;

/// What can go wrong while building an asset.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The requested frame does not exist.
    #[error("frame {frame} is out of range: the model has {frames} frames")]
    FrameOutOfRange {
        /// The frame asked for.
        frame: usize,
        /// How many the model has.
        frames: usize,
    },
    /// More joints than 16-bit joint indices can address.
    #[error("{joints} joints do not fit 16-bit joint indices")]
    TooManyJoints {
        /// The number of joints.
        joints: usize,
    },
    /// The animation would hold more than [`MAX_CLIP_KEYS`] keys.
    #[error("the animation (frames × joints or morph targets) is too large: {keys} keys")]
    TooManyKeys {
        /// Keys it would hold.
        keys: u64,
    },
    /// A skinning or morph kernel rejected a mesh (impossible for a validated model).
    #[error(transparent)]
    Deform(#[from] DeformError),
}

/// An asset that does not fit a format: what does not fit, the format's limit, and what to
/// do about it. Writers check every limit before they write anything.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{format} cannot hold {what}: {limit}; {advice}")]
pub struct FitError {
    /// The format's short name (`"MS3D"`).
    pub format: &'static str,
    /// What does not fit (`"70,112 vertices in mesh 'body'"`).
    pub what: String,
    /// The format's limit (`"at most 65,534 vertices"`).
    pub limit: String,
    /// What to do about it.
    pub advice: String,
}

impl FitError {
    /// A fit error.
    #[must_use]
    pub fn new(
        format: &'static str,
        what: impl Into<String>,
        limit: impl Into<String>,
        advice: impl Into<String>,
    ) -> Self {
        FitError {
            format,
            what: what.into(),
            limit: limit.into(),
            advice: advice.into(),
        }
    }
}

/// A writer's builder made from an asset, and what the format could not keep, in words
/// (influences cut to four, scale dropped, names shortened …), for the user to read.
#[derive(Debug, Clone)]
pub struct Fitted<B> {
    /// The builder, ready to write.
    pub builder: B,
    /// What was lost or changed on the way, one sentence each; empty when nothing was.
    pub losses: Vec<String>,
}

/// What [`Model::to_asset`](crate::model::Model::to_asset) builds.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The frame to pose the meshes at; `None` is the bind pose
    /// ([`Model::bind_pose`](crate::Model::bind_pose): the stored rest pose of IQM, MD5, PSK,
    /// Half-Life, MDL7 and MS3D; frame 0 elsewhere).
    pub frame: Option<usize>,
    /// Frame groups replacing the model's clips. Groups reaching past the last frame are cut.
    pub groups: Option<Vec<FrameGroup>>,
    /// Build no clips, and so no morph targets either (posing and bounds only).
    pub no_animations: bool,
    /// Decode no skin into an image (materials keep their names and colours): for a caller
    /// that wants the vertices only, such as a measurement posing every frame.
    pub no_images: bool,
    /// Pose the meshes `seconds` into a clip as a game plays it
    /// ([`Model::pose_clip`](crate::model::Model::pose_clip), looping as the clip does)
    /// instead of at [`frame`](Options::frame).
    pub at: Option<ClipTime>,
    /// Pose the meshes by this parent-relative pose of the model's bones (a blend of clips,
    /// additive layers, bones set by hand: see [`Model::pose_local`](crate::model::Model::pose_local))
    /// instead of [`at`](Options::at) or [`frame`](Options::frame). An error for a model
    /// without bones or a pose of another number of bones.
    pub pose: Option<LocalPose>,
    /// The decoder of embedded DDS skins (GameStudio's skin types `0x6` and `0x16`):
    /// skelmap-core has none (it leaves image codecs to the crates above it), so `None` leaves
    /// such skins out; `skelmap_author::texture::decode_dds` is the one the tools pass.
    pub dds: Option<DecodeDds>,
}

/// Decodes an embedded DDS file to RGBA, `None` when it cannot ([`Options::dds`]).
pub type DecodeDds = fn(&[u8]) -> Option<Image>;

/// A time in a clip: where [`Options::at`] poses an asset.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipTime {
    /// The clip (one of the model's clips, or any run of its frames).
    pub clip: FrameGroup,
    /// Seconds from the clip's start.
    pub seconds: f32,
}

/// A model in memory: everything in the model's own coordinates and units.
#[derive(Debug, Clone)]
pub struct Asset {
    /// The format's short name (`"DPM"`, `"MDL"` …).
    pub format: &'static str,
    /// Which axis points up in [`Asset::meshes`] and [`Asset::skeleton`].
    pub up: UpAxis,
    /// The direction the model faces, a unit axis in the same coordinates (the format's
    /// [`Conventions::front`](crate::view::Conventions::front); a renderer's default camera
    /// looks at it).
    pub front: [f32; 3],
    /// The meshes, posed at the frame the asset was built for.
    pub meshes: Vec<Mesh>,
    /// Materials, referenced by [`Mesh::material`].
    pub materials: Vec<Material>,
    /// Decoded images, referenced by [`Material::image`].
    pub images: Vec<Image>,
    /// The skeleton the meshes' influences refer to, posed at the same frame.
    pub skeleton: Option<Skeleton>,
    /// Named animations.
    pub clips: Vec<Clip>,
    /// Attachment points stored beside vertex frames (MD3 and MDC tags); a skeleton's
    /// attachment points are its [`Skeleton::attachments`] instead.
    pub tags: Vec<Tag>,
    /// The frame the meshes are posed at (`None`: the bind or rest pose, or [`at`](Asset::at)).
    pub frame: Option<usize>,
    /// The clip and the seconds into it the meshes are posed at, when a time chose the pose.
    pub at: Option<(String, f32)>,
    /// `true` when a caller's pose ([`Options::pose`]: a blend, layers, bones set by hand)
    /// posed the meshes, rather than a frame, a time or the bind pose.
    pub given_pose: bool,
    /// How many NaN or infinite numbers from the file were replaced (by 0, or by the
    /// identity for rotations) so the writers get finite data. Where a joint's keys or bind
    /// transform were replaced, the bind transforms are made again from the keys as kept.
    pub replaced_non_finite: usize,
    /// The code page the source's names were in: the writers store the names in it, so
    /// they keep the source's bytes ([`CodePage`]; UTF-8 from glTF and from files whose
    /// names are all UTF-8).
    pub code_page: CodePage,
}

impl Asset {
    /// `name` as the bytes a file stores for it: in the asset's [`code_page`](Asset::code_page),
    /// so that a name read from a file is written back as that file stored it.
    ///
    /// ```
    /// use skelmap_core::{Model, name::CodePage, synth};
    /// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
    /// let mut asset = Model::from_bytes(&bytes)?.to_asset(&Default::default())?;
    /// assert_eq!(asset.name_bytes("\u{4F60}"), [0xE4, 0xBD, 0xA0]);
    /// asset.code_page = CodePage::Gbk;
    /// assert_eq!(asset.name_bytes("\u{4F60}"), [0xC4, 0xE3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn name_bytes(&self, name: &str) -> Vec<u8> {
        self.code_page.encode(name).into_owned()
    }

    /// [`name_bytes`](Asset::name_bytes) of the longest start of `name` (whole characters)
    /// that is at most `max` bytes so stored.
    #[must_use]
    pub fn name_bytes_within(&self, name: &str, max: usize) -> Vec<u8> {
        self.code_page.encode_within(name, max)
    }

    /// Refuses the first of `names` longer than `max` bytes as
    /// [`name_bytes`](Asset::name_bytes) stores it: `kind` says what they name (`"bone"`),
    /// `format` whose field is that short.
    ///
    /// # Errors
    ///
    /// [`FitError`] naming the name, its length and the limit.
    pub fn check_names<'a>(
        &self,
        format: &'static str,
        kind: &str,
        names: impl IntoIterator<Item = &'a str>,
        max: usize,
    ) -> Result<(), FitError> {
        let long = names
            .into_iter()
            .map(|name| (name, self.code_page.encode(name).len()))
            .find(|&(_, len)| len > max);
        match long {
            Some((name, len)) => Err(FitError::new(
                format,
                format!(
                    "the {kind} name '{}' ({len} bytes)",
                    crate::name::shown(name)
                ),
                format!("{kind} names are at most {max} bytes"),
                format!("rename the {kind} in the source model"),
            )),
            None => Ok(()),
        }
    }

    /// Total vertices over all meshes.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.meshes.iter().map(|m| m.positions.len()).sum()
    }

    /// Total triangles over all meshes.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.meshes.iter().map(|m| m.triangles.len()).sum()
    }

    /// The box around every posed vertex, or `None` without vertices.
    #[must_use]
    pub fn bounds(&self) -> Option<([f32; 3], [f32; 3])> {
        bounds_of(self.meshes.iter().flat_map(|m| m.positions.iter()))
    }
}

/// The componentwise minimum and maximum of `points`, or `None` when there are none.
pub(crate) fn bounds_of<'a>(
    points: impl Iterator<Item = &'a [f32; 3]>,
) -> Option<([f32; 3], [f32; 3])> {
    points.fold(None, |acc, p| {
        let (lo, hi) = acc.unwrap_or((*p, *p));
        Some((
            [lo[0].min(p[0]), lo[1].min(p[1]), lo[2].min(p[2])],
            [hi[0].max(p[0]), hi[1].max(p[1]), hi[2].max(p[2])],
        ))
    })
}

/// One mesh (one draw call): indexed triangles over per-vertex attributes.
#[derive(Debug, Clone, Default)]
pub struct Mesh {
    /// Name (mesh name, shader name or group name).
    pub name: String,
    /// Index into [`Asset::materials`].
    pub material: Option<usize>,
    /// Positions at the asset's frame.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals at the asset's frame.
    pub normals: Vec<[f32; 3]>,
    /// Texture coordinates, `v` pointing down the image (glTF's convention).
    pub uvs: Option<Vec<[f32; 2]>>,
    /// Vertex colours, RGBA (an IQM's colour array, a PSK's `VERTEXCOLOR`), when every vertex
    /// has one.
    pub colors: Option<Vec<[u8; 4]>>,
    /// Triangles, indices into the vertex arrays.
    pub triangles: Vec<[u32; 3]>,
    /// Per-vertex skeletal influences (empty when the mesh is not skinned).
    pub influences: Influences,
    /// Morph targets (the frames of a vertex-animated model, or an MDL7's frames that replace
    /// vertices, when the asset has clips): target `k` holds frame `k` minus the posed frame.
    pub targets: Vec<MorphTarget>,
}

/// Skeletal influences of every vertex, stored flat: vertex `i` owns
/// `weights[starts[i]..starts[i + 1]]`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Influences {
    /// `vertices + 1` offsets into `weights` (empty when not skinned).
    pub starts: Vec<u32>,
    /// `(joint, weight)` pairs: joints distinct per vertex, weights positive, summing to 1.
    pub weights: Vec<(u16, f32)>,
}

impl Influences {
    /// Whether the mesh carries no influences at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.starts.len() < 2
    }

    /// The influences of vertex `i` (empty out of range).
    #[must_use]
    pub fn of(&self, i: usize) -> &[(u16, f32)] {
        let range = self.starts.get(i).zip(self.starts.get(i + 1));
        range
            .and_then(|(&a, &b)| self.weights.get(a as usize..b as usize))
            .unwrap_or_default()
    }

    /// Appends one vertex's influences: duplicate joints merged, non-positive and
    /// non-finite weights dropped, the rest scaled to sum to 1. A vertex left with nothing
    /// is bound wholly to `fallback`.
    pub fn push(&mut self, raw: impl Iterator<Item = (u16, f32)>, fallback: u16) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        let first = self.weights.len();
        self.weights
            .extend(raw.filter(|&(_, w)| w.is_finite() && w > 0.0));
        merge_joints(&mut self.weights, first);
        let total: f32 = self.weights[first..].iter().map(|(_, w)| w).sum();
        if total > 0.0 && total.is_finite() {
            self.weights[first..]
                .iter_mut()
                .for_each(|(_, w)| *w /= total);
        } else {
            self.weights.truncate(first);
            self.weights.push((fallback, 1.0));
        }
        self.starts.push(self.weights.len() as u32);
    }

    /// Appends one vertex's influences as they are: `list` already has distinct joints and
    /// positive weights summing to 1 ([`Influences::top`] or [`Influences::cut`] made it).
    fn push_exact(&mut self, list: &[(u16, f32)]) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        self.weights.extend_from_slice(list);
        self.starts.push(self.weights.len() as u32);
    }

    /// The `n` largest influences of vertex `i`, largest first (ties to the lower joint
    /// index), scaled to sum to 1, and whether any were left out. Where the frames are known,
    /// [`Influences::cut`] chooses by error instead.
    #[must_use]
    pub fn top(&self, i: usize, n: usize) -> (Vec<(u16, f32)>, bool) {
        let mut list = self.of(i).to_vec();
        list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let cut = list.len() > n;
        list.truncate(n);
        let total: f32 = list.iter().map(|(_, w)| w).sum();
        if total > 0.0 {
            list.iter_mut().for_each(|(_, w)| *w /= total);
        }
        (list, cut)
    }

    /// The largest number of influences on one vertex.
    #[must_use]
    pub fn max_per_vertex(&self) -> usize {
        self.starts
            .windows(2)
            .map(|w| w[1].saturating_sub(w[0]) as usize)
            .max()
            .unwrap_or(0)
    }
}

/// Merges the entries of `list[first..]` that name one joint into the first of them, its
/// weight their sum in list order, keeping the entries' order. A vertex's list is short, so
/// each entry is matched against those kept; past [`MERGE_BY_SCAN`] (a glTF vertex may list
/// thousands of influences) they are sorted by joint, summed, and put back in order, which
/// gives the same list.
fn merge_joints(list: &mut Vec<(u16, f32)>, first: usize) {
    let Some(raw) = list.get(first..) else {
        return;
    };
    if raw.len() <= MERGE_BY_SCAN {
        let mut kept = first;
        for k in first..list.len() {
            let (joint, weight) = list[k];
            match list[first..kept].iter_mut().find(|(j, _)| *j == joint) {
                Some((_, w)) => *w += weight,
                None => {
                    list[kept] = (joint, weight);
                    kept += 1;
                }
            }
        }
        list.truncate(kept);
        return;
    }
    // (joint, position in the list), stably by joint: a joint's entries stay in list order.
    let mut order: Vec<(u16, usize)> = raw.iter().enumerate().map(|(i, &(j, _))| (j, i)).collect();
    order.sort_by_key(|&(j, _)| j);
    // (position of a joint's first entry, joint, summed weight), then by that position.
    let mut merged: Vec<(usize, u16, f32)> = Vec::new();
    for &(joint, i) in &order {
        let weight = raw[i].1;
        match merged.last_mut() {
            Some((_, j, w)) if *j == joint => *w += weight,
            _ => merged.push((i, joint, weight)),
        }
    }
    merged.sort_unstable_by_key(|&(i, _, _)| i);
    list.truncate(first);
    list.extend(merged.into_iter().map(|(_, j, w)| (j, w)));
}

/// The most influences of one vertex [`merge_joints`] matches one by one.
const MERGE_BY_SCAN: usize = 32;

/// One surface a writer makes of an asset mesh ([`Mesh::pieces`]): the mesh's vertices it
/// takes (each once, in order) and its triangles over them, in the asset's winding.
pub(crate) struct Piece {
    pub vertices: Vec<u32>,
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// The mesh as surfaces an engine loads: the whole mesh when it fits `max_verts` vertices
    /// and `max_tris` triangles; else its triangles in order, a new surface begun whenever the
    /// next triangle would take one past either limit, shared vertices copied into each
    /// surface that uses them (triangles naming a vertex the mesh lacks are left out).
    pub(crate) fn pieces(&self, max_verts: usize, max_tris: usize) -> Vec<Piece> {
        let n = self.positions.len();
        if n <= max_verts && self.triangles.len() <= max_tris {
            return vec![Piece {
                vertices: (0..n as u32).collect(),
                triangles: self.triangles.clone(),
            }];
        }
        let empty = || Piece {
            vertices: Vec::new(),
            triangles: Vec::new(),
        };
        let mut out = Vec::new();
        let mut slot = vec![u32::MAX; n];
        let mut piece = empty();
        for t in &self.triangles {
            if t.iter().any(|&v| v as usize >= n) {
                continue;
            }
            let new = t.iter().filter(|&&v| slot[v as usize] == u32::MAX).count();
            if piece.vertices.len() + new > max_verts || piece.triangles.len() == max_tris {
                for &v in &piece.vertices {
                    slot[v as usize] = u32::MAX;
                }
                out.push(core::mem::replace(&mut piece, empty()));
            }
            let mut face = [0u32; 3];
            for (k, &v) in t.iter().enumerate() {
                if slot[v as usize] == u32::MAX {
                    slot[v as usize] = piece.vertices.len() as u32;
                    piece.vertices.push(v);
                }
                face[k] = slot[v as usize];
            }
            piece.triangles.push(face);
        }
        if !piece.triangles.is_empty() {
            out.push(piece);
        }
        out
    }
}

impl Mesh {
    /// [`pieces`](Mesh::pieces), each with the name a writer stores for it: `name` for the
    /// first, `name_2`, `name_3` … for the others, each cut with its suffix to `max_name`
    /// bytes (a note in `losses` says so), and a note when the mesh is split past `engine`'s
    /// limits (`format` names the file's format).
    pub(crate) fn named_pieces(
        &self,
        (name, code_page): (&str, CodePage),
        (max_verts, max_tris): (usize, usize),
        max_name: usize,
        (format, engine): (&str, &str),
        losses: &mut Vec<String>,
    ) -> Vec<(Vec<u8>, Piece)> {
        let pieces = self.pieces(max_verts, max_tris);
        if pieces.len() > 1 {
            losses.push(format!(
                "mesh '{name}' ({} vertices, {} triangles) is past {engine}'s {max_verts} \
                 vertices or {max_tris} triangles a surface: written as {} surfaces",
                self.positions.len(),
                self.triangles.len(),
                pieces.len()
            ));
        }
        (pieces.into_iter().enumerate())
            .map(|(k, piece)| {
                let suffix = if k > 0 {
                    format!("_{}", k + 1)
                } else {
                    String::new()
                };
                let max = max_name.saturating_sub(suffix.len());
                let mut bytes = cut_name((name, code_page), max, (format, "surface"), losses);
                bytes.extend_from_slice(suffix.as_bytes());
                (bytes, piece)
            })
            .collect()
    }
}

/// One morph target: per-vertex displacements from the posed frame.
#[derive(Debug, Clone, Default)]
pub struct MorphTarget {
    /// Name (the frame's name).
    pub name: String,
    /// Position displacements.
    pub positions: Vec<[f32; 3]>,
    /// Normal displacements.
    pub normals: Vec<[f32; 3]>,
}

/// A material: a colour and optionally a decoded skin.
#[derive(Debug, Clone)]
pub struct Material {
    /// Name (shader, material or skin name).
    pub name: String,
    /// Linear RGBA factor.
    pub base_color: [f32; 4],
    /// Index into [`Asset::images`].
    pub image: Option<usize>,
    /// A texture file the material names instead (a GameStudio skin that is a file name, an
    /// MS3D material's texture), as a URI relative to the model: `\` made `/`, bytes outside
    /// a URI's unreserved characters percent-encoded. Kept only for UTF-8 names that stay below
    /// the model's folder (not absolute, no `..`); skelmap never reads the file.
    pub external: Option<String>,
    /// The texture file name the model stores, as it stores it (`\\` kept, absolute or not),
    /// decoded as [`name::lossy`](crate::name::lossy) does: MS3D's texture, an HMP7 or MDL7
    /// external skin. `None` where the format names shaders instead (DPM, SKM, IQM: the
    /// [`name`](Material::name) is the one to look a texture up by) or stores its skins.
    pub texture: Option<String>,
    /// Where texels whose alpha is below this are not drawn at all (glTF's `alphaMode`
    /// `MASK` with this `alphaCutoff`): a Half-Life masked texture, 0.5. `None`: opaque.
    pub alpha_cutoff: Option<f32>,
}

impl Default for Material {
    /// An unnamed white opaque material with no image.
    fn default() -> Self {
        Self {
            name: String::new(),
            base_color: [1.0; 4],
            image: None,
            external: None,
            texture: None,
            alpha_cutoff: None,
        }
    }
}

/// An 8-bit RGBA image, row-major from the top row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width · height · 4` bytes.
    pub rgba: Vec<u8>,
    /// The JPEG file the texels were decoded from, which writers that can hold JPEG (glTF)
    /// store as it is: re-encoding a lossy image would only grow it or lose more.
    pub jpeg: Option<Vec<u8>>,
}

/// A skeleton: joints with their parent-relative transforms at the asset's frame, and the
/// model-space transforms the meshes are bound with.
#[derive(Debug, Clone, Default)]
pub struct Skeleton {
    /// The joints, in the model's bone order (then any leaf joints carrying skin scales, then
    /// any leaf joints a tag on a bone became: see [`Model::to_asset`](crate::Model::to_asset)).
    pub joints: Vec<Joint>,
    /// Joints that are attachment points (where a weapon or a light is held): kept by
    /// optimisation though no vertex uses them. Ascending, each a valid joint index.
    pub attachments: Vec<usize>,
}

/// The prefix Quake III's, Enemy Territory's and Doom 3's tools give the joints a game finds
/// attached things on by name (`tag_weapon`, `tag_muzzle`; QuakeC's `gettaginfo`).
pub const TAG_PREFIX: &str = "tag_";

/// Whether `name` is a tag's: it begins with [`TAG_PREFIX`], ASCII case ignored.
///
/// ```
/// use skelmap_core::asset::is_tag_name;
/// assert!(is_tag_name("tag_weapon") && is_tag_name("TAG_Head"));
/// assert!(!is_tag_name("tag") && !is_tag_name("stag_horn"));
/// ```
#[must_use]
pub fn is_tag_name(name: &str) -> bool {
    name.as_bytes()
        .get(..TAG_PREFIX.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(TAG_PREFIX.as_bytes()))
}

impl Skeleton {
    /// The joints a game finds attached things on, ascending: those flagged in
    /// [`attachments`](Skeleton::attachments) and those named `tag_…` ([`is_tag_name`]). The
    /// writers of formats that hold tags or attachments (MD3, MDC, MDR, MDM, Half-Life) make
    /// one of each, and optimisation keeps them.
    ///
    /// ```
    /// use glam::{Affine3A, Quat, Vec3};
    /// use skelmap_core::asset::{Joint, Skeleton};
    /// let joint = |name: &str| Joint {
    ///     name: name.into(),
    ///     parent: None,
    ///     rotation: Quat::IDENTITY,
    ///     translation: Vec3::ZERO,
    ///     scale: Vec3::ONE,
    ///     world: Affine3A::IDENTITY,
    /// };
    /// let skeleton = Skeleton {
    ///     joints: vec![joint("root"), joint("Tag_Muzzle"), joint("hand"), joint("light")],
    ///     attachments: vec![3],
    /// };
    /// assert_eq!(skeleton.attachment_points(), [1, 3]);
    /// ```
    #[must_use]
    pub fn attachment_points(&self) -> Vec<usize> {
        let mut flagged = vec![false; self.joints.len()];
        for &a in &self.attachments {
            if let Some(f) = flagged.get_mut(a) {
                *f = true;
            }
        }
        (self.joints.iter().zip(flagged).enumerate())
            .filter(|(_, (joint, flagged))| *flagged || is_tag_name(&joint.name))
            .map(|(j, _)| j)
            .collect()
    }
}

/// One joint.
#[derive(Debug, Clone)]
pub struct Joint {
    /// Name.
    pub name: String,
    /// Parent joint (always a valid index; the hierarchy has no cycle).
    pub parent: Option<usize>,
    /// Rotation relative to the parent at the asset's frame.
    pub rotation: Quat,
    /// Translation relative to the parent at the asset's frame.
    pub translation: Vec3,
    /// Scale, applied before the rotation, at the asset's frame (1 but for IQM joints and
    /// the leaf joints that carry an MD5's skin scales).
    pub scale: Vec3,
    /// Model-space transform at the asset's frame (the bind transform: its inverse is the
    /// inverse bind matrix).
    pub world: Affine3A,
}

/// An attachment point that moves with vertex frames (an MD3 tag): a transform per frame
/// whose linear part's columns are the point's forward, left and up axes and whose
/// translation is its origin, as [`Model::attachment_transform`](crate::Model::attachment_transform)
/// gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    /// Name (`tag_weapon`).
    pub name: String,
    /// Where it is at the asset's pose.
    pub pose: Affine3A,
    /// Where it is in each frame, as stored: entry `k` beside morph target `k`
    /// ([`ClipKeys::Morph`]); empty when the asset has no morph targets.
    pub frames: Vec<Affine3A>,
}

impl Tag {
    /// The tag in the frame that shows morph target `target`, or at the asset's pose when it
    /// has no such frame.
    #[must_use]
    pub fn at_target(&self, target: usize) -> Affine3A {
        self.frames.get(target).copied().unwrap_or(self.pose)
    }
}

/// A named animation.
#[derive(Debug, Clone)]
pub struct Clip {
    /// Name.
    pub name: String,
    /// First frame in the model's numbering.
    pub first: u32,
    /// Frames per second.
    pub fps: f32,
    /// Whether it loops.
    pub looped: bool,
    /// What the clip animates.
    pub keys: ClipKeys,
}

impl Clip {
    /// Number of sampled frames.
    #[must_use]
    pub fn len(&self) -> usize {
        match &self.keys {
            ClipKeys::Joints(frames) => frames.len(),
            ClipKeys::Morph(frames) => frames.len(),
        }
    }

    /// Whether the clip has no frame.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One joint's parent-relative pose in one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointKey {
    /// Rotation.
    pub rotation: Quat,
    /// Translation.
    pub translation: Vec3,
    /// Scale, applied before the rotation (1 but for IQM and the leaf joints that carry an
    /// MD5's skin scales).
    pub scale: Vec3,
}

impl JointKey {
    /// The key as a row-major 3×4 matrix, rows `(r00 r01 r02 tx)` … (DPM's and ZYM's
    /// poses).
    #[must_use]
    pub fn matrix3x4(&self) -> [[f32; 4]; 3] {
        let m =
            Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation);
        let (x, y, z) = (m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis);
        [
            [x.x, y.x, z.x, m.translation.x],
            [x.y, y.y, z.y, m.translation.y],
            [x.z, y.z, z.z, m.translation.z],
        ]
    }
}

/// The keys of a clip, one entry per frame at `1 / fps` intervals.
#[derive(Debug, Clone)]
pub enum ClipKeys {
    /// Per frame, per joint: its parent-relative pose.
    Joints(Vec<Vec<JointKey>>),
    /// Per frame, the morph target it shows (target `k` is frame `k`).
    Morph(Vec<u32>),
}

/// `v` scaled to unit length, or `+Z` when it has none.
pub(crate) fn unit(v: [f32; 3]) -> [f32; 3] {
    let n = Vec3::from(v).normalize_or_zero();
    if n == Vec3::ZERO {
        [0.0, 0.0, 1.0]
    } else {
        n.into()
    }
}

/// `weights` (non-negative) as integers summing to exactly `total`, by largest remainder:
/// each gets the floor of its share, and the units left go to the largest remainders
/// (ties to the earlier weight). All-zero weights give all zeros.
#[must_use]
pub fn quantise_weights(weights: &[f32], total: u32) -> Vec<u32> {
    let sum: f64 = weights.iter().map(|&w| f64::from(w.max(0.0))).sum();
    if !(sum > 0.0 && sum.is_finite()) {
        return vec![0; weights.len()];
    }
    let exact: Vec<f64> = weights
        .iter()
        .map(|&w| f64::from(w.max(0.0)) / sum * f64::from(total))
        .collect();
    let mut out: Vec<u32> = exact.iter().map(|e| e.floor() as u32).collect();
    let given: u32 = out.iter().sum();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    for &k in order
        .iter()
        .cycle()
        .take(total.saturating_sub(given) as usize)
    {
        out[k] += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn influences_merge_drop_and_renormalise() {
        let mut inf = Influences::default();
        // Joint 2 twice (merged to 0.5), a negative and a NaN weight dropped.
        inf.push(
            [(2, 0.25), (5, 0.5), (2, 0.25), (7, -1.0), (8, f32::NAN)].into_iter(),
            0,
        );
        // Nothing usable: bound to the fallback joint.
        inf.push([(3, 0.0)].into_iter(), 9);
        assert_eq!(inf.of(0), &[(2, 0.5), (5, 0.5)]);
        assert_eq!(inf.of(1), &[(9, 1.0)]);
        assert_eq!(inf.of(2), &[] as &[(u16, f32)]);
        assert_eq!(inf.max_per_vertex(), 2);
        assert_eq!(inf.top(0, 1), (vec![(2, 1.0)], true));
    }

    /// The list `Influences::push` keeps, matched one entry at a time against those kept.
    fn merged_one_by_one(raw: &[(u16, f32)]) -> Vec<(u16, f32)> {
        let mut kept: Vec<(u16, f32)> = Vec::new();
        for &(joint, weight) in raw.iter().filter(|(_, w)| *w > 0.0) {
            match kept.iter_mut().find(|(j, _)| *j == joint) {
                Some((_, w)) => *w += weight,
                None => kept.push((joint, weight)),
            }
        }
        let total: f32 = kept.iter().map(|(_, w)| w).sum();
        kept.iter_mut().for_each(|(_, w)| *w /= total);
        kept
    }

    #[test]
    fn a_long_influence_list_merges_as_a_short_one_does() {
        // Past the scan's length, joints repeated out of order, with weights whose sums
        // depend on their order: the same joints, order and bits as matching one by one.
        for len in [MERGE_BY_SCAN, MERGE_BY_SCAN + 1, 200, 20_000] {
            let raw: Vec<(u16, f32)> = (0..len)
                .map(|i| (((i * 7919) % 97) as u16, 0.1 + (i % 13) as f32 * 0.37))
                .collect();
            let mut inf = Influences::default();
            inf.push(raw.iter().copied(), 0);
            let want = merged_one_by_one(&raw);
            assert_eq!(inf.of(0).len(), want.len(), "{len}");
            assert!(
                inf.of(0)
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| a.0 == b.0 && a.1.to_bits() == b.1.to_bits())
            );
        }
        // 65,536 distinct joints on one vertex: each kept once, in the order given.
        let raw: Vec<(u16, f32)> = (0..=u16::MAX).rev().map(|j| (j, 1.0)).collect();
        let mut inf = Influences::default();
        inf.push(raw.iter().copied(), 0);
        assert_eq!(inf.of(0).len(), 65_536);
        assert_eq!(inf.of(0)[0].0, u16::MAX);
        assert_eq!(inf.of(0)[65_535].0, 0);
    }

    #[test]
    fn weights_quantise_to_an_exact_total() {
        assert_eq!(quantise_weights(&[0.5, 0.25, 0.25], 255), [127, 64, 64]);
        assert_eq!(quantise_weights(&[1.0, 1.0, 1.0], 100), [34, 33, 33]);
        assert_eq!(quantise_weights(&[0.0, 0.0], 255), [0, 0]);
        assert_eq!(
            quantise_weights(&[0.7, 0.2, 0.1], 65535)
                .iter()
                .sum::<u32>(),
            65535
        );
    }
}
