//! The mesh traits a format implements to be skinned:
//!
//! - [`SkeletalMesh`]: pre-weighted variable-length vertices in bone space (DPM, SKM; MD5's
//!   decoded at open; MDR's and MDM's laid out on their first skinning), with texture
//!   coordinates and triangles, generic over the file's byte order;
//! - [`BindPoseMesh`]: vertices stored in the bind pose with up to eight weighted bones
//!   (IQM, PSK, MDL7, MS3D, SL mdl, and ZYM's and Half-Life's one bone a vertex).

use glam::Vec3A;
use zerocopy::byteorder::{ByteOrder, F32, LittleEndian, U32};

use crate::bonevert::Vertices;
use crate::read::slice_in;

/// Where one validated mesh's arrays lie in its file. Obtained from
/// [`SkeletalMesh::geometry`]; the accessors are on the trait.
#[derive(Debug, Clone, Copy)]
pub struct MeshGeometry<'data> {
    data: &'data [u8],
    ofs_verts: u64,
    num_vertices: u32,
    ofs_texcoords: u64,
    ofs_indices: u64,
    num_triangles: u32,
}

impl<'data> MeshGeometry<'data> {
    /// The geometry of a mesh of `data` whose arrays validation has proven in range.
    pub(crate) fn new(
        data: &'data [u8],
        [ofs_verts, ofs_texcoords, ofs_indices]: [u64; 3],
        num_vertices: u32,
        num_triangles: u32,
    ) -> Self {
        MeshGeometry {
            data,
            ofs_verts,
            num_vertices,
            ofs_texcoords,
            ofs_indices,
            num_triangles,
        }
    }
}

/// A mesh of pre-weighted skeletal vertices, in either byte order (DPM's meshes are
/// big-endian, SKM's little-endian). Code written against this trait (skinning, export,
/// statistics) serves every format that stores such records.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::{SkeletalMesh, dpm::Dpm, synth};
/// fn influences<'a>(mesh: &impl SkeletalMesh<'a>) -> usize {
///     mesh.vertices().map(|v| v.len()).sum()
/// }
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Dpm::parse(&bytes)?;
/// assert_eq!(influences(&model.mesh(0).unwrap()), 304);
/// # Ok::<(), skelmap_core::Error>(())
/// ```
pub trait SkeletalMesh<'data> {
    /// The byte order of the file the mesh lives in.
    type Order: ByteOrder + 'data;

    /// Where the mesh's arrays lie (validated).
    fn geometry(&self) -> MeshGeometry<'data>;

    /// Number of vertices (at least 1).
    fn num_vertices(&self) -> usize {
        self.geometry().num_vertices as usize
    }

    /// Number of triangles (at least 1).
    fn num_triangles(&self) -> usize {
        self.geometry().num_triangles as usize
    }

    /// The vertices in file order; each item borrows the vertex's influence records.
    fn vertices(&self) -> Vertices<'data, Self::Order> {
        let g = self.geometry();
        Vertices::new(g.data, g.ofs_verts, g.num_vertices)
    }

    /// The texture coordinates as stored, one per vertex.
    fn texcoords_raw(&self) -> &'data [[F32<Self::Order>; 2]] {
        let g = self.geometry();
        slice_in(g.data, g.ofs_texcoords, g.num_vertices.into()).unwrap_or_default()
    }

    /// The texture coordinates as native floats.
    fn texcoords(&self) -> impl ExactSizeIterator<Item = [f32; 2]> + Clone + 'data {
        self.texcoords_raw().iter().map(|st| st.map(|v| v.get()))
    }

    /// The triangle vertex indices as stored.
    fn indices_raw(&self) -> &'data [[U32<Self::Order>; 3]] {
        let g = self.geometry();
        slice_in(g.data, g.ofs_indices, g.num_triangles.into()).unwrap_or_default()
    }

    /// The triangles as native indices, each `< num_vertices`.
    fn triangles(&self) -> impl ExactSizeIterator<Item = [u32; 3]> + Clone + 'data {
        self.indices_raw().iter().map(|t| t.map(|i| i.get()))
    }
}

/// One vertex in the bind pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BindVertex {
    /// Model-space position.
    pub position: Vec3A,
    /// Model-space normal; zero when the format stores none per vertex (MS3D keeps its
    /// normals per triangle corner).
    pub normal: Vec3A,
    /// Up to [`MAX_BIND_INFLUENCES`] `(bone, weight)` influences; `None` slots and weights
    /// ≤ 0 are unused.
    pub influences: [Option<(u16, f32)>; MAX_BIND_INFLUENCES],
}

