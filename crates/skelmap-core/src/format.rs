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

/// The 4 bytes every Quake III MD3 starts with (and each of its surfaces).
pub const MD3_MAGIC: &[u8; 4] = b"IDP3";

/// The 4 bytes every Return to Castle Wolfenstein MDC starts with.
pub const MDC_MAGIC: &[u8; 4] = b"IDPC";

/// The 4 bytes every ioquake3 MDR starts with (`MDR_IDENT`).
pub const MDR_MAGIC: &[u8; 4] = b"RDM5";

/// The 4 bytes every Quake II MD2 starts with.
pub const MD2_MAGIC: &[u8; 4] = b"IDP2";

/// The keyword every Doom 3 `.md5mesh` and `.md5anim` starts with (after white space and
/// comments, which [`Format::sniff`] skips).
pub const MD5_MAGIC: &[u8; 10] = b"MD5Version";

/// The 12 bytes every DarkPlaces ZYM starts with (no terminator).
pub const ZYM_MAGIC: &[u8; 12] = b"ZYMOTICMODEL";

/// The 4 bytes a Half-Life 1 studio model (and its texture file) starts with.
pub const HL1_MAGIC: &[u8; 4] = b"IDST";

/// The 4 bytes every Enemy Territory MDM starts with (`MDM_IDENT`).
pub const MDM_MAGIC: &[u8; 4] = b"MDMW";

/// The 4 bytes every Enemy Territory MDX starts with (`MDX_IDENT`).
pub const MDX_MAGIC: &[u8; 4] = b"MDXW";

/// The first chunk of every Unreal PSK (`VChunkHeader::ChunkID`, NUL-padded: the NUL is part
/// of the magic).
pub const PSK_MAGIC: &[u8; 9] = b"ACTRHEAD\0";

/// The first chunk of every Unreal PSA (`VChunkHeader::ChunkID`, NUL-padded).
pub const PSA_MAGIC: &[u8; 9] = b"ANIMHEAD\0";

/// Size of an SKM header (`dskmheader_t`); `skm::raw` asserts its struct has it.
pub const SKM_HEADER_SIZE: u64 = 24;
/// Size of an SKP header (`dskpheader_t`).
pub const SKP_HEADER_SIZE: u64 = 28;
/// Size of an SKP bone record (`dskpbone_t`).
pub const SKP_BONE_SIZE: u64 = 72;
/// Size of an SKP frame record (`dskpframe_t`).
pub const SKP_FRAME_SIZE: u64 = 68;

