//! Accessors read with every range checked: the view inside its buffer, every element
//! inside its view, sparse indices inside the accessor, and a budget on what is decoded.

use std::borrow::Cow;

use gltf::json::Root;
use gltf::json::accessor::{ComponentType, Type};
use gltf::json::validation::Checked;

use super::MAX_VALUES_READ;
use super::error::{Error, Result};

/// The document and its loaded buffers.
pub(crate) struct Doc<'a> {
    pub root: Root,
    pub buffers: Vec<Cow<'a, [u8]>>,
    /// Values decoded so far, against [`MAX_VALUES_READ`].
    read: u64,
    /// NaN or infinite values replaced by 0 (normals, texture coordinates, colours, weights).
    pub replaced: usize,
}

/// What to do with a NaN or infinite value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finite {
    /// Refuse the file ([`Error::NonFinite`]).
    Refuse,
    /// Replace it by 0 and count it.
    Replace,
}

/// How integer components become floats.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Norm {
    /// As the accessor's `normalized` flag says.
    Flag,
    /// Always normalised (weights and colours, which glTF only allows normalised).
    Always,
    /// Never (indices and joints).
    Never,
}

/// Decoded values: `count` elements of `comps` components, flat.
pub(crate) struct Values<T> {
    pub values: Vec<T>,
    pub comps: usize,
}

impl<T: Copy> Values<T> {
    pub fn count(&self) -> usize {
        self.values.len().checked_div(self.comps).unwrap_or(0)
    }

    pub fn element(&self, i: usize) -> &[T] {
        self.values
            .get(i * self.comps..(i + 1) * self.comps)
            .unwrap_or_default()
    }

    /// Elements of exactly `N` components (empty for another width).
    pub fn arrays<const N: usize>(&self) -> Vec<[T; N]> {
        if self.comps != N {
            return Vec::new();
        }
        self.values
            .chunks_exact(N)
            .filter_map(|c| c.try_into().ok())
            .collect()
    }
}

/// [`Checked`] mapped when valid.
trait MapValid<T> {
    fn map_valid<U>(self, f: impl FnOnce(T) -> U) -> Checked<U>;
}

impl<T> MapValid<T> for Checked<T> {
    fn map_valid<U>(self, f: impl FnOnce(T) -> U) -> Checked<U> {
        match self {
            Checked::Valid(v) => Checked::Valid(f(v)),
            Checked::Invalid => Checked::Invalid,
        }
    }
}

fn comp_size(c: ComponentType) -> usize {
    match c {
        ComponentType::I8 | ComponentType::U8 => 1,
        ComponentType::I16 | ComponentType::U16 => 2,
        ComponentType::U32 | ComponentType::F32 => 4,
    }
}

fn type_comps(t: Type) -> usize {
    match t {
        Type::Scalar => 1,
        Type::Vec2 => 2,
        Type::Vec3 => 3,
        Type::Vec4 | Type::Mat2 => 4,
        Type::Mat3 => 9,
        Type::Mat4 => 16,
    }
}

/// One component at the start of `b` (at least `comp_size` bytes), as an integer or float.
fn component(b: &[u8], c: ComponentType) -> f64 {
    let at = |n: usize| b.get(..n).unwrap_or(&[0, 0, 0, 0][..n]);
    match c {
        ComponentType::I8 => f64::from(at(1)[0] as i8),
        ComponentType::U8 => f64::from(at(1)[0]),
        ComponentType::I16 => f64::from(i16::from_le_bytes([at(2)[0], at(2)[1]])),
        ComponentType::U16 => f64::from(u16::from_le_bytes([at(2)[0], at(2)[1]])),
        ComponentType::U32 => {
            let w = at(4);
            f64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        }
        ComponentType::F32 => {
            let w = at(4);
            f64::from(f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        }
    }
}

fn normalise(v: f64, c: ComponentType) -> f64 {
    match c {
        ComponentType::I8 => (v / 127.0).max(-1.0),
        ComponentType::U8 => v / 255.0,
        ComponentType::I16 => (v / 32767.0).max(-1.0),
        ComponentType::U16 => v / 65535.0,
        ComponentType::U32 | ComponentType::F32 => v,
    }
}

/// An accessor located in its buffer.
struct Layout<'b> {
    /// From the accessor's first byte to the end of its view (`None`: all zeros).
    bytes: Option<&'b [u8]>,
    stride: usize,
    count: usize,
    comps: usize,
    component: ComponentType,
    normalized: bool,
}

impl<'a> Doc<'a> {
    pub fn new(root: Root, buffers: Vec<Cow<'a, [u8]>>) -> Self {
        Doc {
            root,
            buffers,
            read: 0,
            replaced: 0,
        }
    }

