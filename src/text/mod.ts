export * from "./lines.ts";
export * from "./eol.ts";
export * from "./ids.ts";
export * from "./document.ts";
export * from "./render.ts";
