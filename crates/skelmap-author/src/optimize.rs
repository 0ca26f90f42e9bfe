//! The saver's optimisations: what an [`Asset`] should go through before a writer turns it
//! into a file for an engine to draw.
//!
//! [`optimize`] changes the asset in place and returns a [`Report`] of what it did:
//!
//! 1. **Influences.** Influences at or below [`Options::min_weight`] are dropped (with the
//!    default 0, only zero, negative and non-finite weights). A vertex that loses a positive
//!    weight gets its remaining ones scaled back to a sum of 1 ([`Influences::push`]); a vertex
//!    whose every influence is at or below the threshold keeps its strongest one, bound wholly
//!    to it, rather than becoming unskinned.
//! 2. **Vertices no triangle references** are dropped.
//! 3. **Bones no remaining vertex uses** (no influence with a weight above 0 after step 1, on a
//!    vertex a triangle references) are dropped, unless they are attachments
//!    ([`Skeleton::attachments`], or named `tag_…`: [`TAG_PREFIX`]), named in
//!    [`Options::keep`] (exact, case-sensitive match; a
//!    name that is no bone is listed in [`Report::unknown_keep`]), or ancestors of a kept bone.
//!    An asset none of whose meshes carries influences (an animation-only file such as an
//!    IQM of clips alone, or unskinned meshes beside a skeleton) keeps every bone: its
//!    skeleton serves meshes elsewhere, whose needs cannot be told. The survivors keep their relative order (a parent listed after its child, possible in a
//!    hand-built asset, is moved just before it), their parent-relative transforms and their
//!    [`Joint::world`](skelmap_core::asset::Joint::world); every influence, the attachments and
//!    every clip's per-joint keys are renumbered, the dropped joints' keys removed.
//! 4. **Duplicate vertices are merged** ([`Options::merge`]): two vertices of one mesh are the
//!    same when the bit patterns of their position, normal, texture coordinate, colour,
//!    influences (joints and weights, in order) and every morph target's position and normal
//!    displacement are equal. Bits, not values: `-0.0` and `0.0` stay apart, and nothing that
//!    any frame could tell apart is ever merged.
//! 5. **Triangles and vertices are ordered** ([`Options::reorder`]) with meshoptimizer (the
//!    `meshopt` crate): triangles for the post-transform vertex cache
//!    (`optimize_vertex_cache`, kept only when it does not make the measured cache miss rate
//!    worse than the input order), then vertices in the order the triangles first use them,
//!    for the pre-transform fetch cache (`optimize_vertex_fetch_remap`). The same permutation
//!    is applied to every per-vertex array: positions, normals, texture coordinates, colours,
//!    influences and every morph target's displacements.
//!
//! Steps 2, 4 and 5 work per [`Mesh`]; each mesh stays one mesh (none is dropped, split or
//! joined), in its place, so materials and mesh names keep their meaning. A mesh whose arrays
//! disagree with each other (a per-vertex array of another length than the positions, a
//! triangle naming a vertex that does not exist, influences whose offsets are not
//! `vertices + 1` ascending values) cannot be remapped safely: it is left as it is, but for
//! its influences' joint numbers, and named in [`Report::skipped_meshes`].
//!
//! # The cache figures
//!
//! [`Report`] measures the post-transform cache with meshoptimizer's FIFO model
//! (`analyze_vertex_cache`) of [`CACHE_SIZE`] = 16 entries, without warp or primitive-group
//! flushes. ACMR is the vertices transformed per triangle (0.5 is the ideal of a large
//! regular grid, 3 the worst); ATVR the vertices transformed per vertex referenced (1 is the
//! ideal). 16 is the largest cache meshoptimizer's cache optimiser models (`kCacheSizeMax`
//! in its `vcacheoptimizer.cpp`), so the figures measure the order against the cache it was
//! made for; a small cache is also the cautious choice, since GPUs with larger post-transform
//! caches generally hit more, not less. The figures are a model: real GPUs batch vertices
//! differently. The asset's figures are each mesh's weighted by its triangles (ATVR too, so
//! that both say how a drawn triangle fares), over the meshes that have triangles and were
//! not skipped.
//!
//! # Why indexed triangle lists and no strips
//!
//! Nothing here produces triangle strips, though meshoptimizer can. Every format skelmap
//! writes, and every engine that reads them, draws indexed triangle lists; a strip would have
//! to be unrolled into a list again on the way to the file. And on a GPU with a
//! post-transform cache a strip buys little: its saving is in the index count (about one index
//! per triangle instead of three), while the cost that matters is the vertex work, which
//! depends only on the order vertices are referenced in. Any order a strip walks, a list can
//! walk too, so the best list is never worse than the best strip; and a list is free to leave
//! the strip's path, which is why cache-ordered lists usually transform fewer vertices than
//! stripified meshes. Strips also have to be joined by restart indices or degenerate
//! triangles, which a list does not need, and a strip cannot lose, gain or reorder a triangle
//! without being rebuilt. What a strip saves in indices is small next to the vertex data.
//!
//! # Example
//!
//! ```
//! use skelmap_author::optimize::{Options, optimize};
//! use skelmap_core::{Model, asset, synth};
//!
//! let bytes = synth::tube(&Default::default()).write()?;
//! let model = Model::from_bytes(&bytes)?;
//! let mut built = model.to_asset(&asset::Options::default())?;
//! let report = optimize(&mut built, &Options::default());
//! assert_eq!((report.before.vertices, report.after.vertices), (136, 136));
//! assert!(report.after.acmr <= report.before.acmr);
//! println!("{report}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;

