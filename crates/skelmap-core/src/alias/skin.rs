//! GameStudio skins (textures): the record layouts of MDL2/3/4, MDL5/HMP5, HMP7 and MDL7,
//! their validation, and decoding to RGBA8 (Quake's and Half-Life's 8-bit skins through the
//! same decoder).
//!
//! | code | format | bytes/texel |
//! |---:|---|---:|
//! | 0 | 8-bit palette index | 1 |
//! | 2 | RGB565 | 2 |
//! | 3 | ARGB4444 | 2 |
//! | 4 | RGB888, stored B, G, R | 3 |
//! | 5 | ARGB8888, stored B, G, R, A | 4 |
//! | 6 | an embedded DDS file (the width field is its byte length) | — |
//!
//! Bit 3 (`+8`) adds three mip levels (½, ¼, ⅛ per side), allowed only for 16/24/32-bit
//! formats whose sides divide by 8. MDL2/3/4 skins take their size from the header and allow
//! codes 0, 2, 3; MDL5 and HMP5 skins carry `width, height` and allow 0, 2..=6.
//!
//! ## HMP7 (MDL7-style) skins: a bit field
//!
//! An HMP7 skin record is `i32 type, i32 width, i32 height` and a payload the type describes.
//! The low three bits give the kind, the bits above say what follows it:
//!
//! | bits | meaning | payload, in this order |
//! |---|---|---|
//! | `0`, `2..=5` | texels | `width · height · bytes/texel`; `width = height = 0` carries no texture (a material only) |
//! | `6` | an embedded DDS file | `width` bytes (`height` is not read) |
//! | `1` | a reference to another skin | none; `width` is that skin's index |
//! | `7` | an external texture file | its name: `width` bytes, NUL-terminated; `height` 1 |
//! | `0x08` | three mip levels | after the texels |
//! | `0x10` | a material ([`Mdl7Material`], 68 bytes) | after the texels and mips |
//! | `0x20` | a material definition in text | `i32 length`, then `length` bytes, after the material |
//!
//! Other bits (`0x40` and up, including the `0x80` some documents list without a meaning)
//! are refused as unsupported, naming the value and its offset. The public terrains use
//! `0x02`, `0x04`, `0x06`, `0x0C` and `0x1C`; external names and `0x10` materials appear in
//! public MDL7 files, which share the record.

use zerocopy::byteorder::{I32, LittleEndian};

use super::raw::{
    MAX_EXTERNAL_NAME, Mdl7Material, SKINTYPE_ASCII_DEFINITION, SKINTYPE_FLAGS, SKINTYPE_MATERIAL,
    SKINTYPE_MIPS,
};
use crate::error::{Error, Problem, Result};
use crate::floatbits::{Masks, flat, raw};
use crate::format::Format;
use crate::limits::Limits;
use crate::read::Walk;
use crate::rules;

type Le = LittleEndian;

/// A skin's pixel format, or what it holds instead of texels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PixelFormat {
    /// 8-bit index into a caller-supplied palette.
    Palette8,
    /// 16-bit RGB 5:6:5.
    Rgb565,
    /// 16-bit ARGB 4:4:4:4.
    Argb4444,
    /// 24-bit, stored B, G, R.
    Rgb888,
    /// 32-bit, stored B, G, R, A.
    Argb8888,
    /// An embedded DDS file.
    Dds,
    /// No texels: a reference to another skin of the file ([`Skin::reference`]).
    Reference,
    /// No texels: the name of an external texture file ([`Skin::external`]).
    External,
}

impl PixelFormat {
    /// The texel format of the low three bits of a type code; `None` for 1 (reference) and 7
    /// (external), which only HMP7 records have.
    fn from_code(code: i32) -> Option<PixelFormat> {
        Some(match code & 7 {
            0 => PixelFormat::Palette8,
            2 => PixelFormat::Rgb565,
            3 => PixelFormat::Argb4444,
            4 => PixelFormat::Rgb888,
            5 => PixelFormat::Argb8888,
            6 => PixelFormat::Dds,
            _ => return None,
        })
    }