/// The one list of formats: a row a format, in probe order (`MDL7` before the `MDL` prefix it
/// starts with). Each floor takes the columns it needs by naming a callback macro:
/// `format_table!(callback)` expands to `callback! { row… }` (with any tokens given after the
/// callback's name first, for a callback that needs a `$`). This module makes [`Format`] from
/// it; `model/any.rs` makes the `View` enum, its dispatch macros and the `Model::as_*`
/// accessors, and `model/write.rs` the write dispatch; the checklist test
/// (`tests/integration/formats.rs`) reads the folder, docs and fuzz columns through
/// [`Format`]'s methods. The `view` and `writer` columns are paths from the crate root without
/// `crate::`, only tokens here: the model floor's callbacks put `crate::` before them, so this
/// floor imports no format and the callbacks need no list of imports.
///
/// The columns, in order:
/// - the variant, with its documentation;
/// - `name`: the short name messages use;
/// - `extensions`: the file extensions, the usual one first (a hint only: content decides);
/// - `magic` and `magic_text`: the first bytes (empty for a format without magic) and how an
///   error quotes them;
/// - `c_value`: the value of `SkelmapFormat` in the C ABI, never reused;
/// - `folder`, `docs`, `fuzz`: the format's module folder (and test folder), its page in
///   `docs/formats/`, its fuzz target;
/// - `writer`: the builder that writes the format from an asset (its `asset::Writer`), or
///   nothing for a format skelmap does not write; `model::write` dispatches to it;
/// - `view`: the view type a `Model` holds, its accessor, and the view's documentation.
macro_rules! format_table {
    ($callback:ident $($prefix:tt)*) => {
        $callback! { $($prefix)*
            /// DarkPlaces skeletal model (`DARKPLACESMODEL\0`, type 2, big-endian).
            Dpm {
                name: "DPM", extensions: ["dpm"],
                magic: DPM_MAGIC, magic_text: "\"DARKPLACESMODEL\\0\"", c_value: 1,
                folder: "dpm", docs: "dpm", fuzz: "dpm",
                writer: [dpm::Builder],
                view: dpm::Dpm, as_dpm, "A DarkPlaces model.",
            }
            /// Qfusion/Warsow skeletal mesh (`SKM1`, type 2, little-endian).
            Skm {
                name: "SKM", extensions: ["skm"],
                magic: SKM_MAGIC, magic_text: "\"SKM1\"", c_value: 2,
                folder: "skm", docs: "skm", fuzz: "skm",
                writer: [skm::write::Builder],
                view: skm::Pair, as_skm,
                "A Qfusion mesh paired with its skeleton (and levels of detail).",
            }
            /// Qfusion/Warsow skeleton and animation (`SKM1` as well; told apart by header
            /// layout).
            Skp {
                name: "SKP", extensions: ["skp"],
                magic: SKM_MAGIC, magic_text: "\"SKM1\"", c_value: 3,
                folder: "skm", docs: "skm", fuzz: "skp",
                writer: [],
                view: skm::Skp, as_skp, "A Qfusion skeleton on its own: bones and frames, no meshes.",
            }
            /// MilkShape 3D model (`MS3D000000`, version 3 or 4, little-endian).
            Ms3d {
                name: "MS3D", extensions: ["ms3d"],
                magic: MS3D_MAGIC, magic_text: "\"MS3D000000\"", c_value: 4,
                folder: "ms3d", docs: "ms3d", fuzz: "ms3d",
                writer: [ms3d::Builder],
                view: ms3d::Ms3d, as_ms3d, "A MilkShape 3D model.",
            }
            /// 3D GameStudio A6/A7 model (`MDL7`, little-endian): groups, bones and weights,
            /// frames of bone matrices or replaced vertices.
            Mdl7 {
                name: "MDL7", extensions: ["mdl"],
                magic: MDL7_MAGIC, magic_text: "\"MDL7\"", c_value: 11,
                folder: "mdl7", docs: "mdl7", fuzz: "mdl7",
                writer: [mdl7::Builder],
                view: mdl7::Mdl7, as_mdl7, "A GameStudio A6/A7 model: bones and weights, or vertex frames.",
            }
            /// 3D GameStudio model (`MDL2`, `MDL3`, `MDL4`, `MDL5`). MDL2 has Quake's layout and
            /// is read by [`quake`](crate::quake); `MDL7` is [`Format::Mdl7`].
            Mdl {
                name: "MDL", extensions: ["mdl"],
                magic: MDL_MAGIC_PREFIX, magic_text: "\"MDL2\", \"MDL3\", \"MDL4\" or \"MDL5\"",
                c_value: 5,
                folder: "gamestudio", docs: "mdl", fuzz: "mdl",
                writer: [gamestudio::MdlBuilder],
                view: gamestudio::Mdl, as_mdl, "A GameStudio MDL3, MDL4 or MDL5 model: vertex frames.",
            }
            /// 3D GameStudio terrain (`HMP5`, `HMP7`; `HMP4` is refused).
            Hmp {
                name: "HMP", extensions: ["hmp"],
                magic: HMP_MAGIC_PREFIX, magic_text: "\"HMP5\" or \"HMP7\"", c_value: 6,
                folder: "gamestudio", docs: "hmp", fuzz: "hmp",
                writer: [],
                view: gamestudio::Hmp, as_hmp, "A GameStudio HMP5 or HMP7 terrain.",
            }
            /// The "SL" engine's mesh (`mdl\0`: interleaved vertices with a declared layout).
            SlMdl {
                name: "SL mdl", extensions: ["mdl"],
                magic: SLMDL_MAGIC, magic_text: "\"mdl\\0\"", c_value: 7,
                folder: "slmdl", docs: "slmdl", fuzz: "slmdl",
                writer: [slmdl::write::Builder],
                view: slmdl::Pair, as_sl_mdl, "An SL mesh, with its animation when one was found.",
            }
            /// The "SL" engine's `.anim` (no magic: recognised by its extension only).
            SlAnim {
                name: "SL anim", extensions: ["anim"],
                magic: NO_MAGIC, magic_text: "none", c_value: 9,
                folder: "slmdl", docs: "slmdl", fuzz: "slanim",
                writer: [],
                view: slmdl::Animation, as_sl_anim,
                "An SL animation on its own: bones and keyframes, no meshes.",
            }
            /// Quake 1 model (`IDPO`, version 6): 8-bit skins, vertex animation.
            Quake {
                name: "Quake MDL", extensions: ["mdl"],
                magic: IDPO_MAGIC, magic_text: "\"IDPO\"", c_value: 8,
                folder: "quake", docs: "quake", fuzz: "quake",
                writer: [quake::Builder],
                view: quake::Mdl, as_quake,
                "A Quake model, or a GameStudio MDL2 (which has Quake's layout).",
            }
            /// Inter-Quake Model (`INTERQUAKEMODEL\0`, version 2, little-endian): skeletal
            /// meshes, joints with scale, quantised animation channels.
            Iqm {
                name: "IQM", extensions: ["iqm"],
                magic: IQM_MAGIC, magic_text: "\"INTERQUAKEMODEL\\0\"", c_value: 10,
                folder: "iqm", docs: "iqm", fuzz: "iqm",
                writer: [iqm::Builder],
                view: iqm::Pair, as_iqm,
                "An Inter-Quake Model (or an IQM animation on its own), with the animation it plays.",
            }
            /// Quake III model (`IDP3`, version 15, little-endian): surfaces of vertex frames
            /// at 1/64 unit, tags. Often named `.mdl` too: content decides.
            Md3 {
                name: "MD3", extensions: ["md3"],
                magic: MD3_MAGIC, magic_text: "\"IDP3\"", c_value: 12,
                folder: "md3", docs: "md3", fuzz: "md3",
                writer: [md3::Builder],
                view: md3::Pair, as_md3, "A Quake III model: surfaces of vertex frames, and tags.",
            }
            /// Quake II model (`IDP2`, version 8, little-endian): one mesh of byte vertex
            /// frames, each frame with its own scale and translate; skins named, not embedded.
            Md2 {
                name: "MD2", extensions: ["md2"],
                magic: MD2_MAGIC, magic_text: "\"IDP2\"", c_value: 13,
                folder: "md2", docs: "md2", fuzz: "md2",
                writer: [md2::Builder],
                view: md2::Md2, as_md2, "A Quake II model: one mesh of vertex frames, skins named.",
            }
            /// Return to Castle Wolfenstein's compressed MD3 (`IDPC`, version 2,
            /// little-endian): surfaces of base frames and byte offsets from them, tags as
            /// angles.
            Mdc {
                name: "MDC", extensions: ["mdc"],
                magic: MDC_MAGIC, magic_text: "\"IDPC\"", c_value: 14,
                folder: "mdc", docs: "mdc", fuzz: "mdc",
                writer: [mdc::Builder],
                view: mdc::Mdc, as_mdc,
                "A Return to Castle Wolfenstein model: surfaces of base and compressed frames, and tags.",
            }
            /// ioquake3 skeletal model (`RDM5`, version 2, little-endian): frames of
            /// model-space bone matrices (plain or 16-bit compressed), weighted vertices,
            /// levels of detail, tags on bones.
            Mdr {
                name: "MDR", extensions: ["mdr"],
                magic: MDR_MAGIC, magic_text: "\"RDM5\"", c_value: 17,
                folder: "mdr", docs: "mdr", fuzz: "mdr",
                writer: [mdr::Builder],
                view: mdr::Mdr, as_mdr,
                "An ioquake3 skeletal model: model-space bone frames, levels of detail and tags.",
            }
            /// Doom 3 model (`MD5Version 10` text): a skeletal `.md5mesh` with the `.md5anim`
            /// animations beside it, or an `.md5anim` on its own.
            Md5 {
                name: "MD5", extensions: ["md5mesh", "md5anim"],
                magic: MD5_MAGIC, magic_text: "\"MD5Version\"", c_value: 15,
                folder: "md5", docs: "md5", fuzz: "md5",
                writer: [md5::Builder],
                view: md5::Pair, as_md5,
                "A Doom 3 model: a mesh with the animations found beside it, or an animation alone.",
            }
            /// DarkPlaces Zymotic model (`ZYMOTICMODEL`, type 1, big-endian lumps): one-bone
            /// vertices, 3×4 poses, scenes as clips.
            Zym {
                name: "ZYM", extensions: ["zym"],
                magic: ZYM_MAGIC, magic_text: "\"ZYMOTICMODEL\"", c_value: 16,
                folder: "zym", docs: "zym", fuzz: "zym",
                writer: [zym::Builder],
                view: zym::Zym, as_zym, "A DarkPlaces Zymotic model.",
            }
            /// Half-Life 1 studio model (`IDST`, version 10, little-endian): bones with default
            /// values, run-length-encoded sequences, body parts of strips and fans, 8-bit
            /// textures with their palettes; `<stem>T.mdl` and `<stem>01.mdl` companions.
            Hl1 {
                name: "Half-Life MDL", extensions: ["mdl"],
                magic: HL1_MAGIC, magic_text: "\"IDST\"", c_value: 18,
                folder: "hl1", docs: "hl1", fuzz: "hl1",
                writer: [hl1::Builder],
                view: hl1::Pair, as_hl1,
                "A Half-Life 1 model with its texture and sequence-group files.",
            }
            /// Enemy Territory skeletal mesh (`MDMW`, version 3, little-endian): surfaces of
            /// weighted vertices with collapse maps, tags on bones; played by its MDX.
            Mdm {
                name: "MDM", extensions: ["mdm"],
                magic: MDM_MAGIC, magic_text: "\"MDMW\"", c_value: 21,
                folder: "mdm", docs: "mdm", fuzz: "mdm",
                writer: [mdm::Builder],
                view: mdm::Pair, as_mdm,
                "An Enemy Territory mesh paired with its MDX skeleton and animation.",
            }
            /// Enemy Territory skeleton and animation (`MDXW`, version 2, little-endian): bones
            /// placed by parent distance and compressed angles, frames.
            Mdx {
                name: "MDX", extensions: ["mdx"],
                magic: MDX_MAGIC, magic_text: "\"MDXW\"", c_value: 22,
                folder: "mdm", docs: "mdm", fuzz: "mdx",
                writer: [],
                view: mdm::MdxFile, as_mdx,
                "An Enemy Territory skeleton on its own: bones and frames, no meshes.",
            }
            /// Unreal skeletal mesh (ActorX `.psk`, `.pskx`: chunks from `ACTRHEAD`): points,
            /// wedges, faces by material, a reference skeleton, raw weights; the `.psa` of the
            /// same name as its animations.
            Psk {
                name: "PSK", extensions: ["psk", "pskx"],
                magic: PSK_MAGIC, magic_text: "\"ACTRHEAD\"", c_value: 19,
                folder: "psk", docs: "psk", fuzz: "psk",
                writer: [psk::Builder],
                view: psk::Pair, as_psk,
                "An Unreal PSK mesh, with the PSA beside it as its animations when one was found.",
            }
            /// Unreal skeletal animation (ActorX `.psa`: chunks from `ANIMHEAD`), opened alone:
            /// bones and sequences of keys, no meshes.
            Psa {
                name: "PSA", extensions: ["psa"],
                magic: PSA_MAGIC, magic_text: "\"ANIMHEAD\"", c_value: 20,
                folder: "psk", docs: "psk", fuzz: "psa",
                writer: [],
                view: psk::Psa, as_psa, "An Unreal PSA on its own: bones and sequences, no meshes.",
            }
        }
    };
}
pub(crate) use format_table;

