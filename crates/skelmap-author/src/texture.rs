//! Texture files a model names, found on disk as the engines find them and decoded into the
//! asset, so that every writer and the renderer carry them.
//!
//! Where the names come from:
//!
//! - **Shader names** (DPM, SKM, IQM: [`Material::name`]): DarkPlaces strips any extension
//!   and tries `.tga`, `.png`, then `.jpg`; the name as it is (IQM materials are often file
//!   names) comes first.
//! - **Stored file names** (MS3D's texture, an HMP7 or MDL7 external skin:
//!   [`Material::texture`]): the path relative to the model, `\` read as `/`, then its last
//!   component alone.
//!
//! Each name is looked for beside the model, then in each extra folder, in order; the first
//! file that exists wins. Where the exact spelling is not there, a file in the same folder
//! whose name differs only in ASCII case is taken (models made on Windows name `Skin.TGA` as
//! `skin.tga`). PNG, JPEG, BMP, TGA and PCX (Quake II's skins, through `image-extras`)
//! decode.
//!
//! A material whose texture was looked for loses its [`external`](Material::external) URI
//! either way: a found texture is embedded instead, and one not found would dangle.

use std::collections::HashMap;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use image::{ImageFormat, ImageReader, Limits};
use skelmap_core::asset::{Asset, Image, Material};

/// Widest and tallest texture decoded.
pub const MAX_SIDE: u32 = 8192;
/// Most bytes one decoded texture may take (256 MiB of RGBA).
pub const MAX_BYTES: u64 = 256 << 20;
/// Most bytes of a texture file read from disk.
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// Most entries of one folder read for a case-insensitive match.
pub const MAX_FOLDER_ENTRIES: usize = 1 << 16;
/// The extensions DarkPlaces tries for a shader name, in its order.
pub const SHADER_EXTENSIONS: [&str; 3] = ["tga", "png", "jpg"];

/// Why a texture file that was found could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading the file failed.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_FILE_BYTES`].
    #[error("{}: {bytes} bytes, more than the {MAX_FILE_BYTES} a texture may have", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
    },
    /// The bytes are not an image this decoder reads, or exceed [`MAX_SIDE`] or [`MAX_BYTES`].
    #[error("{}: {problem}", path.display())]
    Decode {
        /// The file.
        path: PathBuf,
        /// What the decoder said.
        problem: String,
    },
}

impl Error {
    /// The same failure, for another material naming the same file (the system's error
    /// kept as its kind and message).
    fn again(&self) -> Error {
        match self {
            Error::Io { path, source } => Error::Io {
                path: path.clone(),
                source: std::io::Error::new(source.kind(), source.to_string()),
            },
            Error::TooLarge { path, bytes } => Error::TooLarge {
                path: path.clone(),
                bytes: *bytes,
            },
            Error::Decode { path, problem } => Error::Decode {
                path: path.clone(),
                problem: problem.clone(),
            },
        }
    }
}

/// What [`attach`] did, material by material.
#[derive(Debug, Default)]
pub struct Report {
    /// Textures found and decoded into the asset.
    pub found: Vec<Found>,
    /// Materials whose texture is in none of the folders.
    pub missing: Vec<Missing>,
    /// Files found but not usable.
    pub failed: Vec<(usize, Error)>,
}

/// A texture found and decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The material (index into [`Asset::materials`]).
    pub material: usize,
    /// The file read.
    pub path: PathBuf,
}

/// A texture looked for and not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// The material (index into [`Asset::materials`]).
    pub material: usize,
    /// The file names tried, in order.
    pub names: Vec<String>,
    /// The folders they were looked for in, in order.
    pub folders: Vec<PathBuf>,
}

impl Report {
    /// Every file read, for an output guard: no output may replace one.
    pub fn inputs(&self) -> impl Iterator<Item = &Path> {
        self.found.iter().map(|f| f.path.as_path())
    }
}

