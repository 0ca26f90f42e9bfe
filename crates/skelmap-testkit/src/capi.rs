//! Drives every export of skelmap-capi over one model in caller memory, the way a careless C
//! caller might: valid and invalid indices, strides, capacities and enum values. Shared by the
//! `capi` fuzz target and skelmap-capi's tests; it returns a checksum of what it read so that
//! nothing is optimised away. Every call must return a status, never crash.
//!
//! It calls the exports as C does, through raw pointers, so it is the one file of this crate
//! that may use `unsafe` (`tests/integration/boundaries.rs` allows exactly this file): each
//! block says in a `// SAFETY:` comment why its pointers are live and its buffers large enough.

#![allow(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

use std::ffi::c_char;

use skelmap_capi::attach::{
    SkelmapAttachment, skelmap_attachment, skelmap_attachment_index, skelmap_attachment_name,
    skelmap_attachment_world,
};
use skelmap_capi::boundary::{SkelmapStatus, skelmap_last_error, skelmap_status_str};
use skelmap_capi::compact::{
    SkelmapCompact, SkelmapCompactInfo, skelmap_compact_free, skelmap_compact_info,
    skelmap_compact_new, skelmap_compact_prepared_order, skelmap_compact_remap_triangles,
    skelmap_compact_skin, skelmap_compact_skin_prepared,
};
use skelmap_capi::gpu::{
    SKELMAP_GPU_INFLUENCES_WITHIN, SkelmapGpuError, SkelmapGpuMesh, SkelmapGpuMeshInfo,
    SkelmapGpuOptions, skelmap_gpu_mesh_buffer, skelmap_gpu_mesh_dual_quaternions,
    skelmap_gpu_mesh_free, skelmap_gpu_mesh_info, skelmap_gpu_mesh_new, skelmap_gpu_mesh_palette,
    skelmap_model_gpu_error,
};
use skelmap_capi::gpu_morph::{
    SkelmapGpuMorph, SkelmapGpuMorphInfo, skelmap_gpu_morph_buffer, skelmap_gpu_morph_free,
    skelmap_gpu_morph_info, skelmap_gpu_morph_new, skelmap_gpu_morph_vertex,
};
use skelmap_capi::material::{
    SkelmapMaterial, SkelmapSubmesh, skelmap_material, skelmap_material_name,
    skelmap_material_texture, skelmap_submesh, skelmap_submesh_triangles,
};
use skelmap_capi::mesh::{
    SkelmapMeshInfo, SkelmapTerrainGrid, skelmap_mesh_colors, skelmap_mesh_info,
    skelmap_mesh_tangents, skelmap_mesh_texcoords, skelmap_mesh_triangles, skelmap_model_skin,
    skelmap_terrain_grid, skelmap_terrain_heights,
};
use skelmap_capi::mesh::{skelmap_mesh_corner_texcoords, skelmap_model_skin_corners};
use skelmap_capi::model::{
    SKELMAP_CODE_PAGE_GBK, SkelmapCounts, SkelmapFormat, SkelmapModel, skelmap_model_code_page,
    skelmap_model_counts, skelmap_model_format, skelmap_model_free, skelmap_model_open_memory,
    skelmap_model_warning,
};
use skelmap_capi::pose::{
    SkelmapPose, skelmap_pose_bone_count, skelmap_pose_bone_world, skelmap_pose_free,
    skelmap_pose_new, skelmap_pose_sample,
};
use skelmap_capi::pose::{skelmap_pose_bind, skelmap_pose_sample_clip};
use skelmap_capi::skeleton::{
    SkelmapBone, SkelmapFrameGroup, skelmap_bone, skelmap_bone_index, skelmap_bone_name,
    skelmap_frame_group, skelmap_frame_group_name, skelmap_frame_index, skelmap_frame_name,
};
use skelmap_capi::skin::{
    SkelmapSkinInfo, skelmap_skin_external_name, skelmap_skin_info, skelmap_skin_rgba,
};
use skelmap_capi::still::{
    SkelmapStaticMesh, skelmap_static_mesh_copy, skelmap_static_mesh_free, skelmap_static_mesh_new,
};

pub mod runtime;

/// Largest mesh the exercise skins (bigger ones are only counted), to bound its memory.
const MAX_SKIN_VERTICES: u32 = 1 << 20;

