//! The stream kernel: straight over the mapped records in file order, no preparation.

use glam::Vec4;
use zerocopy::byteorder::ByteOrder;

use super::SimdLevel;
use super::SkinError;
use super::matrices::{PAIRED, SkinMatrices};
use super::output::{Sink, SkinnedVertex, Split};
use crate::bonevert::Vertices;
use crate::pose::SkeletalMesh;

#[cfg(target_arch = "x86_64")]
mod x86;

/// Skins `mesh` straight from its file records (zero-copy, no preparation, no allocation)
/// into `positions` and `normals`, in file order, at `level` (see [`SimdLevel`]; AVX-512 runs
/// the AVX2 code: one 32-byte record fills a 256-bit register). Results equal
/// [`skin_scalar`](super::skin_scalar)'s within rounding (fused multiply-adds).
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::pose::{self, Interpolation, LocalPose, Palette};
/// use skelmap_core::skin::{self, SimdLevel, SkinMatrices};
/// use skelmap_core::{SkeletalMesh, dpm::Dpm, synth};
///
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Dpm::parse(&bytes)?;
/// let (mut pose, mut palette) = (LocalPose::default(), Palette::default());
/// pose::sample(&model, 1, 2, 0.25, Interpolation::Nlerp, &mut pose);
/// palette.build(&model, &pose);
/// let matrices = SkinMatrices::from_palette(&palette);
/// let mesh = model.mesh(0).expect("one mesh");
/// let n = mesh.num_vertices() as usize;
/// let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
/// skin::skin_stream(&mesh, &matrices, SimdLevel::detect(), &mut p, &mut q)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`SkinError`] when the palette lacks a bone the mesh uses or an output is short (outputs
/// written before a missing bone is met keep their values).
pub fn skin_stream<'data, M: SkeletalMesh<'data>>(
    mesh: &M,
    matrices: &SkinMatrices,
    level: SimdLevel,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), SkinError> {
    let mut sink = Split { positions, normals };
    stream_into(mesh, matrices, level, &mut sink)
}

/// [`skin_stream`] into interleaved [`SkinnedVertex`]es.
///
/// # Errors
///
/// As [`skin_stream`].
pub fn skin_stream_vertices<'data, M: SkeletalMesh<'data>>(
    mesh: &M,
    matrices: &SkinMatrices,
    level: SimdLevel,
    mut out: &mut [SkinnedVertex],
) -> Result<(), SkinError> {
    stream_into(mesh, matrices, level, &mut out)
}

fn stream_into<'data, M: SkeletalMesh<'data>>(
    mesh: &M,
    matrices: &SkinMatrices,
    level: SimdLevel,
    sink: &mut impl Sink,
) -> Result<(), SkinError> {
    let need = mesh.num_vertices();
    if sink.len() < need {
        return Err(SkinError::Output {
            need,
            have: sink.len(),
        });
    }
    let missing = |bone| SkinError::Palette {
        bone,
        have: matrices.bones(),
    };
    #[cfg(target_arch = "x86_64")]
    if level >= SimdLevel::Avx2 {
        let run = x86::try_stream_avx2(mesh.vertices(), matrices.paired(), sink);
        if let Some(result) = run {
            return result.map_err(missing);
        }
    }
    let _ = level;
    stream_portable(mesh.vertices(), matrices.paired(), sink).map_err(missing)
}

/// The stream kernel in plain Rust over glam's 4-lane vectors.
fn stream_portable<O: ByteOrder>(
    vertices: Vertices<'_, O>,
    paired: &[[f32; PAIRED]],
    sink: &mut impl Sink,
) -> Result<(), u32> {
    for (i, records) in vertices.enumerate() {
        let (mut p, mut n) = (Vec4::ZERO, Vec4::ZERO);
        for r in records {
            let bone = r.bonenum();
            let m = paired.get(bone as usize).ok_or(bone)?;
            let col = |c: usize| Vec4::new(m[c * 8], m[c * 8 + 1], m[c * 8 + 2], 0.0);
            let ([ox, oy, oz], w, [nx, ny, nz]) = (r.origin(), r.influence(), r.normal());
            let (c0, c1, c2) = (col(0), col(1), col(2));
            p += c0 * ox + c1 * oy + c2 * oz + col(3) * w;
            n += c0 * nx + c1 * ny + c2 * nz;
        }
        sink.put(i, p.truncate().to_array(), n.truncate().to_array());
    }
    Ok(())
}
