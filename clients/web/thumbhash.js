// ThumbHash decoding: the placeholder a ladder manifest carries for every image (Evan Wallace's
// format, https://evanw.github.io/thumbhash/), turned into pixels a page can paint at once.
//
// The hash holds a 24-bit header (luminance DC in 6 bits, the two colour differences' DCs in 6
// bits each, the luminance AC scale in 5 bits, an alpha flag), a 16-bit header (the luminance
// coefficient count along the shorter side in 3 bits, the colour differences' AC scales in 6 bits
// each, a landscape flag), an alpha byte when there is alpha, then every AC coefficient as a 4-bit
// value, low nibble first: luminance, P, Q, alpha. Colours are L = (r + g + b) / 3,
// P = (r + g) / 2 - b, Q = r - g over gamma-encoded sRGB; the coefficients of each channel are
// the DCT terms of a triangle (cx * ny < nx * (ny - cy)), DC excluded.

/**
 * The bytes of a base64 text (with or without padding); null when it is not base64.
 * @param {string} text
 * @returns {Uint8Array | null}
 */
export function base64ToBytes(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  let binary;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The two headers and the alpha byte, read; null when the hash is too short. */
function readHeader(hash) {
  if (!hash || hash.length < 5) return null;
  const h24 = hash[0] | (hash[1] << 8) | (hash[2] << 16);
  const h16 = hash[3] | (hash[4] << 8);
  const hasAlpha = (h24 >> 23) !== 0;
  if (hasAlpha && hash.length < 6) return null;
  const shortCount = h16 & 7;
  const longCount = hasAlpha ? 5 : 7;
  const isLandscape = (h16 >> 15) !== 0;
  if (shortCount === 0) return null;
  return {
    l: (h24 & 63) / 63,
    p: ((h24 >> 6) & 63) / 31.5 - 1,
    q: ((h24 >> 12) & 63) / 31.5 - 1,
    lScale: ((h24 >> 18) & 31) / 31,
    hasAlpha,
    pScale: ((h16 >> 3) & 63) / 63,
    qScale: ((h16 >> 9) & 63) / 63,
    isLandscape,
    a: hasAlpha ? (hash[5] & 15) / 15 : 1,
    aScale: hasAlpha ? (hash[5] >> 4) / 15 : 0,
    // Luminance coefficients across and down.
    lx: Math.max(3, isLandscape ? longCount : shortCount),
    ly: Math.max(3, isLandscape ? shortCount : longCount),
    ratio: isLandscape ? longCount / shortCount : shortCount / longCount,
  };
}

/** From L, P, Q back to red, green and blue (0 to 1, not clamped). */
function toRGB(l, p, q) {
  const b = l - (2 / 3) * p;
  const r = (3 * l - b + q) / 2;
  return [r, r - q, b];
}

const clamp01 = (v) => (v < 0 ? 0 : v > 1 ? 1 : v);

/**
 * The width / height ratio a hash approximates; null when the hash is too short.
 * @param {Uint8Array} hash
 * @returns {number | null}
 */
export function thumbHashAspectRatio(hash) {
  return readHeader(hash)?.ratio ?? null;
}

/**
 * The picture's average colour, from the header alone: components from 0 to 1.
 * @param {Uint8Array} hash
 * @returns {{r: number, g: number, b: number, a: number} | null}
 */
export function thumbHashAverageRGBA(hash) {
  const header = readHeader(hash);
  if (!header) return null;
  const [r, g, b] = toRGB(header.l, header.p, header.q);
  return { r: clamp01(r), g: clamp01(g), b: clamp01(b), a: header.a };
}

/**
 * Decodes a ThumbHash to a blurred picture whose longer side is 32 pixels: 8-bit RGBA, not
 * premultiplied, rows top to bottom. Returns null when the hash is shorter than its header says.
 * @param {Uint8Array} hash
 * @returns {{width: number, height: number, rgba: Uint8ClampedArray} | null}
 */
export function thumbHashToRGBA(hash) {
  const header = readHeader(hash);
  if (!header) return null;
  const { lx, ly, hasAlpha } = header;
  let nibble = 0;
  const start = hasAlpha ? 6 : 5;
  let truncated = false;
  // One channel's AC coefficients, in the triangle's order, scaled.
  const channel = (nx, ny, scale) => {
    const ac = [];
    for (let cy = 0; cy < ny; cy++) {
      for (let cx = cy ? 0 : 1; cx * ny < nx * (ny - cy); cx++) {
        const at = start + (nibble >> 1);
        if (at >= hash.length) truncated = true;
        const value = ((hash[at] ?? 0) >> ((nibble & 1) * 4)) & 15;
        ac.push((value / 7.5 - 1) * scale);
        nibble++;
      }
    }
    return ac;
  };
  const lAC = channel(lx, ly, header.lScale);
  // The colour differences' scales are widened a little, as the format's author decodes them, to
  // make up for the saturation that quantizing loses.
  const pAC = channel(3, 3, header.pScale * 1.25);
  const qAC = channel(3, 3, header.qScale * 1.25);
  const aAC = hasAlpha ? channel(5, 5, header.aScale) : [];
  if (truncated) return null;

  const ratio = header.ratio;
  const width = ratio > 1 ? 32 : Math.round(32 * ratio);
  const height = ratio > 1 ? Math.round(32 / ratio) : 32;
  const columns = Math.max(lx, hasAlpha ? 5 : 3);
  const rows = Math.max(ly, hasAlpha ? 5 : 3);
  // Cosines along x are the same on every row.
  const cosX = new Float64Array(width * columns);
  for (let x = 0; x < width; x++) {
    for (let cx = 0; cx < columns; cx++) cosX[x * columns + cx] = Math.cos((Math.PI / width) * (x + 0.5) * cx);
  }
  const fy = new Float64Array(rows);
  const sum = (ac, nx, ny, x) => {
    let value = 0;
    let j = 0;
    for (let cy = 0; cy < ny; cy++) {
      const fy2 = fy[cy] * 2;
      for (let cx = cy ? 0 : 1; cx * ny < nx * (ny - cy); cx++) value += ac[j++] * cosX[x * columns + cx] * fy2;
    }
    return value;
  };
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let y = 0, i = 0; y < height; y++) {
    for (let cy = 0; cy < rows; cy++) fy[cy] = Math.cos((Math.PI / height) * (y + 0.5) * cy);
    for (let x = 0; x < width; x++, i += 4) {
      const [r, g, b] = toRGB(
        header.l + sum(lAC, lx, ly, x),
        header.p + sum(pAC, 3, 3, x),
        header.q + sum(qAC, 3, 3, x),
      );
      const a = hasAlpha ? header.a + sum(aAC, 5, 5, x) : 1;
      // Truncated, as the format's reference decoders store their samples.
      rgba[i] = Math.trunc(255 * clamp01(r));
      rgba[i + 1] = Math.trunc(255 * clamp01(g));
      rgba[i + 2] = Math.trunc(255 * clamp01(b));
      rgba[i + 3] = Math.trunc(255 * clamp01(a));
    }
  }
  return { width, height, rgba };
}

/**
 * Paints a decoded ThumbHash into a new canvas of its own size (32 pixels on the longer side),
 * for a page to stretch over an image's box: browsers scale it smoothly. Null when the hash does
 * not decode.
 * @param {Uint8Array} hash
 * @param {Document} [doc]
 * @returns {HTMLCanvasElement | null}
 */
export function thumbHashToCanvas(hash, doc = globalThis.document) {
  const picture = thumbHashToRGBA(hash);
  if (!picture || !doc) return null;
  const canvas = doc.createElement("canvas");
  canvas.width = picture.width;
  canvas.height = picture.height;
  const context = canvas.getContext("2d");
  if (!context) return null;
  context.putImageData(new ImageData(picture.rgba, picture.width, picture.height), 0, 0);
  return canvas;
}
