//! Opening and closing many small files in batches through io_uring
//! (Linux 5.6+, `IORING_OP_OPENAT` and `IORING_OP_CLOSE`), for the lane
//! scheduler (`crate::io::lanes`).
//!
//! A 4 KiB file costs four system calls: open, fstat, read, close. On
//! 5,000 such files the kernel entries and exits are a large part of the
//! time, so the opens of the next files and the closes of the finished
//! ones go to the kernel together, one `io_uring_enter` for up to
//! [`MAX_OPENS`] opens and as many closes. The reads stay plain system
//! calls (`pread`, which also tells a FIFO from a file: the lanes no
//! longer call fstat, see `crate::io::lanes`); io_uring runs `STATX` on a
//! worker thread, which measured slower than the call itself. Measured with a C
//! prototype on 5,000 cached 4 KiB files (2-core AMD EPYC VM, kernel
//! 6.18): open+statx+read+close 5.3-5.5 µs per file, the same with the
//! opens and closes batched by 16 4.3-4.6 µs.
//!
//! Where io_uring cannot be had (a kernel before 5.6 or without the two
//! operations, `kernel.io_uring_disabled`, a seccomp filter in a
//! container: `io_uring_setup` fails with ENOSYS or EPERM) the thread
//! remembers it and the caller opens and closes each file itself, as
//! before. Each worker thread has its own ring, made the first time a
//! batch of files needs one.

use std::cell::RefCell;
use std::ffi::CStr;
use std::fs::File;
use std::io;
use std::os::fd::{FromRawFd, RawFd};

use io_uring::{IoUring, opcode, types};

/// The most files opened in one submission (the lane scheduler asks
/// for 32). More would hold more descriptors open at once for no
/// measured gain (16 and 32 per batch measured alike).
pub const MAX_OPENS: usize = 32;

/// Submission queue entries: every open and every close of one batch
/// (closes of at most [`MAX_OPENS`] + lanes files).
const ENTRIES: u32 = 128;

/// `user_data` bit that marks a close (its index below it).
const CLOSE_TAG: u64 = 1 << 32;

enum State {
    Untried,
    Ready(Box<IoUring>),
    Refused,
}

thread_local! {
    static RING: RefCell<State> = const { RefCell::new(State::Untried) };
}

/// What one batch did: each path's open result (in order), each close's
/// result (in order).
pub struct Done {
    /// The opened files, or the open errors (as open(2) gives them).
    pub opened: Vec<io::Result<File>>,
    /// close(2)'s result for each descriptor given.
    pub closed: Vec<io::Result<()>>,
}

/// Opens each of `paths` for reading (`O_RDONLY | O_NONBLOCK |
/// O_CLOEXEC`, as [`super::open_input`] with `nonblock`) and closes
/// each of `closes` (descriptors the caller owns and gives up), in one
/// submission to this thread's ring; the closes are submitted first, so
/// their descriptors are free for the opens.
///
/// Returns `Err(fds)` with `closes` untouched, when this thread has no
/// ring (io_uring refused, see the module's notes) or the submission
/// failed before the kernel took it: the caller then opens and closes
/// them itself.
///
/// # Panics
/// If `paths` has more than [`MAX_OPENS`] entries or `closes` more than
/// 64.
pub fn open_and_close(paths: &[&CStr], closes: Vec<RawFd>) -> Result<Done, Vec<RawFd>> {
    assert!(paths.len() <= MAX_OPENS && closes.len() <= 64, "batch too large");
    RING.with(|cell| {
        let mut state = cell.borrow_mut();
        if matches!(*state, State::Untried) {
            *state = make().map_or(State::Refused, |r| State::Ready(Box::new(r)));
        }
        let State::Ready(ring) = &mut *state else {
            return Err(closes);
        };
        match submit(ring, paths, &closes) {
            Ok(done) => Ok(done),
            Err(()) => {
                // The kernel took nothing: give the work back, and do
                // not try this ring again.
                *state = State::Refused;
                Err(closes)
            }
        }
    })
}

/// True when this thread's ring exists or has not been tried yet, and
/// the descriptor limit leaves room for it: a ring is one more open
/// descriptor per thread, and under a small `ulimit -n` (GNU's tests use
/// 5 and 8) the last free number must stay for the inputs.
pub fn may_use() -> bool {
    room_for_rings() && RING.with(|cell| !matches!(*cell.borrow(), State::Refused))
}

/// The soft `RLIMIT_NOFILE` below which no ring is made.
const MIN_NOFILE: u64 = 256;

fn room_for_rings() -> bool {
    static ROOM: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ROOM.get_or_init(|| super::descriptor_limit().is_some_and(|n| n >= MIN_NOFILE))
}

/// A ring with `OPENAT` and `CLOSE`, or `None`.
fn make() -> Option<IoUring> {
    let ring = IoUring::new(ENTRIES).ok()?;
    let mut probe = io_uring::Probe::new();
    ring.submitter().register_probe(&mut probe).ok()?;
    (probe.is_supported(opcode::OpenAt::CODE) && probe.is_supported(opcode::Close::CODE)).then_some(ring)
}

/// True for a completion that says the ring did not carry the operation
/// out, as opposed to the operation's own failure: ECANCELED (the kernel
/// could not start an io-wq worker for an open that must block, at
/// `RLIMIT_NPROC` or a container's pids limit), EAGAIN and EINTR.
fn not_run(res: i32) -> bool {
    res == -libc::ECANCELED || res == -libc::EAGAIN || res == -libc::EINTR
}

use super::MAX_EINTR;

