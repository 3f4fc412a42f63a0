import { readConfig, type AppConfig } from './config';

/**
 * The configuration the page was built with. Parcel replaces each literal
 * `process.env.NAME` below with its build-time value, so only these five
 * variables reach the bundle (never the rest of the build environment).
 */
export const config: AppConfig = readConfig({
  PRODUCT_NAME: process.env.PRODUCT_NAME,
  COOKIE_DOMAIN: process.env.COOKIE_DOMAIN,
  RECAPTCHA_SITE_KEY: process.env.RECAPTCHA_SITE_KEY,
  TRACKING_TAG_URL: process.env.TRACKING_TAG_URL,
  API_ORIGIN: process.env.API_ORIGIN,
  SENTRY_DSN: process.env.SENTRY_DSN,
});
