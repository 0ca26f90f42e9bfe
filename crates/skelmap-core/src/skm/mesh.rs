//! The SKM mesh file: validation (`FORMATS.md` §3.5) and zero-copy accessors.

use core::mem::offset_of;
use std::borrow::Cow;

use zerocopy::LittleEndian;
use zerocopy::byteorder::U32;

use super::raw::{SkmHeader, SkmMesh};
use crate::diag::Diagnostics;
use crate::error::{Error, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::name;
use crate::parse::Parse;
use crate::pose::{MeshGeometry, SkeletalMesh};
use crate::read::Reader;
use crate::rules::{self, Layout, MeshFields, MeshPass, end, record_offset};

const FORMAT: Format = Format::Skm;

/// A validated SKM mesh file over borrowed bytes. `Copy`, `Send` and `Sync`.
///
/// On its own it proves every `bonenum < num_bones` of its own header; pairing with the
/// skeleton ([`SkmModel::pair`](super::SkmModel::pair)) proves that count matches the SKP.
#[derive(Debug, Clone, Copy)]
pub struct Skm<'data> {
    data: &'data [u8],
    header: &'data SkmHeader,
    meshes: &'data [SkmMesh],
}

/// Validates `data` as an SKM under `limits`, recording non-fatal findings in `diag`.
impl<'data> Parse<'data> for Skm<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
    ) -> Result<Skm<'data>> {
        rules::begin(FORMAT, data, limits)?;
        if super::looks_like_skp(data) {
            return Err(Error::WrongFormat {
                expected: Format::Skm,
                found: Format::Skp,
            });
        }
        let header: &SkmHeader = Reader::new(data, FORMAT).ref_at("header", 0)?;
        let at = |f: usize| f as u64;
        let words = super::SharedHeader {
            type_: header.type_.get(),
            filesize: header.filesize.get(),
            num_bones: header.num_bones.get(),
        };
        let data = super::check_shared_header(
            FORMAT,
            data,
            words,
            size_of::<SkmHeader>(),
            limits,
            diag,
            "model has no bones",
        )?;
        let num_bones = header.num_bones.get();
        let num_meshes = header.num_meshes.get();
        rules::check_count(
            FORMAT,
            "header.num_meshes",
            at(offset_of!(SkmHeader, num_meshes)),
            num_meshes,
            limits.max_meshes,
            "model has no meshes",
        )?;

        let reader = Reader::new(data, FORMAT);
        let ofs_meshes = u64::from(header.ofs_meshes.get());
        let meshes = reader.slice_at::<SkmMesh>("mesh table", ofs_meshes, num_meshes.into())?;
        let mut layout = Layout::new(FORMAT);
        layout.region("header", 0, size_of::<SkmHeader>() as u64);
        layout.region("mesh table", ofs_meshes, end(ofs_meshes, meshes));

        let mut pass = MeshPass {
            reader,
            limits,
            num_bones,
            total_influences: 0,
            layout,
            diag,
        };
        for (i, mesh) in meshes.iter().enumerate() {
            check_mesh(&mut pass, mesh, record_offset::<SkmMesh>(ofs_meshes, i))?;
        }
        pass.layout.report(reader.len(), pass.diag);
        Ok(Skm {
            data,
            header,
            meshes,
        })
    }
}

impl<'data> Skm<'data> {
    /// The bytes the view covers (the whole file, or its declared size if smaller).
    #[must_use]
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data SkmHeader {
        self.header
    }

    /// Bones the meshes are weighted to (the skeleton must have exactly as many).
    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.header.num_bones.get() as usize
    }

    /// Number of meshes (at least 1).
    #[must_use]
    pub fn num_meshes(&self) -> usize {
        self.meshes.len()
    }

    /// The meshes, in file order.
    pub fn meshes(
        &self,
    ) -> impl ExactSizeIterator<Item = Mesh<'data>> + DoubleEndedIterator + Clone {
        let data = self.data;
        self.meshes.iter().map(move |raw| Mesh { data, raw })
    }

    /// Mesh `index`, or `None` if out of range.
    #[must_use]
    pub fn mesh(&self, index: usize) -> Option<Mesh<'data>> {
        let data = self.data;
        self.meshes.get(index).map(|raw| Mesh { data, raw })
    }

    /// Vertices summed over all meshes.
    #[must_use]
    pub fn num_vertices(&self) -> usize {
        self.meshes().map(|m| m.num_verts()).sum()
    }

    /// Triangles summed over all meshes.
    #[must_use]
    pub fn num_triangles(&self) -> usize {
        self.meshes().map(|m| m.num_tris()).sum()
    }
}

