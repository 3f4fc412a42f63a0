/**
 * The sign-up draft (issue 22; ADR-0055): the form's
 * values kept in the tab's `sessionStorage` as they are typed, so that a
 * reload, or a tab the browser discarded, brings the form back as it was.
 * Tab-scoped and gone when the tab closes (HTML standard, "The
 * sessionStorage getter"); the captcha token is never part of it.
 *
 * The inline script (src/inputCapture/inputCapture.ts) fills the prerendered form
 * from the draft and saves typing until the app runs; from then on the app
 * writes the machine's values (src/signUp/views/draftSync.ts). Both use this
 * module, so it stays small and imports nothing at run time. Storage may throw at every
 * step (storage disabled, Safari's private mode, the quota): every function
 * here swallows that, and the form then works without a draft.
 */
import type { SignUpValues } from '../../machines/signUpMachine';

/** The text fields a draft and an address prefill hold. */
export const DRAFT_TEXT_FIELDS = ['name', 'email', 'url'] as const;
/** The checkboxes a draft holds. */
export const DRAFT_CHECKBOX_FIELDS = ['newsletter', 'tos'] as const;

/**
 * The draft's `sessionStorage` key, named after the product as its cookies
 * are (common/cookieNames.ts): `{product}_SIGNUP_DRAFT`.
 */
export function draftKey(productName: string): string {
  return `${productName}_SIGNUP_DRAFT`;
}

/** Where a draft lives: the storage (its getter may throw) and the key. */
export interface DraftPlace {
  /** E.g. `() => window.sessionStorage` (the getter itself may throw). */
  storage: () => Storage;
  key: string;
}

/**
 * @returns the stored draft: only the fields of {@link SignUpValues} with
 *   the right type (strings, booleans); `{}` when there is none, when it
 *   is not a JSON object, or when storage throws
 */
export function readDraft(place: DraftPlace): Partial<SignUpValues> {
  try {
    const stored: unknown = JSON.parse(
      place.storage().getItem(place.key) ?? 'null',
    );
    if (typeof stored !== 'object' || stored === null) return {};
    const record = stored as Record<string, unknown>;
    const draft: Partial<SignUpValues> = {};
    for (const field of DRAFT_TEXT_FIELDS) {
      const value = record[field];
      if (typeof value === 'string') draft[field] = value;
    }
    for (const field of DRAFT_CHECKBOX_FIELDS) {
      const value = record[field];
      if (typeof value === 'boolean') draft[field] = value;
    }
    return draft;
  } catch {
    return {};
  }
}

/**
 * Stores the five values as the draft (JSON), replacing any earlier one;
 * does nothing when storage throws.
 */
export function writeDraft(place: DraftPlace, values: SignUpValues): void {
  try {
    place.storage().setItem(
      place.key,
      // The replacer keeps these keys only, in this order.
      JSON.stringify(values, [...DRAFT_TEXT_FIELDS, ...DRAFT_CHECKBOX_FIELDS]),
    );
  } catch {
    // No draft: the form works without one.
  }
}

/** Deletes the draft; does nothing when storage throws. */
export function deleteDraft(place: DraftPlace): void {
  try {
    place.storage().removeItem(place.key);
  } catch {
    // Nothing stored can be deleted either.
  }
}

/**
 * Whether the address names a text field (a new link: its prefill wins
 * over the draft, ADR-0055), as src/signUp/prefill.ts reads it: a parameter
 * that is not blank once trimmed, whether or not its value passes the field's
 * rule (a link's refused value leaves the field empty, not the draft's).
 *
 * @param search `location.search`, e.g. `?email=ada%40example.com`
 */
export function addressNames(
  search: string,
  field: (typeof DRAFT_TEXT_FIELDS)[number],
): boolean {
  return Boolean(new URLSearchParams(search).get(field)?.trim());
}
