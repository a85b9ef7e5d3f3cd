#ifndef LADDER_CFUZZER_H
#define LADDER_CFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt's FuzzerDriver.cpp), for targets whose `main` is Swift's:
/// SwiftPM gives every executable a Swift entry point, so libFuzzer's own `main` cannot be used.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
