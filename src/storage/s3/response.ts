/**
 * Small facts about S3 responses, shared by the provider and the probe.
 */

export const isOk = (status: number): boolean => status >= 200 && status < 300;

/** 412 (and 409, which AWS may answer to a lost race) mean a condition failed and nothing was written. */
export const conditionFailed = (status: number): boolean => status === 412 || status === 409;

/** Release a response body we do not read (keeps the connection reusable). */
export async function drain(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/**
 * How many bytes the body will deliver: the Content-Length, when there is a
 * well-formed one and no Content-Encoding (fetch decodes an object uploaded
 * gzipped, so its length is not the length of what arrives).
 */
export function contentLength(response: Response): number | undefined {
  const encoding = response.headers.get("content-encoding")?.trim().toLowerCase();
  if (encoding && encoding !== "identity") return undefined;
  const raw = response.headers.get("content-length")?.trim();
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}
