//! The validated SL `mdl` view: header, attribute declaration, strided attribute views.

use glam::Vec3A;
use zerocopy::byteorder::{F32, LittleEndian, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use super::SlAnim;
use crate::diag::Diagnostics;
use crate::error::{Error, Result};
use crate::floatbits::{Masks, raw};
use crate::format::Format;
use crate::limits::Limits;
use crate::parse::Parse;
use crate::pose::{BindPoseMesh, BindVertex};
use crate::read::Reader;
use crate::rules;

const FORMAT: Format = Format::SlMdl;
type Le = LittleEndian;

pub use crate::format::SLMDL_MAGIC;

/// How far stored blend weights may sum above 1 (rounding in exporters).
pub const WEIGHT_TOLERANCE: f32 = 1e-3;

/// Most attributes a vertex can declare.
pub const MAX_ATTRIBUTES: usize = 16;

/// The 0x34-byte header.
#[derive(Debug, Clone, Copy, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct Header {
    /// [`SLMDL_MAGIC`].
    pub magic: [u8; 4],
    /// Number of vertices.
    pub vertex_count: U32<Le>,
    /// Bytes per vertex.
    pub vertex_size: U32<Le>,
    /// Bounding-sphere radius.
    pub radius: F32<Le>,
    /// Number of declared attributes (≤ 16).
    pub attribute_count: U32<Le>,
    /// Attribute type codes ([`AttributeKind`]).
    pub attribute_types: [u8; MAX_ATTRIBUTES],
    /// Attribute sizes in bytes.
    pub attribute_sizes: [u8; MAX_ATTRIBUTES],
}

const _: () = assert!(size_of::<Header>() == 0x34);

/// What a vertex attribute holds (see the module docs for codes and sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttributeKind {
    /// `f32 × 3`.
    Position,
    /// `f32 × 3`.
    Normal,
    /// `f32 × 1..=4`.
    Texcoord,
    /// `f32 × 1..=3`: the stored weights (the last of four is implied).
    BlendWeights,
    /// `u8 × 4`: bone indices.
    BlendIndices,
    /// `u8 × 4` RGBA.
    Color,
}

impl AttributeKind {
    /// The kind of a type code.
    #[must_use]
    pub fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            1 => AttributeKind::Position,
            2 => AttributeKind::Normal,
            3 => AttributeKind::Texcoord,
            4 => AttributeKind::BlendWeights,
            5 => AttributeKind::BlendIndices,
            6 => AttributeKind::Color,
            _ => return None,
        })
    }

    /// The type code.
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            AttributeKind::Position => 1,
            AttributeKind::Normal => 2,
            AttributeKind::Texcoord => 3,
            AttributeKind::BlendWeights => 4,
            AttributeKind::BlendIndices => 5,
            AttributeKind::Color => 6,
        }
    }

    /// `true` if `size` bytes is an allowed size for this kind.
    #[must_use]
    pub fn allows_size(self, size: u8) -> bool {
        match self {
            AttributeKind::Position | AttributeKind::Normal => size == 12,
            AttributeKind::Texcoord => matches!(size, 4 | 8 | 12 | 16),
            AttributeKind::BlendWeights => matches!(size, 4 | 8 | 12),
            AttributeKind::BlendIndices | AttributeKind::Color => size == 4,
        }
    }

    /// `true` for kinds made of `f32`s.
    #[must_use]
    pub fn is_float(self) -> bool {
        !matches!(self, AttributeKind::BlendIndices | AttributeKind::Color)
    }
}

/// A zero-copy strided view of one attribute across all vertices.
#[derive(Debug, Clone, Copy)]
pub struct Strided<'data> {
    vertices: &'data [u8],
    offset: usize,
    size: usize,
    stride: usize,
}

impl<'data> Strided<'data> {
    /// Number of elements (vertices).
    #[must_use]
    pub fn len(&self) -> usize {
        self.vertices.len().checked_div(self.stride).unwrap_or(0)
    }

