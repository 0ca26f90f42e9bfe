//! The node tree (checked for cycles and shared children), the imported scene, and the
//! skeleton: which nodes become joints, in which order, with which bind transforms.

use glam::{Affine3A, Mat4, Quat, Vec3};
use gltf::json::accessor::Type;
use skelmap_core::asset::{Joint, Skeleton};

use super::MAX_JOINTS;
use super::access::{Doc, Finite, Norm};
use super::error::{Error, Result};

/// A parent-relative transform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Trs {
    pub t: Vec3,
    pub r: Quat,
    pub s: Vec3,
}

impl Trs {
    pub fn affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.s, self.r, self.t)
    }

    /// `fold · self` as a transform again (exact when `fold` is the identity; shear that
    /// `fold`'s non-uniform scale would bring is lost).
    pub fn folded(&self, fold: &Affine3A) -> Trs {
        if *fold == Affine3A::IDENTITY {
            return *self;
        }
        decompose(&(*fold * self.affine()))
    }
}

/// The scale, rotation and translation of `m`; a matrix without a usable rotation keeps
/// its column lengths as scale and no rotation.
pub(crate) fn decompose(m: &Affine3A) -> Trs {
    let (s, r, t) = m.to_scale_rotation_translation();
    if s.is_finite() && r.is_finite() && r.length_squared() > 0.5 {
        Trs {
            t,
            r: r.normalize(),
            s,
        }
    } else {
        let c = m.matrix3;
        Trs {
            t: m.translation.into(),
            r: Quat::IDENTITY,
            s: Vec3::new(c.x_axis.length(), c.y_axis.length(), c.z_axis.length()),
        }
    }
}

/// A joint's pose relative to its parent in the bind pose, as [`Joint`] holds it: its node's
/// rest pose `rest` where that puts the joint at its bind transform `world` (its inverse bind
/// matrix's inverse), else `world` relative to the parent's bind transform. A skin's inverse
/// bind matrices need not match the nodes' rest pose (Blender-IO's
/// `03_skinned_cylinder.gltf`); a format that stores the bind pose as parent-relative keys
/// (IQM, PSK, SL) derives its inverse bind matrices from them, so the keys must be the bind
/// pose's. A clip's joints that no channel drives keep their rest pose all the same.
fn bind_local(rest: Trs, parent: Option<&Joint>, world: Affine3A) -> Trs {
    let parent = parent.map_or(Affine3A::IDENTITY, |p| p.world);
    let from_rest = parent * rest.affine();
    // Rounding of the exporter's matrices, relative to the joint's distance from the origin.
    let tolerance = BIND_TOLERANCE * (1.0 + Vec3::from(world.translation).length());
    if from_rest.abs_diff_eq(world, tolerance) {
        return rest;
    }
    let local = parent.inverse() * world;
    if local.is_finite() {
        decompose(&local)
    } else {
        rest
    }
}

/// How far (relative) a joint's rest pose may put it from its bind transform and still be
/// taken for it.
const BIND_TOLERANCE: f32 = 1e-4;

/// The nodes as a checked forest.
pub(crate) struct Tree {
    pub parent: Vec<Option<usize>>,
    pub children: Vec<Vec<usize>>,
    /// Each node's own transform (a matrix decomposed).
    pub rest: Vec<Trs>,
    pub local: Vec<Affine3A>,
    /// Model-space transforms at rest.
    pub world: Vec<Affine3A>,
    pub depth: Vec<usize>,
    /// Every node, parents before children (depth first from the roots, in index order).
    pub order: Vec<usize>,
    /// Per node, its place in `order` and the size of its subtree there.
    pub span: Vec<(usize, usize)>,
}

impl Tree {
    /// Whether `a` is `d` or one of its ancestors.
    pub fn contains(&self, a: usize, d: usize) -> bool {
        match (self.span.get(a), self.span.get(d)) {
            (Some(&(pa, sa)), Some(&(pd, _))) => pa <= pd && pd < pa + sa,
            _ => false,
        }
    }
}

fn finite(index: usize, field: &'static str, values: &[f32]) -> Result<()> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Error::Node {
            index,
            field,
            problem: "not finite".into(),
        })
    }
}