/// close(2) of `fd`, which the caller gave up; EINTR counts as closed
/// (Linux frees the descriptor), as in `os::close_file`.
fn close_direct(fd: RawFd) -> io::Result<()> {
    // SAFETY: `fd` was given to this batch to close and is closed once,
    // here (its ring close never ran).
    let r = unsafe { libc::close(fd) };
    if r == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    if e.kind() == io::ErrorKind::Interrupted {
        Ok(())
    } else {
        Err(e)
    }
}

fn submit(ring: &mut IoUring, paths: &[&CStr], closes: &[RawFd]) -> Result<Done, ()> {
    let want = paths.len() + closes.len();
    {
        let mut sq = ring.submission();
        for (i, &fd) in closes.iter().enumerate() {
            let e = opcode::Close::new(types::Fd(fd))
                .build()
                .user_data(CLOSE_TAG | i as u64);
            // SAFETY: a close reads no memory of ours.
            unsafe { sq.push(&e) }.map_err(|_| ())?;
        }
        for (i, p) in paths.iter().enumerate() {
            let e = opcode::OpenAt::new(types::Fd(libc::AT_FDCWD), p.as_ptr())
                .flags(libc::O_RDONLY | libc::O_NONBLOCK | libc::O_CLOEXEC)
                .build()
                .user_data(i as u64);
            // SAFETY: the path is a NUL-terminated string that outlives
            // the operation: this function waits for every completion.
            unsafe { sq.push(&e) }.map_err(|_| ())?;
        }
    }
    let mut opened: Vec<Option<io::Result<File>>> = (0..paths.len()).map(|_| None).collect();
    let mut closed: Vec<Option<io::Result<()>>> = (0..closes.len()).map(|_| None).collect();
    let mut got = 0;
    let mut submitted = false;
    let mut interrupted = 0;
    while got < want {
        let r = if submitted {
            ring.submitter().submit_and_wait(1)
        } else {
            ring.submit_and_wait(want)
        };
        match r {
            Ok(_) => {
                submitted = true;
                interrupted = 0;
            }
            // Interrupted without end: if the kernel took nothing, give
            // the work back (the caller opens with open(2), bounded too);
            // else the operations it took complete on their own, and
            // their completions are read from the shared ring without
            // entering the kernel, a millisecond apart (no busy loop).
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                interrupted += 1;
                if interrupted >= MAX_EINTR {
                    if !submitted && ring.submission().len() == want {
                        return Err(());
                    }
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                submitted |= ring.submission().len() < want;
            }
            // The kernel took nothing (ENOMEM, EAGAIN, ...): the entries
            // stay queued in a ring the caller marks refused, never
            // entered again (no SQ polling thread: the kernel reads the
            // queue only on io_uring_enter), and are dropped with it.
            Err(_) if !submitted => return Err(()),
            // Taken, then the wait failed: wait again (the operations
            // complete whatever the wait said).
            Err(_) => std::thread::yield_now(),
        }
        for cqe in ring.completion() {
            let tag = cqe.user_data();
            let res = cqe.result();
            if tag & CLOSE_TAG != 0 {
                let i = (tag & !CLOSE_TAG) as usize;
                // EINTR counts as closed (Linux frees the descriptor), as
                // in os::close_file.
                closed[i] = Some(if not_run(res) {
                    // The close never ran: the descriptor is still ours.
                    close_direct(closes[i])
                } else if res < 0 && res != -libc::EINTR {
                    Err(io::Error::from_raw_os_error(-res))
                } else {
                    Ok(())
                });
            } else {
                let i = tag as usize;
                opened[i] = Some(if not_run(res) {
                    // The ring could not run the open (below): open(2)
                    // here, and the file's own error, if any, is kept.
                    super::unix::open_cstr(paths[i], true)
                } else if res < 0 {
                    Err(io::Error::from_raw_os_error(-res))
                } else {
                    // SAFETY: the kernel returned a new descriptor, ours.
                    Ok(unsafe { File::from_raw_fd(res) })
                });
            }
            got += 1;
        }
    }
    Ok(Done {
        opened: opened
            .into_iter()
            .map(|o| o.expect("every open completed"))
            .collect(),
        closed: closed
            .into_iter()
            .map(|c| c.expect("every close completed"))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::fd::IntoRawFd;

    #[test]
    fn opens_and_closes_in_one_batch_with_open2s_errors() {
        let dir = std::env::temp_dir().join(format!("mhash-ring-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a");
        std::fs::write(&a, b"abc").unwrap();
        let ca = std::ffi::CString::new(a.to_str().unwrap()).unwrap();
        let missing = std::ffi::CString::new(dir.join("missing").to_str().unwrap()).unwrap();
        let first = match open_and_close(&[&ca], Vec::new()) {
            Ok(d) => d,
            // No io_uring here (container, old kernel): nothing to test.
            Err(_) => return,
        };
        let mut f = first.opened.into_iter().next().unwrap().unwrap();
        let mut s = String::new();
        f.read_to_string(&mut s).unwrap();
        assert_eq!(s, "abc");
        let fd = f.into_raw_fd();
        let second = open_and_close(&[&missing, &ca], vec![fd]).ok().unwrap();
        assert_eq!(second.closed.len(), 1);
        assert!(second.closed[0].is_ok());
        let e = second.opened[0].as_ref().unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOENT));
        assert!(second.opened[1].is_ok());
        // The descriptor closed above is really closed.
        // SAFETY: F_GETFD has no side effects.
        let reused_or_closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
            || second.opened[1].as_ref().is_ok_and(|f| {
                use std::os::fd::AsRawFd;
                f.as_raw_fd() == fd
            });
        assert!(reused_or_closed);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
