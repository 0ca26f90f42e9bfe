//! Mesh primitives: attributes read and checked against each other, triangles from every
//! triangle mode, influences from every `JOINTS_n`/`WEIGHTS_n` set, morph targets, and the
//! placement in the asset.

use glam::{Affine3A, Mat3A, Vec3};
use gltf::json::accessor::{ComponentType, Type};
use gltf::json::mesh::{Mode, Semantic};
use gltf::json::validation::Checked;
use skelmap_core::asset::{self, Influences, MorphTarget, UNBOUND};

use super::access::{Doc, Finite, Norm};
use super::error::{Error, Result};
use super::nodes::SkinInfo;

/// One primitive read from the file, before it is placed.
pub(crate) struct Primitive {
    pub name: String,
    pub material: Option<usize>,
    pub positions: Vec<Vec3>,
    /// `None`: computed flat (the vertices are then one per triangle corner).
    pub normals: Option<Vec<Vec3>>,
    pub uvs: Option<Vec<[f32; 2]>>,
    pub colors: Option<Vec<[u8; 4]>>,
    pub triangles: Vec<[u32; 3]>,
    /// Empty unless skinned.
    pub influences: Influences,
    /// Position and normal displacements per morph target.
    pub targets: Vec<Displacements>,
}

/// One morph target's position displacements (one a vertex, or none for a target that
/// moves no position), and its normal displacements where the primitive has normals.
pub(crate) type Displacements = (Vec<Vec3>, Option<Vec<Vec3>>);

fn vec3s(values: &[[f32; 3]]) -> Vec<Vec3> {
    values.iter().map(|&v| Vec3::from(v)).collect()
}

/// Where a primitive is, for its errors, and its vertex count, which every attribute matches.
#[derive(Clone, Copy)]
struct At {
    mesh: usize,
    primitive: usize,
    vertices: usize,
}

impl At {
    fn error(self, field: &'static str, problem: String) -> Error {
        Error::Mesh {
            index: self.mesh,
            primitive: self.primitive,
            field,
            problem,
        }
    }

    /// An attribute of `count` elements, which must be one a vertex.
    fn same_count(self, field: &'static str, count: usize) -> Result<()> {
        if count == self.vertices {
            Ok(())
        } else {
            let n = self.vertices;
            Err(self.error(field, format!("{count} elements; POSITION has {n}")))
        }
    }
}

/// A primitive's attribute accessors by semantic, its morph targets' position and normal
/// accessors, and its indices, material and mode.
struct Parts {
    /// By semantic, so that finding one is a look-up however many sets a primitive lists.
    attributes: std::collections::BTreeMap<Semantic, usize>,
    targets: Vec<(Option<usize>, Option<usize>)>,
    indices: Option<usize>,
    material: Option<usize>,
    mode: Checked<Mode>,
}

impl Parts {
    fn of(doc: &Doc<'_>, m: usize, p: usize) -> Parts {
        let mesh = &doc.root.meshes[m];
        let prim = &mesh.primitives[p];
        Parts {
            attributes: prim
                .attributes
                .iter()
                .filter_map(|(k, v)| match k {
                    Checked::Valid(s) => Some((s.clone(), v.value())),
                    Checked::Invalid => None,
                })
                .collect(),
            targets: prim
                .targets
                .iter()
                .flatten()
                .map(|t| (t.positions.map(|a| a.value()), t.normals.map(|a| a.value())))
                .collect(),
            indices: prim.indices.map(|i| i.value()),
            material: prim.material.map(|i| i.value()),
            mode: prim.mode,
        }
    }

    /// The accessor of attribute `semantic`, if the primitive has it.
    fn find(&self, semantic: Semantic) -> Option<usize> {
        self.attributes.get(&semantic).copied()
    }
}

/// The attribute name of texture coordinate set `set`, for errors.
fn texcoord_name(set: u32) -> &'static str {
    const NAMES: [&str; 4] = ["TEXCOORD_0", "TEXCOORD_1", "TEXCOORD_2", "TEXCOORD_3"];
    NAMES.get(set as usize).copied().unwrap_or("TEXCOORD_n")
}

