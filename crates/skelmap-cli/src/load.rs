//! Opening a file on the command line: any format by its magic, an SKM with its skeleton and
//! levels of detail, an SL `.anim` by its extension, and a DarkPlaces `.framegroups` sidecar.
//! Every error is one printable line that starts with the file name.

use std::path::{Path, PathBuf};

use skelmap_core::pose::framegroups::{FrameGroup, parse_framegroups};
use skelmap_core::skm::FsResolver;
use skelmap_core::skm::resolve::resolve;
use skelmap_core::{AnyModel, Diagnostics, Error, Format, Limits, Source, open_any_with};
use skelmap_export::Model;

/// Reads one file; the error is one printable line.
pub fn read(path: &Path) -> Result<Source<'static>, String> {
    Source::read(path).map_err(|e| e.to_string())
}

/// What [`with_model`] hands its callback besides the model.
pub struct Opened {
    /// The file's size in bytes.
    pub size: u64,
    /// The skeleton an SKM was paired with.
    pub skeleton: Option<String>,
    /// Groups from `<file>.framegroups`, when that file exists.
    pub groups: Option<Vec<FrameGroup>>,
}

/// The kind of file at `path`: an SL `.anim` (no magic) or a model.
pub enum Kind {
    /// An SL animation, opened by its extension.
    SlAnim,
    /// Anything with a magic, or nothing recognisable.
    Model,
}

/// `.anim` without a recognisable magic is an SL animation.
pub fn kind(path: &Path, bytes: &[u8]) -> Kind {
    let anim = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("anim"));
    if anim && Format::sniff(bytes).is_none() {
        Kind::SlAnim
    } else {
        Kind::Model
    }
}

/// Opens `path` as an exportable model and calls `f` with it. An SKM is resolved with its
/// skeleton (`root` is the game directory `.cfg` paths are relative to; default the
/// file's own directory); every model picks up `<path>.framegroups` when present.
pub fn with_model<T>(
    path: &Path,
    root: Option<&Path>,
    diag: &mut Diagnostics,
    f: impl FnOnce(&Model<'_>, Opened, &Diagnostics) -> Result<T, String>,
) -> Result<T, String> {
    let name = path.display().to_string();
    let fail = |e: Error| format!("{name}: {e}");
    let source = read(path)?;
    let size = source.bytes().len() as u64;
    if Format::sniff(source.bytes()) == Some(Format::Skm) {
        let (resolver, relative) = skm_resolver(path, root)?;
        let files = resolve(&resolver, &relative).map_err(fail)?;
        let model = files.open_with(&Limits::default(), diag).map_err(fail)?;
        let groups = sidecar_groups(path, model.skp().num_frames())?;
        let opened = Opened {
            size,
            skeleton: Some(files.skp.0.clone()),
            groups,
        };
        return f(&Model::Skm(model), opened, diag);
    }
    let model = match open_any_with(source.bytes(), &Limits::default(), diag) {
        Ok(Some(model)) => model,
        Ok(None) => return Err(format!("{name}: {}", skelmap_core::UnknownFormat)),
        Err(e) => return Err(fail(e)),
    };
    let model = match model {
        AnyModel::Skm(_) => return Err(format!("{name}: an SKM needs its skeleton")),
        other => Model::try_from(other).map_err(|e| format!("{name}: {e}"))?,
    };
    let groups = sidecar_groups(path, model.num_frames() as u32)?;
    f(
        &model,
        Opened {
            size,
            skeleton: None,
            groups,
        },
        diag,
    )
}

/// Frame groups from `<path>.framegroups` (DarkPlaces' sidecar), `None` without one.
fn sidecar_groups(path: &Path, frames: u32) -> Result<Option<Vec<FrameGroup>>, String> {
    let mut sidecar = path.as_os_str().to_owned();
    sidecar.push(".framegroups");
    let sidecar = PathBuf::from(sidecar);
    match std::fs::read(&sidecar) {
        Ok(text) => parse_framegroups(&text, frames)
            .map(Some)
            .map_err(|e| format!("{}: {e}", sidecar.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", sidecar.display())),
    }
}

/// A filesystem resolver for the SKM at `path` and the model's path relative to its root.
pub fn skm_resolver(path: &Path, root: Option<&Path>) -> Result<(FsResolver, String), String> {
    let (root, relative) = match root {
        Some(root) => {
            let relative = path.strip_prefix(root).map_err(|_| {
                format!(
                    "{} is not inside the root {}",
                    path.display(),
                    root.display()
                )
            })?;
            (root.to_path_buf(), relative.to_path_buf())
        }
        None => {
            let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
            (dir, PathBuf::from(path.file_name().unwrap_or_default()))
        }
    };
    let relative = relative
        .to_str()
        .ok_or_else(|| format!("{}: the path is not UTF-8", path.display()))?
        .replace('\\', "/");
    Ok((FsResolver::new(root), relative))
}
