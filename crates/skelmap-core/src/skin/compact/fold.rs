//! Folding a mesh into the compact layout ([`CompactMesh::new`]): measure how far each
//! vertex's influences disagree under the reference pose, decide which vertices fold, lay the
//! folded ones out in blocks of 16 lanes (quantised position and normal, bone and weight rows,
//! rows of few bones stored as lane masks), and keep the others as records for the exact path.

use glam::{Affine3A, Vec3A};

use super::{
    Block, CompactMesh, FEW, FOLD_TOLERANCE, FewBones, NORMAL_ONE, NORMAL_TOLERANCE, WEIGHT_ONE,
};
use crate::pose::{BindPoseMesh, SkeletalMesh};
use crate::skin::SkinError;
use crate::skin::bind::push_records;
use crate::skin::blocks::LANES;
use crate::skin::prepared::{CHUNK_VERTICES, PreparedMesh};
use crate::skin::records::RecordsMesh;

/// Quantisation steps of a position axis over the folded vertices' bounds.
const POSITION_STEPS: f32 = 65535.0;

/// One vertex measured at prepare time.
#[derive(Clone, Copy)]
struct Measured {
    /// The folded bind-space point (the reference-pose position over the weight sum).
    point: Vec3A,
    /// The reference-pose normal (the weighted sum).
    normal: Vec3A,
    /// Weighted disagreement of the influences' points, and of their normals.
    spread: f32,
    turn: f32,
    /// The vertex's contributing influences in the shared list.
    first: usize,
    count: usize,
    /// Weights positive, their sum in `(0, 1.99)`, everything finite.
    valid: bool,
}

/// Every vertex of a mesh measured: the vertices, their contributing influences `(bone,
/// weight)` in one list, and one past the largest bone any record names.
struct Measures {
    vertices: Vec<Measured>,
    influences: Vec<(u32, f32)>,
    bone_limit: u32,
}

/// Which vertices fold: valid ones whose influences' points lie within [`FOLD_TOLERANCE`] of
/// the mesh's size of each other, and (when the mesh has normals) whose normals agree within
/// [`NORMAL_TOLERANCE`].
struct FoldRule {
    normals: bool,
    size: f32,
    /// Every vertex folds (a bind-pose mesh, whose vertices are one point each already).
    every: bool,
}

impl FoldRule {
    fn of(measured: &[Measured]) -> FoldRule {
        let normals = measured.iter().any(|m| m.normal != Vec3A::ZERO);
        let (lo, hi) = bounds(measured.iter().filter(|m| m.valid).map(|m| m.point));
        FoldRule {
            normals,
            size: (hi - lo).length(),
            every: false,
        }
    }

    fn folds(&self, m: &Measured) -> bool {
        if self.every {
            return true;
        }
        let normal_folds = if self.normals {
            let length = m.normal.length();
            length > 0.0 && m.turn <= NORMAL_TOLERANCE * length
        } else {
            true
        };
        m.valid && m.spread <= FOLD_TOLERANCE * self.size && normal_folds
    }
}

/// One block's lanes laid out: quantised positions and normals, and `k` rows of bones,
/// weights and presence (row `j` holds every lane's `j`-th influence).
struct BlockRows {
    k: usize,
    position: [u16; 3 * LANES],
    normal: [i16; 3 * LANES],
    bones: Vec<u16>,
    weights: Vec<u16>,
    present: Vec<bool>,
}

impl CompactMesh {
    /// Folds `mesh` under `reference`, the world transform of each bone in the pose the mesh
    /// was stored against (an explicit, allocating copy: about 20 bytes per vertex, plus the
    /// records of the vertices that do not fold).
    ///
    /// # Errors
    ///
    /// [`SkinError::Palette`] when a record names a bone `reference` lacks.
    pub fn new<'data, M: SkeletalMesh<'data>>(
        mesh: &M,
        reference: &[Affine3A],
    ) -> Result<CompactMesh, SkinError> {
        let measures = measure(mesh, reference)?;
        let rule = FoldRule::of(&measures.vertices);
        let (mut compact, exact) = CompactMesh::lay_out_blocks(&measures, &rule, reference);
        compact.keep_exact(mesh, reference, exact);
        Ok(compact)
    }