/// Checks the node graph (children exist, one parent each, no cycle, finite transforms,
/// meshes and skins exist) and computes the rest transforms.
pub(crate) fn tree(doc: &mut Doc<'_>) -> Result<Tree> {
    let root = &doc.root;
    let n = root.nodes.len();
    let mut parent: Vec<Option<usize>> = vec![None; n];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut rest = Vec::with_capacity(n);
    let mut local = Vec::with_capacity(n);
    for (i, node) in root.nodes.iter().enumerate() {
        let error = |field, problem| Error::Node {
            index: i,
            field,
            problem,
        };
        for child in node.children.iter().flatten() {
            let c = child.value();
            if c >= n {
                return Err(error(
                    "children",
                    format!("node {c} does not exist ({n} nodes)"),
                ));
            }
            if c == i {
                return Err(Error::NodeCycle { node: i });
            }
            match parent[c] {
                Some(p) if p == i => continue,
                Some(p) => {
                    return Err(Error::NodeParents {
                        node: c,
                        first: p,
                        second: i,
                    });
                }
                None => parent[c] = Some(i),
            }
            children[i].push(c);
        }
        if let Some(m) = node
            .mesh
            .map(|m| m.value())
            .filter(|&m| m >= root.meshes.len())
        {
            return Err(error("mesh", format!("mesh {m} does not exist")));
        }
        if let Some(s) = node
            .skin
            .map(|s| s.value())
            .filter(|&s| s >= root.skins.len())
        {
            return Err(error("skin", format!("skin {s} does not exist")));
        }
        let (trs, affine) = transform(i, node, &mut doc.replaced)?;
        rest.push(trs);
        local.push(affine);
    }
    // Depth first from the roots; what is not reached lies on or under a cycle.
    let mut order = Vec::with_capacity(n);
    let mut depth = vec![0usize; n];
    let mut world = vec![Affine3A::IDENTITY; n];
    let mut stack: Vec<usize> = (0..n).rev().filter(|&i| parent[i].is_none()).collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        if let Some(p) = parent[i] {
            depth[i] = depth[p] + 1;
            world[i] = world[p] * local[i];
        } else {
            world[i] = local[i];
        }
        if !world[i].is_finite() {
            return Err(Error::Node {
                index: i,
                field: "matrix",
                problem: "the model-space transform overflows".into(),
            });
        }
        stack.extend(children[i].iter().rev());
    }
    if order.len() < n {
        return Err(Error::NodeCycle {
            node: on_cycle(&parent, &order),
        });
    }
    let mut span = vec![(0usize, 1usize); n];
    for (k, &i) in order.iter().enumerate() {
        span[i].0 = k;
    }
    for &i in order.iter().rev() {
        if let Some(p) = parent[i] {
            span[p].1 += span[i].1;
        }
    }
    Ok(Tree {
        parent,
        children,
        rest,
        local,
        world,
        depth,
        order,
        span,
    })
}

/// Node `i`'s own transform, decomposed and as a matrix: its matrix, or its translation,
/// rotation (normalised; one with no length becomes the identity and counts in `replaced`)
/// and scale; each finite.
fn transform(i: usize, node: &gltf::json::Node, replaced: &mut usize) -> Result<(Trs, Affine3A)> {
    Ok(match node.matrix {
        Some(m) => {
            finite(i, "matrix", &m)?;
            let affine = Affine3A::from_mat4(Mat4::from_cols_array(&m));
            (decompose(&affine), affine)
        }
        None => {
            let t = node.translation.unwrap_or([0.0; 3]);
            let r = node.rotation.map_or([0.0, 0.0, 0.0, 1.0], |q| q.0);
            let s = node.scale.unwrap_or([1.0; 3]);
            finite(i, "translation", &t)?;
            finite(i, "rotation", &r)?;
            finite(i, "scale", &s)?;
            let q = Quat::from_array(r);
            let q = if q.length_squared() > 1e-12 {
                q.normalize()
            } else {
                *replaced += 1;
                Quat::IDENTITY
            };
            let trs = Trs {
                t: t.into(),
                r: q,
                s: s.into(),
            };
            (trs, trs.affine())
        }
    })
}

