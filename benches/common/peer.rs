//! A peer library's harness as a persistent child process (benches/peers.rs).
//!
//! The peers are C++ programs of our own (`benches/peers/*_harness.cc`, built by `build.rs`
//! behind the `ozz` and `assimp` features). Calling them in-process would need FFI, and so
//! `unsafe`, which the benches may not use; a child process needs none. The bench spawns a
//! harness once, has it load each input once, and then, for every criterion sample, sends
//! `run NAME THREADS ITERS` and gets back the nanoseconds the harness measured itself around
//! its loop of `ITERS` calls (`std::chrono::steady_clock`): the pipe's round trip is outside
//! the timed region, so the figures are comparable with criterion's own `iter` timings.
//!
//! The protocol is text, one request line on the child's stdin and one reply line on its
//! stdout (`ok …` or `err MESSAGE`):
//!
//! - `load NAME PATH` → `ok FIELDS…` (what the harness says about the input);
//! - `run NAME THREADS ITERS` → `ok NANOSECONDS`;
//! - `dump NAME THREADS PATH` → `ok`, after writing its output for one call to `PATH` as
//!   little-endian `f32`s (what they are depends on the harness);
//! - `quit`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The paired rounds counted, after one left out ([`Peer::paired`]).
const ROUNDS: usize = 15;

/// A running harness.
#[derive(Debug)]
pub struct Peer {
    label: String,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Peer {
    /// Starts the harness at `exe`; `label` names it in messages.
    pub fn spawn(label: &str, exe: &str) -> Peer {
        let mut child = Command::new(exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the {label} harness {exe}: {e}"));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Peer {
            label: label.to_string(),
            child,
            stdin,
            stdout,
        }
    }

    /// Sends one request and returns the words after `ok`, or the message after `err`.
    pub fn request(&mut self, line: &str) -> Result<Vec<String>, String> {
        let label = &self.label;
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .unwrap_or_else(|e| panic!("the {label} harness stopped reading: {e}"));
        let mut reply = String::new();
        let read = self
            .stdout
            .read_line(&mut reply)
            .unwrap_or_else(|e| panic!("cannot read the {label} harness's reply: {e}"));
        assert!(read > 0, "the {label} harness exited on `{line}`");
        let mut words = reply.split_whitespace().map(str::to_string);
        match words.next().as_deref() {
            Some("ok") => Ok(words.collect()),
            Some("err") => Err(words.collect::<Vec<_>>().join(" ")),
            _ => panic!("the {label} harness replied {reply:?} to `{line}`"),
        }
    }

    /// Loads the input file at `path` as `name` (no whitespace in either).
    pub fn load(&mut self, name: &str, path: &Path) -> Result<Vec<String>, String> {
        let path = path.to_str().expect("a UTF-8 path");
        assert!(
            !name.contains(char::is_whitespace) && !path.contains(char::is_whitespace),
            "names and paths go on a space-separated line: {name:?} {path:?}"
        );
        self.request(&format!("load {name} {path}"))
    }

    /// Runs input `name` `iters` times on `threads` threads; the time the harness measured.
    pub fn run(&mut self, name: &str, threads: usize, iters: u64) -> Duration {
        self.run_as("run", name, threads, iters)
    }

    /// As [`Peer::run`] with another timed command of the harness (`command NAME THREADS
    /// ITERS` → `ok NANOSECONDS`), such as the assimp harness's `run-memory`.
    pub fn run_as(&mut self, command: &str, name: &str, threads: usize, iters: u64) -> Duration {
        let words = self
            .request(&format!("{command} {name} {threads} {iters}"))
            .unwrap_or_else(|e| panic!("{} {command} {name}: {e}", self.label));
        let nanos: u64 = words
            .first()
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| {
                panic!(
                    "{} {command} {name}: no nanoseconds in {words:?}",
                    self.label
                )
            });
        Duration::from_nanos(nanos)
    }

