//! The process's side of the operating system, below every other module:
//! names as bytes (`OsStr` <-> `[u8]`), the C library's wording of an
//! errno (`strerror`), and the standard descriptors used directly (a closed
//! one fails with EBADF, as in GNU, instead of being reopened or ignored).
//! It imports no other module of the crate.

use std::fs::File;
use std::io::{self, Read};
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::SeqCst;

/// The C library's message for an I/O error (GNU's `strerror (errno)`),
/// e.g. "No such file or directory"; for errors without an errno, Rust's
/// own text.
pub fn strerror(e: &io::Error) -> String {
    if let Some(code) = e.raw_os_error() {
        let text = io::Error::from_raw_os_error(code).to_string();
        // Rust formats "MSG (os error N)"; GNU prints MSG alone.
        if let Some(pos) = text.rfind(" (os error ") {
            return text[..pos].to_string();
        }
        return text;
    }
    match e.kind() {
        io::ErrorKind::UnexpectedEof => "Unexpected end of file".to_string(),
        _ => e.to_string(),
    }
}

/// The bytes of an OS string: exact on Unix; UTF-8 (lossy) elsewhere.
pub fn os_bytes(s: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(s.as_bytes())
    }
    #[cfg(not(unix))]
    {
        match s.to_string_lossy() {
            std::borrow::Cow::Borrowed(t) => std::borrow::Cow::Borrowed(t.as_bytes()),
            std::borrow::Cow::Owned(t) => std::borrow::Cow::Owned(t.into_bytes()),
        }
    }
}

/// An OS string from bytes: exact on Unix; UTF-8 (lossy) elsewhere.
pub fn bytes_os(b: &[u8]) -> std::ffi::OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::OsStr::from_bytes(b).to_os_string()
    }
    #[cfg(not(unix))]
    {
        std::ffi::OsString::from(String::from_utf8_lossy(b).into_owned())
    }
}

static STDIN_USED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// True once standard input has been read (GNU's `have_read_stdin`).
pub fn stdin_was_read() -> bool {
    STDIN_USED.load(std::sync::atomic::Ordering::Relaxed)
}

/// A standard descriptor used directly, never closed on drop.
#[cfg(unix)]
struct StdFd(std::mem::ManuallyDrop<File>);