/// The smallest node on the cycle that leaves some node unreached from the roots (`order`
/// holds the reached ones, fewer than all).
fn on_cycle(parent: &[Option<usize>], order: &[usize]) -> usize {
    let n = parent.len();
    let mut seen = vec![false; n];
    order.iter().for_each(|&i| seen[i] = true);
    let start = (0..n).find(|&i| !seen[i]).unwrap_or(0);
    // n steps up from an unreached node land on the cycle.
    let mut on = start;
    for _ in 0..n {
        on = parent[on].unwrap_or(on);
    }
    let mut smallest = on;
    let mut walk = parent[on].unwrap_or(on);
    for _ in 0..n {
        if walk == on {
            break;
        }
        smallest = smallest.min(walk);
        walk = parent[walk].unwrap_or(on);
    }
    smallest
}

/// Which nodes the import shows: the default scene's (else the first scene's) trees, or
/// every node when the file has no scene.
pub(crate) fn scene_nodes(doc: &Doc<'_>, tree: &Tree) -> Result<Vec<bool>> {
    let root = &doc.root;
    let n = root.nodes.len();
    let chosen = match root.scene {
        Some(s) => Some(s.value()),
        None => (!root.scenes.is_empty()).then_some(0),
    };
    let Some(s) = chosen else {
        return Ok(vec![true; n]);
    };
    let scene = root.scenes.get(s).ok_or_else(|| Error::Scene {
        index: s,
        field: "index",
        problem: format!(
            "the default scene does not exist ({} scenes)",
            root.scenes.len()
        ),
    })?;
    let mut shown = vec![false; n];
    let mut stack = Vec::new();
    for node in &scene.nodes {
        let i = node.value();
        if i >= n {
            return Err(Error::Scene {
                index: s,
                field: "nodes",
                problem: format!("node {i} does not exist ({n} nodes)"),
            });
        }
        stack.push(i);
    }
    while let Some(i) = stack.pop() {
        if !shown[i] {
            shown[i] = true;
            stack.extend(tree.children[i].iter().copied());
        }
    }
    Ok(shown)
}

/// One skin, checked.
pub(crate) struct SkinInfo {
    /// Its joints' nodes.
    pub joints: Vec<usize>,
    /// Each joint's inverse bind matrix.
    pub ibm: Vec<Affine3A>,
    /// From the skin's bind space to the asset's coordinates: vertices are multiplied by it.
    pub to_asset: Affine3A,
}

/// The skeleton the asset gets.
pub(crate) struct Rig {
    /// Per node, its joint.
    pub joint_of: Vec<Option<u16>>,
    /// Per joint, its node.
    pub nodes: Vec<usize>,
    /// Per joint, what its keys are multiplied by: the rest transform of the nodes above a
    /// root joint, the identity for the others.
    pub fold: Vec<Affine3A>,
    pub skeleton: Option<Skeleton>,
    pub skins: Vec<SkinInfo>,
}

const SKIN_ROOT_TOLERANCE: f32 = 1e-5;

/// Builds the skeleton: see the module documentation of [`gltf`](super) for the rules.
pub(crate) fn rig(
    doc: &mut Doc<'_>,
    tree: &Tree,
    shown: &[bool],
    animated: &[bool],
) -> Result<Rig> {
    let n = tree.parent.len();
    let mut animated_above = animated.to_vec();
    for &i in &tree.order {
        if let Some(p) = tree.parent[i] {
            animated_above[i] |= animated_above[p];
        }
    }
    let mut skins = Vec::with_capacity(doc.root.skins.len());
    let mut in_skin = vec![false; n];
    let mut folded = vec![false; n];
    for s in 0..doc.root.skins.len() {
        let (skin, fold_root) = read_skin(doc, s, tree, &animated_above)?;
        for &j in &skin.joints {
            in_skin[j] = true;
        }
        if let Some(k) = fold_root {
            folded[k] = true;
        }
        skins.push(skin);
    }
    // Joints: skin joints and animated shown nodes, then everything below a joint.
    let is_joint: Vec<bool> = (0..n)
        .map(|i| !folded[i] && (in_skin[i] || (animated[i] && shown[i])))
        .collect();
    let (nodes, joint_of) = joint_nodes(doc, tree, is_joint)?;
    let parent_joint = |node: usize| tree.parent[node].and_then(|p| joint_of[p]);
    let fold: Vec<Affine3A> = nodes
        .iter()
        .map(|&node| match (parent_joint(node), tree.parent[node]) {
            (None, Some(p)) => tree.world[p],
            _ => Affine3A::IDENTITY,
        })
        .collect();
    let world = bind_worlds(&mut skins, tree, &joint_of, nodes.len());
    let mut joints: Vec<Joint> = Vec::with_capacity(nodes.len());
    for (j, &node) in nodes.iter().enumerate() {
        let parent = parent_joint(node).map(usize::from);
        let rest = tree.rest[node].folded(&fold[j]);
        let w = match world[j] {
            Some(w) => w,
            None => match parent {
                Some(p) => joints.get(p).map_or(Affine3A::IDENTITY, |p| p.world) * tree.local[node],
                None => fold[j] * tree.local[node],
            },
        };
        if !w.is_finite() {
            return Err(Error::Node {
                index: node,
                field: "matrix",
                problem: "the joint's bind transform overflows".into(),
            });
        }
        let rest = bind_local(rest, parent.and_then(|p| joints.get(p)), w);
        joints.push(Joint {
            name: doc
                .root
                .nodes
                .get(node)
                .and_then(|n| n.name.clone())
                .unwrap_or_else(|| format!("node {node}")),
            parent,
            rotation: rest.r,
            translation: rest.t,
            scale: rest.s,
            world: w,
        });
    }
    let attachments = nodes
        .iter()
        .enumerate()
        .filter(|&(_, &node)| !in_skin[node])
        .map(|(j, _)| j)
        .collect();
    let skeleton = (!joints.is_empty()).then_some(Skeleton {
        joints,
        attachments,
    });
    Ok(Rig {
        joint_of,
        nodes,
        fold,
        skeleton,
        skins,
    })
}