    /// Bytes per texel (0 for a DDS file, a reference and an external name).
    #[must_use]
    pub fn bytes_per_texel(self) -> u64 {
        match self {
            PixelFormat::Palette8 => 1,
            PixelFormat::Rgb565 | PixelFormat::Argb4444 => 2,
            PixelFormat::Rgb888 => 3,
            PixelFormat::Argb8888 => 4,
            PixelFormat::Dds | PixelFormat::Reference | PixelFormat::External => 0,
        }
    }

    /// The name `info --json` and the C ABI use: `palette8`, `rgb565`, `argb4444`, `rgb888`,
    /// `argb8888`, `dds`, `reference` or `external`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            PixelFormat::Palette8 => "palette8",
            PixelFormat::Rgb565 => "rgb565",
            PixelFormat::Argb4444 => "argb4444",
            PixelFormat::Rgb888 => "rgb888",
            PixelFormat::Argb8888 => "argb8888",
            PixelFormat::Dds => "dds",
            PixelFormat::Reference => "reference",
            PixelFormat::External => "external",
        }
    }
}

/// Which skin record layout a file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkinLayout {
    /// MDL2/3/4: `type`, texels sized by the header; codes 0, 2, 3.
    Sized { width: u32, height: u32 },
    /// MDL5/HMP5: `type, width, height`, texels, optional mips; codes 0, 2..=6.
    Mdl5,
    /// HMP7: MDL7-style, the type a bit field (see the module docs); `index` is this skin's,
    /// `count` the file's, so that a reference can be checked.
    Hmp7 { index: u32, count: u32 },
    /// MDL7: as HMP7, with a 16-byte name after `width, height`.
    Mdl7 { index: u32, count: u32 },
}

/// A validated skin: its type, size and texel levels, or what it refers to (zero-copy).
#[derive(Debug, Clone, Copy)]
pub struct Skin<'data> {
    code: i32,
    format: PixelFormat,
    width: u32,
    height: u32,
    levels: [&'data [u8]; 4],
    num_levels: usize,
    material: Option<&'data Mdl7Material>,
    definition: Option<&'data [u8]>,
    external: Option<&'data [u8]>,
    reference: Option<u32>,
    name: &'data [u8],
    /// The palette the skin carries itself (a Half-Life texture's, after its pixels), which
    /// [`Skin::decode_rgba`] uses instead of the one it is given.
    palette: Option<&'data [[u8; 3]; 256]>,
    /// The palette index drawn transparent (a Half-Life masked texture's 255).
    transparent: Option<u8>,
}

/// The default palette for 8-bit GameStudio skins: a grey ramp (index `i` → `(i, i, i)`).
/// GameStudio uses the level's palette, which the model does not carry; pass it to
/// [`Skin::decode_rgba`] when you have it.
#[must_use]
pub fn grey_palette() -> [[u8; 3]; 256] {
    core::array::from_fn(|i| [i as u8; 3])
}

