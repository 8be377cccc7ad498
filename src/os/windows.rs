//! Windows: Win32 error codes in GNU's words, the console's Ctrl-C,
//! wildcards, verbatim paths. Called through [`super`]'s portable
//! functions only.
//!
//! Error codes are mapped to the errno that Cygwin and MSYS2 (the GNU
//! builds Windows users run: Git for Windows' `sha256sum`) map them to
//! (Cygwin `winsup/cygwin/errno.cc`), and worded as glibc words that errno.

use super::ErrorClass;
use std::fs::File;
use std::io::{self, Read};

/// An error made by [`error_of`] for a class with no Win32 code of its
/// own (a directory opened as a file, ...): its class travels with it.
#[derive(Debug)]
struct Classed(ErrorClass);

impl std::fmt::Display for Classed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.gnu_text())
    }
}

impl std::error::Error for Classed {}

// Win32 error codes (winerror.h).
const ERROR_FILE_NOT_FOUND: i32 = 2;
const ERROR_PATH_NOT_FOUND: i32 = 3;
const ERROR_TOO_MANY_OPEN_FILES: i32 = 4;
const ERROR_ACCESS_DENIED: i32 = 5;
const ERROR_INVALID_HANDLE: i32 = 6;
const ERROR_NOT_ENOUGH_MEMORY: i32 = 8;
const ERROR_OUTOFMEMORY: i32 = 14;
const ERROR_INVALID_DRIVE: i32 = 15;
const ERROR_NOT_SAME_DEVICE: i32 = 17;
const ERROR_WRITE_PROTECT: i32 = 19;
const ERROR_NOT_READY: i32 = 21;
const ERROR_CRC: i32 = 23;
const ERROR_READ_FAULT: i32 = 30;
const ERROR_SHARING_VIOLATION: i32 = 32;
const ERROR_LOCK_VIOLATION: i32 = 33;
const ERROR_HANDLE_DISK_FULL: i32 = 39;
const ERROR_NOT_SUPPORTED: i32 = 50;
const ERROR_BAD_NETPATH: i32 = 53;
const ERROR_BAD_NET_NAME: i32 = 67;
const ERROR_FILE_EXISTS: i32 = 80;
const ERROR_INVALID_PARAMETER: i32 = 87;
const ERROR_BROKEN_PIPE: i32 = 109;
const ERROR_DISK_FULL: i32 = 112;
const ERROR_INVALID_NAME: i32 = 123;
const ERROR_DIR_NOT_EMPTY: i32 = 145;
const ERROR_BAD_PATHNAME: i32 = 161;
const ERROR_ALREADY_EXISTS: i32 = 183;
const ERROR_FILENAME_EXCED_RANGE: i32 = 206;
const ERROR_NO_DATA: i32 = 232;
const ERROR_DIRECTORY: i32 = 267;
const ERROR_IO_DEVICE: i32 = 1117;
const ERROR_FILE_CORRUPT: i32 = 1392;
const ERROR_CANT_ACCESS_FILE: i32 = 1920;
const ERROR_CANT_RESOLVE_FILENAME: i32 = 1921;

pub(super) fn classify(e: &io::Error) -> Option<ErrorClass> {
    if let Some(c) = e.get_ref().and_then(|r| r.downcast_ref::<Classed>()) {
        return Some(c.0);
    }
    match e.raw_os_error() {
        Some(code) => Some(match code {
            ERROR_FILE_NOT_FOUND | ERROR_PATH_NOT_FOUND | ERROR_INVALID_DRIVE | ERROR_BAD_NETPATH
            | ERROR_BAD_NET_NAME | ERROR_INVALID_NAME | ERROR_BAD_PATHNAME => ErrorClass::NotFound,
            ERROR_ACCESS_DENIED
            | ERROR_SHARING_VIOLATION
            | ERROR_LOCK_VIOLATION
            | ERROR_WRITE_PROTECT
            | ERROR_CANT_ACCESS_FILE => ErrorClass::PermissionDenied,
            ERROR_DIRECTORY => ErrorClass::NotADirectory,
            ERROR_FILENAME_EXCED_RANGE => ErrorClass::NameTooLong,
            ERROR_TOO_MANY_OPEN_FILES => ErrorClass::TooManyOpenFiles,
            ERROR_CANT_RESOLVE_FILENAME => ErrorClass::Loop,
            ERROR_NOT_READY | ERROR_CRC | ERROR_READ_FAULT | ERROR_IO_DEVICE | ERROR_FILE_CORRUPT => {
                ErrorClass::Io
            }
            _ => return None,
        }),
        None => match e.kind() {
            io::ErrorKind::NotFound => Some(ErrorClass::NotFound),
            io::ErrorKind::PermissionDenied => Some(ErrorClass::PermissionDenied),
            io::ErrorKind::IsADirectory => Some(ErrorClass::IsADirectory),
            io::ErrorKind::NotADirectory => Some(ErrorClass::NotADirectory),
            _ => None,
        },
    }
}