    /// The harness's time over skelmap's for one pair of rows, measured in paired rounds: a
    /// batch of `skelmap` calls (about 5 ms) timed here, then as many of the harness's
    /// (`command` on input `name`, one thread) timed by the harness, back to back, so that
    /// both run on the host in as nearly the same state as can be; 15 rounds after one left
    /// out. A shared host's speed can drift, by more than the open issues' margins, between
    /// criterion's rows, which are measured seconds apart; a round's halves are milliseconds
    /// apart. Prints the median of the rounds' ratios and their range (how far the host moved
    /// within the run), as `paired <row>/<name>`.
    pub fn paired(&mut self, row: &str, name: &str, command: &str, skelmap: impl FnMut()) {
        let (median, lo, hi, batch) = self.rounds(name, command, skelmap);
        println!(
            "paired {row}/{name}: {} ÷ skelmap {median:.2} (median of {ROUNDS} rounds of \
             {batch} calls each; {lo:.2} to {hi:.2})",
            self.label,
        );
    }

    /// A bound on a pair's ratio, measured as [`Peer::paired`] measures the pair: the
    /// harness's time over `floor`'s, a part of skelmap's work that no faster skelmap can
    /// avoid (described by `what`). Printed as `paired <row>/<name>: <harness> ÷ <what>`.
    pub fn bound(&mut self, row: &str, name: &str, command: &str, what: &str, floor: impl FnMut()) {
        let (median, lo, hi, batch) = self.rounds(name, command, floor);
        println!(
            "paired {row}/{name}: {} ÷ {what} {median:.2} (a bound on {row}'s ratio; median \
             of {ROUNDS} rounds of {batch} calls each; {lo:.2} to {hi:.2})",
            self.label,
        );
    }

    /// The bound on a from-the-path row's ratio on this host ([`Peer::bound`]): the time it
    /// takes only to read `files` (the model's file and the companions skelmap reads with it)
    /// from their paths. No reader that reads those files from their paths can beat the
    /// harness by more.
    pub fn read_bound(&mut self, row: &str, name: &str, command: &str, files: &[PathBuf]) {
        let what = format!("reading its {} file(s)", files.len());
        self.bound(row, name, command, &what, || {
            for file in files {
                std::hint::black_box(std::fs::read(file).expect("a file the model was read from"));
            }
        });
    }

    /// The paired rounds behind [`Peer::paired`] and [`Peer::bound`]: the median of
    /// the rounds' ratios (harness ÷ `ours`), their smallest and largest, and the calls per
    /// round.
    fn rounds(
        &mut self,
        name: &str,
        command: &str,
        mut ours: impl FnMut(),
    ) -> (f64, f64, f64, u64) {
        const BATCH: Duration = Duration::from_millis(5);
        let start = Instant::now();
        ours();
        let once = start.elapsed().max(Duration::from_nanos(1));
        let batch = (BATCH.as_nanos() / once.as_nanos()).clamp(1, 1_000_000) as u64;
        let mut ratios = Vec::with_capacity(ROUNDS);
        for round in 0..=ROUNDS {
            let start = Instant::now();
            for _ in 0..batch {
                ours();
            }
            let elapsed = start.elapsed().as_secs_f64();
            let theirs = self.run_as(command, name, 1, batch).as_secs_f64();
            if round > 0 {
                ratios.push(theirs / elapsed);
            }
        }
        ratios.sort_by(f64::total_cmp);
        (ratios[ROUNDS / 2], ratios[0], ratios[ROUNDS - 1], batch)
    }

    /// Runs input `name` once on `threads` threads and returns what the harness wrote, as
    /// `f32`s (through the file `path`, removed afterwards).
    pub fn dump(&mut self, name: &str, threads: usize, path: &Path) -> Vec<f32> {
        let shown = path.to_str().expect("a UTF-8 path");
        self.request(&format!("dump {name} {threads} {shown}"))
            .unwrap_or_else(|e| panic!("{} dump {name}: {e}", self.label));
        let bytes = std::fs::read(path).expect("the dump the harness wrote");
        let _ = std::fs::remove_file(path);
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        let _ = self.child.wait();
    }
}

/// Where the benches write the peers' input files: `target/peer-data` (beside the profile
/// folder that holds this bench), else the system's temporary folder.
pub fn data_dir() -> PathBuf {
    let dir = std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.ancestors()
                .nth(3)
                .map(|target| target.join("peer-data"))
        })
        .unwrap_or_else(|| std::env::temp_dir().join("skelmap-peer-data"));
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// The largest absolute difference between two equally long arrays.
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "outputs of different lengths");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}
