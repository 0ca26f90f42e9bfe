//! The one pass over an MD5 text: tokenised, checked and decoded together
//! (`docs/formats/md5.md` gives the grammar and the numbered rules).
//!
//! Each count is checked against [`Limits`] and against the bytes left (every entry needs a
//! few bytes of text) before anything is reserved for it. A mesh's decoded block starts with
//! room for as many bytes as the text has and grows past that by what each checked count
//! needs, so a mesh file is decoded into one block and a few small tables (joints, meshes),
//! an animation into its frames' poses.

use std::collections::HashMap;

use glam::{Quat, Vec3, Vec3A};
use zerocopy::IntoBytes;
use zerocopy::byteorder::{F32, LittleEndian, U32};

use super::lex::{Head, Lexer, Span, line_column};
use super::raw::{
    ANIM_ALL, ANIM_QX, ANIM_QY, ANIM_QZ, ANIM_TX, ANIM_TY, ANIM_TZ, JointAnimInfo, MD5_VERSION,
    MD5_VERSION_PRE_RELEASE, MeshLayout, UNIT_TOLERANCE, Weight, WeightRange,
};
use super::view::{Anim, MeshFile};
use crate::bonevert::{BoneVert, INFLUENCE_SUM_TOLERANCE};
use crate::diag::{Diagnostics, WarningKind};
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::rules;

const FORMAT: Format = Format::Md5;

/// The fewest bytes of text each entry takes (`""0(0 0 0)(0 0 0)` for a joint, `vert
/// 0(0 0)0 1` for a vertex …): a count the rest of the text cannot hold is refused before
/// anything is reserved for it.
const MIN_JOINT: u64 = 17;
const MIN_VERT: u64 = 14;
const MIN_TRI: u64 = 11;
const MIN_WEIGHT: u64 = 19;
const MIN_MESH: u64 = 40;
/// The pre-release layout's bone: `bone 0{name""bindpos 0 0 0 bindmat` and nine `0`s.
const MIN_BONE: u64 = 48;
const MIN_HIERARCHY: u64 = 7;
const MIN_COMPONENT: u64 = 2;
const MIN_FRAME: u64 = 9;

/// Which file an MD5 text is, from the keyword after its `commandline`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An `.md5mesh` (`numJoints` follows).
    Mesh,
    /// An `.md5anim` (`numFrames` follows).
    Anim,
    /// An `.md5anim` in the pre-release layout (`numchannels` follows).
    Channels,
}

/// What [`header`] read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Header {
    /// The command line (empty where it is `missing`).
    pub(crate) commandline: Span,
    /// Which file follows.
    pub(crate) kind: Kind,
    /// Where the text starts when it has no `MD5Version` line.
    pub(crate) unversioned: Option<u64>,
    /// Where the keyword after the version line starts when no `commandline` line is there.
    pub(crate) missing: Option<u64>,
    /// Where `numbones` starts in a mesh of the pre-release layout.
    pub(crate) pre_release: Option<u64>,
}

/// Reads the header both files share (`MD5Version 10`, `commandline`). Either line may be
/// missing, not both: Tesseract's exporter, and Red Eclipse's weapons, open with the
/// `commandline` (Tesseract reads the version line only when there is one), and one of Red
/// Eclipse's meshes has the version line and no `commandline`.
///
/// # Errors
///
/// As [`Parse::parse_with`] for the header.
pub(crate) fn header(lex: &mut Lexer<'_>) -> Result<Header> {
    let unversioned = match lex.peek_word()? {
        Some((w, at)) if w.eq_ignore_ascii_case(b"commandline") => Some(at),
        _ => None,
    };
    let mut version = (MD5_VERSION, 0);
    if unversioned.is_none() {
        lex.keyword("MD5Version", "header.MD5Version", "MD5Version")?;
        version = lex.integer("header.MD5Version")?;
        if version.0 != MD5_VERSION && version.0 != MD5_VERSION_PRE_RELEASE {
            return Err(unsupported_version(version));
        }
    }
    // After a version line the `commandline` may be missing (Red Eclipse's
    // `weapons/grenade/grenade.md5mesh`; its loader and Tesseract's skip the line, Doom 3
    // requires it): the command line is then empty, where the next keyword starts.
    let mut missing = None;
    let commandline = match lex.peek_word()? {
        Some((w, at)) if unversioned.is_none() && kind_of(w).is_some() => {
            missing = Some(at);
            Span {
                start: u32::try_from(at).unwrap_or(u32::MAX),
                len: 0,
            }
        }
        _ => {
            lex.keyword("commandline", "header.commandline", "commandline")?;
            command_line(lex)?
        }
    };
    // The pre-release layout's mesh begins with `numbones` (under `MD5Version 6`, or under
    // 10 as some converted files have it); its animation, with `numchannels`.
    let word = lex.peek_word()?;
    let mut pre_release = None;
    let kind = match (word, word.and_then(|(w, _)| kind_of(w))) {
        (_, Some(kind)) => kind,
        (Some((w, at)), None) if w.eq_ignore_ascii_case(b"numbones") => {
            pre_release = Some(at);
            Kind::Mesh
        }
        (Some((w, at)), None) if w.eq_ignore_ascii_case(b"numchannels") => {
            pre_release = Some(at);
            Kind::Channels
        }
        _ => return Err(lex.expected("header", "numJoints or numFrames")),
    };
    // Version 6 is read only in the layout it names.
    if version.0 == MD5_VERSION_PRE_RELEASE && pre_release.is_none() {
        return Err(unsupported_version(version));
    }
    Ok(Header {
        commandline,
        kind,
        unversioned,
        missing,
        pre_release,
    })
}

/// The error for a version line skelmap does not read: `(version, offset)`.
fn unsupported_version((value, offset): (i64, u64)) -> Error {
    Error::Unsupported {
        format: FORMAT,
        what: "header.MD5Version",
        offset,
        value,
        supported: "skelmap reads version 10, and version 6's pre-release layouts \
                    (numbones, numchannels)",
    }
}

/// Which file the keyword that follows the header begins: `numJoints` a mesh, `numFrames`
/// an animation (ASCII case ignored).
fn kind_of(word: &[u8]) -> Option<Kind> {
    if word.eq_ignore_ascii_case(b"numJoints") {
        Some(Kind::Mesh)
    } else if word.eq_ignore_ascii_case(b"numFrames") {
        Some(Kind::Anim)
    } else {
        None
    }
}

