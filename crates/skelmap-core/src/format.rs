//! The formats skelmap knows, and recognising one from a file's first bytes.
//!
//! Detection is by magic bytes, never by file name: a renamed file is still recognised, and a
//! file named `.dpm` that is something else is reported as unknown. The one exception is the
//! SL `.anim`, which has no magic at all: [`Format::detect`] takes the file's extension as a
//! hint for it, and only when no magic matches.
//!
//! This module is the foundation's table of formats: it knows each magic and the header-layout
//! test that tells an SKM from an SKP, and imports no format module. Each format's `raw.rs`
//! re-exports its magic from here.

use core::fmt;

/// The 16 bytes every DPM starts with (`"DARKPLACESMODEL"` and a NUL).
pub const DPM_MAGIC: &[u8; 16] = b"DARKPLACESMODEL\0";

/// The 16 bytes every IQM starts with (`"INTERQUAKEMODEL"` and a NUL).
pub const IQM_MAGIC: &[u8; 16] = b"INTERQUAKEMODEL\0";

/// The 4 bytes both SKM and SKP files start with.
pub const SKM_MAGIC: &[u8; 4] = b"SKM1";

/// The 10 bytes every MS3D starts with.
pub const MS3D_MAGIC: &[u8; 10] = b"MS3D000000";

/// The 4 bytes every SL `mdl` starts with (lower case: GameStudio's `MDL3/4/5` differ).
pub const SLMDL_MAGIC: &[u8; 4] = b"mdl\0";

/// The 4 bytes every GameStudio MDL7 starts with (checked before [`MDL_MAGIC_PREFIX`]).
pub const MDL7_MAGIC: &[u8; 4] = b"MDL7";

/// The prefix every GameStudio model version shares (`MDL2` … `MDL7`).
pub const MDL_MAGIC_PREFIX: &[u8; 3] = b"MDL";

/// The 4 bytes every Quake MDL starts with (GameStudio's MDL2 shares its layout under `MDL2`).
pub const IDPO_MAGIC: &[u8; 4] = b"IDPO";

/// The prefix every GameStudio terrain version shares (`HMP4` … `HMP7`).
pub const HMP_MAGIC_PREFIX: &[u8; 3] = b"HMP";

/// Size of an SKM header (`dskmheader_t`); `skm::raw` asserts its struct has it.
pub const SKM_HEADER_SIZE: u64 = 24;
/// Size of an SKP header (`dskpheader_t`).
pub const SKP_HEADER_SIZE: u64 = 28;
/// Size of an SKP bone record (`dskpbone_t`).
pub const SKP_BONE_SIZE: u64 = 72;
/// Size of an SKP frame record (`dskpframe_t`).
pub const SKP_FRAME_SIZE: u64 = 68;

/// The file formats skelmap knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// DarkPlaces skeletal model (`DARKPLACESMODEL\0`, type 2, big-endian).
    Dpm,
    /// Qfusion/Warsow skeletal mesh (`SKM1`, type 2, little-endian).
    Skm,
    /// Qfusion/Warsow skeleton and animation (`SKM1` as well; told apart by header layout).
    Skp,
    /// MilkShape 3D model (`MS3D000000`, version 3 or 4, little-endian).
    Ms3d,
    /// 3D GameStudio model (`MDL2`, `MDL3`, `MDL4`, `MDL5`). MDL2 has Quake's layout and is
    /// read by [`quake`](crate::quake); `MDL7` is [`Format::Mdl7`].
    Mdl,
    /// 3D GameStudio A6/A7 model (`MDL7`, little-endian): groups, bones and weights, frames of
    /// bone matrices or replaced vertices.
    Mdl7,
    /// 3D GameStudio terrain (`HMP5`, `HMP7`; `HMP4` is refused).
    Hmp,
    /// The "SL" engine's mesh (`mdl\0`: interleaved vertices with a declared layout).
    SlMdl,
    /// The "SL" engine's `.anim` (no magic: recognised by its extension only).
    SlAnim,
    /// Quake 1 model (`IDPO`, version 6): 8-bit skins, vertex animation.
    Quake,
    /// Inter-Quake Model (`INTERQUAKEMODEL\0`, version 2, little-endian): skeletal meshes,
    /// joints with scale, quantised animation channels.
    Iqm,
}

