//! Materials: the base colour factor, the base colour texture decoded to RGBA8, and the
//! alpha cutoff of a `MASK` material.

use std::collections::HashMap;
use std::path::Path;

use gltf::json::material::AlphaMode;
use gltf::json::validation::Checked::Valid;
use skelmap_core::asset::{Image, Material};

use super::access::Doc;
use super::error::{Error, Result};
use super::source::{UriError, uri_bytes};
use super::{MAX_FILE_BYTES, MAX_IMAGE_BYTES, MAX_IMAGE_SIDE};

/// Every material, and the images their base colour textures show (each decoded once).
pub(crate) fn materials(
    doc: &mut Doc<'_>,
    base: Option<&Path>,
) -> Result<(Vec<Material>, Vec<Image>)> {
    let mut images: Vec<Image> = Vec::new();
    let mut decoded: Vec<Option<usize>> = vec![None; doc.root.images.len()];
    // Each decoded image by where its bytes come from, so that images naming the same bytes
    // are decoded once, as the same image is.
    let mut by_source: HashMap<Source, usize> = HashMap::new();
    let mut decoded_bytes = 0u64;
    let mut files_read = 0u64;
    let mut materials = Vec::with_capacity(doc.root.materials.len());
    for i in 0..doc.root.materials.len() {
        let (name, factor, texture, alpha_cutoff) = {
            let m = &doc.root.materials[i];
            let pbr = &m.pbr_metallic_roughness;
            // Only `MASK` is kept: the formats written from an asset draw texels or not.
            let mask = m.alpha_mode == Valid(AlphaMode::Mask);
            (
                m.name.clone().unwrap_or_else(|| format!("material {i}")),
                pbr.base_color_factor.0,
                pbr.base_color_texture.as_ref().map(|t| t.index.value()),
                mask.then(|| m.alpha_cutoff.map_or(0.5, |c| c.0)),
            )
        };
        let error = |field, problem| Error::Material {
            index: i,
            field,
            problem,
        };
        if alpha_cutoff.is_some_and(|c| !(c >= 0.0 && c.is_finite())) {
            return Err(error(
                "alphaCutoff",
                "not a finite number at least 0".into(),
            ));
        }
        if !factor.iter().all(|c| c.is_finite()) {
            return Err(error(
                "pbrMetallicRoughness.baseColorFactor",
                "not finite".into(),
            ));
        }
        let mut external = None;
        let image = match texture {
            None => None,
            Some(t) => {
                let texture = doc.root.textures.get(t).ok_or_else(|| {
                    error(
                        "pbrMetallicRoughness.baseColorTexture",
                        format!(
                            "texture {t} does not exist ({} textures)",
                            doc.root.textures.len()
                        ),
                    )
                })?;
                let source = texture.source.value();
                // `source` is optional: a texture whose image only an extension names
                // (`EXT_texture_webp`, `KHR_texture_basisu`) has none here (the `gltf`
                // crate's mark), and the material keeps its colour alone.
                if source == u32::MAX as usize {
                    None
                } else {
                    let slot = decoded.get(source).copied().ok_or_else(|| Error::Texture {
                        index: t,
                        field: "source",
                        problem: format!(
                            "image {source} does not exist ({} images)",
                            doc.root.images.len()
                        ),
                    })?;
                    let key = Source::of(doc, source);
                    match slot.or_else(|| by_source.get(&key).copied()) {
                        Some(k) => {
                            decoded[source] = Some(k);
                            Some(k)
                        }
                        None => match decode(doc, source, base, &mut files_read)? {
                            // Not there: the material keeps its URI.
                            None => {
                                external = doc.root.images.get(source).and_then(|i| i.uri.clone());
                                None
                            }
                            Some(image) => {
                                // A JPEG is kept as well, to be written as it came.
                                decoded_bytes += image.rgba.len() as u64;
                                decoded_bytes += image.jpeg.as_ref().map_or(0, |j| j.len() as u64);
                                if decoded_bytes > MAX_IMAGE_BYTES {
                                    return Err(Error::Limit {
                                        what: "bytes of decoded images and kept JPEG files",
                                        found: decoded_bytes,
                                        limit: MAX_IMAGE_BYTES,
                                    });
                                }
                                images.push(image);
                                decoded[source] = Some(images.len() - 1);
                                by_source.insert(key, images.len() - 1);
                                Some(images.len() - 1)
                            }
                        },
                    }
                }
            }
        };
        materials.push(Material {
            name,
            base_color: factor.map(|c| c.clamp(0.0, 1.0)),
            image,
            external,
            texture: None,
            alpha_cutoff,
        });
    }
    Ok((materials, images))
}

/// Where an image's bytes come from, and the MIME type its format is told by: two images
/// alike in these decode alike.
#[derive(PartialEq, Eq, Hash)]
struct Source {
    view: Option<usize>,
    uri: Option<String>,
    mime: Option<String>,
}

