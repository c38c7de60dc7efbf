#include "feature_kit_entry.h"

#include <stdio.h>

/* The export function of a Swift feature: FeatureExport.plugin(F.self). */
typedef const fh_plugin *(*fh_featurekit_export)(void);

/* Set by the linker around the records of every feature module in this image; weak, as an
 * image with none (the host, a test of no feature) has no such section. Hidden: a plugin reads
 * its own records, never those of the program that loads it. */
extern const fh_featurekit_export __start_fh_featurekit_features[] __attribute__((weak, visibility("hidden")));
extern const fh_featurekit_export __stop_fh_featurekit_features[] __attribute__((weak, visibility("hidden")));

/* [any-thread] The descriptor of the image's one feature, or NULL (with a line on stderr) when
 * the image holds none or more than one. */
__attribute__((weak)) FH_EXPORT const fh_plugin *fh_plugin_entry_v1(void) {
  long count = __stop_fh_featurekit_features - __start_fh_featurekit_features;
  if (count != 1) {
    fprintf(stderr, "featurekit: this image holds %ld feature modules; a plugin library holds exactly one\n", count);
    return NULL;
  }
  return __start_fh_featurekit_features[0]();
}