    /// `true` if there are no vertices.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the attribute per vertex.
    #[must_use]
    pub fn size(&self) -> usize {
        self.size
    }

    /// The raw bytes of element `i`.
    #[must_use]
    pub fn bytes(&self, i: usize) -> Option<&'data [u8]> {
        let start = i.checked_mul(self.stride)?.checked_add(self.offset)?;
        self.vertices.get(start..start.checked_add(self.size)?)
    }

    /// Float `k` of element `i` (`None` past the attribute's size).
    #[must_use]
    pub fn float(&self, i: usize, k: usize) -> Option<f32> {
        let bytes = self.bytes(i)?.get(4 * k..4 * k + 4)?;
        F32::<Le>::read_from_bytes(bytes).ok().map(|v| v.get())
    }

    /// The first `N` floats of element `i` (`None` if the attribute holds fewer).
    #[must_use]
    pub fn floats<const N: usize>(&self, i: usize) -> Option<[f32; N]> {
        let mut out = [0.0; N];
        for (k, o) in out.iter_mut().enumerate() {
            *o = self.float(i, k)?;
        }
        Some(out)
    }

    /// Where element `i` starts, in bytes from the first vertex.
    #[must_use]
    pub fn byte_offset(&self, i: usize) -> usize {
        i.saturating_mul(self.stride).saturating_add(self.offset)
    }

    /// The 4 bytes of element `i` (blend indices, colour).
    #[must_use]
    pub fn bytes4(&self, i: usize) -> Option<[u8; 4]> {
        self.bytes(i)?.get(..4)?.try_into().ok()
    }
}

/// A validated SL `mdl` over borrowed bytes. `Copy`, `Send` and `Sync`.
#[derive(Debug, Clone, Copy)]
pub struct SlMdl<'data> {
    header: &'data Header,
    vertices: &'data [u8],
}

