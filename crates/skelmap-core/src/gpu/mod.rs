//! GPU skinning buffers: what a vertex shader reads to skin a mesh, built as one explicit,
//! allocating copy ([`Model::gpu_mesh`](crate::Model::gpu_mesh), [`Mesh::from_asset`]);
//! opening a model never builds them.
//!
//! A [`Mesh`] holds, per vertex, the bind-pose position, normal and texture coordinate, and
//! one or two sets ([`Skin`]) of 4 joint indices (`u8` or `u16`, [`Joints`]) and 4 weights
//! (unorm8 or unorm16, [`Weights`]) whose sum is exactly 255 or 65535 — glTF's
//! `JOINTS_0`/`WEIGHTS_0` and `JOINTS_1`/`WEIGHTS_1`. Per palette entry it holds the inverse
//! bind matrix: one per joint, then one identity that vertices bound to no joint use. Each
//! frame, [`Mesh::palette`] (3×4 matrices, `world · inverse bind`) or
//! [`Mesh::dual_quaternions`] fills the palette from a [`Pose`], and the shader computes
//!
//! ```text
//! M = Σₖ weightₖ / one · palette[jointₖ]      (one = 255 or 65535)
//! position = M · (bind position, 1),  normal = M · (bind normal, 0)
//! ```
//!
//! which [`Mesh::skin_vertex`] does on the CPU, in the same order, as the reference.
//! `examples/wgpu-skinning` in the repository runs that shader as a wgpu compute pass on
//! these buffers and holds its output to the reference.
//!
//! Choosing the influences: where a vertex has more than 4 (or 8), [`Mesh`] keeps the subset
//! whose largest error over every frame is smallest ([`asset::Influences::cut`], the choice
//! every writer that cuts influences makes; the heaviest for a model of one frame), scaled to
//! sum to 1, then quantised by largest remainder ([`quantise_weights`]) so that the sum is
//! exact. Slots left over, or quantised to weight 0, get joint 0. [`Influences::Within`]
//! takes 8 only where 4 would move some vertex, in some frame, farther than a fraction of the
//! mesh's size.
//!
//! Vertex-animated models (MD3, MD2, Quake, GameStudio MDL) get [`MorphMesh`] instead
//! ([`Model::gpu_morph`](crate::Model::gpu_morph)): their frames as the file packs them, with
//! what a shader needs to unpack and tween them.
//!
//! Every buffer is a `Vec` of a [`bytemuck::Pod`] type, ready for a `queue.write_buffer`.

mod morph;

pub use morph::{Grid, MorphBuffer, MorphMesh, MorphVertex, Packing};

use glam::{Affine3A, Mat3A, Quat, Vec3, Vec3A};

use crate::asset::cut::SkinFrames;
use crate::asset::{self, Asset, UNBOUND, quantise_weights};
use crate::view::{DeformError, Pose};

/// One palette entry as a shader reads it: three rows of `[x, y, z, translation]`, so a
/// point `p` goes to `(row · (p, 1))` for each row.
pub type Matrix3x4 = [[f32; 4]; 3];

/// One palette entry as a unit dual quaternion: `[real, dual]`, each `[x, y, z, w]`; the
/// dual part is half the translation times the rotation.
pub type DualQuaternion = [[f32; 4]; 2];

/// How many influences each vertex keeps.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Influences {
    /// The largest 4: one set (`JOINTS_0`/`WEIGHTS_0`).
    #[default]
    Four,
    /// The largest 8: two sets (`JOINTS_1`/`WEIGHTS_1` as well).
    Eight,
    /// 8 where keeping 4 would move some vertex, in some frame, farther than this fraction
    /// of the diagonal of the mesh's bind-pose bounds from where keeping 8 puts it; else 4.
    /// Judged with the chosen [`Precision`], over every frame of the model (or the asset's
    /// clips).
    Within(f32),
}

/// The integer type of the weights; both are normalised (`unorm`) in a shader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// `u8`: each vertex's weights sum to exactly 255.
    #[default]
    Unorm8,
    /// `u16`: each vertex's weights sum to exactly 65535.
    Unorm16,
}

impl Precision {
    /// The integer that stands for a weight of 1: 255 or 65535.
    #[must_use]
    pub fn one(self) -> u32 {
        match self {
            Precision::Unorm8 => 255,
            Precision::Unorm16 => 65535,
        }
    }
}

