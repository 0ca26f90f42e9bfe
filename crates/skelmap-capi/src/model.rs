//! The model handle: the bytes it owns or borrows, the validated view over them, and the
//! functions that open, free and count.

use std::ffi::{CStr, c_char};
use std::path::{Path, PathBuf};

use skelmap_core::model::OpenOptions;
use skelmap_core::name::CodePage;
use skelmap_core::pose::framegroups::FrameGroup;
use skelmap_core::source::{Access, MapPromise};
use skelmap_core::{Format, Limits, Model, Source};

use crate::boundary::{Fail, SkelmapStatus, status, value};

/// `flags` bit for `skelmap_model_open_file`: read the file (and its companions) into memory
/// instead of mapping it, so that later changes to the file cannot affect the model.
pub const SKELMAP_OPEN_READ: u32 = 1;

/// A model's format, as `skelmap_model_format` reports it: `Format::c_value` of skelmap-core's
/// format table, which gives every format its own value; the header test holds this enum to it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkelmapFormat {
    /// DarkPlaces skeletal model.
    Dpm = 1,
    /// Qfusion/Warsow mesh paired with its SKP skeleton.
    Skm = 2,
    /// Qfusion/Warsow skeleton and animation on its own (bones and frames, no meshes).
    Skp = 3,
    /// MilkShape 3D model.
    Ms3d = 4,
    /// 3D GameStudio model (MDL3, MDL4, MDL5): vertex animation.
    Mdl = 5,
    /// 3D GameStudio terrain (HMP5, HMP7).
    Hmp = 6,
    /// The SL engine's mesh, with its `.anim` when one was found.
    SlMdl = 7,
    /// Quake 1 model (`IDPO`): vertex animation, 8-bit skins. (A GameStudio MDL2, which has
    /// Quake's layout, reports `SKELMAP_FORMAT_MDL`.)
    Quake = 8,
    /// The SL engine's animation on its own (bones and keyframes, no meshes).
    SlAnim = 9,
    /// Inter-Quake Model (`INTERQUAKEMODEL`, version 2): skeletal meshes with scaled joints, or
    /// an animation on its own.
    Iqm = 10,
    /// 3D GameStudio A6/A7 model (`MDL7`): bones and weights, or vertex animation.
    Mdl7 = 11,
    /// Quake III model (`IDP3`, version 15): surfaces of vertex frames, and tags.
    Md3 = 12,
    /// Quake II model (`IDP2`, version 8): one mesh of vertex frames, each with its own scale
    /// and translate; skins named, not embedded.
    Md2 = 13,
    /// Return to Castle Wolfenstein's compressed MD3 (`IDPC`, version 2): surfaces of base
    /// and compressed frames, and tags.
    Mdc = 14,
    /// Doom 3 model (`MD5Version 10` text): an `.md5mesh` with the `.md5anim` animations
    /// beside it that fit its joints, or an `.md5anim` on its own.
    Md5 = 15,
    /// DarkPlaces Zymotic model (`ZYMOTICMODEL`, type 1): one-bone vertices, 3×4 poses,
    /// scenes as clips.
    Zym = 16,
    /// ioquake3 skeletal model (`RDM5`, version 2): model-space bone frames (plain or
    /// compressed), weighted vertices, levels of detail, tags on bones.
    Mdr = 17,
    /// Half-Life 1 studio model (`IDST` v10) with its `<stem>T.mdl` textures and
    /// `<stem>01.mdl` sequence groups.
    Hl1 = 18,
    /// Enemy Territory skeletal mesh (`MDMW`, version 3) with its MDX skeleton and animation:
    /// weighted vertices, collapse maps, tags on bones.
    Mdm = 21,
    /// Enemy Territory skeleton and animation on its own (`MDXW`, version 2): bones and
    /// frames, no meshes.
    Mdx = 22,
    /// Unreal skeletal mesh (ActorX `.psk`/`.pskx` chunks): wedges of points, faces by
    /// material, a reference skeleton, raw weights; the `.psa` beside it as its animations.
    Psk = 19,
    /// Unreal skeletal animation (ActorX `.psa`) opened alone: bones and sequences of keys.
    Psa = 20,
}

