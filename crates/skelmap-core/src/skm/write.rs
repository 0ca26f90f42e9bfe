//! Writing SKM and SKP files: [`SkmBuilder`] and [`SkpBuilder`].
//!
//! Like the DPM writer they write exactly what they are given, valid or not (the parsers are
//! the judges), in the layout of the reference tool: SKM header, mesh headers, then per mesh
//! its vertices, texture coordinates, indices and references; SKP header, bones, frame
//! headers, then per frame its poses. Every offset is 4-aligned.

use zerocopy::IntoBytes;
use zerocopy::byteorder::{I32, LittleEndian, U32};

use super::raw::{
    SKM_MAGIC, SKM_MAX_NAME, SKM_TYPE, SkmHeader, SkmMesh, SkpBone, SkpBonePose, SkpFrame,
    SkpHeader,
};

use crate::asset::{Asset, FitError, Fitted, JointKey, UpAxis};
use crate::error::Result;
use crate::format::Format;
use crate::write::{self, put_texcoords, put_u32s, put_vertices, vertices_size};
pub use crate::write::{BoneDef, Influence};

type Le = LittleEndian;

/// A mesh to write into an SKM.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeshDef {
    /// Shader (texture) name, at most 64 bytes.
    pub shader: Vec<u8>,
    /// Mesh name, at most 64 bytes.
    pub name: Vec<u8>,
    /// Per vertex, its influences (written in this order).
    pub vertices: Vec<Vec<Influence>>,
    /// Per vertex texture coordinates; missing entries are written as 0.
    pub texcoords: Vec<[f32; 2]>,
    /// Triangles.
    pub triangles: Vec<[u32; 3]>,
    /// The bone indices the mesh uses.
    pub references: Vec<u32>,
}

/// Where [`SkmBuilder::write_with_layout`] put each structure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MeshLayout {
    /// Offset of the mesh table.
    pub ofs_meshes: u64,
    /// Per mesh: `[header, ofs_verts, ofs_texcoords, ofs_indices, ofs_references]`.
    pub meshes: Vec<[u64; 5]>,
    /// Total size written.
    pub filesize: u64,
}

/// Builds an SKM mesh file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkmBuilder {
    /// Bones of the skeleton the meshes are weighted to.
    pub num_bones: u32,
    /// Meshes.
    pub meshes: Vec<MeshDef>,
}

impl SkmBuilder {
    /// Writes the file.
    ///
    /// # Errors
    ///
    /// [`Error::Write`](crate::Error::Write) when a name is longer than 64 bytes or a count
    /// or offset does not fit its 32-bit field.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.write_with_layout().map(|(bytes, _)| bytes)
    }

    /// Writes the file and reports where each structure went.
    ///
    /// # Errors
    ///
    /// As [`SkmBuilder::write`].
    pub fn write_with_layout(&self) -> Result<(Vec<u8>, MeshLayout)> {
        let field = |what, v| write::u32_field(Format::Skm, what, v).map(U32::<Le>::new);
        let ofs_meshes = size_of::<SkmHeader>() as u64;
        let mut at = ofs_meshes + (self.meshes.len() * size_of::<SkmMesh>()) as u64;
        let mut meshes = Vec::with_capacity(self.meshes.len());
        for (i, m) in self.meshes.iter().enumerate() {
            let header = ofs_meshes + (i * size_of::<SkmMesh>()) as u64;
            let ofs_verts = at;
            let ofs_texcoords = ofs_verts + vertices_size(&m.vertices);
            let ofs_indices = ofs_texcoords + 8 * m.vertices.len() as u64;
            let ofs_references = ofs_indices + 12 * m.triangles.len() as u64;
            at = ofs_references + 4 * m.references.len() as u64;
            meshes.push([
                header,
                ofs_verts,
                ofs_texcoords,
                ofs_indices,
                ofs_references,
            ]);
        }
        let layout = MeshLayout {
            ofs_meshes,
            meshes,
            filesize: at,
        };

        let mut out = Vec::with_capacity(usize::try_from(at).unwrap_or(0));
        let header = SkmHeader {
            id: *SKM_MAGIC,
            type_: U32::new(SKM_TYPE),
            filesize: field("header.filesize", layout.filesize)?,
            num_bones: U32::new(self.num_bones),
            num_meshes: field("header.num_meshes", self.meshes.len() as u64)?,
            ofs_meshes: field("header.ofs_meshes", ofs_meshes)?,
        };
        out.extend_from_slice(header.as_bytes());
        for (m, ofs) in self.meshes.iter().zip(&layout.meshes) {
            let record = SkmMesh {
                shadername: write::name_field::<SKM_MAX_NAME>(
                    Format::Skm,
                    "mesh.shadername",
                    &m.shader,
                )?,
                meshname: write::name_field::<SKM_MAX_NAME>(Format::Skm, "mesh.meshname", &m.name)?,
                num_verts: field("mesh.num_verts", m.vertices.len() as u64)?,
                num_tris: field("mesh.num_tris", m.triangles.len() as u64)?,
                num_references: field("mesh.num_references", m.references.len() as u64)?,
                ofs_verts: field("mesh.ofs_verts", ofs[1])?,
                ofs_texcoords: field("mesh.ofs_texcoords", ofs[2])?,
                ofs_indices: field("mesh.ofs_indices", ofs[3])?,
                ofs_references: field("mesh.ofs_references", ofs[4])?,
            };
            out.extend_from_slice(record.as_bytes());
        }
        for m in &self.meshes {
            put_vertices::<Le>(&mut out, &m.vertices);
            put_texcoords::<Le>(&mut out, &m.texcoords, m.vertices.len());
            put_u32s::<Le>(&mut out, m.triangles.iter().flatten().copied());
            put_u32s::<Le>(&mut out, m.references.iter().copied());
        }
        Ok((out, layout))
    }
}