impl<'data> Skin<'data> {
    /// A skin of `format`, `width × height`, without texels yet.
    fn new(code: i32, format: PixelFormat, width: u32, height: u32) -> Skin<'data> {
        Skin {
            code,
            format,
            width,
            height,
            levels: [&[]; 4],
            num_levels: 0,
            material: None,
            definition: None,
            external: None,
            reference: None,
            name: &[],
            palette: None,
            transparent: None,
        }
    }

    /// An 8-bit palettised `width × height` image of type `code` (a Quake skin).
    pub(crate) fn indexed(code: i32, width: u32, height: u32, texels: &'data [u8]) -> Skin<'data> {
        let mut skin = Skin::new(code, PixelFormat::Palette8, width, height);
        skin.levels[0] = texels;
        skin.num_levels = 1;
        skin
    }

    /// An 8-bit `width × height` image named `name` that carries its own `palette` (a
    /// Half-Life texture), with `transparent` its index drawn transparent if any; `code` is
    /// the format's flags.
    pub(crate) fn indexed_with_palette(
        code: i32,
        (width, height): (u32, u32),
        texels: &'data [u8],
        (palette, transparent): (&'data [[u8; 3]; 256], Option<u8>),
        name: &'data [u8],
    ) -> Skin<'data> {
        let mut skin = Skin::indexed(code, width, height, texels);
        skin.palette = Some(palette);
        skin.transparent = transparent;
        skin.name = name;
        skin
    }

    /// The palette index an 8-bit skin draws transparent, if any: 255 for a Half-Life
    /// texture flagged `STUDIO_NF_MASKED`. [`Skin::decode_rgba`] gives its texels alpha 0.
    #[must_use]
    pub fn transparent_index(&self) -> Option<u8> {
        self.transparent
    }

    /// The palette the skin carries itself, if any (Half-Life's textures each have one).
    #[must_use]
    pub fn palette(&self) -> Option<&'data [[u8; 3]; 256]> {
        self.palette
    }

    /// The raw type code (format in the low 3 bits, `+8` for mips; HMP7 flags above).
    #[must_use]
    pub fn type_code(&self) -> i32 {
        self.code
    }

    /// The pixel format, or [`PixelFormat::Reference`] / [`PixelFormat::External`].
    #[must_use]
    pub fn format(&self) -> PixelFormat {
        self.format
    }

    /// Width in texels (0 for DDS, references, external names and material-only skins).
    #[must_use]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in texels (0 for DDS, references, external names and material-only skins).
    #[must_use]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Number of texel levels: 1, or 4 with mips; 0 for a skin without texels (a reference,
    /// an external name, a material only). A DDS skin has one level: the file.
    #[must_use]
    pub fn num_levels(&self) -> usize {
        self.num_levels
    }

    /// Level `i` (0 = full size): `(width, height, texels)`.
    #[must_use]
    pub fn level(&self, i: usize) -> Option<(u32, u32, &'data [u8])> {
        if i >= self.num_levels {
            return None;
        }
        Some((self.width >> i, self.height >> i, *self.levels.get(i)?))
    }

    /// The embedded DDS file, for DDS skins.
    #[must_use]
    pub fn dds(&self) -> Option<&'data [u8]> {
        (self.format == PixelFormat::Dds).then_some(self.levels[0])
    }

    /// The file name of an external texture (HMP7 kind 7), without its NUL: non-empty bytes
    /// as stored, never read by skelmap, usually relative to the model.
    #[must_use]
    pub fn external(&self) -> Option<&'data [u8]> {
        self.external
    }

    /// The index of the skin this one refers to (HMP7 kind 1): proven below the file's skin
    /// count and other than this skin's own.
    #[must_use]
    pub fn reference(&self) -> Option<u32> {
        self.reference
    }

    /// Moves a reference to skin `i` of a group to skin `first + i` of the file (MDL7 groups
    /// number their skins from 0; the file lists every group's one after another).
    pub(crate) fn offset_reference(&mut self, first: u32) {
        if let Some(target) = &mut self.reference {
            *target += first;
        }
    }

    /// The skin's name without its NUL padding (MDL7 skins have one; empty for the others).
    #[must_use]
    pub fn name(&self) -> &'data [u8] {
        self.name
    }

    /// The MDL7-style material an HMP7 skin may carry (flag `0x10`; every value finite).
    #[must_use]
    pub fn material(&self) -> Option<&'data Mdl7Material> {
        self.material
    }

    /// The text material definition an HMP7 skin may carry (flag `0x20`), as stored.
    #[must_use]
    pub fn definition(&self) -> Option<&'data [u8]> {
        self.definition
    }

    /// Level `i` decoded to RGBA8, row-major, `width · height · 4` bytes (an explicit copy).
    /// 8-bit skins look their indices up in `palette` (alpha 255, 0 for the
    /// [`transparent_index`](Skin::transparent_index)), or in their own
    /// [`palette`](Skin::palette) where they carry one. `None` for DDS skins,
    /// skins without texels and missing levels.
    #[must_use]
    pub fn decode_rgba(&self, i: usize, palette: &[[u8; 3]; 256]) -> Option<Vec<u8>> {
        let (w, h, texels) = self.level(i)?;
        let n = usize::try_from(u64::from(w) * u64::from(h)).ok()?;
        let mut out = Vec::with_capacity(n.checked_mul(4)?);
        let word = |b: &[u8]| u16::from_le_bytes([b[0], b[1]]);
        let scale = |v: u16, bits: u32| {
            ((u32::from(v) * 255 + ((1 << bits) - 1) / 2) / ((1 << bits) - 1)) as u8
        };
        let palette = self.palette.unwrap_or(palette);
        match self.format {
            PixelFormat::Palette8 => texels.iter().for_each(|&p| {
                let [r, g, b] = palette[usize::from(p)];
                let a = if Some(p) == self.transparent { 0 } else { 255 };
                out.extend_from_slice(&[r, g, b, a]);
            }),
            PixelFormat::Rgb565 => texels.chunks_exact(2).map(word).for_each(|v| {
                out.extend_from_slice(&[
                    scale(v >> 11, 5),
                    scale((v >> 5) & 63, 6),
                    scale(v & 31, 5),
                    255,
                ]);
            }),
            PixelFormat::Argb4444 => texels.chunks_exact(2).map(word).for_each(|v| {
                let c = |shift: u16| ((v >> shift) & 15) as u8 * 17;
                out.extend_from_slice(&[c(8), c(4), c(0), c(12)]);
            }),
            PixelFormat::Rgb888 => texels
                .chunks_exact(3)
                .for_each(|t| out.extend_from_slice(&[t[2], t[1], t[0], 255])),
            PixelFormat::Argb8888 => texels
                .chunks_exact(4)
                .for_each(|t| out.extend_from_slice(&[t[2], t[1], t[0], t[3]])),
            PixelFormat::Dds | PixelFormat::Reference | PixelFormat::External => return None,
        }
        Some(out)
    }
}

