/** The bytes of a base64 text (with or without padding); null when it is not base64. */
export function base64ToBytes(text: string): Uint8Array | null;

/** The width / height ratio a ThumbHash approximates; null when the hash is too short. */
export function thumbHashAspectRatio(hash: Uint8Array): number | null;

/** The picture's average colour, from the hash's header alone: components from 0 to 1. */
export function thumbHashAverageRGBA(hash: Uint8Array): { r: number; g: number; b: number; a: number } | null;

/**
 * Decodes a ThumbHash to a blurred picture whose longer side is 32 pixels: 8-bit RGBA, not
 * premultiplied, rows top to bottom; null when the hash is shorter than its header says.
 */
export function thumbHashToRGBA(hash: Uint8Array): { width: number; height: number; rgba: Uint8ClampedArray } | null;

/** A canvas of the decoded picture's own size, for a page to stretch over an image's box. */
export function thumbHashToCanvas(hash: Uint8Array, doc?: Document): HTMLCanvasElement | null;
