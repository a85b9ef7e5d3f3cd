#!/usr/bin/env python3
"""The hard set: images made in code that nobody tuned ladder for, to score its variants against
vipsthumbnail's where resamplers, colour conversions and decoders usually go wrong.

    python3 scripts/hardset.py FOLDER      writes the set into FOLDER
    scripts/bench --hard ...               writes it into the bench's work folder and scores it

- Content that resamplers get wrong: pure noise (uniform and Gaussian, colour and grey), 8-bit
  gradients that band, pixel-pitch checkerboards and one-pixel lines, small text, flat art with
  hard edges.
- Sizes: 1x1, 2x3, 17x9, 159x161, 161x159, 641x639, exactly 160x160, 2561x10, 12000x40, 40x12000
  and one 12000x8000 picture (96 megapixels, under ladder's default limit of 100).
- Colour and formats: a grayscale JPEG; CMYK JPEGs with and without an embedded profile (libvips'
  built-in CMYK profile); JPEGs tagged Display P3 (libvips' built-in profile), Adobe RGB (1998)
  and ProPhoto RGB (a 16-bit TIFF), the latter two made with Little CMS from their published
  primaries, white points and gammas; 16-bit RGB and grey PNGs; RGBA and grey+alpha PNGs with
  transparent and semi-transparent areas; a palette PNG and GIF; lossy and lossless WebP; TIFF.
- All eight EXIF orientations of one non-square, asymmetric picture, stored so that each shows
  the same upright picture.

Everything is deterministic (fixed seeds), so the set and its scores are the same on every run.
"""
import ctypes
import ctypes.util
import os
import sys

WIDTH, HEIGHT = 3000, 2000  # larger than the full-size box, so that every variant is resized


def _rng():
    import numpy
    return numpy.random.default_rng(14)


def _image(array):
    """A pyvips image of a uint8 or uint16 numpy array (H, W) or (H, W, bands)."""
    import numpy
    import pyvips
    array = numpy.ascontiguousarray(array)
    if array.ndim == 2:
        array = array[:, :, None]
    height, width, bands = array.shape
    format = {"uint8": "uchar", "uint16": "ushort"}[str(array.dtype)]
    image = pyvips.Image.new_from_memory(array.tobytes(), width, height, bands, format)
    grey = bands - (1 if bands in (2, 4) else 0) == 1
    space = ("grey16" if grey else "rgb16") if format == "ushort" else ("b-w" if grey else "srgb")
    return image.copy(interpretation=space)


def _photo_like(width, height, seed=1):
    """Saturated colour with soft and fine detail: Perlin clouds, Worley cells and a few sines,
    as a uint8 numpy array (H, W, 3)."""
    import numpy
    import pyvips
    clouds = pyvips.Image.perlin(width, height, cell_size=max(8, min(width, height) // 6), seed=seed)
    cells = pyvips.Image.worley(width, height, cell_size=max(8, min(width, height) // 10), seed=seed + 1)
    cells = cells / max(cells.max(), 1e-6)
    xy = pyvips.Image.xyz(width, height)
    ripple = ((xy[0] * 0.07).sin() * (xy[1] * 0.05).cos() + 1) * 0.5
    red = clouds * 110 + 128
    green = cells * 230 + 10
    blue = ripple * 200 + clouds * 40 + 20
    image = red.bandjoin([green, blue]).cast("uchar")
    return numpy.ndarray(buffer=image.write_to_memory(), dtype=numpy.uint8, shape=(height, width, 3))


# MARK: - Profiles made with Little CMS

def _lcms():
    path = ctypes.util.find_library("lcms2")
    if not path:
        sys.exit("hardset: Little CMS (liblcms2) is needed for the Adobe RGB and ProPhoto profiles")
    lcms = ctypes.CDLL(path)
    lcms.cmsBuildGamma.restype = ctypes.c_void_p
    lcms.cmsBuildGamma.argtypes = [ctypes.c_void_p, ctypes.c_double]
    lcms.cmsCreateRGBProfile.restype = ctypes.c_void_p
    lcms.cmsCreateRGBProfile.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p * 3]
    lcms.cmsSaveProfileToMem.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32)]
    lcms.cmsCloseProfile.argtypes = [ctypes.c_void_p]
    lcms.cmsFreeToneCurve.argtypes = [ctypes.c_void_p]
    lcms.cmsWhitePointFromTemp.argtypes = [ctypes.c_void_p, ctypes.c_double]
    lcms.cmsMLUalloc.restype = ctypes.c_void_p
    lcms.cmsMLUalloc.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lcms.cmsMLUsetASCII.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
    lcms.cmsWriteTag.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p]
    lcms.cmsMLUfree.argtypes = [ctypes.c_void_p]
    return lcms


