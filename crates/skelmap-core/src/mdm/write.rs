//! [`Builder`]: writes an MDM and its MDX from plain values, for fixtures, fuzz seeds and
//! tests. Layout: the MDM header, each surface (header, vertices with their weights,
//! triangles, collapse map, bone references) one after another, then each tag and its bone
//! references; the MDX header, the frames, then the bones.

use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, I16, I32};

use super::raw::{
    MAX_QPATH, MDM_VERSION, MDX_VERSION, MdmHeader, MdmSurface, MdmTag, MdxBoneFrameCompressed,
    MdxBoneInfo, MdxFrame, MdxHeader,
};
use crate::alias::idp3::Md3Triangle;
use crate::format::{MDM_MAGIC, MDX_MAGIC};

pub use crate::md4::write::{VertexDef as Vertex, WeightDef as Weight};

/// One surface.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    /// Name.
    pub name: String,
    /// Shader.
    pub shader: String,
    /// `minLod`.
    pub min_lod: i32,
    /// Vertices.
    pub vertices: Vec<Vertex>,
    /// Triangles (clockwise seen from the front).
    pub triangles: Vec<[i32; 3]>,
    /// The collapse map (written as given: one entry a vertex in a valid file).
    pub collapse_map: Vec<i32>,
    /// The bones ET builds for the surface.
    pub bone_references: Vec<i32>,
}

/// One tag.
#[derive(Debug, Clone, PartialEq)]
pub struct Tag {
    /// Name.
    pub name: String,
    /// Axes in the bone's space.
    pub axis: [[f32; 3]; 3],
    /// The bone.
    pub bone: i32,
    /// Origin in the bone's space.
    pub offset: [f32; 3],
    /// The bones ET builds for the tag.
    pub bone_references: Vec<i32>,
}

/// One MDX bone.
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// Name.
    pub name: String,
    /// Parent, -1 for a root.
    pub parent: i32,
    /// Torso weight.
    pub torso_weight: f32,
    /// Distance from the parent.
    pub parent_dist: f32,
    /// Flags.
    pub flags: i32,
}

/// One bone in one frame: compressed angles, 65536 units a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BoneFrame {
    /// Pitch, yaw, roll of the model-space rotation.
    pub angles: [i16; 3],
    /// Pitch and yaw of the direction from the parent.
    pub ofs_angles: [i16; 2],
}

/// One MDX frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Minimum and maximum corner.
    pub bounds: [[f32; 3]; 2],
    /// Culling sphere centre.
    pub local_origin: [f32; 3],
    /// Culling sphere radius.
    pub radius: f32,
    /// Where the root bones sit.
    pub parent_offset: [f32; 3],
    /// A bone frame per bone (written as many as given; `num_bones` is the bones' count).
    pub bones: Vec<BoneFrame>,
}

/// Where a surface's parts start in the MDM a [`Builder`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SurfaceLayout {
    /// The surface header.
    pub start: u64,
    /// The first vertex.
    pub vertices: u64,
    /// The triangles.
    pub triangles: u64,
    /// The collapse map.
    pub collapse_map: u64,
    /// The bone references.
    pub bone_references: u64,
    /// The end of the surface (the next one's start).
    pub end: u64,
}

/// Where a tag and its bone references start in the MDM a [`Builder`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TagLayout {
    /// The tag.
    pub start: u64,
    /// Its bone references.
    pub bone_references: u64,
}

