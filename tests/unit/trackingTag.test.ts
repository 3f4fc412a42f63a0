// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import {
  loadTrackingTag,
  removeTrackingTag,
} from '../../src/consent/trackingTag';

const TAG_URL = 'https://tags.example/tag.js';
const tags = () =>
  document.querySelectorAll('script[data-testid="tracking-tag"]');

afterEach(() => removeTrackingTag(document));

describe('the tracking tag', () => {
  it('loads as one async script[data-testid=tracking-tag] in the head', () => {
    loadTrackingTag(document, TAG_URL);
    const [script, ...more] = tags();
    expect(more).toHaveLength(0);
    expect(script?.parentElement).toBe(document.head);
    expect(script?.getAttribute('src')).toBe(TAG_URL);
    expect((script as HTMLScriptElement).async).toBe(true);
  });

  it('loads once however often it is asked (StrictMode reruns effects)', () => {
    loadTrackingTag(document, TAG_URL);
    loadTrackingTag(document, TAG_URL);
    expect(tags()).toHaveLength(1);
  });

  it('is removed, and can be loaded again after', () => {
    loadTrackingTag(document, TAG_URL);
    removeTrackingTag(document);
    expect(tags()).toHaveLength(0);
    loadTrackingTag(document, TAG_URL);
    expect(tags()).toHaveLength(1);
  });
});
