import type { AppConfig } from '../../common/config';

/**
 * The configuration the page was built with. The build (scripts/build.ts,
 * and scripts/dev.ts for the development server) reads and checks it with
 * `readConfig` and hands the result to Parcel as one JSON variable,
 * {@link PAGE_CONFIG_VARIABLE}, which Parcel inlines here: only these
 * values reach the bundle (never the rest of the build environment), and
 * the checks do not ship to every visitor.
 *
 * @throws Error when the bundle was built without it (Parcel run directly)
 */
function builtConfig(): AppConfig {
  const json = process.env.VIGIL_PAGE_CONFIG;
  if (!json) {
    throw new Error(
      'VIGIL_PAGE_CONFIG is not set: build the page with npm run build or npm run dev',
    );
  }
  return Object.freeze(JSON.parse(json) as AppConfig);
}

export const config: AppConfig = builtConfig();
