//! A surface of MD4 vertices ([`Surface`], generic over its format's surface header), the walk
//! of its vertices ([`Vertices`], [`Vertex`]), the pre-weighted records the kernels read
//! (made on first use), and its [`MeshView`].
//!
//! Every offset and count was proven by the format's validation (with
//! `md4::validate::vertices` for the vertices); the accessors reach the bytes through checked
//! reads and fall back to empty results rather than panic, which only a wrong proof could
//! make them do.

use std::borrow::Cow;
use std::sync::OnceLock;

use zerocopy::byteorder::LittleEndian;
use zerocopy::{FromBytes, IntoBytes};

use super::raw::{Md4Vertex, Md4Weight};
use crate::alias::idp3::Md3Triangle;
use crate::bonevert::BoneVert;
use crate::name;
use crate::skin::RecordsMesh;
use crate::view::{MeshView, TexcoordLayout};

/// How a format's renderer turns a vertex's normal, which MD4 stores once a vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Normals {
    /// By every weight's bone, each its weight's share (ioquake3's `RB_MDRSurfaceAnim`):
    /// every record's normal is `weight · normal`.
    Weighted,
    /// By the first weight's bone alone (ET's `RB_MDM_SurfaceAnim`): the first record's
    /// normal is the whole normal, the others' zero.
    FirstWeight,
}

/// A surface header of a format that keeps MD4's vertices (`mdrSurface_t`, `mdmSurface_t`):
/// its name and shader fields, and how its renderer turns normals.
pub trait SurfaceHeader {
    /// How the format's renderer turns a vertex's normal.
    const NORMALS: Normals;

    /// The surface's name field, NUL-padded.
    fn name_field(&self) -> &[u8];

    /// The shader field, NUL-padded.
    fn shader_field(&self) -> &[u8];
}

/// One surface: a mesh of weighted vertices and its shader, its header `H` the format's
/// (`mdr::Surface`, `mdm::Surface`), with `X` what the format adds (an MDM's collapse map
/// and bone references). `Send` and `Sync`.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::mdr::{Builder, Mdr};
/// let bytes = Builder::triangle().write();
/// let mdr = Mdr::parse(&bytes)?;
/// let surface = &mdr.surfaces()[0];
/// assert_eq!((surface.num_vertices(), surface.num_triangles()), (3, 1));
/// assert_eq!(surface.vertices().map(|v| v.weights.len()).sum::<usize>(), 4);
/// let middle = surface.vertex(1).map(|v| v.weights[1].bone_weight.get());
/// assert_eq!(middle, Some(0.75));
/// let records = skelmap_core::skin::Records::from(surface.records());
/// assert_eq!((records.num_vertices(), records.num_records()), (3, 4));
/// # Ok::<(), skelmap_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Surface<'data, H, X = ()> {
    header: &'data H,
    /// Where the header starts in the file.
    offset: u64,
    /// From the first vertex to the end of the last.
    vertices: &'data [u8],
    num_verts: u32,
    triangles: &'data [Md3Triangle],
    /// What the format adds to the surface.
    pub(crate) extra: X,
    /// The weights as records and each vertex's start, made on first use
    /// ([`Surface::records`]).
    decoded: OnceLock<Decoded>,
}

/// A surface's vertices laid out for the record kernels and for random access.
#[derive(Debug, Clone)]
struct Decoded {
    /// Each vertex a little-endian count and its pre-weighted [`BoneVert`] records.
    records: Box<[u8]>,
    /// Each vertex's offset in [`Surface::vertices`].
    starts: Box<[u32]>,
}

/// One vertex of a [`Surface`]: its fixed part and its weights, borrowed from the file.
#[derive(Debug, Clone, Copy)]
pub struct Vertex<'data> {
    /// Normal, texture coordinate, weight count.
    pub raw: &'data Md4Vertex,
    /// The weights.
    pub weights: &'data [Md4Weight],
}

impl Vertex<'_> {
    /// The normal.
    #[must_use]
    pub fn normal(&self) -> [f32; 3] {
        self.raw.normal.map(|v| v.get())
    }

    /// The texture coordinate.
    #[must_use]
    pub fn tex_coords(&self) -> [f32; 2] {
        self.raw.tex_coords.map(|v| v.get())
    }
}

/// The vertices of a surface in file order (a validated walk: each a fixed part and its
/// weights).
#[derive(Debug, Clone)]
pub struct Vertices<'data> {
    rest: &'data [u8],
    left: u32,
}

impl<'data> Iterator for Vertices<'data> {
    type Item = Vertex<'data>;

