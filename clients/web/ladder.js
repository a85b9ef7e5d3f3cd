// The ladder logic of a page: where an image's entry is (the index beside the manifest), which
// rung fits a box, and a view that walks the ladder inside an element: placeholder at once, then
// rungs up to the one the box needs, each swapped in when it has loaded, never back down.
// `<ladder-image>` (ladder-image.js) is this view on a custom element; `showLadder` is the same
// view on any element, for frameworks.

import { base64ToBytes, thumbHashToCanvas } from "./thumbhash.js";

/** The MIME type of each format a rung may come in: the JPEG and its `formats` siblings. */
export const formatTypes = Object.freeze({
  jpeg: "image/jpeg",
  webp: "image/webp",
  avif: "image/avif",
  jxl: "image/jxl",
});

/** The manifest's name when none is given. */
export const defaultManifestName = "manifest.json";

/**
 * How far outside the viewport an element starts loading its rungs: Chromium's own margin for
 * `loading="lazy"` images on a fast connection. Change it with `setNearMargin` before elements
 * connect.
 */
let nearMargin = "1250px";

/**
 * Sets how far outside the viewport elements start loading (a CSS margin, as IntersectionObserver
 * takes it: "1250px", "800px 0px"). Elements observed already keep the margin they had.
 * @param {string} margin
 */
export function setNearMargin(margin) {
  nearMargin = margin;
  intersection = null;
}

/**
 * The index folder of a manifest, relative to the manifest's folder: `index` for manifest.json,
 * `NAME.index` for `NAME.json` (and for any other name, that name followed by `.index`).
 * @param {string} manifestName
 */
export function indexFolder(manifestName = defaultManifestName) {
  if (manifestName === defaultManifestName) return "index";
  return (manifestName.endsWith(".json") ? manifestName.slice(0, -5) : manifestName) + ".index";
}

// MARK: - Reading the index and the manifest

/** Thrown (and reported) when an index file, a manifest or an entry cannot be used. */
export class LadderError extends Error {
  constructor(message) {
    super(message);
    this.name = "LadderError";
  }
}

async function fetchJSON(url) {
  let response;
  try {
    response = await fetch(url, { credentials: "same-origin" });
  } catch (error) {
    throw new LadderError(`cannot fetch ${url}: ${error.message}`);
  }
  if (!response.ok) throw new LadderError(`cannot fetch ${url}: HTTP ${response.status}`);
  try {
    return await response.json();
  } catch {
    throw new LadderError(`${url} is not JSON`);
  }
}

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const isPositiveInteger = (value) => Number.isInteger(value) && value > 0;

/**
 * A variant path from an index or a manifest, as a URL under `base`: relative, `/`-separated,
 * with no empty, `.` or `..` segment; each segment percent-encoded, so that no path can name
 * another origin or scheme. Null for a path that breaks those rules.
 */
function variantURL(path, base) {
  if (typeof path !== "string" || path === "" || path.includes("\\")) return null;
  const segments = path.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) return null;
  return new URL(segments.map(encodeURIComponent).join("/"), base).href;
}

/**
 * Checks the fields of an index entry (or manifest entry) that a page uses; throws a LadderError
 * that says what is wrong.
 */
function checkEntry(entry, what) {
  if (!isObject(entry)) throw new LadderError(`${what} is not an object`);
  if (!isPositiveInteger(entry.width) || !isPositiveInteger(entry.height)) {
    throw new LadderError(`${what} has no width and height`);
  }
  if (!isObject(entry.variants) || Object.keys(entry.variants).length === 0) {
    throw new LadderError(`${what} has no variants`);
  }
  for (const [name, variant] of Object.entries(entry.variants)) {
    if (!isObject(variant) || !isPositiveInteger(variant.width) || !isPositiveInteger(variant.height)) {
      throw new LadderError(`${what}: variant "${name}" has no width and height`);
    }
  }
  return entry;
}