/// Counts of a model, filled by `skelmap_model_counts`. Fields that do not apply to the
/// format are 0.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SkelmapCounts {
    /// Meshes, addressed `0..meshes` by the mesh functions (an MS3D, MDL or HMP is one mesh).
    pub meshes: u32,
    /// Bones (MS3D: joints).
    pub bones: u32,
    /// Frames (MS3D: the keyframer's frame count, at least 1).
    pub frames: u32,
    /// Frame groups (named animations).
    pub frame_groups: u32,
    /// Vertices over all meshes.
    pub vertices: u64,
    /// Triangles over all meshes.
    pub triangles: u64,
    /// Non-fatal findings recorded while validating (see `skelmap_model_warning`).
    pub warnings: u32,
    /// Skins (see `skelmap_skin_info`) the model embeds: a GameStudio MDL's, HMP's or MDL7's,
    /// a Quake model's, a Half-Life model's textures.
    pub skins: u32,
    /// Materials (see `skelmap_material`).
    pub materials: u32,
    /// Attachment points (see `skelmap_attachment`): attachment bones, every joint of the
    /// formats without such a flag (IQM, MS3D, MD5, PSK, PSA, ZYM), tags.
    pub attachments: u32,
    /// Bone controllers (see `skelmap_controller`): a Half-Life model's; 0 elsewhere.
    pub controllers: u32,
}

/// An open, validated model. Opaque to C; created by the `skelmap_model_open_*` functions and
/// destroyed by `skelmap_model_free`.
#[derive(Debug)]
pub struct SkelmapModel {
    /// The model, owning (or, opened from caller memory, borrowing by the caller's promise)
    /// its bytes.
    pub(crate) model: Model<'static>,
    /// Its frame groups, replaceable by `skelmap_model_set_framegroups`.
    pub(crate) groups: Vec<FrameGroup>,
    warnings: Vec<String>,
}

impl SkelmapModel {
    pub(crate) fn new(model: Model<'static>) -> SkelmapModel {
        SkelmapModel {
            groups: model.clips().to_vec(),
            warnings: model
                .diagnostics()
                .warnings()
                .iter()
                .map(ToString::to_string)
                .collect(),
            model,
        }
    }

    pub(crate) fn format(&self) -> Format {
        self.model.format()
    }

    pub(crate) fn frame_count(&self) -> u32 {
        u32::try_from(self.model.num_frames()).unwrap_or(u32::MAX)
    }

    pub(crate) fn counts(&self) -> SkelmapCounts {
        let m = &self.model;
        SkelmapCounts {
            meshes: m.num_meshes() as u32,
            bones: m.num_bones() as u32,
            frames: self.frame_count(),
            frame_groups: self.groups.len() as u32,
            vertices: m.num_vertices() as u64,
            triangles: m.num_triangles() as u64,
            warnings: self.warnings.len() as u32,
            skins: m.skins().len() as u32,
            materials: m.num_materials() as u32,
            attachments: m.num_attachments() as u32,
            controllers: m.controllers().len() as u32,
        }
    }
}

/// Reads a NUL-terminated C string argument.
///
/// # Safety
///
/// `s` is NULL or a valid NUL-terminated string.
pub(crate) unsafe fn c_str<'a>(
    s: *const c_char,
    parameter: &'static str,
) -> Result<&'a CStr, Fail> {
    if s.is_null() {
        return Err(Fail::null(parameter));
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    Ok(unsafe { CStr::from_ptr(s) })
}

/// Stores `model` through the caller's `out` pointer.
///
/// # Safety
///
/// `out` is valid for a write of one pointer.
pub(crate) unsafe fn hand_out<T>(
    out: *mut *mut T,
    open: impl FnOnce() -> Result<T, Fail>,
) -> SkelmapStatus {
    status(|| {
        if out.is_null() {
            return Err(Fail::null("out"));
        }
        // SAFETY: `out` is non-NULL and writable by the caller's contract. It is cleared first
        // so that a failure leaves NULL behind.
        unsafe { out.write(std::ptr::null_mut()) };
        let model = Box::new(open()?);
        // SAFETY: as above.
        unsafe { out.write(Box::into_raw(model)) };
        Ok(())
    })
}

fn check_flags(flags: u32, allowed: u32) -> Result<bool, Fail> {
    if flags & !allowed != 0 {
        return Err(Fail::invalid(format!(
            "unknown flag bits {:#x}",
            flags & !allowed
        )));
    }
    Ok(flags & SKELMAP_OPEN_READ != 0)
}