    fn next(&mut self) -> Option<Vertex<'data>> {
        if self.left == 0 {
            return None;
        }
        let (raw, rest) = Md4Vertex::ref_from_prefix(self.rest).ok()?;
        let count = usize::try_from(raw.num_weights.get()).ok()?;
        let (weights, rest) = <[Md4Weight]>::ref_from_prefix_with_elems(rest, count).ok()?;
        self.rest = rest;
        self.left -= 1;
        Some(Vertex { raw, weights })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

impl ExactSizeIterator for Vertices<'_> {}

impl<'data, H, X> Surface<'data, H, X> {
    /// A validated surface: its header at `offset`, `num_verts` vertices in `vertices` (from
    /// the first to the end of the last), its triangles, and what the format adds.
    pub(crate) fn new(
        (header, offset): (&'data H, u64),
        (vertices, num_verts): (&'data [u8], u32),
        triangles: &'data [Md3Triangle],
        extra: X,
    ) -> Self {
        Surface {
            header,
            offset,
            vertices,
            num_verts,
            triangles,
            extra,
            decoded: OnceLock::new(),
        }
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data H {
        self.header
    }

    /// Where the header starts in the file.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Vertices.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.num_verts as usize
    }

    /// Triangles.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.triangles.len()
    }

    /// Triangle `i` as stored (clockwise seen from the front, as MD3's).
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        let t = self.triangles.get(i)?;
        Some(t.indexes.map(|v| v.get() as u32))
    }

    /// The triangles as stored.
    pub(crate) fn raw_triangles(&self) -> &'data [Md3Triangle] {
        self.triangles
    }

    /// The vertices in file order, each borrowed from the file.
    #[must_use]
    pub fn vertices(&self) -> Vertices<'data> {
        Vertices {
            rest: self.vertices,
            left: self.num_verts,
        }
    }
}

impl<'data, H: SurfaceHeader, X> Surface<'data, H, X> {
    /// The surface's name, up to its NUL.
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        name::trim_nul(self.header.name_field())
    }

    /// The name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.name())
    }

    /// The name that stands for the surface's material: its shader, up to its NUL, or its own
    /// name when the shader is empty (ET's player meshes leave it empty for a `.skin` file to
    /// fill by surface name), as an MD3 surface's ([`crate::md3::Surface::shader_name`]).
    #[must_use]
    pub fn shader_name(&self) -> &'data [u8] {
        match name::trim_nul(self.header.shader_field()) {
            [] => self.name(),
            shader => shader,
        }
    }

    /// Vertex `v`, found through the offsets the first call lays out ([`Surface::records`]).
    #[must_use]
    pub fn vertex(&self, v: usize) -> Option<Vertex<'data>> {
        let start = *self.decoded().starts.get(v)?;
        let rest = self.vertices.get(start as usize..)?;
        Vertices { rest, left: 1 }.next()
    }

    /// The surface's weights as pre-weighted little-endian records, the layout the record
    /// kernels read, made on the first call and kept (32 bytes a weight): `origin = weight ·
    /// offset`, `influence = weight`, and the normal as the format's renderer turns it
    /// ([`Normals`]: an MDR's `weight · normal` on every record, an MDM's whole on the first
    /// and zero on the others). MD4's weights are not stored pre-weighted, and its normal
    /// once a vertex.
    #[must_use]
    pub fn records(&self) -> RecordsMesh<'_, LittleEndian> {
        let decoded = self.decoded();
        RecordsMesh::written(&decoded.records, self.num_verts)
    }

    fn decoded(&self) -> &Decoded {
        self.decoded.get_or_init(|| {
            let mut starts = Vec::with_capacity(self.num_vertices());
            let mut records = Vec::new();
            let mut at = 0usize;
            for vertex in self.vertices() {
                starts.push(at as u32);
                at += size_of::<Md4Vertex>() + size_of_val(vertex.weights);
                records.extend_from_slice(&(vertex.weights.len() as u32).to_le_bytes());
                let normal = vertex.normal();
                for (k, w) in vertex.weights.iter().enumerate() {
                    let weight = w.bone_weight.get();
                    let normal = match H::NORMALS {
                        Normals::Weighted => normal.map(|v| v * weight),
                        Normals::FirstWeight if k == 0 => normal,
                        Normals::FirstWeight => [0.0; 3],
                    };
                    let record = BoneVert::<LittleEndian>::new(
                        w.offset.map(|v| v.get() * weight),
                        weight,
                        normal,
                        w.bone_index.get() as u32,
                    );
                    records.extend_from_slice(record.as_bytes());
                }
            }
            Decoded {
                records: records.into_boxed_slice(),
                starts: starts.into_boxed_slice(),
            }
        })
    }
}

/// Triangles reversed to counter-clockwise (MD4's descendants store them clockwise, as MD3
/// does); a texture coordinate per vertex; every weight an influence.
impl<'a, 'data: 'a, H: SurfaceHeader, X> MeshView<'a> for &'a Surface<'data, H, X> {
    fn name(&self) -> &'a [u8] {
        Surface::name(self)
    }

    fn num_vertices(&self) -> usize {
        Surface::num_vertices(self)
    }

    fn num_triangles(&self) -> usize {
        Surface::num_triangles(self)
    }

    fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        Surface::triangle(self, i).map(|[a, b, c]| [c, b, a])
    }

    fn texcoord_layout(&self) -> TexcoordLayout {
        TexcoordLayout::PerVertex
    }

    fn vertex_texcoord(&self, v: usize) -> Option<[f32; 2]> {
        Some(self.vertex(v)?.tex_coords())
    }

    fn material(&self, index: usize) -> Option<usize> {
        Some(index)
    }

    fn for_each_influence(&self, mut f: impl FnMut(usize, u32, f32)) {
        for (v, vertex) in self.vertices().enumerate() {
            for w in vertex.weights {
                f(v, w.bone_index.get() as u32, w.bone_weight.get());
            }
        }
    }
}