/// The value after `commandline`: a quoted string, or one bare word.
fn command_line(lex: &mut Lexer<'_>) -> Result<Span> {
    if lex.peek()? == Some(b'"') {
        return lex.string("header.commandline");
    }
    match lex.peek_word()? {
        Some((word, at)) => {
            lex.consume(word.len());
            Ok(Span {
                start: u32::try_from(at).unwrap_or(u32::MAX),
                len: u32::try_from(word.len()).unwrap_or(0),
            })
        }
        None => Err(lex.expected("header.commandline", "a quoted string")),
    }
}

/// Reads `keyword count` and checks the count: at least `min`, within `limit`, and not more
/// entries of `entry_bytes` each than the rest of the text holds.
pub(super) fn count(
    lex: &mut Lexer<'_>,
    keyword: &'static str,
    what: &'static str,
    min: u64,
    limit: u64,
    entry_bytes: u64,
) -> Result<usize> {
    lex.keyword(keyword, what, keyword)?;
    let (value, at) = lex.integer(what)?;
    let value = match u64::try_from(value) {
        Ok(v) if v >= min => v,
        Ok(_) if min == 1 => return Err(lex.error(what, at, Problem::Empty)),
        Ok(v) => return Err(lex.error(what, at, Problem::BelowMinimum { value: v, min })),
        Err(_) => return Err(lex.error(what, at, Problem::Negative { value })),
    };
    if value > limit {
        return Err(Error::Limit {
            format: FORMAT,
            what,
            offset: at,
            value,
            max: limit,
        });
    }
    let room = lex.remaining() / entry_bytes.max(1);
    if value > room {
        return Err(lex.error(what, at, Problem::AboveMaximum { value, max: room }));
    }
    usize::try_from(value)
        .map_err(|_| lex.error(what, at, Problem::AboveMaximum { value, max: room }))
}

/// Starts the entry `head` names, of `declared` (`what` the count), and checks its own index
/// (`index_what`): as [`entry`] and [`own_index`] do, or at once where the text prints the
/// head as writers do ([`Lexer::head`]); then moves `head` on.
#[inline(always)]
pub(super) fn entry_head(
    lex: &mut Lexer<'_>,
    head: &mut Head,
    (what, index_what): (&'static str, &'static str),
    declared: usize,
) -> Result<()> {
    if !lex.head(head)? {
        entry(lex, head.keyword(), what, head.index(), declared)?;
        own_index(lex, index_what, head.index())?;
    }
    head.advance();
    Ok(())
}

/// Starts entry `i` of `declared` (its keyword, when it has one): the error when the section
/// ends before it names the count as [`Problem::FewerThanDeclared`].
fn entry(
    lex: &mut Lexer<'_>,
    keyword: &'static str,
    what: &'static str,
    i: usize,
    declared: usize,
) -> Result<()> {
    if keyword.is_empty() {
        return match lex.peek()? {
            Some(b'}') | None => Err(fewer(lex, what, i, declared)),
            _ => Ok(()),
        };
    }
    if lex.accept(keyword)? {
        Ok(())
    } else if matches!(lex.peek()?, Some(b'}') | None) || lex.peek_word()?.is_some() {
        Err(fewer(lex, what, i, declared))
    } else {
        Err(lex.expected(what, keyword))
    }
}

fn fewer(lex: &mut Lexer<'_>, what: &'static str, found: usize, declared: usize) -> Error {
    let at = lex.offset();
    lex.error(
        what,
        at,
        Problem::FewerThanDeclared {
            declared: declared as u64,
            found: found as u64,
        },
    )
}

/// Fails with [`Problem::MoreThanDeclared`] when another entry starting with `keyword`
/// follows the `declared` ones.
fn no_more(
    lex: &mut Lexer<'_>,
    keyword: &'static str,
    what: &'static str,
    declared: usize,
) -> Result<()> {
    match lex.peek_word()? {
        Some((w, at)) if w.eq_ignore_ascii_case(keyword.as_bytes()) => Err(lex.error(
            what,
            at,
            Problem::MoreThanDeclared {
                declared: declared as u64,
            },
        )),
        _ => Ok(()),
    }
}

/// Reads an index that must equal `expected` (the entry's place: Doom 3 ignores it, and a
/// file whose indices disagree with their order is not what it says).
fn own_index(lex: &mut Lexer<'_>, what: &'static str, expected: usize) -> Result<()> {
    let (value, at) = lex.integer(what)?;
    if usize::try_from(value) == Ok(expected) {
        Ok(())
    } else {
        Err(lex.error(
            what,
            at,
            Problem::Mismatch {
                value: value as u64,
                expected: expected as u64,
            },
        ))
    }
}

/// Reads an index below `len`.
fn index(lex: &mut Lexer<'_>, what: &'static str, len: usize) -> Result<u32> {
    let (value, at) = lex.integer(what)?;
    match u32::try_from(value) {
        Ok(v) if (v as usize) < len => Ok(v),
        _ => Err(lex.error(
            what,
            at,
            Problem::Index {
                index: value,
                len: len as u64,
            },
        )),
    }
}

/// Reads a parent index of joint `joint`: -1 or an earlier joint.
fn parent(lex: &mut Lexer<'_>, what: &'static str, joint: usize) -> Result<i32> {
    let (value, at) = lex.integer(what)?;
    if value == joint as i64 {
        return Err(lex.error(what, at, Problem::OwnParent { bone: joint as u64 }));
    }
    if value < -1 || value > joint as i64 {
        return Err(lex.error(
            what,
            at,
            Problem::Parent {
                bone: joint as u64,
                parent: value,
            },
        ));
    }
    Ok(value as i32)
}

/// The rotation whose `x`, `y`, `z` a file stores, `w` recovered as the engines recover it:
/// Doom 3 takes `√|1 − x² − y² − z²|` and rotates by its transpose, which is the rotation
/// `(x, y, z, −√…)` in the usual convention (the one assimp reads, and glam's). Returns it,
/// normalised, and whether `x² + y² + z²` passed 1 by more than [`UNIT_TOLERANCE`].
#[must_use]
pub fn rotation(xyz: [f32; 3]) -> (Quat, bool) {
    let [x, y, z] = xyz;
    let t = 1.0 - (x * x + y * y + z * z);
    if t >= -UNIT_TOLERANCE {
        return (Quat::from_xyzw(x, y, z, -t.abs().sqrt()), false);
    }
    // Past unit length, normalised in f64, where the squares of any finite f32 are finite.
    let [x, y, z] = xyz.map(f64::from);
    let squares = x * x + y * y + z * z;
    let w = -(squares - 1.0).sqrt();
    let n = (squares + w * w).sqrt();
    let q = [x / n, y / n, z / n, w / n].map(|c| c as f32);
    (Quat::from_array(q), true)
}

