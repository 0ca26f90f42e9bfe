//! Doom 3 MD5 (`MD5Version 10` text): one test per validation rule of `md5`'s module docs and
//! per malformed pattern issue #55 names (exact errors, lines and columns), the `Model` API on
//! a fixture whose poses and positions are worked out by hand, truncation and mutation
//! sweeps, and the corpus against its MANIFEST and assimp.

mod channels;
mod corpus;
mod model;
mod rules;
mod scale;
mod sweep;
mod write;

use std::collections::HashMap;

use skelmap::md5::{Anim, MeshFile};
use skelmap::{Diagnostics, Error, Limits, Model, Parse, Problem};

/// A mesh of three joints and one mesh of four vertices, worked out by hand:
///
/// - `root` at the origin, unrotated; `arm`, its child, at `(0, 0, 1)` turned 90° about `+Z`
///   (stored `x y z` of the quaternion with `w ≤ 0`: `(0, 0, −√½)`); `hand`, the arm's child,
///   at `(0, 1, 1)`, turned as the arm;
/// - vertex 0: `root` with weight 1 at `(1, 0, 0)` → `(1, 0, 0)`; vertex 1: `root` ½ at
///   `(0, 1, 0)` and `arm` ½ at `(1, 0, 0)` (the arm turns it to `(0, 1, 0)`, then
///   `+ (0, 0, 1)`) → `(0, 1, ½)`; vertex 2: `hand` at its origin → `(0, 1, 1)`; vertex 3:
///   `arm` at `(0, −1, 0)` → `(1, 0, 1)`.
pub const MESH: &str = r#"MD5Version 10
commandline "fixture"

numJoints 3
numMeshes 1

joints {
	"root"	-1 ( 0 0 0 ) ( 0 0 0 )
	"arm"	0 ( 0 0 1 ) ( 0 0 -0.70710677 )
	"hand"	1 ( 0 1 1 ) ( 0 0 -0.70710677 )
}

mesh {
	shader "models/fixture/skin"
	numverts 4
	vert 0 ( 0 0 ) 0 1
	vert 1 ( 1 0 ) 1 2
	vert 2 ( 0 1 ) 3 1
	vert 3 ( 1 1 ) 4 1
	numtris 2
	tri 0 0 1 2
	tri 1 0 2 3
	numweights 5
	weight 0 0 1 ( 1 0 0 )
	weight 1 0 0.5 ( 0 1 0 )
	weight 2 1 0.5 ( 1 0 0 )
	weight 3 2 1 ( 0 0 0 )
	weight 4 1 1 ( 0 -1 0 )
}
"#;

/// [`MESH`] in Doom 3's pre-release layout (`MD5Version 6`): bones with a named parent and a
/// bind matrix, its three columns one after another, the meshes numbered, vectors without
/// brackets. The arm's and the hand's matrices turn `x` to `y` (a quarter turn about `z`):
/// the rotation [`MESH`]'s `( 0 0 -0.70710677 )` recovers.
pub const PRE_RELEASE: &str = r#"MD5Version 6
commandline "fixture"

numbones 3

bone 0 {
	name "root"
	bindpos 0 0 0
	bindmat 1 0 0 0 1 0 0 0 1
}

bone 1 {
	name "arm"
	bindpos 0 0 1
	bindmat 0 1 0 -1 0 0 0 0 1
	parent "root"
}

bone 2 {
	name "hand"
	bindpos 0 1 1
	bindmat 0 1 0 -1 0 0 0 0 1
	parent "arm"
}

nummeshes 1

mesh 0 {
	shader "models/fixture/skin"

	numverts 4
	vert 0 0 0 0 1
	vert 1 1 0 1 2
	vert 2 0 1 3 1
	vert 3 1 1 4 1

	numtris 2
	tri 0 0 1 2
	tri 1 0 2 3

	numweights 5
	weight 0 0 1 1 0 0
	weight 1 0 0.5 0 1 0
	weight 2 1 0.5 1 0 0
	weight 3 2 1 0 0 0
	weight 4 1 1 0 -1 0
}
"#;