/// The integer type of the joint indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JointWidth {
    /// `u8` when every palette entry has an index below 256, else `u16`.
    #[default]
    Auto,
    /// `u8`; [`Error::JointWidth`] for a palette of more than 256 entries.
    U8,
    /// `u16`.
    U16,
}

/// What to build.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Options {
    /// Influences per vertex.
    pub influences: Influences,
    /// Weight precision.
    pub precision: Precision,
    /// Joint index width.
    pub joints: JointWidth,
}

/// What can go wrong building or using GPU buffers.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The model has no skeleton (a vertex-animated or boneless model).
    #[error("the model has no skeleton to skin with")]
    NotSkeletal,
    /// The palette (joints and the unbound entry) has more entries than the joint width holds.
    #[error("{entries} palette entries do not fit {bits}-bit joint indices")]
    JointWidth {
        /// Palette entries.
        entries: usize,
        /// Bits of a joint index.
        bits: u32,
    },
    /// An influence names a joint past the skeleton.
    #[error("an influence names joint {joint}; the skeleton has {joints}")]
    Joint {
        /// The joint named.
        joint: usize,
        /// Joints in the skeleton.
        joints: usize,
    },
    /// More vertices than 32-bit indices address.
    #[error("{vertices} vertices do not fit 32-bit indices")]
    TooManyVertices {
        /// Vertices over every mesh.
        vertices: usize,
    },
    /// A tolerance that is not a finite, non-negative fraction.
    #[error("the tolerance {0} is not a finite number at least 0")]
    Tolerance(f32),
    /// A pose with fewer world transforms than the mesh has joints.
    #[error("the pose has {found} bones; the mesh needs {needed}")]
    PoseBones {
        /// Bones in the pose.
        found: usize,
        /// Joints of the mesh.
        needed: usize,
    },
    /// A pose that scales a joint, which dual quaternions cannot hold.
    #[error("joint {joint} scales; dual quaternions hold rotation and translation only")]
    Scale {
        /// The first joint that scales.
        joint: usize,
    },
    /// The model's frames also replace vertices in bind space (an MDL7 whose frames carry
    /// vertices beside their bone matrices): one set of bind-pose buffers cannot show them.
    /// Deform on the CPU ([`Model::deform`](crate::Model::deform),
    /// [`Compact::skin_pose`](crate::model::Compact::skin_pose)), or export to glTF, whose
    /// morph targets carry them.
    #[error(
        "the model's frames also replace vertices, which one set of bind-pose buffers cannot \
         show; deform on the CPU or export to glTF"
    )]
    VertexFrames,
    /// The model has no packed vertex frames for [`MorphMesh`]: it is not vertex-animated,
    /// is a terrain, has no meshes (an MD3 of tags only), or its meshes pack their frames
    /// differently.
    #[error("the model has no packed vertex frames to hand a shader")]
    NotVertexAnimated,
    /// Building the bind-pose copy or deforming failed (impossible for a validated model).
    #[error(transparent)]
    Asset(#[from] asset::Error),
    /// Posing or deforming the model failed (impossible for a validated model).
    #[error(transparent)]
    Deform(#[from] DeformError),
}

/// One set of 4 joint indices per vertex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Joints {
    /// `u8` indices.
    U8(Vec<[u8; 4]>),
    /// `u16` indices.
    U16(Vec<[u16; 4]>),
}

impl Joints {
    /// The 4 joints of vertex `v`, or `None` out of range.
    #[must_use]
    pub fn get(&self, v: usize) -> Option<[u16; 4]> {
        match self {
            Joints::U8(j) => j.get(v).map(|j| j.map(u16::from)),
            Joints::U16(j) => j.get(v).copied(),
        }
    }

    /// The buffer's bytes, as a GPU takes them.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Joints::U8(j) => bytemuck::cast_slice(j),
            Joints::U16(j) => bytemuck::cast_slice(j),
        }
    }

    /// Vertices.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Joints::U8(j) => j.len(),
            Joints::U16(j) => j.len(),
        }
    }

    /// Whether it holds no vertex.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One set of 4 normalised weights per vertex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Weights {
    /// unorm8: 255 stands for 1.
    Unorm8(Vec<[u8; 4]>),
    /// unorm16: 65535 stands for 1.
    Unorm16(Vec<[u16; 4]>),
}

