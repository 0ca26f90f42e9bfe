//! Skins (textures) embedded in a model or named by it: their kind and size, and the name of
//! an external texture file.

use std::ffi::c_char;

use skelmap_core::gamestudio::{PixelFormat, Skin};

use crate::boundary::{Fail, SkelmapStatus, copy_out, status, value};
use crate::mesh::Strided;
use crate::model::SkelmapModel;

/// What a skin's texels are, as `SkelmapSkinInfo.format` reports it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkelmapPixelFormat {
    /// 8-bit palette indices (a Quake skin: the Quake palette; GameStudio: the level's).
    Palette8 = 1,
    /// 16-bit RGB 5:6:5.
    Rgb565 = 2,
    /// 16-bit ARGB 4:4:4:4.
    Argb4444 = 3,
    /// 24-bit, stored B, G, R.
    Rgb888 = 4,
    /// 32-bit, stored B, G, R, A.
    Argb8888 = 5,
    /// An embedded DDS file.
    Dds = 6,
    /// No texels: another skin of the file (`SkelmapSkinInfo.reference`).
    Reference = 7,
    /// No texels: an external texture file (`skelmap_skin_external_name`).
    External = 8,
}

/// One skin, filled by `skelmap_skin_info`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkelmapSkinInfo {
    /// The type code as stored (GameStudio: pixel format plus flags; Quake: 0 single, 1 a
    /// member of a skin group).
    pub type_code: i32,
    /// A `SkelmapPixelFormat` value.
    pub format: u32,
    /// Width in texels (0 for a reference or an external name; for an embedded DDS file, the
    /// width its header gives, 0 when it does not decode).
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Texel levels: 1, or 4 with mips (0 for a skin without texels).
    pub levels: u32,
    /// 1 when the skin carries a GameStudio material record.
    pub has_material: u32,
    /// The skin this one refers to, or -1. Its texels are that skin's: size an RGBA buffer by
    /// that skin's info.
    pub reference: i32,
}

fn pixel_format(f: PixelFormat) -> SkelmapPixelFormat {
    match f {
        PixelFormat::Palette8 => SkelmapPixelFormat::Palette8,
        PixelFormat::Rgb565 => SkelmapPixelFormat::Rgb565,
        PixelFormat::Argb4444 => SkelmapPixelFormat::Argb4444,
        PixelFormat::Rgb888 => SkelmapPixelFormat::Rgb888,
        PixelFormat::Argb8888 => SkelmapPixelFormat::Argb8888,
        PixelFormat::Dds => SkelmapPixelFormat::Dds,
        PixelFormat::Reference => SkelmapPixelFormat::Reference,
        PixelFormat::External => SkelmapPixelFormat::External,
    }
}

/// Skin `index` of `model`, or the failure naming the count.
fn skin<'a>(model: Option<&'a SkelmapModel>, index: u32) -> Result<&'a Skin<'a>, Fail> {
    let skins = model.ok_or(Fail::null("model"))?.model.skins();
    skins
        .get(index as usize)
        .ok_or_else(|| Fail::out_of_range("skin", index, skins.len() as u64))
}