/// Reads and validates one skin record of `layout` from `walk`.
pub(crate) fn read_skin<'data>(
    walk: &mut Walk<'data>,
    layout: SkinLayout,
    format: Format,
    limits: &Limits,
) -> Result<Skin<'data>> {
    let at = walk.offset();
    let code = walk.read::<I32<Le>>("skin.type")?.get();
    let named = matches!(layout, SkinLayout::Mdl7 { .. });
    let record = Record {
        at,
        code,
        format,
        named,
    };
    match layout {
        SkinLayout::Sized { width, height } => {
            let pix = PixelFormat::from_code(code).filter(|p| {
                code & !7 == 0
                    && matches!(
                        p,
                        PixelFormat::Palette8 | PixelFormat::Rgb565 | PixelFormat::Argb4444
                    )
            });
            let Some(pix) = pix else {
                return Err(record.unsupported("MDL2/3/4 skins are type 0, 2 or 3"));
            };
            record.texels(walk, limits, pix, [width, height], false)
        }
        SkinLayout::Mdl5 => {
            let Some(pix) = PixelFormat::from_code(code).filter(|_| (0..16).contains(&code)) else {
                return Err(record.unsupported("MDL5 skins are type 0 or 2..=6, +8 for mips"));
            };
            let size = record.size(walk, pix)?;
            if size[0] == 0 || (size[1] == 0 && pix != PixelFormat::Dds) {
                return Err(record.zero_size(size));
            }
            record.texels(walk, limits, pix, size, code & SKINTYPE_MIPS != 0)
        }
        SkinLayout::Hmp7 { index, count } | SkinLayout::Mdl7 { index, count } => {
            record.mdl7(walk, limits, [index, count])
        }
    }
}

/// The type of a skin record being read, where it starts, and the file's format.
#[derive(Debug, Clone, Copy)]
struct Record {
    at: u64,
    code: i32,
    format: Format,
    /// MDL7: a 16-byte name follows `width, height`.
    named: bool,
}

