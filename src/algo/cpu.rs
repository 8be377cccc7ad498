//! CPU feature detection for the backend choice and its report.
//!
//! On x86 detection reads the CPUID words glibc's loader already read (see
//! `detect`) and applies the feature lists the hash crates use
//! (`cpufeatures`), so what this module reports is what the crates run; on
//! AArch64 it is `cpufeatures` (HWCAP). Two environment variables narrow
//! it:
//! - `MHASH_BACKEND=portable` forces the portable code wherever mhash owns
//!   the choice (the CRCs); crates that decide for themselves (sha1, sha2,
//!   blake2b_simd) are reported as they are. `MHASH_BACKEND=NAME` forces
//!   the backend of that name (see [`forced_backend`]).
//! - `GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-PCLMULQDQ,...` turns features off
//!   the way GNU coreutils 9.8+ honours it (gnulib `cpu_supports`).

use std::sync::OnceLock;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod detect {
    //! The CPUID words the backends need, read once per process.
    //!
    //! On glibc they come from the copy glibc's loader made at start-up
    //! (`__x86_get_cpuid_feature_leaf`, `<sys/platform/x86.h>`, glibc
    //! 2.33+), so mhash executes no CPUID of its own: in a virtual machine
    //! every CPUID traps to the hypervisor, and the two detections a
    //! `sha256sum /dev/null` used to make cost about a tenth of its
    //! start-up. Elsewhere (musl, older glibc, a static
    //! glibc without the symbol) one CPUID of leaves 0, 1 and 7 instead.
    //! The raw CPUID bits are used, not glibc's "active" ones: the
    //! environment's `GLIBC_TUNABLES` is applied by [`super::Feature`]
    //! itself, as before. The bit positions are Intel SDM vol. 2A's CPUID
    //! table (leaf 1 ECX/EDX, leaf 7 sub-leaf 0 EBX/ECX); the OS-support
    //! rule (OSXSAVE, then XCR0's YMM and ZMM state bits) is the one
    //! `cpufeatures` and `std_detect` apply.
    #[cfg(target_arch = "x86")]
    use core::arch::x86 as arch;
    #[cfg(target_arch = "x86_64")]
    use core::arch::x86_64 as arch;
    use std::sync::OnceLock;

    /// CPUID leaf 1 ECX/EDX, leaf 7 (sub-leaf 0) EBX/ECX, and XCR0 (0
    /// where the OS has not enabled XSAVE).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub(super) struct Words {
        pub(super) l1_ecx: u32,
        pub(super) l1_edx: u32,
        pub(super) l7_ebx: u32,
        pub(super) l7_ecx: u32,
        pub(super) xcr0: u64,
    }

    static WORDS: OnceLock<Words> = OnceLock::new();

    pub(super) fn get(f: super::Feature) -> bool {
        has(*WORDS.get_or_init(|| from_glibc().unwrap_or_else(from_cpuid)), f)
    }

    /// Whether `w` shows feature `f` (and the OS state it needs).
    pub(super) fn has(w: Words, f: super::Feature) -> bool {
        use super::Feature as F;
        let bit = |word: u32, n: u32| word >> n & 1 == 1;
        let (sse2, pclmul, ssse3, sse41) = (
            bit(w.l1_edx, 26),
            bit(w.l1_ecx, 1),
            bit(w.l1_ecx, 9),
            bit(w.l1_ecx, 19),
        );
        let (osxsave, avx) = (bit(w.l1_ecx, 27), bit(w.l1_ecx, 28));
        let (bmi1, avx2, bmi2) = (bit(w.l7_ebx, 3), bit(w.l7_ebx, 5), bit(w.l7_ebx, 8));
        let (avx512f, sha) = (bit(w.l7_ebx, 16), bit(w.l7_ebx, 29));
        let (avx512bw, avx512vl) = (bit(w.l7_ebx, 30), bit(w.l7_ebx, 31));
        let vpclmul = bit(w.l7_ecx, 10);
        // XMM|YMM state (XCR0 bits 1-2); opmask, ZMM_Hi256, Hi16_ZMM (5-7).
        let ymm = osxsave && w.xcr0 & 0x6 == 0x6;
        let zmm = ymm && w.xcr0 & 0xe0 == 0xe0;
        match f {
            F::ShaNi => sha && sse2 && ssse3 && sse41,
            F::Pclmul => pclmul && sse41,
            F::Avx2 => avx2 && ymm,
            F::Avx2Bmi2 => avx2 && ymm && bmi1 && bmi2,
            F::Bmi2 => bmi1 && bmi2,
            F::Avx => avx && ymm,
            F::Sse41 => sse41,
            // GNU's cpu_supports ("vpclmulqdq") and std's detection check
            // its CPUID bit with AVX's: Zen 3 has it without AVX-512.
            F::Avx2Vpclmul => avx2 && ymm && vpclmul,
            F::Avx512Vpclmul => avx512f && avx512bw && vpclmul && zmm,
            F::Avx512Vl => avx2 && avx512f && avx512vl && zmm,
            _ => false,
        }
    }

    /// `struct cpuid_feature`, `<bits/platform/x86.h>`: EAX, EBX, ECX,
    /// EDX as CPUID returned them, then glibc's usable bits.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[repr(C)]
    struct CpuidFeature {
        cpuid: [u32; 4],
        active: [u32; 4],
    }

    /// glibc's `const struct cpuid_feature *__x86_get_cpuid_feature_leaf
    /// (unsigned int)` (GLIBC_2.33).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    type LeafFn = unsafe extern "C" fn(u32) -> *const CpuidFeature;

    // Linked, where build.rs found that this C library defines it: the
    // loader binds it with the binary's other imports at start (a symbol
    // among about 150 it resolves anyway), where `dlsym` cost about 8 us
    // of `sha256sum /dev/null` (its own lookup from the binary's symbol
    // table on, and glibc's lazily bound calls into the loader behind
    // it; 2-core AMD EPYC Zen 4 VM). The binary already
    // needs GLIBC_2.34 symbols of std where it is built on such a glibc.
    #[cfg(all(target_os = "linux", target_env = "gnu", mhash_glibc_cpuid_leaf))]
    unsafe extern "C" {
        fn __x86_get_cpuid_feature_leaf(leaf: u32) -> *const CpuidFeature;
    }

    /// glibc's CPUID leaf accessor: linked (build.rs's probe), else looked
    /// up, so that a build on glibc < 2.33 still links and runs (then with
    /// CPUID); `None` where this glibc has none.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn leaf_fn() -> Option<LeafFn> {
        #[cfg(mhash_glibc_cpuid_leaf)]
        {
            Some(__x86_get_cpuid_feature_leaf)
        }
        #[cfg(not(mhash_glibc_cpuid_leaf))]
        {
            let sym = crate::os::c_symbol(c"__x86_get_cpuid_feature_leaf");
            // SAFETY: the symbol, where there is one, is glibc's
            // `__x86_get_cpuid_feature_leaf` (see [`LeafFn`]).
            (!sym.is_null()).then(|| unsafe { std::mem::transmute::<*const std::ffi::c_void, LeafFn>(sym) })
        }
    }

    /// The words from glibc's start-up CPUID copy, or `None` where this
    /// glibc has no `__x86_get_cpuid_feature_leaf` (before 2.33) or has
    /// not filled it in.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn from_glibc() -> Option<Words> {
        let leaf = leaf_fn()?;
        // SAFETY: glibc returns a pointer to static data for every index
        // (a zeroed entry past its table); CPUID_INDEX_1 = 0,
        // CPUID_INDEX_7 = 1.
        let (l1, l7) = unsafe { (leaf(0).as_ref()?, leaf(1).as_ref()?) };
        let _ = l1.active;
        // Leaf 1's EAX (the processor signature) is never 0 once glibc
        // has run CPUID.
        if l1.cpuid[0] == 0 {
            return None;
        }
        Some(Words {
            l1_ecx: l1.cpuid[2],
            l1_edx: l1.cpuid[3],
            l7_ebx: l7.cpuid[1],
            l7_ecx: l7.cpuid[2],
            xcr0: xcr0(l1.cpuid[2]),
        })
    }

    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    fn from_glibc() -> Option<Words> {
        None
    }

    /// The words from CPUID itself.
    pub(super) fn from_cpuid() -> Words {
        // SAFETY: CPUID exists on every x86-64 CPU (and every x86 CPU
        // Rust's x86 targets support); leaf 7 is read only where leaf 0
        // says it exists. (`__cpuid` is a safe function from Rust 1.94;
        // the block is for the MSRV.)
        #[allow(unused_unsafe)]
        unsafe {
            let max = arch::__cpuid(0).eax;
            let l1 = arch::__cpuid(1);
            let l7 = if max >= 7 {
                arch::__cpuid_count(7, 0)
            } else {
                arch::CpuidResult {
                    eax: 0,
                    ebx: 0,
                    ecx: 0,
                    edx: 0,
                }
            };
            Words {
                l1_ecx: l1.ecx,
                l1_edx: l1.edx,
                l7_ebx: l7.ebx,
                l7_ecx: l7.ecx,
                xcr0: xcr0(l1.ecx),
            }
        }
    }

    /// XCR0 (the state components the OS saves), or 0 where the OS has
    /// not enabled XSAVE (leaf 1 ECX bit 27, OSXSAVE, clear).
    fn xcr0(l1_ecx: u32) -> u64 {
        #[target_feature(enable = "xsave")]
        unsafe fn read() -> u64 {
            // SAFETY: OSXSAVE is set (checked by the caller), so XGETBV
            // is enabled; XCR0 is register 0.
            unsafe { arch::_xgetbv(0) }
        }
        if l1_ecx >> 27 & 1 == 1 {
            // SAFETY: OSXSAVE implies the CPU has XSAVE.
            unsafe { read() }
        } else {
            0
        }
    }
}

