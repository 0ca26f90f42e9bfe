//! Opening a file on the command line: any format as a [`Model`], with the companions it finds
//! or is given (skeletons, levels of detail, animations, texture and sequence-group files,
//! skins, a `.framegroups` sidecar, as `Model::open_with` finds them; `--skeleton`,
//! `--animation`, `--root` and `--body` steer it). Every error is one printable line that
//! starts with the file name.

use std::path::{Path, PathBuf};

use clap::Args;
use skelmap_core::model::OpenOptions;
use skelmap_core::{FsResolver, Model};

/// Where a model's companions are found: the switches of every command that opens one.
#[derive(Debug, Clone, Default, Args)]
pub struct Companions {
    /// Game base directory for an SKM's skeleton and `.cfg` import paths and an MDM's
    /// character files (default: for an MDM the nearest folder above it holding
    /// `characters/`, else the model's own directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// A mesh's skeleton, instead of the one found by name: an SKM's `.skp` (default: the
    /// one its `.cfg` imports or its own name gives), an MDM's `.mdx` (default: the one of
    /// its stem, else the one its character file's animation group names).
    #[arg(long, value_name = "FILE")]
    pub skeleton: Option<PathBuf>,
    /// An animation to play, instead of those found by name: on an IQM an animation-only
    /// IQM whose bones match the model's joints by name, or by count and parents; on an MD5
    /// mesh an `.md5anim`; on a PSK a `.psa`.
    #[arg(long, value_name = "FILE")]
    pub animation: Option<PathBuf>,
    /// An MD3's or MDM's skin: `--skin red` reads `head_red.skin` beside `head.md3` for its
    /// surfaces' shaders (default: an MDM's character's skin, else `head_default.skin`, when
    /// there is one).
    #[arg(long, value_name = "NAME")]
    pub skin: Option<String>,
    /// A folder to look for the textures a model names in, after the model's own folder
    /// (repeatable, searched in order; the game folder the model was opened from, `--root`
    /// or an MDM's, last): a shader name as `.tga`, `.png` or `.jpg`, an MS3D's texture by
    /// its stored path and then by its file name.
    #[arg(long = "textures", value_name = "DIR")]
    pub textures: Vec<PathBuf>,
    /// A Half-Life model's body value, as an entity's `body`: each body part shows its model
    /// `(N / base) % models` (`info` lists them); default 0, every part's first model.
    #[arg(long, value_name = "N")]
    pub body: Option<u32>,
}

impl Companions {
    /// The folder companion paths are relative to: `--root`, else the model's own folder.
    pub fn base(&self, model: &Path) -> PathBuf {
        self.root
            .clone()
            .or_else(|| model.parent().map(Path::to_path_buf))
            .unwrap_or_default()
    }
}

/// A Half-Life sequence-group file (`IDSQ`, named as group `g` of a model:
/// [`hl1::group_model`](skelmap_core::hl1::group_model)): its model's path, beside it, and
/// `g`. Such a file is no model of its own; it is read and validated with its model. `None`
/// for any other file.
pub fn sequence_group(path: &Path) -> Option<(PathBuf, usize)> {
    use std::io::Read;
    let (model, g) = skelmap_core::hl1::group_model(path.to_str()?)?;
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .ok()?;
    (&magic == skelmap_core::hl1::raw::HL1_SEQ_MAGIC).then(|| (any_case(PathBuf::from(model)), g))
}

/// `path`, or where no file has that name, the file of its folder
/// [`other_case`](skelmap_core::resolver::other_case) finds, as the model finds its groups
/// (`Hgrunt03.mdl` is group 3 of `hgrunt.mdl`); `path` itself when there is none.
fn any_case(path: PathBuf) -> PathBuf {
    if path.is_file() {
        return path;
    }
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return path;
    };
    let files = FsResolver::new(dir);
    match skelmap_core::resolver::other_case(&files, name) {
        Ok(Some(found)) => dir.join(found),
        _ => path,
    }
}

