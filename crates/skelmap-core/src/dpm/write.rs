//! Writing DPM files: [`Builder`].
//!
//! The builder writes exactly what it is given, valid or not, so it also serves to make
//! malformed test fixtures; [`Dpm::parse`](crate::Parse::parse) is the judge. The layout is
//! dpmodel's: header, bones, mesh headers, frame headers, then for each mesh its vertices,
//! texture coordinates, indices and group ids, then for each frame its bone poses. Every
//! structure is a multiple of 4 bytes, so every offset is 4-aligned.

use zerocopy::IntoBytes;
use zerocopy::byteorder::{BigEndian, F32, I32, U32};

use super::raw::{self, BonePose, DPM_MAGIC, DPM_TYPE_SKELETAL, Header};
use glam::Vec3;

use crate::asset::{Asset, FitError, Fitted, JointKey, UpAxis};
use crate::error::{Error, Result};
use crate::format::Format;
use crate::write;
pub use crate::write::{BoneDef, Influence};

/// A row-major 3×4 bone matrix `(rotation | translation)`.
pub type Matrix3x4 = [[f32; 4]; 3];

/// The identity pose.
pub const IDENTITY: Matrix3x4 = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];

/// A mesh to write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeshDef {
    /// Shader (texture) name, at most 32 bytes.
    pub shader: Vec<u8>,
    /// Per vertex, its influences (written in this order).
    pub vertices: Vec<Vec<Influence>>,
    /// Per vertex texture coordinates, `t` already flipped; missing entries are written as 0.
    pub texcoords: Vec<[f32; 2]>,
    /// Triangles, counter-clockwise.
    pub triangles: Vec<[u32; 3]>,
    /// Per triangle group ids; missing entries are written as 0.
    pub group_ids: Vec<u32>,
}

/// Bounds as the header and each frame store them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bounds {
    /// Box minimum.
    pub mins: [f32; 3],
    /// Box maximum.
    pub maxs: [f32; 3],
    /// Largest distance from the Z axis.
    pub yaw_radius: f32,
    /// Largest distance from the origin.
    pub all_radius: f32,
}

impl Bounds {
    fn union(self, other: Bounds) -> Bounds {
        Bounds {
            mins: core::array::from_fn(|k| self.mins[k].min(other.mins[k])),
            maxs: core::array::from_fn(|k| self.maxs[k].max(other.maxs[k])),
            yaw_radius: self.yaw_radius.max(other.yaw_radius),
            all_radius: self.all_radius.max(other.all_radius),
        }
    }

    fn of_points(points: impl Iterator<Item = [f32; 3]>) -> Bounds {
        let mut b: Option<Bounds> = None;
        for p in points {
            let yaw = (p[0] * p[0] + p[1] * p[1]).sqrt();
            let all = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
            let here = Bounds {
                mins: p,
                maxs: p,
                yaw_radius: yaw,
                all_radius: all,
            };
            b = Some(b.map_or(here, |b| b.union(here)));
        }
        b.unwrap_or_default()
    }
}

/// A frame to write.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameDef {
    /// Name, at most 32 bytes.
    pub name: Vec<u8>,
    /// One parent-relative pose per bone; missing entries are written as identity.
    pub poses: Vec<Matrix3x4>,
    /// Bounds to store; `None` computes them by skinning the meshes with this frame.
    pub bounds: Option<Bounds>,
}

impl FrameDef {
    /// A frame whose bounds are computed when written.
    #[must_use]
    pub fn new(name: impl Into<Vec<u8>>, poses: Vec<Matrix3x4>) -> Self {
        FrameDef {
            name: name.into(),
            poses,
            bounds: None,
        }
    }
}

/// Where [`Builder::write_with_layout`] put each structure (for tests that patch bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Offset of the bone table.
    pub ofs_bones: u64,
    /// Offset of the mesh table.
    pub ofs_meshs: u64,
    /// Offset of the frame table.
    pub ofs_frames: u64,
    /// Per mesh: header offset and array offsets.
    pub meshes: Vec<MeshLayout>,
    /// Per frame: offset of its bone poses.
    pub frame_poses: Vec<u64>,
    /// Total size written.
    pub filesize: u64,
}

/// Offsets of one mesh's structures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeshLayout {
    /// The 56-byte mesh header.
    pub header: u64,
    /// The first vertex record.
    pub ofs_verts: u64,
    /// The texture coordinates.
    pub ofs_texcoords: u64,
    /// The triangle indices.
    pub ofs_indices: u64,
    /// The group ids.
    pub ofs_groupids: u64,
}

