#pragma once
/* FeatureKit's one exported entry for Swift plugins: fh_plugin_entry_v1 (feature_abi.h), weak,
 * defined here once. The feature module registers its export function in the section
 * "fh_featurekit_features" (the ActionDecoding build plugin writes that record), so several
 * feature modules can be linked into one test or benchmark binary without two entry symbols.
 * A plugin that defines fh_plugin_entry_v1 itself keeps its own: this one is weak. */
#include "feature_abi.h"