/**
 * One published ladder: the manifest's folder and the manifest's name. Every element showing
 * images of the same folder shares one Catalog, and so one request for the layout file, one per
 * index prefix file, and (only for elements given a `source`) one for the manifest.
 */
export class Catalog {
  /**
   * @param {string} folder the manifest's folder, an absolute URL ending in "/"
   * @param {string} manifestName
   */
  constructor(folder, manifestName = defaultManifestName) {
    this.folder = folder;
    this.manifestName = manifestName;
    this.indexURL = new URL(indexFolder(manifestName) + "/", folder).href;
    this.manifestURL = new URL(encodeURIComponent(manifestName), folder).href;
    this._layout = null;
    this._prefixFiles = new Map();
    this._sources = null;
  }

  /** The index's layout: how many hex digits of a SHA1 name a prefix file. */
  layout() {
    this._layout ??= fetchJSON(new URL("layout.json", this.indexURL).href).then((layout) => {
      if (!isObject(layout) || layout.version !== 1) {
        throw new LadderError(`${this.indexURL}layout.json is not a version 1 index layout`);
      }
      if (!Number.isInteger(layout.prefixLength) || layout.prefixLength < 2 || layout.prefixLength > 40) {
        throw new LadderError(`${this.indexURL}layout.json has no usable prefixLength`);
      }
      return layout;
    });
    // A failed fetch is not remembered: the next element tries again.
    this._layout.catch(() => (this._layout = null));
    return this._layout;
  }

  /**
   * The index entry of the image with this SHA1 (40 lowercase hex digits), from the one prefix
   * file that holds it. Rejects with a LadderError when the file cannot be read or does not hold
   * the image.
   * @param {string} sha1
   */
  async entry(sha1) {
    const { prefixLength } = await this.layout();
    const prefix = sha1.slice(0, prefixLength);
    let file = this._prefixFiles.get(prefix);
    if (!file) {
      const url = new URL(prefix + ".json", this.indexURL).href;
      file = fetchJSON(url).then((index) => {
        if (!isObject(index) || index.version !== 1 || !isObject(index.images)) {
          throw new LadderError(`${url} is not a version 1 index file`);
        }
        return index;
      });
      this._prefixFiles.set(prefix, file);
      file.catch(() => this._prefixFiles.delete(prefix));
    }
    const index = await file;
    const entry = index.images[sha1];
    if (entry === undefined) {
      throw new LadderError(`${sha1} is not in the manifest (${this.indexURL}${prefix}.json does not list it)`);
    }
    return checkEntry(entry, `the index entry of ${sha1}`);
  }

  /**
   * The SHA1 and manifest entry of the image built from a source path as the manifest lists it
   * ("photos/cat.jpg"). This reads the whole manifest (once per Catalog): prefer SHA1s for
   * large catalogs.
   * @param {string} source
   */
  async entryForSource(source) {
    this._sources ??= fetchJSON(this.manifestURL).then((manifest) => {
      if (!isObject(manifest) || manifest.version !== 1 || !isObject(manifest.images)) {
        throw new LadderError(`${this.manifestURL} is not a version 1 ladder manifest`);
      }
      const bySource = new Map();
      for (const [sha1, entry] of Object.entries(manifest.images)) {
        for (const path of Array.isArray(entry?.sources) ? entry.sources : []) bySource.set(path, { sha1, entry });
      }
      return bySource;
    });
    this._sources.catch(() => (this._sources = null));
    const found = (await this._sources).get(source);
    if (!found) throw new LadderError(`the source "${source}" is not in ${this.manifestURL}`);
    checkEntry(found.entry, `the manifest entry of "${source}"`);
    return found;
  }
}

const catalogs = new Map();

/**
 * The shared Catalog of a manifest's folder (`base`, resolved against the document's URL) and
 * manifest name.
 * @param {string} base
 * @param {string} [manifestName]
 */
