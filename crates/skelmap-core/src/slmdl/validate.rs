//! The SL validation passes: the `mdl` declaration and vertices, the `.anim` keyframes, and
//! the pairing of a mesh with its animation.

use core::mem::offset_of;

use zerocopy::FromBytes;
use zerocopy::byteorder::{F32, LittleEndian};

use super::raw::{AnimHeader, BoneKey, Header, KeyframeHead, MAX_ATTRIBUTES, keyframe_size};
use super::view::{Animation, AttributeKind, Easing, Mesh, Pair, WEIGHT_TOLERANCE};
use crate::diag::Diagnostics;
use crate::error::{Error, Problem, Result};
use crate::floatbits::{Masks, flat, raw};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::read::Reader;
use crate::resolver::{Resolver, strip_extension};
use crate::rules;
use crate::view::open::{Companion, CompanionFile, Files, Given, Open};

type Le = LittleEndian;

/// Validates `data` under `limits` (`max_vertices_per_mesh` bounds the vertex count), in
/// file order: the header (radius, attribute declarations, vertex size and count), then the
/// vertices' float attributes and blend weights.
impl<'data> Parse<'data> for Mesh<'data> {
    const FORMAT: Format = Format::SlMdl;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        _diag: &mut Diagnostics,
    ) -> Result<Mesh<'data>> {
        const FORMAT: Format = Format::SlMdl;
        rules::begin(FORMAT, data, limits)?;
        let reader = Reader::new(data, FORMAT);
        let header: &Header = reader.ref_at("header", 0)?;
        check_radius(header)?;
        let attributes = attribute_bytes(header)?;
        let body = vertex_bytes(header, attributes, limits)?;
        let vertices = reader.bytes_after_header("vertices", size_of::<Header>() as u64, body)?;
        let model = Mesh { header, vertices };
        check_float_attributes(&model)?;
        check_blend_weights(&model)?;
        Ok(model)
    }
}

/// [`Error::Invalid`] of an SL mesh.
fn invalid(what: &'static str, offset: u64, problem: Problem) -> Error {
    Error::Invalid {
        format: Format::SlMdl,
        what,
        offset,
        problem,
    }
}

/// The header's radius finite and not negative.
fn check_radius(header: &Header) -> Result<()> {
    let radius = header.radius.get();
    if !(radius.is_finite() && radius >= 0.0) {
        return Err(invalid(
            "header.radius",
            offset_of!(Header, radius) as u64,
            if radius.is_finite() {
                Problem::NotPositive {
                    value: radius.into(),
                }
            } else {
                Problem::NotFinite
            },
        ));
    }
    Ok(())
}

/// The bytes a vertex's declared attributes take: at most [`MAX_ATTRIBUTES`] of them, each of
/// a known type and a size that type allows.
fn attribute_bytes(header: &Header) -> Result<u32> {
    let declared = header.attribute_count.get();
    let Some(n) = usize::try_from(declared)
        .ok()
        .filter(|&n| n <= MAX_ATTRIBUTES)
    else {
        return Err(invalid(
            "header.attribute_count",
            offset_of!(Header, attribute_count) as u64,
            Problem::AboveMaximum {
                value: declared.into(),
                max: MAX_ATTRIBUTES as u64,
            },
        ));
    };
    let mut total = 0u32;
    for k in 0..n {
        let (code, size) = (header.attribute_types[k], header.attribute_sizes[k]);
        let Some(kind) = AttributeKind::from_code(code) else {
            return Err(Error::Unsupported {
                format: Format::SlMdl,
                what: "header.attribute_types",
                offset: (offset_of!(Header, attribute_types) + k) as u64,
                value: code.into(),
                supported: "attribute types are 1..=6",
            });
        };
        if !kind.allows_size(size) {
            return Err(invalid(
                "header.attribute_sizes",
                (offset_of!(Header, attribute_sizes) + k) as u64,
                Problem::AttributeSize { size: size.into() },
            ));
        }
        total += u32::from(size);
    }
    Ok(total)
}