/// Reads primitive `p` of mesh `m`; `skin` (with the node-to-joint map) when its node is
/// skinned. `None` for a primitive of points or lines, which the asset cannot hold.
pub(crate) fn read(
    doc: &mut Doc<'_>,
    m: usize,
    p: usize,
    skin: Option<(&SkinInfo, &[Option<u16>])>,
) -> Result<Option<Primitive>> {
    let parts = Parts::of(doc, m, p);
    let mut at = At {
        mesh: m,
        primitive: p,
        vertices: 0,
    };
    let mode = match parts.mode {
        Checked::Valid(mode) => mode,
        Checked::Invalid => return Err(at.error("mode", "not a glTF primitive mode".into())),
    };
    if matches!(
        mode,
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
    ) {
        return Ok(None);
    }
    if let Some(k) = parts.material.filter(|&k| k >= doc.root.materials.len()) {
        return Err(at.error(
            "material",
            format!(
                "material {k} does not exist ({} materials)",
                doc.root.materials.len()
            ),
        ));
    }
    let position = parts
        .find(Semantic::Positions)
        .ok_or_else(|| at.error("POSITION", "missing".into()))?;
    let positions = doc
        .floats(
            position,
            "POSITION",
            &[Type::Vec3],
            Norm::Flag,
            Finite::Refuse,
        )?
        .arrays::<3>();
    at.vertices = positions.len();
    let corners = corners(doc, parts.indices, at)?;
    let triangles = triangles(&corners, mode, at)?;
    let normals = match parts.find(Semantic::Normals) {
        Some(a) => {
            let v = doc
                .floats(a, "NORMAL", &[Type::Vec3], Norm::Flag, Finite::Replace)?
                .arrays::<3>();
            at.same_count("NORMAL", v.len())?;
            Some(vec3s(&v))
        }
        None => None,
    };
    // The asset keeps one coordinate set: the one the base colour texture samples, else the
    // first where the primitive lacks that one (its transform then not applied).
    let wanted = parts
        .material
        .map_or(0, |m| super::material::uv_set(doc, m));
    let set = (parts.find(Semantic::TexCoords(wanted)).map(|a| (a, wanted)))
        .or_else(|| parts.find(Semantic::TexCoords(0)).map(|a| (a, 0)));
    let uvs = match set {
        Some((a, set)) => {
            let field = texcoord_name(set);
            let v = doc
                .floats(a, field, &[Type::Vec2], Norm::Flag, Finite::Replace)?
                .arrays::<2>();
            at.same_count(field, v.len())?;
            let transform = (parts.material.filter(|_| set == wanted))
                .map(|m| super::material::uv_transform(doc, m));
            match transform.transpose()?.flatten() {
                Some([[a, b, c], [d, e, f]]) => Some(
                    v.iter()
                        .map(|&[s, t]| [a * s + b * t + c, d * s + e * t + f])
                        .collect(),
                ),
                None => Some(v),
            }
        }
        None => None,
    };
    let colors = match parts.find(Semantic::Colors(0)) {
        Some(a) => Some(colors(doc, a, at)?),
        None => None,
    };
    let influences = match skin {
        Some((skin, joint_of)) => influences(doc, &parts, skin, joint_of, at)?,
        None => Influences::default(),
    };
    let targets = morph_targets(doc, &parts.targets, normals.is_some(), at)?;
    let name = doc.root.meshes[m].name.clone();
    let mut prim = Primitive {
        name: name.unwrap_or_else(|| format!("mesh {m}")),
        material: parts.material,
        positions: vec3s(&positions),
        normals,
        uvs,
        colors,
        triangles,
        influences,
        targets,
    };
    if prim.normals.is_none() {
        prim.unweld();
    }
    Ok(Some(prim))
}