export function catalogFor(base, manifestName = defaultManifestName) {
  const url = new URL(base, globalThis.document?.baseURI ?? globalThis.location?.href);
  url.search = "";
  url.hash = "";
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  const key = url.href + "\n" + manifestName;
  let catalog = catalogs.get(key);
  if (!catalog) {
    catalog = new Catalog(url.href, manifestName);
    catalogs.set(key, catalog);
  }
  return catalog;
}

// MARK: - Rungs

/**
 * An entry's rungs, smallest first: by pixels, then by bytes (of two rungs of one size, as when a
 * source is smaller than both boxes, the lighter file comes first and is the one chosen), then by
 * name. Each rung lists its files in the order a page prefers them: the `formats` siblings that
 * are smaller than the JPEG, smallest first, then the JPEG, which every browser decodes.
 * @param {object} entry an index or manifest entry
 * @param {string} folder the manifest's folder URL
 * @param {ReadonlySet<string>} [allowed] the formats the page may use (all when absent)
 */
export function rungsOf(entry, folder, allowed) {
  const rungs = [];
  for (const [name, variant] of Object.entries(entry.variants)) {
    const jpegURL = variantURL(variant.path, folder);
    if (!jpegURL) continue;
    const files = [];
    if (isObject(variant.formats)) {
      for (const [format, sibling] of Object.entries(variant.formats)) {
        if (!(format in formatTypes) || format === "jpeg" || (allowed && !allowed.has(format))) continue;
        const url = variantURL(sibling?.path, folder);
        const bytes = Number.isFinite(sibling?.bytes) ? sibling.bytes : Infinity;
        if (url && (!Number.isFinite(variant.bytes) || bytes < variant.bytes)) {
          files.push({ format, type: formatTypes[format], url, bytes });
        }
      }
      files.sort((a, b) => a.bytes - b.bytes || (a.format < b.format ? -1 : 1));
    }
    files.push({ format: "jpeg", type: formatTypes.jpeg, url: jpegURL, bytes: variant.bytes ?? Infinity });
    rungs.push({
      name,
      width: variant.width,
      height: variant.height,
      bytes: Number.isFinite(variant.bytes) ? variant.bytes : Infinity,
      progressive: variant.progressive === true,
      scanEnds: Array.isArray(variant.scanEnds) ? variant.scanEnds : null,
      files,
    });
  }
  rungs.sort(
    (a, b) =>
      a.width * a.height - b.width * b.height || a.bytes - b.bytes || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  return rungs;
}

/**
 * The index of the smallest rung sharp enough for a box of `width` x `height` device pixels
 * (CSS pixels times devicePixelRatio), or of the largest rung when none is. With `fit` "contain"
 * the picture is shown whole inside the box; with "cover" it fills the box and is cropped, so it
 * is shown larger. Rungs are never scaled up past the largest, which has the image's own aspect.
 * @param {ReadonlyArray<{width: number, height: number}>} rungs smallest first
 * @param {number} width
 * @param {number} height
 * @param {"contain" | "cover"} [fit]
 */
export function chooseRung(rungs, width, height, fit = "contain") {
  if (rungs.length === 0) return -1;
  const largest = rungs[rungs.length - 1];
  const scaleX = width / largest.width;
  const scaleY = height / largest.height;
  const scale = fit === "cover" ? Math.max(scaleX, scaleY) : Math.min(scaleX, scaleY);
  // A thousandth of a pixel of slack, for box sizes that are fractions of device pixels.
  const shownWidth = Math.ceil(largest.width * scale - 1e-3);
  const shownHeight = Math.ceil(largest.height * scale - 1e-3);
  const index = rungs.findIndex((rung) => rung.width >= shownWidth && rung.height >= shownHeight);
  return index === -1 ? rungs.length - 1 : index;
}

// MARK: - Options

const fits = ["contain", "cover"];
const loadings = ["lazy", "eager"];

/**
 * Reads a view's options as given (attribute values or a framework's props), with what is wrong
 * with them. A problem never throws: it is reported, and a default is used where there is one.
 * @returns {{options: object | null, problems: Array<{name: string, message: string}>}}
 */
export function readOptions(given) {
  const problems = [];
  const problem = (name, message) => problems.push({ name, message });
  const text = (value) => (value === undefined || value === null ? null : String(value));
  const options = {
    base: null,
    sha1: null,
    source: null,
    manifest: defaultManifestName,
    alt: text(given.alt),
    fit: "contain",
    formats: null,
    loading: "lazy",
    width: null,
    height: null,
  };
  let usable = true;

  const base = text(given.base);
  if (base === null || base.trim() === "") {
    problem("base", "is missing: give the URL of the folder that holds the manifest and its index");
    usable = false;
  } else {
    try {
      new URL(base, globalThis.document?.baseURI ?? globalThis.location?.href);
      options.base = base;
    } catch {
      problem("base", `"${base}" is not a URL`);
      usable = false;
    }
  }

  const sha1 = text(given.sha1);
  const source = text(given.source);
  if (sha1 !== null) {
    if (/^[0-9a-fA-F]{40}$/.test(sha1)) {
      options.sha1 = sha1.toLowerCase();
    } else {
      problem("sha1", `"${sha1}" is not a SHA1 (40 hexadecimal digits)`);
      usable = false;
    }
    if (source !== null) problem("source", "is ignored: give sha1 or source, not both");
  } else if (source !== null && source !== "") {
    options.source = source;
  } else {
    problem(source === null ? "sha1" : "source", "is missing: give the image's sha1 (or its source path)");
    usable = false;
  }

  const manifest = text(given.manifest);
  if (manifest !== null) {
    if (manifest === "" || manifest === "." || manifest === ".." || /[/\\]/.test(manifest)) {
      problem("manifest", `"${manifest}" is not a file name (the manifest's folder is "base")`);
    } else {
      options.manifest = manifest;
    }
  }

  const fit = text(given.fit);
  if (fit !== null) {
    if (fits.includes(fit)) options.fit = fit;
    else problem("fit", `"${fit}" is not "contain" or "cover"; using "contain"`);
  }

  const loading = text(given.loading);
  if (loading !== null) {
    if (loadings.includes(loading)) options.loading = loading;
    else problem("loading", `"${loading}" is not "lazy" or "eager"; using "lazy"`);
  }

  const formats = text(given.formats);
  if (formats !== null) {
    const names = formats.split(/[\s,]+/).filter(Boolean);
    const unknown = names.filter((name) => !(name in formatTypes));
    if (unknown.length) {
      problem("formats", `"${unknown.join(" ")}" ${unknown.length > 1 ? "are not formats" : "is not a format"} ladder writes (jpeg, webp, avif, jxl)`);
    }
    options.formats = new Set(names.filter((name) => name in formatTypes));
  }

  for (const name of ["width", "height"]) {
    const value = text(given[name]);
    if (value === null) continue;
    const number = Number(value);
    if (Number.isFinite(number) && number > 0) options[name] = number;
    else problem(name, `"${value}" is not a positive number`);
  }

  return { options: usable ? options : null, problems };
}

// MARK: - The view

/**
 * URLs that a view on this page has shown: the browser has them, so a view starts from them. The
 * most recent few thousand, as a browser's memory cache holds no more.
 */
const shownURLs = new Set();
const shownURLsKept = 4096;

function rememberShown(url) {
  shownURLs.delete(url);
  shownURLs.add(url);
  if (shownURLs.size > shownURLsKept) shownURLs.delete(shownURLs.values().next().value);
}

let intersection = null;
let resize = null;
const views = new WeakMap();

function observeNear(view) {
  intersection ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        views.get(entry.target)?._nearChanged(entry.isIntersecting);
      }
    },
    { rootMargin: nearMargin },
  );
  view._intersection = intersection;
  intersection.observe(view.host);
}

