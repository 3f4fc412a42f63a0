/**
 * The service's secrets (ADR-0045, ADR-0046, ADR-0096): one-time
 * tokens, sessions and magic links' tokens are 32 random bytes, given to
 * the browser or the mail that owns them and stored only as their SHA-256.
 * One module, which the accounts and the mail both import.
 */
import { createHash, randomBytes } from 'node:crypto';

/**
 * @param secret a token or a session as given out (base64url text)
 * @returns its SHA-256 (32 bytes), as the database stores it
 */
export function secretHash(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** @returns 32 random bytes, base64url (43 characters): a token or a session */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}
