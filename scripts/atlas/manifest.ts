/**
 * The atlas's manifest (`atlas/manifest.json`): the widths and appearances
 * it pictures and what it records of each shot. Data and types only, so
 * that the page that shows the atlas (html.ts) and the code that takes the
 * shots (shoot.ts) both import it, and neither imports the other.
 */
import { DESKTOP, PHONE } from '../../harness/page/signUpPage';
import type { Moment } from './plan';

/**
 * The widths the atlas can picture: harness/page/signUpPage.ts's phone and
 * desktop, and WCAG 1.4.10's reflow cases: 320 CSS px, and 1280 × 900 at
 * 200 % zoom (640 × 450).
 */
export const WIDTHS = {
  phone: PHONE,
  desktop: DESKTOP,
  reflow320: { width: 320, height: 640 },
  zoom200: { width: 640, height: 450 },
} as const;
export type Width = keyof typeof WIDTHS;

/**
 * How the page is pictured: the light scheme, the dark scheme
 * (`prefers-color-scheme: dark`), forced colours (`forced-colors: active`,
 * Windows high contrast, on a light system theme).
 */
export type Appearance = 'light' | 'dark' | 'forced';

/** A shot as the manifest and the page give it: plain, serialisable data. */
export interface ShotRecord {
  id: string;
  stateId: string;
  variant: string | null;
  moment: Moment;
  nodes: string[];
  tags: string[];
  accepts: string[];
  leadsTo: string[];
  /** Where the visit started, e.g. `stored unset, utm_source=google`. */
  from: string;
  /** The events that reached the state, e.g. `name: Ada Lovelace`. */
  events: string[];
  /**
   * Paths relative to the atlas directory, by appearance and width: one
   * for each width the atlas was built with.
   */
  files: {
    light: Partial<Record<Width, string>>;
    dark: Partial<Record<Width, string>>;
    /** Only for the shots also pictured in forced colours (shoot.ts). */
    forced?: Partial<Record<Width, string>>;
  };
}

export interface AtlasManifest {
  /** The widths pictured, in the order the atlas shows them. */
  widths: Width[];
  machines: { name: string; machineId: string; shots: ShotRecord[] }[];
}