/// SKM's part of the pass: names and bone references around the shared arrays.
fn check_mesh(pass: &mut MeshPass<'_, '_>, mesh: &SkmMesh, at: u64) -> Result<()> {
    let field = |f: usize| at + f as u64;
    let num_refs = mesh.num_references.get();
    let refs_at = field(offset_of!(SkmMesh, num_references));
    rules::check_count(
        FORMAT,
        "mesh.num_references",
        refs_at,
        num_refs,
        pass.limits.max_bones,
        "mesh references no bones",
    )?;
    rules::check_name(FORMAT, pass.diag, "mesh.shadername", at, &mesh.shadername);
    rules::check_name(
        FORMAT,
        pass.diag,
        "mesh.meshname",
        field(offset_of!(SkmMesh, meshname)),
        &mesh.meshname,
    );
    pass.shared_arrays::<LittleEndian>(MeshFields {
        num_verts: mesh.num_verts.get(),
        num_verts_at: field(offset_of!(SkmMesh, num_verts)),
        num_tris: mesh.num_tris.get(),
        num_tris_at: field(offset_of!(SkmMesh, num_tris)),
        ofs_verts: mesh.ofs_verts.get().into(),
        ofs_texcoords: mesh.ofs_texcoords.get().into(),
        ofs_indices: mesh.ofs_indices.get().into(),
    })?;
    let ofs_refs = mesh.ofs_references.get().into();
    rules::check_index_table::<LittleEndian>(
        pass.reader,
        "mesh.references",
        ofs_refs,
        num_refs.into(),
        pass.num_bones,
        "bones",
        &mut pass.layout,
    )
}

/// One mesh of an [`Skm`]: names, vertices, texture coordinates, triangles, bone references.
#[derive(Debug, Clone, Copy)]
pub struct Mesh<'data> {
    data: &'data [u8],
    raw: &'data SkmMesh,
}

impl<'data> Mesh<'data> {
    fn reader(&self) -> Reader<'data> {
        Reader::new(self.data, FORMAT)
    }

    /// The shader (texture) name bytes, up to the first NUL.
    #[must_use]
    pub fn shader_name(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.shadername)
    }

    /// The mesh name bytes, up to the first NUL (LOD files carry an `_N` suffix).
    #[must_use]
    pub fn mesh_name(&self) -> &'data [u8] {
        name::trim_nul(&self.raw.meshname)
    }

    /// The mesh name with a level-of-detail suffix `_1` … `_4` removed, as the engines do.
    #[must_use]
    pub fn base_name(&self) -> &'data [u8] {
        strip_lod_suffix(self.mesh_name())
    }

    /// The mesh name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn mesh_name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.mesh_name())
    }

    /// The shader name as text (invalid UTF-8 replaced).
    #[must_use]
    pub fn shader_name_lossy(&self) -> Cow<'data, str> {
        name::lossy(self.shader_name())
    }

    /// The bone indices the mesh uses, as stored (each `< num_bones`).
    #[must_use]
    pub fn references_raw(&self) -> &'data [U32<LittleEndian>] {
        let (ofs, n) = (self.raw.ofs_references.get(), self.raw.num_references.get());
        self.reader()
            .get_slice(ofs.into(), n.into())
            .unwrap_or_default()
    }

    /// The bone indices the mesh uses.
    pub fn references(&self) -> impl ExactSizeIterator<Item = u32> + Clone + 'data {
        self.references_raw().iter().map(|r| r.get())
    }

    /// The raw record.
    #[must_use]
    pub fn raw(&self) -> &'data SkmMesh {
        self.raw
    }
}

impl<'data> SkeletalMesh<'data> for Mesh<'data> {
    type Order = LittleEndian;

    fn geometry(&self) -> MeshGeometry<'data> {
        let r = self.raw;
        MeshGeometry::new(
            self.reader(),
            [r.ofs_verts, r.ofs_texcoords, r.ofs_indices].map(|o| o.get().into()),
            r.num_verts.get(),
            r.num_tris.get(),
        )
    }
}

/// `name` without a trailing `_1` … `_4` (the level-of-detail suffix).
#[must_use]
pub(crate) fn strip_lod_suffix(name: &[u8]) -> &[u8] {
    match name {
        [head @ .., b'_', n] if (b'1'..=b'4').contains(n) => head,
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::strip_lod_suffix;

    #[test]
    fn lod_suffix_is_stripped_only_for_1_to_4() {
        assert_eq!(strip_lod_suffix(b"body_1"), b"body");
        assert_eq!(strip_lod_suffix(b"body_4"), b"body");
        assert_eq!(strip_lod_suffix(b"body_5"), b"body_5");
        assert_eq!(strip_lod_suffix(b"body_12"), b"body_12");
        assert_eq!(strip_lod_suffix(b"_1"), b"");
        assert_eq!(strip_lod_suffix(b"body"), b"body");
    }
}