/// The magic of a format that has none (the SL `.anim`).
const NO_MAGIC: &[u8] = &[];

/// Makes [`Format`] and its table methods from the rows of [`format_table!`].
macro_rules! declare_format {
    ($(
        $(#[$doc:meta])*
        $variant:ident {
            name: $name:literal, extensions: [$($ext:literal),+],
            magic: $magic:expr, magic_text: $magic_text:literal, c_value: $c_value:literal,
            folder: $folder:literal, docs: $docs:literal, fuzz: $fuzz:literal,
            writer: [$($($writer:ident)::+)?],
            view: $($view:ident)::+, $accessor:ident, $view_doc:literal $(,)?
        }
    )+) => {
        /// The file formats skelmap knows.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Format {
            $( $(#[$doc])* $variant, )+
        }

        impl Format {
            /// Every format, in probe order.
            pub const ALL: &'static [Format] = &[$(Format::$variant),+];

            /// The magic bytes a file of this format starts with: empty for `.anim`, which
            /// has none; for MDL and HMP the prefix every version shares (`MDL`, `HMP`), so
            /// that the versions skelmap does not read are still recognised and refused by
            /// name.
            #[must_use]
            pub fn magic(self) -> &'static [u8] {
                match self {
                    $( Format::$variant => $magic, )+
                }
            }

            /// The magic as the error for a file that lacks it quotes it: every version
            /// skelmap reads, for MDL and HMP.
            #[must_use]
            pub fn magic_text(self) -> &'static str {
                match self {
                    $( Format::$variant => $magic_text, )+
                }
            }

            /// The short name used in messages (`"DPM"`).
            #[must_use]
            pub fn name(self) -> &'static str {
                match self {
                    $( Format::$variant => $name, )+
                }
            }

            /// The file extensions of this format, without the dot, the usual one first.
            /// They are hints: a file is recognised by its content, except a format without
            /// magic ([`Format::detect`]).
            #[must_use]
            pub fn extensions(self) -> &'static [&'static str] {
                match self {
                    $( Format::$variant => &[$($ext),+], )+
                }
            }

            /// The value of the C ABI's `SkelmapFormat` for this format (never reused, never
            /// 0: the C ABI keeps 0 for a format its header does not list).
            #[must_use]
            pub fn c_value(self) -> u32 {
                match self {
                    $( Format::$variant => $c_value, )+
                }
            }

            /// The module folder that reads this format (`src/<folder>/`), which is also the
            /// name of its folder of integration tests.
            #[must_use]
            pub fn folder(self) -> &'static str {
                match self {
                    $( Format::$variant => $folder, )+
                }
            }

            /// One sentence saying what a file of this format opens as (`"A DarkPlaces
            /// model."`), for lists of formats such as the command line's help.
            ///
            /// ```
            /// use skelmap_core::Format;
            /// assert_eq!(Format::Dpm.summary(), "A DarkPlaces model.");
            /// assert!(Format::ALL.iter().all(|f| f.summary().ends_with('.')));
            /// ```
            #[must_use]
            pub fn summary(self) -> &'static str {
                match self {
                    $( Format::$variant => $view_doc, )+
                }
            }

            /// The name of this format's page in `docs/formats/` (without `.md`).
            #[must_use]
            pub fn docs_page(self) -> &'static str {
                match self {
                    $( Format::$variant => $docs, )+
                }
            }

            /// Whether skelmap writes this format (`model::write`).
            #[must_use]
            pub fn writable(self) -> bool {
                match self {
                    $( Format::$variant => !<[&str]>::is_empty(&[$(stringify!($($writer)::+))?]), )+
                }
            }

            /// The name of this format's fuzz target (`fuzz/fuzz_targets/<name>.rs`).
            #[must_use]
            pub fn fuzz_target(self) -> &'static str {
                match self {
                    $( Format::$variant => $fuzz, )+
                }
            }
        }
    };
}