/// Records one rotation past unit length.
/// What follows the last declared `section` (`mesh` or `frame`): Doom 3 reads the declared
/// number and stops, so an extra block or an editor's leftovers after it are never read.
/// They are not read here either (so neither is a comment left open there): a warning at
/// their first byte.
pub(super) fn unread_rest(lex: &mut Lexer<'_>, diag: &mut Diagnostics, section: &'static str) {
    // An unterminated comment stops the skip at its start: text all the same.
    if matches!(lex.peek(), Ok(None)) {
        return;
    }
    let at = lex.offset();
    let (line, column) = line_column(lex.text(), at);
    let bytes = lex.remaining();
    diag.warn(FORMAT, WarningKind::TrailingBytes, "end", at, || {
        format!(
            "{bytes} bytes of text after the last declared {section}, from line {line}, \
             column {column}, not read (Doom 3 reads the declared {section}s and stops)"
        )
    });
}

fn warn_rotation(diag: &mut Diagnostics, what: &'static str, at: u64) {
    diag.warn(FORMAT, WarningKind::QuatNotUnit, what, at, || {
        "x² + y² + z² of a rotation passes 1; it was normalised".to_string()
    });
}

/// The poses an animation of `frames` frames and `joints` joints decodes, refused as `what`
/// at `offset` past [`MAX_BAKED_POSES`](crate::pose::MAX_BAKED_POSES).
pub(super) fn poses_within(
    frames: usize,
    joints: usize,
    what: &'static str,
    offset: u64,
) -> Result<u64> {
    let poses = (frames as u64).saturating_mul(joints as u64);
    let max = crate::pose::MAX_BAKED_POSES as u64;
    if poses > max {
        return Err(Error::Limit {
            format: FORMAT,
            what,
            offset,
            value: poses,
            max,
        });
    }
    Ok(poses)
}

/// Ends a section of `declared` entries with `}`: an entry starting with `extra` (a quote or
/// a bracket) where the `}` should be is one more than `count` declares.
fn close(
    lex: &mut Lexer<'_>,
    extra: u8,
    count: &'static str,
    declared: usize,
    section: &'static str,
) -> Result<()> {
    if lex.peek()? == Some(extra) {
        let at = lex.next_offset()?;
        let declared = declared as u64;
        return Err(lex.error(count, at, Problem::MoreThanDeclared { declared }));
    }
    lex.bracket(b'}', section)
}

/// The start both files share: the size limit, the header, and which file it must be.
fn begin<'t>(
    data: &'t [u8],
    limits: &Limits,
    (want, expected): (Kind, &'static str),
    diag: &mut Diagnostics,
) -> Result<(Lexer<'t>, Header)> {
    rules::check_file_size(FORMAT, data, limits)?;
    let mut lex = Lexer::new(data);
    let header = header(&mut lex)?;
    // An animation is either layout.
    let animation = want == Kind::Anim && header.kind == Kind::Channels;
    if header.kind != want && !animation {
        return Err(lex.expected("header", expected));
    }
    if let Some(at) = header.unversioned {
        diag.warn(
            FORMAT,
            WarningKind::SpecLimit,
            "header.MD5Version",
            at,
            || "no MD5Version line: read as version 10, as Tesseract reads it".into(),
        );
    }
    if let Some(at) = header.missing {
        diag.warn(
            FORMAT,
            WarningKind::SpecLimit,
            "header.commandline",
            at,
            || "no commandline line: read with an empty one, as Red Eclipse reads it".into(),
        );
    }
    match (header.pre_release, header.kind) {
        (Some(at), Kind::Channels) => diag.warn(
            FORMAT,
            WarningKind::SpecLimit,
            "header.numchannels",
            at,
            || {
                "the pre-release layout of MD5Version 6 (numchannels, a curve of keys per \
                 joint and attribute), which the released Doom 3 refuses: read, each frame \
                 decoded as version 10's"
                    .into()
            },
        ),
        (Some(at), _) => diag.warn(
            FORMAT,
            WarningKind::SpecLimit,
            "header.numbones",
            at,
            || {
                "the pre-release layout of MD5Version 6 (numbones, bones with a bind matrix), \
                 which the released Doom 3 refuses: read, each bind matrix as its rotation"
                    .into()
            },
        ),
        (None, _) => {}
    }
    Ok((lex, header))
}

impl<'data> Parse<'data> for MeshFile<'data> {
    const FORMAT: Format = Format::Md5;

    fn parse_with(data: &'data [u8], limits: &Limits, diag: &mut Diagnostics) -> Result<Self> {
        let (mut lex, header) = begin(data, limits, (Kind::Mesh, "numJoints (an .md5mesh)"), diag)?;
        let pre_release = header.pre_release.is_some();
        // Version 10: the counts, then the joints. The pre-release layout: the bones with their
        // count, then the meshes' count.
        let (joints, num_meshes, meshes_what) = if pre_release {
            let max = limits.max_bones.into();
            let num_bones = count(&mut lex, "numbones", "header.numbones", 1, max, MIN_BONE)?;
            let joints = bones(&mut lex, num_bones, diag)?;
            let max = limits.max_meshes.into();
            let what = "header.nummeshes";
            let num_meshes = count(&mut lex, "nummeshes", what, 0, max, MIN_MESH)?;
            (joints, num_meshes, what)
        } else {
            let num_joints = count(
                &mut lex,
                "numJoints",
                "header.numJoints",
                1,
                limits.max_bones.into(),
                MIN_JOINT,
            )?;
            let num_meshes = count(
                &mut lex,
                "numMeshes",
                "header.numMeshes",
                0,
                limits.max_meshes.into(),
                MIN_MESH,
            )?;
            let joints = joints(&mut lex, num_joints, diag)?;
            (joints, num_meshes, "header.numMeshes")
        };
        let mut file = MeshFile {
            text: data,
            commandline: header.commandline,
            joints,
            meshes: Vec::with_capacity(num_meshes),
            block: Vec::new(),
        };
        // Room for as many bytes as the text: a mesh's decoded arrays take about as many bytes
        // as the lines they come from (the shared pistol's, nine tenths), so most files fill
        // the block without moving it, where growing it from empty moved it (and its pages)
        // once a section. A hint only: where it cannot be had, the block grows as before.
        let _ = file.block.try_reserve_exact(data.len());
        let mut influences = 0u64;
        for i in 0..num_meshes {
            if lex.peek()?.is_none() {
                fewer_meshes(&lex, diag, meshes_what, (i, num_meshes));
                break;
            }
            entry(&mut lex, "mesh", meshes_what, i, num_meshes)?;
            if pre_release {
                own_index(&mut lex, "mesh.index", i)?;
            }
            let syntax = (limits, pre_release);
            let layout = mesh(&mut lex, &mut file, syntax, diag, &mut influences)?;
            file.meshes.push(layout);
        }
        unread_rest(&mut lex, diag, "mesh");
        Ok(file)
    }
}

