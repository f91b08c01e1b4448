/** The IndexError `fn` throws (the test fails when it throws anything else, or nothing). */
import { expect } from 'vitest';
import { IndexError } from '../../../server/engine/index/disk.js';

export function errorOf(fn: () => unknown): IndexError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(IndexError);
    return err as IndexError;
  }
  throw new Error('expected an IndexError');
}