/// The bytes of the vertices: `vertex_size` equal to `attributes` (the attributes' bytes) and
/// not 0 where there are vertices, and `vertex_count` within
/// [`Limits::max_vertices_per_mesh`].
fn vertex_bytes(header: &Header, attributes: u32, limits: &Limits) -> Result<u64> {
    let vertex_size = header.vertex_size.get();
    if attributes != vertex_size {
        return Err(invalid(
            "header.vertex_size",
            offset_of!(Header, vertex_size) as u64,
            Problem::Mismatch {
                value: vertex_size.into(),
                expected: attributes.into(),
            },
        ));
    }
    let count = header.vertex_count.get();
    // Vertices without attributes carry nothing; counting millions of them from a 52-byte
    // file would only make consumers loop.
    if count > 0 && vertex_size == 0 {
        return Err(invalid(
            "header.vertex_size",
            offset_of!(Header, vertex_size) as u64,
            Problem::Empty,
        ));
    }
    if count > limits.max_vertices_per_mesh {
        return Err(Error::Limit {
            format: Format::SlMdl,
            what: "header.vertex_count",
            offset: offset_of!(Header, vertex_count) as u64,
            value: count.into(),
            max: limits.max_vertices_per_mesh.into(),
        });
    }
    Ok(u64::from(count) * u64::from(vertex_size))
}

/// Every float attribute of every vertex finite (flat raw-bit check per attribute).
fn check_float_attributes(model: &Mesh<'_>) -> Result<()> {
    let masks = Masks::of::<Le>();
    for (_, kind, view) in model.attributes() {
        if !kind.is_float() {
            continue;
        }
        for i in 0..view.len() {
            let values = view
                .bytes(i)
                .and_then(|b| <[F32<Le>]>::ref_from_bytes(b).ok())
                .unwrap_or_default();
            if let Some(k) = values.iter().position(|v| masks.non_finite(raw(*v))) {
                let offset = (size_of::<Header>() + view.byte_offset(i) + 4 * k) as u64;
                return Err(invalid("vertex", offset, Problem::NotFinite));
            }
        }
    }
    Ok(())
}

/// Stored blend weights each in 0..=1 and summing to at most 1, so the implied last weight
/// `1 − Σ` is never negative (and large opposite weights cannot cancel out).
fn check_blend_weights(model: &Mesh<'_>) -> Result<()> {
    let Some(view) = model.attribute(AttributeKind::BlendWeights) else {
        return Ok(());
    };
    for i in 0..view.len() {
        let stored = (view.size() / 4).min(3);
        let mut all = [0.0f32; 3];
        for (k, slot) in all.iter_mut().enumerate().take(stored) {
            *slot = view.float(i, k).unwrap_or(0.0);
        }
        let w = all.get(..stored).unwrap_or_default();
        let sum: f32 = w.iter().sum();
        if w.iter().any(|x| !(0.0..=1.0).contains(x)) || sum > 1.0 + WEIGHT_TOLERANCE {
            let offset = (size_of::<Header>() + view.byte_offset(i)) as u64;
            return Err(invalid("vertex", offset, Problem::Weights));
        }
    }
    Ok(())
}