#[cfg(target_arch = "aarch64")]
mod detect {
    //! Cached HWCAP checks (cpufeatures), one per backend.
    pub(super) fn get(f: super::Feature) -> bool {
        use super::Feature as F;
        match f {
            F::ArmSha2 => sha2::get(),
            F::ArmSha3 => sha3::get(),
            F::ArmPmull => pmull::get(),
            F::ArmCrc32 => std::arch::is_aarch64_feature_detected!("crc"),
            _ => false,
        }
    }
    cpufeatures::new!(sha2, "sha2");
    cpufeatures::new!(sha3, "sha3");
    cpufeatures::new!(pmull, "aes");
}

/// A CPU feature that some backend needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// x86 SHA extensions (SHA-NI) with SSE4.1: sha1 and sha2's SHA-256 path.
    ShaNi,
    /// x86 PCLMULQDQ (carry-less multiply) with SSE4.1: the folding CRCs.
    Pclmul,
    /// x86 AVX2: sha2's SHA-512 path, blake2b_simd.
    Avx2,
    /// x86 AVX2 with BMI1/BMI2 (`andn`, `rorx`): mhash's SHA-512 kernel.
    Avx2Bmi2,
    /// x86 BMI1/BMI2 (`andn`, `rorx`) on general registers: mhash's scalar
    /// Keccak.
    Bmi2,
    /// x86 AVX.
    Avx,
    /// x86 SSE4.1: blake2b_simd's 128-bit path.
    Sse41,
    /// x86 AVX2 with VPCLMULQDQ: 256-bit folding CRCs.
    Avx2Vpclmul,
    /// x86 AVX-512F/BW with VPCLMULQDQ: 512-bit folding CRCs.
    Avx512Vpclmul,
    /// x86 AVX2 with AVX-512F/VL (`vpternlogd`, `vprold` on ymm): the MD5
    /// lane kernel.
    Avx512Vl,
    /// ARMv8 SHA-1/SHA-256 instructions.
    ArmSha2,
    /// ARMv8.2 SHA-512/SHA-3 instructions.
    ArmSha3,
    /// ARMv8 PMULL (carry-less multiply): the folding CRCs.
    ArmPmull,
    /// ARMv8 CRC32 instructions: crc32fast's zlib CRC-32.
    ArmCrc32,
}

