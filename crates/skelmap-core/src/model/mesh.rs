//! Meshes, submeshes, materials, skins and the terrain grid, the same for every format.
//!
//! A [`Mesh`] is one vertex array with triangles over it: what one skinning or morph call
//! fills. A DPM, SKM or MD5 has one per mesh of the file, an MD3, MDC, MDR or MDM one per
//! surface; every other format has one. A mesh is drawn in one or more [`Submesh`]es, each a
//! set of its triangles with one material: an MS3D's or MDL7's groups, an IQM's meshes, a
//! PSK's materials, a ZYM's shaders, a Half-Life model's studio meshes; one covering
//! everything elsewhere.

use super::Model;
use super::any::{MeshKind, with_mesh, with_view};
use crate::alias::Skin;
use crate::view::{
    Material, MeshView, ModelView, Submesh, TerrainGrid, TexcoordLayout, followed_skin,
};

/// One mesh of a [`Model`]: a vertex array with triangles over it, drawn in one or more
/// [`Submesh`]es.
#[derive(Debug, Clone, Copy)]
pub struct Mesh<'a> {
    index: usize,
    kind: MeshKind<'a>,
}

impl<'data> Model<'data> {
    /// Number of meshes (0 for a skeleton or an animation on its own).
    #[must_use]
    pub fn num_meshes(&self) -> usize {
        with_view!(self.view(), v => ModelView::num_meshes(v))
    }

    /// Mesh `index`, or `None` out of range.
    #[must_use]
    pub fn mesh(&self, index: usize) -> Option<Mesh<'_>> {
        let kind = self.view().mesh_kind(index)?;
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
        with_view!(self.view(), v => ModelView::num_materials(v))
    }

    /// Material `index`, or `None` out of range.
    #[must_use]
    pub fn material(&self, index: usize) -> Option<Material<'_>> {
        with_view!(self.view(), v => ModelView::material(v, index))
    }

    /// The skins (textures) a model embeds: a GameStudio model's or terrain's, an MDL7's, a
    /// Quake model's (a skin group's images one after another), a Half-Life model's textures
    /// (with its texture file's); empty for other formats.
    #[must_use]
    pub fn skins(&self) -> &[Skin<'_>] {
        with_view!(self.view(), v => ModelView::skins(v))
    }

    /// Skin `index` as a material draws it: the skin, or the one it refers to (an HMP7
    /// reference, followed once; references are proven to name another skin of the file).
    #[must_use]
    pub fn skin(&self, index: usize) -> Option<&Skin<'_>> {
        followed_skin(self.skins(), index)
    }

    /// The palette 8-bit skins index: [`quake::PALETTE`](crate::quake::PALETTE) for a Quake
    /// model, else [`grey_palette`](crate::alias::skin::grey_palette) (GameStudio's 8-bit
    /// skins use the level's palette, which the file does not carry).
    #[must_use]
    pub fn skin_palette(&self) -> [[u8; 3]; 256] {
        with_view!(self.view(), v => ModelView::skin_palette(v))
    }

    /// Skin `index` decoded to RGBA8 (`width · height · 4` bytes), 8-bit skins through their
    /// own palette (Half-Life's) or else [`Model::skin_palette`]; `None` out of range or for a
    /// skin without texels (a DDS file, an external name). A reference is followed, as
    /// [`Model::skin`] does.
    #[must_use]
    pub fn skin_rgba(&self, index: usize) -> Option<Vec<u8>> {
        self.skin(index)?.decode_rgba(0, &self.skin_palette())
    }

    /// A terrain's grid, `None` for a model that is not one.
    #[must_use]
    pub fn terrain(&self) -> Option<TerrainGrid> {
        with_view!(self.view(), v => ModelView::terrain(v))
    }
}