use skelmap_core::asset::{Asset, ClipKeys, Influences, Mesh, Skeleton, UNBOUND};

/// Entries of the FIFO post-transform cache the [`Report`]'s ACMR and ATVR are measured with
/// (see the [module docs](self#the-cache-figures) for why 16).
pub const CACHE_SIZE: u32 = 16;

/// Bones named with this prefix (ASCII case ignored) are attachment points by the Quake III
/// and DarkPlaces convention (QuakeC finds them by name with `gettaginfo`): [`optimize`]
/// always keeps them ([`Skeleton::attachment_points`]).
pub use skelmap_core::asset::TAG_PREFIX;

/// What [`optimize`] does beyond the steps it always takes (dropping unused bones, unused
/// vertices and zero-weight influences).
///
/// ```
/// use skelmap_author::optimize::Options;
/// let options = Options { keep: vec!["tag_weapon".into()], ..Options::default() };
/// assert!(options.merge && options.reorder && options.min_weight == 0.0);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Bone names kept as attachments though no vertex uses them (exact, case-sensitive
    /// match; every bone of that name). Their ancestors are kept too.
    pub keep: Vec<String>,
    /// Merge vertices whose every attribute has the same bits.
    pub merge: bool,
    /// Order triangles for the post-transform cache and vertices for the fetch cache.
    pub reorder: bool,
    /// Influences with this weight or less are dropped and the rest renormalised. The
    /// default, 0, drops only zero (and negative or non-finite) weights; a negative or NaN
    /// threshold is read as 0.
    pub min_weight: f32,
}

impl Default for Options {
    /// Every step on, nothing kept by name, only zero weights dropped.
    fn default() -> Self {
        Options {
            keep: Vec::new(),
            merge: true,
            reorder: true,
            min_weight: 0.0,
        }
    }
}

