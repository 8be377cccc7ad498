//! CPU feature detection for the backend choice and its report.
//!
//! Detection uses `cpufeatures` with the same feature lists the hash crates
//! use, so what this module reports is what the crates run. Two environment
//! variables narrow it:
//! - `MHASH_BACKEND=portable` forces the portable code wherever mhash owns
//!   the choice (the CRCs); crates that decide for themselves (sha1, sha2,
//!   blake2b_simd) are reported as they are. `MHASH_BACKEND=NAME` forces
//!   the backend of that name (see [`forced_backend`]).
//! - `GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-PCLMULQDQ,...` turns features off
//!   the way GNU coreutils 9.8+ honours it (gnulib `cpu_supports`).

use std::sync::OnceLock;

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod detect {
    //! Cached CPUID checks (cpufeatures), one per backend.
    pub(super) fn get(f: super::Feature) -> bool {
        use super::Feature as F;
        match f {
            F::ShaNi => shani::get(),
            F::Pclmul => pclmul::get(),
            F::Avx2 => avx2::get(),
            F::Avx2Bmi2 => avx2_bmi2::get(),
            F::Avx => avx::get(),
            F::Sse41 => sse41::get(),
            // cpufeatures 0.3 requires the AVX-512 (zmm) state for
            // VPCLMULQDQ; GNU's cpu_supports ("vpclmulqdq") and std's
            // detection check its CPUID bit with AVX's: Zen 3 has it
            // without AVX-512.
            F::Avx2Vpclmul => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("vpclmulqdq")
            }
            F::Avx512Vpclmul => vpclmul_avx512::get(),
            F::Avx512Vl => avx512vl::get(),
            _ => false,
        }
    }
    cpufeatures::new!(shani, "sha", "sse2", "ssse3", "sse4.1");
    cpufeatures::new!(pclmul, "pclmulqdq", "sse4.1");
    cpufeatures::new!(avx2, "avx2");
    cpufeatures::new!(avx2_bmi2, "avx2", "bmi1", "bmi2");
    cpufeatures::new!(avx, "avx");
    cpufeatures::new!(sse41, "sse4.1");
    cpufeatures::new!(vpclmul_avx512, "avx512f", "avx512bw", "vpclmulqdq");
    cpufeatures::new!(avx512vl, "avx2", "avx512f", "avx512vl");
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
    pub const ALL: [Feature; 13] = [
        Feature::Avx512Vpclmul,
        Feature::Avx512Vl,
        Feature::Avx2Vpclmul,
        Feature::ShaNi,
        Feature::Pclmul,
        Feature::Avx2Bmi2,
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

    #[test]
    fn hwcaps_list_is_parsed() {
        assert_eq!(
            parse_hwcaps_off("glibc.malloc.check=1:glibc.cpu.hwcaps=-AVX2,-pclmulqdq,+SSE2"),
            vec!["AVX2".to_string(), "PCLMULQDQ".to_string()]
        );
        assert!(parse_hwcaps_off("glibc.malloc.check=1").is_empty());
    }
}
