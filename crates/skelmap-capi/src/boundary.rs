//! The status codes, the thread-local last error, and the panic boundary every export runs
//! behind.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::{CStr, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use skelmap_core::Error;
use skelmap_core::model::DeformError;
use skelmap_core::pose::ControlError;
use skelmap_core::skin::SkinError;
use skelmap_core::skin::morph::MorphError;

/// What a call did. `SKELMAP_STATUS_OK` (0) is success; every other value is a failure whose
/// detail `skelmap_last_error` copies out.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkelmapStatus {
    /// Success.
    Ok = 0,
    /// A required pointer argument was NULL.
    NullParameter = 1,
    /// An argument is out of its domain: an unknown enum value or flag, a stride smaller than
    /// 12 bytes, a non-finite blend factor, a path that is not UTF-8.
    InvalidArgument = 2,
    /// The file could not be opened, read or mapped.
    Io = 3,
    /// The bytes match no supported format (the message names a sprite, map or archive).
    UnknownFormat = 4,
    /// The file is malformed: truncated, bad magic, an offset, count or index out of range.
    Malformed = 5,
    /// A well-formed feature or version that skelmap does not read.
    Unsupported = 6,
    /// The file exceeds a denial-of-service limit (too many bones, vertices, frames...).
    Limit = 7,
    /// A companion file (an SKM's skeleton, a `.cfg`) is missing or its path is refused.
    Resolve = 8,
    /// An index (mesh, bone, frame, group) is past the model's count.
    OutOfRange = 9,
    /// A caller buffer holds fewer elements than the operation writes.
    BufferTooSmall = 10,
    /// The operation does not apply to this model's format (bones of a terrain, texture
    /// coordinates of a per-corner format), or the pose was sampled from another kind of
    /// model.
    WrongKind = 11,
    /// skelmap panicked (a bug); the panic was caught at the boundary.
    Panic = 12,
}

/// A failed call: its status and the message stored as the thread's last error.
#[derive(Debug)]
pub(crate) struct Fail {
    pub(crate) status: SkelmapStatus,
    message: Message,
}

/// What a failure says.
#[derive(Debug)]
enum Message {
    /// The whole message.
    Text(String),
    /// The name of a NULL parameter, worded only when the failure is stored: every export
    /// builds one for each argument (`ok_or(Fail::null("pose"))`), and a call that succeeds
    /// must not allocate.
    Null(Cow<'static, str>),
}

impl Fail {
    pub(crate) fn new(status: SkelmapStatus, message: impl Into<String>) -> Fail {
        Fail {
            status,
            message: Message::Text(message.into()),
        }
    }

    pub(crate) fn null(parameter: impl Into<Cow<'static, str>>) -> Fail {
        Fail {
            status: SkelmapStatus::NullParameter,
            message: Message::Null(parameter.into()),
        }
    }

