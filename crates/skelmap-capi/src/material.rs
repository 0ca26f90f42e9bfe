//! Materials and submeshes, the same for every format: what a renderer binds before drawing
//! a set of triangles.

use std::ffi::c_char;

use skelmap_core::model::Material;

use crate::boundary::{Fail, SkelmapStatus, copy_out, status, value};
use crate::mesh::{Strided, mesh};
use crate::model::SkelmapModel;

/// One material, filled by `skelmap_material`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SkelmapMaterial {
    /// Diffuse colour, RGBA in 0..1 (an MS3D material's; white for other formats).
    pub diffuse: [f32; 4],
    /// The embedded skin it draws with (`skelmap_skin_info`, `skelmap_skin_rgba`), or -1: a
    /// model that embeds skins (GameStudio MDL, HMP and MDL7, Quake, Half-Life) has one
    /// material per skin.
    pub skin: i32,
}

/// One submesh (a set of a mesh's triangles drawn with one material), filled by
/// `skelmap_submesh`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkelmapSubmesh {
    /// Its material (`0..SkelmapCounts.materials`), or -1 for none.
    pub material: i32,
    /// Its triangles: the elements `skelmap_submesh_triangles` writes.
    pub triangles: u32,
}

fn material(model: Option<&SkelmapModel>, index: u32) -> Result<Material<'_>, Fail> {
    let m = &model.ok_or(Fail::null("model"))?.model;
    m.material(index as usize)
        .ok_or_else(|| Fail::out_of_range("material", index, m.num_materials() as u64))
}

/// Fills `*out` with material `index` (`0..SkelmapCounts.materials`): one per mesh of a DPM,
/// SKM or MD5 (its shader), per surface of an MD3, MDC, MDR or MDM, per IQM mesh, PSK
/// material or ZYM shader; the MS3D file's materials; one per skin of a GameStudio, Quake,
/// MD2 or MDL7 model and per Half-Life texture; none for SL.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`), or
/// `SKELMAP_STATUS_OUT_OF_RANGE`.
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_material(
    model: Option<&SkelmapModel>,
    index: u32,
    out: Option<&mut SkelmapMaterial>,
) -> SkelmapStatus {
    status(|| {
        let out = out.ok_or(Fail::null("out"))?;
        let m = material(model, index)?;
        *out = SkelmapMaterial {
            diffuse: m.diffuse,
            skin: m.skin.map_or(-1, |s| s as i32),
        };
        Ok(())
    })
}

/// Copies material `index`'s name (a DPM or SKM shader name, an MS3D material name, `skin`
/// for an embedded skin) into `buf` of `len` bytes, NUL-terminated and truncated to
/// `len − 1`, and returns its full length (0 for an unnamed material).
///
/// Returns `SIZE_MAX` for a NULL `model` (`SKELMAP_STATUS_NULL_PARAMETER`) or an index past
/// `SkelmapCounts.materials` (`SKELMAP_STATUS_OUT_OF_RANGE`).
///
/// # Safety
///
/// `model` is NULL or a live model; `buf` is NULL or valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_material_name(
    model: Option<&SkelmapModel>,
    index: u32,
    buf: *mut c_char,
    len: usize,
) -> usize {
    // SAFETY: forwarded from this function's contract.
    unsafe { copy_material_text(model, index, buf, len, |m| m.name) }
}

/// Copies the texture file material `index` names (an MS3D material's texture; a DPM or SKM
/// shader name, which engines map to an image path; an HMP7 skin's external file) into `buf`
/// like `skelmap_material_name` and returns its full length: 0 when the material names no
/// file (an embedded skin, an MS3D material without a texture). skelmap never opens the file:
/// the path is as stored, relative to the model.
///
/// Returns `SIZE_MAX` for a NULL `model` (`SKELMAP_STATUS_NULL_PARAMETER`) or an index past
/// `SkelmapCounts.materials` (`SKELMAP_STATUS_OUT_OF_RANGE`).
///
/// # Safety
///
/// `model` is NULL or a live model; `buf` is NULL or valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_material_texture(
    model: Option<&SkelmapModel>,
    index: u32,
    buf: *mut c_char,
    len: usize,
) -> usize {
    // SAFETY: forwarded from this function's contract.
    unsafe { copy_material_text(model, index, buf, len, |m| m.texture) }
}

