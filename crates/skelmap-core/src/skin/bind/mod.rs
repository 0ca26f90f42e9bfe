//! Skinning meshes stored in their bind pose (a [`BindPoseMesh`]).
//!
//! Pre-weighted formats store each vertex as offsets in its bones' spaces; bind-pose formats
//! store one model-space position (and normal) as the mesh looks in its bind pose, with up to
//! [`MAX_BIND_INFLUENCES`](crate::pose::MAX_BIND_INFLUENCES) `(bone, weight)` influences. Such
//! a vertex moves by its bones' `world(t) · world(bind)⁻¹`
//! ([`Palette::relative_to`](crate::pose::Palette::relative_to)), blended linearly
//! ([`bind_lbs`]) or as dual quaternions ([`bind_dqs`]).
//!
//! [`WeightedRecords`] converts such a mesh once into the pre-weighted records the record
//! kernels read (the layout of [`BoneVert`]), so that the scalar, stream, prepared and DQS
//! kernels skin it as they skin a pre-weighted file.

use glam::{Affine3A, Vec3, Vec3A};
use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, LittleEndian, U32};

use super::dqs::{Blend, DualQuat};
use super::records::RecordsMesh;
use super::{SimdLevel, SkinError};
use crate::bonevert::BoneVert;
use crate::pose::{BindPoseMesh, BindVertex, FourInfluences};

#[cfg(target_arch = "x86_64")]
mod x86;

/// A bind-pose mesh as pre-weighted bone-space records (little-endian, the layout of
/// [`BoneVert`]): an explicit copy, about `4 + 32 · influences` bytes per vertex.
///
/// Each weighted influence `(b, w)` of a vertex at `p` with normal `n` becomes the record
/// `origin = w · bind_b⁻¹ · p`, `normal = w · R(bind_b)⁻¹ · n`, `influence = w`, the weights
/// normalised to sum to 1, so that `Σ world_b(t) · (origin, influence)` is the linear blend of
/// [`bind_lbs`]. A vertex bound to no bone gets one record of weight 1 on bone
/// [`WeightedRecords::unbound_bone`] (`bind.len()`): skinned with an identity in that slot of
/// the palette, it stays where it is stored.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::pose::{LocalPose, Palette};
/// use skelmap_core::skin::{self, WeightedRecords};
/// use skelmap_core::slmdl;
/// use skelmap_core::SkeletalMesh;
///
/// let (mdl, anim) = skelmap_core::synth::sl_twist(4, 8, 90.0);
/// let (mdl, anim) = (mdl.write(), anim.write());
/// let (mesh, anim) = (slmdl::Mesh::parse(&mdl)?, slmdl::Animation::parse(&anim)?);
/// let (mut pose, mut bind) = (LocalPose::default(), Palette::default());
/// anim.sample(0.0, &mut pose);
/// bind.build(&anim, &pose);
/// let records = WeightedRecords::new(&mesh, &bind.world)?;
/// assert_eq!(records.mesh().num_vertices() as usize, mesh.num_vertices() as usize);
/// // Skinned by the bind pose itself (and an identity for unbound vertices), every vertex
/// // lands where the file stores it.
/// bind.world.push(Default::default());
/// let n = mesh.num_vertices() as usize;
/// let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
/// skin::scalar(&records.mesh(), &bind, &mut p, &mut q)?;
/// assert!((p[0][0] - -1.0).abs() < 1e-5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct WeightedRecords {
    bytes: Vec<u8>,
    num_vertices: u32,
    unbound: u32,
}

impl WeightedRecords {
    /// Converts `mesh` with the bind pose's world transforms `bind` (one per bone).
    ///
    /// # Errors
    ///
    /// [`SkinError::Palette`] when a vertex is weighted to a bone `bind` lacks.
    pub fn new(mesh: &impl BindPoseMesh, bind: &[Affine3A]) -> Result<WeightedRecords, SkinError> {
        let inverse: Vec<Affine3A> = bind.iter().map(Affine3A::inverse).collect();
        let unbound = u32::try_from(bind.len()).unwrap_or(u32::MAX);
        let n = mesh.num_vertices();
        let mut bytes = Vec::with_capacity(n * (4 + 2 * size_of::<BoneVert<LittleEndian>>()));
        let mut records: Vec<(u32, f32, Vec3A, Vec3A)> = Vec::with_capacity(4);
        for i in 0..n {
            let Some(v) = mesh.bind_vertex(i) else { break };
            records.clear();
            let mut total = 0.0;
            for entry in weighted(&v, &inverse) {
                let (bone, m, weight) = entry?;
                records.push((
                    u32::from(bone),
                    weight,
                    m.transform_point3a(v.position),
                    m.matrix3 * v.normal,
                ));
                total += weight;
            }
            if records.is_empty() {
                records.push((unbound, 1.0, v.position, v.normal));
                total = 1.0;
            }
            push_records(
                &mut bytes,
                records.iter().map(|&(bone, weight, origin, normal)| {
                    let w = weight / total;
                    (bone, (origin * w).to_array(), w, (normal * w).to_array())
                }),
            );
        }
        Ok(WeightedRecords {
            bytes,
            num_vertices: u32::try_from(n).unwrap_or(u32::MAX),
            unbound,
        })
    }

