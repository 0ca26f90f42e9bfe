//! The `write` fuzz target's harness: every model that opens is made an asset and written in
//! every writable format (skeletal frames baked for the formats without joints). A writer
//! refuses what it cannot hold with an error, or writes files that open again:
//! `model::write` opens them before it hands them out, and its
//! [`WriteError::Unreadable`] (a writer's defect, which a refusal should have caught) fails
//! the harness. Also replayed by the integration tests.

use skelmap_core::Model;
use skelmap_core::asset::{self, WriteError, WriteOptions};
use skelmap_core::format::Format;

/// The most frames a model may have to be written here.
pub const MAX_FRAMES: usize = 4096;

/// Opens `data` as any format and writes it in every writable format.
pub fn write(data: &[u8]) {
    if let Ok(model) = Model::from_bytes(data) {
        drive(&model);
    }
}

/// The asset of `model` at its bind pose, written in every writable format.
///
/// # Panics
///
/// When a writer panics or writes files that do not open again.
pub fn drive(model: &Model<'_>) {
    // Every writer's work is linear in the frames, and an MS3D of 900 bytes declares a
    // timeline of 65 536 (about 1.3 s for all of them, optimised): long timelines would only
    // slow the search.
    if model.num_frames() > MAX_FRAMES {
        return;
    }
    let asset = match model.to_asset(&asset::Options::default()) {
        Ok(asset) => asset,
        Err(asset::Error::TooManyKeys { .. } | asset::Error::TooManyJoints { .. }) => return,
        Err(e) => panic!("the asset of a validated model failed: {e}"),
    };
    for &format in Format::ALL.iter().filter(|f| f.writable()) {
        let options = WriteOptions::bake(true);
        if let Err(e @ WriteError::Unreadable { .. }) =
            skelmap_core::model::write(format, &asset, &options)
        {
            panic!("{e}");
        }
    }
}

/// `asset` written as `format` ([`skelmap_core::model::write`]), opened again as saved (the
/// main file as `out.<extension>`, the others in their places), and every frame compared
/// with the asset as an engine draws both: the error and what the writer said it lost.
///
/// # Panics
///
/// When the format refuses the asset or what it wrote does not open.
pub fn written_error(
    asset: &asset::Asset,
    format: Format,
) -> (skelmap_core::model::convert::SkinningError, Vec<String>) {
    use skelmap_core::model::convert::{self, Posed};
    let written = skelmap_core::model::write(format, asset, &WriteOptions::default())
        .unwrap_or_else(|e| panic!("{format}: {e}"));
    let extension = format.extensions().first().copied().unwrap_or("bin");
    let main = std::path::PathBuf::from(format!("out.{extension}"));
    let files: std::collections::HashMap<String, Vec<u8>> = (written.files.iter())
        .map(|f| {
            let path = f.place.clone().path(&main);
            (path.to_string_lossy().into_owned(), f.bytes.clone())
        })
        .collect();
    let model = Model::resolve(
        &&files,
        &main.to_string_lossy(),
        &skelmap_core::Limits::DEFAULT,
    )
    .unwrap_or_else(|e| panic!("{format}: {e}"));
    let error = convert::skinning_error(
        Posed::Asset(asset),
        Posed::Model(&model),
        written.first_frame,
    );
    (error, written.notes)
}