format_table!(declare_format);

impl Format {
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
            .find(|f| !f.magic().is_empty() && data.starts_with(f.magic()))
            .or_else(|| starts_with_md5_keyword(data).then_some(Format::Md5))
            // A Half-Life sequence group is its model's companion; its reader says so.
            .or_else(|| data.starts_with(b"IDSQ").then_some(Format::Hl1))?;
        // SKM and SKP share their magic; the header layout tells them apart.
        if format == Format::Skm && looks_like_skp(data) {
            return Some(Format::Skp);
        }
        Some(format)
    }

    /// Recognises `data` by its magic, or, when no magic matches, by `extension` (without the
    /// dot, any case) for the formats that have no magic (the SL `.anim`). Data whose first
    /// four bytes are text is not taken for a format without magic: those start with a binary
    /// count, and other games' text files share their extension (Enemy Territory's `.anim`
    /// animation groups).
    ///
    /// ```
    /// use skelmap_core::Format;
    /// assert_eq!(Format::detect(b"\x01\0\0\0", Some("ANIM")), Some(Format::SlAnim));
    /// assert_eq!(Format::detect(b"MS3D000000\x04\0\0\0", Some("anim")), Some(Format::Ms3d));
    /// assert_eq!(Format::detect(b"\x01\0\0\0", Some("dpm")), None);
    /// assert_eq!(Format::detect(b"animgroup\n{", Some("anim")), None);
    /// ```
    #[must_use]
    pub fn detect(data: &[u8], extension: Option<&str>) -> Option<Format> {
        Format::sniff(data).or_else(|| {
            let text = |b: &u8| b.is_ascii_graphic() || b.is_ascii_whitespace();
            if data.get(..4).is_some_and(|head| head.iter().all(text)) {
                return None;
            }
            let extension = extension?;
            Format::ALL.iter().copied().find(|f| {
                f.magic().is_empty()
                    && f.extensions()
                        .iter()
                        .any(|e| e.eq_ignore_ascii_case(extension))
            })
        })
    }

    /// The usual file extension, without the dot.
    #[must_use]
    pub fn extension(self) -> &'static str {
        self.extensions().first().copied().unwrap_or_default()
    }

    /// Every extension some format uses, without the dot, each once, in the order of
    /// [`Format::ALL`]: the files a directory walk looks at.
    ///
    /// ```
    /// let all: Vec<_> = skelmap_core::Format::all_extensions().collect();
    /// assert!(all.contains(&"dpm") && all.contains(&"anim"));
    /// assert_eq!(all.iter().filter(|e| **e == "mdl").count(), 1);
    /// ```
    pub fn all_extensions() -> impl Iterator<Item = &'static str> {
        Format::ALL
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.extensions().iter().map(move |e| (i, *e)))
            .filter(|&(i, e)| {
                !Format::ALL[..i]
                    .iter()
                    .any(|earlier| earlier.extensions().contains(&e))
            })
            .map(|(_, e)| e)
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

