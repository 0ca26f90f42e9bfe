//! Meshes, submeshes, materials, skins and the terrain grid, the same for every format.
//!
//! A [`Mesh`] is one vertex array with triangles over it: what one skinning or morph call
//! fills. A DPM or SKM has one per mesh of the file; an MS3D (all groups share its vertices),
//! an MDL, an HMP, a Quake model and an SL mesh have one. A mesh is drawn in one or more [`Submesh`]es,
//! each a set of its triangles with one material: an MS3D's groups, one covering everything
//! elsewhere.

use zerocopy::LittleEndian;
use zerocopy::byteorder::U16;

use super::{Model, View};
use crate::dpm;
use crate::format::Format;
use crate::gamestudio::skin::grey_palette;
use crate::gamestudio::{Hmp, Mdl, Skin};
use crate::ms3d::{Group, Ms3d};
use crate::name;
use crate::pose::SkeletalMesh;
use crate::quake;
use crate::skm;
use crate::slmdl;
use crate::slmdl::AttributeKind;

/// Where a mesh keeps its texture coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexcoordLayout {
    /// One per vertex (DPM, SKM, HMP, SL): [`Mesh::vertex_texcoord`].
    PerVertex,
    /// One per triangle corner (MS3D, MDL, Quake): [`Mesh::corner_texcoords`] only.
    PerCorner,
    /// None (an SL layout without texture coordinates, an MDL without skin vertices, a Quake
    /// model without skins).
    None,
}