/// The file names to try for `material`, best first (see the module documentation); empty
/// for a material with an image of its own or nothing to look up.
///
/// ```
/// use skelmap_core::asset::Material;
/// use skelmap_author::texture::names;
///
/// let shader = Material { name: "models/golem.tga".into(), ..Material::default() };
/// assert_eq!(
///     names(&shader),
///     ["models/golem.tga", "models/golem.png", "models/golem.jpg", "golem.tga", "golem.png", "golem.jpg"]
/// );
/// let stored = Material { texture: Some(".\\skins\\jeep1.jpg".into()), ..Material::default() };
/// assert_eq!(names(&stored), ["skins/jeep1.jpg", "jeep1.jpg"]);
/// ```
#[must_use]
pub fn names(material: &Material) -> Vec<String> {
    if material.image.is_some() {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    let mut push = |name: String| {
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    };
    if let Some(stored) = &material.texture {
        let path = clean(stored);
        push(path.clone());
        push(last_component(&path).to_string());
    } else {
        let path = clean(&material.name);
        for candidate in [path.clone(), last_component(&path).to_string()] {
            if has_image_extension(&candidate) {
                push(candidate.clone());
            }
            let stem = strip_image_extension(&candidate);
            // An empty shader name (MD5 exporters write `shader ""`) or a folder names no file.
            if stem.is_empty() || stem.ends_with('/') {
                continue;
            }
            for extension in SHADER_EXTENSIONS {
                push(format!("{stem}.{extension}"));
            }
        }
    }
    out
}

/// Looks up each material's texture beside `model`, then in each of `folders` (see the module
/// documentation), decodes the first file found into `asset`'s images and points the
/// material at it. Materials with an image of their own are left as they are.
///
/// ```
/// use skelmap_core::asset::{Asset, Material, UpAxis};
/// use skelmap_author::texture;
///
/// let dir = std::env::temp_dir().join("skelmap-texture-doc");
/// std::fs::create_dir_all(&dir)?;
/// // A 1 × 1 red TGA (uncompressed true colour, bottom-up) named as DarkPlaces would try it.
/// let tga = [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 24, 0, 0, 0, 255];
/// std::fs::write(dir.join("golem.tga"), tga)?;
/// let mut asset = Asset {
///     format: "DPM",
///     up: UpAxis::Z,
///     front: [1.0, 0.0, 0.0],
///     meshes: Vec::new(),
///     materials: vec![Material { name: "Golem".into(), ..Material::default() }],
///     images: Vec::new(),
///     skeleton: None,
///     clips: Vec::new(),
///     tags: Vec::new(),
///     frame: None,
///     at: None,
///     given_pose: false,
///     replaced_non_finite: 0,
///     code_page: Default::default(),
/// };
/// let report = texture::attach(&mut asset, &dir.join("golem.dpm"), &[]);
/// assert_eq!(report.found.len(), 1); // `Golem.tga` matched `golem.tga`, ignoring case
/// assert_eq!(asset.images[0].rgba, [255, 0, 0, 255]);
/// assert_eq!(asset.materials[0].image, Some(0));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn attach(asset: &mut Asset, model: &Path, folders: &[PathBuf]) -> Report {
    let beside = model
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let beside = if beside.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        beside
    };
    let folders: Vec<PathBuf> = std::iter::once(beside)
        .chain(folders.iter().cloned())
        .collect();
    let mut report = Report::default();
    // Each file decoded once, whichever materials name it; one that fails, failed once
    // (its position in `report.failed`).
    let mut decoded: HashMap<PathBuf, usize> = HashMap::new();
    let mut failed: HashMap<PathBuf, usize> = HashMap::new();
    let mut listings = Listings::default();
    for i in 0..asset.materials.len() {
        let names = names(&asset.materials[i]);
        if names.is_empty() {
            continue;
        }
        asset.materials[i].external = None;
        let Some(path) = find(&names, &folders, &mut listings) else {
            report.missing.push(Missing {
                material: i,
                names,
                folders: folders.clone(),
            });
            continue;
        };
        if let Some(&image) = decoded.get(&path) {
            asset.materials[i].image = Some(image);
            report.found.push(Found { material: i, path });
            continue;
        }
        if let Some(e) = failed.get(&path).and_then(|&k| report.failed.get(k)) {
            let again = e.1.again();
            report.failed.push((i, again));
            continue;
        }
        match read(&path) {
            Ok(image) => {
                asset.images.push(image);
                let index = asset.images.len() - 1;
                asset.materials[i].image = Some(index);
                decoded.insert(path.clone(), index);
                report.found.push(Found { material: i, path });
            }
            Err(e) => {
                failed.insert(path, report.failed.len());
                report.failed.push((i, e));
            }
        }
    }
    report
}