/// Opens `data` through the C ABI and calls every function on it; returns a checksum. It is
/// one careless caller's session, each export called in the order a C program would, with the
/// handles it has opened so far.
#[must_use]
pub fn exercise(data: &[u8]) -> u64 {
    let mut sum = 0u64;
    let mut model: *mut SkelmapModel = std::ptr::null_mut();
    // SAFETY: `data` outlives the model, which is freed before this function returns;
    // `model` is a valid place for the out pointer.
    let status = unsafe { skelmap_model_open_memory(data.as_ptr(), data.len(), 0, &mut model) };
    let mut msg = [0 as c_char; 64];
    // SAFETY: `msg` is 64 writable bytes.
    sum += unsafe { skelmap_last_error(msg.as_mut_ptr(), msg.len()) } as u64;
    sum += skelmap_status_str(status as u32).is_null() as u64;
    if status != SkelmapStatus::Ok {
        assert!(model.is_null(), "a failed open must leave NULL");
        return sum;
    }
    // SAFETY: a successful open stored a live model.
    let m = unsafe { &*model };
    let mut counts = SkelmapCounts::default();
    // SAFETY: every pointer below is a live Rust reference or buffer of the stated size.
    unsafe {
        assert_eq!(
            skelmap_model_counts(Some(m), Some(&mut counts)),
            SkelmapStatus::Ok
        );
        sum += u64::from(skelmap_model_format(Some(m)));
        let page = skelmap_model_code_page(Some(m));
        assert!(page <= SKELMAP_CODE_PAGE_GBK, "code page {page}");
        sum += u64::from(page);
        sum = sum.wrapping_add(names(m, &counts));
        sum = sum.wrapping_add(skins_and_materials(m, &counts));
        let mut pose: *mut SkelmapPose = std::ptr::null_mut();
        assert_eq!(skelmap_pose_new(Some(&mut pose)), SkelmapStatus::Ok);
        let p = &mut *pose;
        sum = sum.wrapping_add(samples(m, p, &counts));
        sum = sum.wrapping_add(runtime::exercise(model, &counts));
        let mut compact: *mut SkelmapCompact = std::ptr::null_mut();
        let s = skelmap_compact_new(Some(m), Some(&mut compact));
        assert_eq!(s == SkelmapStatus::Ok, !compact.is_null());
        sum += s as u64;
        if let Some(c) = compact.as_ref() {
            let mut info = SkelmapCompactInfo::default();
            assert_eq!(
                skelmap_compact_info(Some(c), Some(&mut info)),
                SkelmapStatus::Ok
            );
            sum += u64::from(info.exact_vertices) + info.bytes;
            for mesh in [0, info.meshes] {
                sum += compact_skin(m, c, p, mesh);
            }
        }
        skelmap_compact_free(compact);
        if counts.vertices <= MAX_GPU_VERTICES && counts.frames <= MAX_GPU_FRAMES {
            sum += gpu(m, p, counts.frames);
            sum += gpu_morph(m);
        }
        let mut baked: *mut SkelmapStaticMesh = std::ptr::null_mut();
        let s = skelmap_static_mesh_new(Some(m), Some(&mut baked));
        assert_eq!(s == SkelmapStatus::Ok, !baked.is_null());
        sum += s as u64;
        if let Some(b) = baked.as_ref() {
            for mesh in [0, counts.meshes] {
                sum += static_copy(m, b, mesh);
            }
        }
        skelmap_static_mesh_free(baked);
        skelmap_pose_free(pose);
        skelmap_model_free(model);
    }
    sum
}

/// The warnings, bones, frames and frame groups of `m`, at valid and invalid indices, into a
/// short buffer; names found again by their lookups.
fn names(m: &SkelmapModel, counts: &SkelmapCounts) -> u64 {
    let mut sum = 0u64;
    let mut msg = [0 as c_char; 64];
    // SAFETY: `m` and `counts` are live references; `msg` is 64 writable bytes and every
    // length passed with it is its own.
    unsafe {
        for w in [0, counts.warnings] {
            sum +=
                skelmap_model_warning(Some(m), w, msg.as_mut_ptr(), msg.len()).min(1 << 20) as u64;
        }
        for b in [0, counts.bones.saturating_sub(1), counts.bones, u32::MAX] {
            let mut bone = SkelmapBone::default();
            let _ = skelmap_bone(Some(m), b, Some(&mut bone));
            sum += bone.flags as u64;
            let n = skelmap_bone_name(Some(m), b, msg.as_mut_ptr(), msg.len());
            // Look the name up again: its index is the first bone of that name.
            if n > 0 && n < msg.len() {
                let i = skelmap_bone_index(Some(m), msg.as_ptr());
                assert!(i >= 0 && i as u32 <= b, "bone {b} named but not found");
            }
        }
        for a in [0, counts.attachments.saturating_sub(1), counts.attachments] {
            let mut attachment = SkelmapAttachment::default();
            let s = skelmap_attachment(Some(m), a, Some(&mut attachment));
            assert_eq!(s == SkelmapStatus::Ok, a < counts.attachments);
            sum += u64::from(attachment.kind) + u64::from(attachment.index);
            let n = skelmap_attachment_name(Some(m), a, msg.as_mut_ptr(), msg.len());
            if n > 0 && n < msg.len() {
                let i = skelmap_attachment_index(Some(m), msg.as_ptr());
                assert!(
                    i >= 0 && i as u32 <= a,
                    "attachment {a} named but not found"
                );
            }
        }
        for f in [0, counts.frames.saturating_sub(1), counts.frames] {
            let n = skelmap_frame_name(Some(m), f, msg.as_mut_ptr(), msg.len());
            if n < msg.len() && f < counts.frames {
                let i = skelmap_frame_index(Some(m), msg.as_ptr());
                assert!(i >= 0 && i as u32 <= f, "frame {f} named but not found");
            }
        }
        for g in [0, counts.frame_groups] {
            let mut group = SkelmapFrameGroup::default();
            let _ = skelmap_frame_group(Some(m), g, Some(&mut group));
            sum += u64::from(group.count);
            sum += skelmap_frame_group_name(Some(m), g, msg.as_mut_ptr(), msg.len()).min(1 << 20)
                as u64;
        }
    }
    sum
}

