#pragma once
#include <lcms2.h>
