//! Quake MDL (`IDPO`) and GameStudio MDL2: one test per validation rule of `quake`'s module
//! docs (fixtures from `quake::Builder`, exact errors and offsets), groups, clips, the on-seam
//! rule, the palette, the `Model` API, truncation sweeps, and the corpus against the assimp
//! oracle (frame 0, corner by corner).

use skelmap::Parse;
use skelmap::gamestudio::PixelFormat;
use skelmap::model::{ClipOrigin, Pose, TexcoordLayout};
use skelmap::pose::Interpolation;
use skelmap::quake;
use skelmap::quake::write::{FrameDef, FrameEntry, SkinDef};
use skelmap::{Diagnostics, Error, Format, Limits, Model, Problem, WarningKind};

use crate::support::corpus_dir;

// Offsets in `quake::Builder::triangle()`: header 84; skin type at 84, texels 88..152;
// stverts at 152 (3 × 12); triangle at 188 (16); frame type at 204, its header at 208
// (bbox 8, name 16), vertices at 232 (3 × 4); the file ends at 244.
const SKIN: u64 = 84;
const STVERTS: u64 = 152;
const TRIANGLE: u64 = 188;
const FRAME: u64 = 204;
const VERTICES: u64 = 232;
const END: usize = 244;

fn err(bytes: &[u8]) -> Error {
    quake::Mdl::parse(bytes)
        .map(|_| ())
        .expect_err("broken file accepted")
}

fn err_with(bytes: &[u8], limits: &Limits) -> Error {
    quake::Mdl::parse_with(bytes, limits, &mut Diagnostics::new())
        .map(|_| ())
        .expect_err("broken file accepted")
}

/// `(format, what, offset, problem)` of an [`Error::Invalid`].
fn invalid(e: &Error) -> (Format, &'static str, u64, Problem) {
    match e {
        Error::Invalid {
            format,
            what,
            offset,
            problem,
        } => (*format, what, *offset, *problem),
        other => panic!("not an Invalid error: {other}"),
    }
}

/// `(what, offset, value)` of an [`Error::Unsupported`].
fn unsupported(e: &Error) -> (&'static str, u64, i64) {
    match e {
        Error::Unsupported {
            what,
            offset,
            value,
            ..
        } => (what, *offset, *value),
        other => panic!("not an Unsupported error: {other}"),
    }
}

/// `(what, offset, value, max)` of an [`Error::Limit`].
fn limit(e: &Error) -> (&'static str, u64, u64, u64) {
    match e {
        Error::Limit {
            what,
            offset,
            value,
            max,
            ..
        } => (what, *offset, *value, *max),
        other => panic!("not a Limit error: {other}"),
    }
}

