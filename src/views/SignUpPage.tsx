import { useEffect, useState } from 'react';
import type { ConsentDialog } from './ConsentDialog';
import {
  ConsentSettingsLink,
  useConsentView,
  type ConsentActor,
} from './consentView';
import { SignUpForm, type SignUpFormProps } from './SignUpForm';

/**
 * The consent modal's component once its chunk has arrived: it is fetched
 * the first time the modal opens (D64 in docs/decisions.md), since most
 * visits never open it.
 */
let LoadedDialog: typeof ConsentDialog | undefined;

/**
 * Fetches the consent modal's chunk when `open` first turns true.
 *
 * @returns whether {@link LoadedDialog} is there; false before, and for
 *   good when the chunk cannot be fetched (the page stays usable, and with
 *   no choice made no tag loads)
 */
function useConsentDialogLoaded(open: boolean): boolean {
  const [loaded, setLoaded] = useState(LoadedDialog !== undefined);
  useEffect(() => {
    if (!open || loaded) return;
    let current = true;
    import('./ConsentDialog').then(
      ({ ConsentDialog }) => {
        LoadedDialog = ConsentDialog;
        if (current) setLoaded(true);
      },
      () => {},
    );
    return () => {
      current = false;
    };
  }, [open, loaded]);
  return loaded;
}

export interface SignUpPageProps extends SignUpFormProps {
  /** The running consent actor (started once, outside React: src/app.tsx). */
  consent: ConsentActor;
}

/**
 * The whole sign-up page: the product's pitch beside the form, the footer
 * with the consent settings, and the consent modal, while which the page
 * behind is `inert` (HTML standard: neither focusable nor clickable). The
 * page turns inert only once the modal is there to take its place.
 */
export function SignUpPage({ consent, ...formProps }: SignUpPageProps) {
  const { productName } = formProps;
  const consentView = useConsentView(consent);
  const modalOpen = consentView.open;
  const dialogLoaded = useConsentDialogLoaded(modalOpen);
  return (
    <>
      <div className="page" inert={modalOpen && dialogLoaded}>
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
            <SignUpForm {...formProps} />
          </section>
        </main>
        <footer className="page__footer">
          <p>© {productName}. We use your details only to run your account.</p>
          <ConsentSettingsLink consent={consent} />
        </footer>
      </div>
      {dialogLoaded && LoadedDialog && (
        <LoadedDialog
          view={consentView}
          consent={consent}
          productName={productName}
        />
      )}
    </>
  );
}