/// The skins (their pixels into exact and short buffers), materials and terrain heights of
/// `m`, at valid and invalid indices.
fn skins_and_materials(m: &SkelmapModel, counts: &SkelmapCounts) -> u64 {
    let mut sum = 0u64;
    let mut msg = [0 as c_char; 64];
    // SAFETY: `m` and `counts` are live references; `msg`, `rgba` and `heights` are buffers
    // of the lengths passed with them.
    unsafe {
        for k in [0, counts.skins.saturating_sub(1), counts.skins, u32::MAX] {
            let mut info = SkelmapSkinInfo::default();
            let s = skelmap_skin_info(Some(m), k, Some(&mut info));
            assert_eq!(s == SkelmapStatus::Ok, k < counts.skins);
            sum += u64::from(info.width) + u64::from(info.format);
            let n = skelmap_skin_external_name(Some(m), k, msg.as_mut_ptr(), msg.len());
            assert_eq!(n != usize::MAX, info.format == 8 && k < counts.skins);
            sum = sum.wrapping_add(n as u64);
            let texels = info.width as usize * info.height as usize;
            if k < counts.skins && texels <= 1 << 22 {
                let mut rgba = vec![0u8; 4 * texels];
                let s = skelmap_skin_rgba(Some(m), k, rgba.as_mut_ptr(), texels);
                sum += s as u64 + rgba.iter().map(|&b| u64::from(b)).sum::<u64>();
                let short = skelmap_skin_rgba(Some(m), k, rgba.as_mut_ptr(), texels / 2);
                assert_ne!(short, SkelmapStatus::Ok, "a short skin buffer was accepted");
            }
        }
        for k in [0, counts.materials.saturating_sub(1), counts.materials] {
            let mut material = SkelmapMaterial::default();
            let s = skelmap_material(Some(m), k, Some(&mut material));
            assert_eq!(s == SkelmapStatus::Ok, k < counts.materials);
            let name = skelmap_material_name(Some(m), k, msg.as_mut_ptr(), msg.len());
            let texture = skelmap_material_texture(Some(m), k, msg.as_mut_ptr(), msg.len());
            assert_eq!(name == usize::MAX, k >= counts.materials);
            assert_eq!(texture == usize::MAX, k >= counts.materials);
            sum = sum.wrapping_add(name as u64).wrapping_add(texture as u64);
        }
        let mut grid = SkelmapTerrainGrid::default();
        if skelmap_terrain_grid(Some(m), Some(&mut grid)) == SkelmapStatus::Ok {
            let n = grid.columns as usize * grid.rows as usize;
            let mut heights = vec![0.0f32; n];
            let s = skelmap_terrain_heights(Some(m), 0, heights.as_mut_ptr(), n);
            assert_eq!(s, SkelmapStatus::Ok);
        }
    }
    sum
}

/// Poses `p` from `m`'s frames and clips with valid, invalid and non-finite arguments, and
/// skins every mesh (and one past the last) after each.
fn samples(m: &SkelmapModel, p: &mut SkelmapPose, counts: &SkelmapCounts) -> u64 {
    let mut sum = 0u64;
    // SAFETY: `m` and `p` are live references; `world` is the 12 floats a bone's matrix
    // needs.
    unsafe {
        let last = counts.frames.saturating_sub(1);
        for (a, b, t, interpolation) in [
            (0, last, 0.5, 0),
            (last, 0, 1.5, 1),
            (0, 0, f32::NAN, 0),
            (0, 0, 0.0, 2),
            (counts.frames, 0, 0.0, 0),
        ] {
            let s = skelmap_pose_sample(Some(p), Some(m), a, b, t, interpolation);
            sum += s as u64;
            let mut world = [0.0f32; 12];
            for bone in [0, skelmap_pose_bone_count(Some(p))] {
                let _ = skelmap_pose_bone_world(Some(p), bone, world.as_mut_ptr());
            }
            for a in [0, counts.attachments] {
                let s = skelmap_attachment_world(Some(m), Some(p), a, world.as_mut_ptr());
                sum += s as u64;
            }
            for mesh in [0, counts.meshes.saturating_sub(1), counts.meshes] {
                sum += skin(m, p, mesh);
            }
        }
        sum += skelmap_pose_bind(Some(p), Some(m)) as u64;
        for clip in [0, counts.frame_groups] {
            for seconds in [0.0, 0.7, -3.0, 1e9, f32::NAN] {
                for looped in [false, true] {
                    let s = skelmap_pose_sample_clip(Some(p), Some(m), clip, seconds, looped);
                    sum += s as u64;
                    if s == SkelmapStatus::Ok {
                        sum += skin(m, p, 0);
                    }
                }
            }
        }
    }
    sum
}

/// Most vertices of a model whose GPU buffers are built (each build unwelds the model).
const MAX_GPU_VERTICES: u64 = 1 << 12;

/// Most frames of a model whose GPU buffers are built.
const MAX_GPU_FRAMES: u32 = 1 << 10;

/// Most vertex-frames the GPU-buffer calls that walk every frame are given.
const MAX_GPU_WORK: u64 = 1 << 14;