    /// Lays out `mesh`, stored in the bind pose whose world transforms are `bind` (IQM, PSK,
    /// ZYM, Half-Life, MDL7, MS3D, SL), straight from its vertices: each vertex is already one
    /// bind-space point with up to [`MAX_BIND_INFLUENCES`](crate::pose::MAX_BIND_INFLUENCES)
    /// weighted bones, so nothing is folded, no tolerance applies and every vertex
    /// takes the blocks. Weights are normalised to their sum, as the bind-pose blend does; a
    /// vertex without weight follows an identity bone appended after `bind`'s (its matrix
    /// comes from `world · reference⁻¹` with the identity in both).
    ///
    /// # Errors
    ///
    /// [`SkinError::Palette`] when a vertex is weighted to a bone `bind` lacks.
    pub fn from_bind_pose(
        mesh: &impl BindPoseMesh,
        bind: &[Affine3A],
    ) -> Result<CompactMesh, SkinError> {
        let mut reference = bind.to_vec();
        reference.push(Affine3A::IDENTITY);
        let measures = measure_bind(mesh, bind.len())?;
        let rule = FoldRule {
            every: true,
            ..FoldRule::of(&measures.vertices)
        };
        // `every` folds every vertex, and only a vertex that does not fold is left for the
        // exact path: there are no records to keep.
        let (compact, _) = CompactMesh::lay_out_blocks(&measures, &rule, &reference);
        Ok(compact)
    }

    /// The blocks of `measures` under `rule`, and the vertices left for the exact path: in
    /// file order, or in [`grouped_order`] where that saves more rows looked up lane by lane
    /// (a mesh whose neighbouring vertices bind different bones, as a vertex-cache order
    /// leaves a character) than copying the blocks into file order costs.
    fn lay_out_blocks(
        measures: &Measures,
        rule: &FoldRule,
        reference: &[Affine3A],
    ) -> (CompactMesh, Vec<u32>) {
        let file = CompactMesh::lay_out_in(measures, None, rule, reference);
        let Some(order) = grouped_order(measures, rule) else {
            return file;
        };
        let grouped = CompactMesh::lay_out_in(measures, Some(order), rule, reference);
        let looked_up = |c: &CompactMesh| {
            let (all, few) = c.rows();
            all - few
        };
        // A row looked up lane by lane costs about as much as a block copied into file order
        // (the `compact avx512` and `compact avx512 prepared order` lines of `skelmap bench`
        // on `synth::iqm_character`, whose file order looks up every row, and on golem, whose
        // file order leaves a few such rows); grouping is kept from two thirds of a row saved
        // a block, where the two are within that estimate's reach of each other.
        let saved = looked_up(&file.0).saturating_sub(looked_up(&grouped.0));
        if saved * 3 > file.0.blocks.len() * 2 {
            grouped
        } else {
            file
        }
    }

    /// The blocks of `measures` taken in `order` (file order for `None`), and the vertices
    /// left for the exact path, ascending.
    fn lay_out_in(
        measures: &Measures,
        order: Option<Vec<u32>>,
        rule: &FoldRule,
        reference: &[Affine3A],
    ) -> (CompactMesh, Vec<u32>) {
        let Measures {
            vertices: measured,
            influences,
            bone_limit,
        } = measures;
        let (mut influences, bone_limit) = (influences.clone(), *bone_limit);
        let (lo, hi) = bounds(measured.iter().filter(|m| rule.folds(m)).map(|m| m.point));
        let step = ((hi - lo) / POSITION_STEPS).to_array();
        let wide = bone_limit > 256;
        // A row of few bones costs twelve multiply-adds per bone against twelve look-ups and
        // twelve multiply-adds for any row: worth it for up to two bones when look-ups are one
        // permute (palettes of up to 32 bones), up to four above.
        let few_limit = if bone_limit <= 32 { 2 } else { FEW };
        let mut compact = CompactMesh {
            num_vertices: measured.len(),
            bone_limit,
            // Every bone of the pose, not only the mesh's: one set of matrices then serves
            // every mesh of a model.
            inverse_reference: reference.iter().map(Affine3A::inverse).collect(),
            origin: lo.to_array(),
            step,
            normals: rule.normals,
            wide,
            ..CompactMesh::default()
        };
        let index = |i: usize| order.as_ref().map_or(i as u32, |o| o[i]);
        let mut exact = Vec::new();
        let mut slot = 0u32;
        let mut lanes = Vec::with_capacity(LANES);
        for first in (0..measured.len()).step_by(LANES) {
            lanes.clear();
            let end = (first + LANES).min(measured.len());
            lanes.extend((first..end).map(|i| measured[index(i) as usize]));
            let rows = lay_out(&lanes, &mut influences, rule, (lo, step), |lane| {
                exact.push(index(first + lane));
            });
            let few = compact.push_bone_rows(&rows, few_limit);
            compact.blocks.push(Block {
                slot,
                k: rows.k as u32,
                few,
            });
            slot += rows.k as u32;
            compact.position.extend_from_slice(&rows.position);
            compact.normal.extend_from_slice(&rows.normal);
            compact.weights.extend_from_slice(&rows.weights);
        }
        exact.sort_unstable();
        compact.order = order.unwrap_or_default();
        if !compact.order.is_empty() {
            compact.place = vec![0; compact.order.len()];
            for (lane, &vertex) in compact.order.iter().enumerate() {
                if let Some(place) = compact.place.get_mut(vertex as usize) {
                    // Vertices move within their run, so the lane is in the vertex's run.
                    *place = (lane % CHUNK_VERTICES) as u16;
                }
            }
        }
        (compact, exact)
    }