pub(super) fn error_of(c: ErrorClass) -> io::Error {
    let code = match c {
        ErrorClass::NotFound => ERROR_FILE_NOT_FOUND,
        ErrorClass::PermissionDenied => ERROR_ACCESS_DENIED,
        ErrorClass::NotADirectory => ERROR_DIRECTORY,
        ErrorClass::NameTooLong => ERROR_FILENAME_EXCED_RANGE,
        ErrorClass::TooManyOpenFiles => ERROR_TOO_MANY_OPEN_FILES,
        ErrorClass::Loop => ERROR_CANT_RESOLVE_FILENAME,
        ErrorClass::Io => ERROR_IO_DEVICE,
        ErrorClass::IsADirectory => return io::Error::new(io::ErrorKind::IsADirectory, Classed(c)),
        ErrorClass::NotPermitted | ErrorClass::NoDevice | ErrorClass::FileTableFull => {
            return io::Error::other(Classed(c));
        }
    };
    io::Error::from_raw_os_error(code)
}

/// glibc's words for the errno a Win32 code maps to; Windows' own text
/// (less Rust's " (os error N)") for a code with no such errno.
pub(super) fn strerror(e: &io::Error) -> String {
    if let Some(c) = classify(e) {
        return c.gnu_text().to_string();
    }
    let Some(code) = e.raw_os_error() else {
        return super::kind_text(e);
    };
    let text = match code {
        ERROR_INVALID_HANDLE => "Bad file descriptor",
        ERROR_NOT_ENOUGH_MEMORY | ERROR_OUTOFMEMORY => "Cannot allocate memory",
        ERROR_NOT_SAME_DEVICE => "Invalid cross-device link",
        ERROR_HANDLE_DISK_FULL | ERROR_DISK_FULL => "No space left on device",
        ERROR_NOT_SUPPORTED => "Operation not supported",
        ERROR_FILE_EXISTS | ERROR_ALREADY_EXISTS => "File exists",
        ERROR_INVALID_PARAMETER => "Invalid argument",
        ERROR_BROKEN_PIPE | ERROR_NO_DATA => "Broken pipe",
        ERROR_DIR_NOT_EMPTY => "Directory not empty",
        _ => return super::without_code(e.to_string()),
    };
    text.to_string()
}

pub(super) fn os_bytes(s: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    match s.to_string_lossy() {
        std::borrow::Cow::Borrowed(t) => std::borrow::Cow::Borrowed(t.as_bytes()),
        std::borrow::Cow::Owned(t) => std::borrow::Cow::Owned(t.into_bytes()),
    }
}

pub(super) fn bytes_os(b: &[u8]) -> std::ffi::OsString {
    std::ffi::OsString::from(String::from_utf8_lossy(b).into_owned())
}

pub(super) fn program_name(argv0: &std::ffi::OsStr) -> std::ffi::OsString {
    let whole = argv0.to_string_lossy();
    let base = whole.rsplit(['\\', '/']).next().unwrap_or_default();
    let stem = match base.len().checked_sub(4) {
        Some(at) if base.is_char_boundary(at) && base[at..].eq_ignore_ascii_case(".exe") => &base[..at],
        _ => base,
    };
    std::ffi::OsString::from(stem)
}

pub(super) fn args() -> Vec<std::ffi::OsString> {
    wild::args_os().collect()
}

pub(super) fn display_path(p: &std::path::Path) -> std::path::PathBuf {
    let s = p.as_os_str().to_string_lossy();
    if let Some(rest) = s.strip_prefix(r"\\?\UNC\") {
        return std::path::PathBuf::from(format!(r"\\{rest}"));
    }
    match s.strip_prefix(r"\\?\") {
        Some(rest) if rest.as_bytes().get(1) == Some(&b':') => std::path::PathBuf::from(rest),
        _ => p.to_path_buf(),
    }
}

pub(super) fn stdin_reader() -> Box<dyn Read + Send> {
    Box::new(io::stdin())
}

pub(super) fn stdout_writer() -> Box<dyn io::Write + Send> {
    Box::new(io::stdout())
}

pub(super) fn stderr_writer() -> Box<dyn io::Write + Send> {
    Box::new(io::stderr())
}

pub(super) fn stdout_closed() -> bool {
    false
}

pub(super) fn ctype_is_utf8() -> Option<bool> {
    None
}

pub(super) fn close_stdout() -> io::Result<()> {
    Ok(())
}

pub(super) fn stdout_shared() -> bool {
    false
}

pub(super) fn standard_fds_open() -> bool {
    true
}

pub(super) fn check_stdin_closed() -> io::Result<()> {
    Ok(())
}

pub(super) fn close_file(f: File) -> io::Result<()> {
    drop(f);
    Ok(())
}

pub(super) fn reserve_descriptors(_n: usize) {}

pub(super) fn descriptor_limit() -> Option<u64> {
    None
}

pub(super) fn read_at(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, offset)
}

pub(super) fn open_read(path: &std::path::Path, _nonblock: bool) -> io::Result<File> {
    std::fs::OpenOptions::new().read(true).open(path)
}

