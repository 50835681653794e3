import { describe, expect, it } from 'vitest';
import { jsonDocument, jsonLine } from '../../src/render/json.js';

describe('JSON output', () => {
  it('never emits an ESC, C1 or bidi character raw, and stays valid JSON', () => {
    const value = { s: '\u001b]0;title\u0007 \u009b \u202e' };
    for (const text of [jsonDocument(value), jsonLine(value)]) {
      expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
      expect(JSON.parse(text)).toEqual(value);
    }
  });
});
