import { expect, it } from 'vitest';
import { isValidEmail } from '../../src/validation';
it('runs', () => expect(isValidEmail('a@b.co')).toBe(true));