    /// The message, worded.
    fn into_message(self) -> String {
        match self.message {
            Message::Text(text) => text,
            Message::Null(parameter) => format!("{parameter} is NULL"),
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Fail {
        Fail::new(SkelmapStatus::InvalidArgument, message)
    }

    pub(crate) fn out_of_range(what: &str, index: impl std::fmt::Display, count: u64) -> Fail {
        Fail::new(
            SkelmapStatus::OutOfRange,
            format!("{what} {index} does not exist (the model has {count})"),
        )
    }

    pub(crate) fn wrong_kind(message: impl Into<String>) -> Fail {
        Fail::new(SkelmapStatus::WrongKind, message)
    }

    pub(crate) fn too_small(what: &str, need: u64, have: u64) -> Fail {
        Fail::new(
            SkelmapStatus::BufferTooSmall,
            format!("{what} holds {have}; {need} needed"),
        )
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        let status = match &e {
            Error::Io { .. } => SkelmapStatus::Io,
            Error::Resolve { .. } => SkelmapStatus::Resolve,
            Error::Unsupported { .. } => SkelmapStatus::Unsupported,
            Error::Limit { .. } => SkelmapStatus::Limit,
            Error::UnknownFormat | Error::NotAModel { .. } => SkelmapStatus::UnknownFormat,
            // Truncated, BadMagic, WrongFormat, Invalid, and whatever a later version adds.
            _ => SkelmapStatus::Malformed,
        };
        Fail::new(status, e.to_string())
    }
}

impl From<SkinError> for Fail {
    fn from(e: SkinError) -> Fail {
        let status = match e {
            SkinError::Palette { .. } => SkelmapStatus::WrongKind,
            SkinError::Output { .. } => SkelmapStatus::BufferTooSmall,
        };
        Fail::new(status, e.to_string())
    }
}

impl From<MorphError> for Fail {
    fn from(e: MorphError) -> Fail {
        let status = match e {
            MorphError::NoFrame(_) | MorphError::NoMesh(_) => SkelmapStatus::OutOfRange,
            MorphError::Output { .. } => SkelmapStatus::BufferTooSmall,
            MorphError::Mixed => SkelmapStatus::WrongKind,
        };
        Fail::new(status, e.to_string())
    }
}

impl From<DeformError> for Fail {
    fn from(e: DeformError) -> Fail {
        match e {
            DeformError::Skin(e) => e.into(),
            DeformError::Morph(e) => e.into(),
            DeformError::NoMesh { .. }
            | DeformError::NoFrame { .. }
            | DeformError::NoAttachment { .. }
            | DeformError::NoBone { .. } => Fail::new(SkelmapStatus::OutOfRange, e.to_string()),
            DeformError::Blend(_)
            | DeformError::Time(_)
            | DeformError::Clip { .. }
            | DeformError::NotSampled => Fail::invalid(e.to_string()),
            _ => Fail::wrong_kind(e.to_string()),
        }
    }
}

impl From<ControlError> for Fail {
    fn from(e: ControlError) -> Fail {
        let status = match e {
            ControlError::NoBone { .. } => SkelmapStatus::OutOfRange,
            ControlError::NotFinite { .. } => SkelmapStatus::InvalidArgument,
        };
        Fail::new(status, e.to_string())
    }
}

thread_local! {
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

fn set_last_error(message: String) {
    let _ = LAST_ERROR.try_with(|last| *last.borrow_mut() = message);
}

/// Runs `body`, turning its failure or panic into a status and the thread's last error; a
/// success clears the last error, so that it always describes the latest call.
pub(crate) fn status(body: impl FnOnce() -> Result<(), Fail>) -> SkelmapStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => {
            // `try_with`: during thread teardown (a C destructor calling in) there is no
            // message to clear, and no panic may leave an `extern "C"` function.
            let _ = LAST_ERROR.try_with(|last| last.borrow_mut().clear());
            SkelmapStatus::Ok
        }
        Ok(Err(fail)) => {
            let status = fail.status;
            set_last_error(fail.into_message());
            status
        }
        Err(_) => {
            set_last_error("internal error: skelmap panicked (please report this file)".into());
            SkelmapStatus::Panic
        }
    }
}

/// Runs `body` for a function that returns a value rather than a status: `fallback` when it
/// fails or panics (the failure is still stored as the last error).
pub(crate) fn value<T>(fallback: T, body: impl FnOnce() -> Result<T, Fail>) -> T {
    let mut out = None;
    let _ = status(|| {
        out = Some(body()?);
        Ok(())
    });
    out.unwrap_or(fallback)
}

/// Copies `text` into the caller's `buf` of `len` bytes as a NUL-terminated string, truncated
/// to `len − 1` bytes, and returns the full length of `text` (without the NUL).
///
/// # Safety
///
/// `buf` is NULL, or valid for writes of `len` bytes.
pub(crate) unsafe fn copy_out(text: &[u8], buf: *mut c_char, len: usize) -> usize {
    if !buf.is_null() && len > 0 {
        let n = text.len().min(len - 1);
        // SAFETY: the caller guarantees `buf` is writable for `len` bytes; `n + 1 <= len`, and
        // `text` is a Rust slice that cannot overlap memory the caller lent us mutably.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), n);
            buf.add(n).write(0);
        }
    }
    text.len()
}

/// The message of the latest call on this thread, if it failed.
///
/// Copies it, NUL-terminated and truncated to `len − 1` bytes, into `buf` (when `buf` is not
/// NULL and `len > 0`) and returns its full length in bytes, not counting the NUL: call once
/// with `len = 0` to size a buffer. Returns 0 when the latest call succeeded (every successful
/// call clears the message) or none was made. This function itself never changes it. The
/// message names the format, structure, field and byte offset for a malformed file, e.g.
/// `DPM: truncated mesh.ofs_texcoords at offset 120: need 8 bytes, have 3`.
///
/// # Safety
///
/// `buf` is NULL or valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skelmap_last_error(buf: *mut c_char, len: usize) -> usize {
    // Not through `status`, which would clear the message this call reads.
    LAST_ERROR.with(|last| {
        // SAFETY: forwarded from this function's contract.
        unsafe { copy_out(last.borrow().as_bytes(), buf, len) }
    })
}