/// What `data` is, from its first bytes, where they are the magic of a kind of file that game
/// folders hold beside their models and skelmap does not read (a sprite, a map, a texture or
/// file archive): the words [`Error::NotAModel`](crate::Error::NotAModel) gives. `None` for
/// anything else, models included.
///
/// ```
/// use skelmap_core::format::other_kind;
/// assert_eq!(other_kind(b"IDSP\x02\0\0\0"), Some("a Half-Life or Quake sprite (IDSP)"));
/// assert_eq!(other_kind(b"IDPO\x06\0\0\0"), None);
/// ```
#[must_use]
pub fn other_kind(data: &[u8]) -> Option<&'static str> {
    Some(match data.get(..4)? {
        b"IDSP" => "a Half-Life or Quake sprite (IDSP)",
        b"IDS2" => "a Quake II sprite (IDS2)",
        b"IBSP" => "a Quake II or Quake III map (IBSP)",
        b"VBSP" => "a Source map (VBSP)",
        b"WAD2" => "a Quake texture archive (WAD2)",
        b"WAD3" => "a Half-Life texture archive (WAD3)",
        b"PACK" => "a Quake or Quake II file archive (PACK)",
        b"PK\x03\x04" => "a zip archive (a .pk3, .pk4 or .zip)",
        _ => return None,
    })
}