function observeSize(view) {
  resize ??= new ResizeObserver((entries) => {
    for (const entry of entries) views.get(entry.target)?._resized(entry);
  });
  // The device-pixel box changes with devicePixelRatio too (zoom, another screen), where
  // browsers observe it; elsewhere the content box, and a media query on the ratio below.
  try {
    resize.observe(view.host, { box: "device-pixel-content-box" });
  } catch {
    resize.observe(view.host);
  }
  watchPixelRatio();
}

const measuredViews = new Set();
let watchedRatio = null;

/** Measures every connected view again when devicePixelRatio changes. */
function watchPixelRatio() {
  const ratio = globalThis.devicePixelRatio || 1;
  if (watchedRatio === ratio || !globalThis.matchMedia) return;
  watchedRatio = ratio;
  matchMedia(`(resolution: ${ratio}dppx)`).addEventListener(
    "change",
    () => {
      watchPixelRatio();
      for (const view of measuredViews) view._measure();
    },
    { once: true },
  );
}

const layerStyle = "position:absolute;inset:0;width:100%;height:100%;margin:0;border:0;padding:0;";

/**
 * The ladder shown in one element. `host` is the element whose box decides the rung and which
 * dispatches the events; `root` is where the pictures go (the host itself, or its shadow root).
 */