/// The options a model is opened with, from the companion switches.
pub fn open_options(companions: &Companions) -> OpenOptions {
    OpenOptions {
        root: companions.root.clone(),
        // Absolute, so that the companion's path the model reports leads to it from anywhere.
        skeleton: companions
            .skeleton
            .as_deref()
            .map(|skp| std::path::absolute(skp).unwrap_or_else(|_| skp.to_path_buf())),
        animation: companions
            .animation
            .as_deref()
            .map(|anim| std::path::absolute(anim).unwrap_or_else(|_| anim.to_path_buf())),
        skin: companions.skin.clone(),
        body: companions.body,
        ..OpenOptions::default()
    }
}

/// Opens the model at `path` with its companions.
pub fn open(path: &Path, companions: &Companions) -> Result<Model<'static>, String> {
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
    if let Some((model, g)) = sequence_group(path) {
        return Err(format!(
            "{}: sequence group {g} of the Half-Life model {}, animations only, which that \
             model reads: open the model",
            path.display(),
            model.display()
        ));
    }
    let options = open_options(companions);
    Model::open_with(path, &options).map_err(|e| match e {
        // The animation is at fault when the model opens without it.
        _ if companions.animation.is_some()
            && !matches!(e, skelmap_core::Error::Io { .. })
            && Model::open_with(
                path,
                &OpenOptions {
                    animation: None,
                    ..options.clone()
                },
            )
            .is_ok() =>
        {
            let anim = companions.animation.as_deref().unwrap_or(path);
            format!("{}: its animation {}: {e}", path.display(), anim.display())
        }
        // Already names the file.
        skelmap_core::Error::Io { .. } => e.to_string(),
        skelmap_core::Error::Resolve {
            path: ref skp,
            reason: "skeleton not found",
        } => missing_skeleton(path, skp, companions),
        skelmap_core::Error::Invalid {
            format: skelmap_core::Format::Skm,
            what: "header.num_bones",
            problem: skelmap_core::Problem::Mismatch { value, expected },
            ..
        } => foreign_skeleton(path, value, expected, companions),
        // A broken skeleton is named as the file at fault, not the model.
        _ if e.format() == Some(skelmap_core::Format::Skp) && is_skm(path) => {
            match skeleton_path(path, companions) {
                Some(skp) => format!("{}: its skeleton {}: {e}", path.display(), skp.display()),
                None => format!("{}: its skeleton: {e}", path.display()),
            }
        }
        _ => format!("{}: {e}", path.display()),
    })
}

/// Says that the skeleton an SKM was paired with has another number of bones, naming it:
/// the skeleton is the file at fault, or the wrong file was found.
fn foreign_skeleton(model: &Path, bones: u64, skp_bones: u64, companions: &Companions) -> String {
    let skeleton = skeleton_path(model, companions).map_or_else(
        || "its skeleton".to_string(),
        |p| format!("its skeleton {}", p.display()),
    );
    format!(
        "{}: the model is weighted to {bones} bones, but {skeleton} has {skp_bones}: the \
         skeleton is another model's; name the right one with --skeleton FILE",
        model.display()
    )
}

/// The skeleton file the SKM at `model` is paired with, found as opening it finds it.
fn skeleton_path(model: &Path, companions: &Companions) -> Option<PathBuf> {
    if let Some(given) = &companions.skeleton {
        return Some(given.clone());
    }
    let base = companions.base(model);
    let relative = std::path::absolute(model).ok()?;
    let relative = relative
        .strip_prefix(std::path::absolute(&base).ok()?)
        .ok()?;
    let relative = relative.to_str()?.replace('\\', "/");
    let (skp, _) = skelmap_core::skm::resolve::skeleton(&FsResolver::new(&base), &relative).ok()?;
    Some(base.join(skp))
}

/// `true` when the file at `path` starts as an SKM mesh (not as its skeleton, which shares
/// the magic).
fn is_skm(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(256).read_to_end(&mut head))
        .is_ok_and(|_| skelmap_core::Format::sniff(&head) == Some(skelmap_core::Format::Skm))
}

/// Says where the skeleton of the SKM at `model` was looked for, why there, and how to
/// name another.
fn missing_skeleton(model: &Path, skp: &str, companions: &Companions) -> String {
    let base = companions.base(model);
    let cfg = model.with_extension("cfg");
    let why = if cfg.is_file() {
        format!("the skeleton {} imports", cfg.display())
    } else {
        "the model's name with .skp; no .cfg names another".to_string()
    };
    format!(
        "{}: its skeleton {} was not found ({why}); name the file with --skeleton FILE, or \
         the game folder its path starts from with --root DIR",
        model.display(),
        base.join(skp).display()
    )
}

