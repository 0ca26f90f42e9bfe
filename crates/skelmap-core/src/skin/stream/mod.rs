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
/// into `positions` and `normals`, in file order, at `level` (see [`SimdLevel`]). Results
/// equal [`skin::scalar`](fn@super::scalar)'s within rounding (fused multiply-adds).
///
/// What runs at each level (the best the CPU supports at or below `level`):
///
/// - [`SimdLevel::Avx512`], with AVX-512F, AVX-512BW, AVX2 and FMA: a vertex of one influence
///   has its 32-byte record in both halves of a 512-bit register and takes two multiply-adds
///   over the bone's paired columns; a vertex of more influences takes the AVX2 steps below.
///   A CPU with AVX-512F but no AVX-512BW runs the AVX2 kernel.
/// - [`SimdLevel::Avx2`], with AVX2 and FMA: one record per 256-bit register, every vertex.
/// - [`SimdLevel::Portable`]: plain Rust over glam's four-lane vectors.
///
/// Why AVX-512 goes no further: in the `skin` bench's `skin-<input>/stream/avx2` and
/// `stream/avx512` rows (`cargo bench --bench skin -- stream/avx`), the one-influence path is
/// ahead on the corpus models made mostly of one-influence vertices and level with AVX2 on
/// the others. Two records per 512-bit register (a vertex's records lie side by side, so a
/// pair is one 64-byte load) measured slower than the AVX2 steps on every model with several
/// influences per vertex: the columns of two bones must be inserted into one register, and an
/// odd count needs either a branch, which mispredicts on meshes of mixed counts, or a masked
/// extra record. On a one-influence vertex the arithmetic is a small part of the cost: reading
/// its count, checking the bounds and the bone, and storing six floats take most of the
/// instructions, and wider registers shorten none of them.
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
/// skin::stream(&mesh, &matrices, SimdLevel::detect(), &mut p, &mut q)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`SkinError`] when the palette lacks a bone the mesh uses or an output is short (outputs
/// written before a missing bone is met keep their values).
pub fn stream<'data, M: SkeletalMesh<'data>>(
    mesh: &M,
    matrices: &SkinMatrices,
    level: SimdLevel,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), SkinError> {
    let mut sink = Split { positions, normals };
    stream_into(mesh, matrices, level, &mut sink)
}

/// [`stream`] into interleaved [`SkinnedVertex`]es.
///
/// # Errors
///
/// As [`stream`].
pub fn stream_vertices<'data, M: SkeletalMesh<'data>>(
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
    stream_records(mesh.vertices(), matrices.paired(), level, sink).map_err(|bone| {
        SkinError::Palette {
            bone,
            have: matrices.bones(),
        }
    })
}

/// Skins `vertices` into `sink` with the best kernel at or below `level`; `Err` with the first
/// bone `paired` lacks (the vertices before it written).
fn stream_records<O: ByteOrder>(
    vertices: Vertices<'_, O>,
    paired: &[[f32; PAIRED]],
    level: SimdLevel,
    sink: &mut impl Sink,
) -> Result<(), u32> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut run = None;
        if level >= SimdLevel::Avx512 {
            run = x86::try_stream_avx512(vertices.clone(), paired, sink);
        }
        if run.is_none() && level >= SimdLevel::Avx2 {
            run = x86::try_stream_avx2(vertices.clone(), paired, sink);
        }
        if let Some(result) = run {
            return result;
        }
    }
    let _ = level;
    stream_portable(vertices, paired, sink)
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

#[cfg(test)]
mod tests;