/// `true` if the first token of `data`, after a UTF-8 byte-order mark, white space and `//` or
/// `/* */` comments, is [`MD5_MAGIC`] (Doom 3's lexer skips them, and a file may open with a
/// comment), or `commandline`, where Tesseract's exporter starts a file without the version
/// line. Looks at most [`MD5_SNIFF_BYTES`] bytes.
#[must_use]
pub fn starts_with_md5_keyword(data: &[u8]) -> bool {
    let data = data.get(..MD5_SNIFF_BYTES).unwrap_or(data);
    let mut rest = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    loop {
        rest = rest.trim_ascii_start();
        if let Some(line) = rest.strip_prefix(b"//") {
            let end = line.iter().position(|&b| b == b'\n').unwrap_or(line.len());
            rest = line.get(end..).unwrap_or_default();
        } else if let Some(block) = rest.strip_prefix(b"/*") {
            let Some(end) = block.windows(2).position(|w| w == b"*/") else {
                return false;
            };
            rest = block.get(end + 2..).unwrap_or_default();
        } else {
            let commandline = rest
                .get(..MD5_COMMANDLINE.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(MD5_COMMANDLINE))
                && rest
                    .get(MD5_COMMANDLINE.len())
                    .is_some_and(|&b| b.is_ascii_whitespace() || b == b'"');
            return rest.starts_with(MD5_MAGIC) || commandline;
        }
    }
}

/// The keyword that follows `MD5Version 10`, and opens a file written without it.
const MD5_COMMANDLINE: &[u8] = b"commandline";

/// How far into a file [`starts_with_md5_keyword`] looks for the keyword.
pub const MD5_SNIFF_BYTES: usize = 4096;

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