/// Win32 refuses to open a directory as a file (access denied, where
/// Unix opens it and fails its read with EISDIR): said as GNU says it.
pub(super) fn open_error(path: &std::path::Path, e: io::Error) -> io::Error {
    if e.raw_os_error() == Some(ERROR_ACCESS_DENIED) && std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return error_of(ErrorClass::IsADirectory);
    }
    e
}

pub(super) fn is_disk_file(f: &File) -> bool {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Storage::FileSystem::{FILE_TYPE_DISK, GetFileType};
    // SAFETY: reads the type of the handle `f` owns.
    unsafe { GetFileType(f.as_raw_handle()) == FILE_TYPE_DISK }
}

pub(super) fn set_blocking(_f: &File) -> io::Result<()> {
    Ok(())
}

pub(super) fn wait_if_fifo(_f: &File, _max_eintr: u32) -> io::Result<()> {
    Ok(())
}

pub(super) fn is_executable(_meta: &std::fs::Metadata) -> bool {
    false
}

pub(super) fn file_id(_meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// The volume serial number and file index of an open file: the same
/// pair for two names of one file (hard links).
fn volume_and_index(f: &File) -> Option<(u32, u64)> {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Storage::FileSystem::{BY_HANDLE_FILE_INFORMATION, GetFileInformationByHandle};
    // SAFETY: an all-zero BY_HANDLE_FILE_INFORMATION is a valid value of
    // this plain C struct; the call writes into it through the pointer and
    // reads the handle `f` owns.
    unsafe {
        let mut info: BY_HANDLE_FILE_INFORMATION = std::mem::zeroed();
        if GetFileInformationByHandle(f.as_raw_handle(), &mut info) == 0 {
            return None;
        }
        Some((
            info.dwVolumeSerialNumber,
            (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
        ))
    }
}

pub(super) fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (File::open(a), File::open(b)) {
        (Ok(x), Ok(y)) => volume_and_index(&x).is_some_and(|id| Some(id) == volume_and_index(&y)),
        _ => false,
    }
}

/// What the console handler writes (set once, before it is installed).
static CLEAR: std::sync::OnceLock<&'static [u8]> = std::sync::OnceLock::new();

pub(super) fn clear_on_interrupt(clear: &'static [u8]) {
    let _ = CLEAR.set(clear);
    // SAFETY: registers a handler with the signature Win32 calls; it runs
    // on a thread of its own, where writing to standard error is safe.
    unsafe {
        windows_sys::Win32::System::Console::SetConsoleCtrlHandler(Some(on_ctrl), 1);
    }
}

/// Ctrl-C, Ctrl-Break, the console closing: clears the bar's line, then
/// returns FALSE, so that the next handler (the default: ExitProcess)
/// ends the process as it would have.
unsafe extern "system" fn on_ctrl(_kind: u32) -> windows_sys::core::BOOL {
    if let Some(clear) = CLEAR.get() {
        let _ = io::Write::write_all(&mut io::stderr(), clear);
    }
    0
}

pub(super) fn c_symbol(_name: &std::ffi::CStr) -> *const std::ffi::c_void {
    std::ptr::null()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn win32_codes_say_what_gnu_says() {
        for (code, text) in [
            (ERROR_FILE_NOT_FOUND, "No such file or directory"),
            (ERROR_PATH_NOT_FOUND, "No such file or directory"),
            (ERROR_INVALID_NAME, "No such file or directory"),
            (ERROR_ACCESS_DENIED, "Permission denied"),
            (ERROR_SHARING_VIOLATION, "Permission denied"),
            (ERROR_DIRECTORY, "Not a directory"),
            (ERROR_FILENAME_EXCED_RANGE, "File name too long"),
            (ERROR_TOO_MANY_OPEN_FILES, "Too many open files"),
            (ERROR_DISK_FULL, "No space left on device"),
            (ERROR_BROKEN_PIPE, "Broken pipe"),
        ] {
            assert_eq!(strerror(&io::Error::from_raw_os_error(code)), text, "code {code}");
        }
    }

    #[test]
    fn program_names_drop_the_directory_and_exe() {
        for (argv0, want) in [
            (r"C:\tools\sha256sum.exe", "sha256sum"),
            (r"Z:\x\MD5SUM.EXE", "MD5SUM"),
            ("mhash", "mhash"),
            ("d/b2sum.exe", "b2sum"),
        ] {
            assert_eq!(program_name(std::ffi::OsStr::new(argv0)), want);
        }
    }

    #[test]
    fn verbatim_paths_are_shown_plain() {
        use std::path::Path;
        assert_eq!(
            display_path(Path::new(r"\\?\C:\bin\mhash.exe")),
            Path::new(r"C:\bin\mhash.exe")
        );
        assert_eq!(
            display_path(Path::new(r"\\?\UNC\srv\share\m.exe")),
            Path::new(r"\\srv\share\m.exe")
        );
        assert_eq!(display_path(Path::new(r"C:\m.exe")), Path::new(r"C:\m.exe"));
    }
}