impl Weights {
    /// The 4 integer weights of vertex `v`, or `None` out of range.
    #[must_use]
    pub fn get(&self, v: usize) -> Option<[u32; 4]> {
        match self {
            Weights::Unorm8(w) => w.get(v).map(|w| w.map(u32::from)),
            Weights::Unorm16(w) => w.get(v).map(|w| w.map(u32::from)),
        }
    }

    /// The precision the weights are stored in.
    #[must_use]
    pub fn precision(&self) -> Precision {
        match self {
            Weights::Unorm8(_) => Precision::Unorm8,
            Weights::Unorm16(_) => Precision::Unorm16,
        }
    }

    /// The buffer's bytes, as a GPU takes them.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Weights::Unorm8(w) => bytemuck::cast_slice(w),
            Weights::Unorm16(w) => bytemuck::cast_slice(w),
        }
    }
}

/// The influences of every vertex as sets of 4 joints and 4 weights: set `s` holds
/// influences `4s..4s + 4` of each vertex, largest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skin {
    /// Per set, the joint indices.
    pub joints: Vec<Joints>,
    /// Per set, the weights; over every set they sum to [`Precision::one`] per vertex.
    pub weights: Vec<Weights>,
}

impl Skin {
    /// The `4 · sets` largest influences of each of `vertices` vertices of `influences`,
    /// scaled to sum to 1 and quantised by largest remainder to sum to exactly
    /// [`Precision::one`]; [`UNBOUND`] and a vertex without influences go to `unbound`
    /// (the palette's identity entry). Slots left over and weights quantised to 0 get joint
    /// 0. The joint indices are as wide as `width` says for a palette of `unbound + 1`
    /// entries. This is the one implementation of choosing and quantising influences: the
    /// glTF writer uses it too.
    ///
    /// ```
    /// use skelmap_core::asset::Influences;
    /// use skelmap_core::gpu::{JointWidth, Precision, Skin};
    /// let mut influences = Influences::default();
    /// influences.push([(0, 0.5), (1, 0.3), (2, 0.1), (3, 0.06), (4, 0.04)].into_iter(), 0);
    /// let skin = Skin::new(&influences, 1, 1, Precision::Unorm8, JointWidth::Auto, 5)?;
    /// assert_eq!(skin.joints[0].get(0), Some([0, 1, 2, 3]));
    /// assert_eq!(skin.weights[0].get(0), Some([133, 80, 26, 16])); // 0.5 / 0.96 · 255 …
    /// # Ok::<(), skelmap_core::gpu::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::JointWidth`] when `unbound + 1` entries do not fit the width asked for.
    pub fn new(
        influences: &asset::Influences,
        vertices: usize,
        sets: usize,
        precision: Precision,
        width: JointWidth,
        unbound: u16,
    ) -> Result<Skin, Error> {
        let entries = usize::from(unbound) + 1;
        let narrow = match width {
            JointWidth::Auto => entries <= 256,
            JointWidth::U8 if entries > 256 => {
                return Err(Error::JointWidth { entries, bits: 8 });
            }
            JointWidth::U8 => true,
            JointWidth::U16 => false,
        };
        let one = precision.one();
        let mut joints = vec![vec![[0u16; 4]; vertices]; sets];
        let mut weights = vec![vec![[0u32; 4]; vertices]; sets];
        for v in 0..vertices {
            let (mut top, _) = influences.top(v, 4 * sets);
            if top.is_empty() {
                top.push((UNBOUND, 1.0));
            }
            let shares: Vec<f32> = top.iter().map(|t| t.1).collect();
            let mut quantised = quantise_weights(&shares, one);
            if quantised.iter().sum::<u32>() != one {
                // Weights of 0 only (a hand-made asset): bound to nothing.
                top = vec![(UNBOUND, 1.0)];
                quantised = vec![one];
            }
            for (k, (&(joint, _), &weight)) in top.iter().zip(&quantised).enumerate() {
                let joint = if joint == UNBOUND { unbound } else { joint };
                let (set, slot) = (k / 4, k % 4);
                joints[set][v][slot] = if weight == 0 { 0 } else { joint };
                weights[set][v][slot] = weight;
            }
        }
        let joints = joints
            .into_iter()
            .map(|set| {
                if narrow {
                    // Every index is at most `unbound` < 256 here.
                    Joints::U8(set.iter().map(|j| j.map(|i| i as u8)).collect())
                } else {
                    Joints::U16(set)
                }
            })
            .collect();
        // Each weight is at most `one`, which fits the precision's type.
        let weights = weights
            .into_iter()
            .map(|set| match precision {
                Precision::Unorm8 => {
                    Weights::Unorm8(set.iter().map(|w| w.map(|x| x as u8)).collect())
                }
                Precision::Unorm16 => {
                    Weights::Unorm16(set.iter().map(|w| w.map(|x| x as u16)).collect())
                }
            })
            .collect();
        Ok(Skin { joints, weights })
    }

