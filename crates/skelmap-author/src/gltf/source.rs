//! Where a glTF's bytes come from: the GLB container, `data:` URIs, and files beside the
//! glTF (relative paths only, checked with [`check_path`]).

use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};

use gltf::json::Root;
use skelmap_core::resolver::check_path;

use super::MAX_FILE_BYTES;
use super::error::{Error, Result};

const GLB_JSON: u32 = 0x4E4F_534A;
const GLB_BIN: u32 = 0x004E_4942;

/// The JSON chunk and the binary chunk (if any) of a `.glb`.
pub(crate) fn split_glb(data: &[u8]) -> Result<(&[u8], Option<&[u8]>)> {
    let glb = |offset: usize, problem: String| Error::Glb {
        offset: offset as u64,
        problem,
    };
    let word = |at: usize| -> Option<u32> {
        data.get(at..at.checked_add(4)?)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
    };
    let (Some(version), Some(length)) = (word(4), word(8)) else {
        return Err(glb(0, "shorter than the 12-byte header".into()));
    };
    if version != 2 {
        return Err(glb(4, format!("version {version}, only 2 is glTF 2.0")));
    }
    let length = length as usize;
    if length < 12 || length > data.len() {
        return Err(glb(
            8,
            format!("declares {length} bytes; the file has {}", data.len()),
        ));
    }
    let data = &data[..length];
    let mut pos = 12usize;
    let mut json = None;
    let mut bin = None;
    while pos < length {
        let (Some(size), Some(kind)) = (word(pos), word(pos + 4)) else {
            return Err(glb(pos, "a chunk header past the end".into()));
        };
        let start = pos + 8;
        let end = start
            .checked_add(size as usize)
            .filter(|&e| e <= length)
            .ok_or_else(|| {
                glb(
                    pos,
                    format!("a chunk of {size} bytes runs past the end ({length} bytes)"),
                )
            })?;
        let chunk = &data[start..end];
        match kind {
            GLB_JSON if json.is_none() && pos == 12 => json = Some(chunk),
            GLB_BIN if bin.is_none() && json.is_some() => bin = Some(chunk),
            _ if json.is_none() => {
                return Err(glb(pos, "the first chunk is not JSON".into()));
            }
            // Other chunks (and repeated ones) are ignored, as the format asks.
            _ => {}
        }
        pos = end;
    }
    let json = json.ok_or_else(|| glb(12, "no JSON chunk".into()))?;
    Ok((json, bin))
}

/// The JSON document, parsed but not validated: this importer checks every index and range
/// itself, so that each failure names its structure, index and field. A document the `gltf`
/// crate's types refuse is read again after [`lenient`] mends what the specification allows
/// and they do not; the error is the first reading's where that does not help.
pub(crate) fn parse_json(json: &[u8]) -> Result<Root> {
    let first = match gltf::json::deserialize::from_slice::<Root>(json) {
        Ok(root) => return Ok(root),
        Err(e) => Error::Json(e.to_string()),
    };
    let Ok(mut value) = gltf::json::deserialize::from_slice::<gltf::json::Value>(json) else {
        return Err(first);
    };
    if !value.is_object() {
        return Err(Error::Json(
            "the document is not a JSON object, as a glTF's is".into(),
        ));
    }
    if !lenient(&mut value) {
        return Err(first);
    }
    gltf::json::deserialize::from_value::<Root>(value).map_err(|_| first)
}

/// Gives a channel `target` without `node` the node and path its `KHR_animation_pointer`
/// names (`/nodes/3/rotation`), where the pointer is to a node's transform or weights; says
/// whether it did.
fn node_of_pointer(target: &mut gltf::json::Value) -> bool {
    use gltf::json::Value;
    let Some(target) = target.as_object_mut().filter(|t| !t.contains_key("node")) else {
        return false;
    };
    let pointer = (target.get("extensions"))
        .and_then(|e| e.get("KHR_animation_pointer"))
        .and_then(|p| p.get("pointer"))
        .and_then(Value::as_str);
    let Some(rest) = pointer.and_then(|p| p.strip_prefix("/nodes/")) else {
        return false;
    };
    let Some((node, path)) = rest.split_once('/') else {
        return false;
    };
    let (Ok(node), true) = (
        node.parse::<u32>(),
        matches!(path, "translation" | "rotation" | "scale" | "weights"),
    ) else {
        return false;
    };
    let path = path.to_string();
    target.insert("node".into(), Value::from(node));
    target.insert("path".into(), Value::from(path));
    true
}