/// Skin `s`, checked: its joints (each an existing node, listed once), its inverse bind
/// matrices (enough of them, none singular). With it, the node its `skeleton` names when that
/// node stands for the nodes above the skeleton and is folded into them (skelmap's
/// `skelmap_root`): a static joint bound at the identity above all the others.
fn read_skin(
    doc: &mut Doc<'_>,
    s: usize,
    tree: &Tree,
    animated_above: &[bool],
) -> Result<(SkinInfo, Option<usize>)> {
    let n = tree.parent.len();
    let (joints, ibm_accessor, skeleton) = {
        let skin = &doc.root.skins[s];
        (
            skin.joints.iter().map(|j| j.value()).collect::<Vec<_>>(),
            skin.inverse_bind_matrices.map(|a| a.value()),
            skin.skeleton.map(|k| k.value()),
        )
    };
    let error = |field, problem| Error::Skin {
        index: s,
        field,
        problem,
    };
    if joints.is_empty() {
        return Err(error("joints", "no joints".into()));
    }
    // A set the size of the skin, not of the file's nodes: a file may hold many skins.
    let mut listed = std::collections::HashSet::with_capacity(joints.len());
    for &j in &joints {
        if j >= n {
            return Err(error(
                "joints",
                format!("node {j} does not exist ({n} nodes)"),
            ));
        }
        if !listed.insert(j) {
            return Err(error("joints", format!("node {j} is listed twice")));
        }
    }
    if let Some(k) = skeleton.filter(|&k| k >= n) {
        return Err(error(
            "skeleton",
            format!("node {k} does not exist ({n} nodes)"),
        ));
    }
    let ibm = match ibm_accessor {
        None => vec![Affine3A::IDENTITY; joints.len()],
        Some(a) => {
            let m = doc.floats(
                a,
                "inverseBindMatrices",
                &[Type::Mat4],
                Norm::Flag,
                Finite::Refuse,
            )?;
            if m.count() < joints.len() {
                return Err(error(
                    "inverseBindMatrices",
                    format!("{} matrices for {} joints", m.count(), joints.len()),
                ));
            }
            let mut out = Vec::with_capacity(joints.len());
            for (k, &node) in joints.iter().enumerate() {
                let cols: [f32; 16] = m.element(k).try_into().unwrap_or([0.0; 16]);
                let a = Affine3A::from_mat4(Mat4::from_cols_array(&cols));
                let det = a.matrix3.determinant();
                if !(det.is_finite() && det.abs() > 1e-20 && a.inverse().is_finite()) {
                    return Err(error(
                        "inverseBindMatrices",
                        format!("matrix {k} (joint node {node}) is singular"),
                    ));
                }
                out.push(a);
            }
            out
        }
    };
    let fold_root = skeleton.filter(|&k| {
        joints.iter().position(|&j| j == k).is_some_and(|pos| {
            joints.len() > 1
                && ibm[pos].abs_diff_eq(Affine3A::IDENTITY, SKIN_ROOT_TOLERANCE)
                && !animated_above[k]
                && joints.iter().all(|&j| tree.contains(k, j))
        })
    });
    let skin = SkinInfo {
        joints,
        ibm,
        to_asset: Affine3A::IDENTITY,
    };
    Ok((skin, fold_root))
}

