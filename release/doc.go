// Package release holds no code: it is the home of the release scripts
// (build.sh, verify.sh) and of the test that builds a release for the host
// platform, signs it with a throwaway key and verifies it as a user would.
package release
