import type { OutputFormat } from '../global-options.js';

/**
 * Data was asked for (`-o json|yaml|ndjson`, `--json`), not merely the default off a terminal: then a reference, an
 * aside and a failure are data too (the Printer, `writeHelpEntry`, the error report).
 */
export function asksForData(view: { readonly format: OutputFormat; readonly formatChosen: boolean }): boolean {
  return view.formatChosen && view.format !== 'table' && view.format !== 'wide';
}
