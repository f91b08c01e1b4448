/** The IndexError `fn` throws (the test fails when it throws anything else, or nothing). */
import { IndexError } from '../../../server/engine/index/disk.js';
import { thrownBy } from '../../support/errors.js';

export function errorOf(fn: () => unknown): IndexError {
  return thrownBy(IndexError, fn);
}