impl Feature {
    /// Every feature, for the report.
    pub const ALL: [Feature; 14] = [
        Feature::Avx512Vpclmul,
        Feature::Avx512Vl,
        Feature::Avx2Vpclmul,
        Feature::ShaNi,
        Feature::Pclmul,
        Feature::Avx2Bmi2,
        Feature::Bmi2,
        Feature::Avx2,
        Feature::Avx,
        Feature::Sse41,
        Feature::ArmSha2,
        Feature::ArmSha3,
        Feature::ArmPmull,
        Feature::ArmCrc32,
    ];

    /// The feature's usual lower-case name (`sha-ni`, `pclmul`, `avx2`).
    pub fn name(self) -> &'static str {
        match self {
            Feature::ShaNi => "sha-ni",
            Feature::Pclmul => "pclmul",
            Feature::Avx2 => "avx2",
            Feature::Avx2Bmi2 => "avx2+bmi2",
            Feature::Bmi2 => "bmi1+bmi2",
            Feature::Avx => "avx",
            Feature::Sse41 => "sse4.1",
            Feature::Avx2Vpclmul => "avx2+vpclmulqdq",
            Feature::Avx512Vpclmul => "avx512+vpclmulqdq",
            Feature::Avx512Vl => "avx512vl",
            Feature::ArmSha2 => "armv8-sha2",
            Feature::ArmSha3 => "armv8-sha3",
            Feature::ArmPmull => "pmull",
            Feature::ArmCrc32 => "armv8-crc32",
        }
    }

    /// The hwcaps names in `GLIBC_TUNABLES` that turn this feature off.
    fn hwcaps_names(self) -> &'static [&'static str] {
        match self {
            Feature::ShaNi => &["SHA", "SHA_NI", "SSE4_1"],
            Feature::Pclmul => &["PCLMULQDQ", "AVX", "SSE4_1"],
            Feature::Avx2 => &["AVX2", "AVX"],
            Feature::Avx2Bmi2 => &["AVX2", "AVX", "BMI1", "BMI2"],
            Feature::Bmi2 => &["BMI1", "BMI2"],
            Feature::Avx => &["AVX"],
            Feature::Sse41 => &["SSE4_1"],
            Feature::Avx2Vpclmul => &["AVX2", "AVX", "VPCLMULQDQ"],
            Feature::Avx512Vpclmul => &["AVX512F", "AVX512BW", "VPCLMULQDQ"],
            Feature::Avx512Vl => &["AVX2", "AVX", "AVX512F", "AVX512VL"],
            Feature::ArmSha2 | Feature::ArmSha3 | Feature::ArmPmull | Feature::ArmCrc32 => &[],
        }
    }

    fn hardware(self) -> bool {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64"))]
        {
            detect::get(self)
        }
        #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
        {
            let _ = self;
            false
        }
    }

    /// True when the CPU has the feature and neither `GLIBC_TUNABLES` nor
    /// `MHASH_BACKEND=portable` turned it off.
    pub fn enabled(self) -> bool {
        if self.disabled_by_env() {
            return false;
        }
        self.hardware()
    }

    /// True when the CPU has the feature, whatever the environment says.
    pub fn detected(self) -> bool {
        self.hardware()
    }

    fn disabled_by_env(self) -> bool {
        if force_portable() {
            return true;
        }
        let off = disabled_hwcaps();
        self.hwcaps_names().iter().any(|n| off.iter().any(|o| o == n))
    }
}