    /// Sets of 4 influences per vertex.
    #[must_use]
    pub fn num_sets(&self) -> usize {
        self.weights.len()
    }

    /// Influence `k` (`0..4 · num_sets`) of vertex `v`: its joint index and integer weight.
    #[must_use]
    pub fn influence(&self, v: usize, k: usize) -> Option<(u16, u32)> {
        let joint = self.joints.get(k / 4)?.get(v)?[k % 4];
        let weight = self.weights.get(k / 4)?.get(v)?[k % 4];
        Some((joint, weight))
    }
}

/// One of a [`Mesh`]'s buffers, for [`Mesh::bytes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Buffer {
    /// [`Mesh::positions`].
    Positions,
    /// [`Mesh::normals`].
    Normals,
    /// [`Mesh::uvs`].
    Uvs,
    /// [`Mesh::indices`].
    Indices,
    /// The joint indices of influence set `n` ([`Skin::joints`]).
    Joints(usize),
    /// The weights of influence set `n` ([`Skin::weights`]).
    Weights(usize),
    /// [`Mesh::inverse_binds`].
    InverseBinds,
    /// [`Mesh::sources`].
    Sources,
}

/// A range of [`Mesh::indices`] drawn with one material: one mesh of the model (an MS3D
/// group, a submesh with texture coordinates per corner unwelded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draw {
    /// Name (mesh, shader or group name).
    pub name: String,
    /// Index into the asset's or model's materials.
    pub material: Option<usize>,
    /// First index in [`Mesh::indices`].
    pub first_index: u32,
    /// Indices drawn (3 per triangle).
    pub num_indices: u32,
}

/// Skinning buffers of a whole model: one vertex and index buffer, drawn in [`Draw`] ranges.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    /// Bind-pose positions.
    pub positions: Vec<[f32; 3]>,
    /// Bind-pose unit normals.
    pub normals: Vec<[f32; 3]>,
    /// Texture coordinates, `v` down the image ((0, 0) where the model has none).
    pub uvs: Vec<[f32; 2]>,
    /// Triangles, 3 indices each, into the vertex buffers.
    pub indices: Vec<u32>,
    /// Joint indices and weights.
    pub skin: Skin,
    /// Per palette entry, the inverse of the joint's bind transform: one per joint, then the
    /// identity for vertices bound to no joint.
    pub inverse_binds: Vec<Matrix3x4>,
    /// Per vertex, where it came from: the model's (or asset's) mesh and its vertex there.
    pub sources: Vec<[u32; 2]>,
    /// The draw ranges.
    pub draws: Vec<Draw>,
    /// The diagonal of the bind-pose positions' bounds (0 without vertices).
    pub size: f32,
    /// What choosing the influences did, in words ([`asset::cut::Cut::notes`]): how many
    /// vertices had more than the buffers keep, and why any kept their heaviest.
    pub notes: Vec<String>,
}

/// An asset mesh and, per vertex, what [`Mesh::sources`] records.
pub(crate) struct Part<'a> {
    pub mesh: &'a asset::Mesh,
    pub sources: Vec<[u32; 2]>,
}

