//! Build script: link options and one linked import for a faster start
//! of the binary, each used only where the toolchain and C library
//! support it (on Windows through MinGW: the image's file alignment).
//!
//! **Packed relative relocations.** A position-independent executable
//! carries one relocation record per pointer in its read-only data
//! (vtables, `&str` tables, panic locations): 4,600 of them, 110 KB of
//! `.rela.dyn` that the dynamic loader reads and applies on every start.
//! `-z pack-relative-relocs` (GNU ld 2.38+, lld 15+; the `DT_RELR` format
//! glibc 2.36+ applies) stores the same relocations as a 1.5 KB bitmap.
//! Measured on `sha256sum /dev/null`: 111 -> 102 page faults and 0.86 ->
//! 0.77 ms (`perf stat`, and 400 interleaved spawns, 2-core AMD EPYC VM).
//! The flag is used only when a probe program linked with it here runs:
//! an older linker refuses it, an older glibc cannot load the result, a
//! cross build cannot run the probe. `MHASH_NO_RELR=1` turns it off.
//!
//! **Start-up functions first.** The 4.5 MB `.text` is mapped from the
//! file page by page as it is first executed; the kernel maps 64 KiB
//! around each fault, and in a VM one such fault costs 3.5-4.4 us. The
//! 100-250 functions a short run executes are spread over the whole of
//! `.text`: `sha256sum /dev/null` faulted in 20-25 windows of code.
//! `build/startup-order.txt` (written by `scripts/startup-order`) lists
//! them, start-up path first, then the hash kernels; LLD's `--symbol-ordering-file` places them at
//! the start of `.text`, next to one another. Measured on a 2-core Intel
//! Xeon VM (Rust 1.95, LLD 22; `perf stat -r 300 -e page-faults`, and the
//! median of 600 interleaved spawns beside GNU coreutils 9.11, LC_ALL=C,
//! on a machine shared with a build): page faults 105 -> 90 for
//! `sha256sum /dev/null` (GNU: 60), md5sum 110 -> 95, b2sum 107 -> 94,
//! cksum 102 -> 96, `mhash -a sha256` 131 -> 118; start-up 1.19x -> 1.14x
//! GNU's for sha256sum, 1.15x -> 1.13x md5sum, 1.23x -> 1.19x b2sum,
//! 1.10x -> 1.07x cksum, `mhash -a sha256` 1.34x -> 1.27x GNU sha256sum.
//! The options are passed only when `$RUSTC`, with the flags of this
//! build, links a trivial program with them: LLD (Rust's default linker
//! on x86_64-unknown-linux-gnu since 1.90) accepts them, GNU ld does not,
//! and then the binary is linked as before. `--no-warn-symbol-ordering`
//! keeps a stale list (names whose hash changed with the toolchain or
//! `Cargo.lock`) quiet: LLD skips the names it does not find.
//! `MHASH_NO_ORDER=1` turns it off.
//!
//! **glibc's CPUID copy linked.** Where a C program that calls glibc's
//! `__x86_get_cpuid_feature_leaf` (glibc 2.33+) links and runs, the
//! `mhash_glibc_cpuid_leaf` cfg makes src/algo/cpu.rs link it too, instead
//! of looking it up with `dlsym` on first use.

use std::env;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The ordering file, relative to the package root.
const ORDER_FILE: &str = "build/startup-order.txt";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={ORDER_FILE}");
    println!("cargo:rerun-if-env-changed=MHASH_NO_RELR");
    println!("cargo:rerun-if-env-changed=MHASH_NO_ORDER");
    println!("cargo:rerun-if-env-changed=CC");
    println!("cargo::rustc-check-cfg=cfg(mhash_glibc_cpuid_leaf)");
    let var = |k: &str| env::var(k).unwrap_or_default();
    // Windows through MinGW's ld: sections aligned in the file as in
    // memory (4 KiB, not ld's 512 bytes), so that the loader can map the
    // image's pages instead of copying it whole: Wine copies a 512-byte
    // aligned image at every start (mhash.exe under Wine 8, 2-vCPU Xeon
    // VM: 31.3 -> 26.7 ms for `mhash.exe --version`, 21 interleaved rounds).
    if var("CARGO_CFG_TARGET_OS") == "windows" && var("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,--file-alignment,4096");
    }
    let native = var("TARGET") == var("HOST");
    if !native || var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return;
    }
    let Some(out) = env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    let off = |k: &str| env::var_os(k).is_some_and(|v| v == "1");
    if matches!(var("CARGO_CFG_TARGET_ARCH").as_str(), "x86_64" | "x86") && probe_cpuid_leaf(&out) {
        println!("cargo:rustc-cfg=mhash_glibc_cpuid_leaf");
    }
    if !off("MHASH_NO_RELR") && probe_relr(&out) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    if !off("MHASH_NO_ORDER")
        && let Some(args) = order_args(&out)
    {
        for arg in args {
            println!("cargo:rustc-link-arg-bins={arg}");
        }
    }
}

