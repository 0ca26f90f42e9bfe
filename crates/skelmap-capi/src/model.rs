//! The model handle: the bytes it owns or borrows, the validated view over them, and the
//! functions that open, free and count.

use std::cell::RefCell;
use std::ffi::{CStr, c_char};
use std::path::{Path, PathBuf};

use skelmap_core::dpm::Dpm;
use skelmap_core::gamestudio::{Hmp, Mdl};
use skelmap_core::ms3d::Ms3d;
use skelmap_core::pose::framegroups::{self, FrameGroup};
use skelmap_core::skm::resolve::{self, Resolver};
use skelmap_core::skm::{Skm, SkmModel, Skp};
use skelmap_core::slmdl::SlMdl;
use skelmap_core::{AnyModel, Diagnostics, Format, Limits, Source};

use crate::boundary::{Fail, SkelmapStatus, status, value};

/// `flags` bit for `skelmap_model_open_file`: read the file (and its companions) into memory
/// instead of mapping it, so that later changes to the file cannot affect the model.
pub const SKELMAP_OPEN_READ: u32 = 1;

/// Frame rate given to frame groups formed from frame names (DarkPlaces' default for a
/// model without a `.framegroups` file).
const NAME_GROUP_FPS: f32 = 10.0;

/// A model's format, as `skelmap_model_format` reports it.
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
    /// The SL engine's mesh (counts only through this API).
    SlMdl = 7,
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
}