#[derive(Debug, Clone, Copy)]
enum Kind<'a> {
    Dpm(dpm::Mesh<'a>),
    Skm(skm::Mesh<'a>),
    Ms3d(&'a Ms3d<'a>),
    Mdl(&'a Mdl<'a>),
    Hmp(&'a Hmp<'a>),
    Quake(&'a quake::Mdl<'a>),
    Sl(slmdl::Mesh<'a>),
}

/// One mesh of a [`Model`]: a vertex array with triangles over it, drawn in one or more
/// [`Submesh`]es.
#[derive(Debug, Clone, Copy)]
pub struct Mesh<'a> {
    index: usize,
    kind: Kind<'a>,
}

impl<'data> Model<'data> {
    /// Number of meshes (0 for a skeleton or an animation on its own).
    #[must_use]
    pub fn num_meshes(&self) -> usize {
        match self.view() {
            View::Dpm(m) => m.num_meshes(),
            View::Skm(m) => m.skm().num_meshes(),
            View::Ms3d(_) | View::Mdl(_) | View::Hmp(_) | View::Quake(_) | View::SlMdl(_) => 1,
            View::Skp(_) | View::SlAnim(_) => 0,
        }
    }

    /// Mesh `index`, or `None` out of range.
    #[must_use]
    pub fn mesh(&self, index: usize) -> Option<Mesh<'_>> {
        let kind = match self.view() {
            View::Dpm(m) => Kind::Dpm(m.mesh(index)?),
            View::Skm(m) => Kind::Skm(m.skm().mesh(index)?),
            View::Ms3d(m) if index == 0 => Kind::Ms3d(m),
            View::Mdl(m) if index == 0 => Kind::Mdl(m),
            View::Hmp(h) if index == 0 => Kind::Hmp(h),
            View::Quake(q) if index == 0 => Kind::Quake(q),
            View::SlMdl(m) if index == 0 => Kind::Sl(m.mdl()),
            _ => return None,
        };
        Some(Mesh { index, kind })
    }

    /// The meshes, in order.
    pub fn meshes(&self) -> impl Iterator<Item = Mesh<'_>> + Clone + '_ {
        (0..self.num_meshes()).filter_map(|i| self.mesh(i))
    }

    /// Vertices summed over all meshes.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.meshes().map(|m| m.num_vertices()).sum()
    }

    /// Triangles summed over all meshes.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.meshes().map(|m| m.num_triangles()).sum()
    }

    /// Number of materials [`Submesh::material`] indexes: one per mesh for DPM and SKM (its
    /// shader), the file's materials for MS3D, one per skin for MDL, HMP and Quake, none for SL.
    #[must_use]
    pub fn num_materials(&self) -> usize {
        match self.view() {
            View::Dpm(_) | View::Skm(_) => self.num_meshes(),
            View::Ms3d(m) => m.materials().len(),
            View::Mdl(_) | View::Hmp(_) | View::Quake(_) => self.skins().len(),
            View::Skp(_) | View::SlMdl(_) | View::SlAnim(_) => 0,
        }
    }

    /// Material `index`, or `None` out of range.
    #[must_use]
    pub fn material(&self, index: usize) -> Option<Material<'_>> {
        match self.view() {
            View::Dpm(m) => m.mesh(index).map(|x| plain(x.shader_name())),
            View::Skm(m) => m.skm().mesh(index).map(|x| plain(x.shader_name())),
            View::Ms3d(m) => m.materials().get(index).map(|x| Material {
                name: name::trim_nul(&x.name),
                texture: name::trim_nul(&x.texture),
                diffuse: x.diffuse.map(|c| c.get()),
                skin: None,
            }),
            View::Mdl(_) | View::Hmp(_) | View::Quake(_) => {
                (index < self.skins().len()).then(|| Material {
                    name: b"skin",
                    texture: self
                        .skin(index)
                        .and_then(|s| s.external())
                        .unwrap_or_default(),
                    diffuse: [1.0; 4],
                    skin: Some(index),
                })
            }
            View::Skp(_) | View::SlMdl(_) | View::SlAnim(_) => None,
        }
    }

    /// The skins (textures) a GameStudio model or terrain or a Quake model embeds (a Quake
    /// skin group's images one after another); empty for other formats.
    #[must_use]
    pub fn skins(&self) -> &[Skin<'_>] {
        match self.view() {
            View::Mdl(m) => m.skins(),
            View::Hmp(h) => h.skins(),
            View::Quake(q) => q.skins(),
            _ => &[],
        }
    }

    /// Skin `index` as a material draws it: the skin, or the one it refers to (an HMP7
    /// reference, followed once; references are proven to name another skin of the file).
    #[must_use]
    pub fn skin(&self, index: usize) -> Option<&Skin<'_>> {
        let skins = self.skins();
        let skin = skins.get(index)?;
        match skin.reference() {
            Some(target) => skins.get(target as usize),
            None => Some(skin),
        }
    }

    /// The palette 8-bit skins index: [`quake::PALETTE`] for a Quake model, else
    /// [`grey_palette`] (GameStudio's 8-bit skins use the level's palette, which the file
    /// does not carry).
    #[must_use]
    pub fn skin_palette(&self) -> [[u8; 3]; 256] {
        match self.view() {
            View::Quake(q) if q.format() == Format::Quake => quake::PALETTE,
            _ => grey_palette(),
        }
    }

    /// Skin `index` decoded to RGBA8 (`width · height · 4` bytes), 8-bit skins through
    /// [`Model::skin_palette`]; `None` out of range or for a skin without texels (a DDS file,
    /// an external name). A reference is followed, as [`Model::skin`] does.
    #[must_use]
    pub fn skin_rgba(&self, index: usize) -> Option<Vec<u8>> {
        self.skin(index)?.decode_rgba(0, &self.skin_palette())
    }

    /// A terrain's grid, `None` for a model that is not one.
    #[must_use]
    pub fn terrain(&self) -> Option<TerrainGrid> {
        let h = self.as_hmp()?;
        let ([columns, rows], cell) = (h.grid(), h.cell_size());
        Some(TerrainGrid {
            columns,
            rows,
            cell,
        })
    }
}