impl Record {
    fn unsupported(self, supported: &'static str) -> Error {
        Error::Unsupported {
            format: self.format,
            what: "skin.type",
            offset: self.at,
            value: self.code.into(),
            supported,
        }
    }

    fn invalid(self, what: &'static str, offset: u64, problem: Problem) -> Error {
        Error::Invalid {
            format: self.format,
            what,
            offset,
            problem,
        }
    }

    /// The error for a size with a zero side (the first zero field named).
    fn zero_size(self, [width, height]: [u32; 2]) -> Error {
        let (what, offset, value) = if width == 0 {
            ("skin.width", self.at + 4, width)
        } else {
            ("skin.height", self.at + 8, height)
        };
        self.invalid(
            what,
            offset,
            Problem::NotPositive {
                value: value.into(),
            },
        )
    }

    /// The record's `width, height`, each non-negative; a DDS skin's height is not read (its
    /// width is the file's length).
    fn size(self, walk: &mut Walk<'_>, pix: PixelFormat) -> Result<[u32; 2]> {
        let (dims, _) = self.dims(walk)?;
        self.checked_size(pix, dims)
    }

    /// `width, height` as stored, each non-negative; a DDS skin's height is not read.
    fn checked_size(self, pix: PixelFormat, [w, h]: [i32; 2]) -> Result<[u32; 2]> {
        let width = rules::non_negative(self.format, "skin.width", self.at + 4, w)?;
        let height = if pix == PixelFormat::Dds {
            0
        } else {
            rules::non_negative(self.format, "skin.height", self.at + 8, h)?
        };
        Ok([width, height])
    }

