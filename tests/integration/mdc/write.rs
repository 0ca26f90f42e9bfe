//! The MDC writer (`mdc::Builder::from_asset`, through the write dispatch): every frame read
//! back within ET:Legacy's compression error (exactly where the source is an MDC whose
//! offsets are on the grid), frames compressed as the engines' converter does, tags stored as
//! angles, frame summaries the reader accepts, and what it refuses or notes.

use skelmap::asset::{Asset, WriteOptions};
use skelmap::glam::Vec3;
use skelmap::mdc::Mdc;
use skelmap::mdc::raw::MDC_MAX_ERROR;
use skelmap::model::Pose;
use skelmap::model::convert;
use skelmap::pose::Interpolation;
use skelmap::{Format, Model, Parse, WarningKind};

use super::animated;
use crate::support::corpus_engines_dir;

/// `asset` written as an MDC through the write dispatch: its bytes and notes.
fn written(asset: &Asset, bake: bool) -> (Vec<u8>, Vec<String>) {
    let w = skelmap::model::write(Format::Mdc, asset, &WriteOptions::bake(bake)).unwrap();
    assert_eq!((w.format, w.files.len()), (Format::Mdc, 1));
    (w.files.into_iter().next().unwrap().bytes, w.notes)
}

/// Every vertex of every frame of `model`, deformed, mesh after mesh.
fn every_frame(model: &Model<'_>) -> Vec<Vec<[f32; 3]>> {
    let mut pose = Pose::default();
    (0..model.num_frames())
        .map(|f| {
            model
                .pose(f, f, 0.0, Interpolation::Nlerp, &mut pose)
                .unwrap();
            let mut out = Vec::new();
            for mesh in model.meshes() {
                let n = mesh.num_vertices();
                let (mut p, mut q) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
                model.deform(mesh.index(), &pose, &mut p, &mut q).unwrap();
                out.extend(p);
            }
            out
        })
        .collect()
}

/// The largest distance between the same vertex of two models, over every frame.
fn largest_distance(a: &Model<'_>, b: &Model<'_>) -> f32 {
    let (x, y) = (every_frame(a), every_frame(b));
    assert_eq!(x.len(), y.len());
    x.iter()
        .zip(&y)
        .flat_map(|(f, g)| {
            assert_eq!(f.len(), g.len());
            f.iter()
                .zip(g)
                .map(|(p, q)| Vec3::from(*p).distance(Vec3::from(*q)))
        })
        .fold(0.0, f32::max)
}

/// The animated fixture, written again: every vertex within the compression error plus the
/// 1/64 grid's rounding, tags where they were (axes to the angles' precision), and frame
/// summaries that hold the decoded vertices.
#[test]
fn an_mdc_is_written_again_within_the_compression_error() {
    let b = animated();
    let bytes = b.write();
    let source = Model::from_bytes(&bytes).unwrap();
    let (out, notes) = written(&convert::asset_of(&source).unwrap(), false);
    assert!(notes.is_empty(), "{notes:?}");
    let model = Model::from_bytes(&out).unwrap();
    assert_eq!(model.format(), Format::Mdc);
    let grid = 3f32.sqrt() / 128.0;
    let d = largest_distance(&source, &model);
    assert!(d <= MDC_MAX_ERROR + grid, "{d}");
    assert!(model.diagnostics().get(WarningKind::Bounds).is_none());
    // The fixture's own layout: a base frame every third frame, the others compressed.
    let mdc = Mdc::parse(&out).unwrap();
    let body = &mdc.surfaces()[0];
    assert_eq!((body.num_base_frames(), body.num_comp_frames()), (2, 4));
    let original = Mdc::parse(&bytes).unwrap();
    for f in 0..mdc.num_frames() {
        for k in 0..2 {
            let (t, u) = (mdc.tag(f, k).unwrap(), original.tag(f, k).unwrap());
            assert_eq!((t.name(), t.origin()), (u.name(), u.origin()));
            for (r, s) in t.axis().iter().flatten().zip(u.axis().iter().flatten()) {
                assert!((r - s).abs() < 1e-4, "frame {f} tag {k}");
            }
        }
    }
}

