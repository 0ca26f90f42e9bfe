//! The skelmap fuzz targets: each target opens its input and, when it validates, walks
//! everything the view exposes, asserting what validation promises. The harness itself lives
//! in skelmap-testkit, shared with the workspace's tests.

pub use skelmap_testkit::assembly::assembly;
pub use skelmap_testkit::export::export;
pub use skelmap_testkit::write::write;
use skelmap_testkit::{exercise, structured};

use skelmap_core::Parse;
use skelmap_core::gamestudio::{Hmp, Mdl};
use skelmap_core::ms3d::Ms3d;
use skelmap_core::skm;
use skelmap_core::skm::{Skm, Skp};
use skelmap_core::slmdl;
use skelmap_core::{Model, dpm::Dpm, source::Source};

/// The `dpm` target: DPM validation without the probe, then the deep walk.
pub fn dpm(data: &[u8]) {
    if let Ok(model) = Dpm::parse(data) {
        exercise::dpm(&model);
    }
}

/// The `probe_any` target: sniff, open whatever the bytes are, then the deep walk.
pub fn probe_any(data: &[u8]) {
    if let Ok(model) = Model::from_bytes(data) {
        exercise::model(&model);
    }
}

/// The `skm` target: SKM validation without the probe, then the deep walk.
pub fn skm(data: &[u8]) {
    if let Ok(model) = Skm::parse(data) {
        exercise::skm(&model);
    }
}

/// The `skp` target: SKP validation without the probe, then the deep walk.
pub fn skp(data: &[u8]) {
    if let Ok(model) = Skp::parse(data) {
        exercise::skp(&model);
    }
}

/// Splits a `skm_pair` input: a little-endian `u16` length, that many bytes of SKM, the rest SKP.
#[must_use]
pub fn split_pair(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let (len, rest) = data.split_first_chunk::<2>()?;
    let len = usize::from(u16::from_le_bytes(*len)).min(rest.len());
    Some(rest.split_at(len))
}

/// The `skm_pair` target: both files, then pairing, then the deep walk.
pub fn skm_pair(data: &[u8]) {
    let Some((skm, skp)) = split_pair(data) else {
        return;
    };
    if let (Ok(skm), Ok(skp)) = (Skm::parse(skm), Skp::parse(skp))
        && let Ok(model) = skm::Pair::new(skm, skp, &[skm])
    {
        exercise::skm_model(&model);
    }
}

/// The `ms3d` target: MS3D validation without the probe, then the deep walk.
pub fn ms3d(data: &[u8]) {
    if let Ok(model) = Ms3d::parse(data) {
        exercise::ms3d(&model);
    }
}

/// The `iqm` target: IQM validation without the probe, the deep walk of the view, then of
/// the model it opens as.
pub fn iqm(data: &[u8]) {
    if let Ok(view) = skelmap_core::iqm::Iqm::parse(data) {
        exercise::iqm(&view);
        let model = Model::from_bytes(data).expect("a valid IQM opens as a model");
        exercise::model(&model);
    }
}

/// The `iqm_pair` target, fed with a model and an animation to play on it: a little-endian
/// `u16` length, the model IQM's bytes, then an animation-only IQM's. Each validates alone;
/// then the animation is bound to the model's joints (by name, else by index when the counts
/// match), and the model is walked through the format-neutral walk: its frames sampled
/// through the joints' channel layout, placed in the model's joint order where the animation
/// lists its bones in another one.
pub fn iqm_pair(data: &[u8]) {
    let Some((mesh, anim)) = split_pair(data) else {
        return;
    };
    let _ = skelmap_core::iqm::Iqm::parse(mesh);
    let _ = skelmap_core::iqm::Iqm::parse(anim);
    let (mesh, anim) = (Source::from_bytes(mesh), Source::from_bytes(anim));
    if let Ok(model) = Model::from_iqm(mesh, anim, &skelmap_core::Limits::DEFAULT) {
        exercise::model(&model);
    }
}

/// The `mdl7` target: MDL7 validation without the probe, every accessor of the view (bones,
/// groups, frames, weights, the bind mesh, tweens), then the model it opens as through the
/// format-neutral walk.
pub fn mdl7(data: &[u8]) {
    let mut diag = skelmap_core::Diagnostics::new();
    let limits = skelmap_core::Limits::default();
    if let Ok(view) = skelmap_core::mdl7::Mdl7::parse_with(data, &limits, &mut diag) {
        exercise::mdl7(&view);
        let model = Model::from_bytes(data).expect("a valid MDL7 opens as a model");
        exercise::model(&model);
    }
}

/// The `md3` target: MD3 validation without the probe, every accessor of the view (frames,
/// tags, surfaces, both tweens), then the model it opens as through the format-neutral walk.
pub fn md3(data: &[u8]) {
    if let Ok(view) = skelmap_core::md3::Md3::parse(data) {
        exercise::md3(&view);
        let model = Model::from_bytes(data).expect("a valid MD3 opens as a model");
        exercise::model(&model);
    }
}