/// The GPU buffers of `m` under several options (an invalid one among them): their counts,
/// every buffer, the palettes for `p` into exact and short outputs, and the error report
/// where the model is small enough to walk every frame.
///
/// # Safety
///
/// `m` and `p` are live.
unsafe fn gpu(m: &SkelmapModel, p: &SkelmapPose, frames: u32) -> u64 {
    let mut sum = 0;
    let plain = SkelmapGpuOptions::default();
    let mut options = vec![
        plain,
        SkelmapGpuOptions {
            influences: 8,
            weight_bits: 16,
            joint_bits: 16,
            ..plain
        },
        SkelmapGpuOptions {
            influences: 5,
            ..plain
        },
        SkelmapGpuOptions {
            joint_bits: 8,
            weight_bits: 12,
            ..plain
        },
    ];
    // SAFETY: a live model; the mesh is freed below.
    unsafe {
        let mut first: *mut SkelmapGpuMesh = std::ptr::null_mut();
        let s = skelmap_gpu_mesh_new(Some(m), Some(&plain), Some(&mut first));
        assert_eq!(s == SkelmapStatus::Ok, !first.is_null());
        let mut info = SkelmapGpuMeshInfo::default();
        let _ = skelmap_gpu_mesh_info(first.as_ref(), Some(&mut info));
        skelmap_gpu_mesh_free(first);
        let work = u64::from(info.vertices) * u64::from(frames.max(1));
        if s == SkelmapStatus::Ok && work <= MAX_GPU_WORK {
            options.push(SkelmapGpuOptions {
                influences: SKELMAP_GPU_INFLUENCES_WITHIN,
                tolerance: 1e-3,
                ..plain
            });
            let mut error = SkelmapGpuError::default();
            let s = skelmap_model_gpu_error(Some(m), Some(&plain), Some(&mut error));
            sum += s as u64 + u64::from(error.frames);
        }
    }
    for o in &options {
        let mut mesh: *mut SkelmapGpuMesh = std::ptr::null_mut();
        // SAFETY: a live model and options; `mesh` is freed below.
        let s = unsafe { skelmap_gpu_mesh_new(Some(m), Some(o), Some(&mut mesh)) };
        assert_eq!(s == SkelmapStatus::Ok, !mesh.is_null());
        sum += s as u64;
        // SAFETY: NULL or a live mesh from skelmap_gpu_mesh_new.
        if let Some(g) = unsafe { mesh.as_ref() } {
            let mut info = SkelmapGpuMeshInfo::default();
            // SAFETY: live references.
            let s = unsafe { skelmap_gpu_mesh_info(Some(g), Some(&mut info)) };
            assert_eq!(s, SkelmapStatus::Ok);
            for which in 0..12 {
                let (mut data, mut bytes) = (std::ptr::null::<u8>(), 0usize);
                // SAFETY: live references.
                let s = unsafe {
                    skelmap_gpu_mesh_buffer(Some(g), which, Some(&mut data), Some(&mut bytes))
                };
                if s == SkelmapStatus::Ok && bytes > 0 {
                    assert!(!data.is_null());
                    // SAFETY: the call says `data` holds `bytes` bytes, alive with the mesh.
                    let view = unsafe { std::slice::from_raw_parts(data, bytes) };
                    sum += u64::from(view[0]) + u64::from(view[bytes - 1]);
                }
                sum += s as u64;
            }
            let entries = info.palette_entries as usize;
            if entries <= 1 << 16 {
                let mut out = vec![0.0f32; 12 * entries];
                for capacity in [entries, entries.saturating_sub(1)] {
                    // SAFETY: `out` holds 12 floats for each of `entries` ≥ `capacity`.
                    let s = unsafe {
                        skelmap_gpu_mesh_palette(
                            Some(g),
                            Some(p),
                            out.as_mut_ptr(),
                            capacity as u32,
                        )
                    };
                    sum += s as u64;
                    // SAFETY: `out` holds 8 floats for each of `entries` ≥ `capacity`.
                    let s = unsafe {
                        skelmap_gpu_mesh_dual_quaternions(
                            Some(g),
                            Some(p),
                            out.as_mut_ptr(),
                            capacity as u32,
                        )
                    };
                    sum += s as u64;
                }
                sum += out.iter().map(|v| v.to_bits() as u64 & 1).sum::<u64>();
            }
        }
        // SAFETY: NULL or a mesh from skelmap_gpu_mesh_new, freed once.
        unsafe { skelmap_gpu_mesh_free(mesh) };
    }
    sum
}

/// The vertex-animation buffers, where the model has them: every buffer read at both ends,
/// a vertex tweened at the first, a middle and one-past-the-last vertex and frame, and a
/// blend factor that is not finite.
///
/// # Safety
///
/// `m` is live.
unsafe fn gpu_morph(m: &SkelmapModel) -> u64 {
    let mut sum = 0;
    let mut morph: *mut SkelmapGpuMorph = std::ptr::null_mut();
    // SAFETY: a live model; `morph` is freed below.
    let s = unsafe { skelmap_gpu_morph_new(Some(m), Some(&mut morph)) };
    assert_eq!(s == SkelmapStatus::Ok, !morph.is_null());
    sum += s as u64;
    // SAFETY: NULL or live buffers from skelmap_gpu_morph_new.
    if let Some(g) = unsafe { morph.as_ref() } {
        let mut info = SkelmapGpuMorphInfo::default();
        // SAFETY: live references.
        let s = unsafe { skelmap_gpu_morph_info(Some(g), Some(&mut info)) };
        assert_eq!(s, SkelmapStatus::Ok);
        for which in 0..6 {
            let (mut data, mut bytes) = (std::ptr::null::<u8>(), 0usize);
            // SAFETY: live references.
            let s = unsafe {
                skelmap_gpu_morph_buffer(Some(g), which, Some(&mut data), Some(&mut bytes))
            };
            assert_eq!(s == SkelmapStatus::Ok, which < 5);
            if s == SkelmapStatus::Ok && bytes > 0 {
                // SAFETY: the call says `data` holds `bytes` bytes, alive with the buffers.
                let view = unsafe { std::slice::from_raw_parts(data, bytes) };
                sum += u64::from(view[0]) + u64::from(view[bytes - 1]);
            }
        }
        let mut out = [0.0f32; 6];
        for v in [0, info.vertices / 2, info.vertices] {
            for f in [0, info.frames / 2, info.frames] {
                for t in [0.0, 0.5, f32::NAN] {
                    // SAFETY: `out` holds 6 floats.
                    let s =
                        unsafe { skelmap_gpu_morph_vertex(Some(g), v, f, 0, t, out.as_mut_ptr()) };
                    let valid = v < info.vertices && f < info.frames && t.is_finite();
                    assert_eq!(s == SkelmapStatus::Ok, valid, "vertex {v} frame {f} t {t}");
                    sum += s as u64 + out.iter().map(|x| x.to_bits() as u64 & 1).sum::<u64>();
                }
            }
        }
    }
    // SAFETY: NULL or buffers from skelmap_gpu_morph_new, freed once.
    unsafe { skelmap_gpu_morph_free(morph) };
    sum
}