/// Builds a DPM file from bones, meshes and frames.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::dpm::{BoneDef, Dpm, Builder, FrameDef, Influence, MeshDef};
/// use skelmap_core::dpm::write::IDENTITY;
///
/// let mut b = Builder::default();
/// b.bones.push(BoneDef::new("root", -1));
/// b.meshes.push(MeshDef {
///     shader: b"skin".to_vec(),
///     vertices: (0..3)
///         .map(|i| vec![Influence::weighted(0, 1.0, [i as f32, 0.0, 0.0], [0.0, 0.0, 1.0])])
///         .collect(),
///     texcoords: vec![[0.0, 0.0]; 3],
///     triangles: vec![[0, 1, 2]],
///     group_ids: vec![],
/// });
/// b.frames.push(FrameDef::new("bind", vec![IDENTITY]));
/// let bytes = b.write()?;
/// assert_eq!(bytes.len(), 80 + 40 + 56 + 68 + 3 * 36 + 3 * 8 + 12 + 4 + 48);
/// assert_eq!(Dpm::parse(&bytes)?.num_vertices(), 3);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Builder {
    /// Bones, parents first.
    pub bones: Vec<BoneDef>,
    /// Meshes.
    pub meshes: Vec<MeshDef>,
    /// Frames; frame 0 is the bind pose.
    pub frames: Vec<FrameDef>,
    /// Header bounds; `None` stores the union of the frame bounds.
    pub bounds: Option<Bounds>,
}

