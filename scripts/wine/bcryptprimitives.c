/*
 * bcryptprimitives.dll for Wine 8.0, which has none: Rust's standard
 * library (1.78 and later) draws its random bytes (HashMap keys) from
 * ProcessPrng there, and a Rust program fails to start without it.
 * ProcessPrng is implemented over RtlGenRandom (advapi32's
 * SystemFunction036), which Wine has. Built by scripts/wine-setup.sh
 * with x86_64-w64-mingw32-gcc and copied into the test prefix's
 * system32; used by the Windows tests only, never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
