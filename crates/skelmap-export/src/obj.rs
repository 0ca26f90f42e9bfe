//! Wavefront OBJ output: one posed frame, every mesh as an object.

use std::collections::HashMap;
use std::io::Write;

use crate::{Error, Result};
use skelmap_core::asset::Asset;

/// Writes the asset's meshes at its frame: `v`, `vt` (with `v` flipped up, OBJ's convention)
/// and `vn` per vertex, `f` with 1-based `v/vt/vn` triples, one `o` per mesh. Coordinates
/// stay in the model's own axes (see [`Asset::up`]).
///
/// ```
/// use skelmap_core::{Model, asset, synth};
/// use skelmap_export::obj;
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Model::from_bytes(&bytes)?;
/// let asset = model.to_asset(&asset::Options { frame: Some(2), ..Default::default() })?;
/// let mut text = Vec::new();
/// obj::write(&asset, &mut text)?;
/// let text = String::from_utf8(text)?;
/// assert_eq!(text.lines().filter(|l| l.starts_with("v ")).count(), asset.num_vertices());
/// assert_eq!(text.lines().filter(|l| l.starts_with("f ")).count(), asset.num_triangles());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`Error::NoGeometry`] for an asset without triangles; [`Error::Io`].
pub fn write(asset: &Asset, out: impl Write) -> Result<()> {
    write_with(asset, None, out)
}

/// Where an OBJ's materials are: the `.mtl` file its `mtllib` line names (relative to the
/// OBJ), and for each of the asset's materials the texture file the `.mtl` gives it
/// (relative to the `.mtl`), if any.
#[derive(Debug, Clone, Copy)]
pub struct Materials<'a> {
    /// The `.mtl` file's name.
    pub mtllib: &'a str,
    /// Per material of [`Asset::materials`], its texture file.
    pub textures: &'a [Option<String>],
}

/// [`write`](fn@write), and with `materials` a `mtllib` line and a `usemtl` line for each mesh
/// that has a material (named as [`write_mtl`] names it).
///
/// ```
/// use skelmap_core::{Model, quake};
/// use skelmap_core::asset;
/// use skelmap_export::obj;
/// let model = Model::from_vec(quake::Builder::triangle().write())?;
/// let asset = model.to_asset(&asset::Options::default())?;
/// let (mut text, mut mtl) = (Vec::new(), Vec::new());
/// let textures = [Some("skin_0.png".to_string())];
/// let materials = obj::Materials { mtllib: "model.mtl", textures: &textures };
/// obj::write_with(&asset, Some(&materials), &mut text)?;
/// obj::write_mtl(&asset, &textures, &mut mtl)?;
/// assert!(String::from_utf8(text)?.contains("mtllib model.mtl\n"));
/// assert!(String::from_utf8(mtl)?.contains("map_Kd skin_0.png\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`write`](fn@write).
pub fn write_with(asset: &Asset, materials: Option<&Materials<'_>>, out: impl Write) -> Result<()> {
    if asset.num_triangles() == 0 {
        return Err(Error::NoGeometry {
            format: asset.format,
            what: "write as OBJ",
        });
    }
    let mut out = std::io::BufWriter::new(out);
    writeln!(out, "# skelmap {} export", asset.format)?;
    match (&asset.at, asset.frame) {
        _ if asset.given_pose => writeln!(out, "# a given pose")?,
        (Some((clip, seconds)), _) => writeln!(out, "# clip {clip} at {seconds} s")?,
        (None, Some(f)) => writeln!(out, "# frame {f}")?,
        (None, None) => writeln!(out, "# bind pose")?,
    }
    if let Some(materials) = materials {
        writeln!(out, "mtllib {}", materials.mtllib)?;
    }
    let names = match materials {
        Some(_) => material_names(asset),
        None => Vec::new(),
    };
    let mut base = 1usize;
    for mesh in &asset.meshes {
        writeln!(out, "o {}", obj_name(&mesh.name))?;
        if let Some(name) = mesh.material.and_then(|m| names.get(m)) {
            writeln!(out, "usemtl {name}")?;
        }
        for p in &mesh.positions {
            writeln!(out, "v {} {} {}", p[0], p[1], p[2])?;
        }
        let uvs = mesh
            .uvs
            .as_ref()
            .filter(|u| u.len() == mesh.positions.len());
        for uv in uvs.into_iter().flatten() {
            writeln!(out, "vt {} {}", uv[0], 1.0 - uv[1])?;
        }
        for n in &mesh.normals {
            writeln!(out, "vn {} {} {}", n[0], n[1], n[2])?;
        }
        for t in &mesh.triangles {
            let [a, b, c] = t.map(|i| i as usize + base);
            if uvs.is_some() {
                writeln!(out, "f {a}/{a}/{a} {b}/{b}/{b} {c}/{c}/{c}")?;
            } else {
                writeln!(out, "f {a}//{a} {b}//{b} {c}//{c}")?;
            }
        }
        base += mesh.positions.len();
    }
    out.flush()?;
    Ok(())
}