impl Builder {
    /// Writes the file.
    ///
    /// # Errors
    ///
    /// [`Error::Write`] when a name is longer than 32 bytes or a count or offset does not fit
    /// the format's 32-bit fields.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.write_with_layout().map(|(bytes, _)| bytes)
    }

    /// Writes the file and reports where each structure went.
    ///
    /// # Errors
    ///
    /// As [`Builder::write`].
    pub fn write_with_layout(&self) -> Result<(Vec<u8>, Layout)> {
        let layout = self.layout();
        let frame_bounds: Vec<Bounds> = self
            .frames
            .iter()
            .map(|f| f.bounds.unwrap_or_else(|| self.skinned_bounds(&f.poses)))
            .collect();
        let bounds = self.bounds.unwrap_or_else(|| {
            frame_bounds
                .iter()
                .copied()
                .reduce(Bounds::union)
                .unwrap_or_default()
        });

        let mut out = Vec::with_capacity(usize::try_from(layout.filesize).unwrap_or(0));
        let header = Header {
            id: *DPM_MAGIC,
            type_: U32::new(DPM_TYPE_SKELETAL),
            filesize: u32_field("header.filesize", layout.filesize)?,
            mins: be3(bounds.mins),
            maxs: be3(bounds.maxs),
            yawradius: F32::new(bounds.yaw_radius),
            allradius: F32::new(bounds.all_radius),
            num_bones: u32_field("header.num_bones", self.bones.len() as u64)?,
            num_meshs: u32_field("header.num_meshs", self.meshes.len() as u64)?,
            num_frames: u32_field("header.num_frames", self.frames.len() as u64)?,
            ofs_bones: u32_field("header.ofs_bones", layout.ofs_bones)?,
            ofs_meshs: u32_field("header.ofs_meshs", layout.ofs_meshs)?,
            ofs_frames: u32_field("header.ofs_frames", layout.ofs_frames)?,
        };
        out.extend_from_slice(header.as_bytes());

        for bone in &self.bones {
            let record = raw::Bone {
                name: name_field("bone.name", &bone.name)?,
                parent: I32::new(bone.parent),
                flags: U32::new(bone.flags),
            };
            out.extend_from_slice(record.as_bytes());
        }
        for (mesh, at) in self.meshes.iter().zip(&layout.meshes) {
            let record = raw::Mesh {
                shadername: name_field("mesh.shadername", &mesh.shader)?,
                num_verts: u32_field("mesh.num_verts", mesh.vertices.len() as u64)?,
                num_tris: u32_field("mesh.num_tris", mesh.triangles.len() as u64)?,
                ofs_verts: u32_field("mesh.ofs_verts", at.ofs_verts)?,
                ofs_texcoords: u32_field("mesh.ofs_texcoords", at.ofs_texcoords)?,
                ofs_indices: u32_field("mesh.ofs_indices", at.ofs_indices)?,
                ofs_groupids: u32_field("mesh.ofs_groupids", at.ofs_groupids)?,
            };
            out.extend_from_slice(record.as_bytes());
        }
        for ((frame, b), &ofs) in self
            .frames
            .iter()
            .zip(&frame_bounds)
            .zip(&layout.frame_poses)
        {
            let record = raw::Frame {
                name: name_field("frame.name", &frame.name)?,
                mins: be3(b.mins),
                maxs: be3(b.maxs),
                yawradius: F32::new(b.yaw_radius),
                allradius: F32::new(b.all_radius),
                ofs_bonepositions: I32::new(i32::try_from(ofs).map_err(|_| Error::Write {
                    format: Format::Dpm,
                    what: "frame.ofs_bonepositions",
                    value: ofs,
                    max: i32::MAX as u64,
                })?),
            };
            out.extend_from_slice(record.as_bytes());
        }
        for mesh in &self.meshes {
            write::put_vertices::<BigEndian>(&mut out, &mesh.vertices);
            write::put_texcoords::<BigEndian>(&mut out, &mesh.texcoords, mesh.vertices.len());
            write::put_u32s::<BigEndian>(&mut out, mesh.triangles.iter().flatten().copied());
            let groups =
                (0..mesh.triangles.len()).map(|i| mesh.group_ids.get(i).copied().unwrap_or(0));
            write::put_u32s::<BigEndian>(&mut out, groups);
        }
        for frame in &self.frames {
            for b in 0..self.bones.len() {
                let m = frame.poses.get(b).copied().unwrap_or(IDENTITY);
                out.extend_from_slice(BonePose::new(m).as_bytes());
            }
        }
        Ok((out, layout))
    }

    /// Computes the offsets [`Builder::write`] will use.
    fn layout(&self) -> Layout {
        let mut at = size_of::<Header>() as u64;
        let mut take = |size: u64| {
            let start = at;
            at = at.saturating_add(size);
            start
        };
        let n = |len: usize, size: usize| (len as u64).saturating_mul(size as u64);
        let ofs_bones = take(n(self.bones.len(), size_of::<raw::Bone>()));
        let ofs_meshs = take(n(self.meshes.len(), size_of::<raw::Mesh>()));
        let ofs_frames = take(n(self.frames.len(), size_of::<raw::Frame>()));
        let mut meshes = Vec::with_capacity(self.meshes.len());
        for (i, mesh) in self.meshes.iter().enumerate() {
            let verts = write::vertices_size(&mesh.vertices);
            meshes.push(MeshLayout {
                header: ofs_meshs + n(i, size_of::<raw::Mesh>()),
                ofs_verts: take(verts),
                ofs_texcoords: take(n(mesh.vertices.len(), 8)),
                ofs_indices: take(n(mesh.triangles.len(), 12)),
                ofs_groupids: take(n(mesh.triangles.len(), 4)),
            });
        }
        let pose_block = n(self.bones.len(), size_of::<BonePose>());
        let frame_poses = self.frames.iter().map(|_| take(pose_block)).collect();
        Layout {
            ofs_bones,
            ofs_meshs,
            ofs_frames,
            meshes,
            frame_poses,
            filesize: at,
        }
    }

    /// Bounds of all mesh vertices skinned with `poses` (invalid parents and bones skipped).
    fn skinned_bounds(&self, poses: &[Matrix3x4]) -> Bounds {
        let mut absolute: Vec<Matrix3x4> = Vec::with_capacity(self.bones.len());
        for (i, bone) in self.bones.iter().enumerate() {
            let local = poses.get(i).copied().unwrap_or(IDENTITY);
            let parent = usize::try_from(bone.parent).ok().filter(|&p| p < i);
            let m = match parent.and_then(|p| absolute.get(p)) {
                Some(parent) => concat(parent, &local),
                None => local,
            };
            absolute.push(m);
        }
        let points = self
            .meshes
            .iter()
            .flat_map(|mesh| mesh.vertices.iter())
            .map(|vertex| {
                let mut p = [0.0f32; 3];
                for inf in vertex {
                    if let Some(m) = absolute.get(inf.bone as usize) {
                        for (k, row) in m.iter().enumerate() {
                            p[k] += row[0] * inf.origin[0]
                                + row[1] * inf.origin[1]
                                + row[2] * inf.origin[2]
                                + row[3] * inf.weight;
                        }
                    }
                }
                p
            });
        Bounds::of_points(points)
    }
}

/// `parent · local` for row-major 3×4 affine matrices.
#[must_use]
pub fn concat(parent: &Matrix3x4, local: &Matrix3x4) -> Matrix3x4 {
    core::array::from_fn(|r| {
        core::array::from_fn(|c| {
            let rot = parent[r][0] * local[0][c]
                + parent[r][1] * local[1][c]
                + parent[r][2] * local[2][c];
            if c == 3 { rot + parent[r][3] } else { rot }
        })
    })
}

fn be3(v: [f32; 3]) -> [F32<BigEndian>; 3] {
    v.map(F32::new)
}

fn u32_field(what: &'static str, value: u64) -> Result<U32<BigEndian>> {
    write::u32_field(Format::Dpm, what, value).map(U32::new)
}

fn name_field(what: &'static str, name: &[u8]) -> Result<[u8; 32]> {
    write::name_field(Format::Dpm, what, name)
}

