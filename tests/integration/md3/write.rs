//! The MD3 writer (`md3::Builder::from_asset`, through the write dispatch): models read back
//! bit for bit (positions, normals as decoded, texture coordinates, triangles, tags) from
//! fixtures and every shared MD3, the lat/long normal encoding over every code, what it
//! refuses (positions past 16 bits of 1/64, skeletal animation unbaked), what it splits
//! (surfaces past ioquake3's limits) and what it notes (names cut, ioquake3's limits).

use skelmap::asset::{self, Asset, WriteOptions};
use skelmap::glam::{Affine3A, Vec3};
use skelmap::md3::write::encode_normal;
use skelmap::md3::{Builder, Md3};
use skelmap::model::convert::{self, Posed};
use skelmap::skin::morph::lat_long_normal;
use skelmap::{Format, Model, Parse};

use crate::support::corpus_engines_dir;

/// `asset` written as an MD3 through the write dispatch: its bytes and notes.
fn written(asset: &Asset, bake: bool) -> (Vec<u8>, Vec<String>) {
    let w = skelmap::model::write(Format::Md3, asset, &WriteOptions::bake(bake)).unwrap();
    assert_eq!(
        (w.format, w.files.len(), w.first_frame),
        (Format::Md3, 1, 0)
    );
    (w.files.into_iter().next().unwrap().bytes, w.notes)
}

/// What differs between two MD3s in what a model draws and attaches: per surface the
/// stored positions, decoded normals, texture coordinates and triangles, and per frame every
/// tag's name, origin and axes, bit for bit. Empty when they agree.
fn differences(a: &Md3<'_>, b: &Md3<'_>) -> Vec<String> {
    let mut out = Vec::new();
    if (a.num_frames(), a.num_tags(), a.surfaces().len())
        != (b.num_frames(), b.num_tags(), b.surfaces().len())
    {
        out.push("counts".to_string());
        return out;
    }
    for (k, (s, t)) in a.surfaces().iter().zip(b.surfaces()).enumerate() {
        if s.num_vertices() != t.num_vertices() || s.num_triangles() != t.num_triangles() {
            out.push(format!("surface {k}: counts"));
            continue;
        }
        if (0..s.num_triangles()).any(|i| s.triangle(i) != t.triangle(i)) {
            out.push(format!("surface {k}: triangles"));
        }
        let st = |x: &skelmap::md3::Surface<'_>, v| x.texcoord(v).map(|c| c.map(f32::to_bits));
        if (0..s.num_vertices()).any(|v| st(s, v) != st(t, v)) {
            out.push(format!("surface {k}: texture coordinates"));
        }
        for f in 0..a.num_frames() {
            let (x, y) = (s.frame_vertices(f).unwrap(), t.frame_vertices(f).unwrap());
            if x.iter().zip(y).any(|(p, q)| p.xyz != q.xyz) {
                out.push(format!("surface {k} frame {f}: positions"));
            }
            let decoded = |v: &skelmap::md3::raw::Md3XyzNormal| lat_long_normal(v.normal.get());
            if x.iter().zip(y).any(|(p, q)| decoded(p) != decoded(q)) {
                out.push(format!("surface {k} frame {f}: normals"));
            }
        }
    }
    for f in 0..a.num_frames() {
        for (x, y) in a.tags(f).zip(b.tags(f)) {
            let bits = |t: &skelmap::md3::Tag<'_>| {
                let axis = t.axis().map(|r| r.map(f32::to_bits));
                (t.name().to_vec(), t.origin().map(f32::to_bits), axis)
            };
            if bits(&x) != bits(&y) {
                out.push(format!("frame {f}: tag {:?}", x.name()));
            }
        }
    }
    out
}

/// `bytes` (an MD3) read, converted to an asset and written back as an MD3.
fn rewritten(bytes: &[u8]) -> (Vec<u8>, Vec<String>) {
    let model = Model::from_bytes(bytes).unwrap();
    written(&convert::asset_of(&model).unwrap(), false)
}

#[test]
fn every_lat_long_code_encodes_back_to_its_normal() {
    for code in 0..=u16::MAX {
        let n = lat_long_normal(code);
        assert_eq!(lat_long_normal(encode_normal(n)), n, "{code:#06x}");
    }
    // A normal not on the grid goes to the nearest code, and one without length to +Z.
    let n = Vec3::new(0.3, -0.5, 0.8).normalize().to_array();
    let got = Vec3::from(lat_long_normal(encode_normal(n)));
    assert!(got.angle_between(Vec3::from(n)) < 1.5f32.to_radians());
    assert_eq!(encode_normal([0.0; 3]), 0);
}

