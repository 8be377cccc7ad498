//! Linux only: CPU placement, the address-space limit, read-ahead hints,
//! the file system's kind, and the guard that makes memory-mapped input
//! safe against truncation. Called through [`super`]'s portable
//! functions, but for [`map_guard`].

use std::fs::File;
use std::os::fd::AsRawFd;

pub(super) fn current_cpu() -> Option<usize> {
    // SAFETY: no arguments, no memory touched.
    usize::try_from(unsafe { libc::sched_getcpu() }).ok()
}

/// See [`super::leave_cpu`]: narrows this thread's affinity mask for a
/// moment and gives it back at once (the kernel moves a running thread
/// off a CPU its mask no longer holds). Nothing changes where it already
/// runs elsewhere, where it may use only that CPU, or on any error.
pub(super) fn leave_cpu(cpu: Option<usize>) {
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

/// The soft limit of `resource` (a `libc::RLIMIT_*`), or None where there
/// is none or it cannot be read. A macro: the resource's type differs
/// between glibc (`__rlimit_resource_t`) and musl (`c_int`).
macro_rules! soft_limit {
    ($resource:expr) => {{
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into `lim` only.
        if unsafe { libc::getrlimit($resource, &mut lim) } != 0 || lim.rlim_cur == libc::RLIM_INFINITY {
            None
        } else {
            Some(lim.rlim_cur as u64)
        }
    }};
}

pub(super) fn address_space_left() -> Option<usize> {
    let as_limit = soft_limit!(libc::RLIMIT_AS);
    let data_limit = soft_limit!(libc::RLIMIT_DATA);
    if as_limit.is_none() && data_limit.is_none() {
        return None;
    }
    limit_arenas();
    // SAFETY: sysconf has no side effects.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    let mut left = u64::MAX;
    if let Some(limit) = as_limit {
        // Unreadable (descriptors exhausted: `ulimit -n` too): count
        // nothing as free, so that nothing more is started.
        let Some(pages) = std::fs::read_to_string("/proc/self/statm")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        else {
            return Some(0);
        };
        left = left.min(limit.saturating_sub(pages.saturating_mul(page)));
    }
    if let Some(limit) = data_limit {
        // What RLIMIT_DATA counts since Linux 4.7: the private writable
        // mappings (heap, buffers, thread stacks), `VmData` in kB.
        let Some(kib) = std::fs::read_to_string("/proc/self/status").ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmData:"))?
                .split_whitespace()
                .next()?
                .parse::<u64>()
                .ok()
        }) else {
            return Some(0);
        };
        left = left.min(limit.saturating_sub(kib.saturating_mul(1024)));
    }
    Some(usize::try_from(left).unwrap_or(usize::MAX))
}

/// Under an address-space limit, one malloc arena for every thread
/// (glibc reserves 64 MiB of address space per extra arena).
fn limit_arenas() {
    #[cfg(target_env = "gnu")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: mallopt only changes the allocator's tuning.
        ONCE.call_once(|| unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        });
    }
}

pub(super) fn advise_sequential(f: &File) {
    advise_sequential_fd(f.as_raw_fd());
}

pub(super) fn advise_sequential_fd(fd: i32) {
    // SAFETY: a plain syscall on a descriptor number; no memory is passed;
    // a stale number fails with EBADF, which is ignored.
    unsafe {
        libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_SEQUENTIAL);
    }
}

pub(super) fn in_memory_fs(f: &File) -> bool {
    // SAFETY: fstatfs writes only into `st`.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstatfs(f.as_raw_fd(), &mut st) } != 0 {
        return false;
    }
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    const HUGETLBFS_MAGIC: i64 = 0x9584_58f6;
    #[allow(clippy::unnecessary_cast)]
    let kind = st.f_type as i64;
    matches!(kind, TMPFS_MAGIC | RAMFS_MAGIC | HUGETLBFS_MAGIC)
}