/// Copies `mesh` of `b` into an interleaved buffer, with short and malformed outputs first.
///
/// # Safety
///
/// `m` and `b` are live.
unsafe fn static_copy(m: &SkelmapModel, b: &SkelmapStaticMesh, mesh: u32) -> u64 {
    let mut info = SkelmapMeshInfo::default();
    // SAFETY: live references.
    let known = unsafe { skelmap_mesh_info(Some(m), mesh, Some(&mut info)) };
    let n = if known == SkelmapStatus::Ok {
        info.vertices.min(MAX_SKIN_VERTICES) as usize
    } else {
        1
    };
    let mut out = vec![0.0f32; 8 * n];
    let base = out.as_mut_ptr();
    let mut sum = 0;
    // SAFETY: `out` holds n vertices 32 bytes apart, positions at offset 0 and normals at 12.
    unsafe {
        for (stride, capacity) in [(32, n), (32, n.saturating_sub(1)), (8, n), (0, 0)] {
            let s = skelmap_static_mesh_copy(
                Some(b),
                mesh,
                base,
                stride,
                base.add(3),
                stride,
                capacity,
            );
            sum += s as u64;
            if s == SkelmapStatus::Ok {
                assert!(capacity >= n && stride != 8, "a bad output was accepted");
            }
        }
        let s = skelmap_static_mesh_copy(Some(b), mesh, base, 32, std::ptr::null_mut(), 0, n);
        sum += s as u64;
        sum += skelmap_static_mesh_copy(None, mesh, base, 32, base.add(3), 32, n) as u64;
    }
    sum + out.iter().map(|v| v.to_bits() as u64 & 1).sum::<u64>()
}

/// For a model of one frame: whether `skelmap_static_mesh_copy` writes, bit for bit, what
/// `skelmap_model_skin` writes for frames 0 and 0 at 0, for every mesh; `Err(None)` when the
/// model does not open, `Err(Some(status))` when `skelmap_static_mesh_new` refuses it.
///
/// # Errors
///
/// As above.
pub fn static_against_skin(bytes: &[u8]) -> Result<bool, Option<SkelmapStatus>> {
    let model = open(bytes).ok_or(None)?;
    let mut pose: *mut SkelmapPose = std::ptr::null_mut();
    let mut baked: *mut SkelmapStaticMesh = std::ptr::null_mut();
    // SAFETY: live objects throughout; each buffer holds the capacity passed with it.
    let result = unsafe {
        let m = &*model;
        let s = skelmap_static_mesh_new(Some(m), Some(&mut baked));
        if s == SkelmapStatus::Ok && skelmap_pose_new(Some(&mut pose)) == SkelmapStatus::Ok {
            let (p, b) = (&mut *pose, &*baked);
            assert_eq!(
                skelmap_pose_sample(Some(p), Some(m), 0, 0, 0.0, 0),
                SkelmapStatus::Ok
            );
            let mut counts = SkelmapCounts::default();
            let _ = skelmap_model_counts(Some(m), Some(&mut counts));
            let mut same = true;
            for mesh in 0..counts.meshes {
                let mut info = SkelmapMeshInfo::default();
                let _ = skelmap_mesh_info(Some(m), mesh, Some(&mut info));
                let n = info.vertices as usize;
                let mut skinned = vec![[f32::NAN; 6]; n];
                let mut copied = vec![[f32::NAN; 6]; n];
                let (f, g) = (
                    skinned.as_mut_ptr().cast::<f32>(),
                    copied.as_mut_ptr().cast(),
                );
                let s = skelmap_model_skin(Some(m), Some(p), mesh, f, 24, f.add(3), 24, n);
                assert_eq!(s, SkelmapStatus::Ok);
                let s = skelmap_static_mesh_copy(Some(b), mesh, g, 24, g.add(3), 24, n);
                assert_eq!(s, SkelmapStatus::Ok);
                let bits = |v: &[[f32; 6]]| -> Vec<u32> {
                    v.iter().flatten().map(|x| x.to_bits()).collect()
                };
                same &= bits(&skinned) == bits(&copied);
            }
            Ok(same)
        } else {
            Err(Some(s))
        }
    };
    // SAFETY: each is NULL or live, freed once.
    unsafe {
        skelmap_static_mesh_free(baked);
        skelmap_pose_free(pose);
        skelmap_model_free(model);
    }
    result
}

/// Skins `mesh` of `c` with the compact kernel into an interleaved buffer, with short and
/// malformed outputs first.
///
/// # Safety
///
/// `m`, `c` and `p` are live.
unsafe fn compact_skin(m: &SkelmapModel, c: &SkelmapCompact, p: &SkelmapPose, mesh: u32) -> u64 {
    let mut info = SkelmapMeshInfo::default();
    // SAFETY: live references.
    let known = unsafe { skelmap_mesh_info(Some(m), mesh, Some(&mut info)) };
    let n = if known == SkelmapStatus::Ok {
        info.vertices.min(MAX_SKIN_VERTICES) as usize
    } else {
        1
    };
    let mut out = vec![0.0f32; 8 * n];
    let base = out.as_mut_ptr();
    let mut sum = 0;
    // SAFETY: `out` holds n vertices 32 bytes apart, positions at offset 0 and normals at 12.
    unsafe {
        for (stride, capacity) in [(32, n), (32, n.saturating_sub(1)), (8, n), (0, 0)] {
            let s = skelmap_compact_skin(
                Some(c),
                Some(p),
                mesh,
                base,
                stride,
                base.add(3),
                stride,
                capacity,
            );
            sum += s as u64;
            if s == SkelmapStatus::Ok {
                assert!(capacity >= n && stride != 8, "a bad output was accepted");
            }
        }
        let s = skelmap_compact_skin(Some(c), Some(p), mesh, base, 32, std::ptr::null_mut(), 0, n);
        sum += s as u64;
        // In the layout's own order, with the order and a remapped triangle list.
        let s = skelmap_compact_skin_prepared(Some(c), Some(p), mesh, base, 32, base.add(3), 32, n);
        sum += s as u64;
        let mut order = vec![0u32; n];
        for capacity in [n, n.saturating_sub(1)] {
            sum +=
                skelmap_compact_prepared_order(Some(c), mesh, order.as_mut_ptr(), capacity) as u64;
        }
        let mut triangles: Vec<u32> = (0..3 * n as u32).collect();
        let (t, count) = (triangles.as_mut_ptr(), n);
        sum += skelmap_compact_remap_triangles(Some(c), mesh, t, count) as u64;
        sum += triangles
            .iter()
            .chain(&order)
            .map(|&i| u64::from(i & 1))
            .sum::<u64>();
    }
    sum + out.iter().map(|v| v.to_bits() as u64 & 1).sum::<u64>()
}