class _xyY(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double), ("Y", ctypes.c_double)]


def rgb_profile(name, white, primaries, gamma):
    """The bytes of a matrix/TRC RGB ICC profile made by Little CMS (cmsCreateRGBProfile):
    `white` and `primaries` as CIE xy chromaticities, one power-law curve for the three channels,
    and `name` as its description."""
    lcms = _lcms()
    curve = lcms.cmsBuildGamma(None, gamma)
    white_point = _xyY(white[0], white[1], 1.0)
    colorants = (_xyY * 3)(*(_xyY(x, y, 1.0) for x, y in primaries))
    curves = (ctypes.c_void_p * 3)(curve, curve, curve)
    profile = lcms.cmsCreateRGBProfile(ctypes.byref(white_point), ctypes.byref(colorants), curves)
    description = lcms.cmsMLUalloc(None, 1)
    lcms.cmsMLUsetASCII(description, b"en", b"US", name.encode())
    lcms.cmsWriteTag(profile, 0x64657363, description)  # 'desc'
    size = ctypes.c_uint32(0)
    lcms.cmsSaveProfileToMem(profile, None, ctypes.byref(size))
    buffer = ctypes.create_string_buffer(size.value)
    lcms.cmsSaveProfileToMem(profile, buffer, ctypes.byref(size))
    lcms.cmsMLUfree(description)
    lcms.cmsCloseProfile(profile)
    lcms.cmsFreeToneCurve(curve)
    return buffer.raw[:size.value]


# Adobe RGB (1998): D65, gamma 563/256. ProPhoto RGB (ROMM): D50, gamma 1.8.
ADOBE_RGB = ("Adobe RGB (1998) compatible", (0.3127, 0.3290), [(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)],
             563 / 256)
PROPHOTO_RGB = ("ProPhoto RGB compatible", (0.3457, 0.3585),
                [(0.7347, 0.2653), (0.1596, 0.8404), (0.0366, 0.0001)], 1.8)


def _tagged(image, profile_path, profile_bytes):
    """`image` (sRGB) converted to the profile at `profile_path` and tagged with it."""
    converted = image.icc_transform(profile_path, input_profile="srgb", depth=16 if image.format == "ushort" else 8)
    converted = converted.copy()
    converted.set_type(__import__("pyvips").GValue.blob_type, "icc-profile-data", profile_bytes)
    return converted


# MARK: - The set

