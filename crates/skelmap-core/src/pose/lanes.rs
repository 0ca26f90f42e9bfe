//! Pose conversion sixteen bones a step, dispatched: AVX-512F where the CPU has it (the `x86`
//! module; some passes eight bones a step with AVX2 where it has only that), nothing
//! elsewhere, where the callers convert one bone at a time. Every lane-wise
//! result is the scalar conversion's, bit for bit, so the choice decides speed only.

/// Samples the first `count` lanes of `keys` with nlerp as the scalar sampler does, bit for
/// bit (`rest · key` per rotation key, blended along the shorter arc and normalised;
/// `rest position + rest · key` per position key, blended linearly; the rest transform
/// alone where a joint has no keys), and appends their poses to `out`; 16 lanes a step with
/// AVX-512 where the CPU has it. `None`, with nothing appended, where it does not, or where
/// an angle lies beyond the polynomial's range (the scalar sampler's then).
pub(crate) fn keyed_nlerp(
    keys: &super::euler::KeyLanes,
    count: usize,
    out: &mut Vec<(glam::Quat, glam::Vec3A)>,
) -> Option<()> {
    #[cfg(target_arch = "x86_64")]
    {
        super::x86::euler::try_keyed_nlerp(keys, count, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (keys, count, out);
        None
    }
}

/// The fewest poses [`nlerp_in_place`] blends: a step is bound by the latency of its square
/// root and division, which a few four-lane SSE blends (the caller's) overlap better. The
/// `ozz-pose` rows of `benches/peers.rs` time both: `assimp_man` (8 bones) the SSE blends,
/// `assimp_multiple_roots` (19) a step.
const MIN_NLERP: usize = 12;

/// Blends the leading poses of `a` towards those of `b` at `t` in place, as
/// `pose::sample`'s nlerp does, bit for bit, 16 at a time with AVX-512 where the CPU has it (8
/// with AVX2 where it has only that) and there are at least [`MIN_NLERP`] (a last partial
/// step too, unless it is only a few);
/// returns how many it blended (the caller blends the rest, up to the shorter of the two).
pub(crate) fn nlerp_in_place(
    a: &mut [(glam::Quat, glam::Vec3A)],
    b: &[(glam::Quat, glam::Vec3A)],
    t: f32,
) -> usize {
    if a.len().min(b.len()) < MIN_NLERP {
        return 0;
    }
    #[cfg(target_arch = "x86_64")]
    {
        super::x86::blend::try_nlerp_in_place(a, b, t)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (a, b, t);
        0
    }
}

/// Blends the leading poses of `a` towards those of `b` at `t` into `out`, as
/// [`nlerp_in_place`] blends them in place, bit for bit, under the same conditions (all three
/// at least [`MIN_NLERP`] long); returns how many it blended (the caller blends the rest).
pub(crate) fn nlerp_into(
    a: &[(glam::Quat, glam::Vec3A)],
    b: &[(glam::Quat, glam::Vec3A)],
    t: f32,
    out: &mut [(glam::Quat, glam::Vec3A)],
) -> usize {
    if a.len().min(b.len()).min(out.len()) < MIN_NLERP {
        return 0;
    }
    #[cfg(target_arch = "x86_64")]
    {
        super::x86::blend::try_nlerp_into(a, b, t, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (a, b, t, out);
        0
    }
}

/// The fewest bones for which the palette's pass of local matrices, [`local_matrices`], is
/// called: the fewest lanes its steps take (a skeleton of 4 to 15 bones is one partial
/// step). From there a step costs fewer instructions than glam's per-bone code, with the
/// concatenation's two columns a register beside it; `benches/README.md` (Sampling against
/// ozz) gives the counts and the `ozz-pose` rows of the MD5 weapons (4 and 8 joints),
/// `crogine_body_animated` (6) and Half-Life's `assimp_man` (8).
pub(crate) const MIN_LOCAL_MATRICES: usize = 4;

/// Writes the local matrix of each leading pose of `poses` into `out` (glam's
/// `Affine3A::from_scale_rotation_translation`, with scale 1 for a bone past `scales`), bit
/// for bit, 16 at a time with AVX-512 where the CPU has it, 8 with AVX2 where it has only that
/// (a last partial step too, unless it is only a few); returns how many it wrote (the caller writes the rest, up to the
/// shorter of `poses` and `out`, one at a time).
pub(crate) fn local_matrices(
    poses: &[(glam::Quat, glam::Vec3A)],
    scales: &[glam::Vec3A],
    out: &mut [glam::Affine3A],
) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        super::x86::palette::try_local_matrices(poses, scales, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (poses, scales, out);
        0
    }
}

/// For each `(child, parent)` of `links` in turn, both in range, `world[child] =
/// world[parent] * world[child]` as glam computes it, bit for bit, with AVX where the CPU has
/// it (two columns a register: fewer instructions a bone than glam's SSE2 product) and
/// `world` has two bones or more; `false`, with `world` untouched, otherwise (the caller
/// concatenates).
pub(crate) fn concatenate(
    world: &mut [glam::Affine3A],
    links: impl Iterator<Item = (usize, usize)>,
) -> bool {
    if world.len() < 2 {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        super::x86::palette::try_concatenate(world, links)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (world, links);
        false
    }
}

/// Blends the leading poses of two DPM frames (`a` and `b`, big-endian 3×4 matrices) at `t`
/// as `pose::sample`'s nlerp does and appends them to `out`, 16 at a time with AVX-512 where
/// the CPU has it, 8 with AVX2 where it has only that (a last partial step too, unless it is
/// only a few; both frames in one step when they hold 2 to 8 poses, 2 to 4 with AVX2);
/// returns how many it blended (the caller blends the rest one at a time).
pub(crate) fn be_poses_nlerp(
    a: &[u8],
    b: &[u8],
    t: f32,
    out: &mut Vec<(glam::Quat, glam::Vec3A)>,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        super::x86::matrices::try_be_poses_nlerp(a, b, t, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (a, b, t, out);
        0
    }
}

/// [`be_poses_nlerp`] into the blocks of a `SoaPose` (at least as many as the poses need):
/// the same poses, bit for bit, in the blocks' lane order, no other lane written; returns how
/// many it blended (the caller blends the rest one at a time).
pub(crate) fn be_poses_nlerp_soa(a: &[u8], b: &[u8], t: f32, out: &mut [super::SoaBlock]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        super::x86::matrices::try_be_poses_nlerp_soa(a, b, t, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (a, b, t, out);
        0
    }
}

/// Appends the leading poses of `bytes` (DPM's big-endian 3×4 matrices, 48 bytes each) to
/// `out` as unit quaternions and translations, 16 at a time with AVX-512 where the CPU has it,
/// 8 with AVX2 where it has only that (a last partial step too, unless it is only a few);
/// returns how many it converted (the caller converts the rest one at a time).
pub(crate) fn be_poses(bytes: &[u8], out: &mut Vec<(glam::Quat, glam::Vec3A)>) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        super::x86::matrices::try_be_poses(bytes, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (bytes, out);
        0
    }
}