/// Skins `mesh` into an interleaved buffer, with short and malformed outputs first.
///
/// # Safety
///
/// `m` and `p` are live.
unsafe fn skin(m: &SkelmapModel, p: &SkelmapPose, mesh: u32) -> u64 {
    let mut info = SkelmapMeshInfo::default();
    // SAFETY: live references.
    if unsafe { skelmap_mesh_info(Some(m), mesh, Some(&mut info)) } != SkelmapStatus::Ok
        || info.vertices > MAX_SKIN_VERTICES
    {
        return 0;
    }
    let n = info.vertices as usize;
    // Interleaved 8 floats per vertex: position at 0, normal at 3 (byte offset 12).
    let mut out = vec![0.0f32; 8 * n];
    let mut tris = vec![0u32; 3 * info.triangles as usize];
    let mut uvs = vec![0.0f32; 2 * n];
    let base = out.as_mut_ptr();
    let mut sum = 0;
    // SAFETY: every buffer holds what its capacity claims: `out` n vertices 32 bytes apart
    // for positions at offset 0 and normals at offset 12; `tris` and `uvs` tightly packed.
    unsafe {
        let normal = base.add(3);
        for (stride, capacity) in [(32, n), (32, n.saturating_sub(1)), (8, n), (0, 0)] {
            let s = skelmap_model_skin(
                Some(m),
                Some(p),
                mesh,
                base,
                stride,
                normal,
                stride,
                capacity,
            );
            sum += s as u64;
            if s == SkelmapStatus::Ok {
                // Packed (0) and 32-byte strides are valid; an 8-byte one never is. A mesh
                // without vertices fits any capacity (regression
                // `an_empty_mesh_used_to_fail_the_harness_when_skinned_into_nothing`).
                assert!(capacity >= n && stride != 8, "a bad output was accepted");
            }
        }
        let _ = skelmap_model_skin(Some(m), Some(p), mesh, base, 32, std::ptr::null_mut(), 0, n);
        let _ = skelmap_mesh_triangles(Some(m), mesh, tris.as_mut_ptr(), info.triangles as usize);
        assert!(
            tris.iter().all(|&i| i < info.vertices.max(1)),
            "triangle index past vertices"
        );
        let _ = skelmap_mesh_texcoords(Some(m), mesh, uvs.as_mut_ptr(), 0, n);
        let mut colors = vec![0u8; 4 * n];
        sum += skelmap_mesh_colors(Some(m), mesh, colors.as_mut_ptr(), 0, n) as u64;
        let mut tangents = vec![0.0f32; 4 * n];
        sum += skelmap_mesh_tangents(Some(m), mesh, tangents.as_mut_ptr(), 0, n) as u64;
        let corners = 3 * info.triangles as usize;
        if corners <= 3 * MAX_SKIN_VERTICES as usize {
            let mut corner_uvs = vec![0.0f32; 2 * corners];
            let mut corner_out = vec![0.0f32; 6 * corners];
            let c = corner_out.as_mut_ptr();
            sum += skelmap_mesh_corner_texcoords(Some(m), mesh, corner_uvs.as_mut_ptr(), 0, corners)
                as u64;
            let s =
                skelmap_model_skin_corners(Some(m), Some(p), mesh, c, 24, c.add(3), 24, corners);
            sum += s as u64;
            let short = skelmap_model_skin_corners(
                Some(m),
                Some(p),
                mesh,
                c,
                24,
                c.add(3),
                24,
                corners / 2,
            );
            assert!(
                corners == 0 || short != SkelmapStatus::Ok,
                "a short corner buffer was accepted"
            );
        }
        for sub in [0, info.submeshes] {
            let mut submesh = SkelmapSubmesh::default();
            if skelmap_submesh(Some(m), mesh, sub, Some(&mut submesh)) == SkelmapStatus::Ok {
                assert!(sub < info.submeshes);
                let mut list = vec![0u32; submesh.triangles as usize];
                let s =
                    skelmap_submesh_triangles(Some(m), mesh, sub, list.as_mut_ptr(), list.len());
                assert_eq!(s, SkelmapStatus::Ok);
                assert!(
                    list.iter().all(|&t| t < info.triangles),
                    "submesh triangle past the mesh"
                );
            }
        }
    }
    sum + out.iter().map(|v| v.to_bits() as u64 & 1).sum::<u64>()
}

/// Opens `bytes` (which outlive the model), or `None`.
fn open(bytes: &[u8]) -> Option<*mut SkelmapModel> {
    let mut model = std::ptr::null_mut();
    // SAFETY: `bytes` outlives every use of the model by the callers below; `model` is
    // writable.
    let s = unsafe { skelmap_model_open_memory(bytes.as_ptr(), bytes.len(), 0, &mut model) };
    (s == SkelmapStatus::Ok).then_some(model)
}

