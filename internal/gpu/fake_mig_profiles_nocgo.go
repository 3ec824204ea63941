//go:build !cgo

package gpu

import "errors"

// fakeProfiles would read the MIG profiles from go-nvml's mock, which
// needs cgo.
func fakeProfiles(string) ([]Profile, error) {
	return nil, errors.New("the fake's MIG profiles come from go-nvml's mock: build gpusched with cgo (CGO_ENABLED=1)")
}