/// Mends, in a parsed glTF document, what the specification allows but the `gltf` crate's
/// types refuse, and says whether anything changed:
/// - a number written with a fraction of zero where an integer stands (`"count": 3.0`:
///   JSON Schema's integers include it);
/// - `extras` that is not an object (any JSON value is allowed; this importer reads none);
/// - a scene without `nodes` (an empty scene);
/// - an animation channel whose target has no `node` (`KHR_animation_pointer` names its
///   target by a JSON pointer instead): a pointer to a node's `translation`, `rotation`,
///   `scale` or `weights` becomes that node and path; any other channel is left out, as the
///   importer animates nodes only.
fn lenient(value: &mut gltf::json::Value) -> bool {
    use gltf::json::Value;
    let mut changed = false;
    if let Some(root) = value.as_object_mut() {
        for scene in root
            .get_mut("scenes")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(scene) = scene.as_object_mut()
                && !scene.contains_key("nodes")
            {
                scene.insert("nodes".into(), Value::Array(Vec::new()));
                changed = true;
            }
        }
        let animations = root.get_mut("animations").and_then(Value::as_array_mut);
        for animation in animations.into_iter().flatten() {
            let channels = animation.get_mut("channels").and_then(Value::as_array_mut);
            if let Some(channels) = channels {
                for target in channels.iter_mut().filter_map(|c| c.get_mut("target")) {
                    changed |= node_of_pointer(target);
                }
                let before = channels.len();
                channels.retain(|c| c.get("target").is_none_or(|t| t.get("node").is_some()));
                changed |= channels.len() != before;
            }
        }
    }
    // Depth-first with a stack of the objects and arrays still to visit: serde_json bounds a
    // document's nesting, and this walk does not recurse.
    let whole = |v: &Value| match v {
        Value::Number(n) if n.is_f64() => n
            .as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0),
        _ => None,
    };
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        let children: Vec<&mut Value> = match v {
            Value::Object(map) => {
                if map.get("extras").is_some_and(|e| !e.is_object()) {
                    map.remove("extras");
                    changed = true;
                }
                map.values_mut().collect()
            }
            Value::Array(items) => items.iter_mut().collect(),
            _ => Vec::new(),
        };
        for child in children {
            if let Some(f) = whole(child) {
                *child = Value::from(f as i64);
                changed = true;
            } else if child.is_object() || child.is_array() {
                stack.push(child);
            }
        }
    }
    changed
}

/// Reads a whole file of at most [`MAX_FILE_BYTES`].
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    if len > MAX_FILE_BYTES {
        return Err(Error::Limit {
            what: "bytes in one file",
            found: len,
            limit: MAX_FILE_BYTES,
        });
    }
    let mut out = Vec::with_capacity(len as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(io)?;
    if out.len() as u64 > MAX_FILE_BYTES {
        return Err(Error::Limit {
            what: "bytes in one file",
            found: out.len() as u64,
            limit: MAX_FILE_BYTES,
        });
    }
    Ok(out)
}

/// What a URI failed on, before it is named by its structure.
pub(crate) enum UriError {
    /// The URI itself is refused; the reason.
    Refused(String),
    /// It names a file, and there is no folder to look in.
    NoBase,
    /// The file it names could not be read.
    File(Error),
}

/// The bytes a URI stands for: a base64 `data:` URI decoded, or a file below `base`.
pub(crate) fn uri_bytes(uri: &str, base: Option<&Path>) -> core::result::Result<Vec<u8>, UriError> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (meta, data) = rest
            .split_once(',')
            .ok_or_else(|| UriError::Refused("a data URI without ','".into()))?;
        if !meta.ends_with(";base64") {
            return Err(UriError::Refused(
                "only base64 data URIs are supported".into(),
            ));
        }
        return base64(data.as_bytes()).map_err(UriError::Refused);
    }
    let path = file_path(uri, Path::new("")).map_err(UriError::Refused)?;
    let base = base.ok_or(UriError::NoBase)?;
    read_file(&base.join(path)).map_err(UriError::File)
}

