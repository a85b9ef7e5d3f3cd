import type { LadderErrorDetail, LadderFit, LadderRungDetail } from "./ladder.js";

export type {
  LadderErrorDetail,
  LadderFit,
  LadderFormat,
  LadderHandle,
  LadderOptions,
  LadderRung,
  LadderRungDetail,
} from "./ladder.js";
export { catalogFor, chooseRung, formatTypes, rungsOf, setNearMargin, showLadder } from "./ladder.js";

/**
 * `<ladder-image base="…" sha1="…" alt="…">`: an image from a ladder build, placeholder first,
 * then each rung up to the one its box needs. Each attribute is reflected by a property.
 */
export class LadderImageElement extends HTMLElement {
  static readonly observedAttributes: string[];
  /** The rung on screen: "placeholder", then each variant's name as it is shown; null before. */
  readonly rung: string | null;
  base: string | null;
  sha1: string | null;
  source: string | null;
  manifest: string | null;
  alt: string | null;
  fit: LadderFit | string | null;
  formats: string | null;
  loading: "lazy" | "eager" | string | null;
  width: string | null;
  height: string | null;
}

declare global {
  interface HTMLElementTagNameMap {
    "ladder-image": LadderImageElement;
  }
  interface HTMLElementEventMap {
    "ladder-rung": CustomEvent<LadderRungDetail>;
    "ladder-error": CustomEvent<LadderErrorDetail>;
  }
}