/// Counts and cache figures of an asset, or of one mesh.
///
/// ```
/// use skelmap_author::optimize::{Options, optimize};
/// use skelmap_core::{Model, asset, synth};
///
/// let bytes = synth::tube(&Default::default()).write()?;
/// let mut built = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
/// let before = optimize(&mut built, &Options::default()).before;
/// assert_eq!((before.bones, before.vertices, before.triangles), (4, 136, 256));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stats {
    /// Joints of the skeleton (for one mesh: distinct joints its influences name).
    pub bones: usize,
    /// Vertices.
    pub vertices: usize,
    /// Triangles.
    pub triangles: usize,
    /// Influences, over every vertex.
    pub influences: usize,
    /// Most influences on one vertex.
    pub max_influences: usize,
    /// Average cache miss ratio: vertices transformed per triangle, with a FIFO cache of
    /// [`CACHE_SIZE`] entries (0 without triangles).
    pub acmr: f32,
    /// Average transform to vertex ratio: vertices transformed per vertex referenced, same
    /// cache (0 without triangles).
    pub atvr: f32,
}

/// One mesh's figures before and after.
///
/// ```
/// use skelmap_author::optimize::{Options, optimize};
/// use skelmap_core::{Model, asset, synth};
///
/// let bytes = synth::tube(&Default::default()).write()?;
/// let mut built = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
/// let report = optimize(&mut built, &Options::default());
/// assert_eq!(report.meshes.len(), 1);
/// assert_eq!(report.meshes[0].name, "tube");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MeshReport {
    /// The mesh's name.
    pub name: String,
    /// Before.
    pub before: Stats,
    /// After.
    pub after: Stats,
    /// Whether the mesh was left as it was (its arrays disagree: see the
    /// [module docs](self)); its cache figures are then 0.
    pub skipped: bool,
}

/// What [`optimize`] did: the asset's figures before and after, per mesh and in total, and
/// what it dropped. [`Display`](fmt::Display) prints a compact table.
///
/// ```
/// use skelmap_author::optimize::{Options, optimize};
/// use skelmap_core::{Model, asset, synth};
///
/// let bytes = synth::tube(&Default::default()).write()?;
/// let mut built = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
/// let options = Options { keep: vec!["no such bone".into()], ..Options::default() };
/// let report = optimize(&mut built, &options);
/// assert_eq!(report.unknown_keep, ["no such bone"]);
/// assert!(report.dropped_bones.is_empty());
/// assert!(report.to_string().contains("ACMR"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// The asset's figures before (ACMR and ATVR weighted by each mesh's triangles).
    pub before: Stats,
    /// The asset's figures after.
    pub after: Stats,
    /// Each mesh's figures, in the asset's order.
    pub meshes: Vec<MeshReport>,
    /// Names of the bones dropped, in their old order.
    pub dropped_bones: Vec<String>,
    /// Names in [`Options::keep`] that are no bone of the asset.
    pub unknown_keep: Vec<String>,
    /// Influences dropped (at or below [`Options::min_weight`]).
    pub dropped_influences: usize,
    /// Vertices dropped because no triangle referenced them.
    pub unreferenced_vertices: usize,
    /// Vertices merged into an identical one.
    pub merged_vertices: usize,
    /// Meshes left as they were because their arrays disagree (see the [module docs](self)).
    pub skipped_meshes: Vec<String>,
}

impl fmt::Display for Report {
    /// A table of the asset's figures, before and after, then the dropped bones, the
    /// unknown `keep` names and the skipped meshes, when there are any.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (b, a) = (&self.before, &self.after);
        writeln!(f, "{:<16}{:>10}{:>10}", "", "before", "after")?;
        let counts = [
            ("bones", b.bones, a.bones),
            ("vertices", b.vertices, a.vertices),
            ("triangles", b.triangles, a.triangles),
            ("influences", b.influences, a.influences),
            ("max/vertex", b.max_influences, a.max_influences),
        ];
        for (name, x, y) in counts {
            writeln!(f, "{name:<16}{x:>10}{y:>10}")?;
        }
        let acmr = format!("ACMR ({CACHE_SIZE})");
        let atvr = format!("ATVR ({CACHE_SIZE})");
        writeln!(f, "{acmr:<16}{:>10.3}{:>10.3}", b.acmr, a.acmr)?;
        write!(f, "{atvr:<16}{:>10.3}{:>10.3}", b.atvr, a.atvr)?;
        let lists = [
            ("dropped bones", &self.dropped_bones),
            ("unknown keep", &self.unknown_keep),
            ("skipped meshes", &self.skipped_meshes),
        ];
        for (name, list) in lists {
            if !list.is_empty() {
                write!(f, "\n{name}: {}", list.join(", "))?;
            }
        }
        Ok(())
    }
}

