/** An append-only Int32 buffer that doubles when full: compact accumulation without JS arrays of boxed numbers. */
export class GrowableInt32 {
  private data: Int32Array;
  length = 0;

  constructor(initialCapacity = 1024) {
    this.data = new Int32Array(Math.max(16, initialCapacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  /** Pushes every value, plus `offset` (rebasing offsets from another buffer). */
  append(values: Int32Array, offset = 0): void {
    let size = this.data.length;
    while (size < this.length + values.length) size *= 2;
    if (size !== this.data.length) {
      const bigger = new Int32Array(size);
      bigger.set(this.data.subarray(0, this.length));
      this.data = bigger;
    }
    if (offset === 0) this.data.set(values, this.length);
    else for (let i = 0; i < values.length; i++) this.data[this.length + i] = values[i]! + offset;
    this.length += values.length;
  }

  get(i: number): number {
    return this.data[i]!;
  }

  /** A view of the filled part (shares memory until the next push that grows the buffer). */
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }

  /** An exact-size copy, so the spare capacity can be collected. */
  toArray(): Int32Array {
    return this.data.slice(0, this.length);
  }
}