impl Mesh {
    /// The buffers of every mesh of `asset` at its pose (which becomes the bind pose), one
    /// [`Draw`] each. [`Influences::Within`] is judged over the asset's joint frames; without
    /// any it keeps 4.
    ///
    /// ```
    /// use skelmap_core::{Model, asset, gpu, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let built = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
    /// let mesh = gpu::Mesh::from_asset(&built, &gpu::Options::default())?;
    /// assert_eq!((mesh.positions.len(), mesh.inverse_binds.len()), (136, 5));
    /// assert!((0..136).all(|v| mesh.skin.weights[0].get(v).unwrap().iter().sum::<u32>() == 255));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::NotSkeletal`] for an asset without a skeleton; [`Error::Joint`],
    /// [`Error::JointWidth`], [`Error::TooManyVertices`], [`Error::Tolerance`].
    pub fn from_asset(asset: &Asset, options: &Options) -> Result<Mesh, Error> {
        let skeleton = asset.skeleton.as_ref().ok_or(Error::NotSkeletal)?;
        let parts = asset
            .meshes
            .iter()
            .enumerate()
            .map(|(m, mesh)| {
                let m = u32::try_from(m).unwrap_or(u32::MAX);
                let n = u32::try_from(mesh.positions.len()).unwrap_or(u32::MAX);
                Part {
                    mesh,
                    sources: (0..n).map(|v| [m, v]).collect(),
                }
            })
            .collect::<Vec<_>>();
        let worlds: Vec<Affine3A> = skeleton.joints.iter().map(|j| j.world).collect();
        let frames = asset.joint_frames().unwrap_or_default();
        Mesh::build(&parts, &worlds, options, |f, out| {
            *out = skeleton.world(frames.get(f)?);
            Some(())
        })
    }

