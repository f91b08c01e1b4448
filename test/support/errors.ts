/** The error of class `type` that `fn` throws (the test fails when it throws anything else, or nothing). */
import { expect } from 'vitest';

export function thrownBy<E extends Error>(type: abstract new (...args: never[]) => E, fn: () => unknown): E {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(type);
    return err as E;
  }
  throw new Error(`expected a ${type.name}`);
}
