/* Declarations only; the driver is linked from libFuzzer by -sanitize=fuzzer. */
#include "CFuzzer.h"