fn put_i32(b: &mut [u8], at: u64, v: i32) {
    let at = at as usize;
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn pose(name: &str, lift: u8) -> FrameDef {
    FrameDef {
        name: name.into(),
        vertices: vec![([0, 0, lift], 1), ([2, 0, lift], 2), ([0, 2, lift], 3)],
    }
}

#[test]
fn the_triangle_fixture_is_clean_and_ends_where_the_offsets_say() {
    for b in [quake::Builder::triangle(), quake::Builder::mdl2_triangle()] {
        let bytes = b.write();
        let mut diag = Diagnostics::new();
        let m = quake::Mdl::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
        assert!(diag.is_empty(), "{:?}", diag.warnings());
        assert_eq!((m.num_vertices(), m.num_triangles()), (3, 1));
        assert_eq!((m.skins().len(), m.frames().len()), (1, 1));
        assert_eq!(m.frames().iter().next().unwrap().name(), b"base");
        assert_eq!(m.triangle(0), Some((true, [0, 1, 2])));
        assert_eq!(m.position(0, 2), Some([0.0, 1.0, 0.0]));
        assert_eq!(m.triangle(1), None);
        assert_eq!(m.position(1, 0), None);
    }
    assert_eq!(quake::Builder::triangle().write().len(), END);
    let m2 = quake::Builder::mdl2_triangle().write();
    assert_eq!(m2.len(), END + 64, "an RGB565 skin is 2 bytes a texel");
    let m = quake::Mdl::parse(&m2).unwrap();
    assert_eq!(m.format(), Format::Mdl);
    assert_eq!(m.skins()[0].format(), PixelFormat::Rgb565);
    let q = quake::Builder::triangle().write();
    assert_eq!(quake::Mdl::parse(&q).unwrap().format(), Format::Quake);
}

#[test]
fn rule1_magic_and_quake_version() {
    let mut bytes = quake::Builder::triangle().write();
    bytes[..4].copy_from_slice(b"MDL3");
    assert!(matches!(
        err(&bytes),
        Error::BadMagic {
            format: Format::Quake,
            ..
        }
    ));
    let bytes = quake::Builder {
        version: 5,
        ..quake::Builder::triangle()
    }
    .write();
    let e = err(&bytes);
    assert_eq!(unsupported(&e), ("header.version", 4, 5));
    assert_eq!(e.format(), Some(Format::Quake));
    // MDL2 files write version 0, and Quake's version rule is not theirs.
    let mdl2 = quake::Builder {
        version: 0,
        ..quake::Builder::mdl2_triangle()
    };
    assert!(quake::Mdl::parse(&mdl2.write()).is_ok());
}

#[test]
fn rule2_scale_and_origin_finite() {
    let mut b = quake::Builder::triangle();
    b.scale[1] = f32::NAN;
    let e = err(&b.write());
    assert_eq!(
        invalid(&e),
        (Format::Quake, "header.scale", 12, Problem::NotFinite)
    );
    let mut b = quake::Builder::mdl2_triangle();
    b.origin[2] = f32::INFINITY;
    assert_eq!(
        invalid(&err(&b.write())),
        (Format::Mdl, "header.scale_origin", 28, Problem::NotFinite)
    );
}

#[test]
fn rule3_counts_not_negative_at_least_one_and_limited() {
    let cases = [
        (48, -1, "header.numskins", Problem::Negative { value: -1 }),
        (52, -8, "header.skinwidth", Problem::Negative { value: -8 }),
        (60, 0, "header.numverts", Problem::Empty),
        (64, 0, "header.numtris", Problem::Empty),
        (68, 0, "header.numframes", Problem::Empty),
        (68, -3, "header.numframes", Problem::Negative { value: -3 }),
    ];
    for (at, value, what, problem) in cases {
        let mut bytes = quake::Builder::triangle().write();
        put_i32(&mut bytes, at, value);
        assert_eq!(
            invalid(&err(&bytes)),
            (Format::Quake, what, at, problem),
            "{what} = {value}"
        );
    }
    let bytes = quake::Builder::triangle().write();
    let tight = Limits {
        max_vertices_per_mesh: 2,
        ..Limits::default()
    };
    assert_eq!(
        limit(&err_with(&bytes, &tight)),
        ("header.numverts", 60, 3, 2)
    );
    let tight = Limits {
        max_skins: 0,
        ..Limits::default()
    };
    assert_eq!(
        limit(&err_with(&bytes, &tight)),
        ("header.numskins", 48, 1, 0)
    );
}

#[test]
fn rule4_skin_size_positive_and_limited_with_a_width_warning() {
    for (at, what) in [(52, "header.skinwidth"), (56, "header.skinheight")] {
        let mut bytes = quake::Builder::triangle().write();
        put_i32(&mut bytes, at, 0);
        let problem = Problem::NotPositive { value: 0.0 };
        assert_eq!(invalid(&err(&bytes)), (Format::Quake, what, at, problem));
    }
    // Without skins the size is not used.
    let bare = quake::Builder {
        skins: vec![],
        skin_size: [0, 0],
        ..quake::Builder::triangle()
    };
    assert!(quake::Mdl::parse(&bare.write()).is_ok());
    let tight = Limits {
        max_skin_dimension: 4,
        ..Limits::default()
    };
    let e = err_with(&quake::Builder::triangle().write(), &tight);
    assert_eq!(limit(&e), ("header.skinwidth", 52, 8, 4));
    let odd = quake::Builder {
        skin_size: [6, 8],
        skins: vec![SkinDef::Single {
            code: 0,
            texels: vec![0; 48],
        }],
        ..quake::Builder::triangle()
    };
    let mut diag = Diagnostics::new();
    quake::Mdl::parse_with(&odd.write(), &Limits::default(), &mut diag).unwrap();
    let w = diag.get(WarningKind::SpecLimit).unwrap();
    assert_eq!((w.what, w.offset), ("header.skinwidth", 52));
}

#[test]
fn rule5_skin_types() {
    let mut bytes = quake::Builder::triangle().write();
    put_i32(&mut bytes, SKIN, 2);
    let e = err(&bytes);
    assert_eq!(unsupported(&e), ("skin.type", SKIN, 2));
    assert!(
        e.to_string().contains("type 0 (single) or 1 (group)"),
        "{e}"
    );
    // MDL2 skins are GameStudio codes: 1 is not one.
    let mut bytes = quake::Builder::mdl2_triangle().write();
    put_i32(&mut bytes, SKIN, 1);
    let e = err(&bytes);
    assert_eq!(e.format(), Some(Format::Mdl));
    assert_eq!(unsupported(&e), ("skin.type", SKIN, 1));
    // 8-bit and ARGB4444 MDL2 skins read.
    for (code, size) in [(0, 64), (3, 128)] {
        let b = quake::Builder {
            skins: vec![SkinDef::Single {
                code,
                texels: vec![7; size],
            }],
            ..quake::Builder::mdl2_triangle()
        };
        assert!(quake::Mdl::parse(&b.write()).is_ok(), "code {code}");
    }
}

/// A Quake MDL with a 2-image skin group and, after a single frame, a 3-pose frame group.
pub fn grouped() -> quake::Builder {
    quake::Builder {
        skins: vec![
            SkinDef::Single {
                code: 0,
                texels: vec![1; 64],
            },
            SkinDef::Group {
                intervals: vec![0.25, 0.5],
                images: vec![vec![2; 64], vec![3; 64]],
            },
        ],
        frames: vec![
            FrameEntry::Single(pose("stand1", 0)),
            FrameEntry::Group {
                intervals: vec![0.1, 0.2, 0.3],
                frames: vec![pose("fly1", 1), pose("fly2", 2), pose("fly3", 3)],
            },
        ],
        ..quake::Builder::triangle()
    }
}

// Offsets in `grouped()`: skin 0 at 84 (68 bytes); the group's type at 152, count at 156,
// intervals at 160 and 164, images from 168 to 296; stverts at 296, triangle at 332; frame 0
// at 348 (40 bytes); the frame group's type at 388, its header at 392 (count at 392),
// intervals at 404, 408, 412, poses from 416 (36 bytes each).
const SKIN_GROUP: u64 = 152;
const FRAME_GROUP: u64 = 388;

#[test]
fn groups_flatten_with_their_intervals_and_become_clips() {
    let bytes = grouped().write();
    assert_eq!(bytes.len(), 416 + 3 * 36);
    let m = quake::Mdl::parse(&bytes).unwrap();
    assert_eq!(m.skins().len(), 3);
    let g = m.skin_groups();
    assert_eq!((g.len(), g[1].first(), g[1].count()), (2, 1, 2));
    assert!(!g[0].is_group() && g[1].is_group());
    assert_eq!(g[1].intervals().collect::<Vec<_>>(), [0.25, 0.5]);
    assert_eq!(m.skins()[2].level(0).unwrap().2, &[3; 64][..]);
    let f: Vec<_> = m.frame_groups().collect();
    assert_eq!((f.len(), f[1].first(), f[1].count()), (2, 1, 3));
    assert_eq!(f[1].duration(), 0.3);
    let names: Vec<_> = m.frames().iter().map(|f| f.name_lossy()).collect();
    assert_eq!(names, ["stand1", "fly1", "fly2", "fly3"]);
    // With a group in the file, a pose is found by a walk over the entries: the same poses.
    let entries = |k: usize| {
        let pose = |i: usize| FrameDef {
            name: format!("p{k}_{i}").into_bytes(),
            vertices: vec![([0, 0, i as u8], 0); 3],
        };
        match k % 3 {
            0 => FrameEntry::Single(pose(0)),
            n => FrameEntry::Group {
                intervals: (1..=n + k % 2).map(|i| i as f32).collect(),
                frames: (0..n + k % 2).map(pose).collect(),
            },
        }
    };
    let long = quake::Builder {
        frames: (0..40).map(entries).collect(),
        ..quake::Builder::triangle()
    }
    .write();
    let long = quake::Mdl::parse(&long).unwrap();
    let in_order: Vec<_> = long
        .frames()
        .iter()
        .map(|f| f.header() as *const _)
        .collect();
    assert_eq!(in_order.len(), long.frames().len());
    for (i, &header) in in_order.iter().enumerate() {
        assert!(
            std::ptr::eq(long.frames().get(i).unwrap().header(), header),
            "pose {i}"
        );
        let mut walk = long.frames().iter();
        if let Some(skip) = i.checked_sub(3) {
            walk.nth(skip);
            assert_eq!(walk.len(), in_order.len() - skip - 1);
            let rest: Vec<_> = walk.map(|f| f.header() as *const _).collect();
            assert_eq!(rest, in_order[skip + 1..], "after pose {skip}");
        }
    }
    assert!(long.frames().get(in_order.len()).is_none());
    let by_index: Vec<_> = (0..5)
        .map_while(|i| m.frames().get(i))
        .map(|f| f.name_lossy())
        .collect();
    assert_eq!(by_index, names);
    assert_eq!(m.position(3, 0), Some([0.0, 0.0, 3.0]));

    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.clip_origin(), ClipOrigin::FrameGroups);
    let clips: Vec<_> = model
        .clips()
        .iter()
        .map(|c| (c.name.as_str(), c.first, c.count, (c.fps * 1000.0).round()))
        .collect();
    assert_eq!(clips, [("stand", 0, 1, 10_000.0), ("fly", 1, 3, 10_000.0)]);
    assert_eq!(model.num_frames(), 4);
    assert_eq!(model.skins().len(), 3);
}