impl Source {
    fn of(doc: &Doc<'_>, index: usize) -> Source {
        let image = doc.root.images.get(index);
        Source {
            view: image.and_then(|i| i.buffer_view).map(|v| v.value()),
            uri: image.and_then(|i| i.uri.clone()),
            mime: image
                .and_then(|i| i.mime_type.as_ref())
                .map(|m| m.0.clone()),
        }
    }
}

/// Image `index` decoded to RGBA8, its format from its MIME type, its bytes, or its file
/// name; at most [`MAX_IMAGE_SIDE`] pixels a side. `None` for a file that cannot be looked
/// for (no `base`) or is not there: the material then keeps its URI. The bytes of the files
/// read for images are counted in `files_read`, at most [`MAX_FILE_BYTES`] in all.
fn decode(
    doc: &Doc<'_>,
    index: usize,
    base: Option<&Path>,
    files_read: &mut u64,
) -> Result<Option<Image>> {
    let error = |field, problem| Error::Image {
        index,
        field,
        problem,
    };
    let (view, uri, mime) = {
        let image = &doc.root.images[index];
        (
            image.buffer_view.map(|v| v.value()),
            image.uri.clone(),
            image.mime_type.as_ref().map(|m| m.0.clone()),
        )
    };
    let bytes: std::borrow::Cow<'_, [u8]> = match (view, &uri) {
        (Some(v), _) => doc.view_bytes(v)?.into(),
        (None, Some(uri)) => match uri_bytes(uri, base) {
            Ok(bytes) => {
                *files_read += bytes.len() as u64;
                if *files_read > MAX_FILE_BYTES {
                    return Err(Error::Limit {
                        what: "bytes of image files read",
                        found: *files_read,
                        limit: MAX_FILE_BYTES,
                    });
                }
                bytes.into()
            }
            Err(UriError::Refused(problem)) => return Err(error("uri", problem)),
            Err(UriError::NoBase) => return Ok(None),
            Err(UriError::File(Error::Io { source, .. }))
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                return Ok(None);
            }
            Err(UriError::File(e)) => return Err(e),
        },
        (None, None) => return Err(error("uri", "neither a URI nor a buffer view".into())),
    };
    let hint = mime
        .as_deref()
        .and_then(|m| match m.to_ascii_lowercase().as_str() {
            "image/png" => Some("image.png"),
            "image/jpeg" => Some("image.jpg"),
            "image/bmp" => Some("image.bmp"),
            "image/x-tga" | "image/tga" | "image/x-targa" => Some("image.tga"),
            _ => None,
        })
        .or(uri.as_deref());
    crate::texture::decode_within(&bytes, hint, MAX_IMAGE_SIDE, MAX_IMAGE_BYTES)
        .map(Some)
        .map_err(|problem| {
            let field = if problem.starts_with("not a PNG") {
                "mimeType"
            } else {
                "data"
            };
            error(field, problem)
        })
}

/// The texture coordinate set material `m`'s base colour texture samples: its
/// `KHR_texture_transform`'s `texCoord`, else its own; 0 without a texture.
pub(crate) fn uv_set(doc: &Doc<'_>, m: usize) -> u32 {
    base_colour(doc, m).map_or(0, |info| {
        let transform = (info.extensions.as_ref()).and_then(|e| e.texture_transform.as_ref());
        transform
            .and_then(|t| t.tex_coord)
            .unwrap_or(info.tex_coord)
    })
}

/// Material `m`'s base colour texture, if it has one.
fn base_colour<'a>(doc: &'a Doc<'_>, m: usize) -> Option<&'a gltf::json::texture::Info> {
    (doc.root.materials.get(m)).and_then(|m| m.pbr_metallic_roughness.base_color_texture.as_ref())
}

/// The base colour texture's `KHR_texture_transform` of material `m`, as the rows of the 2×3
/// matrix that takes a coordinate of its set ([`uv_set`]) to the one its texture is sampled
/// at (translation · rotation · scale, in the extension's order and with its matrices);
/// `None` without one.
///
/// # Errors
///
/// [`Error::Material`] when the transform is not finite.
pub(crate) fn uv_transform(doc: &Doc<'_>, m: usize) -> Result<Option<[[f32; 3]; 2]>> {
    let Some(info) = base_colour(doc, m) else {
        return Ok(None);
    };
    let Some(t) = info
        .extensions
        .as_ref()
        .and_then(|e| e.texture_transform.as_ref())
    else {
        return Ok(None);
    };
    let ([ox, oy], r, [sx, sy]) = (t.offset.0, t.rotation.0, t.scale.0);
    if ![ox, oy, r, sx, sy].iter().all(|v| v.is_finite()) {
        return Err(Error::Material {
            index: m,
            field: "pbrMetallicRoughness.baseColorTexture.extensions.KHR_texture_transform",
            problem: "not finite".into(),
        });
    }
    let (sin, cos) = r.sin_cos();
    // The extension's rotation matrix, whose columns are `(cos, sin)` and `(−sin, cos)`.
    Ok(Some([[cos * sx, -sin * sy, ox], [sin * sx, cos * sy, oy]]))
}
