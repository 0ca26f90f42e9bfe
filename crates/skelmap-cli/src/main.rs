//! `skelmap`: inspect, validate, measure, export and preview classic game model files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};
use owo_colors::OwoColorize;

/// `println!` through `anstream` (colour stripped when piped or under NO_COLOR) that ends
/// the program quietly when the reader has gone away (`skelmap info x | head`).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::emit(format_args!($($arg)*))
    };
}

mod bench;
mod convert;
mod demo;
mod export;
mod layers;
mod load;
mod output;
mod player;
mod summary;
mod validate;

use summary::Summary;

/// What `--help` and the manual page say after the commands: every format of the format
/// table (so a format added there is listed here), then clips and colour.
fn after_help() -> String {
    let formats: String = skelmap_core::Format::ALL
        .iter()
        .map(|format| {
            let extensions: Vec<String> = format
                .extensions()
                .iter()
                .map(|e| format!(".{e}"))
                .collect();
            let written = if format.writable() { ", written" } else { "" };
            let (name, summary) = (format.name(), format.summary());
            format!("\n  {name} ({}{written}): {summary}", extensions.join(" "))
        })
        .collect();
    format!(
        "Formats, recognised by their first bytes, not their names (`convert` writes those \
         marked written, chosen by the output's extension):{formats}\n\n\
         Companions are found beside a model: an SKM's skeleton, an SL mdl's .anim, an MD5 \
         mesh's .md5anim files, a Half-Life model's texture and sequence-group files, an MD3's \
         levels of detail, .skin and animation.cfg, a PSK's PSA, an MDM's MDX (of its stem, \
         else as Enemy Territory finds it: the first animfile, and its clips, of the animation \
         group that a .char under the game folder's characters/ gives the mesh, and the \
         .skin the character names; the game folder is --root, else the nearest folder above \
         holding characters/). `--skeleton` \
         names an SKM's or MDM's skeleton; `--animation` an animation to play: an \
         animation-only IQM on an IQM, an .md5anim on an MD5 mesh, a PSA on a PSK.\n\n\
         Clips: a DarkPlaces `.framegroups` file beside the model (`zombie.dpm.framegroups`; per \
         clip: first frame and frame count, then optionally frames per second (20), 0 not to loop, \
         and a name, else the line's // comment; /* */ comments too, as DarkPlaces reads it) \
         names and times its clips for every command (not looked for beside Half-Life, MD5 \
         and MDM/MDX models, whose clips are their own).\n\n\
         Colour only on a terminal; NO_COLOR turns it off."
    )
}

/// `--clip NAME --time SECONDS`: a pose by clip and time; `--blend` and `--additive`: a pose
/// of layers.
#[derive(Debug, clap::Args)]
struct ClipArgs {
    /// Pose in the clip of this name (see `info` for the clips) instead of the bind pose; a
    /// glTF then holds that clip's animation only. With `--blend` or `--additive`, the first
    /// layer, at weight 1.
    #[arg(long, value_name = "NAME")]
    clip: Option<String>,
    /// Seconds into `--clip` and into every layer's clip (default 0), as a game plays it:
    /// looping if the clip loops, else held at its last frame.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    time: Option<f32>,
    /// A layer of a blend: CLIP at WEIGHT, on bones FIRST to LAST (both included, numbered as
    /// `info` prints them) or on every bone. Repeatable. Weights are normalised per bone
    /// (`--blend idle:1 --blend run:1:10..20`: bones 10 to 20 half of each, the others idle
    /// alone); a bone no layer plays holds the bind pose. A glTF then holds the pose only.
    #[arg(long, value_name = "CLIP:WEIGHT[:FIRST..LAST]", value_parser = layers::parse)]
    blend: Vec<layers::Spec>,
    /// An additive layer: CLIP's difference from its first frame, added with WEIGHT
    /// (negative takes it away) on top of the blend (or the bind pose), on bones FIRST to
    /// LAST or every bone. Repeatable.
    #[arg(long, value_name = "CLIP:WEIGHT[:FIRST..LAST]", value_parser = layers::parse, allow_hyphen_values = true)]
    additive: Vec<layers::Spec>,
}