pub mod map_guard {
    //! The SIGBUS guard for memory-mapped input (`crate::io`'s maps): a
    //! process-wide table of armed windows and a process-wide handler. A
    //! file truncated under its map faults on the pages past its new end;
    //! the handler maps zero pages over the rest of the window and flags
    //! it, so the reader learns that the file shrank instead of dying.

    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// Windows armed at once, process-wide (one per thread mapping a file:
    /// `-j` is capped at the cores, far below this).
    const SLOTS: usize = 256;

    /// Each slot's window (start address, length; length 0 = not armed),
    /// whether it faulted, and whether a thread holds the slot.
    static START: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static LEN: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static FAULTED: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
    static HELD: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];

    static INSTALL: Once = Once::new();
    static mut PREVIOUS: std::mem::MaybeUninit<libc::sigaction> = std::mem::MaybeUninit::uninit();
    static mut PAGE: usize = 4096;
    static mut INSTALLED: bool = false;

    /// True: a map can be guarded on this platform.
    pub fn supported() -> bool {
        true
    }

    /// Installs the SIGBUS handler once per process.
    pub fn install() {
        INSTALL.call_once(|| {
            // SAFETY: plain libc calls; PREVIOUS, PAGE and INSTALLED are
            // written here, once, before any window is armed, and only
            // read afterwards (by the handler).
            unsafe {
                let page = libc::sysconf(libc::_SC_PAGESIZE);
                if page > 0 {
                    PAGE = page as usize;
                }
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_sigbus as *const () as usize;
                sa.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER;
                libc::sigemptyset(&mut sa.sa_mask);
                let prev = &raw mut PREVIOUS;
                if libc::sigaction(libc::SIGBUS, &sa, (*prev).as_mut_ptr()) == 0 {
                    INSTALLED = true;
                }
            }
        });
    }

    /// A slot of the table, held by one mapping loop; released on drop.
    pub struct Slot(usize);

    impl Slot {
        /// A free slot, or `None` when every slot is held.
        pub fn claim() -> Option<Slot> {
            (0..SLOTS)
                .find(|&i| {
                    HELD[i]
                        .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                        .is_ok()
                })
                .map(Slot)
        }

        /// Arms the guard for `[start, start + len)`, for every thread.
        pub fn arm(&self, start: usize, len: usize) {
            FAULTED[self.0].store(false, Ordering::Relaxed);
            START[self.0].store(start, Ordering::Relaxed);
            LEN[self.0].store(len, Ordering::Release);
        }

        /// Disarms the window; true if the handler patched it.
        pub fn disarm(&self) -> bool {
            LEN[self.0].store(0, Ordering::Release);
            FAULTED[self.0].swap(false, Ordering::AcqRel)
        }
    }

    impl Drop for Slot {
        fn drop(&mut self) {
            LEN[self.0].store(0, Ordering::Release);
            HELD[self.0].store(false, Ordering::Release);
        }
    }

    /// The handler. Async-signal-safe: it reads and writes atomics of the
    /// static table and calls `mmap`/`sigaction`, which are system calls.
    /// Two threads faulting in one window both map zero pages over its
    /// rest; the later map replaces the earlier one with the same zeros.
    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers;
        // PAGE/PREVIOUS were written before the handler was installed.
        unsafe {
            let addr = (*info).si_addr() as usize;
            for i in 0..SLOTS {
                let len = LEN[i].load(Ordering::Acquire);
                let start = START[i].load(Ordering::Relaxed);
                if len == 0 || addr < start || addr >= start + len {
                    continue;
                }
                let page = addr & !(PAGE - 1);
                let end = start + len;
                let r = libc::mmap(
                    page as *mut libc::c_void,
                    end - page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                );
                if r != libc::MAP_FAILED {
                    FAULTED[i].store(true, Ordering::Release);
                    return;
                }
                break;
            }
            // Not a fault of ours (or it could not be patched): put the
            // previous disposition back and return; the access faults again
            // and gets what it would have got without mhash's handler.
            if INSTALLED {
                let prev = &raw const PREVIOUS;
                libc::sigaction(sig, (*prev).as_ptr(), std::ptr::null_mut());
            } else {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
    }
}

