/**
 * The page around the form: the product's pitch, the card the form sits
 * in, the footer with the consent settings, and the place of the consent
 * modal. Its markup never changes, so the page's script does not carry it:
 * the build renders it once into index.html (scripts/build.ts), and the
 * script fills its three slots, each a React root of its own (src/main.tsx,
 * ADR-0072): the form, hydrated; the settings link and the
 * modal, rendered. The development server, which serves index.html as it
 * is, and the jsdom tests render it whole.
 */
import type { ReactNode } from 'react';

/** The ids of the three slots the page's script fills. */
export const SLOTS = {
  form: 'signup-root',
  settings: 'consent-settings-root',
  modal: 'consent-root',
} as const;

export interface PageShellProps {
  productName: string;
  /** The sign-up form (SignUpForm.tsx). */
  form: ReactNode;
  /** The "Cookie settings" link (consentView.tsx); none in the prerender. */
  settings?: ReactNode;
  /** The consent modal (consentView.tsx); none in the prerender. */
  modal?: ReactNode;
}

/**
 * The whole sign-up page. The page (`.page`) turns `inert` while the
 * consent modal, which follows it, is open (consentView.tsx).
 */
export function PageShell({
  productName,
  form,
  settings,
  modal,
}: PageShellProps) {
  return (
    <>
      <div className="page">
        <header className="page__header">
          <a className="brand" href="/">
            <svg
              className="brand__mark"
              viewBox="0 0 24 24"
              aria-hidden="true"
              focusable="false"
            >
              <path d="M2 12h4l3-7 4 14 3-7h6" />
            </svg>
            <span className="brand__name">{productName}</span>
          </a>
        </header>
        <main className="page__main">
          <section className="intro" aria-labelledby="intro-title">
            <h1 id="intro-title" className="intro__title">
              Know when your website goes down, before your customers do
            </h1>
            <p className="intro__text">
              {productName} keeps an eye on your site around the clock and tells
              you the moment it stops answering. Create your account to start
              monitoring.
            </p>
          </section>
          <section className="card" aria-labelledby="signup-title">
            <h2 id="signup-title" className="card__title">
              Create your account
            </h2>
            <div id={SLOTS.form} className="slot">
              {form}
            </div>
          </section>
        </main>
        <footer className="page__footer">
          <p>© {productName}. We use your details only to run your account.</p>
          <div id={SLOTS.settings} className="slot">
            {settings}
          </div>
        </footer>
      </div>
      <div id={SLOTS.modal}>{modal}</div>
    </>
  );
}