export class LadderView {
  /**
   * @param {HTMLElement} host
   * @param {HTMLElement | ShadowRoot} root
   * @param {{describe: () => string}} settings
   */
  constructor(host, root, settings) {
    this.host = host;
    this.root = root;
    this.describe = settings.describe;
    /** The rung on screen: "placeholder", a variant's name, or null. */
    this.rung = null;
    this.options = null;
    this.entry = null;
    this.rungs = [];
    this.shown = -1;
    this.loads = new Map();
    this.failed = new Set();
    this.failedFiles = new Set();
    this.layers = new Map();
    this.size = null;
    this.near = false;
    this.connected = false;
    this.generation = 0;
    views.set(host, this);
  }

  /** Takes new options (the whole set); a different image starts over. */
  configure(given) {
    const { options, problems } = readOptions(given);
    // The same options given again (the element moved) are not reported again.
    const said = problems.map(({ name, message }) => name + message).join("\n");
    if (said !== this.reported) for (const { name, message } of problems) this.report(name, message);
    this.reported = said;
    const previous = this.options;
    this.options = options;
    if (!options) {
      this.reset();
      return;
    }
    this.applyAlt();
    const same = (key) => previous && previous[key] === options[key];
    const sameFormats =
      previous && [...(previous.formats ?? [])].join() === [...(options.formats ?? [])].join();
    if (same("base") && same("manifest") && same("sha1") && same("source") && sameFormats) {
      this.applyFit();
      this.applyAspect();
      this.pump();
      return;
    }
    this.reset();
    this.applyAspect();
    if (this.connected) this.resolve();
  }

  connect() {
    this.connected = true;
    measuredViews.add(this);
    observeNear(this);
    observeSize(this);
    if (this.options && !this.entry && !this.resolving) this.resolve();
    else this.pump();
  }

  disconnect() {
    this.connected = false;
    measuredViews.delete(this);
    this.near = false;
    this._intersection?.unobserve(this.host);
    resize?.unobserve(this.host);
    // What is still downloading is of no use to an element that left the page.
    for (const index of [...this.loads.keys()]) this.abort(index);
  }

  destroy() {
    this.disconnect();
    this.reset();
    views.delete(this.host);
  }

  /** Reports a problem with an attribute or option, naming the element, on the console. */
  report(name, message) {
    console.error(`${this.describe()}: "${name}" ${message}`, this.host);
  }

  /** Forgets the image: aborts every download and removes every picture. */
  reset() {
    this.generation++;
    this.resolving = false;
    for (const index of [...this.loads.keys()]) this.abort(index);
    for (const layer of this.layers.values()) layer.remove();
    this.layers.clear();
    this.placeholder?.remove();
    this.placeholder = null;
    this.entry = null;
    this.rungs = [];
    this.shown = -1;
    this.failed.clear();
    this.failedFiles.clear();
    this.rung = null;
    this.host.style.removeProperty("--ladder-aspect-ratio");
    this.host.style.removeProperty("--ladder-background");
  }