/// Optimises `asset` in place for saving: the steps of the [module docs](self), in that
/// order. It never fails: what cannot be done safely (a mesh whose arrays disagree) is left
/// as it is and reported.
///
/// The meshes look the same in every frame afterwards: the skinned or morphed positions of
/// every triangle corner are unchanged, but for the renormalisation of a vertex that lost a
/// positive weight (only when [`Options::min_weight`] is above 0).
///
/// ```
/// use skelmap_author::optimize::{Options, optimize};
/// use skelmap_core::{Model, asset, synth};
///
/// let bytes = synth::tube(&Default::default()).write()?;
/// let mut built = Model::from_bytes(&bytes)?.to_asset(&asset::Options::default())?;
/// let report = optimize(&mut built, &Options::default());
/// assert_eq!(report.after.triangles, 256);
/// assert_eq!(report.after.bones, built.skeleton.as_ref().map_or(0, |s| s.joints.len()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn optimize(asset: &mut Asset, options: &Options) -> Report {
    let min_weight = if options.min_weight > 0.0 {
        options.min_weight
    } else {
        0.0
    };
    let mut report = Report::default();
    let ok: Vec<bool> = asset.meshes.iter().map(consistent).collect();
    let before: Vec<Stats> = asset
        .meshes
        .iter()
        .zip(&ok)
        .map(|(m, &ok)| mesh_stats(m, ok))
        .collect();
    for (mesh, &ok) in asset.meshes.iter_mut().zip(&ok) {
        if !ok {
            report.skipped_meshes.push(mesh.name.clone());
            continue;
        }
        report.dropped_influences += filter_influences(mesh, min_weight);
        report.unreferenced_vertices += drop_unreferenced(mesh);
    }
    // Without a single skinned mesh, the skeleton serves meshes elsewhere (an animation-only
    // file): nothing tells which bones they use.
    let skinned = asset.meshes.iter().any(|m| !m.influences.is_empty());
    if let Some(skeleton) = asset.skeleton.as_mut().filter(|_| skinned) {
        prune_bones(
            skeleton,
            &mut asset.meshes,
            &mut asset.clips,
            options,
            &mut report,
        );
    }
    for (mesh, &ok) in asset.meshes.iter_mut().zip(&ok) {
        if !ok {
            continue;
        }
        if options.merge {
            report.merged_vertices += merge_duplicates(mesh);
        }
        if options.reorder {
            reorder(mesh);
        }
    }
    let after: Vec<Stats> = asset
        .meshes
        .iter()
        .zip(&ok)
        .map(|(m, &ok)| mesh_stats(m, ok))
        .collect();
    let bones = |n: usize| Stats {
        bones: n,
        ..Stats::default()
    };
    report.before = total(&before, bones(before_bones(&report, asset)));
    report.after = total(&after, bones(joint_count(asset)));
    report.meshes = asset
        .meshes
        .iter()
        .zip(before.into_iter().zip(after))
        .zip(&ok)
        .map(|((m, (before, after)), &ok)| MeshReport {
            name: m.name.clone(),
            before,
            after,
            skipped: !ok,
        })
        .collect();
    report
}

fn joint_count(asset: &Asset) -> usize {
    asset.skeleton.as_ref().map_or(0, |s| s.joints.len())
}

/// The joints the asset had: those it has and those dropped.
fn before_bones(report: &Report, asset: &Asset) -> usize {
    joint_count(asset) + report.dropped_bones.len()
}