    /// The bone index records of unbound vertices use: one past the bind pose's bones.
    #[must_use]
    pub fn unbound_bone(&self) -> u32 {
        self.unbound
    }

    /// The records as a mesh the record kernels skin (no texture coordinates or
    /// triangles: the source mesh keeps those).
    #[must_use]
    pub fn mesh(&self) -> RecordsMesh<'_> {
        RecordsMesh::written(&self.bytes, self.num_vertices)
    }
}

/// Appends one vertex to little-endian records: its count, then each
/// `(bone, origin, influence, normal)` in the layout of [`BoneVert`].
pub(crate) fn push_records(
    bytes: &mut Vec<u8>,
    records: impl ExactSizeIterator<Item = (u32, [f32; 3], f32, [f32; 3])>,
) {
    bytes.extend_from_slice(U32::<LittleEndian>::new(records.len() as u32).as_bytes());
    for (bone, origin, influence, normal) in records {
        let record = BoneVert::<LittleEndian>::new(origin, influence, normal, bone);
        bytes.extend_from_slice(record.as_bytes());
    }
}

/// Checks the outputs against the mesh's vertex count.
fn outputs(
    mesh: &impl BindPoseMesh,
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
) -> Result<usize, SkinError> {
    let need = mesh.num_vertices();
    let have = positions.len().min(normals.len());
    if have < need {
        return Err(SkinError::Output { need, have });
    }
    Ok(need)
}

/// The influences of `v` that carry weight, each with its bone, its entry of `table` (or the error
/// naming the first bone `table` lacks).
fn weighted<'t, T>(
    v: &BindVertex,
    table: &'t [T],
) -> impl Iterator<Item = Result<(u16, &'t T, f32), SkinError>> {
    v.influences
        .into_iter()
        .flatten()
        .filter(|&(_, weight)| weight > 0.0)
        .map(move |(bone, weight)| {
            table
                .get(usize::from(bone))
                .map(|entry| (bone, entry, weight))
                .ok_or(SkinError::Palette {
                    bone: u32::from(bone),
                    have: table.len(),
                })
        })
}

/// The vertices of a mesh bound wholly to one bone each
/// ([`BindPoseMesh::for_each_rigid_vertex`]) as `f(i, entry, position, normal)` with their
/// bone's entry in `table`, up to the first whose bone `table` lacks (the error). `None` for
/// a mesh that is not so bound.
fn for_each_rigid<T>(
    mesh: &impl BindPoseMesh,
    table: &[T],
    mut f: impl FnMut(usize, &T, Vec3A, Vec3A),
) -> Option<Result<(), SkinError>> {
    let mut result = Ok(());
    let rigid = mesh.for_each_rigid_vertex(|i, bone, position, normal| {
        if result.is_err() {
            return;
        }
        match table.get(usize::from(bone)) {
            Some(entry) => f(i, entry, position, normal),
            None => {
                result = Err(SkinError::Palette {
                    bone: u32::from(bone),
                    have: table.len(),
                });
            }
        }
    });
    rigid.then_some(result)
}