#[test]
fn rule6_groups_have_members_and_rising_positive_intervals() {
    let cases: [(u64, f32, Problem); 3] = [
        (160, f32::NAN, Problem::NotFinite),
        (160, 0.0, Problem::NotPositive { value: 0.0 }),
        (
            164,
            0.125,
            Problem::Decreasing {
                value: 0.125,
                previous: 0.25,
            },
        ),
    ];
    for (at, value, problem) in cases {
        let mut bytes = grouped().write();
        bytes[at as usize..at as usize + 4].copy_from_slice(&value.to_le_bytes());
        let e = err(&bytes);
        assert_eq!(
            invalid(&e),
            (Format::Quake, "skin group.intervals", at, problem)
        );
    }
    let mut bytes = grouped().write();
    bytes[408..412].copy_from_slice(&0.05f32.to_le_bytes());
    let problem = Problem::Decreasing {
        value: 0.05f32.into(),
        previous: 0.1f32.into(),
    };
    let e = err(&bytes);
    assert_eq!(
        invalid(&e),
        (Format::Quake, "frame group.intervals", 408, problem)
    );
    let mut bytes = grouped().write();
    put_i32(&mut bytes, SKIN_GROUP + 4, 0);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Quake,
            "skin group.numskins",
            SKIN_GROUP + 4,
            Problem::Empty
        )
    );
    let mut bytes = grouped().write();
    put_i32(&mut bytes, FRAME_GROUP + 4, -2);
    assert_eq!(
        invalid(&err(&bytes)),
        (
            Format::Quake,
            "frame group.numframes",
            FRAME_GROUP + 4,
            Problem::Negative { value: -2 }
        )
    );
    // Members of all groups count against the limits, before any is read.
    let bytes = grouped().write();
    let tight = Limits {
        max_frames: 3,
        ..Limits::default()
    };
    assert_eq!(
        limit(&err_with(&bytes, &tight)),
        ("frame group.numframes", FRAME_GROUP + 4, 4, 3)
    );
    let tight = Limits {
        max_skins: 2,
        ..Limits::default()
    };
    assert_eq!(
        limit(&err_with(&bytes, &tight)),
        ("skin group.numskins", SKIN_GROUP + 4, 3, 2)
    );
    // A count of 2^31 − 1 is refused by the limit, not attempted.
    let mut bytes = grouped().write();
    put_i32(&mut bytes, FRAME_GROUP + 4, i32::MAX);
    assert!(matches!(err(&bytes), Error::Limit { .. }));
}

