/*
 * bcryptprimitives.dll for Wine 8.0 (Debian 12), which lacks it: Go's
 * Windows runtime (since Go 1.22) takes its random bytes from ProcessPrng
 * and does not start without it. ProcessPrng fills the buffer from
 * RtlGenRandom (advapi32's SystemFunction036), Wine's own source of
 * random bytes. Built by scripts/wine/setup (make deps) into the shared
 * Wine prefix's system32; only the Windows tests under Wine use it.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
    /* RtlGenRandom takes a ULONG length: fill larger buffers in parts. */
    while (size > 0) {
        ULONG n = size > 0x40000000 ? 0x40000000 : (ULONG)size;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        size -= n;
    }
    return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
    (void)instance; (void)reason; (void)reserved;
    return TRUE;
}