/// Validates `data` under `limits` (`max_vertices_per_mesh` bounds the vertex count).
impl<'data> Parse<'data> for SlMdl<'data> {
    const FORMAT: Format = FORMAT;

    fn parse_with(
        data: &'data [u8],
        limits: &Limits,
        _diag: &mut Diagnostics,
    ) -> Result<SlMdl<'data>> {
        rules::begin(FORMAT, data, limits)?;
        let reader = Reader::new(data, FORMAT);
        let header: &Header = reader.ref_at("header", 0)?;
        let invalid = |what, offset, detail: String| Error::Invalid {
            format: FORMAT,
            what,
            offset,
            detail,
        };

        let radius = header.radius.get();
        if !(radius.is_finite() && radius >= 0.0) {
            return Err(invalid(
                "header.radius",
                12,
                format!("radius {radius}: must be finite and not negative"),
            ));
        }
        let declared = header.attribute_count.get();
        let Some(n) = usize::try_from(declared)
            .ok()
            .filter(|&n| n <= MAX_ATTRIBUTES)
        else {
            return Err(invalid(
                "header.attribute_count",
                16,
                format!("{declared} attributes; at most {MAX_ATTRIBUTES}"),
            ));
        };
        let mut total = 0u32;
        for k in 0..n {
            let (code, size) = (header.attribute_types[k], header.attribute_sizes[k]);
            let Some(kind) = AttributeKind::from_code(code) else {
                return Err(Error::Unsupported {
                    format: FORMAT,
                    what: "header.attribute_types",
                    offset: 20 + k as u64,
                    detail: format!("attribute {k} has unknown type {code}"),
                });
            };
            if !kind.allows_size(size) {
                return Err(invalid(
                    "header.attribute_sizes",
                    36 + k as u64,
                    format!("attribute {k} ({kind:?}) cannot be {size} bytes"),
                ));
            }
            total += u32::from(size);
        }
        let vertex_size = header.vertex_size.get();
        if total != vertex_size {
            return Err(invalid(
                "header.vertex_size",
                8,
                format!("vertex size {vertex_size} but the attributes add up to {total}"),
            ));
        }
        let count = header.vertex_count.get();
        // Vertices without attributes carry nothing; counting millions of them from a 52-byte
        // file would only make consumers loop.
        if count > 0 && vertex_size == 0 {
            return Err(invalid(
                "header.vertex_size",
                8,
                format!("{count} vertices of 0 bytes: declare at least one attribute"),
            ));
        }
        if count > limits.max_vertices_per_mesh {
            return Err(Error::Limit {
                format: FORMAT,
                what: "header.vertex_count",
                offset: 4,
                value: count.into(),
                max: limits.max_vertices_per_mesh.into(),
            });
        }
        let body = u64::from(count) * u64::from(vertex_size);
        let vertices = reader.bytes_after_header("vertices", size_of::<Header>() as u64, body)?;
        let model = SlMdl { header, vertices };
        // Every float attribute finite (flat raw-bit check per attribute).
        let masks = Masks::of::<Le>();
        for (k, kind, view) in model.attributes() {
            if !kind.is_float() {
                continue;
            }
            for i in 0..view.len() {
                let values = view
                    .bytes(i)
                    .and_then(|b| <[F32<Le>]>::ref_from_bytes(b).ok())
                    .unwrap_or_default();
                if values.iter().any(|v| masks.non_finite(raw(*v))) {
                    let offset =
                        size_of::<Header>() as u64 + (i * view.stride + view.offset) as u64;
                    return Err(invalid(
                        "vertex",
                        offset,
                        format!("vertex {i}, attribute {k} ({kind:?}): value is NaN or infinite"),
                    ));
                }
            }
        }
        // Stored blend weights each in 0..=1 and summing to at most 1, so the implied last
        // weight `1 − Σ` is never negative (and large opposite weights cannot cancel out).
        if let Some(view) = model.attribute(AttributeKind::BlendWeights) {
            for i in 0..view.len() {
                let stored = (view.size() / 4).min(3);
                let mut all = [0.0f32; 3];
                for (k, slot) in all.iter_mut().enumerate().take(stored) {
                    *slot = view.float(i, k).unwrap_or(0.0);
                }
                let w = all.get(..stored).unwrap_or_default();
                let sum: f32 = w.iter().sum();
                if w.iter().any(|x| !(0.0..=1.0).contains(x)) || sum > 1.0 + WEIGHT_TOLERANCE {
                    let offset =
                        size_of::<Header>() as u64 + (i * view.stride + view.offset) as u64;
                    return Err(invalid(
                        "vertex",
                        offset,
                        format!(
                            "vertex {i}: blend weights {w:?} must each be in 0..=1 and sum to at most 1"
                        ),
                    ));
                }
            }
        }
        Ok(model)
    }
}

