//! The progress bar on standard error (native `mhash` face only): bytes
//! read, rate and, while hashing, the estimated time left (indicatif).
//!
//! When it shows ([`ProgressMode`]): with `--progress`, from the start,
//! wherever standard error goes; by default only when standard error is a
//! terminal and the run has lasted [`SHOW_AFTER`] or a file larger than
//! [`BIG_FILE`] has started; never with `--no-progress` or under a GNU name,
//! nor while standard input is read from a terminal (the bar would draw
//! over what the user types).
//!
//! Sizes and rates are in decimal units (MB = 10^6 bytes, MB/s), as
//! `mhash bench` reports them.
//!
//! Bytes are counted where they are read ([`note_bytes`], called by the
//! I/O layer per read or mapped window, a relaxed atomic add when a bar
//! exists); a ticker thread moves the bar [`TICKS_PER_SECOND`] times a
//! second. The total grows as files start (the size of each regular file,
//! from its metadata), so the ETA covers the files started so far; in
//! check mode it grows as the checksum file's lines are read (each listed
//! file's size, [`Progress::file_listed`]), so the ETA covers the files
//! listed so far. The bar
//! is cleared at the end, and messages written while it shows go through
//! [`Progress::suspend`] so that they never mix with it.

use crate::config::ProgressMode;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::ffi::OsStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A file larger than this starts the bar at once (auto mode): 256 MiB.
pub const BIG_FILE: u64 = 256 << 20;

/// A run that lasts longer than this shows the bar (auto mode): 1 second.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// How often the bar is redrawn.
pub const TICKS_PER_SECOND: u8 = 10;

static ACTIVE: AtomicBool = AtomicBool::new(false);
static BYTES: AtomicU64 = AtomicU64::new(0);

/// Counts `n` bytes read (by any thread) towards the bar; nearly free when
/// no bar exists.
#[inline]
pub fn note_bytes(n: u64) {
    if ACTIVE.load(Ordering::Relaxed) {
        BYTES.fetch_add(n, Ordering::Relaxed);
    }
}

struct Shared {
    show_now: AtomicBool,
    shown: AtomicBool,
    /// The bar has a total (a file of known size has started), so it
    /// shows it and an ETA.
    has_total: AtomicBool,
}

/// Bytes and rate only: standard input, or no listed file of known size
/// yet. Decimal units: `12.50 MB 310.00 MB/s`.
const TEMPLATE_NO_TOTAL: &str = "{spinner} {decimal_bytes} {decimal_bytes_per_sec} {elapsed} {wide_msg}";
/// With a total: bytes done of bytes started (or listed), rate, ETA.
const TEMPLATE_TOTAL: &str =
    "{spinner} {decimal_bytes}/{decimal_total_bytes} {decimal_bytes_per_sec} ETA {eta} {wide_msg}";

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
}

/// A handle on the bar, shared by the threads of a run.
#[derive(Clone)]
pub struct Progress {
    bar: ProgressBar,
    shared: Arc<Shared>,
}

/// The thread that redraws the bar; [`Ticker::finish`] stops it and
/// clears the bar.
pub struct Ticker {
    stop: mpsc::Sender<()>,
    thread: Option<std::thread::JoinHandle<()>>,
    progress: Progress,
}