/// Opens and validates the model file at `path` (UTF-8), storing a new model in `*out`
/// (NULL on failure).
///
/// The format is recognised from the file's first bytes, never from its name (an SL `.anim`,
/// which has no magic, by its extension). The file is memory-mapped unless `flags` has
/// `SKELMAP_OPEN_READ`, which reads it into memory instead. An SKM mesh is paired with its
/// skeleton the way the engines find it (the `.cfg`'s `import`, else the `.skp` of the same
/// name, next to the mesh) and with its levels of detail; an SL mesh with the `.anim` of the
/// same name, when there is one. Frame groups come from `<path>.framegroups` when that file
/// exists and is well formed (a malformed one is ignored with a warning), else from the frame
/// names.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`path` or `out`),
/// `SKELMAP_STATUS_INVALID_ARGUMENT` (unknown `flags` bits, a path that is not UTF-8),
/// `SKELMAP_STATUS_IO`, `SKELMAP_STATUS_UNKNOWN_FORMAT`, `SKELMAP_STATUS_MALFORMED`,
/// `SKELMAP_STATUS_UNSUPPORTED`, `SKELMAP_STATUS_LIMIT` or `SKELMAP_STATUS_RESOLVE` (a
/// companion file missing or refused).
///
/// # Safety
///
/// `path` is a NUL-terminated string and `out` is valid for writing one pointer. Unless
/// `SKELMAP_OPEN_READ` is given, the file (and an SKM's companions) must not be modified or
/// truncated, by this or any other process, until the model is freed: a mapped file that
/// changes underneath is undefined behaviour (a truncated one raises SIGBUS).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_open_file(
    path: *const c_char,
    flags: u32,
    out: *mut *mut SkelmapModel,
) -> SkelmapStatus {
    // SAFETY: forwarded from this function's contract (`skin` NULL).
    unsafe { skelmap_model_open_file_skin(path, flags, std::ptr::null(), out) }
}

/// `skelmap_model_open_file`, with an MD3's skin chosen by name: `skin` `"red"` reads
/// `head_red.skin` beside `head.md3` for its surfaces' shaders (NULL: `head_default.skin`,
/// when there is one). Other formats ignore `skin`.
///
/// Returns as `skelmap_model_open_file` does; `SKELMAP_STATUS_RESOLVE` also for a skin
/// asked for by name that does not exist, `SKELMAP_STATUS_INVALID_ARGUMENT` for a `skin` that
/// is not UTF-8.
///
/// # Safety
///
/// As `skelmap_model_open_file`; `skin` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_open_file_skin(
    path: *const c_char,
    flags: u32,
    skin: *const c_char,
    out: *mut *mut SkelmapModel,
) -> SkelmapStatus {
    let open = || {
        // SAFETY: forwarded from this function's contract.
        let (path, options) = unsafe { file_options(path, flags, skin) }?;
        Ok(SkelmapModel::new(Model::open_with(path, &options)?))
    };
    // SAFETY: `out` is valid for one pointer write by this function's contract.
    unsafe { hand_out(out, open) }
}

/// How `skelmap_model_open_file_with` opens a model and its companions. All zero
/// (`SkelmapOpenOptions options = {0};`, or a NULL pointer) opens as
/// `skelmap_model_open_file` does with `flags` 0. The strings are UTF-8 and NUL-terminated,
/// or NULL for the default; the library keeps none of them.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SkelmapOpenOptions {
    /// `SKELMAP_OPEN_READ` or 0, as `skelmap_model_open_file`'s `flags`.
    pub flags: u32,
    /// A Half-Life model's body value (an entity's `body`): each body part shows its model
    /// `(body / base) % models`. 0: every part's first model. Other formats ignore it.
    pub body: u32,
    /// The game's base directory: companions are read only from inside it, and an SKM's
    /// `.cfg` `import` paths and an MDM's character files are relative to it; the model's
    /// path must lie inside it. NULL: for an MDM the nearest folder above it holding
    /// `characters/`, else the model's own directory.
    pub root: *const c_char,
    /// An MD3's or MDM's skin by name, as `skelmap_model_open_file_skin`'s `skin`. NULL: an
    /// MDM's character's skin, else `<stem>_default.skin`, when there is one.
    pub skin: *const c_char,
    /// A mesh's skeleton file, any path, instead of the one found by name: an SKM's `.skp`,
    /// an MDM's `.mdx`. NULL: found by name (an MDM's also through its character file).
    pub skeleton: *const c_char,
    /// An animation file to play, any path, instead of those found by name: an
    /// animation-only IQM on an IQM, an `.md5anim` on an MD5 mesh, a `.psa` on a PSK. NULL:
    /// found by name.
    pub animation: *const c_char,
}