/// Warns that the text ends after `found` of the `declared` meshes, which are read: the line
/// readers of the Cube 2 engines (Sauerbraten, Tesseract, Red Eclipse) load the meshes they
/// find, and Red Eclipse ships such a file (`props/ball/ball.md5mesh`, two declared, one
/// there). Doom 3 and Daemon refuse it; a section that ends early, or another token where a
/// mesh should start, stays an error.
fn fewer_meshes(
    lex: &Lexer<'_>,
    diag: &mut Diagnostics,
    what: &'static str,
    (found, declared): (usize, usize),
) {
    diag.warn(FORMAT, WarningKind::SpecLimit, what, lex.offset(), || {
        format!(
            "declares {declared} meshes, and the text ends after {found}: read as {found}, as \
             the Cube 2 engines read it (Doom 3 and Daemon refuse the file)"
        )
    });
}

/// `joints { … }`: each name, parent, position and orientation in model space, and the same
/// pose relative to the parent.
fn joints(lex: &mut Lexer<'_>, n: usize, diag: &mut Diagnostics) -> Result<Vec<super::raw::Joint>> {
    lex.keyword("joints", "joints", "joints")?;
    lex.bracket(b'{', "joints")?;
    let mut joints: Vec<super::raw::Joint> = Vec::with_capacity(n);
    for i in 0..n {
        entry(lex, "", "header.numJoints", i, n)?;
        let name = lex.string("joints.name")?;
        let parent = parent(lex, "joints.parent", i)?;
        let position = Vec3A::from(lex.vector::<3>("joints.position")?);
        let at = lex.next_offset()?;
        let (orientation, stretched) = rotation(lex.vector::<3>("joints.orientation")?);
        if stretched {
            warn_rotation(diag, "joints.orientation", at);
        }
        joints.push(joint(&joints, name, parent, position, orientation));
    }
    close(lex, b'"', "header.numJoints", n, "joints")?;
    Ok(joints)
}

/// A joint of `name` under `parent` (an index into `joints`, or -1) at `position` and
/// `orientation` in model space, with the same pose relative to its parent.
fn joint(
    joints: &[super::raw::Joint],
    name: Span,
    parent: i32,
    position: Vec3A,
    orientation: Quat,
) -> super::raw::Joint {
    let (local_rotation, local_translation) =
        match usize::try_from(parent).ok().and_then(|p| joints.get(p)) {
            Some(p) => {
                let inverse = p.orientation.conjugate();
                (
                    (inverse * orientation).normalize(),
                    inverse * (position - p.position),
                )
            }
            None => (orientation, position),
        };
    super::raw::Joint {
        name,
        parent,
        position,
        orientation,
        local_rotation,
        local_translation,
    }
}

/// The pre-release layout's bones, `bone N { name "…" bindpos x y z bindmat m0 … m8 [parent
/// "…"] }`: each bone's position and rotation in model space, its bind matrix's three
/// columns written one after another (as version 10's rotation of the same joint gives
/// them), its parent named (an earlier bone; none for a root).
fn bones(lex: &mut Lexer<'_>, n: usize, diag: &mut Diagnostics) -> Result<Vec<super::raw::Joint>> {
    let text = lex.text();
    let mut joints: Vec<super::raw::Joint> = Vec::with_capacity(n);
    // Each name's first bone: a parent is looked up once, not against every earlier bone.
    let mut named: HashMap<&[u8], usize> = HashMap::with_capacity(n);
    for i in 0..n {
        entry(lex, "bone", "header.numbones", i, n)?;
        own_index(lex, "bone.index", i)?;
        lex.bracket(b'{', "bone")?;
        lex.keyword("name", "bone.name", "name")?;
        let name = lex.string("bone.name")?;
        lex.keyword("bindpos", "bone.bindpos", "bindpos")?;
        let position = Vec3A::from(lex.floats::<3>("bone.bindpos")?);
        let at = lex.keyword("bindmat", "bone.bindmat", "bindmat")?;
        // Its columns, one after another: as rows of a 3×4 pose.
        let m = lex.floats::<9>("bone.bindmat")?;
        let row = |i: usize| [m[i], m[i + 3], m[i + 6], 0.0];
        let pose = [row(0), row(1), row(2)];
        if !crate::pose::is_rotation(&pose) {
            diag.warn(
                FORMAT,
                WarningKind::NonOrthonormal,
                "bone.bindmat",
                at,
                || format!("bone {i}'s bind matrix also scales or skews; its rotation is read"),
            );
        }
        // The rotation with w ≤ 0, as version 10's rotations are recovered: each column
        // brought to unit length first, so that a matrix that scales its axes gives the
        // rotation it scales; one too far from a rotation to give any (its numbers overflow)
        // is none.
        let unit = |i: usize| {
            let column = Vec3A::new(m[3 * i], m[3 * i + 1], m[3 * i + 2]);
            let length = column.length();
            if length > 0.0 {
                column / length
            } else {
                column
            }
        };
        let (x, y, z) = (unit(0), unit(1), unit(2));
        let rows = [
            [x.x, y.x, z.x, 0.0],
            [x.y, y.y, z.y, 0.0],
            [x.z, y.z, z.z, 0.0],
        ];
        let (rotation, _) = crate::pose::rotation::pose_of_matrix(rows);
        let rotation = if rotation.is_finite() {
            rotation
        } else {
            Quat::IDENTITY
        };
        let orientation = if rotation.w > 0.0 {
            -rotation
        } else {
            rotation
        };
        let mut parent = -1;
        if lex.accept("parent")? {
            let at = lex.next_offset()?;
            let of = lex.string("bone.parent")?;
            let Some(&p) = named.get(of.of(text)) else {
                return Err(lex.error(
                    "bone.parent",
                    at,
                    Problem::Expected {
                        expected: "the name of an earlier bone",
                    },
                ));
            };
            parent = p as i32;
        }
        lex.bracket(b'}', "bone")?;
        named.entry(name.of(text)).or_insert(i);
        joints.push(joint(&joints, name, parent, position, orientation));
    }
    no_more(lex, "bone", "header.numbones", n)?;
    Ok(joints)
}

/// Appends `values` to the block as bytes.
fn put<T: IntoBytes + zerocopy::Immutable>(block: &mut Vec<u8>, values: &[T]) {
    block.extend_from_slice(values.as_bytes());
}