impl Format {
    /// Every format, in probe order.
    pub const ALL: &'static [Format] = &[
        Format::Dpm,
        Format::Skm,
        Format::Skp,
        Format::Ms3d,
        Format::Mdl7,
        Format::Mdl,
        Format::Hmp,
        Format::SlMdl,
        Format::SlAnim,
        Format::Quake,
        Format::Iqm,
    ];

    /// Recognises the format of `data` from its magic bytes.
    ///
    /// ```
    /// use skelmap_core::Format;
    /// assert_eq!(Format::sniff(b"DARKPLACESMODEL\0\0\0\0\x02"), Some(Format::Dpm));
    /// assert_eq!(Format::sniff(b"not a model"), None);
    /// ```
    #[must_use]
    pub fn sniff(data: &[u8]) -> Option<Format> {
        let format = Format::ALL
            .iter()
            .copied()
            .find(|f| !f.magic().is_empty() && data.starts_with(f.magic()))?;
        // SKM and SKP share their magic; the header layout tells them apart.
        if format == Format::Skm && looks_like_skp(data) {
            return Some(Format::Skp);
        }
        Some(format)
    }

    /// Recognises `data` by its magic, or, when no magic matches, by `extension` (without the
    /// dot, any case) for the formats that have no magic (the SL `.anim`).
    ///
    /// ```
    /// use skelmap_core::Format;
    /// assert_eq!(Format::detect(b"\x01\0\0\0", Some("ANIM")), Some(Format::SlAnim));
    /// assert_eq!(Format::detect(b"MS3D000000\x04\0\0\0", Some("anim")), Some(Format::Ms3d));
    /// assert_eq!(Format::detect(b"\x01\0\0\0", Some("dpm")), None);
    /// ```
    #[must_use]
    pub fn detect(data: &[u8], extension: Option<&str>) -> Option<Format> {
        Format::sniff(data).or_else(|| {
            let extension = extension?;
            Format::ALL
                .iter()
                .copied()
                .find(|f| f.magic().is_empty() && f.extension().eq_ignore_ascii_case(extension))
        })
    }

    /// The magic bytes a file of this format starts with: empty for `.anim`, which has none;
    /// for MDL and HMP the prefix every version shares (`MDL`, `HMP`), so that the versions
    /// skelmap does not read are still recognised and refused by name.
    #[must_use]
    pub fn magic(self) -> &'static [u8] {
        match self {
            Format::Dpm => DPM_MAGIC,
            Format::Skm | Format::Skp => SKM_MAGIC,
            Format::Ms3d => MS3D_MAGIC,
            Format::Mdl => MDL_MAGIC_PREFIX,
            Format::Mdl7 => MDL7_MAGIC,
            Format::Hmp => HMP_MAGIC_PREFIX,
            Format::SlMdl => SLMDL_MAGIC,
            Format::SlAnim => &[],
            Format::Quake => IDPO_MAGIC,
            Format::Iqm => IQM_MAGIC,
        }
    }

    /// The magic as the error for a file that lacks it quotes it: every version skelmap
    /// reads, for MDL and HMP.
    #[must_use]
    pub fn magic_text(self) -> &'static str {
        match self {
            Format::Dpm => "\"DARKPLACESMODEL\\0\"",
            Format::Skm | Format::Skp => "\"SKM1\"",
            Format::Ms3d => "\"MS3D000000\"",
            Format::Mdl => "\"MDL2\", \"MDL3\", \"MDL4\" or \"MDL5\"",
            Format::Mdl7 => "\"MDL7\"",
            Format::Hmp => "\"HMP5\" or \"HMP7\"",
            Format::SlMdl => "\"mdl\\0\"",
            Format::SlAnim => "none",
            Format::Quake => "\"IDPO\"",
            Format::Iqm => "\"INTERQUAKEMODEL\\0\"",
        }
    }

    /// The short upper-case name used in messages (`"DPM"`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Format::Dpm => "DPM",
            Format::Skm => "SKM",
            Format::Skp => "SKP",
            Format::Ms3d => "MS3D",
            Format::Mdl => "MDL",
            Format::Mdl7 => "MDL7",
            Format::Hmp => "HMP",
            Format::SlMdl => "SL mdl",
            Format::SlAnim => "SL anim",
            Format::Quake => "Quake MDL",
            Format::Iqm => "IQM",
        }
    }

    /// The usual file extension, without the dot.
    #[must_use]
    pub fn extension(self) -> &'static str {
        match self {
            Format::Dpm => "dpm",
            Format::Skm => "skm",
            Format::Skp => "skp",
            Format::Ms3d => "ms3d",
            Format::Mdl | Format::Mdl7 | Format::SlMdl | Format::Quake => "mdl",
            Format::Hmp => "hmp",
            Format::SlAnim => "anim",
            Format::Iqm => "iqm",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error for data whose magic matches no known format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unrecognised file: the first bytes match no supported format")]
pub struct UnknownFormat;

/// The little-endian `u32` at `at`, or 0 past the end.
fn word(data: &[u8], at: usize) -> u64 {
    data.get(at..at + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, |b| u64::from(u32::from_le_bytes(b)))
}

/// `true` if `data` has an SKM's header layout that no SKP can have: the first table starts
/// inside an SKP's 28-byte header (at 24, right after an SKM's).
#[must_use]
pub fn looks_like_skm(data: &[u8]) -> bool {
    data.len() as u64 >= SKM_HEADER_SIZE
        && (SKM_HEADER_SIZE..SKP_HEADER_SIZE).contains(&word(data, 20))
}

/// `true` if `data` (starting with `SKM1`) has the header layout of an SKP skeleton file
/// rather than an SKM mesh file: an SKP's 28-byte header holds two table offsets (bones at 20,
/// frames at 24), each at least 28 and each table in bounds, while an SKM's 24-byte header has
/// its mesh table at offset 20, normally 24, right after the header.
#[must_use]
pub fn looks_like_skp(data: &[u8]) -> bool {
    let word = |at: usize| word(data, at);
    let (len, header) = (data.len() as u64, SKP_HEADER_SIZE);
    let (num_bones, num_frames, ofs_bones, ofs_frames) = (word(12), word(16), word(20), word(24));
    len >= header
        && ofs_bones >= header
        && ofs_frames >= header
        && num_bones >= 1
        && num_frames >= 1
        && ofs_bones + SKP_BONE_SIZE * num_bones <= len
        && ofs_frames + SKP_FRAME_SIZE * num_frames <= len
}