/// Returns a static, NUL-terminated description of `status` (for example "malformed file"); "unknown
/// status" for a value that is not a `SkelmapStatus`. Never NULL; it cannot fail and leaves
/// the last error as it is.
#[unsafe(no_mangle)]
pub extern "C" fn skelmap_status_str(status: u32) -> *const c_char {
    let text: &CStr = match status {
        0 => c"ok",
        1 => c"null parameter",
        2 => c"invalid argument",
        3 => c"i/o error",
        4 => c"unknown format",
        5 => c"malformed file",
        6 => c"unsupported feature",
        7 => c"limit exceeded",
        8 => c"companion file not found",
        9 => c"index out of range",
        10 => c"buffer too small",
        11 => c"wrong kind of model",
        12 => c"internal panic",
        _ => c"unknown status",
    };
    text.as_ptr()
}

/// The library version, e.g. "0.1.0". Static, never NULL; it cannot fail and leaves the
/// last error as it is.
#[unsafe(no_mangle)]
pub extern "C" fn skelmap_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => c"unknown",
        };
    VERSION.as_ptr()
}

/// The instruction set the skinning kernels use on this CPU: "avx512", "avx2" or "portable".
/// Static, never NULL; it cannot fail and leaves the last error as it is.
#[unsafe(no_mangle)]
pub extern "C" fn skelmap_simd_level() -> *const c_char {
    use skelmap_core::skin::SimdLevel;
    match SimdLevel::detect() {
        SimdLevel::Avx512 => c"avx512",
        SimdLevel::Avx2 => c"avx2",
        _ => c"portable",
    }
    .as_ptr()
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn every_status_has_its_own_description() {
        let texts: Vec<&CStr> = (0..=13)
            // SAFETY: skelmap_status_str returns static NUL-terminated strings.
            .map(|s| unsafe { CStr::from_ptr(skelmap_status_str(s)) })
            .collect();
        assert_eq!(texts[SkelmapStatus::Panic as usize], c"internal panic");
        assert_eq!(texts[13], c"unknown status");
        let mut unique = texts.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), texts.len());
    }

    #[test]
    fn a_panic_becomes_a_status_and_a_message() {
        let s = status(|| -> Result<(), Fail> { panic!("boom") });
        assert_eq!(s, SkelmapStatus::Panic);
        let mut buf = [0 as c_char; 9];
        // SAFETY: `buf` is 9 writable bytes.
        let n = unsafe { skelmap_last_error(buf.as_mut_ptr(), buf.len()) };
        assert!(n > 8);
        // SAFETY: copy_out NUL-terminated the buffer.
        assert_eq!(unsafe { CStr::from_ptr(buf.as_ptr()) }, c"internal");
    }
}