#[test]
fn rule7_triangle_indices_in_range() {
    for (k, v) in [(0u64, 3), (2, -1)] {
        let mut bytes = quake::Builder::triangle().write();
        let at = TRIANGLE + 4 + 4 * k;
        put_i32(&mut bytes, at, v);
        let problem = Problem::Index {
            index: v.into(),
            len: 3,
        };
        assert_eq!(
            invalid(&err(&bytes)),
            (Format::Quake, "triangle.vertindex", at, problem)
        );
    }
}

#[test]
fn rule8_frame_types() {
    let mut bytes = quake::Builder::triangle().write();
    put_i32(&mut bytes, FRAME, 2);
    let e = err(&bytes);
    assert_eq!(unsupported(&e), ("frame.type", FRAME, 2));
}

#[test]
fn rule9_normal_index_below_162() {
    let mut bytes = quake::Builder::triangle().write();
    bytes[(VERTICES + 4 + 3) as usize] = 162;
    let problem = Problem::Index {
        index: 162,
        len: 162,
    };
    assert_eq!(
        invalid(&err(&bytes)),
        (Format::Quake, "frame.vertices", VERTICES + 4 + 3, problem)
    );
}

#[test]
fn rule10_records_in_bounds_and_the_warnings() {
    for bytes in [
        quake::Builder::triangle().write(),
        quake::Builder::mdl2_triangle().write(),
        grouped().write(),
    ] {
        for cut in 0..bytes.len() {
            let e = err(&bytes[..cut]);
            assert!(matches!(e, Error::Truncated { .. }), "cut at {cut}: {e}");
        }
    }
    let e = err(&quake::Builder::triangle().write()[..VERTICES as usize + 5]);
    assert!(matches!(
        e,
        Error::Truncated {
            what: "frame.vertices",
            offset: VERTICES,
            need: 12,
            have: 5,
            ..
        }
    ));
    let b = quake::Builder {
        trailing: b"QMEX and more".to_vec(),
        stverts: vec![[0, 0, 0], [32, 9, 0], [0, 0, 7]],
        ..quake::Builder::triangle()
    };
    let mut diag = Diagnostics::new();
    quake::Mdl::parse_with(&b.write(), &Limits::default(), &mut diag).unwrap();
    let w = diag.get(WarningKind::TrailingBytes).unwrap();
    assert_eq!((w.what, w.offset), ("file", END as u64));
    let w = diag.get(WarningKind::SpecLimit).unwrap();
    assert_eq!((w.what, w.offset), ("stverts", STVERTS));
}