/// Decodes the image file at `path` (PNG, JPEG, BMP or TGA, told by its bytes, else by its
/// extension; PCX, told by its header) into RGBA, within [`MAX_FILE_BYTES`], [`MAX_SIDE`]
/// and [`MAX_BYTES`].
///
/// # Errors
///
/// [`Error::Io`], [`Error::TooLarge`] or [`Error::Decode`].
pub fn read(path: &Path) -> Result<Image, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let bytes = std::fs::metadata(path).map_err(io)?.len();
    if bytes > MAX_FILE_BYTES {
        return Err(Error::TooLarge {
            path: path.to_path_buf(),
            bytes,
        });
    }
    let data = std::fs::read(path).map_err(io)?;
    // Lossy: a name that is not UTF-8 (a GBK file name on Unix) keeps its extension.
    decode(&data, Some(&path.to_string_lossy())).map_err(|problem| Error::Decode {
        path: path.to_path_buf(),
        problem,
    })
}

/// Decodes `bytes` (PNG, JPEG, BMP or TGA, told by the bytes, else by `name`'s extension;
/// PCX, told by its header) into RGBA within [`MAX_SIDE`] and [`MAX_BYTES`]; the error says
/// why not.
pub(crate) fn decode(bytes: &[u8], name: Option<&str>) -> Result<Image, String> {
    decode_within(bytes, name, MAX_SIDE, MAX_BYTES)
}

/// [`decode`] within other bounds (the glTF importer's).
pub(crate) fn decode_within(
    bytes: &[u8],
    name: Option<&str>,
    side: u32,
    alloc: u64,
) -> Result<Image, String> {
    let format = image::guess_format(bytes)
        .ok()
        .or_else(|| name.and_then(|n| ImageFormat::from_path(n).ok()))
        .filter(|f| {
            matches!(
                f,
                ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Bmp | ImageFormat::Tga
            )
        });
    let mut limits = Limits::default();
    limits.max_image_width = Some(side);
    limits.max_image_height = Some(side);
    limits.max_alloc = Some(alloc);
    let decoded = match format {
        Some(format) => {
            let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
            reader.limits(limits);
            reader.decode()
        }
        None if is_pcx(bytes) => decode_pcx(bytes, limits),
        None => return Err("not a PNG, JPEG, BMP, TGA or PCX image".to_string()),
    };
    let rgba = decoded.map_err(|e| e.to_string())?.to_rgba8();
    Ok(Image {
        width: rgba.width(),
        height: rgba.height(),
        rgba: rgba.into_raw(),
        jpeg: (format == Some(ImageFormat::Jpeg)).then(|| bytes.to_vec()),
    })
}

/// Whether `bytes` start as a PCX file does: its identifier (`0x0A`), a version ZSoft
/// defined (0, 2, 3, 4 or 5) and an encoding (0 stored, 1 run-length).
fn is_pcx(bytes: &[u8]) -> bool {
    matches!(bytes, [0x0A, 0 | 2..=5, 0 | 1, ..])
}

/// A PCX file's pixels (paletted or RGB), its size checked against `limits` before anything
/// is decoded. A paletted file whose 768-byte palette follows its pixels without the `0x0C`
/// byte that marks it is read with that palette, as Quake II reads every PCX (its
/// `LoadPCX` takes the last 768 bytes, marked or not): some of its skins are saved so.
fn decode_pcx(bytes: &[u8], limits: Limits) -> image::ImageResult<image::DynamicImage> {
    use image::ImageDecoder;
    let marked = unmarked_palette(bytes).map(|at| {
        let mut marked = Vec::with_capacity(bytes.len() + 1);
        marked.extend_from_slice(&bytes[..at]);
        marked.push(PCX_PALETTE_MARK);
        marked.extend_from_slice(&bytes[at..]);
        marked
    });
    let mut decoder =
        image_extras::pcx::PCXDecoder::new(Cursor::new(marked.as_deref().unwrap_or(bytes)))?;
    decoder.set_limits(limits)?;
    image::DynamicImage::from_decoder(decoder)
}

/// The byte that precedes a PCX file's 256-colour palette.
const PCX_PALETTE_MARK: u8 = 0x0C;

