//! GameStudio skins (textures): the record layouts of MDL3/4, MDL5/HMP5 and HMP7, their
//! validation, and decoding to RGBA8.
//!
//! | code | format | bytes/texel |
//! |---:|---|---:|
//! | 0 | 8-bit palette index | 1 |
//! | 2 | RGB565 | 2 |
//! | 3 | ARGB4444 | 2 |
//! | 4 | RGB888, stored B, G, R | 3 |
//! | 5 | ARGB8888, stored B, G, R, A | 4 |
//! | 6 | an embedded DDS file (MDL5: the width field is its byte length) | — |
//!
//! Bit 3 (`+8`) adds three mip levels (½, ¼, ⅛ per side), allowed only for 16/24/32-bit
//! formats whose sides divide by 8. MDL3/4 skins take their size from the header and allow
//! codes 0, 2, 3; MDL5 and HMP5 skins carry `width, height` and allow 0, 2..=6.
//!
//! HMP7 skins are MDL7-style records; the only kind any public file proves is `0x1C`:
//! RGB888 (`4`) with mips (`0x08`) and a 68-byte material (`0x10`) after the texels. Any
//! other HMP7 skin kind is refused as unsupported rather than guessed.

use zerocopy::byteorder::{I32, LittleEndian};

use super::raw::Mdl7Material;
use crate::error::{Error, Problem, Result};
use crate::format::Format;
use crate::limits::Limits;
use crate::read::Walk;

type Le = LittleEndian;

/// A skin's pixel format.
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
}

impl PixelFormat {
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

    /// Bytes per texel (0 for DDS).
    #[must_use]
    pub fn bytes_per_texel(self) -> u64 {
        match self {
            PixelFormat::Palette8 => 1,
            PixelFormat::Rgb565 | PixelFormat::Argb4444 => 2,
            PixelFormat::Rgb888 => 3,
            PixelFormat::Argb8888 => 4,
            PixelFormat::Dds => 0,
        }
    }
}

/// Which skin record layout a file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkinLayout {
    /// MDL3/MDL4: `type`, texels sized by the header; codes 0, 2, 3.
    Sized { width: u32, height: u32 },
    /// MDL5/HMP5: `type, width, height`, texels, optional mips; codes 0, 2..=6.
    Mdl5,
    /// HMP7: MDL7-style; only `0x1C` is proven.
    Hmp7,
}

/// The HMP7 skin kind real files use: RGB888 + mips + material.
pub const HMP7_SKIN_RGB888_MIPS_MATERIAL: i32 = 0x1C;

/// A validated skin: its type, size and texel levels (zero-copy).
#[derive(Debug, Clone, Copy)]
pub struct Skin<'data> {
    code: i32,
    format: PixelFormat,
    width: u32,
    height: u32,
    levels: [&'data [u8]; 4],
    num_levels: usize,
    material: Option<&'data Mdl7Material>,
}

/// The default palette for 8-bit skins: a grey ramp (index `i` → `(i, i, i)`). GameStudio
/// uses the level's palette, which the model does not carry; pass it to
/// [`Skin::decode_rgba`] when you have it.
#[must_use]
pub fn grey_palette() -> [[u8; 3]; 256] {
    core::array::from_fn(|i| [i as u8; 3])
}

impl<'data> Skin<'data> {
    /// The raw type code (format in the low 3 bits, `+8` for mips; HMP7 flags above).
    #[must_use]
    pub fn type_code(&self) -> i32 {
        self.code
    }

    /// The pixel format.
    #[must_use]
    pub fn format(&self) -> PixelFormat {
        self.format
    }

    /// Width in texels (for DDS: 0).
    #[must_use]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in texels (for DDS: 0).
    #[must_use]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Number of texel levels: 1, or 4 with mips.
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