#[test]
fn seam_vertices_of_back_facing_triangles_move_half_a_skin() {
    let b = quake::Builder {
        stverts: vec![[0x20, 0, 0], [0, 4, 0], [1, 0, 4]],
        triangles: vec![(1, [0, 1, 2]), (0, [0, 1, 2])],
        ..quake::Builder::triangle()
    };
    let bytes = b.write();
    let m = quake::Mdl::parse(&bytes).unwrap();
    let px = |s: f32, t: f32| [(s + 0.5) / 8.0, (t + 0.5) / 8.0];
    assert_eq!(
        m.corner_texcoords(0),
        Some([px(0.0, 0.0), px(4.0, 0.0), px(0.0, 4.0)])
    );
    // Back-facing: the two seam vertices (onseam 0x20 and 1) shift by 8 / 2 texels.
    assert_eq!(
        m.corner_texcoords(1),
        Some([px(4.0, 0.0), px(4.0, 0.0), px(4.0, 4.0)])
    );
    // The model gives triangles (and their corners) counter-clockwise: reversed.
    let model = Model::from_bytes(&bytes).unwrap();
    let mesh = model.mesh(0).unwrap();
    assert_eq!(mesh.texcoord_layout(), TexcoordLayout::PerCorner);
    assert_eq!(mesh.triangle(0), Some([2, 1, 0]));
    assert_eq!(
        mesh.corner_texcoords(1),
        Some([px(4.0, 4.0), px(4.0, 0.0), px(4.0, 0.0)])
    );
}

#[test]
fn skins_decode_through_the_quake_palette() {
    let bytes = quake::Builder::triangle().write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.skin_palette(), quake::PALETTE);
    let rgba = model.skin_rgba(0).unwrap();
    assert_eq!(rgba.len(), 8 * 8 * 4);
    for (i, px) in rgba.chunks_exact(4).enumerate() {
        let [r, g, b] = quake::PALETTE[i];
        assert_eq!(px, [r, g, b, 255], "texel {i}");
    }
    // MDL2 8-bit skins have no palette in the file: the grey ramp.
    let b = quake::Builder {
        skins: vec![SkinDef::Single {
            code: 0,
            texels: (0..64).collect(),
        }],
        ..quake::Builder::mdl2_triangle()
    };
    let bytes = b.write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.format(), Format::Mdl);
    assert_eq!(&model.skin_rgba(0).unwrap()[4 * 9..4 * 10], [9, 9, 9, 255]);
}