/// Skins every mesh of `bytes` at frames 0, 1, the middle and the last (each halfway to the
/// next) with `skelmap_model_skin` and with `skelmap_compact_skin`, and returns the worst
/// position difference over the model's size (its largest coordinate) and the worst normal
/// difference (MS3D, whose normals `skelmap_model_skin` smooths from its corners, reports 0).
/// `None` when the model does not open, has no bones or no frames.
#[must_use]
pub fn compact_against_file(bytes: &[u8]) -> Option<(f32, f32)> {
    let model = open(bytes)?;
    let mut pose: *mut SkelmapPose = std::ptr::null_mut();
    let mut compact: *mut SkelmapCompact = std::ptr::null_mut();
    let mut worst = None;
    // SAFETY: live objects throughout; each buffer holds the capacity passed with it.
    unsafe {
        let m = &*model;
        let mut counts = SkelmapCounts::default();
        let _ = skelmap_model_counts(Some(m), Some(&mut counts));
        if counts.bones > 0
            && counts.frames > 0
            && skelmap_pose_new(Some(&mut pose)) == SkelmapStatus::Ok
            && skelmap_compact_new(Some(m), Some(&mut compact)) == SkelmapStatus::Ok
        {
            let (p, c) = (&mut *pose, &*compact);
            let smooth = skelmap_model_format(Some(m)) == SkelmapFormat::Ms3d as u32;
            let (mut position, mut normal) = (0.0f32, 0.0f32);
            let last = counts.frames - 1;
            for frame in [0, 1.min(last), last / 2, last] {
                let next = (frame + 1).min(last);
                let s = skelmap_pose_sample(Some(p), Some(m), frame, next, 0.5, 0);
                assert_eq!(s, SkelmapStatus::Ok);
                for mesh in 0..counts.meshes {
                    let mut info = SkelmapMeshInfo::default();
                    let _ = skelmap_mesh_info(Some(m), mesh, Some(&mut info));
                    let n = info.vertices as usize;
                    let mut file = vec![[f32::NAN; 6]; n];
                    let mut folded = vec![[f32::NAN; 6]; n];
                    let (f, g) = (file.as_mut_ptr().cast::<f32>(), folded.as_mut_ptr().cast());
                    let s = skelmap_model_skin(Some(m), Some(p), mesh, f, 24, f.add(3), 24, n);
                    assert_eq!(s, SkelmapStatus::Ok);
                    let s = skelmap_compact_skin(Some(c), Some(p), mesh, g, 24, g.add(3), 24, n);
                    assert_eq!(s, SkelmapStatus::Ok);
                    prepared_as_file_order(m, (c, &*p), mesh, &folded);
                    let size = file
                        .iter()
                        .flat_map(|v| &v[..3])
                        .fold(1e-6f32, |a, v| a.max(v.abs()));
                    for (a, b) in file.iter().zip(&folded) {
                        for k in 0..3 {
                            position = position.max((a[k] - b[k]).abs() / size);
                            if !smooth {
                                normal = normal.max((a[k + 3] - b[k + 3]).abs());
                            }
                        }
                    }
                }
            }
            worst = Some((position, normal));
        }
        skelmap_compact_free(compact);
        skelmap_pose_free(pose);
        skelmap_model_free(model);
    }
    worst
}

/// Checks `skelmap_compact_skin_prepared` of `mesh` against `file_order`, what
/// `skelmap_compact_skin` wrote (position and normal per vertex): position `i` holds vertex
/// `skelmap_compact_prepared_order`'s `i`, bit for bit, and each triangle remapped by
/// `skelmap_compact_remap_triangles` has the corners of the triangle in file order.
///
/// # Safety
///
/// `m`, `c` and `p` are live; `c` was made from `m` and `p` sampled from it.
unsafe fn prepared_as_file_order(
    m: &SkelmapModel,
    (c, p): (&SkelmapCompact, &SkelmapPose),
    mesh: u32,
    file_order: &[[f32; 6]],
) {
    let n = file_order.len();
    let mut prepared = vec![[f32::NAN; 6]; n];
    let mut order = vec![u32::MAX; n];
    let mut info = SkelmapMeshInfo::default();
    let g = prepared.as_mut_ptr().cast::<f32>();
    // SAFETY: live objects (this function's contract); `prepared` holds `n` vertices of 24
    // bytes, `order` `n` indices, `triangles` the mesh's triangles.
    unsafe {
        let s = skelmap_compact_skin_prepared(Some(c), Some(p), mesh, g, 24, g.add(3), 24, n);
        assert_eq!(s, SkelmapStatus::Ok);
        let s = skelmap_compact_prepared_order(Some(c), mesh, order.as_mut_ptr(), n);
        assert_eq!(s, SkelmapStatus::Ok);
        assert_eq!(
            skelmap_mesh_info(Some(m), mesh, Some(&mut info)),
            SkelmapStatus::Ok
        );
        let mut file = vec![[0u32; 3]; info.triangles as usize];
        let (t, count) = (file.as_mut_ptr().cast::<u32>(), file.len());
        assert_eq!(
            skelmap_mesh_triangles(Some(m), mesh, t, count),
            SkelmapStatus::Ok
        );
        let mut remapped = file.clone();
        let t = remapped.as_mut_ptr().cast::<u32>();
        assert_eq!(
            skelmap_compact_remap_triangles(Some(c), mesh, t, count),
            SkelmapStatus::Ok
        );
        let bits = |v: &[f32; 6]| v.map(f32::to_bits);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert!(sorted.iter().copied().eq(0..n as u32), "not a permutation");
        for (at, &v) in order.iter().enumerate() {
            assert_eq!(
                bits(&prepared[at]),
                bits(&file_order[v as usize]),
                "vertex {v}"
            );
        }
        for (a, b) in file.iter().zip(&remapped) {
            for (&i, &j) in a.iter().zip(b) {
                assert_eq!(bits(&file_order[i as usize]), bits(&prepared[j as usize]));
            }
        }
    }
}