    /// Appends the bone rows of a block: a row naming `1..=few_limit` distinct bones (among
    /// the first 32) as a [`FewBones`] record, padded to the row's size, any other one bone
    /// per lane (one byte each, two when `wide`); returns the mask of rows stored as few.
    fn push_bone_rows(&mut self, rows: &BlockRows, few_limit: usize) -> u32 {
        let width = if self.wide { 2 } else { 1 };
        let mut few = 0u32;
        for j in 0..rows.k {
            let row = j * LANES..(j + 1) * LANES;
            let mut record = FewBones::default();
            let mut distinct = 0;
            for (lane, (&bone, _)) in rows.bones[row.clone()]
                .iter()
                .zip(&rows.present[row.clone()])
                .enumerate()
                .filter(|(_, (_, p))| **p)
            {
                let known = record.bones.get(..distinct).unwrap_or(&record.bones);
                let at = known.iter().position(|&b| b == bone);
                let at = at.unwrap_or_else(|| {
                    distinct += 1;
                    distinct - 1
                });
                if let (Some(b), Some(m)) = (record.bones.get_mut(at), record.masks.get_mut(at)) {
                    *b = bone;
                    *m |= 1 << lane;
                }
            }
            if j < 32 && (1..=few_limit).contains(&distinct) {
                few |= 1 << j;
                for v in record.bones.iter().chain(&record.masks) {
                    self.bones.extend_from_slice(&v.to_le_bytes());
                }
                self.bones
                    .extend(core::iter::repeat_n(0, LANES * width - FewBones::SIZE));
            } else {
                for &bone in &rows.bones[row] {
                    if self.wide {
                        self.bones.extend_from_slice(&bone.to_le_bytes());
                    } else {
                        self.bones.push(bone as u8);
                    }
                }
            }
        }
        few
    }

    /// Keeps the vertices `indices` (ascending) as records in reference space, for the exact
    /// path.
    fn keep_exact<'data, M: SkeletalMesh<'data>>(
        &mut self,
        mesh: &M,
        reference: &[Affine3A],
        indices: Vec<u32>,
    ) {
        if indices.is_empty() {
            return;
        }
        let mut bytes = Vec::new();
        let mut wanted = indices.iter().peekable();
        for (i, records) in mesh.vertices().enumerate() {
            if wanted.next_if(|&&w| w as usize == i).is_none() {
                continue;
            }
            // Every bone was found in `reference` by `new`.
            push_records(
                &mut bytes,
                records.iter().map(|r| {
                    let b = reference
                        .get(r.bonenum() as usize)
                        .copied()
                        .unwrap_or_default();
                    let w = r.influence();
                    let origin = b.matrix3 * Vec3A::from(r.origin()) + b.translation * w;
                    let normal = b.matrix3 * Vec3A::from(r.normal());
                    (r.bonenum(), origin.to_array(), w, normal.to_array())
                }),
            );
        }
        let records = RecordsMesh::<zerocopy::LittleEndian>::written(&bytes, indices.len() as u32);
        self.exact = PreparedMesh::new(&records);
        if !self.order.is_empty() {
            let mut lane = vec![0u32; self.num_vertices];
            for (at, &vertex) in self.order.iter().enumerate() {
                if let Some(slot) = lane.get_mut(vertex as usize) {
                    *slot = at as u32;
                }
            }
            self.exact_lane = indices
                .iter()
                .map(|&v| lane.get(v as usize).copied().unwrap_or(v))
                .collect();
        }
        self.exact_index = indices;
        self.exact_records = bytes;
    }
}