/// Writes an MDM and the MDX that plays it.
///
/// ```
/// use skelmap_core::{Model, Parse};
/// use skelmap_core::mdm::{Builder, Mdm, Mdx};
/// let (mdm, mdx) = Builder::triangle().write();
/// assert_eq!(&mdm[..4], b"MDMW");
/// assert_eq!(&mdx[..4], b"MDXW");
/// assert_eq!(Mdx::parse(&mdx)?.num_frames(), 3);
/// assert_eq!(Mdm::parse(&mdm)?.num_vertices(), 3);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Builder {
    /// The MDM's name.
    pub name: String,
    /// `lodScale`.
    pub lod_scale: f32,
    /// `lodBias`.
    pub lod_bias: f32,
    /// Surfaces.
    pub surfaces: Vec<Surface>,
    /// Tags.
    pub tags: Vec<Tag>,
    /// The MDX's name.
    pub skeleton_name: String,
    /// Bones.
    pub bones: Vec<Bone>,
    /// Frames.
    pub frames: Vec<Frame>,
    /// `torsoParent`.
    pub torso_parent: i32,
}

/// `text` in a NUL-padded name field (cut to leave a NUL).
fn name_field(text: &str) -> [u8; MAX_QPATH] {
    let mut field = [0u8; MAX_QPATH];
    let bytes = text.as_bytes();
    let n = bytes.len().min(MAX_QPATH - 1);
    field[..n].copy_from_slice(&bytes[..n]);
    field
}

fn i32s(values: &[i32]) -> impl Iterator<Item = u8> + '_ {
    values.iter().flat_map(|v| v.to_le_bytes())
}

fn f32x3(v: [f32; 3]) -> [F32<zerocopy::LittleEndian>; 3] {
    v.map(F32::new)
}

impl Builder {
    /// A small pair: two bones (a root, and a child 8 units along its offset direction, half
    /// torso) over three frames of different angles; one surface of three vertices (one on
    /// each bone, one shared 1/4 : 3/4) with a collapse map; a tag `tag_head` on the child.
    #[must_use]
    pub fn triangle() -> Builder {
        let weight = |bone: i32, weight: f32, offset: [f32; 3]| Weight {
            bone,
            weight,
            offset,
        };
        let frame = |parent_offset: [f32; 3], bones: [BoneFrame; 2]| Frame {
            bounds: [[-10.0, -10.0, -10.0], [10.0, 10.0, 20.0]],
            local_origin: [0.0, 0.0, 5.0],
            radius: 20.0,
            parent_offset,
            bones: bones.to_vec(),
        };
        let bone_frame = |angles: [i16; 3], ofs_angles: [i16; 2]| BoneFrame { angles, ofs_angles };
        Builder {
            name: "models/players/triangle.mdm".into(),
            lod_scale: 1.0,
            lod_bias: 0.0,
            surfaces: vec![Surface {
                name: "body".into(),
                shader: "models/players/body".into(),
                min_lod: 2,
                vertices: vec![
                    Vertex {
                        normal: [0.0, 0.0, 1.0],
                        tex_coords: [0.0, 0.0],
                        weights: vec![weight(0, 1.0, [1.0, 2.0, 3.0])],
                    },
                    Vertex {
                        normal: [1.0, 0.0, 0.0],
                        tex_coords: [1.0, 0.0],
                        weights: vec![weight(1, 1.0, [4.0, 0.0, -1.0])],
                    },
                    Vertex {
                        normal: [0.0, 1.0, 0.0],
                        tex_coords: [0.5, 1.0],
                        weights: vec![
                            weight(0, 0.25, [0.0, 5.0, 0.0]),
                            weight(1, 0.75, [2.0, -3.0, 1.0]),
                        ],
                    },
                ],
                triangles: vec![[0, 1, 2]],
                collapse_map: vec![0, 0, 1],
                bone_references: vec![0, 1],
            }],
            tags: vec![Tag {
                name: "tag_head".into(),
                axis: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                bone: 1,
                offset: [0.5, 0.0, 2.0],
                bone_references: vec![0, 1],
            }],
            skeleton_name: "models/players/triangle.mdx".into(),
            bones: vec![
                Bone {
                    name: "root".into(),
                    parent: -1,
                    torso_weight: 0.0,
                    parent_dist: 0.0,
                    flags: 0,
                },
                Bone {
                    name: "head".into(),
                    parent: 0,
                    torso_weight: 0.5,
                    parent_dist: 8.0,
                    flags: 0,
                },
            ],
            frames: vec![
                frame(
                    [0.0, 0.0, 0.0],
                    [
                        bone_frame([0, 0, 0], [0, 0]),
                        bone_frame([0, 0, 0], [-16384, 0]),
                    ],
                ),
                frame(
                    [1.0, 2.0, 3.0],
                    [
                        bone_frame([0, 16384, 0], [0, 0]),
                        bone_frame([2000, 16384, -3000], [-12000, 9000]),
                    ],
                ),
                frame(
                    [-4.0, 0.5, 24.0],
                    [
                        bone_frame([5461, -8192, 10923], [0, 0]),
                        bone_frame([-7000, 30000, 20000], [3000, -25000]),
                    ],
                ),
            ],
            torso_parent: 0,
        }
    }