/// Where the palette of a paletted PCX (8 bits a pixel, one plane) starts when it follows
/// the pixels unmarked: the run-length pixel data ends exactly 768 bytes before the end of
/// the file, and neither the byte before those 768 nor their first is the mark (a file cut
/// short of its last palette byte has the mark first). `None` for every other file.
fn unmarked_palette(bytes: &[u8]) -> Option<usize> {
    let at = bytes.len().checked_sub(768)?;
    let header = bytes.get(..128)?;
    let (bits, planes) = (header[3], header[65]);
    let line = usize::from(u16::from_le_bytes([header[66], header[67]]));
    let rows = usize::from(u16::from_le_bytes([header[10], header[11]]))
        .checked_sub(usize::from(u16::from_le_bytes([header[6], header[7]])))?
        + 1;
    if bits != 8 || planes != 1 || bytes.get(at.checked_sub(1)?) == Some(&PCX_PALETTE_MARK) {
        return None;
    }
    // The pixel data's end: each byte from 0xC0 up repeats the next one by its low six bits.
    let mut left = line.checked_mul(rows)?;
    let mut i = 128;
    while left > 0 {
        let byte = *bytes.get(i)?;
        let (count, size) = if byte >= 0xC0 {
            (usize::from(byte & 0x3F), 2)
        } else {
            (1, 1)
        };
        left = left.saturating_sub(count);
        i += size;
    }
    (i == at && bytes.get(at) != Some(&PCX_PALETTE_MARK)).then_some(at)
}

/// Decodes an embedded DDS file (a GameStudio skin of type `0x6` or `0x16`: DXT1, DXT3 or
/// DXT5, the first mip level) into RGBA within [`MAX_SIDE`] and [`MAX_BYTES`]; `None` when
/// the bytes are not such a file. The decoder [`asset::Options::dds`](skelmap_core::asset::Options::dds)
/// takes.
///
/// ```
/// // A 4 × 4 DXT1 file of one block: colour 0 pure red, every texel index 0.
/// let mut dds = b"DDS ".to_vec();
/// let mut header = [0u32; 31];
/// header[0] = 124; // size
/// header[1] = 0x1007; // caps, height, width, pixel format
/// (header[2], header[3]) = (4, 4); // height, width
/// header[18] = 32; // pixel format size
/// header[19] = 4; // a FourCC follows
/// header[20] = u32::from_le_bytes(*b"DXT1");
/// header[26] = 0x1000; // a texture
/// dds.extend(header.iter().flat_map(|w| w.to_le_bytes()));
/// dds.extend([0x00, 0xF8, 0x00, 0x00, 0, 0, 0, 0]);
/// let image = skelmap_author::texture::decode_dds(&dds).unwrap();
/// assert_eq!((image.width, image.height), (4, 4));
/// assert_eq!(&image.rgba[..4], &[255, 0, 0, 255]);
/// ```
#[must_use]
pub fn decode_dds(bytes: &[u8]) -> Option<Image> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), ImageFormat::Dds);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_BYTES);
    reader.limits(limits);
    let rgba = reader.decode().ok()?.to_rgba8();
    Some(Image {
        width: rgba.width(),
        height: rgba.height(),
        rgba: rgba.into_raw(),
        jpeg: None,
    })
}

/// The width and height of the first level of a DDS file, from its header (what
/// [`decode_dds`] would give, without decoding); `None` when the bytes are not a DDS file the
/// decoder reads or exceed [`MAX_SIDE`].
#[must_use]
pub fn dds_size(bytes: &[u8]) -> Option<(u32, u32)> {
    use image::ImageDecoder;
    let decoder = image::codecs::dds::DdsDecoder::new(Cursor::new(bytes)).ok()?;
    let (w, h) = decoder.dimensions();
    (w <= MAX_SIDE && h <= MAX_SIDE).then_some((w, h))
}

/// Skin `index` of `model` decoded to RGBA, whatever it stores: texels
/// ([`Model::skin_rgba`](skelmap_core::Model::skin_rgba)) or an embedded DDS file
/// ([`decode_dds`]); `None` out of range, for a skin without texels (an external name, a
/// material only) or for a DDS file that does not decode.
#[must_use]
pub fn skin_image(model: &skelmap_core::Model<'_>, index: usize) -> Option<Image> {
    let skin = model.skin(index)?;
    if let Some(file) = skin.dds() {
        return decode_dds(file);
    }
    let rgba = model.skin_rgba(index)?;
    Some(Image {
        width: skin.width(),
        height: skin.height(),
        rgba,
        jpeg: None,
    })
}