impl Progress {
    /// Starts the machinery for `mode` (`None` when no bar can show in this
    /// run).
    pub fn start(mode: ProgressMode) -> Option<(Progress, Ticker)> {
        use std::io::IsTerminal;
        match mode {
            ProgressMode::Never => return None,
            ProgressMode::Auto if !std::io::stderr().is_terminal() => return None,
            _ => {}
        }
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::hidden())
            .with_style(style(TEMPLATE_NO_TOTAL));
        BYTES.store(0, Ordering::Relaxed);
        ACTIVE.store(true, Ordering::Relaxed);
        let progress = Progress {
            bar,
            shared: Arc::new(Shared {
                show_now: AtomicBool::new(mode == ProgressMode::Always),
                shown: AtomicBool::new(false),
                has_total: AtomicBool::new(false),
            }),
        };
        let (stop, stopped) = mpsc::channel::<()>();
        let p = progress.clone();
        let begun = Instant::now();
        let thread = std::thread::Builder::new()
            .name("mhash-progress".into())
            .stack_size(256 * 1024)
            .spawn(move || {
                let tick = Duration::from_millis(1000 / u64::from(TICKS_PER_SECOND));
                loop {
                    // Never over what is typed: no bar while a terminal
                    // on standard input is read (one that showed is
                    // taken down, and comes back after).
                    if crate::os::reading_terminal_stdin() {
                        p.hide();
                    } else if !p.shared.shown.load(Ordering::Relaxed)
                        && (p.shared.show_now.load(Ordering::Relaxed) || begun.elapsed() >= SHOW_AFTER)
                    {
                        p.show();
                    }
                    if p.shared.shown.load(Ordering::Relaxed) {
                        p.bar.set_position(BYTES.load(Ordering::Relaxed));
                        p.bar.tick();
                    }
                    match stopped.recv_timeout(tick) {
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        _ => return,
                    }
                }
            })
            .ok();
        let ticker = Ticker {
            stop,
            thread,
            progress: progress.clone(),
        };
        Some((progress, ticker))
    }

    fn show(&self) {
        if self.shared.shown.swap(true, Ordering::Relaxed) {
            return;
        }
        let term = console::Term::stderr();
        self.bar.set_draw_target(ProgressDrawTarget::term_like_with_hz(
            Box::new(term),
            TICKS_PER_SECOND,
        ));
        self.bar.set_position(BYTES.load(Ordering::Relaxed));
        clear_on_interrupt();
    }

    /// Takes the bar down (until [`Progress::show`] again).
    fn hide(&self) {
        if self.shared.shown.swap(false, Ordering::Relaxed) {
            self.bar.set_draw_target(ProgressDrawTarget::hidden());
        }
    }

    /// A file starts being hashed: its size joins the total, its name is
    /// shown as `shown` (the caller quotes it as GNU's diagnostics do), and
    /// a big one brings the bar up at once. No byte of a name reaches the
    /// terminal raw: any control character left in `shown` (C0, DEL, C1)
    /// is drawn as `?`, so a name can neither move the cursor, set the
    /// title or colours, nor break the bar's line.
    pub fn file_started(&self, name: &OsStr, shown: &[u8]) {
        self.add_size(name);
        self.bar.set_message(visible(shown));
    }

    /// Check mode: a line of the checksum file lists `name`, which will be
    /// read: its size (a regular file's, from its metadata; 0 for anything
    /// else or a file that cannot be statted) joins the total, so the bar
    /// shows bytes read of bytes listed so far and an ETA. A file listed
    /// twice (two algorithms) is read twice and counted twice.
    pub fn file_listed(&self, name: &OsStr) {
        self.add_size(name);
    }

    /// Adds `name`'s size to the total; a big file brings the bar up at
    /// once.
    fn add_size(&self, name: &OsStr) {
        let size = std::fs::metadata(name)
            .ok()
            .filter(|m| m.is_file())
            .map_or(0, |m| m.len());
        self.bar.inc_length(size);
        if size > 0 && !self.shared.has_total.swap(true, Ordering::Relaxed) {
            self.bar.set_style(style(TEMPLATE_TOTAL));
        }
        if size > BIG_FILE {
            self.shared.show_now.store(true, Ordering::Relaxed);
        }
    }

    /// Runs `f` (which writes to the terminal) with the bar taken down,
    /// then draws the bar again.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        if self.shared.shown.load(Ordering::Relaxed) {
            self.bar.suspend(f)
        } else {
            f()
        }
    }
}

/// Once a bar shows: an interrupt that would end the process (SIGINT and
/// SIGTERM; Ctrl-C at a Windows console) first clears the bar's line
/// (`CR`, erase line), then ends it as before, so that an interrupted run
/// leaves the terminal clean.
fn clear_on_interrupt() {
    crate::os::clear_on_interrupt(b"\r\x1b[2K");
}

/// `shown` as text for the bar: invalid UTF-8 replaced, every control
/// character (C0, DEL, C1: what a terminal acts on) drawn as `?`.
fn visible(shown: &[u8]) -> String {
    String::from_utf8_lossy(shown)
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

impl Ticker {
    /// Stops the ticker and clears the bar.
    pub fn finish(mut self) {
        let _ = self.stop.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        ACTIVE.store(false, Ordering::Relaxed);
        if self.progress.shared.shown.load(Ordering::Relaxed) {
            self.progress.bar.set_position(BYTES.load(Ordering::Relaxed));
            self.progress.bar.finish_and_clear();
        }
    }
}
