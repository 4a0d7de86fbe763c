/**
 * Whether `edit` and `batch_edit` may work on windows of a file's lines
 * (see text/edit-window.ts and text/line-windows.ts) instead of the whole
 * file. Always on in the product; a test turns it off to hold the results
 * of both paths equal, call for call.
 */
export const windowing = { enabled: true };