/// Longest DPM name that keeps its terminating NUL: bone, shader and frame names.
pub const MAX_NAME: usize = 31;

impl Builder {
    /// `asset` as a DPM (`+Z` up; a `+Y`-up asset is turned): its joints as bones
    /// (attachments flagged), one mesh per asset mesh with every influence pre-weighted in
    /// its bone's bind space, every frame of every clip as parent-relative 3×4 matrices, the
    /// frames named after their clip (`walk_1`, `walk_2` …) so that the clips come back from
    /// the names. Their rates and loops do not: [`framegroups`](crate::pose::framegroups)
    /// text made from [`Asset::clips`] carries them.
    ///
    /// A DPM has at least one bone and one frame: an asset without a skeleton gets a root
    /// that holds every vertex, one without clips the bind pose as its frame. A vertex bound
    /// to no joint of a skinned asset is bound to a joint added for it
    /// ([`Asset::with_still_joint`]). Bones do not scale: a bind pose that scales is kept by
    /// weighting the vertices in the unscaled bones' space
    /// ([`Skeleton::unscaled_inverse_binds`](crate::asset::Skeleton::unscaled_inverse_binds)),
    /// and the frames are stored without scale.
    ///
    /// ```
    /// use skelmap_core::{Model, asset, dpm, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// let dpm = dpm::Builder::from_asset(&asset)?.builder.write()?;
    /// let model = Model::from_bytes(&dpm)?;
    /// assert_eq!((model.num_bones(), model.num_frames(), model.clips().len()), (4, 9, 2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for a bone or shader name longer than [`MAX_NAME`] bytes, or for vertex
    /// animation (morph clips), which DPM cannot hold.
    pub fn from_asset(asset: &Asset) -> core::result::Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        // A vertex bound to no joint stays put on a joint added for it.
        let (asset, still) = asset.with_still_joint();
        let (asset, dropped) = asset.drawable("DPM")?;
        asset.refuse_vertex_animation("DPM")?;
        let skeleton = asset.skeleton_or_root();
        asset.check_names(
            "DPM",
            "bone",
            skeleton.joints.iter().map(|j| j.name.as_str()),
            MAX_NAME,
        )?;
        let shaders = asset.shader_names("DPM", MAX_NAME)?;
        let mut losses = Vec::new();
        losses.extend(still);
        losses.extend(dropped);
        let (inverse, unscaled) = skeleton.unscaled_inverse_binds("DPM");
        losses.extend(unscaled);
        let mut b = Builder {
            bones: skeleton.bone_defs(asset.code_page),
            ..Builder::default()
        };
        for (mesh, shader) in asset.meshes.iter().zip(shaders) {
            let vertices = mesh.pre_weighted(&inverse);
            b.meshes.push(MeshDef {
                shader: asset.name_bytes(&shader),
                vertices,
                texcoords: mesh.uvs_or_zero(),
                triangles: mesh.triangles.clone(),
                group_ids: Vec::new(),
            });
        }
        let frames = asset.joint_frames().unwrap_or_default();
        let names = asset.frame_names(MAX_NAME);
        let scaled = asset.scaled_frames();
        if scaled > 0 {
            losses.push(format!(
                "{scaled} frames scale a joint; DPM readers read rotations without scale, so \
                 those frames differ (IQM keeps scale)"
            ));
        }
        // Stored without scale: a reader turns a scaled matrix into a rotation that is not
        // the key's, where the unscaled bones the vertices are weighted in put them exactly.
        let matrix = |k: &JointKey| {
            JointKey {
                scale: Vec3::ONE,
                ..*k
            }
            .matrix3x4()
        };
        b.frames = frames
            .iter()
            .zip(names)
            .map(|(keys, name)| FrameDef::new(name, keys.iter().map(matrix).collect()))
            .collect();
        if b.frames.is_empty() {
            let poses = skeleton.bind_keys().iter().map(matrix).collect();
            b.frames.push(FrameDef::new("bind", poses));
        }
        Ok(Fitted { builder: b, losses })
    }
}

impl crate::asset::Writer for Builder {
    const FORMAT: Format = Format::Dpm;

    /// The DPM, and its clips in a `.framegroups` beside it (DPM stores frames, not clips).
    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> core::result::Result<crate::asset::Written, crate::asset::WriteError> {
        use crate::asset::{Place, Written, WrittenFile};
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        let mut files = vec![WrittenFile {
            place: Place::Main,
            bytes: builder.write()?,
        }];
        if !asset.clips.is_empty() {
            files.push(WrittenFile {
                place: Place::Suffix(".framegroups"),
                bytes: asset.name_bytes(&crate::asset::framegroups_text(asset)),
            });
        }
        Ok(Written::new(Self::FORMAT, files).with_notes(losses))
    }
}