/// The vertex of every triangle corner: the indices, checked against the vertex count, or
/// every vertex in order for a primitive without indices.
fn corners(doc: &mut Doc<'_>, indices: Option<usize>, at: At) -> Result<Vec<u32>> {
    let n = at.vertices;
    let Some(i) = indices else {
        return Ok((0..n as u32).collect());
    };
    let list = doc
        .uints(
            i,
            "indices",
            &[Type::Scalar],
            &[ComponentType::U8, ComponentType::U16, ComponentType::U32],
        )?
        .values;
    if let Some((k, &v)) = list.iter().enumerate().find(|&(_, &v)| v as usize >= n) {
        return Err(at.error(
            "indices",
            format!("index {v} at position {k} is past the {n} vertices"),
        ));
    }
    Ok(list)
}

/// The triangles `corners` make in `mode`: strips and fans unrolled (with a strip's every
/// other triangle turned to keep its winding), degenerate ones dropped.
fn triangles(corners: &[u32], mode: Mode, at: At) -> Result<Vec<[u32; 3]>> {
    let whole = |t: &[u32; 3]| t[0] != t[1] && t[1] != t[2] && t[0] != t[2];
    Ok(match mode {
        Mode::TriangleStrip => (0..corners.len().saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    [corners[i], corners[i + 1], corners[i + 2]]
                } else {
                    [corners[i + 1], corners[i], corners[i + 2]]
                }
            })
            .filter(whole)
            .collect(),
        Mode::TriangleFan => (1..corners.len().saturating_sub(1))
            .map(|i| [corners[i], corners[i + 1], corners[0]])
            .filter(whole)
            .collect(),
        _ => {
            if !corners.len().is_multiple_of(3) {
                return Err(at.error(
                    "indices",
                    format!("{} corners do not make whole triangles", corners.len()),
                ));
            }
            corners
                .chunks_exact(3)
                .map(|c| [c[0], c[1], c[2]])
                .collect()
        }
    })
}

/// `COLOR_0` as bytes, RGB or RGBA (alpha 1 where absent), clamped to 0..1 first.
fn colors(doc: &mut Doc<'_>, accessor: usize, at: At) -> Result<Vec<[u8; 4]>> {
    let v = doc.floats(
        accessor,
        "COLOR_0",
        &[Type::Vec3, Type::Vec4],
        Norm::Always,
        Finite::Replace,
    )?;
    at.same_count("COLOR_0", v.count())?;
    let byte = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round() as u8;
    Ok((0..at.vertices)
        .map(|i| {
            let e = v.element(i);
            let g = |k: usize, d: f32| e.get(k).copied().unwrap_or(d);
            [
                byte(g(0, 0.0)),
                byte(g(1, 0.0)),
                byte(g(2, 0.0)),
                byte(g(3, 1.0)),
            ]
        })
        .collect())
}

/// Every vertex's influences over every `JOINTS_n`/`WEIGHTS_n` set, in the asset's joint
/// numbering (`joint_of` a skin joint's node; [`UNBOUND`] for a node that is no joint), zero
/// weights left out; empty without sets.
fn influences(
    doc: &mut Doc<'_>,
    parts: &Parts,
    skin: &SkinInfo,
    joint_of: &[Option<u16>],
    at: At,
) -> Result<Influences> {
    // In set order: the map is ordered by semantic.
    let sets: Vec<u32> = parts
        .attributes
        .keys()
        .filter_map(|s| match s {
            Semantic::Joints(k) => Some(*k),
            _ => None,
        })
        .collect();
    let mut lists: Vec<(Vec<u32>, Vec<f32>)> = Vec::with_capacity(sets.len());
    for &k in &sets {
        let weights = parts
            .find(Semantic::Weights(k))
            .ok_or_else(|| at.error("JOINTS_n", format!("JOINTS_{k} has no WEIGHTS_{k}")))?;
        let joints_acc = parts.find(Semantic::Joints(k)).unwrap_or_default();
        let j = doc.uints(
            joints_acc,
            "JOINTS_n",
            &[Type::Vec4],
            &[ComponentType::U8, ComponentType::U16],
        )?;
        at.same_count("JOINTS_n", j.count())?;
        let w = doc.floats(
            weights,
            "WEIGHTS_n",
            &[Type::Vec4],
            Norm::Always,
            Finite::Replace,
        )?;
        at.same_count("WEIGHTS_n", w.count())?;
        lists.push((j.values, w.values));
    }
    let mut influences = Influences::default();
    if lists.is_empty() {
        return Ok(influences);
    }
    for v in 0..at.vertices {
        let mut raw: Vec<(u16, f32)> = Vec::with_capacity(4 * lists.len());
        for (set, (joints, weights)) in lists.iter().enumerate() {
            for c in 0..4 {
                let k = 4 * v + c;
                let (Some(&sj), Some(&w)) = (joints.get(k), weights.get(k)) else {
                    continue;
                };
                if w <= 0.0 {
                    continue;
                }
                let Some(&node) = skin.joints.get(sj as usize) else {
                    return Err(at.error(
                        "JOINTS_n",
                        format!(
                            "vertex {v} of set {} weighs joint {sj}; the skin has {}",
                            sets.get(set).copied().unwrap_or_default(),
                            skin.joints.len()
                        ),
                    ));
                };
                let joint = joint_of.get(node).copied().flatten().unwrap_or(UNBOUND);
                raw.push((joint, w));
            }
        }
        influences.push(raw.into_iter(), UNBOUND);
    }
    Ok(influences)
}

