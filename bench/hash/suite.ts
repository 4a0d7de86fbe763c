/**
 * One runtime's share of the hashing benchmark: for each size, generate the
 * text and time the JS and WASM line hashers on it, alternating. Pure apart
 * from the clock, so the same code runs in the Node/Deno/Bun child and in
 * the workerd worker.
 */
import { jsHasher } from "../../src/hash/js.ts";
import { loadWasmHasher } from "../../src/hash/loader.ts";
import { measure } from "./measure.ts";
import { sourceLikeText } from "./text.ts";

/** Parameters every runtime receives from bench/hash/run.ts. */
export interface SuiteParams {
  /** Input sizes in MB (1e6 bytes). */
  readonly sizes: readonly number[];
  /** Samples per backend and size. */
  readonly runs: number;
  /** Minimum duration of one sample in ms (short inputs repeat the call). */
  readonly minSampleMs: number;
}

/** Raw MB/s samples of one backend on one size. */
export interface SampleRow {
  readonly backend: "js" | "wasm";
  readonly sizeMB: number;
  /** Lines in the generated text (the same on every runtime for a size). */
  readonly lines: number;
  readonly samples: number[];
}

/**
 * Measure both backends on every size. The WASM hasher is the shipped one
 * (`loadWasmHasher` with default options, so exactly what `createHasher`
 * returns when it picks WASM), timed end to end through `hashLines`: copy in
 * (in 1 MiB pieces above 2 MiB), hash, and results as a caller gets them
 * (views of reused memory, valid until the next call).
 */
export async function runSuite(wasm: WebAssembly.Module | BufferSource, params: SuiteParams, now?: () => number): Promise<SampleRow[]> {
  const wasmHasher = await loadWasmHasher(wasm);
  const contenders = [
    { name: "js", hashLines: jsHasher.hashLines },
    { name: "wasm", hashLines: wasmHasher.hashLines },
  ];
  const rows: SampleRow[] = [];
  for (const sizeMB of params.sizes) {
    const bytes = sourceLikeText(Math.round(sizeMB * 1e6));
    const lines = jsHasher.hashLines(bytes).count;
    const samples = measure(contenders, bytes, { runs: params.runs, minSampleMs: params.minSampleMs, now });
    rows.push({ backend: "js", sizeMB, lines, samples: samples.js });
    rows.push({ backend: "wasm", sizeMB, lines, samples: samples.wasm });
  }
  return rows;
}