#[cfg(unix)]
impl Read for StdFd {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

#[cfg(unix)]
impl io::Write for StdFd {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A raw handle on file descriptor `fd` that is never closed on drop.
#[cfg(unix)]
fn raw_fd_file(fd: i32) -> StdFd {
    use std::os::fd::FromRawFd;
    // SAFETY: `fd` is one of the standard descriptors, which the process
    // owns for its whole life; ManuallyDrop keeps it from being closed, and
    // a closed descriptor only makes the calls fail with EBADF.
    StdFd(std::mem::ManuallyDrop::new(unsafe { File::from_raw_fd(fd) }))
}

/// Standard input as a plain reader. On Unix it reads descriptor 0 directly:
/// no second buffer, and a closed descriptor fails with EBADF as in GNU
/// (Rust's `Stdin` would report a closed stdin as empty).
pub fn stdin_reader() -> Box<dyn Read + Send> {
    STDIN_USED.store(true, std::sync::atomic::Ordering::Relaxed);
    #[cfg(unix)]
    {
        Box::new(raw_fd_file(0))
    }
    #[cfg(not(unix))]
    {
        Box::new(io::stdin())
    }
}

/// Standard output as a plain writer (descriptor 1 on Unix, so that a
/// closed stdout fails with EBADF as in GNU instead of swallowing output).
pub fn stdout_writer() -> Box<dyn io::Write + Send> {
    #[cfg(unix)]
    {
        Box::new(raw_fd_file(1))
    }
    #[cfg(not(unix))]
    {
        Box::new(io::stdout())
    }
}

/// Standard error as a plain writer (descriptor 2 on Unix, unbuffered as
/// C's `stderr`): a closed or full standard error fails with EBADF or
/// ENOSPC, which the run's exit status reports as GNU's does (Rust's
/// `Stderr` would swallow EBADF).
pub fn stderr_writer() -> Box<dyn io::Write + Send> {
    #[cfg(unix)]
    {
        Box::new(raw_fd_file(2))
    }
    #[cfg(not(unix))]
    {
        Box::new(io::stderr())
    }
}

/// True when descriptor 1 is not open (`>&-`): closing standard output
/// would then fail with EBADF, the one write error gnulib's
/// `close_stream` reports with its errno once the stream's error flag
/// was set earlier (a descriptor open read-only fails its writes with
/// EBADF too, but closes fine: "write error" alone).
pub fn stdout_closed() -> bool {
    #[cfg(unix)]
    {
        // SAFETY: F_GETFD reads the descriptor's flags only.
        unsafe { libc::fcntl(1, libc::F_GETFD) == -1 }
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// True when standard output may be shared with other processes' writes
/// line by line: a pipe or socket, or a file opened `O_APPEND`.
pub fn stdout_shared() -> bool {
    #[cfg(unix)]
    {
        // SAFETY: fstat and F_GETFL on descriptor 1 write only into `st`.
        unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(1, &mut st) == 0 {
                let kind = st.st_mode & libc::S_IFMT;
                if kind == libc::S_IFIFO || kind == libc::S_IFSOCK {
                    return true;
                }
            }
            let flags = libc::fcntl(1, libc::F_GETFL);
            flags != -1 && flags & libc::O_APPEND != 0
        }
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// True when descriptors 0, 1 and 2 are all open. When one is closed, the
/// next `open` reuses its number; GNU's one-file-at-a-time order decides
/// what then happens (`sha256sum a - <&-`: `a` is opened as descriptor 0
/// and closed again before `-` finds it closed), so the caller must hash
/// one file at a time to reproduce it.
///
/// Checked once per process, at the first call (before any input is
/// opened: the scheduler asks first), and remembered: later calls, once
/// per batch of files, would otherwise cost three system calls each, and
/// a descriptor number reused by an input would read as open anyway.
pub fn standard_fds_open() -> bool {
    #[cfg(unix)]
    {
        static OPEN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        // SAFETY: F_GETFD on a descriptor number has no side effects.
        *OPEN.get_or_init(|| (0..3).all(|fd| unsafe { libc::fcntl(fd, libc::F_GETFD) } != -1))
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// GNU's `fclose (stdin)` check at exit: `Err(EBADF)` when standard input
/// was read and its descriptor is closed.
///
/// # Errors
/// EBADF from `fcntl(0, F_GETFD)`.
pub fn check_stdin_closed() -> io::Result<()> {
    #[cfg(unix)]
    {
        // SAFETY: F_GETFD on a descriptor number has no side effects.
        if stdin_was_read() && unsafe { libc::fcntl(0, libc::F_GETFD) } == -1 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strerror_matches_libc_wording() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(strerror(&e), "No such file or directory");
        let e = io::Error::from_raw_os_error(libc::EISDIR);
        assert_eq!(strerror(&e), "Is a directory");
    }
}

/// Inputs open now (files being hashed), process-wide, and a signal for
/// each close: a thread that finds descriptors exhausted (EMFILE, ENFILE)
/// waits for another thread's input to close instead of failing the file.
static OPEN_INPUTS: AtomicUsize = AtomicUsize::new(0);
/// Threads waiting for a close (a close signals only when there are).
static WAITING: AtomicUsize = AtomicUsize::new(0);
static WAIT_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
static INPUT_CLOSED: std::sync::Condvar = std::sync::Condvar::new();

/// How many times an open that finds descriptors exhausted, with no input
/// open anywhere in the process to wait for, is tried again (10 ms apart:
/// ENFILE is system-wide and another process may free one) before its
/// error is reported.
const EXHAUSTED_RETRIES: u32 = 10;

/// True for "too many open files" (EMFILE, this process; ENFILE, the system).
pub fn fds_exhausted(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// An open input file, counted: while it is open, a thread that finds the
/// descriptors exhausted waits for it (or one like it) to close. Close it
/// with [`Input::close`] to learn close(2)'s result (GNU reports it, e.g.
/// EIO on NFS); dropping it closes it too, ignoring the result.
#[derive(Debug)]
pub struct Input {
    file: Option<File>,
}

impl std::ops::Deref for Input {
    type Target = File;
    fn deref(&self) -> &File {
        self.file.as_ref().expect("open until closed")
    }
}

impl std::ops::DerefMut for Input {
    fn deref_mut(&mut self) -> &mut File {
        self.file.as_mut().expect("open until closed")
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (**self).read(buf)
    }
}

impl Input {
    /// Counts `file`, opened elsewhere (io_uring: `io::ring`), as an
    /// open input.
    pub fn adopt(file: File) -> Input {
        OPEN_INPUTS.fetch_add(1, SeqCst);
        Input { file: Some(file) }
    }

    /// Gives up the descriptor without closing it, for a close made
    /// elsewhere (io_uring); the caller closes it and then calls
    /// [`input_closed`].
    #[cfg(unix)]
    pub fn into_raw_fd(mut self) -> std::os::fd::RawFd {
        use std::os::fd::IntoRawFd;
        self.file.take().expect("open until closed").into_raw_fd()
    }

    /// Takes back a descriptor given up with [`Input::into_raw_fd`] and
    /// not closed (it still counts as open).
    ///
    /// # Safety
    /// `fd` must come from [`Input::into_raw_fd`] and be open and owned by
    /// no one else.
    #[cfg(unix)]
    pub unsafe fn reclaim(fd: std::os::fd::RawFd) -> Input {
        use std::os::fd::FromRawFd;
        // SAFETY: the caller's contract.
        Input {
            file: Some(unsafe { File::from_raw_fd(fd) }),
        }
    }

    /// Closes the file, reporting close(2)'s error ([`close_file`]).
    ///
    /// # Errors
    /// close(2) failed (EIO, ENOSPC, EDQUOT on network file systems).
    pub fn close(mut self) -> io::Result<()> {
        let f = self.file.take().expect("open until closed");
        let r = close_file(f);
        released();
        r
    }
}

impl Drop for Input {
    fn drop(&mut self) {
        if let Some(f) = self.file.take() {
            drop(f);
            released();
        }
    }
}

/// Closes `f`, returning close(2)'s error (EINTR counts as closed: Linux
/// frees the descriptor whatever close returns). GNU checks `fclose`'s
/// result on every input and checksum file.
///
/// # Errors
/// close(2) failed (EIO, ENOSPC, EDQUOT on network file systems).
#[cfg(unix)]
pub fn close_file(f: File) -> io::Result<()> {
    use std::os::fd::IntoRawFd;
    let fd = f.into_raw_fd();
    // SAFETY: `fd` was just taken from an owned File: closed exactly once.
    if unsafe { libc::close(fd) } == -1 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}

/// See the Unix version.
///
/// # Errors
/// None here.
#[cfg(not(unix))]
pub fn close_file(f: File) -> io::Result<()> {
    drop(f);
    Ok(())
}

/// Grows this process's descriptor table to hold descriptor numbers up
/// to `n` (at most the soft `RLIMIT_NOFILE`), while the process is still
/// single-threaded: one `F_DUPFD` to number `n - 1`, then its close.
///
/// Linux grows the table when an open needs a number past its size (64,
/// then powers of two), and in a multi-threaded process each growth waits
/// for an RCU grace period (`expand_fdtable`: `synchronize_rcu`), 10-15
/// ms measured in a 2-core VM, longer than hashing 5,000 small files
/// takes. Worker threads that keep files open ahead (the lanes with
/// io_uring) would pay that in the middle of the run; grown before they
/// start, it costs two system calls. Errors are ignored (the table then
/// grows later, as it would have).
pub fn reserve_descriptors(n: usize) {
    #[cfg(unix)]
    {
        let Some(limit) = descriptor_limit() else {
            return;
        };
        let top = (n as u64).min(limit).saturating_sub(1);
        if top < 64 {
            return;
        }
        // SAFETY: duplicating descriptor 2 (or failing with EBADF) and
        // closing the new, unused descriptor touch no memory.
        unsafe {
            let fd = libc::fcntl(2, libc::F_DUPFD_CLOEXEC, top as libc::c_int);
            if fd >= 0 {
                libc::close(fd);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = n;
}

/// The CPU the calling thread runs on (Linux `sched_getcpu`), for
/// [`leave_cpu`] in a thread it starts; `None` elsewhere or on error.
pub fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: no arguments, no memory touched.
        usize::try_from(unsafe { libc::sched_getcpu() }).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Called first thing in a worker thread that a thread running on `cpu`
/// (its [`current_cpu`]) has just started: if the worker was put on that
/// same CPU, moves it to another CPU it may use, by narrowing its affinity
/// mask for a moment and giving the mask back at once (the kernel moves a
/// running thread off a CPU its mask no longer holds). Nothing changes
/// where it already runs elsewhere, where it may use only that CPU, or on
/// any error.
///
/// Why: Linux placed a new thread on its creator's CPU, where it waited
/// for the creator's time slice to end (until the next tick's balancing)
/// while the other CPU stayed idle: `md5sum` on 5,000 files of 4 KiB in a
/// 2-CPU VM started its second thread 0.3 / 1.4 / 2.5 ms (quartiles of 40
/// runs) after creating it, of a 15 ms run; with this and [`let_run`],
/// about 0.1 ms (Linux 6.18, 2026-12-03).
pub fn leave_cpu(cpu: Option<usize>) {
    #[cfg(target_os = "linux")]
    {
        let Some(cpu) = cpu else { return };
        if cpu >= libc::CPU_SETSIZE as usize || current_cpu() != Some(cpu) {
            return;
        }
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: the masks are local `cpu_set_t`s of `size` bytes; these
        // calls change only this thread's affinity, which is given back.
        unsafe {
            let mut mask: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut mask) != 0 {
                return;
            }
            let mut elsewhere = mask;
            libc::CPU_CLR(cpu, &mut elsewhere);
            if libc::CPU_COUNT(&elsewhere) == 0 {
                return;
            }
            if libc::sched_setaffinity(0, size, &elsewhere) == 0 {
                libc::sched_setaffinity(0, size, &mask);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cpu;
}

/// Called by a thread that has just started a worker: yields its CPU once,
/// so that a worker put on this CPU runs at once (and moves itself away,
/// [`leave_cpu`]) instead of waiting for this thread's time slice to end.
/// Returns at once where nothing else waits for this CPU.
pub fn let_run() {
    std::thread::yield_now();
}

/// The soft `RLIMIT_NOFILE` (one more than the highest descriptor number
/// an open may return), or `None` where it cannot be read.
#[cfg(unix)]
pub fn descriptor_limit() -> Option<libc::rlim_t> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into `lim`.
    (unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0).then_some(lim.rlim_cur)
}

/// An input given up with [`Input::into_raw_fd`] has been closed: it no
/// longer counts as open.
pub fn input_closed() {
    released();
}

fn released() {
    OPEN_INPUTS.fetch_sub(1, SeqCst);
    if WAITING.load(SeqCst) > 0 {
        let _g = WAIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        INPUT_CLOSED.notify_all();
    }
}

/// Opens `path` for reading (`nonblock`: with `O_NONBLOCK`, so that a FIFO
/// opens without waiting for a writer) as a counted [`Input`].
///
/// Descriptors exhausted (EMFILE, ENFILE) never cost the file while
/// another input is open elsewhere in the process: this waits for one to
/// close and tries again. A caller that holds inputs itself (`holding`:
/// lanes) gets the error back at once, to go on with the inputs it has
/// (see [`fds_exhausted`]); waiting there could wait on itself. With
/// nothing open anywhere, the open is tried a few more times and then
/// fails with the error.
///
/// # Errors
/// As `open(2)`.
pub fn open_input(path: &std::path::Path, nonblock: bool, holding: bool) -> io::Result<Input> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    if nonblock {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK);
    }
    #[cfg(not(unix))]
    let _ = nonblock;
    let mut idle_tries = 0;
    loop {
        let seen = OPEN_INPUTS.load(SeqCst);
        match o.open(path) {
            Ok(file) => {
                OPEN_INPUTS.fetch_add(1, SeqCst);
                return Ok(Input { file: Some(file) });
            }
            Err(e) if fds_exhausted(&e) && !holding => {
                if OPEN_INPUTS.load(SeqCst) > 0 {
                    // Wait for another thread's input to close (unless one
                    // did since the failed open); 50 ms at most.
                    WAITING.fetch_add(1, SeqCst);
                    let g = WAIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
                    if OPEN_INPUTS.load(SeqCst) == seen {
                        let _ = INPUT_CLOSED.wait_timeout(g, std::time::Duration::from_millis(50));
                    }
                    WAITING.fetch_sub(1, SeqCst);
                    continue;
                }
                if idle_tries == EXHAUSTED_RETRIES {
                    return Err(e);
                }
                idle_tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => return Err(e),
        }
    }
}
