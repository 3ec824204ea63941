// Package signin signs people in through external identity providers
// (generic OpenID Connect, GitHub, Google) with goth: it builds the
// providers from configuration, starts a flow (state, nonce and PKCE kept by
// the caller in a sealed cookie), completes it into a verified Identity, and
// says who may sign in (Policy). It keeps no session and no globals.
package signin