/// The bind positions of [`MESH`], by hand.
pub const BIND: [[f32; 3]; 4] = [
    [1.0, 0.0, 0.0],
    [0.0, 1.0, 0.5],
    [0.0, 1.0, 1.0],
    [1.0, 0.0, 1.0],
];

/// An animation of [`MESH`]'s joints in two frames: frame 0 is the bind pose (the hand's
/// parent-relative translation is `arm⁻¹ · ((0, 1, 1) − (0, 0, 1)) = (1, 0, 0)`); in frame
/// 1 the arm stands at `(0, 0, 2)` unturned and the hand `2` along its `x`.
pub const ANIM: &str = r#"MD5Version 10
commandline "fixture"

numFrames 2
numJoints 3
frameRate 24
numAnimatedComponents 7

hierarchy {
	"root"	-1 0 0
	"arm"	0 63 0
	"hand"	1 1 6
}

bounds {
	( 0 0 0 ) ( 1 1 1 )
	( 0 -1 0 ) ( 2 1 2 )
}

baseframe {
	( 0 0 0 ) ( 0 0 0 )
	( 0 0 1 ) ( 0 0 -0.70710677 )
	( 1 0 0 ) ( 0 0 0 )
}

frame 0 {
	0 0 1 0 0 -0.70710677 1
}

frame 1 {
	0 0 2 0 0 0 2
}
"#;

/// [`MESH`]'s positions in [`ANIM`]'s frame 1, by hand: vertex 1 is `½ (0, 1, 0) + ½ ((1, 0,
/// 0) + (0, 0, 2))`, vertex 2 the hand at `(2, 0, 2)`, vertex 3 `(0, −1, 0) + (0, 0, 2)`.
pub const FRAME_1: [[f32; 3]; 4] = [
    [1.0, 0.0, 0.0],
    [0.5, 0.5, 1.0],
    [2.0, 0.0, 2.0],
    [0.0, -1.0, 2.0],
];

/// The mesh and animation in memory, opened through a resolver that lists their folder.
pub fn open_pair<'a>(
    files: &'a HashMap<String, Vec<u8>>,
    path: &str,
) -> skelmap::Result<Model<'a>> {
    Model::resolve(&files, path, &Limits::DEFAULT)
}

/// `m/fixture.md5mesh` with `anim` beside it as `m/fixture-idle.md5anim`.
pub fn files(mesh: &str, anim: &str) -> HashMap<String, Vec<u8>> {
    HashMap::from([
        ("m/fixture.md5mesh".to_string(), mesh.as_bytes().to_vec()),
        (
            "m/fixture-idle.md5anim".to_string(),
            anim.as_bytes().to_vec(),
        ),
    ])
}

/// The error of parsing `text` as a mesh file.
pub fn mesh_error(text: &str) -> Error {
    MeshFile::parse(text.as_bytes()).expect_err("the text is refused")
}

/// The error of parsing `text` as an animation file.
pub fn anim_error(text: &str) -> Error {
    Anim::parse(text.as_bytes()).expect_err("the text is refused")
}

/// `(what, line, column, problem)` of a text error.
pub fn located(e: &Error) -> (&'static str, u64, u64, Problem) {
    match *e {
        Error::Text {
            what,
            line,
            column,
            problem,
            ..
        } => (what, line, column, problem),
        ref other => panic!("not a text error: {other}"),
    }
}

/// `text` with the first `from` replaced by `to` (which must occur).
pub fn with(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} is in the fixture");
    text.replacen(from, to, 1)
}

/// The warnings of parsing `text` as a mesh file.
pub fn mesh_warnings(text: &str) -> Diagnostics {
    let mut diag = Diagnostics::new();
    MeshFile::parse_with(text.as_bytes(), &Limits::DEFAULT, &mut diag).expect("the mesh parses");
    diag
}
