//! The format-neutral description of meshes: where texture coordinates live, materials,
//! submeshes and terrain grids, and the helpers formats share to give them.

use zerocopy::LittleEndian;
use zerocopy::byteorder::U16;

use crate::alias::Skin;
use crate::pose::SkeletalMesh;

/// Where a mesh keeps its texture coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexcoordLayout {
    /// One per vertex (DPM, SKM, IQM, MD5, PSK, ZYM, Half-Life, MD3, MDC, MDR, MDM, HMP, SL):
    /// [`Mesh::vertex_texcoord`](crate::model::Mesh::vertex_texcoord).
    PerVertex,
    /// One per triangle corner (MS3D, MDL7, GameStudio MDL, Quake, MD2):
    /// [`Mesh::corner_texcoords`](crate::model::Mesh::corner_texcoords) only.
    PerCorner,
    /// None (an SL layout without texture coordinates, an MDL without skin vertices, a Quake
    /// model without skins).
    None,
}

/// A terrain's grid: vertex `column + row · columns` lies at
/// `(column · cell[0], row · cell[1], height)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TerrainGrid {
    /// Vertices per row (along X).
    pub columns: u32,
    /// Rows (along Y).
    pub rows: u32,
    /// Spacing of vertices along X and Y.
    pub cell: [f32; 2],
}

/// A material: what a submesh is drawn with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Material<'a> {
    /// The name (a DPM or SKM shader name, an MS3D material name).
    pub name: &'a [u8],
    /// The texture file it names (MS3D; a DPM or SKM shader name, which engines map to a
    /// texture path; a GameStudio skin's external file name), empty when none.
    pub texture: &'a [u8],
    /// The diffuse colour (MS3D), white otherwise.
    pub diffuse: [f32; 4],
    /// The embedded skin it uses ([`Model::skins`](crate::Model::skins)), for formats that
    /// embed skins.
    pub skin: Option<usize>,
}

/// A set of a mesh's triangles drawn with one material.
#[derive(Debug, Clone, Copy)]
pub struct Submesh<'a> {
    name: &'a [u8],
    material: Option<usize>,
    triangles: SubmeshTriangles<'a>,
}

#[derive(Debug, Clone, Copy)]
enum SubmeshTriangles<'a> {
    All(usize),
    List(&'a [U16<LittleEndian>]),
    Range { first: usize, count: usize },
    Selected(Selected<'a>),
}

/// The triangles of a table whose little-endian `u32` at byte `at` of the record, masked by
/// `mask`, equals `value` (an MDL7 triangle's material; a PSK face's material byte), `count`
/// of them, numbered from `first`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Selected<'a> {
    /// The table: `records` records of `stride` bytes.
    pub(crate) table: &'a [u8],
    /// Bytes per record.
    pub(crate) stride: usize,
    /// Where the selecting `u32` lies in a record.
    pub(crate) at: usize,
    /// The bits of the `u32` that are compared (`u32::MAX` for all of it).
    pub(crate) mask: u32,
    /// The value that selects a record.
    pub(crate) value: u32,
    /// The mesh triangle number of the table's first record.
    pub(crate) first: usize,
    /// How many records have `value` (counted when the table was validated).
    pub(crate) count: usize,
}

impl Selected<'_> {
    /// `true` if record `i` is selected.
    fn selects(&self, i: usize) -> bool {
        let at = i * self.stride + self.at;
        self.table
            .get(at..at + 4)
            .is_some_and(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & self.mask == self.value)
    }
}

/// The iterator of [`Submesh::triangle_indices`].
#[derive(Debug, Clone)]
pub struct TriangleIndices<'a> {
    triangles: SubmeshTriangles<'a>,
    /// The next position (a record, for a selection).
    next: usize,
    remaining: usize,
}

impl Iterator for TriangleIndices<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.remaining == 0 {
            return None;
        }
        let i = self.next;
        let found = match self.triangles {
            SubmeshTriangles::All(_) => i,
            SubmeshTriangles::Range { first, .. } => first + i,
            SubmeshTriangles::List(list) => usize::from(list.get(i)?.get()),
            SubmeshTriangles::Selected(s) => {
                let records = s.table.len() / s.stride.max(1);
                let k = (i..records).find(|&k| s.selects(k))?;
                self.next = k + 1;
                self.remaining -= 1;
                return Some(s.first + k);
            }
        };
        self.next += 1;
        self.remaining -= 1;
        Some(found)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for TriangleIndices<'_> {}

impl<'a> Submesh<'a> {
    /// A submesh drawing every one of a mesh's `triangles` triangles.
    pub(crate) fn whole(name: &'a [u8], material: Option<usize>, triangles: usize) -> Self {
        Submesh {
            name,
            material,
            triangles: SubmeshTriangles::All(triangles),
        }
    }

    /// A submesh drawing the mesh triangles `list` names.
    pub(crate) fn listed(
        name: &'a [u8],
        material: Option<usize>,
        list: &'a [U16<LittleEndian>],
    ) -> Self {
        Submesh {
            name,
            material,
            triangles: SubmeshTriangles::List(list),
        }
    }

    /// A submesh drawing the `count` mesh triangles from `first` (an IQM mesh).
    pub(crate) fn range(
        name: &'a [u8],
        material: Option<usize>,
        first: usize,
        count: usize,
    ) -> Self {
        Submesh {
            name,
            material,
            triangles: SubmeshTriangles::Range { first, count },
        }
    }