/// A NUL-terminated UTF-8 string argument that may be NULL.
///
/// # Safety
///
/// `s` is NULL or a valid NUL-terminated string that outlives `'a`.
unsafe fn optional_str<'a>(
    s: *const c_char,
    parameter: &'static str,
) -> Result<Option<&'a str>, Fail> {
    if s.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL and NUL-terminated by this function's contract.
    let s = unsafe { c_str(s, parameter) }?;
    s.to_str()
        .map(Some)
        .map_err(|_| Fail::invalid(format!("{parameter} is not UTF-8")))
}

/// The path and the options of a file opened with `flags` and the skin name `skin`.
///
/// # Safety
///
/// `path` and `skin` are NULL or NUL-terminated; with the map access `flags` give, the files
/// opened must not change while the model is alive (the caller's contract).
pub(crate) unsafe fn file_options<'a>(
    path: *const c_char,
    flags: u32,
    skin: *const c_char,
) -> Result<(&'a Path, OpenOptions), Fail> {
    let options = SkelmapOpenOptions {
        flags,
        skin,
        ..SkelmapOpenOptions::DEFAULT
    };
    // SAFETY: forwarded from this function's contract; the other strings are NULL.
    unsafe { open_options(path, &options) }
}

impl SkelmapOpenOptions {
    /// Every field zero: the defaults.
    const DEFAULT: SkelmapOpenOptions = SkelmapOpenOptions {
        flags: 0,
        body: 0,
        root: std::ptr::null(),
        skin: std::ptr::null(),
        skeleton: std::ptr::null(),
        animation: std::ptr::null(),
    };
}

/// The path and the Rust options of a file opened with `options`.
///
/// # Safety
///
/// `path` and `options`' strings are NULL or NUL-terminated; with the map access the flags
/// give, the files opened must not change while the model is alive (the caller's contract).
unsafe fn open_options<'a>(
    path: *const c_char,
    options: &SkelmapOpenOptions,
) -> Result<(&'a Path, OpenOptions), Fail> {
    let read = check_flags(options.flags, SKELMAP_OPEN_READ)?;
    // SAFETY: `path` is NULL or NUL-terminated by this function's contract.
    let path = unsafe { c_str(path, "path") }?
        .to_str()
        .map_err(|_| Fail::invalid("path is not UTF-8"))?;
    // SAFETY: each string is NULL or NUL-terminated by this function's contract.
    let (root, skin, skeleton, animation) = unsafe {
        (
            optional_str(options.root, "root")?,
            optional_str(options.skin, "skin")?,
            optional_str(options.skeleton, "skeleton")?,
            optional_str(options.animation, "animation")?,
        )
    };
    let access = if read {
        Access::Read
    } else {
        // SAFETY: the contract of the caller, which the C caller accepted: the files are
        // not modified or truncated while the model is alive.
        Access::Map(unsafe { MapPromise::new() })
    };
    let options = OpenOptions {
        access,
        root: root.map(PathBuf::from),
        skin: skin.map(str::to_string),
        skeleton: skeleton.map(PathBuf::from),
        animation: animation.map(PathBuf::from),
        // Body 0 shows what no body value shows.
        body: (options.body != 0).then_some(options.body),
        ..OpenOptions::default()
    };
    Ok((Path::new(path), options))
}

/// `skelmap_model_open_file` with the options a game gives: a Half-Life model's body value,
/// the game's base directory, an MD3's skin, a mesh's skeleton or an animation given by path
/// (see `SkelmapOpenOptions`). `options` NULL: the defaults (all zero).
///
/// Returns as `skelmap_model_open_file` does; `SKELMAP_STATUS_INVALID_ARGUMENT` also for a
/// string in `options` that is not UTF-8, `SKELMAP_STATUS_IO` for a skeleton or animation
/// file that cannot be read, `SKELMAP_STATUS_RESOLVE` for a model outside `root` or a skin
/// asked for by name that does not exist, `SKELMAP_STATUS_MALFORMED` for a given skeleton or
/// animation that does not fit the model.
///
/// ```c
/// SkelmapOpenOptions options = {0};
/// options.flags = SKELMAP_OPEN_READ;
/// options.body = 3; // the entity's body value
/// SkelmapModel *model = NULL;
/// if (skelmap_model_open_file_with("models/scientist.mdl", &options, &model) != SKELMAP_STATUS_OK)
///     return 1;
/// ```
///
/// # Safety
///
/// As `skelmap_model_open_file`; `options` is NULL or points to a `SkelmapOpenOptions` whose
/// strings are NULL or NUL-terminated (read during the call only). Unless the flags have
/// `SKELMAP_OPEN_READ`, the given skeleton and animation files are mapped too, and must not
/// change until the model is freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_open_file_with(
    path: *const c_char,
    options: Option<&SkelmapOpenOptions>,
    out: *mut *mut SkelmapModel,
) -> SkelmapStatus {
    let open = || {
        let options = options.unwrap_or(&SkelmapOpenOptions::DEFAULT);
        // SAFETY: forwarded from this function's contract.
        let (path, options) = unsafe { open_options(path, options) }?;
        Ok(SkelmapModel::new(Model::open_with(path, &options)?))
    };
    // SAFETY: `out` is valid for one pointer write by this function's contract.
    unsafe { hand_out(out, open) }
}

