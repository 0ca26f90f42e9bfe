//! Pre-weighted bone-space records as the record kernels (scalar, stream, prepared,
//! dual-quaternion) read them, whichever byte order they are stored in.
//!
//! A file that stores its meshes pre-weighted hands its meshes over as [`RecordsMesh`]es of its
//! byte order; [`WeightedRecords`](super::WeightedRecords) writes bind-pose meshes as
//! little-endian ones. [`Records`] holds either order, so that one type serves every format
//! and each method runs the kernel of its name on it.

use core::marker::PhantomData;

use zerocopy::byteorder::{BigEndian, ByteOrder, LittleEndian};

use super::dqs::{DualQuat, skin_dqs};
use super::{PreparedMesh, SimdLevel, SkinError, SkinMatrices};
use crate::pose::{MeshGeometry, Palette, SkeletalMesh};

/// One mesh's pre-weighted records in byte order `O`: a [`SkeletalMesh`] with nothing but its
/// records (a file's mesh keeps its texture coordinates and triangles).
#[derive(Debug, Clone, Copy)]
pub struct RecordsMesh<'a, O = LittleEndian> {
    geometry: MeshGeometry<'a>,
    order: PhantomData<O>,
}

impl<'a, O: ByteOrder + 'a> RecordsMesh<'a, O> {
    /// The records of a file's mesh.
    #[must_use]
    pub fn of(mesh: &impl SkeletalMesh<'a, Order = O>) -> Self {
        RecordsMesh {
            geometry: mesh.geometry(),
            order: PhantomData,
        }
    }

    /// `num_vertices` vertices of records the crate wrote itself into `bytes` (each a count
    /// and that many records, from offset 0).
    pub(crate) fn written(bytes: &'a [u8], num_vertices: u32) -> Self {
        let end = bytes.len() as u64;
        RecordsMesh {
            geometry: MeshGeometry::new(bytes, [0, end, end], num_vertices, 0),
            order: PhantomData,
        }
    }
}

impl<'a, O: ByteOrder + 'a> SkeletalMesh<'a> for RecordsMesh<'a, O> {
    type Order = O;

    fn geometry(&self) -> MeshGeometry<'a> {
        self.geometry
    }
}

/// One mesh's pre-weighted records in either byte order: a file's as stored (big-endian for a
/// DPM, little-endian for an SKM) or bind-pose meshes converted by
/// [`WeightedRecords`](super::WeightedRecords); each method runs the record kernel of its name.
///
/// ```
/// use skelmap_core::Model;
///
/// let bytes = skelmap_core::synth::tube(&Default::default()).write()?;
/// let model = Model::from_bytes(&bytes)?;
/// let records = model.records(0).expect("a DPM stores its records");
/// assert_eq!((records.num_vertices(), records.num_records()), (136, 304));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Records<'a> {
    /// Big-endian records (a DPM's).
    BigEndian(RecordsMesh<'a, BigEndian>),
    /// Little-endian records (an SKM's, or bind-pose meshes converted by
    /// [`WeightedRecords`](super::WeightedRecords)).
    LittleEndian(RecordsMesh<'a, LittleEndian>),
}

/// Calls `$body` with `$m` bound to the mesh of whichever byte order.
macro_rules! each {
    ($records:expr, $m:ident => $body:expr) => {
        match $records {
            Records::BigEndian($m) => $body,
            Records::LittleEndian($m) => $body,
        }
    };
}

impl Records<'_> {
    /// Number of vertices.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        each!(self, m => m.num_vertices())
    }

    /// Number of influence records.
    #[must_use]
    pub fn num_records(&self) -> usize {
        each!(self, m => m.vertices().map(<[_]>::len).sum())
    }

    /// [`skin::scalar`](fn@super::scalar): the reference kernel.
    ///
    /// # Errors
    ///
    /// As [`skin::scalar`](fn@super::scalar).
    pub fn skin_scalar(
        &self,
        palette: &Palette,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), SkinError> {
        each!(self, m => super::scalar(m, palette, positions, normals))
    }

    /// [`skin::stream`](fn@super::stream): straight over the records, no preparation.
    ///
    /// # Errors
    ///
    /// As [`skin::stream`](fn@super::stream).
    pub fn skin_stream(
        &self,
        matrices: &SkinMatrices,
        level: SimdLevel,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), SkinError> {
        each!(self, m => super::stream(m, matrices, level, positions, normals))
    }

    /// [`skin_dqs`]: dual quaternions relative to `bind`.
    ///
    /// # Errors
    ///
    /// As [`skin_dqs`].
    pub fn skin_dqs(
        &self,
        bind: &Palette,
        deltas: &[DualQuat],
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) -> Result<(), SkinError> {
        each!(self, m => skin_dqs(m, bind, deltas, positions, normals))
    }

    /// [`PreparedMesh::new`]: the records regrouped for the prepared kernel.
    #[must_use]
    pub fn prepare(&self) -> PreparedMesh {
        each!(self, m => PreparedMesh::new(m))
    }

    /// [`CompactMesh::new`](super::CompactMesh::new): the records folded for the compact
    /// kernel under the reference (bind) pose `reference`.
    ///
    /// # Errors
    ///
    /// As [`CompactMesh::new`](super::CompactMesh::new).
    pub fn compact(&self, reference: &[glam::Affine3A]) -> Result<super::CompactMesh, SkinError> {
        each!(self, m => super::CompactMesh::new(m, reference))
    }
}

impl<'a> From<RecordsMesh<'a, BigEndian>> for Records<'a> {
    fn from(mesh: RecordsMesh<'a, BigEndian>) -> Self {
        Records::BigEndian(mesh)
    }
}

impl<'a> From<RecordsMesh<'a, LittleEndian>> for Records<'a> {
    fn from(mesh: RecordsMesh<'a, LittleEndian>) -> Self {
        Records::LittleEndian(mesh)
    }
}