/// Copies the text `field` picks from material `index` into `buf`; `SIZE_MAX` when there is
/// no such material.
///
/// # Safety
///
/// `buf` is NULL or valid for writes of `len` bytes.
unsafe fn copy_material_text(
    model: Option<&SkelmapModel>,
    index: u32,
    buf: *mut c_char,
    len: usize,
    field: for<'a> fn(&Material<'a>) -> &'a [u8],
) -> usize {
    value(usize::MAX, || {
        let m = material(model, index)?;
        // SAFETY: forwarded from this function's contract.
        Ok(unsafe { copy_out(field(&m), buf, len) })
    })
}

/// Fills `*out` with submesh `index` of mesh `mesh` (`0..SkelmapMeshInfo.submeshes`): an MS3D
/// or MDL7 group, an IQM mesh, a PSK material's faces, a ZYM shader's, a Half-Life studio
/// mesh; one submesh covering every triangle for the other formats.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`), or
/// `SKELMAP_STATUS_OUT_OF_RANGE` (mesh or submesh).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_submesh(
    model: Option<&SkelmapModel>,
    mesh: u32,
    index: u32,
    out: Option<&mut SkelmapSubmesh>,
) -> SkelmapStatus {
    status(|| {
        let out = out.ok_or(Fail::null("out"))?;
        let m = self::mesh(model.ok_or(Fail::null("model"))?, mesh)?;
        let s = m
            .submesh(index as usize)
            .ok_or_else(|| Fail::out_of_range("submesh", index, m.submeshes().len() as u64))?;
        *out = SkelmapSubmesh {
            material: s.material().map_or(-1, |i| i as i32),
            triangles: s.num_triangles() as u32,
        };
        Ok(())
    })
}