    /// The bytes of buffer view `index`, checked against its buffer.
    pub fn view_bytes(&self, index: usize) -> Result<&[u8]> {
        let error = |field, problem| Error::BufferView {
            index,
            field,
            problem,
        };
        let view = self.root.buffer_views.get(index).ok_or_else(|| {
            error(
                "index",
                format!(
                    "no such buffer view ({} in the file)",
                    self.root.buffer_views.len()
                ),
            )
        })?;
        let buffer = view.buffer.value();
        let data = self.buffers.get(buffer).ok_or_else(|| {
            error(
                "buffer",
                format!(
                    "buffer {buffer} does not exist ({} in the file)",
                    self.buffers.len()
                ),
            )
        })?;
        let offset = view.byte_offset.map_or(0, |o| o.0);
        let length = view.byte_length.0;
        let end = offset
            .checked_add(length)
            .filter(|&e| e <= data.len() as u64);
        let Some(end) = end else {
            return Err(error(
                "byteLength",
                format!(
                    "{length} bytes from byte {offset} run past buffer {buffer} ({} bytes)",
                    data.len()
                ),
            ));
        };
        Ok(&data[offset as usize..end as usize])
    }

    fn layout(&self, index: usize, used_as: &str, types: &[Type]) -> Result<Layout<'_>> {
        let error = |field, problem| Error::Accessor {
            index,
            field,
            problem,
        };
        let accessor = self.root.accessors.get(index).ok_or_else(|| {
            error(
                "index",
                format!(
                    "no such accessor ({} in the file), wanted as {used_as}",
                    self.root.accessors.len()
                ),
            )
        })?;
        let Checked::Valid(component) = accessor.component_type.as_ref().map_valid(|c| c.0) else {
            return Err(error("componentType", "not a glTF component type".into()));
        };
        let Checked::Valid(type_) = accessor.type_ else {
            return Err(error("type", "not a glTF accessor type".into()));
        };
        if !types.contains(&type_) {
            return Err(error(
                "type",
                format!("{type_:?}, but {used_as} needs one of {types:?}"),
            ));
        }
        let comps = type_comps(type_);
        let elem = comps * comp_size(component);
        let count = accessor.count.0;
        if count > MAX_VALUES_READ {
            return Err(error(
                "count",
                format!("{count} elements, more than {MAX_VALUES_READ} values can be read"),
            ));
        }
        let count = count as usize;
        let bytes = match accessor.buffer_view {
            None => None,
            Some(view_index) => {
                let view_index = view_index.value();
                let view = self.view_bytes(view_index)?;
                let stride = self
                    .root
                    .buffer_views
                    .get(view_index)
                    .and_then(|v| v.byte_stride)
                    .map_or(elem, |s| s.0);
                if stride < elem {
                    return Err(Error::BufferView {
                        index: view_index,
                        field: "byteStride",
                        problem: format!(
                            "{stride} bytes, less than accessor {index}'s {elem}-byte elements"
                        ),
                    });
                }
                let offset = accessor.byte_offset.map_or(0, |o| o.0);
                if offset > view.len() as u64 {
                    return Err(error(
                        "byteOffset",
                        format!(
                            "{offset}, past buffer view {view_index} ({} bytes)",
                            view.len()
                        ),
                    ));
                }
                let need = match count {
                    0 => 0,
                    n => (n as u64 - 1) * stride as u64 + elem as u64,
                };
                if offset + need > view.len() as u64 {
                    return Err(error(
                        "count",
                        format!(
                            "{count} elements of {elem} bytes every {stride} from byte {offset} \
                             need {} bytes; buffer view {view_index} has {}",
                            offset + need,
                            view.len()
                        ),
                    ));
                }
                return Ok(Layout {
                    bytes: Some(&view[offset as usize..]),
                    stride,
                    count,
                    comps,
                    component,
                    normalized: accessor.normalized,
                });
            }
        };
        Ok(Layout {
            bytes,
            stride: elem,
            count,
            comps,
            component,
            normalized: accessor.normalized,
        })
    }

    /// Charges `values` against [`MAX_VALUES_READ`].
    fn charge(&mut self, values: u64) -> Result<()> {
        self.read = self.read.saturating_add(values);
        if self.read > MAX_VALUES_READ {
            return Err(Error::Limit {
                what: "accessor values read",
                found: self.read,
                limit: MAX_VALUES_READ,
            });
        }
        Ok(())
    }

    /// Every component of accessor `index` as `f64`, sparse substitution applied; `norm`
    /// decides whether integers are normalised.
    fn raw(
        &mut self,
        index: usize,
        used_as: &str,
        types: &[Type],
        norm: Norm,
    ) -> Result<Values<f64>> {
        let (count, comps) = {
            let l = self.layout(index, used_as, types)?;
            (l.count, l.comps)
        };
        self.charge((count * comps) as u64)?;
        let l = self.layout(index, used_as, types)?;
        let normalise_ints = match norm {
            Norm::Always => true,
            Norm::Never => false,
            Norm::Flag => l.normalized,
        };
        let size = comp_size(l.component);
        let convert = |v: f64| {
            if normalise_ints {
                normalise(v, l.component)
            } else {
                v
            }
        };
        let mut values = Vec::with_capacity(count * comps);
        match l.bytes {
            None => values.resize(count * comps, 0.0),
            Some(bytes) => {
                for i in 0..count {
                    let start = i * l.stride;
                    for k in 0..comps {
                        let at = start + k * size;
                        values.push(convert(component(
                            bytes.get(at..).unwrap_or_default(),
                            l.component,
                        )));
                    }
                }
            }
        }
        if let Some(sparse) = self
            .root
            .accessors
            .get(index)
            .and_then(|a| a.sparse.as_ref())
        {
            let error = |problem| Error::Accessor {
                index,
                field: "sparse",
                problem,
            };
            let n = sparse.count.0;
            if n > count as u64 {
                return Err(error(format!("{n} substitutions in {count} elements")));
            }
            let n = n as usize;
            let Checked::Valid(index_type) =
                sparse.indices.component_type.as_ref().map_valid(|c| c.0)
            else {
                return Err(error("indices: not a component type".into()));
            };
            if !matches!(
                index_type,
                ComponentType::U8 | ComponentType::U16 | ComponentType::U32
            ) {
                return Err(error(format!("indices of {index_type:?}")));
            }
            let isize_ = comp_size(index_type);
            let elem = comps * size;
            let indices = self.view_bytes(sparse.indices.buffer_view.value())?;
            let ioff = sparse.indices.byte_offset.0;
            let subs = self.view_bytes(sparse.values.buffer_view.value())?;
            let voff = sparse.values.byte_offset.0;
            let fits = |bytes: &[u8], off: u64, each: usize| {
                off.checked_add((n * each) as u64)
                    .is_some_and(|end| end <= bytes.len() as u64)
            };
            if !fits(indices, ioff, isize_) {
                return Err(error(format!(
                    "{n} indices from byte {ioff} run past their buffer view"
                )));
            }
            if !fits(subs, voff, elem) {
                return Err(error(format!(
                    "{n} values from byte {voff} run past their buffer view"
                )));
            }
            for s in 0..n {
                let at = ioff as usize + s * isize_;
                let target = component(indices.get(at..).unwrap_or_default(), index_type) as usize;
                if target >= count {
                    return Err(error(format!(
                        "substitution {s} names element {target} of {count}"
                    )));
                }
                for k in 0..comps {
                    let at = voff as usize + s * elem + k * size;
                    let v = convert(component(subs.get(at..).unwrap_or_default(), l.component));
                    if let Some(slot) = values.get_mut(target * comps + k) {
                        *slot = v;
                    }
                }
            }
        }
        Ok(Values { values, comps })
    }

    /// Accessor `index` (one of `types`) as floats.
    pub fn floats(
        &mut self,
        index: usize,
        used_as: &'static str,
        types: &[Type],
        norm: Norm,
        finite: Finite,
    ) -> Result<Values<f32>> {
        let raw = self.raw(index, used_as, types, norm)?;
        let comps = raw.comps;
        let mut values = Vec::with_capacity(raw.values.len());
        for (i, v) in raw.values.into_iter().enumerate() {
            let f = v as f32;
            if f.is_finite() {
                values.push(f);
            } else if finite == Finite::Replace {
                self.replaced += 1;
                values.push(0.0);
            } else {
                return Err(Error::NonFinite {
                    accessor: index,
                    element: i / comps.max(1),
                    used_as,
                });
            }
        }
        Ok(Values { values, comps })
    }

    /// Accessor `index` (one of `types`, with integer components of `components`) as
    /// integers.
    pub fn uints(
        &mut self,
        index: usize,
        used_as: &'static str,
        types: &[Type],
        components: &[ComponentType],
    ) -> Result<Values<u32>> {
        let l = self.layout(index, used_as, types)?;
        if !components.contains(&l.component) {
            let found = l.component;
            return Err(Error::Accessor {
                index,
                field: "componentType",
                problem: format!("{found:?}, but {used_as} needs one of {components:?}"),
            });
        }
        let raw = self.raw(index, used_as, types, Norm::Never)?;
        Ok(Values {
            values: raw.values.into_iter().map(|v| v as u32).collect(),
            comps: raw.comps,
        })
    }
}