    /// The buffers of `parts` bound with `binds` (one model-space transform per joint);
    /// `frame(f, out)` writes the world transforms of frame `f` into `out`, `None` past the
    /// last: the frames the influences are chosen over, and [`Influences::Within`] judged.
    pub(crate) fn build(
        parts: &[Part<'_>],
        binds: &[Affine3A],
        options: &Options,
        mut frame: impl FnMut(usize, &mut Vec<Affine3A>) -> Option<()>,
    ) -> Result<Mesh, Error> {
        let joints = binds.len();
        let unbound =
            u16::try_from(joints)
                .ok()
                .filter(|&u| u != UNBOUND)
                .ok_or(Error::JointWidth {
                    entries: joints.saturating_add(1),
                    bits: 16,
                })?;
        let mut mesh = Mesh {
            positions: Vec::new(),
            normals: Vec::new(),
            uvs: Vec::new(),
            indices: Vec::new(),
            skin: Skin {
                joints: Vec::new(),
                weights: Vec::new(),
            },
            inverse_binds: binds
                .iter()
                .map(|b| rows(&b.inverse()))
                .chain([rows(&Affine3A::IDENTITY)])
                .collect(),
            sources: Vec::new(),
            draws: Vec::new(),
            size: 0.0,
            notes: Vec::new(),
        };
        let mut influences = asset::Influences::default();
        for part in parts {
            mesh.add_part(part, joints, &mut influences)?;
        }
        let vertices = mesh.positions.len();
        if u32::try_from(vertices).is_err() {
            return Err(Error::TooManyVertices { vertices });
        }
        mesh.size = asset::bounds_of(mesh.positions.iter())
            .map_or(0.0, |(lo, hi)| (Vec3::from(hi) - Vec3::from(lo)).length());
        if let Influences::Within(tolerance) = options.influences
            && !(tolerance.is_finite() && tolerance >= 0.0)
        {
            return Err(Error::Tolerance(tolerance));
        }
        let frames = SkinFrames::new(binds, &mut frame);
        let skin = |sets: usize| {
            let cut = influences.cut(&mesh.positions, 4 * sets, &frames);
            let skin = Skin::new(
                &cut.influences,
                vertices,
                sets,
                options.precision,
                options.joints,
                unbound,
            )?;
            Ok::<_, Error>((skin, cut.notes("vertices")))
        };
        let (skin, notes) = match options.influences {
            Influences::Four => skin(1)?,
            Influences::Eight => skin(2)?,
            Influences::Within(tolerance) => {
                let four = skin(1)?;
                let eight = skin(2)?;
                let limit = tolerance * mesh.size;
                let mut world = Vec::new();
                let mut palette = Vec::new();
                let mut within = true;
                let mut f = 0;
                while within && frame(f, &mut world).is_some() {
                    mesh.palette_from_world(&world, &mut palette)?;
                    within = (0..vertices).all(|v| {
                        let a = skin_point(&mesh, &four.0, v, &palette);
                        let b = skin_point(&mesh, &eight.0, v, &palette);
                        a.zip(b).is_none_or(|(a, b)| a.distance(b) <= limit)
                    });
                    f += 1;
                }
                if within { four } else { eight }
            }
        };
        mesh.skin = skin;
        mesh.notes = notes;
        Ok(mesh)
    }

    /// Appends `part`'s vertices, triangles (offset to the vertices before it) and draw, and
    /// its influences to `influences`, each joint checked below `joints`.
    fn add_part(
        &mut self,
        part: &Part<'_>,
        joints: usize,
        influences: &mut asset::Influences,
    ) -> Result<(), Error> {
        let base = u32::try_from(self.positions.len()).map_err(|_| Error::TooManyVertices {
            vertices: self.positions.len(),
        })?;
        let first_index =
            u32::try_from(self.indices.len()).map_err(|_| Error::TooManyVertices {
                vertices: self.positions.len(),
            })?;
        let m = part.mesh;
        let n = m.positions.len();
        self.positions.extend_from_slice(&m.positions);
        self.normals.extend(
            (0..n).map(|v| asset::unit(m.normals.get(v).copied().unwrap_or([0.0, 0.0, 1.0]))),
        );
        self.uvs.extend((0..n).map(|v| m.uv(v)));
        self.sources.extend_from_slice(&part.sources);
        self.sources.resize(self.positions.len(), [u32::MAX; 2]);
        for v in 0..n {
            let list = m.influences.of(v);
            for &(joint, _) in list {
                if joint != UNBOUND && usize::from(joint) >= joints {
                    return Err(Error::Joint {
                        joint: usize::from(joint),
                        joints,
                    });
                }
            }
            influences.push(list.iter().copied(), UNBOUND);
        }
        for t in &m.triangles {
            for &i in t {
                let i = i.checked_add(base).ok_or(Error::TooManyVertices {
                    vertices: self.positions.len(),
                })?;
                self.indices.push(i);
            }
        }
        let end = u32::try_from(self.indices.len()).map_err(|_| Error::TooManyVertices {
            vertices: self.positions.len(),
        })?;
        self.draws.push(Draw {
            name: m.name.clone(),
            material: m.material,
            first_index,
            num_indices: end - first_index,
        });
        Ok(())
    }

    /// The bytes of `buffer`, as a GPU takes them; `None` for an influence set the mesh
    /// lacks.
    ///
    /// ```
    /// use skelmap_core::{Model, gpu, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let mesh = Model::from_bytes(&bytes)?.gpu_mesh(&gpu::Options::default())?;
    /// assert_eq!(mesh.bytes(gpu::Buffer::Positions).map(<[u8]>::len), Some(136 * 12));
    /// assert_eq!(mesh.bytes(gpu::Buffer::Weights(0)).map(<[u8]>::len), Some(136 * 4));
    /// assert_eq!(mesh.bytes(gpu::Buffer::Weights(1)), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn bytes(&self, buffer: Buffer) -> Option<&[u8]> {
        Some(match buffer {
            Buffer::Positions => bytemuck::cast_slice(&self.positions),
            Buffer::Normals => bytemuck::cast_slice(&self.normals),
            Buffer::Uvs => bytemuck::cast_slice(&self.uvs),
            Buffer::Indices => bytemuck::cast_slice(&self.indices),
            Buffer::Joints(n) => self.skin.joints.get(n)?.as_bytes(),
            Buffer::Weights(n) => self.skin.weights.get(n)?.as_bytes(),
            Buffer::InverseBinds => bytemuck::cast_slice(&self.inverse_binds),
            Buffer::Sources => bytemuck::cast_slice(&self.sources),
        })
    }

    /// Joints the palette has besides the unbound entry.
    #[must_use]
    pub fn num_joints(&self) -> usize {
        self.inverse_binds.len().saturating_sub(1)
    }

    /// Writes the palette of `pose` into `out` (cleared first): per joint
    /// `world(pose) · inverse bind` as rows, then the identity.
    ///
    /// ```
    /// use skelmap_core::{Model, gpu, model::Pose, pose::Interpolation, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let mesh = model.gpu_mesh(&gpu::Options::default())?;
    /// let mut pose = Pose::default();
    /// model.pose(4, 4, 0.0, Interpolation::Nlerp, &mut pose)?;
    /// let mut palette = Vec::new();
    /// mesh.palette(&pose, &mut palette)?;
    /// assert_eq!(palette.len(), model.num_bones() + 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::PoseBones`] for a pose with fewer bones than the mesh has joints (one of a
    /// vertex-animated model, or not sampled, has none).
    pub fn palette(&self, pose: &Pose, out: &mut Vec<Matrix3x4>) -> Result<(), Error> {
        self.palette_from_world(&pose.record_palette().world, out)
    }

