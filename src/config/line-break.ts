/**
 * A secret or client id exported with a trailing line break (`kubectl get secret … | base64 -d`, `echo "$X" >`)
 * is meant without it: no secret or id ends in one. Only one trailing `\n` or `\r\n` (or a lone `\r`) is removed.
 */
export function withoutTrailingLineBreak(value: string): { value: string; stripped: boolean } {
  const stripped = value.replace(/(?:\r\n|\n|\r)$/, '');
  return { value: stripped, stripped: stripped !== value };
}