static FORCE: OnceLock<bool> = OnceLock::new();
static FORCED_NAME: OnceLock<Option<String>> = OnceLock::new();
static OFF: OnceLock<Vec<String>> = OnceLock::new();

/// Sets, once per process and before the first backend is chosen, what
/// turns CPU features off: `MHASH_BACKEND` (`portable` forces the portable
/// backends) and `GLIBC_TUNABLES` (`glibc.cpu.hwcaps=-AVX2,...`), as the
/// caller read them ([`crate::env::Env`] in the binary). Without a call,
/// the first use reads this process's environment. Later calls change
/// nothing: a choice once made stays for the life of the process.
pub fn configure(backend: Option<&std::ffi::OsStr>, glibc_tunables: Option<&str>) {
    let _ = FORCE.set(backend.is_some_and(|v| v == "portable"));
    let _ = FORCED_NAME.set(backend.and_then(|v| v.to_str()).map(str::to_string));
    let _ = OFF.set(glibc_tunables.map(parse_hwcaps_off).unwrap_or_default());
}

/// True when `MHASH_BACKEND=portable` asks for the portable backends.
pub fn force_portable() -> bool {
    *FORCE.get_or_init(|| std::env::var_os("MHASH_BACKEND").is_some_and(|v| v == "portable"))
}

