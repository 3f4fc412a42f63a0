import {
  ConsentDialog,
  ConsentSettingsLink,
  useConsentView,
  type ConsentActor,
} from './ConsentDialog';
import { SignUpForm, type SignUpFormProps } from './SignUpForm';

export interface SignUpPageProps extends SignUpFormProps {
  /** The running consent actor (started once, outside React: src/app.tsx). */
  consent: ConsentActor;
}

/**
 * The whole sign-up page: the product's pitch beside the form, the footer
 * with the consent settings, and the consent modal, while which the page
 * behind is `inert` (HTML standard: neither focusable nor clickable).
 */
export function SignUpPage({ consent, ...formProps }: SignUpPageProps) {
  const { productName } = formProps;
  const { open: modalOpen } = useConsentView(consent);
  return (
    <>
      <div className="page" inert={modalOpen}>
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
      <ConsentDialog consent={consent} productName={productName} />
    </>
  );
}