/// Writes the asset's materials as a Wavefront `.mtl`: per material a `newmtl` (its name,
/// made unique), its colour as `Kd` (and `d` when not opaque), and `map_Kd` with its entry
/// of `textures` when there is one.
///
/// # Errors
///
/// [`Error::Io`].
pub fn write_mtl(asset: &Asset, textures: &[Option<String>], out: impl Write) -> Result<()> {
    let mut out = std::io::BufWriter::new(out);
    writeln!(out, "# skelmap {} materials", asset.format)?;
    let names = material_names(asset);
    for ((i, material), name) in asset.materials.iter().enumerate().zip(&names) {
        let [r, g, b, a] = material.base_color;
        writeln!(out, "\nnewmtl {name}")?;
        writeln!(out, "Kd {r} {g} {b}")?;
        if a < 1.0 {
            writeln!(out, "d {a}")?;
        }
        if let Some(Some(texture)) = textures.get(i) {
            writeln!(out, "map_Kd {texture}")?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The name of each material in the `.mtl`, in order: material `i`'s own, without
/// whitespace ([`obj_name`]), with `_i` appended where another material's comes out the same.
fn material_names(asset: &Asset) -> Vec<String> {
    let own: Vec<String> = asset.materials.iter().map(|m| obj_name(&m.name)).collect();
    let mut uses: HashMap<&str, usize> = HashMap::with_capacity(own.len());
    for name in &own {
        *uses.entry(name.as_str()).or_default() += 1;
    }
    let shared: Vec<bool> = own
        .iter()
        .map(|name| uses.get(name.as_str()).is_some_and(|&n| n > 1))
        .collect();
    own.into_iter()
        .zip(shared)
        .enumerate()
        .map(|(i, (name, shared))| if shared { format!("{name}_{i}") } else { name })
        .collect()
}

/// An object name without whitespace (OBJ names end at the line).
fn obj_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    if cleaned.is_empty() {
        "mesh".into()
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skelmap_core::asset::{Material, Mesh, UpAxis};

    /// An asset of one triangle per material, each mesh using its material.
    fn asset_of(names: &[String]) -> Asset {
        Asset {
            format: "test",
            up: UpAxis::Y,
            front: [0.0, 0.0, 1.0],
            meshes: (0..names.len())
                .map(|i| Mesh {
                    name: format!("m{i}"),
                    material: Some(i),
                    positions: vec![[0.0; 3]; 3],
                    normals: vec![[0.0, 0.0, 1.0]; 3],
                    triangles: vec![[0, 1, 2]],
                    ..Mesh::default()
                })
                .collect(),
            materials: names
                .iter()
                .map(|name| Material {
                    name: name.clone(),
                    ..Material::default()
                })
                .collect(),
            images: Vec::new(),
            skeleton: None,
            clips: Vec::new(),
            tags: Vec::new(),
            frame: None,
            at: None,
            given_pose: false,
            replaced_non_finite: 0,
            code_page: Default::default(),
        }
    }

    /// The lines of `text` that start with `prefix`, without it.
    fn lines_after<'t>(text: &'t str, prefix: &str) -> Vec<&'t str> {
        text.lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .collect()
    }

    #[test]
    fn material_names_are_cleaned_and_numbered_where_they_meet() {
        // `a b` and `a_b` meet once cleaned; an empty name is `mesh`, as is `mesh` itself.
        let names = ["a b", "a_b", "x", "", "mesh", "x", "y"].map(String::from);
        let asset = asset_of(&names);
        let expected = ["a_b_0", "a_b_1", "x_2", "mesh_3", "mesh_4", "x_5", "y"];
        let (mut obj, mut mtl) = (Vec::new(), Vec::new());
        let materials = Materials {
            mtllib: "m.mtl",
            textures: &[],
        };
        write_with(&asset, Some(&materials), &mut obj).unwrap();
        write_mtl(&asset, &[], &mut mtl).unwrap();
        let (obj, mtl) = (
            String::from_utf8(obj).unwrap(),
            String::from_utf8(mtl).unwrap(),
        );
        assert_eq!(lines_after(&obj, "usemtl "), expected);
        assert_eq!(lines_after(&mtl, "newmtl "), expected);
    }

    /// 40,000 materials, every name shared by two of them: each name is cleaned once and
    /// looked up in a table, where comparing every material with every other would be 1.6
    /// billion comparisons.
    #[test]
    fn many_materials_are_named_with_one_pass() {
        let names: Vec<String> = (0..40_000).map(|i| format!("skin {}", i / 2)).collect();
        let asset = asset_of(&names);
        let mut mtl = Vec::new();
        write_mtl(&asset, &[], &mut mtl).unwrap();
        let mtl = String::from_utf8(mtl).unwrap();
        let written = lines_after(&mtl, "newmtl ");
        assert_eq!(written.len(), names.len());
        for (i, name) in written.iter().enumerate() {
            assert_eq!(*name, format!("skin_{}_{i}", i / 2));
        }
    }
}