  async resolve() {
    const generation = this.generation;
    this.resolving = true;
    const { base, manifest, sha1, source } = this.options;
    const catalog = catalogFor(base, manifest);
    let entry;
    let key;
    try {
      if (sha1) {
        entry = await catalog.entry(sha1);
        key = sha1;
      } else {
        ({ sha1: key, entry } = await catalog.entryForSource(source));
      }
    } catch (error) {
      if (generation !== this.generation) return;
      this.resolving = false;
      this.report(sha1 ? "sha1" : "source", `cannot be shown: ${error.message}`);
      this.host.dispatchEvent(
        new CustomEvent("ladder-error", { bubbles: true, composed: true, detail: { message: error.message } }),
      );
      return;
    }
    if (generation !== this.generation) return;
    this.resolving = false;
    this.entry = entry;
    this.key = key;
    this.rungs = rungsOf(entry, catalog.folder, this.options.formats);
    const hinted = this.host.style.getPropertyValue("--ladder-aspect-ratio");
    this.applyAspect();
    if (this.host.style.getPropertyValue("--ladder-aspect-ratio") !== hinted) this._locateAgain();
    this.paintPlaceholder();
    this.pump();
  }

  applyAlt() {
    const alt = this.options.alt;
    if (alt === null) {
      this.host.removeAttribute("role");
      this.host.removeAttribute("aria-label");
    } else {
      this.host.setAttribute("role", "img");
      this.host.setAttribute("aria-label", alt);
    }
  }

  applyFit() {
    for (const layer of this.layers.values()) layer.img.style.objectFit = this.options.fit;
    if (this.placeholder) this.placeholder.style.objectFit = this.options.fit;
  }

  /** The box's aspect ratio: the image's, from the entry, or the width and height hints. */
  applyAspect() {
    const width = this.entry?.width ?? this.options?.width;
    const height = this.entry?.height ?? this.options?.height;
    if (width && height) this.host.style.setProperty("--ladder-aspect-ratio", `${width} / ${height}`);
  }

  paintPlaceholder() {
    const { averageColor, placeholder } = this.entry;
    if (typeof averageColor === "string" && /^#[0-9a-fA-F]{6}$/.test(averageColor)) {
      this.host.style.setProperty("--ladder-background", averageColor);
    }
    const hash = typeof placeholder === "string" ? base64ToBytes(placeholder) : null;
    const canvas = hash ? thumbHashToCanvas(hash, this.host.ownerDocument) : null;
    if (canvas) {
      canvas.setAttribute("part", "placeholder");
      canvas.setAttribute("aria-hidden", "true");
      canvas.style.cssText = layerStyle + `object-fit:${this.options.fit};`;
      this.root.append(canvas);
      this.placeholder = canvas;
    }
    if (canvas || this.host.style.getPropertyValue("--ladder-background")) {
      this.rung = "placeholder";
      this.dispatch({ rung: "placeholder", format: canvas ? "thumbhash" : "color", url: null });
    }
  }

  _nearChanged(near) {
    this.near = near;
    if (near) this.pump();
  }

  /**
   * Asks where the element is again, once layout has settled: a new aspect ratio moves it and
   * every element after it, so what was near a moment ago may not be any more. `observe` always
   * reports an element's state once.
   */
  _locateAgain() {
    if (!this.connected || !this._intersection) return;
    this.near = false;
    this._intersection.unobserve(this.host);
    this._intersection.observe(this.host);
  }

  _resized(entry) {
    const box = entry.contentBoxSize?.[0];
    this.cssSize = box ? { width: box.inlineSize, height: box.blockSize } : entry.contentRect;
    this._measure();
  }