impl<'data> SlMdl<'data> {
    /// The raw header.
    #[must_use]
    pub fn header(&self) -> &'data Header {
        self.header
    }

    /// Number of vertices.
    #[must_use]
    pub fn num_verts(&self) -> usize {
        self.header.vertex_count.get() as usize
    }

    /// Bytes per vertex.
    #[must_use]
    pub fn vertex_size(&self) -> u32 {
        self.header.vertex_size.get()
    }

    /// Bounding-sphere radius.
    #[must_use]
    pub fn radius(&self) -> f32 {
        self.header.radius.get()
    }

    /// The interleaved vertex bytes.
    #[must_use]
    pub fn vertex_bytes(&self) -> &'data [u8] {
        self.vertices
    }

    /// Every declared attribute: its index, kind and strided view.
    pub fn attributes(&self) -> impl Iterator<Item = (usize, AttributeKind, Strided<'data>)> + '_ {
        let n = (self.header.attribute_count.get() as usize).min(MAX_ATTRIBUTES);
        let stride = self.vertex_size() as usize;
        let mut offset = 0usize;
        (0..n).filter_map(move |k| {
            let size = usize::from(*self.header.attribute_sizes.get(k)?);
            let kind = AttributeKind::from_code(*self.header.attribute_types.get(k)?)?;
            let view = Strided {
                vertices: self.vertices,
                offset,
                size,
                stride,
            };
            offset += size;
            Some((k, kind, view))
        })
    }

    /// The first attribute of `kind`, if declared.
    #[must_use]
    pub fn attribute(&self, kind: AttributeKind) -> Option<Strided<'data>> {
        self.attributes()
            .find(|(_, k, _)| *k == kind)
            .map(|(_, _, v)| v)
    }

    /// The four `(bone index, weight)` influences of vertex `i`: indices from the blend
    /// indices, weights from the blend weights with the last one `1 − Σ` the stored ones.
    /// Without blend weights the first index takes weight 1.
    #[must_use]
    pub fn influences(&self, i: usize) -> Option<[(u8, f32); 4]> {
        let indices = self.attribute(AttributeKind::BlendIndices)?.bytes4(i)?;
        let mut weights = [0.0f32; 4];
        match self.attribute(AttributeKind::BlendWeights) {
            Some(view) => {
                let stored = (view.size() / 4).min(3);
                for (k, slot) in weights.iter_mut().enumerate().take(stored) {
                    *slot = view.float(i, k)?;
                }
                weights[stored] = 1.0 - weights.iter().take(stored).sum::<f32>();
            }
            None => weights[0] = 1.0,
        }
        Some(core::array::from_fn(|k| (indices[k], weights[k])))
    }
}

impl BindPoseMesh for SlMdl<'_> {
    fn num_verts(&self) -> usize {
        self.num_verts()
    }

    /// The position and normal attributes (zero when a layout lacks one) and
    /// [`SlMdl::influences`]; a layout without blend indices binds every vertex to bone 0.
    fn bind_vertex(&self, i: usize) -> Option<BindVertex> {
        if i >= self.num_verts() {
            return None;
        }
        let float3 = |kind| {
            self.attribute(kind)
                .and_then(|view| view.floats::<3>(i))
                .map_or(Vec3A::ZERO, Vec3A::from)
        };
        let influences = self
            .influences(i)
            .map_or([Some((0, 1.0)), None, None, None], |four| {
                four.map(|(bone, weight)| Some((u16::from(bone), weight)))
            });
        Some(BindVertex {
            position: float3(AttributeKind::Position),
            normal: float3(AttributeKind::Normal),
            influences,
        })
    }
}

/// An SL mesh with the animation whose bones its blend indices name, when there is one (the
/// `.anim` beside it): the pairing proves every weighted blend index names a bone of the
/// animation. `Copy`, `Send` and `Sync`.
#[derive(Debug, Clone, Copy)]
pub struct SlModel<'data> {
    mdl: SlMdl<'data>,
    anim: Option<SlAnim<'data>>,
}

impl<'data> SlModel<'data> {
    /// Pairs a mesh with its animation (or with none: a static mesh).
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] naming the mesh's first blend index with weight that is not a bone
    /// of `anim` (`vertex.blend_indices` at its byte offset).
    pub fn pair(mdl: SlMdl<'data>, anim: Option<SlAnim<'data>>) -> Result<SlModel<'data>> {
        let (Some(a), Some(view)) = (anim, mdl.attribute(AttributeKind::BlendIndices)) else {
            return Ok(SlModel { mdl, anim });
        };
        let bones = a.num_bones();
        for i in 0..mdl.num_verts() {
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
                    detail: format!(
                        "vertex {i} is weighted to bone {}; the animation has {bones}",
                        influences[k].0
                    ),
                });
            }
        }
        Ok(SlModel { mdl, anim })
    }

    /// The mesh.
    #[must_use]
    pub fn mdl(&self) -> SlMdl<'data> {
        self.mdl
    }

    /// The animation, when the mesh has one.
    #[must_use]
    pub fn anim(&self) -> Option<SlAnim<'data>> {
        self.anim
    }
}