/// Finds and decodes the textures `asset`'s materials name (beside the model at `path`, then
/// in each `--textures` folder, then in the game folder the model was opened from, `base`,
/// where Quake-lineage shader paths start), records each file read as an input of the
/// command, and warns once for each texture not found or not readable, naming what was
/// searched.
///
/// # Errors
///
/// One line when a texture found is one of the outputs claimed already.
pub fn textures(
    path: &Path,
    asset: &mut skelmap_core::asset::Asset,
    companions: &Companions,
    base: Option<&Path>,
    outputs: &mut crate::output::Outputs,
) -> Result<(), String> {
    use owo_colors::OwoColorize;
    let mut folders = companions.textures.clone();
    let absolute = |p: &Path| std::path::absolute(p).ok();
    if let Some(base) = base
        && absolute(base) != path.parent().and_then(absolute)
        && !folders.iter().any(|f| absolute(f) == absolute(base))
    {
        folders.push(base.to_path_buf());
    }
    let report = skelmap_author::texture::attach(asset, path, &folders);
    for found in &report.found {
        outputs.read_late(&found.path, "a texture of the model")?;
    }
    let name = |i: usize| {
        asset
            .materials
            .get(i)
            .map(|m| m.texture.clone().unwrap_or_else(|| m.name.clone()))
            .unwrap_or_default()
    };
    for missing in &report.missing {
        let folders: Vec<String> = missing
            .folders
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        anstream::eprintln!(
            "{} texture not found: material {} names {:?}; looked for {} in {} (add a folder \
             with --textures DIR)",
            "warning:".yellow().bold(),
            missing.material,
            name(missing.material),
            missing.names.join(", "),
            folders.join(", ")
        );
    }
    for (material, error) in &report.failed {
        anstream::eprintln!(
            "{} texture not usable: material {} names {:?}: {error}",
            "warning:".yellow().bold(),
            material,
            name(*material)
        );
    }
    Ok(())
}

/// For a Half-Life model whose body parts hold more than one model: what its body value
/// leaves out of a conversion or export, which holds one model of each part (`None` for
/// every other model).
pub fn other_bodies(model: &Model<'_>) -> Option<String> {
    let hl1 = model.as_hl1()?.model();
    let parts = hl1.bodyparts();
    let others: Vec<String> = (parts.iter())
        .filter(|part| part.nummodels.get() > 1)
        .map(|part| {
            let name = skelmap_core::name::lossy(skelmap_core::name::trim_nul(&part.name));
            format!("'{name}' {}", part.nummodels.get() - 1)
        })
        .collect();
    if others.is_empty() {
        return None;
    }
    let total: i64 = (parts.iter())
        .map(|part| i64::from(part.nummodels.get().max(1) - 1))
        .sum();
    Some(format!(
        "body {} shows one model of each body part; the {total} others are left out ({}): \
         --body picks them (`info` lists them)",
        hl1.body(),
        others.join(", ")
    ))
}

/// What to add to a "no triangles" or "no mesh" error for a Half-Life model whose body shows no mesh
/// while a model of one of its body parts has one (a gib model's empty first template): the
/// `--body` value that shows that model. Empty otherwise.
pub fn empty_body_hint(model: &Model<'_>) -> String {
    let Some(pair) = model.as_hl1() else {
        return String::new();
    };
    if model.num_meshes() > 0 {
        return String::new();
    }
    let hl1 = pair.model();
    let shown = hl1.bodyparts().iter().enumerate().find_map(|(p, part)| {
        let models = usize::try_from(part.nummodels.get()).unwrap_or(0);
        (0..models)
            .find(|&m| hl1.model(p, m).is_some_and(|r| r.nummesh.get() > 0))
            .map(|m| (p, m, i64::from(part.base.get())))
    });
    shown.map_or_else(String::new, |(p, m, base)| {
        format!(
            "; body {} shows no mesh: --body {} shows model {m} of body part {p} (`info` \
             lists them)",
            hl1.body(),
            m as i64 * base
        )
    })
}