#[test]
fn frames_deform_through_the_morph_kernel_scalar_and_simd_alike() {
    let bytes = grouped().write();
    let model = Model::from_bytes(&bytes).unwrap();
    let mut pose = Pose::default();
    model
        .pose(1, 3, 0.5, Interpolation::Nlerp, &mut pose)
        .unwrap();
    let (mut p, mut n) = (vec![[0.0; 3]; 3], vec![[0.0; 3]; 3]);
    model.deform(0, &pose, &mut p, &mut n).unwrap();
    assert_eq!(p, [[0.0, 0.0, 2.0], [2.0, 0.0, 2.0], [0.0, 2.0, 2.0]]);
    let m = model.view();
    let skelmap::model::View::Quake(q) = m else {
        panic!("not a Quake view")
    };
    for (a, b, t) in [(0, 3, 0.25), (2, 1, 0.75)] {
        let (mut ps, mut ns) = (vec![[0.0; 3]; 3], vec![[0.0; 3]; 3]);
        let (mut pv, mut nv) = (vec![[0.0; 3]; 3], vec![[0.0; 3]; 3]);
        q.tween(a, b, t, false, &mut ps, &mut ns).unwrap();
        q.tween(a, b, t, true, &mut pv, &mut nv).unwrap();
        for (x, y) in ps.iter().chain(&ns).zip(pv.iter().chain(&nv)) {
            assert!((0..3).all(|k| (x[k] - y[k]).abs() <= 1e-6), "{x:?} {y:?}");
        }
    }
}

// ---- corpus ----

/// assimp's OBJ: positions, texture coordinates and faces `(v, vt)` per corner (1-based).
struct Obj {
    v: Vec<[f32; 3]>,
    vt: Vec<[f32; 2]>,
    faces: Vec<[(usize, usize); 3]>,
}

fn read_obj(bytes: &[u8]) -> Obj {
    let text = String::from_utf8_lossy(bytes);
    let mut obj = Obj {
        v: vec![],
        vt: vec![],
        faces: vec![],
    };
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let floats = |w: std::str::SplitWhitespace<'_>| -> Vec<f32> {
            w.map(|x| x.parse().unwrap()).collect()
        };
        match words.next() {
            Some("v") => {
                let f = floats(words);
                obj.v.push([f[0], f[1], f[2]]);
            }
            Some("vt") => {
                let f = floats(words);
                obj.vt.push([f[0], f[1]]);
            }
            Some("f") => {
                let corner = |w: &str| {
                    let mut parts = w.split('/');
                    let v: usize = parts.next().unwrap().parse().unwrap();
                    let vt: usize = parts.next().unwrap().parse().unwrap();
                    (v - 1, vt - 1)
                };
                let c: Vec<_> = words.map(corner).collect();
                obj.faces.push([c[0], c[1], c[2]]);
            }
            _ => {}
        }
    }
    obj
}