#[test]
fn an_animated_fixture_with_tags_comes_back_bit_for_bit() {
    let bytes = super::animated().write();
    let (back, notes) = rewritten(&bytes);
    assert_eq!(notes, Vec::<String>::new());
    let (a, b) = (Md3::parse(&bytes).unwrap(), Md3::parse(&back).unwrap());
    assert_eq!(differences(&a, &b), Vec::<String>::new());
    // The shaders come back; the frames' summaries are recomputed from the vertices.
    let shaders: Vec<&[u8]> = b.surfaces().iter().map(|s| s.shader_name()).collect();
    assert_eq!(shaders, [&b"models/test/body"[..], b"models/test/cap"]);
    let model = Model::from_bytes(&back).unwrap();
    assert_eq!(model.diagnostics().warnings(), &[]);
    let f = b.frame(2).unwrap();
    let lo = f.bounds[0].map(|v| v.get());
    let hi = f.bounds[1].map(|v| v.get());
    let origin = f.local_origin.map(|v| v.get());
    assert_eq!(origin, core::array::from_fn(|k| (lo[k] + hi[k]) / 2.0));
}

#[test]
fn every_shared_md3_comes_back_bit_for_bit() {
    let Some(dir) = corpus_engines_dir("md3") else {
        return;
    };
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let source = Model::from_bytes(&bytes).unwrap();
        let (back, notes) = rewritten(&bytes);
        // Every frame of these two is named `(from 3DSMax)`: one clip, whose stem is cut to
        // leave room for its largest number (three digits in the first, `_from_3DSMa_100`;
        // two in the other). One clip comes back (a file without clips gets one of its
        // frames).
        let cut = |stem: &str| {
            format!(
                "1 clip name is read back otherwise: MD3 names clips by their frames' names, \
                 letters, digits and `_` in at most 15 bytes with the frame's number \
                 (`(from 3DSMax)` as `{stem}`)"
            )
        };
        let want = match name.as_str() {
            "trem_human_base_upper.md3" => vec![cut("_from_3DSMa")],
            "trem_rifle_hand.md3" => vec![cut("_from_3DSMax")],
            _ => Vec::new(),
        };
        assert_eq!(notes, want, "{name}");
        let clips = Model::from_bytes(&back).unwrap().clips().len();
        assert!(
            clips <= source.clips().len().max(1),
            "{name}: {clips} clips"
        );
        let (a, b) = (Md3::parse(&bytes).unwrap(), Md3::parse(&back).unwrap());
        assert_eq!(differences(&a, &b), Vec::<String>::new(), "{name}");
        let model = Model::from_bytes(&back).unwrap();
        let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&model), 0);
        assert_eq!((error.max, error.rms), (0.0, 0.0), "{name}: {error}");
        seen += 1;
    }
    assert_eq!(seen, 8);
}

/// A one-mesh asset of `positions` (no triangles needed) in `+Z` up.
fn points(positions: Vec<[f32; 3]>) -> Asset {
    let bytes = Builder::triangle().write();
    let mut asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    let mesh = &mut asset.meshes[0];
    mesh.normals = vec![[0.0, 0.0, 1.0]; positions.len()];
    mesh.uvs = None;
    mesh.positions = positions;
    asset
}

#[test]
fn positions_past_16_bits_of_1_64_are_refused_naming_the_extent() {
    let ok = points(vec![
        [-512.0, 32767.0 / 64.0, 0.0],
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
    ]);
    assert!(Builder::from_asset(&ok, false).is_ok());
    let far = points(vec![[0.0, 0.0, 0.0], [0.0, 0.0, -600.5], [0.0, 512.0, 0.0]]);
    let e = Builder::from_asset(&far, false).unwrap_err();
    assert_eq!(
        (e.format, e.what.as_str(), e.limit.as_str()),
        (
            "MD3",
            "a vertex at -600.5 units on Z (frame 'base')",
            "it stores positions in 1/64 unit in 16 bits, -512 to 511.98438 units, with no \
             scale"
        )
    );
}

#[test]
fn positions_are_rounded_to_the_nearest_64th() {
    let asset = points(vec![
        [0.01, -0.01, 0.5 / 64.0],
        [1.0 / 128.0 - 1e-4, 3.0, 7.99],
        [0.0; 3],
    ]);
    let bytes = Builder::from_asset(&asset, false).unwrap().builder.write();
    let md3 = Md3::parse(&bytes).unwrap();
    let xyz: Vec<[i16; 3]> = md3.surfaces()[0]
        .frame_vertices(0)
        .unwrap()
        .iter()
        .map(|v| v.xyz.map(|c| c.get()))
        .collect();
    assert_eq!(xyz, [[1, -1, 1], [0, 192, 511], [0, 0, 0]]);
}