/// The validated view. Its `'static` is a lie told to the type system only: the bytes live
/// exactly as long as the owning `SkelmapModel` (its `storage`) or, for borrowed memory, as
/// long as the caller promised.
#[derive(Debug)]
pub(crate) enum Kind {
    Dpm(Dpm<'static>),
    Skm(SkmModel<'static>),
    Skp(Skp<'static>),
    Ms3d(Ms3d<'static>),
    Mdl(Mdl<'static>),
    Hmp(Hmp<'static>),
    SlMdl(SlMdl<'static>),
}

/// An open, validated model. Opaque to C; created by the `skelmap_model_open_*` functions and
/// destroyed by `skelmap_model_free`.
#[derive(Debug)]
pub struct SkelmapModel {
    // Field order matters: `kind` borrows from `storage`, and fields drop in declaration
    // order, so the view goes first.
    pub(crate) kind: Kind,
    pub(crate) groups: Vec<FrameGroup>,
    warnings: Vec<String>,
    #[expect(
        dead_code,
        reason = "never read: it keeps alive the bytes `kind` borrows"
    )]
    storage: Vec<Source<'static>>,
}

/// The bytes of `source` for as long as the source lives, typed `'static`.
///
/// # Safety
///
/// The returned slice must not be used after `source` is dropped. Moving `source` is fine: a
/// mapping and a `Vec`'s heap buffer stay where they are when their owner moves.
unsafe fn outliving(source: &Source<'static>) -> &'static [u8] {
    let bytes = source.bytes();
    // SAFETY: `bytes` points at a live allocation or mapping of `bytes.len()` bytes that is
    // never written through (a `Source` hands out shared references only); the caller keeps
    // the owner alive as long as the slice is used.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr(), bytes.len()) }
}

/// Companion look-up for an SKM opened from disk: every file it loads is mapped (or read) once
/// and kept, so the model can own them.
struct CompanionResolver {
    root: PathBuf,
    read: bool,
    loaded: RefCell<Vec<(String, Source<'static>)>>,
}

impl CompanionResolver {
    fn bytes(&self, path: &str) -> Option<&'static [u8]> {
        let loaded = self.loaded.borrow();
        let (_, source) = loaded.iter().find(|(p, _)| p == path)?;
        // SAFETY: every source in `loaded` moves into the model's storage, which outlives the
        // views built from these bytes.
        Some(unsafe { outliving(source) })
    }
}

impl Resolver for CompanionResolver {
    fn load<'r>(&'r self, path: &str) -> skelmap_core::Result<Option<Source<'r>>> {
        resolve::check_path(path)?;
        if let Some(bytes) = self.bytes(path) {
            return Ok(Some(Source::from_bytes(bytes)));
        }
        let full = self.root.join(path);
        if !full.is_file() {
            return Ok(None);
        }
        let source = open_source(&full, self.read)?;
        // SAFETY: the source moves into `loaded` and from there into the model's storage.
        let bytes = unsafe { outliving(&source) };
        self.loaded.borrow_mut().push((path.to_string(), source));
        Ok(Some(Source::from_bytes(bytes)))
    }
}

fn open_source(path: &Path, read: bool) -> skelmap_core::Result<Source<'static>> {
    if read {
        Source::read(path)
    } else {
        // SAFETY: the contract of skelmap_model_open_file, which the C caller accepted: the
        // file is not modified or truncated while the model is alive.
        unsafe { Source::map(path) }
    }
}

impl SkelmapModel {
    fn new(
        kind: Kind,
        storage: Vec<Source<'static>>,
        diag: &Diagnostics,
    ) -> Result<SkelmapModel, Fail> {
        let mut model = SkelmapModel {
            kind,
            groups: Vec::new(),
            warnings: diag.warnings().iter().map(ToString::to_string).collect(),
            storage,
        };
        model.groups = model.default_groups();
        Ok(model)
    }

    /// Validates `bytes` as whatever format they hold. An SKM needs its skeleton, which
    /// `companions` provides when the model comes from disk.
    fn from_bytes(
        bytes: &'static [u8],
        mut storage: Vec<Source<'static>>,
        companions: Option<(&Path, &str, bool)>,
    ) -> Result<SkelmapModel, Fail> {
        let mut diag = Diagnostics::new();
        let limits = Limits::default();
        if Format::sniff(bytes) == Some(Format::Skm) {
            let Some((root, name, read)) = companions else {
                return Err(Fail::new(
                    SkelmapStatus::Resolve,
                    "an SKM mesh needs its SKP skeleton: use skelmap_model_open_skm_memory",
                ));
            };
            let resolver = CompanionResolver {
                root: root.to_path_buf(),
                read,
                loaded: RefCell::new(storage.drain(..).map(|s| (name.to_string(), s)).collect()),
            };
            let files = resolve::resolve(&resolver, name)?;
            let paths: Vec<String> = std::iter::once(&files.skm)
                .chain(std::iter::once(&files.skp))
                .chain(&files.lods)
                .map(|(p, _)| p.clone())
                .collect();
            drop(files);
            let bytes_of = |path: &str| {
                resolver.bytes(path).ok_or_else(|| {
                    Fail::new(SkelmapStatus::Resolve, format!("{path} was not loaded"))
                })
            };
            let mut parsed = Vec::with_capacity(paths.len());
            for path in &paths {
                parsed.push(bytes_of(path)?);
            }
            let [skm, skp, lods @ ..] = parsed.as_slice() else {
                return Err(Fail::new(SkelmapStatus::Resolve, "no skeleton resolved"));
            };
            let skm = Skm::parse_with(skm, &limits, &mut diag)?;
            let skp = Skp::parse_with(skp, &limits, &mut diag)?;
            let mut lod_views = Vec::with_capacity(lods.len());
            for lod in lods {
                lod_views.push(Skm::parse_with(lod, &limits, &mut diag)?);
            }
            let model = SkmModel::pair_with(skm, skp, &lod_views, &mut diag)?;
            let storage = resolver.loaded.into_inner().into_iter().map(|(_, s)| s);
            return SkelmapModel::new(Kind::Skm(model), storage.collect(), &diag);
        }
        let kind = match skelmap_core::open_any_with(bytes, &limits, &mut diag)? {
            Some(AnyModel::Dpm(m)) => Kind::Dpm(m),
            Some(AnyModel::Skp(m)) => Kind::Skp(m),
            Some(AnyModel::Ms3d(m)) => Kind::Ms3d(m),
            Some(AnyModel::Mdl(m)) => Kind::Mdl(m),
            Some(AnyModel::Hmp(m)) => Kind::Hmp(m),
            Some(AnyModel::SlMdl(m)) => Kind::SlMdl(m),
            Some(other) => {
                return Err(Fail::new(
                    SkelmapStatus::Unsupported,
                    format!(
                        "{} models are not available through the C API",
                        other.format()
                    ),
                ));
            }
            None => {
                return Err(Fail::new(
                    SkelmapStatus::UnknownFormat,
                    skelmap_core::UnknownFormat.to_string(),
                ));
            }
        };
        SkelmapModel::new(kind, storage, &diag)
    }

    pub(crate) fn format(&self) -> SkelmapFormat {
        match self.kind {
            Kind::Dpm(_) => SkelmapFormat::Dpm,
            Kind::Skm(_) => SkelmapFormat::Skm,
            Kind::Skp(_) => SkelmapFormat::Skp,
            Kind::Ms3d(_) => SkelmapFormat::Ms3d,
            Kind::Mdl(_) => SkelmapFormat::Mdl,
            Kind::Hmp(_) => SkelmapFormat::Hmp,
            Kind::SlMdl(_) => SkelmapFormat::SlMdl,
        }
    }

    /// Frame groups from frame names (one group for an MS3D's whole timeline).
    fn default_groups(&self) -> Vec<FrameGroup> {
        match &self.kind {
            Kind::Ms3d(m) => vec![FrameGroup {
                name: "animation".to_string(),
                first: 0,
                count: self.frame_count(),
                fps: skelmap_core::ms3d::anim::fps(m),
                looped: true,
            }],
            Kind::SlMdl(_) => Vec::new(),
            _ => {
                let names: Vec<Vec<u8>> = (0..self.frame_count())
                    .map(|i| self.frame_name(i as usize).unwrap_or_default())
                    .collect();
                framegroups::groups_from_names(names.iter().map(Vec::as_slice), NAME_GROUP_FPS)
            }
        }
    }

    pub(crate) fn frame_count(&self) -> u32 {
        match &self.kind {
            Kind::Dpm(m) => m.num_frames(),
            Kind::Skm(m) => m.skp().num_frames(),
            Kind::Skp(p) => p.num_frames(),
            Kind::Ms3d(m) => u32::try_from(skelmap_core::ms3d::anim::frame_count(m)).unwrap_or(1),
            Kind::Mdl(m) => m.frames().len() as u32,
            Kind::Hmp(h) => h.frames().len() as u32,
            Kind::SlMdl(_) => 0,
        }
    }

    /// The name of frame `i` (empty for MS3D, whose frames have none), `None` out of range.
    pub(crate) fn frame_name(&self, i: usize) -> Option<Vec<u8>> {
        Some(match &self.kind {
            Kind::Dpm(m) => m.frame(i)?.name().to_vec(),
            Kind::Skm(m) => m.skp().frame(i)?.name().to_vec(),
            Kind::Skp(p) => p.frame(i)?.name().to_vec(),
            Kind::Mdl(m) => m.frames().get(i)?.name().to_vec(),
            Kind::Hmp(h) => h.frames().get(i)?.name_lossy().into_owned().into_bytes(),
            Kind::Ms3d(_) if i < self.frame_count() as usize => Vec::new(),
            Kind::Ms3d(_) | Kind::SlMdl(_) => return None,
        })
    }

    pub(crate) fn counts(&self) -> SkelmapCounts {
        let mut c = SkelmapCounts {
            frames: self.frame_count(),
            frame_groups: self.groups.len() as u32,
            warnings: self.warnings.len() as u32,
            bones: crate::skeleton::bone_count(self),
            ..SkelmapCounts::default()
        };
        match &self.kind {
            Kind::Dpm(m) => {
                c.meshes = m.num_meshes();
                (c.vertices, c.triangles) = (m.total_vertices(), m.total_triangles());
            }
            Kind::Skm(m) => {
                c.meshes = m.skm().num_meshes();
                (c.vertices, c.triangles) = (m.skm().total_vertices(), m.skm().total_triangles());
            }
            Kind::Skp(_) => {}
            Kind::Ms3d(m) => {
                c.meshes = 1;
                (c.vertices, c.triangles) = (m.vertices().len() as u64, m.triangles().len() as u64);
            }
            Kind::Mdl(m) => {
                c.meshes = 1;
                (c.vertices, c.triangles) = (m.num_verts().into(), m.triangles().len() as u64);
            }
            Kind::Hmp(h) => {
                let [nx, ny] = h.grid().map(u64::from);
                c.meshes = 1;
                (c.vertices, c.triangles) = (nx * ny, 2 * (nx - 1) * (ny - 1));
            }
            Kind::SlMdl(m) => c.vertices = m.vertex_count().into(),
        }
        c
    }
}

/// Reads a NUL-terminated C string argument.
///
/// # Safety
///
/// `s` is NULL or a valid NUL-terminated string.
pub(crate) unsafe fn c_str<'a>(s: *const c_char, parameter: &str) -> Result<&'a CStr, Fail> {
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
unsafe fn hand_out(
    out: *mut *mut SkelmapModel,
    open: impl FnOnce() -> Result<SkelmapModel, Fail>,
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
/// The format is recognised from the file's first bytes, never from its name. The file is
/// memory-mapped unless `flags` has `SKELMAP_OPEN_READ`, which reads it into memory instead.
/// An SKM mesh is paired with its skeleton the way the engines find it (the `.cfg`'s
/// `import`, else the `.skp` of the same name, next to the mesh) and with its levels of
/// detail. A DPM's frame groups come from `<path>.framegroups` when that file exists, else
/// from the frame names.
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
    let open = || {
        let read = check_flags(flags, SKELMAP_OPEN_READ)?;
        // SAFETY: `path` is NULL or NUL-terminated by this function's contract.
        let path = unsafe { c_str(path, "path") }?
            .to_str()
            .map_err(|_| Fail::invalid("path is not UTF-8"))?;
        let path = Path::new(path);
        let source = open_source(path, read)?;
        // SAFETY: `source` moves into the model's storage, which outlives the view.
        let bytes = unsafe { outliving(&source) };
        let root = path.parent().unwrap_or(Path::new(""));
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| Fail::invalid("path names no file"))?;
        let mut model = SkelmapModel::from_bytes(bytes, vec![source], Some((root, name, read)))?;
        if let Kind::Dpm(m) = &model.kind {
            let mut sidecar = path.as_os_str().to_owned();
            sidecar.push(".framegroups");
            if let Ok(text) = std::fs::read(&sidecar) {
                model.groups = framegroups::parse_framegroups(&text, m.num_frames())?;
            }
        }
        Ok(model)
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
        SkelmapModel::from_bytes(bytes, Vec::new(), None)
    };
    // SAFETY: `out` is valid for one pointer write by this function's contract.
    unsafe { hand_out(out, open) }
}

/// Validates an SKM mesh and its SKP skeleton, both in caller memory, and pairs them (their
/// bone counts must match), storing a new model in `*out` (NULL on failure). Nothing is
/// copied. `flags` must be 0.
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
        let (mut diag, limits) = (Diagnostics::new(), Limits::default());
        let skm = Skm::parse_with(skm, &limits, &mut diag)?;
        let skp = Skp::parse_with(skp, &limits, &mut diag)?;
        let model = SkmModel::pair_with(skm, skp, &[], &mut diag)?;
        SkelmapModel::new(Kind::Skm(model), Vec::new(), &diag)
    };
    // SAFETY: `out` is valid for one pointer write by this function's contract.
    unsafe { hand_out(out, open) }
}

/// Caller memory as a slice.
///
/// # Safety
///
/// `data` is valid for reads of `len` bytes until the model that keeps the slice is freed.
unsafe fn borrowed(data: *const u8, len: usize, parameter: &str) -> Result<&'static [u8], Fail> {
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
/// (they hold no reference to it).
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

/// The model's format; 0 when `model` is NULL.
///
/// # Safety
///
/// `model` is NULL or a live model.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_model_format(model: Option<&SkelmapModel>) -> u32 {
    value(0, || Ok(model.ok_or(Fail::null("model"))?.format() as u32))
}

/// Fills `*out` with the model's counts.
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
/// length; 0 for an index past `SkelmapCounts.warnings`.
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
    value(0, || {
        let model = model.ok_or(Fail::null("model"))?;
        let text = model
            .warnings
            .get(index as usize)
            .map_or("", String::as_str);
        // SAFETY: forwarded from this function's contract.
        Ok(unsafe { crate::boundary::copy_out(text.as_bytes(), buf, len) })
    })
}
