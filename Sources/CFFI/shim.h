// libffi, as installed by Debian's libffi-dev (found through pkg-config libffi).
#include <ffi.h>

// Addresses of libffi's type descriptors, so Swift need not touch C globals directly.
static inline ffi_type *fh_ffi_type_pointer(void) { return &ffi_type_pointer; }
static inline ffi_type *fh_ffi_type_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *fh_ffi_type_void(void) { return &ffi_type_void; }
static inline ffi_type *fh_ffi_type_uint64(void) { return &ffi_type_uint64; }
