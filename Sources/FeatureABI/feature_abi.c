// The ABI is a header; this file only gives SwiftPM a C target to build around it.
#include "feature_abi.h"
