//! Opening a file on the command line: any format as a [`Model`], with the companions it
//! needs (an SKM's skeleton and levels of detail, an SL mesh's animation, a `.framegroups`
//! sidecar). Every error is one printable line that starts with the file name.

use std::path::Path;

use skelmap_core::Model;
use skelmap_core::model::OpenOptions;

/// Opens the model at `path`; `root` is the game directory an SKM's `.cfg` paths are
/// relative to (default: the file's own directory).
pub fn open(path: &Path, root: Option<&Path>) -> Result<Model<'static>, String> {
    if path.is_dir() {
        return Err(format!(
            "{} is a folder, not a model file; `skelmap validate {}` checks every model in it",
            path.display(),
            path.display()
        ));
    }
    if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
        return Err(format!("{}: the file is empty (0 bytes)", path.display()));
    }
    let options = OpenOptions {
        root: root.map(Path::to_path_buf),
        ..OpenOptions::default()
    };
    Model::open_with(path, &options).map_err(|e| match e {
        // Already names the file.
        skelmap_core::Error::Io { .. } => e.to_string(),
        _ => format!("{}: {e}", path.display()),
    })
}
