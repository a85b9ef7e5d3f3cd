#pragma once
/* libjxl's encoder, decoder and butteraugli: plain C functions, called from Swift directly. */
#include <jxl/butteraugli.h>
#include <jxl/decode.h>
#include <jxl/encode.h>