/// Validates the model in caller memory `data[0..len]`, storing a new model in `*out` (NULL
/// on failure). Nothing is copied: the model reads `data` directly.
///
/// An SKM mesh cannot be opened this way, since it needs its skeleton: use
/// `skelmap_model_open_skm_memory`. `flags` must be 0.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`data` with a non-zero
/// `len`, or `out`), `SKELMAP_STATUS_INVALID_ARGUMENT` (`flags`, a length over `PTRDIFF_MAX`),
/// `SKELMAP_STATUS_UNKNOWN_FORMAT`, `SKELMAP_STATUS_MALFORMED`, `SKELMAP_STATUS_UNSUPPORTED`,
/// `SKELMAP_STATUS_LIMIT` or `SKELMAP_STATUS_RESOLVE` (an SKM without its skeleton).
///
/// # Safety
///
/// `data` is valid for reads of `len` bytes (it may be NULL when `len` is 0), and `out` for
/// writing one pointer. **`data` must stay valid and unmodified until the model is freed**:
/// the model borrows it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_open_memory(
    data: *const u8,
    len: usize,
    flags: u32,
    out: *mut *mut SkelmapModel,
) -> SkelmapStatus {
    let open = || {
        check_flags(flags, 0)?;
        // SAFETY: `data` is readable for `len` bytes until the model is freed (contract).
        let bytes = unsafe { borrowed(data, len, "data") }?;
        Ok(SkelmapModel::new(Model::from_bytes(bytes)?))
    };
    // SAFETY: `out` is valid for one pointer write by this function's contract.
    unsafe { hand_out(out, open) }
}

/// Validates an SKM mesh and its SKP skeleton, both in caller memory, and pairs them (their
/// bone counts must match), storing a new model in `*out` (NULL on failure). Nothing is
/// copied. `flags` must be 0.
///
/// Returns as `skelmap_model_open_memory` does; `SKELMAP_STATUS_MALFORMED` also when the two
/// do not pair.
///
/// # Safety
///
/// `skm` is valid for reads of `skm_len` bytes and `skp` of `skp_len` bytes (either may be
/// NULL when its length is 0); `out` is valid for writing one pointer. **Both buffers must
/// stay valid and unmodified until the model is freed.**
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_open_skm_memory(
    skm: *const u8,
    skm_len: usize,
    skp: *const u8,
    skp_len: usize,
    flags: u32,
    out: *mut *mut SkelmapModel,
) -> SkelmapStatus {
    let open = || {
        check_flags(flags, 0)?;
        // SAFETY: both buffers are readable for their lengths until the model is freed
        // (contract).
        let (skm, skp) = unsafe {
            (
                borrowed(skm, skm_len, "skm")?,
                borrowed(skp, skp_len, "skp")?,
            )
        };
        let model = Model::from_skm(
            Source::from_bytes(skm),
            Source::from_bytes(skp),
            &Limits::default(),
        )?;
        Ok(SkelmapModel::new(model))
    };
    // SAFETY: `out` is valid for one pointer write by this function's contract.
    unsafe { hand_out(out, open) }
}

/// Caller memory as a slice.
///
/// # Safety
///
/// `data` is valid for reads of `len` bytes until the model that keeps the slice is freed.
unsafe fn borrowed(
    data: *const u8,
    len: usize,
    parameter: &'static str,
) -> Result<&'static [u8], Fail> {
    if len == 0 {
        return Ok(&[]);
    }
    if data.is_null() {
        return Err(Fail::null(parameter));
    }
    if len > isize::MAX as usize {
        return Err(Fail::invalid(format!(
            "{parameter} length {len} is too large"
        )));
    }
    // SAFETY: non-NULL, readable for `len` bytes and kept alive by the caller (contract).
    Ok(unsafe { std::slice::from_raw_parts(data, len) })
}