    /// The record's `width, height` as stored, and (MDL7) its name without NUL padding.
    fn dims<'data>(self, walk: &mut Walk<'data>) -> Result<([i32; 2], &'data [u8])> {
        let w = walk.read::<I32<Le>>("skin.width")?.get();
        let h = walk.read::<I32<Le>>("skin.height")?.get();
        let name = if self.named {
            crate::name::trim_nul(walk.read::<[u8; 16]>("skin.texture_name")?)
        } else {
            &[]
        };
        Ok(([w, h], name))
    }

    /// The texels of a `width × height` skin of `pix` (with three mip levels when `mips`), or
    /// the DDS file of `width` bytes; `0 × 0` is a skin without texels.
    fn texels<'data>(
        self,
        walk: &mut Walk<'data>,
        limits: &Limits,
        pix: PixelFormat,
        [width, height]: [u32; 2],
        mips: bool,
    ) -> Result<Skin<'data>> {
        if pix == PixelFormat::Dds {
            if mips {
                return Err(self.unsupported("DDS skins (type 6) have no mip flag"));
            }
            if width == 0 {
                return Err(self.zero_size([width, height]));
            }
            let mut skin = Skin::new(self.code, pix, 0, 0);
            skin.levels[0] = walk.read_slice::<u8>("skin.dds", width.into())?;
            skin.num_levels = 1;
            return Ok(skin);
        }
        let max = limits.max_skin_dimension;
        if width > max || height > max {
            return Err(Error::Limit {
                format: self.format,
                what: "skin size",
                offset: self.at,
                value: width.max(height).into(),
                max: max.into(),
            });
        }
        let mut skin = Skin::new(self.code, pix, width, height);
        if width == 0 && height == 0 && !mips {
            return Ok(skin);
        }
        if width == 0 || height == 0 {
            return Err(self.zero_size([width, height]));
        }
        if mips && (pix == PixelFormat::Palette8 || width % 8 != 0 || height % 8 != 0) {
            return Err(self.invalid("skin.type", self.at, Problem::Mips));
        }
        skin.num_levels = if mips { 4 } else { 1 };
        for (i, level) in skin.levels.iter_mut().enumerate().take(skin.num_levels) {
            let texels = u64::from(width >> i) * u64::from(height >> i) * pix.bytes_per_texel();
            *level = walk.read_slice::<u8>("skin.texels", texels)?;
        }
        Ok(skin)
    }

    /// An HMP7 (MDL7-style) record: the kind, its payload, then the flags' payloads;
    /// `[index, count]` place the skin among the file's.
    fn mdl7<'data>(
        self,
        walk: &mut Walk<'data>,
        limits: &Limits,
        [index, count]: [u32; 2],
    ) -> Result<Skin<'data>> {
        let code = self.code;
        if code < 0 || code & !SKINTYPE_FLAGS != 0 {
            return Err(self.unsupported(
                "HMP7 skin types are a kind in bits 0..=2 and the flags 0x08 (mips), 0x10 \
                 (material) and 0x20 (material text)",
            ));
        }
        let mips = code & SKINTYPE_MIPS != 0;
        let ([w, h], name) = self.dims(walk)?;
        let mut skin = match PixelFormat::from_code(code) {
            Some(pix) => {
                let size = self.checked_size(pix, [w, h])?;
                self.texels(walk, limits, pix, size, mips)?
            }
            None if code & 7 == 1 => {
                // A reference to another skin of the file: `width` is its index.
                if mips {
                    return Err(self.unsupported("a reference (type 1) has no mip flag"));
                }
                let target = rules::non_negative(self.format, "skin.width", self.at + 4, w)?;
                if target >= count || target == index {
                    let problem = Problem::Index {
                        index: target.into(),
                        len: count.into(),
                    };
                    return Err(self.invalid("skin.width", self.at + 4, problem));
                }
                let mut skin = Skin::new(code, PixelFormat::Reference, 0, 0);
                skin.reference = Some(target);
                skin
            }
            None => {
                // An external texture: `width` bytes of name, NUL-terminated; `height` 1.
                if mips {
                    return Err(self.unsupported("an external texture (type 7) has no mip flag"));
                }
                let len = rules::non_negative(self.format, "skin.width", self.at + 4, w)?;
                if len == 0 {
                    return Err(self.invalid("skin.width", self.at + 4, Problem::Empty));
                }
                if len > MAX_EXTERNAL_NAME {
                    let problem = Problem::AboveMaximum {
                        value: len.into(),
                        max: MAX_EXTERNAL_NAME.into(),
                    };
                    return Err(self.invalid("skin.width", self.at + 4, problem));
                }
                if h != 1 {
                    let problem = Problem::Mismatch {
                        value: u64::from(h as u32),
                        expected: 1,
                    };
                    return Err(self.invalid("skin.height", self.at + 8, problem));
                }
                let name_at = walk.offset();
                let bytes = walk.read_slice::<u8>("skin.texture_name", len.into())?;
                let name = crate::name::trim_nul(bytes);
                if name.len() == bytes.len() {
                    let problem = Problem::Unterminated { len: len.into() };
                    return Err(self.invalid("skin.texture_name", name_at, problem));
                }
                if name.is_empty() {
                    return Err(self.invalid("skin.texture_name", name_at, Problem::Empty));
                }
                let mut skin = Skin::new(code, PixelFormat::External, 0, 0);
                skin.external = Some(name);
                skin
            }
        };
        if code & SKINTYPE_MATERIAL != 0 {
            let material_at = walk.offset();
            let material = walk.read::<Mdl7Material>("skin.material")?;
            let masks = Masks::of::<Le>();
            let values = flat::<Le, _>(core::slice::from_ref(material));
            if let Some(k) = values.iter().position(|&v| masks.non_finite(raw(v))) {
                let offset = material_at + 4 * k as u64;
                return Err(self.invalid("skin.material", offset, Problem::NotFinite));
            }
            skin.material = Some(material);
        }
        if code & SKINTYPE_ASCII_DEFINITION != 0 {
            let length_at = walk.offset();
            let length = walk.read::<I32<Le>>("skin.definition_length")?.get();
            let length =
                rules::non_negative(self.format, "skin.definition_length", length_at, length)?;
            skin.definition = Some(walk.read_slice::<u8>("skin.definition", length.into())?);
        }
        skin.name = name;
        Ok(skin)
    }
}