    /// Where each surface's parts and each tag start in [`write_mdm`](Builder::write_mdm)'s
    /// output.
    #[must_use]
    pub fn mdm_layout(&self) -> (Vec<SurfaceLayout>, Vec<TagLayout>) {
        let mut at = size_of::<MdmHeader>() as u64;
        let mut surfaces = Vec::new();
        for s in &self.surfaces {
            let start = at;
            let vertices = start + size_of::<MdmSurface>() as u64;
            let bytes: usize = s.vertices.iter().map(Vertex::stored_len).sum();
            let triangles = vertices + bytes as u64;
            let collapse_map = triangles + 12 * s.triangles.len() as u64;
            let bone_references = collapse_map + 4 * s.collapse_map.len() as u64;
            let end = bone_references + 4 * s.bone_references.len() as u64;
            surfaces.push(SurfaceLayout {
                start,
                vertices,
                triangles,
                collapse_map,
                bone_references,
                end,
            });
            at = end;
        }
        let mut tags = Vec::new();
        for t in &self.tags {
            let bone_references = at + size_of::<MdmTag>() as u64;
            tags.push(TagLayout {
                start: at,
                bone_references,
            });
            at = bone_references + 4 * t.bone_references.len() as u64;
        }
        (surfaces, tags)
    }

    /// The MDM's bytes.
    #[must_use]
    pub fn write_mdm(&self) -> Vec<u8> {
        let (surfaces, tags) = self.mdm_layout();
        let end = tags
            .last()
            .map(|t| {
                t.bone_references
                    + 4 * self.tags.last().map_or(0, |t| t.bone_references.len()) as u64
            })
            .or(surfaces.last().map(|s| s.end))
            .unwrap_or(size_of::<MdmHeader>() as u64);
        let ofs_tags = tags.first().map_or(end, |t| t.start);
        let header = MdmHeader {
            ident: *MDM_MAGIC,
            version: I32::new(MDM_VERSION),
            name: name_field(&self.name),
            lod_scale: F32::new(self.lod_scale),
            lod_bias: F32::new(self.lod_bias),
            num_surfaces: I32::new(self.surfaces.len() as i32),
            ofs_surfaces: I32::new(size_of::<MdmHeader>() as i32),
            num_tags: I32::new(self.tags.len() as i32),
            ofs_tags: I32::new(ofs_tags as i32),
            ofs_end: I32::new(end as i32),
        };
        let mut out = header.as_bytes().to_vec();
        for (s, layout) in self.surfaces.iter().zip(&surfaces) {
            let rel = |at: u64| I32::new((at - layout.start) as i32);
            let header = MdmSurface {
                ident: I32::new(0),
                name: name_field(&s.name),
                shader: name_field(&s.shader),
                shader_index: I32::new(0),
                min_lod: I32::new(s.min_lod),
                ofs_header: I32::new(-(layout.start as i32)),
                num_verts: I32::new(s.vertices.len() as i32),
                ofs_verts: rel(layout.vertices),
                num_triangles: I32::new(s.triangles.len() as i32),
                ofs_triangles: rel(layout.triangles),
                ofs_collapse_map: rel(layout.collapse_map),
                num_bone_references: I32::new(s.bone_references.len() as i32),
                ofs_bone_references: rel(layout.bone_references),
                ofs_end: rel(layout.end),
            };
            out.extend_from_slice(header.as_bytes());
            for v in &s.vertices {
                v.put(&mut out);
            }
            for t in &s.triangles {
                let raw = Md3Triangle {
                    indexes: t.map(I32::new),
                };
                out.extend_from_slice(raw.as_bytes());
            }
            out.extend(i32s(&s.collapse_map));
            out.extend(i32s(&s.bone_references));
        }
        for t in &self.tags {
            let raw = MdmTag {
                name: name_field(&t.name),
                axis: t.axis.map(f32x3),
                bone_index: I32::new(t.bone),
                offset: f32x3(t.offset),
                num_bone_references: I32::new(t.bone_references.len() as i32),
                ofs_bone_references: I32::new(size_of::<MdmTag>() as i32),
                ofs_end: I32::new((size_of::<MdmTag>() + 4 * t.bone_references.len()) as i32),
            };
            out.extend_from_slice(raw.as_bytes());
            out.extend(i32s(&t.bone_references));
        }
        out
    }

