/** Hand-made index damage for the tests: a payload rewritten with every checksum made to agree again. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

const PAGED: string[] = ['postings.bin', 'direct.bin', 'store.bin', 'lexicon.bin', 'docs.bin'];

/**
 * Rewrites one file's payload (for a paged file, its data: docs/INDEX_FORMAT.md "Paged files"),
 * in place or by returning a replacement, and makes every checksum and meta.bin's manifest agree again.
 */
export function tamper(dir: string, name: string, mutate: (payload: Buffer) => unknown): void {
  const rewrite = (file: string, change: (payload: Buffer) => Buffer) => {
    const data = readFileSync(join(dir, file));
    const header = Buffer.from(data.subarray(0, 48));
    let payload = Buffer.from(data.subarray(48));
    let covered: Buffer;
    if (PAGED.includes(file)) {
      const dataBytes = Number(payload.readBigUInt64LE(payload.length - 8));
      const body = change(Buffer.from(payload.subarray(0, dataBytes)));
      const table = Buffer.alloc(Math.ceil(body.length / 4096) * 4 + 12);
      for (let p = 0; p * 4096 < body.length; p++) table.writeUInt32LE(crc32(body.subarray(p * 4096, (p + 1) * 4096)) >>> 0, p * 4);
      table.writeUInt32LE(4096, table.length - 12);
      table.writeBigUInt64LE(BigInt(body.length), table.length - 8);
      payload = Buffer.concat([body, table]);
      covered = Buffer.concat([header.subarray(32, 48), table]);
    } else {
      payload = change(payload);
      covered = Buffer.concat([header.subarray(32, 48), payload]);
    }
    header.writeBigUInt64LE(BigInt(payload.length), 12);
    header.writeUInt32LE(crc32(covered) >>> 0, 20);
    header.writeUInt32LE(crc32(header.subarray(0, 24)) >>> 0, 24);
    writeFileSync(join(dir, file), Buffer.concat([header, payload]));
    return { bytes: 48 + payload.length, crc32: crc32(covered) >>> 0 };
  };
  const entry = rewrite(name, (p) => {
    // A callback that returns a Buffer replaces the payload; any other (an assignment's value) changed it in place.
    const replacement = mutate(p);
    return Buffer.isBuffer(replacement) ? replacement : p;
  });
  rewrite('meta.bin', (p) => {
    const meta = JSON.parse(p.toString('utf8')) as { files: Record<string, unknown> };
    meta.files[name] = entry;
    return Buffer.from(JSON.stringify(meta), 'utf8');
  });
}

/** A paged file's data (its payload without the page table), e.g. to put another build's into an index with tamper. */
export function pagedData(dir: string, name: string): Buffer {
  const payload = readFileSync(join(dir, name)).subarray(48);
  return Buffer.from(payload.subarray(0, Number(payload.readBigUInt64LE(payload.length - 8))));
}
