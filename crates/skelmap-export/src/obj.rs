//! Wavefront OBJ output: one posed frame, every mesh as an object.

use std::io::Write;

use crate::scene::Scene;
use crate::{Error, Result};

/// Writes the scene's meshes at its frame: `v`, `vt` (with `v` flipped up, OBJ's convention)
/// and `vn` per vertex, `f` with 1-based `v/vt/vn` triples, one `o` per mesh. Coordinates
/// stay in the model's own axes (see [`Scene::up`]).
///
/// ```
/// use skelmap_core::{Model, synth};
/// use skelmap_export::{SceneOptions, obj, scene};
/// let bytes = synth::tube(&synth::TubeParams::default()).write()?;
/// let model = Model::from_bytes(&bytes)?;
/// let scene = scene(&model, &SceneOptions { frame: Some(2), ..Default::default() })?;
/// let mut text = Vec::new();
/// obj::write_obj(&scene, &mut text)?;
/// let text = String::from_utf8(text)?;
/// assert_eq!(text.lines().filter(|l| l.starts_with("v ")).count(), scene.num_vertices());
/// assert_eq!(text.lines().filter(|l| l.starts_with("f ")).count(), scene.num_triangles());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`Error::NoGeometry`] for a scene without triangles; [`Error::Io`].
pub fn write_obj(scene: &Scene, out: impl Write) -> Result<()> {
    if scene.num_triangles() == 0 {
        return Err(Error::NoGeometry {
            format: scene.format,
            what: "write as OBJ",
        });
    }
    let mut out = std::io::BufWriter::new(out);
    writeln!(out, "# skelmap {} export", scene.format)?;
    match scene.frame {
        Some(f) => writeln!(out, "# frame {f}")?,
        None => writeln!(out, "# bind pose")?,
    }
    let mut base = 1usize;
    for mesh in &scene.meshes {
        writeln!(out, "o {}", obj_name(&mesh.name))?;
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