impl ClipArgs {
    /// The pose these switches ask for; `--time` alone is a usage error (exit status 2, as
    /// the parser's own).
    fn posing(self) -> layers::Posing {
        let posing = layers::Posing {
            time: self.time.unwrap_or(0.0),
            clip: self.clip,
            blend: self.blend,
            additive: self.additive,
        };
        if self.time.is_some() && posing.clip.is_none() && !posing.is_layered() {
            Cli::command()
                .error(
                    clap::error::ErrorKind::MissingRequiredArgument,
                    "--time needs --clip, --blend or --additive: the clip to time",
                )
                .exit();
        }
        posing
    }
}

#[derive(Debug, Parser)]
#[command(
    name = "skelmap",
    version,
    about = "Validated zero-copy views of classic game model files: inspect, validate, \
             benchmark, export to glTF/OBJ and preview as PNG",
    after_help = after_help()
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Worker threads, for the commands that run in parallel.
#[derive(Debug, Clone, Args)]
struct JobsArg {
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
}

impl JobsArg {
    /// Sizes the global thread pool (before anything has started one).
    fn apply(&self) {
        if let Some(jobs) = self.jobs {
            // Only fails if a pool exists already, which cannot happen this early.
            let _ = rayon::ThreadPoolBuilder::new()
                .num_threads(jobs.max(1))
                .build_global();
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build a small animated model, write it as DPM and SKM+SKP, validate both, skin every
    /// frame, and write demo.glb and demo.png.
    #[command(after_help = "Example:\n  skelmap demo -o /tmp/skelmap-demo")]
    Demo {
        /// Where to write the demo files.
        #[arg(short, long, default_value = "skelmap-demo")]
        out: PathBuf,
    },
    /// Describe a model: counts, bone tree, meshes, frames and frame groups, skins, bounds,
    /// diagnostics.
    #[command(after_help = "Examples:\n  skelmap info models/player.dpm --json\n  \
                            skelmap info models/*.mdl")]
    Info {
        /// The model files (each format is recognised from the file's first bytes).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print JSON instead of text: counts as integers, each skin an object; the schema is
        /// crates/skelmap-cli/schema/info.schema.json (JSON Schema 2020-12), and several files
        /// give an array of such objects.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        companions: load::Companions,
    },
    /// Validate files and directories (recursively), in parallel; prints a summary table and
    /// exits non-zero if any file fails.
    #[command(after_help = "Example:\n  skelmap validate models/ extra/zombie.dpm")]
    Validate {
        /// Model files, or directories searched for every extension of the format table
        /// (`validate::extensions_text`).
        #[arg(required = true, help = format!(
            "Model files, or directories searched for {}", validate::extensions_text()
        ))]
        paths: Vec<PathBuf>,
        /// Print JSON instead of text (no progress bar).
        #[arg(long)]
        json: bool,
        /// Count files with warnings as failures.
        #[arg(long)]
        strict: bool,
        #[command(flatten)]
        companions: load::Companions,
        #[command(flatten)]
        jobs: JobsArg,
    },
    /// Measure a model: open/validate, pose sampling, every skinning kernel on 1..N threads,
    /// in vertices/s and as a fraction of a memory-read pass measured in the same run.
    ///
    /// Each line measures for `--seconds`, and each kernel line also measures its read pass:
    /// a skeletal model on two threads makes about 56 measurements (some 18 s at the default
    /// 0.3 s), a vertex-animated one about 14 (some 4 s); more threads, more lines.
    #[command(after_help = "Example:\n  skelmap bench models/zombie.dpm --seconds 0.5")]
    Bench {
        /// The model file.
        file: PathBuf,
        /// Time spent measuring each line.
        #[arg(long, default_value_t = 0.3)]
        seconds: f64,
        /// Print one JSON object (crates/skelmap-cli/schema/bench.schema.json) instead of
        /// the table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        companions: load::Companions,
        #[command(flatten)]
        jobs: JobsArg,
    },
    /// Export a model as glTF 2.0 (.glb, or .gltf with a .bin beside it) or as OBJ (one frame).
    #[command(
        after_help = "Examples:\n  skelmap export zombie.dpm -o zombie.glb\n  \
                            skelmap export gun.mdl -o gun.obj --frame 3\n  \
                            skelmap export zombie.dpm -o walk.glb --clip walk --time 0.5\n  \
                            skelmap export models/ -o gltf/   (gltf/<path>.glb for each)\n  \
                            skelmap export players/sarge -o sarge.glb --weapon railgun.md3\n  \
                            skelmap export sarge/lower.md3 -o run.glb --play legs_run,torso_attack"
    )]
    Export {
        /// The model file, or a directory: every model under it (as `validate` finds them) is
        /// exported, in parallel, to `OUT/<its path>.glb`. A Quake III player (a folder with
        /// `lower.md3`, `upper.md3` and `head.md3`, or its `lower.md3`) exported to a `.glb`
        /// or `.gltf` becomes one scene: each part a node on its parent's tag, and an
        /// animation per set of clips played together (`--play`).
        file: PathBuf,
        /// The output: `.glb`, `.gltf` (with its `.bin` beside it) or `.obj`; a directory for
        /// a directory of models; `-` for standard output (with `--format gltf`, its buffer
        /// inside the JSON, or `--format obj`, without materials). Folders are created; never
        /// the model or a file it is opened with, and written atomically.
        #[arg(short, long)]
        out: PathBuf,
        /// The output's format where its name does not give it (`-o -`): gltf or obj (glb
        /// is binary, for files only).
        #[arg(long, value_parser = ["glb", "gltf", "obj"])]
        format: Option<String>,
        /// Pose at this frame (counted from 0) instead of the bind pose.
        #[arg(long, conflicts_with_all = ["clip", "blend", "additive"])]
        frame: Option<usize>,
        #[command(flatten)]
        at: ClipArgs,
        /// glTF: keep every influence (JOINTS_n/WEIGHTS_n sets) instead of the 4 a vertex that
        /// err least over the frames (a note says how many vertices had more).
        #[arg(long)]
        all_influences: bool,
        /// glTF: leave the animations (and the morph targets they play) out.
        #[arg(long)]
        no_animations: bool,
        /// A player: a weapon model to hold on the torso's `tag_weapon`.
        #[arg(long, value_name = "FILE")]
        weapon: Option<PathBuf>,
        /// A player: clips to play together as one animation, comma-separated (a part plays
        /// the one it has; the others their idle clip). Repeatable. Default: each clip of
        /// each part with the others idle, and `both_` clips on legs and torso together.
        #[arg(long, value_name = "CLIPS")]
        play: Vec<String>,
        /// Export a player's `lower.md3` alone, not the player it belongs to.
        #[arg(long)]
        part: bool,
        #[command(flatten)]
        companions: load::Companions,
    },
    /// Draw a flat-shaded preview PNG of a frame, or a contact sheet of frames or frame
    /// groups.
    ///
    /// A sheet has at most 16 cells (a note says which clips were left out), and the whole
    /// image at most 16,777,216 pixels (4096 × 4096): `--size` is the size of one cell.
    #[command(
        after_help = "Examples:\n  skelmap render zombie.dpm -o zombie.png --frame 10\n  \
                            skelmap render zombie.dpm -o run.png --clip run --time 0.25\n  \
                            skelmap render golem.dpm -o g.png --blend idle:1 --blend melee01:1:10..58 --time 0.5\n  \
                            skelmap render zombie.dpm -o sheet.png --sheet"
    )]
    Render {
        /// The model file, or a directory: every model under it is drawn, in parallel, to
        /// `OUT/<its path>.png`.
        file: PathBuf,
        /// The PNG to write (`.png`); a directory for a directory of models. Folders are
        /// created; never the model or a file it is opened with, and written atomically.
        #[arg(short, long)]
        out: PathBuf,
        /// Pose at this frame (counted from 0) instead of the bind pose.
        #[arg(long, conflicts_with_all = ["sheet", "clip", "blend", "additive"])]
        frame: Option<usize>,
        #[command(flatten)]
        at: ClipArgs,
        /// A contact sheet: the middle frame of each frame group (at most 16), or (with one
        /// group) up to 16 frames spread over the animation.
        #[arg(long, conflicts_with_all = ["clip", "blend", "additive"])]
        sheet: bool,
        /// With --sheet: the clips to show, by name, in this order (`--clips walk,run`).
        #[arg(long, value_name = "NAMES", value_delimiter = ',', requires = "sheet")]
        clips: Vec<String>,
        /// Image (or sheet cell) size in pixels.
        #[arg(long, default_value_t = 512)]
        size: u32,
        /// Degrees to turn the camera about the vertical axis (180: the other side).
        #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
        yaw: f32,
        /// Degrees above the horizon to look from (−89 to 89; default about 22).
        #[arg(long, allow_negative_numbers = true)]
        pitch: Option<f32>,
        /// The background colour as hexadecimal RRGGBB (default 808690, a mid grey).
        #[arg(long, value_name = "RRGGBB", value_parser = export::parse_colour)]
        background: Option<[u8; 4]>,
        #[command(flatten)]
        companions: load::Companions,
    },
    /// Print a completion script for a shell to standard output.
    #[command(after_help = "Examples:\n  \
                            skelmap completions bash > ~/.local/share/bash-completion/completions/skelmap\n  \
                            skelmap completions zsh > ~/.zfunc/_skelmap")]
    Completions {
        /// The shell: bash, elvish, fish, powershell or zsh.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) to standard output.
    #[command(after_help = "Example:\n  skelmap man > skelmap.1 && man ./skelmap.1")]
    Man,
    /// Convert a model to another format, chosen by the output's extension.
    ///
    /// The long help is `convert::long_about`'s: the outputs, listed from the format table.
    #[command(long_about = convert::long_about())]
    #[command(after_help = "Examples:\n  skelmap convert player.dpm out/player   \
                            (writes out/player.skm and out/player.skp)\n  \
                            skelmap convert player.dpm a.skm b.skp\n  \
                            skelmap convert guy.iqm guy.dpm   (and guy.dpm.framegroups)\n  \
                            skelmap convert dwarf.ms3d dwarf.mdl --to quake --bake\n  \
                            skelmap convert zombie.dpm zombie.iqm --clip walk --fps 30")]
    Convert {
        /// The model to read.
        input: PathBuf,
        /// The file to write; its extension chooses the format.
        output: PathBuf,
        /// The SKP to write, for an SKM output (default: the SKM's stem with `.skp`).
        skp: Option<PathBuf>,
        #[command(flatten)]
        switches: convert::Switches,
        #[command(flatten)]
        companions: load::Companions,
    },
    /// Optimise a model for the engine and write it: unused bones, zero-weight influences
    /// and unused vertices dropped, duplicate vertices merged, triangles and vertices
    /// ordered for the GPU's caches.
    ///
    /// Bones no vertex uses are dropped unless they are attachments (flagged in the file,
    /// named `tag_…`, or named with `--keep`) or parents of kept bones. Prints, before and
    /// after: bytes, bones, vertices, influences, ACMR (vertex shader runs per triangle) and
    /// ATVR (per vertex) of a 16-entry cache; then the conversion error: optimisation itself
    /// moves no vertex beyond float rounding, and writing adds only what the format cannot
    /// hold (a DPM's influences that disagree on a vertex's rest position, Half-Life's
    /// channels stored again on steps of their own: docs/convert.md).
    #[command(
        after_help = "Examples:\n  skelmap optimize golem.dpm golem-opt.dpm\n  \
                            skelmap optimize raptor.dpm out/raptor.dpm --keep gunmount_left"
    )]
    Optimize {
        /// The model to read.
        input: PathBuf,
        /// The file to write; its extension chooses the format.
        output: PathBuf,
        #[command(flatten)]
        switches: convert::Switches,
        #[command(flatten)]
        companions: load::Companions,
    },
}

/// Runs the command line: one flat `match` over the subcommands, each arm taking its
/// arguments apart and calling its module, so it stays one function however many commands
/// there are.
fn main() -> ExitCode {
    match run(Cli::parse().command) {
        Ok(code) => code,
        Err(message) => {
            anstream::eprintln!("{} {message}", "error:".red().bold());
            ExitCode::FAILURE
        }
    }
}

/// Runs one command; an error is one line for standard error.
fn run(command: Command) -> Result<ExitCode, String> {
    match command {
        Command::Demo { out } => demo::run(&out),
        Command::Info {
            files,
            json,
            companions,
        } => info(&files, json, &companions),
        Command::Validate {
            paths,
            json,
            strict,
            companions,
            jobs,
        } => {
            jobs.apply();
            validate::run(&paths, json, strict, &companions)
        }
        Command::Bench {
            file,
            seconds,
            json,
            companions,
            jobs,
        } => {
            jobs.apply();
            bench::run(&file, seconds, &companions, json)
        }
        Command::Export {
            file,
            out,
            format,
            frame,
            at,
            all_influences,
            no_animations,
            weapon,
            play,
            part,
            companions,
        } => {
            let args = export::ExportArgs {
                format,
                frame,
                at: at.posing(),
                all_influences,
                no_animations,
            };
            let to_file = matches!(
                out.extension().and_then(|e| e.to_str()),
                Some("glb" | "gltf")
            );
            let player = player::player_folder(&file).filter(|_| to_file && !part);
            if let Some(dir) = player {
                let player_args = player::PlayerArgs { weapon, play };
                player::export(&dir, &out, &args, &player_args, &companions)
            } else if weapon.is_some() || !play.is_empty() {
                Err(format!(
                    "{}: --weapon and --play are for a Quake III player (a folder with \
                     lower.md3, upper.md3 and head.md3, or its lower.md3) written to a .glb \
                     or .gltf",
                    file.display()
                ))
            } else if file.is_dir() {
                export::batch(&file, &out, "glb", |model, to| {
                    export::export(model, to, &args, &companions)
                })
            } else {
                export::export(&file, &out, &args, &companions)
            }
        }
        Command::Render {
            file,
            out,
            frame,
            at,
            sheet,
            clips,
            size,
            yaw,
            pitch,
            background,
            companions,
        } => {
            let view = skelmap_export::render::View {
                yaw,
                pitch: pitch.unwrap_or_else(skelmap_export::render::View::default_pitch),
                background: background.unwrap_or(skelmap_export::render::BACKGROUND),
            };
            let args = export::RenderArgs {
                frame,
                at: at.posing(),
                sheet,
                clips,
                size,
                view,
            };
            if file.is_dir() {
                export::batch(&file, &out, "png", |model, to| {
                    export::render(model, to, &args, &companions)
                })
            } else {
                export::render(&file, &out, &args, &companions)
            }
        }
        Command::Convert {
            input,
            output,
            skp,
            switches,
            companions,
        } => convert::convert(&input, &output, skp.as_deref(), &switches, &companions),
        Command::Optimize {
            input,
            output,
            switches,
            companions,
        } => convert::optimize(&input, &output, &switches, &companions),
        Command::Completions { shell } => {
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "skelmap", &mut text);
            print_bytes(&text)
        }
        Command::Man => {
            let mut text = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut text)
                .map_err(|e| format!("cannot make the manual page: {e}"))
                .and_then(|()| print_bytes(&text))
        }
    }
}

/// Validates the file at `path` and summarises it.
fn summarise(path: &Path, companions: &load::Companions) -> Result<Summary, String> {
    let model = load::open(path, companions)?;
    Summary::of_model(&path.display().to_string(), &model)
}

/// Describes each of `paths`, in order. One file that fails is the command's error; with
/// several, each failure is reported on its own line and the others are still described,
/// and the exit code says whether any failed.
fn info(paths: &[PathBuf], json: bool, companions: &load::Companions) -> Result<ExitCode, String> {
    if let [path] = paths {
        let summary = summarise(path, companions)?;
        print_summary(&summary, json)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut summaries = Vec::new();
    let mut failed = false;
    for path in paths {
        match summarise(path, companions) {
            Ok(summary) => summaries.push(summary),
            Err(message) => {
                failed = true;
                anstream::eprintln!("{} {message}", "error:".red().bold());
            }
        }
    }
    if json {
        let text = serde_json::to_string_pretty(&summaries).map_err(|e| e.to_string())?;
        say!("{text}");
    } else {
        for (i, summary) in summaries.iter().enumerate() {
            if i > 0 {
                say!("");
            }
            print_summary(summary, false)?;
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn print_summary(summary: &Summary, json: bool) -> Result<(), String> {
    if json {
        let text = serde_json::to_string_pretty(summary).map_err(|e| e.to_string())?;
        say!("{text}");
    } else {
        let mut text = String::new();
        summary::render_text(summary, &mut text);
        say!("{}", text.trim_end_matches('\n'));
    }
    Ok(())
}

/// Writes `bytes` to standard output as they are (a script, a manual page); a reader that
/// has gone away is not an error.
fn print_bytes(bytes: &[u8]) -> Result<ExitCode, String> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to standard output: {e}"))
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

thread_local! {
    /// Set while a batch runs one file on this thread: its lines are left out, and the batch
    /// prints a summary instead.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with this thread's [`say!`] lines left out.
fn quietly<T>(f: impl FnOnce() -> T) -> T {
    let was = QUIET.replace(true);
    let result = f();
    QUIET.set(was);
    result
}

/// Writes one line to standard output; see [`say!`].
fn emit(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    if QUIET.get() {
        return;
    }
    let mut out = anstream::stdout();
    if let Err(e) = writeln!(out, "{line}") {
        // A closed pipe is the reader's choice, not an error; anything else is reported once.
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            anstream::eprintln!("error: cannot write to standard output: {e}");
        }
        std::process::exit(if e.kind() == std::io::ErrorKind::BrokenPipe {
            0
        } else {
            1
        });
    }
}