/// The shared MDC's compressed frames add nothing to its one base frame: written again, it
/// has the same frames, one base and 249 compressed, and every vertex where it was.
#[test]
fn the_shared_mdc_is_written_again_exactly() {
    let Some(dir) = corpus_engines_dir("mdc") else {
        return;
    };
    let bytes = std::fs::read(dir.join("assimp_spider.mdc")).unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let (out, _) = written(&convert::asset_of(&source).unwrap(), false);
    let model = Model::from_bytes(&out).unwrap();
    assert_eq!(largest_distance(&source, &model), 0.0);
    let mdc = Mdc::parse(&out).unwrap();
    assert_eq!(mdc.surfaces().len(), 19);
    for s in mdc.surfaces() {
        assert_eq!((s.num_base_frames(), s.num_comp_frames()), (1, 249));
    }
    // Frame summaries measured from the vertices: the source's radius warning is gone.
    assert!(model.diagnostics().get(WarningKind::Bounds).is_none());
}

/// A skeletal model baked: every frame within the compression error of the baked positions
/// (and of what the MD3 writer stores, plus the compression), its attachment joint a tag.
#[test]
fn a_skeletal_model_is_baked_and_compressed() {
    let bytes = skelmap::synth::tube(&Default::default()).write().unwrap();
    let source = Model::from_bytes(&bytes).unwrap();
    let asset = convert::asset_of(&source).unwrap();
    let refused = skelmap::model::write(Format::Mdc, &asset, &WriteOptions::bake(false));
    let Err(skelmap::asset::WriteError::Fit(e)) = refused else {
        panic!("skeletal animation written without --bake")
    };
    assert_eq!(e.format, "MDC");
    let (out, notes) = written(&asset, true);
    assert!(notes.is_empty(), "{notes:?}");
    let model = Model::from_bytes(&out).unwrap();
    assert_eq!(
        (model.num_frames(), model.num_tags()),
        (source.num_frames(), 1)
    );
    assert_eq!(
        model.attachment(0).unwrap().name,
        source.attachment(0).unwrap().name
    );
    let grid = 3f32.sqrt() / 128.0;
    let d = largest_distance(&source, &model);
    assert!(d <= MDC_MAX_ERROR + grid + 1e-4, "{d}");
    let (md3, _) = {
        let w = skelmap::model::write(Format::Md3, &asset, &WriteOptions::bake(true)).unwrap();
        (w.files.into_iter().next().unwrap().bytes, w.notes)
    };
    let md3 = Model::from_bytes(&md3).unwrap();
    let d = largest_distance(&md3, &model);
    assert!(d <= MDC_MAX_ERROR + 1e-5, "{d}");
}

/// A tag whose axes are mirrored cannot be three angles: the writer says so.
#[test]
fn a_mirrored_tag_is_noted() {
    let mut b = skelmap::md3::Builder::triangle();
    b.tags[0][0].axis = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]];
    let bytes = b.write();
    let asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    let (out, notes) = written(&asset, false);
    assert!(notes.iter().any(|n| n.contains("mirrored")), "{notes:?}");
    let mdc = Mdc::parse(&out).unwrap();
    assert_eq!(mdc.tag(0, 0).unwrap().axis()[2], [0.0, 0.0, 1.0]);
}

/// Tags as angles: a quarter turn of yaw, a pitch and a roll come back as written.
#[test]
fn tag_axes_become_the_engines_angles() {
    let mut b = skelmap::md3::Builder::triangle();
    let (s, c) = 0.5f32.sin_cos();
    // Yaw a quarter turn, then pitch 0.5 rad down: forward (0, cos, −sin).
    b.tags[0][0].axis = [[0.0, c, -s], [-1.0, 0.0, 0.0], [0.0, s, c]];
    b.tags[0][0].origin = [1.5, -2.25, 8.0];
    let bytes = b.write();
    let asset = convert::asset_of(&Model::from_bytes(&bytes).unwrap()).unwrap();
    let (out, notes) = written(&asset, false);
    assert!(notes.is_empty(), "{notes:?}");
    let mdc = Mdc::parse(&out).unwrap();
    let tag = mdc.tag(0, 0).unwrap();
    assert_eq!(tag.origin(), [1.5, -2.25, 8.0]);
    let [pitch, yaw, roll] = tag.angles();
    assert!((pitch - 0.5f32.to_degrees()).abs() < 0.006, "{pitch}");
    assert!(
        (yaw - 90.0).abs() < 0.006 && roll.abs() < 0.006,
        "{yaw} {roll}"
    );
    for (r, w) in tag
        .axis()
        .iter()
        .flatten()
        .zip(b.tags[0][0].axis.iter().flatten())
    {
        assert!((r - w).abs() < 1e-4);
    }
}