/// Decodes the first `lanes` bones of `block` in two frames (`a` and `b`: each frame's
/// little-endian bytes, `None` where they are not at hand) and blends them at `t` as the
/// scalar decode and nlerp do, bit for bit, putting the poses where `out` says (and the
/// scales where `scales` says): one AVX-512 step, or two AVX2 steps where the CPU lacks
/// AVX-512F or AVX-512BW. `false`, with nothing put, where it lacks AVX2 as well, a frame's
/// bytes are missing or shorter than the block reads,
/// or a stored rotation is too small or large to normalise in `f32` (the scalar decode's
/// then).
pub(crate) fn channels_nlerp(
    block: &super::block::Block,
    a: Option<&[u8]>,
    b: Option<&[u8]>,
    t: f32,
    lanes: usize,
    out: super::block::Placed<'_, (glam::Quat, glam::Vec3A)>,
    scales: Option<super::block::Placed<'_, glam::Vec3A>>,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match (a, b) {
            (Some(a), Some(b)) => {
                super::x86::channels::try_channels_nlerp(block, a, b, t, lanes, out, scales)
            }
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (block, a, b, t, lanes, out, scales);
        false
    }
}

/// Whether [`blend`] runs on this CPU (AVX-512F).
pub(crate) fn blend_supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `layers` (weighed as `plan` and `weights` say: see `blend::Plan`) blended over `rest`
/// into `out` (as long as `rest`) as the scalar `Blender` blends poses without scales, 16
/// bones a step with AVX-512F; `false`, with `out` untouched, where the CPU lacks it.
pub(crate) fn blend(
    rest: &[(glam::Quat, glam::Vec3A)],
    layers: &[super::blend::Layer<'_>],
    plan: &[super::blend::Plan],
    weights: &[f32],
    threshold: f32,
    out: &mut [(glam::Quat, glam::Vec3A)],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        super::x86::blend::try_blend(rest, layers, plan, weights, threshold, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (rest, layers, plan, weights, threshold, out);
        false
    }
}

/// [`blend`] of poses in `SoaPose` blocks (`rest` as long as `out`), read as they are
/// stored; `false`, with `out` untouched, where the CPU lacks AVX-512F.
pub(crate) fn blend_soa(
    rest: &super::SoaPose,
    layers: &[super::blend::Layer<'_, super::SoaPose>],
    plan: &[super::blend::Plan],
    weights: &[f32],
    threshold: f32,
    out: &mut [(glam::Quat, glam::Vec3A)],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        super::x86::blend::try_blend_soa(rest, layers, plan, weights, threshold, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (rest, layers, plan, weights, threshold, out);
        false
    }
}
