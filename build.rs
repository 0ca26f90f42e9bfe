//! Builds the C++ harnesses of the peer benchmarks (`benches/peers.rs`), and nothing else.
//!
//! Without the features `ozz` and `assimp` this script does no work. With them it compiles
//! one executable per peer into `OUT_DIR` (with the C++ compiler the `cc` crate finds,
//! `-O3 -march=native -std=c++17`) and hands its path to the bench:
//!
//! - `ozz`: `benches/peers/ozz_harness.cc` with the ozz-animation 0.16 sources it needs
//!   (`OZZ_SOURCES`: the skinning job; the sampling, blending, local-to-model and IK jobs and the offline
//!   builders for their skeleton and animation), taken from the folder named by the
//!   `OZZ_DIR` environment variable, as `SKELMAP_OZZ_HARNESS`;
//! - `assimp`: `benches/peers/assimp_harness.cc` linked with the system assimp
//!   (`-lassimp`; `apt-get install libassimp-dev`), as `SKELMAP_ASSIMP_HARNESS`.
//!
//! `-march=native` builds for the machine that runs the benches, as skelmap's own kernels
//! pick their instruction set at run time on the same machine.
// A build script reports what is missing by panicking: cargo shows the message.
#![allow(clippy::panic)]

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "ozz")]
    harness::ozz();
    #[cfg(feature = "assimp")]
    harness::assimp();
}

#[cfg(any(feature = "ozz", feature = "assimp"))]
mod harness {
    use std::env;
    use std::path::PathBuf;

    /// Compiles `sources` into the executable `OUT_DIR/name` and returns its path; on failure
    /// panics with the compiler's errors and `hint`.
    fn compile(
        name: &str,
        sources: &[PathBuf],
        includes: &[PathBuf],
        libs: &[&str],
        hint: &str,
    ) -> PathBuf {
        let Some(out) = env::var_os("OUT_DIR").map(PathBuf::from) else {
            panic!("cargo sets OUT_DIR for build scripts");
        };
        let exe = out.join(name);
        let compiler = cc::Build::new()
            .cpp(true)
            .cargo_metadata(false)
            .cargo_warnings(false)
            .get_compiler();
        let mut command = compiler.to_command();
        command.args(["-O3", "-march=native", "-std=c++17", "-DNDEBUG", "-pthread"]);
        for include in includes {
            command.arg("-I").arg(include);
        }
        command.args(sources).arg("-o").arg(&exe);
        for lib in libs {
            command.arg(format!("-l{lib}"));
        }
        let output = match command.output() {
            Ok(output) => output,
            Err(e) => panic!("cannot run the C++ compiler {:?}: {e}", compiler.path()),
        };
        if !output.status.success() {
            panic!(
                "building the {name} peer harness failed ({hint}); {command:?} said:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        exe
    }

    fn source(relative: &str) -> PathBuf {
        let root = env::var_os("CARGO_MANIFEST_DIR").map_or_else(PathBuf::new, PathBuf::from);
        let path = root.join(relative);
        println!("cargo:rerun-if-changed={}", path.display());
        path
    }

    /// The ozz sources the harness needs: the skinning job, the sampling, blending,
    /// local-to-model and IK jobs with the offline builders that make their skeleton and animation
    /// (found by linking: the rest of the maths is inline in the headers).
    #[cfg(feature = "ozz")]
    const OZZ_SOURCES: [&str; 17] = [
        "src/geometry/runtime/skinning_job.cc",
        "src/animation/runtime/animation.cc",
        "src/animation/runtime/skeleton.cc",
        "src/animation/runtime/sampling_job.cc",
        "src/animation/runtime/local_to_model_job.cc",
        "src/animation/runtime/blending_job.cc",
        "src/animation/runtime/ik_two_bone_job.cc",
        "src/animation/runtime/ik_aim_job.cc",
        "src/animation/offline/animation_builder.cc",
        "src/animation/offline/skeleton_builder.cc",
        "src/animation/offline/raw_animation.cc",
        "src/animation/offline/raw_animation_utils.cc",
        "src/animation/offline/raw_skeleton.cc",
        "src/base/memory/allocator.cc",
        "src/base/log.cc",
        "src/base/maths/soa_math_archive.cc",
        "src/base/encode/group_varint.cc",
    ];

    #[cfg(feature = "ozz")]
    pub fn ozz() {
        println!("cargo:rerun-if-env-changed=OZZ_DIR");
        const HOW: &str = "the `ozz` feature needs the ozz-animation 0.16 sources: download the \
            ozz-animation 0.16 release (source code archive) from \
            https://github.com/guillaumeblanc/ozz-animation/releases, unpack it and point \
            OZZ_DIR at the folder that holds its include/ and src/, e.g. \
            `OZZ_DIR=/path/to/ozz-animation-0.16.0 cargo bench --bench peers --features ozz`";
        let Some(dir) = env::var_os("OZZ_DIR").map(PathBuf::from) else {
            panic!("OZZ_DIR is not set; {HOW}");
        };
        let include = dir.join("include");
        let header = include.join("ozz/geometry/runtime/skinning_job.h");
        let sources: Vec<PathBuf> = OZZ_SOURCES.iter().map(|s| dir.join(s)).collect();
        for path in sources.iter().chain([&header]) {
            if !path.is_file() {
                panic!(
                    "OZZ_DIR={} does not hold ozz-animation's {}; {HOW}",
                    dir.display(),
                    rel(path, &dir)
                );
            }
        }
        let version = std::fs::read_to_string(dir.join("CMakeLists.txt")).unwrap_or_default();
        if !version.contains("set(OZZ_VERSION_MINOR 16)") {
            println!(
                "cargo:warning=OZZ_DIR={} does not look like ozz-animation 0.16 (its \
                 CMakeLists.txt names another version); the peer figures are for 0.16",
                dir.display()
            );
        }
        for path in &sources {
            println!("cargo:rerun-if-changed={}", path.display());
        }
        let harness = source("benches/peers/ozz_harness.cc");
        let all: Vec<PathBuf> = std::iter::once(harness).chain(sources).collect();
        let exe = compile("ozz_harness", &all, &[include, dir.join("src")], &[], HOW);
        println!("cargo:rustc-env=SKELMAP_OZZ_HARNESS={}", exe.display());
    }

    #[cfg(feature = "ozz")]
    fn rel(path: &std::path::Path, base: &std::path::Path) -> String {
        path.strip_prefix(base)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    #[cfg(feature = "assimp")]
    pub fn assimp() {
        let harness = source("benches/peers/assimp_harness.cc");
        let hint = "the `assimp` feature needs the assimp library and its headers: \
            `apt-get install libassimp-dev` on Debian or Ubuntu";
        let exe = compile("assimp_harness", &[harness], &[], &["assimp"], hint);
        println!("cargo:rustc-env=SKELMAP_ASSIMP_HARNESS={}", exe.display());
    }
}