/// The asset's figures from its meshes': counts summed, cache figures weighted by triangles.
fn total(meshes: &[Stats], start: Stats) -> Stats {
    let mut out = start;
    let (mut acmr, mut atvr, mut weight) = (0.0f64, 0.0f64, 0.0f64);
    for m in meshes {
        out.vertices += m.vertices;
        out.triangles += m.triangles;
        out.influences += m.influences;
        out.max_influences = out.max_influences.max(m.max_influences);
        if m.acmr > 0.0 {
            let t = m.triangles as f64;
            acmr += f64::from(m.acmr) * t;
            atvr += f64::from(m.atvr) * t;
            weight += t;
        }
    }
    if weight > 0.0 {
        out.acmr = (acmr / weight) as f32;
        out.atvr = (atvr / weight) as f32;
    }
    out
}

/// One mesh's figures; cache figures only for a consistent mesh (meshoptimizer must not see
/// an index out of range).
fn mesh_stats(mesh: &Mesh, consistent: bool) -> Stats {
    let mut joints: Vec<u16> = mesh
        .influences
        .weights
        .iter()
        .map(|&(j, _)| j)
        .filter(|&j| j != UNBOUND)
        .collect();
    joints.sort_unstable();
    joints.dedup();
    let (acmr, atvr) = if consistent {
        cache(&indices(mesh), mesh.positions.len())
    } else {
        (0.0, 0.0)
    };
    Stats {
        bones: joints.len(),
        vertices: mesh.positions.len(),
        triangles: mesh.triangles.len(),
        influences: mesh.influences.weights.len(),
        // Not `Influences::max_per_vertex`: its subtraction overflows on the descending
        // offsets of a skipped mesh.
        max_influences: mesh
            .influences
            .starts
            .windows(2)
            .map(|w| w[1].saturating_sub(w[0]) as usize)
            .max()
            .unwrap_or(0),
        acmr,
        atvr,
    }
}

fn indices(mesh: &Mesh) -> Vec<u32> {
    mesh.triangles.as_flattened().to_vec()
}

/// ACMR and ATVR of `indices` over `vertices` vertices (0 and 0 without triangles).
fn cache(indices: &[u32], vertices: usize) -> (f32, f32) {
    if indices.is_empty() {
        return (0.0, 0.0);
    }
    let s = meshopt::analyze_vertex_cache(indices, vertices, CACHE_SIZE, 0, 0);
    (s.acmr, s.atvr)
}

/// Whether every per-vertex array of `mesh` has one entry per position (or, for normals and
/// morph target arrays, none), every triangle names a vertex, and the influences' offsets
/// are `vertices + 1` ascending values ending at the weights' length (or the mesh is not
/// skinned).
fn consistent(mesh: &Mesh) -> bool {
    let n = mesh.positions.len();
    let fits = |len: usize| len == n || len == 0;
    let inf = &mesh.influences;
    let influences_ok = if inf.is_empty() {
        inf.starts.iter().all(|&s| s == 0) && inf.weights.is_empty()
    } else {
        inf.starts.len() == n + 1
            && inf.starts.first() == Some(&0)
            && inf.starts.windows(2).all(|w| w[0] <= w[1])
            && inf.starts.last().map(|&s| s as usize) == Some(inf.weights.len())
    };
    u32::try_from(n).is_ok()
        && fits(mesh.normals.len())
        && mesh.uvs.as_ref().is_none_or(|v| v.len() == n)
        && mesh.colors.as_ref().is_none_or(|v| v.len() == n)
        && mesh
            .targets
            .iter()
            .all(|t| fits(t.positions.len()) && fits(t.normals.len()))
        && mesh
            .triangles
            .as_flattened()
            .iter()
            .all(|&i| (i as usize) < n)
        && influences_ok
}