/// Each morph target's position displacements (empty where it has none: zero for every
/// vertex) and, where the primitive has normals, its normal displacements.
fn morph_targets(
    doc: &mut Doc<'_>,
    targets: &[(Option<usize>, Option<usize>)],
    has_normals: bool,
    at: At,
) -> Result<Vec<Displacements>> {
    let mut morphs = Vec::with_capacity(targets.len());
    for &(positions_acc, normals_acc) in targets {
        let dp = match positions_acc {
            Some(a) => {
                let v = doc.floats(
                    a,
                    "morph target POSITION",
                    &[Type::Vec3],
                    Norm::Flag,
                    Finite::Refuse,
                )?;
                at.same_count("targets", v.count())?;
                vec3s(&v.arrays::<3>())
            }
            // No displacement is stored as none at all, not as a zero a vertex: a file
            // lists targets for nothing, and [`Primitive::shape`] adds nothing for it.
            None => Vec::new(),
        };
        let dn = match normals_acc {
            Some(a) if has_normals => {
                let v = doc.floats(
                    a,
                    "morph target NORMAL",
                    &[Type::Vec3],
                    Norm::Flag,
                    Finite::Replace,
                )?;
                at.same_count("targets", v.count())?;
                Some(vec3s(&v.arrays::<3>()))
            }
            _ => None,
        };
        morphs.push((dp, dn));
    }
    Ok(morphs)
}

impl Primitive {
    /// One vertex per triangle corner, so that flat normals can be given.
    fn unweld(&mut self) {
        let corners: Vec<usize> = self
            .triangles
            .iter()
            .flatten()
            .map(|&i| i as usize)
            .collect();
        let pick3 = |v: &[Vec3]| -> Vec<Vec3> {
            corners
                .iter()
                .map(|&i| v.get(i).copied().unwrap_or_default())
                .collect()
        };
        self.positions = pick3(&self.positions);
        if let Some(uvs) = &self.uvs {
            self.uvs = Some(
                corners
                    .iter()
                    .map(|&i| uvs.get(i).copied().unwrap_or_default())
                    .collect(),
            );
        }
        if let Some(colors) = &self.colors {
            self.colors = Some(
                corners
                    .iter()
                    .map(|&i| colors.get(i).copied().unwrap_or_default())
                    .collect(),
            );
        }
        if !self.influences.is_empty() {
            let mut out = Influences::default();
            for &i in &corners {
                out.push(self.influences.of(i).iter().copied(), UNBOUND);
            }
            self.influences = out;
        }
        for (dp, _) in self.targets.iter_mut().filter(|(dp, _)| !dp.is_empty()) {
            *dp = pick3(dp);
        }
        self.triangles = (0..self.triangles.len() as u32)
            .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
            .collect();
    }