/// `mesh { … }`: shader, vertices, triangles, weights; then the bind-pose positions and
/// normals and the pre-weighted records, all into the block.
fn mesh(
    lex: &mut Lexer<'_>,
    file: &mut MeshFile<'_>,
    (limits, bare): (&Limits, bool),
    diag: &mut Diagnostics,
    influences: &mut u64,
) -> Result<MeshLayout> {
    lex.bracket(b'{', "mesh")?;
    let mut layout = MeshLayout::default();
    if lex.accept("name")? {
        layout.name = lex.string("mesh.name")?;
    }
    lex.keyword("shader", "mesh.shader", "shader")?;
    layout.shader = lex.string("mesh.shader")?;
    let block = &mut file.block;

    // Vertices: texture coordinates and weight ranges, each its own array.
    let num_verts = count(
        lex,
        "numverts",
        "mesh.numverts",
        0,
        limits.max_vertices_per_mesh.into(),
        MIN_VERT,
    )?;
    layout.num_verts = num_verts as u32;
    block.reserve(num_verts * 16);
    layout.ofs_texcoords = block.len();
    let mut ranges: Vec<(u32, u32, u64)> = Vec::with_capacity(num_verts);
    let mut head = Head::new("vert");
    for _ in 0..num_verts {
        entry_head(lex, &mut head, ("mesh.numverts", "vert.index"), num_verts)?;
        let st = if bare {
            lex.floats::<2>("vert.texcoord")?
        } else {
            lex.vector::<2>("vert.texcoord")?
        };
        put(block, &[st.map(F32::<LittleEndian>::new)]);
        let (first, first_at) = lex.integer("vert.startWeight")?;
        let (count, at) = lex.integer("vert.countWeight")?;
        let first = u32::try_from(first).map_err(|_| {
            lex.error(
                "vert.startWeight",
                first_at,
                Problem::Negative { value: first },
            )
        })?;
        let count = u32::try_from(count)
            .map_err(|_| lex.error("vert.countWeight", at, Problem::Negative { value: count }))?;
        if count == 0 {
            return Err(lex.error("vert.countWeight", at, Problem::NoInfluences));
        }
        if count > limits.max_influences_per_vertex {
            return Err(Error::Limit {
                format: FORMAT,
                what: "vert.countWeight",
                offset: at,
                value: count.into(),
                max: limits.max_influences_per_vertex.into(),
            });
        }
        ranges.push((first, count, first_at));
    }
    no_more(lex, "vert", "mesh.numverts", num_verts)?;
    layout.ofs_ranges = block.len();
    for &(first, count, _) in &ranges {
        put(
            block,
            &[WeightRange {
                first_weight: U32::new(first),
                num_weights: U32::new(count),
            }],
        );
    }

    let num_tris = count(
        lex,
        "numtris",
        "mesh.numtris",
        0,
        limits.max_triangles_per_mesh.into(),
        MIN_TRI,
    )?;
    layout.num_tris = num_tris as u32;
    block.reserve(num_tris * 12);
    layout.ofs_tris = block.len();
    let mut head = Head::new("tri");
    for _ in 0..num_tris {
        entry_head(lex, &mut head, ("mesh.numtris", "tri.index"), num_tris)?;
        let mut tri = [U32::<LittleEndian>::new(0); 3];
        for corner in &mut tri {
            *corner = U32::new(index(lex, "tri.vertIndex", num_verts)?);
        }
        // Doom 3 winds front faces clockwise; the block holds them counter-clockwise, the
        // corners in reverse (as assimp gives them).
        tri.swap(0, 2);
        put(block, &[tri]);
    }
    no_more(lex, "tri", "mesh.numtris", num_tris)?;

    let max_weights = limits.max_total_influences.min(u64::from(u32::MAX));
    // A weight without its brackets takes a byte less.
    let min_weight = MIN_WEIGHT - u64::from(bare);
    let num_weights = count(
        lex,
        "numweights",
        "mesh.numweights",
        0,
        max_weights,
        min_weight,
    )?;
    layout.num_weights = num_weights as u32;
    block.reserve(num_weights * 20);
    layout.ofs_weights = block.len();
    let mut head = Head::new("weight");
    for _ in 0..num_weights {
        entry_head(
            lex,
            &mut head,
            ("mesh.numweights", "weight.index"),
            num_weights,
        )?;
        let joint = index(lex, "weight.joint", file.joints.len())?;
        let bias = lex.float("weight.bias")?;
        let offset = if bare {
            lex.floats::<3>("weight.pos")?
        } else {
            lex.vector::<3>("weight.pos")?
        };
        put(
            block,
            &[Weight {
                joint_index: U32::new(joint),
                joint_weight: F32::new(bias),
                offset: offset.map(F32::new),
            }],
        );
    }
    no_more(lex, "weight", "mesh.numweights", num_weights)?;
    lex.bracket(b'}', "mesh")?;

    // Every vertex's weights in range, then what the kernels read.
    let mut records = 0u64;
    for &(first, count, at) in &ranges {
        let end = u64::from(first) + u64::from(count);
        if end > num_weights as u64 {
            return Err(lex.error(
                "vert.startWeight",
                at,
                Problem::Index {
                    index: end as i64 - 1,
                    len: num_weights as u64,
                },
            ));
        }
        records += u64::from(count);
    }
    *influences += records;
    if *influences > limits.max_total_influences {
        return Err(Error::Limit {
            format: FORMAT,
            what: "mesh.numweights (total influences)",
            offset: lex.offset(),
            value: *influences,
            max: limits.max_total_influences,
        });
    }
    layout.num_influences = records as u32;
    decode_mesh(lex, file, &mut layout, &ranges, diag)?;
    Ok(layout)
}