/// Drops influences at or below `min_weight` (and non-finite ones) and renormalises the
/// vertices that lost a positive weight; returns how many were dropped.
fn filter_influences(mesh: &mut Mesh, min_weight: f32) -> usize {
    let old = &mesh.influences;
    if old.is_empty() {
        return 0;
    }
    let n = old.starts.len() - 1;
    let mut out = Influences::default();
    out.starts.push(0);
    for v in 0..n {
        let list = old.of(v);
        let keep = |&&(_, w): &&(u16, f32)| w.is_finite() && w > min_weight;
        let survivors: Vec<(u16, f32)> = list.iter().filter(keep).copied().collect();
        if survivors.len() == list.len() {
            out.weights.extend_from_slice(list);
            out.starts.push(out.weights.len() as u32);
            continue;
        }
        let lost_weight = list
            .iter()
            .any(|&(_, w)| w.is_finite() && w > 0.0 && w <= min_weight);
        if survivors.is_empty() {
            // Everything is at or below the threshold: the strongest stays, alone.
            let strongest = list
                .iter()
                .filter(|(_, w)| w.is_finite() && *w > 0.0)
                .copied()
                .reduce(|a, b| if b.1 > a.1 { b } else { a });
            out.push(strongest.into_iter(), UNBOUND);
        } else if lost_weight {
            out.push(survivors.into_iter(), UNBOUND);
        } else {
            // Only zero, negative or non-finite weights went: the sum is what it was.
            out.weights.extend_from_slice(&survivors);
            out.starts.push(out.weights.len() as u32);
        }
    }
    let dropped = mesh
        .influences
        .weights
        .len()
        .saturating_sub(out.weights.len());
    mesh.influences = out;
    dropped
}

/// Drops the vertices no triangle references; returns how many.
fn drop_unreferenced(mesh: &mut Mesh) -> usize {
    let n = mesh.positions.len();
    let mut used = vec![false; n];
    for &i in mesh.triangles.as_flattened() {
        if let Some(u) = used.get_mut(i as usize) {
            *u = true;
        }
    }
    let order: Vec<u32> = (0..n as u32).filter(|&v| used[v as usize]).collect();
    if order.len() == n {
        return 0;
    }
    let mut map = vec![u32::MAX; n];
    for (new, &old) in order.iter().enumerate() {
        map[old as usize] = new as u32;
    }
    permute(mesh, &order, &map);
    n - order.len()
}

/// Merges vertices whose attributes have equal bits; returns how many went.
fn merge_duplicates(mesh: &mut Mesh) -> usize {
    let n = mesh.positions.len();
    let mut seen: HashMap<Vec<u32>, u32> = HashMap::with_capacity(n);
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut map: Vec<u32> = Vec::with_capacity(n);
    for v in 0..n {
        match seen.entry(vertex_key(mesh, v)) {
            Entry::Occupied(e) => map.push(*e.get()),
            Entry::Vacant(e) => {
                let new = order.len() as u32;
                e.insert(new);
                map.push(new);
                order.push(v as u32);
            }
        }
    }
    if order.len() == n {
        return 0;
    }
    permute(mesh, &order, &map);
    n - order.len()
}

/// The bits of every attribute of vertex `v`.
fn vertex_key(mesh: &Mesh, v: usize) -> Vec<u32> {
    let mut key = Vec::with_capacity(16 + 6 * mesh.targets.len());
    let mut bits = |values: &[f32]| key.extend(values.iter().map(|x| x.to_bits()));
    bits(mesh.positions.get(v).map_or(&[], |p| &p[..]));
    bits(mesh.normals.get(v).map_or(&[], |p| &p[..]));
    if let Some(uv) = mesh.uvs.as_ref().and_then(|u| u.get(v)) {
        bits(uv);
    }
    for t in &mesh.targets {
        bits(t.positions.get(v).map_or(&[], |p| &p[..]));
        bits(t.normals.get(v).map_or(&[], |p| &p[..]));
    }
    if let Some(c) = mesh.colors.as_ref().and_then(|c| c.get(v)) {
        key.push(u32::from_le_bytes(*c));
    }
    let influences = mesh.influences.of(v);
    key.push(influences.len() as u32);
    for &(j, w) in influences {
        key.push(u32::from(j));
        key.push(w.to_bits());
    }
    key
}