/// The first of `names` that exists in one of `folders`, folders first; `listings` holds
/// the folders already read.
fn find(names: &[String], folders: &[PathBuf], listings: &mut Listings) -> Option<PathBuf> {
    for folder in folders {
        for name in names {
            if let Some(found) = in_folder(folder, name, listings) {
                return Some(found);
            }
        }
    }
    None
}

/// `name` (a relative path with `/`) under `folder`, exactly or with its last component in
/// another ASCII case; `None` for a name that would leave the folder.
fn in_folder(folder: &Path, name: &str, listings: &mut Listings) -> Option<PathBuf> {
    if name.starts_with('/') || name.split('/').any(|c| c == ".." || c.contains(':')) {
        return None;
    }
    let exact = folder.join(name);
    if exact.is_file() {
        return Some(exact);
    }
    let parent = exact.parent()?;
    let wanted = exact.file_name()?.to_str()?;
    listings.find(parent, wanted)
}

/// Folders read for case-insensitive matches, each read once however many names are looked
/// up in it: per folder, its entries (the first [`MAX_FOLDER_ENTRIES`] it lists) by their
/// name in ASCII lower case, each name's entries in the order the folder lists them.
#[derive(Default)]
struct Listings {
    folders: HashMap<PathBuf, Option<HashMap<String, Vec<PathBuf>>>>,
}

impl Listings {
    /// The first entry of `folder` (in the order it lists them) whose name is `wanted` in
    /// any ASCII case and that is a file; `None` when there is none or the folder cannot be
    /// read.
    fn find(&mut self, folder: &Path, wanted: &str) -> Option<PathBuf> {
        let listing = self
            .folders
            .entry(folder.to_path_buf())
            .or_insert_with(|| list(folder))
            .as_mut()?;
        let entries = listing.get_mut(&wanted.to_ascii_lowercase())?;
        // The entries before the first file are not files: dropped, so that over every
        // look-up each entry is examined once (the file found, once a look-up).
        let first_file = entries.iter().position(|p| p.is_file());
        entries.drain(..first_file.unwrap_or(entries.len()));
        entries.first().cloned()
    }
}

/// The first [`MAX_FOLDER_ENTRIES`] entries of `folder` whose names read as text
/// ([`entry_text`]), by name in ASCII lower case, in the order the folder lists them;
/// `None` when the folder cannot be read.
fn list(folder: &Path) -> Option<HashMap<String, Vec<PathBuf>>> {
    let mut entries: HashMap<String, Vec<PathBuf>> = HashMap::new();
    for entry in std::fs::read_dir(folder)
        .ok()?
        .take(MAX_FOLDER_ENTRIES)
        .filter_map(Result::ok)
    {
        if let Some(name) = entry_text(&entry.file_name()) {
            entries
                .entry(name.to_ascii_lowercase())
                .or_default()
                .push(entry.path());
        }
    }
    Some(entries)
}

/// A folder entry's name as text: as it is when it is UTF-8; on Unix, where names are
/// bytes, else as GBK when it is GBK (a model's files unpacked as a Chinese Windows archive
/// stored them, the names the model holds in GBK too and reads as text).
fn entry_text(name: &std::ffi::OsStr) -> Option<std::borrow::Cow<'_, str>> {
    if let Some(text) = name.to_str() {
        return Some(text.into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        skelmap_core::name::CodePage::Gbk.decoded(name.as_bytes())
    }
    #[cfg(not(unix))]
    None
}

/// `name` with `\` made `/` and leading `./` dropped.
fn clean(name: &str) -> String {
    let mut rest = name.trim();
    // `.\` becomes `./` once `\` is `/`: both are dropped.
    while let Some(after) = rest.strip_prefix("./").or_else(|| rest.strip_prefix(".\\")) {
        rest = after;
    }
    rest.replace('\\', "/")
}

/// What follows the last `/` (or a drive's `:`).
fn last_component(path: &str) -> &str {
    path.rsplit(['/', ':']).next().unwrap_or(path)
}

fn has_image_extension(name: &str) -> bool {
    strip_image_extension(name).len() < name.len()
}

/// `name` without a `.tga`, `.png`, `.jpg`, `.jpeg`, `.bmp` or `.pcx` ending (any case).
fn strip_image_extension(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((stem, ext))
            if ["tga", "png", "jpg", "jpeg", "bmp", "pcx"]
                .iter()
                .any(|e| ext.eq_ignore_ascii_case(e))
                && !stem.is_empty() =>
        {
            stem
        }
        _ => name,
    }
}