/// The `mdr` target: MDR validation without the probe, every accessor of the view (frames
/// plain and compressed, tags, every level of detail's surfaces and the records made from
/// their weights), then the model it opens as through the format-neutral walk.
pub fn mdr(data: &[u8]) {
    if let Ok(view) = skelmap_core::mdr::Mdr::parse(data) {
        exercise::mdr(&view);
        let model = Model::from_bytes(data).expect("a valid MDR opens as a model");
        exercise::model(&model);
    }
}

/// The `md2` target: MD2 validation without the probe, every accessor of the view (frames,
/// texture coordinates, GL commands, the tween at every level), then the model it opens as
/// through the format-neutral walk.
pub fn md2(data: &[u8]) {
    if let Ok(view) = skelmap_core::md2::Md2::parse(data) {
        exercise::md2(&view);
        let model = Model::from_bytes(data).expect("a valid MD2 opens as a model");
        exercise::model(&model);
    }
}

/// The `zym` target: ZYM validation without the probe, every accessor of the view (scenes,
/// bones, poses, vertices, the render list's runs and triangles), then the model it opens as
/// through the format-neutral walk.
pub fn zym(data: &[u8]) {
    if let Ok(view) = skelmap_core::zym::Zym::parse(data) {
        exercise::zym(&view);
        let model = Model::from_bytes(data).expect("a valid ZYM opens as a model");
        exercise::model(&model);
    }
}

/// The `mdc` target: MDC validation without the probe, every accessor of the view (frames,
/// tags, surfaces, base and compressed frames, both tweens), then the model it opens as
/// through the format-neutral walk.
pub fn mdc(data: &[u8]) {
    if let Ok(view) = skelmap_core::mdc::Mdc::parse(data) {
        exercise::mdc(&view);
        let model = Model::from_bytes(data).expect("a valid MDC opens as a model");
        exercise::model(&model);
    }
}

/// The `md5` target, fed with both halves of a model: the bytes before the first NUL as an
/// `.md5mesh`, those after it as an `.md5anim` beside it. Each validates alone (the mesh
/// file, the animation file); then the pair opens as a model through an in-memory resolver,
/// the animation found beside the mesh and played when it fits, and the model is walked,
/// exported and written as MD5 again.
pub fn md5(data: &[u8]) {
    use skelmap_core::md5::{Anim, MeshFile};
    let mut parts = data.splitn(3, |&b| b == 0);
    let mesh = parts.next().unwrap_or_default();
    let anim = parts.next().unwrap_or_default();
    let _ = MeshFile::parse(mesh);
    let _ = Anim::parse(anim);
    let mut files = std::collections::HashMap::new();
    files.insert("m/a.md5mesh".to_string(), mesh);
    files.insert("m/a.md5anim".to_string(), anim);
    // A third part is the animation's `.md5scale`.
    if let Some(scale) = parts.next() {
        files.insert("m/a.md5scale".to_string(), scale);
    }
    if let Ok(model) = Model::resolve(&files, "m/a.md5mesh", &skelmap_core::Limits::DEFAULT) {
        exercise::model(&model);
        // Its assets (skin scales as leaf joints) through the exporters, and written as
        // MD5 again (leaves as skin scales).
        skelmap_testkit::export::drive(&model);
        if let Ok(asset) = model.to_asset(&skelmap_core::asset::Options::default()) {
            let options = skelmap_core::asset::WriteOptions::default();
            let _ = skelmap_core::model::write(skelmap_core::Format::Md5, &asset, &options);
        }
    }
    if let Ok(model) = Model::resolve(&files, "m/a.md5anim", &skelmap_core::Limits::DEFAULT) {
        exercise::model(&model);
    }
}

/// The `slmdl` target: SL mdl validation without the probe, then the deep walk.
pub fn slmdl(data: &[u8]) {
    if let Ok(model) = slmdl::Mesh::parse(data) {
        exercise::slmdl(&model);
    }
}

/// The `slanim` target: SL anim validation, then sampling.
pub fn slanim(data: &[u8]) {
    if let Ok(anim) = slmdl::Animation::parse(data) {
        exercise::slanim(&anim);
    }
}

/// The `mdl` target: MDL validation without the probe, then the deep walk (skins, morphs).
pub fn mdl(data: &[u8]) {
    if let Ok(model) = Mdl::parse(data) {
        exercise::mdl(&model);
    }
}

/// The `quake` and `mdl2` targets: Quake MDL / MDL2 validation without the probe, the view's
/// deep walk, then the format-neutral API.
pub fn quake(data: &[u8]) {
    if let Ok(model) = skelmap_core::quake::Mdl::parse(data) {
        exercise::quake(&model);
    }
    if let Ok(model) = skelmap_core::Model::from_bytes(data) {
        exercise::neutral(&model);
    }
}