def generate_hard_set(folder):
    """Writes the hard set into `folder` (created when missing); returns the file names."""
    import numpy
    import pyvips
    os.makedirs(folder, exist_ok=True)
    rng = _rng()
    written = []

    def save(name, image, **options):
        path = os.path.join(folder, name)
        image.write_to_file(path, **options)
        written.append(name)

    def jpeg(name, array, quality=92, **options):
        save(name, _image(array), Q=quality, **options)

    # Noise, the densest detail there is: every resampler's worst case for aliasing.
    jpeg("noise_uniform_rgb.jpg", rng.integers(0, 256, (HEIGHT, WIDTH, 3), dtype=numpy.uint8), quality=95)
    gaussian = numpy.clip(rng.normal(128, 40, (HEIGHT, WIDTH)), 0, 255).astype(numpy.uint8)
    jpeg("noise_gaussian_grey.jpg", gaussian, quality=95)
    save("noise_uniform_grey.png", _image(rng.integers(0, 256, (900, 1200), dtype=numpy.uint8)))
    colour = numpy.clip(rng.normal(128, 50, (1000, 1400, 3)), 0, 255).astype(numpy.uint8)
    save("noise_gaussian_rgb.png", _image(colour))

    # 8-bit gradients that band when anything rounds twice.
    ramp = numpy.tile(numpy.linspace(0, 255, WIDTH).round().astype(numpy.uint8), (400, 1))
    save("gradient_grey_ramp.png", _image(ramp))
    dark = numpy.tile(numpy.linspace(0, 24, 2800).round().astype(numpy.uint8), (1600, 1))
    save("gradient_dark_slow.png", _image(numpy.dstack([dark, dark + 2, dark + 4])))
    y, x = numpy.mgrid[0:2800, 0:2800]
    radius = numpy.hypot(x - 1400, y - 1400) / 1980
    radial = numpy.dstack([radius * 255, (1 - radius) * 200 + 30, radius * 120 + 60]).clip(0, 255)
    save("gradient_radial_rgb.png", _image(radial.round().astype(numpy.uint8)))

    # Pixel-pitch patterns: checkerboards and one-pixel lines.
    y, x = numpy.mgrid[0:HEIGHT, 0:WIDTH]
    save("checker_1px.png", _image(((x + y) % 2 * 255).astype(numpy.uint8)))
    save("checker_2px_rgb.png", _image(numpy.dstack([((x // 2 + y // 2) % 2 * 200 + 30).astype(numpy.uint8)] * 3)))
    lines = numpy.full((HEIGHT, WIDTH), 235, numpy.uint8)
    lines[::5, :] = 20
    lines[:, ::7] = 20
    save("lines_1px_grid.png", _image(lines))
    y, x = numpy.mgrid[0:1200, 0:1700]
    save("lines_1px_diagonal.png", _image((numpy.where((x + 2 * y) % 9 == 0, 10, 245)).astype(numpy.uint8)))

    # Small text, black on white and coloured on a tint.
    words = ("The quick brown fox jumps over the lazy dog 0123456789. " * 6 + "\n") * 40
    text = pyvips.Image.text(words, width=2900, dpi=72)
    ink = (255 - text.embed(40, 40, WIDTH, text.height + 80, extend="black")).cast("uchar")
    save("text_small.png", ink.copy(interpretation="b-w"))
    tint = (ink.linear([0.8, 0.35, 0.5], [30, 160, 110])).cast("uchar").copy(interpretation="srgb")
    save("text_small_colour.jpg", tint.crop(0, 0, 1800, min(1100, tint.height)), Q=90)

    # Flat art and logos: few colours, hard edges.
    y, x = numpy.mgrid[0:2400, 0:2400]
    art = numpy.zeros((2400, 2400, 3), numpy.uint8) + numpy.array([250, 246, 235], numpy.uint8)
    art[numpy.hypot(x - 900, y - 900) < 620] = (210, 30, 45)
    art[(abs(x - 1500) + abs(y - 1500)) < 520] = (20, 60, 160)
    art[(x > 300) & (x < 2100) & (y > 1950) & (y < 2050)] = (15, 15, 15)
    art[((x - y) % 120 < 8) & (x > 1700)] = (250, 200, 0)
    save("flat_logo.png", _image(art))
    jpeg("flat_logo.jpg", art, quality=90)

    # Tiny and odd sizes (each scaled from a colourful picture so it holds detail).
    photo = _photo_like(1200, 900)
    for width, height, suffix in [(1, 1, "png"), (2, 3, "jpg"), (17, 9, "png"), (159, 161, "jpg"),
                                  (161, 159, "jpg"), (641, 639, "jpg"), (160, 160, "jpg"), (2561, 10, "png")]:
        tiled = numpy.tile(photo, (height // 900 + 1, width // 1200 + 1, 1))[:height, :width]
        save(f"size_{width}x{height}.{suffix}", _image(tiled), **({"Q": 92} if suffix == "jpg" else {}))
    wide = numpy.tile(_photo_like(3000, 40, seed=4), (1, 4, 1))
    jpeg("aspect_12000x40.jpg", wide)
    jpeg("aspect_40x12000.jpg", numpy.ascontiguousarray(wide.transpose(1, 0, 2)[:, ::-1]))
    large = pyvips.Image.perlin(12000, 8000, cell_size=700, seed=9) * 90 + 128
    fine = pyvips.Image.sines(12000, 8000, hfreq=80, vfreq=53) * 40
    large.bandjoin([large * 0.6 + fine + 40, 200 - large * 0.5 + fine]).cast("uchar") \
        .copy(interpretation="srgb").jpegsave(os.path.join(folder, "large_12000x8000.jpg"), Q=88)
    written.append("large_12000x8000.jpg")

    # Colour: spaces, profiles, depths, alpha, palettes and formats.
    photo = _photo_like(WIDTH, HEIGHT, seed=7)
    srgb = _image(photo)
    save("colour_grey.jpg", srgb.colourspace("b-w"), Q=90)
    cmyk = srgb.icc_transform("cmyk", input_profile="srgb")
    save("colour_cmyk_profile.jpg", cmyk, Q=92)
    without = cmyk.copy()
    without.remove("icc-profile-data")
    save("colour_cmyk_no_profile.jpg", without, Q=92)
    save("colour_display_p3.jpg", srgb.icc_transform("p3", input_profile="srgb"), Q=92)
    profiles = {}
    for key, (name, white, primaries, gamma) in {"adobe": ADOBE_RGB, "prophoto": PROPHOTO_RGB}.items():
        path = os.path.join(folder, f".{key}.icc")
        profiles[key] = rgb_profile(name, white, primaries, gamma)
        with open(path, "wb") as f:
            f.write(profiles[key])
    save("colour_adobe_rgb.jpg", _tagged(srgb, os.path.join(folder, ".adobe.icc"), profiles["adobe"]), Q=92)
    save("colour_prophoto_16bit.tif",
         _tagged(srgb.colourspace("rgb16"), os.path.join(folder, ".prophoto.icc"), profiles["prophoto"]),
         compression="deflate")
    for key in profiles:
        os.remove(os.path.join(folder, f".{key}.icc"))
    save("colour_rgb16.png", srgb.colourspace("rgb16"))
    save("colour_grey16.png", srgb.colourspace("grey16"))

    y, x = numpy.mgrid[0:1800, 0:2700]
    alpha = numpy.full((1800, 2700), 255, numpy.uint8)
    alpha[:, 1800:] = 0                                                  # transparent
    alpha[:, 900:1800] = (numpy.clip((x[:, 900:1800] - 900) / 900, 0, 1) * 255).astype(numpy.uint8)  # a ramp
    alpha[numpy.hypot(x - 500, y - 900) < 300] = 128                     # half transparent
    rgba_photo = _photo_like(2700, 1800, seed=11)
    # Transparent pixels keep their colour, as editors often leave it: only alpha hides it.
    save("alpha_rgba.png", _image(numpy.dstack([rgba_photo, alpha])))
    grey_alpha = numpy.dstack([rgba_photo.mean(axis=2).astype(numpy.uint8), alpha[:, ::-1]])
    save("alpha_grey.png", _image(grey_alpha))
    # Palettes with Pillow's quantizer (libvips saves palettes only when built with one).
    from PIL import Image as PillowImage
    indexed = PillowImage.fromarray(_photo_like(900, 700, seed=12)).quantize(64, dither=PillowImage.Dither.NONE)
    indexed.save(os.path.join(folder, "palette.png"))
    # The GIF's last colour marks a transparent band across the picture.
    indexed = PillowImage.fromarray(_photo_like(900, 700, seed=12)).quantize(63, dither=PillowImage.Dither.NONE)
    indexed.putpalette(indexed.getpalette()[:63 * 3] + [255, 0, 255])
    indexed.paste(63, (0, 300, 900, 420))
    indexed.save(os.path.join(folder, "palette_transparent.gif"), transparency=63)
    written += ["palette.png", "palette_transparent.gif"]
    save("webp_lossy.webp", srgb, Q=90)
    save("webp_lossless_alpha.webp", _image(numpy.dstack([rgba_photo, alpha])[:900, :1300]), lossless=True)
    save("tiff_lzw.tif", srgb, compression="lzw")

    # All eight EXIF orientations of one asymmetric picture: a letter F over quadrants, stored
    # so that every file shows the same upright picture.
    upright = _photo_like(1800, 1200, seed=21)
    upright[:600, :900] //= 2
    upright[200:1000, 300:420] = (250, 250, 250)
    upright[200:320, 300:800] = (250, 250, 250)
    upright[540:640, 300:700] = (250, 250, 250)
    stored_from_upright = {
        1: lambda a: a, 2: lambda a: a[:, ::-1], 3: lambda a: a[::-1, ::-1], 4: lambda a: a[::-1],
        5: lambda a: a.transpose(1, 0, 2), 6: lambda a: numpy.rot90(a, 1), 7: lambda a: numpy.rot90(a, 2).transpose(1, 0, 2),
        8: lambda a: numpy.rot90(a, -1)}
    reference = _image(upright)
    for orientation, stored in stored_from_upright.items():
        image = _image(stored(upright)).copy()
        image.set_type(pyvips.GValue.gint_type, "orientation", orientation)
        turned = image.autorot()
        assert (turned.width, turned.height) == (1800, 1200) and (turned - reference).abs().max() == 0, orientation
        save(f"orientation_{orientation}.jpg", image, Q=92)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    names = generate_hard_set(sys.argv[1])
    print(f"hardset: {len(names)} images in {sys.argv[1]}", file=sys.stderr)
