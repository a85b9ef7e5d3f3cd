// Compiled by test_types.py with tsc --strict: the package's declarations describe what a page
// writes with it. Nothing runs this file.
import { LadderImageElement, chooseRung, rungsOf, setNearMargin, showLadder } from "../ladder-image.js";
import type { LadderHandle, LadderRungDetail } from "../ladder-image.js";
import { catalogFor, indexFolder } from "../ladder.js";
import { base64ToBytes, thumbHashToCanvas, thumbHashToRGBA } from "../thumbhash.js";

const element: LadderImageElement = document.createElement("ladder-image");
element.base = "/photos/";
element.sha1 = "3fa4c2d1e0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5";
element.fit = "cover";
const shown: string | null = element.rung;
element.addEventListener("ladder-rung", (event) => {
  const detail: LadderRungDetail = event.detail;
  const url: string | null = detail.url;
  if (detail.error) console.warn(detail.rung, detail.format, url, detail.error);
});
element.addEventListener("ladder-error", (event) => console.error(event.detail.message));

const handle: LadderHandle = showLadder(document.createElement("div"), {
  base: "/photos/",
  source: "photos/cat.jpg",
  alt: "A cat",
  fit: "contain",
  loading: "eager",
  width: 4000,
  height: 3000,
  onRung: (detail) => console.log(detail.rung, detail.width),
});
handle.update({ base: "/photos/", sha1: "3fa4c2d1e0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5" });
handle.destroy();

setNearMargin("800px 0px");
const index: number = chooseRung([{ width: 160, height: 120 }], 300, 300, "cover");
const folder: string = indexFolder("photos.json");
catalogFor("/photos/").entry("3fa4c2d1e0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5").then((entry) => {
  for (const rung of rungsOf(entry, "https://example.com/photos/")) console.log(rung.name, rung.files[0].type);
});

const hash = base64ToBytes("3wcKNZqAh3dwd3d4eHh3eHCAB/h3");
const picture = hash ? thumbHashToRGBA(hash) : null;
const canvas: HTMLCanvasElement | null = hash ? thumbHashToCanvas(hash) : null;
console.log(shown, index, folder, picture?.width, canvas);