/// Orders the triangles for the post-transform cache and the vertices for the fetch cache.
fn reorder(mesh: &mut Mesh) {
    let n = mesh.positions.len();
    let input = indices(mesh);
    if input.is_empty() {
        return;
    }
    let optimised = meshopt::optimize_vertex_cache(&input, n);
    // The optimiser is a heuristic: an input order it cannot improve stays.
    let ordered = if cache(&optimised, n).0 <= cache(&input, n).0 {
        optimised
    } else {
        input
    };
    let map = meshopt::optimize_vertex_fetch_remap(&ordered, n);
    // Every vertex is referenced (unreferenced ones are gone), so the remap covers them all;
    // anything else would lose vertices, and the mesh keeps its order instead.
    if map.len() != n || map.iter().any(|&m| m as usize >= n) {
        return;
    }
    let mut order = vec![0u32; n];
    for (old, &new) in map.iter().enumerate() {
        order[new as usize] = old as u32;
    }
    mesh.triangles = ordered
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    permute(mesh, &order, &map);
}

/// Rebuilds every per-vertex array of `mesh` so that new vertex `i` is old vertex
/// `order[i]`, and renumbers the triangles through `map` (old vertex → new vertex).
fn permute(mesh: &mut Mesh, order: &[u32], map: &[u32]) {
    fn gather<T: Copy + Default>(values: &[T], order: &[u32]) -> Vec<T> {
        if values.is_empty() {
            return Vec::new();
        }
        order
            .iter()
            .map(|&o| values.get(o as usize).copied().unwrap_or_default())
            .collect()
    }
    mesh.positions = gather(&mesh.positions, order);
    mesh.normals = gather(&mesh.normals, order);
    if let Some(uvs) = mesh.uvs.as_mut() {
        *uvs = gather(uvs, order);
    }
    if let Some(colors) = mesh.colors.as_mut() {
        *colors = gather(colors, order);
    }
    for target in &mut mesh.targets {
        target.positions = gather(&target.positions, order);
        target.normals = gather(&target.normals, order);
    }
    if !mesh.influences.is_empty() {
        let old = &mesh.influences;
        let mut out = Influences {
            starts: Vec::with_capacity(order.len() + 1),
            weights: Vec::with_capacity(old.weights.len()),
        };
        out.starts.push(0);
        for &o in order {
            out.weights.extend_from_slice(old.of(o as usize));
            out.starts.push(out.weights.len() as u32);
        }
        mesh.influences = out;
    }
    for i in mesh.triangles.as_flattened_mut() {
        *i = map.get(*i as usize).copied().unwrap_or(0);
    }
}

/// The joints something names: a vertex weight above zero, an attachment, a tag's name
/// prefix, or `options.keep` (names not found are added to `report.unknown_keep`).
fn needed_joints(
    skeleton: &Skeleton,
    meshes: &[Mesh],
    options: &Options,
    report: &mut Report,
) -> Vec<bool> {
    let n = skeleton.joints.len();
    let mut kept = vec![false; n];
    for mesh in meshes {
        for &(j, w) in &mesh.influences.weights {
            if w > 0.0
                && let Some(k) = kept.get_mut(usize::from(j))
            {
                *k = true;
            }
        }
    }
    for a in skeleton.attachment_points() {
        if let Some(k) = kept.get_mut(a) {
            *k = true;
        }
    }
    for name in &options.keep {
        let mut found = false;
        for (k, joint) in kept.iter_mut().zip(&skeleton.joints) {
            if joint.name == *name {
                *k = true;
                found = true;
            }
        }
        if !found && !report.unknown_keep.contains(name) {
            report.unknown_keep.push(name.clone());
        }
    }
    kept
}