/// The joints' nodes and each node's joint: the nodes `is_joint` marks and every node below
/// one (but a skinned leaf, which is placed on its parent), in file order except that a
/// parent comes before its children.
fn joint_nodes(
    doc: &Doc<'_>,
    tree: &Tree,
    mut is_joint: Vec<bool>,
) -> Result<(Vec<usize>, Vec<Option<u16>>)> {
    let n = tree.parent.len();
    for &i in &tree.order {
        if let Some(p) = tree.parent[i]
            && is_joint[p]
            && !is_joint[i]
        {
            let skinned_leaf = doc
                .root
                .nodes
                .get(i)
                .is_some_and(|node| node.skin.is_some())
                && tree.children[i].is_empty();
            is_joint[i] = !skinned_leaf;
        }
    }
    let count = is_joint.iter().filter(|&&j| j).count();
    if count > MAX_JOINTS {
        return Err(Error::Limit {
            what: "joints",
            found: count as u64,
            limit: MAX_JOINTS as u64,
        });
    }
    let mut nodes = Vec::with_capacity(count);
    let mut joint_of: Vec<Option<u16>> = vec![None; n];
    let mut chain = Vec::new();
    for i in (0..n).filter(|&i| is_joint[i]) {
        chain.clear();
        let mut at = Some(i);
        while let Some(a) = at.filter(|&a| is_joint[a] && joint_of[a].is_none()) {
            chain.push(a);
            at = tree.parent[a];
        }
        for &a in chain.iter().rev() {
            joint_of[a] = Some(nodes.len() as u16);
            nodes.push(a);
        }
    }
    Ok((nodes, joint_of))
}

/// Each joint's bind transform where a skin gives it: every skin's joints from its inverse
/// bind matrices, in the space its root-most joint gives (which also sets the skin's
/// `to_asset`); `None` for joints no skin binds, which take their parents' and their rest
/// pose.
fn bind_worlds(
    skins: &mut [SkinInfo],
    tree: &Tree,
    joint_of: &[Option<u16>],
    count: usize,
) -> Vec<Option<Affine3A>> {
    let mut world: Vec<Option<Affine3A>> = vec![None; count];
    for skin in skins {
        let root_pos = (0..skin.joints.len())
            .min_by_key(|&k| (tree.depth[skin.joints[k]], k))
            .unwrap_or(0);
        let r = skin.joints[root_pos];
        let r_world = joint_of[r]
            .and_then(|j| world[j as usize])
            .unwrap_or(tree.world[r]);
        skin.to_asset = r_world * skin.ibm[root_pos];
        for (k, &node) in skin.joints.iter().enumerate() {
            if let Some(j) = joint_of[node]
                && world[j as usize].is_none()
            {
                world[j as usize] = Some(skin.to_asset * skin.ibm[k].inverse());
            }
        }
    }
    world
}

impl Rig {
    /// Where a static mesh of `node` goes: the transform of its vertices into the asset, and
    /// the joint it is bound to wholly (the node's own, or for a skinned leaf under a joint,
    /// its parent's: every other node below a joint is a joint), if any.
    pub fn place(&self, tree: &Tree, node: usize) -> (Affine3A, Option<u16>) {
        let world_of = |j: u16| {
            self.skeleton
                .as_ref()
                .and_then(|s| s.joints.get(usize::from(j)))
                .map_or(Affine3A::IDENTITY, |joint| joint.world)
        };
        if let Some(j) = self.joint_of.get(node).copied().flatten() {
            return (world_of(j), Some(j));
        }
        let local = tree.local.get(node).copied().unwrap_or_default();
        match tree.parent.get(node).copied().flatten() {
            Some(p) if self.joint_of.get(p).copied().flatten().is_some() => {
                let j = self.joint_of[p].unwrap_or_default();
                (world_of(j) * local, Some(j))
            }
            _ => (tree.world.get(node).copied().unwrap_or_default(), None),
        }
    }
}