  /** The box in device pixels: CSS pixels times devicePixelRatio, as srcset selection counts. */
  _measure() {
    if (!this.cssSize) return;
    const ratio = globalThis.devicePixelRatio || 1;
    const width = this.cssSize.width * ratio;
    const height = this.cssSize.height * ratio;
    if (this.size && this.size.width === width && this.size.height === height) return;
    this.size = { width, height };
    this.pump();
  }

  /** Starts what the box needs now, and aborts what it no longer needs. */
  pump() {
    if (!this.entry || !this.connected || !this.size || !this.options) return;
    if (!this.near && this.options.loading !== "eager") return;
    if (this.size.width <= 0 || this.size.height <= 0) return;
    const usable = this.rungs.map((_, index) => index).filter((index) => !this.failed.has(index));
    if (usable.length === 0) return;
    const choice = chooseRung(
      usable.map((index) => this.rungs[index]),
      this.size.width,
      this.size.height,
      this.options.fit,
    );
    const target = usable[choice];
    // A rung above the target that is still downloading is of no use any more.
    for (const index of [...this.loads.keys()]) if (index > target) this.abort(index);
    if (target <= this.shown) return;
    // Start from the largest rung the page has already shown (the browser holds it), if any.
    let first = this.shown + 1;
    for (let index = target; index > this.shown; index--) {
      if (this.rungs[index].files.some((file) => shownURLs.has(file.url))) {
        first = index;
        break;
      }
    }
    for (let index = first; index <= target; index++) {
      if (!this.failed.has(index) && !this.loads.has(index)) this.load(index, index === first);
    }
  }

  /** Downloads rung `index` into a new picture layer, above the lower rungs. */
  load(index, first) {
    const rung = this.rungs[index];
    const files = rung.files.filter((file) => !this.failedFiles.has(file.url));
    const doc = this.host.ownerDocument;
    const img = doc.createElement("img");
    img.alt = "";
    img.decoding = "async";
    img.setAttribute("aria-hidden", "true");
    img.setAttribute("part", "rung");
    img.fetchPriority = first ? "high" : "auto";
    let element = img;
    if (files.length > 1) {
      // <picture> leaves the choice to the browser: the first <source> whose type it decodes.
      element = doc.createElement("picture");
      for (const file of files.slice(0, -1)) {
        const source = doc.createElement("source");
        source.type = file.type;
        source.srcset = file.url.replaceAll(",", "%2C");
        element.append(source);
      }
      element.append(img);
      element.style.cssText = layerStyle;
    }
    img.style.cssText = layerStyle + `object-fit:${this.options.fit};opacity:0;`;
    img.dataset.rung = rung.name;
    element.style.zIndex = String(index + 1);
    img.src = files[files.length - 1].url;
    const layer = { element, img, files, index, remove: () => this.clearLayer(layer) };
    this.loads.set(index, layer);
    this.layers.set(index, layer);
    this.root.append(element);
    const fileOf = () => files.find((file) => file.url === img.currentSrc) ?? files[files.length - 1];
    // A progressive JPEG is shown while it arrives, so that the browser draws it scan by scan
    // over the rung below; any other file is shown once decoded whole. Which file a <picture>
    // fetches is known once the browser has chosen (currentSrc), within a frame or two.
    if (rung.progressive) {
      const reveal = () => {
        if (this.loads.get(index) !== layer) return;
        if (files.length === 1 || img.currentSrc) {
          if (fileOf().format === "jpeg") img.style.opacity = "1";
        } else {
          requestAnimationFrame(reveal);
        }
      };
      reveal();
    }
    img.addEventListener(
      "load",
      () => {
        if (this.loads.get(index) !== layer) return;
        const done = () => {
          if (this.loads.get(index) !== layer) return;
          this.loads.delete(index);
          this.show(layer, fileOf());
        };
        img.decode().then(done, () => this.failedLoad(layer, fileOf(), "cannot be decoded"));
      },
      { once: true },
    );
    img.addEventListener(
      "error",
      () => {
        if (this.loads.get(index) === layer) this.failedLoad(layer, fileOf(), "cannot be loaded");
      },
      { once: true },
    );
  }