/// Frees a model. NULL is allowed and does nothing. Poses sampled from the model stay valid
/// (they hold no reference to it). Returns nothing; it cannot fail.
///
/// # Safety
///
/// `model` is NULL or a pointer from a `skelmap_model_open_*` function not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_free(model: *mut SkelmapModel) {
    if !model.is_null() {
        let _ = status(|| {
            // SAFETY: the pointer came from Box::into_raw in hand_out and is freed once.
            drop(unsafe { Box::from_raw(model) });
            Ok(())
        });
    }
}

/// The model's format, a `SkelmapFormat` value.
///
/// Returns 0 (no format) when `model` is NULL (`SKELMAP_STATUS_NULL_PARAMETER`). Each value
/// comes from the format table of skelmap-core (`Format::c_value`); the header test checks
/// that this header lists every one.
///
/// # Safety
///
/// `model` is NULL or a live model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_format(model: Option<&SkelmapModel>) -> u32 {
    value(0, || {
        Ok(model.ok_or(Fail::null("model"))?.format().c_value())
    })
}

/// `skelmap_model_code_page`: the names are UTF-8 (or ASCII).
pub const SKELMAP_CODE_PAGE_UTF8: u32 = 0;
/// `skelmap_model_code_page`: the names are GBK, the code page of Chinese Windows (936).
pub const SKELMAP_CODE_PAGE_GBK: u32 = 1;

/// The code page the model's names are in (`SKELMAP_CODE_PAGE_UTF8` or
/// `SKELMAP_CODE_PAGE_GBK`): the name functions copy the bytes as stored, and a caller that
/// shows them decodes them with it. GBK when some name (a bone, mesh, material, texture,
/// attachment or frame) is not UTF-8 and is GBK.
///
/// Returns `SKELMAP_CODE_PAGE_UTF8` when `model` is NULL (`SKELMAP_STATUS_NULL_PARAMETER`).
///
/// # Safety
///
/// `model` is NULL or a live model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_code_page(model: Option<&SkelmapModel>) -> u32 {
    value(SKELMAP_CODE_PAGE_UTF8, || {
        Ok(match model.ok_or(Fail::null("model"))?.model.code_page() {
            CodePage::Utf8 => SKELMAP_CODE_PAGE_UTF8,
            CodePage::Gbk => SKELMAP_CODE_PAGE_GBK,
        })
    })
}

/// Fills `*out` with the model's counts.
///
/// Returns `SKELMAP_STATUS_OK`, or `SKELMAP_STATUS_NULL_PARAMETER` (`model` or `out`).
///
/// # Safety
///
/// `model` is NULL or a live model; `out` is NULL or valid for writing a `SkelmapCounts`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_counts(
    model: Option<&SkelmapModel>,
    out: Option<&mut SkelmapCounts>,
) -> SkelmapStatus {
    status(|| {
        let model = model.ok_or(Fail::null("model"))?;
        *out.ok_or(Fail::null("out"))? = model.counts();
        Ok(())
    })
}

/// Copies warning `index` (a non-fatal finding of validation, such as "influence weights do
/// not sum to 1 (12 vertices)") into `buf` like `skelmap_last_error` and returns its full
/// length.
///
/// Returns `SIZE_MAX` for a NULL `model` (`SKELMAP_STATUS_NULL_PARAMETER`) or an index past
/// `SkelmapCounts.warnings` (`SKELMAP_STATUS_OUT_OF_RANGE`).
///
/// # Safety
///
/// `model` is NULL or a live model; `buf` is NULL or valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_warning(
    model: Option<&SkelmapModel>,
    index: u32,
    buf: *mut c_char,
    len: usize,
) -> usize {
    value(usize::MAX, || {
        let model = model.ok_or(Fail::null("model"))?;
        let text = model
            .warnings
            .get(index as usize)
            .ok_or_else(|| Fail::out_of_range("warning", index, model.warnings.len() as u64))?;
        // SAFETY: forwarded from this function's contract.
        Ok(unsafe { crate::boundary::copy_out(text.as_bytes(), buf, len) })
    })
}
