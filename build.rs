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
//! **Static-pie on glibc.** A native `*-linux-gnu` build links the binary
//! static-pie (no program interpreter, no shared library to map, no
//! symbol to bind; ASLR kept): `sha256sum /dev/null` started in 0.844 ms
//! against 1.090 ms dynamic and GNU 9.11's 0.927 ms (posix_spawn loop,
//! 1,000 interleaved rounds, 2-vCPU AMD EPYC Zen 4 VM). See
//! `static_pie_args` for how, without `+crt-static`. mhash calls nothing
//! in glibc that needs the dynamic loader at run time in a static binary
//! (no NSS, iconv or dlopen; the one `dlsym` is not linked where the
//! CPUID probe below succeeds, and returns null otherwise, which is
//! handled). `MHASH_DYNAMIC=1` links dynamically.
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

/// The linker argument that packs relative relocations (`DT_RELR`).
const RELR_ARG: &str = "-Wl,-z,pack-relative-relocs";

/// The libraries rustc names for the standard library on a dynamic
/// `*-linux-gnu` link (`-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc`, after
/// `-Wl,-Bdynamic`), each with the static archive that stands in for it in
/// a static-pie link: glibc's own `.a` files (libc6-dev), and libgcc_eh,
/// the static unwinder, for libgcc_s.
const STATIC_STAND_INS: [(&str, &str); 7] = [
    ("libgcc_s.a", "libgcc_eh.a"),
    ("libutil.a", "libutil.a"),
    ("librt.a", "librt.a"),
    ("libpthread.a", "libpthread.a"),
    ("libm.a", "libm.a"),
    ("libdl.a", "libdl.a"),
    ("libc.a", "libc.a"),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={ORDER_FILE}");
    println!("cargo:rerun-if-env-changed=MHASH_NO_RELR");
    println!("cargo:rerun-if-env-changed=MHASH_NO_ORDER");
    println!("cargo:rerun-if-env-changed=MHASH_DYNAMIC");
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
    let relr = !off("MHASH_NO_RELR") && probe_relr(&out);
    if relr {
        println!("cargo:rustc-link-arg-bins={RELR_ARG}");
    }
    let crt_static = var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    if !crt_static
        && !off("MHASH_DYNAMIC")
        && let Some(args) = static_pie_args(&out, relr)
    {
        for arg in args {
            println!("cargo:rustc-link-arg-bins={arg}");
        }
    }
    if !off("MHASH_NO_ORDER")
        && let Some(args) = order_args(&out)
    {
        for arg in args {
            println!("cargo:rustc-link-arg-bins={arg}");
        }
    }
}

/// The link arguments that make the binary static-pie on a glibc target
/// built without `+crt-static`, when `$RUSTC` links and runs a trivial
/// program with them (and with `-z pack-relative-relocs` where `relr`).
///
/// `-C target-feature=+crt-static` would do this, but without `--target`
/// Cargo applies RUSTFLAGS to proc-macro crates too, which cannot be
/// static; build scripts can only add link arguments, and only to the
/// binary. So: `-static-pie` (the C driver then links `rcrt1.o`, passes
/// `-static -pie --no-dynamic-linker` and no program interpreter), and a
/// directory in `OUT_DIR`, searched first, holding one link per library
/// the standard library names ([`STATIC_STAND_INS`]) to its static
/// archive, so that rustc's `-Wl,-Bdynamic -lc ...` finds the `.a` before
/// any `.so`. The group at the end resolves the archives' references to
/// one another under GNU ld as well (LLD needs no order).
///
/// None when an archive is missing (`cc -print-file-name` finds none: no
/// libc6-dev), or the probe fails to link or run; the binary is then linked
/// dynamically as before.
fn static_pie_args(out: &Path, relr: bool) -> Option<Vec<String>> {
    let dir = out.join("static-libs");
    std::fs::create_dir_all(&dir).ok()?;
    let dir_str = dir.to_str()?;
    for (link, archive) in STATIC_STAND_INS {
        let found = c_library_file(archive)?;
        let at = dir.join(link);
        let _ = std::fs::remove_file(&at);
        std::os::unix::fs::symlink(found, &at).ok()?;
    }
    let args = vec![
        "-static-pie".to_string(),
        format!("-L{dir_str}"),
        "-Wl,--start-group".to_string(),
        "-lgcc_eh".to_string(),
        "-lgcc".to_string(),
        "-lc".to_string(),
        "-Wl,--end-group".to_string(),
    ];
    let exe = out.join("static-pie-probe");
    let mut probe = args.clone();
    if relr {
        probe.push(RELR_ARG.to_string());
    }
    let linked = succeeds_on(
        &mut rustc_probe(&probe, &exe)?,
        b"fn main() { println!(\"static-pie\"); }\n",
    );
    let ran = linked
        && Command::new(&exe)
            .stderr(Stdio::null())
            .output()
            .is_ok_and(|o| o.status.success() && o.stdout == b"static-pie\n");
    if !ran {
        println!("cargo:warning=linking dynamically: a static-pie probe program did not link or run");
        return None;
    }
    Some(args)
}

/// The path of the C library file `name` (`libc.a`) where the C compiler
/// finds one (`cc -print-file-name=NAME`, or `$CC`); None where it does
/// not (it then prints the bare name).
fn c_library_file(name: &str) -> Option<PathBuf> {
    let cc = env::var_os("CC").unwrap_or_else(|| "cc".into());
    let out = Command::new(cc)
        .arg(format!("-print-file-name={name}"))
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    (out.status.success() && path.is_absolute() && path.is_file()).then_some(path)
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
    succeeds_on(
        &mut rustc_probe(&args, &out.join("order-probe"))?,
        b"fn main() {}\n",
    )
    .then_some(args)
}

/// A `$RUSTC` command that compiles a program read from standard input
/// into the binary `exe` for this build's target, with this build's
/// `RUSTFLAGS` and configured linker, and `link_args` passed to the linker.
fn rustc_probe(link_args: &[String], exe: &Path) -> Option<Command> {
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
    for arg in link_args {
        cmd.arg("-C").arg(format!("link-arg={arg}"));
    }
    cmd.args([
        "-C",
        "panic=abort",
        "--crate-type",
        "bin",
        "--crate-name",
        "link_probe",
        "--target",
    ])
    .arg(env::var_os("TARGET")?)
    .arg("-o")
    .arg(exe)
    .arg("-");
    Some(cmd)
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
