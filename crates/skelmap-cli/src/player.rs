//! `skelmap export` of a Quake III player: its parts opened as one [`Assembly`] and written
//! as one glTF scene ([`gltf::write_assembly_glb`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use skelmap_core::asset::Asset;
use skelmap_core::model::{Assembly, ClipSet, PLAYER};
use skelmap_export::gltf;

use crate::export::{ExportArgs, extension, scene_of, warn_replaced};
use crate::load;
use crate::output::Outputs;
use crate::summary::count;

/// `export`'s switches for a Quake III player.
pub struct PlayerArgs {
    /// `--weapon FILE`: a model held on the torso's `tag_weapon`.
    pub weapon: Option<PathBuf>,
    /// `--play A,B` (repeatable): the clips played together in each animation.
    pub play: Vec<String>,
}

/// The folder of the Quake III player `file` names: `file` itself when it is a folder with
/// `lower.md3`, `upper.md3` and `head.md3`, or the folder of a `lower.md3` with the other
/// two beside it; `None` otherwise.
pub fn player_folder(file: &Path) -> Option<PathBuf> {
    let is_lower = file
        .file_name()
        .is_some_and(|n| n.eq_ignore_ascii_case(PLAYER[0].1));
    let dir = if file.is_dir() {
        file
    } else if is_lower {
        file.parent()?
    } else {
        return None;
    };
    PLAYER
        .iter()
        .all(|(_, part, _)| dir.join(part).is_file())
        .then(|| dir.to_path_buf())
}

/// `skelmap export` of the Quake III player in `dir` as one glTF scene
/// ([`gltf::write_assembly_glb`]): a node per part at its parent's tag, an animation per set
/// of clips (`--play`, else every set [`Assembly::clip_sets`] gives).
pub fn export(
    dir: &Path,
    out: &Path,
    args: &ExportArgs,
    player_args: &PlayerArgs,
    companions: &load::Companions,
) -> Result<ExitCode, String> {
    let kind = args.format.clone().unwrap_or_else(|| extension(out));
    if out == Path::new("-") || !matches!(kind.as_str(), "glb" | "gltf") {
        return Err(format!(
            "{}: a player is written as one glTF scene: the output must be a .glb or .gltf file",
            out.display()
        ));
    }
    if args.frame.is_some() || args.at.clip.is_some() || args.at.is_layered() {
        return Err(
            "--frame, --clip, --blend and --additive pose one model; a player's animations \
                    are chosen with --play"
                .to_string(),
        );
    }
    let options = load::open_options(companions);
    let player = Assembly::open_player(dir, player_args.weapon.as_deref(), &options)
        .map_err(|e| e.to_string())?;
    let mut outputs = Outputs::new();
    let mut files: Vec<PathBuf> = PLAYER.iter().map(|(_, f, _)| dir.join(f)).collect();
    files.extend(player_args.weapon.clone());
    for (file, part) in files.iter().zip(player.parts()) {
        outputs.read_model(file, companions, &part.model);
    }
    outputs.claim(out)?;
    let bin = out.with_extension("bin");
    if kind == "gltf" {
        outputs.claim(&bin)?;
    }
    let sets = clip_sets(&player, &player_args.play)?;
    let mut assets = Vec::with_capacity(files.len());
    for (file, part) in files.iter().zip(player.parts()) {
        let mut asset = scene_of(
            file,
            &part.model,
            None,
            &crate::layers::Posing::default(),
            args.no_animations,
        )?;
        load::textures(
            file,
            &mut asset,
            companions,
            part.model.base(),
            &mut outputs,
        )?;
        assets.push(asset);
    }
    let sets = if args.no_animations { Vec::new() } else { sets };
    let fail = |e: skelmap_export::Error| format!("{}: {e}", out.display());
    if kind == "glb" {
        let mut bytes = Vec::new();
        gltf::write_assembly_glb(&player, &assets, &sets, &mut bytes).map_err(fail)?;
        outputs.write(out, &bytes)?;
    } else {
        let uri = bin
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| format!("{}: the file name is not UTF-8", out.display()))?;
        let (json, data) = gltf::assembly_to_gltf(&player, &assets, &sets, uri).map_err(fail)?;
        outputs.write(out, &json)?;
        if !data.is_empty() {
            outputs.write(&bin, &data)?;
        }
    }
    let names: Vec<&str> = player.parts().iter().map(|p| p.name.as_str()).collect();
    let sum = |f: fn(&Asset) -> usize| assets.iter().map(f).sum::<usize>() as u64;
    say!(
        "wrote {}: a player of {} ({}), {}, {}, {}, {}",
        out.display(),
        count(names.len() as u64, "part", "parts"),
        names.join(", "),
        count(sum(|a| a.meshes.len()), "mesh", "meshes"),
        count(sum(Asset::num_vertices), "vertex", "vertices"),
        count(sum(Asset::num_triangles), "triangle", "triangles"),
        count(sets.len() as u64, "animation", "animations"),
    );
    assets.iter().for_each(warn_replaced);
    Ok(ExitCode::SUCCESS)
}

/// The sets of clips `--play` names (each `A,B`: the clips played together), else every set
/// the player gives; an error names a clip no part has and lists those there are.
fn clip_sets(player: &Assembly<'_>, play: &[String]) -> Result<Vec<ClipSet>, String> {
    if play.is_empty() {
        return Ok(player.clip_sets());
    }
    play.iter()
        .map(|given| {
            let names: Vec<&str> = given.split(',').map(str::trim).collect();
            player.clip_set(&names).ok_or_else(|| {
                let mut known: Vec<&str> = player
                    .parts()
                    .iter()
                    .flat_map(|p| p.model.clips().iter().map(|c| c.name.as_str()))
                    .collect();
                known.sort_unstable();
                known.dedup();
                format!(
                    "--play {given}: every name must be a clip of some part; the clips are: {}",
                    known.join(", ")
                )
            })
        })
        .collect()
}