/// Every vertex of `mesh` under `reference`: its folded point and normal, how far its
/// influences disagree, and its contributing influences.
fn measure<'data, M: SkeletalMesh<'data>>(
    mesh: &M,
    reference: &[Affine3A],
) -> Result<Measures, SkinError> {
    let n = mesh.num_vertices();
    let mut measured = Vec::with_capacity(n);
    let mut influences: Vec<(u32, f32)> = Vec::with_capacity(n.saturating_mul(3));
    let mut parts = Vec::new();
    let mut bone_limit = 0u32;
    for records in mesh.vertices() {
        parts.clear();
        let (mut p, mut nrm, mut total) = (Vec3A::ZERO, Vec3A::ZERO, 0.0f32);
        for r in records {
            let bone = r.bonenum();
            let b = reference.get(bone as usize).ok_or(SkinError::Palette {
                bone,
                have: reference.len(),
            })?;
            bone_limit = bone_limit.max(bone.saturating_add(1));
            let w = r.influence();
            // The record's point and normal in the reference pose, times its weight.
            let wp = b.matrix3 * Vec3A::from(r.origin()) + b.translation * w;
            let wn = b.matrix3 * Vec3A::from(r.normal());
            (p, nrm, total) = (p + wp, nrm + wn, total + w);
            parts.push((bone, w, wp, wn));
        }
        let mut valid = total > 1e-6 && total < 1.99 && p.is_finite() && nrm.is_finite();
        let (point, direction) = if valid {
            (p / total, nrm / total)
        } else {
            (p, nrm)
        };
        let (mut spread, mut turn) = (0.0f32, 0.0f32);
        let first = influences.len();
        for &(bone, w, wp, wn) in &parts {
            if w == 0.0 {
                // Without weight a record still adds its rotated origin and normal.
                spread += wp.length();
                turn += wn.length();
                continue;
            }
            valid &= w > 0.0;
            spread += (wp - w * point).length();
            turn += (wn - w * direction).length();
            influences.push((bone, w));
        }
        measured.push(Measured {
            point,
            normal: nrm,
            spread,
            turn,
            first,
            count: influences.len() - first,
            valid: valid && spread.is_finite() && turn.is_finite(),
        });
    }
    Ok(Measures {
        vertices: measured,
        influences,
        bone_limit,
    })
}

/// Every vertex of a bind-pose mesh: its bind position and normal, and its positive weights
/// normalised to their sum (a vertex without one on the identity bone `unbound`).
fn measure_bind(mesh: &impl BindPoseMesh, unbound: usize) -> Result<Measures, SkinError> {
    let n = mesh.num_vertices();
    let mut measured = Vec::with_capacity(n);
    let mut influences: Vec<(u32, f32)> = Vec::with_capacity(n.saturating_mul(2));
    let unbound = u32::try_from(unbound).unwrap_or(u32::MAX);
    let mut bone_limit = 0u32;
    for i in 0..n {
        let Some(v) = mesh.bind_vertex(i) else { break };
        let first = influences.len();
        let used = v.influences.iter().flatten().filter(|&&(_, w)| w > 0.0);
        let total: f32 = used.clone().map(|&(_, w)| w).sum();
        for &(bone, w) in used {
            let bone = u32::from(bone);
            if bone >= unbound {
                return Err(SkinError::Palette {
                    bone,
                    have: unbound as usize,
                });
            }
            influences.push((bone, w / total));
        }
        if influences.len() == first {
            influences.push((unbound, 1.0));
        }
        for &(bone, _) in influences.get(first..).unwrap_or_default() {
            bone_limit = bone_limit.max(bone + 1);
        }
        measured.push(Measured {
            point: v.position,
            normal: v.normal,
            spread: 0.0,
            turn: 0.0,
            first,
            count: influences.len() - first,
            valid: true,
        });
    }
    Ok(Measures {
        vertices: measured,
        influences,
        bone_limit,
    })
}