/// The `hmp` target: HMP validation without the probe, then the terrain mesh.
pub fn hmp(data: &[u8]) {
    if let Ok(terrain) = Hmp::parse(data) {
        exercise::hmp(&terrain);
    }
}

/// The `exercise_dpm` target: any DPM that validates is sampled at up to 8 frames (both
/// interpolations), its palette built and every mesh skinned. A validated view must make the
/// kernel succeed: the palette covers every `bonenum`, the outputs fit.
pub fn exercise_dpm(data: &[u8]) {
    if let Ok(model) = Dpm::parse(data) {
        exercise::skin_every_mesh(&model, model.meshes());
    }
}

/// The `exercise_skm` target: a paired SKM + SKP (input split as for `skm_pair`), sampled,
/// paletted and skinned like `exercise_dpm`.
pub fn exercise_skm(data: &[u8]) {
    let Some((skm, skp)) = split_pair(data) else {
        return;
    };
    if let (Ok(skm), Ok(skp)) = (Skm::parse(skm), Skp::parse(skp))
        && let Ok(model) = skm::Pair::new(skm, skp, &[])
    {
        exercise::skin_every_mesh(&model, model.skm().meshes());
    }
}

/// The structure-aware `structured` target: `arbitrary` picks a format and a shape, the
/// project's writers build a valid file of that shape, and one 32-bit field (chosen by
/// offset) is overwritten; the result goes through `Model::from_bytes` and the deep walk.
pub fn structured(data: &[u8]) {
    let mut u = arbitrary::Unstructured::new(data);
    let Ok(spec) = <structured::Spec as arbitrary::Arbitrary>::arbitrary(&mut u) else {
        return;
    };
    let Some(bytes) = structured::build(&spec) else {
        return;
    };
    if let Ok(model) = Model::from_bytes(&bytes) {
        exercise::model(&model);
    }
}

/// The `hl1` target: Half-Life MDL validation without the probe, every accessor of the view
/// (bones, sequences and their run-length channels, body parts, triangle commands, textures),
/// then the model it opens as through the format-neutral walk.
pub fn hl1(data: &[u8]) {
    if let Ok(view) = skelmap_core::hl1::Hl1::parse(data) {
        exercise::hl1(&view);
        let model = Model::from_bytes(data).expect("a valid HL1 MDL opens as a model");
        exercise::model(&model);
    }
}

/// The `mdm` target: the input split as for `skm_pair` (a `u16` length, that much MDM, the
/// rest MDX); the MDM validated and walked alone, then, when both validate and pair, the
/// model they make through the format-neutral walk. The same input is also read as the
/// three text files an MDM's skeleton is found through ([`exercise::et_character`]).
pub fn mdm(data: &[u8]) {
    exercise::et_character(data);
    let Some((mdm, mdx)) = split_pair(data) else {
        return;
    };
    let Ok(mesh) = skelmap_core::mdm::Mdm::parse(mdm) else {
        return;
    };
    exercise::mdm(&mesh);
    let Ok(skeleton) = skelmap_core::mdm::Mdx::parse(mdx) else {
        return;
    };
    if skelmap_core::mdm::Pair::new(mesh, skeleton).is_ok() {
        let (mdm, mdx) = (Source::from_bytes(mdm), Source::from_bytes(mdx));
        let model = Model::from_mdm(mdm, mdx, &skelmap_core::Limits::DEFAULT)
            .expect("a valid pair opens as a model");
        exercise::model(&model);
    }
}

/// The `mdx` target: MDX validation without the probe, every accessor of the view (frames,
/// bones placed with the torso at either end), then the model it opens as.
pub fn mdx(data: &[u8]) {
    if let Ok(view) = skelmap_core::mdm::Mdx::parse(data) {
        exercise::mdx(&view);
        let model = Model::from_bytes(data).expect("a valid MDX opens as a model");
        exercise::model(&model);
    }
}

/// The `psk` target: PSK validation without the probe, every accessor of the view (points,
/// wedges, faces, materials, bones, weights gathered per point, extras), then the model it
/// opens as through the format-neutral walk.
pub fn psk(data: &[u8]) {
    if let Ok(view) = skelmap_core::psk::Psk::parse(data) {
        exercise::psk(&view);
        let model = Model::from_bytes(data).expect("a valid PSK opens as a model");
        exercise::model(&model);
    }
}

/// The `psa` target: PSA validation without the probe, every accessor of the view (bones,
/// sequences within the keys, every key), then the model it opens as.
pub fn psa(data: &[u8]) {
    if let Ok(view) = skelmap_core::psk::Psa::parse(data) {
        exercise::psa(&view);
        let model = Model::from_bytes(data).expect("a valid PSA opens as a model");
        exercise::model(&model);
    }
}