pub mod workers {
    //! Worker processes for a tree hash of one mapped file: each forked
    //! child maps, hashes and unmaps pieces in its own address space, so
    //! an unmap's TLB flush interrupts no other hashing CPU (threads of
    //! one process share the page tables: every unmap of theirs flushes
    //! the TLB of each CPU running another of them, an inter-processor
    //! interrupt per unmap). The children share with the parent only a
    //! [`Board`] of atomics and the open file; they allocate nothing, take
    //! no lock, and leave with `_exit` (no destructor, no buffered output
    //! written twice), so a fork from a process with other threads is safe.

    use std::io;
    use std::sync::atomic::AtomicU64;

    /// `words` 64-bit atomics, zeroed, in memory shared with the children
    /// forked after it was made (`MAP_SHARED | MAP_ANONYMOUS`).
    pub struct Board {
        ptr: *mut AtomicU64,
        words: usize,
    }

    // SAFETY: the memory holds atomics only, valid when zeroed.
    unsafe impl Send for Board {}
    unsafe impl Sync for Board {}

    impl Board {
        /// A zeroed board of `words` atomics.
        ///
        /// # Errors
        /// `mmap(2)` failed (memory short).
        pub fn new(words: usize) -> io::Result<Board> {
            let len = words.max(1) * 8;
            // SAFETY: a fresh anonymous mapping; checked below.
            let ptr = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if ptr == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            Ok(Board {
                ptr: ptr.cast(),
                words: words.max(1),
            })
        }

        /// The board's atomics.
        pub fn words(&self) -> &[AtomicU64] {
            // SAFETY: `words` zero-initialised atomics live at `ptr` until
            // drop (zero is a valid AtomicU64).
            unsafe { std::slice::from_raw_parts(self.ptr, self.words) }
        }
    }

    impl Drop for Board {
        fn drop(&mut self) {
            // SAFETY: the mapping made in `new`, unmapped once.
            unsafe {
                libc::munmap(self.ptr.cast(), self.words * 8);
            }
        }
    }

    /// Whether worker processes may be forked here: false when the
    /// process runs under qemu-user (binfmt emulation of another
    /// architecture, as in Docker's multi-platform builds), where a fork
    /// from a process with several threads can leave the child stuck for
    /// good (seen once in this project's emulated test runs, in a child
    /// before its exec); the pool's threads hash the pieces there. Looked
    /// up once per process.
    pub fn forkable() -> bool {
        static FORKABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *FORKABLE.get_or_init(|| match std::fs::read("/proc/thread-self/maps") {
            Ok(maps) => !qemu_mapped(&maps),
            Err(_) => true,
        })
    }

    /// Whether a `/proc/PID/maps` text maps a file named `qemu-*`
    /// (`qemu-aarch64`, `qemu-x86_64-static`, ...): qemu-user 7.2 shows
    /// the emulated program its own maps under `/proc/self/maps`, but
    /// `/proc/thread-self/maps` is the host's, with qemu's binary in it.
    pub(crate) fn qemu_mapped(maps: &[u8]) -> bool {
        // The path is the last field and its file name follows the last
        // '/'; a line without a path is taken whole, and starts with an
        // address, not "qemu-".
        maps.split(|&b| b == b'\n')
            .filter_map(|line| line.rsplit(|&b| b == b'/').next())
            .any(|name| name.starts_with(b"qemu-"))
    }

    /// A forked child running one function; killed and reaped if dropped
    /// before [`wait`](Worker::wait).
    pub struct Worker {
        pid: libc::pid_t,
    }