/// Lays out one block's `lanes`: each folding lane's position quantised against
/// `(origin, step)`, its normal as fractions, its influences sorted so that the bones most
/// lanes share line up row by row (the first one stays first) and their weights quantised;
/// `exact(lane)` is called for each lane that does not fold.
fn lay_out(
    lanes: &[Measured],
    influences: &mut [(u32, f32)],
    rule: &FoldRule,
    (lo, step): (Vec3A, [f32; 3]),
    mut exact: impl FnMut(usize),
) -> BlockRows {
    let k = lanes
        .iter()
        .filter(|m| rule.folds(m))
        .map(|m| m.count)
        .max()
        .unwrap_or(0);
    let mut rows = BlockRows {
        k,
        position: [0u16; 3 * LANES],
        normal: [0i16; 3 * LANES],
        bones: vec![0u16; k * LANES],
        weights: vec![0u16; k * LANES],
        present: vec![false; k * LANES],
    };
    // How many of the block's lanes each bone binds: every lane lists the bones most lanes
    // share first, so that they line up row by row.
    let mut shared: Vec<(u32, usize)> = Vec::new();
    for m in lanes.iter().filter(|m| rule.folds(m)) {
        for &(bone, _) in influences
            .get(m.first..m.first + m.count)
            .unwrap_or_default()
        {
            match shared.iter_mut().find(|(b, _)| *b == bone) {
                Some((_, n)) => *n += 1,
                None => shared.push((bone, 1)),
            }
        }
    }
    let lanes_of = |bone: u32| shared.iter().find(|(b, _)| *b == bone).map_or(0, |s| s.1);
    for (lane, m) in lanes.iter().enumerate() {
        if !rule.folds(m) {
            exact(lane);
            continue;
        }
        for axis in 0..3 {
            let q = (m.point[axis] - lo[axis]) / step[axis];
            rows.position[axis * LANES + lane] = if q.is_finite() {
                q.round().clamp(0.0, POSITION_STEPS) as u16
            } else {
                0
            };
        }
        for (axis, q) in snorm_direction(m.normal).into_iter().enumerate() {
            rows.normal[axis * LANES + lane] = q;
        }
        let mine = influences
            .get_mut(m.first..m.first + m.count)
            .unwrap_or_default();
        // The first influence stays first: the dual-quaternion blend takes the others in its
        // hemisphere, as the records' order does.
        if let Some((_, rest)) = mine.split_first_mut() {
            rest.sort_by_key(|&(bone, _)| (core::cmp::Reverse(lanes_of(bone)), bone));
        }
        for (j, (q, &(bone, _))) in quantise(mine).into_iter().zip(&*mine).enumerate() {
            rows.bones[j * LANES + lane] = bone as u16;
            rows.weights[j * LANES + lane] = q;
            rows.present[j * LANES + lane] = true;
        }
    }
    rows
}

/// The vertices in an order that puts vertices binding the same bones side by side: within
/// each run of [`CHUNK_VERTICES`] (so that a run of blocks skinned on one thread writes only
/// its own vertices), folded vertices first, by their first bone, then by their other bones
/// in ascending order; `None` where that is file order.
fn grouped_order(measures: &Measures, rule: &FoldRule) -> Option<Vec<u32>> {
    let mut order: Vec<u32> = (0..measures.vertices.len() as u32).collect();
    let key = |&i: &u32| {
        let m = &measures.vertices[i as usize];
        let mine = measures
            .influences
            .get(m.first..m.first + m.count)
            .unwrap_or_default();
        let mut rest = [u32::MAX; 7];
        for (r, &(bone, _)) in rest.iter_mut().zip(mine.iter().skip(1)) {
            *r = bone;
        }
        rest.sort_unstable();
        (!rule.folds(m), mine.first().map_or(u32::MAX, |b| b.0), rest)
    };
    for run in order.chunks_mut(CHUNK_VERTICES) {
        run.sort_by_cached_key(key);
    }
    let moved = order.iter().enumerate().any(|(i, &v)| i as u32 != v);
    moved.then_some(order)
}

/// Bounds of `points` (zero for none).
fn bounds(points: impl Iterator<Item = Vec3A>) -> (Vec3A, Vec3A) {
    let (lo, hi) = points.fold(
        (Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(p), hi.max(p)),
    );
    if lo.cmple(hi).all() {
        (lo, hi)
    } else {
        (Vec3A::ZERO, Vec3A::ZERO)
    }
}

/// `influences`' weights in units of 1 / [`WEIGHT_ONE`], rounded so that they sum to their
/// stored sum rounded (the difference goes to the largest).
fn quantise(influences: &[(u32, f32)]) -> Vec<u16> {
    let q = |w: f32| (w * WEIGHT_ONE).round() as i32;
    let mut out: Vec<i32> = influences.iter().map(|&(_, w)| q(w)).collect();
    let target = q(influences.iter().map(|&(_, w)| w).sum());
    let diff = target - out.iter().sum::<i32>();
    if let Some(largest) = out.iter_mut().max() {
        *largest += diff;
    }
    out.into_iter()
        .map(|v| v.clamp(0, i32::from(u16::MAX)) as u16)
        .collect()
}

/// `n`'s direction as three signed fractions of [`NORMAL_ONE`] (zero for no direction).
fn snorm_direction(n: Vec3A) -> [i16; 3] {
    let length = n.length();
    if !(length > 0.0 && length.is_finite()) {
        return [0; 3];
    }
    (n / length)
        .to_array()
        .map(|c| (c.clamp(-1.0, 1.0) * NORMAL_ONE).round() as i16)
}