    /// The triangles of a table that one value selects (an MDL7 group's that use one of its
    /// skins, a PSK's faces of one material).
    pub(crate) fn selected(
        name: &'a [u8],
        material: Option<usize>,
        selected: Selected<'a>,
    ) -> Self {
        Submesh {
            name,
            material,
            triangles: SubmeshTriangles::Selected(selected),
        }
    }

    /// The name (a group's, an IQM mesh's, a Half-Life studio mesh's texture …; the mesh's
    /// where the mesh is one submesh).
    #[must_use]
    pub fn name(&self) -> &'a [u8] {
        self.name
    }

    /// The material ([`Model::material`](crate::Model::material)), if any.
    #[must_use]
    pub fn material(&self) -> Option<usize> {
        self.material
    }

    /// Number of triangles.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        match self.triangles {
            SubmeshTriangles::All(n) => n,
            SubmeshTriangles::List(list) => list.len(),
            SubmeshTriangles::Range { count, .. } => count,
            SubmeshTriangles::Selected(s) => s.count,
        }
    }

    /// The mesh triangles ([`Mesh::triangle`](crate::model::Mesh::triangle) indices) the submesh draws.
    pub fn triangle_indices(&self) -> TriangleIndices<'a> {
        TriangleIndices {
            triangles: self.triangles,
            next: 0,
            remaining: self.num_triangles(),
        }
    }
}

impl<'a> Material<'a> {
    /// A material that is only a name, which is also its texture (a shader name, which
    /// engines map to a texture path).
    pub(crate) fn plain(name: &'a [u8]) -> Self {
        Material {
            name,
            texture: name,
            diffuse: [1.0; 4],
            skin: None,
        }
    }

    /// The material of `skins[index]`, an embedded skin (its external name, if it has one, as
    /// the texture), following a reference as [`followed_skin`] does; named as the skin is (an
    /// MDL7 skin's name), else `skin`.
    pub(crate) fn of_skin(skins: &'a [Skin<'a>], index: usize) -> Option<Self> {
        let own = skins.get(index).map(Skin::name).filter(|n| !n.is_empty());
        (index < skins.len()).then(|| Material {
            name: own.unwrap_or(b"skin"),
            texture: followed_skin(skins, index)
                .and_then(Skin::external)
                .unwrap_or_default(),
            diffuse: [1.0; 4],
            skin: Some(index),
        })
    }
}

/// Skin `index` of `skins` as a material draws it: the skin, or the one it refers to (an HMP7
/// reference, followed once; references are proven to name another skin of the file).
pub(crate) fn followed_skin<'s, 'a>(skins: &'s [Skin<'a>], index: usize) -> Option<&'s Skin<'a>> {
    let skin = skins.get(index)?;
    match skin.reference() {
        Some(target) => skins.get(target as usize),
        None => Some(skin),
    }
}

/// Triangle `i` of a pre-weighted mesh, as native indices.
pub(crate) fn skeletal_triangle<'a>(mesh: &impl SkeletalMesh<'a>, i: usize) -> Option<[u32; 3]> {
    mesh.indices_raw().get(i).map(|t| t.map(|v| v.get()))
}

/// The texture coordinate of vertex `v` of a pre-weighted mesh.
pub(crate) fn skeletal_texcoord<'a>(mesh: &impl SkeletalMesh<'a>, v: usize) -> Option<[f32; 2]> {
    mesh.texcoords_raw().get(v).map(|st| st.map(|c| c.get()))
}

/// Calls `f(vertex, bone, weight)` for every record of a pre-weighted mesh, as stored.
pub(crate) fn skeletal_influences<'a>(
    mesh: &impl SkeletalMesh<'a>,
    mut f: impl FnMut(usize, u32, f32),
) {
    for (v, records) in mesh.vertices().enumerate() {
        records
            .iter()
            .for_each(|r| f(v, r.bonenum(), r.influence()));
    }
}

/// Implements [`MeshView`](super::MeshView) for a mesh type of pre-weighted records (a
/// [`SkeletalMesh`]) whose name method is `$name`: per-vertex texture coordinates, the whole mesh
/// drawn with the material of its index, every stored record an influence.
macro_rules! skeletal_mesh_view {
    ($mesh:ident, $name:ident) => {
        impl<'a> $crate::view::MeshView<'a> for $mesh<'a> {
            fn name(&self) -> &'a [u8] {
                self.$name()
            }

            fn num_vertices(&self) -> usize {
                $crate::pose::SkeletalMesh::num_vertices(self)
            }

            fn num_triangles(&self) -> usize {
                $crate::pose::SkeletalMesh::num_triangles(self)
            }

            fn triangle(&self, i: usize) -> Option<[u32; 3]> {
                $crate::view::skeletal_triangle(self, i)
            }

            fn texcoord_layout(&self) -> $crate::view::TexcoordLayout {
                $crate::view::TexcoordLayout::PerVertex
            }

            fn vertex_texcoord(&self, v: usize) -> Option<[f32; 2]> {
                $crate::view::skeletal_texcoord(self, v)
            }

            fn material(&self, index: usize) -> Option<usize> {
                Some(index)
            }

            fn for_each_influence(&self, f: impl FnMut(usize, u32, f32)) {
                $crate::view::skeletal_influences(self, f);
            }
        }
    };
}

pub(crate) use skeletal_mesh_view;