/// Every Quake corpus file and the MDL2 bush open without findings, with the counts the walk
/// of their bytes gives, and frame 0 matches assimp corner by corner: positions as
/// `(x, z, −y)` within 1e-3, texture coordinates as `(u, 1 − v)` within 1e-5, both with
/// assimp's reversed winding (which the model's counter-clockwise triangles already are).
#[test]
fn every_quake_corpus_file_and_the_mdl2_bush_match_assimp_on_frame_0() {
    let Some(quake) = corpus_dir("mdl_quake") else {
        return;
    };
    let mdl = corpus_dir("mdl").unwrap();
    // file, format, skins, vertices, triangles, frames, frame entries.
    let expected = [
        (
            quake.join("bq_backpack.mdl"),
            Format::Quake,
            4,
            512,
            364,
            1,
            1,
        ),
        (quake.join("bq_invis.mdl"), Format::Quake, 1, 490, 324, 1, 1),
        (
            quake.join("bq_lavaball.mdl"),
            Format::Quake,
            1,
            654,
            496,
            3,
            3,
        ),
        (
            mdl.join("libgs_mdl2-bush.mdl"),
            Format::Mdl,
            1,
            73,
            132,
            1,
            1,
        ),
    ];
    for (path, format, skins, verts, tris, frames, entries) in expected {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let model = Model::open(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            model.diagnostics().is_empty(),
            "{name}: {:?}",
            model.diagnostics().warnings()
        );
        assert_eq!(model.format(), format, "{name}");
        let skelmap::model::View::Quake(q) = model.view() else {
            panic!("{name}: not a Quake view")
        };
        assert_eq!(
            (
                q.skins().len(),
                q.num_vertices(),
                q.num_triangles(),
                q.frames().len(),
                q.frame_groups().len()
            ),
            (skins, verts, tris, frames, entries),
            "{name}"
        );
        let mesh = model.mesh(0).unwrap();
        let mut pose = Pose::default();
        model.pose_bind(&mut pose);
        let (mut p, mut n) = (vec![[0.0; 3]; verts], vec![[0.0; 3]; verts]);
        model.deform(0, &pose, &mut p, &mut n).unwrap();

        let oracle = corpus_dir("oracle").unwrap().join(format!("{name}.obj"));
        let obj = read_obj(&std::fs::read(oracle).unwrap());
        assert_eq!(obj.faces.len(), tris, "{name}");
        let (mut worst_p, mut worst_uv) = (0.0f32, 0.0f32);
        for (t, face) in obj.faces.iter().enumerate() {
            let tri = mesh.triangle(t).unwrap();
            let uvs = mesh.corner_texcoords(t).unwrap();
            for (k, &(v, vt)) in face.iter().enumerate() {
                let ours = p[tri[k] as usize];
                let ours = [ours[0], ours[2], -ours[1]];
                let theirs = obj.v[v];
                (0..3).for_each(|c| worst_p = worst_p.max((ours[c] - theirs[c]).abs()));
                let uv = [uvs[k][0], 1.0 - uvs[k][1]];
                (0..2).for_each(|c| worst_uv = worst_uv.max((uv[c] - obj.vt[vt][c]).abs()));
            }
        }
        assert!(worst_p <= 1e-3, "{name}: a position is {worst_p} off");
        assert!(
            worst_uv <= 1e-5,
            "{name}: a texture coordinate is {worst_uv} off"
        );
        println!("{name}: frame 0 within {worst_p:e} (positions), {worst_uv:e} (uv) of assimp");
    }
}

#[test]
fn truncations_and_mutations_of_the_corpus_never_panic() {
    let files = crate::support::corpus_files("mdl_quake")
        .into_iter()
        .chain(crate::support::corpus_files("mdl"));
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let stride = (bytes.len() / 512).max(1);
        for cut in (0..bytes.len().min(4096)).chain((4096..bytes.len()).step_by(stride)) {
            if let Ok(model) = Model::from_bytes(&bytes[..cut]) {
                crate::exercise::model(&model);
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]

    #[test]
    fn mutated_quake_files_never_panic(edits in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..6)) {
        for mut bytes in [grouped().write(), quake::Builder::mdl2_triangle().write()] {
            let len = bytes.len();
            for &(at, v) in &edits {
                bytes[at % len] = v;
            }
            if let Ok(model) = Model::from_bytes(&bytes) {
                crate::exercise::model(&model);
            }
        }
    }
}

/// Review findings on frame groups: an interval so small that `count / duration` overflows
/// used to give an infinite clip rate (which no time can sample and `info --json` printed as
/// `null`); groups whose frames have no names used to lose their clips with the names.
#[test]
fn frame_groups_keep_a_finite_rate_and_need_no_names() {
    let unnamed = |lift| FrameDef {
        name: Vec::new(),
        ..pose("", lift)
    };
    let bytes = quake::Builder {
        frames: vec![
            FrameEntry::Single(unnamed(0)),
            FrameEntry::Group {
                intervals: vec![1e-40, 2e-40],
                frames: vec![unnamed(1), unnamed(2)],
            },
        ],
        ..quake::Builder::triangle()
    }
    .write();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.clip_origin(), ClipOrigin::FrameGroups);
    let clips: Vec<_> = model
        .clips()
        .iter()
        .map(|c| (c.first, c.count, c.fps))
        .collect();
    assert_eq!(clips, [(1, 2, skelmap::model::NAMED_CLIP_FPS)]);
    let mut p = Pose::default();
    let clip = model.clips()[0].clone();
    model
        .pose_clip(&clip, 1e30, true, Interpolation::Nlerp, &mut p)
        .unwrap();
}