    /// The MDL7-style material an HMP7 skin carries.
    #[must_use]
    pub fn material(&self) -> Option<&'data Mdl7Material> {
        self.material
    }

    /// Level `i` decoded to RGBA8, row-major, `width · height · 4` bytes (an explicit copy).
    /// 8-bit skins look their indices up in `palette` (alpha 255). `None` for DDS skins and
    /// missing levels.
    #[must_use]
    pub fn decode_rgba(&self, i: usize, palette: &[[u8; 3]; 256]) -> Option<Vec<u8>> {
        let (w, h, texels) = self.level(i)?;
        let n = usize::try_from(u64::from(w) * u64::from(h)).ok()?;
        let mut out = Vec::with_capacity(n.checked_mul(4)?);
        let word = |b: &[u8]| u16::from_le_bytes([b[0], b[1]]);
        let scale = |v: u16, bits: u32| {
            ((u32::from(v) * 255 + ((1 << bits) - 1) / 2) / ((1 << bits) - 1)) as u8
        };
        match self.format {
            PixelFormat::Palette8 => texels.iter().for_each(|&p| {
                let [r, g, b] = palette[usize::from(p)];
                out.extend_from_slice(&[r, g, b, 255]);
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
            PixelFormat::Dds => return None,
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
    let unsupported = |supported| Error::Unsupported {
        format,
        what: "skin.type",
        offset: at,
        value: code.into(),
        supported,
    };
    let invalid = |what, offset, problem| Error::Invalid {
        format,
        what,
        offset,
        problem,
    };
    let mut material_flag = false;
    let (pix, mips, width, height) = match layout {
        SkinLayout::Sized { width, height } => {
            let pix = PixelFormat::from_code(code).filter(|p| {
                matches!(
                    p,
                    PixelFormat::Palette8 | PixelFormat::Rgb565 | PixelFormat::Argb4444
                )
            });
            let Some(pix) = pix.filter(|_| code & !7 == 0) else {
                return Err(unsupported("MDL3/4 skins are type 0, 2 or 3"));
            };
            (pix, false, width, height)
        }
        SkinLayout::Mdl5 | SkinLayout::Hmp7 => {
            let (pix, mips) = match layout {
                SkinLayout::Hmp7 if code == HMP7_SKIN_RGB888_MIPS_MATERIAL => {
                    material_flag = true;
                    (PixelFormat::Rgb888, true)
                }
                SkinLayout::Hmp7 => {
                    return Err(unsupported(
                        "HMP7 skins are type 0x1c (RGB888, mips, material), the only one real files show",
                    ));
                }
                _ => match PixelFormat::from_code(code).filter(|_| (0..16).contains(&code)) {
                    Some(pix) => (pix, code & 8 != 0),
                    None => {
                        return Err(unsupported("MDL5 skins are type 0 or 2..=6, +8 for mips"));
                    }
                },
            };
            let w = walk.read::<I32<Le>>("skin.width")?.get();
            let h = walk.read::<I32<Le>>("skin.height")?.get();
            let dim = |v: i32, what, off| {
                u32::try_from(v)
                    .ok()
                    .filter(|&v| v > 0)
                    .ok_or_else(|| invalid(what, off, Problem::NotPositive { value: v.into() }))
            };
            let width = dim(w, "skin.width", at + 4)?;
            let height = if pix == PixelFormat::Dds {
                0
            } else {
                dim(h, "skin.height", at + 8)?
            };
            (pix, mips, width, height)
        }
    };
    if pix == PixelFormat::Dds {
        if mips {
            return Err(unsupported("DDS skins (type 6) have no mip flag"));
        }
        let blob = walk.read_slice::<u8>("skin.dds", width.into())?;
        return Ok(Skin {
            code,
            format: pix,
            width: 0,
            height: 0,
            levels: [blob, &[], &[], &[]],
            num_levels: 1,
            material: None,
        });
    }
    let max = limits.max_skin_dimension;
    if width > max || height > max {
        return Err(Error::Limit {
            format,
            what: "skin size",
            offset: at,
            value: width.max(height).into(),
            max: max.into(),
        });
    }
    if mips && (pix == PixelFormat::Palette8 || width % 8 != 0 || height % 8 != 0) {
        return Err(invalid("skin.type", at, Problem::Mips));
    }
    let mut levels: [&'data [u8]; 4] = [&[]; 4];
    let num_levels = if mips { 4 } else { 1 };
    for (i, level) in levels.iter_mut().enumerate().take(num_levels) {
        let texels = u64::from(width >> i) * u64::from(height >> i) * pix.bytes_per_texel();
        *level = walk.read_slice::<u8>("skin.texels", texels)?;
    }
    let material = if material_flag {
        Some(walk.read::<Mdl7Material>("skin.material")?)
    } else {
        None
    };
    Ok(Skin {
        code,
        format: pix,
        width,
        height,
        levels,
        num_levels,
        material,
    })
}