/// The backend name `MHASH_BACKEND` asks for (`portable`, `avx2`,
/// `tuned-scalar`, ...), if set: each algorithm that has a backend of
/// that name which the CPU can run uses it.
pub fn forced_backend() -> Option<&'static str> {
    FORCED_NAME
        .get_or_init(|| std::env::var("MHASH_BACKEND").ok())
        .as_deref()
        .filter(|s| !s.is_empty())
}

/// The upper-case hwcaps names turned off by `GLIBC_TUNABLES`
/// (`glibc.cpu.hwcaps=-AVX2,-PCLMULQDQ`; glibc tunables syntax, entries
/// separated by `:`).
fn disabled_hwcaps() -> &'static [String] {
    OFF.get_or_init(|| {
        let Ok(t) = std::env::var("GLIBC_TUNABLES") else {
            return Vec::new();
        };
        parse_hwcaps_off(&t)
    })
}

/// Parses a `GLIBC_TUNABLES` value and returns the hwcaps names it disables.
pub fn parse_hwcaps_off(tunables: &str) -> Vec<String> {
    let mut off = Vec::new();
    for entry in tunables.split(':') {
        if let Some(list) = entry.strip_prefix("glibc.cpu.hwcaps=") {
            for cap in list.split(',') {
                if let Some(name) = cap.strip_prefix('-') {
                    off.push(name.to_ascii_uppercase());
                }
            }
        }
    }
    off
}

#[cfg(test)]
mod tests {
    use super::*;

    /// glibc's copy of the CPUID words and CPUID itself agree, so the
    /// backends chosen are the same either way.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[test]
    fn glibcs_cpuid_words_are_the_cpus() {
        let direct = detect::from_cpuid();
        for f in Feature::ALL {
            assert_eq!(
                detect::get(f),
                detect::has(direct, f),
                "{} differs between glibc's copy and CPUID",
                f.name()
            );
        }
    }