/// The most influences a [`BindVertex`] carries: 8, the most a real MDL7 vertex has (MS3D,
/// SL and IQM store at most 4).
pub const MAX_BIND_INFLUENCES: usize = 8;

impl BindVertex {
    /// A vertex with at most four influences (the other slots unused).
    pub(crate) fn with_four(
        position: Vec3A,
        normal: Vec3A,
        four: [Option<(u16, f32)>; 4],
    ) -> BindVertex {
        let mut influences = [None; MAX_BIND_INFLUENCES];
        influences[..4].copy_from_slice(&four);
        BindVertex {
            position,
            normal,
            influences,
        }
    }
}

/// A mesh whose vertices are stored in the bind pose. Implemented by the bind-pose meshes of
/// IQM, PSK, ZYM, Half-Life, MDL7 ([`mdl7::BindMesh`](crate::mdl7::BindMesh)),
/// [`Ms3d`](crate::ms3d::Ms3d) and [`slmdl::Mesh`](crate::slmdl::Mesh).
pub trait BindPoseMesh {
    /// The number of vertices.
    fn num_vertices(&self) -> usize;

    /// Vertex `i`, or `None` out of range.
    fn bind_vertex(&self, i: usize) -> Option<BindVertex>;

    /// Every vertex's bind position and normal (zero where the format stores none per
    /// vertex) into the start of `positions` and `normals`, as many as both hold: the mesh
    /// as stored, which deforming by the bind pose gives. The default reads
    /// [`bind_vertex`](BindPoseMesh::bind_vertex) one at a time; IQM copies its arrays.
    fn copy_bind_pose(&self, positions: &mut [[f32; 3]], normals: &mut [[f32; 3]]) {
        for (i, (p, n)) in positions.iter_mut().zip(normals).enumerate() {
            let Some(v) = self.bind_vertex(i) else { break };
            *p = v.position.to_array();
            *n = v.normal.to_array();
        }
    }

    /// The vertices as arrays of four byte weights each, where the mesh stores them so and
    /// every vertex reads as [`bind_vertex`](BindPoseMesh::bind_vertex) reads it from them:
    /// the skinning loops then read the arrays instead of one [`BindVertex`] at a time. The
    /// default is `None`; IQM gives its arrays.
    fn four_influences(&self) -> Option<FourInfluences<'_>> {
        None
    }

    /// For a mesh whose every vertex is bound wholly to one bone (Half-Life): each vertex's
    /// bone, bind position and normal, in order, as `f(i, bone, position, normal)`, then
    /// `true`. Each vertex given is the one [`bind_vertex`](BindPoseMesh::bind_vertex) gives,
    /// bound to `bone` at weight 1; the blends read them so instead of one lookup a vertex.
    /// The default gives none and returns `false`.
    fn for_each_rigid_vertex(&self, f: impl FnMut(usize, u16, Vec3A, Vec3A)) -> bool {
        let _ = f;
        false
    }
}

/// A bind-pose mesh's vertex arrays with four influences a vertex, each weight a byte over
/// 255 (IQM's usual layout), all [`num_vertices`](BindPoseMesh::num_vertices) long. Vertex
/// `i` is bound to `indexes[i][k]` by `weights[i][k] / 255` for each `k` whose weight is not
/// zero, in that order; a vertex whose four weights are zero is bound wholly (weight 1) to
/// `indexes[i][0]`. Its normal is zero where `normals` is `None`.
#[derive(Debug, Clone, Copy)]
pub struct FourInfluences<'a> {
    /// Positions in the bind pose, little-endian floats.
    pub positions: &'a [[F32<LittleEndian>; 3]],
    /// Normals in the bind pose, where the mesh has them.
    pub normals: Option<&'a [[F32<LittleEndian>; 3]]>,
    /// Four bone indexes a vertex.
    pub indexes: &'a [[u8; 4]],
    /// Four weights a vertex, each over 255.
    pub weights: &'a [[u8; 4]],
}

impl<M: BindPoseMesh + ?Sized> BindPoseMesh for &M {
    fn num_vertices(&self) -> usize {
        (**self).num_vertices()
    }

    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        (**self).bind_vertex(i)
    }

    fn copy_bind_pose(&self, positions: &mut [[f32; 3]], normals: &mut [[f32; 3]]) {
        (**self).copy_bind_pose(positions, normals);
    }

    fn four_influences(&self) -> Option<FourInfluences<'_>> {
        (**self).four_influences()
    }

    fn for_each_rigid_vertex(&self, f: impl FnMut(usize, u16, Vec3A, Vec3A)) -> bool {
        (**self).for_each_rigid_vertex(f)
    }
}