impl<'a> Mesh<'a> {
    /// The mesh's index in its model.
    #[must_use]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The name: an SKM mesh's name; a DPM or MD5 mesh's shader name (they have no other); an
    /// MD3, MDC, MDR or MDM surface's name; empty elsewhere.
    #[must_use]
    pub fn name(&self) -> &'a [u8] {
        with_mesh!(self.kind, m => MeshView::name(&m))
    }

    /// Number of vertices: the elements a skinning or morph call writes.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        with_mesh!(self.kind, m => MeshView::num_vertices(&m))
    }

    /// Number of triangles.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        with_mesh!(self.kind, m => MeshView::num_triangles(&m))
    }

    /// Triangle `i` as three vertex indices (each `< num_vertices`), or `None` out of range.
    /// DPM, SKM and MS3D store counter-clockwise triangles; a Quake model's, stored
    /// clockwise, are reversed (corner texture coordinates too); a terrain's are counter-clockwise
    /// seen from above; an SL mesh is a triangle list (vertices `3i`, `3i + 1`, `3i + 2`).
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<[u32; 3]> {
        with_mesh!(self.kind, m => MeshView::triangle(&m, i))
    }

    /// Every triangle, in order.
    pub fn triangles(&self) -> impl ExactSizeIterator<Item = [u32; 3]> + Clone + 'a {
        let mesh = *self;
        (0..self.num_triangles()).map(move |i| mesh.triangle(i).unwrap_or_default())
    }

    /// Where the mesh keeps its texture coordinates.
    #[must_use]
    pub fn texcoord_layout(&self) -> TexcoordLayout {
        with_mesh!(self.kind, m => MeshView::texcoord_layout(&m))
    }

    /// The texture coordinate of vertex `v` as stored (DPM: `t` already flipped), for
    /// [`TexcoordLayout::PerVertex`] meshes; `None` otherwise or out of range.
    #[must_use]
    pub fn vertex_texcoord(&self, v: usize) -> Option<[f32; 2]> {
        with_mesh!(self.kind, m => MeshView::vertex_texcoord(&m, v))
    }

    /// The colour of vertex `v` as RGBA bytes, for meshes that store colours (an IQM's colour
    /// array, float colours scaled by 255; a PSK's `VERTEXCOLOR` chunk); `None` otherwise or
    /// out of range.
    #[must_use]
    pub fn vertex_color(&self, v: usize) -> Option<[u8; 4]> {
        with_mesh!(self.kind, m => MeshView::vertex_color(&m, v))
    }

    /// The tangent of vertex `v` in the bind pose, `w` the bitangent's sign (±1), for meshes
    /// that store tangents (an IQM's tangent array); `None` otherwise or out of range.
    #[must_use]
    pub fn vertex_tangent(&self, v: usize) -> Option<[f32; 4]> {
        with_mesh!(self.kind, m => MeshView::vertex_tangent(&m, v))
    }

    /// The texture coordinates of triangle `t`'s three corners, for every layout: the
    /// corners' vertices' for per-vertex meshes; as stored for MS3D; an MDL's skin vertex
    /// divided by the skin's size. `None` out of range or for a mesh without texture
    /// coordinates.
    #[must_use]
    pub fn corner_texcoords(&self, t: usize) -> Option<[[f32; 2]; 3]> {
        with_mesh!(self.kind, m => MeshView::corner_texcoords(&m, t))
    }

    /// The submeshes (see the module's summary: an MS3D's groups, an IQM's meshes, a PSK's
    /// materials …; one covering every triangle elsewhere).
    pub fn submeshes(&self) -> impl ExactSizeIterator<Item = Submesh<'a>> + Clone + 'a {
        let (kind, index) = (self.kind, self.index);
        let material = with_mesh!(kind, m => MeshView::material(&m, index));
        let whole = Submesh::whole(self.name(), material, self.num_triangles());
        let groups = with_mesh!(kind, m => MeshView::num_groups(&m));
        (0..groups.unwrap_or(1)).map(move |i| match groups {
            Some(_) => kind.group(i).unwrap_or(whole),
            None => whole,
        })
    }

    /// Submesh `index` of [`Mesh::submeshes`], found directly; `None` out of range.
    ///
    /// ```
    /// use skelmap_core::Model;
    /// use skelmap_core::synth::{TubeParams, tube};
    /// let bytes = tube(&TubeParams::default()).write()?;
    /// let model = Model::from_bytes(&bytes)?;
    /// let mesh = model.mesh(0).unwrap();
    /// let whole = mesh.submesh(0).unwrap();
    /// assert_eq!(whole.num_triangles(), mesh.num_triangles());
    /// assert!(mesh.submesh(1).is_none());
    /// # Ok::<(), skelmap_core::Error>(())
    /// ```
    #[must_use]
    pub fn submesh(&self, index: usize) -> Option<Submesh<'a>> {
        let groups = with_mesh!(self.kind, m => MeshView::num_groups(&m));
        if index >= groups.unwrap_or(1) {
            return None;
        }
        let whole = || {
            let material = with_mesh!(self.kind, m => MeshView::material(&m, self.index));
            Submesh::whole(self.name(), material, self.num_triangles())
        };
        Some(match groups {
            Some(_) => self.kind.group(index).unwrap_or_else(whole),
            None => whole(),
        })
    }

    /// Calls `f(vertex, bone, weight)` for every bone influence of every vertex, in vertex
    /// order (nothing for vertex-animated meshes): DPM and SKM records as stored (weights as
    /// stored, zero ones included); MS3D and SL weights normalised, zero ones left out. An
    /// MS3D vertex bound to no joint has none.
    pub fn for_each_influence(&self, f: impl FnMut(usize, u32, f32)) {
        with_mesh!(self.kind, m => MeshView::for_each_influence(&m, f));
    }

    /// `true` when the mesh stores its normals per triangle corner (MS3D), so that
    /// [`Model::deform_corner_normals`] keeps hard edges [`Model::deform`] cannot.
    #[must_use]
    pub fn has_corner_normals(&self) -> bool {
        with_mesh!(self.kind, m => MeshView::has_corner_normals(&m))
    }

    /// The normals of triangle `t`'s corners as stored (MS3D, in the bind pose); `None` for
    /// meshes that store normals per vertex, or out of range.
    #[must_use]
    pub fn stored_corner_normals(&self, t: usize) -> Option<[[f32; 3]; 3]> {
        with_mesh!(self.kind, m => MeshView::stored_corner_normals(&m, t))
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