/// Adds the bind-pose positions, normals and pre-weighted records of a parsed mesh to the
/// block.
fn decode_mesh(
    lex: &Lexer<'_>,
    file: &mut MeshFile<'_>,
    layout: &mut MeshLayout,
    ranges: &[(u32, u32, u64)],
    diag: &mut Diagnostics,
) -> Result<()> {
    let n = layout.num_verts as usize;
    let weights = file.weights(layout);
    let mut positions = Vec::with_capacity(n);
    let mut off_sum = None;
    for &(first, count, at) in ranges {
        let mut p = Vec3A::ZERO;
        let mut sum = 0.0f32;
        for w in weights.iter().skip(first as usize).take(count as usize) {
            let joint = file.joints.get(w.joint_index.get() as usize);
            let (q, t) = joint.map_or((Quat::IDENTITY, Vec3A::ZERO), |j| {
                (j.orientation, j.position)
            });
            let bias = w.joint_weight.get();
            p += bias * (q * Vec3A::from(w.offset.map(|v| v.get())) + t);
            sum += bias;
        }
        if (sum - 1.0).abs() > INFLUENCE_SUM_TOLERANCE && off_sum.is_none() {
            off_sum = Some((at, sum));
        }
        // Finite numbers can still make an infinite product: refused at the vertex.
        let origins_finite = weights
            .iter()
            .skip(first as usize)
            .take(count as usize)
            .all(|w| (Vec3A::from(w.offset.map(|v| v.get())) * w.joint_weight.get()).is_finite());
        if !p.is_finite() || !origins_finite {
            return Err(lex.error("vert", at, Problem::NotFinite));
        }
        positions.push(p);
    }
    if let Some((at, sum)) = off_sum {
        diag.warn(FORMAT, WarningKind::InfluenceSum, "weight.bias", at, || {
            format!("a vertex's weights sum to {sum}")
        });
    }
    let normals = smooth_normals(&positions, file.triangles(layout));
    let block = &mut file.block;
    let influences = layout.num_influences as usize;
    let records_len = n * size_of::<u32>() + influences * size_of::<BoneVert<LittleEndian>>();
    block.reserve(n * 24 + records_len);
    layout.ofs_positions = block.len();
    for p in &positions {
        put(block, &[p.to_array().map(F32::<LittleEndian>::new)]);
    }
    layout.ofs_normals = block.len();
    for v in &normals {
        put(block, &[v.to_array().map(F32::<LittleEndian>::new)]);
    }
    // The records are written into room made for them after the weights they are made from,
    // which stay where they are in the block: no copy of the weights is needed.
    layout.ofs_records = block.len();
    block.resize(layout.ofs_records + records_len, 0);
    let (decoded, mut out) = block.split_at_mut(layout.ofs_records);
    let weights: &[Weight] =
        super::view::records(decoded, layout.ofs_weights, layout.num_weights as usize);
    for (&(first, count, _), normal) in ranges.iter().zip(&normals) {
        emit(&mut out, &U32::<LittleEndian>::new(count));
        for w in weights.iter().skip(first as usize).take(count as usize) {
            let joint = w.joint_index.get();
            let q = file
                .joints
                .get(joint as usize)
                .map_or(Quat::IDENTITY, |j| j.orientation);
            let bias = w.joint_weight.get();
            let origin = Vec3A::from(w.offset.map(|v| v.get())) * bias;
            let normal = (q.conjugate() * *normal) * bias;
            emit(
                &mut out,
                &BoneVert::<LittleEndian>::new(origin.to_array(), bias, normal.to_array(), joint),
            );
        }
    }
    layout.ofs_end = block.len();
    Ok(())
}

/// Writes `value` at the start of `out` and moves `out` past it; a value that does not fit is
/// left out (the caller sized `out` for what it writes).
fn emit<T: IntoBytes + zerocopy::Immutable>(out: &mut &mut [u8], value: &T) {
    let bytes = value.as_bytes();
    if let Some((head, tail)) = core::mem::take(out).split_at_mut_checked(bytes.len()) {
        head.copy_from_slice(bytes);
        *out = tail;
    }
}

/// For each of `positions`, the index of the first position with the same bits (its own
/// when none comes before it).
///
/// Found through a table of open addressing twice the positions' size. The hash is fixed,
/// so a file can choose positions that collide: past `PROBES_PER_POSITION` steps a position
/// on average, the table gives way to a sort of the positions' bits, which no choice of
/// them slows beyond `n log n`.
fn first_at_same_position(positions: &[Vec3A]) -> Vec<u32> {
    first_at_same_position_within(positions, PROBES_PER_POSITION * positions.len())
        .unwrap_or_else(|| first_at_same_position_sorted(positions))
}

/// The steps of [`first_at_same_position`]'s table a position may take on average before the
/// sort replaces it (real meshes take one or two).
const PROBES_PER_POSITION: usize = 16;

/// [`first_at_same_position`] through the table, or `None` once the probes have taken more
/// than `budget` steps.
fn first_at_same_position_within(positions: &[Vec3A], mut budget: usize) -> Option<Vec<u32>> {
    let bits = |p: &Vec3A| p.to_array().map(f32::to_bits);
    let size = (positions.len() * 2).next_power_of_two().max(16);
    let mask = size - 1;
    let shift = 64 - size.trailing_zeros();
    // Each slot holds a vertex index, or `u32::MAX` when empty.
    let mut slots = vec![u32::MAX; size];
    let mut group = Vec::with_capacity(positions.len());
    for (i, p) in positions.iter().enumerate() {
        let key = bits(p);
        let [x, y, z] = key.map(u64::from);
        let hash = (((x << 32) | y).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ z)
            .wrapping_mul(0xff51_afd7_ed55_8ccd);
        let mut slot = (hash >> shift) as usize & mask;
        // The table is never full (twice the entries), so the probe ends.
        loop {
            match slots.get(slot).copied() {
                Some(u32::MAX) | None => {
                    if let Some(s) = slots.get_mut(slot) {
                        *s = i as u32;
                    }
                    group.push(i as u32);
                    break;
                }
                Some(other) if positions.get(other as usize).map(bits) == Some(key) => {
                    group.push(other);
                    break;
                }
                Some(_) => {
                    budget = budget.checked_sub(1)?;
                    slot = (slot + 1) & mask;
                }
            }
        }
    }
    Some(group)
}

/// [`first_at_same_position`] by sorting: each position one 128-bit key, the bits of x, y
/// and z above its index, so that the positions alike form runs, each in vertex order.
fn first_at_same_position_sorted(positions: &[Vec3A]) -> Vec<u32> {
    let mut order: Vec<u128> = (positions.iter().enumerate())
        .map(|(i, p)| {
            let [x, y, z] = p.to_array().map(|v| u128::from(v.to_bits()));
            (x << 96) | (y << 64) | (z << 32) | i as u128
        })
        .collect();
    order.sort_unstable();
    let mut group = vec![0; positions.len()];
    for run in order.chunk_by(|a, b| a >> 32 == b >> 32) {
        let first = run.first().map_or(0, |&k| k as u32);
        for &k in run {
            if let Some(g) = group.get_mut(k as u32 as usize) {
                *g = first;
            }
        }
    }
    group
}