    /// [`Mesh::palette`] from world transforms (one per joint, as
    /// [`Palette::world`](crate::pose::Palette::world)).
    ///
    /// ```
    /// use skelmap_core::{Model, gpu, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let mesh = model.gpu_mesh(&gpu::Options::default())?;
    /// let mut palette = Vec::new();
    /// // At the bind pose every entry is the identity (up to rounding).
    /// mesh.palette_from_world(&model.bind_palette().world, &mut palette)?;
    /// assert!((palette[1][0][0] - 1.0).abs() < 1e-5 && palette[1][0][3].abs() < 1e-5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::PoseBones`] for fewer transforms than joints.
    pub fn palette_from_world(
        &self,
        world: &[Affine3A],
        out: &mut Vec<Matrix3x4>,
    ) -> Result<(), Error> {
        let needed = self.num_joints();
        let world = world.get(..needed).ok_or(Error::PoseBones {
            found: world.len(),
            needed,
        })?;
        out.clear();
        out.extend(
            world
                .iter()
                .zip(&self.inverse_binds)
                .map(|(w, ib)| rows(&(*w * affine(ib)))),
        );
        out.push(rows(&Affine3A::IDENTITY));
        Ok(())
    }

    /// Writes the palette of `pose` as unit dual quaternions into `out` (cleared first): per
    /// joint that of `world(pose) · inverse bind`, then the identity.
    ///
    /// ```
    /// use skelmap_core::{Model, gpu, model::Pose, pose::Interpolation, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let mesh = model.gpu_mesh(&gpu::Options::default())?;
    /// let mut pose = Pose::default();
    /// model.pose(2, 2, 0.0, Interpolation::Nlerp, &mut pose)?;
    /// let mut palette = Vec::new();
    /// mesh.dual_quaternions(&pose, &mut palette)?;
    /// assert_eq!(palette[model.num_bones()], [[0.0, 0.0, 0.0, 1.0], [0.0; 4]]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::PoseBones`] as [`Mesh::palette`]; [`Error::Scale`] for a pose that scales a
    /// joint (an IQM's or MDR's).
    pub fn dual_quaternions(
        &self,
        pose: &Pose,
        out: &mut Vec<DualQuaternion>,
    ) -> Result<(), Error> {
        if let Some(joint) = pose.local().scales.iter().position(|s| *s != Vec3A::ONE) {
            return Err(Error::Scale { joint });
        }
        let mut matrices = Vec::new();
        self.palette(pose, &mut matrices)?;
        out.clear();
        out.extend(matrices.iter().map(|m| {
            let (_, rotation, translation) = affine(m).to_scale_rotation_translation();
            let t = Quat::from_xyzw(translation.x, translation.y, translation.z, 0.0);
            [rotation.to_array(), ((t * rotation) * 0.5).to_array()]
        }));
        Ok(())
    }

