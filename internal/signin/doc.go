// Package signin signs people in through external identity providers:
// OpenID Connect (any issuer, and Google) with its own authorization-code
// flow (state, nonce, PKCE) and every ID token verified with zitadel/oidc's
// relying-party verifier against the provider's keys; GitHub (no ID tokens)
// through goth. Discovery never blocks the caller: Providers.Run reads it in
// the background with timeouts and backoff. The flow is kept by the caller
// in a sealed cookie; Policy says who may sign in. It keeps no session and no
// globals.
package signin
