"""libjxl's butteraugli (JxlButteraugliCompute, libjxl 0.7, its defaults) through ctypes, for the
scripts that measure with it: scripts/bench_formats.py and scripts/reference/butteraugli_reference.py.
"""
import ctypes


class PixelFormat(ctypes.Structure):
    _fields_ = [("num_channels", ctypes.c_uint32), ("data_type", ctypes.c_int), ("endianness", ctypes.c_int),
                ("align", ctypes.c_size_t)]


_jxl = None


def _library():
    global _jxl
    if _jxl is None:
        jxl = ctypes.CDLL("libjxl.so.0.7")
        jxl.JxlButteraugliApiCreate.restype = ctypes.c_void_p
        jxl.JxlButteraugliCompute.restype = ctypes.c_void_p
        jxl.JxlButteraugliCompute.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32,
                                              ctypes.POINTER(PixelFormat), ctypes.c_char_p, ctypes.c_size_t,
                                              ctypes.POINTER(PixelFormat), ctypes.c_char_p, ctypes.c_size_t]
        jxl.JxlButteraugliResultGetDistance.restype = ctypes.c_float
        jxl.JxlButteraugliResultGetDistance.argtypes = [ctypes.c_void_p, ctypes.c_float]
        jxl.JxlButteraugliResultGetMaxDistance.restype = ctypes.c_float
        jxl.JxlButteraugliResultGetMaxDistance.argtypes = [ctypes.c_void_p]
        jxl.JxlButteraugliResultDestroy.argtypes = [ctypes.c_void_p]
        jxl.JxlButteraugliApiDestroy.argtypes = [ctypes.c_void_p]
        _jxl = jxl
    return _jxl


def distance(width, height, first, second):
    """(3-norm, max) between two packed 8-bit RGB pictures of width x height, given as bytes."""
    jxl = _library()
    fmt = PixelFormat(3, 2, 0, 0)  # 3 channels, JXL_TYPE_UINT8, native endianness
    api = jxl.JxlButteraugliApiCreate(None)
    result = jxl.JxlButteraugliCompute(api, width, height, ctypes.byref(fmt), first, len(first), ctypes.byref(fmt),
                                       second, len(second))
    values = (jxl.JxlButteraugliResultGetDistance(result, 3.0), jxl.JxlButteraugliResultGetMaxDistance(result))
    jxl.JxlButteraugliResultDestroy(result)
    jxl.JxlButteraugliApiDestroy(api)
    return values