/// Linear blend skinning of a bind-pose mesh: `pos = Σ wᵢ Dᵢ · p / Σ wᵢ` and
/// `nrm = Σ wᵢ Rᵢ · n / Σ wᵢ` (not renormalised) with `deltas` from
/// [`Palette::relative_to`](crate::pose::Palette::relative_to). A vertex with no positive weight
/// keeps its bind position and normal.
///
/// ```
/// use skelmap_core::Parse;
/// use skelmap_core::pose::{BindPoseMesh, LocalPose, Palette};
/// use skelmap_core::skin::bind_lbs;
/// use skelmap_core::slmdl;
///
/// let (mdl, anim) = skelmap_core::synth::sl_twist(4, 8, 90.0);
/// let (mdl, anim) = (mdl.write(), anim.write());
/// let (mesh, anim) = (slmdl::Mesh::parse(&mdl)?, slmdl::Animation::parse(&anim)?);
/// let (mut pose, mut bind, mut now) = (LocalPose::default(), Palette::default(), Palette::default());
/// anim.sample(0.0, &mut pose); // frame 0: the bind pose
/// bind.build(&anim, &pose);
/// anim.sample(1.0, &mut pose);
/// now.build(&anim, &pose);
/// let mut deltas = Vec::new();
/// now.relative_to(&bind, &mut deltas);
/// let n = mesh.num_vertices();
/// let (mut positions, mut normals) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
/// bind_lbs(&mesh, &deltas, &mut positions, &mut normals)?;
/// // Vertex 0 sits at x = −1, bound to the still bone 0 only.
/// assert_eq!(positions[0], [-1.0, 1.0, 0.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`SkinError`] when a vertex names a bone `deltas` lacks or an output is short.
pub fn bind_lbs(
    mesh: &impl BindPoseMesh,
    deltas: &[Affine3A],
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), SkinError> {
    bind_lbs_with_level(mesh, deltas, SimdLevel::detect(), positions, normals)
}

/// [`bind_lbs`] at an explicit instruction-set level (a level the CPU lacks falls back to the
/// best it has below it). [`SimdLevel::Avx512`] blends sixteen vertices a step where the mesh
/// gives its vertices as arrays of four byte weights
/// ([`BindPoseMesh::four_influences`]: IQM) and `deltas` has at most 128 bones; every other
/// case, and the last vertices of a mesh whose count is not a multiple of sixteen, run plain
/// Rust. A mesh bound one bone a vertex ([`BindPoseMesh::for_each_rigid_vertex`]: Half-Life)
/// is read by its walk rather than a vertex at a time. Every level gives the same bits.
///
/// # Errors
///
/// As [`bind_lbs`].
pub fn bind_lbs_with_level(
    mesh: &impl BindPoseMesh,
    deltas: &[Affine3A],
    level: SimdLevel,
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), SkinError> {
    outputs(mesh, positions, normals)?;
    lbs(mesh, deltas, level, positions, Some(normals))
}

/// [`bind_lbs`] without normals: writes the first `mesh.num_vertices()` entries of
/// `positions`.
///
/// # Errors
///
/// [`SkinError`] when a vertex names a bone `deltas` lacks or `positions` is short.
pub fn bind_positions(
    mesh: &impl BindPoseMesh,
    deltas: &[Affine3A],
    positions: &mut [[f32; 3]],
) -> Result<(), SkinError> {
    outputs(mesh, positions, positions)?;
    lbs(mesh, deltas, SimdLevel::detect(), positions, None)
}

/// Each of `values` moved by the transform in `world` of its bone (`bones[i]` for
/// `values[i]`) into `out`: as glam's `Affine3A::transform_point3a` where `points`, else
/// `transform_vector3a` (no translation), the same bits. Returns how many it wrote, from the
/// first: whole blocks of sixteen where the CPU has AVX-512 and `world` has at most 128
/// bones, up to a block naming a bone `world` lacks; the caller moves the rest.
pub(crate) fn move_rigid(
    values: &[[F32<LittleEndian>; 3]],
    bones: &[u8],
    world: &[Affine3A],
    points: bool,
    out: &mut [[f32; 3]],
) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        x86::try_rigid_avx512(values, bones, world, points, out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (values, bones, world, points, out);
        0
    }
}

/// Linear blend of the first `min(positions.len(), vertices)` vertices (and their normals,
/// when asked for): from the mesh's arrays where it gives them
/// ([`BindPoseMesh::four_influences`]), the same sums in the same order.
fn lbs(
    mesh: &impl BindPoseMesh,
    deltas: &[Affine3A],
    level: SimdLevel,
    positions: &mut [[f32; 3]],
    mut normals: Option<&mut [[f32; 3]]>,
) -> Result<(), SkinError> {
    if let Some(arrays) = mesh.four_influences() {
        return lbs_four(arrays, deltas, level, positions, normals);
    }
    let rigid = for_each_rigid(mesh, deltas, |i, m, position, normal| {
        let mut sum = Lbs::default();
        sum.add(m, 1.0, position, normal);
        let (p, n) = sum.finish(position, normal);
        if let Some(slot) = positions.get_mut(i) {
            *slot = p.to_array();
        }
        if let Some(slot) = normals.as_deref_mut().and_then(|out| out.get_mut(i)) {
            *slot = n.to_array();
        }
    });
    if let Some(result) = rigid {
        return result;
    }
    for (i, pos) in positions.iter_mut().enumerate().take(mesh.num_vertices()) {
        let Some(v) = mesh.bind_vertex(i) else { break };
        let mut sum = Lbs::default();
        for entry in weighted(&v, deltas) {
            let (_, m, weight) = entry?;
            sum.add(m, weight, v.position, v.normal);
        }
        let (p, n) = sum.finish(v.position, v.normal);
        *pos = p.to_array();
        if let Some(slot) = normals.as_deref_mut().and_then(|out| out.get_mut(i)) {
            *slot = n.to_array();
        }
    }
    Ok(())
}

