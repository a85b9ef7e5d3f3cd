// LadderJPEG's types (DecodedPixels, JPEGReplayDecoder, ImagingError...) are part of the imaging
// layer's face: every module that imports LadderImaging sees them.
@_exported public import LadderJPEG
