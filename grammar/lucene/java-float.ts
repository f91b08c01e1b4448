/**
 * Java's number conversions as Lucene's query parser applies them to `~` slops:
 * `Float.parseFloat(text)` (undefined where Java throws, which the parser catches and
 * ignores) and the `(int)` cast of a float.
 */

const DECIMAL = /^[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)$/;
const HEX = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)[fFdD]?$/;

/** Float.parseFloat: the float32 value of `text`, or undefined for a NumberFormatException. */
export function javaParseFloat(text: string): number | undefined {
  // Java trims ASCII control characters and spaces around the number.
  const s = text.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  if (DECIMAL.test(s)) {
    const body = s.replace(/[fFdD]$/, '');
    if (body.endsWith('NaN')) return Number.NaN;
    if (body.endsWith('Infinity')) return body.startsWith('-') ? -Infinity : Infinity;
    return Math.fround(Number(body));
  }
  const hex = HEX.exec(s);
  if (hex && (hex[2] !== '' || (hex[3] ?? '') !== '')) {
    const digits = hex[2] + (hex[3] ?? '');
    const mantissa = digits === '' ? 0 : Number.parseInt(digits, 16);
    const value = mantissa * 2 ** (Number(hex[4]) - 4 * (hex[3] ?? '').length);
    return Math.fround(hex[1] === '-' ? -value : value);
  }
  return undefined;
}

/** Java's `(int) f`: NaN is 0, values beyond the int range saturate, the rest truncate. */
export function javaIntCast(f: number): number {
  if (Number.isNaN(f)) return 0;
  if (f >= 2147483647) return 2147483647;
  if (f <= -2147483648) return -2147483648;
  return Math.trunc(f);
}