/// Writes the triangles submesh `index` of mesh `mesh` draws, as indices into the mesh's
/// triangles (`skelmap_mesh_triangles`), into `out`: `capacity` elements, one `uint32_t`
/// per triangle, at least `SkelmapSubmesh.triangles`.
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (mesh or submesh), or `SKELMAP_STATUS_BUFFER_TOO_SMALL`.
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writes of `capacity`
/// `uint32_t`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_submesh_triangles(
    model: Option<&SkelmapModel>,
    mesh: u32,
    index: u32,
    out: *mut u32,
    capacity: usize,
) -> SkelmapStatus {
    status(|| {
        let m = self::mesh(model.ok_or(Fail::null("model"))?, mesh)?;
        let s = m
            .submesh(index as usize)
            .ok_or_else(|| Fail::out_of_range("submesh", index, m.submeshes().len() as u64))?;
        // SAFETY: forwarded from this function's contract (tightly packed).
        let out =
            unsafe { Strided::<u32, 1>::new(out, 0, capacity, "out") }?.ok_or(Fail::null("out"))?;
        let triangles: Vec<[u32; 1]> = s.triangle_indices().map(|t| [t as u32]).collect();
        out.write(&triangles, "out")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundary::skelmap_last_error;
    use crate::mesh::{
        SkelmapMeshInfo, skelmap_mesh_corner_texcoords, skelmap_mesh_info, skelmap_mesh_triangles,
        skelmap_model_skin, skelmap_model_skin_corners,
    };
    use crate::model::{
        SkelmapCounts, skelmap_model_counts, skelmap_model_free, skelmap_model_open_memory,
    };
    use crate::pose::{
        SkelmapPose, skelmap_pose_bind, skelmap_pose_free, skelmap_pose_new,
        skelmap_pose_sample_clip,
    };
    use crate::skeleton::skelmap_bone_name;

    /// An MS3D with two groups, joints and keys (the `probe_any` seed the writers made).
    const ARM: &[u8] = include_bytes!("../../../fuzz/seeds/probe_any/arm_tail.ms3d");

    fn open(bytes: &[u8]) -> *mut SkelmapModel {
        let mut model = std::ptr::null_mut();
        // SAFETY: `bytes` is 'static here and outlives the model.
        let s = unsafe { skelmap_model_open_memory(bytes.as_ptr(), bytes.len(), 0, &mut model) };
        assert_eq!(s, SkelmapStatus::Ok);
        model
    }

    /// An MS3D of 1,000 groups, a triangle each, read through the C ABI as a client loops
    /// over them: each submesh gives its group's material and triangle, in order; one past
    /// the last is out of range.
    #[test]
    fn every_group_of_a_many_group_ms3d_is_its_own_submesh() {
        use skelmap_core::ms3d::{Builder, GroupDef, write::triangle};
        let n = 1_000u16;
        let mut b = Builder {
            vertices: vec![([0.0; 3], -1), ([1.0, 0.0, 0.0], -1), ([0.0, 1.0, 0.0], -1)],
            materials: (0..3)
                .map(|k| (format!("mat{k}").into_bytes(), [1.0; 4]))
                .collect(),
            ..Builder::default()
        };
        let material = |i: u16| if i % 4 == 3 { -1 } else { (i % 4) as i8 };
        for i in 0..n {
            let st = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
            b.triangles
                .push(triangle([0, 1, 2], [0.0, 0.0, 1.0], st, (i % 256) as u8));
            b.groups.push(GroupDef {
                name: format!("g{i}").into_bytes(),
                triangles: vec![i],
                material: material(i),
            });
        }
        let bytes = b.write().unwrap();
        let mut model = std::ptr::null_mut();
        // SAFETY: `bytes` outlives the model, which is freed before the end of the test; every
        // buffer is as large as its capacity says.
        unsafe {
            let s = skelmap_model_open_memory(bytes.as_ptr(), bytes.len(), 0, &mut model);
            assert_eq!(s, SkelmapStatus::Ok);
            let m = Some(&*model);
            let mut info = SkelmapMeshInfo::default();
            assert_eq!(skelmap_mesh_info(m, 0, Some(&mut info)), SkelmapStatus::Ok);
            assert_eq!(info.submeshes, u32::from(n));
            for i in 0..n {
                let mut sub = SkelmapSubmesh::default();
                let status = skelmap_submesh(m, 0, u32::from(i), Some(&mut sub));
                assert_eq!(status, SkelmapStatus::Ok);
                assert_eq!(
                    sub,
                    SkelmapSubmesh {
                        material: i32::from(material(i)),
                        triangles: 1
                    }
                );
                let mut list = [u32::MAX; 2];
                let status = skelmap_submesh_triangles(m, 0, u32::from(i), list.as_mut_ptr(), 2);
                assert_eq!(status, SkelmapStatus::Ok);
                assert_eq!(list[0], u32::from(i));
            }
            let mut sub = SkelmapSubmesh::default();
            let past = u32::from(n);
            assert_eq!(
                skelmap_submesh(m, 0, past, Some(&mut sub)),
                SkelmapStatus::OutOfRange
            );
            let mut list = [0u32; 1];
            assert_eq!(
                skelmap_submesh_triangles(m, 0, past, list.as_mut_ptr(), 1),
                SkelmapStatus::OutOfRange
            );
            skelmap_model_free(model);
        }
    }

    /// Materials, submeshes, corner streams and smooth MS3D normals through the C ABI; names
    /// say `SIZE_MAX` for no such item; a success clears the last error.
    #[test]
    fn an_ms3d_draws_through_materials_submeshes_and_corner_streams() {
        let model = open(ARM);
        // SAFETY: a live model and pose, freed at the end; every buffer is as large as its
        // capacity says.
        unsafe {
            let m = Some(&*model);
            let mut counts = SkelmapCounts::default();
            skelmap_model_counts(m, Some(&mut counts));
            let mut info = SkelmapMeshInfo::default();
            assert_eq!(skelmap_mesh_info(m, 0, Some(&mut info)), SkelmapStatus::Ok);
            assert_eq!(info.texcoords, crate::mesh::SKELMAP_TEXCOORDS_PER_CORNER);
            assert_eq!(info.corner_normals, 1);
            let (n, t) = (info.vertices as usize, info.triangles as usize);

            // Submeshes tile the triangles, each with a material in range (or none).
            let mut seen = vec![0u32; t];
            for sub in 0..info.submeshes {
                let mut s = SkelmapSubmesh::default();
                assert_eq!(skelmap_submesh(m, 0, sub, Some(&mut s)), SkelmapStatus::Ok);
                assert!(s.material < counts.materials as i32);
                let mut list = vec![0u32; s.triangles as usize];
                let status = skelmap_submesh_triangles(m, 0, sub, list.as_mut_ptr(), list.len());
                assert_eq!(status, SkelmapStatus::Ok);
                list.iter().for_each(|&i| seen[i as usize] += 1);
            }
            assert!(seen.iter().all(|&c| c <= 1));

            // A failure sets the last error, a success clears it; names say SIZE_MAX.
            let mut buf = [0 as c_char; 64];
            assert_eq!(
                skelmap_bone_name(m, u32::MAX, buf.as_mut_ptr(), 64),
                usize::MAX
            );
            assert!(skelmap_last_error(std::ptr::null_mut(), 0) > 0);
            assert_eq!(
                skelmap_material_name(m, counts.materials, buf.as_mut_ptr(), 64),
                usize::MAX
            );
            let mut material = SkelmapMaterial::default();
            if counts.materials > 0 {
                assert_eq!(
                    skelmap_material(m, 0, Some(&mut material)),
                    SkelmapStatus::Ok
                );
                assert_eq!(skelmap_last_error(std::ptr::null_mut(), 0), 0);
            }

            let mut pose: *mut SkelmapPose = std::ptr::null_mut();
            skelmap_pose_new(Some(&mut pose));
            assert_eq!(skelmap_pose_bind(Some(&mut *pose), m), SkelmapStatus::Ok);
            assert_eq!(
                skelmap_pose_sample_clip(Some(&mut *pose), m, 0, 0.0, true),
                SkelmapStatus::Ok
            );
            let p = Some(&*pose);

            // Per-vertex normals for MS3D too: unit length for every vertex a triangle uses.
            let (mut positions, mut normals) = (vec![0.0f32; 3 * n], vec![0.0f32; 3 * n]);
            let s = skelmap_model_skin(
                m,
                p,
                0,
                positions.as_mut_ptr(),
                0,
                normals.as_mut_ptr(),
                0,
                n,
            );
            assert_eq!(s, SkelmapStatus::Ok);
            let mut tris = vec![0u32; 3 * t];
            skelmap_mesh_triangles(m, 0, tris.as_mut_ptr(), t);
            for &v in &tris {
                let k = 3 * v as usize;
                let len = normals[k..k + 3].iter().map(|c| c * c).sum::<f32>().sqrt();
                assert!((len - 1.0).abs() < 1e-4, "vertex {v}: normal length {len}");
            }

            // The corner stream is the indexed mesh unrolled; its normals are unit vectors.
            let corners = 3 * t;
            let mut stream = vec![0.0f32; 6 * corners];
            let c = stream.as_mut_ptr();
            let s = skelmap_model_skin_corners(m, p, 0, c, 24, c.add(3), 24, corners);
            assert_eq!(s, SkelmapStatus::Ok);
            for (k, &v) in tris.iter().enumerate() {
                let v = 3 * v as usize;
                assert_eq!(stream[6 * k..6 * k + 3], positions[v..v + 3]);
                let len = stream[6 * k + 3..6 * k + 6]
                    .iter()
                    .map(|c| c * c)
                    .sum::<f32>()
                    .sqrt();
                assert!((len - 1.0).abs() < 1e-4);
            }
            let mut uvs = vec![0.0f32; 2 * corners];
            let s = skelmap_mesh_corner_texcoords(m, 0, uvs.as_mut_ptr(), 0, corners);
            assert_eq!(s, SkelmapStatus::Ok);
            let s = skelmap_mesh_corner_texcoords(m, 0, uvs.as_mut_ptr(), 0, corners - 1);
            assert_eq!(s, SkelmapStatus::BufferTooSmall);

            skelmap_pose_free(pose);
            skelmap_model_free(model);
        }
    }
}