/// A material that is only a name, which is also its texture (a DPM or SKM shader).
fn plain(name: &[u8]) -> Material<'_> {
    Material {
        name,
        texture: name,
        diffuse: [1.0; 4],
        skin: None,
    }
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
    /// The embedded skin it uses ([`Model::skins`]), for GameStudio models and terrains.
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
}

impl<'a> Submesh<'a> {
    /// The name (an MS3D group's; the mesh's elsewhere).
    #[must_use]
    pub fn name(&self) -> &'a [u8] {
        self.name
    }

    /// The material ([`Model::material`]), if any.
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
        }
    }

    /// The mesh triangles ([`Mesh::triangle`] indices) the submesh draws.
    pub fn triangle_indices(&self) -> impl ExactSizeIterator<Item = usize> + Clone + 'a {
        let (n, list) = match self.triangles {
            SubmeshTriangles::All(n) => (n, &[][..]),
            SubmeshTriangles::List(list) => (list.len(), list),
        };
        (0..n).map(move |i| list.get(i).map_or(i, |t| usize::from(t.get())))
    }
}

impl<'a> Mesh<'a> {
    /// The mesh's index in its model.
    #[must_use]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The name: an SKM mesh's name, a DPM mesh's shader name (DPM meshes have no other), empty
    /// elsewhere.
    #[must_use]
    pub fn name(&self) -> &'a [u8] {
        match self.kind {
            Kind::Dpm(m) => m.shader_name(),
            Kind::Skm(m) => m.mesh_name(),
            Kind::Ms3d(_) | Kind::Mdl(_) | Kind::Hmp(_) | Kind::Quake(_) | Kind::Sl(_) => &[],
        }
    }

    /// Number of vertices: the elements a skinning or morph call writes.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        match self.kind {
            Kind::Dpm(m) => m.num_vertices(),
            Kind::Skm(m) => m.num_vertices(),
            Kind::Ms3d(m) => m.vertices().len(),
            Kind::Mdl(m) => m.num_vertices(),
            Kind::Hmp(h) => h.num_vertices(),
            Kind::Quake(q) => q.num_vertices(),
            Kind::Sl(m) => m.num_vertices(),
        }
    }

    /// Number of triangles.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        match self.kind {
            Kind::Dpm(m) => m.num_triangles(),
            Kind::Skm(m) => m.num_triangles(),
            Kind::Ms3d(m) => m.triangles().len(),
            Kind::Mdl(m) => m.triangles().len(),
            Kind::Hmp(h) => h.num_triangles(),
            Kind::Quake(q) => q.num_triangles(),
            Kind::Sl(m) => m.num_vertices() / 3,
        }
    }

    /// Triangle `i` as three vertex indices (each `< num_vertices`), or `None` out of range.
    /// DPM, SKM and MS3D store counter-clockwise triangles; a Quake model's, stored
    /// clockwise, are reversed (corner texture coordinates too); a terrain's are counter-clockwise
    /// seen from above; an SL mesh is a triangle list (vertices `3i`, `3i + 1`, `3i + 2`).
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        match self.kind {
            Kind::Dpm(m) => m.indices_raw().get(i).map(|t| t.map(|v| v.get())),
            Kind::Skm(m) => m.indices_raw().get(i).map(|t| t.map(|v| v.get())),
            Kind::Ms3d(m) => m
                .triangles()
                .get(i)
                .map(|t| t.vertex_indices.map(|v| u32::from(v.get()))),
            Kind::Mdl(m) => m.triangle(i).map(|(xyz, _)| xyz.map(u32::from)),
            Kind::Hmp(h) => h.triangle(i),
            // Quake's triangles are clockwise: reversed to counter-clockwise.
            Kind::Quake(q) => q.triangle(i).map(|(_, [a, b, c])| [c, b, a]),
            Kind::Sl(_) => {
                let first = u32::try_from(i).ok()?.checked_mul(3)?;
                (i < self.num_triangles()).then_some([first, first + 1, first + 2])
            }
        }
    }

    /// Every triangle, in order.
    pub fn triangles(&self) -> impl ExactSizeIterator<Item = [u32; 3]> + Clone + 'a {
        let mesh = *self;
        (0..self.num_triangles()).map(move |i| mesh.triangle(i).unwrap_or_default())
    }

    /// Where the mesh keeps its texture coordinates.
    #[must_use]
    pub fn texcoord_layout(&self) -> TexcoordLayout {
        match self.kind {
            Kind::Dpm(_) | Kind::Skm(_) | Kind::Hmp(_) => TexcoordLayout::PerVertex,
            // Without skin vertices an MDL's UV indices mean nothing (validation ignores them).
            Kind::Mdl(m) if m.skin_vertices().len() == 0 => TexcoordLayout::None,
            Kind::Ms3d(_) | Kind::Mdl(_) => TexcoordLayout::PerCorner,
            Kind::Quake(q) if q.skins().is_empty() => TexcoordLayout::None,
            Kind::Quake(_) => TexcoordLayout::PerCorner,
            Kind::Sl(m) => match sl_texcoords(&m) {
                Some(_) => TexcoordLayout::PerVertex,
                None => TexcoordLayout::None,
            },
        }
    }

    /// The texture coordinate of vertex `v` as stored (DPM: `t` already flipped), for
    /// [`TexcoordLayout::PerVertex`] meshes; `None` otherwise or out of range.
    #[must_use]
    pub fn vertex_texcoord(&self, v: usize) -> Option<[f32; 2]> {
        match self.kind {
            Kind::Dpm(m) => m.texcoords_raw().get(v).map(|st| st.map(|c| c.get())),
            Kind::Skm(m) => m.texcoords_raw().get(v).map(|st| st.map(|c| c.get())),
            Kind::Hmp(h) => h.texcoord(v),
            Kind::Sl(m) => sl_texcoords(&m)?.floats::<2>(v),
            Kind::Ms3d(_) | Kind::Mdl(_) | Kind::Quake(_) => None,
        }
    }

    /// The texture coordinates of triangle `t`'s three corners, for every layout: the
    /// corners' vertices' for per-vertex meshes; as stored for MS3D; an MDL's skin vertex
    /// divided by the skin's size. `None` out of range or for a mesh without texture
    /// coordinates.
    #[must_use]
    pub fn corner_texcoords(&self, t: usize) -> Option<[[f32; 2]; 3]> {
        match self.kind {
            Kind::Ms3d(m) => {
                let tri = m.triangles().get(t)?;
                Some(core::array::from_fn(|k| [tri.s[k].get(), tri.t[k].get()]))
            }
            Kind::Mdl(m) => {
                let (_, st) = m.triangle(t)?;
                let (width, height) = m.skin_size();
                let uv = |k: usize| m.normalised_uv(usize::from(st[k]), width, height);
                Some([uv(0)?, uv(1)?, uv(2)?])
            }
            Kind::Quake(q) if q.skins().is_empty() => None,
            Kind::Quake(q) => q.corner_texcoords(t).map(|[a, b, c]| [c, b, a]),
            _ => {
                let tri = self.triangle(t)?;
                let uv = |k: usize| self.vertex_texcoord(tri[k] as usize);
                Some([uv(0)?, uv(1)?, uv(2)?])
            }
        }
    }

    /// The submeshes (an MS3D's groups; one covering every triangle elsewhere).
    pub fn submeshes(&self) -> impl ExactSizeIterator<Item = Submesh<'a>> + Clone + 'a {
        let whole = Submesh {
            name: self.name(),
            material: match self.kind {
                Kind::Dpm(_) | Kind::Skm(_) => Some(self.index),
                Kind::Mdl(m) => (!m.skins().is_empty()).then_some(0),
                Kind::Hmp(h) => (!h.skins().is_empty()).then_some(0),
                Kind::Quake(q) => (!q.skins().is_empty()).then_some(0),
                Kind::Ms3d(_) | Kind::Sl(_) => None,
            },
            triangles: SubmeshTriangles::All(self.num_triangles()),
        };
        let groups: &'a [Group<'a>] = match self.kind {
            Kind::Ms3d(m) => m.groups(),
            _ => &[],
        };
        let single = groups.is_empty() && !matches!(self.kind, Kind::Ms3d(_));
        let count = groups.len() + usize::from(single);
        (0..count).map(move |i| match groups.get(i) {
            Some(g) => Submesh {
                name: g.name(),
                material: g.material(),
                triangles: SubmeshTriangles::List(g.triangle_index_slice()),
            },
            None => whole,
        })
    }

    /// Calls `f(vertex, bone, weight)` for every bone influence of every vertex, in vertex
    /// order (nothing for vertex-animated meshes): DPM and SKM records as stored (weights as
    /// stored, zero ones included); MS3D and SL weights normalised, zero ones left out. An
    /// MS3D vertex bound to no joint has none.
    pub fn for_each_influence(&self, mut f: impl FnMut(usize, u32, f32)) {
        match self.kind {
            Kind::Dpm(m) => {
                for (v, records) in m.vertices().enumerate() {
                    records
                        .iter()
                        .for_each(|r| f(v, r.bonenum(), r.influence()));
                }
            }
            Kind::Skm(m) => {
                for (v, records) in m.vertices().enumerate() {
                    records
                        .iter()
                        .for_each(|r| f(v, r.bonenum(), r.influence()));
                }
            }
            Kind::Ms3d(m) => {
                for v in 0..m.vertices().len() {
                    for (joint, weight) in m
                        .vertex_weights(v)
                        .unwrap_or_default()
                        .into_iter()
                        .flatten()
                    {
                        f(v, u32::from(joint), weight);
                    }
                }
            }
            Kind::Sl(m) => {
                for v in 0..m.num_vertices() {
                    let Some(influences) = m.influences(v) else {
                        break;
                    };
                    for (bone, weight) in influences.into_iter().filter(|(_, w)| *w > 0.0) {
                        f(v, u32::from(bone), weight);
                    }
                }
            }
            Kind::Mdl(_) | Kind::Hmp(_) | Kind::Quake(_) => {}
        }
    }

    /// `true` when the mesh stores its normals per triangle corner (MS3D), so that
    /// [`Model::deform_corner_normals`] keeps hard edges [`Model::deform`] cannot.
    #[must_use]
    pub fn has_corner_normals(&self) -> bool {
        matches!(self.kind, Kind::Ms3d(_))
    }

    /// The normals of triangle `t`'s corners as stored (MS3D, in the bind pose); `None` for
    /// meshes that store normals per vertex, or out of range.
    #[must_use]
    pub fn stored_corner_normals(&self, t: usize) -> Option<[[f32; 3]; 3]> {
        match self.kind {
            Kind::Ms3d(m) => m
                .triangles()
                .get(t)
                .map(|tri| tri.vertex_normals.map(|n| n.map(|c| c.get()))),
            _ => None,
        }
    }

    /// Bone influences summed over the vertices, and the most on one vertex (0 for
    /// vertex-animated meshes).
    #[must_use]
    pub fn influence_counts(&self) -> (u64, usize) {
        let (mut total, mut max, mut current, mut run) = (0u64, 0usize, usize::MAX, 0usize);
        self.for_each_influence(|v, _, _| {
            total += 1;
            if v != current {
                (current, run) = (v, 0);
            }
            run += 1;
            max = max.max(run);
        });
        (total, max)
    }
}

/// An SL layout's texture coordinates, when it declares at least two floats of them.
fn sl_texcoords<'a>(m: &slmdl::Mesh<'a>) -> Option<crate::slmdl::Strided<'a>> {
    m.attribute(AttributeKind::Texcoord)
        .filter(|v| v.size() >= 8)
}