/// The statuses of the compact calls, in this order: made from `terrain` (a vertex-animated
/// model; also whether it left NULL, as `Ok` for yes), from NULL, into NULL, from `skeletal`;
/// info into NULL; skinning mesh 0 of `skeletal` with an unsampled pose, a sampled one (frames
/// 1 and 2), a NULL pose, mesh 1, one vertex short, an 8-byte stride, both outputs NULL, and
/// a pose of frames sampled from `terrain`; in the layout's own order, with that pose, with
/// frames 1 and 2 again, a NULL pose, mesh 1 and one vertex short; the order of mesh 0, of
/// no compact model, of mesh 1, into NULL and one short; one triangle remapped, with no
/// compact model, of mesh 1, from NULL, none from NULL, and a count whose indices overflow.
/// Empty if a model does not open.
#[must_use]
pub fn compact_statuses(skeletal: &[u8], terrain: &[u8]) -> Vec<SkelmapStatus> {
    let opened = (open(skeletal), open(terrain));
    let (Some(model), Some(other)) = opened else {
        for model in [opened.0, opened.1].into_iter().flatten() {
            // SAFETY: opened above, freed once.
            unsafe { skelmap_model_free(model) };
        }
        return Vec::new();
    };
    let mut statuses = Vec::new();
    let mut pose: *mut SkelmapPose = std::ptr::null_mut();
    let mut compact: *mut SkelmapCompact = std::ptr::null_mut();
    // SAFETY: live objects; `out` holds `n` packed positions, checked below.
    unsafe {
        let (m, o) = (&*model, &*other);
        assert_eq!(skelmap_pose_new(Some(&mut pose)), SkelmapStatus::Ok);
        let p = &mut *pose;
        let mut not_made = std::ptr::NonNull::<SkelmapCompact>::dangling().as_ptr();
        statuses.push(skelmap_compact_new(Some(o), Some(&mut not_made)));
        statuses.push(if not_made.is_null() {
            SkelmapStatus::Ok
        } else {
            SkelmapStatus::Panic
        });
        statuses.push(skelmap_compact_new(None, Some(&mut compact)));
        statuses.push(skelmap_compact_new(Some(m), None));
        statuses.push(skelmap_compact_new(Some(m), Some(&mut compact)));
        if let Some(c) = compact.as_ref() {
            statuses.push(skelmap_compact_info(Some(c), None));
            let mut info = SkelmapMeshInfo::default();
            assert_eq!(
                skelmap_mesh_info(Some(m), 0, Some(&mut info)),
                SkelmapStatus::Ok
            );
            let n = info.vertices as usize;
            let mut out = vec![0.0f32; 3 * n];
            let o_ptr = out.as_mut_ptr();
            let null = std::ptr::null_mut();
            let skin = |pose: Option<&SkelmapPose>, mesh, stride, cap| {
                skelmap_compact_skin(Some(c), pose, mesh, o_ptr, stride, null, 0, cap)
            };
            statuses.push(skin(Some(p), 0, 0, n));
            assert_eq!(
                skelmap_pose_sample(Some(p), Some(m), 1, 2, 0.5, 0),
                SkelmapStatus::Ok
            );
            statuses.push(skin(Some(p), 0, 0, n));
            statuses.push(skin(None, 0, 0, n));
            statuses.push(skin(Some(p), 1, 0, n));
            statuses.push(skin(Some(p), 0, 0, n - 1));
            statuses.push(skin(Some(p), 0, 8, n));
            statuses.push(skelmap_compact_skin(
                Some(c),
                Some(p),
                0,
                null,
                0,
                null,
                0,
                n,
            ));
            assert_eq!(
                skelmap_pose_sample(Some(p), Some(o), 0, 0, 0.0, 0),
                SkelmapStatus::Ok
            );
            statuses.push(skin(Some(p), 0, 0, n));
            // In the layout's own order: the same checks, then its order and triangles.
            let prepared = |pose: Option<&SkelmapPose>, mesh, cap| {
                skelmap_compact_skin_prepared(Some(c), pose, mesh, o_ptr, 0, null, 0, cap)
            };
            statuses.push(prepared(Some(p), 0, n));
            assert_eq!(
                skelmap_pose_sample(Some(p), Some(m), 1, 2, 0.5, 0),
                SkelmapStatus::Ok
            );
            statuses.push(prepared(Some(p), 0, n));
            statuses.push(prepared(None, 0, n));
            statuses.push(prepared(Some(p), 1, n));
            statuses.push(prepared(Some(p), 0, n - 1));
            let mut order = vec![0u32; n];
            let ord = order.as_mut_ptr();
            statuses.push(skelmap_compact_prepared_order(Some(c), 0, ord, n));
            statuses.push(skelmap_compact_prepared_order(None, 0, ord, n));
            statuses.push(skelmap_compact_prepared_order(Some(c), 1, ord, n));
            statuses.push(skelmap_compact_prepared_order(Some(c), 0, null.cast(), n));
            statuses.push(skelmap_compact_prepared_order(Some(c), 0, ord, n - 1));
            let mut triangles = [0u32, 1, 2];
            let t = triangles.as_mut_ptr();
            statuses.push(skelmap_compact_remap_triangles(Some(c), 0, t, 1));
            statuses.push(skelmap_compact_remap_triangles(None, 0, t, 1));
            statuses.push(skelmap_compact_remap_triangles(Some(c), 1, t, 1));
            statuses.push(skelmap_compact_remap_triangles(Some(c), 0, null.cast(), 1));
            statuses.push(skelmap_compact_remap_triangles(Some(c), 0, null.cast(), 0));
            statuses.push(skelmap_compact_remap_triangles(Some(c), 0, t, usize::MAX));
        }
        skelmap_compact_free(compact);
        skelmap_compact_free(std::ptr::null_mut());
        skelmap_pose_free(pose);
        skelmap_model_free(model);
        skelmap_model_free(other);
    }
    statuses
}