    /// Forks a child that runs `work` and exits: status 0 when `work`
    /// returned. The child dies with the thread that forked it
    /// (`PR_SET_PDEATHSIG` follows the thread, not the process), so that
    /// thread must [`wait`](Worker::wait) for it (or drop it) before it
    /// ends.
    /// `work` must not allocate, lock, or write to standard output or
    /// error: another thread of the parent may have held their locks at
    /// the fork.
    ///
    /// # Errors
    /// `fork(2)` failed (EAGAIN under `RLIMIT_NPROC` or memory short).
    pub fn spawn(work: &dyn Fn()) -> io::Result<Worker> {
        // SAFETY: plain system calls; the child runs `work` (which the
        // caller keeps to async-signal-safe work) and leaves by `_exit`.
        unsafe {
            let parent = libc::getpid();
            match libc::fork() {
                -1 => Err(io::Error::last_os_error()),
                0 => {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    if libc::getppid() != parent {
                        libc::_exit(1);
                    }
                    // The parent's handlers (the progress line's clean-up
                    // on SIGINT and SIGTERM) are the parent's business.
                    libc::signal(libc::SIGINT, libc::SIG_DFL);
                    libc::signal(libc::SIGTERM, libc::SIG_DFL);
                    // A panic (a test build unwinds) must not return into
                    // the parent's copied stack.
                    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).is_ok();
                    libc::_exit(if ok { 0 } else { 2 })
                }
                pid => Ok(Worker { pid }),
            }
        }
    }

    impl Worker {
        /// Waits for the child to end; true if it exited with status 0.
        /// (Where SIGCHLD is ignored the child is reaped by the system:
        /// the wait still lasts until it ends, and says false.)
        pub fn wait(mut self) -> bool {
            let ok = reap(self.pid);
            self.pid = 0;
            ok
        }
    }

    fn reap(pid: libc::pid_t) -> bool {
        let mut status = 0;
        loop {
            // SAFETY: waits for our own child.
            let r = unsafe { libc::waitpid(pid, &mut status, 0) };
            if r == pid {
                return libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
            }
            if r == -1 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return false;
        }
    }

    impl Drop for Worker {
        fn drop(&mut self) {
            if self.pid > 0 {
                // SAFETY: our own child, not yet reaped.
                unsafe {
                    libc::kill(self.pid, libc::SIGKILL);
                }
                reap(self.pid);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::workers::{forkable, qemu_mapped};

    /// Lines of `/proc/thread-self/maps` recorded under qemu-aarch64 7.2
    /// (Debian 12's qemu-user, a static aarch64 program) and natively
    /// (Debian 12, x86-64, `head`).
    const UNDER_QEMU: &[u8] = b"\
55eb16be3000-55eb16c7c000 r--p 00000000 fe:00 10201086                   /usr/bin/qemu-aarch64
55eb16c7c000-55eb16f34000 r-xp 00099000 fe:00 10201086                   /usr/bin/qemu-aarch64
";
    const NATIVE: &[u8] = b"\
56053b396000-56053b398000 r--p 00000000 fe:00 247282                     /usr/bin/head
7f1d5a248000-7f1d5a26e000 r--p 00000000 fe:00 326279                     /usr/lib/x86_64-linux-gnu/libc.so.6
7fffe555b000-7fffe557c000 rw-p 00000000 00:00 0                          [stack]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]
";

    #[test]
    fn qemu_user_is_told_by_its_own_mappings() {
        assert!(qemu_mapped(UNDER_QEMU));
        assert!(!qemu_mapped(NATIVE));
        assert!(!qemu_mapped(b""));
        // A directory named qemu-* is not qemu's binary.
        assert!(!qemu_mapped(
            b"7f1d5a248000-7f1d5a26e000 r--p 00000000 fe:00 1 /home/u/qemu-build/mhash\n"
        ));
    }

    /// Worker processes are forked natively and not under emulation
    /// (scripts/aarch64-test.sh sets `MHASH_TEST_EMULATOR` for its runs
    /// under qemu-user).
    #[test]
    fn workers_are_forked_unless_emulated() {
        assert_eq!(forkable(), std::env::var_os("MHASH_TEST_EMULATOR").is_none());
    }
}
