#include <lcms2.h>
#include "CLadder.h"

/// Transforms pure red, green and blue to XYZ (relative colorimetric, so against the profile
/// connection space's D50 white) and stores their chromaticities. Returns 0 or -1.
static int measure_primaries(cmsHPROFILE profile, double xy[6]) {
    cmsHPROFILE xyz = cmsCreateXYZProfile();
    if (xyz == NULL) return -1;
    cmsHTRANSFORM transform = cmsCreateTransform(profile, TYPE_RGB_DBL, xyz, TYPE_XYZ_DBL,
                                                 INTENT_RELATIVE_COLORIMETRIC,
                                                 cmsFLAGS_NOCACHE | cmsFLAGS_NOOPTIMIZE);
    int status = -1;
    if (transform != NULL) {
        const double primaries[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        cmsCIEXYZ measured[3];
        cmsDoTransform(transform, primaries, measured, 3);
        status = 0;
        for (int i = 0; i < 3; i++) {
            if (!(measured[i].X + measured[i].Y + measured[i].Z > 0)) status = -1;
            cmsCIExyY chromaticity;
            cmsXYZ2xyY(&chromaticity, &measured[i]);
            xy[2 * i] = chromaticity.x;
            xy[2 * i + 1] = chromaticity.y;
        }
        cmsDeleteTransform(transform);
    }
    cmsCloseProfile(xyz);
    return status;
}

int ladder_icc_primaries(const void *data, size_t length, double xy[6]) {
    cmsHPROFILE profile = cmsOpenProfileFromMem(data, (cmsUInt32Number)length);
    if (profile == NULL) return -1;
    int status = cmsGetColorSpace(profile) == cmsSigRgbData ? measure_primaries(profile, xy) : 1;
    cmsCloseProfile(profile);
    return status;
}

int ladder_srgb_primaries(double xy[6]) {
    cmsHPROFILE profile = cmsCreate_sRGBProfile();
    if (profile == NULL) return -1;
    int status = measure_primaries(profile, xy);
    cmsCloseProfile(profile);
    return status;
}