/// The kept joints in their order, but for a parent listed after its child (possible only in
/// a hand-built asset), which is moved just before it.
fn kept_order(kept: &[bool], parent: impl Fn(usize) -> Option<usize>) -> Vec<usize> {
    let n = kept.len();
    // `placed` also marks the chain being walked (a cycle ends it), so that each joint is
    // walked once: a chain of thousands of parents listed after their children costs its
    // length, not its square.
    let mut placed = vec![false; n];
    let mut order: Vec<usize> = Vec::with_capacity(n);
    for j in 0..n {
        if !kept[j] || placed[j] {
            continue;
        }
        let mut chain = vec![j];
        placed[j] = true;
        let mut p = parent(j);
        while let Some(up) = p {
            if up >= n || placed[up] {
                break;
            }
            placed[up] = true;
            chain.push(up);
            p = parent(up);
        }
        order.extend(chain.iter().rev());
    }
    order
}

/// Drops the joints nothing needs and renumbers the rest everywhere (step 3 of the
/// [module docs](self)).
fn prune_bones(
    skeleton: &mut Skeleton,
    meshes: &mut [Mesh],
    clips: &mut [skelmap_core::asset::Clip],
    options: &Options,
    report: &mut Report,
) {
    let n = skeleton.joints.len();
    let parent = |j: usize| {
        skeleton
            .joints
            .get(j)
            .and_then(|joint| joint.parent)
            .filter(|&p| p < n)
    };
    let mut kept = needed_joints(skeleton, meshes, options, report);
    // Every ancestor of a kept joint is kept. A joint whose ancestors were kept already
    // (`walked`) ends the walk up, so each joint is walked once however deep the tree (a
    // chain of thousands of joints each kept cost the square of its length), and a cycle of
    // a hand-built hierarchy ends it too.
    let mut walked = vec![false; n];
    for j in 0..n {
        if !kept[j] || walked[j] {
            continue;
        }
        walked[j] = true;
        let mut p = parent(j);
        while let Some(up) = p {
            kept[up] = true;
            if walked[up] {
                break;
            }
            walked[up] = true;
            p = parent(up);
        }
    }
    let order = kept_order(&kept, parent);
    if order.len() == n && order.iter().enumerate().all(|(i, &j)| i == j) {
        return;
    }
    let mut new_index: Vec<Option<usize>> = vec![None; n];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = Some(new);
    }
    report.dropped_bones = skeleton
        .joints
        .iter()
        .zip(&kept)
        .filter(|(_, k)| !**k)
        .map(|(j, _)| j.name.clone())
        .collect();
    let old_joints = std::mem::take(&mut skeleton.joints);
    skeleton.joints = order
        .iter()
        .filter_map(|&o| old_joints.get(o).cloned())
        .map(|mut joint| {
            joint.parent = joint
                .parent
                .and_then(|p| new_index.get(p).copied().flatten());
            joint
        })
        .collect();
    let mut attachments: Vec<usize> = skeleton
        .attachments
        .iter()
        .filter_map(|&a| new_index.get(a).copied().flatten())
        .collect();
    attachments.sort_unstable();
    attachments.dedup();
    skeleton.attachments = attachments;
    let joint = |j: u16| -> u16 {
        new_index
            .get(usize::from(j))
            .copied()
            .flatten()
            .and_then(|k| u16::try_from(k).ok())
            .unwrap_or(UNBOUND)
    };
    for mesh in meshes {
        for (j, _) in &mut mesh.influences.weights {
            *j = joint(*j);
        }
    }
    for clip in clips {
        if let ClipKeys::Joints(frames) = &mut clip.keys {
            for frame in frames {
                *frame = order
                    .iter()
                    .filter_map(|&o| frame.get(o).copied())
                    .collect();
            }
        }
    }
}