/// [`quake::Builder::triangle`] with 300 vertices and stverts and 100 triangles on a 16 × 8
/// skin: every table long enough for validation's SIMD scans (where the CPU has them). The
/// texture coordinates stay within 8 × 8, so that a scan with the skin's width and height
/// swapped would pass the bad ones below; the unchecked words (`onseam`, `facesfront`) hold
/// any value. Offsets: the skin at 84 (4 + 128 bytes), stverts at 216 (12 bytes each),
/// triangles at 3816 (16 each), the frame type at 5416, its vertices at 5444 (4 each).
fn wide_triangle() -> quake::Builder {
    const N: i32 = 300;
    quake::Builder {
        skin_size: [16, 8],
        skins: vec![SkinDef::Single {
            code: 0,
            texels: (0..128).collect(),
        }],
        stverts: (0..N)
            .map(|i| [i.wrapping_mul(7_919_777), i % 9, i % 9])
            .collect(),
        triangles: (0..N / 3)
            .map(|t| (t.wrapping_mul(-1_000_003), [3 * t, 3 * t + 1, N - 1 - t]))
            .collect(),
        frames: vec![FrameEntry::Single(FrameDef {
            name: b"wide".to_vec(),
            vertices: (0..N).map(|i| ([i as u8, 1, 2], (i % 162) as u8)).collect(),
        })],
        ..quake::Builder::triangle()
    }
}
const WIDE_STVERTS: u64 = 216;
const WIDE_TRIANGLES: u64 = 3816;
const WIDE_VERTICES: u64 = 5444;

/// A bad corner, normal index or texture coordinate in the first, a middle or the last record
/// of a table the SIMD scans take is reported at its own offset, as the record-by-record walk
/// reports it.
#[test]
fn scanned_tables_report_the_exact_record() {
    let bytes = wide_triangle().write();
    let m = quake::Mdl::parse(&bytes).unwrap();
    assert_eq!(m.num_vertices(), 300);
    for t in [0, 1, 50, 98, 99] {
        for k in 0..3 {
            for bad in [300, -1, i32::MIN] {
                let mut b = bytes.clone();
                let at = WIDE_TRIANGLES + 16 * t + 4 + 4 * k;
                put_i32(&mut b, at, bad);
                let problem = Problem::Index {
                    index: bad.into(),
                    len: 300,
                };
                let e = err(&b);
                assert_eq!(
                    invalid(&e),
                    (Format::Quake, "triangle.vertindex", at, problem),
                    "{e}"
                );
            }
        }
    }
    for v in [0, 15, 16, 150, 287, 288, 299] {
        for bad in [162u8, 255] {
            let mut b = bytes.clone();
            let at = WIDE_VERTICES + 4 * v + 3;
            b[at as usize] = bad;
            let problem = Problem::Index {
                index: bad.into(),
                len: 162,
            };
            assert_eq!(
                invalid(&err(&b)),
                (Format::Quake, "frame.vertices", at, problem)
            );
        }
    }
    // Texture coordinates outside the 16 × 8 skin, at either coordinate and either end.
    for (i, c, bad) in [
        (0, 1, 17),
        (150, 2, -1),
        (299, 1, i32::MIN),
        (299, 2, 9),
        (7, 2, 16),
    ] {
        let mut q = wide_triangle();
        q.stverts[i][c] = bad;
        let mut diag = Diagnostics::new();
        quake::Mdl::parse_with(&q.write(), &Limits::default(), &mut diag).unwrap();
        let w = diag.get(WarningKind::SpecLimit).map(|w| (w.what, w.offset));
        assert_eq!(
            w,
            Some(("stverts", WIDE_STVERTS)),
            "stvert {i}, {c} = {bad}"
        );
    }
    let mut diag = Diagnostics::new();
    quake::Mdl::parse_with(&bytes, &Limits::default(), &mut diag).unwrap();
    assert!(diag.get(WarningKind::SpecLimit).is_none());
}