/// One frame to write into an SKP.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameDef {
    /// Frame name, at most 64 bytes.
    pub name: Vec<u8>,
    /// Per bone: quaternion `(x, y, z, w)` and origin, relative to the parent; missing entries
    /// are written as the identity.
    pub poses: Vec<([f32; 4], [f32; 3])>,
}

/// Where [`SkpBuilder::write_with_layout`] put each structure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkeletonLayout {
    /// Offset of the bone table.
    pub ofs_bones: u64,
    /// Offset of the frame table.
    pub ofs_frames: u64,
    /// Per frame: offset of its bone poses.
    pub frame_poses: Vec<u64>,
    /// Total size written.
    pub filesize: u64,
}

/// Builds an SKP skeleton file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkpBuilder {
    /// Bones, parents first (names at most 64 bytes).
    pub bones: Vec<BoneDef>,
    /// Frames; frame 0 is the bind pose.
    pub frames: Vec<FrameDef>,
}

/// The identity pose: no rotation `(0, 0, 0, 1)`, no translation.
pub const IDENTITY_POSE: ([f32; 4], [f32; 3]) = ([0.0, 0.0, 0.0, 1.0], [0.0; 3]);

impl SkpBuilder {
    /// Writes the file.
    ///
    /// # Errors
    ///
    /// [`Error::Write`](crate::Error::Write) when a name is longer than 64 bytes or a count
    /// or offset does not fit its 32-bit field.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.write_with_layout().map(|(bytes, _)| bytes)
    }

    /// Writes the file and reports where each structure went.
    ///
    /// # Errors
    ///
    /// As [`SkpBuilder::write`].
    pub fn write_with_layout(&self) -> Result<(Vec<u8>, SkeletonLayout)> {
        let field = |what, v| write::u32_field(Format::Skp, what, v).map(U32::<Le>::new);
        let ofs_bones = size_of::<SkpHeader>() as u64;
        let ofs_frames = ofs_bones + (self.bones.len() * size_of::<SkpBone>()) as u64;
        let mut at = ofs_frames + (self.frames.len() * size_of::<SkpFrame>()) as u64;
        let block = (self.bones.len() * size_of::<SkpBonePose>()) as u64;
        let frame_poses: Vec<u64> = self
            .frames
            .iter()
            .map(|_| {
                at += block;
                at - block
            })
            .collect();
        let layout = SkeletonLayout {
            ofs_bones,
            ofs_frames,
            frame_poses,
            filesize: at,
        };

        let mut out = Vec::with_capacity(usize::try_from(at).unwrap_or(0));
        let header = SkpHeader {
            id: *SKM_MAGIC,
            type_: U32::new(SKM_TYPE),
            filesize: field("header.filesize", layout.filesize)?,
            num_bones: field("header.num_bones", self.bones.len() as u64)?,
            num_frames: field("header.num_frames", self.frames.len() as u64)?,
            ofs_bones: field("header.ofs_bones", ofs_bones)?,
            ofs_frames: field("header.ofs_frames", ofs_frames)?,
        };
        out.extend_from_slice(header.as_bytes());
        for bone in &self.bones {
            let record = SkpBone {
                name: write::name_field::<SKM_MAX_NAME>(Format::Skp, "bone.name", &bone.name)?,
                parent: I32::new(bone.parent),
                flags: U32::new(bone.flags),
            };
            out.extend_from_slice(record.as_bytes());
        }
        for (frame, &ofs) in self.frames.iter().zip(&layout.frame_poses) {
            let record = SkpFrame {
                name: write::name_field::<SKM_MAX_NAME>(Format::Skp, "frame.name", &frame.name)?,
                ofs_bonepositions: field("frame.ofs_bonepositions", ofs)?,
            };
            out.extend_from_slice(record.as_bytes());
        }
        for frame in &self.frames {
            for b in 0..self.bones.len() {
                let (quat, origin) = frame.poses.get(b).copied().unwrap_or(IDENTITY_POSE);
                out.extend_from_slice(SkpBonePose::new(quat, origin).as_bytes());
            }
        }
        Ok((out, layout))
    }
}

/// The SKM mesh and SKP skeleton of an asset, ready to write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Builder {
    /// The mesh file.
    pub skm: SkmBuilder,
    /// The skeleton file.
    pub skp: SkpBuilder,
}