/// Fills `*out` with skin `index` (`0..SkelmapCounts.skins`, the skins a GameStudio MDL, HMP
/// or MDL7, a Quake model or a Half-Life model embeds; a Quake skin group's images one after
/// another).
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`), or
/// `SKELMAP_STATUS_OUT_OF_RANGE`.
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_skin_info(
    model: Option<&SkelmapModel>,
    index: u32,
    out: Option<&mut SkelmapSkinInfo>,
) -> SkelmapStatus {
    status(|| {
        let out = out.ok_or(Fail::null("out"))?;
        let s = skin(model, index)?;
        // An embedded DDS file: the size its header gives (0 × 0 when it does not decode).
        let (width, height) = match s.dds() {
            Some(file) => skelmap_author::texture::dds_size(file).unwrap_or((0, 0)),
            None => (s.width(), s.height()),
        };
        *out = SkelmapSkinInfo {
            type_code: s.type_code(),
            format: pixel_format(s.format()) as u32,
            width,
            height,
            levels: s.num_levels() as u32,
            has_material: u32::from(s.material().is_some()),
            reference: s.reference().map_or(-1, |r| r as i32),
        };
        Ok(())
    })
}

/// Copies the external texture file name of skin `index` (a reference followed to the skin
/// it names; bytes as stored, without the NUL; a path relative to the model, which skelmap
/// never opens) into `buf` of `len` bytes,
/// NUL-terminated and truncated to `len − 1`, and returns its full length.
///
/// Returns `SIZE_MAX` for a NULL `model` (`SKELMAP_STATUS_NULL_PARAMETER`), an index past
/// `SkelmapCounts.skins` (`SKELMAP_STATUS_OUT_OF_RANGE`), or a skin that names no external
/// file (`SKELMAP_STATUS_WRONG_KIND`), so that a length is never ambiguous.
///
/// # Safety
///
/// `model` is NULL or a live model; `buf` is NULL or valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_skin_external_name(
    model: Option<&SkelmapModel>,
    index: u32,
    buf: *mut c_char,
    len: usize,
) -> usize {
    value(usize::MAX, || {
        skin(model, index)?;
        let m = &model.ok_or(Fail::null("model"))?.model;
        let name = m
            .skin(index as usize)
            .and_then(|s| s.external())
            .ok_or_else(|| Fail::wrong_kind(format!("skin {index} names no external file")))?;
        // SAFETY: forwarded from this function's contract.
        Ok(unsafe { copy_out(name, buf, len) })
    })
}

/// Decodes skin `index` (a reference followed to the skin it names; the first, full-size
/// level) to RGBA8, row by row from the top, into `out`: `capacity` elements (texels, 4 bytes
/// each), at least `width · height` of `SkelmapSkinInfo` (for a reference, of the skin
/// `SkelmapSkinInfo.reference` names). 8-bit skins go through their own palette (a Half-Life
/// texture's), else the Quake palette for a Quake model and a grey ramp for a GameStudio one
/// (whose palette the file does not carry).
///
/// Returns `SKELMAP_STATUS_OK`, `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`),
/// `SKELMAP_STATUS_OUT_OF_RANGE` (`index` ≥ `SkelmapCounts.skins`),
/// `SKELMAP_STATUS_BUFFER_TOO_SMALL`, or `SKELMAP_STATUS_WRONG_KIND` for a skin without
/// texels to decode (an external name, a material only, an embedded DDS file that is not a
/// DXT1, DXT3 or DXT5 image). An embedded DDS file (GameStudio skin types `0x6` and `0x16`)
/// is decoded, its first level, at the size `SkelmapSkinInfo` reports for it.
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writes of `4 · capacity`
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_skin_rgba(
    model: Option<&SkelmapModel>,
    index: u32,
    out: *mut u8,
    capacity: usize,
) -> SkelmapStatus {
    status(|| {
        skin(model, index)?;
        let m = &model.ok_or(Fail::null("model"))?.model;
        let rgba = skelmap_author::texture::skin_image(m, index as usize)
            .map(|image| image.rgba)
            .filter(|p| !p.is_empty())
            .ok_or_else(|| Fail::wrong_kind(format!("skin {index} has no texels to decode")))?;
        // SAFETY: forwarded from this function's contract (tightly packed texels).
        let out =
            unsafe { Strided::<u8, 4>::new(out, 0, capacity, "out") }?.ok_or(Fail::null("out"))?;
        let texels: Vec<[u8; 4]> = rgba
            .chunks_exact(4)
            .map(|t| [t[0], t[1], t[2], t[3]])
            .collect();
        out.write(&texels, "out")
    })
}

#[cfg(test)]
mod tests {
    /// Quake and MDL2 report their formats; skins (a Quake skin group's images, HMP7 external
    /// names) are counted and described, and an external name comes out while `SIZE_MAX` says
    /// "no such name".
    #[test]
    fn skins_formats_and_external_names() {
        use super::*;
        use crate::boundary::SkelmapStatus;
        use crate::model::{
            SkelmapCounts, SkelmapFormat, skelmap_model_counts, skelmap_model_format,
            skelmap_model_free, skelmap_model_open_memory,
        };
        use skelmap_core::gamestudio;
        use skelmap_core::gamestudio::write::SkinDef;
        use skelmap_core::quake;

        let open = |bytes: &[u8]| {
            let mut model = std::ptr::null_mut();
            // SAFETY: `bytes` outlives the model, freed below.
            let s =
                unsafe { skelmap_model_open_memory(bytes.as_ptr(), bytes.len(), 0, &mut model) };
            assert_eq!(s, SkelmapStatus::Ok);
            model
        };
        let quake = quake::Builder::triangle().write();
        let mdl2 = quake::Builder::mdl2_triangle().write();
        for (bytes, format, pixels) in [
            (&quake, SkelmapFormat::Quake, SkelmapPixelFormat::Palette8),
            (&mdl2, SkelmapFormat::Mdl, SkelmapPixelFormat::Rgb565),
        ] {
            let model = open(bytes);
            // SAFETY: a live model, freed at the end of the iteration.
            unsafe {
                let m = Some(&*model);
                assert_eq!(skelmap_model_format(m), format as u32);
                let mut counts = SkelmapCounts::default();
                skelmap_model_counts(m, Some(&mut counts));
                assert_eq!((counts.skins, counts.meshes, counts.vertices), (1, 1, 3));
                let mut info = SkelmapSkinInfo::default();
                skelmap_skin_info(m, 0, Some(&mut info));
                assert_eq!(
                    (info.format, info.width, info.height, info.levels),
                    (pixels as u32, 8, 8, 1)
                );
                assert_eq!(info.reference, -1);
                let n = skelmap_skin_external_name(m, 0, std::ptr::null_mut(), 0);
                assert_eq!(n, usize::MAX);
                skelmap_model_free(model);
            }
        }
        let skin = |code: i32, width: i32, data: &[u8]| SkinDef {
            code,
            width,
            height: 1,
            data: data.to_vec(),
        };
        let hmp = gamestudio::HmpBuilder {
            row: 2.0,
            frames: vec![vec![(0, [0, 0]); 4]],
            skins: vec![skin(7, 10, b"grass.tga\0"), skin(1, 0, b"")],
            ..gamestudio::HmpBuilder::default()
        }
        .write();
        let model = open(&hmp);
        // SAFETY: a live model, freed below; `buf` is 32 writable bytes.
        unsafe {
            let m = Some(&*model);
            let mut buf = [0 as std::ffi::c_char; 32];
            assert_eq!(
                skelmap_skin_external_name(m, 0, buf.as_mut_ptr(), buf.len()),
                9
            );
            let name = std::ffi::CStr::from_ptr(buf.as_ptr());
            assert_eq!(name.to_bytes(), b"grass.tga");
            // A reference is followed to the skin it names (as the RGBA decode does); index 2
            // is out of range: SIZE_MAX, never 0.
            assert_eq!(skelmap_skin_external_name(m, 1, buf.as_mut_ptr(), 32), 9);
            assert_eq!(
                skelmap_skin_external_name(m, 2, buf.as_mut_ptr(), 32),
                usize::MAX
            );
            let mut info = SkelmapSkinInfo::default();
            skelmap_skin_info(m, 1, Some(&mut info));
            assert_eq!(
                (info.format, info.reference),
                (SkelmapPixelFormat::Reference as u32, 0)
            );
            skelmap_skin_info(m, 0, Some(&mut info));
            assert_eq!(info.format, SkelmapPixelFormat::External as u32);
            skelmap_model_free(model);
        }
    }
}