/// [`lbs`] over [`FourInfluences`]' arrays: each vertex as its [`BindVertex`] reads; at
/// AVX-512, the whole blocks of sixteen first.
fn lbs_four(
    arrays: FourInfluences<'_>,
    deltas: &[Affine3A],
    level: SimdLevel,
    positions: &mut [[f32; 3]],
    mut normals: Option<&mut [[f32; 3]]>,
) -> Result<(), SkinError> {
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if level >= SimdLevel::Avx512 {
        let normals = normals.as_deref_mut();
        done = x86::try_lbs_four_avx512(arrays, deltas, positions, normals).unwrap_or(0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = level;
    let vec = |v: &[F32<LittleEndian>; 3]| Vec3A::new(v[0].get(), v[1].get(), v[2].get());
    let delta = |bone: u8| {
        deltas.get(usize::from(bone)).ok_or(SkinError::Palette {
            bone: u32::from(bone),
            have: deltas.len(),
        })
    };
    let bound = arrays.indexes.iter().zip(arrays.weights);
    let vertices = positions.iter_mut().zip(arrays.positions).zip(bound);
    for (i, ((pos, stored), (indexes, weights))) in vertices.enumerate().skip(done) {
        let position = vec(stored);
        let normal = arrays
            .normals
            .and_then(|n| n.get(i))
            .map_or(Vec3A::ZERO, vec);
        let mut sum = Lbs::default();
        if *weights == [0; 4] {
            sum.add(delta(indexes[0])?, 1.0, position, normal);
        } else {
            for (&bone, &weight) in indexes.iter().zip(weights) {
                if weight != 0 {
                    sum.add(delta(bone)?, f32::from(weight) / 255.0, position, normal);
                }
            }
        }
        let (p, n) = sum.finish(position, normal);
        *pos = p.to_array();
        if let Some(slot) = normals.as_deref_mut().and_then(|out| out.get_mut(i)) {
            *slot = n.to_array();
        }
    }
    Ok(())
}

/// One vertex's linear blend, summed influence by influence.
#[derive(Default)]
struct Lbs {
    position: Vec3A,
    normal: Vec3A,
    total: f32,
}

impl Lbs {
    /// Adds bone matrix `m` at `weight` (> 0) to the blend of `position` and `normal`.
    #[inline(always)]
    fn add(&mut self, m: &Affine3A, weight: f32, position: Vec3A, normal: Vec3A) {
        self.position += weight * m.transform_point3a(position);
        self.normal += weight * m.transform_vector3a(normal);
        self.total += weight;
    }

    /// The blend divided by the total weight; the vertex as stored without one. A total of
    /// exactly 1 (most vertices of byte weights) leaves the sums as they are, which is what
    /// dividing by it gives, without the two divisions.
    #[inline(always)]
    fn finish(self, position: Vec3A, normal: Vec3A) -> (Vec3A, Vec3A) {
        if self.total == 1.0 {
            (self.position, self.normal)
        } else if self.total > 0.0 {
            (self.position / self.total, self.normal / self.total)
        } else {
            (position, normal)
        }
    }
}

/// Dual-quaternion skinning of a bind-pose mesh: the vertex's weighted `deltas` (from
/// [`dqs::deltas`](super::dqs::deltas) of the current and bind palettes) are summed in the
/// hemisphere of the first, normalised, and applied to the bind position; the normal is
/// rotated by the blend. A vertex with no positive weight keeps its bind position and normal;
/// one with a single influence moves exactly as [`bind_lbs`] moves it.
///
/// # Errors
///
/// [`SkinError`] when a vertex names a bone `deltas` lacks or an output is short.
pub fn bind_dqs(
    mesh: &impl BindPoseMesh,
    deltas: &[DualQuat],
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) -> Result<(), SkinError> {
    let need = outputs(mesh, positions, normals)?;
    let rigid = for_each_rigid(mesh, deltas, |i, d, position, normal| {
        let mut blend = Blend::default();
        blend.add(d, 1.0);
        let blended = blend.finish();
        if let (Some(pos), Some(nrm)) = (positions.get_mut(i), normals.get_mut(i)) {
            *pos = blended.transform_point(position).to_array();
            *nrm = Vec3A::from(blended.real * Vec3::from(normal)).to_array();
        }
    });
    if let Some(result) = rigid {
        return result;
    }
    for (i, (pos, nrm)) in positions.iter_mut().zip(normals).enumerate().take(need) {
        let Some(v) = mesh.bind_vertex(i) else { break };
        let mut blend = Blend::default();
        for entry in weighted(&v, deltas) {
            let (_, d, weight) = entry?;
            blend.add(d, weight);
        }
        let blended = blend.finish();
        *pos = blended.transform_point(v.position).to_array();
        *nrm = Vec3A::from(blended.real * Vec3::from(v.normal)).to_array();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use glam::{Affine3A, Quat, Vec3, Vec3A};
    use zerocopy::byteorder::{F32, LittleEndian};

    use super::move_rigid;

    /// Whether `move_rigid` has its AVX-512 blocks on this CPU.
    fn avx512() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            is_x86_feature_detected!("avx512f")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// `n` transforms with scale, rotation and translation from a sequence.
    fn world(n: usize) -> Vec<Affine3A> {
        (0..n)
            .map(|b| {
                let b = b as f32;
                Affine3A::from_scale_rotation_translation(
                    Vec3::new(1.0 + 0.01 * b, 0.9, 1.1),
                    Quat::from_axis_angle(Vec3::new(1.0, b, 2.0).normalize(), 0.37 * b),
                    Vec3::new(b, -2.0 * b, 0.5),
                )
            })
            .collect()
    }

    /// What `move_rigid` writes is glam's `transform_point3a` or `transform_vector3a` of each
    /// value, bit for bit, for palettes of every look-up width (1 to 128 bones) and counts
    /// around the blocks of sixteen; it writes whole blocks only (the rest is the caller's),
    /// stops at a block naming a bone the palette lacks, and writes nothing above 128 bones.
    #[test]
    fn moved_values_are_glams_transforms() {
        for bones in [1, 3, 16, 17, 32, 33, 64, 65, 128, 129] {
            let world = world(bones);
            for n in [0, 1, 15, 16, 17, 40, 48] {
                let values: Vec<[F32<LittleEndian>; 3]> = (0..n)
                    .map(|i| {
                        let i = i as f32;
                        [
                            F32::new(i * 0.25 - 3.0),
                            F32::new(1.5 - i),
                            F32::new(i * i * 0.01),
                        ]
                    })
                    .collect();
                let index: Vec<u8> = (0..n).map(|i| ((i * 7 + 3) % bones) as u8).collect();
                for points in [true, false] {
                    let mut out = vec![[f32::NAN; 3]; n];
                    let done = move_rigid(&values, &index, &world, points, &mut out);
                    let expected = if avx512() && bones <= 128 {
                        n - n % 16
                    } else {
                        0
                    };
                    assert_eq!(done, expected, "{bones} bones, {n} values");
                    for (i, got) in out.iter().enumerate() {
                        let m = world[usize::from(index[i])];
                        let v = Vec3A::from_array(values[i].map(|c| c.get()));
                        let want = if points {
                            m.transform_point3a(v)
                        } else {
                            m.transform_vector3a(v)
                        };
                        if i < done {
                            let bits = |a: [f32; 3]| a.map(f32::to_bits);
                            assert_eq!(bits(*got), bits(want.to_array()), "{bones}/{n}/{i}");
                        } else {
                            assert!(got.iter().all(|c| c.is_nan()), "{bones}/{n}/{i}");
                        }
                    }
                }
                // A bone past the palette in the second block: only the first is written.
                if n >= 32 {
                    let mut stray = index.clone();
                    stray[20] = bones.min(255) as u8;
                    let mut out = vec![[0.0; 3]; n];
                    let done = move_rigid(&values, &stray, &world, true, &mut out);
                    let expected = if avx512() && bones <= 128 { 16 } else { 0 };
                    assert_eq!(done, expected, "{bones} bones, {n} values, a stray bone");
                }
            }
        }
    }
}