/// Longest SKM or SKP name that keeps its terminating NUL.
pub const MAX_NAME: usize = SKM_MAX_NAME - 1;

impl Builder {
    /// `asset` as an SKM and its SKP (`+Z` up; a `+Y`-up asset is turned): one SKM mesh per
    /// asset mesh (named after its material, as Qfusion finds shaders), each influence
    /// pre-weighted in its bone's bind space, the bones each mesh uses as its references;
    /// the joints as SKP bones (attachments flagged) and every frame of every clip as
    /// quaternion and origin, named after its clip (`walk_1` …). Scale is not stored: the
    /// losses count the frames that scale a joint. An asset without a skeleton gets a root
    /// bone, one without clips its bind pose as the one frame.
    ///
    /// ```
    /// use skelmap_core::{Limits, Model, Source, asset, skm, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let asset = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// let pair = skm::write::Builder::from_asset(&asset)?.builder;
    /// let (mesh, skeleton) = (pair.skm.write()?, pair.skp.write()?);
    /// let model = Model::from_skm(Source::from_bytes(&mesh), Source::from_bytes(&skeleton), &Limits::default())?;
    /// assert_eq!((model.num_bones(), model.num_frames()), (4, 9));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FitError`] for a name longer than [`MAX_NAME`] bytes, or for vertex animation
    /// (morph clips), which SKM cannot hold.
    pub fn from_asset(asset: &Asset) -> core::result::Result<Fitted<Builder>, FitError> {
        let asset = asset.with_up(UpAxis::Z);
        // A vertex bound to no joint stays put on a joint added for it.
        let (asset, still) = asset.with_still_joint();
        let (asset, dropped) = asset.drawable("SKM")?;
        asset.refuse_vertex_animation("SKM")?;
        let skeleton = asset.skeleton_or_root();
        asset.check_names(
            "SKP",
            "bone",
            skeleton.joints.iter().map(|j| j.name.as_str()),
            MAX_NAME,
        )?;
        let shaders = asset.shader_names("SKM", MAX_NAME)?;
        let names: Vec<String> = (0..asset.meshes.len())
            .map(|i| asset.mesh_name(i))
            .collect();
        asset.check_names("SKM", "mesh", names.iter().map(String::as_str), MAX_NAME)?;
        let (inverse, unscaled) = skeleton.unscaled_inverse_binds("SKM");
        let meshes = asset
            .meshes
            .iter()
            .zip(shaders)
            .enumerate()
            .map(|(i, (mesh, shader))| {
                let vertices = mesh.pre_weighted(&inverse);
                let mut references: Vec<u32> = vertices.iter().flatten().map(|i| i.bone).collect();
                references.sort_unstable();
                references.dedup();
                MeshDef {
                    shader: asset.name_bytes(&shader),
                    name: asset.name_bytes(names.get(i).map_or("", String::as_str)),
                    texcoords: mesh.uvs_or_zero(),
                    vertices,
                    triangles: mesh.triangles.clone(),
                    references,
                }
            })
            .collect();
        let pose = |k: &JointKey| (k.rotation.to_array(), k.translation.to_array());
        let frames = asset.joint_frames().unwrap_or_default();
        let mut losses = Vec::new();
        losses.extend(still);
        losses.extend(unscaled);
        losses.extend(dropped);
        losses.extend(asset.frame_name_note(MAX_NAME, "SKP"));
        let scaled = asset.scaled_frames();
        if scaled > 0 {
            losses.push(format!(
                "{scaled} frames scale a joint; SKP poses have no scale, so those frames \
                 differ (IQM keeps scale)"
            ));
        }
        let mut frames: Vec<FrameDef> = frames
            .iter()
            .zip(asset.frame_names(MAX_NAME))
            .map(|(keys, name)| FrameDef {
                name,
                poses: keys.iter().map(pose).collect(),
            })
            .collect();
        if frames.is_empty() {
            frames.push(FrameDef {
                name: b"bind".to_vec(),
                poses: skeleton.bind_keys().iter().map(pose).collect(),
            });
        }
        let bones = skeleton.bone_defs(asset.code_page);
        Ok(Fitted {
            builder: Builder {
                skm: SkmBuilder {
                    num_bones: skeleton.joints.len() as u32,
                    meshes,
                },
                skp: SkpBuilder { bones, frames },
            },
            losses,
        })
    }
}

impl crate::asset::Writer for Builder {
    const FORMAT: Format = Format::Skm;

    /// The SKM, and its SKP beside it under the same stem.
    fn write_asset(
        asset: &Asset,
        _: &crate::asset::WriteOptions,
    ) -> core::result::Result<crate::asset::Written, crate::asset::WriteError> {
        use crate::asset::{Place, Written, WrittenFile};
        let Fitted { builder, losses } = Builder::from_asset(asset)?;
        let files = vec![
            WrittenFile {
                place: Place::Main,
                bytes: builder.skm.write()?,
            },
            WrittenFile {
                place: Place::Extension("skp"),
                bytes: builder.skp.write()?,
            },
        ];
        Ok(Written::new(Self::FORMAT, files).with_notes(losses))
    }
}