  show(layer, file) {
    const index = layer.index;
    if (index <= this.shown) {
      layer.remove();
      return;
    }
    layer.img.style.opacity = "1";
    for (const [other, otherLayer] of [...this.layers]) {
      if (other >= index) continue;
      if (this.loads.get(other) === otherLayer) this.abort(other);
      else otherLayer.remove();
    }
    this.placeholder?.remove();
    this.placeholder = null;
    this.shown = index;
    const rung = this.rungs[index];
    this.rung = rung.name;
    rememberShown(file.url);
    this.dispatch({ rung: rung.name, format: file.format, url: file.url, width: rung.width, height: rung.height });
  }

  failedLoad(layer, file, reason) {
    const index = layer.index;
    this.loads.delete(index);
    layer.remove();
    const rung = this.rungs[index];
    this.dispatch({ rung: rung.name, format: file.format, url: file.url, error: `${file.url} ${reason}` });
    if (file.format !== "jpeg") {
      // The same rung again, without that file: the JPEG, which every browser decodes, is last.
      this.failedFiles.add(file.url);
    } else {
      this.failed.add(index);
    }
    this.pump();
  }

  /** Stops a download that is no longer needed, and removes its layer. */
  abort(index) {
    const layer = this.loads.get(index);
    this.loads.delete(index);
    layer?.remove();
  }

  clearLayer(layer) {
    if (this.layers.get(layer.index) === layer) this.layers.delete(layer.index);
    // Without a source the browser cancels the request (no element waits for it any more).
    for (const source of layer.element.querySelectorAll?.("source") ?? []) source.removeAttribute("srcset");
    layer.img.removeAttribute("src");
    layer.element.remove();
  }

  dispatch(detail) {
    this.host.dispatchEvent(new CustomEvent("ladder-rung", { bubbles: true, composed: true, detail }));
  }
}

/**
 * The same view as `<ladder-image>`, on an element a framework owns: the pictures go inside
 * `container`, sized by its box, and `ladder-rung` events bubble from it. Returns a handle:
 * `update(options)` with the whole new set of options, `destroy()` when the component goes.
 * Problems with the options are reported on the console, never thrown.
 *
 * @param {HTMLElement} container
 * @param {object} options `base`, `sha1` or `source`, and optionally `manifest`, `alt`, `fit`,
 *   `formats`, `loading`, `width`, `height`, `onRung`
 */
export function showLadder(container, options) {
  const view = new LadderView(container, container, {
    describe: () => `showLadder(${describeElement(container)})`,
  });
  let listener = null;
  const setListener = (onRung) => {
    if (listener) container.removeEventListener("ladder-rung", listener);
    listener = typeof onRung === "function" ? (event) => onRung(event.detail) : null;
    if (listener) container.addEventListener("ladder-rung", listener);
  };
  const style = container.style;
  // The pictures are stacked inside the container, and their order stays its own.
  const position = getComputedStyle(container).position;
  if (!position || position === "static") style.position = "relative";
  if (!style.isolation) style.isolation = "isolate";
  style.overflow = "hidden";
  if (!style.aspectRatio) style.aspectRatio = "var(--ladder-aspect-ratio, auto)";
  if (!style.backgroundColor) style.backgroundColor = "var(--ladder-background, transparent)";
  setListener(options?.onRung);
  view.configure(options ?? {});
  view.connect();
  return {
    get rung() {
      return view.rung;
    },
    update(next) {
      setListener(next?.onRung);
      view.configure(next ?? {});
    },
    destroy() {
      setListener(null);
      view.destroy();
    },
  };
}

/** An element as a console message names it: its tag and its identifying attributes. */
export function describeElement(element) {
  let text = "<" + element.localName;
  for (const name of ["id", "sha1", "source"]) {
    const value = element.getAttribute(name);
    if (value !== null) text += ` ${name}="${value.length > 60 ? value.slice(0, 57) + "..." : value}"`;
  }
  return text + ">";
}