    /// The features agree with std's own detection (`std_detect`), which
    /// reads CPUID and XCR0 by the same rules.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn features_agree_with_std_detect() {
        use std::arch::is_x86_feature_detected as d;
        let std = [
            (
                Feature::ShaNi,
                d!("sha") && d!("sse2") && d!("ssse3") && d!("sse4.1"),
            ),
            (Feature::Pclmul, d!("pclmulqdq") && d!("sse4.1")),
            (Feature::Avx2, d!("avx2")),
            (Feature::Avx2Bmi2, d!("avx2") && d!("bmi1") && d!("bmi2")),
            (Feature::Bmi2, d!("bmi1") && d!("bmi2")),
            (Feature::Avx, d!("avx")),
            (Feature::Sse41, d!("sse4.1")),
            (Feature::Avx2Vpclmul, d!("avx2") && d!("vpclmulqdq")),
            (
                Feature::Avx512Vpclmul,
                d!("avx512f") && d!("avx512bw") && d!("vpclmulqdq"),
            ),
            (Feature::Avx512Vl, d!("avx2") && d!("avx512f") && d!("avx512vl")),
        ];
        for (f, want) in std {
            assert_eq!(f.detected(), want, "{}", f.name());
        }
    }

    /// The OS-state rule: AVX-512 bits without the ZMM state in XCR0 (an
    /// OS that does not save it) are not usable; neither is AVX2 without
    /// OSXSAVE.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[test]
    fn features_need_the_os_state() {
        let all = detect::Words {
            l1_ecx: u32::MAX,
            l1_edx: u32::MAX,
            l7_ebx: u32::MAX,
            l7_ecx: u32::MAX,
            xcr0: 0xe7,
        };
        assert!(detect::has(all, Feature::Avx512Vl));
        let no_zmm = detect::Words { xcr0: 0x7, ..all };
        assert!(!detect::has(no_zmm, Feature::Avx512Vl));
        assert!(!detect::has(no_zmm, Feature::Avx512Vpclmul));
        assert!(detect::has(no_zmm, Feature::Avx2Bmi2));
        let no_osxsave = detect::Words {
            l1_ecx: !(1 << 27),
            ..all
        };
        assert!(!detect::has(no_osxsave, Feature::Avx2));
        assert!(detect::has(no_osxsave, Feature::ShaNi));
        let none = detect::Words::default();
        assert!(Feature::ALL.iter().all(|&f| !detect::has(none, f)));
    }

    /// On AArch64 the features agree with std's own detection (HWCAP on
    /// Linux, `hw.optional.*` sysctls on macOS): `sha3` there implies the
    /// SHA512 instructions too, as in `cpufeatures`, and `aes` PMULL.
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn arm_features_agree_with_std_detect() {
        use std::arch::is_aarch64_feature_detected as d;
        let std = [
            (Feature::ArmSha2, d!("sha2")),
            (Feature::ArmSha3, d!("sha3")),
            (Feature::ArmPmull, d!("aes")),
            (Feature::ArmCrc32, d!("crc")),
        ];
        for (f, want) in std {
            assert_eq!(f.detected(), want, "{}", f.name());
        }
    }

    /// Every Apple M-series CPU has the SHA-2, SHA-512/SHA-3, PMULL and
    /// CRC32 instructions, and `aarch64-apple-darwin` enables them at
    /// compile time (`cpufeatures` then answers without a sysctl).
    #[cfg(all(target_arch = "aarch64", target_vendor = "apple"))]
    #[test]
    fn apple_silicon_has_every_arm_feature() {
        const { assert!(cfg!(all(target_feature = "sha2", target_feature = "sha3"))) };
        for f in [
            Feature::ArmSha2,
            Feature::ArmSha3,
            Feature::ArmPmull,
            Feature::ArmCrc32,
        ] {
            assert!(f.detected(), "{}", f.name());
        }
    }

    #[test]
    fn hwcaps_list_is_parsed() {
        assert_eq!(
            parse_hwcaps_off("glibc.malloc.check=1:glibc.cpu.hwcaps=-AVX2,-pclmulqdq,+SSE2"),
            vec!["AVX2".to_string(), "PCLMULQDQ".to_string()]
        );
        assert!(parse_hwcaps_off("glibc.malloc.check=1").is_empty());
    }
}