/// Vertex normals as Doom 3 derives them (`R_DeriveTangents`): each triangle's unit normal
/// added to its corners, the sums of vertices at the same position added together (so
/// texture seams stay smooth), then normalised. `tris` are counter-clockwise (the file's
/// clockwise corners in reverse), so triangle `a b c` faces along `(b − a) × (c − a)`.
fn smooth_normals(positions: &[Vec3A], tris: &[super::raw::Triangle]) -> Vec<Vec3A> {
    let mut sums = vec![Vec3A::ZERO; positions.len()];
    for tri in tris {
        let [a, b, c] = tri.map(|i| i.get() as usize);
        let (Some(&pa), Some(&pb), Some(&pc)) =
            (positions.get(a), positions.get(b), positions.get(c))
        else {
            continue;
        };
        let n = (pb - pa).cross(pc - pa);
        let Some(n) = n.try_normalize() else { continue };
        for v in [a, b, c] {
            if let Some(s) = sums.get_mut(v) {
                *s += n;
            }
        }
    }
    // Each vertex takes the first vertex at its position as its group (itself when it is
    // the first).
    let group = first_at_same_position(positions);
    // Each group's total, the sums of its members added in vertex order, gathers in its first
    // member's sum, then replaces the others'. Adding zero at each step turns a total of −0
    // into +0, as a total that starts from zero has it.
    for (i, &first) in group.iter().enumerate() {
        if first as usize != i
            && let Some(&sum) = sums.get(i)
            && let Some(total) = sums.get_mut(first as usize)
        {
            *total = (*total + Vec3A::ZERO) + sum;
        }
    }
    for i in 0..sums.len() {
        if let Some(&first) = group.get(i).filter(|&&f| f as usize != i)
            && let Some(&total) = sums.get(first as usize)
            && let Some(sum) = sums.get_mut(i)
        {
            *sum = total;
        }
    }
    for n in &mut sums {
        *n = n.try_normalize().unwrap_or(Vec3A::Z);
    }
    sums
}

impl<'data> Parse<'data> for Anim<'data> {
    const FORMAT: Format = Format::Md5;

    fn parse_with(data: &'data [u8], limits: &Limits, diag: &mut Diagnostics) -> Result<Self> {
        Anim::parse_checked(data, limits, diag, None, |_, _| Ok(()))
    }
}

impl<'data> Anim<'data> {
    /// [`parse_with`](Parse::parse_with), with `check` asked about the hierarchy as soon as it
    /// is read: its error ends the parse before the bounds, base frame and frames are (an
    /// animation of another skeleton need not be read whole to be left out). An animation in
    /// the pre-release layout, which names no parents, takes the joints of `mesh` instead
    /// ([`channels`](super::channels)).
    pub(crate) fn parse_checked(
        data: &'data [u8],
        limits: &Limits,
        diag: &mut Diagnostics,
        mesh: Option<&MeshFile<'_>>,
        check: impl FnOnce(&[JointAnimInfo], u64) -> Result<()>,
    ) -> Result<Self> {
        let (mut lex, header) = begin(data, limits, (Kind::Anim, "numFrames (an .md5anim)"), diag)?;
        if header.kind == Kind::Channels {
            return Anim::parse_channels(lex, header, limits, diag, mesh);
        }
        let commandline = header.commandline;
        let frames_at = lex.next_offset()?;
        let num_frames = count(
            &mut lex,
            "numFrames",
            "header.numFrames",
            1,
            limits.max_frames.into(),
            MIN_FRAME,
        )?;
        let joints_at = lex.next_offset()?;
        let num_joints = count(
            &mut lex,
            "numJoints",
            "header.numJoints",
            1,
            limits.max_bones.into(),
            MIN_HIERARCHY,
        )?;
        lex.keyword("frameRate", "header.frameRate", "frameRate")?;
        let at = lex.next_offset()?;
        let mut frame_rate = lex.float("header.frameRate")?;
        if frame_rate < 0.0 {
            return Err(lex.error(
                "header.frameRate",
                at,
                Problem::NotPositive {
                    value: frame_rate.into(),
                },
            ));
        }
        if frame_rate == 0.0 {
            diag.warn(
                FORMAT,
                WarningKind::FrameRate,
                "header.frameRate",
                at,
                || "frameRate is 0; 24 frames a second are used".to_string(),
            );
            frame_rate = 24.0;
        }
        let most = num_joints as u64 * 6;
        let num_components = count(
            &mut lex,
            "numAnimatedComponents",
            "header.numAnimatedComponents",
            0,
            most,
            0,
        )?;
        let poses = poses_within(
            num_frames,
            num_joints,
            "header.numFrames × header.numJoints",
            frames_at,
        )?;
        let text_needed =
            (num_frames as u64).saturating_mul(MIN_FRAME + MIN_COMPONENT * num_components as u64);
        if text_needed > lex.remaining() {
            let at = lex.next_offset()?;
            return Err(lex.error(
                "header.numFrames",
                at,
                Problem::AboveMaximum {
                    value: num_frames as u64,
                    max: lex.remaining() / (MIN_FRAME + MIN_COMPONENT * num_components as u64),
                },
            ));
        }
        let hierarchy = hierarchy(&mut lex, num_joints, num_components)?;
        check(&hierarchy, joints_at)?;
        let bounds = bounds(&mut lex, num_frames, diag)?;
        let base_frame = base_frame(&mut lex, num_joints, diag)?;
        let mut anim = Anim {
            text: data,
            commandline,
            frame_rate,
            num_animated_components: num_components as u32,
            hierarchy,
            bounds,
            base_frame,
            poses: Vec::with_capacity(poses as usize),
            skin_scales: Vec::new(),
        };
        let mut components = Vec::with_capacity(num_components);
        let mut head = Head::new("frame");
        for _ in 0..num_frames {
            entry_head(
                &mut lex,
                &mut head,
                ("header.numFrames", "frame.index"),
                num_frames,
            )?;
            lex.bracket(b'{', "frame")?;
            components.clear();
            for c in 0..num_components {
                entry(
                    &mut lex,
                    "",
                    "header.numAnimatedComponents",
                    c,
                    num_components,
                )?;
                components.push(lex.float("frame.component")?);
            }
            if lex.peek()? != Some(b'}') {
                let at = lex.next_offset()?;
                if lex.peek_word()?.is_some() {
                    return Err(lex.error(
                        "header.numAnimatedComponents",
                        at,
                        Problem::MoreThanDeclared {
                            declared: num_components as u64,
                        },
                    ));
                }
            }
            lex.bracket(b'}', "frame")?;
            let at = lex.next_offset()?;
            if frame_poses(
                &anim.hierarchy,
                &anim.base_frame,
                &components,
                &mut anim.poses,
            ) {
                warn_rotation(diag, "frame.component", at);
            }
        }
        unread_rest(&mut lex, diag, "frame");
        Ok(anim)
    }
}