/// Links a trivial C program with `-z pack-relative-relocs` using the C
/// compiler rustc links with on this target (`cc`, or `$CC`), and runs
/// it; true when both succeed.
fn probe_relr(out: &Path) -> bool {
    let exe = out.join("relr-probe");
    let cc = env::var_os("CC").unwrap_or_else(|| "cc".into());
    let mut cc = Command::new(cc);
    cc.args([
        "-x",
        "c",
        "-",
        "-fPIE",
        "-pie",
        "-Wl,-z,pack-relative-relocs",
        "-o",
    ])
    .arg(&exe);
    // A pointer in initialised data: the probe has a relative relocation
    // to pack.
    succeeds_on(
        &mut cc,
        b"static const char *p = \"x\";\nint main(void) { return p[0] != 'x'; }\n",
    ) && Command::new(&exe)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Links and runs a C program that calls glibc's
/// `__x86_get_cpuid_feature_leaf` (glibc 2.33+); true when both succeed.
/// Then src/algo/cpu.rs links the function instead of looking it up with
/// `dlsym` at run time (about 8 us of `sha256sum /dev/null`).
fn probe_cpuid_leaf(out: &Path) -> bool {
    let exe = out.join("cpuid-leaf-probe");
    let cc = env::var_os("CC").unwrap_or_else(|| "cc".into());
    let mut cc = Command::new(cc);
    cc.args(["-x", "c", "-", "-o"]).arg(&exe);
    succeeds_on(
        &mut cc,
        b"extern const unsigned *__x86_get_cpuid_feature_leaf(unsigned);\n\
          int main(void) { return __x86_get_cpuid_feature_leaf(0) == 0; }\n",
    ) && Command::new(&exe)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The link arguments that order the start-up functions, when the
/// ordering file is there and `$RUSTC` links a trivial program with them
/// (same target, same `RUSTFLAGS`, same configured linker).
fn order_args(out: &Path) -> Option<[String; 2]> {
    let dir = env::var_os("CARGO_MANIFEST_DIR")?;
    let file = Path::new(&dir).join(ORDER_FILE);
    let file = file.to_str()?;
    // `-Wl,` splits its argument at commas.
    if file.contains(',') || !Path::new(file).is_file() {
        return None;
    }
    let args = [
        format!("-Wl,--symbol-ordering-file={file}"),
        "-Wl,--no-warn-symbol-ordering".to_string(),
    ];
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut cmd = Command::new(rustc);
    if let Some(flags) = env::var("CARGO_ENCODED_RUSTFLAGS").ok().filter(|f| !f.is_empty()) {
        cmd.args(flags.split('\x1f'));
    }
    if let Some(linker) = env::var_os("RUSTC_LINKER") {
        let mut arg = OsString::from("linker=");
        arg.push(linker);
        cmd.arg("-C").arg(arg);
    }
    for arg in &args {
        cmd.arg("-C").arg(format!("link-arg={arg}"));
    }
    cmd.args(["--crate-type", "bin", "--crate-name", "order_probe", "--target"])
        .arg(env::var_os("TARGET")?)
        .arg("-o")
        .arg(out.join("order-probe"))
        .arg("-");
    succeeds_on(&mut cmd, b"fn main() {}\n").then_some(args)
}

/// Runs `cmd` (a compiler reading its source from standard input) on
/// `source`, its output discarded; true when it exits 0.
fn succeeds_on(cmd: &mut Command, source: &[u8]) -> bool {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            if let Some(mut stdin) = child.stdin.take() {
                stdin.write_all(source)?;
            }
            child.wait()
        })
        .is_ok_and(|s| s.success())
}