/// A strip of `quads` quads: `2 · quads + 2` vertices and `2 · quads` triangles.
fn strip(quads: usize) -> Asset {
    let n = 2 * quads + 2;
    let mut asset = points(
        (0..n)
            .map(|i| [(i / 2) as f32 / 16.0, (i % 2) as f32, 0.0])
            .collect(),
    );
    let mesh = &mut asset.meshes[0];
    mesh.triangles = (0..quads as u32)
        .flat_map(|q| {
            [
                [2 * q, 2 * q + 2, 2 * q + 1],
                [2 * q + 1, 2 * q + 2, 2 * q + 3],
            ]
        })
        .collect();
    asset
}

#[test]
fn a_mesh_past_ioquake3_s_surface_limits_is_split_and_draws_the_same() {
    // 5002 vertices: past 4096 vertices a surface (and below 8192 triangles).
    let asset = strip(2500);
    let (bytes, notes) = written(&asset, false);
    assert_eq!(
        notes,
        [
            "mesh 'textures/triangle' (5002 vertices, 5000 triangles) is past ioquake3's 4096 \
             vertices or 8192 triangles a surface: written as 2 surfaces"
        ]
    );
    let md3 = Md3::parse(&bytes).unwrap();
    let counts: Vec<(usize, usize, &[u8])> = md3
        .surfaces()
        .iter()
        .map(|s| (s.num_vertices(), s.num_triangles(), s.name()))
        .collect();
    // The first surface takes triangles while their vertices fit; the cut shares two.
    assert_eq!(
        counts,
        [
            (4096, 4094, &b"textures/triangle"[..]),
            (908, 906, &b"textures/triangle_2"[..])
        ]
    );
    let model = Model::from_bytes(&bytes).unwrap();
    let error = convert::skinning_error(Posed::Asset(&asset), Posed::Model(&model), 0);
    assert_eq!(error.max, 0.0, "{error}");
    assert_eq!(model.num_triangles(), 5000);
}

#[test]
fn long_names_are_cut_with_a_note_and_ioquake3_s_limits_noted() {
    let mut asset = points(vec![[0.0; 3]; 3]);
    asset.meshes[0].name = "s".repeat(70);
    asset.materials[0].name = "textures/".to_string() + &"x".repeat(60);
    // The triangle's own tag_weapon, and 17 more.
    for k in 0..17 {
        asset.tags.push(asset::Tag {
            name: format!("tag_{k}"),
            pose: Affine3A::from_translation(Vec3::new(k as f32, 0.0, 0.0)),
            frames: Vec::new(),
        });
    }
    let (bytes, notes) = written(&asset, false);
    assert_eq!(
        notes,
        [
            "the shader name \"textures/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\" \
             is 69 bytes: cut to 63, as an MD3's 64-byte field holds it with its NUL",
            &format!(
                "the surface name {:?} is 70 bytes: cut to 63, as an MD3's 64-byte field holds \
                 it with its NUL",
                "s".repeat(70)
            ),
            "18 tags: past ioquake3's 16 (DarkPlaces and FTE load more)",
        ]
    );
    let md3 = Md3::parse(&bytes).unwrap();
    assert_eq!(md3.surfaces()[0].name().len(), 63);
    assert_eq!(md3.surfaces()[0].shader_name().len(), 63);
    let tag = md3.tag(0, 17).unwrap();
    assert_eq!(
        (tag.name(), tag.origin()),
        (&b"tag_16"[..], [16.0, 0.0, 0.0])
    );
}

#[test]
fn skeletal_models_are_baked_with_their_attachment_joints_as_tags() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let mut asset = convert::asset_of(&source).unwrap();
    let e = Builder::from_asset(&asset, false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "MD3 cannot hold skeletal animation: it stores each frame's vertices, not joints; bake \
         every frame's skinned vertices with `--bake`"
    );
    // Joint 2 an attachment: a tag in every frame, where the joint is.
    asset.skeleton.as_mut().unwrap().attachments = vec![2];
    let (out, notes) = written(&asset, true);
    assert_eq!(notes, Vec::<String>::new());
    let model = Model::from_bytes(&out).unwrap();
    assert_eq!((model.num_frames(), model.num_tags()), (9, 1));
    let joint = asset.skeleton.as_ref().unwrap().joints[2].name.clone();
    assert_eq!(model.attachment(0).unwrap().name, joint.as_bytes());
    let keys = asset.joint_frames().unwrap();
    let skeleton = asset.skeleton.as_ref().unwrap();
    for (f, keys) in keys.iter().enumerate() {
        let want = skeleton.world(keys)[2];
        let got = model.tag(f, 0).unwrap();
        assert!(got.abs_diff_eq(want, 1e-5), "frame {f}: {got:?} {want:?}");
    }
    let error = convert::skinning_error(Posed::Model(&source), Posed::Model(&model), 0);
    assert!(error.max < 1.5e-3, "{error}");
}