    /// Where the frames and the bones start in [`write_mdx`](Builder::write_mdx)'s output,
    /// and the bytes a frame takes.
    #[must_use]
    pub fn mdx_layout(&self) -> (u64, u64, u64) {
        let frames = size_of::<MdxHeader>() as u64;
        let stride =
            (size_of::<MdxFrame>() + self.bones.len() * size_of::<MdxBoneFrameCompressed>()) as u64;
        let frames_bytes: u64 = self
            .frames
            .iter()
            .map(|f| {
                (size_of::<MdxFrame>() + f.bones.len() * size_of::<MdxBoneFrameCompressed>()) as u64
            })
            .sum();
        (frames, frames + frames_bytes, stride)
    }

    /// The MDX's bytes.
    #[must_use]
    pub fn write_mdx(&self) -> Vec<u8> {
        let (ofs_frames, ofs_bones, _) = self.mdx_layout();
        let end = ofs_bones + (self.bones.len() * size_of::<MdxBoneInfo>()) as u64;
        let header = MdxHeader {
            ident: *MDX_MAGIC,
            version: I32::new(MDX_VERSION),
            name: name_field(&self.skeleton_name),
            num_frames: I32::new(self.frames.len() as i32),
            num_bones: I32::new(self.bones.len() as i32),
            ofs_frames: I32::new(ofs_frames as i32),
            ofs_bones: I32::new(ofs_bones as i32),
            torso_parent: I32::new(self.torso_parent),
            ofs_end: I32::new(end as i32),
        };
        let mut out = header.as_bytes().to_vec();
        for f in &self.frames {
            let raw = MdxFrame {
                bounds: f.bounds.map(f32x3),
                local_origin: f32x3(f.local_origin),
                radius: F32::new(f.radius),
                parent_offset: f32x3(f.parent_offset),
            };
            out.extend_from_slice(raw.as_bytes());
            for b in &f.bones {
                let raw = MdxBoneFrameCompressed {
                    angles: [b.angles[0], b.angles[1], b.angles[2], 0].map(I16::new),
                    ofs_angles: b.ofs_angles.map(I16::new),
                };
                out.extend_from_slice(raw.as_bytes());
            }
        }
        for b in &self.bones {
            let raw = MdxBoneInfo {
                name: name_field(&b.name),
                parent: I32::new(b.parent),
                torso_weight: F32::new(b.torso_weight),
                parent_dist: F32::new(b.parent_dist),
                flags: I32::new(b.flags),
            };
            out.extend_from_slice(raw.as_bytes());
        }
        out
    }

    /// The MDM's and the MDX's bytes.
    #[must_use]
    pub fn write(&self) -> (Vec<u8>, Vec<u8>) {
        (self.write_mdm(), self.write_mdx())
    }
}