/// Validates `data` under `limits` (bones ≤ `max_bones`, keyframes ≤ `max_frames`).
impl<'data> Parse<'data> for Animation<'data> {
    const FORMAT: Format = Format::SlAnim;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        _diag: &mut Diagnostics,
    ) -> Result<Animation<'data>> {
        const FORMAT: Format = Format::SlAnim;
        rules::begin(FORMAT, data, limits)?;
        let reader = Reader::new(data, FORMAT);
        let header: &AnimHeader = reader.ref_at("header", 0)?;
        let bones = header.bone_count.get();
        let keyframes = header.keyframe_count.get();
        rules::check_count(
            FORMAT,
            "header.bone_count",
            offset_of!(AnimHeader, bone_count) as u64,
            bones,
            limits.max_bones,
        )?;
        rules::check_count(
            FORMAT,
            "header.keyframe_count",
            offset_of!(AnimHeader, keyframe_count) as u64,
            keyframes,
            limits.max_frames,
        )?;
        let stride = keyframe_size(bones);
        let header_size = size_of::<AnimHeader>() as u64;
        let body =
            reader.bytes_after_header("keyframes", header_size, stride * u64::from(keyframes))?;
        let invalid = |what, offset, problem| Error::Invalid {
            format: FORMAT,
            what,
            offset,
            problem,
        };
        let masks = Masks::of::<Le>();
        let mut previous = f32::NEG_INFINITY;
        let mut walk = Reader::new(body, FORMAT).walk(0);
        for k in 0..keyframes {
            let at = header_size + stride * u64::from(k);
            let head = walk.read::<KeyframeHead>("keyframe")?;
            let keys = walk.read_slice::<BoneKey>("keyframe.bones", bones.into())?;
            let time = head.time.get();
            if !time.is_finite() || time < previous {
                return Err(invalid(
                    "keyframe.time",
                    at,
                    if time.is_finite() {
                        Problem::Decreasing {
                            value: time.into(),
                            previous: previous.into(),
                        }
                    } else {
                        Problem::NotFinite
                    },
                ));
            }
            previous = time;
            let easing = head.easing.get();
            if Easing::from_id(easing).is_none() {
                return Err(invalid(
                    "keyframe.easing",
                    at + offset_of!(KeyframeHead, easing) as u64,
                    Problem::UnknownCode {
                        code: easing.into(),
                    },
                ));
            }
            if masks.any_non_finite(flat::<Le, _>(keys)) {
                let b = keys
                    .iter()
                    .position(|key| masks.any_non_finite(flat::<Le, _>(core::slice::from_ref(key))))
                    .unwrap_or(0);
                return Err(invalid(
                    "keyframe.bones",
                    at + (size_of::<KeyframeHead>() + size_of::<BoneKey>() * b) as u64,
                    Problem::NotFinite,
                ));
            }
        }
        Ok(Animation {
            data: body,
            bones,
            keyframes,
        })
    }
}

impl<'data> Pair<'data> {
    /// Pairs a mesh with its animation (or with none: a static mesh).
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] naming the mesh's first blend index with weight that is not a bone
    /// of `anim` (`vertex.blend_indices` at its byte offset).
    pub fn new(mdl: Mesh<'data>, anim: Option<Animation<'data>>) -> Result<Pair<'data>> {
        const FORMAT: Format = Format::SlMdl;
        let (Some(a), Some(view)) = (anim, mdl.attribute(AttributeKind::BlendIndices)) else {
            return Ok(Pair { mdl, anim });
        };
        let bones = a.num_bones();
        for i in 0..mdl.num_vertices() {
            let Some(influences) = mdl.influences(i) else {
                break;
            };
            let bad = influences
                .iter()
                .position(|&(bone, weight)| weight > 0.0 && usize::from(bone) >= bones);
            if let Some(k) = bad {
                return Err(Error::Invalid {
                    format: FORMAT,
                    what: "vertex.blend_indices",
                    offset: (size_of::<Header>() + view.byte_offset(i) + k) as u64,
                    problem: Problem::Index {
                        index: influences[k].0.into(),
                        len: bones as u64,
                    },
                });
            }
        }
        Ok(Pair { mdl, anim })
    }
}

/// An SL mesh opens with the animation beside it (`name.anim`), when there is one.
impl<'a> Open<'a> for Pair<'a> {
    fn companions<'data, R: Resolver<'data> + ?Sized>(
        resolver: &R,
        path: &str,
        _: &[u8],
        _: Given<'data>,
    ) -> Result<Vec<CompanionFile<'data>>> {
        let anim_path = format!("{}.anim", strip_extension(path));
        Ok(match resolver.load(&anim_path)? {
            Some(anim) => vec![(Companion::Animation, anim_path, anim)],
            None => Vec::new(),
        })
    }

    fn open(files: &'a Files<'_>, limits: &Limits, diag: &mut Diagnostics) -> Result<Self> {
        let mdl = Mesh::parse_with(files.main.bytes(), limits, diag)?;
        let anim = match files.companion(Companion::Animation).next() {
            Some(anim) => Some(Animation::parse_with(anim.bytes(), limits, diag)?),
            None => None,
        };
        Pair::new(mdl, anim)
    }
}
