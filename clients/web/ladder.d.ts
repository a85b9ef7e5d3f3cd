/** A format a rung may come in: the JPEG, or one of its `formats` siblings. */
export type LadderFormat = "jpeg" | "webp" | "avif" | "jxl";

/** The MIME type of each format. */
export const formatTypes: Readonly<Record<LadderFormat, string>>;

/** The manifest's name when none is given: "manifest.json". */
export const defaultManifestName: string;

/** How the picture fills the box: whole inside it, or filling it and cropped. */
export type LadderFit = "contain" | "cover";

/** What a `ladder-rung` event carries. */
export interface LadderRungDetail {
  /** "placeholder", then a variant's name ("small_thumb", "large_thumb", "full"...). */
  rung: string;
  /** "thumbhash" or "color" for the placeholder; the file's format for a rung. */
  format: "thumbhash" | "color" | LadderFormat;
  /** The file's URL; null for the placeholder. */
  url: string | null;
  /** The rung's size in pixels (absent for the placeholder). */
  width?: number;
  height?: number;
  /** Set when this rung (or this format of it) could not be loaded: nothing was shown for it. */
  error?: string;
}

/** What a `ladder-error` event carries: why the image cannot be shown at all. */
export interface LadderErrorDetail {
  message: string;
}

/** The options of a view: the element's attributes, or `showLadder`'s argument. */
export interface LadderOptions {
  /** The URL of the folder that holds the manifest and its index (resolved against the page). */
  base: string;
  /** The SHA1 of the image's source file: 40 hexadecimal digits. */
  sha1?: string;
  /** Or the source path as the manifest lists it ("photos/cat.jpg"); reads the whole manifest. */
  source?: string;
  /** The manifest's file name, when it is not manifest.json (its index is NAME.index/). */
  manifest?: string;
  /** Alternative text; the box gets role="img" and this label. */
  alt?: string;
  /** Default "contain". */
  fit?: LadderFit;
  /** The formats the page may use, space- or comma-separated ("jpeg" alone keeps the progressive JPEG). */
  formats?: string;
  /** "lazy" (default): rungs load once the box is near the viewport; "eager": at once. */
  loading?: "lazy" | "eager";
  /** The picture's width and height (any unit), for its shape before the index arrives. */
  width?: number | string;
  height?: number | string;
}

/** One rung of an image, as the page loads it. */
export interface LadderRung {
  name: string;
  width: number;
  height: number;
  bytes: number;
  progressive: boolean;
  scanEnds: number[] | null;
  /** The files of the rung in the order the page prefers them: siblings smaller than the JPEG, lightest first, then the JPEG. */
  files: Array<{ format: LadderFormat; type: string; url: string; bytes: number }>;
}

/**
 * An entry's rungs, smallest first (by pixels, then bytes, then name).
 * @param entry an index or manifest entry
 * @param folder the manifest's folder URL
 * @param allowed the formats the page may use (all when absent)
 */
export function rungsOf(entry: object, folder: string, allowed?: ReadonlySet<string> | null): LadderRung[];

/**
 * The index of the smallest rung sharp enough for a box of `width` x `height` device pixels, or
 * of the largest rung when none is.
 */
export function chooseRung(
  rungs: ReadonlyArray<{ width: number; height: number }>,
  width: number,
  height: number,
  fit?: LadderFit,
): number;

/** The index folder of a manifest: "index" for manifest.json, "NAME.index" for NAME.json. */
export function indexFolder(manifestName?: string): string;

/** One published ladder (a manifest's folder and name), shared by every view of it. */
export class Catalog {
  constructor(folder: string, manifestName?: string);
  readonly folder: string;
  readonly manifestName: string;
  readonly indexURL: string;
  readonly manifestURL: string;
  layout(): Promise<{ version: 1; prefixLength: number }>;
  /** The index entry of the image with this SHA1 (40 lowercase hex digits). */
  entry(sha1: string): Promise<object>;
  /** The SHA1 and manifest entry of the image built from a source path. */
  entryForSource(source: string): Promise<{ sha1: string; entry: object }>;
}

/** The shared Catalog of a manifest's folder and name. */
export function catalogFor(base: string, manifestName?: string): Catalog;

/** How far outside the viewport elements start loading (a CSS margin; default "1250px"). */
export function setNearMargin(margin: string): void;

/** Why an index file, a manifest or an entry cannot be used. */
export class LadderError extends Error {}

/** What `showLadder` returns. */
export interface LadderHandle {
  /** The rung on screen: "placeholder", a variant's name, or null. */
  readonly rung: string | null;
  /** Gives the whole new set of options; another image starts over. */
  update(options: LadderOptions & { onRung?: (detail: LadderRungDetail) => void }): void;
  /** Aborts every download and removes the pictures. */
  destroy(): void;
}

/**
 * The `<ladder-image>` behaviour on an element a framework owns: the pictures go inside
 * `container`, sized by its box; `ladder-rung` events bubble from it. Problems with the options
 * are reported on the console, never thrown.
 */
export function showLadder(
  container: HTMLElement,
  options: LadderOptions & { onRung?: (detail: LadderRungDetail) => void },
): LadderHandle;

/** The view behind the element and `showLadder`. */
export class LadderView {
  constructor(host: HTMLElement, root: HTMLElement | ShadowRoot, settings: { describe: () => string });
  readonly rung: string | null;
  configure(options: Partial<Record<keyof LadderOptions, string | null>> | LadderOptions): void;
  connect(): void;
  disconnect(): void;
  destroy(): void;
}

/** An element as a console message names it: its tag and identifying attributes. */
export function describeElement(element: Element): string;

/**
 * Reads a view's options as given (attribute values or props), with what is wrong with them;
 * `options` is null when the image cannot be shown (no usable `base`, `sha1` or `source`).
 */
export function readOptions(given: Partial<Record<keyof LadderOptions, unknown>>): {
  options: {
    base: string;
    sha1: string | null;
    source: string | null;
    manifest: string;
    alt: string | null;
    fit: LadderFit;
    formats: Set<string> | null;
    loading: "lazy" | "eager";
    width: number | null;
    height: number | null;
  } | null;
  problems: Array<{ name: string; message: string }>;
};
