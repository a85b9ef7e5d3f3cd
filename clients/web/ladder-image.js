// <ladder-image>: an image from a ladder build, walked up its rungs as the page needs them.
//
//   <script type="module" src="/ladder/ladder-image.js"></script>
//   <ladder-image base="https://cdn.example.com/photos/" sha1="3fa4…c2" alt="A cat"></ladder-image>
//
// Importing this module defines the element (once, and only where custom elements exist, so that
// server-side rendering can import it). It also exports `showLadder`, the same behaviour on any
// element, for frameworks. docs/WEB_CLIENT.md is the reference.

import { LadderView, describeElement, showLadder } from "./ladder.js";

export { showLadder, chooseRung, rungsOf, catalogFor, setNearMargin, formatTypes } from "./ladder.js";

/** The attributes the element reads; each is reflected by a property of the same name. */
const attributes = ["base", "sha1", "source", "manifest", "alt", "fit", "formats", "loading", "width", "height"];

const styles = `
:host { display: block; position: relative; overflow: hidden; contain: paint;
        aspect-ratio: var(--ladder-aspect-ratio, auto); background-color: var(--ladder-background, transparent); }
:host([hidden]) { display: none; }
`;

let sheet = null;

/** The shared style sheet, where constructable sheets exist; otherwise a <style> per element. */
function adoptStyles(root) {
  if (globalThis.CSSStyleSheet && "adoptedStyleSheets" in root) {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(styles);
    }
    root.adoptedStyleSheets = [sheet];
  } else {
    const style = root.ownerDocument.createElement("style");
    style.textContent = styles;
    root.append(style);
  }
}

const Base = globalThis.HTMLElement ?? class {};

export class LadderImageElement extends Base {
  static get observedAttributes() {
    return attributes;
  }

  constructor() {
    super();
    const root = this.attachShadow({ mode: "open" });
    adoptStyles(root);
    this._view = new LadderView(this, root, { describe: () => describeElement(this) });
    this._pending = false;
    this._connected = false;
  }

  /** The rung on screen: "placeholder", then the name of each variant as it is shown; null before. */
  get rung() {
    return this._view.rung;
  }

  connectedCallback() {
    this._connected = true;
    this._configure();
    this._view.connect();
  }

  disconnectedCallback() {
    this._connected = false;
    this._view.disconnect();
  }

  attributeChangedCallback() {
    // Before connectedCallback (the parser, an upgrade) there is nothing to update yet.
    if (!this._connected || this._pending) return;
    // Several attributes set one after another are read once.
    this._pending = true;
    queueMicrotask(() => {
      this._pending = false;
      if (this.isConnected) this._configure();
    });
  }

  _configure() {
    const given = {};
    for (const name of attributes) given[name] = this.getAttribute(name);
    this._view.configure(given);
  }
}

for (const name of attributes) {
  Object.defineProperty(LadderImageElement.prototype, name, {
    get() {
      return this.getAttribute(name);
    },
    set(value) {
      if (value === null || value === undefined) this.removeAttribute(name);
      else this.setAttribute(name, String(value));
    },
    configurable: true,
    enumerable: true,
  });
}

if (globalThis.customElements && !customElements.get("ladder-image")) {
  customElements.define("ladder-image", LadderImageElement);
}