    pub fn vertices(&self) -> usize {
        self.positions.len()
    }

    /// Positions and unit normals with morph `weights` applied, placed by `place`.
    pub fn shape(&self, weights: &[f32], place: &Affine3A) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
        let mut positions = self.positions.clone();
        let mut normals = self.normals.clone();
        for ((dp, dn), &w) in self.targets.iter().zip(weights) {
            if w == 0.0 {
                continue;
            }
            positions.iter_mut().zip(dp).for_each(|(p, d)| *p += w * *d);
            if let (Some(normals), Some(dn)) = (normals.as_mut(), dn) {
                normals.iter_mut().zip(dn).for_each(|(n, d)| *n += w * *d);
            }
        }
        let placed: Vec<[f32; 3]> = positions
            .iter()
            .map(|&p| place.transform_point3(p).into())
            .collect();
        let normals = match normals {
            Some(normals) => {
                let m = normal_matrix(place.matrix3);
                normals.iter().map(|&n| unit(m * n)).collect()
            }
            None => {
                let mut out = vec![[0.0, 0.0, 1.0]; placed.len()];
                let flip = place.matrix3.determinant() < 0.0;
                for t in &self.triangles {
                    let g =
                        |i: u32| Vec3::from(placed.get(i as usize).copied().unwrap_or_default());
                    let (a, b, c) = (g(t[0]), g(t[1]), g(t[2]));
                    let mut n = unit((b - a).cross(c - a));
                    if flip {
                        n = [-n[0], -n[1], -n[2]];
                    }
                    for &i in t {
                        if let Some(slot) = out.get_mut(i as usize) {
                            *slot = n;
                        }
                    }
                }
                out
            }
        };
        (placed, normals)
    }

    /// The asset mesh at morph `weights`, placed by `place`, bound wholly to `bound` (a
    /// static mesh under a joint) unless skinned.
    pub fn to_mesh(&self, weights: &[f32], place: &Affine3A, bound: Option<u16>) -> asset::Mesh {
        let (positions, normals) = self.shape(weights, place);
        let mut triangles = self.triangles.clone();
        if place.matrix3.determinant() < 0.0 {
            triangles.iter_mut().for_each(|t| t.swap(1, 2));
        }
        let influences = match bound {
            Some(j) if self.influences.is_empty() => {
                let mut inf = Influences::default();
                for _ in 0..positions.len() {
                    inf.push(std::iter::once((j, 1.0)), j);
                }
                inf
            }
            _ => self.influences.clone(),
        };
        asset::Mesh {
            name: self.name.clone(),
            material: self.material,
            positions,
            normals,
            uvs: self.uvs.clone(),
            colors: self.colors.clone(),
            triangles,
            influences,
            targets: Vec::new(),
        }
    }

    /// The morph target of `weights` against `base` (the mesh at its default weights).
    pub fn target(
        &self,
        name: String,
        weights: &[f32],
        place: &Affine3A,
        base: &asset::Mesh,
    ) -> MorphTarget {
        let (p, n) = self.shape(weights, place);
        let minus = |a: &[[f32; 3]], b: &[[f32; 3]]| -> Vec<[f32; 3]> {
            a.iter()
                .zip(b)
                .map(|(x, y)| [x[0] - y[0], x[1] - y[1], x[2] - y[2]])
                .collect()
        };
        MorphTarget {
            name,
            positions: minus(&p, &base.positions),
            normals: minus(&n, &base.normals),
        }
    }
}

/// The matrix that carries normals: the inverse transpose (the matrix itself when singular).
fn normal_matrix(m: Mat3A) -> Mat3A {
    let inv = m.inverse().transpose();
    if inv.is_finite() { inv } else { m }
}

/// `v` at unit length, `+Z` when it has none.
fn unit(v: Vec3) -> [f32; 3] {
    let n = v.normalize_or_zero();
    if n == Vec3::ZERO {
        [0.0, 0.0, 1.0]
    } else {
        n.into()
    }
}