/// `hierarchy { … }`: names, parents, flags and where each joint's components start.
fn hierarchy(lex: &mut Lexer<'_>, n: usize, num_components: usize) -> Result<Vec<JointAnimInfo>> {
    lex.keyword("hierarchy", "hierarchy", "hierarchy")?;
    lex.bracket(b'{', "hierarchy")?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        entry(lex, "", "header.numJoints", i, n)?;
        let name = lex.string("hierarchy.name")?;
        let parent_num = parent(lex, "hierarchy.parent", i)?;
        let (flags, at) = lex.integer("hierarchy.flags")?;
        let anim_bits = match u32::try_from(flags) {
            Ok(f) if f & !ANIM_ALL == 0 => f,
            _ => {
                return Err(lex.error("hierarchy.flags", at, Problem::UnknownCode { code: flags }));
            }
        };
        let (start, at) = lex.integer("hierarchy.startIndex")?;
        let needed = u64::from(anim_bits.count_ones());
        let first_component = match u64::try_from(start) {
            Ok(s) if anim_bits == 0 || s + needed <= num_components as u64 => s as u32,
            Ok(s) => {
                return Err(lex.error(
                    "hierarchy.startIndex",
                    at,
                    Problem::AboveMaximum {
                        value: s + needed,
                        max: num_components as u64,
                    },
                ));
            }
            Err(_) => {
                return Err(lex.error(
                    "hierarchy.startIndex",
                    at,
                    Problem::Negative { value: start },
                ));
            }
        };
        out.push(JointAnimInfo {
            name,
            parent_num,
            anim_bits,
            first_component,
        });
    }
    close(lex, b'"', "header.numJoints", n, "hierarchy")?;
    Ok(out)
}

/// `bounds { … }`: a box per frame.
fn bounds(lex: &mut Lexer<'_>, n: usize, diag: &mut Diagnostics) -> Result<Vec<[Vec3; 2]>> {
    lex.keyword("bounds", "bounds", "bounds")?;
    lex.bracket(b'{', "bounds")?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        entry(lex, "", "header.numFrames", i, n)?;
        let min = lex.vector::<3>("bounds.min")?;
        let max = lex.vector::<3>("bounds.max")?;
        out.push([Vec3::from(min), Vec3::from(max)]);
    }
    // Entries past the declared frames are checked and left unread, as the Cube 2 engines,
    // which never read the bounds, leave them: Sauerbraten's `captaincannon` animations list
    // one more than their frames. Doom 3 refuses such a file.
    let first = lex.next_offset()?;
    let mut extra = 0u64;
    while lex.peek()? == Some(b'(') {
        lex.vector::<3>("bounds.min")?;
        lex.vector::<3>("bounds.max")?;
        extra += 1;
    }
    diag.warn_n(
        FORMAT,
        WarningKind::SpecLimit,
        "header.numFrames",
        first,
        extra,
        || {
            format!(
                "bounds entries past the {n} declared frames: not read, as the Cube 2 engines \
                 leave them (Doom 3 refuses the file)"
            )
        },
    );
    lex.bracket(b'}', "bounds")?;
    Ok(out)
}

/// `baseframe { … }`: each joint's pose where no frame stores a component.
fn base_frame(
    lex: &mut Lexer<'_>,
    n: usize,
    diag: &mut Diagnostics,
) -> Result<Vec<(Vec3A, [f32; 3])>> {
    lex.keyword("baseframe", "baseframe", "baseframe")?;
    lex.bracket(b'{', "baseframe")?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        entry(lex, "", "header.numJoints", i, n)?;
        let t = lex.vector::<3>("baseframe.position")?;
        let at = lex.next_offset()?;
        let q = lex.vector::<3>("baseframe.orientation")?;
        if rotation(q).1 {
            warn_rotation(diag, "baseframe.orientation", at);
        }
        out.push((Vec3A::from(t), q));
    }
    close(lex, b'(', "header.numJoints", n, "baseframe")?;
    Ok(out)
}

/// Appends one frame's poses: the base frame with the components the frame stores put in.
/// Returns whether a rotation passed unit length.
fn frame_poses(
    hierarchy: &[JointAnimInfo],
    base: &[(Vec3A, [f32; 3])],
    components: &[f32],
    out: &mut Vec<(Quat, Vec3A)>,
) -> bool {
    let mut stretched = false;
    for (info, &(t, q)) in hierarchy.iter().zip(base) {
        let (mut t, mut q) = (t.to_array(), q);
        let mut next = info.first_component as usize;
        let mut take = |bit: u32, slot: &mut f32| {
            if info.anim_bits & bit != 0 {
                if let Some(&v) = components.get(next) {
                    *slot = v;
                }
                next += 1;
            }
        };
        take(ANIM_TX, &mut t[0]);
        take(ANIM_TY, &mut t[1]);
        take(ANIM_TZ, &mut t[2]);
        take(ANIM_QX, &mut q[0]);
        take(ANIM_QY, &mut q[1]);
        take(ANIM_QZ, &mut q[2]);
        let (rotation, bad) = rotation(q);
        stretched |= bad;
        out.push((rotation, Vec3A::from(t)));
    }
    stretched
}

#[cfg(test)]
mod tests {
    use glam::Vec3A;

    use super::{first_at_same_position_sorted, first_at_same_position_within};

    /// The table and the sort group alike, and the table gives way once its budget is spent.
    #[test]
    fn the_table_and_the_sort_find_the_same_groups() {
        // 300 positions on 40 points, −0 and +0 apart, each point's first copy anywhere.
        let positions: Vec<Vec3A> = (0..300u32)
            .map(|i| {
                let p = (i * 7919 + 13) % 40;
                let z = if p % 5 == 0 { -0.0 } else { 0.0 };
                Vec3A::new(p as f32 * 0.5, (p % 3) as f32, z)
            })
            .collect();
        let sorted = first_at_same_position_sorted(&positions);
        assert_eq!(
            first_at_same_position_within(&positions, usize::MAX),
            Some(sorted.clone())
        );
        for (i, &g) in sorted.iter().enumerate() {
            let first = positions.iter().position(|p| {
                p.to_array().map(f32::to_bits) == positions[i].to_array().map(f32::to_bits)
            });
            assert_eq!(Some(g as usize), first, "position {i}");
        }
        // 300 copies of one point probe nothing; 300 points in a table of 1 024 collide
        // somewhere, so a budget of 0 steps is spent.
        let same = vec![Vec3A::ONE; 300];
        assert_eq!(first_at_same_position_within(&same, 0), Some(vec![0; 300]));
        let spread: Vec<Vec3A> = (0..300).map(|i| Vec3A::splat(i as f32)).collect();
        assert_eq!(first_at_same_position_within(&spread, 0), None);
        assert_eq!(
            first_at_same_position_within(&spread, usize::MAX),
            Some((0..300).collect())
        );
    }
}