    /// Vertex `v` skinned as a vertex shader does it, the reference for shaders: `M = Σ
    /// weight / one · palette[joint]` over every influence slot (weight 0 included), then
    /// `M · (position, 1)` and `M · (normal, 0)` (not renormalised). `None` for a vertex or
    /// joint out of range.
    ///
    /// ```
    /// use skelmap_core::{Model, gpu, model::Pose, pose::Interpolation, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let mesh = model.gpu_mesh(&gpu::Options::default())?;
    /// let mut palette = Vec::new();
    /// mesh.palette_from_world(&model.bind_palette().world, &mut palette)?;
    /// let (p, _) = mesh.skin_vertex(7, &palette).unwrap();
    /// assert!((0..3).all(|k| (p[k] - mesh.positions[7][k]).abs() < 1e-4));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn skin_vertex(&self, v: usize, palette: &[Matrix3x4]) -> Option<([f32; 3], [f32; 3])> {
        let m = blend(&self.skin, v, palette)?;
        let p = self.positions.get(v)?;
        let n = self.normals.get(v)?;
        let apply = |p: &[f32; 3], w: f32| -> [f32; 3] {
            core::array::from_fn(|r| m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3] * w)
        };
        Some((apply(p, 1.0), apply(n, 0.0)))
    }

    /// Vertex `v`'s position skinned as a dual-quaternion shader does it: the weighted sum
    /// of the palette entries, each turned into the hemisphere of the first influence's
    /// real part, normalised, then applied. `None` for a vertex or joint out of range.
    ///
    /// ```
    /// use skelmap_core::{Model, gpu, model::Pose, pose::Interpolation, synth};
    /// let bytes = synth::tube(&Default::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let mesh = model.gpu_mesh(&gpu::Options::default())?;
    /// let mut pose = Pose::default();
    /// model.pose_bind(&mut pose);
    /// let mut palette = Vec::new();
    /// mesh.dual_quaternions(&pose, &mut palette)?;
    /// let p = mesh.skin_vertex_dq(7, &palette).unwrap();
    /// assert!((0..3).all(|k| (p[k] - mesh.positions[7][k]).abs() < 1e-4));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn skin_vertex_dq(&self, v: usize, palette: &[DualQuaternion]) -> Option<[f32; 3]> {
        let one = self.skin.weights.first()?.precision().one() as f32;
        let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        let (mut real, mut dual) = (zero, zero);
        let mut first: Option<Quat> = None;
        for k in 0..4 * self.skin.num_sets() {
            let (joint, weight) = self.skin.influence(v, k)?;
            let [r, d] = palette.get(usize::from(joint))?;
            let (r, d) = (Quat::from_array(*r), Quat::from_array(*d));
            let pivot = *first.get_or_insert(r);
            let w = weight as f32 / one * if pivot.dot(r) < 0.0 { -1.0 } else { 1.0 };
            real += r * w;
            dual += d * w;
        }
        let len = real.length();
        if len.is_nan() || len <= 0.0 {
            return None;
        }
        let (real, dual) = (real * (1.0 / len), dual * (1.0 / len));
        let t = (dual * 2.0) * real.conjugate();
        let p = Vec3::from(*self.positions.get(v)?);
        Some((real * p + Vec3::new(t.x, t.y, t.z)).to_array())
    }
}

/// `m` as rows of `[x, y, z, translation]`.
fn rows(m: &Affine3A) -> Matrix3x4 {
    let (x, y, z, t) = (
        m.matrix3.x_axis,
        m.matrix3.y_axis,
        m.matrix3.z_axis,
        m.translation,
    );
    [
        [x.x, y.x, z.x, t.x],
        [x.y, y.y, z.y, t.y],
        [x.z, y.z, z.z, t.z],
    ]
}

/// The transform of rows `m`.
fn affine(m: &Matrix3x4) -> Affine3A {
    Affine3A {
        matrix3: Mat3A::from_cols(
            Vec3A::new(m[0][0], m[1][0], m[2][0]),
            Vec3A::new(m[0][1], m[1][1], m[2][1]),
            Vec3A::new(m[0][2], m[1][2], m[2][2]),
        ),
        translation: Vec3A::new(m[0][3], m[1][3], m[2][3]),
    }
}

/// The blended matrix of vertex `v` of `skin`: `Σ weight / one · palette[joint]`.
fn blend(skin: &Skin, v: usize, palette: &[Matrix3x4]) -> Option<Matrix3x4> {
    let one = skin.weights.first()?.precision().one() as f32;
    let mut m = [[0.0f32; 4]; 3];
    for k in 0..4 * skin.num_sets() {
        let (joint, weight) = skin.influence(v, k)?;
        let p = palette.get(usize::from(joint))?;
        let w = weight as f32 / one;
        for r in 0..3 {
            for c in 0..4 {
                m[r][c] += w * p[r][c];
            }
        }
    }
    Some(m)
}

/// The position of vertex `v` of `mesh` skinned with `skin` (instead of the mesh's own).
pub(crate) fn skin_point(
    mesh: &Mesh,
    skin: &Skin,
    v: usize,
    palette: &[Matrix3x4],
) -> Option<Vec3A> {
    let m = blend(skin, v, palette)?;
    let p = mesh.positions.get(v)?;
    Some(Vec3A::from_array(core::array::from_fn(|r| {
        m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3]
    })))
}