/// The path of the file `uri` names below `base`: percent-decoded, relative, without `..`
/// and without a scheme.
fn file_path(uri: &str, base: &Path) -> core::result::Result<PathBuf, String> {
    let scheme_end = uri.find(':');
    let first_slash = uri.find('/').unwrap_or(uri.len());
    if let Some(colon) = scheme_end.filter(|&c| c > 1 && c < first_slash)
        && uri[..colon]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    {
        return Err(format!("the {} scheme is not supported", &uri[..colon]));
    }
    let decoded = percent_decode(uri)?;
    check_path(&decoded).map_err(|e| e.to_string())?;
    Ok(decoded
        .split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != ".")
        .fold(base.to_path_buf(), |p, c| p.join(c)))
}

fn percent_decode(uri: &str) -> core::result::Result<String, String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("a bad percent escape at byte {i}"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "the decoded path is not UTF-8".to_string())
}

/// Decodes standard base64 (padding optional, no whitespace).
pub(crate) fn base64(text: &[u8]) -> core::result::Result<Vec<u8>, String> {
    let text = text
        .strip_suffix(b"==")
        .or_else(|| text.strip_suffix(b"="))
        .unwrap_or(text);
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let mut acc = 0u32;
    let mut bits = 0u32;
    for (i, &c) in text.iter().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return Err(format!("a character that is not base64 at byte {i}")),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err("base64 of an impossible length".into());
    }
    Ok(out)
}

/// Each buffer's bytes, exactly its `byteLength` long: the GLB's binary chunk for a first
/// buffer without URI, else its URI's data. What the URIs hold is counted whole against
/// [`MAX_FILE_BYTES`], not only the part a buffer declares: many buffers may name one large
/// file.
pub(crate) fn load_buffers<'a>(
    root: &Root,
    bin: Option<&'a [u8]>,
    base: Option<&Path>,
) -> Result<Vec<Cow<'a, [u8]>>> {
    let mut out = Vec::with_capacity(root.buffers.len());
    let mut total = 0u64;
    for (index, buffer) in root.buffers.iter().enumerate() {
        let error = |field, problem| Error::Buffer {
            index,
            field,
            problem,
        };
        let data: Cow<'a, [u8]> = match (&buffer.uri, bin) {
            (None, Some(bin)) if index == 0 => Cow::Borrowed(bin),
            (None, _) => {
                return Err(error(
                    "uri",
                    "no URI, and no GLB binary chunk to stand for it".into(),
                ));
            }
            (Some(uri), _) => Cow::Owned(uri_bytes(uri, base).map_err(|e| {
                match e {
                    UriError::Refused(problem) => error("uri", problem),
                    UriError::NoBase => error(
                        "uri",
                        "an external file, and no folder to find it in (from_slice without a base)"
                            .into(),
                    ),
                    UriError::File(e) => e,
                }
            })?),
        };
        let declared = buffer.byte_length.0;
        if (data.len() as u64) < declared {
            return Err(error(
                "byteLength",
                format!("declares {declared} bytes; its data has {}", data.len()),
            ));
        }
        total += match &data {
            Cow::Borrowed(_) => declared,
            Cow::Owned(v) => v.len() as u64,
        };
        if total > MAX_FILE_BYTES {
            return Err(Error::Limit {
                what: "bytes of buffers",
                found: total,
                limit: MAX_FILE_BYTES,
            });
        }
        out.push(match data {
            Cow::Borrowed(b) => Cow::Borrowed(&b[..declared as usize]),
            Cow::Owned(mut v) => {
                v.truncate(declared as usize);
                v.shrink_to_fit();
                Cow::Owned(v)
            }
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(base64(b"TWFu").unwrap(), b"Man");
        assert_eq!(base64(b"TWE=").unwrap(), b"Ma");
        assert_eq!(base64(b"TQ==").unwrap(), b"M");
        assert_eq!(base64(b"TQ").unwrap(), b"M");
        assert!(base64(b"T").is_err());
        assert!(base64(b"TW!u").is_err());
    }

    #[test]
    fn uris_outside_the_folder_are_refused() {
        let base = Path::new("/tmp");
        for uri in [
            "/etc/passwd",
            "../x.bin",
            "a/../../x",
            "http://x/y",
            "C:x",
            "file:///x",
            "%2E%2E/x",
        ] {
            assert!(file_path(uri, base).is_err(), "{uri}");
        }
        assert_eq!(
            file_path("sub/a%20b.bin", base).unwrap(),
            Path::new("/tmp/sub/a b.bin")
        );
        assert!(matches!(uri_bytes("a.bin", None), Err(UriError::NoBase)));
    }
}
